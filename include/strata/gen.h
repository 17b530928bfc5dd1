/* The procedural multi-layer world: deterministic for a seed, shaped like a Vangers level (terraces with
 * vertical cliffs, water at height 0, slabs and mesas over caves, bridges, tunnels, a hangar). */
#ifndef STRATA_GEN_H
#define STRATA_GEN_H

#include "strata/level.h"

#define ST_GEN_DEFAULT_SEED 1998u
#define ST_GEN_DEFAULT_WIDTH 2048u
#define ST_GEN_DEFAULT_HEIGHT 16384u
#define ST_GEN_DEFAULT_DUAL_PERCENT 11.0f

typedef struct st_gen_desc {
    uint64_t seed;       /* 0 = ST_GEN_DEFAULT_SEED */
    uint32_t width;      /* 0 = default; powers of two, at least 256 */
    uint32_t height;     /* 0 = default */
    float dual_percent;  /* share of dual texels; 0 = default (11), negative = none */
    /* Worlds of at most this many texels (0 = the default world's 2048·16384) take the dual threshold from every
     * pair's score; larger ones from a fixed sample of windows, which any region can make alone. */
    uint64_t exact_share_texels;
} st_gen_desc;

/* Generates the world on the job system. desc may be NULL for the embedded default world. */
st_result st_gen_world(const st_gen_desc *desc, st_level **out, st_error *err);

/* ---- regions on demand ----------------------------------------------------------------------------------- */

#define ST_GEN_MAX_SIDE (1u << 20)      /* texels a side of a world made region by region */
#define ST_GEN_MAX_REGION (1u << 24)    /* texels of one read */

typedef struct st_gen_source st_gen_source;

/* The same world as st_gen_world, any rectangle of it alone: a read gives, byte for byte, st_gen_world's level
 * there, and worlds too large for a level come out the same way. Holds nothing of the world; its one global
 * choice, the dual threshold, is made at the first read that needs it (from the whole world in blocks up to
 * exact_share_texels, else from the sample: reads are cheap after that one). desc as st_gen_world's; each side
 * a power of two from 256 to ST_GEN_MAX_SIDE. */
st_result st_gen_source_create(const st_gen_desc *desc, st_gen_source **out, st_error *err);
void st_gen_source_destroy(st_gen_source *src);
/* The descriptor with its defaults filled in. */
const st_gen_desc *st_gen_source_desc(const st_gen_source *src);
/* The world's name (the one st_gen_world gives its level). */
const char *st_gen_source_name(const st_gen_source *src);
/* Texels [x0, x0 + w) × [y0, y0 + h) into heights and meta, each w bytes a row for h rows, row-major: x0 and w
 * even, the rectangle inside the world, at most ST_GEN_MAX_REGION texels. Thread-safe. */
st_result st_gen_source_read(st_gen_source *src, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, uint8_t *heights,
                             uint8_t *meta, st_error *err);

/* Parses "gen:multi:SEED:WxH[:DUAL]" (the spelling of a generated multi-layer world wherever a world or store is
 * named): SEED 1..2^64−1, W and H powers of two from 256 to ST_GEN_MAX_SIDE, DUAL the share of dual texels in
 * percent (above 0, at most 30) or "none", default 11. One clear error for anything else. */
st_result st_gen_parse(const char *spec, st_gen_desc *out, st_error *err);

#endif
