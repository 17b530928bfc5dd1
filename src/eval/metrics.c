/* Image metrics of a method against the CPU reference: coverage (see-through, covers-sky), depth error
 * percentiles, coherence (3×3 median test), colour MAE and the error heat map. The definitions here are
 * the ones docs/harness.md writes out; tests/test_metrics.c checks them on images with known answers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/eval.h"

static inline bool solid(float d) { return isfinite(d); }

void st_eval_depth_to_distance(const st_view *view, const float *depth, float *distance) {
    uint32_t w = (uint32_t)view->width, h = (uint32_t)view->height;
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) {
            size_t k = (size_t)j * w + i;
            distance[k] = st_view_distance_from_depth(view, i, j, depth[k]); /* NAN for depth 0 */
        }
}

/* ---- coherence ------------------------------------------------------------------------------------------ */

typedef struct {
    const float *d;
    uint32_t w, h;
    uint8_t *flags;
} coherence_job;

/* Median of 9 by insertion sort: nine elements, branch-light, no allocation. */
static float median9(float v[9]) {
    for (int i = 1; i < 9; i++) {
        float x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
    return v[4];
}

static void coherence_rows(void *user, size_t begin, size_t end) {
    coherence_job *job = user;
    const uint32_t w = job->w, h = job->h;
    for (size_t y = begin; y < end; y++) {
        for (uint32_t x = 0; x < w; x++) {
            float c = job->d[y * w + x];
            uint8_t flag = 0;
            if (solid(c)) {
                float v[9];
                bool ok = true;
                int n = 0;
                /* edge padding: a border pixel repeats its nearest row/column, so there are always 9 */
                for (int dy = -1; dy <= 1 && ok; dy++) {
                    long yy = (long)y + dy;
                    yy = yy < 0 ? 0 : yy >= (long)h ? (long)h - 1 : yy;
                    for (int dx = -1; dx <= 1; dx++) {
                        long xx = (long)x + dx;
                        xx = xx < 0 ? 0 : xx >= (long)w ? (long)w - 1 : xx;
                        float s = job->d[(size_t)yy * w + (size_t)xx];
                        if (!solid(s)) { /* a silhouette is not incoherence: leave it to coverage */
                            ok = false;
                            break;
                        }
                        v[n++] = s;
                    }
                }
                if (ok) {
                    float m = median9(v);
                    float tol = ST_COHERENCE_REL * (c > 1.0f ? c : 1.0f);
                    flag = fabsf(c - m) > tol;
                }
            }
            job->flags[y * w + x] = flag;
        }
    }
}

void st_eval_incoherent(const float *distance, uint32_t w, uint32_t h, uint8_t *flags) {
    coherence_job job = {distance, w, h, flags};
    st_parallel_for(h, 16, coherence_rows, &job);
}

/* ---- percentiles ----------------------------------------------------------------------------------------- */

/* Quickselect with a three-way partition (many differences are exactly 0, so equal keys must not degrade
 * it): afterwards v[k] is the k-th smallest, everything left of it ≤ it, everything right ≥ it. */
static void select_kth(float *v, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        float pivot = v[lo + (hi - lo) / 2];
        size_t lt = lo, i = lo, gt = hi;
        while (i <= gt) {
            float x = v[i];
            if (x < pivot) {
                v[i++] = v[lt];
                v[lt++] = x;
            } else if (x > pivot) {
                v[i] = v[gt];
                v[gt] = x;
                if (gt == 0) break;
                gt--;
            } else {
                i++;
            }
        }
        if (k < lt) hi = lt - 1;
        else if (k > gt) lo = gt + 1;
        else return;
    }
}

double st_eval_percentile(float *values, size_t n, double p) {
    if (n == 0) return NAN;
    if (p < 0) p = 0;
    if (p > 100) p = 100;
    double rank = p / 100.0 * (double)(n - 1);
    size_t k = (size_t)floor(rank);
    double frac = rank - (double)k;
    select_kth(values, n, k);
    double a = values[k];
    if (frac == 0 || k + 1 >= n) return a;
    float b = values[k + 1]; /* the next order statistic is the minimum of the upper part */
    for (size_t i = k + 2; i < n; i++)
        if (values[i] < b) b = values[i];
    return a + frac * ((double)b - a);
}

/* ---- all metrics ------------------------------------------------------------------------------------------ */

st_result st_metrics_compute(const float *distance, const float *ref_distance, uint32_t w, uint32_t h,
                             st_metrics *out, st_error *err) {
    memset(out, 0, sizeof *out);
    size_t n = (size_t)w * h;
    if (!n) return st_error_set(err, ST_ERR_INVALID, "metrics: empty image");
    float *diff = malloc(n * sizeof(float));
    uint8_t *flags = malloc(n), *ref_flags = malloc(n);
    if (!diff || !flags || !ref_flags) {
        free(diff);
        free(flags);
        free(ref_flags);
        return st_error_set(err, ST_ERR_NOMEM, "metrics: out of memory for %ux%u", w, h);
    }
    st_eval_incoherent(distance, w, h, flags);
    st_eval_incoherent(ref_distance, w, h, ref_flags);
    uint64_t see = 0, sky = 0, incoherent = 0, wrong = 0;
    size_t both = 0;
    for (size_t k = 0; k < n; k++) {
        bool m = solid(distance[k]), r = solid(ref_distance[k]);
        if (r && !m) see++;
        if (!r && m) sky++;
        if (r && m) {
            float e = fabsf(distance[k] - ref_distance[k]), tol = ST_COHERENCE_REL * ref_distance[k];
            diff[both++] = e;
            if (e > (tol > 1.0f ? tol : 1.0f)) wrong++;
        }
        if (r && flags[k] && !ref_flags[k]) incoherent++;
    }
    out->pixels = n;
    out->both_solid = both;
    out->see_through = 100.0 * (double)see / (double)n;
    out->covers_sky = 100.0 * (double)sky / (double)n;
    out->coherence = 100.0 * (double)incoherent / (double)n;
    out->depth_wrong = 100.0 * (double)wrong / (double)n;
    out->depth_p50 = st_eval_percentile(diff, both, 50);
    out->depth_p95 = st_eval_percentile(diff, both, 95);
    out->color_mae = out->color_visible = NAN;
    free(diff);
    free(flags);
    free(ref_flags);
    return ST_OK;
}

double st_eval_color_mae(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h, const uint8_t *mask) {
    size_t n = (size_t)w * h, used = 0;
    uint64_t sum = 0;
    for (size_t k = 0; k < n; k++) {
        if (mask && !mask[k]) continue;
        for (int c = 0; c < 3; c++) sum += (uint64_t)abs((int)a[4 * k + c] - (int)b[4 * k + c]);
        used++;
    }
    return used ? (double)sum / (3.0 * (double)used) : NAN;
}

/* ---- colour ------------------------------------------------------------------------------------------------ */

static double srgb8_linear(uint8_t v) {
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double lab_f(double t) { return t > 216.0 / 24389.0 ? cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; }

static void srgb8_lab(const uint8_t c[3], double lab[3]) {
    double r = srgb8_linear(c[0]), g = srgb8_linear(c[1]), b = srgb8_linear(c[2]);
    /* linear sRGB → XYZ (D65), divided by the white point */
    double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    double fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
    lab[0] = 116.0 * fy - 16.0;
    lab[1] = 500.0 * (fx - fy);
    lab[2] = 200.0 * (fy - fz);
}

double st_eval_delta_e(const uint8_t a[3], const uint8_t b[3]) {
    double la[3], lb[3];
    srgb8_lab(a, la);
    srgb8_lab(b, lb);
    return sqrt((la[0] - lb[0]) * (la[0] - lb[0]) + (la[1] - lb[1]) * (la[1] - lb[1]) +
                (la[2] - lb[2]) * (la[2] - lb[2]));
}

void st_metrics_color(st_metrics *m, const uint8_t *rgba, const uint8_t *ref_rgba, uint32_t w, uint32_t h) {
    size_t n = (size_t)w * h, visible = 0;
    for (size_t k = 0; k < n; k++)
        if (st_eval_delta_e(rgba + 4 * k, ref_rgba + 4 * k) > ST_COLOR_VISIBLE_DE) visible++;
    m->color_mae = st_eval_color_mae(rgba, ref_rgba, w, h, NULL);
    m->color_visible = n ? 100.0 * (double)visible / (double)n : NAN;
}

void st_eval_color_ramp(double e, uint8_t rgb[3]) {
    /* yellow (threshold) → red (20) → white (≥ 40) */
    double t;
    if (e <= 20) {
        t = (e - ST_COLOR_VISIBLE_DE) / (20 - ST_COLOR_VISIBLE_DE);
        t = t < 0 ? 0 : t;
        rgb[0] = 255, rgb[1] = (uint8_t)(230 * (1 - t) + 0.5), rgb[2] = 0;
    } else {
        t = (e - 20) / 20;
        t = t > 1 ? 1 : t;
        rgb[0] = 255, rgb[1] = (uint8_t)(255 * t + 0.5), rgb[2] = (uint8_t)(255 * t + 0.5);
    }
}

void st_eval_color_heatmap(const uint8_t *rgba, const uint8_t *ref_rgba, uint32_t w, uint32_t h, uint8_t *out,
                           float *delta_e) {
    size_t n = (size_t)w * h;
    for (size_t k = 0; k < n; k++) {
        const uint8_t *a = rgba + 4 * k, *b = ref_rgba + 4 * k;
        double e = st_eval_delta_e(a, b);
        if (delta_e) delta_e[k] = (float)e;
        uint8_t *o = out + 4 * k;
        if (e > ST_COLOR_VISIBLE_DE) {
            st_eval_color_ramp(e, o);
        } else { /* the reference, grey and dim: where the picture is, without competing with the errors */
            uint8_t g = (uint8_t)(0.35 * (0.299 * b[0] + 0.587 * b[1] + 0.114 * b[2]) + 0.5);
            o[0] = o[1] = o[2] = g;
        }
        o[3] = 255;
    }
}

void st_eval_depth_ramp(double error, uint8_t rgb[3]) {
    float v = log2f(1.0f + fabsf((float)error)) / log2f(17.0f);
    v = v > 1 ? 1 : v;
    float rg = v < 0.5f ? 2 * v : 1, b = v < 0.5f ? 0 : 2 * v - 1;
    rgb[0] = rgb[1] = (uint8_t)(rg * 255 + 0.5f);
    rgb[2] = (uint8_t)(b * 255 + 0.5f);
}

/* ---- heat map ----------------------------------------------------------------------------------------------- */

st_result st_eval_heatmap(const float *distance, const float *ref_distance, uint32_t w, uint32_t h,
                          uint8_t *rgba, st_error *err) {
    size_t n = (size_t)w * h;
    uint8_t *flags = malloc(n), *ref_flags = malloc(n);
    if (!flags || !ref_flags) {
        free(flags);
        free(ref_flags);
        return st_error_set(err, ST_ERR_NOMEM, "heat map: out of memory");
    }
    st_eval_incoherent(distance, w, h, flags);
    st_eval_incoherent(ref_distance, w, h, ref_flags);
    for (size_t k = 0; k < n; k++) {
        bool m = solid(distance[k]), r = solid(ref_distance[k]);
        uint8_t c[3];
        if (r && !m) c[0] = 255, c[1] = 0, c[2] = 0;         /* see-through */
        else if (!r && m) c[0] = 0, c[1] = 0, c[2] = 255;    /* covers-sky */
        else if (!r) c[0] = 48, c[1] = 48, c[2] = 48;        /* sky in both */
        else if (flags[k] && !ref_flags[k]) c[0] = 255, c[1] = 0, c[2] = 255; /* counted incoherent */
        else st_eval_depth_ramp(distance[k] - ref_distance[k], c);
        rgba[4 * k] = c[0];
        rgba[4 * k + 1] = c[1];
        rgba[4 * k + 2] = c[2];
        rgba[4 * k + 3] = 255;
    }
    free(flags);
    free(ref_flags);
    return ST_OK;
}
