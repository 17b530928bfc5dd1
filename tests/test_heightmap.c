/* Elevation model import (PNG from memory, SRTM .hgt with voids, raw s16/u16/f32 both byte orders),
 * quantisation into levels (crop and resample, the true vertical scale, exaggeration, error bound, water), the
 * PNG set round trip and the real Puget Sound and ETOPO files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "strata/file.h"
#include "strata/heightmap.h"
#include "strata/image.h"
#include "strata/vangers.h"
#include "support.h"

static uint8_t *read_all(const char *path, size_t *size) {
    uint8_t *d = NULL;
    assert_st_ok(st_file_read_all(path, 1u << 30, &d, size, err));
    return d;
}

static void test_png(void **state) {
    (void)state;
    const char *dir = test_temp_dir("hmpng");
    char path[512];
    uint16_t px16[12];
    uint8_t px8[12], rgb[36];
    for (int i = 0; i < 12; i++) {
        px16[i] = (uint16_t)(i * 5000 + 7);
        px8[i] = (uint8_t)(i * 20);
    }
    snprintf(path, sizeof path, "%s/h16.png", dir);
    assert_st_ok(st_png_write(path, 4, 3, 1, 16, px16, err));
    size_t size;
    uint8_t *data = read_all(path, &size);
    st_heightmap *hm = NULL;
    assert_st_ok(st_heightmap_decode_png(data, size, "h16.png", &hm, err));
    assert_int_equal(hm->width, 4);
    assert_int_equal(hm->height, 3);
    for (int i = 0; i < 12; i++) assert_int_equal(hm->samples[i], i * 5000 + 7);
    assert_int_equal(hm->min, 7);
    assert_int_equal(hm->max, 55007);
    st_heightmap_destroy(hm);
    /* Truncated: a clear format error, no crash. */
    st_error e = {0};
    assert_int_equal(st_heightmap_decode_png(data, size / 2, "h16.png", &hm, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "h16.png"));
    assert_int_equal(st_heightmap_decode_png(data, 5, "h16.png", &hm, &e), ST_ERR_FORMAT);
    free(data);

    snprintf(path, sizeof path, "%s/h8.png", dir);
    assert_st_ok(st_png_write(path, 4, 3, 1, 8, px8, err));
    data = read_all(path, &size);
    assert_st_ok(st_heightmap_decode_png(data, size, "h8.png", &hm, err));
    for (int i = 0; i < 12; i++) assert_int_equal(hm->samples[i], i * 20);
    st_heightmap_destroy(hm);
    free(data);

    /* RGB is taken when it is grey; one coloured pixel refuses it (a colour map is no height map) */
    for (int i = 0; i < 12; i++) memset(rgb + 3 * i, px8[i], 3);
    snprintf(path, sizeof path, "%s/rgb.png", dir);
    assert_st_ok(st_png_write(path, 4, 3, 3, 8, rgb, err));
    data = read_all(path, &size);
    assert_st_ok(st_heightmap_decode_png(data, size, "rgb.png", &hm, err));
    for (int i = 0; i < 12; i++) assert_int_equal(hm->samples[i], i * 20);
    st_heightmap_destroy(hm);
    free(data);
    rgb[3 * 7 + 1] = 200;
    assert_st_ok(st_png_write(path, 4, 3, 3, 8, rgb, err));
    data = read_all(path, &size);
    assert_int_equal(st_heightmap_decode_png(data, size, "rgb.png", &hm, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "pixel (3, 1) has colour"));
    free(data);
}

/* A PNG chunk: length, type, data, CRC. */
static size_t put_chunk(uint8_t *out, const char *type, const uint8_t *data, uint32_t n) {
    uint8_t *p = out;
    p[0] = (uint8_t)(n >> 24), p[1] = (uint8_t)(n >> 16), p[2] = (uint8_t)(n >> 8), p[3] = (uint8_t)n;
    memcpy(p + 4, type, 4);
    if (n) memcpy(p + 8, data, n);
    uLong crc = crc32(crc32(0L, Z_NULL, 0), p + 4, n + 4);
    p[8 + n] = (uint8_t)(crc >> 24), p[9 + n] = (uint8_t)(crc >> 16), p[10 + n] = (uint8_t)(crc >> 8);
    p[11 + n] = (uint8_t)crc;
    return 12 + n;
}

/* An 8-bit palette PNG of w×h indices (w, h ≤ 16) with the palette's `entries` RGB triples. */
static size_t palette_png(uint8_t *out, uint32_t w, uint32_t h, const uint8_t *idx, const uint8_t *plte, int entries) {
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(out, sig, 8);
    size_t n = 8;
    uint8_t ihdr[13] = {0, 0, 0, (uint8_t)w, 0, 0, 0, (uint8_t)h, 8, 3, 0, 0, 0};
    n += put_chunk(out + n, "IHDR", ihdr, 13);
    n += put_chunk(out + n, "PLTE", plte, (uint32_t)entries * 3);
    uint8_t raw[16 * 17], packed[512];
    for (uint32_t y = 0; y < h; y++) {
        raw[y * (w + 1)] = 0; /* filter: none */
        memcpy(raw + y * (w + 1) + 1, idx + y * w, w);
    }
    uLongf plen = sizeof packed;
    assert_int_equal(compress(packed, &plen, raw, h * (w + 1)), Z_OK);
    n += put_chunk(out + n, "IDAT", packed, (uint32_t)plen);
    n += put_chunk(out + n, "IEND", NULL, 0);
    return n;
}

/* Comanche-style height maps are palette images whose palette is grey: taken as the grey values; a palette of
 * colours is refused. */
static void test_png_palette(void **state) {
    (void)state;
    uint8_t plte[3 * 4], idx[12], png[1024];
    for (int i = 0; i < 4; i++) memset(plte + 3 * i, 10 + 30 * i, 3); /* greys 10, 40, 70, 100 */
    for (int i = 0; i < 12; i++) idx[i] = (uint8_t)(i % 4);
    size_t n = palette_png(png, 4, 3, idx, plte, 4);
    st_heightmap *hm = NULL;
    assert_st_ok(st_heightmap_decode_png(png, n, "pal.png", &hm, err));
    for (int i = 0; i < 12; i++) assert_int_equal(hm->samples[i], 10 + 30 * (i % 4));
    st_heightmap_destroy(hm);
    plte[3 * 2 + 2] = 0; /* entry 2 is no longer grey */
    n = palette_png(png, 4, 3, idx, plte, 4);
    st_error e = {0};
    assert_int_equal(st_heightmap_decode_png(png, n, "pal.png", &hm, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "pixel (2, 0) has colour"));
}

/* keep_steps: each 8-bit sample is its height step as it is (an 8-bit map 10..118 stays 10..118, not shifted to
 * 0 or stretched), without a spacing; it cannot be combined with stretch or exaggeration, nor take samples past
 * 255. */
static void test_keep_steps(void **state) {
    (void)state;
    st_heightmap *hm = NULL;
    uint8_t plte[3 * 4], idx[16 * 16], png[2048];
    for (int i = 0; i < 4; i++) memset(plte + 3 * i, i == 0 ? 10 : i == 3 ? 118 : 40 * i, 3);
    for (int i = 0; i < 256; i++) idx[i] = (uint8_t)((i / 16 + i % 16) % 4);
    size_t n = palette_png(png, 16, 16, idx, plte, 4);
    assert_st_ok(st_heightmap_decode_png(png, n, "k.png", &hm, err));
    st_level *l = NULL;
    st_heightmap_level_info info;
    st_heightmap_level_desc d = {.keep_steps = true};
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, &info, err));
    assert_int_equal(l->width, 16);
    for (int i = 0; i < 256; i++) assert_int_equal(l->heights[i], hm->samples[i]);
    assert_int_equal(info.steps_used, 119);
    st_level_destroy(l);
    st_error e = {0};
    d.stretch = true;
    assert_int_equal(st_heightmap_to_level(hm, &d, &l, &info, &e), ST_ERR_INVALID);
    d = (st_heightmap_level_desc){.keep_steps = true, .exaggerate = 2};
    assert_int_equal(st_heightmap_to_level(hm, &d, &l, &info, &e), ST_ERR_INVALID);
    hm->max = 300;
    d = (st_heightmap_level_desc){.keep_steps = true};
    assert_int_equal(st_heightmap_to_level(hm, &d, &l, &info, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "0..255"));
    st_heightmap_destroy(hm);
}

static void put_be(uint8_t *p, int v) {
    p[0] = (uint8_t)((uint16_t)v >> 8);
    p[1] = (uint8_t)v;
}

static void test_hgt(void **state) {
    (void)state;
    const size_t side = 1201, n = side * side;
    uint8_t *d = malloc(2 * n);
    for (size_t i = 0; i < n; i++) put_be(d + 2 * i, (int)((i % side + i / side) % 900) - 50);
    /* One void with neighbours 10, 20, 30, 40 → 25; a 3×3 void block; a void in the corner. */
    size_t c = 600 * side + 600;
    put_be(d + 2 * c, ST_HGT_VOID);
    put_be(d + 2 * (c - 1), 10);
    put_be(d + 2 * (c + 1), 20);
    put_be(d + 2 * (c - side), 30);
    put_be(d + 2 * (c + side), 40);
    for (size_t y = 100; y < 103; y++)
        for (size_t x = 100; x < 103; x++) put_be(d + 2 * (y * side + x), ST_HGT_VOID);
    put_be(d, ST_HGT_VOID);
    /* The raw values with voids as NAN, for the reference fill. */
    float *raw = malloc(sizeof(float) * n);
    for (size_t i = 0; i < n; i++) {
        int v = (int16_t)(uint16_t)(d[2 * i] << 8 | d[2 * i + 1]);
        raw[i] = v == ST_HGT_VOID ? NAN : (float)v;
    }
    st_heightmap *hm = NULL;
    assert_st_ok(st_heightmap_decode_hgt(d, 2 * n, "N47W122.hgt", &hm, err));
    assert_int_equal(hm->width, 1201);
    assert_int_equal(hm->voids_filled, 11);
    assert_int_equal(hm->voids_sea_level, 0);
    for (size_t i = 0; i < n; i++) assert_true(hm->samples[i] != ST_HGT_VOID);
    /* Every void is the rule's fill from its own neighbourhood: the single one, the corner and the 3×3 block,
     * whose centre sees only the ring beyond the block (not the fills around it). */
    const size_t voids[] = {c, 0, 100 * side + 100, 101 * side + 101, 102 * side + 102, 100 * side + 102};
    for (size_t k = 0; k < sizeof voids / sizeof voids[0]; k++) {
        bool sea;
        float want = test_dem_reference_fill(raw, side, side, (uint32_t)(voids[k] % side), (uint32_t)(voids[k] / side),
                                             64, true, 0, &sea);
        assert_false(sea);
        assert_int_equal(hm->samples[voids[k]], (int32_t)want);
    }
    /* The single void between 10, 20, 30, 40 (and the ramp's diagonals and second ring) lands between them. */
    assert_true(hm->samples[c] > 10 && hm->samples[c] < 1000);
    /* 3″ at 47.5° N: 62.7 m east-west, 92.6 m north-south. */
    assert_true(fabs(hm->metres_per_sample - 62.77) < 0.05);
    assert_true(fabs(hm->metres_per_sample_y - 92.63) < 0.05);
    st_heightmap_destroy(hm);
    free(raw);
    st_error e = {0};
    assert_int_equal(st_heightmap_decode_hgt(d, 2 * n - 2, "bad.hgt", &hm, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "bad.hgt"));
    for (size_t i = 0; i < n; i++) put_be(d + 2 * i, ST_HGT_VOID);
    assert_int_equal(st_heightmap_decode_hgt(d, 2 * n, "void.hgt", &hm, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "void"));
    free(d);
}

static void test_raw(void **state) {
    (void)state;
    uint8_t le[8] = {0x01, 0x00, 0xFF, 0xFF, 0x00, 0x80, 0x34, 0x12};
    st_heightmap *hm = NULL;
    assert_st_ok(st_heightmap_decode_raw(le, 8, 2, 2, ST_DEM_RAW_S16, ST_ENDIAN_LITTLE, "x.raw", &hm, err));
    assert_int_equal(hm->samples[0], 1);
    assert_int_equal(hm->samples[1], -1);
    assert_int_equal(hm->samples[2], -32768);
    assert_int_equal(hm->samples[3], 0x1234);
    st_heightmap_destroy(hm);
    assert_st_ok(st_heightmap_decode_raw(le, 8, 4, 1, ST_DEM_RAW_S16, ST_ENDIAN_BIG, "x.raw", &hm, err));
    assert_int_equal(hm->samples[0], 256);
    assert_int_equal(hm->samples[3], 0x3412);
    st_heightmap_destroy(hm);
    st_error e = {0};
    assert_int_equal(st_heightmap_decode_raw(le, 8, 3, 1, ST_DEM_RAW_S16, ST_ENDIAN_LITTLE, "x.raw", &hm, &e),
                     ST_ERR_FORMAT);
    assert_int_equal(st_heightmap_decode_raw(le, 8, 100000, 100000, ST_DEM_RAW_S16, ST_ENDIAN_LITTLE, "x.raw", &hm, &e),
                     ST_ERR_INVALID);
    /* f32 takes 4 bytes a sample: 8 bytes are 2 samples, not 4. */
    assert_int_equal(st_heightmap_decode_raw(le, 8, 2, 2, ST_DEM_RAW_F32, ST_ENDIAN_LITTLE, "x.raw", &hm, &e),
                     ST_ERR_FORMAT);
}

/* Unsigned 16-bit raw (.r16): a 0..65535 ramp must read 0..65535, not −32768..32767 with its halves swapped. */
static void test_raw_u16(void **state) {
    (void)state;
    uint8_t *d = malloc(2 * 65536);
    for (uint32_t i = 0; i < 65536; i++) {
        d[2 * i] = (uint8_t)i;
        d[2 * i + 1] = (uint8_t)(i >> 8);
    }
    st_heightmap *hm = NULL;
    assert_st_ok(st_heightmap_decode_raw(d, 2 * 65536, 256, 256, ST_DEM_RAW_U16, ST_ENDIAN_LITTLE, "ramp.r16", &hm, err));
    for (uint32_t i = 0; i < 65536; i++) assert_int_equal(hm->samples[i], (int32_t)i);
    assert_int_equal(hm->min, 0);
    assert_int_equal(hm->max, 65535);
    assert_true(hm->vertical_scale == 1.0);
    st_heightmap_destroy(hm);
    /* The same bytes as s16 are the signed reading, kept for the formats that are signed. */
    assert_st_ok(st_heightmap_decode_raw(d, 2 * 65536, 256, 256, ST_DEM_RAW_S16, ST_ENDIAN_LITTLE, "ramp", &hm, err));
    assert_int_equal(hm->samples[40000], 40000 - 65536);
    st_heightmap_destroy(hm);
    free(d);
}

/* f32 raw in both byte orders: millimetres, with NaN and absurd samples filled as voids. */
static void test_raw_f32(void **state) {
    (void)state;
    const float v[6] = {-12.5f, 1234.25f, NAN, 0.001f, 8848.86f, 3e38f};
    uint8_t le[24], be[24];
    for (int i = 0; i < 6; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        for (int b = 0; b < 4; b++) {
            le[4 * i + b] = (uint8_t)(u >> (8 * b));
            be[4 * i + b] = (uint8_t)(u >> (8 * (3 - b)));
        }
    }
    st_heightmap *a = NULL, *b = NULL;
    assert_st_ok(st_heightmap_decode_raw(le, 24, 3, 2, ST_DEM_RAW_F32, ST_ENDIAN_LITTLE, "f.raw", &a, err));
    assert_st_ok(st_heightmap_decode_raw(be, 24, 3, 2, ST_DEM_RAW_F32, ST_ENDIAN_BIG, "f.raw", &b, err));
    assert_memory_equal(a->samples, b->samples, 6 * sizeof(int32_t));
    assert_true(a->vertical_scale == 0.001);
    assert_int_equal(a->samples[0], -12500);
    assert_int_equal(a->samples[1], 1234250);
    assert_int_equal(a->samples[3], 1);
    assert_int_equal(a->samples[4], 8848860);
    assert_int_equal(a->voids_filled, 2);
    /* The NaN at (2, 0) and the 3e38 at (2, 1) see each other as voids: each is filled from the four valid
     * samples of rings 1 and 2 by inverse distance squared. */
    float raw[6] = {-12.5f, 1234.25f, NAN, 0.001f, 8848.86f, NAN};
    for (int k = 2; k < 6; k += 3) {
        bool sea;
        float want = test_dem_reference_fill(raw, 3, 2, (uint32_t)(k % 3), (uint32_t)(k / 3), 64, false, 0, &sea);
        assert_false(sea);
        assert_true(fabs(a->samples[k] - want * 1000.0) <= 1.0);
    }
    st_heightmap_destroy(a);
    st_heightmap_destroy(b);
}

static void test_to_level(void **state) {
    (void)state;
    /* 1025×1030 ramp of multiples of 3 from -30: crop to 1024×1024 at (0,3), step 3 exactly, no error. */
    st_heightmap *hm = NULL;
    uint8_t *raw = malloc(2 * 1025 * 1030);
    for (size_t i = 0; i < 1025 * 1030; i++) {
        int v = -30 + 3 * (int)((i % 1025 + i / 1025) % 256);
        raw[2 * i] = (uint8_t)v;
        raw[2 * i + 1] = (uint8_t)((uint16_t)v >> 8);
    }
    assert_st_ok(st_heightmap_decode_raw(raw, 2 * 1025 * 1030, 1025, 1030, ST_DEM_RAW_S16, ST_ENDIAN_LITTLE, "ramp", &hm, err));
    free(raw);
    hm->vertical_scale = 0.5;
    st_level *l = NULL;
    st_heightmap_level_info info;
    /* Stretched (no spacing, so no true scale): heights 0..255 over the window's relief, as DEMs were before. */
    st_heightmap_level_desc d = {.stretch = true};
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, &info, err));
    assert_int_equal(l->width, 1024);
    assert_int_equal(l->height, 1024);
    assert_int_equal(info.x0, 0);
    assert_int_equal(info.y0, 3);
    assert_false(info.resampled);
    assert_true(info.step_metres > 1.4999 && info.step_metres < 1.5001);
    assert_true(info.base_metres > -15.0001 && info.base_metres < -14.9999);
    assert_true(info.max_error_metres < 1e-9);
    /* texel (0,0) = source (0,3): -30 + 9 = -21 → step 3; water (≤ 0) below step 10, flood level at 10. */
    assert_int_equal(l->heights[0], 3);
    assert_int_equal(st_meta_type(l, l->meta[0]), 0);
    assert_int_equal(l->flood[0], 10);
    assert_int_equal(l->heights[100], 103);
    assert_true(st_meta_type(l, l->meta[100]) >= 1);
    st_level_destroy(l);
    /* Resample keeps the whole extent: 1025×1030 → 1024×1024, quantisation error at most half a step. */
    d = (st_heightmap_level_desc){.fit = ST_FIT_RESAMPLE, .stretch = true};
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, &info, err));
    assert_true(info.resampled);
    assert_int_equal(l->width, 1024);
    assert_true(info.max_error_metres <= info.step_metres / 2 + 1e-9);
    st_level_destroy(l);
    d = (st_heightmap_level_desc){.fit = ST_FIT_CROP, .width = 2048, .height = 1024, .stretch = true};
    st_error e = {0};
    assert_int_equal(st_heightmap_to_level(hm, &d, &l, &info, &e), ST_ERR_INVALID);
    /* Without a spacing the true scale is unknown: an error that says what to give. */
    assert_int_equal(st_heightmap_to_level(hm, NULL, &l, &info, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "--spacing"));
    st_heightmap_destroy(hm);
}

/* The true vertical scale: one height step is one texel's width in metres (Puget Sound was 9.3× exaggerated:
 * 4379.8 m over 255 steps of 17.2 m on 160 m texels). */
static void test_true_scale(void **state) {
    (void)state;
    /* 1025² at 160 m, 0.1 m units, a cone from 0 to 4000 m: 25 steps of 160 m at the true scale. */
    st_heightmap *hm = NULL;
    uint8_t *raw = malloc(2 * 1025 * 1025);
    for (int y = 0; y < 1025; y++)
        for (int x = 0; x < 1025; x++) {
            double r = hypot(x - 512, y - 512) / 512.0;
            int v = (int)(40000 * (r < 1 ? 1 - r : 0));
            raw[2 * (y * 1025 + x)] = (uint8_t)v;
            raw[2 * (y * 1025 + x) + 1] = (uint8_t)(v >> 8);
        }
    assert_st_ok(st_heightmap_decode_raw(raw, 2 * 1025 * 1025, 1025, 1025, ST_DEM_RAW_U16, ST_ENDIAN_LITTLE, "cone", &hm,
                                         err));
    free(raw);
    hm->vertical_scale = 0.1;
    hm->metres_per_sample = 160;
    st_level *l = NULL;
    st_heightmap_level_info info;
    assert_st_ok(st_heightmap_to_level(hm, NULL, &l, &info, err));
    assert_false(info.resampled);
    assert_int_equal(l->width, 1024);
    assert_true(fabs(info.step_metres - 160.0) < 1e-9);
    assert_true(fabs(info.texel_metres - 160.0) < 1e-9);
    assert_true(fabs(info.exaggeration - 1.0) < 1e-9);
    assert_int_equal(info.steps_used, 26); /* 4000 m / 160 m = 25 steps above step 0 */
    assert_int_equal(l->heights[512 * 1024 + 512], 25);
    st_level_destroy(l);
    /* Exaggerated 4×: steps of 40 m, 100 of them. */
    st_heightmap_level_desc d = {.exaggerate = 4};
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, &info, err));
    assert_true(fabs(info.step_metres - 40.0) < 1e-9);
    assert_int_equal(l->heights[512 * 1024 + 512], 100);
    st_level_destroy(l);
    /* 2 m spacing: 4000 m needs 2000 steps at 2 m texels. Cropping refuses with the largest exaggeration that
     * fits (255 · 2 / 4000 = 0.1275 → 0.127), and that figure works. */
    st_error e = {0};
    d = (st_heightmap_level_desc){.fit = ST_FIT_CROP, .spacing_m = 2};
    assert_int_equal(st_heightmap_to_level(hm, &d, &l, &info, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "--exaggerate 0.127 or less"));
    d.exaggerate = 0.127;
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, &info, err));
    assert_true(info.steps_used <= 256 && info.steps_used > 250);
    st_level_destroy(l);
    /* Auto resamples instead: the finest powers of two whose texels (≥ 4000/255 = 15.7 m) fit, 2050 m / 128 =
     * 16.0 m, so 128². */
    d = (st_heightmap_level_desc){.spacing_m = 2};
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, &info, err));
    assert_true(info.resampled);
    assert_int_equal(l->width, 128);
    assert_int_equal(l->height, 128);
    assert_true(fabs(info.step_metres - 2050.0 / 128) < 1e-9);
    assert_true(info.steps_used <= 256);
    st_level_destroy(l);
    /* Non-square samples (a geographic grid at 60°: 80 m east-west, 160 m north-south): resampling keeps the
     * texels square, so the level is twice as tall as the samples would say. */
    hm->metres_per_sample = 80;
    hm->metres_per_sample_y = 160;
    d = (st_heightmap_level_desc){.fit = ST_FIT_RESAMPLE};
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, &info, err));
    assert_int_equal(l->width, 1024);
    assert_int_equal(l->height, 2048);
    assert_true(fabs(info.texel_metres / info.texel_metres_y - 1) < 0.01);
    st_level_destroy(l);
    st_heightmap_destroy(hm);
}

static void test_png_set(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 32, 50);
    st_level_set_dual(l, 10, 5, 20, 60, 200, 2, 4);
    st_level_set_single(l, 3, 3, 255, 7);
    const char *dir = test_temp_dir("pngset");
    assert_st_ok(st_level_write_pngs(l, dir, err));
    st_level *back = NULL;
    assert_st_ok(st_level_read_pngs(dir, &back, err));
    assert_memory_equal(back->heights, l->heights, 64 * 32);
    assert_memory_equal(back->meta, l->meta, 64 * 32);
    /* Preview: texel (3,3) is material 7 at height 255 → its End colour; (10,5) shows the slab's material 4
     * at 200 → begin + (end-begin)·200/255. */
    uint8_t *rgb = NULL;
    assert_st_ok(st_level_preview(l, &rgb, err));
    st_rgb8 c = l->palette[l->end_color[7]];
    assert_int_equal(rgb[3 * (3 * 64 + 3)], c.r);
    assert_int_equal(rgb[3 * (3 * 64 + 3) + 2], c.b);
    uint32_t idx = l->begin_color[4] + (l->end_color[4] - l->begin_color[4]) * 200u / 255u;
    assert_int_equal(rgb[3 * (5 * 64 + 10) + 1], l->palette[idx].g);
    free(rgb);
    assert_true(back->wrap_x && back->wrap_y); /* a set that says nothing wraps, as before */
    st_level_destroy(back);
    /* the wrap flags ride along in height.png */
    for (int k = 0; k < 3; k++) {
        l->wrap_x = k == 1;
        l->wrap_y = k == 2;
        char sub[600];
        snprintf(sub, sizeof sub, "%s/w%d", dir, k);
        assert_st_ok(st_level_write_pngs(l, sub, err));
        assert_st_ok(st_level_read_pngs(sub, &back, err));
        if (back->wrap_x != l->wrap_x || back->wrap_y != l->wrap_y)
            fail_msg("PNG set: wrap %d/%d came back as %d/%d", l->wrap_x, l->wrap_y, back->wrap_x, back->wrap_y);
        st_level_destroy(back);
    }
    st_level_destroy(l);
    /* A hostile text chunk: 37 bytes of file whose tEXt claims almost 2 GiB is refused before it is buffered. */
    uint8_t png[64] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                       0, 0, 0, 4, 0, 0, 0, 4, 8, 0, 0, 0, 0};
    uLong crc = crc32(0, png + 12, 17);
    for (int i = 0; i < 4; i++) png[29 + i] = (uint8_t)(crc >> (24 - 8 * i));
    static const uint8_t text[] = {0x7f, 0xff, 0xf0, 0x00, 't', 'E', 'X', 't', 'S', 't', 'r', 'a', 't', 'a', ' ',
                                   'W', 'r', 'a', 'p', 0, 'x', 'y'};
    memcpy(png + 33, text, sizeof text);
    char found_text[16];
    bool found = true;
    st_error e = {0};
    assert_int_equal(st_png_find_text(png, 33 + sizeof text, "h.png", "Strata Wrap", found_text, sizeof found_text,
                                      &found, &e),
                     ST_ERR_FORMAT);
    assert_false(found);
    assert_non_null(strstr(e.message, "too large"));
}

/* A DEM becomes a level that wraps in x only when it is a whole globe and keeps its whole width, never in y; the
 * resampled globe is interpolated across its seam (the first column blends with the last one). */
static void test_dem_wrap(void **state) {
    (void)state;
    st_heightmap *hm = NULL;
    uint8_t raw[2 * 6 * 4];
    for (int i = 0; i < 24; i++) { /* 6x4 s16: 0, 100, 200, 300, 400, 1000 along each row */
        int v = i % 6 == 5 ? 1000 : (i % 6) * 100;
        raw[2 * i] = (uint8_t)v;
        raw[2 * i + 1] = (uint8_t)(v >> 8);
    }
    assert_st_ok(st_heightmap_decode_raw(raw, sizeof raw, 6, 4, ST_DEM_RAW_S16, ST_ENDIAN_LITTLE, "ramp", &hm, err));
    st_heightmap_level_desc d = {.fit = ST_FIT_RESAMPLE, .width = 8, .height = 4, .stretch = true};
    st_level *l = NULL;
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, NULL, err));
    assert_false(l->wrap_x || l->wrap_y); /* a plain DEM */
    /* texel 0's centre samples x = −0.125: clamped, sample 0 (0 m), below texel 1 (0.625·100 m) */
    assert_true(st_level_texel(l, 0, 1).low < st_level_texel(l, 1, 1).low);
    st_level_destroy(l);
    hm->wrap_x = true;
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, NULL, err));
    assert_true(l->wrap_x && !l->wrap_y); /* a globe, resampled whole */
    /* across the seam: 0.875·0 + 0.125·1000 m, above texel 1 */
    if (!(st_level_texel(l, 0, 1).low > st_level_texel(l, 1, 1).low))
        fail_msg("the globe's first column (%u) does not blend with its last one (texel 1: %u)", st_level_texel(l, 0, 1).low,
                 st_level_texel(l, 1, 1).low);
    st_level_destroy(l);
    d = (st_heightmap_level_desc){.fit = ST_FIT_CROP, .width = 4, .height = 4, .stretch = true};
    assert_st_ok(st_heightmap_to_level(hm, &d, &l, NULL, err));
    assert_false(l->wrap_x || l->wrap_y); /* part of the globe's width: its edges are edges */
    st_level_destroy(l);
    st_heightmap_destroy(hm);
}

static void test_real_data(void **state) {
    (void)state;
    /* The real DEMs ship with the repository (data/dem/): a missing file fails the test. */
    const char *src = getenv("STRATA_SOURCE");
    assert_non_null(src);
    char ps[1024], et[1024];
    snprintf(ps, sizeof ps, "%s/data/dem/ps_height_1k.png", src);
    snprintf(et, sizeof et, "%s/data/dem/etopo20_global_1080x540_s16le.raw", src);
    st_heightmap *hm = NULL;
    assert_st_ok(st_heightmap_read(ps, NULL, &hm, err));
    assert_int_equal(hm->width, 1025);
    assert_int_equal(hm->height, 1025);
    assert_int_equal(hm->min, 0);
    assert_int_equal(hm->max, 43798); /* Mt Rainier, 4379.8 m */
    size_t zeros = 0;
    for (size_t i = 0; i < 1025u * 1025u; i++) zeros += hm->samples[i] == 0;
    assert_int_equal(zeros, 39421);
    st_heightmap_destroy(hm);
    st_heightmap_read_desc rd = {.raw_width = 1080, .raw_height = 540, .endian = ST_ENDIAN_LITTLE};
    assert_st_ok(st_heightmap_read(et, &rd, &hm, err));
    assert_int_equal(hm->min, -9027);
    assert_int_equal(hm->max, 6229);
    st_heightmap_destroy(hm);
    /* Puget Sound at its true scale: 160 m texels, 160 m steps, 28 of them (4379.8 m). */
    rd = (st_heightmap_read_desc){.units_m = 0.1, .spacing_m = 160};
    assert_st_ok(st_heightmap_read(ps, &rd, &hm, err));
    st_level *l = NULL;
    st_heightmap_level_info info;
    assert_st_ok(st_heightmap_to_level(hm, NULL, &l, &info, err));
    assert_true(fabs(info.step_metres - 160.0) < 1e-9);
    assert_true(fabs(info.exaggeration - 1.0) < 1e-9);
    assert_int_equal(info.steps_used, 28);
    st_level_destroy(l);
    st_heightmap_destroy(hm);
    /* A missing file says so, instead of guessing at its format. */
    st_error e = {0};
    char missing[1100];
    snprintf(missing, sizeof missing, "%s/data/dem/no-such-dem.tif", src);
    assert_int_equal(st_heightmap_read(missing, NULL, &hm, &e), ST_ERR_IO);
    assert_non_null(strstr(e.message, "No such file or directory"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png),        cmocka_unit_test(test_png_palette), cmocka_unit_test(test_keep_steps),
        cmocka_unit_test(test_hgt),        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_raw_u16),    cmocka_unit_test(test_raw_f32),    cmocka_unit_test(test_to_level),
        cmocka_unit_test(test_true_scale), cmocka_unit_test(test_png_set),    cmocka_unit_test(test_real_data),
        cmocka_unit_test(test_dem_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
