// The colour of a surface point: the one function every method's shading reaches (shade_lit for levels,
// dem_shade for tile stores), so a way of shading is added here once. In: the point, its normal, what lies
// there (Material) and the pixel's footprint on the surface; out: the albedo and the normal to light with.
// Requires globals.glsl.
#ifndef STRATA_MATERIALS_GLSL
#define STRATA_MATERIALS_GLSL

// What lies at a point: two materials of the material set and the overlay's share, and the flat colour the
// paper's shading gives the point (a level's type End colour, a DEM's hypsometric tint).
struct Material {
    uint base, overlay;
    float blend;      // overlay weight before height blending, 0..1
    vec3 flat_albedo; // linear
    bool tint;        // the base takes flat_albedo as its mean colour (a level's type colour)
};

// One pixel's extent on the surface: the change of the surface point per pixel step along screen x and y, and
// the plane it lies in (the geometric face: a column's top or side for the height-field methods, a triangle's
// plane for meshes), which chooses the texture projection.
struct Footprint {
    vec3 dx, dy;
    vec3 plane; // unit normal
};

struct SurfaceColor {
    vec3 albedo; // linear
    vec3 normal; // unit, for lighting
};

// Whether the frame is shaded with the materials (g.material_info.x; flat shading otherwise).
bool shading_textured() {
#ifdef ST_NO_MATERIALS
    return false;
#else
    return g.material_info.x != 0u;
#endif
}

// The footprint of the pixel whose ray meets the surface at p (shader coordinates: a store's are relative to the
// eye, as g.eye is) on the plane of unit normal n: the ray differentials of the neighbouring pixels cut with
// that plane. Depends only on p, n and the camera, so image-order and object-order methods filter alike.
Footprint pixel_footprint(vec3 p, vec3 n) {
    vec3 v = p - g.eye.xyz;
    float s = dot(v, g.forward.xyz) / g.forward.w; // distance along forward per focal pixel
    float vn = dot(v, n);
    float lim = 0.05 * length(v); // grazing: the footprint stays finite (about 20 pixels' worth)
    vn = vn < 0.0 ? min(vn, -lim) : max(vn, lim);
    Footprint f;
    f.dx = s * (g.screen_right.xyz - v * (dot(g.screen_right.xyz, n) / vn));
    f.dy = s * (g.screen_up.xyz - v * (dot(g.screen_up.xyz, n) / vn));
    f.plane = n;
    return f;
}

// ---- textured shading -----------------------------------------------------------------------------------

// Every material's repeat and the anti-tiling noise's period divide this (renderer.c's MATERIAL_FOLD).
const int MAT_FOLD = 7680;
const float MAT_NOISE_CELL = 24.0; // world units per cell of the anti-tiling noise
const float MAT_MACRO_CELL = 96.0; // world units per cell of the slow brightness variation

uint mat_hash_u(ivec2 c) {
    uvec2 v = uvec2(c) * 1664525u + 1013904223u;
    v.x += v.y * 1664525u;
    v.y += v.x * 1664525u;
    v ^= v >> 16u;
    v.x += v.y * 1664525u;
    v.y += v.x * 1664525u;
    v ^= v >> 16u;
    return v.x ^ v.y;
}
float mat_hash(ivec2 c) { return float(mat_hash_u(c) & 0xffffffu) * (1.0 / 16777216.0); }

// Value noise in [0, 1) at x (in cells of `cell` world units) that repeats every MAT_FOLD world units.
float mat_noise_cells(vec2 x, float cell) {
    int n = MAT_FOLD / int(cell);
    ivec2 i = ivec2(floor(x));
    vec2 f = fract(x);
    f = f * f * (3.0 - 2.0 * f);
    ivec2 i0 = ((i % n) + n) % n, i1 = ((i + 1) % n + n) % n;
    float a = mat_hash(i0), b = mat_hash(ivec2(i1.x, i0.y)), c = mat_hash(ivec2(i0.x, i1.y)), d = mat_hash(i1);
    return mix(mix(a, b, f.x), mix(c, d, f.x), f.y);
}
float mat_noise(vec2 x) { return mat_noise_cells(x, MAT_NOISE_CELL); }

// ---- counting fetches (ST_SHADING_FETCHES) ----------------------------------------------------------------
// Every texture fetch of the materials goes through the helpers below, which count them for the pixel being
// shaded: mat_taps the material arrays' (albedo + height, normal), mat_lookups the per-texel maps' (control,
// colour). surface_color notes beside them whether the face read a side projection (mat_steep: a cliff, where
// the target is 12 fetches rather than flat ground's 8) and the aspect ratio of the texel footprint it read
// (mat_aspect: how stretched the texture is there, 1 undistorted). The shading entry points (shade_lit,
// dem_shade) reset them and, in the counting mode, return them as the pixel's colour (mat_fetch_colour), so
// every method's fetches are measured from its own image.
uint mat_taps = 0u, mat_lookups = 0u;
bool mat_steep = false;
float mat_aspect = 1.0;
const float MAT_COUNT_SCALE = 32.0;  // a count of k is written as the linear value k / 32 (counts up to 32)
const float MAT_ASPECT_SCALE = 16.0; // an aspect a as the linear value (a − 1) / 16 (up to 17)

void mat_count_reset() {
    mat_taps = 0u;
    mat_lookups = 0u;
    mat_steep = false;
    mat_aspect = 1.0;
}
bool mat_counting() { return (g.material_info.w & MATERIAL_INFO_FETCHES) != 0u; }
// The counts as a linear colour: red the material taps, green the map lookups plus 16 on a face that read a
// side projection, blue the footprint's aspect (st_fetch_pixel_decode in src/render/fetch_probe.c reads them
// back from the sRGB image).
vec3 mat_fetch_colour() {
    float green = float(mat_lookups) + (mat_steep ? 16.0 : 0.0);
    return vec3(float(mat_taps) / MAT_COUNT_SCALE, green / MAT_COUNT_SCALE,
                min((mat_aspect - 1.0) / MAT_ASPECT_SCALE, 1.0));
}

// The aspect ratio of the footprint spanned by gradients gx, gy in one projection's texture plane: the ratio of
// the singular values of [gx gy], the ellipse a round pixel covers in the texture (1: as wide as long).
float mat_footprint_aspect(vec2 gx, vec2 gy) {
    float a = dot(gx, gx), b = dot(gy, gy), c = dot(gx, gy);
    float half_tr = 0.5 * (a + b), det = max(a * b - c * c, 0.0);
    float l1 = half_tr + sqrt(max(half_tr * half_tr - det, 0.0));
    return det > 0.0 ? l1 / sqrt(det) : 1e6; // degenerate: a line
}

#ifndef ST_NO_MATERIALS
uvec4 mat_fetch_control(ivec2 c) {
    mat_lookups++;
    return texelFetch(control_map, c, 0);
}
vec3 mat_fetch_color(ivec2 c) {
    mat_lookups++;
    return texelFetch(color_map, c, 0).rgb;
}
#endif

struct MatSample {
    vec3 albedo; // linear
    float height;
    vec3 normal; // world
};

// One projection's taps of a layer: albedo + height, and the tangent-space normal (z along the projection axis).
vec4 mat_tap_albedo(uint layer, vec2 uv, vec2 gx, vec2 gy) {
#ifdef ST_NO_MATERIALS
    return vec4(0.5);
#else
    mat_taps++;
    return textureGrad(material_surface, vec3(uv, float(layer)), gx, gy);
#endif
}
vec3 mat_tap_normal(uint layer, vec2 uv, vec2 gx, vec2 gy) {
#ifdef ST_NO_MATERIALS
    return vec3(0.0, 0.0, 1.0);
#else
    mat_taps++;
    return textureGrad(material_normal, vec3(uv, float(layer)), gx, gy).xyz * 2.0 - 1.0;
#endif
}

// ---- distance: the texture at a coarser scale ----------------------------------------------------------
// Far from the eye a tile's mip chain averages it to its mean colour, and textured ground would look flat.
// Where the pixel covers more than about 11 texels of the near tile (mip 3.5) a second copy of the same layer,
// MAT_FAR_SCALE times larger, takes over: its mips are 3 levels finer there, so the material's pattern (and its
// height, for blending) still shows at hundreds of units. It replaces the near copy's normal fetch, which by then
// reads an almost flat normal, so a pixel's fetch count does not grow.
const float MAT_FAR_SCALE = 8.0;
const float MAT_NORMAL_LOD = 2.5;        // detail normals fade out over mip 2.5..3.5 of the near copy
const float MAT_FAR_LOD = 3.5;           // the far copy fades in over mip 3.5..4.5, the near copy out
const float MAT_FAR_NOISE_CELL = 192.0;
const float MAT_FAR_GAIN = 2.0;            // the far copy's contrast around the layer's mean  // MAT_NOISE_CELL · MAT_FAR_SCALE: the far copy's anti-tiling cells

// The near copy's mip level for gradients gx, gy in repeats per pixel (textureGrad's isotropic choice).
float mat_lod(vec2 gx, vec2 gy) {
#ifdef ST_NO_MATERIALS
    float size = 1.0;
#else
    float size = float(textureSize(material_surface, 0).x);
#endif
    float d = max(dot(gx, gx), dot(gy, gy)) * size * size;
    return 0.5 * log2(max(d, 1e-12));
}

// How far a pixel is, as weights: x the detail normal's share, y the far copy's share (the near copy has 1 − y).
vec2 mat_distance_weights(vec2 gx, vec2 gy) {
    float lod = mat_lod(gx, gy);
    return vec2(1.0 - smoothstep(MAT_NORMAL_LOD, MAT_NORMAL_LOD + 1.0, lod),
                smoothstep(MAT_FAR_LOD, MAT_FAR_LOD + 1.0, lod));
}

// The anti-tiling of the top projection: two copies of the tile at offsets chosen by a slow noise, blended
// where the noise moves from one index to the next (one tap where it does not), so repeats do not line up.
struct AntiTile {
    vec2 off_a, off_b;
    float b; // the share of copy b
};

AntiTile anti_tile_cells(vec2 world, float cell) {
    float k = mat_noise_cells(world / cell, cell) * 8.0;
    float i = floor(k), f = fract(k);
    AntiTile t;
    t.off_a = vec2(mat_hash(ivec2(int(i), 17)), mat_hash(ivec2(int(i), 91)));
    t.off_b = vec2(mat_hash(ivec2(int(i) + 1, 17)), mat_hash(ivec2(int(i) + 1, 91)));
    t.b = smoothstep(0.3, 0.7, f);
    return t;
}
AntiTile anti_tile(vec2 world) { return anti_tile_cells(world, MAT_NOISE_CELL); }

// One copy (near or far) of a layer in one projection, blended over anti-tiling offsets (none: at.b = 0 and
// off_a = 0); the normal is fetched only when want_normal. tn in the projection's tangent frame.
void mat_copy(uint layer, vec2 uv, vec2 gx, vec2 gy, AntiTile at, bool want_normal, out vec4 ah, out vec3 tn) {
    tn = vec3(0.0, 0.0, 1.0);
    if (at.b < 0.99) {
        ah = mat_tap_albedo(layer, uv + at.off_a, gx, gy);
        if (want_normal) tn = mat_tap_normal(layer, uv + at.off_a, gx, gy);
    }
    if (at.b > 0.01) {
        vec4 ah_b = mat_tap_albedo(layer, uv + at.off_b, gx, gy);
        vec3 tn_b = want_normal ? mat_tap_normal(layer, uv + at.off_b, gx, gy) : vec3(0.0, 0.0, 1.0);
        if (at.b < 0.99) {
            ah = mix(ah, ah_b, at.b);
            tn = mix(tn, tn_b, at.b);
        } else {
            ah = ah_b;
            tn = tn_b;
        }
    }
}

// A layer in one projection at uv (repeats) with gradients gx, gy: the near copy with its detail normal close
// by, the far copy at a distance, both in between. near_at / far_at: the anti-tiling of each copy.
void mat_project(uint layer, vec2 uv, vec2 gx, vec2 gy, AntiTile near_at, AntiTile far_at, out vec4 ah,
                 out vec3 tn) {
    vec2 d = mat_distance_weights(gx, gy);
    ah = vec4(0.0);
    tn = vec3(0.0, 0.0, 1.0);
    if (d.y < 1.0) {
        mat_copy(layer, uv, gx, gy, near_at, d.x > 0.0, ah, tn);
        tn = mix(vec3(0.0, 0.0, 1.0), tn, d.x);
    }
    if (d.y > 0.0) {
        vec4 far_ah;
        vec3 unused;
        float s = 1.0 / MAT_FAR_SCALE;
        mat_copy(layer, uv * s, gx * s, gy * s, far_at, false, far_ah, unused);
        // its mips are filtered over MAT_FAR_SCALE² more of the pattern than the near copy's were at the same
        // pixel size: what the averaging took from the contrast is given back around the layer's mean
        vec3 mean = g.material_mean[layer].rgb;
        far_ah.rgb = max(mean + (far_ah.rgb - mean) * MAT_FAR_GAIN, vec3(0.0));
        ah = d.y < 1.0 ? mix(ah, far_ah, d.y) : far_ah;
    }
}

// Which projections a normal needs: the top alone on gentle ground (slope = 1 − |n.z| < 0.25), else the top and
// the dominant side (x or y), weighted as Quilez's biplanar mapping does (the weaker axis fades out before the
// dominant side switches). w.x: the top's weight, w.y: the side's; side: 0 = x (uv = yz), 1 = y (uv = xz).
vec2 mat_projection(vec3 n, out int side) {
    vec3 a = abs(n);
    side = a.x >= a.y ? 0 : 1;
    if (1.0 - a.z < 0.25) return vec2(1.0, 0.0);
    float s = max(a.x, a.y);
    vec2 w = clamp((vec2(a.z, s) - 0.5773) / (1.0 - 0.5773), 0.0, 1.0);
    w = pow(w, vec2(8.0));
    // the top's weight goes to 1 as the slope reaches 0.25, where the top alone takes over
    w.x = max(w.x, 1.0 - smoothstep(0.25, 0.35, 1.0 - a.z));
    return w / (w.x + w.y);
}

// Whiteout blend of a tangent-space normal with the geometric normal n, per projection (top, side x, side y).
vec3 mat_world_normal(vec3 tn, vec3 n, int proj) {
    if (proj == 2) return vec3(tn.xy + n.xy, abs(tn.z) * n.z);
    if (proj == 0) {
        vec3 w = vec3(tn.xy + n.yz, abs(tn.z) * n.x);
        return vec3(w.z, w.x, w.y);
    }
    vec3 w = vec3(tn.xy + n.xz, abs(tn.z) * n.y);
    return vec3(w.x, w.z, w.y);
}

// A layer's sample at world position `world` on the face of normal n: albedo, height and the face's normal
// with the texture's detail. at / far_at: the top projection's anti-tiling of the near and the far copy.
MatSample mat_sample(uint layer, vec3 world, vec3 n, Footprint fp, vec2 w, int side, AntiTile at, AntiTile far_at) {
    float k = g.material_mean[layer].w;
    vec4 ah = vec4(0.0);
    vec3 nn = vec3(0.0);
    if (w.x > 0.0) {
        vec4 t;
        vec3 tn;
        mat_project(layer, world.xy * k, fp.dx.xy * k, fp.dy.xy * k, at, far_at, t, tn);
        ah += w.x * t;
        nn += w.x * mat_world_normal(tn, n, 2);
    }
    if (w.y > 0.0) {
        vec4 t;
        vec3 tn;
        vec2 uv = side == 0 ? world.yz : world.xz;
        vec2 gx = side == 0 ? fp.dx.yz : fp.dx.xz, gy = side == 0 ? fp.dy.yz : fp.dy.xz;
        AntiTile none = AntiTile(vec2(0.0), vec2(0.0), 0.0);
        mat_project(layer, uv * k, gx * k, gy * k, none, none, t, tn);
        ah += w.y * t;
        nn += w.y * mat_world_normal(tn, n, side);
    }
    return MatSample(ah.rgb, ah.a, normalize(nn));
}

// Height blend of two materials (the C twin: st_material_height_blend): h_i = height_i + weight_i,
// top = max h − 0.2, b_i = max(h_i − top, 0), normalised. x: the base's share, y: the overlay's.
vec2 mat_height_blend(float base_h, float over_h, float blend) {
    float w = clamp(blend, 0.0, 1.0);
    vec2 h = vec2(base_h + (1.0 - w), over_h + w);
    float top = max(h.x, h.y) - 0.2;
    vec2 b = max(h - top, 0.0);
    return b / (b.x + b.y);
}

SurfaceColor surface_color(vec3 p, vec3 n, Material m, Footprint fp) {
    if (!shading_textured()) return SurfaceColor(m.flat_albedo, n);
    uint last = g.material_info.y - 1u;
    uint base = min(m.base, last), over = min(m.overlay, last);
    vec3 world = p + vec3(g.material_origin.xy, 0.0);
    // the projection follows the geometric face; the detail it adds to the face's normal tilts the shading normal
    vec3 face = fp.plane;
    int side;
    vec2 w = mat_projection(face, side);
    if (mat_counting()) {
        mat_steep = w.y > 0.0;
        vec2 sx = side == 0 ? fp.dx.yz : fp.dx.xz, sy = side == 0 ? fp.dy.yz : fp.dy.xz;
        mat_aspect = (w.x > 0.0 ? w.x * mat_footprint_aspect(fp.dx.xy, fp.dy.xy) : 0.0) +
                     (w.y > 0.0 ? w.y * mat_footprint_aspect(sx, sy) : 0.0);
    }
    // the top projection's anti-tiling, of the near copy and (where a layer's far copy shows: mat_project's
    // d.y > 0, first reached by the finer-repeating layer) of the far copy; unused noise is not evaluated
    AntiTile at = AntiTile(vec2(0.0), vec2(0.0), 0.0), far_at = at;
    if (w.x > 0.0) {
        at = anti_tile(world.xy);
        float k = max(g.material_mean[base].w, m.blend > 0.0 ? g.material_mean[over].w : 0.0);
        if (mat_distance_weights(fp.dx.xy * k, fp.dy.xy * k).y > 0.0)
            far_at = anti_tile_cells(world.xy, MAT_FAR_NOISE_CELL);
    }
    MatSample a = mat_sample(base, world, face, fp, w, side, at, far_at);
    if (m.tint) a.albedo *= m.flat_albedo / max(g.material_mean[base].rgb, vec3(1e-3));
    vec3 albedo = a.albedo, detail = a.normal;
    if (m.blend > 0.0 && over != base) {
        MatSample b = mat_sample(over, world, face, fp, w, side, at, far_at);
        vec2 s = mat_height_blend(a.height, b.height, m.blend);
        albedo = s.x * a.albedo + s.y * b.albedo;
        detail = normalize(s.x * a.normal + s.y * b.normal);
    }
    // a slow brightness variation over tens of repeats, so distant ground is not one even tone
    float macro = mat_noise_cells(world.xy / MAT_MACRO_CELL, MAT_MACRO_CELL) * 0.6 +
                  mat_noise_cells(world.xy / (MAT_MACRO_CELL * 0.25), MAT_MACRO_CELL * 0.25) * 0.4;
    albedo *= 0.8 + 0.4 * macro;
    return SurfaceColor(albedo, normalize(n + (detail - face)));
}

#endif
