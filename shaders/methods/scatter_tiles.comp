#version 460
#extension GL_GOOGLE_include_directive : require
// Scattered, hole-free: the jobs of the faces whose pixel rectangle exceeded a tile (near the eye). Dispatched
// indirectly with one workgroup per job up to 65535, each taking jobs g, g + G, g + 2G, ...; a job is
// SCATTER_TILES_PER_JOB tiles of its face, one pixel per invocation, so a face that covers the screen is shared
// among many workgroups rather than walked by one; tiles of the face's box that the face does not reach are
// passed over (face_misses_tile).
#include "globals.glsl"
#include "camera.glsl"
#include "scatter.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

void main() {
    uint count = min(queue.job_count, queue.job_capacity);
    ivec2 lid = ivec2(gl_LocalInvocationID.xy);
    for (uint j = gl_WorkGroupID.x; j < count; j += gl_NumWorkGroups.x) {
        uvec2 job = jobs[j];
        uint b = 8u * job.x;
        uint head = faces[b];
        Face f = Face(head & 255u, uintBitsToFloat(faces[b + 1u]),
                      vec4(uintBitsToFloat(faces[b + 2u]), uintBitsToFloat(faces[b + 3u]), uintBitsToFloat(faces[b + 4u]),
                           uintBitsToFloat(faces[b + 5u])),
                      head >> 8);
        ivec4 r = ivec4(faces[b + 6u] & 0xFFFFu, faces[b + 6u] >> 16, faces[b + 7u] & 0xFFFFu, faces[b + 7u] >> 16);
        uint tiles_x = uint(r.z - r.x) / uint(SCATTER_TILE) + 1u;
        uint tiles = tiles_x * (uint(r.w - r.y) / uint(SCATTER_TILE) + 1u);
        for (uint k = job.y; k < min(job.y + SCATTER_TILES_PER_JOB, tiles); k++) {
            ivec2 o = r.xy + SCATTER_TILE * ivec2(k % tiles_x, k / tiles_x);
            if (face_misses_tile(f, o, 2e-3)) continue; // the same for the whole workgroup
            ivec2 px = o + lid;
            if (px.x <= r.z && px.y <= r.w) splat_pixel(f, px);
        }
    }
}
