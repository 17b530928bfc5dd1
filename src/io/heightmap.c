/* Elevation models: greyscale PNG (from memory through libpng), SRTM .hgt with void filling, raw s16/u16/f32
 * grids and files of every DEM format read through st_dem_open (their quantisation into a level is
 * heightmap_level.c). */
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "io/dem_internal.h"
#include "strata/dem.h"
#include "png_limits.h"
#include "strata/heightmap.h"
#include "strata/vangers.h"

static st_result hm_alloc(uint32_t w, uint32_t h, const char *name, st_heightmap **out, st_error *err) {
    *out = NULL;
    if (!w || !h || (uint64_t)w * h > ST_HEIGHTMAP_MAX_SAMPLES)
        return st_error_set(err, ST_ERR_INVALID, "%s: %ux%u samples is outside 1..%u", name, w, h,
                            ST_HEIGHTMAP_MAX_SAMPLES);
    st_heightmap *hm = calloc(1, sizeof *hm);
    if (hm) hm->samples = malloc(sizeof(int32_t) * (size_t)w * h);
    if (!hm || !hm->samples) {
        st_heightmap_destroy(hm);
        return st_error_set(err, ST_ERR_NOMEM, "%s: cannot allocate %ux%u samples", name, w, h);
    }
    hm->width = w;
    hm->height = h;
    hm->vertical_scale = 1.0;
    *out = hm;
    return ST_OK;
}

static void hm_range(st_heightmap *hm) {
    size_t n = (size_t)hm->width * hm->height;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < n; i++) {
        if (hm->samples[i] < lo) lo = hm->samples[i];
        if (hm->samples[i] > hi) hi = hm->samples[i];
    }
    hm->min = lo;
    hm->max = hi;
}

void st_heightmap_destroy(st_heightmap *hm) {
    if (!hm) return;
    free(hm->samples);
    free(hm);
}

/* ---- PNG from memory ---------------------------------------------------------------------------------- */

typedef struct png_mem {
    const uint8_t *data;
    size_t size, pos;
} png_mem;

static void png_mem_read(png_structp png, png_bytep out, png_size_t n) {
    png_mem *m = png_get_io_ptr(png);
    if (n > m->size - m->pos) png_error(png, "truncated");
    memcpy(out, m->data + m->pos, n);
    m->pos += n;
}

/* libpng's default error handler prints to stderr: ours only unwinds, and our own one-line error follows. */
static void png_quiet_error(png_structp png, png_const_charp msg) {
    (void)msg;
    png_longjmp(png, 1);
}

static void png_quiet_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

static st_result decode_png(const uint8_t *data, size_t size, const char *name, st_heightmap **out, st_error *err);

st_result st_heightmap_decode_png(const uint8_t *data, size_t size, const char *name, st_heightmap **out,
                                  st_error *err) {
    *out = NULL;
    return decode_png(data, size, name ? name : "heightmap.png", out, err);
}

/* Kept apart so no argument is reassigned in the function that calls setjmp. */
static st_result decode_png(const uint8_t *data, size_t size, const char *name, st_heightmap **out, st_error *err) {
    if (size < 8 || png_sig_cmp(data, 0, 8)) return st_error_set(err, ST_ERR_FORMAT, "%s: not a PNG file", name);
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, png_quiet_error, png_quiet_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    st_heightmap *volatile hm = NULL;
    uint8_t *volatile row = NULL;
    st_result volatile r = ST_OK;
    png_mem mem = {data, size, 0};
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", name);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(row);
        st_heightmap_destroy(hm);
        if (r) return r;
        return st_error_set(err, ST_ERR_FORMAT, "%s: corrupt or truncated PNG", name);
    }
    st_png_set_read_limits(png);
    png_set_read_fn(png, &mem, png_mem_read);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if ((uint64_t)w * h > ST_HEIGHTMAP_MAX_SAMPLES) { /* from the header, before anything is allocated */
        r = st_error_set(err, ST_ERR_INVALID, "%s: %ux%u samples is more than the %u a height map may have", name, w,
                         h, ST_HEIGHTMAP_MAX_SAMPLES);
        png_error(png, "size");
    }
    int depth = png_get_bit_depth(png, info), ctype = png_get_color_type(png, info);
    /* A palette or RGB image is taken when it is grey (r = g = b at every pixel, checked row by row below):
     * height maps are often saved that way, Comanche-style ones as palette images. */
    bool colour = ctype == PNG_COLOR_TYPE_PALETTE || (ctype & PNG_COLOR_MASK_COLOR);
    if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    else if (depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
        r = st_error_set(err, ST_ERR_FORMAT, "%s: interlaced PNGs are not supported", name);
        png_error(png, "interlaced");
    }
    png_read_update_info(png, info);
    int ch = png_get_channels(png, info), bd = png_get_bit_depth(png, info);
    st_heightmap *hmp = NULL;
    if ((r = hm_alloc(w, h, name, &hmp, err))) png_error(png, "size");
    hm = hmp;
    size_t stride = png_get_rowbytes(png, info);
    row = malloc(stride);
    if (!row) {
        r = st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", name);
        png_error(png, "memory");
    }
    size_t bytes = bd == 16 ? 2 : 1;
    for (png_uint_32 y = 0; y < h; y++) {
        png_read_row(png, row, NULL);
        int32_t *o = hm->samples + (size_t)y * w;
        for (png_uint_32 x = 0; x < w; x++) {
            const uint8_t *px = row + (size_t)ch * bytes * x;
            o[x] = bytes == 2 ? px[0] << 8 | px[1] : px[0]; /* 16-bit samples are big-endian */
            if (colour && (memcmp(px, px + bytes, bytes) || memcmp(px, px + 2 * bytes, bytes))) {
                r = st_error_set(err, ST_ERR_FORMAT, "%s: a heightmap must be grey: pixel (%u, %u) has colour (a colour "
                                 "map is no height map)", name, (unsigned)x, (unsigned)y);
                png_error(png, "colour");
            }
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    hm_range(hm);
    *out = hm;
    return ST_OK;
}

/* ---- SRTM .hgt ------------------------------------------------------------------------------------------ */

/* Fills the voids (ST_HGT_VOID) by the DEM readers' one rule (st_dem_fill_voids), so a tile decoded here and
 * the same tile read in windows through st_dem_open agree sample for sample. */
static st_result fill_voids(st_heightmap *hm, const char *name, st_error *err) {
    size_t n = (size_t)hm->width * hm->height;
    float *v = malloc(sizeof(float) * n);
    if (!v) return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", name);
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        v[i] = hm->samples[i] == ST_HGT_VOID ? NAN : (float)hm->samples[i];
        any |= hm->samples[i] == ST_HGT_VOID;
    }
    st_result r = any ? st_dem_fill_voids(v, hm->width, hm->height, true, 0.0, &hm->voids_filled,
                                          &hm->voids_sea_level, name, err)
                      : ST_OK;
    if (!r && any)
        for (size_t i = 0; i < n; i++) hm->samples[i] = (int32_t)v[i];
    free(v);
    return r;
}

st_result st_heightmap_decode_hgt(const uint8_t *data, size_t size, const char *name, st_heightmap **out,
                                  st_error *err) {
    if (!name) name = "tile.hgt";
    *out = NULL;
    uint32_t side = size == 2u * 1201 * 1201 ? 1201 : size == 2u * 3601 * 3601 ? 3601 : 0;
    if (!side)
        return st_error_set(err, ST_ERR_FORMAT,
                            "%s: %zu bytes; an SRTM tile is 1201x1201 (2884802 bytes) or 3601x3601 (25934402 bytes)",
                            name, size);
    st_heightmap *hm;
    st_result r = hm_alloc(side, side, name, &hm, err);
    if (r) return r;
    for (size_t i = 0; i < (size_t)side * side; i++) hm->samples[i] = (int16_t)(uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
    r = fill_voids(hm, name, err);
    if (r) {
        st_heightmap_destroy(hm);
        return r;
    }
    /* 3 or 1 arc-seconds in metres at the tile's centre latitude (the equator when the name gives none). */
    int lat = 0, lon = 0;
    double ew, ns;
    bool named = st_dem_hgt_name(name, &lat, &lon);
    st_dem_metres_per_degree(named ? lat + 0.5 : 0.0, ST_WGS84_A, ST_WGS84_F, &ew, &ns);
    hm->metres_per_sample = ew / (side - 1);
    hm->metres_per_sample_y = ns / (side - 1);
    hm_range(hm);
    *out = hm;
    return ST_OK;
}

st_result st_heightmap_decode_raw(const uint8_t *data, size_t size, uint32_t width, uint32_t height,
                                  st_dem_raw_type type, st_endian endian, const char *name, st_heightmap **out,
                                  st_error *err) {
    if (!name) name = "heightmap.raw";
    *out = NULL;
    if ((unsigned)type > ST_DEM_RAW_F32) return st_error_set(err, ST_ERR_INVALID, "%s: unknown raw sample type", name);
    if (!width || !height || (uint64_t)width * height > ST_HEIGHTMAP_MAX_SAMPLES)
        return st_error_set(err, ST_ERR_INVALID, "%s: raw size %ux%u is outside 1..%u samples", name, width, height,
                            ST_HEIGHTMAP_MAX_SAMPLES);
    static const char *const names[] = {"s16", "u16", "f32"};
    unsigned b = type == ST_DEM_RAW_F32 ? 4 : 2;
    if ((uint64_t)size != (uint64_t)b * width * height)
        return st_error_set(err, ST_ERR_FORMAT, "%s: %zu bytes, but %ux%u %s samples are %llu", name, size, width,
                            height, names[type], (unsigned long long)b * width * height);
    st_heightmap *hm;
    st_result r = hm_alloc(width, height, name, &hm, err);
    if (r) return r;
    const size_t n = (size_t)width * height;
    const bool be = endian == ST_ENDIAN_BIG;
    if (type != ST_DEM_RAW_F32) {
        for (size_t i = 0; i < n; i++) {
            uint16_t v = be ? (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]) : (uint16_t)(data[2 * i] | data[2 * i + 1] << 8);
            hm->samples[i] = type == ST_DEM_RAW_U16 ? (int32_t)v : (int32_t)(int16_t)v;
        }
        hm_range(hm);
        *out = hm;
        return ST_OK;
    }
    /* f32: held in millimetres; non-finite and absurd samples are voids, filled like .hgt voids. */
    float *v = malloc(sizeof(float) * n);
    if (!v) {
        st_heightmap_destroy(hm);
        return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", name);
    }
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = data + 4 * i;
        uint32_t u = be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                        : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
        memcpy(&v[i], &u, sizeof u);
        if (!isfinite(v[i]) || fabsf(v[i]) > (float)ST_DEM_ABSURD_M) {
            v[i] = NAN;
            any = true;
        }
    }
    if (any) r = st_dem_fill_voids(v, width, height, false, 0.0, &hm->voids_filled, &hm->voids_sea_level, name, err);
    if (!r)
        for (size_t i = 0; i < n; i++) hm->samples[i] = (int32_t)lrint((double)v[i] * 1000.0);
    free(v);
    if (r) {
        st_heightmap_destroy(hm);
        return r;
    }
    hm->vertical_scale = 0.001;
    hm_range(hm);
    *out = hm;
    return ST_OK;
}

st_result st_heightmap_read(const char *path, const st_heightmap_read_desc *desc, st_heightmap **out,
                            st_error *err) {
    *out = NULL;
    st_heightmap_read_desc d = desc ? *desc : (st_heightmap_read_desc){0};
    st_dem_open_desc od = {.raw_width = d.raw_width, .raw_height = d.raw_height, .raw_type = d.raw_type,
                           .endian = d.endian, .units_m = d.units_m, .spacing_m = d.spacing_m};
    st_dem_source *src = NULL;
    st_result r = st_dem_open(&path, 1, &od, &src, err);
    if (r) return r;
    r = st_dem_read_heightmap(src, out, err);
    st_dem_source_destroy(src);
    return r;
}
