#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
// Geometry clipmaps, compute variant, pass 1: one invocation per triangle of the frame's footprints. Small
// triangles are rasterised here (bounding-box loop, exact ray test per pixel, 64-bit atomicMax of depth and id);
// those whose box exceeds CLIP_BIG_AREA pixels go to the big queue that clipmap_big.comp shares out.
#include "globals.glsl"
#include "camera.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "clipmap_vertex.glsl"
#define VIS_SPLAT
#include "clipmap_tri.glsl"

#define CLIP_BIG_AREA 256

layout(local_size_x = 64) in;

void main() {
    uint tri = gl_GlobalInvocationID.y * pc.row_threads + gl_GlobalInvocationID.x;
    if (tri >= pc.tri_total) return;
    vec3 rel[3];
    uint level;
    ivec2 gp[3];
    bool two_sided, valid;
    clip_fetch(tri, rel, level, gp, two_sided, valid);
    VisTri t = clip_setup(rel, two_sided, valid);
    if (t.box.x > t.box.z || t.box.y > t.box.w) return;
    int area = (t.box.z - t.box.x + 1) * (t.box.w - t.box.y + 1);
    if (area > CLIP_BIG_AREA) {
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
