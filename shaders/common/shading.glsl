// The shared shading path (every method): the surface's colour (materials.glsl), central-difference normal of
// the visible layer, 0.25 + 0.75·visibility·max(0, n·l), cave factor on the floor under a slab, horizontal fog.
// Requires globals.glsl and surface.glsl.

#include "shadow.glsl"
#include "materials.glsl"

// What lies at point p of column s on the layer it is on, as the material set sees it: the control map's texel
// of the column (on a top looked up through a little noise, so borders between texels are ragged rather than
// square; on a side, face, the column's own), the type's own material for a floor under a slab. Where the
// level has a colour map it is the albedo of the column's top layer (flat: the column's texel, as the C twin
// st_shade_lit reads it; textured: the tint the material's pattern keeps as its mean).
Material level_material(vec3 p, Surface s, uint type, vec3 face) {
    Material m = Material(type, type, 0.0, g.albedo[type].rgb, true);
#ifdef ST_NO_MATERIALS
    return m;
#else
    bool under = s.dual && p.z < s.mid;
    bool colored = (g.material_info.w & MATERIAL_INFO_COLORS) != 0u && !under;
    ivec2 size = ivec2(g.level_info.xy);
    if (!shading_textured() || under) {
        if (colored) m.flat_albedo = mat_fetch_color(level_clamp(ivec2(floor(p.xy))) & (size - 1));
        return m;
    }
    vec2 jitter = face.z > 0.5 ? vec2(mat_noise(p.xy * 0.9 + 11.0), mat_noise(p.xy * 0.9 + 37.0)) - 0.5 : vec2(0.0);
    ivec2 c = level_clamp(ivec2(floor(p.xy + 0.9 * jitter))) & (size - 1);
    if (g.material_info.z != 0u) {
        uvec4 t = mat_fetch_control(c);
        m.base = t.x;
        m.overlay = t.y;
        m.blend = float(t.z) / 255.0;
        m.tint = (t.w & 1u) != 0u;
    }
    if (colored) {
        m.flat_albedo = mat_fetch_color(c);
        m.tint = true;
    }
    return m;
#endif
}

float layer_height(ivec2 cell, bool upper) {
    Surface s = surface_at(cell);
    return upper ? s.high : s.low;
}

// Central differences of the layer's heights; at the edge of a bounded axis, where a neighbour is missing, the
// one-sided difference with the column itself (twin: st_shade_gradient_normal).
vec3 gradient_normal(vec3 p, bool upper) {
    ivec2 c = ivec2(floor(p.xy));
    if (!level_bounded()) {
        float gx = layer_height(c + ivec2(1, 0), upper) - layer_height(c - ivec2(1, 0), upper);
        float gy = layer_height(c + ivec2(0, 1), upper) - layer_height(c - ivec2(0, 1), upper);
        return normalize(vec3(-0.5 * gx, -0.5 * gy, 1.0));
    }
    vec2 grad;
    for (int a = 0; a < 2; a++) {
        ivec2 e = a == 0 ? ivec2(1, 0) : ivec2(0, 1);
        ivec2 lo = c - e, hi = c + e;
        float k = 0.5;
        if (!level_contains(lo)) lo = c, k = 1.0;
        if (!level_contains(hi)) hi = c, k = k == 1.0 ? 0.0 : 1.0;
        grad[a] = k * (layer_height(hi, upper) - layer_height(lo, upper));
    }
    return normalize(vec3(-grad, 1.0));
}

// The face of its column that p lies on, facing the eye: the top of the layer (or the slab's ceiling) where p
// is at that height, else a side: of the two toward the eye, the one whose neighbour is open at p's height (a
// march's hit lies a little inside the column, so nearness alone can pick the wrong side), the nearer when
// both or neither are. The plane the texture projects onto and the footprint lies in.
vec3 surface_face(vec3 p, Surface s, bool upper) {
    if (p.z >= (upper ? s.high : s.low) - 0.05) return vec3(0.0, 0.0, 1.0);
    if (upper && s.dual && p.z <= s.mid + 0.05) return vec3(0.0, 0.0, -1.0);
    ivec2 c = ivec2(floor(p.xy));
    vec3 v = p - g.eye.xyz;
    int sx = v.x > 0.0 ? -1 : 1, sy = v.y > 0.0 ? -1 : 1;
    bool open_x = !surface_solid(surface_at(c + ivec2(sx, 0)), p.z);
    bool open_y = !surface_solid(surface_at(c + ivec2(0, sy)), p.z);
    vec2 f = fract(p.xy);
    float dx = sx < 0 ? f.x : 1.0 - f.x, dy = sy < 0 ? f.y : 1.0 - f.y;
    bool x_face = open_x != open_y ? open_x : dx <= dy;
    return x_face ? vec3(float(sx), 0.0, 0.0) : vec3(0.0, float(sy), 0.0);
}

// The formula at point p of column s with unit normal n and the sun's visibility in [0, 1], the materials
// projected onto the plane of unit normal `face` at the point tex_p (a method that meets the column's own faces
// gives p and its face; the mesh methods their triangle's plane and point). Linear colour.
vec3 shade_lit_face(vec3 p, Surface s, vec3 n, float visibility, vec3 face, vec3 tex_p) {
    bool upper = !s.dual || p.z >= s.mid; // on the slab (or a single column) vs the floor under it
    uint type = upper ? s.high_type : s.low_type;
    if (s.dual && p.z <= s.low && s.low < s.high) visibility *= 0.25; // the cave floor
    mat_count_reset();
    SurfaceColor sc = surface_color(tex_p, n, level_material(p, s, type, face), pixel_footprint(tex_p, face));
    if (mat_counting()) return mat_fetch_colour();
    vec3 color = sc.albedo * (g.light.w + (1.0 - g.light.w) * visibility * max(0.0, dot(sc.normal, g.light.xyz)));
    float d = length(p.xy - g.eye.xy);
    float f = smoothstep(g.eye.w - g.fog.w, g.eye.w, d);
    return mix(color, g.fog.rgb, f);
}

// The formula at point p of column s with unit normal n and the sun's visibility in [0, 1] (C twin:
// st_shade_lit in src/reference/shading.c, held to this one by tests/test_gpu_shading.c), the materials on the
// face of the column p lies on. Linear colour.
vec3 shade_lit(vec3 p, Surface s, vec3 n, float visibility) {
    bool upper = !s.dual || p.z >= s.mid;
    vec3 face = shading_textured() ? surface_face(p, s, upper) : n; // flat shading reads no neighbours
    return shade_lit_face(p, s, n, visibility, face, p);
}

// Shades a surface point p of the texel column s with an optional geometric normal (length 0 = use
// the height-field gradient), the sun's visibility from the shadow map. Returns linear colour with fog applied.
vec3 shade_point(vec3 p, Surface s, vec3 geometric_normal) {
    bool upper = !s.dual || p.z >= s.mid;
    vec3 n = dot(geometric_normal, geometric_normal) > 0.0 ? geometric_normal : gradient_normal(p, upper);
    return shade_lit(p, s, n, shadow_lookup(p, n));
}

vec3 linear_to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}
