#version 460
#extension GL_GOOGLE_include_directive : require
// RayTraced, compute variant: the same march, writing colour (sRGB-encoded) and depth images. Each workgroup's
// 8×8 pixels first test their rays together (the tile test, when pc.flags bit 0 says the air tables hold the
// level): the frustum of the tile's rays is cut into 64 chunks along the view axis, one per invocation, and a chunk
// whose every point is shown in the air by the air tables (set 2) is passed; every pixel's march begins at the first
// chunk that is not, so the pixels of a tile start together near the surface and step as one. The samples passed
// are air in the full march too: the same image.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#define AIR_TABLES_SET 2
#define AIR_TABLES_BINDING 0
#include "air_tables.glsl"
#define RAY_COUNT_SAMPLES
#include "ray_march.glsl"

// Mirror of ray_push in src/render/methods/ray.c
layout(push_constant) uniform RayPush {
    uint flags; // bit 0: the tile test (the air tables hold the level); bit 1: count the work into ray_work
} pc;

// the frame's work when counted (st_ray_compute_work): pixels, uniform samples fetched, chunks passed, table words
layout(set = 2, binding = 1, std430) buffer RayWork { uint ray_work[]; };

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 1, binding = 1, r32f) uniform writeonly image2D out_depth;

const uint TILE = 8u, CHUNKS = TILE * TILE; // one chunk per invocation
shared uint tile_first; // the first chunk not shown in the air

// Whether chunk [sa, sb] of the frustum of the rays eye + s·d, d in the quad of corner directions c[0..3], is in the
// air: the frustum piece is the convex hull of its eight corners, so their box in xy and their lowest and highest z
// bound it; it is air when, in each of the (at most 2×2) cells of the finest table that cover the box, its z range
// lies above the highest top or inside the cave between the highest floor top and the lowest ceiling. The tables
// hold for a texel around their cells, which covers a float sample landing a little off its exact ray.
bool chunk_in_air(vec3 c[4], float sa, float sb, out uint words) {
    vec3 e = g.eye.xyz;
    vec3 lo = vec3(1e30), hi = vec3(-1e30);
    for (int i = 0; i < 4; i++) {
        vec3 pa = e + sa * c[i], pb = e + sb * c[i];
        lo = min(lo, min(pa, pb));
        hi = max(hi, max(pa, pb));
    }
    words = 0u;
    int level = -1;
    ivec2 c0 = ivec2(0);
    for (int l = 0; l < 3; l++) {
        float side = float(air_cell_side(l));
        ivec2 a = ivec2(floor(lo.xy / side)), b = ivec2(floor(hi.xy / side));
        if (all(lessThanEqual(b - a, ivec2(1)))) {
            level = l;
            c0 = a;
            break;
        }
    }
    if (level < 0) return false; // wider than two of the coarsest cells: not looked at
    // a margin for the rounding of the samples' heights (they sit up to ~1e-7 of their distance off)
    float m = 0.02 + 1e-6 * (abs(e.z) + sb * length(c[0]));
    float top = 0.0, floor_top = 0.0, ceiling = 256.0;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++) {
            vec3 v = air_cell(c0 + ivec2(x, y), level);
            words++;
            top = max(top, v.x);
            floor_top = max(floor_top, v.y);
            ceiling = min(ceiling, v.z);
        }
    return lo.z - m > top + 0.01 || (lo.z - m > floor_top + 0.01 && hi.z + m < ceiling - 0.01);
}

// The s before which no ray of this workgroup's tile meets SOLID (0 when the test is off).
float tile_air() {
    if ((pc.flags & 1u) == 0u) return 0.0;
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) tile_first = CHUNKS;
    barrier();
    vec2 p0 = vec2(gl_WorkGroupID.xy * TILE) + 0.5, p1 = p0 + float(TILE - 1u);
    vec3 c[4] = vec3[4](pixel_dir(p0), pixel_dir(vec2(p1.x, p0.y)), pixel_dir(vec2(p0.x, p1.y)), pixel_dir(p1));
    float f = g.forward.w;
    float s_lo = g.level_info.z / f, s_hi = g.eye.w / f; // the near and far planes: s is the view depth over f
    // z: before every corner's ray is down to the top there is nothing; once all are below z = 0 the marches end
    float top = g.level_info.w + 0.05, ez = g.eye.z; // a margin for the rounding of the samples' heights
    float s_top = 1e30, s_ground = 0.0;
    bool all_down = true;
    for (int k = 0; k < 4; k++) {
        if (c[k].z < 0.0) {
            s_top = min(s_top, (ez - top) / -c[k].z);
            s_ground = max(s_ground, ez / -c[k].z);
        } else {
            all_down = false;
        }
    }
    if (ez > top) s_lo = max(s_lo, s_top);
    if (all_down) s_hi = min(s_hi, s_ground);
    if (ez > top && s_top == 1e30) s_lo = s_hi; // every ray rises from above the top: all air
    float result = s_lo;
    if (s_hi > s_lo) {
        float ds = (s_hi - s_lo) / float(CHUNKS);
        uint words;
        bool air = chunk_in_air(c, s_lo + float(i) * ds, s_lo + float(i + 1u) * ds, words);
        if (!air) atomicMin(tile_first, i);
        if ((pc.flags & 2u) != 0u) atomicAdd(ray_work[3], words);
        barrier();
        uint first = tile_first;
        result = first == CHUNKS ? s_hi : s_lo + float(first) * ds;
        if (i == 0u && (pc.flags & 2u) != 0u) atomicAdd(ray_work[2], first);
    }
    return result;
}

void main() {
    float s_air = tile_air(); // before the bounds check: every invocation of the group takes part
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (pixel.x >= int(g.screen_right.w) || pixel.y >= int(g.screen_up.w)) return;
    vec3 color;
    float depth;
    trace_pixel_after(vec2(pixel) + 0.5, s_air, color, depth);
    imageStore(out_color, pixel, vec4(linear_to_srgb(color), 1.0));
    imageStore(out_depth, pixel, vec4(depth));
    if ((pc.flags & 2u) != 0u) {
        atomicAdd(ray_work[0], 1u);
        atomicAdd(ray_work[1], ray_samples);
    }
}
