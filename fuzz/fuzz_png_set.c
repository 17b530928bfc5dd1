/* libFuzzer target: the PNG-set reader (height.png + meta.png, headers checked before either is decoded).
 * Input: a little-endian u32 length n, then n bytes of height.png, then meta.png. Every chunk CRC is written
 * afresh before decoding, so mutated headers (sizes up to 65536 a side, layouts) reach the size checks
 * instead of stopping at libpng's CRC check; no size is skipped. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "strata/heightmap.h"

/* Rewrites the CRC of every whole chunk after the 8-byte signature. */
static void fix_crcs(uint8_t *p, size_t n) {
    size_t at = 8;
    while (at + 12 <= n) {
        uint32_t len = (uint32_t)p[at] << 24 | (uint32_t)p[at + 1] << 16 | (uint32_t)p[at + 2] << 8 | p[at + 3];
        if (len > n - at - 12) return;
        uint32_t crc = (uint32_t)crc32(0, p + at + 4, (uInt)(len + 4));
        uint8_t *c = p + at + 8 + len;
        c[0] = (uint8_t)(crc >> 24), c[1] = (uint8_t)(crc >> 16), c[2] = (uint8_t)(crc >> 8), c[3] = (uint8_t)crc;
        at += 12 + (size_t)len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4) return 0;
    size_t n = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
    data += 4;
    size -= 4;
    if (n > size) n = size;
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    fix_crcs(copy, n);
    fix_crcs(copy + n, size - n);
    st_level *level = NULL;
    st_error err = {0};
    if (st_level_decode_pngs(copy, n, copy + n, size - n, "height.png", "meta.png", &level, &err) == ST_OK)
        st_level_destroy(level);
    free(copy);
    return 0;
}
