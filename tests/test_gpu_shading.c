/* The shared shading on the GPU against its C twin (src/reference/shading.c): a probe evaluates shade_lit,
 * shade_point, gradient_normal and linear_to_srgb of shaders/common/shading.glsl at random points of a random
 * two-layer level (inside and outside the fog band, every visibility and given or gradient normals) and the
 * C functions must agree within 1e-4 in linear colour (0.03 of an 8-bit level). Then end to end: on a flat floor,
 * where the shadow map and the exact shadow ray agree (nothing casts a shadow), the CPU reference's colour image
 * equals ray-compute's within one 8-bit level. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/probe.h"
#include "strata/eval.h"
#include "strata/reference.h"
#include "strata/shading.h"
#include "support.h"

#define N 4096
#define TOL 1e-4f

static float frand(float lo, float hi) { return lo + (hi - lo) * (float)rand() / (float)RAND_MAX; }

static void test_shading_matches_c(void **state) {
    (void)state;
    st_level *level = test_random_level(256, 256, 7);
    st_engine *e = test_engine(level);
    st_shade_probe_in *in = calloc(N, sizeof *in);
    st_shade_probe_out *out = calloc(N, sizeof *out);
    srand(11);
    for (int i = 0; i < N; i++) {
        /* the probe's eye is at the origin with far 600: |xy| up to 650 covers the fog band and beyond; the map
         * wraps, so every point lies on some texel */
        float r = frand(0, 650), a = frand(0, 6.2831853f);
        in[i].p[0] = r * cosf(a), in[i].p[1] = r * sinf(a), in[i].p[2] = frand(0, 255);
        in[i].visibility = (float)(rand() % 3) / 2.0f;
        if (rand() % 2) {
            float v[3] = {frand(-1, 1), frand(-1, 1), frand(0.1f, 1)}, l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            for (int k = 0; k < 3; k++) in[i].normal[k] = v[k] / l;
        }
    }
    assert_st_ok(st_engine_probe_shade(e, in, N, out, err));
    st_shade_env env;
    const float eye[3] = {0, 0, 0};
    st_shade_env_init(&env, level, eye, 600);
    int fogged = 0, bad = 0;
    for (int i = 0; i < N; i++) {
        const float *p = in[i].p;
        st_texel s = st_level_texel(level, (int)floorf(p[0]), (int)floorf(p[1]));
        float grad[3], lit[3], point[3];
        st_shade_gradient_normal(level, p, st_shade_upper(s, p[2]), grad);
        bool given = in[i].normal[0] != 0 || in[i].normal[1] != 0 || in[i].normal[2] != 0;
        const float *n = given ? in[i].normal : grad;
        st_shade_lit(&env, p, s, n, in[i].visibility, lit);
        st_shade_lit(&env, p, s, n, 1.0f, point);
        if (hypotf(p[0], p[1]) > 550) fogged++;
        for (int k = 0; k < 3; k++) {
            bool ok = fabsf(out[i].lit[k] - lit[k]) <= TOL && fabsf(out[i].point[k] - point[k]) <= TOL &&
                      fabsf(out[i].gradient[k] - grad[k]) <= TOL &&
                      fabsf(out[i].srgb[k] - st_shade_linear_to_srgb(lit[k])) <= TOL;
            if (!ok && bad++ < 5)
                printf("  point %d (%.2f, %.2f, %.2f) channel %d: GPU lit %.6f point %.6f grad %.6f, C %.6f %.6f %.6f\n",
                       i, p[0], p[1], p[2], k, out[i].lit[k], out[i].point[k], out[i].gradient[k], lit[k], point[k],
                       grad[k]);
        }
    }
    assert_true(fogged > N / 20);
    assert_int_equal(bad, 0);
    free(in);
    free(out);
    test_engine_finish(e, level);
}

/* At the edge of a level that does not wrap a column has one neighbour along that axis: the gradient normal is
 * the one-sided difference with the column itself (never the opposite edge's heights), the same on the GPU and
 * in C. */
static void test_gradient_at_a_bounded_edge(void **state) {
    (void)state;
    st_level *level = test_random_level(64, 32, 5);
    level->wrap_x = level->wrap_y = false;
    st_engine *e = test_engine(level);
    enum { M = 512 };
    st_shade_probe_in *in = calloc(M, sizeof *in);
    st_shade_probe_out *out = calloc(M, sizeof *out);
    srand(3);
    for (int i = 0; i < M; i++) { /* half of them in the edge columns and rows */
        float x = frand(0, 64), y = frand(0, 32);
        if (i % 4 == 1) x = frand(0, 1);
        if (i % 4 == 2) x = frand(63, 64);
        if (i % 4 == 3) y = (i & 8) ? frand(0, 1) : frand(31, 32);
        in[i].p[0] = x, in[i].p[1] = y, in[i].p[2] = 255; /* above everything: the upper layer */
        in[i].visibility = 1;
    }
    assert_st_ok(st_engine_probe_shade(e, in, M, out, err));
    int bad = 0;
    for (int i = 0; i < M; i++) {
        const float *p = in[i].p;
        int cx = (int)floorf(p[0]), cy = (int)floorf(p[1]);
        float grad[3];
        st_shade_gradient_normal(level, p, true, grad);
        /* the one-sided difference written out: the missing neighbour is the column itself, at full weight */
        float h = st_level_texel(level, cx, cy).high, d[2];
        for (int a = 0; a < 2; a++) {
            int ex = a == 0, ey = a == 1;
            bool lo_in = st_level_contains(level, cx - ex, cy - ey), hi_in = st_level_contains(level, cx + ex, cy + ey);
            float lo = lo_in ? st_level_texel(level, cx - ex, cy - ey).high : h;
            float hi = hi_in ? st_level_texel(level, cx + ex, cy + ey).high : h;
            d[a] = (lo_in && hi_in ? 0.5f : 1.0f) * (hi - lo);
        }
        float l = sqrtf(d[0] * d[0] + d[1] * d[1] + 1), want[3] = {-d[0] / l, -d[1] / l, 1 / l};
        for (int k = 0; k < 3; k++)
            if ((fabsf(grad[k] - want[k]) > TOL || fabsf(out[i].gradient[k] - want[k]) > TOL) && bad++ < 5)
                printf("  (%.2f, %.2f) axis %d: C %.5f GPU %.5f, one-sided %.5f\n", p[0], p[1], k, grad[k],
                       out[i].gradient[k], want[k]);
    }
    assert_int_equal(bad, 0);
    free(in);
    free(out);
    test_engine_finish(e, level);
}

/* End to end on a flat floor (nothing shadows anything, so the map and the exact ray agree): the reference's
 * colour equals the GPU ray method's, with and without the shadow pass. */
static void test_reference_colour_matches_ray(void **state) {
    (void)state;
    st_level *level = test_flat_level(256, 256, 40);
    for (uint32_t y = 0; y < 256; y++) /* two materials, so albedo mistakes show */
        for (uint32_t x = 0; x < 256; x++) level->meta[y * 256 + x] = (uint8_t)((((x / 16 + y / 16) & 1) ? 2 : 3) << 3);
    st_engine *e = test_engine(level);
    st_reference *ref = NULL;
    assert_st_ok(st_reference_create(level, &ref, err));
    const uint32_t w = 96, h = 60;
    st_camera cam = {.position = {100, 100, 90}, .yaw_deg = 20, .pitch_deg = -35, .far_dist = 300};
    for (int shadows = 0; shadows < 2; shadows++) {
        st_reference_set_shadows(ref, shadows);
        st_ref_image img;
        assert_st_ok(st_ref_image_create(w, h, &img, err));
        assert_st_ok(st_reference_cast(ref, &cam, &img, err));
        st_render_desc rd = {.method = "ray-compute", .width = w, .height = h, .shadows = shadows};
        st_renderer *r = NULL;
        assert_st_ok(st_renderer_create(e, &rd, &r, err));
        st_frame_timing t;
        assert_st_ok(st_renderer_draw(r, &cam, &t, err));
        uint8_t *rgba = malloc((size_t)w * h * 4);
        assert_st_ok(st_renderer_readback(r, rgba, NULL, err));
        /* the ray's hit lies up to a bisection step past the floor, so near a material edge it may pick the
         * next texel: those pixels (one per edge crossing) are the method's, every other one must agree */
        st_view view = st_camera_view(&cam, w, h);
        int worst = 0, ground = 0, off = 0;
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t i = 0; i < w; i++) {
                size_t k = (size_t)j * w + i;
                if (isfinite(img.distance[k])) ground++;
                float dir[3];
                st_view_pixel_ray(&view, i, j, dir, NULL, NULL);
                float x = cam.position[0] + dir[0] * img.distance[k], y = cam.position[1] + dir[1] * img.distance[k];
                float fx = x / 16 - floorf(x / 16), fy = y / 16 - floorf(y / 16);
                bool edge = isfinite(img.distance[k]) &&
                            (fminf(fx, 1 - fx) * 16 < 0.5f || fminf(fy, 1 - fy) * 16 < 0.5f);
                int d = 0;
                for (int c = 0; c < 3; c++) {
                    int dc = abs((int)rgba[4 * k + c] - (int)img.rgba[4 * k + c]);
                    d = dc > d ? dc : d;
                }
                if (edge) continue;
                if (d > 1) off++;
                if (d > worst) worst = d;
            }
        printf("  shadows %s: %d ground pixels, %d off by more than one level away from material edges (worst %d)\n",
               shadows ? "on" : "off", ground, off, worst);
        assert_true(ground > (int)(w * h / 4));
        assert_true(worst <= 1);
        free(rgba);
        st_renderer_destroy(r);
        st_ref_image_free(&img);
    }
    st_reference_destroy(ref);
    test_engine_finish(e, level);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shading_matches_c),
        cmocka_unit_test(test_gradient_at_a_bounded_edge),
        cmocka_unit_test(test_reference_colour_matches_ray),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
