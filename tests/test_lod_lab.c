/* Tests of the lab's residency bound (src/eval/lod_lab.c): over many views of a quadtree world, the tiles the CDLOD
 * selection asks for (every request, prefetch included, distinct per level) never exceed the bound at speed 0, and
 * the margin grows with speed × latency; and the seams' hole count of the store comparison (st_eval_seam_holes). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strata/eval.h"
#include "strata/lab.h"
#include "support.h"

#define MAX_KEYS 65536

typedef struct world {
    st_lod_world w;
    st_tile_key keys[MAX_KEYS];
    uint32_t count;
} world;

static bool w_bounds(const st_lod_world *w, uint32_t level, uint64_t x, uint64_t y, float *mn, float *mx) {
    (void)w, (void)level;
    /* gentle relief: a node's heights depend on where it is */
    *mn = (float)(50.0 + 40.0 * sin((double)x * 0.7 + (double)y * 0.3));
    *mx = *mn + 80.0f;
    return true;
}

static void w_request(const st_lod_world *lw, st_tile_key tile, float priority) {
    (void)priority;
    world *w = lw->user;
    for (uint32_t i = 0; i < w->count; i++)
        if (st_tile_key_equal(w->keys[i], tile)) return;
    if (w->count < MAX_KEYS) w->keys[w->count++] = tile;
}

static void test_bound_holds(void **state) {
    (void)state;
    world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    st_lod_world *lw = &w->w;
    lw->levels = 7;
    lw->tile_intervals = 64;
    lw->grid = 16;
    lw->width = lw->height = 4097;
    lw->spacing_x = lw->spacing_y = 10;
    for (uint32_t l = 0; l < lw->levels; l++) lw->delta[l] = l ? 0.5 * ldexp(1, (int)l) : 0;
    lw->bounds = w_bounds;
    lw->request = w_request;
    lw->user = w;
    st_lod_selection sel = {0};
    srand(7);
    for (int k = 0; k < 60; k++) {
        double x = 2000 + (rand() % 36000), y = 2000 + (rand() % 36000);
        float pitch = (float)(-(rand() % 91)), yaw = (float)(rand() % 360);
        double tau = (k % 3 == 0) ? 0.5 : (k % 3 == 1) ? 1 : 4;
        st_camera cam = {.yaw_deg = yaw, .pitch_deg = pitch, .far_dist = 30000, .near_dist = 1};
        double eye[3] = {x, y, 150 + (rand() % 2000)};
        st_camera_set_eye(&cam, eye);
        st_view v = st_camera_view(&cam, 480, 270);
        st_lod_view lv = st_lod_view_of(&v);
        st_lod_params p = {.tau_px = tau};
        w->count = 0;
        assert_st_ok(st_lod_select(lw, &p, &lv, &sel, err));
        uint32_t per_level[ST_LOD_MAX_LEVELS] = {0};
        for (uint32_t i = 0; i < w->count; i++) per_level[w->keys[i].level]++;
        st_lod_lab_level levels[ST_LOD_MAX_LEVELS];
        double bound = st_lod_lab_residency_bound(lw, sel.bands, &lv, 0, 0, levels);
        double sum = 0;
        for (uint32_t l = 0; l < lw->levels; l++) {
            if (per_level[l] > levels[l].bound)
                fail_msg("view %d (pitch %g, τ %g): level %u asks for %u tiles, the bound is %.0f", k, (double)pitch, tau,
                         l, per_level[l], levels[l].bound);
            sum += levels[l].bound;
        }
        assert_true(fabs(sum - bound) < 1e-9);
        assert_true(w->count <= bound);
        /* moving: the margin adds rows of tiles, more for finer levels */
        st_lod_lab_level fast[ST_LOD_MAX_LEVELS];
        double moving = st_lod_lab_residency_bound(lw, sel.bands, &lv, 300, 100, fast);
        assert_true(moving >= bound);
        assert_true(fast[0].margin >= fast[lw->levels - 1].margin);
        assert_true(fast[0].margin > 0);
    }
    st_lod_selection_free(&sel);
    free(w);
}

/* The seams' figure: a sky pixel under the method's own terrain in its column is a hole; one above it (the skyline
 * drawn lower than the reference's) is not; nor is a pixel where the reference has sky too. */
static void test_seam_holes(void **state) {
    (void)state;
    enum { SW = 4, SH = 5 };
    const float S = NAN;
    /* columns: 0 a lowered skyline, 1 a hole under terrain, 2 sky in both under terrain, 3 all terrain */
    const float method[SW * SH] = {S, S, S, 9, S, 5, 5, 9, 4, S, S, 9, 3, 3, 3, 9, 2, S, 2, 9};
    const float ref[SW * SH] = {S, S, S, 9, 6, 5, 5, 9, 4, 4, S, 9, 3, 3, 3, 9, 2, 2, 2, 9};
    size_t first;
    assert_int_equal(st_eval_seam_holes(method, ref, SW, SH, &first), 2); /* (1, 2) and (1, 4) */
    assert_int_equal(first, 2 * SW + 1);
    assert_int_equal(st_eval_seam_holes(ref, ref, SW, SH, &first), 0);
    assert_int_equal(first, SIZE_MAX);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_holds),
        cmocka_unit_test(test_seam_holes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
