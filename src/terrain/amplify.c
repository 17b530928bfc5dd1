/* Amplification: a DEM made N× finer with believable detail below its resolution. The base is interpolated by
 * Catmull-Rom (which passes through its samples), clamped to its cell's corners so cliffs and coasts do not ring,
 * and fBm detail is added whose amplitude follows the local relief (flat water stays flat, mountains get rough)
 * and from which the noise's own bilinear interpolant on the base lattice is removed: the detail is exactly zero
 * at every base sample, so the amplified world equals its source there. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/dem.h"

#define AMP_MAX_FACTOR 64u
#define AMP_MAX_OCTAVES 8

typedef struct amplify {
    st_dem_source *base;
    uint32_t n;          /* factor */
    uint64_t bw, bh;     /* base size */
    double unit;         /* the base's unit grid (0: none): outputs are rounded to it, so u16 stays exact */
    double detail;       /* amplitude relative to the local relief */
    uint32_t seed, octaves;
    bool wrap_x;
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

static inline float lattice(uint32_t x, uint32_t y, uint32_t seed) {
    return (float)(hash3(x, y, seed) >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

static inline float fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }

/* Detail noise at fine sample (x, y): octaves of value noise with lattices of n/2, n/4 ... 2 fine samples (all
 * finer than the base spacing), amplitude proportional to wavelength. Lattice cells divide the base cell, so the
 * noise is periodic-free but aligned: its value at a base sample is a lattice value. */
static float detail_noise(const amplify *a, uint64_t x, uint64_t y) {
    float sum = 0, amp = 0.5f;
    uint32_t cell = a->n / 2;
    for (uint32_t o = 0; o < a->octaves; o++, cell /= 2, amp *= 0.5f) {
        uint64_t ix = x / cell, iy = y / cell;
        float u = fade((float)(x % cell) / (float)cell), v = fade((float)(y % cell) / (float)cell);
        uint32_t s = a->seed + 977u * o;
        float p = lattice((uint32_t)ix, (uint32_t)iy, s), q = lattice((uint32_t)ix + 1, (uint32_t)iy, s);
        float r = lattice((uint32_t)ix, (uint32_t)iy + 1, s), t = lattice((uint32_t)ix + 1, (uint32_t)iy + 1, s);
        float pq = p + (q - p) * u, rt = r + (t - r) * u;
        sum += amp * (pq + (rt - pq) * v);
    }
    return sum;
}

static inline float catmull(float p0, float p1, float p2, float p3, float t) {
    return p1 + 0.5f * t * (p2 - p0 + t * (2.0f * p0 - 5.0f * p1 + 4.0f * p2 - p3 + t * (3.0f * (p1 - p2) + p3 - p0)));
}

static st_result amp_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err) {
    const amplify *a = state;
    int64_t fw = (int64_t)(a->bw - 1) * a->n, fh = (int64_t)(a->bh - 1) * a->n; /* last fine index */
    /* clamp the fine window to the world first: outside it, samples repeat the edge */
    int64_t cx0 = x0 < 0 ? 0 : x0 > fw ? fw : x0, cy0 = y0 < 0 ? 0 : y0 > fh ? fh : y0;
    int64_t cx1 = x0 + w - 1 < 0 ? 0 : x0 + w - 1 > fw ? fw : x0 + w - 1;
    int64_t cy1 = y0 + h - 1 < 0 ? 0 : y0 + h - 1 > fh ? fh : y0 + h - 1;
    int64_t bx0 = cx0 / a->n - 1, by0 = cy0 / a->n - 1, bx1 = cx1 / a->n + 2, by1 = cy1 / a->n + 2;
    uint32_t bwn = (uint32_t)(bx1 - bx0 + 1), bhn = (uint32_t)(by1 - by0 + 1);
    float *b = malloc(sizeof(float) * bwn * bhn);
    if (!b) return st_error_set(err, ST_ERR_NOMEM, "amplify: out of memory for a %ux%u base window", bwn, bhn);
    st_result r = st_dem_source_read(a->base, bx0, by0, bwn, bhn, b, err);
    if (r) {
        free(b);
        return r;
    }
#define B(i, j) b[(size_t)((j) - by0) * bwn + (size_t)((i) - bx0)]
    for (uint32_t j = 0; j < h; j++) {
        int64_t y = y0 + j < 0 ? 0 : y0 + j > fh ? fh : y0 + j;
        int64_t by = y / a->n;
        uint32_t fy = (uint32_t)(y % a->n);
        float ty = (float)fy / (float)a->n;
        for (uint32_t i = 0; i < w; i++) {
            int64_t x = x0 + i < 0 ? 0 : x0 + i > fw ? fw : x0 + i;
            int64_t bx = x / a->n;
            uint32_t fx = (uint32_t)(x % a->n);
            float *o = &out[(size_t)j * w + i];
            if (!fx && !fy) { /* a base sample: exactly the source */
                *o = B(bx, by);
                continue;
            }
            float tx = (float)fx / (float)a->n, rows[4];
            for (int k = -1; k <= 2; k++)
                rows[k + 1] = catmull(B(bx - 1, by + k), B(bx, by + k), B(bx + 1, by + k), B(bx + 2, by + k), tx);
            float v = catmull(rows[0], rows[1], rows[2], rows[3], ty);
            float c00 = B(bx, by), c10 = B(bx + 1, by), c01 = B(bx, by + 1), c11 = B(bx + 1, by + 1);
            float lo = fminf(fminf(c00, c10), fminf(c01, c11)), hi = fmaxf(fmaxf(c00, c10), fmaxf(c01, c11));
            v = v < lo ? lo : v > hi ? hi : v;
            /* local relief: the spread of the 4×4 neighbourhood; water (all at the sea) gets no detail */
            float rmin = c00, rmax = c00;
            for (int q = -1; q <= 2; q++)
                for (int p = -1; p <= 2; p++) {
                    float s = B(bx + p, by + q);
                    rmin = s < rmin ? s : rmin;
                    rmax = s > rmax ? s : rmax;
                }
            float relief = (rmax - rmin) * (float)a->detail * 0.35f;
            /* the noise minus its bilinear interpolant through the base cell's corners: zero at base samples */
            uint64_t gx0 = (uint64_t)bx * a->n, gy0 = (uint64_t)by * a->n;
            float n00 = detail_noise(a, gx0, gy0), n10 = detail_noise(a, gx0 + a->n, gy0);
            float n01 = detail_noise(a, gx0, gy0 + a->n), n11 = detail_noise(a, gx0 + a->n, gy0 + a->n);
            float nb = (n00 * (1 - tx) + n10 * tx) * (1 - ty) + (n01 * (1 - tx) + n11 * tx) * ty;
            float d = detail_noise(a, (uint64_t)x, (uint64_t)y) - nb;
            float hgt = v + relief * d;
            if (a->unit > 0) hgt = (float)(nearbyint(hgt / a->unit) * a->unit);
            *o = hgt;
        }
    }
#undef B
    free(b);
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
    a->bw = bi->width;
    a->bh = bi->height;
    a->unit = bi->unit_m;
    a->detail = desc->detail ? desc->detail : 1.0;
    a->seed = (uint32_t)(desc->seed ^ (desc->seed >> 32)) * 0x85ebca6bu + 7u;
    for (uint32_t c = a->n / 2; c >= 2 && a->octaves < AMP_MAX_OCTAVES; c /= 2) a->octaves++;
    if (!a->octaves) a->octaves = 1; /* factor 2: one octave of a one-sample lattice */
    st_dem_info info = *bi;
    info.width = w;
    info.height = h;
    info.spacing_x_m = bi->spacing_x_m / a->n;
    info.spacing_y_m = bi->spacing_y_m / a->n;
    /* |detail noise − its interpolant| < 2 (octave amplitudes sum below 1), times the largest relief */
    double spread = (bi->max_m - bi->min_m) * a->detail * 0.35 * 2.0;
    info.min_m = bi->min_m - spread - (a->unit > 0 ? a->unit : 0);
    info.max_m = bi->max_m + spread + (a->unit > 0 ? a->unit : 0);
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
