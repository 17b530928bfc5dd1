/* GPU tests of the air tables that ray-compute and slice-compute share (lavapipe, validation on): a frame's edits
 * far apart rebuild the cells over each of them, not over the box between them, and after random edits (single,
 * several, more than the list keeps apart, across the wrapping edges) the tables equal those a renderer made
 * afresh on the edited level builds whole, word for word. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/methods.h"
#include "strata/render.h"
#include "support.h"

static uint32_t *read_tables(st_renderer *r, const st_air_tables *t) {
    uint64_t n = st_air_tables_words(r);
    uint32_t *words = malloc(n * 4);
    assert_non_null(words);
    assert_st_ok(st_air_tables_read(r, t, words, err));
    return words;
}

/* Marks each rectangle of `rects` (without changing the level: a rebuild of unchanged cells writes what they hold)
 * and draws one frame: the cells that frame rebuilt. */
static uint64_t frame_cells(st_engine *e, st_renderer *r, const st_air_tables *t, const st_rect *rects, int n) {
    for (int i = 0; i < n; i++) assert_st_ok(st_engine_update_level(e, rects[i], err));
    st_camera cam = {.position = {100, 100, 250}, .pitch_deg = -60};
    assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
    return t->last_cells;
}

/* Two small edits at opposite corners of a 1024² level in one frame: the rebuild is the cells of the two edits
 * (each alone, summed: their cells are apart in all three tables), not those of the box spanning the level. */
static void test_far_edits_rebuild_their_cells(void **state) {
    (void)state;
    st_level *l = test_random_level(1024, 1024, 7);
    st_engine *e = test_engine(l);
    st_renderer *r = test_renderer(e, "ray-compute", 16, 16, NULL);
    const st_air_tables *t = st_ray_compute_air(r);
    assert_non_null(t);
    const st_rect a = {100, 120, 110, 127}, b = {880, 900, 891, 905};
    uint64_t only_a = frame_cells(e, r, t, &a, 1), only_b = frame_cells(e, r, t, &b, 1);
    const st_rect both[2] = {a, b};
    uint64_t together = frame_cells(e, r, t, both, 2);
    uint64_t idle = frame_cells(e, r, t, NULL, 0);
    print_message("cells rebuilt: %llu for one edit, %llu for the other, %llu for both in one frame\n",
                  (unsigned long long)only_a, (unsigned long long)only_b, (unsigned long long)together);
    assert_true(only_a > 0 && only_b > 0);
    assert_int_equal(idle, 0);
    if (together != only_a + only_b)
        fail_msg("two far edits in one frame rebuilt %llu cells; apart they rebuild %llu and %llu",
                 (unsigned long long)together, (unsigned long long)only_a, (unsigned long long)only_b);
    st_renderer_destroy(r);
    test_engine_finish(e, l);
}

/* Rounds of random digs and raises (1 to 40 a frame, so past the list's ST_RECT_LIST_MAX too, some across the
 * level's edges where the cells wrap): after each frame the tables equal, word for word, those of a renderer made
 * on the edited level (its tables built whole at create). */
static void test_random_edits_equal_full_build(void **state) {
    (void)state;
    const uint32_t w = 512, h = 256;
    st_level *l = test_random_level(w, h, 31);
    st_engine *e = test_engine(l);
    st_renderer *r = test_renderer(e, "ray-compute", 16, 16, NULL);
    const st_air_tables *t = st_ray_compute_air(r);
    assert_non_null(t);
    uint64_t words = st_air_tables_words(r);
    srand(5);
    const int per_frame[] = {1, 2, 5, 16, 17, 40, 3};
    for (int round = 0; round < (int)(sizeof per_frame / sizeof per_frame[0]); round++) {
        for (int k = 0; k < per_frame[round]; k++) {
            st_rect dirty;
            int cx = rand() % (int)w, cy = rand() % (int)h, radius = 1 + rand() % 12;
            if (k % 4 == 3) cx = rand() % 6, cy = (int)h - 1 - rand() % 6; /* at the edges: wrapped cells */
            if (rand() % 2) assert_st_ok(st_level_dig(l, cx, cy, radius, 10 + rand() % 90, &dirty, err));
            else assert_st_ok(st_level_raise(l, cx, cy, radius, 10 + rand() % 90, &dirty, err));
            assert_st_ok(st_engine_update_level(e, dirty, err));
        }
        st_camera cam = {.position = {100, 100, 250}, .pitch_deg = -60};
        assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
        uint64_t cells = t->last_cells;
        uint32_t *kept = read_tables(r, t);
        st_renderer *fresh = test_renderer(e, "ray-compute", 16, 16, NULL);
        uint32_t *whole = read_tables(fresh, st_ray_compute_air(fresh));
        uint64_t differ = 0;
        for (uint64_t i = 0; i < words; i++) differ += kept[i] != whole[i];
        print_message("round %d: %d edits, %llu cells rebuilt (the tables have %llu)\n", round, per_frame[round],
                      (unsigned long long)cells, (unsigned long long)words);
        if (differ)
            fail_msg("round %d (%d edits): %llu of %llu words differ from the whole build", round, per_frame[round],
                     (unsigned long long)differ, (unsigned long long)words);
        free(kept);
        free(whole);
        st_renderer_destroy(fresh);
    }
    st_renderer_destroy(r);
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_far_edits_rebuild_their_cells),
        cmocka_unit_test(test_random_edits_equal_full_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
