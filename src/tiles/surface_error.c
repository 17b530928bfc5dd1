/* The measured vertical error of each level's surface against the finest samples, as CDLOD draws it (each grid
 * cell split along its (0,0)–(1,1) diagonal): a lattice of level-0 tiles spread over the world is read with its
 * ancestors, every finest sample is compared with each ancestor's triangulated surface, and a quantile of those
 * errors is kept per level (the largest over the sampled tiles, so that a rough region sets it, not the world's
 * flat majority). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/tiles.h"

/* Histogram bins from the float's exponent and the top 5 bits of its mantissa: 3 % wide, no logarithm. */
#define BIN_SUB 32
#define BIN_MIN_EXP (-14) /* errors below 2^-14 m (0.06 mm) share the first bin */
#define BIN_MAX_EXP 20
#define BIN_COUNT ((BIN_MAX_EXP - BIN_MIN_EXP) * BIN_SUB)
#define SAMPLE_STEP 3 /* every third finest sample each way (7,396 a tile): odd to the power-of-two grids, whose
                        * vertices have no error, so every position within a coarser cell is sampled alike */

static int bin_of(double e) {
    int ex;
    double m = frexp(e, &ex); /* e = m·2^ex, m in [0.5, 1) */
    if (!(e > 0) || ex <= BIN_MIN_EXP) return 0;
    if (ex > BIN_MAX_EXP) return BIN_COUNT - 1;
    return (ex - BIN_MIN_EXP - 1) * BIN_SUB + (int)((m - 0.5) * 2 * BIN_SUB);
}

/* The upper edge of bin b (metres). */
static double bin_upper(int b) {
    int ex = b / BIN_SUB + BIN_MIN_EXP + 1, sub = b % BIN_SUB;
    return ldexp(0.5 + 0.5 * (sub + 1) / BIN_SUB, ex);
}

/* A tile's samples as floats (metres). */
static float *tile_floats(const st_tile *t) {
    float *f = malloc((size_t)t->size * t->size * sizeof *f);
    if (!f) return NULL;
    for (uint32_t j = 0; j < t->size; j++)
        for (uint32_t i = 0; i < t->size; i++) f[(size_t)j * t->size + i] = st_tile_height(t, i, j);
    return f;
}

/* The height of an n×n tile's triangulated surface at tile sample coordinates (u, v). */
static double tri_height(const float *h, uint32_t n, double u, double v) {
    uint32_t last = n - 1;
    uint32_t a = (uint32_t)u, b = (uint32_t)v;
    if (a >= last) a = last - 1;
    if (b >= last) b = last - 1;
    double fx = u - a, fy = v - b;
    const float *r0 = h + (size_t)b * n + a, *r1 = r0 + n;
    if (fx >= fy) return r0[0] + fx * (r0[1] - r0[0]) + fy * (r1[1] - r0[1]);
    return r0[0] + fy * (r1[0] - r0[0]) + fx * (r1[1] - r1[0]);
}

st_result st_store_surface_error(st_store *s, double quantile, uint32_t lattice, double *out, st_error *err) {
    const st_store_info *in = st_store_get_info(s);
    if (in->kind != ST_TILE_DEM) return st_error_set(err, ST_ERR_INVALID, "surface error: not a DEM store");
    if (!(quantile > 0 && quantile <= 1) || !lattice || lattice > 64)
        return st_error_set(err, ST_ERR_INVALID, "surface error: quantile %g, lattice %u", quantile, lattice);
    uint32_t L = in->levels, S = in->tile_size - 1, nx0, ny0;
    st_store_level_tiles(s, 0, &nx0, &ny0);
    for (uint32_t l = 0; l < L; l++) out[l] = 0;
    uint32_t gx = lattice < nx0 ? lattice : nx0, gy = lattice < ny0 ? lattice : ny0;
    uint32_t (*hist)[BIN_COUNT] = malloc(sizeof *hist * ST_STORE_MAX_LEVELS);
    st_tile *anc[ST_STORE_MAX_LEVELS] = {0};
    float *anc_h[ST_STORE_MAX_LEVELS] = {0};
    if (!hist) return st_error_set(err, ST_ERR_NOMEM, "surface error: out of memory");
    st_result r = ST_OK;
    for (uint32_t ty = 0; ty < gy && !r; ty++)
        for (uint32_t tx = 0; tx < gx && !r; tx++) {
            /* the lattice's tile: the middle of its cell, so a 1×1 lattice takes the centre tile */
            st_tile_key k0 = {0, (uint32_t)(((uint64_t)tx * 2 + 1) * nx0 / (2 * gx)),
                              (uint32_t)(((uint64_t)ty * 2 + 1) * ny0 / (2 * gy))};
            st_tile *t0 = NULL;
            if ((r = st_store_read_tile(s, k0, &t0, err))) break;
            for (uint32_t l = 1; l < L && !r; l++) {
                st_tile_key k = {l, k0.x >> l, k0.y >> l};
                if (anc[l] && st_tile_key_equal(anc[l]->key, k)) continue;
                st_tile_destroy(anc[l]);
                free(anc_h[l]);
                anc[l] = NULL;
                anc_h[l] = NULL;
                r = st_store_read_tile(s, k, &anc[l], err);
                if (!r && !(anc_h[l] = tile_floats(anc[l]))) r = st_error_set(err, ST_ERR_NOMEM, "surface error: out of memory");
            }
            if (r) {
                st_tile_destroy(t0);
                break;
            }
            memset(hist, 0, sizeof *hist * L);
            uint32_t count = 0;
            for (uint32_t j = 0; j <= S; j += SAMPLE_STEP) {
                uint64_t y = (uint64_t)k0.y * S + j;
                if (y >= in->height) break;
                for (uint32_t i = 0; i <= S; i += SAMPLE_STEP) {
                    uint64_t x = (uint64_t)k0.x * S + i;
                    if (x >= in->width) break;
                    double h = st_tile_height(t0, i, j);
                    count++;
                    for (uint32_t l = 1; l < L; l++) {
                        const st_tile *t = anc[l];
                        uint64_t span = (uint64_t)S << l;
                        double u = (double)(x - (uint64_t)t->key.x * span) / (double)(1u << l);
                        double v = (double)(y - (uint64_t)t->key.y * span) / (double)(1u << l);
                        hist[l][bin_of(fabs(tri_height(anc_h[l], t->size, u, v) - h))]++;
                    }
                }
            }
            st_tile_destroy(t0);
            /* this tile's quantile per level (the bin's upper edge: never below the true quantile) */
            uint64_t want = (uint64_t)ceil(quantile * count);
            for (uint32_t l = 1; l < L; l++) {
                uint64_t acc = 0;
                int b = 0;
                for (; b < BIN_COUNT - 1; b++)
                    if ((acc += hist[l][b]) >= want) break;
                double q = b == 0 ? 0 : bin_upper(b); /* the first bin: a flat surface */
                if (q > out[l]) out[l] = q;
            }
        }
    for (uint32_t l = 0; l < ST_STORE_MAX_LEVELS; l++) st_tile_destroy(anc[l]), free(anc_h[l]);
    free(hist);
    return r;
}
