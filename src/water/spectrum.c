/* Ocean spectra and the cascades: the Phillips and JONSWAP directional wavenumber spectra F(k) (m⁴), the
 * cascades' patch sizes and disjoint wave bands, and each cascade's h0 — a Gaussian complex amplitude per wave
 * vector, drawn once from a hash of (seed, cascade, texel) so it does not depend on the order of the loops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "water/water_internal.h"

#define PI 3.14159265358979323846

double st_water_peak_omega(double wind, double fetch_m) {
    /* fetch-limited peak (Hasselmann et al.; Horvath 2015): ω_p = 22·(g²/(U·F))^(1/3) */
    return 22.0 * cbrt(ST_WATER_G * ST_WATER_G / (wind * fetch_m));
}

static double jonswap(const st_water_desc *d, double k, double cos_dir) {
    double U = d->wind_speed, F = d->fetch_km * 1000.0, g = ST_WATER_G;
    double omega = st_water_dispersion(k, d->depth_m);
    double wp = st_water_peak_omega(U, F);
    double ratio = wp / omega;
    double shape = exp(-1.25 * ratio * ratio * ratio * ratio);
    if (shape == 0.0 || !(omega > 1e-9)) return 0.0;
    double alpha = 0.076 * pow(U * U / (F * g), 0.22);
    double sigma = omega <= wp ? 0.07 : 0.09;
    double dw = (omega - wp) / (sigma * wp);
    double S = alpha * g * g * pow(omega, -5.0) * shape * pow(3.3, exp(-0.5 * dw * dw));
    /* S(ω) to the polar wavenumber spectrum (dω/dk: g/(2ω) in deep water), then to Cartesian (1/k), with cos²
     * spreading normalised over the half plane downwind */
    double spread = cos_dir > 0 ? (2.0 / PI) * cos_dir * cos_dir : 0.0;
    return S * st_water_dispersion_slope(k, d->depth_m) / k * spread;
}

static double phillips(const st_water_desc *d, double k, double cos_dir) {
    double L = d->wind_speed * d->wind_speed / ST_WATER_G, l = L / 1000.0;
    /* A = α/(2π) with Phillips' α = 0.0081: the spectrum's tail matches Pierson–Moskowitz's α·g²·ω⁻⁵ */
    double A = 0.0081 / (2.0 * PI);
    double kl = k * L;
    double f = A * exp(-1.0 / (kl * kl)) / (k * k * k * k) * cos_dir * cos_dir * exp(-k * k * l * l);
    return cos_dir < 0 ? 0.07 * f : f; /* waves against the wind are weak (as in NVIDIA's oceanFFT) */
}

double st_water_spectrum_density(const st_water_desc *desc, double kx, double ky) {
    double k = sqrt(kx * kx + ky * ky);
    if (!(k > 0)) return 0.0;
    double th = desc->wind_dir_deg * PI / 180.0;
    double cos_dir = (kx * sin(th) + ky * cos(th)) / k;
    return desc->spectrum == ST_SPECTRUM_PHILLIPS ? phillips(desc, k, cos_dir) : jonswap(desc, k, cos_dir);
}

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Two independent standard normals for one texel of one cascade (Box–Muller on a hashed pair of uniforms). */
static void gaussian_pair(uint32_t seed, uint32_t c, uint32_t i, uint32_t j, double out[2]) {
    uint64_t h = mix64(((uint64_t)seed << 32) ^ ((uint64_t)c << 48) ^ ((uint64_t)j << 16) ^ i ^ 0x9e3779b97f4a7c15ull);
    uint64_t h2 = mix64(h + 0x9e3779b97f4a7c15ull);
    double u1 = ((double)(h >> 11) + 1.0) / 9007199254740993.0; /* (0, 1] */
    double u2 = (double)(h2 >> 11) / 9007199254740992.0;
    double r = sqrt(-2.0 * log(u1));
    out[0] = r * cos(2.0 * PI * u2);
    out[1] = r * sin(2.0 * PI * u2);
}

st_result st_water_build_spectra(st_water *w, st_error *err) {
    const st_water_desc *d = &w->desc;
    w->cascade_count = d->mode == ST_WATER_OCEAN ? d->cascades : 0;
    uint32_t N = d->fft_size;
    for (uint32_t c = 0; c < w->cascade_count; c++) {
        st_water_cascade *cs = &w->cascades[c];
        cs->patch_m = d->patch_m[c];
        cs->size = N;
        if (d->band_split < 0) {
            cs->k_lo = 0;
            cs->k_hi = INFINITY;
        } else {
            cs->k_lo = c == 0 ? 0.0f : (float)(d->band_split * 2.0 * PI / d->patch_m[c]);
            cs->k_hi = c + 1 < w->cascade_count ? (float)(d->band_split * 2.0 * PI / d->patch_m[c + 1]) : INFINITY;
        }
        size_t n2 = (size_t)N * N;
        if (!w->h0[c]) w->h0[c] = malloc(n2 * 2 * sizeof(float));
        if (!w->omega[c]) w->omega[c] = malloc(n2 * sizeof(float));
        if (!w->fields[c]) w->fields[c] = malloc(n2 * 8 * sizeof(float));
        if (!w->h0[c] || !w->omega[c] || !w->fields[c]) return st_error_set(err, ST_ERR_NOMEM, "water: out of memory");
        w->fields_valid[c] = false;
        double dk = 2.0 * PI / cs->patch_m;
        for (uint32_t j = 0; j < N; j++)
            for (uint32_t i = 0; i < N; i++) {
                size_t t = (size_t)j * N + i;
                double kx = ((double)i - N / 2) * dk, ky = ((double)j - N / 2) * dk, k = sqrt(kx * kx + ky * ky);
                /* ω² = g·k·tanh(k·h) (deep: g·k), rounded to a whole number of cycles per loop */
                double q = round(st_water_dispersion(k, d->depth_m) * ST_WATER_LOOP_S / (2.0 * PI));
                if (k > 0 && q < 1) q = 1;
                w->omega[c][t] = (float)(q * 2.0 * PI / ST_WATER_LOOP_S);
                double amp = 0;
                /* the Nyquist row and column have no partner −k on the grid: leaving them out keeps every
                 * derivative field Hermitian */
                if (i && j && k >= cs->k_lo && k < cs->k_hi) amp = sqrt(st_water_spectrum_density(d, kx, ky) * dk * dk) / 2.0;
                double xi[2];
                gaussian_pair(d->seed, c, i, j, xi);
                /* E|h0|² = F·Δk²/2, so that summed with its conjugate partner the variance is ∫F dk² */
                w->h0[c][2 * t] = (float)(xi[0] * amp);
                w->h0[c][2 * t + 1] = (float)(xi[1] * amp);
            }
    }
    if (!w->scratch && w->cascade_count) {
        w->scratch = malloc((size_t)N * N * 8 * sizeof(double));
        if (!w->scratch) return st_error_set(err, ST_ERR_NOMEM, "water: out of memory");
    }
    return ST_OK;
}
