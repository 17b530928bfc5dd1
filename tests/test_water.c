/* Tests of the water module on the CPU, against known answers: the inverse FFT equals a direct DFT, the
 * evolved spectrum is Hermitian (heights are real), a single wave's phase speed is √(g/k) and a Gerstner crest
 * moves at ω/k, the Jacobian is negative exactly where a choppy wave folds, the spectrum's variance and
 * significant height, no peak at any cascade's patch period (disjoint bands), the height query inverts the
 * sideways displacement, and bad descriptors are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/gen.h"
#include "strata/water.h"
#include "support.h"
#include "water/water_internal.h"

#define PI 3.14159265358979323846

static st_water *make(st_water_desc d) {
    st_water *w = NULL;
    st_error err = {0};
    if (st_water_create(&d, &w, &err)) fail_msg("st_water_create: %s", err.message);
    return w;
}

/* ---- the transform --------------------------------------------------------------------------------- */

static void check_ifft2_against_dft(uint32_t n) {
    double *a = malloc(sizeof(double) * 2 * n * n), *b = malloc(sizeof(double) * 2 * n * n);
    srand(n);
    for (uint32_t i = 0; i < 2 * n * n; i++) a[i] = b[i] = (double)rand() / RAND_MAX - 0.5;
    st_water_ifft2(a, n);
    double worst = 0, scale = 0;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            double re = 0, im = 0;
            for (uint32_t v = 0; v < n; v++)
                for (uint32_t u = 0; u < n; u++) {
                    double ph = 2 * PI * (double)((u * x + v * y) % n) / n, c = cos(ph), s = sin(ph);
                    const double *q = b + 2 * (v * n + u);
                    re += q[0] * c - q[1] * s;
                    im += q[0] * s + q[1] * c;
                }
            const double *o = a + 2 * (y * n + x);
            worst = fmax(worst, fmax(fabs(o[0] - re), fabs(o[1] - im)));
            scale = fmax(scale, fmax(fabs(re), fabs(im)));
        }
    if (!(worst <= 1e-10 * scale)) fail_msg("%u²: FFT differs from the DFT by %g (of %g)", n, worst, scale);
    free(a);
    free(b);
}

static void test_ifft_equals_dft(void **state) {
    (void)state;
    check_ifft2_against_dft(16);
    check_ifft2_against_dft(64);
    double one[16] = {0};
    one[2] = 1; /* a single frequency 1 of n = 8: e^{2πi·m/8} */
    st_water_ifft(one, 8);
    for (int m = 0; m < 8; m++) {
        assert_true(fabs(one[2 * m] - cos(2 * PI * m / 8)) < 1e-12);
        assert_true(fabs(one[2 * m + 1] - sin(2 * PI * m / 8)) < 1e-12);
    }
}

/* The evolved spectrum h̃ = h0·e^{−iωt} + conj(h0(−k))·e^{iωt}, transformed alone: its imaginary part vanishes. */
static void test_heights_are_real(void **state) {
    (void)state;
    st_water *w = make((st_water_desc){.mode = ST_WATER_OCEAN, .fft_size = 64, .wind_speed = 9});
    uint32_t N = 64;
    for (uint32_t c = 0; c < st_water_cascade_count(w); c++) {
        const float *h0 = st_water_h0(w, c), *om = st_water_omega(w, c);
        double *a = malloc(sizeof(double) * 2 * N * N), t = 3.7;
        for (uint32_t j = 0; j < N; j++)
            for (uint32_t i = 0; i < N; i++) {
                size_t p = j * N + i, m = ((N - j) % N) * N + (N - i) % N;
                double ph = om[p] * t;
                double re = h0[2 * p] * cos(ph) + h0[2 * p + 1] * sin(ph) + h0[2 * m] * cos(ph) + h0[2 * m + 1] * sin(ph);
                double im = h0[2 * p + 1] * cos(ph) - h0[2 * p] * sin(ph) + h0[2 * m] * sin(ph) - h0[2 * m + 1] * cos(ph);
                a[2 * p] = re;
                a[2 * p + 1] = im;
            }
        st_water_ifft2(a, N);
        double worst_im = 0, max_re = 0;
        for (size_t p = 0; p < (size_t)N * N; p++) {
            worst_im = fmax(worst_im, fabs(a[2 * p + 1]));
            max_re = fmax(max_re, fabs(a[2 * p]));
        }
        assert_true(max_re > 0);
        if (!(worst_im <= 1e-6 * max_re)) fail_msg("cascade %u: imaginary height %g of %g", c, worst_im, max_re);
        free(a);
    }
    st_water_destroy(w);
}

/* ---- one wave -------------------------------------------------------------------------------------- */

/* An ocean of one cascade holding the single wave h = A·cos(k·x − ωt) along +x, k = n0·2π/L. */
static st_water *single_wave(uint32_t N, float L, int n0, float A, float chop) {
    st_water *w = make((st_water_desc){.mode = ST_WATER_OCEAN, .fft_size = N, .cascades = 1, .patch_m = {L},
                                       .choppiness = chop});
    memset(w->h0[0], 0, sizeof(float) * 2 * N * N);
    size_t p = (size_t)(N / 2) * N + (size_t)(N / 2 + n0);
    w->h0[0][2 * p] = A / 2;
    w->fields_valid[0] = false;
    return w;
}

/* phase of the cos wave along row 0 of the height field (its projection onto cos and sin of k·x) */
static double wave_phase(const float *f, uint32_t N, int n0) {
    double c = 0, s = 0;
    for (uint32_t i = 0; i < N; i++) {
        double a = 2 * PI * n0 * (double)i / N;
        c += f[8 * i] * cos(a);
        s += f[8 * i] * sin(a);
    }
    return atan2(s, c); /* h = A cos(a − φ) → φ */
}

static void test_dispersion_phase_speed(void **state) {
    (void)state;
    const uint32_t N = 64;
    const float L = 100.0f;
    for (int n0 = 2; n0 <= 16; n0 *= 2) {
        st_water *w = single_wave(N, L, n0, 0.5f, -1);
        double k = 2 * PI * n0 / L, t1 = 1.0, t2 = 1.0 + 0.2 * (2 * PI / sqrt(ST_WATER_G * k)); /* a fifth of a period */
        const float *f;
        st_error err;
        assert_int_equal(st_water_fields(w, t1, 0, &f, &err), ST_OK);
        double p1 = wave_phase(f, N, n0);
        assert_int_equal(st_water_fields(w, t2, 0, &f, &err), ST_OK);
        double p2 = wave_phase(f, N, n0);
        double dp = p2 - p1;
        while (dp < 0) dp += 2 * PI;
        double c = dp / k / (t2 - t1), want = sqrt(ST_WATER_G / k);
        if (!(fabs(c - want) <= 0.01 * want)) fail_msg("k = %g: phase speed %g, want %g", k, c, want);
        st_water_destroy(w);
    }
}

/* Over shallow water (h = 2 m) the same single waves move at √(g/k·tanh(k·h)) — the long ones near √(g·h),
 * slower than in deep water by up to 3× here — and ω of the spectrum's grid and of a Gerstner wave follows it. */
static void test_shallow_dispersion(void **state) {
    (void)state;
    const uint32_t N = 64;
    const float L = 100.0f, h = 2.0f;
    for (int n0 = 1; n0 <= 16; n0 *= 4) {
        st_water *w = make((st_water_desc){.mode = ST_WATER_OCEAN, .fft_size = N, .cascades = 1, .patch_m = {L},
                                           .choppiness = -1, .depth_m = h});
        memset(w->h0[0], 0, sizeof(float) * 2 * N * N);
        w->h0[0][2 * ((size_t)(N / 2) * N + (size_t)(N / 2 + n0))] = 0.25f;
        w->fields_valid[0] = false;
        double k = 2 * PI * n0 / L, want = sqrt(ST_WATER_G / k * tanh(k * h));
        double t1 = 1.0, t2 = 1.0 + 0.2 * (2 * PI / (want * k));
        const float *f;
        st_error err;
        assert_int_equal(st_water_fields(w, t1, 0, &f, &err), ST_OK);
        double p1 = wave_phase(f, N, n0);
        assert_int_equal(st_water_fields(w, t2, 0, &f, &err), ST_OK);
        double dp = wave_phase(f, N, n0) - p1;
        while (dp < 0) dp += 2 * PI;
        double c = dp / k / (t2 - t1);
        if (!(fabs(c - want) <= 0.01 * want)) fail_msg("k = %g over %g m: phase speed %g, want %g", k, h, c, want);
        if (n0 == 1 && !(want < 0.5 * sqrt(ST_WATER_G / k))) fail_msg("the longest wave is not slowed: %g", want);
        st_water_destroy(w);
    }
    st_water *g = make((st_water_desc){.mode = ST_WATER_GERSTNER, .gerstner_waves = 3, .wind_speed = 12,
                                       .fetch_km = 100, .depth_m = h});
    for (uint32_t i = 0; i < st_water_wave_count(g); i++) {
        const st_gerstner_wave *v = &st_water_waves(g)[i];
        double c = v->omega / v->k, want = sqrt(ST_WATER_G / v->k * tanh(v->k * h));
        if (!(fabs(c - want) <= 0.005 * want)) fail_msg("Gerstner wave %u: ω/k %g, want %g", i, c, want);
    }
    /* the peak's wavelength is the one whose frequency the spectrum peaks at, over this depth */
    double wp = st_water_peak_omega(12, 100e3);
    if (!(fabs(st_water_dispersion(st_water_waves(g)[0].k, h) - wp) <= 0.002 * wp)) fail_msg("the peak wave's ω is off");
    st_water_destroy(g);
    assert_true(fabs(st_water_dispersion(0.5, 0) - sqrt(ST_WATER_G * 0.5)) < 1e-12); /* 0 = deep water */
}

static void test_gerstner_crest_speed(void **state) {
    (void)state;
    st_water *w = make((st_water_desc){.mode = ST_WATER_GERSTNER, .gerstner_waves = 1, .wind_dir_deg = 90,
                                       .wind_speed = 6, .choppiness = 1});
    const st_gerstner_wave *v = st_water_waves(w);
    assert_true(fabs(v->dir[0] - 1) < 1e-6 && fabs(v->dir[1]) < 1e-6);
    assert_true(fabs(v->amplitude * v->k - v->steepness) < 1e-6); /* A = Q/k */
    double lambda = 2 * PI / v->k, c = v->omega / v->k;
    assert_true(fabs(c - sqrt(ST_WATER_G / v->k)) < 0.005 * c); /* ω = √(gk), up to the loop's rounding */
    /* crest: the highest point of the displaced surface along +x, found on a fine line then refined */
    double crest[2];
    for (int s = 0; s < 2; s++) {
        double t = 2.0 + s * 0.25 * (2 * PI / v->omega), best = -1e9, bx = 0, step = lambda / 2000;
        for (double x = 0; x < lambda; x += step) {
            float z;
            st_error err;
            assert_int_equal(st_water_height(w, t, x, 3.0, &z, &err), ST_OK);
            if (z > best) {
                best = z;
                bx = x;
            }
        }
        crest[s] = bx;
    }
    double moved = crest[1] - crest[0];
    while (moved < 0) moved += lambda;
    double speed = moved / (0.25 * (2 * PI / v->omega));
    if (!(fabs(speed - c) <= 0.01 * c)) fail_msg("crest speed %g, want ω/k = %g", speed, c);
    st_water_destroy(w);
}

/* h = A cos(kx − ωt) with choppiness λ: J = 1 − λkA·cos(kx − ωt) is negative exactly where λkA·cos > 1. */
static void test_jacobian_folds(void **state) {
    (void)state;
    const uint32_t N = 64;
    const float L = 64.0f, A = 2.0f, lambda = 1.5f;
    const int n0 = 4;
    st_water *w = single_wave(N, L, n0, A, lambda);
    double k = 2 * PI * n0 / L, t = 0.8, om = st_water_omega(w, 0)[(N / 2) * N + N / 2 + n0];
    assert_true(lambda * k * A > 1.0); /* it folds */
    const float *f;
    st_error err;
    assert_int_equal(st_water_fields(w, t, 0, &f, &err), ST_OK);
    int folded = 0;
    for (uint32_t j = 0; j < N; j += 7)
        for (uint32_t i = 0; i < N; i++) {
            const float *o = f + 8 * (j * N + i);
            double th = k * (double)i * L / N - om * st_water_loop_time(t);
            double want = 1 - lambda * k * A * cos(th);
            float J = st_water_jacobian(lambda, o[5], o[6], o[7]);
            if (!(fabs(J - want) < 1e-4)) fail_msg("J(%u, %u) = %g, want %g", i, j, J, want);
            if (fabs(want) > 1e-3 && ((J < 0) != (want < 0))) fail_msg("fold sign at (%u, %u)", i, j);
            folded += J < 0;
            /* the fields themselves: h, Dx = −A sin θ, the slope −kA sin θ */
            assert_true(fabs(o[0] - A * cos(th)) < 1e-5);
            assert_true(fabs(o[1] + A * sin(th)) < 1e-5);
            assert_true(fabs(o[3] + k * A * sin(th)) < 1e-4);
            assert_true(fabs(o[2]) < 1e-5 && fabs(o[4]) < 1e-5);
        }
    assert_true(folded > 0);
    st_water_destroy(w);
}

/* ---- the spectrum ---------------------------------------------------------------------------------- */

/* JONSWAP's significant height 4σ against the JONSWAP fetch law gH/U² = 0.0016·√(gF/U²), and the variance
 * of the drawn h0 against ∫F dk² over the bands. */
static void test_spectrum_variance(void **state) {
    (void)state;
    st_water_desc d = {.mode = ST_WATER_OCEAN, .wind_speed = 10, .fetch_km = 100, .fft_size = 128};
    st_water *w = make(d);
    st_water_desc r = *st_water_get_desc(w);
    double integral = 0, drawn = 0;
    for (uint32_t c = 0; c < st_water_cascade_count(w); c++) {
        st_water_cascade cs = st_water_cascade_at(w, c);
        double dk = 2 * PI / cs.patch_m;
        const float *h0 = st_water_h0(w, c);
        for (uint32_t j = 1; j < cs.size; j++)
            for (uint32_t i = 1; i < cs.size; i++) {
                double kx = ((double)i - cs.size / 2) * dk, ky = ((double)j - cs.size / 2) * dk, k = hypot(kx, ky);
                if (k >= cs.k_lo && k < cs.k_hi) integral += st_water_spectrum_density(&r, kx, ky) * dk * dk;
                size_t p = j * cs.size + i;
                drawn += 2 * ((double)h0[2 * p] * h0[2 * p] + (double)h0[2 * p + 1] * h0[2 * p + 1]);
            }
    }
    double hs = 4 * sqrt(integral), U = 10, F = 100e3;
    double law = 0.0016 * sqrt(ST_WATER_G * F / (U * U)) * U * U / ST_WATER_G;
    if (!(hs > 0.75 * law && hs < 1.33 * law)) fail_msg("Hs %g m, the fetch law says %g m", hs, law);
    if (!(fabs(drawn - integral) < 0.15 * integral)) fail_msg("drawn variance %g, ∫F = %g", drawn, integral);
    st_water_destroy(w);
}

/* Power of a real signal's periodogram (Hann window), bins 0..n/2. */
static double *periodogram(const double *x, uint32_t n) {
    double *a = calloc(2 * n, sizeof *a), *p = calloc(n / 2 + 1, sizeof *p);
    for (uint32_t i = 0; i < n; i++) a[2 * i] = x[i] * (0.5 - 0.5 * cos(2 * PI * i / n));
    st_water_ifft(a, n);
    for (uint32_t b = 0; b <= n / 2; b++) p[b] = a[2 * b] * a[2 * b] + a[2 * b + 1] * a[2 * b + 1];
    free(a);
    return p;
}

/* The largest power within a bin of frequency 1/L over the mean power of the octave around it (the spectrum's
 * own level there), for each cascade's patch period, along a long line downwind. */
static void patch_period_peaks(float band_split, double ratio[3]) {
    st_water_desc d = {.mode = ST_WATER_OCEAN, .wind_speed = 12, .fetch_km = 100, .fft_size = 64,
                       .wind_dir_deg = 90, .choppiness = -1, .band_split = band_split};
    st_water *w = make(d);
    const uint32_t n = 8192;
    const double dx = 0.5;
    double *h = malloc(n * sizeof *h);
    for (uint32_t i = 0; i < n; i++) {
        float p[3];
        st_error err;
        assert_int_equal(st_water_displace(w, 5.0, i * dx, 0.37, p, &err), ST_OK);
        h[i] = p[2];
    }
    double *P = periodogram(h, n);
    for (uint32_t c = 0; c < 3; c++) {
        double bc = n * dx / st_water_cascade_at(w, c).patch_m;
        uint32_t b0 = (uint32_t)floor(bc);
        double peak = fmax(P[b0 - 1], fmax(P[b0], fmax(P[b0 + 1], P[b0 + 2])));
        double mean = 0;
        uint32_t lo = (uint32_t)(bc / 1.41), hi = (uint32_t)(bc * 1.41);
        for (uint32_t b = lo; b <= hi; b++) mean += P[b];
        mean /= (hi - lo + 1);
        ratio[c] = peak / mean;
    }
    free(P);
    free(h);
    st_water_destroy(w);
}

static void test_no_peak_at_patch_periods(void **state) {
    (void)state;
    double ratio[3];
    patch_period_peaks(0, ratio);
    /* (the largest patch's own period is a line of the spectrum itself: nothing coarser could hide it, so its
     * size is chosen large against the peak wavelength instead; 68 m here, 250 m patch) */
    for (int c = 1; c < 3; c++)
        if (!(ratio[c] < 2.0)) fail_msg("cascade %d: a peak of %.1f× the spectrum's level at its patch period", c, ratio[c]);
    /* the test can fail: with overlapping bands the fundamental of cascade 1 stands out */
    patch_period_peaks(-1, ratio);
    if (!(ratio[1] > 10.0)) fail_msg("overlapping bands: only %.1f× at cascade 1's period", ratio[1]);
}

static void test_bands_are_disjoint(void **state) {
    (void)state;
    st_water *w = make((st_water_desc){.mode = ST_WATER_OCEAN, .cascades = 4});
    for (uint32_t c = 0; c + 1 < 4; c++) {
        st_water_cascade a = st_water_cascade_at(w, c), b = st_water_cascade_at(w, c + 1);
        assert_true(a.k_hi == b.k_lo);
        assert_true(b.k_lo > 2 * PI / b.patch_m); /* no cascade holds its own patch period */
        assert_true(a.k_hi < PI * a.size / a.patch_m); /* and each band ends below its grid's Nyquist */
        double r = a.patch_m / b.patch_m;
        assert_true(fabs(r - round(r)) > 0.1); /* non-commensurate */
    }
    st_water_destroy(w);
}

/* ---- the query ------------------------------------------------------------------------------------- */

static void test_height_inverts_displacement(void **state) {
    (void)state;
    st_water_mode modes[2] = {ST_WATER_GERSTNER, ST_WATER_OCEAN};
    for (int m = 0; m < 2; m++) {
        st_water *w = make((st_water_desc){.mode = modes[m], .fft_size = 64, .wind_speed = 8, .level = 3.5f,
                                           .metres_per_unit = 0.5f});
        srand(5);
        for (int i = 0; i < 20; i++) {
            double x = rand() % 1000 + 0.37 * i, y = rand() % 1000 - 0.11 * i, t = i * 1.3;
            float p[3], z;
            st_error err;
            assert_int_equal(st_water_displace(w, t, x, y, p, &err), ST_OK);
            assert_int_equal(st_water_height(w, t, p[0], p[1], &z, &err), ST_OK);
            if (!(fabs(z - p[2]) < 1e-3)) fail_msg("%s: height %g at the displaced point of %g", st_water_mode_name(modes[m]), z, p[2]);
            assert_true(fabs(p[2] - 3.5f) < 4.0f); /* around the level */
        }
        st_water_destroy(w);
    }
}

static void test_gerstner_fold_guard(void **state) {
    (void)state;
    st_water *w = make((st_water_desc){.mode = ST_WATER_GERSTNER, .choppiness = 3.0f, .gerstner_waves = 8});
    double q = 0;
    for (uint32_t i = 0; i < st_water_wave_count(w); i++) q += st_water_waves(w)[i].steepness;
    assert_true(st_water_choppiness(w) * q <= 0.9 + 1e-6);
    assert_true(st_water_choppiness(w) < 3.0f);
    st_water_destroy(w);
}

static void test_bad_descriptors(void **state) {
    (void)state;
    st_water_desc bad[] = {
        {.mode = ST_WATER_OCEAN, .wind_speed = NAN},
        {.mode = ST_WATER_OCEAN, .wind_speed = 100},
        {.mode = ST_WATER_OCEAN, .fft_size = 100},
        {.mode = ST_WATER_OCEAN, .fft_size = 1024},
        {.mode = ST_WATER_OCEAN, .cascades = 5},
        {.mode = ST_WATER_OCEAN, .patch_m = {10, 20}},
        {.mode = ST_WATER_OCEAN, .choppiness = INFINITY},
        {.mode = ST_WATER_OCEAN, .level = 1e9f},
        {.mode = ST_WATER_GERSTNER, .gerstner_waves = 9},
        {.mode = (st_water_mode)7},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        st_water *w = (st_water *)1;
        st_error err = {0};
        assert_int_equal(st_water_create(&bad[i], &w, &err), ST_ERR_INVALID);
        assert_null(w);
        assert_true(err.message[0]);
    }
    st_water_mode m;
    assert_true(st_water_mode_parse("ocean", &m) && m == ST_WATER_OCEAN);
    assert_false(st_water_mode_parse("sea", &m));
    st_water *w = make((st_water_desc){.mode = ST_WATER_OCEAN, .fft_size = 16});
    float p[3];
    st_error err;
    assert_int_equal(st_water_displace(w, NAN, 0, 0, p, &err), ST_ERR_INVALID);
    assert_int_equal(st_water_set_weather(w, -3, 0, 1, &err), ST_ERR_INVALID);
    assert_int_equal(st_water_set_weather(w, 15, 45, 0.5f, &err), ST_OK);
    assert_true(st_water_get_desc(w)->wind_speed == 15);
    st_water_destroy(w);
}

static void test_default_level(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 20);
    assert_true(st_water_default_level(l) == 0.5f);
    assert_false(st_water_world_has_water(l)); /* all land */
    st_level_set_single(l, 10, 10, 0, 0);
    assert_true(st_water_world_has_water(l));
    memset(l->flood, 20, l->height >> l->section_power ? l->height >> l->section_power : 1);
    assert_true(st_water_default_level(l) == 20.5f);
    st_level_destroy(l);
    st_gen_desc gd = {.width = 256, .height = 2048};
    st_level *g = NULL;
    assert_st_ok(st_gen_world(&gd, &g, err));
    assert_true(st_water_world_has_water(g)); /* the default world's river */
    st_level_destroy(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ifft_equals_dft),         cmocka_unit_test(test_heights_are_real),
        cmocka_unit_test(test_dispersion_phase_speed),  cmocka_unit_test(test_gerstner_crest_speed),
        cmocka_unit_test(test_shallow_dispersion),
        cmocka_unit_test(test_jacobian_folds),          cmocka_unit_test(test_spectrum_variance),
        cmocka_unit_test(test_no_peak_at_patch_periods), cmocka_unit_test(test_bands_are_disjoint),
        cmocka_unit_test(test_height_inverts_displacement), cmocka_unit_test(test_gerstner_fold_guard),
        cmocka_unit_test(test_bad_descriptors),         cmocka_unit_test(test_default_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
