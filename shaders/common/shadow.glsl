// Shadow lookup into the shared map (src/render/passes/shadow.c): 2×2 bilinear comparison taps, with a normal
// offset against acne on steep and vertical faces, fading to lit near the map's edge. The map is a window onto
// a fixed texel grid stored toroidally, holding absolute depths: a tap's logical texel (clamped to the window)
// is stored shadow_wrap further on, modulo the size. Requires globals.glsl.

float shadow_lookup(vec3 p, vec3 n) {
    if (g.shadow_info.y == 0.0) return 1.0;
    vec3 q = p + n * g.shadow_info.w - g.shadow_d.xyz * 0.25; // normal offset, and toward the sun
    vec2 uv = vec2(dot(q, g.shadow_u.xyz) + g.shadow_u.w, dot(q, g.shadow_v.xyz) + g.shadow_v.w);
    float depth = dot(q, g.shadow_d.xyz) + g.shadow_d.w;
    float size = g.shadow_info.x;
    vec2 st = uv * size - 0.5;
    ivec2 i0 = ivec2(floor(st));
    vec2 f = st - vec2(i0);
    float lit[4];
    int texels = int(size);
    ivec2 wrap = ivec2(g.shadow_wrap.xy);
    for (int k = 0; k < 4; k++) {
        ivec2 c = clamp(i0 + ivec2(k & 1, k >> 1), ivec2(0), ivec2(texels - 1)) + wrap;
        c -= texels * ivec2(greaterThanEqual(c, ivec2(texels)));
        lit[k] = depth <= texelFetch(shadow_map, c, 0).r + g.shadow_info.z ? 1.0 : 0.0;
    }
    float mean = mix(mix(lit[0], lit[1], f.x), mix(lit[2], lit[3], f.x), f.y);
    float edge = min(min(uv.x, 1.0 - uv.x), min(uv.y, 1.0 - uv.y));
    return mix(1.0, mean, clamp(10.0 * edge, 0.0, 1.0));
}
