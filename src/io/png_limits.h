/* The limits every libpng reader in strata sets, so hostile headers and chunks are errors, not allocations:
 * sides, chunk sizes and counts bounded; ancillary chunks (text, ICC profiles, ...) skipped unread into
 * memory; libpng's "benign" errors made errors. */
#ifndef STRATA_IO_PNG_LIMITS_H
#define STRATA_IO_PNG_LIMITS_H

#include <png.h>

#define ST_PNG_MAX_SIDE 65536u

static inline void st_png_set_read_limits(png_structp png) {
    png_set_user_limits(png, ST_PNG_MAX_SIDE, ST_PNG_MAX_SIDE);
    png_set_chunk_cache_max(png, 64);
    png_set_chunk_malloc_max(png, 8u << 20);
    /* Every ancillary chunk but tRNS is skipped without being buffered: libpng allocates (and clears) a
     * text chunk's claimed length before reading it, 2 GiB for a 141-byte file. None of them is used. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_benign_errors(png, 0);
}

#endif
