#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
// cdlod-compute's triangle fetch run on given triangle ids of the last frame (tests only): each corner as the
// rasteriser computes it (cdlod_fetch), to hold every copy of a shared grid vertex to the same bits
// (tests/test_gpu_cdlod.c). Writes per patch triangle its three corners relative to the eye with its node, and
// their grid coordinates in the node.
#include "globals.glsl"
#include "camera.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "cdlod_vertex.glsl"
#include "cdlod_tri.glsl"

layout(local_size_x = 64) in;
layout(set = 2, binding = 0, std430) readonly buffer ProbeIn {
    uint count, pad0, pad1, pad2;
    uint tri[];
} probe_in;
layout(set = 2, binding = 1, std430) writeonly buffer ProbeOut { vec4 probe_out[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= probe_in.count) return;
    vec3 rel[3];
    uint node;
    bool skirt;
    cdlod_fetch(probe_in.tri[i], rel, node, skirt);
    for (int c = 0; c < 3; c++) probe_out[5 * i + c] = vec4(rel[c], float(node));
    // the corners' grid coordinates, as cdlod_fetch finds them for a patch triangle
    uint tri = probe_in.tri[i], half_n = frame.info.y / 2u, per_patch = frame.counts.z;
    uint inst = instances[tri / per_patch], t = tri % per_patch, quad = t >> 1, q = inst & 15u;
    uvec2 base = uvec2(q & 1u, q >> 1) * half_n + uvec2(quad % half_n, quad / half_n);
    uvec2 c1 = base + ((t & 1u) == 0u ? uvec2(1u, 0u) : uvec2(1u, 1u));
    uvec2 c2 = base + ((t & 1u) == 0u ? uvec2(1u, 1u) : uvec2(0u, 1u));
    probe_out[5 * i + 3] = vec4(vec2(base), vec2(c1));
    probe_out[5 * i + 4] = vec4(vec2(c2), 0.0, 0.0);
}
