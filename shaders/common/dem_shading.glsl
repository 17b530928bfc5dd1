// The shading of DEM ground (tile stores): a hypsometric albedo by height, the shared sun and ambient terms and
// fog over the last tenth of the far distance. The C twin is src/reference/dem_shading.c (st_dem_shade); both
// square the tint's stops to linear. Requires globals.glsl.

#include "materials.glsl"

const vec4 DEM_STOPS[6] = vec4[6](vec4(0.00, 0.36, 0.55, 0.30), vec4(0.15, 0.55, 0.65, 0.35),
                                  vec4(0.35, 0.72, 0.66, 0.42), vec4(0.60, 0.58, 0.47, 0.36),
                                  vec4(0.85, 0.80, 0.78, 0.76), vec4(1.00, 0.98, 0.98, 0.98));
const vec3 DEM_SEA = vec3(0.02, 0.06, 0.12);

vec3 dem_albedo(float h, float sea, float top_m) {
    if (h <= sea) return DEM_SEA;
    float top = top_m > sea ? top_m - sea : 1.0;
    float t = clamp((h - sea) / top, 0.0, 1.0);
    int i = 1;
    while (i < 5 && t > DEM_STOPS[i].x) i++;
    float f = (t - DEM_STOPS[i - 1].x) / (DEM_STOPS[i].x - DEM_STOPS[i - 1].x);
    vec3 c = DEM_STOPS[i - 1].yzw + f * (DEM_STOPS[i].yzw - DEM_STOPS[i - 1].yzw);
    return c * c;
}

// Material ids of the synthesised set (strata/materials.h: st_material_id).
const uint MAT_GRASS = 2u, MAT_ROCK = 3u, MAT_DIRT = 8u, MAT_SAND = 1u, MAT_SNOW = 9u, MAT_SILT = 0u;

// The DEM's materials by rule (the control map's rules, evaluated per pixel: a store has no control map): rock
// where steep, snow high and not steep, sand just above the sea, dirt on middling slopes, grass elsewhere; the
// two strongest become base and overlay.
Material dem_material(float h, vec3 n, float sea, float top_m) {
    vec3 flat_albedo = dem_albedo(h, sea, top_m);
    if (!shading_textured()) return Material(0u, 0u, 0.0, flat_albedo, false);
    if (h <= sea) return Material(MAT_SILT, MAT_SILT, 0.0, flat_albedo, false);
    float slope = 1.0 - n.z;
    float t = clamp((h - sea) / max(top_m - sea, 1.0), 0.0, 1.0);
    float rock = smoothstep(0.12, 0.3, slope);
    float snow = smoothstep(0.62, 0.78, t) * (1.0 - smoothstep(0.2, 0.4, slope));
    float sand = (1.0 - smoothstep(2.0, 8.0, h - sea)) * (1.0 - rock);
    float dirt = smoothstep(0.05, 0.14, slope) * (1.0 - rock) * (1.0 - snow);
    float grass = (1.0 - rock) * (1.0 - snow) * (1.0 - sand) * (1.0 - smoothstep(0.5, 0.7, t));
    rock += smoothstep(0.5, 0.7, t) * (1.0 - snow) * 0.7;
    float w[5] = float[5](grass, dirt, rock, sand, snow);
    const uint id[5] = uint[5](MAT_GRASS, MAT_DIRT, MAT_ROCK, MAT_SAND, MAT_SNOW);
    int a = 0, b = 1;
    if (w[1] > w[0]) a = 1, b = 0;
    for (int i = 2; i < 5; i++) {
        if (w[i] > w[a]) b = a, a = i;
        else if (w[i] > w[b]) b = i;
    }
    float sum = w[a] + w[b];
    return Material(id[a], id[b], sum > 0.0 ? w[b] / sum : 0.0, flat_albedo, false);
}

// p: the point relative to the eye; h: its height in metres; n: unit normal; visibility of the sun in [0, 1].
vec3 dem_shade(vec3 p, float h, vec3 n, float visibility, float sea, float top_m) {
    mat_count_reset();
    Material m = dem_material(h, n, sea, top_m);
    SurfaceColor sc = surface_color(p, n, m, pixel_footprint(p, n));
    if (mat_counting()) return mat_fetch_colour();
    vec3 albedo = sc.albedo;
    float light = g.light.w + (1.0 - g.light.w) * visibility * max(0.0, dot(sc.normal, g.light.xyz));
    float f = smoothstep(g.eye.w - g.fog.w, g.eye.w, length(p.xy));
    vec3 c = albedo * light;
    return c + (g.fog.rgb - c) * f;
}

// The sRGB encoding of a storage image (shading.glsl's linear_to_srgb, which needs the level's surface).
vec3 linear_to_srgb_dem(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}
