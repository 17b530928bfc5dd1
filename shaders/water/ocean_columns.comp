#version 460
#extension GL_GOOGLE_include_directive : require
// The ocean, step 2: the inverse FFT along each column of each cascade's four transforms, in place.
#include "ocean_common.glsl"
#include "ocean_fft.glsl"

void main() {
    uint n = pc.size, col = gl_WorkGroupID.x, c = gl_WorkGroupID.y;
    uint base = c * n * n;
    for (uint j = gl_LocalInvocationID.x; j < n; j += 128u) {
        uint p = 2u * (base + j * n + col), r = bit_reverse(j);
        line_a[r] = work[p];
        line_b[r] = work[p + 1u];
    }
    barrier();
    fft_line();
    for (uint j = gl_LocalInvocationID.x; j < n; j += 128u) {
        uint p = 2u * (base + j * n + col);
        work[p] = line_a[j];
        work[p + 1u] = line_b[j];
    }
}
