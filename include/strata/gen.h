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
} st_gen_desc;

/* Generates the world on the job system. desc may be NULL for the embedded default world. */
st_result st_gen_world(const st_gen_desc *desc, st_level **out, st_error *err);

/* ---- regions on demand ----------------------------------------------------------------------------------- */

#define ST_GEN_MAX_SIDE 65536u          /* texels a side of a world made region by region */
#define ST_GEN_MAX_REGION (1u << 24)    /* texels of one read */

typedef struct st_gen_source st_gen_source;

/* The same world as st_gen_world, any rectangle of it alone: a read gives, byte for byte, st_gen_world's level
 * there. Holds nothing of the world; its one global choice, the dual threshold, is made at the first read that
 * needs it (from the whole world in blocks: reads are cheap after that one). desc as st_gen_world's; each
 * side a power of two from 256 to ST_GEN_MAX_SIDE. */
st_result st_gen_source_create(const st_gen_desc *desc, st_gen_source **out, st_error *err);
void st_gen_source_destroy(st_gen_source *src);
/* The descriptor with its defaults filled in, and the world's name (the one st_gen_world gives its level). */
const st_gen_desc *st_gen_source_desc(const st_gen_source *src);
const char *st_gen_source_name(const st_gen_source *src);
/* Texels [x0, x0 + w) × [y0, y0 + h) into heights and meta, each w bytes a row for h rows, row-major: x0 and w
 * even, the rectangle inside the world, at most ST_GEN_MAX_REGION texels. Thread-safe. */
st_result st_gen_source_read(st_gen_source *src, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, uint8_t *heights,
                             uint8_t *meta, st_error *err);

#endif
