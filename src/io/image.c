/* PNG through libpng and PFM, both committed atomically; and the atomic-file helper itself. */
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/image.h"

#define ST_PNG_MAX_DIM 65536u

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
#define ST_PNG_MAX_BYTES (1ull << 31)

st_result st_atomic_open(st_atomic_file *f, const char *path, st_error *err) {
    memset(f, 0, sizeof *f);
    if (strlen(path) >= sizeof f->final_path)
        return st_error_set(err, ST_ERR_INVALID, "%s: path too long", path);
    snprintf(f->final_path, sizeof f->final_path, "%s", path);
    snprintf(f->temp_path, sizeof f->temp_path, "%s.tmp%ld", path, (long)getpid());
    f->fp = fopen(f->temp_path, "wb");
    if (!f->fp) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    return ST_OK;
}

st_result st_atomic_commit(st_atomic_file *f, st_error *err) {
    int failed = ferror(f->fp);
    failed |= fflush(f->fp) != 0;
    failed |= fclose(f->fp) != 0;
    f->fp = NULL;
    if (failed) {
        int e = errno;
        unlink(f->temp_path);
        return st_error_set(err, ST_ERR_IO, "%s: write failed: %s", f->final_path, strerror(e));
    }
    if (rename(f->temp_path, f->final_path) != 0) {
        int e = errno;
        unlink(f->temp_path);
        return st_error_set(err, ST_ERR_IO, "%s: %s", f->final_path, strerror(e));
    }
    return ST_OK;
}

void st_atomic_abort(st_atomic_file *f) {
    if (f->fp) fclose(f->fp);
    f->fp = NULL;
    if (f->temp_path[0]) unlink(f->temp_path);
}

st_result st_make_dirs(const char *path, st_error *err) {
    char buf[1024];
    if (strlen(path) >= sizeof buf) return st_error_set(err, ST_ERR_INVALID, "%s: path too long", path);
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return st_error_set(err, ST_ERR_IO, "%s: %s", buf, strerror(errno));
            *p = c;
            if (!c) break;
        }
    }
    return ST_OK;
}

st_result st_png_write(const char *path, uint32_t width, uint32_t height, int channels, int bit_depth,
                       const void *pixels, st_error *err) {
    static const int color_types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                       PNG_COLOR_TYPE_RGBA};
    if (channels < 1 || channels > 4 || (bit_depth != 8 && bit_depth != 16) || !width || !height)
        return st_error_set(err, ST_ERR_INVALID, "%s: unsupported image layout", path);
    st_atomic_file f;
    st_result r = st_atomic_open(&f, path, err);
    if (r) return r;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_quiet_error, png_quiet_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        st_atomic_abort(&f);
        return st_error_set(err, ST_ERR_IO, "%s: PNG encoding failed", path);
    }
    png_init_io(png, f.fp);
    png_set_compression_level(png, 3); /* fast: images are many and large */
    png_set_IHDR(png, info, width, height, bit_depth, color_types[channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (bit_depth == 16) png_set_swap(png); /* native little-endian uint16 → PNG big-endian */
    size_t stride = (size_t)width * (size_t)channels * (size_t)(bit_depth / 8);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)pixels + stride * y);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return st_atomic_commit(&f, err);
}

st_result st_png_read(const char *path, uint32_t *width, uint32_t *height, int *channels, int *bit_depth,
                      void **pixels, st_error *err) {
    *pixels = NULL;
    FILE *fp = NULL;
    st_result opened = st_file_open_read(path, &fp, err);
    if (opened) return opened;
    unsigned char sig[8];
    if (fread(sig, 1, 8, fp) != 8 || png_sig_cmp(sig, 0, 8)) {
        fclose(fp);
        return st_error_set(err, ST_ERR_FORMAT, "%s: not a PNG file", path);
    }
    char why[128] = "";
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, why, png_quiet_error, png_quiet_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char *volatile data = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(data);
        fclose(fp);
        return st_error_set(err, ST_ERR_FORMAT, "%s: corrupt or truncated PNG%s%s", path, why[0] ? ": " : "", why);
    }
    png_set_user_limits(png, ST_PNG_MAX_DIM, ST_PNG_MAX_DIM);
    png_init_io(png, fp);
    png_set_sig_bytes(png, 8);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    int depth = png_get_bit_depth(png, info), ctype = png_get_color_type(png, info);
    if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (depth == 16) png_set_swap(png);
    png_read_update_info(png, info);
    int ch = png_get_channels(png, info), bd = png_get_bit_depth(png, info);
    size_t stride = png_get_rowbytes(png, info);
    if ((unsigned long long)stride * h > ST_PNG_MAX_BYTES) png_error(png, "too large");
    data = malloc(stride * h);
    if (!data) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < h; y++) png_read_row(png, data + stride * y, NULL);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(fp);
    *width = w;
    *height = h;
    *channels = ch;
    *bit_depth = bd;
    *pixels = data;
    return ST_OK;
}

st_result st_pfm_write(const char *path, uint32_t width, uint32_t height, const float *values, st_error *err) {
    st_atomic_file f;
    st_result r = st_atomic_open(&f, path, err);
    if (r) return r;
    fprintf(f.fp, "Pf\n%u %u\n-1.0\n", width, height);
    for (uint32_t y = height; y-- > 0;) fwrite(values + (size_t)y * width, sizeof(float), width, f.fp);
    return st_atomic_commit(&f, err);
}
