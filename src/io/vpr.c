/* .vpr: the Vangers path/GeoNet tables. Only the size (a formula of the map and GeoNet powers) and the
 * per-section flood levels at its end matter to rendering; the writer fills the tables with zeros. */
#include <stdlib.h>
#include <string.h>

#include "strata/vangers.h"

uint64_t st_vpr_size(uint32_t width, uint32_t height, uint32_t geonet_power, uint32_t section_power) {
    if (geonet_power > 31 || section_power > 31) return 0;
    uint64_t n = ((uint64_t)width * height) >> (2 * geonet_power);
    uint64_t s = (uint64_t)height >> section_power;
    uint64_t p = geonet_power;
    return 8 + 36 + 2 * n + 8 * p + 8 * s * p + 4 * s;
}

st_result st_vpr_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint32_t geonet_power,
                        uint32_t section_power, uint8_t *flood, const char *name, st_error *err) {
    if (!name) name = ".vpr";
    uint64_t want = st_vpr_size(width, height, geonet_power, section_power);
    if (!want) return st_error_set(err, ST_ERR_FORMAT, "%s: GeoNet/section powers out of range", name);
    if (size != want)
        return st_error_set(err, ST_ERR_FORMAT,
                            "%s: %zu bytes, but a %ux%u map with GeoNet Power %u and Section Size Power %u needs %llu",
                            name, size, width, height, geonet_power, section_power, (unsigned long long)want);
    size_t s = height >> section_power;
    const uint8_t *levels = data + size - 4 * s;
    for (size_t i = 0; i < s; i++) flood[i] = levels[4 * i]; /* the low byte of each little-endian u32 */
    return ST_OK;
}

st_result st_vpr_encode(uint32_t width, uint32_t height, uint32_t geonet_power, uint32_t section_power,
                        const uint8_t *flood, uint8_t **data, size_t *size, st_error *err) {
    *data = NULL;
    *size = 0;
    uint64_t n = st_vpr_size(width, height, geonet_power, section_power);
    if (!n || n > (1ull << 31)) return st_error_set(err, ST_ERR_INVALID, ".vpr: sizes out of range");
    uint8_t *out = calloc(1, (size_t)n);
    if (!out) return st_error_set(err, ST_ERR_NOMEM, ".vpr: cannot allocate %llu bytes", (unsigned long long)n);
    size_t s = height >> section_power;
    uint8_t *levels = out + n - 4 * s;
    for (size_t i = 0; i < s; i++) levels[4 * i] = flood[i];
    *data = out;
    *size = (size_t)n;
    return ST_OK;
}
