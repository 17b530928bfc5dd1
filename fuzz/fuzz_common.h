/* Shared by the fuzz targets: the level size a target reads from its first input bytes, kept small so
 * every input runs in microseconds and memory stays bounded; the layer store the journal target replays into
 * (and make_corpus writes its seed journals for). */
#ifndef STRATA_FUZZ_COMMON_H
#define STRATA_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "strata/tiles.h"

/* W = 2 << (b0 % 8) (2..256), H = 1 << (b1 % 8) (1..128). Consumes two bytes; false when too short. */
static inline int fuzz_take_size(const uint8_t **data, size_t *size, uint32_t *w, uint32_t *h) {
    if (*size < 2) return 0;
    *w = 2u << ((*data)[0] % 8);
    *h = 1u << ((*data)[1] % 8);
    *data += 2;
    *size -= 2;
    return 1;
}

/* A 32x16 layer store of 8x8 tiles (4x2 of them) with singles and dual pairs, built into dir. */
static inline st_result fuzz_journal_store(const char *dir, st_error *err) {
    st_level *l = NULL;
    st_result r = st_level_create(32, 16, &l, err);
    if (r) return r;
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x += 2) {
            if ((x + y) % 6 == 0) st_level_set_dual(l, x, y, (uint8_t)(4 * y), (uint8_t)(4 * y + 40), 200, 1, 2);
            else {
                st_level_set_single(l, x, y, (uint8_t)(8 * x), 3);
                st_level_set_single(l, x + 1, y, (uint8_t)(8 * x + 4), 4);
            }
        }
    st_store_build_desc d = {.tile_size = 8};
    st_store_build_stats stats;
    r = st_store_build_level(l, dir, &d, &stats, err);
    st_level_destroy(l);
    return r;
}

#endif
