/* CRC-32: the one checksum of strata's files and fingerprints (world maps, level planes, tiles, the tile index,
 * reference-cache payloads), zlib's IEEE polynomial fed in pieces so that any size is fine. */
#include <zlib.h>

#include "strata/core.h"

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

uint32_t st_crc32(const void *data, size_t size) { return st_crc32_update(0, data, size); }
