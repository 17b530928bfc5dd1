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

#endif
