#version 460
#extension GL_GOOGLE_include_directive : require
// Geometry clipmaps, the toroidal update of one level: one invocation per sample of the frame's fill rectangles
// of that level (the rows and columns the window newly covers, and the parts whose tile has just arrived), each
// rectangle inside one tile. z_f is the tile's sample (texelFetch of its slot: the store's value exactly), or,
// where the tile is not on the GPU yet, the coarser level's surface; z_c is the coarser level's surface at the
// sample: the mean of the two coarse samples on the coarse triangle's edge or diagonal through it (the sample
// itself twice where they coincide). Levels are updated coarsest first, so z_c reads this frame's coarser level.
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#define CLIP_FILL
#include "clipmap_vertex.glsl"

layout(local_size_x = 64) in;

// Mirror of clip_fill_gpu in src/render/methods/clipmap.c
struct ClipFill {
    ivec4 rect; // first sample (absolute level samples, x, y), width, the first invocation of it
    ivec4 src;  // slot (−1: from the coarser level), the tile's sample (0, 0) in store-level samples (x, y), unused
};
layout(set = 1, binding = 7, std430) readonly buffer ClipFills { ClipFill fills[]; };

layout(push_constant) uniform ClipFillPush {
    uint level, first, count, texels;
} pc;

float coarse(ivec2 c) { return heights[clip_texel(pc.level + 1u, c)].x; }

void main() {
    uint t = gl_GlobalInvocationID.x;
    if (t >= pc.texels) return;
    uint r = pc.first;
    for (uint i = pc.first + 1u; i < pc.first + pc.count; i++)
        if (uint(fills[i].rect.w) <= t) r = i;
    ClipFill f = fills[r];
    uint u = t - uint(f.rect.w), w = uint(f.rect.z);
    ivec2 a = f.rect.xy + ivec2(u % w, u / w);
    ivec4 last = clip.level_last[pc.level];
    ivec2 ac = clamp(a, ivec2(0), last.xy); // past the world's edge a level repeats its edge sample
    float zc = uintBitsToFloat(0x7fc00000u); // NaN: no level has this sample yet
    if (pc.level + 1u < uint(clip.anchor.w)) {
        ivec2 c0 = a >> 1, c1 = (a + 1) >> 1; // equal where a is even; the edge's or diagonal's ends where odd
        zc = 0.5 * (coarse(c0) + coarse(c1));
    }
    float zf = zc;
    if (f.src.x >= 0) {
        ivec2 ij = (ac << last.w) - f.src.yz;
        float v = texelFetch(tile_slots, ivec3(ij, f.src.x), 0).r;
        if (frame.info.z != 0u) v = round(v * 65535.0); // R16_UNORM back to the stored integer
        CdlodSlot s = slot_info[uint(f.src.x)];
        zf = s.offset + s.scale * v;
        if (pc.level + 1u >= uint(clip.anchor.w)) zc = zf;
    }
    heights[clip_texel(pc.level, a)] = vec2(zf, zc);
}
