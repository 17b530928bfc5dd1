/* GPU tests of the RayTraced method, both variants, on analytic scenes with known answers (lavapipe,
 * validation on), of the GLSL SOLID predicate against the C one, and of ray-compute's tile test (the same image as
 * the full march, fewer samples fetched, edits followed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/methods.h"
#include "render/probe.h"
#include "strata/gen.h"
#include "strata/render.h"
#include "strata/views.h"
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

/* One frame of cam by ray-compute renderer r, every pixel marching from the near plane and then with the tile test:
 * the two images (colour and depth) must be the same bytes. Returns the tested frame's work, *full the other's. */
static st_ray_work tiles_against_full(st_renderer *r, st_camera cam, uint32_t w, uint32_t h, const char *label,
                                      st_ray_work *full) {
    size_t n = (size_t)w * h;
    uint8_t *rgba[2] = {malloc(n * 4), malloc(n * 4)};
    float *depth[2] = {malloc(n * sizeof(float)), malloc(n * sizeof(float))};
    st_ray_work work[2];
    for (int k = 0; k < 2; k++) {
        assert_st_ok(st_ray_compute_work(r, &cam, k == 1, &work[k], err));
        assert_st_ok(st_renderer_readback(r, rgba[k], depth[k], err));
    }
    if (!work[1].tile_test) fail_msg("%s: ray-compute did not test the tiles", label);
    if (work[0].tile_test || work[0].chunks || work[0].words) fail_msg("%s: the full march tested the tiles", label);
    size_t colour = 0, depths = 0;
    for (size_t i = 0; i < n; i++) {
        colour += memcmp(rgba[0] + 4 * i, rgba[1] + 4 * i, 4) != 0;
        depths += memcmp(&depth[0][i], &depth[1][i], sizeof(float)) != 0;
    }
    if (colour || depths) fail_msg("%s: the tile test changed %zu colours and %zu depths of %zu pixels", label, colour, depths, n);
    if (work[0].pixels != n || work[1].pixels != n) fail_msg("%s: %u and %u pixels counted", label, work[0].pixels, work[1].pixels);
    for (int k = 0; k < 2; k++) {
        free(rgba[k]);
        free(depth[k]);
    }
    *full = work[0];
    return work[1];
}

/* ray-compute's tile test leaves the full march's image, byte for byte, on every default view of the default
 * world, and the marches fetch far fewer samples (the counts are printed: the work it saves, whatever the device).
 * The tiles' footprint grows with the pixels' size, so a small image is the harder case. */
static void test_tiles_default_views(void **state) {
    (void)state;
    st_level *world = NULL;
    assert_st_ok(st_gen_world(NULL, &world, err));
    st_viewpoint views[ST_MAX_VIEWS];
    size_t n = 0;
    assert_st_ok(st_views_default(world, views, ST_MAX_VIEWS, &n, err));
    st_engine *e = test_engine(world);
    enum { RW = 160, RH = 100 };
    st_renderer *r = test_renderer(e, "ray-compute", RW, RH, NULL);
    uint64_t full_samples = 0, samples = 0, chunks = 0, words = 0;
    for (size_t k = 0; k < n; k++) {
        st_camera cam = st_viewpoint_camera(world, &views[k]);
        st_ray_work full, tiled = tiles_against_full(r, cam, RW, RH, views[k].name, &full);
        print_message("%-12s samples per pixel %6.2f -> %6.2f, table words per pixel %.2f\n", views[k].name,
                      (double)full.samples / full.pixels, (double)tiled.samples / tiled.pixels,
                      (double)tiled.words / tiled.pixels);
        full_samples += full.samples, samples += tiled.samples, chunks += tiled.chunks, words += tiled.words;
    }
    double px = (double)n * RW * RH;
    print_message("all views: samples per pixel %.2f -> %.2f, chunks passed per tile %.2f, table words per pixel %.2f\n",
                  full_samples / px, samples / px, chunks / (px / 64.0), words / px);
    if (!(samples * 2 < full_samples)) fail_msg("the tile test fetched %llu of the full march's %llu samples",
                                                (unsigned long long)samples, (unsigned long long)full_samples);
    st_renderer_destroy(r);
    test_engine_finish(e, world);
}

/* The same on the analytic cave (grazing the slab, inside the cave looking up at its ceiling, straight down) and on
 * a generated world, and after edits: a tower raised where the rays passed in the air, and a crater dug, show on the
 * next frame exactly as the full march draws them (the tables are rebuilt where the level changed: with the old
 * tables the tiles would pass through the tower). */
static void test_tiles_scenes_and_edits(void **state) {
    (void)state;
    enum { RW = 64, RH = 40 };
    st_level *cave = test_slab_cave_level();
    st_gen_desc gd = {.width = 512, .height = 512, .seed = 3};
    st_level *world = NULL;
    assert_st_ok(st_gen_world(&gd, &world, err));
    struct {
        st_level *level;
        st_camera cam;
    } scenes[] = {
        {cave, {.position = {60, 128, 60}, .yaw_deg = 90, .pitch_deg = 0}},
        {cave, {.position = {128, 120, 50}, .yaw_deg = 40, .pitch_deg = 30}},
        {cave, {.position = {128, 128, 180}, .yaw_deg = 0, .pitch_deg = -90}},
        {cave, {.position = {20, 128, 101}, .yaw_deg = 90, .pitch_deg = -1}},
        {world, {.position = {100, 60, 120}, .yaw_deg = 35, .pitch_deg = -5}},
        {world, {.position = {300, 300, 160}, .yaw_deg = 200, .pitch_deg = -40}},
        {world, {.position = {20, 500, 220}, .yaw_deg = 0, .pitch_deg = -90}},
        {world, {.position = {-700, 1300, 300}, .yaw_deg = 120, .pitch_deg = 10}}, /* far off: wrapping, sky */
    };
    for (size_t c = 0; c < sizeof scenes / sizeof scenes[0]; c++) {
        st_engine *e = test_engine(scenes[c].level);
        st_renderer *r = test_renderer(e, "ray-compute", RW, RH, NULL);
        char label[32];
        snprintf(label, sizeof label, "scene %zu", c);
        st_ray_work full, tiled = tiles_against_full(r, scenes[c].cam, RW, RH, label, &full);
        print_message("%s: samples per pixel %.2f -> %.2f\n", label, (double)full.samples / full.pixels,
                      (double)tiled.samples / tiled.pixels);
        st_renderer_destroy(r);
        test_engine_finish(e, NULL);
    }
    st_level_destroy(cave);
    st_level_destroy(world);
    /* edits: a flat floor at 40 seen from above at a slant; the tower stands in the rays' air */
    st_level *l = test_flat_level(256, 256, 40);
    st_engine *e = test_engine(l);
    st_renderer *r = test_renderer(e, "ray-compute", RW, RH, NULL);
    st_camera cam = {.position = {128, 40, 140}, .yaw_deg = 0, .pitch_deg = -35};
    st_ray_work full;
    tiles_against_full(r, cam, RW, RH, "before the edits", &full);
    float *before = test_draw_depth(r, cam, RW, RH);
    for (int y = 100; y < 140; y++)
        for (int x = 110; x < 146; x++) st_level_set_single(l, x, y, 200, 2);
    assert_st_ok(st_engine_update_level(e, (st_rect){110, 100, 146, 140}, err));
    tiles_against_full(r, cam, RW, RH, "after the tower", &full);
    float *after = test_draw_depth(r, cam, RW, RH);
    int changed = 0;
    for (int i = 0; i < RW * RH; i++) changed += before[i] != after[i];
    if (changed < RW * RH / 20) fail_msg("the tower changed only %d pixels", changed);
    st_rect dirty;
    assert_st_ok(st_level_dig(l, 128, 120, 16, 60, &dirty, err));
    assert_st_ok(st_engine_update_level(e, dirty, err));
    tiles_against_full(r, cam, RW, RH, "after the dig", &full);
    free(before);
    free(after);
    st_renderer_destroy(r);
    test_engine_finish(e, l);
}

/* The march's default steps grow with the far distance: at far 4000 a wall 20 texels thick, 3012 texels ahead, is
 * drawn wherever the CPU reference sees it, and up to far 2000 the default is 128 steps, image for image. The
 * camera looks level along +x, so a pixel's samples lie at the view depths near + k·(far − near)/(steps + 1) (rays
 * that leave through the ground plane or the top excepted): 31.0 apart at 128 steps, with none in [3012, 3032) (k = 97
 * is at 3008, k = 98 at 3039), 15.6 apart at 256, thinner than the wall. */
#define FAR_W 160
#define FAR_H 100
#define WALL_X0 3032 /* the eye at x = 20: view depths 3012 to 3032 */
#define WALL_X1 3052
#define WALL_TOP 150

/* The frame of cam by `method` with knobs: distances along the rays (NAN = sky) and colours (caller frees). */
static float *far_frame(st_engine *e, const char *method, st_camera cam, const st_method_knobs *knobs, uint8_t **rgba) {
    *rgba = malloc((size_t)FAR_W * FAR_H * 4);
    assert_non_null(*rgba);
    return test_render_distances(e, method, cam, FAR_W, FAR_H, knobs, *rgba);
}

/* Whether two frames are the same bytes, colour and distance. */
static bool same_frame(const float *d0, const uint8_t *c0, const float *d1, const uint8_t *c1) {
    size_t n = (size_t)FAR_W * FAR_H;
    return memcmp(d0, d1, n * sizeof *d0) == 0 && memcmp(c0, c1, n * 4) == 0;
}

static void test_far_steps(void **state) {
    (void)state;
    st_level *l = test_flat_level(4096, 64, 10);
    for (int y = 0; y < 64; y++)
        for (int x = WALL_X0; x < WALL_X1; x++) st_level_set_single(l, x, y, WALL_TOP, 2);
    st_engine *e = test_engine(l);
    st_camera cam = {.position = {20, 32, 60}, .yaw_deg = 90, .pitch_deg = 0, .fovy_deg = 20, .far_dist = 4000};
    st_view v = st_camera_view(&cam, FAR_W, FAR_H);
    float *ref = test_reference_distances(l, cam, FAR_W, FAR_H);
    /* the wall's pixels: the reference meets its front face and the ray crosses all of its thickness inside it (a ray
     * grazing its top or its foot may leave it between two samples of any march) */
    bool *wall = calloc((size_t)FAR_W * FAR_H, sizeof *wall);
    assert_non_null(wall);
    size_t wall_px = 0;
    for (uint32_t j = 0; j < FAR_H; j++)
        for (uint32_t i = 0; i < FAR_W; i++) {
            float d = ref[j * FAR_W + i], dir[3];
            st_view_pixel_ray(&v, i, j, dir, NULL, NULL);
            if (!isfinite(d) || fabsf(v.eye[0] + dir[0] * d - WALL_X0) > 0.05f) continue;
            float z_in = v.eye[2] + dir[2] * d, z_out = v.eye[2] + dir[2] * (d + (WALL_X1 - WALL_X0) / dir[0]);
            if (fminf(z_in, z_out) > 10.5f && fmaxf(z_in, z_out) < WALL_TOP - 0.5f) {
                wall[j * FAR_W + i] = true;
                wall_px++;
            }
        }
    if (wall_px < 1000) fail_msg("only %zu pixels see the wall", wall_px);
    const st_method_knobs s128 = {.ray_steps = 128}, s256 = {.ray_steps = 256};
    for (int m = 0; m < 2; m++) {
        uint8_t *c0, *c1;
        float *d0 = far_frame(e, methods[m], cam, NULL, &c0);
        size_t missed = 0;
        for (size_t k = 0; k < (size_t)FAR_W * FAR_H; k++)
            missed += wall[k] && !(fabsf(d0[k] - ref[k]) < 2.0f);
        print_message("%s at far 4000: %zu of the %zu wall pixels missed\n", methods[m], missed, wall_px);
        if (missed) fail_msg("%s at far 4000: the default march missed %zu of the %zu wall pixels", methods[m], missed,
                             wall_px);
        float *d1 = far_frame(e, methods[m], cam, &s256, &c1);
        if (!same_frame(d0, c0, d1, c1)) fail_msg("%s at far 4000: the default is not the image of 256 steps", methods[m]);
        free(d0), free(c0), free(d1), free(c1);
        /* far 600 (the default far) and 2000: the default is 128 steps, the same bytes */
        const float fars[] = {0, 2000};
        for (int f = 0; f < 2; f++) {
            st_camera c = cam;
            c.far_dist = fars[f];
            d0 = far_frame(e, methods[m], c, NULL, &c0);
            d1 = far_frame(e, methods[m], c, &s128, &c1);
            if (!same_frame(d0, c0, d1, c1))
                fail_msg("%s at far %g: the default is not the image of 128 steps", methods[m], fars[f] ? fars[f] : 600.0);
            free(d0), free(c0), free(d1), free(c1);
        }
    }
    free(wall);
    free(ref);
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_floor),
        cmocka_unit_test(test_height_zero),
        cmocka_unit_test(test_slab_and_cave),
        cmocka_unit_test(test_edit_next_frame),
        cmocka_unit_test(test_solid_c_vs_glsl),
        cmocka_unit_test(test_solid_c_vs_glsl_bounded),
        cmocka_unit_test(test_tiles_default_views),
        cmocka_unit_test(test_tiles_scenes_and_edits),
        cmocka_unit_test(test_far_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
