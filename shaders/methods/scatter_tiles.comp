#version 460
#extension GL_GOOGLE_include_directive : require
// Scattered, hole-free: the faces whose pixel rectangle exceeded SCATTER_TILE² (near the eye). One
// workgroup per queued face walks its rectangle a tile at a time, one pixel per invocation, so a large
// near face costs a few tile steps instead of one invocation's long loop. Dispatched indirectly.
#include "globals.glsl"
#include "camera.glsl"
#include "scatter.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

void main() {
    uint b = 8u * gl_WorkGroupID.x;
    uint head = jobs[b];
    Face f = Face(head & 255u, uintBitsToFloat(jobs[b + 1u]),
                  vec4(uintBitsToFloat(jobs[b + 2u]), uintBitsToFloat(jobs[b + 3u]), uintBitsToFloat(jobs[b + 4u]),
                       uintBitsToFloat(jobs[b + 5u])),
                  head >> 8);
    ivec4 r = ivec4(jobs[b + 6u] & 0xFFFFu, jobs[b + 6u] >> 16, jobs[b + 7u] & 0xFFFFu, jobs[b + 7u] >> 16);
    ivec2 lid = ivec2(gl_LocalInvocationID.xy);
    for (int y = r.y; y <= r.w; y += SCATTER_TILE)
        for (int x = r.x; x <= r.z; x += SCATTER_TILE) {
            ivec2 px = ivec2(x, y) + lid;
            if (px.x <= r.z && px.y <= r.w) splat_pixel(f, px);
        }
}
