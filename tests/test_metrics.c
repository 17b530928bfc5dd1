/* Metrics on synthetic images with known answers: coverage, depth percentiles, coherence (spikes, edge
 * padding, empty neighbours, the tolerance boundary, the reference's own incoherence), colour MAE, depth
 * conversion, the heat map's classes, slugs and mosaics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/eval.h"
#include "support.h"

static float *filled(uint32_t w, uint32_t h, float v) {
    float *d = malloc(sizeof(float) * w * h);
    for (uint32_t k = 0; k < w * h; k++) d[k] = v;
    return d;
}

static void test_coverage(void **state) {
    (void)state;
    float *ref = filled(4, 4, 10), *m = filled(4, 4, 10);
    ref[0] = NAN;     /* sky in the reference ... */
    m[5] = NAN;       /* ... a hole in the method */
    st_metrics r;
    assert_st_ok(st_metrics_compute(m, ref, 4, 4, &r, err));
    assert_float_equal(r.see_through, 100.0 / 16, 1e-9);
    assert_float_equal(r.covers_sky, 100.0 / 16, 1e-9);
    assert_int_equal(r.both_solid, 14);
    assert_int_equal(r.pixels, 16);
    assert_float_equal(r.depth_p50, 0, 1e-9);
    /* nothing solid in both: depth percentiles are NAN, coverage is total */
    float *sky = filled(4, 4, NAN);
    assert_st_ok(st_metrics_compute(sky, m, 4, 4, &r, err));
    assert_true(isnan(r.depth_p50) && isnan(r.depth_p95));
    assert_float_equal(r.see_through, 100.0 * 15 / 16, 1e-9);
    assert_float_equal(r.covers_sky, 0, 1e-9);
    free(ref);
    free(m);
    free(sky);
}

static void test_percentiles(void **state) {
    (void)state;
    float a[3] = {3, 1, 2};
    assert_float_equal(st_eval_percentile(a, 3, 50), 2.0, 1e-9);
    float b[4] = {4, 1, 3, 2};
    assert_float_equal(st_eval_percentile(b, 4, 50), 2.5, 1e-9);
    float c[5] = {5, 5, 5, 1, 9};
    assert_float_equal(st_eval_percentile(c, 5, 0), 1.0, 1e-9);
    float d[5] = {5, 5, 5, 1, 9};
    assert_float_equal(st_eval_percentile(d, 5, 100), 9.0, 1e-9);
    float e[1] = {7};
    assert_float_equal(st_eval_percentile(e, 1, 95), 7.0, 1e-9);
    assert_true(isnan(st_eval_percentile(e, 0, 50)));
    /* depth errors 0..99 (a ramp with a 1-unit step: 0.01 relative, below the coherence tolerance) */
    float *ref = filled(10, 10, 100), *m = malloc(sizeof(float) * 100);
    for (int k = 0; k < 100; k++) m[k] = 100.0f + (float)k;
    st_metrics r;
    assert_st_ok(st_metrics_compute(m, ref, 10, 10, &r, err));
    assert_float_equal(r.depth_p50, 49.5, 1e-6);
    assert_float_equal(r.depth_p95, 94.05, 1e-4);
    /* many equal keys (the common case: exact agreement) */
    float *many = malloc(sizeof(float) * 10001);
    for (int k = 0; k < 10001; k++) many[k] = k % 7 == 0 ? 3.0f : 0.0f;
    assert_float_equal(st_eval_percentile(many, 10001, 50), 0.0, 1e-9);
    assert_float_equal(st_eval_percentile(many, 10001, 95), 3.0, 1e-9);
    free(many);
    free(ref);
    free(m);
}

static void test_coherence(void **state) {
    (void)state;
    const uint32_t w = 10, h = 10;
    float *ref = filled(w, h, 50), *m = filled(w, h, 50);
    uint8_t flags[100];
    /* an isolated spike is flagged */
    m[5 * w + 5] = 60;
    st_metrics r;
    assert_st_ok(st_metrics_compute(m, ref, w, h, &r, err));
    assert_float_equal(r.coherence, 1.0, 1e-9);
    /* a corner spike: with edge padding it fills 4 of 9 samples, the median stays 50 → flagged */
    m[0] = 60;
    st_eval_incoherent(m, w, h, flags);
    assert_int_equal(flags[0], 1);
    assert_int_equal(flags[1], 0); /* the neighbours of a spike are not */
    assert_int_equal(flags[5 * w + 5], 1);
    /* an empty pixel in the neighbourhood leaves the pixel unflagged */
    m[2 * w + 2] = 60;
    m[1 * w + 1] = NAN;
    st_eval_incoherent(m, w, h, flags);
    assert_int_equal(flags[2 * w + 2], 0);
    /* tolerance: 0.04·max(d, 1) */
    float *t = filled(w, h, 50);
    t[3 * w + 3] = 52; /* |2| ≤ 2.08 */
    t[3 * w + 7] = 53; /* |3| > 2.12 */
    t[7 * w + 3] = 0.5f; /* near the eye max(d,1) = 1: |0.5 − 50| is far off anyway */
    st_eval_incoherent(t, w, h, flags);
    assert_int_equal(flags[3 * w + 3], 0);
    assert_int_equal(flags[3 * w + 7], 1);
    assert_int_equal(flags[7 * w + 3], 1);
    float *small = filled(w, h, 0.45f);
    small[4 * w + 4] = 0.5f; /* |0.05| > 0.04·1 */
    small[4 * w + 7] = 0.47f; /* |0.02| ≤ 0.04 */
    st_eval_incoherent(small, w, h, flags);
    assert_int_equal(flags[4 * w + 4], 1);
    assert_int_equal(flags[4 * w + 7], 0);
    /* the score only counts where the reference is solid and coherent */
    float *ref2 = filled(w, h, 50), *m2 = filled(w, h, 50);
    m2[2 * w + 2] = 70;            /* counted */
    m2[6 * w + 6] = 70;            /* the reference has the same spike: not counted */
    ref2[6 * w + 6] = 70;
    m2[8 * w + 2] = 70;            /* reference sky here: not counted (covers-sky instead) */
    ref2[8 * w + 2] = NAN;
    assert_st_ok(st_metrics_compute(m2, ref2, w, h, &r, err));
    assert_float_equal(r.coherence, 1.0, 1e-9);
    assert_float_equal(r.covers_sky, 1.0, 1e-9);
    free(ref);
    free(m);
    free(t);
    free(small);
    free(ref2);
    free(m2);
}

static void test_color_mae(void **state) {
    (void)state;
    uint8_t a[8] = {10, 20, 30, 255, 0, 0, 0, 255}, b[8] = {20, 0, 60, 0, 0, 0, 0, 9};
    assert_float_equal(st_eval_color_mae(a, b, 2, 1, NULL), 60.0 / 6, 1e-9);
    uint8_t mask[2] = {1, 0};
    assert_float_equal(st_eval_color_mae(a, b, 2, 1, mask), 20.0, 1e-9);
    uint8_t none[2] = {0, 0};
    assert_true(isnan(st_eval_color_mae(a, b, 2, 1, none)));
}

static void test_depth_to_distance(void **state) {
    (void)state;
    st_camera cam = {.position = {0, 0, 100}, .yaw_deg = 20, .pitch_deg = -30};
    st_view v = st_camera_view(&cam, 8, 6);
    float depth[48], dist[48];
    for (uint32_t k = 0; k < 48; k++) depth[k] = st_view_depth_from_z(&v, 100.0f);
    depth[7] = 0; /* a miss */
    st_eval_depth_to_distance(&v, depth, dist);
    assert_true(isnan(dist[7]));
    for (uint32_t j = 0; j < 6; j++)
        for (uint32_t i = 0; i < 8; i++) {
            if (j * 8 + i == 7) continue;
            float dir[3], tn, tf;
            st_view_pixel_ray(&v, i, j, dir, &tn, &tf);
            /* view depth 100 along forward = 100 / cos(angle to forward) along the ray */
            float cosang = dir[0] * v.forward[0] + dir[1] * v.forward[1] + dir[2] * v.forward[2];
            assert_float_equal(dist[j * 8 + i], 100.0f / cosang, 1e-2);
        }
}

static void test_heatmap(void **state) {
    (void)state;
    float ref[4] = {10, 10, NAN, NAN}, m[4] = {NAN, 10, 10, NAN};
    uint8_t rgba[16];
    assert_st_ok(st_eval_heatmap(m, ref, 4, 1, rgba, err));
    assert_int_equal(rgba[0], 255); /* see-through: red */
    assert_int_equal(rgba[1], 0);
    assert_int_equal(rgba[2], 0);
    assert_int_equal(rgba[4], 0); /* exact agreement: black */
    assert_int_equal(rgba[5], 0);
    assert_int_equal(rgba[10], 255); /* covers-sky: blue */
    assert_int_equal(rgba[8], 0);
    assert_int_equal(rgba[12], 48); /* sky in both: grey */
}

static void test_slug_and_mosaic(void **state) {
    (void)state;
    char s[64];
    st_eval_slug("NVIDIA H200 (PCIe)", s, sizeof s);
    assert_string_equal(s, "nvidia-h200-pcie");
    st_eval_slug("llvmpipe (LLVM 15.0.6, 256 bits)", s, sizeof s);
    assert_string_equal(s, "llvmpipe-llvm-15-0-6-256-bits");
    st_eval_slug("", s, sizeof s);
    assert_string_equal(s, "unknown");
    st_mosaic mo;
    assert_st_ok(st_mosaic_create(2, 1, 2, 2, &mo, err));
    assert_int_equal(mo.width, 2 * 2 + 3 * 2);
    /* a 4×4 image scaled by 2 with priority: the single red pixel survives */
    uint8_t img[64] = {0};
    for (int k = 0; k < 16; k++) img[4 * k + 3] = 255;
    img[4 * 5] = 255;
    st_mosaic_put(&mo, 1, 0, img, 4, 4, 2, true);
    size_t px = ((size_t)2 * mo.width + 2 + 2 + 2) * 4; /* tile (1,0) starts at x = 2 + 2 + 2, y = 2 */
    assert_int_equal(mo.rgba[px], 255);
    st_mosaic_put(&mo, 0, 0, img, 4, 4, 2, false); /* box filter: 255/4 */
    size_t px0 = ((size_t)2 * mo.width + 2) * 4;
    assert_int_equal(mo.rgba[px0], 64);
    st_mosaic_free(&mo);
}

/* The interval of the k-view mean: 1.96·√(Σ s_i²/n_i)/k with sample standard deviations. */
static void test_summarize(void **state) {
    (void)state;
    st_compare_result *r = calloc(1, sizeof *r);
    r->method_count = 1;
    r->view_count = 2;
    r->rows = calloc(2, sizeof *r->rows);
    double a[4] = {1, 2, 3, 4}, b[4] = {2, 2, 2, 2};
    r->rows[0].cpu = st_stats_of(a, 4);
    r->rows[1].cpu = st_stats_of(b, 4);
    for (int v = 0; v < 2; v++) {
        r->rows[v].frames = 4;
        r->rows[v].avg_ms = r->rows[v].cpu.mean;
    }
    st_compare_summarize(r);
    assert_float_equal(r->methods[0].mean_ms, 2.25, 1e-9);
    assert_float_equal(r->methods[0].ci95_ms, 1.96 * sqrt(5.0 / 3.0 / 4.0) / 2.0, 1e-9);
    /* one frame per view has no spread to speak of: no interval (printed n/a), not ± 0 */
    for (int v = 0; v < 2; v++) {
        r->rows[v].frames = 1;
        r->rows[v].cpu = st_stats_of(a + v, 1);
        r->rows[v].avg_ms = r->rows[v].cpu.mean;
    }
    st_compare_summarize(r);
    assert_float_equal(r->methods[0].mean_ms, 1.5, 1e-9);
    assert_true(isnan(r->methods[0].ci95_ms));
    st_compare_result_free(r);
}

/* Per-pass times over frames: by name in first-seen order, a pass absent from a frame counting 0 there, so the
 * means add up to the frames' mean; medians per pass; and the method's passes the mean of its views'. */
static void test_pass_sets(void **state) {
    (void)state;
    st_frame_timing f[3] = {0};
    for (int k = 0; k < 3; k++) {
        f[k].pass_count = 2;
        f[k].passes[0] = (st_pass_timing){"shadow", 0.30 + 0.01 * k};
        f[k].passes[1] = (st_pass_timing){"march", 0.10};
    }
    f[1].pass_count = 3; /* an edit's upload on one frame only, before the others */
    f[1].passes[2] = f[1].passes[1];
    f[1].passes[1] = f[1].passes[0];
    f[1].passes[0] = (st_pass_timing){"upload", 0.06};
    st_pass_set mean, median;
    st_pass_set_mean(f, 3, &mean);
    assert_int_equal(mean.count, 3);
    assert_string_equal(mean.passes[0].name, "shadow");
    assert_string_equal(mean.passes[1].name, "march");
    assert_string_equal(mean.passes[2].name, "upload");
    assert_float_equal(st_pass_set_ms(&mean, "shadow"), 0.31, 1e-12);
    assert_float_equal(st_pass_set_ms(&mean, "upload"), 0.02, 1e-12);
    assert_float_equal(st_pass_set_ms(&mean, "march"), 0.10, 1e-12);
    assert_float_equal(st_pass_set_ms(&mean, "resolve"), 0, 0); /* absent */
    st_pass_set_median(f, 3, &median);
    assert_float_equal(st_pass_set_ms(&median, "shadow"), 0.31, 1e-12);
    assert_float_equal(st_pass_set_ms(&median, "upload"), 0, 1e-12);
    /* without timestamps the names are there and the times are not */
    for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; i < f[k].pass_count; i++) f[k].passes[i].gpu_ms = NAN;
    st_pass_set_mean(f, 3, &mean);
    assert_int_equal(mean.count, 3);
    assert_true(isnan(st_pass_set_ms(&mean, "shadow")));
    st_pass_set_median(f, 3, &median);
    assert_true(isnan(st_pass_set_ms(&median, "march")));

    st_compare_result *r = calloc(1, sizeof *r);
    r->method_count = 1;
    r->view_count = 2;
    r->rows = calloc(2, sizeof *r->rows);
    for (int v = 0; v < 2; v++) {
        r->rows[v].frames = 1;
        r->rows[v].avg_ms = 1.0 + v;
        r->rows[v].gpu_timing = true;
        r->rows[v].passes.count = 2;
        r->rows[v].passes.passes[0] = (st_pass_stat){"shadow", 0.5};
        r->rows[v].passes.passes[1] = (st_pass_stat){"march", 0.5 + v};
    }
    r->rows[1].passes.count = 3;
    r->rows[1].passes.passes[2] = (st_pass_stat){"bake", 0.2};
    st_compare_summarize(r);
    const st_pass_set *mp = &r->methods[0].passes;
    assert_int_equal(mp->count, 3);
    assert_float_equal(st_pass_set_ms(mp, "shadow"), 0.5, 1e-12);
    assert_float_equal(st_pass_set_ms(mp, "march"), 1.0, 1e-12);
    assert_float_equal(st_pass_set_ms(mp, "bake"), 0.1, 1e-12);
    st_compare_result_free(r);
}

/* ΔE*ab of known colours, and the colour metrics of an image against itself and against one shifted. */
static void test_color_error(void **state) {
    (void)state;
    const uint8_t black[3] = {0, 0, 0}, white[3] = {255, 255, 255}, grey[3] = {119, 119, 119};
    assert_float_equal(st_eval_delta_e(black, white), 100.0, 0.01);
    assert_float_equal(st_eval_delta_e(grey, grey), 0.0, 1e-12);
    assert_float_equal(st_eval_delta_e(black, grey), 50.0, 0.2); /* sRGB 119 is L* 50 */
    uint8_t a[4 * 4 * 4], b[4 * 4 * 4];
    for (int k = 0; k < 16; k++) {
        for (int c = 0; c < 3; c++) a[4 * k + c] = b[4 * k + c] = 100;
        a[4 * k + 3] = b[4 * k + 3] = 255;
    }
    st_metrics m = {0};
    st_metrics_color(&m, a, b, 4, 4);
    assert_float_equal(m.color_mae, 0, 1e-12);
    assert_float_equal(m.color_visible, 0, 1e-12);
    for (int k = 0; k < 4; k++) b[4 * k] = 160; /* four pixels visibly redder, the rest the same */
    st_metrics_color(&m, a, b, 4, 4);
    assert_float_equal(m.color_visible, 25.0, 1e-9);
    assert_float_equal(m.color_mae, 60.0 * 4 / (3.0 * 16), 1e-9);
    b[4 * 5] = 102; /* two levels of red: below the threshold */
    st_metrics_color(&m, a, b, 4, 4);
    assert_float_equal(m.color_visible, 25.0, 1e-9);
    uint8_t heat[4 * 16];
    float de[16];
    st_eval_color_heatmap(a, b, 4, 4, heat, de);
    assert_true(de[0] > ST_COLOR_VISIBLE_DE && de[5] < ST_COLOR_VISIBLE_DE);
    assert_true(heat[0] == 255 && heat[4 * 5] == heat[4 * 5 + 1]); /* ramp vs dimmed grey */
}

/* ---- the one parallel pass against the definitions evaluated plainly, one pixel after another ---------------- */

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static double plain_percentile(const float *sorted, size_t n, double p) {
    double rank = p / 100.0 * (double)(n - 1);
    size_t k = (size_t)floor(rank);
    double frac = rank - (double)k, a = sorted[k];
    return frac == 0 || k + 1 >= n ? a : a + frac * ((double)sorted[k + 1] - a);
}

static bool plain_incoherent(const float *d, uint32_t w, uint32_t h, uint32_t x, uint32_t y) {
    float c = d[(size_t)y * w + x], v[9];
    if (!isfinite(c)) return false;
    int n = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            long yy = (long)y + dy, xx = (long)x + dx;
            yy = yy < 0 ? 0 : yy >= (long)h ? (long)h - 1 : yy;
            xx = xx < 0 ? 0 : xx >= (long)w ? (long)w - 1 : xx;
            v[n] = d[(size_t)yy * w + (size_t)xx];
            if (!isfinite(v[n++])) return false;
        }
    qsort(v, 9, sizeof *v, cmp_float);
    return fabsf(c - v[4]) > ST_COHERENCE_REL * (c > 1.0f ? c : 1.0f);
}

static double plain_lab_linear(uint8_t v) {
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double plain_f(double t) { return t > 216.0 / 24389.0 ? cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; }

static double plain_delta_e(const uint8_t *a, const uint8_t *b) {
    double lab[2][3];
    for (int s = 0; s < 2; s++) {
        const uint8_t *c = s ? b : a;
        double r = plain_lab_linear(c[0]), g = plain_lab_linear(c[1]), bl = plain_lab_linear(c[2]);
        double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * bl) / 0.95047;
        double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * bl;
        double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * bl) / 1.08883;
        lab[s][0] = 116.0 * plain_f(y) - 16.0;
        lab[s][1] = 500.0 * (plain_f(x) - plain_f(y));
        lab[s][2] = 200.0 * (plain_f(y) - plain_f(z));
    }
    double e = 0;
    for (int k = 0; k < 3; k++) e += (lab[0][k] - lab[1][k]) * (lab[0][k] - lab[1][k]);
    return sqrt(e);
}

/* A method image against a reference with every case in it (sky in one or both, spikes the reference shares or
 * not, wrong depths, exact agreement, equal and near colours), at a size that is no multiple of any chunk: the one
 * pass (rows split over the job system's threads) gives every number and heat-map byte of the plain evaluation. */
static void test_score_equals_plain(void **state) {
    (void)state;
    const uint32_t w = 331, h = 203;
    const size_t n = (size_t)w * h;
    float *d = malloc(n * sizeof *d), *r = malloc(n * sizeof *r), *de = malloc(n * sizeof *de);
    uint8_t *rgba = malloc(4 * n), *ref_rgba = malloc(4 * n), *heat = malloc(4 * n), *cheat = malloc(4 * n);
    uint8_t *flags = malloc(n), *ref_flags = malloc(n), *old_heat = malloc(4 * n), *old_cheat = malloc(4 * n);
    float *old_de = malloc(n * sizeof *old_de);
    srand(7);
    for (size_t k = 0; k < n; k++) {
        uint32_t x = (uint32_t)(k % w), y = (uint32_t)(k / w);
        r[k] = y < 20 ? NAN : 30.0f + 0.5f * (float)y + (float)(x % 17); /* sky on top, steps across */
        int c = rand() % 100;
        d[k] = c < 3 ? NAN : c < 6 ? r[k] + 50.0f : c < 40 ? r[k] : r[k] + (float)(rand() % 1000) / 400.0f;
        if (c == 99) r[k] = NAN; /* the method covers sky */
        for (int q = 0; q < 3; q++) {
            ref_rgba[4 * k + q] = (uint8_t)(rand() % 256);
            int delta = rand() % 5 == 0 ? rand() % 120 - 60 : rand() % 3 == 0 ? 0 : rand() % 5 - 2;
            int v = ref_rgba[4 * k + q] + delta;
            rgba[4 * k + q] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
        rgba[4 * k + 3] = ref_rgba[4 * k + 3] = 255;
    }
    /* the plain evaluation */
    uint64_t see = 0, sky = 0, inc = 0, wrong = 0, csum = 0, vis = 0;
    size_t both = 0;
    float *diff = malloc(n * sizeof *diff);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t k = (size_t)y * w + x;
            bool m = isfinite(d[k]), rs = isfinite(r[k]);
            flags[k] = plain_incoherent(d, w, h, x, y);
            ref_flags[k] = plain_incoherent(r, w, h, x, y);
            see += rs && !m, sky += !rs && m;
            if (rs && m) {
                float e = fabsf(d[k] - r[k]), tol = ST_COHERENCE_REL * r[k];
                diff[both++] = e;
                wrong += e > (tol > 1.0f ? tol : 1.0f);
            }
            inc += rs && flags[k] && !ref_flags[k];
            for (int q = 0; q < 3; q++) csum += (uint64_t)abs(rgba[4 * k + q] - ref_rgba[4 * k + q]);
            vis += plain_delta_e(rgba + 4 * k, ref_rgba + 4 * k) > ST_COLOR_VISIBLE_DE;
        }
    qsort(diff, both, sizeof *diff, cmp_float);
    st_metrics m;
    st_score_desc sd = {.width = w, .height = h, .distance = d, .ref_distance = r, .rgba = rgba, .ref_rgba = ref_rgba,
                        .heat = heat, .color_heat = cheat, .delta_e = de};
    for (int pass = 0; pass < 2; pass++) {
        sd.ref_incoherent = pass ? ref_flags : NULL; /* made here, or once per view by the caller */
        assert_st_ok(st_eval_score(&sd, &m, err));
        assert_int_equal(m.pixels, n);
        assert_int_equal(m.both_solid, both);
        assert_true(m.see_through == 100.0 * (double)see / (double)n);
        assert_true(m.covers_sky == 100.0 * (double)sky / (double)n);
        assert_true(m.coherence == 100.0 * (double)inc / (double)n);
        assert_true(m.depth_wrong == 100.0 * (double)wrong / (double)n);
        assert_true(m.depth_p50 == plain_percentile(diff, both, 50));
        assert_true(m.depth_p95 == plain_percentile(diff, both, 95));
        assert_true(m.color_mae == (double)csum / (3.0 * (double)n));
        assert_true(m.color_visible == 100.0 * (double)vis / (double)n);
    }
    assert_true(inc > 0 && wrong > 0 && see > 0 && sky > 0 && vis > 0); /* every case was there */
    /* the separate functions are the same pass asked for one part */
    st_metrics a;
    assert_st_ok(st_metrics_compute(d, r, w, h, &a, err));
    st_metrics_color(&a, rgba, ref_rgba, w, h);
    assert_true(a.depth_p50 == m.depth_p50 && a.depth_p95 == m.depth_p95 && a.coherence == m.coherence &&
                a.color_mae == m.color_mae && a.color_visible == m.color_visible);
    assert_st_ok(st_eval_heatmap(d, r, w, h, old_heat, err));
    st_eval_color_heatmap(rgba, ref_rgba, w, h, old_cheat, old_de);
    assert_memory_equal(old_heat, heat, 4 * n);
    assert_memory_equal(old_cheat, cheat, 4 * n);
    assert_memory_equal(old_de, de, n * sizeof *de);
    /* the heat maps' pixels by their definitions */
    uint8_t *plain_flags = malloc(n);
    st_eval_incoherent(d, w, h, plain_flags);
    assert_memory_equal(plain_flags, flags, n);
    for (size_t k = 0; k < n; k += 97) {
        double e = plain_delta_e(rgba + 4 * k, ref_rgba + 4 * k);
        assert_true(de[k] == (float)e);
        uint8_t c[3];
        if (e > ST_COLOR_VISIBLE_DE) {
            st_eval_color_ramp(e, c);
            assert_memory_equal(c, cheat + 4 * k, 3);
        }
        if (isfinite(d[k]) && isfinite(r[k]) && !(flags[k] && !ref_flags[k])) {
            st_eval_depth_ramp(d[k] - r[k], c);
            assert_memory_equal(c, heat + 4 * k, 3);
        }
    }
    free(plain_flags);
    free(diff), free(d), free(r), free(de), free(rgba), free(ref_rgba), free(heat), free(cheat);
    free(flags), free(ref_flags), free(old_heat), free(old_cheat), free(old_de);
}

/* The percentiles of large arrays (the parallel selection) equal those of the sorted array, ties and zeros too. */
static void test_percentile_large(void **state) {
    (void)state;
    const uint32_t w = 1000, h = 400;
    float *ref = filled(w, h, 100), *m = malloc(sizeof(float) * w * h), *sorted = malloc(sizeof(float) * w * h);
    srand(3);
    for (uint32_t k = 0; k < w * h; k++) {
        int c = rand() % 10;
        m[k] = 100.0f + (c < 4 ? 0.0f : c < 6 ? 0.25f : (float)(rand() % 100000) / 1000.0f);
        sorted[k] = fabsf(m[k] - 100.0f);
    }
    qsort(sorted, (size_t)w * h, sizeof *sorted, cmp_float);
    st_metrics r;
    assert_st_ok(st_metrics_compute(m, ref, w, h, &r, err));
    assert_true(r.depth_p50 == plain_percentile(sorted, (size_t)w * h, 50));
    assert_true(r.depth_p95 == plain_percentile(sorted, (size_t)w * h, 95));
    free(ref), free(m), free(sorted);
}

/* Without GPU times the rule ranks by the knob's cost order: the first setting within a point of the best. */
static void test_tune_by_order(void **state) {
    (void)state;
    const double error[5] = {9.0, 3.5, 2.9, 2.5, 2.6};
    assert_int_equal(st_tune_choose_by_order(error, 5, 1.0, false), 1);
    assert_int_equal(st_tune_choose_by_order(error, 5, 1.0, true), 4); /* cost falls along the values */
    const double none[2] = {NAN, NAN};
    assert_int_equal(st_tune_choose_by_order(none, 2, 1.0, false), SIZE_MAX);
}

static void write_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

#define RESULTS_JSON(NAME, SEE1, COH2)                                                                       \
    "{\"schema\":\"strata-compare\",\"schema_version\":1,\"adapter\":{\"name\":\"" NAME "\",\"driver\":\"drv 9\"}," \
    "\"level\":{\"crc32\":\"0000abcd\"},\"protocol\":{\"width\":320,\"height\":200,\"far\":600},"           \
    "\"methods\":[{\"name\":\"ray\",\"mean_ms\":1.5,\"ci95_ms\":0.25,\"timing\":\"gpu\"}],"                \
    "\"rows\":[{\"method\":\"ray\",\"view\":\"v1\",\"see_through\":" SEE1 ",\"coherence\":0.2,"              \
    "\"covers_sky\":0},{\"method\":\"ray\",\"view\":\"v2\",\"see_through\":0.1,\"coherence\":" COH2 ","     \
    "\"covers_sky\":0}]}"

/* Merging: frame-time cells per adapter and exactly the accuracy differences beyond the tolerance. */
static void test_merge(void **state) {
    (void)state;
    const char *dir = test_temp_dir("merge");
    char a[512], b[512], bad[512], out[512];
    snprintf(a, sizeof a, "%s/a.json", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    snprintf(bad, sizeof bad, "%s/bad.json", dir);
    snprintf(out, sizeof out, "%s/merged.md", dir);
    write_text(a, RESULTS_JSON("GPU A", "0.50", "0.20"));
    write_text(b, RESULTS_JSON("GPU B", "0.53", "0.40")); /* v1 within 0.05, v2 coherence off by 0.2 */
    const char *paths[2] = {a, b};
    size_t findings = 99;
    assert_st_ok(st_compare_merge(paths, 2, 0.05, out, &findings, err));
    assert_int_equal(findings, 1);
    FILE *fp = fopen(out, "r");
    assert_non_null(fp);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, fp);
    text[n] = 0;
    fclose(fp);
    assert_non_null(strstr(text, "| ray | 1.500 ± 0.250 | 1.500 ± 0.250 |"));
    /* the adapter table: the driver in its own column, the timing column says where the times come from */
    assert_non_null(strstr(text, "| GPU A |  | drv 9 | GPU timestamps |"));
    assert_non_null(strstr(text, "ray @ v2 coherence"));
    assert_null(strstr(text, "ray @ v1"));
    /* a tighter tolerance also reports v1 */
    assert_st_ok(st_compare_merge(paths, 2, 0.01, out, &findings, err));
    assert_int_equal(findings, 2);
    /* another schema version is refused */
    write_text(bad, "{\"schema\":\"strata-compare\",\"schema_version\":99,\"rows\":[]}");
    const char *bad_paths[2] = {a, bad};
    st_error e = {0};
    assert_int_equal(st_compare_merge(bad_paths, 2, 0.05, out, &findings, &e), ST_ERR_FORMAT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coverage),      cmocka_unit_test(test_percentiles),
        cmocka_unit_test(test_coherence),     cmocka_unit_test(test_color_mae),
        cmocka_unit_test(test_depth_to_distance), cmocka_unit_test(test_heatmap),
        cmocka_unit_test(test_slug_and_mosaic), cmocka_unit_test(test_summarize),
        cmocka_unit_test(test_merge),         cmocka_unit_test(test_color_error),
        cmocka_unit_test(test_tune_by_order), cmocka_unit_test(test_pass_sets),
        cmocka_unit_test(test_score_equals_plain), cmocka_unit_test(test_percentile_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
