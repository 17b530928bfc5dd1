/* The CPU's inverse FFT: iterative radix-2 Cooley–Tukey on interleaved complex doubles (bit-reversed order in,
 * natural order out), and the 2-D form as rows then columns — the same decomposition as the GPU's compute
 * transform (shaders/water/ocean_fft.comp), used by the CPU ocean and as the tests' second opinion. */
#include <math.h>

#include "strata/water.h"

/* n complex values at a + 2·stride·i */
static void ifft_strided(double *a, uint32_t n, size_t stride) {
    if (n < 2) return;
    uint32_t bits = 0;
    while ((1u << bits) < n) bits++;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = 0;
        for (uint32_t b = 0; b < bits; b++) r |= ((i >> b) & 1u) << (bits - 1 - b);
        if (r > i) {
            double *p = a + 2 * stride * i, *q = a + 2 * stride * r;
            double t0 = p[0], t1 = p[1];
            p[0] = q[0];
            p[1] = q[1];
            q[0] = t0;
            q[1] = t1;
        }
    }
    for (uint32_t half = 1; half < n; half <<= 1) {
        double step = 3.14159265358979323846 / (double)half; /* e^{+iπj/half}: the inverse transform */
        for (uint32_t j = 0; j < half; j++) {
            double wr = cos(step * j), wi = sin(step * j);
            for (uint32_t i0 = j; i0 < n; i0 += 2 * half) {
                double *p = a + 2 * stride * i0, *q = a + 2 * stride * (i0 + half);
                double br = q[0] * wr - q[1] * wi, bi = q[0] * wi + q[1] * wr;
                double ar = p[0], ai = p[1];
                p[0] = ar + br;
                p[1] = ai + bi;
                q[0] = ar - br;
                q[1] = ai - bi;
            }
        }
    }
}

void st_water_ifft(double *a, uint32_t n) { ifft_strided(a, n, 1); }

void st_water_ifft2(double *a, uint32_t n) {
    for (uint32_t y = 0; y < n; y++) ifft_strided(a + (size_t)2 * n * y, n, 1);
    for (uint32_t x = 0; x < n; x++) ifft_strided(a + (size_t)2 * x, n, n);
}
