/* The coarse levels of the two-interval field: conservative (every height solid in a fine texel is solid in the
 * coarse texel over it) on random levels, the generated world and a level three coarsenings deep; the cave under
 * a wide slab survives as a gap; single-valued terrain keeps each coarse texel's own highest floor; a valid
 * level comes out; a level too small is refused. */
#include <stdlib.h>
#include <string.h>

#include "strata/gen.h"
#include "support.h"

/* A valid level, else the test fails with why. */
static void expect_valid(const st_level *l) {
    st_error e = {0};
    if (!st_level_valid(l, &e)) fail_msg("coarse level not valid: %s", e.message);
}

/* Every solid (x, y, z) of fine is solid at (x/2, y/2, z) in coarse; returns the number of solid points checked. */
static uint64_t expect_conservative(const st_level *fine, const st_level *coarse) {
    uint64_t solid = 0;
    for (uint32_t y = 0; y < fine->height; y++)
        for (uint32_t x = 0; x < fine->width; x++) {
            st_texel f = st_level_texel(fine, (int)x, (int)y), c = st_level_texel(coarse, (int)x / 2, (int)y / 2);
            for (int z = 0; z <= 255; z++) {
                if (!st_texel_solid(f, (float)z)) continue;
                solid++;
                if (!st_texel_solid(c, (float)z))
                    fail_msg("fine (%u, %u) is solid at %d (low %u mid %u high %u%s), coarse (%u, %u) is not (low %u "
                             "mid %u high %u%s)",
                             x, y, z, f.low, f.mid, f.high, f.dual ? " dual" : "", x / 2, y / 2, c.low, c.mid, c.high,
                             c.dual ? " dual" : "");
            }
        }
    return solid;
}

static void test_random_levels_conservative(void **state) {
    (void)state;
    for (unsigned seed = 1; seed <= 4; seed++) {
        st_level *fine = test_random_level(128, 64, seed), *coarse = NULL;
        assert_st_ok(st_level_coarsen(fine, &coarse, err));
        assert_int_equal(coarse->width, 64);
        assert_int_equal(coarse->height, 32);
        expect_valid(coarse);
        assert_true(expect_conservative(fine, coarse) > 0);
        st_level_destroy(coarse);
        st_level_destroy(fine);
    }
}

static void test_generated_world_three_levels(void **state) {
    (void)state;
    st_gen_desc gd = {.seed = 4, .width = 512, .height = 512, .dual_percent = 20.0f};
    st_level *l0 = NULL;
    assert_st_ok(st_gen_world(&gd, &l0, err));
    st_level *prev = l0;
    for (int k = 0; k < 3; k++) {
        st_level *next = NULL;
        assert_st_ok(st_level_coarsen(prev, &next, err));
        expect_valid(next);
        expect_conservative(prev, next);
        assert_true(next->wrap_x == l0->wrap_x && next->wrap_y == l0->wrap_y);
        assert_memory_equal(next->palette, l0->palette, sizeof l0->palette);
        if (prev != l0) st_level_destroy(prev);
        prev = next;
    }
    /* conservative across levels too: a solid fine point is solid three levels up */
    for (uint32_t y = 0; y < 512; y += 7)
        for (uint32_t x = 0; x < 512; x += 5) {
            st_texel f = st_level_texel(l0, (int)x, (int)y), c = st_level_texel(prev, (int)x / 8, (int)y / 8);
            for (int z = 0; z <= 255; z++)
                if (st_texel_solid(f, (float)z)) assert_true(st_texel_solid(c, (float)z));
        }
    st_level_destroy(prev);
    st_level_destroy(l0);
}

static void test_slab_keeps_its_cave(void **state) {
    (void)state;
    st_level *fine = test_slab_level(), *coarse = NULL; /* floor 10, slab [90, 100] over x, y in [96, 160) */
    assert_st_ok(st_level_coarsen(fine, &coarse, err));
    expect_conservative(fine, coarse);
    for (int y = 48; y < 80; y++)
        for (int x = 48; x < 80; x++) {
            st_texel c = st_level_texel(coarse, x, y);
            assert_true(c.dual);
            assert_int_equal(c.low, 10);
            assert_int_equal(c.high, 100);
            assert_true(c.mid > 10 && c.mid <= 90); /* the cave: open between the floor and the slab */
            assert_false(st_texel_solid(c, 50.0f));
        }
    /* outside the slab: the flat floor as singles */
    st_texel c = st_level_texel(coarse, 10, 10);
    assert_false(c.dual);
    assert_int_equal(c.high, 10);
    st_level_destroy(coarse);
    st_level_destroy(fine);
}

static void test_single_valued_detail(void **state) {
    (void)state;
    st_level *fine = test_flat_level(8, 2, 0), *coarse = NULL;
    uint8_t heights[8] = {5, 9, 3, 4, 20, 1, 7, 7};
    for (int x = 0; x < 8; x++) st_level_set_single(fine, x, x % 2, heights[x], 1);
    assert_st_ok(st_level_coarsen(fine, &coarse, err));
    expect_conservative(fine, coarse);
    uint8_t want[4] = {9, 4, 20, 7}; /* the highest floor of each coarse texel's own 2×2 */
    for (int x = 0; x < 4; x++) {
        st_texel c = st_level_texel(coarse, x, 0);
        assert_false(c.dual);
        assert_int_equal(c.low, want[x]);
        assert_int_equal(c.low_type, 1);
    }
    st_level_destroy(coarse);
    st_level *tiny = test_flat_level(2, 2, 0);
    st_error e = {0};
    assert_int_equal(st_level_coarsen(tiny, &coarse, &e), ST_ERR_INVALID);
    st_level_destroy(tiny);
    st_level_destroy(fine);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_levels_conservative),
        cmocka_unit_test(test_generated_world_three_levels),
        cmocka_unit_test(test_slab_keeps_its_cave),
        cmocka_unit_test(test_single_valued_detail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
