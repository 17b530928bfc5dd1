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

#define AMP_MAX_FACTOR 64u
#define AMP_MAX_OCTAVES 8
#define AMP_RELIEF 0.2 /* detail amplitude per metre of local relief (the 3×3 spread of the base) */

typedef struct amplify {
    st_dem_source *base;
    uint32_t n, shift;   /* factor, and its log2 (fine index >> shift = base index) */
    uint64_t bw, bh;     /* base size */
    float sea;           /* the sea level: no detail on the sea, none that digs land below it */
    double unit, inv_unit; /* the base's unit grid (0: none): outputs are rounded to it, so u16 stays exact */
    double detail;       /* amplitude relative to the local relief */
    uint32_t seed, octaves;
    double rot[AMP_MAX_OCTAVES][2]; /* each octave's rotation (cos, sin) */
} amplify;

static inline uint32_t hash3(uint32_t x, uint32_t y, uint32_t s) {
    uint32_t h = x * 0x8da6b343u ^ (y * 0xd8163841u + 0x9e3779b9u) ^ (s * 0xcb1ab31fu);
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/* 16 unit gradient directions. */
static const float grad_x[16] = {1.0f, 0.9239f, 0.7071f, 0.3827f, 0.0f, -0.3827f, -0.7071f, -0.9239f,
                                 -1.0f, -0.9239f, -0.7071f, -0.3827f, 0.0f, 0.3827f, 0.7071f, 0.9239f};
static const float grad_y[16] = {0.0f, 0.3827f, 0.7071f, 0.9239f, 1.0f, 0.9239f, 0.7071f, 0.3827f,
                                 0.0f, -0.3827f, -0.7071f, -0.9239f, -1.0f, -0.9239f, -0.7071f, -0.3827f};

/* Gradient noise on a unit lattice with a quintic fade, and its derivatives. With unit gradients |n| ≤ √½, so
 * the value is scaled by 1.41 into [−1, 1]. */
static float gradient_noise(double x, double y, uint32_t seed, float *dx, float *dy) {
    double flx = floor(x), fly = floor(y);
    uint32_t ix = (uint32_t)(int64_t)flx, iy = (uint32_t)(int64_t)fly;
    float fx = (float)(x - flx), fy = (float)(y - fly);
    uint32_t h00 = hash3(ix, iy, seed) & 15, h10 = hash3(ix + 1, iy, seed) & 15;
    uint32_t h01 = hash3(ix, iy + 1, seed) & 15, h11 = hash3(ix + 1, iy + 1, seed) & 15;
    float v00 = grad_x[h00] * fx + grad_y[h00] * fy, v10 = grad_x[h10] * (fx - 1) + grad_y[h10] * fy;
    float v01 = grad_x[h01] * fx + grad_y[h01] * (fy - 1), v11 = grad_x[h11] * (fx - 1) + grad_y[h11] * (fy - 1);
    float u = fx * fx * fx * (fx * (fx * 6 - 15) + 10), v = fy * fy * fy * (fy * (fy * 6 - 15) + 10);
    float du = 30 * fx * fx * (fx * (fx - 2) + 1), dv = 30 * fy * fy * (fy * (fy - 2) + 1);
    float k = v00 - v10 - v01 + v11;
    float n = v00 + u * (v10 - v00) + v * (v01 - v00) + u * v * k;
    *dx = 1.41f * (grad_x[h00] + u * (grad_x[h10] - grad_x[h00]) + v * (grad_x[h01] - grad_x[h00]) +
                   u * v * (grad_x[h00] - grad_x[h10] - grad_x[h01] + grad_x[h11]) + du * ((v10 - v00) + v * k));
    *dy = 1.41f * (grad_y[h00] + u * (grad_y[h10] - grad_y[h00]) + v * (grad_y[h01] - grad_y[h00]) +
                   u * v * (grad_y[h00] - grad_y[h10] - grad_y[h01] + grad_y[h11]) + dv * ((v01 - v00) + u * k));
    return 1.41f * n;
}

/* Detail noise at fine sample (x, y): erosion-like fBm (after the book, from Quilez): octaves of rotated gradient
 * noise from just under the base spacing down to two fine samples, each added as b·n/(1 + |D|²) where D sums the
 * octaves' slopes so far — steep flanks stay smoother, crests and gullies sharpen. Rotation keeps the lattices of
 * different octaves (and of the base) from lining up. |result| ≤ Σ b. */
static float detail_noise(const amplify *a, double x, double y) {
    float sum = 0, b = 1.0f, ddx = 0, ddy = 0;
    double f = 1.0 / (0.75 * a->n);
    for (uint32_t o = 0; o < a->octaves; o++, b *= 0.5f, f *= 2.0) {
        double c = a->rot[o][0], sn = a->rot[o][1];
        double u = (x * c - y * sn) * f + 37.7 * o, v = (x * sn + y * c) * f + 91.3 * o;
        float gx, gy, n = gradient_noise(u, v, a->seed + 977u * o, &gx, &gy);
        ddx += gx * b;
        ddy += gy * b;
        sum += b * n / (1.0f + ddx * ddx + ddy * ddy);
    }
    return sum;
}

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
    if (!b || !colv) {
        free(b), free(colv);
        return st_error_set(err, ST_ERR_NOMEM, "amplify: out of memory for a %ux%u base window", W.bw, W.bh);
    }
    st_result r = st_dem_source_read(a->base, W.bx0, W.by0, W.bw, W.bh, b, err);
    if (r) {
        free(b), free(colv);
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
        /* Catmull-Rom down each base column, clamped to the range of its four samples (no ringing past the
         * neighbours at cliffs and coasts, while crests between samples stay round; the clamp depends on the
         * column only, so neighbouring cells agree on their edge) */
        for (int64_t i = W.bx0; i < W.bx0 + W.bw; i++) {
            float p1 = B(i, by), p2 = by + 1 < W.by0 + W.bh ? B(i, by + 1) : p1, v = p1;
            if (by - 1 >= W.by0 && by + 2 < W.by0 + W.bh) {
                float p0 = B(i, by - 1), p3 = B(i, by + 2);
                v = catmull(p0, p1, p2, p3, ty);
                float lo = fminf(fminf(p0, p1), fminf(p2, p3)), hi = fmaxf(fmaxf(p0, p1), fmaxf(p2, p3));
                v = v < lo ? lo : v > hi ? hi : v;
            }
            colv[i - W.bx0] = v;
        }
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
            float lo = fminf(fminf(c0, c1), fminf(c2, c3)), hi = fmaxf(fmaxf(c0, c1), fmaxf(c2, c3));
            v = v < lo ? lo : v > hi ? hi : v;
            if (v <= a->sea) { /* coastlines stay where the source has them: the sea gets no detail */
                *o = v;
                continue;
            }
            /* the detail noise minus its bilinear interpolant through the base cell's corners: zero at base samples */
            float d = detail_noise(a, (double)x, (double)y);
            float n00 = CELL(W.noise_at_base, bx, by), n10 = CELL(W.noise_at_base, bx + 1, by);
            float n01 = CELL(W.noise_at_base, bx, by + 1), n11 = CELL(W.noise_at_base, bx + 1, by + 1);
            float nb = (n00 * (1 - tx) + n10 * tx) * (1 - ty) + (n01 * (1 - tx) + n11 * tx) * ty;
            float r00 = CELL(W.relief, bx, by), r10 = CELL(W.relief, bx + 1, by);
            float r01 = CELL(W.relief, bx, by + 1), r11 = CELL(W.relief, bx + 1, by + 1);
            float relief = (r00 * (1 - tx) + r10 * tx) * (1 - ty) + (r01 * (1 - tx) + r11 * tx) * ty;
            float hgt = v + relief * (d - nb);
            if (hgt <= a->sea) hgt = a->sea + (a->unit > 0 ? (float)a->unit : 0.01f); /* land never dug below it */
            if (a->unit > 0) hgt = (float)(nearbyint((double)hgt * a->inv_unit) * a->unit);
            *o = hgt;
        }
    }
#undef B
#undef CELL
#undef CLAMP
    free(b), free(colv);
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
    for (uint32_t o = 0; o < a->octaves; o++) {
        double t = 0.61 + 1.37 * o; /* radians; no two octaves share an orientation */
        a->rot[o][0] = cos(t);
        a->rot[o][1] = sin(t);
    }
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
