/* .vmp: the uncompressed Vangers map, per row W height bytes then W metadata bytes (the original's
 * in-memory row layout). */
#include <stdlib.h>
#include <string.h>

#include "strata/vangers.h"

st_result st_vmp_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint8_t *heights,
                        uint8_t *meta, const char *name, st_error *err) {
    if (!name) name = ".vmp";
    uint64_t want = 2ull * width * height;
    if (size != want)
        return st_error_set(err, ST_ERR_FORMAT, "%s: %zu bytes, a %ux%u map needs exactly %llu", name, size, width,
                            height, (unsigned long long)want);
    for (size_t y = 0; y < height; y++) {
        memcpy(heights + y * width, data + 2 * y * width, width);
        memcpy(meta + y * width, data + 2 * y * width + width, width);
    }
    return ST_OK;
}

st_result st_vmp_encode(const uint8_t *heights, const uint8_t *meta, uint32_t width, uint32_t height,
                        uint8_t **data, size_t *size, st_error *err) {
    *data = NULL;
    *size = 0;
    st_result r = st_level_check_size(width, height, err);
    if (r) return r;
    size_t n = 2 * (size_t)width * height;
    uint8_t *out = malloc(n);
    if (!out) return st_error_set(err, ST_ERR_NOMEM, ".vmp: cannot allocate %zu bytes", n);
    for (size_t y = 0; y < height; y++) {
        memcpy(out + 2 * y * width, heights + y * width, width);
        memcpy(out + 2 * y * width + width, meta + y * width, width);
    }
    *data = out;
    *size = n;
    return ST_OK;
}
