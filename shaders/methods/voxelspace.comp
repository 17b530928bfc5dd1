#version 460
#extension GL_GOOGLE_include_directive : require
// Voxel Space, parallel along the column: a workgroup per screen column draws exactly what the serial variant's
// one invocation does (voxelspace_serial.comp, the same functions of voxelspace.glsl), 64 samples at a time.
// The march is a recurrence — sample k is taken at lam_k = lam_{k−1} ± step(sample k−1), with the height of
// sample k−1 as its guess — so a chunk's 64 samples are solved as a fixed point: every invocation takes its
// sample from the current positions and guesses, all at once; the positions are then the prefix sums of the
// samples' steps (whole units of 1/1024 texel: exact in any order) and the guesses their predecessors' heights;
// again, until nothing changes. Invocation i is exact after i + 1 rounds at most, and a round in which nothing
// changes has every sample follow from its predecessor as in the serial loop, which has one solution: the serial
// one, to the bit. A step depends on the distance only through its rounding to a unit and terrain is coherent,
// so a chunk takes two or three rounds. Then the y-buffer is a prefix minimum (forward: the rows rise) or maximum
// (backward) of the samples' rows over the chunk — the parallel max-scan of projected heights — and each sample
// draws its own span. Past the edge of a level that does not wrap a sample draws nothing and leaves the guess
// as it was, as in the serial loop.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"

#define CHUNK 64
layout(local_size_x = CHUNK) in;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 1, binding = 1, r32f) uniform writeonly image2D out_depth;

#include "voxelspace.glsl"

// per sample of the chunk: its position (units), its step (units), its height (the next sample's guess)
shared int c_lam[CHUNK + 1], c_step[CHUNK];
shared float c_h[CHUNK + 1]; // index i + 1 for sample i; index 0: the chunk's predecessor
shared int c_scan[CHUNK];
shared int c_row[CHUNK];
shared bool c_changed;
shared int c_stop; // the first sample of the chunk the serial loop does not take (CHUNK: none)

// An inclusive prefix sum (op 0), minimum (op 1) or maximum (op 2) of v over the chunk's invocations.
int chunk_scan(int v, int op) {
    uint i = gl_LocalInvocationID.x;
    c_scan[i] = v;
    barrier();
    for (uint d = 1u; d < uint(CHUNK); d <<= 1) {
        int other = i >= d ? c_scan[i - d] : (op == 0 ? 0 : op == 1 ? 0x7FFFFFFF : -0x7FFFFFFF);
        barrier();
        v = op == 0 ? v + other : op == 1 ? min(v, other) : max(v, other);
        c_scan[i] = v;
        barrier();
    }
    return v;
}

// One direction of the march (dir +1 forward, −1 backward) from the split; edge: the y-buffer (forward: top,
// backward: bottom), updated.
void march(int dir, Sample s0, inout int edge) {
    int H = int(g.screen_up.w);
    float near = g.level_info.z, far = g.eye.w;
    uint i = gl_LocalInvocationID.x;
    int lam0 = 0, step0 = next_step(s0); // the chunk's predecessor: its position and the step after it
    float h0 = s0.p.z;
    for (int k0 = 0; k0 < VS_MAX_STEPS; k0 += CHUNK) {
        if (dir > 0 ? edge <= 0 : edge >= H) break; // the serial loop's condition
        // a first guess: the chunk goes on at its predecessor's step and height
        int lam = lam0 + dir * step0 * int(i + 1u);
        float h_in = h0;
        if (i == 0u) c_h[0] = h0;
        Sample s;
        int done_lam = 0;
        float done_h = -1.0; // the inputs s was taken from (none yet)
        for (int round = 0; round <= CHUNK; round++) {
            bool fresh = lam != done_lam || floatBitsToUint(h_in) != floatBitsToUint(done_h);
            if (fresh) {
                s = sample_at(vs_lam(lam), h_in);
                done_lam = lam;
                done_h = h_in;
            }
            if (i == 0u) c_changed = false;
            c_h[i + 1u] = s.s.outside ? h_in : s.p.z; // past a bounded edge the guess goes on unchanged
            int steps = chunk_scan(next_step(s), 0); // (barriers inside) the steps of samples 0..i
            // the next round's position and guess: after the steps of the samples before, from the height before
            int lam_next = lam0 + dir * (step0 + steps - next_step(s));
            float h_next = c_h[i];
            if (lam_next != lam || floatBitsToUint(h_next) != floatBitsToUint(h_in)) c_changed = true;
            lam = lam_next;
            h_in = h_next;
            barrier();
            bool changed = c_changed;
            barrier(); // every invocation has read the flag (and c_h) before the next round writes them
            if (!changed) break;
        }
        // where the serial loop would stop: past the step budget, or at the first sample out of near..far
        bool out_of_range = dir > 0 ? s.view_z > far : (s.view_z < near || s.view_z > far);
        if (i == 0u) c_stop = CHUNK;
        barrier();
        if (out_of_range || k0 + int(i) >= VS_MAX_STEPS) atomicMin(c_stop, int(i));
        c_lam[i + 1u] = lam;
        if (i == 0u) c_lam[0] = lam0;
        c_step[i] = next_step(s);
        barrier();
        int stop = c_stop;
        // the row this sample reaches (forward) or one past its last row (backward); the y-buffer stays where
        // the sample draws nothing (forward: before the near plane) or the loop has stopped
        int j = dir > 0 ? (s.view_z >= near ? max(int(ceil(s.row - 0.5)), 0) : H) : min(int(ceil(s.row - 0.5)) - 1, H - 1);
        int row = int(i) >= stop || s.s.outside ? (dir > 0 ? H : 0) : (dir > 0 ? j : j + 1);
        row = chunk_scan(row, dir > 0 ? 1 : 2); // the y-buffer after each sample
        int before = i == 0u ? edge : c_scan[i - 1u];
        before = i == 0u ? edge : (dir > 0 ? min(edge, before) : max(edge, before));
        if (int(i) < stop && !s.s.outside) {
            if (dir > 0 && j < before) draw_span(j, before - 1, vs_lam(c_lam[i]), s, vs_lam(c_lam[i + 1u]));
            if (dir < 0 && j >= before) draw_span(before, j, vs_lam(c_lam[i]), s, vs_lam(c_lam[i + 1u]));
        }
        int last = min(stop, CHUNK) - 1;
        int after = last < 0 ? edge : (dir > 0 ? min(edge, c_scan[last]) : max(edge, c_scan[last]));
        lam0 = c_lam[CHUNK];
        step0 = c_step[CHUNK - 1];
        h0 = c_h[CHUNK];
        barrier(); // every invocation has read the chunk's values before the next chunk writes them
        edge = after;
        if (stop < CHUNK) break;
    }
}

void main() {
    int H = int(g.screen_up.w);
    column_setup(int(gl_WorkGroupID.x));
    Sample s0 = sample_at(0.0, g.eye.z);
    int row0 = split_row(s0);
    int top = row0, bottom = row0; // forward draws rows above top, backward rows from bottom down
    march(1, s0, top);
    march(-1, s0, bottom);
    // what no span reached is sky: the fog colour and the far depth, like a missed ray
    vec4 fog = vec4(linear_to_srgb(g.fog.rgb), 1.0);
    for (int j = int(gl_LocalInvocationID.x); j < H; j += CHUNK)
        if (j < top || j >= bottom) {
            imageStore(out_color, ivec2(column, j), fog);
            imageStore(out_depth, ivec2(column, j), vec4(0.0));
        }
}
