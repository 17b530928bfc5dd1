/* Image files: PNG (libpng) and PFM, each written under a temporary name and renamed into place so a
 * failure never leaves a half-written file. */
#ifndef STRATA_IMAGE_H
#define STRATA_IMAGE_H

#include <stdio.h>

#include "strata/core.h"

/* channels: 1 (grey), 3 (RGB) or 4 (RGBA); bit_depth 8 or 16 (16-bit samples are native uint16_t). */
st_result st_png_write(const char *path, uint32_t width, uint32_t height, int channels, int bit_depth,
                       const void *pixels, st_error *err);
/* Reads any PNG into 8- or 16-bit grey/RGB(A) as stored (st_png_decode of the file's bytes, at most
 * ST_PNG_MAX_PIXELS); *pixels is malloc'd. */
st_result st_png_read(const char *path, uint32_t *width, uint32_t *height, int *channels, int *bit_depth,
                      void **pixels, st_error *err);

/* A decoded PNG's layout: palette images come out as RGB, tRNS as alpha, grey below 8 bits as 8 bits; 16-bit
 * samples are native uint16_t. */
typedef struct st_png_info {
    uint32_t width, height;
    int channels, bit_depth;
} st_png_info;
#define ST_PNG_MAX_PIXELS (1ull << 30) /* the largest level plane */
/* Reads only the header of a PNG in memory: the layout st_png_decode would return, nothing decoded. At most
 * 65536 a side. name labels messages. */
st_result st_png_probe(const uint8_t *data, size_t size, const char *name, st_png_info *info, st_error *err);
/* Decodes a PNG in memory. More than max_pixels pixels (0 = ST_PNG_MAX_PIXELS) is ST_ERR_INVALID, found from
 * the header before anything is allocated; ancillary chunks other than tRNS are skipped; *pixels is malloc'd. */
st_result st_png_decode(const uint8_t *data, size_t size, const char *name, uint64_t max_pixels, st_png_info *info,
                        void **pixels, st_error *err);
/* Little-endian greyscale PFM ("Pf"), rows bottom to top as the format says; NAN allowed. */
st_result st_pfm_write(const char *path, uint32_t width, uint32_t height, const float *values, st_error *err);

/* Atomic file writing: open a temporary beside path, write, then commit (fsync + rename) or abort. */
typedef struct st_atomic_file {
    FILE *fp;
    char final_path[1024];
    char temp_path[1040];
} st_atomic_file;
st_result st_atomic_open(st_atomic_file *f, const char *path, st_error *err);
st_result st_atomic_commit(st_atomic_file *f, st_error *err);
void st_atomic_abort(st_atomic_file *f);
/* Creates the folder path and its missing parents (mkdir -p); an existing one is fine. */
st_result st_make_dirs(const char *path, st_error *err);

#endif
