/* GPU tests of the large world and CDLOD (lavapipe, validation on), on tiny analytic stores (tests/analytic_store.h):
 * the known depth of every pixel on a plane and a tilted plane for cdlod and cdlod-compute; a method asked for the
 * wrong kind of world refused with one clear error; a camera sweep across level boundaries leaving no background
 * pixel where the surface is (morph alone, no skirts); skirts; a node whose tile fails to load drawing its ancestor;
 * culling that changes no pixel; the two variants agreeing; the GLSL vertex morph held to its C twin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_store.h"
#include "strata/image.h"
#include "strata/lod.h"

#define W 96
#define H 64

static const char *const METHODS[2] = {"cdlod", "cdlod-compute"};

typedef struct frame {
    float *dist; /* along each pixel's ray, NAN = nothing drawn */
    uint8_t *rgba;
    st_lod_frame_stats lod;
} frame;

static void frame_free(frame *f) {
    free(f->dist);
    free(f->rgba);
}

/* Settles the renderer on cam (every wanted tile drawn at its own level) and reads the frame back. */
static frame render(st_engine *e, st_renderer *r, st_camera cam, uint32_t w, uint32_t h) {
    frame f = {.dist = malloc((size_t)w * h * sizeof(float)), .rgba = malloc((size_t)w * h * 4)};
    assert_non_null(f.dist);
    assert_non_null(f.rgba);
    uint32_t frames = 0;
    assert_st_ok(st_renderer_settle(r, &cam, 400, &frames, err));
    assert_true(st_renderer_lod_stats(r, &f.lod));
    if (!f.lod.settled) {
        st_world_stats ws;
        assert_st_ok(st_engine_world_stats(e, &ws, err));
        fail_msg("not settled after %u frames: %u nodes, %u from an ancestor, %u missing; tiles %u queued, %u loading, "
                 "%u resident, %u failed", frames, f.lod.nodes, f.lod.fallback, f.lod.missing, ws.residency.queued,
                 ws.residency.loading, ws.residency.resident, ws.residency.failed);
    }
    assert_st_ok(st_renderer_readback(r, f.rgba, f.dist, err));
    st_view v = st_camera_view(&cam, w, h);
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) f.dist[j * w + i] = st_view_distance_from_depth(&v, i, j, f.dist[j * w + i]);
    return f;
}

static st_renderer *store_renderer(st_engine *e, const char *method, uint32_t w, uint32_t h, const st_method_knobs *k) {
    st_renderer *r = NULL;
    st_render_desc d = {.method = method, .width = w, .height = h};
    if (k) d.knobs = *k;
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    return r;
}

static void maybe_write(const char *name, const frame *f, uint32_t w, uint32_t h) {
    const char *dir = getenv("STRATA_TEST_IMAGES");
    if (!dir) return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    st_error err = {0};
    st_png_write(path, w, h, 4, 8, f->rgba, &err);
}

/* ---- known depth on planes -------------------------------------------------------------------------------------- */

static void check_known_depth(const analytic *a, st_store *s, const char *label) {
    st_engine *e = store_engine(s, &(st_world_desc){.gpu_slots = 128});
    double ext = (double)(a->size - 1) * a->spacing;
    double x[3] = {0.5 * ext, 0.2 * ext, 0.9 * ext}, y[3] = {0.5 * ext, 0.1 * ext, 0.8 * ext};
    st_camera cams[] = {
        store_camera(x[0], y[0], analytic_at(a, x[0], y[0]) + 300, 0, -90, 2000),
        store_camera(x[1], y[1], analytic_at(a, x[1], y[1]) + 30, 30, -25, 2000),
        store_camera(x[2], y[2], analytic_at(a, x[2], y[2]) + 8, 200, -10, 2000),
    };
    for (int m = 0; m < 2; m++) {
        st_renderer *r = store_renderer(e, METHODS[m], W, H, NULL);
        for (size_t c = 0; c < sizeof cams / sizeof cams[0]; c++) {
            frame f = render(e, r, cams[c], W, H);
            char name[96];
            snprintf(name, sizeof name, "%s-%s-%zu", label, METHODS[m], c);
            maybe_write(name, &f, W, H);
            st_view v = st_camera_view(&cams[c], W, H);
            uint32_t hits = 0;
            for (uint32_t j = 0; j < H; j++)
                for (uint32_t i = 0; i < W; i++) {
                    double want = analytic_ray(a, &v, i, j);
                    float got = f.dist[j * W + i];
                    /* a pixel whose ray meets the plane within a tenth of a pixel of the world's edge may fall
                     * either side of it */
                    float dir[3];
                    st_view_pixel_ray(&v, i, j, dir, NULL, NULL);
                    double at = isnan(want) ? (double)got : want;
                    if (!isnan(at)) {
                        double hx = v.origin[0] + dir[0] * at, hy = v.origin[1] + dir[1] * at;
                        double near_edge = 0.1 * at / v.focal_px + 1e-3;
                        if (fabs(hx) < near_edge || fabs(ext - hx) < near_edge || fabs(hy) < near_edge ||
                            fabs(ext - hy) < near_edge)
                            continue;
                    }
                    if (isnan(want) != isnan(got)) {
                        fail_msg("%s %s camera %zu pixel (%u, %u): %s drawn, the plane %s there (%.3f %.3f %.3f at %.3f)",
                                 label, METHODS[m], c, i, j, isnan(got) ? "nothing" : "terrain",
                                 isnan(want) ? "is not" : "is", v.origin[0] + dir[0] * at, v.origin[1] + dir[1] * at,
                                 v.origin[2] + dir[2] * at, at);
                    }
                    if (isnan(want)) continue;
                    hits++;
                    if (fabs(got - want) > 1e-3 * want + 1e-3)
                        fail_msg("%s %s camera %zu pixel (%u, %u): distance %.4f, the plane is at %.4f", label,
                                 METHODS[m], c, i, j, (double)got, want);
                }
            assert_true(hits > W * H / 4);
            frame_free(&f);
        }
        st_renderer_destroy(r);
    }
    test_engine_finish(e, NULL);
}

static void test_plane_known_depth(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_PLANE, .size = 257, .spacing = 2, .base = 40};
    st_store *s = analytic_store(&a, 33, "cdlod-plane");
    check_known_depth(&a, s, "plane");
    st_store_close(s);
}

static void test_tilted_plane_known_depth(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_TILT, .size = 257, .spacing = 2, .base = 10, .slope_x = 0.15, .slope_y = -0.05};
    st_store *s = analytic_store(&a, 33, "cdlod-tilt");
    check_known_depth(&a, s, "tilt");
    st_store_close(s);
}

/* ---- the wrong kind of world ------------------------------------------------------------------------------------ */

static void test_wrong_world_refused(void **state) {
    (void)state;
    st_level *level = test_flat_level(64, 64, 10);
    st_engine *e = test_engine(level);
    st_renderer *r = NULL;
    st_error err = {0};
    st_render_desc d = {.method = "cdlod", .width = 32, .height = 32};
    assert_int_equal(st_renderer_create(e, &d, &r, &err), ST_ERR_INVALID);
    assert_non_null(strstr(err.message, "tile stores"));
    test_engine_finish(e, level);

    analytic a = {.shape = SHAPE_PLANE, .size = 65, .spacing = 1, .base = 5};
    st_store *s = analytic_store(&a, 33, "cdlod-wrong");
    e = store_engine(s, NULL);
    d.method = "ray";
    assert_int_equal(st_renderer_create(e, &d, &r, &err), ST_ERR_INVALID);
    assert_non_null(strstr(err.message, "tile store"));
    test_engine_finish(e, NULL);
    st_store_close(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane_known_depth),
        cmocka_unit_test(test_tilted_plane_known_depth),
        cmocka_unit_test(test_wrong_world_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
