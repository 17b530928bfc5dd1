#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
// Geometry clipmaps, compute variant, pass 2: the large triangles queued by pass 1 (dispatched indirectly).
// Workgroup (i, s) walks the 8×8-pixel tiles s, s + S, s + 2S, ... of big triangle i's box, one pixel per
// invocation.
#include "globals.glsl"
#include "camera.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "clipmap_vertex.glsl"
#define VIS_SPLAT
#include "clipmap_tri.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

void main() {
    uint tri = big.items[gl_WorkGroupID.x];
    vec3 rel[3];
    uint level;
    ivec2 gp[3];
    bool two_sided, valid;
    clip_fetch(tri, rel, level, gp, two_sided, valid);
    VisTri t = clip_setup(rel, two_sided, valid);
    if (t.box.x > t.box.z || t.box.y > t.box.w) return;
    ivec2 tiles = (t.box.zw - t.box.xy) / 8 + 1;
    for (int i = int(gl_WorkGroupID.y); i < tiles.x * tiles.y; i += int(gl_NumWorkGroups.y)) {
        ivec2 px = t.box.xy + 8 * ivec2(i % tiles.x, i / tiles.x) + ivec2(gl_LocalInvocationID.xy);
        if (px.x > t.box.z || px.y > t.box.w) continue;
        vis_splat(px, vis_pixel_depth(t, px), tri);
    }
}
