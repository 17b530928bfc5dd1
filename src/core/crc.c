/* CRC-32: the one checksum of strata's files and fingerprints (world maps, level planes, tiles, the tile index,
 * reference-cache payloads), zlib's IEEE polynomial fed in pieces so that any size is fine. The web build has
 * no zlib: it computes the same CRC from a table (ST_CRC32_TABLE, also built natively by test_crc). */
#include "strata/core.h"

#if defined(__EMSCRIPTEN__) || defined(ST_CRC32_TABLE)
/* The reflected IEEE polynomial, one byte at a time from a table made on first use. */
static uint32_t crc_table[256];
static bool crc_table_made;

static void make_table(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1u ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
    crc_table_made = true;
}

uint32_t st_crc32_update(uint32_t crc, const void *data, size_t size) {
    if (!crc_table_made) make_table(); /* single-threaded there: the web build has one thread */
    const uint8_t *p = data;
    uint32_t c = ~crc;
    for (size_t i = 0; i < size; i++) c = crc_table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return ~c;
}
#else
#include <zlib.h>

uint32_t st_crc32_update(uint32_t crc, const void *data, size_t size) {
    uLong c = crc;
    const Bytef *p = data;
    /* zlib takes uInt lengths */
    while (size) {
        uInt n = size > (1u << 30) ? (1u << 30) : (uInt)size;
        c = crc32(c, p, n);
        p += n;
        size -= n;
    }
    return (uint32_t)c;
}
#endif

uint32_t st_crc32(const void *data, size_t size) { return st_crc32_update(0, data, size); }
