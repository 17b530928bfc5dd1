/* Tests of the level model: pair decoding (dual flags, delta split, mid clamp), wrapping in x and y,
 * metadata flags, the SOLID predicate at its boundaries, the dig/raise edits' validity and dirty rects, and the
 * plane accessors (rows, rectangles, the GPU's pair packing). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "strata/level.h"
#include "support.h"

static void test_dual_pair_decodes_both_texels(void **state) {
    (void)state;
    st_level *l = test_flat_level(16, 8, 20);
    st_level_set_dual(l, 4, 3, 10, 34, 60, 5, 2);
    /* raw bytes: low in the even texel, high in the odd one, D = 3 split as (0, 3) */
    size_t even = 3 * 16 + 4;
    assert_int_equal(l->heights[even], 10);
    assert_int_equal(l->heights[even + 1], 60);
    assert_true(l->meta[even] & ST_META_DUAL);
    assert_true(l->meta[even + 1] & ST_META_DUAL);
    assert_int_equal(l->meta[even] & ST_META_DELTA_MASK, 0);
    assert_int_equal(l->meta[even + 1] & ST_META_DELTA_MASK, 3);
    for (int x = 4; x <= 5; x++) {
        st_texel t = st_level_texel(l, x, 3);
        assert_true(t.dual);
        assert_int_equal(t.low, 10);
        assert_int_equal(t.mid, 34);
        assert_int_equal(t.high, 60);
        assert_int_equal(t.low_type, 5);
        assert_int_equal(t.high_type, 2);
    }
    /* neighbours stay single */
    st_texel n = st_level_texel(l, 6, 3);
    assert_false(n.dual);
    assert_int_equal(n.low, 20);
    assert_int_equal(n.high, 20);
    assert_true(st_level_valid(l, NULL));
    st_level_destroy(l);
}

static void test_delta_split_and_clamps(void **state) {
    (void)state;
    st_level *l = test_flat_level(16, 8, 0);
    /* hand-encoded: even delta bits 2, odd delta bits 1 -> D = 9 -> mid = low + 72 */
    size_t e = 16 + 2;
    l->heights[e] = 30;
    l->heights[e + 1] = 200;
    l->meta[e] = (uint8_t)(ST_META_DUAL | (3u << ST_META_TYPE_SHIFT8) | 2u);
    l->meta[e + 1] = (uint8_t)(ST_META_DUAL | (6u << ST_META_TYPE_SHIFT8) | 1u);
    st_texel t = st_level_texel(l, 3, 1);
    assert_int_equal(t.mid, 102);
    assert_int_equal(t.low_type, 3);
    assert_int_equal(t.high_type, 6);
    /* D = 15 is the largest gap: 120 */
    st_level_set_dual(l, 8, 2, 0, 200, 250, 1, 1);
    assert_int_equal(st_level_texel(l, 8, 2).mid, 120);
    /* mid never passes high: min(low + 8D, high) */
    st_level_set_dual(l, 10, 2, 10, 40, 30, 1, 1);
    t = st_level_texel(l, 10, 2);
    assert_int_equal(t.mid, 30);
    assert_int_equal(t.high, 30);
    /* gaps round to the nearest multiple of 8 */
    st_level_set_dual(l, 12, 2, 10, 23, 90, 1, 1); /* gap 13 -> 16 */
    assert_int_equal(st_level_texel(l, 12, 2).mid, 26);
    st_level_set_dual(l, 14, 2, 10, 21, 90, 1, 1); /* gap 11 -> 8 */
    assert_int_equal(st_level_texel(l, 14, 2).mid, 18);
    assert_true(st_level_valid(l, NULL));
    st_level_destroy(l);
}

static void test_wrap_x_and_y(void **state) {
    (void)state;
    st_level *l = test_flat_level(16, 8, 1);
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++) st_level_set_single(l, x, y, (uint8_t)(x + 16 * y), 1);
    assert_int_equal(st_level_texel(l, -1, 0).high, 15);
    assert_int_equal(st_level_texel(l, 0, -1).high, 7 * 16);
    assert_int_equal(st_level_texel(l, 16 + 3, 8 + 2).high, 3 + 32);
    assert_int_equal(st_level_texel(l, -16 * 5 + 4, -8 * 3 + 1).high, 4 + 16);
    /* SOLID with negative coordinates floors before wrapping: x = -0.5 is texel 15 */
    assert_true(st_level_solid(l, -0.5f, 0.5f, 15.0f));
    assert_false(st_level_solid(l, -0.5f, 0.5f, 15.5f));
    assert_true(st_level_solid(l, 0.5f, -0.25f, 112.0f));
    assert_false(st_level_solid(l, 0.5f, -0.25f, 112.5f));
    /* setters wrap too */
    st_level_set_single(l, -1, -1, 99, 2);
    assert_int_equal(l->heights[7 * 16 + 15], 99);
    st_level_destroy(l);
}

static void test_flags(void **state) {
    (void)state;
    st_level *l = test_flat_level(8, 4, 50);
    /* the shadow bits never change decoding */
    st_level_set_single(l, 1, 0, 40, 4);
    l->meta[1] |= ST_META_SHADOW | ST_META_OBJSHADOW;
    st_texel t = st_level_texel(l, 1, 0);
    assert_false(t.dual);
    assert_int_equal(t.high_type, 4);
    assert_int_equal(t.high, 40);
    /* even texel decides: flagged even + unflagged odd decodes dual, and is invalid */
    l->meta[2] |= ST_META_DUAL;
    assert_true(st_level_texel(l, 3, 0).dual);
    st_error err = {0};
    assert_false(st_level_valid(l, &err));
    assert_non_null(strstr(err.message, "disagree"));
    l->meta[2] &= (uint8_t)~ST_META_DUAL;
    /* flagged odd alone stays single */
    l->meta[5] |= ST_META_DUAL;
    assert_false(st_level_texel(l, 4, 0).dual);
    assert_false(st_level_texel(l, 5, 0).dual);
    assert_false(st_level_valid(l, NULL));
    l->meta[5] &= (uint8_t)~ST_META_DUAL;
    assert_true(st_level_valid(l, NULL));
    /* a slab top below its floor is invalid */
    st_level_set_dual(l, 0, 1, 60, 68, 80, 1, 1);
    l->heights[8 + 1] = 10;
    assert_false(st_level_valid(l, NULL));
    /* 16-type levels keep the type in bits 5..2 */
    l->terrain_types = 16;
    assert_int_equal(st_meta_type(l, (uint8_t)(13u << ST_META_TYPE_SHIFT16)), 13);
    assert_int_equal(st_meta_type(l, (uint8_t)(ST_META_DUAL | (9u << ST_META_TYPE_SHIFT16) | 3u)), 9);
    l->terrain_types = 8;
    assert_int_equal(st_meta_type(l, (uint8_t)(ST_META_DUAL | (7u << ST_META_TYPE_SHIFT8) | ST_META_OBJSHADOW | 3u)), 7);
    st_level_destroy(l);
}

static void test_solid_boundaries(void **state) {
    (void)state;
    st_level *l = test_flat_level(8, 4, 0);
    /* height 0 is a real, hittable height */
    assert_true(st_level_solid(l, 3.5f, 2.5f, 0.0f));
    assert_true(st_level_solid(l, 3.5f, 2.5f, -1.0f));
    assert_false(st_level_solid(l, 3.5f, 2.5f, 0.001f));
    st_level_set_dual(l, 2, 1, 10, 34, 60, 1, 1);
    float x = 2.5f, y = 1.5f;
    assert_true(st_level_solid(l, x, y, 10.0f));   /* floor top */
    assert_false(st_level_solid(l, x, y, 10.01f)); /* cave air */
    assert_false(st_level_solid(l, x, y, 33.99f));
    assert_true(st_level_solid(l, x, y, 34.0f));   /* cave ceiling */
    assert_true(st_level_solid(l, x, y, 47.0f));   /* inside the slab */
    assert_true(st_level_solid(l, x, y, 60.0f));   /* slab top */
    assert_false(st_level_solid(l, x, y, 60.01f)); /* sky */
    assert_false(st_level_solid(l, x + 1.0f, y, 30.0f)); /* odd texel decodes the same pair */
    assert_true(st_level_solid(l, x + 1.0f, y, 34.0f));
    assert_true(st_level_solid(l, 3.99f, y, 50.0f));
    assert_false(st_level_solid(l, 4.0f, y, 50.0f)); /* next pair: single at 0 */
    st_level_destroy(l);
}

static void test_dig_keeps_valid_and_dirty_rect(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 100);
    for (int y = 20; y < 44; y++)
        for (int x = 20; x < 44; x += 2) st_level_set_dual(l, x, y, 100, 140, 180, 5, 2);
    st_rect dirty;
    assert_st_ok(st_level_dig(l, 31, 30, 10, 50, &dirty, err));
    assert_true(st_level_valid(l, NULL));
    assert_int_equal(dirty.x0, 20);
    assert_int_equal(dirty.y0, 20);
    assert_int_equal(dirty.x1, 42);
    assert_int_equal(dirty.y1, 41);
    /* centre: full depth, the slab gone */
    st_texel c = st_level_texel(l, 31, 30);
    assert_false(c.dual);
    assert_int_equal(c.high, 50);
    /* the crater profile is trunc(depth * (1 - d²/r²)) */
    st_texel t = st_level_texel(l, 31 + 6, 30);
    assert_int_equal(t.low, 100 - (int)(50.0 * (1.0 - 36.0 / 100.0)));
    /* outside the radius nothing changed: the slab survives */
    st_texel o = st_level_texel(l, 22, 42);
    assert_true(o.dual);
    assert_int_equal(o.high, 180);
    /* saturation at 0 and a clip at the level's corner */
    st_level *z = test_flat_level(32, 32, 10);
    assert_st_ok(st_level_dig(z, 0, 0, 5, 200, &dirty, err));
    assert_int_equal(st_level_texel(z, 0, 0).high, 0);
    assert_int_equal(dirty.x0, 0);
    assert_int_equal(dirty.y0, 0);
    assert_int_equal(dirty.x1, 6);
    assert_int_equal(dirty.y1, 6);
    assert_true(st_level_valid(z, NULL));
    st_level_destroy(z);
    st_level_destroy(l);
}

static void test_raise_keeps_valid(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 20);
    for (int y = 28; y < 36; y++)
        for (int x = 28; x < 36; x += 2) st_level_set_dual(l, x, y, 20, 60, 80, 5, 2);
    st_rect dirty;
    assert_st_ok(st_level_raise(l, 10, 10, 4, 30, &dirty, err));
    assert_int_equal(st_level_texel(l, 10, 10).high, 50);
    assert_int_equal(dirty.x0, 6);
    assert_int_equal(dirty.y0, 6);
    assert_int_equal(dirty.x1, 16);
    assert_int_equal(dirty.y1, 15);
    assert_st_ok(st_level_raise(l, 32, 32, 6, 250, &dirty, err));
    assert_true(st_level_valid(l, NULL));
    st_texel t = st_level_texel(l, 32, 32);
    assert_true(t.high >= t.mid && t.mid >= t.low);
    assert_int_equal(t.high, 255); /* saturates */
    st_level_destroy(l);
}

static void test_edit_rejects_bad_brushes(void **state) {
    (void)state;
    st_level *l = test_flat_level(32, 32, 10);
    st_error err = {0};
    st_rect dirty;
    assert_int_equal(st_level_dig(l, 5, 5, 0, 10, &dirty, &err), ST_ERR_INVALID);
    assert_int_equal(st_level_dig(l, 5, 5, 3, -1, &dirty, &err), ST_ERR_INVALID);
    assert_int_equal(st_level_dig(l, 40, 5, 3, 10, &dirty, &err), ST_ERR_INVALID);
    assert_int_equal(st_level_raise(l, 5, -1, 3, 10, &dirty, &err), ST_ERR_INVALID);
    assert_true(err.message[0] != 0);
    st_level_destroy(l);
}

static void test_stats(void **state) {
    (void)state;
    st_level *l = test_flat_level(16, 16, 30);
    st_level_set_dual(l, 0, 0, 5, 13, 90, 5, 2);
    st_level_set_single(l, 2, 0, 0, 0);
    st_level_stats s = st_level_compute_stats(l);
    assert_true(fabs(s.dual_fraction - 2.0 / 256.0) < 1e-12);
    assert_int_equal(s.min_height, 0);
    assert_int_equal(s.max_height, 90);
    assert_int_equal(s.type_histogram[2], 2);
    assert_int_equal(s.type_histogram[0], 1);
    assert_int_equal(s.type_histogram[1], 253);
    st_level_destroy(l);
}

/* A level whose every byte says where it is: height = x + 7y, meta = 3x + y (mod 256). */
static st_level *coordinate_level(uint32_t w, uint32_t h) {
    st_level *l = test_flat_level(w, h, 0);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            l->heights[(size_t)y * w + x] = (uint8_t)(x + 7 * y);
            l->meta[(size_t)y * w + x] = (uint8_t)(3 * x + y);
        }
    return l;
}

static void test_rows_and_planes(void **state) {
    (void)state;
    st_level *l = coordinate_level(32, 16);
    for (uint32_t y = 0; y < 16; y++) {
        const uint8_t *h = st_level_height_row(l, y), *m = st_level_meta_row(l, y);
        for (uint32_t x = 0; x < 32; x++) {
            assert_int_equal(h[x], (uint8_t)(x + 7 * y));
            assert_int_equal(m[x], (uint8_t)(3 * x + y));
        }
    }
    const uint8_t *hp, *mp;
    st_level_planes(l, &hp, NULL);
    st_level_planes(l, NULL, &mp);
    assert_int_equal(hp[5 * 32 + 9], (uint8_t)(9 + 35));
    assert_int_equal(mp[5 * 32 + 9], (uint8_t)(27 + 5));
    uint8_t *hw, *mw;
    st_level_planes_mut(l, &hw, &mw);
    hw[3 * 32 + 1] = 200;
    assert_int_equal(st_level_height_row(l, 3)[1], 200);
    st_level_destroy(l);
}

/* The GPU packing: one RGBA texel (h_even, m_even, h_odd, m_odd) per pair, x widened to whole pairs. */
static void test_pack_pairs(void **state) {
    (void)state;
    st_level *l = coordinate_level(32, 16);
    uint8_t buf[32 * 16 * 2 + 8];
    memset(buf, 0xEE, sizeof buf);
    st_rect r = {3, 2, 8, 5}; /* texels 3..7 → pairs 1..3 (texels 2..7) */
    size_t n = st_level_pack_pairs(l, r, buf);
    assert_int_equal(n, 3 * 3 * 4);
    assert_int_equal(buf[n], 0xEE); /* nothing past the count */
    const uint8_t *p = buf;
    for (uint32_t y = 2; y < 5; y++)
        for (uint32_t x = 2; x < 8; x += 2) {
            assert_int_equal(p[0], (uint8_t)(x + 7 * y));
            assert_int_equal(p[1], (uint8_t)(3 * x + y));
            assert_int_equal(p[2], (uint8_t)(x + 1 + 7 * y));
            assert_int_equal(p[3], (uint8_t)(3 * (x + 1) + y));
            p += 4;
        }
    /* the whole level packs to W/2 × H texels, the terrain texture's size */
    assert_int_equal(st_level_pack_pairs(l, (st_rect){0, 0, 32, 16}, buf), 16 * 16 * 4);
    assert_int_equal(buf[(5 * 16 + 4) * 4 + 2], (uint8_t)(9 + 35)); /* pair 4 of row 5: odd texel 9 */
    /* an odd x1 at the level's edge cannot widen past it */
    assert_int_equal(st_level_pack_pairs(l, (st_rect){31, 0, 32, 1}, buf), 4);
    /* empty or outside: nothing written */
    memset(buf, 0xEE, sizeof buf);
    assert_int_equal(st_level_pack_pairs(l, (st_rect){4, 4, 4, 8}, buf), 0);
    assert_int_equal(st_level_pack_pairs(l, (st_rect){-2, 0, 4, 8}, buf), 0);
    assert_int_equal(st_level_pack_pairs(l, (st_rect){0, 0, 34, 2}, buf), 0);
    assert_int_equal(st_level_pack_pairs(l, (st_rect){0, 10, 4, 17}, buf), 0);
    assert_int_equal(buf[0], 0xEE);
    st_level_destroy(l);
}

static void test_read_write_rect(void **state) {
    (void)state;
    st_level *l = coordinate_level(32, 16);
    st_rect r = {5, 3, 12, 9};
    uint8_t h[7 * 6], m[7 * 6];
    assert_true(st_level_read_rect(l, r, h, m));
    for (uint32_t y = 0; y < 6; y++)
        for (uint32_t x = 0; x < 7; x++) {
            assert_int_equal(h[y * 7 + x], (uint8_t)(x + 5 + 7 * (y + 3)));
            assert_int_equal(m[y * 7 + x], (uint8_t)(3 * (x + 5) + y + 3));
        }
    /* written back one texel over: only the rect changes */
    for (size_t i = 0; i < sizeof h; i++) h[i] = (uint8_t)(h[i] ^ 0x5A);
    st_rect r2 = {6, 3, 13, 9};
    assert_true(st_level_write_rect(l, r2, h, m));
    for (uint32_t y = 0; y < 16; y++)
        for (uint32_t x = 0; x < 32; x++) {
            bool in = x >= 6 && x < 13 && y >= 3 && y < 9;
            uint8_t want_h = in ? (uint8_t)((x - 1 + 7 * y) ^ 0x5A) : (uint8_t)(x + 7 * y);
            uint8_t want_m = in ? (uint8_t)(3 * (x - 1) + y) : (uint8_t)(3 * x + y);
            assert_int_equal(st_level_height_row(l, y)[x], want_h);
            assert_int_equal(st_level_meta_row(l, y)[x], want_m);
        }
    assert_false(st_level_read_rect(l, (st_rect){30, 0, 33, 2}, h, m));
    assert_false(st_level_write_rect(l, (st_rect){0, -1, 2, 2}, h, m));
    assert_false(st_level_write_rect(l, (st_rect){3, 3, 3, 5}, h, m));
    st_level_destroy(l);
}

static void test_copy_texels(void **state) {
    (void)state;
    st_level *a = coordinate_level(32, 16), *b = test_flat_level(32, 16, 9), *c = test_flat_level(16, 16, 9);
    snprintf(b->name, sizeof b->name, "kept");
    assert_true(st_level_copy_texels(b, a));
    assert_memory_equal(b->heights, a->heights, 32 * 16);
    assert_memory_equal(b->meta, a->meta, 32 * 16);
    assert_string_equal(b->name, "kept");
    assert_false(st_level_copy_texels(c, a)); /* sizes differ: nothing copied */
    assert_int_equal(c->heights[17], 9);
    st_level_destroy(a);
    st_level_destroy(b);
    st_level_destroy(c);
}

/* Past the edge of an axis that does not wrap there is nothing: no SOLID at any height (not even below 0), the
 * texel `outside`; along a wrapping axis the level repeats. A clone keeps the flags. */
static void test_bounded_axes(void **state) {
    (void)state;
    st_level *l = test_flat_level(32, 16, 40);
    assert_true(l->wrap_x && l->wrap_y); /* a new level wraps, as every Vangers world */
    assert_true(st_level_solid(l, 40.5f, 3.5f, 20) && st_level_solid(l, -3.5f, -20.5f, -100));
    l->wrap_x = false;
    const float xs[4] = {-0.5f, -100.0f, 32.0f, 70.25f};
    for (int i = 0; i < 4; i++)
        for (float z = -300; z <= 300; z += 0.5f)
            if (st_level_solid(l, xs[i], 3.5f, z)) fail_msg("solid at (%g, 3.5, %g) past the x edge", xs[i], z);
    assert_true(st_level_texel(l, 32, 3).outside && !st_level_texel(l, 31, 3).outside);
    assert_false(st_level_contains(l, -1, 0));
    assert_true(st_level_contains(l, 0, -1)); /* y still wraps */
    assert_true(st_level_solid(l, 3.5f, -20.5f, 40) && st_level_solid(l, 31.9f, 0, 0));
    st_level *c = NULL;
    assert_st_ok(st_level_clone(l, &c, err));
    assert_true(!c->wrap_x && c->wrap_y);
    c->wrap_y = false;
    assert_false(st_level_solid(c, 3.5f, 16.0f, 0));
    st_level_destroy(c);
    st_level_destroy(l);
}

/* The rectangle list keeps ST_RECT_LIST_MAX rectangles apart and skips empty ones and those inside one it holds (a
 * rectangle holding some takes their places); full, it merges the two whose box grows least — a rectangle beside
 * one it holds merges with that one, far from the rest, and every texel added stays covered. */
static void test_rect_list(void **state) {
    (void)state;
    st_rect_list list = {0};
    st_rect_list_add(&list, (st_rect){5, 5, 5, 9});
    assert_int_equal(list.count, 0);
    for (int i = 0; i < ST_RECT_LIST_MAX; i++) st_rect_list_add(&list, (st_rect){100 * i, 7, 100 * i + 3, 9});
    assert_int_equal(list.count, ST_RECT_LIST_MAX);
    for (int i = 0; i < ST_RECT_LIST_MAX; i++) {
        st_rect r = list.rect[i];
        assert_true(r.x0 == 100 * i && r.x1 == 100 * i + 3 && r.y0 == 7 && r.y1 == 9);
    }
    st_rect_list_add(&list, (st_rect){301, 8, 302, 9}); /* inside the fourth */
    assert_int_equal(list.count, ST_RECT_LIST_MAX);
    st_rect_list_add(&list, (st_rect){503, 7, 506, 9}); /* beside the sixth: the two become (500, 7)-(506, 9) */
    assert_int_equal(list.count, ST_RECT_LIST_MAX);
    int64_t area = 0;
    bool merged = false;
    for (uint32_t i = 0; i < list.count; i++) {
        st_rect r = list.rect[i];
        area += (int64_t)(r.x1 - r.x0) * (r.y1 - r.y0);
        merged |= r.x0 == 500 && r.x1 == 506 && r.y0 == 7 && r.y1 == 9;
    }
    assert_true(merged);
    assert_int_equal(area, (ST_RECT_LIST_MAX + 1) * 6); /* the box added no texel */
    st_rect_list_add(&list, (st_rect){-10, 0, 2000, 20}); /* holds them all: the one left */
    assert_int_equal(list.count, 1);
    assert_true(list.rect[0].x0 == -10 && list.rect[0].x1 == 2000);
}

/* Overlapping rectangles merge into their boxes until none overlap — a box that meets a third one neither of its
 * parts met merges with it too — apart and touching ones stay, empty ones go; every texel stays covered. */
static void test_rects_disjoint(void **state) {
    (void)state;
    st_rect r[6] = {{0, 0, 4, 4},     {3, 3, 8, 6}, /* overlap: box (0,0)-(8,6) */
                    {6, 0, 9, 1},                   /* meets that box only */
                    {8, 0, 10, 2},                  /* meets the grown box (6..9 × 0..1) */
                    {20, 20, 22, 22}, {30, 30, 30, 40}};
    uint32_t n = st_rects_disjoint(r, 6);
    assert_int_equal(n, 2);
    bool big = false, small = false;
    for (uint32_t i = 0; i < n; i++) {
        big |= r[i].x0 == 0 && r[i].y0 == 0 && r[i].x1 == 10 && r[i].y1 == 6;
        small |= r[i].x0 == 20 && r[i].y0 == 20 && r[i].x1 == 22 && r[i].y1 == 22;
    }
    assert_true(big && small);
    st_rect touching[2] = {{0, 0, 4, 4}, {4, 0, 8, 4}};
    assert_int_equal(st_rects_disjoint(touching, 2), 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounded_axes),
        cmocka_unit_test(test_dual_pair_decodes_both_texels),
        cmocka_unit_test(test_delta_split_and_clamps),
        cmocka_unit_test(test_wrap_x_and_y),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_solid_boundaries),
        cmocka_unit_test(test_dig_keeps_valid_and_dirty_rect),
        cmocka_unit_test(test_raise_keeps_valid),
        cmocka_unit_test(test_edit_rejects_bad_brushes),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_rows_and_planes),
        cmocka_unit_test(test_pack_pairs),
        cmocka_unit_test(test_read_write_rect),
        cmocka_unit_test(test_copy_texels),
        cmocka_unit_test(test_rect_list),
        cmocka_unit_test(test_rects_disjoint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
