/* The parts of strata bench tiles that build and read stores (bench_tiles_store.c), called from bench_tiles.c. */
#ifndef STRATA_BENCH_TILES_H
#define STRATA_BENCH_TILES_H

#include <cjson/cJSON.h>

#include "cli.h"
#include "strata/tiles.h"

typedef struct tiles_store_bench {
    const char *dem;   /* the DEM the build part amplifies (data/dem/ps_height_1k.png) */
    double units, spacing;
    uint32_t amplify;  /* 16: a 16,385² store */
    const char *keep;  /* build into this folder and keep it; NULL = a temporary one, removed */
    uint32_t load_tiles;
    uint32_t gen_tiles; /* random tiles of the generated multi-layer world read on one thread (4× that on all) */
    bool json;
} tiles_store_bench;

/* Builds the store, prints (or adds to json) its figures against the ≤ 20 s target; with store_out, leaves the
 * store and names its folder there (the caller removes it). */
int bench_tiles_build(const tiles_store_bench *b, cJSON *json, char *store_out, size_t cap);
/* Reads load_tiles random level-0 tiles of the store on one thread: the ≤ 0.5 ms target, zstd against raw. */
int bench_tiles_load(const tiles_store_bench *b, const char *store, cJSON *json);
/* The 65,536² procedural worlds, the DEM and the multi-layer one: bytes on disk and the cost of a tile made on
 * demand; for the multi-layer one, tiles per second on one thread and on every thread. */
int bench_tiles_generated(const tiles_store_bench *b, cJSON *json);

#endif
