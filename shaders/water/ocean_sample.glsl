// Sampling the ocean's cascades (shaders/water/ocean_resolve.comp writes them): the displacement by hand —
// bilinear between texel centres exactly as st_water_displace does on the CPU, trilinear across mips for the
// distance filter — and the slopes, their variance and the foam through the hardware's trilinear filter.
// Requires water_common.glsl.

// Bilinear displacement of cascade c at mip m; texel (i, j) of mip 0 rests at (i, j)·texel.
vec3 ocean_disp_at(uint c, vec2 uv, int m) {
    // the level's size from level 0's: textureSize with a level that differs between invocations is not safe
    // everywhere (lavapipe answers one invocation's for all)
    int n0 = textureSize(ocean_disp, 0).x;
    ivec2 size = ivec2(max(n0 >> m, 1));
    vec2 gpos = (uv + 0.5 / float(n0)) * vec2(size) - 0.5;
    vec2 i0 = floor(gpos), f = gpos - i0;
    ivec2 i = ivec2(i0);
    vec3 v00 = texelFetch(ocean_disp, ivec3(i & (size - 1), c), m).xyz;
    vec3 v10 = texelFetch(ocean_disp, ivec3((i + ivec2(1, 0)) & (size - 1), c), m).xyz;
    vec3 v01 = texelFetch(ocean_disp, ivec3((i + ivec2(0, 1)) & (size - 1), c), m).xyz;
    vec3 v11 = texelFetch(ocean_disp, ivec3((i + ivec2(1, 1)) & (size - 1), c), m).xyz;
    return mix(mix(v00, v10, f.x), mix(v01, v11, f.x), f.y);
}

// The summed displacement (world units) of the rest point, waves shorter than `cut` units filtered out.
// Over the shore each cascade is sampled at rest − F·m̂ (its waves shorter along the normal) and shoaled.
vec3 ocean_displacement(vec2 rest, float cut) {
    vec3 d = vec3(0.0);
    int mips = textureQueryLevels(ocean_disp);
    WaterShore sh = water_shore_at(rest);
    for (uint c = 0u; c < water.info.z; c++) {
        vec4 cs = water.cascade[c];
        vec2 uv = (rest - sh.f[c] * water.surface.y * sh.normal) / cs.x + cs.yz;
        float gain = sh.ks[c] * sh.hold;
        float lod = max(log2(cut / (2.0 * cs.w)), 0.0);
        if (lod >= float(mips - 1)) continue; // all its waves are shorter than the cut: their mean is 0
        int m0 = int(floor(lod));
        vec3 a = ocean_disp_at(c, uv, m0);
        float t = lod - float(m0);
        d += gain * (t > 0.0 ? mix(a, ocean_disp_at(c, uv, m0 + 1), t) : a);
    }
    return d * water.surface.y;
}

// Slope (∂z/∂x, ∂z/∂y) of the displaced surface, the variance of the slope the filter averaged away and the
// foam, summed over the cascades (foam: the strongest), at the rest point; drdx and drdy are the rest point's
// change to the next pixel along x and y (the filter's footprint: dFdx and dFdy in a fragment shader, the same
// differences found analytically in compute).
// Over the shore (sh) each cascade's slopes are shoaled and, along the normal, steepened as its waves shorten.
void ocean_surface(vec2 rest, vec2 drdx, vec2 drdy, WaterShore sh, out vec2 slope, out float variance, out float foam) {
    slope = vec2(0.0);
    variance = 0.0;
    foam = 0.0;
    float half_texel = 0.5 / float(textureSize(ocean_surf, 0).x);
    for (uint c = 0u; c < water.info.z; c++) {
        vec4 cs = water.cascade[c];
        vec2 uv = (rest - sh.f[c] * water.surface.y * sh.normal) / cs.x + cs.yz + half_texel;
        vec4 s = textureGrad(ocean_surf, vec3(uv, float(c)), drdx / cs.x, drdy / cs.x);
        float gain = sh.ks[c] * sh.hold;
        vec2 sl = gain * s.xy;
        sl += (sh.ratio[c] - 1.0) * dot(sl, sh.normal) * sh.normal;
        slope += sl;
        variance += gain * gain * max(s.z - dot(s.xy, s.xy), 0.0);
        foam = max(foam, s.w);
    }
}
