// The radix-2 inverse FFT of one line of 4 complex channels in shared memory (rows and columns alike): a
// workgroup of 128 threads per line, N ≤ 512 (16 KiB of shared memory). Requires ocean_common.glsl.

layout(local_size_x = 128) in;

shared vec4 line_a[512]; // channels 0, 1
shared vec4 line_b[512]; // channels 2, 3

uint bit_reverse(uint i) { return bitfieldReverse(i) >> (32u - pc.log2_size); }

// The line was loaded in bit-reversed order; log2 N stages of butterflies, each thread taking every 128th.
void fft_line() {
    uint n = pc.size;
    for (uint s = 0u; s < pc.log2_size; s++) {
        uint half_size = 1u << s;
        for (uint t = gl_LocalInvocationID.x; t < n / 2u; t += 128u) {
            uint j = t & (half_size - 1u);
            uint i0 = ((t >> s) << (s + 1u)) | j, i1 = i0 + half_size;
            float angle = OCEAN_PI * float(j) / float(half_size); // e^{+iπj/half}: the inverse transform
            vec2 w = vec2(cos(angle), sin(angle));
            vec4 a = line_a[i0], b = line_a[i1];
            vec4 bw = vec4(cmul(b.xy, w), cmul(b.zw, w));
            line_a[i0] = a + bw;
            line_a[i1] = a - bw;
            a = line_b[i0];
            b = line_b[i1];
            bw = vec4(cmul(b.xy, w), cmul(b.zw, w));
            line_b[i0] = a + bw;
            line_b[i1] = a - bw;
        }
        barrier();
    }
}
