/* Geometry clipmaps (Losasso & Hoppe 2004, in the GPU form of Asirvatham & Hoppe 2005) over a DEM tile store, the
 * part without any GPU: the nested windows of n × n samples per level that follow the eye, the footprints that
 * tile each ring (blocks, ring fix-ups, the interior trim, the finest level's centre, the zero-area strips
 * against T-junctions), the toroidal update's newly exposed rectangles, the active levels from the eye's height
 * and the grid size n that a screen-space error τ asks for. docs/clipmap.md states every rule. */
#ifndef STRATA_CLIPMAP_H
#define STRATA_CLIPMAP_H

#include "strata/core.h"

#define ST_CLIPMAP_MAX_LEVELS 24u
#define ST_CLIPMAP_MIN_N 31u   /* the blend band and the nesting leave no room below */
#define ST_CLIPMAP_MAX_N 1023u /* blocks of m = (n + 1)/4 ≤ 256 vertices a side: 16-bit indices */
#define ST_CLIPMAP_N_STEP 4u   /* n = 4m − 1: consecutive grids differ by 4 vertices */

/* The clipmap of a world: the grid (n vertices a side per level, n = 4m − 1), the levels
 * (level l has a spacing of 2^l finest samples; levels past the store's coarsest read its root tile decimated),
 * the world's finest samples and spacing, and the blend band's width w in level samples (n/10). */
typedef struct st_clipmap_geom {
    uint32_t n, m;
    uint32_t levels;        /* clip levels 0..levels − 1 */
    uint32_t store_levels;  /* the store's levels (clip level l reads store level min(l, store_levels − 1)) */
    uint32_t tile_intervals;
    uint64_t width, height; /* finest samples */
    double spacing_x, spacing_y;
    double blend_w;
} st_clipmap_geom;

/* Fills g for a world of width × height finest samples at the given spacing (metres), tiles of s intervals and
 * store_levels levels, a grid of n vertices, and as many levels as it takes for the coarsest window to reach
 * far_m from the eye in every direction or to cover the world (at most ST_CLIPMAP_MAX_LEVELS).
 * ST_ERR_INVALID for n not of the form 4m − 1 within ST_CLIPMAP_MIN_N..ST_CLIPMAP_MAX_N, or a bad world. */
st_result st_clipmap_geom_init(st_clipmap_geom *g, uint64_t width, uint64_t height, double spacing_x,
                               double spacing_y, uint32_t tile_intervals, uint32_t store_levels, uint32_t n,
                               double far_m, st_error *err);

/* The smallest grid n = 4m − 1 (ST_CLIPMAP_MIN_N..ST_CLIPMAP_MAX_N) for which every level l ≥ 1 shows its error
 * δ_l (metres; delta[l], l < count) within tau_px pixels at a focal length of focal_px pixels, where its surface
 * first appears: the inner edge of level l − 1's blend band, ((n − 1)/2 − w − 2)·2^(l−1) finest spacings from the
 * eye — levels that first appear beyond far_m (0: no limit) are not seen. *capped (may be NULL) tells whether even
 * ST_CLIPMAP_MAX_N falls short (then that is returned). */
uint32_t st_clipmap_n_for_tau(const double *delta, uint32_t count, double spacing_m, double focal_px, double tau_px,
                              double far_m, bool *capped);

/* The window of level l for an eye at finest-sample coordinates eye_idx (x, y, fractional): the absolute
 * level-l sample index of its vertex (0, 0), (⌊c/2^(l+1)⌋ − (m − 1))·2 per axis. Its centre is within one level
 * sample of the eye, and level l lies inside level l + 1 at an offset of m − 1 or m coarse samples, which is
 * where the interior trim goes (parity of ⌊c/2^(l+1)⌋). */
void st_clipmap_window(const st_clipmap_geom *g, uint32_t level, const double eye_idx[2], int64_t origin[2]);

/* The finest level drawn for an eye h metres above the ground: the first whose window, (n − 1)·2^l finest
 * spacings wide, is at least 2.5·h (LH04), at most the coarsest level. */
uint32_t st_clipmap_finest_active(const st_clipmap_geom *g, double height_above_m);

/* The coarsest level that may be drawn finest under the screen-space error: level l + 1 replaces l as the finest
 * while its error δ_{l+1} (delta, count levels) shows within tau_px pixels at a focal length of focal_px from the
 * nearest its window can come to the eye, clearance_m[l + 1] (the eye's height over the highest ground in that
 * window; ≤ 0 when the eye is not above it all). 0 when level 1 already fails. The finest level drawn is the
 * larger of this and st_clipmap_finest_active. */
uint32_t st_clipmap_finest_for_tau(const st_clipmap_geom *g, const double *delta, uint32_t count,
                                   const double *clearance_m, double focal_px, double tau_px);

/* The shapes every footprint is an instance of: a rectangle of w × h vertices (blocks m × m, ring fix-ups 3 × m
 * and m × 3, interior trims (2m + 1) × 2 and 2 × 2m, the finest level's 3 × 3 centre), or a row or column of n
 * vertices drawn as zero-area triangles (v_2k, v_2k+1, v_2k+2) along a level's outer edge. */
typedef enum st_clipmap_shape {
    ST_CLIP_BLOCK,
    ST_CLIP_FIX_V,  /* 3 × m: the gap in the middle of the low-y and high-y sides */
    ST_CLIP_FIX_H,  /* m × 3: the low-x and high-x sides */
    ST_CLIP_TRIM_H, /* (2m + 1) × 2 */
    ST_CLIP_TRIM_V, /* 2 × 2m */
    ST_CLIP_CENTER, /* 3 × 3 */
    ST_CLIP_EDGE_H, /* n × 1, zero-area */
    ST_CLIP_EDGE_V, /* 1 × n, zero-area */
    ST_CLIP_SHAPES
} st_clipmap_shape;

/* Vertices a side of a shape (w along x, h along y). */
void st_clipmap_shape_size(const st_clipmap_geom *g, st_clipmap_shape s, uint32_t *w, uint32_t *h);
/* The triangles of one instance of a shape (the edge strips' zero-area ones included). */
uint32_t st_clipmap_shape_triangles(const st_clipmap_geom *g, st_clipmap_shape s);

/* One footprint: a shape at vertex (x, y) of level `level`'s window (0..n − 1). */
typedef struct st_clipmap_piece {
    uint8_t shape, level;
    uint16_t x, y;
} st_clipmap_piece;

/* The footprints of level `level` when `finest` is the finest level drawn: the ring (12 blocks, 4 fix-ups) and,
 * for the finest level, its centre (4 blocks, 4 fix-ups, the 3 × 3 centre), else the interior trim on the side
 * the finer level leaves free (finer_origin: level − 1's window origin, in level − 1 samples); and, but for the
 * coarsest level, the zero-area strips of its four outer edges. Returns the count written (at most 32). */
uint32_t st_clipmap_pieces(const st_clipmap_geom *g, uint32_t level, uint32_t finest, const int64_t origin[2],
                           const int64_t finer_origin[2], st_clipmap_piece out[32]);

/* A rectangle of level samples, [x0, x1) × [y0, y1). */
typedef struct st_clip_rect {
    int64_t x0, y0, x1, y1;
} st_clip_rect;

/* The toroidal update: the part of the window at `now` (n × n samples from that origin) that the window at
 * `before` did not hold, as at most 2 disjoint rectangles (all of it when they do not overlap). Returns the
 * count. */
uint32_t st_clipmap_exposed(const st_clipmap_geom *g, const int64_t before[2], const int64_t now[2],
                            st_clip_rect out[2]);

#endif
