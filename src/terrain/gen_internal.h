/* Internals of the procedural multi-layer world shared by its files: the generator's context, the work planes a
 * rectangle of the world is generated into, and the passes over them (the terrain in gen.c; the opening, the
 * dual threshold and the slabs in gen_slabs.c). The whole world (gen_world.c) and a region of it alone
 * (gen_region.c) run the same passes, so they agree byte for byte. */
#ifndef STRATA_TERRAIN_GEN_INTERNAL_H
#define STRATA_TERRAIN_GEN_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "strata/gen.h"

#define GEN_SCORE_FORCED 65535u /* a landmark's slab: dual whatever the threshold */
#define GEN_MAX_DUAL_PERCENT 30.0f

/* Gradient noise on a power-of-two lattice whose period divides the level, so the world tiles in x and y. */
typedef struct gen_noise {
    uint32_t shift, cell_mask, px_mask, py_mask, seed;
    float inv_cell;
} gen_noise;

typedef struct gen_ctx {
    st_gen_desc d; /* resolved: no zero fields left */
    uint32_t w, h, seed;
    float fs;     /* feature scale: 1 at the default size, smaller for small test worlds */
    uint32_t cols, rows, cell_w, cell_h; /* the landmark layout's cells: one up to the default size, else of it */
    float sx, sy; /* landmark position scale inside a cell */
    gen_noise base[6], ridge[4], mmask, biome, biome2, biome3, step, cave, trib[2], butte, tstr, fine16, fine8,
        meander, rwidth;
} gen_ctx;

/* Where a rectangle of the world is generated to: texel planes (row stride `stride` bytes) and, per texel pair,
 * the dual candidate's score (0 never dual, GEN_SCORE_FORCED always, else its rank) and the candidate itself
 * (low | D << 8 | high << 12 | low_type << 20 | high_type << 23), row stride stride / 2. */
typedef struct gen_planes {
    uint8_t *heights, *meta;
    uint16_t *score;
    uint32_t *cand;
    size_t stride;
} gen_planes;

/* The same planes from texel (x, y) on (x even). */
static inline gen_planes gen_planes_at(const gen_planes *p, size_t x, size_t y) {
    size_t half = p->stride / 2;
    return (gen_planes){p->heights + y * p->stride + x, p->meta + y * p->stride + x, p->score + y * half + x / 2,
                        p->cand + y * half + x / 2, p->stride};
}

/* Checks desc and fills in its defaults; max_side bounds each side (the in-memory level's own limits are the
 * caller's). *is_default: the embedded default world. */
st_result gen_resolve(const st_gen_desc *desc, uint32_t max_side, st_gen_desc *out, bool *is_default,
                      st_error *err);
/* The context of a resolved descriptor: noises, feature scale and the landmarks placed for its size. */
void gen_ctx_init(gen_ctx *g, const st_gen_desc *resolved);

/* The terrain pass: texels [x0, x0 + w) × [y0, y0 + h), inside the world (no wrap) with x0 and w even, as single
 * texels and dual candidates into out (which starts at texel (x0, y0)). False when out of memory. */
bool gen_terrain_rect(const gen_ctx *g, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const gen_planes *out);

/* The opening of the score plane (pw × ph pairs, rows pw apart) that removes lone slabs, in two steps over pair
 * rows [r0, r1) and columns [c0, c1): erode writes the 3×3 minimum of score into eroded, dilate lowers each
 * generic score to the 3×3 maximum of eroded. Neighbours wrap around the plane when wrap is set (a plane that
 * is the whole world); otherwise they must lie inside it (a region with a margin). */
void gen_erode(const uint16_t *score, uint16_t *eroded, size_t pw, size_t ph, bool wrap, size_t r0, size_t r1,
               size_t c0, size_t c1);
void gen_dilate(uint16_t *score, const uint16_t *eroded, size_t pw, size_t ph, bool wrap, size_t r0, size_t r1,
                size_t c0, size_t c1);
/* The threshold whose count of pairs scoring above it is nearest target_pairs, from a histogram of the
 * 65536 scores: an exact quantile. */
uint32_t gen_pick_threshold(const uint64_t *hist, double target_pairs);
/* Whether the world's dual threshold is the quantile of all its pairs (else of the sample). */
static inline bool gen_share_exact(const gen_ctx *g) {
    return (uint64_t)g->w * g->h <= g->d.exact_share_texels;
}
/* The threshold of a world above exact_share_texels: the quantile of the opened scores of a fixed sample of
 * windows spread over the world, each generated alone (gen_region.c). */
st_result gen_sampled_threshold(const gen_ctx *g, uint32_t *threshold, st_error *err);
/* Turns every pair of p scoring above threshold dual, over pair rows [r0, r1) and columns [c0, c1). */
void gen_apply_dual(const gen_planes *p, size_t r0, size_t r1, size_t c0, size_t c1, uint32_t threshold);

/* The whole world in three steps, so that its terrain pass (nearly all the work) can be shared out: natively on
 * the job system (st_gen_world), in the page among workers that each make a band of rows and hand its planes
 * back. begin checks desc, allocates the level and the whole-world planes; terrain fills rows [y0, y1) of them
 * (y0 a multiple of GEN_WORLD_ROWS, so any split gives the same bytes: every texel is a pure function of its
 * place); finish runs the slab passes and hands the level over. finish and abort free the world. */
#define GEN_WORLD_ROWS 32u
typedef struct gen_world {
    gen_ctx g;
    bool is_default;
    st_level *level;
    gen_planes planes; /* heights and meta are the level's */
    uint16_t *eroded;
    uint64_t *hist;
    uint32_t threshold;
    _Atomic bool failed;
} gen_world;

st_result gen_world_begin(const st_gen_desc *desc, gen_world **out, st_error *err);
bool gen_world_terrain(gen_world *w, uint32_t y0, uint32_t y1);
st_result gen_world_finish(gen_world *w, st_level **out, st_error *err);
void gen_world_abort(gen_world *w);

#endif
