// Geometry clipmaps (clipmap, clipmap-compute): the levels' height windows (one toroidal n+1 × n+1 array per
// level, (z_f, z_c) per sample: the level's own height and the coarser level's surface there), the frame's
// levels and footprints, the vertex — its position from integers relative to the frame's anchor, its height
// blended toward the coarser level by α, which grows from 0 to 1 over the band of width w before the level's
// outer edge (AH05) — and the shading normal blended the same way. src/render/methods/clipmap.c fills it;
// docs/clipmap.md explains it. Requires globals.glsl, tile_world.glsl, dem_shading.glsl.

#define CLIP_MAX_LEVELS 24
#define CLIP_SHAPES 8

// Mirror of clip_frame_gpu in src/render/methods/clipmap.c
layout(set = 1, binding = 4, std140) uniform ClipFrame {
    ivec4 window[CLIP_MAX_LEVELS];    // the window's origin (absolute level samples, x, y); level-1 origin parity; drawn
    vec4 eye_level[CLIP_MAX_LEVELS];  // the eye in level samples from the window's origin (x, y); α's offset; 1/w (0: none)
    ivec4 level_last[CLIP_MAX_LEVELS]; // the level's last sample (x, y); its store level; decimation of that level (shift)
    uvec4 shape[CLIP_SHAPES];         // vertices across, down; first instance, instances
    uvec4 shape_tris[CLIP_SHAPES];    // triangles per instance, the first one's id; zero-area (1)
    ivec4 anchor;                     // the frame's anchor (finest sample, x, y); texture side N; levels
    ivec4 world_last;                 // the world's last finest sample (x, y)
    uvec4 info;                       // n, finest level drawn, triangles, wireframe
} clip;

// per level, N² texels: (z_f, z_c) in metres, sample (i, j) at ((i mod N), (j mod N))
#ifdef CLIP_FILL // the update pass writes them; every other stage only reads
layout(set = 1, binding = 5, std430) buffer ClipHeights { vec2 heights[]; };
#else
layout(set = 1, binding = 5, std430) readonly buffer ClipHeights { vec2 heights[]; };
#endif
// the frame's footprints, sorted by shape: (shape | level << 8, x | y << 16), x, y the vertex in the window
layout(set = 1, binding = 6, std430) readonly buffer ClipPieces { uvec2 pieces[]; };

// a mod N for any sign (GLSL leaves % of negative operands undefined); N = n + 1 = 4m need not be a power of two
int clip_wrap(int a, int N) {
    int x = a - N * int(floor(float(a) / float(N)));
    return x < 0 ? x + N : x >= N ? x - N : x;
}

uint clip_texel(uint level, ivec2 a) {
    int N = clip.anchor.z;
    return level * uint(N * N) + uint(clip_wrap(a.y, N) * N + clip_wrap(a.x, N));
}

// α at a point gp (level samples from the window's origin): 0 inside, 1 from ((n − 1)/2 − 2) samples from the eye
// on (the outer edge is at least (n − 1)/2 − 1 away, so it is 1 there with room to spare for rounding).
float clip_alpha(uint level, vec2 gp) {
    vec4 e = clip.eye_level[level];
    vec2 d = abs(gp - e.xy);
    return clamp((max(d.x, d.y) - e.z) * e.w, 0.0, 1.0);
}

// The vertex at grid point gp (0..n − 1) of level `level`'s window, relative to the eye; alpha gets its blend
// factor, valid whether its height is known (the fill marks samples no tile reached with NaN).
vec3 clip_vertex(uint level, ivec2 gp, out float alpha, out bool valid) {
    ivec2 a = clip.window[level].xy + gp;
    ivec2 f = clamp(a * (1 << level), ivec2(0), clip.world_last.xy) - clip.anchor.xy;
    vec2 h = heights[clip_texel(level, a)];
    alpha = clip_alpha(level, vec2(gp));
    // weights, not mix(): at α = 1 this is z_c to the bit, the coarser level's own sample or edge
    float z = h.x * (1.0 - alpha) + h.y * alpha;
    valid = !isnan(z);
    return vec3(vec2(f) * frame.spacing.xy - frame.spacing.zw, (valid ? z : frame.eye_world.x) - frame.eye_world.x);
}

// Grid point of vertex v of a shape w vertices across (zero-area strips are rows or columns).
ivec2 clip_local(uint v, uint w) { return ivec2(v % w, v / w); }

// The bilinear slope (metres per metre) of level `level`'s own heights at point p (relative to the eye).
vec2 clip_slope(uint level, vec3 p) {
    float cell = exp2(float(level));
    vec2 u = clip.eye_level[level].xy + p.xy / (frame.spacing.xy * cell);
    vec2 c = clamp(floor(u), vec2(0.0), vec2(float(clip.info.x) - 2.0));
    vec2 t = u - c;
    ivec2 a = clip.window[level].xy + ivec2(c);
    float h00 = heights[clip_texel(level, a)].x, h10 = heights[clip_texel(level, a + ivec2(1, 0))].x;
    float h01 = heights[clip_texel(level, a + ivec2(0, 1))].x, h11 = heights[clip_texel(level, a + ivec2(1, 1))].x;
    vec2 grad = vec2((h10 - h00) * (1.0 - t.y) + (h11 - h01) * t.y, (h01 - h00) * (1.0 - t.x) + (h11 - h10) * t.x);
    return grad / (frame.spacing.xy * cell);
}

// The shading normal at p on level `level`: its own patch's normal blended toward the coarser level's by the α of
// p, so that it is the coarser level's at the outer edge, where that level takes over.
vec3 clip_normal(uint level, vec3 p) {
    vec3 nf = normalize(vec3(-clip_slope(level, p), 1.0));
    float cell = exp2(float(level));
    float a = clip_alpha(level, clip.eye_level[level].xy + p.xy / (frame.spacing.xy * cell));
    if (a <= 0.0 || level + 1u >= uint(clip.anchor.w)) return nf;
    vec3 nc = normalize(vec3(-clip_slope(level + 1u, p), 1.0));
    return normalize(nf * (1.0 - a) + nc * a);
}

// A colour per level for the wireframe overlay (level 0 red, then orange, yellow, green, cyan, blue, ...), as
// cdlod's.
vec3 clip_level_color(uint level) {
    const vec3 c[8] = vec3[8](vec3(0.9, 0.1, 0.1), vec3(0.95, 0.5, 0.05), vec3(0.95, 0.9, 0.1), vec3(0.2, 0.8, 0.2),
                              vec3(0.1, 0.8, 0.9), vec3(0.2, 0.3, 0.95), vec3(0.7, 0.2, 0.9), vec3(0.95, 0.95, 0.95));
    return c[level % 8u];
}

// The shading of a point p (relative to the eye) drawn by level `level`: the blended normal, the height, the sun's
// visibility from the march over the finest tiles on the GPU, fog.
vec3 clip_shade(uint level, vec3 p) {
    vec3 n = clip_normal(level, p);
    float vis = world_sun_visibility(p, n);
    return dem_shade(p, p.z + frame.eye_world.x, n, vis, frame.extent.z, frame.extent.w);
}
