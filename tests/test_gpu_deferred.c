/* Deferred shading of the raster methods' textured frames (src/render/passes/deferred.c): for every raster level
 * method the deferred image equals the method's own forward image (its fragment shader shading each fragment,
 * st_render_desc.shade_forward) within the sRGB encoding's rounding, from several views of a generated world with
 * slabs and caves, also after an edit, and for the tile-store raster methods on a sum-of-sines store; the deferred
 * frame has its "resolve" pass and the forward one none; flat frames never defer (the same bytes either way). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_store.h"
#include "strata/gen.h"
#include "support.h"

enum { W = 160, H = 100 };

static const char *const methods[] = {"ray", "voxel", "slice", "slice-plain", "paint", "paint-plain", "mesh"};
#define METHOD_COUNT (sizeof methods / sizeof methods[0])

static const st_camera cams[] = {
    {.position = {250, 260, 0}, .yaw_deg = 30, .pitch_deg = -30},  /* oblique, hills and slabs */
    {.position = {120, 380, 0}, .yaw_deg = 200, .pitch_deg = -8},  /* low, toward the horizon */
    {.position = {300, 140, 0}, .yaw_deg = 75, .pitch_deg = -70},  /* steep, near ground */
};
static const float above[] = {60, 14, 40}; /* the eye over the ground under it */
#define CAM_COUNT (sizeof cams / sizeof cams[0])

/* One frame of cam: the image (malloc'd) and whether the frame had a "resolve" pass. */
static uint8_t *draw_rgba(st_renderer *r, st_camera cam, bool *resolved) {
    uint8_t *rgba = malloc((size_t)W * H * 4);
    assert_non_null(rgba);
    st_frame_timing t;
    assert_st_ok(st_renderer_draw(r, &cam, &t, err));
    assert_st_ok(st_renderer_readback(r, rgba, NULL, err));
    *resolved = false;
    for (uint32_t i = 0; i < t.pass_count; i++)
        if (t.passes[i].name && !strcmp(t.passes[i].name, "resolve")) *resolved = true;
    return rgba;
}

static st_renderer *make(st_engine *e, const char *method, st_shading shading, bool forward) {
    st_render_desc d = {.method = method, .width = W, .height = H, .shadows = true, .shading = shading,
                        .shade_forward = forward};
    st_renderer *r = NULL;
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    return r;
}

typedef struct diff_stats {
    double mean;   /* mean |a − b| over the colour channels, in levels */
    double over8;  /* share of pixels with a channel more than 8 levels apart */
    int max;       /* the largest channel difference */
} diff_stats;

static diff_stats diff(const uint8_t *a, const uint8_t *b) {
    diff_stats d = {0};
    uint64_t sum = 0, over = 0;
    for (size_t p = 0; p < (size_t)W * H; p++) {
        int most = 0;
        for (int c = 0; c < 3; c++) {
            int k = abs((int)a[p * 4 + (size_t)c] - (int)b[p * 4 + (size_t)c]);
            sum += (uint64_t)k;
            most = k > most ? k : most;
        }
        over += most > 8;
        d.max = most > d.max ? most : d.max;
    }
    d.mean = (double)sum / (3.0 * W * H);
    d.over8 = (double)over / (W * H);
    return d;
}

static st_level *world(void) {
    st_gen_desc gd = {.width = 512, .height = 512, .seed = 11};
    st_level *l = NULL;
    assert_st_ok(st_gen_world(&gd, &l, err));
    return l;
}

static st_camera placed(const st_level *l, size_t c) {
    st_camera cam = cams[c];
    st_texel t = st_level_texel(l, (int)cam.position[0], (int)cam.position[1]);
    cam.position[2] = (float)t.high + above[c];
    return cam;
}

/* Every view of every method: deferred against forward, textured; then a crater dug under the first view and the
 * same again (the resolve reads the edited level as the fragment shader does). */
static void test_deferred_matches_forward(void **state) {
    (void)state;
    st_level *l = world();
    st_engine *e = test_engine(l);
    st_renderer *fwd[METHOD_COUNT], *def[METHOD_COUNT];
    for (size_t m = 0; m < METHOD_COUNT; m++) {
        fwd[m] = make(e, methods[m], ST_SHADING_TEXTURED, true);
        def[m] = make(e, methods[m], ST_SHADING_TEXTURED, false);
    }
    for (int round = 0; round < 2; round++) {
        if (round == 1) { /* an edit: the crater under the first view */
            st_rect dirty;
            st_camera c0 = placed(l, 0);
            assert_st_ok(st_level_dig(l, (int)c0.position[0], (int)c0.position[1] + 40, 24, 50, &dirty, err));
            assert_st_ok(st_engine_update_level(e, dirty, err));
        }
        for (size_t c = 0; c < CAM_COUNT; c++) {
            if (round == 1 && c > 0) break;
            st_camera cam = placed(l, c);
            for (size_t m = 0; m < METHOD_COUNT; m++) {
                bool rf, rd;
                uint8_t *a = draw_rgba(fwd[m], cam, &rf);
                uint8_t *b = draw_rgba(def[m], cam, &rd);
                diff_stats d = diff(a, b);
                printf("%-12s view %zu%s: deferred vs forward mean %.3f levels, %.3f %% of pixels over 8, max %d\n",
                       methods[m], c, round ? " (after the edit)" : "", d.mean, 100.0 * d.over8, d.max);
                if (rf || !rd) fail_msg("%s: forward frame resolved %d, deferred frame resolved %d", methods[m], rf, rd);
                /* the same arithmetic on the same point: the sRGB encodings (the attachment's, linear_to_srgb) differ
                 * by a level at most, and the rounding of the shading by about as much */
                if (!(d.max <= 2 && d.mean <= 0.25))
                    fail_msg("%s view %zu: deferred image %.3f levels from the forward one (max %d), %.3f %% over 8",
                             methods[m], c, d.mean, d.max, 100.0 * d.over8);
                free(a);
                free(b);
            }
        }
    }
    for (size_t m = 0; m < METHOD_COUNT; m++) {
        st_renderer_destroy(fwd[m]);
        st_renderer_destroy(def[m]);
    }
    test_engine_finish(e, l);
}

/* Flat frames are the fragment shader's whatever shade_forward says: no resolve, the same bytes. */
static void test_flat_never_defers(void **state) {
    (void)state;
    st_level *l = world();
    st_engine *e = test_engine(l);
    st_camera cam = placed(l, 0);
    for (size_t m = 0; m < METHOD_COUNT; m++) {
        st_renderer *a = make(e, methods[m], ST_SHADING_FLAT, false), *b = make(e, methods[m], ST_SHADING_FLAT, true);
        bool ra, rb;
        uint8_t *ia = draw_rgba(a, cam, &ra), *ib = draw_rgba(b, cam, &rb);
        if (ra || rb) fail_msg("%s: a flat frame resolved", methods[m]);
        if (memcmp(ia, ib, (size_t)W * H * 4)) fail_msg("%s: flat frames differ", methods[m]);
        free(ia);
        free(ib);
        st_renderer_destroy(a);
        st_renderer_destroy(b);
    }
    test_engine_finish(e, l);
}

/* The tile-store raster methods, settled on a sum-of-sines store from two views: deferred against forward. */
static void test_store_deferred_matches_forward(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_SINE, .size = 257, .spacing = 2, .base = 60, .amp = 20, .wave = 10};
    st_store *store = analytic_store(&a, 33, "deferred-store");
    st_engine *e = store_engine(store, NULL);
    const st_camera scams[] = {store_camera(120, 90, 130, 40, -35, 1000), store_camera(60, 250, 95, 150, -12, 1000)};
    const char *const store_methods[] = {"cdlod", "clipmap"};
    for (size_t m = 0; m < 2; m++)
        for (size_t c = 0; c < 2; c++) {
            uint8_t *img[2];
            bool resolved[2];
            for (int k = 0; k < 2; k++) {
                st_renderer *r = make(e, store_methods[m], ST_SHADING_TEXTURED, k == 0);
                uint32_t frames = 0;
                assert_st_ok(st_renderer_settle(r, &scams[c], 400, &frames, err));
                img[k] = draw_rgba(r, scams[c], &resolved[k]);
                st_renderer_destroy(r);
            }
            diff_stats d = diff(img[0], img[1]);
            printf("%-12s view %zu: deferred vs forward mean %.3f levels, %.3f %% of pixels over 8, max %d\n",
                   store_methods[m], c, d.mean, 100.0 * d.over8, d.max);
            if (resolved[0] || !resolved[1])
                fail_msg("%s: forward frame resolved %d, deferred frame resolved %d", store_methods[m], resolved[0],
                         resolved[1]);
            if (!(d.max <= 2 && d.mean <= 0.25))
                fail_msg("%s view %zu: deferred image %.3f levels from the forward one (max %d), %.3f %% over 8",
                         store_methods[m], c, d.mean, d.max, 100.0 * d.over8);
            free(img[0]);
            free(img[1]);
        }
    test_engine_finish(e, NULL);
    st_store_close(store);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deferred_matches_forward),
        cmocka_unit_test(test_flat_never_defers),
        cmocka_unit_test(test_store_deferred_matches_forward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
