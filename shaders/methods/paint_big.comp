#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
// Painted in compute, pass 2: the queued jobs of large faces (dispatched indirectly, at most 65535 workgroups,
// each taking jobs g, g + G, g + 2G, ...). A job is up to 64 rows × 256 columns of a face's box; the workgroup
// rebuilds the face from its id, takes the face's own pixels on each row (paint_row) and deals them out
// evenly among its invocations, so a face that covers the screen is shared among many workgroups and a long thin
// one at a slant costs its own pixels, not its box. After the first pass (pc.phase), a job whose pixels the occlusion
// cells already hold nearer than the face is skipped.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "face_raster.glsl"
#include "paint_bars.glsl"
#include "paint_compute.glsl"

layout(local_size_x = 64) in;

shared int row_x[64];     // the first pixel of each row of the job
shared uint row_end[64];  // the job's pixels up to and including each row (inclusive prefix sum)
shared uint job_seen;     // some cell over the job is not yet covered nearer than the face

void main() {
    uint jobs = min(paint_queue[3], pc.misc.z);
    uint lid = gl_LocalInvocationID.x;
    uint tested = 0u, atomics = 0u, hidden = 0u; // counted with PAINT_COUNT
    // this pass's jobs: those after the earlier passes' (word 7); uniform: the whole workgroup loops
    for (uint j = paint_queue[7] + gl_WorkGroupID.x; j < jobs; j += gl_NumWorkGroups.x) {
        uint at = PAINT_QUEUE_HEADER + 4u * j;
        uint id = paint_queue[at], w1 = paint_queue[at + 1u], w2 = paint_queue[at + 2u];
        ivec4 a = ivec4(w1 & 0xFFFFu, w1 >> 16, w2 & 0xFFFFu, w2 >> 16);
        Face f;
        bool any = paint_face(paint_instance(id / 6u), id % 6u, f);
        f.material = id;
        float eps = paint_seam(f);
        if (pc.phase.z != 0u) { // the job's cells, four or five an invocation
            if (lid == 0u) job_seen = 0u;
            barrier();
            float depth = paint_face_nearest(f, eps);
            ivec4 c = paint_cells_of(a);
            int cw = c.z - c.x + 1, cells = cw * (c.w - c.y + 1);
            bool seen = !any || depth > 1.0;
            for (int i = int(lid); i < cells && !seen; i += 64)
                seen = !paint_cell_covers(c.xy + ivec2(i % cw, i / cw), depth);
            if (seen) job_seen = 1u;
            barrier();
            bool skip = job_seen == 0u;
            barrier(); // every invocation has read the flag before the next job clears it
            if (skip) {
                hidden++;
                continue;
            }
        }
        int y = a.y + int(lid);
        ivec2 span = any && y <= a.w ? paint_row(f, y, a.x, a.z) : ivec2(1, 0);
        row_x[lid] = span.x;
        row_end[lid] = uint(max(span.y - span.x + 1, 0));
        barrier();
        for (uint d = 1u; d < 64u; d <<= 1) { // Hillis–Steele scan
            uint add = lid >= d ? row_end[lid - d] : 0u;
            barrier();
            row_end[lid] += add;
            barrier();
        }
        uint total = row_end[63];
        // four pixels an invocation at a time, 64 apart: their depths, then their words' reads side by side, then
        // the atomics (pc.phase.w: as in paint_compute.comp's splat4)
        for (uint p0 = lid; p0 < total; p0 += 256u) {
            uint i[4];
            uint64_t v[4];
            bool hit[4];
            for (int k = 0; k < 4; k++) {
                uint p = p0 + 64u * uint(k);
                uint lo = 0u, hi = 63u; // the row holding pixel p: the first whose end passes p
                while (lo < hi) {
                    uint mid = (lo + hi) >> 1;
                    if (row_end[mid] > p) hi = mid;
                    else lo = mid + 1u;
                }
                uint before = lo > 0u ? row_end[lo - 1u] : 0u;
                ivec2 px = ivec2(row_x[lo] + int(p - before), a.y + int(lo));
                float depth = p < total ? face_pixel_depth_eps(f, px, eps) : -1.0;
                tested += p < total ? 1u : 0u;
                hit[k] = depth > 0.0;
                i[k] = uint(px.y * int(g.screen_right.w) + px.x);
                v[k] = (uint64_t(floatBitsToUint(depth)) << 32) | uint64_t(f.material);
            }
            if (pc.phase.w == 2u) {
                for (int k = 0; k < 4; k++)
                    if (hit[k]) {
                        atomics++;
                        atomicMax(paint_vis[i[k]], v[k]);
                    }
            } else if (pc.phase.w == 1u) {
                for (int k = 0; k < 4; k++)
                    if (hit[k] && paint_vis[i[k]] < v[k]) {
                        atomics++;
                        atomicMax(paint_vis[i[k]], v[k]);
                    }
            } else {
                uint64_t old[4];
                for (int k = 0; k < 4; k++) old[k] = hit[k] ? paint_vis[i[k]] : ~0ul;
                for (int k = 0; k < 4; k++)
                    if (old[k] < v[k]) {
                        atomics++;
                        atomicMax(paint_vis[i[k]], v[k]);
                    }
            }
        }
        barrier(); // every invocation is done with the rows before the next job writes them
    }
    if (PAINT_COUNT != 0u) {
        atomicAdd(paint_queue[PAINT_COUNT_BIG_TESTED], tested);
        atomicAdd(paint_queue[PAINT_COUNT_ATOMICS], atomics);
        if (lid == 0u) atomicAdd(paint_queue[PAINT_COUNT_FACES_HIDDEN], hidden);
    }
}
