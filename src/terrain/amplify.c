/* Amplification: a DEM made N× finer with believable detail below its resolution. The base is interpolated by
 * Catmull-Rom (which passes through its samples), clamped to the range of its four samples per axis so cliffs and
 * coasts do not ring, and fBm detail is added whose amplitude follows the local relief (flat water stays flat, mountains
 * get rough) and from which the noise's own bilinear interpolant on the base lattice is removed: the detail is exactly zero
 * at every base sample, so the amplified world equals its source there. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/dem.h"
#include "terrain/noise.h"

#define AMP_MAX_FACTOR 64u
#define AMP_MAX_OCTAVES 8
#define AMP_RELIEF 0.06 /* detail amplitude per metre of local relief (the 3×3 spread of the base) */

typedef struct amplify {
    st_dem_source *base;
    uint32_t n, shift;   /* factor, and its log2 (fine index >> shift = base index) */
    uint64_t bw, bh;     /* base size */
    float sea;           /* the sea level: no detail on the sea, none that digs land below it */
    double unit, inv_unit; /* the base's unit grid (0: none): outputs are rounded to it, so u16 stays exact */
    double detail;       /* amplitude relative to the local relief */
    uint32_t seed, octaves;
} amplify;


/* 16 unit gradient directions. */
static const float grad_x[16] = {1.0f, 0.9239f, 0.7071f, 0.3827f, 0.0f, -0.3827f, -0.7071f, -0.9239f,
                                 -1.0f, -0.9239f, -0.7071f, -0.3827f, 0.0f, 0.3827f, 0.7071f, 0.9239f};
static const float grad_y[16] = {0.0f, 0.3827f, 0.7071f, 0.9239f, 1.0f, 0.9239f, 0.7071f, 0.3827f,
                                 0.0f, -0.3827f, -0.7071f, -0.9239f, -1.0f, -0.9239f, -0.7071f, -0.3827f};

static inline float fade_slope(float t) { return 30.0f * t * t * (t * (t - 2.0f) + 1.0f); }

/* One lattice row pair of an octave: the gradients of rows iy and iy + 1 at the lattice columns a window needs. */
typedef struct grad_row {
    int64_t ix0;       /* first lattice column */
    float fy, v, dv;   /* position within the lattice row, its fade and the fade's slope */
    float *g;          /* per column: gx0, gy0 (row iy), gx1, gy1 (row iy + 1) */
} grad_row;

/* Gradient noise on a unit lattice with a quintic fade, and its derivatives, at lattice coordinate u of the row
 * pair r (column ix = floor(u)). With unit gradients |n| ≤ √½, so the value is scaled by 1.41 into [−1, 1]. */
static inline float gradient_noise_row(const grad_row *r, double u, float *dx, float *dy) {
    double flu = floor(u);
    const float *g = r->g + 4 * (size_t)((int64_t)flu - r->ix0);
    float fx = (float)(u - flu), fy = r->fy;
    float v00 = g[0] * fx + g[1] * fy, v10 = g[4] * (fx - 1) + g[5] * fy;
    float v01 = g[2] * fx + g[3] * (fy - 1), v11 = g[6] * (fx - 1) + g[7] * (fy - 1);
    float uu = st_noise_fade(fx), du = fade_slope(fx), v = r->v, dv = r->dv;
    float k = v00 - v10 - v01 + v11;
    float n = v00 + uu * (v10 - v00) + v * (v01 - v00) + uu * v * k;
    *dx = 1.41f * (g[0] + uu * (g[4] - g[0]) + v * (g[2] - g[0]) + uu * v * (g[0] - g[4] - g[2] + g[6]) +
                   du * ((v10 - v00) + v * k));
    *dy = 1.41f * (g[1] + uu * (g[5] - g[1]) + v * (g[3] - g[1]) + uu * v * (g[1] - g[5] - g[3] + g[7]) +
                   dv * ((v01 - v00) + uu * k));
    return 1.41f * n;
}

/* Fills r for lattice row coordinate v over lattice columns [floor(u0), floor(u1) + 1]. */
static void grad_row_setup(grad_row *r, double v, double u0, double u1, uint32_t seed) {
    double flv = floor(v);
    uint32_t iy = (uint32_t)(int64_t)flv;
    r->fy = (float)(v - flv);
    r->v = st_noise_fade(r->fy);
    r->dv = fade_slope(r->fy);
    r->ix0 = (int64_t)floor(u0);
    int64_t ix1 = (int64_t)floor(u1) + 1;
    for (int64_t ix = r->ix0; ix <= ix1; ix++) {
        uint32_t h0 = st_noise_hash((uint32_t)ix, iy, seed) & 15, h1 = st_noise_hash((uint32_t)ix, iy + 1, seed) & 15;
        float *g = r->g + 4 * (size_t)(ix - r->ix0);
        g[0] = grad_x[h0], g[1] = grad_y[h0], g[2] = grad_x[h1], g[3] = grad_y[h1];
    }
}

/* The octaves' lattices: wavelengths 0.75·n, 0.375·n, ... fine samples (never a divisor of the base cell, so no
 * lattice lines up with the base's), each offset so they do not share an origin either. */
static inline double octave_freq(const amplify *a, uint32_t o) { return (double)(1u << o) / (0.75 * a->n); }
static inline double octave_offset(uint32_t o) { return 37.71 + 61.37 * o; }

/* Erosion-like fBm (after the book, from Quilez): each octave added as b·n/(1 + |D|²) where D sums the slopes of
 * the octaves so far — steep flanks stay smoother, crests and gullies sharpen. |result| ≤ Σ b. rows[o] must hold
 * fine row y's lattice rows. */
static inline float detail_at(const amplify *a, grad_row *rows, double x) {
    float sum = 0, b = 1.0f, ddx = 0, ddy = 0;
    for (uint32_t o = 0; o < a->octaves; o++, b *= 0.5f) {
        float gx, gy, n = gradient_noise_row(&rows[o], x * octave_freq(a, o) + octave_offset(o), &gx, &gy);
        ddx += gx * b;
        ddy += gy * b;
        sum += b * n / (1.0f + ddx * ddx + ddy * ddy);
    }
    return sum;
}

/* detail_at for every fine column of [x0, x0 + count) of the row the rows hold, into d (count floats), with a
 * scratch of 5·count floats: octave by octave over the whole row, so the inner loops are plain arithmetic (the
 * last one vectorises) and a lattice cell's position is one multiply-add, not a floor per octave per sample. */
static void detail_row(const amplify *a, const grad_row *rows, int64_t x0, uint32_t count, float *restrict d,
                       float *restrict scratch) {
    float *restrict nv = scratch, *restrict gxv = scratch + count, *restrict gyv = scratch + 2 * (size_t)count;
    float *restrict ddx = scratch + 3 * (size_t)count, *restrict ddy = scratch + 4 * (size_t)count;
    for (uint32_t k = 0; k < count; k++) d[k] = ddx[k] = ddy[k] = 0;
    float b = 1.0f;
    for (uint32_t o = 0; o < a->octaves; o++, b *= 0.5f) {
        const grad_row *r = &rows[o];
        double f = octave_freq(a, o), off = octave_offset(o);
        float fy = r->fy, v = r->v, dv = r->dv;
        /* lattice cell by lattice cell: within one the eight gradient components are constants, so the inner loop
         * has no gather and vectorises. u is computed from the sample's own x alone (never accumulated from the
         * window's start), so windows that overlap compute the same samples bit for bit. */
        uint32_t k = 0;
        while (k < count) {
            double u = (double)(x0 + k) * f + off;
            int64_t iu = (int64_t)u; /* u > 0: truncation is floor */
            /* the cell's last sample: estimated, then settled with the same formula (pure in x) */
            int64_t xe = (int64_t)ceil(((double)(iu + 1) - off) / f);
            while (xe > x0 + (int64_t)k + 1 && (int64_t)((double)(xe - 1) * f + off) > iu) xe--;
            while ((int64_t)((double)xe * f + off) <= iu) xe++;
            uint32_t end = xe - x0 > (int64_t)count ? count : (uint32_t)(xe - x0);
            if (end <= k) end = k + 1;
            const float *g = r->g + 4 * (size_t)(iu - r->ix0);
            const float g0 = g[0], g1 = g[1], g2 = g[2], g3 = g[3], g4 = g[4], g5 = g[5], g6 = g[6], g7 = g[7];
            const float cx = g0 - g4 - g2 + g6, cy = g1 - g5 - g3 + g7;
            const double cell = (double)iu;
            for (uint32_t q = k; q < end; q++) {
                float fx = (float)((double)(x0 + q) * f + off - cell);
                float v00 = g0 * fx + g1 * fy, v10 = g4 * (fx - 1) + g5 * fy;
                float v01 = g2 * fx + g3 * (fy - 1), v11 = g6 * (fx - 1) + g7 * (fy - 1);
                float uu = st_noise_fade(fx), du = fade_slope(fx), kk = v00 - v10 - v01 + v11;
                nv[q] = 1.41f * (v00 + uu * (v10 - v00) + v * (v01 - v00) + uu * v * kk);
                gxv[q] = 1.41f * (g0 + uu * (g4 - g0) + v * (g2 - g0) + uu * v * cx + du * ((v10 - v00) + v * kk));
                gyv[q] = 1.41f * (g1 + uu * (g5 - g1) + v * (g3 - g1) + uu * v * cy + dv * ((v01 - v00) + uu * kk));
            }
            k = end;
        }
        for (uint32_t q = 0; q < count; q++) {
            ddx[q] += gxv[q] * b;
            ddy[q] += gyv[q] * b;
            d[q] += b * nv[q] / (1.0f + ddx[q] * ddx[q] + ddy[q] * ddy[q]);
        }
    }
}

/* The same at one sample (x, y), for the base samples' values. */
static float detail_noise(const amplify *a, double x, double y) {
    grad_row rows[AMP_MAX_OCTAVES];
    float g[AMP_MAX_OCTAVES][12];
    for (uint32_t o = 0; o < a->octaves; o++) {
        double f = octave_freq(a, o), off = octave_offset(o);
        rows[o].g = g[o];
        grad_row_setup(&rows[o], y * f + off * 1.618, x * f + off, x * f + off, a->seed + 977u * o);
    }
    return detail_at(a, rows, x);
}

#define MIN2(p, q) ((p) < (q) ? (p) : (q))
#define MAX2(p, q) ((p) > (q) ? (p) : (q))
#define MIN4(p, q, r, t) MIN2(MIN2(p, q), MIN2(r, t))
#define MAX4(p, q, r, t) MAX2(MAX2(p, q), MAX2(r, t))

static inline float catmull(float p0, float p1, float p2, float p3, float t) {
    return p1 + 0.5f * t * (p2 - p0 + t * (2.0f * p0 - 5.0f * p1 + 4.0f * p2 - p3 + t * (3.0f * (p1 - p2) + p3 - p0)));
}

/* Per-window caches, so each fine sample costs a few lerps: the detail noise at base samples, the clamp range and
 * relief at each base sample, and the base's vertical Catmull-Rom per base column for the current fine row. */
typedef struct amp_window {
    int64_t bx0, by0;
    uint32_t bw, bh;      /* base window */
    const float *b;       /* base samples */
    float *noise_at_base; /* detail noise at each base sample of the window */
    float *relief;        /* the detail's amplitude at each base sample of the window */
} amp_window;

static st_result amp_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err) {
    const amplify *a = state;
    const int64_t n = a->n;
    int64_t fw = (int64_t)(a->bw - 1) * n, fh = (int64_t)(a->bh - 1) * n; /* last fine index */
#define CLAMP(v, hi_) ((v) < 0 ? 0 : (v) > (hi_) ? (hi_) : (v))
    /* the fine window clamped to the world: outside it, samples repeat the edge */
    int64_t cx0 = CLAMP(x0, fw), cy0 = CLAMP(y0, fh), cx1 = CLAMP(x0 + w - 1, fw), cy1 = CLAMP(y0 + h - 1, fh);
    amp_window W = {.bx0 = cx0 / n - 1, .by0 = cy0 / n - 1};
    W.bw = (uint32_t)(cx1 / n + 2 - W.bx0 + 1);
    W.bh = (uint32_t)(cy1 / n + 2 - W.by0 + 1);
    size_t cells = (size_t)W.bw * W.bh;
    float *b = malloc(sizeof(float) * cells * 3);
    float *colv = malloc(sizeof(float) * W.bw); /* vertical Catmull-Rom per base column */
    size_t lattice_cols = (size_t)(cx1 - cx0 + 1) + 4; /* lattice columns per octave: at most one per fine sample */
    float *grads = malloc(sizeof(float) * (4 * lattice_cols * a->octaves + 6 * lattice_cols));
    float *drow = grads ? grads + 4 * lattice_cols * a->octaves : NULL; /* the row's detail, then scratch */
    grad_row rows[AMP_MAX_OCTAVES];
    for (uint32_t o = 0; o < a->octaves; o++) rows[o].g = grads ? grads + 4 * lattice_cols * o : NULL;
    if (!b || !colv || !grads) {
        free(b), free(colv), free(grads);
        return st_error_set(err, ST_ERR_NOMEM, "amplify: out of memory for a %ux%u base window", W.bw, W.bh);
    }
    st_result r = st_dem_source_read(a->base, W.bx0, W.by0, W.bw, W.bh, b, err);
    if (r) {
        free(b), free(colv), free(grads);
        return r;
    }
    W.b = b;
    W.noise_at_base = b + cells;
    W.relief = b + 2 * cells;
#define B(i, j) b[(size_t)((j) - W.by0) * W.bw + (size_t)((i) - W.bx0)]
#define CELL(arr, i, j) arr[(size_t)((j) - W.by0) * W.bw + (size_t)((i) - W.bx0)]
    for (int64_t j = W.by0; j < W.by0 + W.bh; j++)
        for (int64_t i = W.bx0; i < W.bx0 + W.bw; i++) {
            CELL(W.noise_at_base, i, j) = detail_noise(a, (double)(i < 0 ? 0 : i) * (double)n, (double)(j < 0 ? 0 : j) * (double)n);
            if (i < W.bx0 + 1 || j < W.by0 + 1 || i + 1 >= W.bx0 + W.bw || j + 1 >= W.by0 + W.bh) continue;
            /* local relief at a base sample: the spread of its 3×3 neighbourhood, interpolated between samples so
             * the detail has no seams; water (all at the sea) gets none */
            float rmin = B(i, j), rmax = rmin;
            for (int q = -1; q <= 1; q++)
                for (int p = -1; p <= 1; p++) {
                    float v = B(i + p, j + q);
                    rmin = v < rmin ? v : rmin;
                    rmax = v > rmax ? v : rmax;
                }
            CELL(W.relief, i, j) = (rmax - rmin) * (float)(a->detail * AMP_RELIEF);
        }
    float inv_n = 1.0f / (float)n;
    for (uint32_t jj = 0; jj < h; jj++) {
        int64_t y = CLAMP(y0 + jj, fh), by = y >> a->shift;
        uint32_t fy = (uint32_t)(y & (n - 1));
        float ty = (float)fy * inv_n;
        for (uint32_t o = 0; o < a->octaves; o++) {
            double f = octave_freq(a, o), off = octave_offset(o);
            grad_row_setup(&rows[o], (double)y * f + off * 1.618, (double)cx0 * f + off, (double)cx1 * f + off,
                           a->seed + 977u * o);
        }
        /* Catmull-Rom down each base column, clamped to the range of its four samples (no ringing past the
         * neighbours at cliffs and coasts, while crests between samples stay round; the clamp depends on the
         * column only, so neighbouring cells agree on their edge) */
        for (int64_t i = W.bx0; i < W.bx0 + W.bw; i++) {
            float p1 = B(i, by), p2 = by + 1 < W.by0 + W.bh ? B(i, by + 1) : p1, v = p1;
            if (by - 1 >= W.by0 && by + 2 < W.by0 + W.bh) {
                float p0 = B(i, by - 1), p3 = B(i, by + 2);
                v = catmull(p0, p1, p2, p3, ty);
                float lo = MIN4(p0, p1, p2, p3), hi = MAX4(p0, p1, p2, p3);
                v = v < lo ? lo : v > hi ? hi : v;
            }
            colv[i - W.bx0] = v;
        }
        detail_row(a, rows, cx0, (uint32_t)(cx1 - cx0 + 1), drow, drow + lattice_cols);
        for (uint32_t ii = 0; ii < w; ii++) {
            int64_t x = CLAMP(x0 + ii, fw), bx = x >> a->shift;
            uint32_t fx = (uint32_t)(x & (n - 1));
            float *o = &out[(size_t)jj * w + ii];
            if (!fx && !fy) { /* a base sample: exactly the source */
                *o = B(bx, by);
                continue;
            }
            float tx = (float)fx * inv_n;
            float c0 = colv[bx - 1 - W.bx0], c1 = colv[bx - W.bx0], c2 = colv[bx + 1 - W.bx0], c3 = colv[bx + 2 - W.bx0];
            float v = catmull(c0, c1, c2, c3, tx);
            float lo = MIN4(c0, c1, c2, c3), hi = MAX4(c0, c1, c2, c3);
            v = v < lo ? lo : v > hi ? hi : v;
            if (v <= a->sea) { /* coastlines stay where the source has them: the sea gets no detail */
                *o = v;
                continue;
            }
            /* the detail noise minus its bilinear interpolant through the base cell's corners: zero at base samples */
            float d = drow[x - cx0];
            float n00 = CELL(W.noise_at_base, bx, by), n10 = CELL(W.noise_at_base, bx + 1, by);
            float n01 = CELL(W.noise_at_base, bx, by + 1), n11 = CELL(W.noise_at_base, bx + 1, by + 1);
            float nb = (n00 * (1 - tx) + n10 * tx) * (1 - ty) + (n01 * (1 - tx) + n11 * tx) * ty;
            float r00 = CELL(W.relief, bx, by), r10 = CELL(W.relief, bx + 1, by);
            float r01 = CELL(W.relief, bx, by + 1), r11 = CELL(W.relief, bx + 1, by + 1);
            float relief = (r00 * (1 - tx) + r10 * tx) * (1 - ty) + (r01 * (1 - tx) + r11 * tx) * ty;
            float hgt = v + relief * (d - nb);
            if (hgt <= a->sea) hgt = a->sea + (a->unit > 0 ? (float)a->unit : 0.01f); /* land never dug below it */
            if (a->unit > 0) { /* onto the base's unit grid (|hgt| / unit is far below 2^53) */
                double q = (double)hgt * a->inv_unit;
                hgt = (float)((double)(int64_t)(q + (q >= 0 ? 0.5 : -0.5)) * a->unit);
            }
            *o = hgt;
        }
    }
#undef B
#undef CELL
#undef CLAMP
    free(b), free(colv), free(grads);
    return ST_OK;
}

/* The amplified range, from one pass over the base: a fine sample lies within its base cell's samples plus the
 * detail, which is at most 2·Σ octave amplitudes (the noise and its interpolant each stay within ±Σ) times the
 * largest relief around the cell. Much tighter than the global range times that factor, so 16-bit storage on the
 * base's unit grid stays possible. */
static st_result amp_bounds(const amplify *a, double *lo, double *hi, st_error *err) {
    const uint32_t band = 64;
    double sum = 0, amp = 1.0;
    for (uint32_t o = 0; o < a->octaves; o++, amp *= 0.5) sum += amp;
    double k = 2.0 * sum * a->detail * AMP_RELIEF;
    *lo = INFINITY;
    *hi = -INFINITY;
    uint32_t w = (uint32_t)a->bw + 4;
    float *rows = malloc(sizeof(float) * w * (band + 4));
    if (!rows) return st_error_set(err, ST_ERR_NOMEM, "amplify: out of memory");
    for (uint64_t y0 = 0; y0 < a->bh; y0 += band) {
        uint32_t h = (uint32_t)(y0 + band <= a->bh ? band : a->bh - y0);
        st_result r = st_dem_source_read(a->base, -2, (int64_t)y0 - 2, w, h + 4, rows, err);
        if (r) {
            free(rows);
            return r;
        }
        for (uint32_t j = 2; j < h + 2; j++)
            for (uint32_t i = 2; i < w - 2; i++) {
                float mn = INFINITY, mx = -INFINITY; /* the 4×4 neighbourhood of the cells around the sample */
                for (int q = -2; q <= 2; q++)
                    for (int p = -2; p <= 2; p++) {
                        float v = rows[(size_t)((int)j + q) * w + (size_t)((int)i + p)];
                        mn = v < mn ? v : mn;
                        mx = v > mx ? v : mx;
                    }
                double spread = (double)(mx - mn);
                *lo = fmin(*lo, mn - k * spread);
                *hi = fmax(*hi, mx + k * spread);
            }
    }
    free(rows);
    return ST_OK;
}

static void amp_destroy(void *state) {
    amplify *a = state;
    st_dem_source_destroy(a->base);
    free(a);
}

st_result st_dem_amplify(st_dem_source *base, const st_dem_amplify_desc *desc, st_dem_source **out, st_error *err) {
    *out = NULL;
    if (!base) return st_error_set(err, ST_ERR_INVALID, "amplify: no base");
    if (!desc || desc->factor < 2 || desc->factor > AMP_MAX_FACTOR || !st_is_pow2(desc->factor)) {
        st_dem_source_destroy(base);
        return st_error_set(err, ST_ERR_INVALID, "amplify: the factor must be a power of two in 2..%u",
                            AMP_MAX_FACTOR);
    }
    if (desc->detail < 0 || desc->detail > 10 || !isfinite(desc->detail)) {
        st_dem_source_destroy(base);
        return st_error_set(err, ST_ERR_INVALID, "amplify: the detail must be in 0..10");
    }
    const st_dem_info *bi = st_dem_source_info(base);
    uint64_t w = (bi->width - 1) * desc->factor + 1, h = (bi->height - 1) * desc->factor + 1;
    if (bi->width < 2 || bi->height < 2 || w > ST_DEM_MAX_SIDE || h > ST_DEM_MAX_SIDE) {
        st_dem_source_destroy(base);
        return st_error_set(err, ST_ERR_INVALID, "amplify: %llux%llu amplified %u× is outside 2..%llu a side",
                            (unsigned long long)bi->width, (unsigned long long)bi->height, desc->factor,
                            (unsigned long long)ST_DEM_MAX_SIDE);
    }
    amplify *a = calloc(1, sizeof *a);
    if (!a) {
        st_dem_source_destroy(base);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    a->base = base;
    a->n = desc->factor;
    while ((1u << a->shift) < a->n) a->shift++;
    a->bw = bi->width;
    a->bh = bi->height;
    a->unit = bi->unit_m;
    a->sea = (float)bi->sea_level_m;
    a->inv_unit = a->unit > 0 ? 1.0 / a->unit : 0;
    a->detail = desc->detail ? desc->detail : 1.0;
    a->seed = (uint32_t)(desc->seed ^ (desc->seed >> 32)) * 0x85ebca6bu + 7u;
    /* wavelengths 0.75·n, 0.375·n, ... fine samples, down to two (Nyquist); at least one octave */
    for (double l = 0.75 * a->n; l >= 2.0 && a->octaves < AMP_MAX_OCTAVES; l *= 0.5) a->octaves++;
    if (!a->octaves) a->octaves = 1;

    st_dem_info info = *bi;
    info.width = w;
    info.height = h;
    info.spacing_x_m = bi->spacing_x_m / a->n;
    info.spacing_y_m = bi->spacing_y_m / a->n;
    double lo, hi;
    st_result r = amp_bounds(a, &lo, &hi, err);
    if (r) {
        amp_destroy(a);
        return r;
    }
    info.min_m = lo - (a->unit > 0 ? a->unit : 0); /* rounding to the unit grid moves a sample by half a unit */
    info.max_m = hi + (a->unit > 0 ? a->unit : 0);
    info.wrap_x = false;
    if (info.georeferenced) {
        info.geotransform[1] /= a->n, info.geotransform[2] /= a->n;
        info.geotransform[4] /= a->n, info.geotransform[5] /= a->n;
    }
    char desc_line[256];
    snprintf(desc_line, sizeof desc_line, "%.180s amplified %ux (seed %llu)", bi->description, a->n,
             (unsigned long long)desc->seed);
    memcpy(info.description, desc_line, sizeof info.description);
    static const st_dem_source_ops ops = {.read = amp_read, .destroy = amp_destroy};
    return st_dem_source_create(&ops, a, &info, out, err);
}
