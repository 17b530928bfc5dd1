#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
// The water's compute rasteriser, pass 2: one invocation per triangle of the ring grid. Small triangles are
// rasterised here (bounding-box loop, exact ray test per pixel, 64-bit atomicMax of depth and id); triangles whose
// box exceeds WATER_BIG_AREA pixels go to the big queue, which water_big.comp shares out.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "water_common.glsl"
#define VIS_SPLAT
#include "water_tri.glsl"

#define WATER_BIG_AREA 256

layout(local_size_x = 64) in;

void main() {
    uint tri = gl_GlobalInvocationID.y * pc.row_threads + gl_GlobalInvocationID.x;
    if (tri >= pc.tri_total) return;
    vec3 rel[3];
    vec2 rest[3];
    water_fetch(tri, rel, rest);
    VisTri t = vis_setup(rel);
    if (t.box.x > t.box.z || t.box.y > t.box.w) return;
    int area = (t.box.z - t.box.x + 1) * (t.box.w - t.box.y + 1);
    if (area > WATER_BIG_AREA) {
        uint slot = atomicAdd(big.offered, 1u);
        if (slot < pc.big_cap) {
            big.items[slot] = tri;
            atomicAdd(big.groups_x, 1u);
            return;
        }
        // the queue is full: rasterise it here (bounded by the screen)
    }
    for (int y = t.box.y; y <= t.box.w; y++)
        for (int x = t.box.x; x <= t.box.z; x++) {
            ivec2 px = ivec2(x, y);
            vis_splat(px, vis_pixel_depth(t, px), tri);
        }
}
