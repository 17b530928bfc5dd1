/* libFuzzer target: the tile file decoder. A tile that decodes re-encodes (raw) and decodes again to the same
 * samples and header fields: what is accepted is exactly what the format describes. */
#include <stdlib.h>
#include <string.h>

#include "strata/tiles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    st_tile *t = NULL;
    st_error err = {0};
    if (st_tile_decode(data, size, "fuzz.tile", NULL, &t, &err) != ST_OK) return 0;
    uint8_t *again = NULL;
    size_t n = 0;
    st_tile *back = NULL;
    if (st_tile_encode(t, ST_TILE_RAW, &again, &n, &err) != ST_OK) __builtin_trap();
    if (st_tile_decode(again, n, "again", &t->key, &back, &err) != ST_OK) __builtin_trap();
    if (back->data_bytes != t->data_bytes || memcmp(back->data, t->data, t->data_bytes) ||
        back->min_m != t->min_m || back->max_m != t->max_m || back->delta_m != t->delta_m)
        __builtin_trap();
    free(again);
    st_tile_destroy(back);
    st_tile_destroy(t);
    return 0;
}
