#version 460
#extension GL_GOOGLE_include_directive : require
// CDLOD's vertex function run on given grid coordinates of one node of the last frame (tests only): the GLSL twin
// held to st_lod_vertex (tests/test_gpu_cdlod.c). Writes the position relative to the eye and the morph factor.
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "cdlod_vertex.glsl"

layout(local_size_x = 64) in;
layout(set = 2, binding = 0, std430) readonly buffer ProbeIn {
    uint node, count, pad0, pad1;
    vec2 grid[];
} probe_in;
layout(set = 2, binding = 1, std430) writeonly buffer ProbeOut { vec4 probe_out[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= probe_in.count) return;
    float k;
    vec3 p = cdlod_vertex(nodes[probe_in.node], probe_in.grid[i], k);
    probe_out[i] = vec4(p, k);
}
