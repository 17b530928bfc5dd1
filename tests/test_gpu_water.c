/* GPU tests of the water pass (lavapipe, validation on): the rendered Gerstner surface matches st_water_height,
 * and the water composes with every terrain method — pixels of terrain above the water are unchanged, pixels over
 * water show water. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "strata/water.h"
#include "support.h"

#define PI 3.14159265358979323846













/* ---- the pass ---------------------------------------------------------------------------------------- */

/* 128²: land at 20 (sand), a basin [40, 88)² of water stand-ins (material 0 at 0) holding a sand bar [56, 72)²
 * at height 0 (a real bed half a step under the surface), a slab over land at [8, 24)². */
static st_level *basin_level(void) {
    st_level *l = test_flat_level(128, 128, 20);
    for (int y = 40; y < 88; y++)
        for (int x = 40; x < 88; x++) {
            bool bar = x >= 56 && x < 72 && y >= 56 && y < 72;
            st_level_set_single(l, x, y, 0, bar ? 1 : 0);
        }
    for (int y = 8; y < 24; y++)
        for (int x = 8; x < 24; x += 2) st_level_set_dual(l, x, y, 20, 60, 70, 2, 3);
    return l;
}

static void render(st_engine *e, const char *method, st_water_mode mode, st_camera cam, uint32_t W, uint32_t H,
                   uint8_t *rgba, float *depth) {
    st_render_desc d = {.method = method, .width = W, .height = H,
                        .water = {.mode = mode, .fft_size = 32, .wind_speed = 6}};
    st_renderer *r = NULL;
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    st_renderer_set_time(r, 1.5);
    st_frame_timing t;
    assert_st_ok(st_renderer_draw(r, &cam, &t, err));
    assert_st_ok(st_renderer_readback(r, rgba, depth, err));
    if (mode == ST_WATER_NONE) assert_null(st_renderer_water(r));
    else assert_non_null(st_renderer_water(r));
    st_renderer_destroy(r);
}

static void test_water_composes_with_every_method(void **state) {
    (void)state;
    st_level *l = basin_level();
    st_engine *e = test_engine(l);
    const uint32_t W = 48, H = 30;
    st_camera cam = {.position = {64, 4, 45}, .yaw_deg = 0, .pitch_deg = -38};
    st_view v = st_camera_view(&cam, W, H);
    uint8_t *c0 = malloc(W * H * 4), *c1 = malloc(W * H * 4);
    float *d0 = malloc(W * H * sizeof(float)), *d1 = malloc(W * H * sizeof(float));
    for (size_t m = 0; m < st_method_count(); m++) {
        const char *method = st_method_at(m)->name;
        render(e, method, ST_WATER_NONE, cam, W, H, c0, d0);
        st_water_mode modes[1] = {ST_WATER_GERSTNER};
        for (int k = 0; k < 1; k++) {
            render(e, method, modes[k], cam, W, H, c1, d1);
            int land = 0, water = 0;
            for (uint32_t j = 0; j < H; j++)
                for (uint32_t i = 0; i < W; i++) {
                    size_t p = (size_t)j * W + i;
                    float hit[3];
                    float dist = test_pixel_hit(&v, d0, i, j, hit);
                    if (isnan(dist)) continue;
                    if (hit[2] >= 5.0f) { /* terrain well above any wave */
                        if (memcmp(c0 + 4 * p, c1 + 4 * p, 4) || d0[p] != d1[p])
                            fail_msg("%s + %s: land pixel (%u, %u) at z %.1f changed", method,
                                     st_water_mode_name(modes[k]), i, j, hit[2]);
                        land++;
                    } else if (hit[2] <= 0.01f) { /* the basin: water over it */
                        float whit[3];
                        float wd = test_pixel_hit(&v, d1, i, j, whit);
                        if (isnan(wd) || fabsf(whit[2] - 0.5f) > 1.0f)
                            fail_msg("%s + %s: no water at (%u, %u): depth z %.2f", method,
                                     st_water_mode_name(modes[k]), i, j, whit[2]);
                        if (!memcmp(c0 + 4 * p, c1 + 4 * p, 3))
                            fail_msg("%s + %s: pixel (%u, %u) over water unchanged", method, st_water_mode_name(modes[k]), i, j);
                        water++;
                    }
                }
            if (land < 20 || water < 20) fail_msg("%s: %d land and %d water pixels in view", method, land, water);
        }
    }
    free(c0);
    free(c1);
    free(d0);
    free(d1);
    test_engine_finish(e, l);
}

/* Top-down over the basin: the rendered Gerstner surface (from its depth) against st_water_height, within 1 cm. */
static void test_rendered_gerstner_matches_query(void **state) {
    (void)state;
    st_level *l = basin_level();
    st_engine *e = test_engine(l);
    const uint32_t W = 40, H = 24;
    st_render_desc d = {.method = "ray-compute", .width = W, .height = H,
                        .water = {.mode = ST_WATER_GERSTNER, .gerstner_waves = 3, .wind_speed = 8, .wind_dir_deg = 30}};
    st_renderer *r = NULL;
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    /* low over the basin, so every pixel sees the finest ring (0.25 apart: the triangles' interpolation error,
     * Σ A·k²·s²/8, stays under 3 mm) */
    st_camera cam = {.position = {64, 64, 3.5f}, .yaw_deg = 0, .pitch_deg = -90};
    st_view v = st_camera_view(&cam, W, H);
    float *depth = malloc(W * H * sizeof *depth);
    double worst = 0;
    for (int it = 0; it < 3; it++) {
        double t = 0.7 + 5.3 * it;
        st_renderer_set_time(r, t);
        assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
        assert_st_ok(st_renderer_readback(r, NULL, depth, err));
        for (uint32_t j = 0; j < H; j++)
            for (uint32_t i = 0; i < W; i++) {
                float hit[3], z;
                if (isnan(test_pixel_hit(&v, depth, i, j, hit))) fail_msg("nothing at (%u, %u)", i, j);
                assert_st_ok(st_water_height(st_renderer_water(r), t, hit[0], hit[1], &z, err));
                worst = fmax(worst, fabs(z - hit[2]));
            }
    }
    if (!(worst <= 0.01)) fail_msg("the rendered surface is %g from st_water_height", worst);
    free(depth);
    st_renderer_destroy(r);
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rendered_gerstner_matches_query),
        cmocka_unit_test(test_water_composes_with_every_method),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
