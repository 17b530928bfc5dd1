#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
// Painted in compute, pass 2: the queued jobs of large faces (dispatched indirectly, at most 65535 workgroups,
// each taking jobs g, g + G, g + 2G, ...), one pixel per invocation over a job's 16 tiles of 8×8 pixels, so a face
// that covers the screen is shared among many workgroups; the tiles of the face's box it does not reach are
// passed over (face_misses_tile).
#include "globals.glsl"
#include "camera.glsl"
#include "face_raster.glsl"
#include "paint_compute.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

void main() {
    uint jobs = min(paint_queue[4], pc.misc.w);
    ivec2 lid = ivec2(gl_LocalInvocationID.xy);
    for (uint j = gl_WorkGroupID.x; j < jobs; j += gl_NumWorkGroups.x) {
        uint fi = paint_queue[paint_job_base() + 2u * j], tile0 = paint_queue[paint_job_base() + 2u * j + 1u];
        uint b = PAINT_QUEUE_HEADER + 8u * fi;
        uint w6 = paint_queue[b + 6u], w7 = paint_queue[b + 7u];
        Face f = Face((w6 >> 14) & 3u, uintBitsToFloat(paint_queue[b]),
                      vec4(uintBitsToFloat(paint_queue[b + 1u]), uintBitsToFloat(paint_queue[b + 2u]),
                           uintBitsToFloat(paint_queue[b + 3u]), uintBitsToFloat(paint_queue[b + 4u])),
                      paint_queue[b + 5u]);
        ivec4 r = ivec4(w6 & 0x3FFFu, w6 >> 16, w7 & 0xFFFFu, w7 >> 16);
        uint tiles_x = uint(r.z - r.x) / 8u + 1u, tiles = tiles_x * (uint(r.w - r.y) / 8u + 1u);
        float eps = paint_seam(f);
        for (uint k = tile0; k < min(tile0 + PAINT_TILES_PER_JOB, tiles); k++) {
            ivec2 o = r.xy + PAINT_TILE_PX * ivec2(k % tiles_x, k / tiles_x);
            if (face_misses_tile(f, o, eps)) continue; // the same for the whole workgroup
            ivec2 px = o + lid;
            if (px.x > r.z || px.y > r.w) continue;
            float depth = face_pixel_depth_eps(f, px, eps);
            if (depth <= 0.0) continue;
            uint i = uint(px.y * int(g.screen_right.w) + px.x);
            uint64_t v = (uint64_t(floatBitsToUint(depth)) << 32) | uint64_t(f.material);
            if (paint_vis[i] < v) atomicMax(paint_vis[i], v);
        }
    }
}
