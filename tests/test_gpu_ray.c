/* GPU tests of the RayTraced method, both variants, on analytic scenes with known answers (lavapipe,
 * validation on), and of the GLSL SOLID predicate against the C one. */
#include <math.h>
#include <stdlib.h>

#include "render/probe.h"
#include "strata/render.h"
#include "support.h"

#define W 64
#define H 40

static st_engine *make_engine(const st_level *level) {
    st_engine *e = NULL;
    st_engine_desc d = {.validate = true};
    assert_st_ok(st_engine_create(&d, &e, err));
    assert_st_ok(st_engine_set_level(e, level, err));
    return e;
}

/* Distance along the centre pixel's ray, as rendered by `method`; NAN on a miss. */
static float centre_distance(st_engine *e, const char *method, st_camera cam, float hit[3]) {
    st_renderer *r = NULL;
    st_render_desc d = {.method = method, .width = W, .height = H};
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
    float *depth = malloc(W * H * sizeof *depth);
    uint8_t *rgba = malloc(W * H * 4);
    assert_st_ok(st_renderer_readback(r, rgba, depth, err));
    st_view v = st_camera_view(&cam, W, H);
    float dist = st_view_distance_from_depth(&v, W / 2, H / 2, depth[(H / 2) * W + W / 2]);
    float dir[3];
    st_view_pixel_ray(&v, W / 2, H / 2, dir, NULL, NULL);
    for (int k = 0; k < 3; k++) hit[k] = v.eye[k] + dir[k] * dist;
    free(depth);
    free(rgba);
    st_renderer_destroy(r);
    return dist;
}

static const char *const methods[] = {"ray", "ray-compute"};

static void test_flat_floor(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 40);
    st_engine *e = make_engine(l);
    for (int m = 0; m < 2; m++) {
        st_camera cam = {.position = {128, 128, 100}, .yaw_deg = 30, .pitch_deg = -90};
        float hit[3];
        float d = centre_distance(e, methods[m], cam, hit);
        st_view v = st_camera_view(&cam, W, H);
        float dir[3];
        st_view_pixel_ray(&v, W / 2, H / 2, dir, NULL, NULL);
        float expected = (100.0f - 40.0f) / -dir[2];
        if (!(fabsf(d - expected) < 0.5f)) fail_msg("%s: floor distance %.3f, expected %.3f", methods[m], d, expected);
        /* a ray that looks at the horizon over a flat floor far below the far plane misses */
        st_camera up = {.position = {128, 128, 100}, .yaw_deg = 0, .pitch_deg = 10};
        d = centre_distance(e, methods[m], up, hit);
        if (!isnan(d)) fail_msg("%s: an upward ray hit something at %.3f", methods[m], d);
    }
    assert_int_equal(st_engine_validation_messages(e), 0);
    st_engine_destroy(e);
    st_level_destroy(l);
}

/* Water at height 0 is a real, hittable surface (the reference's classic bug, on the GPU side): every
 * pixel whose ray meets z = 0 before the far plane must be drawn, from awkward eye positions too. */
static void test_height_zero(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 0);
    st_engine *e = make_engine(l);
    float *depth = malloc(W * H * sizeof *depth);
    for (int m = 0; m < 2; m++) {
        st_renderer *r = NULL;
        st_render_desc d = {.method = methods[m], .width = W, .height = H};
        assert_st_ok(st_renderer_create(e, &d, &r, err));
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
    assert_int_equal(st_engine_validation_messages(e), 0);
    st_engine_destroy(e);
    st_level_destroy(l);
}

/* Floor at 10; a slab over x,y in [96,160) with ceiling 90 and top 100; a cliff wall of height 150 at
 * x in [160,168). */
static st_level *slab_level(void) {
    st_level *l = test_flat_level(256, 256, 10);
    for (int y = 96; y < 160; y++)
        for (int x = 96; x < 160; x += 2) st_level_set_dual(l, x, y, 10, 90, 100, 2, 3);
    for (int y = 0; y < 256; y++)
        for (int x = 160; x < 168; x++) st_level_set_single(l, x, y, 150, 5);
    return l;
}

static void test_slab_and_cave(void **state) {
    (void)state;
    st_level *l = slab_level();
    st_engine *e = make_engine(l);
    for (int m = 0; m < 2; m++) {
        float hit[3];
        /* into the opening at eye level: under the slab to the back wall at x = 160 */
        st_camera into = {.position = {60, 128, 40}, .yaw_deg = 90, .pitch_deg = 0};
        float d = centre_distance(e, methods[m], into, hit);
        if (!(fabsf(hit[0] - 160.0f) < 0.5f)) fail_msg("%s: back wall hit at x=%.3f (d=%.3f)", methods[m], hit[0], d);
        /* inside the cave looking up: the ceiling at mid = 90 */
        st_camera up = {.position = {128, 128, 50}, .yaw_deg = 0, .pitch_deg = 90};
        d = centre_distance(e, methods[m], up, hit);
        if (!(fabsf(hit[2] - 90.0f) < 0.5f)) fail_msg("%s: ceiling hit at z=%.3f", methods[m], hit[2]);
        /* from above: the slab top at high = 100 */
        st_camera down = {.position = {128, 128, 200}, .yaw_deg = 0, .pitch_deg = -90};
        d = centre_distance(e, methods[m], down, hit);
        if (!(fabsf(hit[2] - 100.0f) < 0.5f)) fail_msg("%s: slab top hit at z=%.3f", methods[m], hit[2]);
        /* inside the cave looking down: the cave floor at low = 10 */
        st_camera floor = {.position = {128, 128, 50}, .yaw_deg = 0, .pitch_deg = -90};
        d = centre_distance(e, methods[m], floor, hit);
        if (!(fabsf(hit[2] - 10.0f) < 0.5f)) fail_msg("%s: cave floor hit at z=%.3f", methods[m], hit[2]);
    }
    assert_int_equal(st_engine_validation_messages(e), 0);
    st_engine_destroy(e);
    st_level_destroy(l);
}

/* An edit shows on the next frame: dig a crater under a top-down camera. */
static void test_edit_next_frame(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 100);
    st_engine *e = make_engine(l);
    for (int m = 0; m < 2; m++) {
        st_renderer *r = NULL;
        st_render_desc d = {.method = methods[m], .width = W, .height = H};
        assert_st_ok(st_renderer_create(e, &d, &r, err));
        st_camera cam = {.position = {128, 128, 200}, .yaw_deg = 0, .pitch_deg = -90};
        float *depth = malloc(W * H * sizeof *depth);
        assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
        assert_st_ok(st_renderer_readback(r, NULL, depth, err));
        st_view v = st_camera_view(&cam, W, H);
        float before = st_view_distance_from_depth(&v, W / 2, H / 2, depth[(H / 2) * W + W / 2]);
        st_rect dirty;
        if (m == 0) {
            assert_st_ok(st_level_dig(l, 128, 128, 20, 60, &dirty, err));
            assert_st_ok(st_engine_update_level(e, dirty, err));
        }
        assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
        assert_st_ok(st_renderer_readback(r, NULL, depth, err));
        float after = st_view_distance_from_depth(&v, W / 2, H / 2, depth[(H / 2) * W + W / 2]);
        if (m == 0) {
            if (!(fabsf(before - 100.0f) < 0.5f)) fail_msg("before the dig: %.3f", before);
        }
        if (!(after > 150.0f && after < 161.0f)) fail_msg("%s after the dig: %.3f (want ~160)", methods[m], after);
        free(depth);
        st_renderer_destroy(r);
    }
    assert_int_equal(st_engine_validation_messages(e), 0);
    st_engine_destroy(e);
    st_level_destroy(l);
}

/* The GLSL SOLID predicate and decode agree with the C definition on random points of a random level. */
static void test_solid_c_vs_glsl(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 0);
    srand(7);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x += 2) {
            if (rand() % 3 == 0) {
                uint8_t low = (uint8_t)(rand() % 120), mid = (uint8_t)(low + 8 * (rand() % 16));
                uint8_t high = (uint8_t)(mid + rand() % 100);
                st_level_set_dual(l, x, y, low, mid, high, (uint8_t)(rand() % 8), (uint8_t)(rand() % 8));
            } else {
                st_level_set_single(l, x, y, (uint8_t)(rand() % 256), (uint8_t)(rand() % 8));
                st_level_set_single(l, x + 1, y, (uint8_t)(rand() % 256), (uint8_t)(rand() % 8));
            }
        }
    enum { N = 20000 };
    float (*pts)[3] = malloc(sizeof(float[3]) * N);
    for (int i = 0; i < N; i++) {
        pts[i][0] = (float)(rand() % 2000) / 10.0f - 70.0f; /* past both edges: wrapping */
        pts[i][1] = (float)(rand() % 2000) / 10.0f - 70.0f;
        /* integers half of the time: the boundaries z == low, mid, high */
        pts[i][2] = (i & 1) ? (float)(rand() % 262 - 2) : (float)(rand() % 2620) / 10.0f - 2.0f;
    }
    st_engine *e = make_engine(l);
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
    assert_int_equal(st_engine_validation_messages(e), 0);
    st_engine_destroy(e);
    st_level_destroy(l);
    free(res);
    free(pts);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_floor),
        cmocka_unit_test(test_height_zero),
        cmocka_unit_test(test_slab_and_cave),
        cmocka_unit_test(test_edit_next_frame),
        cmocka_unit_test(test_solid_c_vs_glsl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
