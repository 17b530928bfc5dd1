/* Shared by the fuzz targets: the level size a target reads from its first input bytes, kept small so
 * every input runs in microseconds and memory stays bounded. */
#ifndef STRATA_FUZZ_COMMON_H
#define STRATA_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* W = 2 << (b0 % 8) (2..256), H = 1 << (b1 % 8) (1..128). Consumes two bytes; false when too short. */
static inline int fuzz_take_size(const uint8_t **data, size_t *size, uint32_t *w, uint32_t *h) {
    if (*size < 2) return 0;
    *w = 2u << ((*data)[0] % 8);
    *h = 1u << ((*data)[1] % 8);
    *data += 2;
    *size -= 2;
    return 1;
}

#endif
