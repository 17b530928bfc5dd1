/* Tests of the procedural world: determinism (per seed, per thread count), the dual share hitting its
 * setting, validity, materials and water, the height range, landmark geometry, and size checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "strata/gen.h"
#include "support.h"

static st_level *gen(uint64_t seed, uint32_t w, uint32_t h, float dual) {
    st_gen_desc d = {.seed = seed, .width = w, .height = h, .dual_percent = dual};
    st_level *l = NULL;
    st_error err = {0};
    if (st_gen_world(&d, &l, &err) != ST_OK) fail_msg("st_gen_world: %s", err.message);
    return l;
}

static unsigned long planes_crc(const st_level *l) {
    size_t n = (size_t)l->width * l->height;
    unsigned long c = crc32(0L, l->heights, (uInt)n);
    return crc32(c, l->meta, (uInt)n);
}

static void test_deterministic_per_seed(void **state) {
    (void)state;
    st_level *a = gen(7, 256, 512, 0), *b = gen(7, 256, 512, 0), *c = gen(8, 256, 512, 0);
    size_t n = 256 * 512;
    assert_memory_equal(a->heights, b->heights, n);
    assert_memory_equal(a->meta, b->meta, n);
    assert_true(memcmp(a->heights, c->heights, n) != 0);
    st_level_destroy(a);
    st_level_destroy(b);
    st_level_destroy(c);
}

/* The same world from a process whose job pool has one thread (STRATA_THREADS is read at pool start). */
static void test_deterministic_across_threads(void **state) {
    (void)state;
    st_level *l = gen(11, 512, 1024, 0);
    unsigned long here = planes_crc(l);
    st_level_destroy(l);
    char cmd[4200];
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) skip();
    self[k] = 0;
    snprintf(cmd, sizeof cmd, "STRATA_THREADS=1 '%s' --crc 11 512 1024", self);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    unsigned long there = 0;
    int got = fscanf(p, "%lu", &there);
    pclose(p);
    assert_int_equal(got, 1);
    assert_int_equal(here, there);
}

static void check_dual_share(float percent) {
    st_level *l = gen(0, 512, 1024, percent);
    st_level_stats s = st_level_compute_stats(l);
    double got = s.dual_fraction * 100.0;
    if (fabs(got - percent) > 1.0) fail_msg("dual share %.3f%% for a setting of %.1f%%", got, (double)percent);
    assert_true(st_level_valid(l, NULL));
    st_level_destroy(l);
}

static void test_dual_share_5(void **state) {
    (void)state;
    check_dual_share(5.0f);
}

static void test_dual_share_11(void **state) {
    (void)state;
    check_dual_share(11.0f);
}

static void test_dual_share_20_other_seed_and_shape(void **state) {
    (void)state;
    st_level *l = gen(12345, 1024, 256, 20.0f);
    double got = st_level_compute_stats(l).dual_fraction * 100.0;
    if (fabs(got - 20.0) > 1.0) fail_msg("dual share %.3f%% for 20%%", got);
    st_level_destroy(l);
}

static void test_no_dual_when_negative(void **state) {
    (void)state;
    st_level *l = gen(0, 256, 512, -1.0f);
    assert_true(st_level_compute_stats(l).dual_fraction == 0.0);
    assert_true(st_level_valid(l, NULL));
    st_level_destroy(l);
}

static void test_world_properties(void **state) {
    (void)state;
    st_level *l = gen(0, 512, 1024, 0);
    assert_true(st_level_valid(l, NULL));
    uint64_t seen[8] = {0};
    uint64_t dual = 0, gaps = 0;
    for (uint32_t y = 0; y < l->height; y++) {
        for (uint32_t x = 0; x < l->width; x++) {
            st_texel t = st_level_texel(l, (int)x, (int)y);
            seen[t.high_type & 7]++;
            seen[t.low_type & 7]++;
            /* water is at height 0 and height 0 is water */
            if (t.low_type == 0 && t.low != 0) fail_msg("water floor at (%u,%u) has height %u", x, y, t.low);
            if (t.high_type == 0 && t.high != 0) fail_msg("water at (%u,%u) has height %u", x, y, t.high);
            if (!t.dual && t.high == 0 && t.high_type != 0) fail_msg("dry height 0 at (%u,%u)", x, y);
            if (t.dual) {
                dual++;
                /* every slab is real: a cave of at least 8 and a roof above it */
                if (t.mid < t.low + 8 || t.high <= t.mid) gaps++;
                if ((t.mid - t.low) % 8 != 0) fail_msg("cave gap at (%u,%u) not a multiple of 8", x, y);
            }
        }
    }
    for (int m = 0; m < 8; m++)
        if (!seen[m]) fail_msg("material %d is never used", m);
    assert_true(dual > 0);
    assert_int_equal(gaps, 0);
    st_level_stats s = st_level_compute_stats(l);
    assert_int_equal(s.min_height, 0);
    assert_true(s.max_height >= 200);
    assert_true(s.max_height <= 255);
    /* water covers a sensible share: rivers and basins, not an ocean */
    double water = (double)s.type_histogram[0] / ((double)l->width * l->height);
    assert_true(water > 0.02 && water < 0.25);
    st_level_destroy(l);
}

/* The hangar of the catalogue: the hall of a dual texel with a tall gap right behind the opening, an open
 * side at floor height in front, a solid wall at roof height behind. Positions scale like the views. */
static void test_hangar_where_catalogued(void **state) {
    (void)state;
    st_level *l = gen(0, 512, 1024, 0);
    int ox = (int)(1500.0f * 512 / 2048) & ~1, oy = (int)(4100.0f * 1024 / 16384);
    st_texel in = st_level_texel(l, ox + 4, oy);
    assert_true(in.dual);
    assert_true(in.mid - in.low >= 64);
    assert_true(in.high > in.mid);
    st_texel front = st_level_texel(l, ox - 4, oy);
    assert_false(front.dual);
    assert_int_equal(front.high, in.low); /* the apron is level with the hall floor: open */
    bool wall = false;
    for (int x = ox + 4; x < ox + 64 && !wall; x++) {
        st_texel t = st_level_texel(l, x, oy);
        wall = !t.dual && t.high >= in.high;
    }
    assert_true(wall);
    /* the side is closed: a column above the cave ceiling beside the hall */
    bool side = false;
    for (int y = oy; y < oy + 40 && !side; y++) {
        st_texel t = st_level_texel(l, ox + 6, y);
        side = !t.dual && t.high >= in.high;
    }
    assert_true(side);
    st_level_destroy(l);
}

static void test_rejects_bad_sizes(void **state) {
    (void)state;
    st_level *l = NULL;
    st_error err = {0};
    st_gen_desc d = {.width = 128, .height = 512};
    assert_int_equal(st_gen_world(&d, &l, &err), ST_ERR_INVALID);
    assert_null(l);
    assert_non_null(strstr(err.message, "256"));
    d = (st_gen_desc){.width = 300, .height = 512};
    assert_int_equal(st_gen_world(&d, &l, &err), ST_ERR_INVALID);
    d = (st_gen_desc){.width = 1u << 17, .height = 512};
    assert_int_equal(st_gen_world(&d, &l, &err), ST_ERR_INVALID);
    d = (st_gen_desc){.width = 256, .height = 256, .dual_percent = 75.0f};
    assert_int_equal(st_gen_world(&d, &l, &err), ST_ERR_INVALID);
    d = (st_gen_desc){.width = 256, .height = 256, .dual_percent = NAN};
    assert_int_equal(st_gen_world(&d, &l, &err), ST_ERR_INVALID);
    assert_null(l);
}

/* The generator's output pinned (CRC-32 of heights then metadata), so that a change of how it computes (the
 * terrain pass split among bands or workers, a faster noise) cannot move the world unseen. Change them only with a
 * change meant to change the world. */
static void test_output_pinned(void **state) {
    (void)state;
    static const struct {
        uint64_t seed;
        uint32_t w, h;
        float dual;
        unsigned long crc;
    } pins[] = {
        {1998, 512, 512, 0, 0x7187de7eul},      /* the web test's world */
        {11, 512, 1024, 0, 0x9be6ba40ul},
        {7, 256, 512, -1.0f, 0x6a700bd9ul},     /* no slabs */
        {9, 1024, 2048, 20.0f, 0x16260200ul},
        {0, 0, 0, 0, 0x7cc99745ul},             /* the default world (seed 1998, 2048x16384, 11 % dual) */
    };
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
        st_level *l = gen(pins[i].seed, pins[i].w, pins[i].h, pins[i].dual);
        unsigned long c = planes_crc(l);
        st_level_destroy(l);
        if (c != pins[i].crc)
            fail_msg("world %llu %ux%u: CRC %08lx, pinned %08lx", (unsigned long long)pins[i].seed, pins[i].w,
                     pins[i].h, c, pins[i].crc);
    }
}

int main(int argc, char **argv) {
    if (argc == 5 && !strcmp(argv[1], "--crc")) { /* helper mode for the thread-count test */
        st_level *l = gen(strtoull(argv[2], NULL, 10), (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]), 0);
        printf("%lu\n", planes_crc(l));
        st_level_destroy(l);
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic_per_seed),
        cmocka_unit_test(test_deterministic_across_threads),
        cmocka_unit_test(test_dual_share_5),
        cmocka_unit_test(test_dual_share_11),
        cmocka_unit_test(test_dual_share_20_other_seed_and_shape),
        cmocka_unit_test(test_no_dual_when_negative),
        cmocka_unit_test(test_world_properties),
        cmocka_unit_test(test_hangar_where_catalogued),
        cmocka_unit_test(test_rejects_bad_sizes),
        cmocka_unit_test(test_output_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
