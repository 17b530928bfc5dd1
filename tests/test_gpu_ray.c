/* GPU tests of the RayTraced method, both variants, on analytic scenes with known answers (lavapipe,
 * validation on), and of the GLSL SOLID predicate against the C one. */
#include <math.h>
#include <stdlib.h>

#include "render/probe.h"
#include "strata/render.h"
#include "support.h"

#define W 64
#define H 40

static const char *const methods[] = {"ray", "ray-compute"};

static void test_flat_floor(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 40);
    st_engine *e = test_engine(l);
    for (int m = 0; m < 2; m++) test_expect_flat_floor(e, methods[m], W, H, NULL, NULL, 0.5f);
    test_engine_finish(e, l);
}

/* Water at height 0 is a real, hittable surface (the reference's classic bug, on the GPU side): every
 * pixel whose ray meets z = 0 before the far plane must be drawn, from awkward eye positions too. */
static void test_height_zero(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 0);
    st_engine *e = test_engine(l);
    float *depth = malloc(W * H * sizeof *depth);
    for (int m = 0; m < 2; m++) {
        st_renderer *r = test_renderer(e, methods[m], W, H, NULL);
        for (int k = 0; k < 6; k++) {
            st_camera cam = {.position = {100.37f + 13.1f * (float)k, 77.9f, 3.3f + 41.7f * (float)k},
                             .yaw_deg = 17.0f + 53.0f * (float)k, .pitch_deg = -5.0f - 17.0f * (float)k};
            assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
            assert_st_ok(st_renderer_readback(r, NULL, depth, err));
            st_view v = st_camera_view(&cam, W, H);
            int missing = 0;
            for (uint32_t y = 0; y < H; y++)
                for (uint32_t x = 0; x < W; x++) {
                    float dir[3], tn, tf;
                    st_view_pixel_ray(&v, x, y, dir, &tn, &tf);
                    bool reaches = dir[2] < -1e-4f && cam.position[2] / -dir[2] < tf * 0.999f;
                    if (reaches && !(depth[y * W + x] > 0.0f)) missing++;
                }
            if (missing) fail_msg("%s view %d: %d water pixels missing", methods[m], k, missing);
        }
        st_renderer_destroy(r);
    }
    free(depth);
    test_engine_finish(e, l);
}

/* The slab over a cave with a back wall (test_slab_cave_level). */
static void test_slab_and_cave(void **state) {
    (void)state;
    st_level *l = test_slab_cave_level();
    st_engine *e = test_engine(l);
    for (int m = 0; m < 2; m++) test_expect_slab_cave(e, methods[m], W, H, NULL, NULL, 0.5f, 0.5f);
    test_engine_finish(e, l);
}

/* An edit shows on the next frame: dig a crater under a top-down camera. */
static void test_edit_next_frame(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 100);
    st_engine *e = test_engine(l);
    for (int m = 0; m < 2; m++) {
        st_renderer *r = test_renderer(e, methods[m], W, H, NULL);
        float before, after;
        test_dig_crater(e, r, W, H, m == 0 ? l : NULL, &before, &after); /* the second variant sees it dug */
        if (m == 0 && !(fabsf(before - 100.0f) < 0.5f)) fail_msg("before the dig: %.3f", before);
        if (!(after > 150.0f && after < 161.0f)) fail_msg("%s after the dig: %.3f (want ~160)", methods[m], after);
        st_renderer_destroy(r);
    }
    test_engine_finish(e, l);
}

/* The GLSL SOLID predicate and decode agree with the C definition on random points of a random level. */
static void test_solid_c_vs_glsl(void **state) {
    (void)state;
    st_level *l = test_random_level(64, 64, 7); /* leaves rand() seeded for the points below */
    enum { N = 20000 };
    float (*pts)[3] = malloc(sizeof(float[3]) * N);
    for (int i = 0; i < N; i++) {
        pts[i][0] = (float)(rand() % 2000) / 10.0f - 70.0f; /* past both edges: wrapping */
        pts[i][1] = (float)(rand() % 2000) / 10.0f - 70.0f;
        /* integers half of the time: the boundaries z == low, mid, high */
        pts[i][2] = (i & 1) ? (float)(rand() % 262 - 2) : (float)(rand() % 2620) / 10.0f - 2.0f;
    }
    st_engine *e = test_engine(l);
    st_probe_result *res = malloc(sizeof *res * N);
    assert_st_ok(st_engine_probe_solid(e, (const float(*)[3])pts, N, res, err));
    for (int i = 0; i < N; i++) {
        bool c = st_level_solid(l, pts[i][0], pts[i][1], pts[i][2]);
        st_texel t = st_level_texel(l, (int)floorf(pts[i][0]), (int)floorf(pts[i][1]));
        if (c != res[i].solid || t.low != res[i].low || t.mid != res[i].mid || t.high != res[i].high ||
            t.dual != res[i].dual || t.low_type != res[i].low_type || t.high_type != res[i].high_type)
            fail_msg("point (%.1f,%.1f,%.1f): C solid=%d (%u,%u,%u) GLSL solid=%d (%u,%u,%u)", pts[i][0], pts[i][1],
                     pts[i][2], c, t.low, t.mid, t.high, res[i].solid, res[i].low, res[i].mid, res[i].high);
    }
    test_engine_finish(e, l);
    free(res);
    free(pts);
}

/* The same on a level that does not wrap along one axis or both: outside its edges the two agree that there is
 * nothing (no SOLID at any height, the texel `outside`), and inside they agree as before. */
static void test_solid_c_vs_glsl_bounded(void **state) {
    (void)state;
    const bool wraps[3][2] = {{false, false}, {false, true}, {true, false}};
    for (int c = 0; c < 3; c++) {
        st_level *l = test_random_level(64, 32, 11 + (unsigned)c);
        l->wrap_x = wraps[c][0];
        l->wrap_y = wraps[c][1];
        enum { N = 20000 };
        float (*pts)[3] = malloc(sizeof(float[3]) * N);
        for (int i = 0; i < N; i++) {
            pts[i][0] = (float)(rand() % 2000) / 10.0f - 70.0f; /* past every edge */
            pts[i][1] = (float)(rand() % 2000) / 10.0f - 70.0f;
            pts[i][2] = (i & 1) ? (float)(rand() % 262 - 20) : (float)(rand() % 2620) / 10.0f - 20.0f; /* z < 0 too */
        }
        st_engine *e = test_engine(l);
        st_probe_result *res = malloc(sizeof *res * N);
        assert_st_ok(st_engine_probe_solid(e, (const float(*)[3])pts, N, res, err));
        int outside = 0;
        for (int i = 0; i < N; i++) {
            int x = (int)floorf(pts[i][0]), y = (int)floorf(pts[i][1]);
            bool c_solid = st_level_solid(l, pts[i][0], pts[i][1], pts[i][2]);
            st_texel t = st_level_texel(l, x, y);
            bool out = !st_level_contains(l, x, y);
            outside += out;
            if (t.outside != out || (out && c_solid)) fail_msg("C: (%d,%d) outside=%d solid=%d", x, y, t.outside, c_solid);
            if (c_solid != res[i].solid || t.outside != res[i].outside || t.low != res[i].low || t.mid != res[i].mid ||
                t.high != res[i].high || t.dual != res[i].dual || t.low_type != res[i].low_type ||
                t.high_type != res[i].high_type)
                fail_msg("wrap %d/%d, point (%.1f,%.1f,%.1f): C solid=%d outside=%d (%u,%u,%u), GLSL solid=%d outside=%d "
                         "(%u,%u,%u)", l->wrap_x, l->wrap_y, pts[i][0], pts[i][1], pts[i][2], c_solid, t.outside, t.low,
                         t.mid, t.high, res[i].solid, res[i].outside, res[i].low, res[i].mid, res[i].high);
        }
        if (outside < N / 4) fail_msg("only %d of the points fell outside", outside);
        test_engine_finish(e, l);
        free(res);
        free(pts);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_floor),
        cmocka_unit_test(test_height_zero),
        cmocka_unit_test(test_slab_and_cave),
        cmocka_unit_test(test_edit_next_frame),
        cmocka_unit_test(test_solid_c_vs_glsl),
        cmocka_unit_test(test_solid_c_vs_glsl_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
