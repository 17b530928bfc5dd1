#version 460
#extension GL_GOOGLE_include_directive : require
// Geometry clipmaps' vertex function and shading normal on given grid points of the last frame's levels (tests
// only, tests/test_gpu_clipmap.c): per point (level, x, y), the vertex relative to the eye with its α, and the
// blended normal at that vertex.
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "clipmap_vertex.glsl"

layout(local_size_x = 64) in;
layout(set = 2, binding = 0, std430) readonly buffer ProbeIn {
    uint count, pad0, pad1, pad2;
    ivec4 points[]; // level, x, y, unused
} probe_in;
layout(set = 2, binding = 1, std430) writeonly buffer ProbeOut { vec4 probe_out[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= probe_in.count) return;
    ivec4 q = probe_in.points[i];
    float a;
    bool ok;
    vec3 p = clip_vertex(uint(q.x), q.yz, a, ok);
    probe_out[2u * i] = vec4(p, ok ? a : -1.0);
    probe_out[2u * i + 1u] = vec4(clip_normal(uint(q.x), p), 0.0);
}
