/* Tests of the procedural world made region by region: random rectangles of worlds of several sizes, seeds and
 * dual shares equal the same rectangle of the whole generated world byte for byte (edges, wrap margins and whole
 * rows included), reads from many threads at once agree, and bad regions and sizes are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/gen.h"
#include "support.h"

static st_gen_source *source(const st_gen_desc *d) {
    st_gen_source *s = NULL;
    st_error err = {0};
    if (st_gen_source_create(d, &s, &err)) fail_msg("st_gen_source_create: %s", err.message);
    return s;
}

/* Reads the rectangle from the source and compares it with the whole world's bytes there. */
static void check_rect(st_gen_source *s, const st_level *l, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h) {
    uint8_t *hh = malloc((size_t)w * h), *mm = malloc((size_t)w * h);
    assert_non_null(hh);
    assert_non_null(mm);
    st_error err = {0};
    if (st_gen_source_read(s, x0, y0, w, h, hh, mm, &err)) fail_msg("read %ux%u at (%u, %u): %s", w, h, x0, y0, err.message);
    for (uint32_t j = 0; j < h; j++) {
        const uint8_t *lh = st_level_height_row(l, y0 + j) + x0, *lm = st_level_meta_row(l, y0 + j) + x0;
        for (uint32_t i = 0; i < w; i++)
            if (hh[(size_t)j * w + i] != lh[i] || mm[(size_t)j * w + i] != lm[i])
                fail_msg("%s: region %ux%u at (%u, %u) differs at texel (%u, %u): %u/%02x, the whole world %u/%02x",
                         l->name, w, h, x0, y0, x0 + i, y0 + j, hh[(size_t)j * w + i], mm[(size_t)j * w + i], lh[i], lm[i]);
    }
    free(hh);
    free(mm);
}

static void check_world(st_gen_desc d, unsigned rects, unsigned seed) {
    st_level *l = NULL;
    st_error err = {0};
    if (st_gen_world(&d, &l, &err)) fail_msg("st_gen_world: %s", err.message);
    st_gen_source *s = source(&d);
    assert_string_equal(st_gen_source_name(s), l->name);
    srand(seed);
    uint32_t W = l->width, H = l->height;
    /* the corners and edges, where the margins wrap around the world */
    check_rect(s, l, 0, 0, 64, 32);
    check_rect(s, l, W - 64, H - 32, 64, 32);
    check_rect(s, l, W - 2, 0, 2, 1);
    check_rect(s, l, 0, H - 1, W, 1); /* one whole row: the margin wraps onto the rectangle itself */
    for (unsigned k = 0; k < rects; k++) {
        uint32_t w = 2 * (1 + (uint32_t)rand() % 160), h = 1 + (uint32_t)rand() % 300;
        if (w > W) w = W;
        if (h > H) h = H;
        uint32_t x0 = 2 * ((uint32_t)rand() % ((W - w) / 2 + 1)), y0 = (uint32_t)rand() % (H - h + 1);
        check_rect(s, l, x0, y0, w, h);
    }
    st_gen_source_destroy(s);
    st_level_destroy(l);
}

static void test_regions_equal_whole_default_share(void **state) {
    (void)state;
    check_world((st_gen_desc){.seed = 7, .width = 256, .height = 256}, 24, 1);
    check_world((st_gen_desc){.seed = 11, .width = 512, .height = 1024}, 24, 2);
}

static void test_regions_equal_whole_other_shares(void **state) {
    (void)state;
    check_world((st_gen_desc){.seed = 12345, .width = 1024, .height = 256, .dual_percent = 20.0f}, 24, 3);
    check_world((st_gen_desc){.seed = 3, .width = 256, .height = 512, .dual_percent = 5.0f}, 16, 4);
    check_world((st_gen_desc){.seed = 5, .width = 256, .height = 1024, .dual_percent = -1.0f}, 16, 5);
}

/* The whole world as one read, and a region of the embedded default world's shape at a smaller scale. */
static void test_region_is_whole_world(void **state) {
    (void)state;
    st_gen_desc d = {.seed = 99, .width = 256, .height = 2048};
    st_level *l = NULL;
    st_error err = {0};
    assert_int_equal(st_gen_world(&d, &l, &err), ST_OK);
    st_gen_source *s = source(&d);
    check_rect(s, l, 0, 0, 256, 2048);
    st_gen_source_destroy(s);
    st_level_destroy(l);
}

typedef struct parallel_reads {
    st_gen_source *s;
    const st_level *l;
    _Atomic int failures;
} parallel_reads;

static void read_some(void *user, size_t begin, size_t end) {
    parallel_reads *p = user;
    for (size_t i = begin; i < end; i++) {
        uint32_t x0 = (uint32_t)(i * 64) % p->l->width, y0 = (uint32_t)(i * 97) % (p->l->height - 48);
        uint8_t hh[64 * 48], mm[64 * 48];
        st_error err = {0};
        if (st_gen_source_read(p->s, x0, y0, 64, 48, hh, mm, &err)) {
            p->failures++;
            continue;
        }
        for (uint32_t j = 0; j < 48; j++)
            if (memcmp(hh + j * 64, st_level_height_row(p->l, y0 + j) + x0, 64) ||
                memcmp(mm + j * 64, st_level_meta_row(p->l, y0 + j) + x0, 64))
                p->failures++;
    }
}

/* Many threads read at once, the first reads racing to make the threshold. */
static void test_parallel_reads_agree(void **state) {
    (void)state;
    st_gen_desc d = {.seed = 21, .width = 512, .height = 512, .dual_percent = 15.0f};
    st_level *l = NULL;
    st_error err = {0};
    assert_int_equal(st_gen_world(&d, &l, &err), ST_OK);
    parallel_reads p = {.s = source(&d), .l = l};
    st_parallel_for(64, 1, read_some, &p);
    assert_int_equal(p.failures, 0);
    st_gen_source_destroy(p.s);
    st_level_destroy(l);
}

static void test_bad_regions_refused(void **state) {
    (void)state;
    st_gen_source *s = source(&(st_gen_desc){.seed = 1, .width = 256, .height = 256});
    uint8_t hh[4096], mm[4096];
    st_error err = {0};
    assert_int_equal(st_gen_source_read(s, 1, 0, 2, 2, hh, mm, &err), ST_ERR_INVALID); /* odd start */
    assert_non_null(strstr(err.message, "even"));
    assert_int_equal(st_gen_source_read(s, 0, 0, 3, 2, hh, mm, &err), ST_ERR_INVALID);     /* odd width */
    assert_int_equal(st_gen_source_read(s, 0, 0, 0, 2, hh, mm, &err), ST_ERR_INVALID);     /* empty */
    assert_int_equal(st_gen_source_read(s, 0, 0, 2, 0, hh, mm, &err), ST_ERR_INVALID);
    assert_int_equal(st_gen_source_read(s, 254, 0, 4, 2, hh, mm, &err), ST_ERR_INVALID);   /* past the edge */
    assert_int_equal(st_gen_source_read(s, 0, 255, 2, 2, hh, mm, &err), ST_ERR_INVALID);
    assert_int_equal(st_gen_source_read(s, 0xFFFFFFFEu, 0, 4, 2, hh, mm, &err), ST_ERR_INVALID); /* wraps uint32 */
    st_gen_source_destroy(s);
    s = source(&(st_gen_desc){.seed = 1, .width = ST_GEN_MAX_SIDE, .height = ST_GEN_MAX_SIDE});
    assert_int_equal(st_gen_source_read(s, 0, 0, 8192, 8192, NULL, NULL, &err), ST_ERR_INVALID); /* too many texels */
    assert_non_null(strstr(err.message, "at most"));
    st_gen_source_destroy(s);
}

static void test_bad_sizes_refused(void **state) {
    (void)state;
    st_gen_source *s = NULL;
    st_error err = {0};
    st_gen_desc bad[] = {
        {.width = 128, .height = 512}, {.width = 300, .height = 512}, {.width = 512, .height = 3u << 10},
        {.width = 2 * ST_GEN_MAX_SIDE, .height = 256}, {.width = 256, .height = 1u << 31},
        {.width = 256, .height = 256, .dual_percent = 75.0f}, {.width = 256, .height = 256, .dual_percent = NAN},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(st_gen_source_create(&bad[i], &s, &err), ST_ERR_INVALID);
        assert_null(s);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regions_equal_whole_default_share),
        cmocka_unit_test(test_regions_equal_whole_other_shares),
        cmocka_unit_test(test_region_is_whole_world),
        cmocka_unit_test(test_parallel_reads_agree),
        cmocka_unit_test(test_bad_regions_refused),
        cmocka_unit_test(test_bad_sizes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
