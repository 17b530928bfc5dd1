/* libFuzzer target: the greyscale PNG heightmap reader (libpng from memory). */
#include <stdint.h>

#include "strata/heightmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Skip headers that claim more than 4 Mi pixels: the reader accepts them (up to its own bound), but
     * allocating hundreds of MiB per input would only slow the search down. */
    if (size >= 24) {
        uint64_t w = (uint64_t)data[16] << 24 | (uint64_t)data[17] << 16 | (uint64_t)data[18] << 8 | data[19];
        uint64_t h = (uint64_t)data[20] << 24 | (uint64_t)data[21] << 16 | (uint64_t)data[22] << 8 | data[23];
        if (w * h > (4u << 20)) return 0;
    }
    st_heightmap *hm = NULL;
    st_error err = {0};
    if (st_heightmap_decode_png(data, size, "fuzz.png", &hm, &err) == ST_OK) st_heightmap_destroy(hm);
    return 0;
}
