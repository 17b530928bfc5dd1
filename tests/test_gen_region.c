/* Tests of the procedural world made region by region: random rectangles of worlds of several sizes, seeds and
 * dual shares equal the same rectangle of the whole generated world byte for byte (edges, wrap margins and whole
 * rows included), also where the landmark layout repeats in cells and where the dual threshold comes from the
 * sample; the sampled share lands near its target; worlds too large to hold come out deterministic, valid and
 * alike whatever rectangle asks for a texel, with each cell's landmarks where its variant puts them; reads
 * from many threads at once agree; bad regions, sizes and spellings are refused. */
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

/* Worlds wider than the default one repeat the landmark layout in columns of cells, mirrored and shifted (four
 * columns: each texel sees its column's neighbours, wrapping; two: the neighbours are one column), and taller
 * ones in rows of cells (the larger worlds take their threshold from the sample, to keep the test short). */
static void test_regions_equal_whole_tiled_layout(void **state) {
    (void)state;
    check_world((st_gen_desc){.seed = 17, .width = 8192, .height = 256, .exact_share_texels = 1}, 8, 6);
    check_world((st_gen_desc){.seed = 18, .width = 4096, .height = 256, .dual_percent = 8.0f}, 8, 7);
    check_world((st_gen_desc){.seed = 19, .width = 256, .height = 32768, .exact_share_texels = 1}, 8, 8);
}

/* Above exact_share_texels the threshold comes from the sample, in the whole world as in a region. */
static void test_regions_equal_whole_sampled_threshold(void **state) {
    (void)state;
    check_world((st_gen_desc){.seed = 23, .width = 512, .height = 512, .exact_share_texels = 1}, 16, 9);
    check_world((st_gen_desc){.seed = 24, .width = 1024, .height = 256, .dual_percent = 20.0f,
                              .exact_share_texels = 1u << 17},
                16, 10);
}

static double dual_share(const st_level *l) { return st_level_compute_stats(l).dual_fraction * 100.0; }

/* The sample's threshold gives about the share asked for, and differs from the exact one only a little. */
static void test_sampled_share_near_target(void **state) {
    (void)state;
    const float targets[] = {5.0f, 20.0f};
    for (int i = 0; i < 2; i++) {
        st_gen_desc d = {.seed = 31u + (uint64_t)i, .width = 1024, .height = 2048, .dual_percent = targets[i],
                         .exact_share_texels = 1};
        st_level *l = NULL;
        st_error err = {0};
        assert_int_equal(st_gen_world(&d, &l, &err), ST_OK);
        double got = dual_share(l);
        if (fabs(got - targets[i]) > 1.0) fail_msg("sampled dual share %.3f%% for %g%%", got, (double)targets[i]);
        assert_true(st_level_valid(l, NULL));
        st_level_destroy(l);
    }
}

/* A level holding one read region, for the level's own checks. */
static st_level *region_level(st_gen_source *s, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h) {
    st_level *l = NULL;
    st_error err = {0};
    if (st_level_create(w, h, &l, &err)) fail_msg("%s", err.message);
    uint8_t *hh, *mm;
    st_level_planes_mut(l, &hh, &mm);
    if (st_gen_source_read(s, x0, y0, w, h, hh, mm, &err)) fail_msg("read (%u, %u): %s", x0, y0, err.message);
    return l;
}

/* A world of 65,536² and one of 2^20 × 2^20: tiles come out valid, with water, slabs and a sensible share, the
 * same from a second source, different for another seed, and a texel is the same whatever rectangle (and so
 * whatever margins, blocks and cell pieces) it is read in, at the world's far corner and across cell edges. */
static void test_huge_worlds(void **state) {
    (void)state;
    const uint32_t sides[] = {65536, ST_GEN_MAX_SIDE};
    uint64_t water = 0;
    for (int k = 0; k < 2; k++) {
        uint32_t side = sides[k];
        st_gen_desc d = {.seed = 77, .width = side, .height = side};
        st_gen_source *a = source(&d), *b = k ? NULL : source(&d);
        d.seed = 78;
        st_gen_source *other = k ? NULL : source(&d);
        uint64_t dual = 0, texels = 0;
        srand(11);
        for (int t = 0; t < (side > 65536 ? 2 : 4); t++) {
            uint32_t x0 = 256 * ((uint32_t)rand() % (side / 256)), y0 = 256 * ((uint32_t)rand() % (side / 256));
            if (t == 0) x0 = y0 = side - 256; /* the far corner: margins wrap to 0 */
            if (t == 1) x0 = 2048 - 128, y0 = 16384 - 128; /* across a cell's corner */
            st_level *la = region_level(a, x0, y0, 256, 256);
            assert_true(st_level_valid(la, NULL));
            if (b && t < 2) {
                st_level *lb = region_level(b, x0, y0, 256, 256), *lo = region_level(other, x0, y0, 256, 256);
                assert_memory_equal(la->heights, lb->heights, 256 * 256);
                assert_memory_equal(la->meta, lb->meta, 256 * 256);
                assert_true(memcmp(la->heights, lo->heights, 256 * 256) != 0);
                st_level_destroy(lb);
                st_level_destroy(lo);
            }
            /* the same texels inside a larger, offset read and a thin one */
            uint8_t big_h[300 * 290], big_m[300 * 290], thin_h[2 * 256], thin_m[2 * 256];
            st_error err = {0};
            uint32_t bx = x0 >= 22 ? x0 - 22 : x0, by = y0 >= 17 ? y0 - 17 : y0;
            if (bx + 300 > side) bx = side - 300;
            if (by + 290 > side) by = side - 290;
            assert_int_equal(st_gen_source_read(a, bx, by, 300, 290, big_h, big_m, &err), ST_OK);
            assert_int_equal(st_gen_source_read(a, x0 + 100, y0, 2, 256, thin_h, thin_m, &err), ST_OK);
            for (uint32_t j = 0; j < 256; j++) {
                for (uint32_t i = 0; i < 256; i++) {
                    uint32_t X = x0 + i, Y = y0 + j;
                    if (X >= bx && X < bx + 300 && Y >= by && Y < by + 290) {
                        size_t q = (size_t)(Y - by) * 300 + (X - bx);
                        if (big_h[q] != la->heights[j * 256 + i] || big_m[q] != la->meta[j * 256 + i])
                            fail_msg("%u²: texel (%u, %u) differs between two reads", side, X, Y);
                    }
                }
                assert_memory_equal(thin_h + 2 * j, la->heights + j * 256 + 100, 2);
                assert_memory_equal(thin_m + 2 * j, la->meta + j * 256 + 100, 2);
            }
            st_level_stats s = st_level_compute_stats(la);
            dual += (uint64_t)(s.dual_fraction * 65536.0 + 0.5);
            water += s.type_histogram[0];
            texels += 65536;
            assert_true(s.max_height <= 250);
            st_level_destroy(la);
        }
        double share = 100.0 * (double)dual / (double)texels;
        if (share < 2.0 || share > 30.0) fail_msg("%u²: %.2f%% dual over the tiles", side, share);
        st_gen_source_destroy(a);
        st_gen_source_destroy(b);
        st_gen_source_destroy(other);
    }
    assert_true(water > 0);
}

/* The hangar's signature at (x, y): the hall's dual pair just inside the opening, floor 44, roof 132. */
static bool hangar_at(st_gen_source *s, uint32_t x, uint32_t y) {
    uint8_t hh[16 * 4], mm[16 * 4];
    st_error err = {0};
    if (st_gen_source_read(s, x, y, 16, 4, hh, mm, &err)) fail_msg("%s", err.message);
    st_level l = {.width = 16, .height = 4, .heights = hh, .meta = mm, .terrain_types = 8};
    st_texel t = st_level_texel(&l, 4, 0);
    return t.dual && t.low == 44 && t.high == 132 && t.mid - t.low >= 64;
}

/* In a world of columns of cells, every cell has its hangar where its column's variant puts it (mirrored or not,
 * shifted down by eighths of a cell), exactly one of the sixteen places, the same in every cell of the column;
 * and the columns do not all share one variant. */
static void test_tiled_cells_keep_the_landmarks(void **state) {
    (void)state;
    st_gen_source *s = source(&(st_gen_desc){.seed = 5, .width = 16384, .height = 32768});
    int mirrored = 0, shifts = 0;
    for (uint32_t col = 0; col < 8; col++) {
        int found = -1;
        for (uint32_t crow = 0; crow < 2; crow++) {
            int here = -1, count = 0;
            for (int v = 0; v < 16; v++) {
                uint32_t x = col * 2048 + ((v & 1) ? 2048 - 1500 : 1500);
                uint32_t y = crow * 16384 + (4100 + (uint32_t)(v >> 1) * 2048) % 16384;
                if (hangar_at(s, x, y)) here = v, count++;
            }
            if (count != 1) fail_msg("column %u, cell row %u: %d hangars at the variants' places", col, crow, count);
            if (crow == 0) found = here;
            else assert_int_equal(here, found);
        }
        mirrored += found & 1;
        shifts |= 1 << (found >> 1);
    }
    assert_true(mirrored > 0 && mirrored < 8);
    assert_true(shifts != 1);
    st_gen_source_destroy(s);
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

static void test_spelling(void **state) {
    (void)state;
    st_gen_desc d;
    st_error err = {0};
    assert_int_equal(st_gen_parse("gen:multi:7:65536x65536", &d, &err), ST_OK);
    assert_true(d.seed == 7 && d.width == 65536 && d.height == 65536 && d.dual_percent == 11.0f);
    assert_int_equal(st_gen_parse("gen:multi:18446744073709551615:256x1048576:2.5", &d, &err), ST_OK);
    assert_true(d.seed == UINT64_MAX && d.height == ST_GEN_MAX_SIDE && d.dual_percent == 2.5f);
    assert_int_equal(st_gen_parse("gen:multi:3:512x256:none", &d, &err), ST_OK);
    assert_true(d.dual_percent < 0);
    const char *bad[] = {
        NULL, "", "gen:7:256x256", "gen:multi:", "gen:multi:0:256x256", "gen:multi:-1:256x256",
        "gen:multi:+1:256x256", "gen:multi:18446744073709551616:256x256", "gen:multi:1:0x0", "gen:multi:1:256x0",
        "gen:multi:1:300x256", "gen:multi:1:128x256", "gen:multi:1:2097152x256", "gen:multi:1:4294967296x256",
        "gen:multi:1:256x256x", "gen:multi:1:256X256", "gen:multi:1: 256x256", "gen:multi:1:256x256:",
        "gen:multi:1:256x256:0", "gen:multi:1:256x256:31", "gen:multi:1:256x256:-5", "gen:multi:1:256x256:nan",
        "gen:multi:1:256x256:5%", "gen:multi:1:256x256:5:6", "gen:multi:1:256x256junk", "gen:multi:1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = (st_error){0};
        if (st_gen_parse(bad[i], &d, &err) != ST_ERR_INVALID) fail_msg("'%s' was taken", bad[i] ? bad[i] : "(null)");
        assert_true(err.message[0] != 0);
        assert_null(strchr(err.message, '\n'));
    }
}

static void test_bad_sizes_refused(void **state) {
    (void)state;
    st_gen_source *s = NULL;
    st_error err = {0};
    st_gen_desc bad[] = {
        {.width = 128, .height = 512}, {.width = 300, .height = 512}, {.width = 512, .height = 3u << 10},
        {.width = 2 * ST_GEN_MAX_SIDE, .height = 256}, {.width = 256, .height = 1u << 31}, {.width = 256, .height = 3},
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
        cmocka_unit_test(test_regions_equal_whole_tiled_layout),
        cmocka_unit_test(test_regions_equal_whole_sampled_threshold),
        cmocka_unit_test(test_sampled_share_near_target),
        cmocka_unit_test(test_huge_worlds),
        cmocka_unit_test(test_tiled_cells_keep_the_landmarks),
        cmocka_unit_test(test_parallel_reads_agree),
        cmocka_unit_test(test_bad_regions_refused),
        cmocka_unit_test(test_spelling),
        cmocka_unit_test(test_bad_sizes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
