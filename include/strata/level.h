/* st_level: the multi-layer height field. W×H texels (powers of two), one height byte and one
 * metadata byte per texel, wrapping in x and y where the level says so (a Vangers world wraps in both; a DEM
 * wraps in x only when it is a whole globe, else in neither) — outside an axis that does not wrap there is
 * nothing, solid at no height. Texels pair as (2k, 2k+1) in a row; a dual pair stores
 * the floor (low) in the even texel, the slab top (high) in the odd one and the cave ceiling (mid) as a
 * 4-bit delta split over both — the Vangers encoding (see docs/level-format.md). */
#ifndef STRATA_LEVEL_H
#define STRATA_LEVEL_H

#include "strata/core.h"

/* Metadata byte layout (8-type levels). 16-type levels keep the type in bits 5..2. */
#define ST_META_SHADOW 0x80u
#define ST_META_DUAL 0x40u
#define ST_META_TYPE_MASK8 0x38u
#define ST_META_TYPE_SHIFT8 3
#define ST_META_TYPE_MASK16 0x3Cu
#define ST_META_TYPE_SHIFT16 2
#define ST_META_OBJSHADOW 0x04u
#define ST_META_DELTA_MASK 0x03u
#define ST_DELTA_POWER 3 /* mid = min(low + (D << 3), high) */

#define ST_LEVEL_MAX_DIM 65536u          /* per axis */
#define ST_LEVEL_MAX_TEXELS (1ull << 30) /* 1 Gi texels = 2 GiB of planes */

typedef struct st_rgb8 {
    uint8_t r, g, b;
} st_rgb8;

typedef struct st_level {
    uint32_t width, height;   /* powers of two */
    uint8_t *heights;         /* width*height, row-major */
    uint8_t *meta;            /* width*height, row-major */
    uint32_t terrain_types;   /* 8 or 16 */
    uint8_t begin_color[16];  /* palette ramp of each material type, inclusive */
    uint8_t end_color[16];
    st_rgb8 palette[256];     /* 8-bit sRGB-encoded colours */
    uint32_t section_power;   /* flood sections of 2^section_power rows */
    uint8_t *flood;           /* height >> section_power flood levels, may be all zero */
    char name[64];
    /* The map repeats along x / y: true for Vangers worlds and the generator (st_level_create's default). Along
     * an axis that does not wrap, texels outside [0, W) (or [0, H)) hold nothing: no SOLID at any height, in
     * every method, the reference, the shadow and the edits. */
    bool wrap_x, wrap_y;
    /* An optional colour map (a Comanche-style world's): width·height·3 bytes, sRGB-encoded R, G, B per texel,
     * row-major; NULL for none. Where present it is the albedo of each column's top surface in every method and
     * the reference, flat or textured (docs/materials.md); the floor under a slab keeps its type's colour. */
    uint8_t *colors;
} st_level;

/* One decoded texel. For a single texel low == mid == high and the types agree. A texel past the edge of an
 * axis that does not wrap is `outside`: nothing is there (all fields 0, SOLID nowhere). */
typedef struct st_texel {
    uint8_t low, mid, high;
    uint8_t low_type, high_type;
    bool dual;
    bool outside;
} st_texel;

/* A dirty rectangle in texels: [x0, x1) × [y0, y1), inside the level (no wrap). */
typedef struct st_rect {
    int32_t x0, y0, x1, y1;
} st_rect;

/* Whether r holds no texel. */
static inline bool st_rect_empty(st_rect r) { return r.x1 <= r.x0 || r.y1 <= r.y0; }
/* The bounding rectangle of a and b; an empty one adds nothing. */
st_rect st_rect_union(st_rect a, st_rect b);

/* Rectangles kept apart between two frames, so the work over them is theirs and not that of the box between them. */
#define ST_RECT_LIST_MAX 16
typedef struct st_rect_list {
    st_rect rect[ST_RECT_LIST_MAX];
    uint32_t count;
} st_rect_list;

/* Adds r to the list: nothing when r is empty or inside one the list holds; those inside r leave. A full list
 * keeps ST_RECT_LIST_MAX: the two (r among them) whose bounding box adds the fewest texels to theirs become
 * that box — a larger region, never a missed one, and rectangles far apart stay apart. */
void st_rect_list_add(st_rect_list *list, st_rect r);
/* Merges the rectangles of rects[0, count) that overlap into their bounding boxes until no two overlap, and drops the
 * empty ones; every texel they held stays covered. Returns how many are left, at the front. */
uint32_t st_rects_disjoint(st_rect *rects, uint32_t count);

/* Creates a flat level (all heights 0, single, type 0) with the default palette, wrapping in x and y. */
st_result st_level_create(uint32_t width, uint32_t height, st_level **out, st_error *err);
void st_level_destroy(st_level *level);
/* A new level equal to src: planes, palette, materials, flood, name, wrap flags and colour map. */
st_result st_level_clone(const st_level *src, st_level **out, st_error *err);
/* Checks dimensions before any allocation: powers of two, each ≤ ST_LEVEL_MAX_DIM, at most ST_LEVEL_MAX_TEXELS
 * in all; ST_ERR_INVALID (an impossible size is bad input) naming the limit otherwise. */
st_result st_level_check_size(uint64_t width, uint64_t height, st_error *err);

/* ---- reading the planes ------------------------------------------------------------------------------
 * Code outside src/terrain/ reaches the height and metadata bytes through these, never through the arrays.
 * A row (width bytes, x = 0 first) is what a hot loop holds a pointer into; where row y + 1 lies is not part of
 * the contract, except for st_level_planes. */

/* Row y (y < height) of the heights: width bytes. */
static inline const uint8_t *st_level_height_row(const st_level *level, uint32_t y) {
    return level->heights + (size_t)y * level->width;
}
/* Row y (y < height) of the metadata: width bytes. */
static inline const uint8_t *st_level_meta_row(const st_level *level, uint32_t y) {
    return level->meta + (size_t)y * level->width;
}
/* The whole planes, row-major (row y at y·width), width·height bytes each, for the codecs and checksums that
 * take a level in one piece (.vmc, .vmp, PNG planes, CRCs). Either out-pointer may be NULL. */
void st_level_planes(const st_level *level, const uint8_t **heights, const uint8_t **meta);
/* The writable form, for loaders filling a level they just created (they must leave it st_level_valid). */
void st_level_planes_mut(st_level *level, uint8_t **heights, uint8_t **meta);
/* Packs the texel pairs covering rect — x widened to whole pairs, [x0/2, (x1+1)/2) — as (h_even, m_even, h_odd,
 * m_odd), pair after pair and row after row: the GPU terrain texture's texels. Writes ((x1+1)/2 − x0/2)·4·(y1 −
 * y0) bytes and returns that count; 0 (nothing written) when rect is empty or not inside the level. */
size_t st_level_pack_pairs(const st_level *level, st_rect rect, uint8_t *dst);
/* Copies rect's heights into `heights` and its metadata into `meta` (each (x1−x0)·(y1−y0) bytes, rows tightly
 * packed). False (nothing copied) when rect is empty or not inside. */
bool st_level_read_rect(const st_level *level, st_rect rect, uint8_t *heights, uint8_t *meta);
/* Writes such copies back into the level's rect (the caller keeps pairs whole); false as above. */
bool st_level_write_rect(st_level *level, st_rect rect, const uint8_t *heights, const uint8_t *meta);
/* Copies every texel (heights and metadata) of src into dst; the palette, materials, flood and name stay dst's.
 * False (nothing copied) when the sizes differ. */
bool st_level_copy_texels(st_level *dst, const st_level *src);

/* Whether texel (x, y) exists: inside [0, W) × [0, H) along every axis that does not wrap (any x along a
 * wrapping one). */
static inline bool st_level_contains(const st_level *level, int64_t x, int64_t y) {
    return (level->wrap_x || (x >= 0 && x < (int64_t)level->width)) &&
           (level->wrap_y || (y >= 0 && y < (int64_t)level->height));
}

/* The material type a metadata byte holds (by the level's 8- or 16-type layout). */
uint32_t st_meta_type(const st_level *level, uint8_t meta);
/* Decodes texel (x, y) with its pair: wraps x and y where the level wraps; a texel st_level_contains refuses
 * decodes as `outside`. */
st_texel st_level_texel(const st_level *level, int x, int y);
/* SOLID(p) := inside && (z <= low || (dual && mid <= z && z <= high)); height 0 is hittable. */
bool st_level_solid(const st_level *level, float x, float y, float z);
/* The same predicate for a decoded texel at height z. */
static inline bool st_texel_solid(st_texel t, float z) {
    return !t.outside && (z <= (float)t.low || (t.dual && (float)t.mid <= z && z <= (float)t.high));
}

/* Encoding a pair: writes a dual pair at even x (low, mid, high with mid - low a multiple of 8 up to 120).
 * Types are material indices. Keeps the SHADOW bit clear. */
void st_level_set_dual(st_level *level, int x_even, int y, uint8_t low, uint8_t mid, uint8_t high,
                       uint8_t low_type, uint8_t high_type);
/* Writes one single texel (height h, that type, every other bit clear) at (x, y), wrapped; a texel of a dual
 * pair must be rewritten with its partner to keep the level valid. */
void st_level_set_single(st_level *level, int x, int y, uint8_t h, uint8_t type);
/* The bytes st_level_set_dual writes, for planes outside a level (generators filling a tile): heights[0..1] and
 * meta[0..1] are the even and odd texel of the pair in a level of terrain_types (8 or 16) types. */
void st_level_encode_dual(uint32_t terrain_types, uint8_t low, uint8_t mid, uint8_t high, uint8_t low_type,
                          uint8_t high_type, uint8_t heights[2], uint8_t meta[2]);
/* The next coarser level of the two-interval field: half the size each way (width ≥ 4, height ≥ 2), each coarse
 * pair standing for 4×2 fine texels. Conservative: every height solid in a fine texel is solid in the coarse texel
 * over it; the gap between floor and slab survives where the whole block shares it (docs/paged-terrain.md,
 * "Coarse levels"). Keeps palette, materials, name and wrap; flood levels and the colour map are not carried. */
st_result st_level_coarsen(const st_level *fine, st_level **out, st_error *err);
/* True when every dual pair is consistently flagged and mid <= high: the invariant edits keep. */
bool st_level_valid(const st_level *level, st_error *err);

/* Palette: the Vangers default ramps (8 types) and a colour for each type's End entry. */
void st_level_default_palette(st_level *level);
/* The palette colour of a type's End entry (8-bit sRGB-encoded). */
st_rgb8 st_level_type_color(const st_level *level, uint32_t type);
/* The same colour decoded from sRGB to linear RGB: the material's albedo in the shared shading (the GPU's
 * albedo table and the CPU reference's). */
void st_level_type_albedo(const st_level *level, uint32_t type, float rgb[3]);

/* Edits. Both return the dirty rectangle (clipped to the level) and keep the level valid.
 * dig: the crater of the paper's edit protocol: inside radius r around (cx, cy), every texel's height
 * drops by trunc(depth·(1 − d²/r²)) saturating at 0 and the upper layer is removed (pairs become single).
 * raise: a smooth mound of the given height added to the top surface — the slab top where a pair is
 * dual (its floor and cave ceiling stay), the texel's height elsewhere. */
st_result st_level_dig(st_level *level, int cx, int cy, int radius, int depth, st_rect *dirty, st_error *err);
/* The mound (see above). */
st_result st_level_raise(st_level *level, int cx, int cy, int radius, int height, st_rect *dirty, st_error *err);

/* Statistics for `strata info`. */
typedef struct st_level_stats {
    double dual_fraction;        /* fraction of texels that decode as dual */
    uint64_t type_histogram[16]; /* texels by visible (high) material type */
    uint8_t min_height, max_height;
} st_level_stats;
/* One pass over every texel. */
st_level_stats st_level_compute_stats(const st_level *level);

#endif
