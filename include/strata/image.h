/* Image files: PNG (libpng) and PFM, each written under a temporary name and renamed into place so a
 * failure never leaves a half-written file (the atomic files of strata/file.h). */
#ifndef STRATA_IMAGE_H
#define STRATA_IMAGE_H

#include "strata/core.h"
#include "strata/file.h"

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
/* A PNG tEXt chunk: a keyword of 1..79 printable Latin-1 characters and its text. */
typedef struct st_png_text {
    const char *key, *text;
} st_png_text;
/* st_png_write with `count` (at most 16) tEXt chunks ahead of the image data (none: the same file st_png_write
 * makes). */
st_result st_png_write_texts(const char *path, uint32_t width, uint32_t height, int channels, int bit_depth,
                             const void *pixels, const st_png_text *texts, size_t count, st_error *err);
/* The text of tEXt chunk `key` among those ahead of the image data of a PNG in memory: *found, and the text in
 * out (cut to cap - 1 bytes, NUL-terminated) when it is there. Reads the header chunks only; name labels
 * messages. */
st_result st_png_find_text(const uint8_t *data, size_t size, const char *name, const char *key, char *out, size_t cap,
                           bool *found, st_error *err);
/* Little-endian greyscale PFM ("Pf"), rows bottom to top as the format says; NAN allowed. */
st_result st_pfm_write(const char *path, uint32_t width, uint32_t height, const float *values, st_error *err);

/* PNG or PFM into an open atomic file (st_png_write and st_pfm_write open and commit their own). */
st_result st_png_write_to(st_atomic_file *f, uint32_t width, uint32_t height, int channels, int bit_depth,
                          const void *pixels, st_error *err);
/* st_png_write_to with `count` (at most 16) tEXt chunks ahead of the image data. */
st_result st_png_write_texts_to(st_atomic_file *f, uint32_t width, uint32_t height, int channels, int bit_depth,
                                const void *pixels, const st_png_text *texts, size_t count, st_error *err);
/* A PFM into an open atomic file (committed by the caller). */
st_result st_pfm_write_to(st_atomic_file *f, uint32_t width, uint32_t height, const float *values, st_error *err);

#endif
