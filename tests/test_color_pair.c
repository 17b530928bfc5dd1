/* Comanche-style worlds: a height map (its samples the height steps 1:1) and a colour map read into a level whose
 * colour map is the albedo; the pair's folder layout and the height map alone (st_level_load_world_pair); the shipped
 * pair (data/comanche); bad pairs refused before anything is decoded; the colour map in the level's copy, its
 * checksum and the reference's shading (the C twin of the GPU's); the colour map saved with the world (st_world_save) and
 * read back (st_world_load_colors), dropped by a save without one, refused when damaged; and in a layer store
 * (st_store_build_level, st_store_read_level). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/file.h"
#include "strata/heightmap.h"
#include "strata/image.h"
#include "strata/reference.h"
#include "strata/shading.h"
#include "strata/tiles.h"
#include "strata/world.h"
#include "support.h"

/* Writes a PNG and reads its bytes back. */
static uint8_t *png_bytes(const char *dir, const char *name, uint32_t w, uint32_t h, int channels, int depth,
                          const void *pixels, size_t *size) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    st_error e = {0};
    if (st_png_write(path, w, h, channels, depth, pixels, &e)) fail_msg("%s", e.message);
    uint8_t *data = NULL;
    if (st_file_read_all(path, 1u << 26, &data, size, &e)) fail_msg("%s", e.message);
    return data;
}

/* A w×h height map of value (x + 3y) mod 256 and an RGB colour map of (x, y, 255 − x). */
static void make_pair(const char *dir, uint32_t w, uint32_t h, uint8_t **hp, size_t *hs, uint8_t **cp, size_t *cs) {
    uint8_t *heights = malloc((size_t)w * h), *rgb = malloc((size_t)w * h * 3);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            heights[y * w + x] = (uint8_t)((x + 3 * y) & 255);
            uint8_t *c = rgb + ((size_t)y * w + x) * 3;
            c[0] = (uint8_t)x, c[1] = (uint8_t)y, c[2] = (uint8_t)(255 - x);
        }
    *hp = png_bytes(dir, "height.png", w, h, 1, 8, heights, hs);
    *cp = png_bytes(dir, "color.png", w, h, 3, 8, rgb, cs);
    free(heights);
    free(rgb);
}

static void test_pair_loads_heights_and_colours(void **state) {
    (void)state;
    const char *dir = test_temp_dir("pair");
    uint8_t *hp, *cp;
    size_t hs, cs;
    make_pair(dir, 64, 32, &hp, &hs, &cp, &cs);
    st_level *l = NULL;
    assert_st_ok(st_level_decode_color_pair(hp, hs, cp, cs, "height.png", "color.png", &l, err));
    assert_int_equal(l->width, 64);
    assert_int_equal(l->height, 32);
    assert_non_null(l->colors);
    assert_false(l->wrap_x || l->wrap_y); /* no "Strata Wrap" chunk: nothing past the edges */
    for (uint32_t y = 0; y < 32; y++)
        for (uint32_t x = 0; x < 64; x++) {
            st_texel t = st_level_texel(l, (int)x, (int)y);
            assert_int_equal(t.high, (x + 3 * y) & 255); /* 1:1, no shift, no scale */
            const uint8_t *c = l->colors + ((size_t)y * 64 + x) * 3;
            assert_int_equal(c[0], x);
            assert_int_equal(c[1], y);
            assert_int_equal(c[2], 255 - x);
        }
    assert_int_equal(st_level_texel(l, 0, 0).high_type, 0); /* height 0: type 0 */
    /* a copy keeps its own colour map */
    st_level *copy = NULL;
    assert_st_ok(st_level_clone(l, &copy, err));
    assert_non_null(copy->colors);
    assert_ptr_not_equal(copy->colors, l->colors);
    assert_memory_equal(copy->colors, l->colors, 64 * 32 * 3);
    /* the colour map is part of the world's checksum; without it the level's CRC is the planes' as before */
    uint32_t with = st_reference_level_crc32(l);
    free(copy->colors);
    copy->colors = NULL;
    uint32_t without = st_reference_level_crc32(copy);
    assert_int_not_equal(with, without);
    const uint8_t *heights, *meta;
    st_level_planes(copy, &heights, &meta);
    assert_int_equal(without, st_crc32_update(st_crc32(heights, 64 * 32), meta, 64 * 32));
    st_level_destroy(copy);
    /* the height map alone: the same heights, no colour map */
    st_level *alone = NULL;
    assert_st_ok(st_level_decode_color_pair(hp, hs, NULL, 0, "height.png", NULL, &alone, err));
    assert_null(alone->colors);
    assert_int_equal(st_level_texel(alone, 5, 7).high, 26);
    st_level_destroy(alone);
    st_level_destroy(l);
    free(hp);
    free(cp);
}

/* Colour maps of every layout come out as RGB; sides that are not powers of two are cropped alike. */
static void test_colour_layouts_and_crop(void **state) {
    (void)state;
    const char *dir = test_temp_dir("pair-layouts");
    const uint32_t w = 80, h = 40; /* cropped to 64x32 at (8, 4) */
    uint8_t *heights = malloc(w * h), *grey = malloc(w * h), *rgba = malloc(w * h * 4);
    uint16_t *rgb16 = malloc(w * h * 3 * sizeof *rgb16);
    for (uint32_t i = 0; i < w * h; i++) {
        heights[i] = (uint8_t)(i % 200);
        grey[i] = (uint8_t)(i * 7);
        for (int k = 0; k < 4; k++) rgba[i * 4 + (uint32_t)k] = (uint8_t)(i + (uint32_t)k * 50);
        for (int k = 0; k < 3; k++) rgb16[i * 3 + (uint32_t)k] = (uint16_t)((i * 13 + (uint32_t)k) * 257);
    }
    size_t hs, gs, as, ss;
    uint8_t *hp = png_bytes(dir, "h.png", w, h, 1, 8, heights, &hs);
    uint8_t *gp = png_bytes(dir, "g.png", w, h, 1, 8, grey, &gs);
    uint8_t *ap = png_bytes(dir, "a.png", w, h, 4, 8, rgba, &as);
    uint8_t *sp = png_bytes(dir, "s.png", w, h, 3, 16, rgb16, &ss);
    st_level *lg = NULL, *la = NULL, *ls = NULL;
    assert_st_ok(st_level_decode_color_pair(hp, hs, gp, gs, "h.png", "g.png", &lg, err));
    assert_st_ok(st_level_decode_color_pair(hp, hs, ap, as, "h.png", "a.png", &la, err));
    assert_st_ok(st_level_decode_color_pair(hp, hs, sp, ss, "h.png", "s.png", &ls, err));
    assert_int_equal(lg->width, 64);
    assert_int_equal(lg->height, 32);
    for (uint32_t y = 0; y < 32; y++)
        for (uint32_t x = 0; x < 64; x++) {
            uint32_t i = (y + 4) * w + x + 8; /* the source pixel of texel (x, y) */
            size_t o = ((size_t)y * 64 + x) * 3;
            assert_int_equal(st_level_texel(lg, (int)x, (int)y).high, heights[i]);
            for (int k = 0; k < 3; k++) {
                assert_int_equal(lg->colors[o + (size_t)k], grey[i]);
                assert_int_equal(la->colors[o + (size_t)k], rgba[i * 4 + (uint32_t)k]);
                assert_int_equal(ls->colors[o + (size_t)k], rgb16[i * 3 + (uint32_t)k] >> 8);
            }
        }
    st_level_destroy(lg);
    st_level_destroy(la);
    st_level_destroy(ls);
    free(heights), free(grey), free(rgba), free(rgb16), free(hp), free(gp), free(ap), free(sp);
}

static void expect_refused(const uint8_t *hp, size_t hs, const uint8_t *cp, size_t cs, st_result code,
                           const char *words) {
    st_error e = {0};
    st_level *l = (st_level *)1;
    assert_int_equal(st_level_decode_color_pair(hp, hs, cp, cs, "h.png", "c.png", &l, &e), code);
    assert_null(l);
    if (!strstr(e.message, words)) fail_msg("message '%s' does not say '%s'", e.message, words);
}

static void test_bad_pairs_refused(void **state) {
    (void)state;
    const char *dir = test_temp_dir("pair-bad");
    uint8_t *hp, *cp;
    size_t hs, cs;
    make_pair(dir, 64, 64, &hp, &hs, &cp, &cs);
    uint8_t small_rgb[32 * 64 * 3] = {0};
    size_t ms;
    uint8_t *mp = png_bytes(dir, "small.png", 32, 64, 3, 8, small_rgb, &ms);
    expect_refused(hp, hs, mp, ms, ST_ERR_FORMAT, "c.png is 32x64 but h.png is 64x64");
    const uint8_t text[] = "not a png at all, just words";
    expect_refused(hp, hs, text, sizeof text, ST_ERR_FORMAT, "c.png");
    expect_refused(text, sizeof text, cp, cs, ST_ERR_FORMAT, "h.png");
    expect_refused(hp, hs / 2, cp, cs, ST_ERR_FORMAT, "h.png"); /* truncated */
    /* a 16-bit height map is a DEM: its samples are no height steps */
    uint16_t deep[16 * 16] = {0};
    size_t ds;
    uint8_t *dp = png_bytes(dir, "deep.png", 16, 16, 1, 16, deep, &ds);
    expect_refused(dp, ds, NULL, 0, ST_ERR_FORMAT, "8-bit");
    /* a colour map as the height map: its pixels are not grey */
    expect_refused(cp, cs, cp, cs, ST_ERR_FORMAT, "h.png");
    free(hp), free(cp), free(mp), free(dp);
}

/* The folder layout and the height map alone (st_level_load_world_pair, which the CLI asks first); a folder
 * with half a pair or a world.ini is left to st_world_load. */
static void test_world_load_forms(void **state) {
    (void)state;
    const char *made = test_temp_dir("pair-world");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s", made);
    uint8_t *hp, *cp;
    size_t hs, cs;
    make_pair(dir, 32, 32, &hp, &hs, &cp, &cs);
    st_level *l = NULL;
    bool taken = false;
    assert_st_ok(st_level_load_world_pair(dir, &taken, &l, err));
    assert_true(taken);
    assert_non_null(l->colors);
    assert_int_equal(l->width, 32);
    const char *base = strrchr(dir, '/') + 1;
    assert_string_equal(l->name, base); /* named after its folder */
    st_level_destroy(l);
    snprintf(path, sizeof path, "%s/height.png", dir);
    assert_st_ok(st_level_load_world_pair(path, &taken, &l, err));
    assert_true(taken);
    assert_null(l->colors);
    st_level_destroy(l);
    /* "default", a world.ini and a folder of half a pair are not pairs */
    assert_st_ok(st_level_load_world_pair("default", &taken, &l, err));
    assert_false(taken);
    snprintf(path, sizeof path, "%s/color.png", dir);
    remove(path);
    assert_st_ok(st_level_load_world_pair(dir, &taken, &l, err));
    assert_false(taken);
    assert_null(l);
    st_error e = {0};
    assert_int_equal(st_world_load(dir, &l, &e), ST_ERR_IO);
    assert_non_null(strstr(e.message, "world.ini"));
    free(hp);
    free(cp);
}

/* The pair shipped in data/comanche (scripts/make_comanche_pair.py from the Puget Sound DEM): a missing file
 * fails the test. */
static void test_shipped_pair(void **state) {
    (void)state;
    const char *src = getenv("STRATA_SOURCE");
    assert_non_null(src);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/data/comanche", src);
    st_level *l = NULL;
    bool taken = false;
    assert_st_ok(st_level_load_world_pair(dir, &taken, &l, err));
    assert_true(taken);
    assert_int_equal(l->width, 256);
    assert_int_equal(l->height, 256);
    assert_non_null(l->colors);
    assert_string_equal(l->name, "comanche");
    st_level_stats s = st_level_compute_stats(l);
    assert_int_equal(s.min_height, 0);   /* the sea */
    assert_int_equal(s.max_height, 64);  /* Mt Rainier */
    /* the sea is blue, the land is not */
    uint64_t blue_sea = 0, sea = 0;
    for (uint32_t i = 0; i < 256 * 256; i++)
        if (l->heights[i] == 0) {
            sea++;
            blue_sea += l->colors[i * 3 + 2] > l->colors[i * 3] + 20;
        }
    assert_true(sea > 1000);
    assert_int_equal(blue_sea, sea);
    st_level_destroy(l);
}

/* The reference shades a top with the colour map's colour at its column (st_shade_lit, the GPU's twin). */
static void test_reference_shades_colour_map(void **state) {
    (void)state;
    st_level *l = test_flat_level(16, 16, 30);
    l->colors = calloc(16 * 16 * 3, 1);
    assert_non_null(l->colors);
    uint8_t *c = l->colors + (5 * 16 + 9) * 3; /* texel (9, 5) */
    c[0] = 200, c[1] = 100, c[2] = 50;
    float eye[3] = {8, 8, 100};
    st_shade_env env;
    st_shade_env_init(&env, l, eye, 600);
    float n[3] = {0, 0, 1}, p[3] = {9.5f, 5.5f, 30}, rgb[3];
    st_shade_lit(&env, p, st_level_texel(l, 9, 5), n, 0.0f, rgb); /* unlit: the ambient share of the albedo */
    const uint8_t want[3] = {200, 100, 50};
    for (int k = 0; k < 3; k++) assert_float_equal(rgb[k], ST_AMBIENT * st_shade_srgb_to_linear(want[k]), 1e-6);
    float q[3] = {3.5f, 3.5f, 30};
    st_shade_lit(&env, q, st_level_texel(l, 3, 3), n, 0.0f, rgb);
    for (int k = 0; k < 3; k++) assert_float_equal(rgb[k], 0.0f, 1e-9); /* black there */
    st_level_destroy(l);
}

static bool file_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

static void test_world_save_keeps_colours(void **state) {
    (void)state;
    const char *dir = test_temp_dir("pair-save");
    st_level *l = test_flat_level(64, 32, 20);
    l->wrap_x = false;
    l->colors = malloc(64 * 32 * 3);
    assert_non_null(l->colors);
    for (size_t i = 0; i < 64 * 32 * 3; i++) l->colors[i] = (uint8_t)(i * 7 + i / 97);
    assert_st_ok(st_world_save(l, dir, err));
    char color[600], ini[600];
    snprintf(color, sizeof color, "%s/color.png", dir);
    snprintf(ini, sizeof ini, "%s/world.ini", dir);
    assert_true(file_exists(color));
    /* read back: st_world_load gives the map, st_world_load_colors its colour map, byte for byte */
    st_level *back = NULL;
    assert_st_ok(st_world_load(dir, &back, err));
    assert_null(back->colors);
    assert_st_ok(st_world_load_colors(ini, back, err));
    assert_non_null(back->colors);
    assert_memory_equal(back->colors, l->colors, 64 * 32 * 3);
    st_level_destroy(back);

    /* saved again without one, in place: the world names none and color.png is gone */
    free(l->colors);
    l->colors = NULL;
    assert_st_ok(st_world_save(l, dir, err));
    assert_false(file_exists(color));
    assert_st_ok(st_world_load(dir, &back, err));
    assert_st_ok(st_world_load_colors(dir, back, err));
    assert_null(back->colors);
    st_level_destroy(back);

    /* a colour map of the wrong size, or damaged, is refused naming the file */
    l->colors = calloc(64 * 32 * 3, 1);
    assert_non_null(l->colors);
    assert_st_ok(st_world_save(l, dir, err));
    uint8_t small[8 * 8 * 3] = {0};
    st_error e = {0};
    assert_st_ok(st_png_write(color, 8, 8, 3, 8, small, &e));
    assert_st_ok(st_world_load(dir, &back, err));
    assert_int_equal(st_world_load_colors(dir, back, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "color.png"));
    FILE *f = fopen(color, "wb");
    assert_non_null(f);
    fputs("not a png", f);
    fclose(f);
    memset(&e, 0, sizeof e);
    assert_int_not_equal(st_world_load_colors(dir, back, &e), ST_OK);
    assert_non_null(strstr(e.message, "color.png"));
    assert_null(back->colors); /* left as it was */
    st_level_destroy(back);
    st_level_destroy(l);
}

static void test_layer_store_keeps_colours(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 30);
    l->colors = malloc(64 * 64 * 3);
    assert_non_null(l->colors);
    for (size_t i = 0; i < 64 * 64 * 3; i++) l->colors[i] = (uint8_t)(i * 13 + i / 61);
    st_store_build_desc d = {.tile_size = 32};
    st_store_build_stats st;
    const char *dir = test_temp_dir("pair-store");
    assert_st_ok(st_store_build_level(l, dir, &d, &st, err));
    st_store *s = NULL;
    assert_st_ok(st_store_open(dir, &s, err));
    assert_string_equal(st_store_get_info(s)->color_map, "color.png");
    st_level *back = NULL;
    assert_st_ok(st_store_read_level(s, &back, err));
    assert_non_null(back->colors);
    assert_memory_equal(back->colors, l->colors, 64 * 64 * 3);
    st_level_destroy(back);
    /* its coarser level has no colour map of its size: none */
    st_store *coarse = NULL;
    assert_st_ok(st_store_open_coarse(s, &coarse, err));
    assert_string_equal(st_store_get_info(coarse)->color_map, "");
    st_store_close(coarse);
    st_store_close(s);
    /* a level without one builds a store without one */
    free(l->colors);
    l->colors = NULL;
    dir = test_temp_dir("pair-store-none");
    assert_st_ok(st_store_build_level(l, dir, &d, &st, err));
    assert_st_ok(st_store_open(dir, &s, err));
    assert_st_ok(st_store_read_level(s, &back, err));
    assert_null(back->colors);
    st_level_destroy(back);
    st_store_close(s);
    st_level_destroy(l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_loads_heights_and_colours),
        cmocka_unit_test(test_colour_layouts_and_crop),
        cmocka_unit_test(test_bad_pairs_refused),
        cmocka_unit_test(test_world_load_forms),
        cmocka_unit_test(test_shipped_pair),
        cmocka_unit_test(test_reference_shades_colour_map),
        cmocka_unit_test(test_world_save_keeps_colours),
        cmocka_unit_test(test_layer_store_keeps_colours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
