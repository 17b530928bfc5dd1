// The shared shading path (every method): the surface's colour (materials.glsl), central-difference normal of
// the visible layer, 0.25 + 0.75·visibility·max(0, n·l), cave factor on the floor under a slab, horizontal fog.
// Requires globals.glsl and surface.glsl.

#include "shadow.glsl"
#include "materials.glsl"

// What lies at point p of column s on the layer it is on: its type's flat colour.
Material level_material(vec3 p, Surface s, uint type) {
    return Material(type, type, 0.0, g.albedo[type].rgb, true);
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

// The formula at point p of column s with unit normal n and the sun's visibility in [0, 1] (C twin:
// st_shade_lit in src/reference/shading.c, held to this one by tests/test_gpu_shading.c). Linear colour.
vec3 shade_lit(vec3 p, Surface s, vec3 n, float visibility) {
    bool upper = !s.dual || p.z >= s.mid; // on the slab (or a single column) vs the floor under it
    uint type = upper ? s.high_type : s.low_type;
    if (s.dual && p.z <= s.low && s.low < s.high) visibility *= 0.25; // the cave floor
    SurfaceColor sc = surface_color(p, n, level_material(p, s, type), pixel_footprint(p, n));
    vec3 color = sc.albedo * (g.light.w + (1.0 - g.light.w) * visibility * max(0.0, dot(sc.normal, g.light.xyz)));
    float d = length(p.xy - g.eye.xy);
    float f = smoothstep(g.eye.w - g.fog.w, g.eye.w, d);
    return mix(color, g.fog.rgb, f);
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
