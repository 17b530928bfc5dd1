/* The ocean on the CPU, computed the way the GPU computes it: the spectrum advanced to time t from h0 (each
 * wave and its conjugate partner), eight real fields packed two per complex transform (h with ∂Dx/∂y, Dx with
 * Dy, the two slopes, ∂Dx/∂x with ∂Dy/∂y), a 2-D inverse FFT, the (−1)^(x+y) sign of the centred wave
 * vectors, then bilinear reconstruction between grid points summed over the cascades. */
#include <math.h>
#include <string.h>

#include "water/water_internal.h"

#define PI 3.14159265358979323846

/* (α + iβ)·h for complex α, β given as (re, im) */
static void pack(const double h[2], double ar, double ai, double br, double bi, double *out) {
    /* c = α + iβ = (ar − bi) + i(ai + br) */
    double cr = ar - bi, ci = ai + br;
    out[0] = cr * h[0] - ci * h[1];
    out[1] = cr * h[1] + ci * h[0];
}

st_result st_ocean_cpu_fields(st_water *w, double t, uint32_t c, st_error *err) {
    if (c >= w->cascade_count) return st_error_set(err, ST_ERR_INVALID, "water: no cascade %u", c);
    if (w->fields_valid[c] && w->fields_t[c] == t) return ST_OK;
    uint32_t N = w->cascades[c].size;
    size_t n2 = (size_t)N * N;
    double dk = 2.0 * PI / w->cascades[c].patch_m;
    double tm = st_water_loop_time(t);
    const float *h0 = w->h0[c], *om = w->omega[c];
    double *ch[4];
    for (int q = 0; q < 4; q++) ch[q] = w->scratch + (size_t)q * 2 * n2;
    for (uint32_t j = 0; j < N; j++)
        for (uint32_t i = 0; i < N; i++) {
            size_t p = (size_t)j * N + i, m = (size_t)((N - j) % N) * N + (N - i) % N;
            double ph = (double)om[p] * tm, co = cos(ph), si = sin(ph);
            double a = h0[2 * p], b = h0[2 * p + 1], cm = h0[2 * m], dm = h0[2 * m + 1];
            /* h̃ = h0(k)·e^{−iωt} + conj(h0(−k))·e^{+iωt}: the first wave travels along +k */
            double ht[2] = {a * co + b * si + cm * co + dm * si, b * co - a * si + cm * si - dm * co};
            double kx = ((double)i - N / 2) * dk, ky = ((double)j - N / 2) * dk, k = sqrt(kx * kx + ky * ky);
            if (!(k > 0)) {
                for (int q = 0; q < 4; q++) ch[q][2 * p] = ch[q][2 * p + 1] = 0;
                continue;
            }
            pack(ht, 0, kx / k, 0, ky / k, ch[0] + 2 * p);          /* Dx + i·Dy: (i·kx/k, i·ky/k)·h̃ */
            pack(ht, 1, 0, -kx * ky / k, 0, ch[1] + 2 * p);         /* h + i·∂Dx/∂y */
            pack(ht, 0, kx, 0, ky, ch[2] + 2 * p);                  /* ∂h/∂x + i·∂h/∂y */
            pack(ht, -kx * kx / k, 0, -ky * ky / k, 0, ch[3] + 2 * p); /* ∂Dx/∂x + i·∂Dy/∂y */
        }
    for (int q = 0; q < 4; q++) st_water_ifft2(ch[q], N);
    float *f = w->fields[c];
    for (uint32_t j = 0; j < N; j++)
        for (uint32_t i = 0; i < N; i++) {
            size_t p = (size_t)j * N + i;
            double s = ((i + j) & 1) ? -1.0 : 1.0;
            float *o = f + 8 * p;
            o[0] = (float)(s * ch[1][2 * p]);
            o[1] = (float)(s * ch[0][2 * p]);
            o[2] = (float)(s * ch[0][2 * p + 1]);
            o[3] = (float)(s * ch[2][2 * p]);
            o[4] = (float)(s * ch[2][2 * p + 1]);
            o[5] = (float)(s * ch[3][2 * p]);
            o[6] = (float)(s * ch[3][2 * p + 1]);
            o[7] = (float)(s * ch[1][2 * p + 1]);
        }
    w->fields_t[c] = t;
    w->fields_valid[c] = true;
    return ST_OK;
}

st_result st_ocean_displace(st_water *w, double t, double x, double y, double out[3], st_error *err) {
    out[0] = out[1] = out[2] = 0;
    double mpu = w->desc.metres_per_unit;
    st_shore_local sh;
    st_shore_local_at(w, x / mpu, y / mpu, &sh);
    double rx = x, ry = y;
    for (uint32_t c = 0; c < w->cascade_count; c++) {
        st_result r = st_ocean_cpu_fields(w, t, c, err);
        if (r) return r;
        uint32_t N = w->cascades[c].size;
        /* over the shore: the cascade sampled at x − F·m̂ (its waves shorter along the normal), shoaled */
        x = rx - sh.f_m[c] * sh.normal[0];
        y = ry - sh.f_m[c] * sh.normal[1];
        double gain = sh.ks[c] * sh.hold;
        /* texel (i, j) rests at (i, j)·L/N: the GPU's bilinear sampling with texel centres on the grid */
        double gx = x / w->cascades[c].patch_m * N, gy = y / w->cascades[c].patch_m * N;
        double fx0 = floor(gx), fy0 = floor(gy), fx = gx - fx0, fy = gy - fy0;
        int64_t ix = (int64_t)fx0, iy = (int64_t)fy0;
        const float *f = w->fields[c];
        double v[3] = {0, 0, 0};
        for (int q = 0; q < 4; q++) {
            uint32_t tx = (uint32_t)((ix + (q & 1)) & (N - 1)), ty = (uint32_t)((iy + (q >> 1)) & (N - 1));
            double wgt = ((q & 1) ? fx : 1 - fx) * ((q >> 1) ? fy : 1 - fy);
            const float *o = f + 8 * ((size_t)ty * N + tx);
            v[0] += wgt * o[1];
            v[1] += wgt * o[2];
            v[2] += wgt * o[0];
        }
        out[0] += gain * w->chop * v[0];
        out[1] += gain * w->chop * v[1];
        out[2] += gain * v[2];
    }
    return ST_OK;
}
