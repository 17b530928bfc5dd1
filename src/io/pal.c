/* .pal: 256 RGB entries with 6-bit (VGA DAC) components, widened to 8 bits on read by replicating the top
 * bits, so 63 maps to 255 and writing back (v >> 2) returns the original file exactly. */

#include "strata/vangers.h"

st_result st_pal_decode(const uint8_t *data, size_t size, st_rgb8 palette[256], const char *name, st_error *err) {
    if (!name) name = ".pal";
    if (size != ST_PAL_SIZE)
        return st_error_set(err, ST_ERR_FORMAT, "%s: %zu bytes, a palette is exactly %d", name, size, ST_PAL_SIZE);
    for (size_t i = 0; i < ST_PAL_SIZE; i++)
        if (data[i] > 63)
            return st_error_set(err, ST_ERR_FORMAT, "%s: entry %zu component %zu is %u, past the 6-bit range", name,
                                i / 3, i % 3, data[i]);
    for (int i = 0; i < 256; i++) {
        const uint8_t *c = data + 3 * i;
        palette[i].r = (uint8_t)(c[0] << 2 | c[0] >> 4);
        palette[i].g = (uint8_t)(c[1] << 2 | c[1] >> 4);
        palette[i].b = (uint8_t)(c[2] << 2 | c[2] >> 4);
    }
    return ST_OK;
}

void st_pal_encode(const st_rgb8 palette[256], uint8_t out[ST_PAL_SIZE]) {
    for (int i = 0; i < 256; i++) {
        out[3 * i] = palette[i].r >> 2;
        out[3 * i + 1] = palette[i].g >> 2;
        out[3 * i + 2] = palette[i].b >> 2;
    }
}

