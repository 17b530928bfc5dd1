/* PNG through libpng and PFM, both committed atomically through the atomic files of src/core/file.c. */
#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/file.h"
#include "strata/image.h"

#include "png_limits.h"

/* libpng's default handlers print to stderr; ours keep its message for our one-line error instead. */
static void png_quiet_error(png_structp png, png_const_charp msg) {
    char *why = png_get_error_ptr(png);
    if (why) snprintf(why, 128, "%s", msg);
    png_longjmp(png, 1);
}

static void png_quiet_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}
#define ST_PNG_MAX_FILE_BYTES ((size_t)1 << 31)

/* ---- writing PNG and PFM ------------------------------------------------------------------------------ */

/* libpng writes through this so a failed write keeps its errno (a full disk says so). */
typedef struct png_sink {
    FILE *fp;
    int error; /* errno of the first failed write */
} png_sink;

static void png_sink_write(png_structp png, png_bytep data, png_size_t n) {
    png_sink *s = png_get_io_ptr(png);
    if (fwrite(data, 1, n, s->fp) != n) {
        s->error = errno ? errno : EIO;
        png_error(png, "write failed");
    }
}

static void png_sink_flush(png_structp png) {
    png_sink *s = png_get_io_ptr(png);
    if (fflush(s->fp) != 0) {
        s->error = errno ? errno : EIO;
        png_error(png, "write failed");
    }
}

/* Kept apart so no argument is reassigned in the function that calls setjmp. */
static st_result png_encode(FILE *fp, const char *path, uint32_t width, uint32_t height, int channels, int bit_depth,
                            const void *pixels, png_text *texts, int count, st_error *err) {
    static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                       PNG_COLOR_TYPE_RGBA};
    char why[128] = "";
    png_sink sink = {fp, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, why, png_quiet_error, png_quiet_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, &info);
        return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", path);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        if (sink.error)
            return st_error_set(err, st_write_failure(sink.error), "%s: write failed: %s", path, strerror(sink.error));
        return st_error_set(err, ST_ERR_IO, "%s: PNG encoding failed%s%s", path, why[0] ? ": " : "", why);
    }
    png_set_write_fn(png, &sink, png_sink_write, png_sink_flush);
    png_set_compression_level(png, 3); /* fast: images are many and large */
    png_set_IHDR(png, info, width, height, bit_depth, color_types[channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (count) png_set_text(png, info, texts, count);
    png_write_info(png, info);
    if (bit_depth == 16) png_set_swap(png); /* native little-endian uint16 → PNG big-endian */
    size_t stride = (size_t)width * (size_t)channels * (size_t)(bit_depth / 8);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)pixels + stride * y);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return ST_OK;
}

/* Checks a layout and turns texts into libpng's chunks (at most 16). */
static st_result png_texts(const char *path, uint32_t width, uint32_t height, int channels, int bit_depth,
                           const st_png_text *texts, size_t count, png_text chunks[16], st_error *err) {
    if (channels < 1 || channels > 4 || (bit_depth != 8 && bit_depth != 16) || !width || !height)
        return st_error_set(err, ST_ERR_INVALID, "%s: unsupported image layout", path);
    if (count > 16) return st_error_set(err, ST_ERR_INVALID, "%s: at most 16 text chunks", path);
    for (size_t i = 0; i < count; i++) {
        size_t n = texts[i].key ? strlen(texts[i].key) : 0;
        if (n < 1 || n > 79 || !texts[i].text)
            return st_error_set(err, ST_ERR_INVALID, "%s: a PNG text keyword has 1..79 characters", path);
        chunks[i] = (png_text){.compression = PNG_TEXT_COMPRESSION_NONE, .key = (png_charp)texts[i].key,
                               .text = (png_charp)texts[i].text, .text_length = strlen(texts[i].text)};
    }
    return ST_OK;
}

st_result st_png_write_texts_to(st_atomic_file *f, uint32_t width, uint32_t height, int channels, int bit_depth,
                                const void *pixels, const st_png_text *texts, size_t count, st_error *err) {
    png_text chunks[16];
    st_result r = png_texts(f->final_path, width, height, channels, bit_depth, texts, count, chunks, err);
    if (r) return r;
    return png_encode(f->fp, f->final_path, width, height, channels, bit_depth, pixels, chunks, (int)count, err);
}

st_result st_png_write_to(st_atomic_file *f, uint32_t width, uint32_t height, int channels, int bit_depth,
                          const void *pixels, st_error *err) {
    return st_png_write_texts_to(f, width, height, channels, bit_depth, pixels, NULL, 0, err);
}

st_result st_png_write(const char *path, uint32_t width, uint32_t height, int channels, int bit_depth,
                       const void *pixels, st_error *err) {
    return st_png_write_texts(path, width, height, channels, bit_depth, pixels, NULL, 0, err);
}

st_result st_png_write_texts(const char *path, uint32_t width, uint32_t height, int channels, int bit_depth,
                             const void *pixels, const st_png_text *texts, size_t count, st_error *err) {
    png_text chunks[16];
    st_result r = png_texts(path, width, height, channels, bit_depth, texts, count, chunks, err);
    if (r) return r;
    st_atomic_file f;
    if ((r = st_atomic_open(&f, path, err))) return r;
    r = png_encode(f.fp, path, width, height, channels, bit_depth, pixels, chunks, (int)count, err);
    if (r) {
        st_atomic_abort(&f);
        return r;
    }
    return st_atomic_commit(&f, err);
}

st_result st_pfm_write_to(st_atomic_file *f, uint32_t width, uint32_t height, const float *values, st_error *err) {
    fprintf(f->fp, "Pf\n%u %u\n-1.0\n", width, height);
    for (uint32_t y = height; y-- > 0;)
        if (fwrite(values + (size_t)y * width, sizeof(float), width, f->fp) != width)
            return st_error_set(err, st_write_failure(errno), "%s: write failed: %s", f->final_path, strerror(errno));
    return ST_OK;
}

st_result st_pfm_write(const char *path, uint32_t width, uint32_t height, const float *values, st_error *err) {
    st_atomic_file f;
    st_result r = st_atomic_open(&f, path, err);
    if (r) return r;
    r = st_pfm_write_to(&f, width, height, values, err);
    if (r) {
        st_atomic_abort(&f);
        return r;
    }
    return st_atomic_commit(&f, err);
}

/* ---- reading ------------------------------------------------------------------------------------------ */

typedef struct png_source {
    const uint8_t *data;
    size_t size, pos;
} png_source;

static void png_source_read(png_structp png, png_bytep out, png_size_t n) {
    png_source *m = png_get_io_ptr(png);
    if (n > m->size - m->pos) png_error(png, "truncated");
    memcpy(out, m->data + m->pos, n);
    m->pos += n;
}

/* Sets up a read struct on data and reads the header with the transforms strata always applies (palette to
 * RGB, tRNS to alpha, grey below 8 bits to 8, 16-bit samples to native order); info gets the result. */
static void read_header(png_structp png, png_infop info, png_source *src, st_png_info *out) {
    st_png_set_read_limits(png);
    png_set_read_fn(png, src, png_source_read);
    png_read_info(png, info);
    int depth = png_get_bit_depth(png, info), ctype = png_get_color_type(png, info);
    if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (depth == 16) png_set_swap(png);
    png_read_update_info(png, info);
    out->width = png_get_image_width(png, info);
    out->height = png_get_image_height(png, info);
    out->channels = png_get_channels(png, info);
    out->bit_depth = png_get_bit_depth(png, info);
}

/* Kept apart so no argument is reassigned in the function that calls setjmp. */
static st_result decode(const uint8_t *data, size_t size, const char *name, uint64_t max_pixels, st_png_info *out,
                        void **pixels, st_error *err) {
    if (size < 8 || png_sig_cmp(data, 0, 8)) return st_error_set(err, ST_ERR_FORMAT, "%s: not a PNG file", name);
    char why[128] = "";
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, why, png_quiet_error, png_quiet_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char *volatile buf = NULL;
    st_result volatile r = ST_OK;
    png_source src = {data, size, 0};
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", name);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(buf);
        if (r) return r;
        return st_error_set(err, ST_ERR_FORMAT, "%s: corrupt or truncated PNG%s%s", name, why[0] ? ": " : "", why);
    }
    st_png_info pi;
    read_header(png, info, &src, &pi);
    if (!pixels) { /* the header is all that was asked for */
        png_destroy_read_struct(&png, &info, NULL);
        *out = pi;
        return ST_OK;
    }
    /* Bounded before a single row is decoded or allocated. */
    if ((uint64_t)pi.width * pi.height > max_pixels) {
        r = st_error_set(err, ST_ERR_INVALID, "%s: %ux%u pixels is more than the %llu this reader takes", name,
                         pi.width, pi.height, (unsigned long long)max_pixels);
        png_error(png, "too large");
    }
    size_t stride = png_get_rowbytes(png, info);
    buf = malloc(stride * pi.height);
    if (!buf) {
        r = st_error_set(err, ST_ERR_NOMEM, "%s: cannot allocate %ux%u pixels", name, pi.width, pi.height);
        png_error(png, "out of memory");
    }
    for (png_uint_32 y = 0; y < pi.height; y++) png_read_row(png, buf + stride * y, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    *out = pi;
    *pixels = buf;
    return ST_OK;
}

st_result st_png_probe(const uint8_t *data, size_t size, const char *name, st_png_info *info, st_error *err) {
    return decode(data, size, name ? name : "image.png", 0, info, NULL, err);
}

st_result st_png_decode(const uint8_t *data, size_t size, const char *name, uint64_t max_pixels, st_png_info *info,
                        void **pixels, st_error *err) {
    *pixels = NULL;
    return decode(data, size, name ? name : "image.png", max_pixels ? max_pixels : ST_PNG_MAX_PIXELS, info, pixels,
                  err);
}

/* No argument is reassigned after setjmp. */
st_result st_png_find_text(const uint8_t *data, size_t size, const char *name, const char *key, char *out, size_t cap,
                           bool *found, st_error *err) {
    *found = false;
    if (cap) out[0] = 0;
    if (size < 8 || png_sig_cmp(data, 0, 8)) return st_error_set(err, ST_ERR_FORMAT, "%s: not a PNG file", name);
    char why[128] = "";
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, why, png_quiet_error, png_quiet_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_source src = {data, size, 0};
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", name);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return st_error_set(err, ST_ERR_FORMAT, "%s: corrupt or truncated PNG%s%s", name, why[0] ? ": " : "", why);
    }
    st_png_set_read_limits(png);
    /* tEXt is the one chunk read here; a label of ours is short, so a longer chunk is an error before libpng
     * buffers it. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_AS_DEFAULT, (png_const_bytep) "tEXt", 1);
    png_set_chunk_malloc_max(png, 4096);
    png_set_read_fn(png, &src, png_source_read);
    png_read_info(png, info);
    png_textp text = NULL;
    int n = png_get_text(png, info, &text, NULL);
    for (int i = 0; i < n; i++) {
        if (strcmp(text[i].key, key)) continue;
        if (cap) snprintf(out, cap, "%s", text[i].text ? text[i].text : "");
        *found = true;
        break;
    }
    png_destroy_read_struct(&png, &info, NULL);
    return ST_OK;
}

st_result st_png_read(const char *path, uint32_t *width, uint32_t *height, int *channels, int *bit_depth,
                      void **pixels, st_error *err) {
    *pixels = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    st_result r = st_file_read_all(path, ST_PNG_MAX_FILE_BYTES, &data, &size, err);
    if (r) return r;
    st_png_info info;
    r = st_png_decode(data, size, path, 0, &info, pixels, err);
    free(data);
    if (r) return r;
    *width = info.width;
    *height = info.height;
    *channels = info.channels;
    *bit_depth = info.bit_depth;
    return ST_OK;
}

