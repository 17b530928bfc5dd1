/* Tests of the CPU reference of DEM stores (src/reference/dem_reference.c) on analytic stores: planes hit exactly;
 * on a sum of sines every hit lies on the finest bilinear surface with nothing in front of it (checked by a fine
 * march of the same surface), the height and slope are the bilinear patch's, shadow rays agree with a march toward
 * the sun; the image agrees with single rays; a ray below the ground hits at once; a damaged tile is an error, not
 * a wrong picture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analytic_store.h"
#include "strata/reference.h"
#include "strata/shading.h"

static void random_ray(const analytic *a, double o[3], double d[3]) {
    double ext = (double)(a->size - 1) * a->spacing;
    o[0] = ext * (rand() / (double)RAND_MAX), o[1] = ext * (rand() / (double)RAND_MAX);
    o[2] = analytic_bilinear(a, o[0], o[1]) + 1 + 80 * (rand() / (double)RAND_MAX);
    double yaw = 2 * M_PI * (rand() / (double)RAND_MAX), pitch = -M_PI / 2 * (0.02 + 0.9 * rand() / (double)RAND_MAX);
    d[0] = cos(pitch) * sin(yaw), d[1] = cos(pitch) * cos(yaw), d[2] = sin(pitch);
}

static void test_planes_exact(void **state) {
    (void)state;
    analytic shapes[2] = {{.shape = SHAPE_PLANE, .size = 129, .spacing = 2, .base = 30},
                          {.shape = SHAPE_TILT, .size = 129, .spacing = 2, .base = 5, .slope_x = 0.2, .slope_y = 0.1}};
    for (int s = 0; s < 2; s++) {
        st_store *store = analytic_store(&shapes[s], 33, "ref-plane");
        st_dem_reference *ref = NULL;
        assert_st_ok(st_dem_reference_create(store, 0, &ref, err));
        srand(3);
        int hits = 0;
        for (int k = 0; k < 400; k++) {
            double o[3], d[3], t;
            random_ray(&shapes[s], o, d);
            bool hit;
            assert_st_ok(st_dem_reference_ray(ref, o, d, 0, 1e4, &hit, &t, err));
            double sx = s ? shapes[s].slope_x : 0, sy = s ? shapes[s].slope_y : 0;
            double want = (shapes[s].base + sx * o[0] + sy * o[1] - o[2]) / (d[2] - sx * d[0] - sy * d[1]);
            double ext = 128 * 2.0, x = o[0] + d[0] * want, y = o[1] + d[1] * want;
            bool inside = want > 0 && x >= 0 && y >= 0 && x <= ext && y <= ext;
            if (fabs(x) < 1e-6 || fabs(y) < 1e-6 || fabs(ext - x) < 1e-6 || fabs(ext - y) < 1e-6) continue;
            assert_int_equal(hit, inside);
            if (hit) {
                hits++;
                if (fabs(t - want) > ST_DEM_REFERENCE_TOLERANCE) fail_msg("shape %d ray %d: %.9f, want %.9f", s, k, t, want);
            }
        }
        assert_true(hits > 200);
        st_dem_reference_destroy(ref);
        st_store_close(store);
    }
}

static void test_sine_hits_are_first(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_SINE, .size = 257, .spacing = 2, .base = 50, .amp = 30, .wave = 90};
    st_store *store = analytic_store(&a, 65, "ref-sine");
    st_dem_reference *ref = NULL;
    assert_st_ok(st_dem_reference_create(store, 4, &ref, err)); /* a small cache: tiles come and go */
    srand(5);
    int hits = 0;
    for (int k = 0; k < 300; k++) {
        double o[3], d[3], t;
        random_ray(&a, o, d);
        bool hit;
        assert_st_ok(st_dem_reference_ray(ref, o, d, 0, 2000, &hit, &t, err));
        /* a fine march along the same ray: nothing below the surface before the hit */
        double end = hit ? t : 2000, ext = 256 * 2.0;
        for (double s = 0; s < end - 1e-6; s += 0.05) {
            double p[3] = {o[0] + d[0] * s, o[1] + d[1] * s, o[2] + d[2] * s};
            if (p[0] < 0 || p[1] < 0 || p[0] > ext || p[1] > ext) break;
            if (p[2] < analytic_bilinear(&a, p[0], p[1]) - 1e-6) fail_msg("ray %d: under the ground at %.3f, hit at %.3f", k, s, hit ? t : -1.0);
        }
        if (!hit) continue;
        hits++;
        double p[3] = {o[0] + d[0] * t, o[1] + d[1] * t, o[2] + d[2] * t}, h, g[2];
        assert_true(fabs(p[2] - analytic_bilinear(&a, p[0], p[1])) < 1e-6);
        assert_st_ok(st_dem_reference_height(ref, p[0], p[1], &h, g, err));
        assert_true(fabs(h - analytic_bilinear(&a, p[0], p[1])) < 1e-6);
        double e = 1e-4, gx = (analytic_bilinear(&a, p[0] + e, p[1]) - analytic_bilinear(&a, p[0] - e, p[1])) / (2 * e);
        double gy = (analytic_bilinear(&a, p[0], p[1] + e) - analytic_bilinear(&a, p[0], p[1] - e)) / (2 * e);
        /* the patch's slope (away from the cell's edges, where the bilinear surface has a kink) */
        double fu = fmod(p[0] / 2, 1), fv = fmod(p[1] / 2, 1);
        if (fu > 0.01 && fu < 0.99 && fv > 0.01 && fv < 0.99) assert_true(fabs(g[0] - gx) < 1e-4 && fabs(g[1] - gy) < 1e-4);
    }
    assert_true(hits > 150);
    /* a ray that starts under the ground hits at its start */
    double o[3] = {100, 100, analytic_bilinear(&a, 100, 100) - 3}, d[3] = {0.6, 0, 0.8}, t;
    bool hit;
    assert_st_ok(st_dem_reference_ray(ref, o, d, 0.5, 100, &hit, &t, err));
    assert_true(hit && t == 0.5);
    assert_true(st_dem_reference_tiles_read(ref) > 4); /* tiles left the small cache and came back */
    st_dem_reference_destroy(ref);
    st_store_close(store);
}

static void test_image_and_shadows(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_SINE, .size = 257, .spacing = 2, .base = 50, .amp = 40, .wave = 70};
    st_store *store = analytic_store(&a, 33, "ref-image");
    st_dem_reference *ref = NULL;
    assert_st_ok(st_dem_reference_create(store, 0, &ref, err));
    st_camera cam = store_camera(60, 80, 160, 135, -35, 800);
    st_ref_image img = {0};
    uint32_t w = 48, h = 32;
    assert_st_ok(st_ref_image_create(w, h, &img, err));
    assert_st_ok(st_dem_reference_cast(ref, &cam, &img, err));
    st_view v = st_camera_view(&cam, w, h);
    float sun[3] = {ST_SUN_X, ST_SUN_Y, ST_SUN_Z};
    float sl = sqrtf(sun[0] * sun[0] + sun[1] * sun[1] + sun[2] * sun[2]);
    int lit = 0, shadowed = 0;
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) {
            float dir[3], tn, tf;
            st_view_pixel_ray(&v, i, j, dir, &tn, &tf);
            double d[3] = {dir[0], dir[1], dir[2]}, t;
            bool hit;
            assert_st_ok(st_dem_reference_ray(ref, v.origin, d, tn, tf, &hit, &t, err));
            float got = img.distance[j * w + i];
            assert_int_equal(hit, !isnan(got));
            if (!hit) continue;
            assert_true(fabs(got - t) < 1e-3);
            /* the shadow: a march toward the sun from the point the reference starts its shadow ray at */
            double p[3] = {v.origin[0] + d[0] * t, v.origin[1] + d[1] * t, v.origin[2] + d[2] * t}, hh, g[2];
            assert_st_ok(st_dem_reference_height(ref, p[0], p[1], &hh, g, err));
            double n[3] = {-g[0], -g[1], 1}, nl = sqrt(n[0] * n[0] + n[1] * n[1] + 1);
            double q[3], L[3] = {sun[0] / sl, sun[1] / sl, sun[2] / sl};
            for (int k = 0; k < 3; k++) q[k] = p[k] + n[k] / nl * 1.0 + L[k] * 1.0;
            bool blocked = false;
            for (double s = 0; s < 400 && !blocked; s += 0.05) {
                double x = q[0] + L[0] * s, y = q[1] + L[1] * s, z = q[2] + L[2] * s;
                if (x < 0 || y < 0 || x > 512 || y > 512 || z > 200) break;
                blocked = z < analytic_bilinear(&a, x, y);
            }
            /* the shaded colour says which: recompute both and see which it matches */
            float rel[3] = {(float)(d[0] * t), (float)(d[1] * t), (float)(d[2] * t)}, nf[3] = {(float)(n[0] / nl), (float)(n[1] / nl), (float)(n[2] / nl)}, rgb[3];
            st_dem_shade(rel, (float)p[2], nf, blocked ? 0.0f : 1.0f, 0, (float)st_store_get_info(store)->max_m, 800, rgb);
            const uint8_t *c = img.rgba + 4 * (j * w + i);
            int diff = abs(c[0] - st_shade_srgb8(rgb[0])) + abs(c[1] - st_shade_srgb8(rgb[1])) + abs(c[2] - st_shade_srgb8(rgb[2]));
            if (diff > 3) fail_msg("pixel (%u, %u): colour %u %u %u, the %s point's is %u %u %u", i, j, c[0], c[1], c[2],
                                   blocked ? "shadowed" : "lit", st_shade_srgb8(rgb[0]), st_shade_srgb8(rgb[1]),
                                   st_shade_srgb8(rgb[2]));
            blocked ? shadowed++ : lit++;
        }
    assert_true(lit > 50 && shadowed > 5); /* both kinds were seen */
    st_ref_image_free(&img);
    st_dem_reference_destroy(ref);
    st_store_close(store);
}

/* The accelerated walk (the finest tiles' max pyramid, one quadtree from the root to the cells) finds the hits of the
 * plain one (tile bounds, then 16×16-cell blocks and cells by DDAs): rays from sample-lattice points along rational
 * directions, which pass within rounding of cell corners (where a walk that takes a child from a position picks the
 * wrong one), random rays, and whole images with shadows, on a sine store of several levels of tiles. */
static void test_accelerated_equals_plain(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_SINE, .size = 257, .spacing = 2, .base = 50, .amp = 40, .wave = 70};
    st_store *store = analytic_store(&a, 33, "ref-accel");
    st_dem_reference *fast = NULL, *plain = NULL;
    assert_st_ok(st_dem_reference_create(store, 0, &fast, err));
    assert_st_ok(st_dem_reference_create(store, 0, &plain, err));
    st_dem_reference_set_plain(plain, true);
    srand(11);
    int hits = 0;
    for (int k = 0; k < 3000; k++) {
        double o[3], d[3];
        if (k % 2) {
            random_ray(&a, o, d);
        } else { /* a lattice point, a direction of small integer steps */
            o[0] = 2.0 * (rand() % 257), o[1] = 2.0 * (rand() % 257);
            o[2] = analytic_bilinear(&a, o[0], o[1]) + 5 + rand() % 100;
            int dx = rand() % 7 - 3, dy = rand() % 7 - 3, dz = -(1 + rand() % 4);
            double len = sqrt((double)(dx * dx + dy * dy + dz * dz));
            d[0] = dx / len, d[1] = dy / len, d[2] = dz / len;
        }
        bool hf, hp;
        double tf = NAN, tp = NAN;
        assert_st_ok(st_dem_reference_ray(fast, o, d, 0, 2000, &hf, &tf, err));
        assert_st_ok(st_dem_reference_ray(plain, o, d, 0, 2000, &hp, &tp, err));
        if (hf != hp || (hf && fabs(tf - tp) > ST_DEM_REFERENCE_TOLERANCE))
            fail_msg("ray %d from (%.3f, %.3f, %.3f) along (%.6f, %.6f, %.6f): accelerated %s %.6f, plain %s %.6f", k, o[0],
                     o[1], o[2], d[0], d[1], d[2], hf ? "hit" : "miss", tf, hp ? "hit" : "miss", tp);
        hits += hf;
    }
    assert_true(hits > 2000);
    /* whole images: the same distances and colours */
    const st_camera cams[3] = {store_camera(60, 80, 160, 135, -35, 800), store_camera(256, 256, 150, 20, -90, 800),
                               store_camera(10, 500, 95, 120, 0, 800)};
    for (int c = 0; c < 3; c++) {
        st_ref_image fi = {0}, pi = {0};
        assert_st_ok(st_ref_image_create(64, 40, &fi, err));
        assert_st_ok(st_ref_image_create(64, 40, &pi, err));
        assert_st_ok(st_dem_reference_cast(fast, &cams[c], &fi, err));
        assert_st_ok(st_dem_reference_cast(plain, &cams[c], &pi, err));
        for (uint32_t k = 0; k < 64 * 40; k++) {
            assert_int_equal(isnan(fi.distance[k]), isnan(pi.distance[k]));
            if (!isnan(fi.distance[k])) assert_true(fabsf(fi.distance[k] - pi.distance[k]) <= ST_DEM_REFERENCE_TOLERANCE);
            for (int q = 0; q < 3; q++) assert_true(abs(fi.rgba[4 * k + q] - pi.rgba[4 * k + q]) <= 1);
        }
        st_ref_image_free(&fi);
        st_ref_image_free(&pi);
    }
    st_dem_reference_destroy(fast);
    st_dem_reference_destroy(plain);
    st_store_close(store);
}

static void test_damaged_tile_is_an_error(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_PLANE, .size = 65, .spacing = 1, .base = 10};
    const char *dir = test_temp_dir("ref-damaged");
    st_store_close(analytic_store_in(&a, 33, dir));
    /* one byte of a finest tile changed: the store's checksum refuses the tile */
    char path[1200];
    snprintf(path, sizeof path, "%s/tiles/0/1/1.tile", dir);
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    fseek(fp, 200, SEEK_SET);
    int c = fgetc(fp);
    fseek(fp, 200, SEEK_SET);
    fputc(c ^ 0x55, fp);
    fclose(fp);
    st_store *store = NULL;
    assert_st_ok(st_store_open(dir, &store, err));
    st_dem_reference *ref = NULL;
    assert_st_ok(st_dem_reference_create(store, 0, &ref, err));
    st_camera cam = store_camera(32, 32, 40, 45, -90, 200);
    st_ref_image img = {0};
    assert_st_ok(st_ref_image_create(16, 16, &img, err));
    st_error e = {0};
    assert_int_not_equal(st_dem_reference_cast(ref, &cam, &img, &e), ST_OK);
    assert_non_null(strstr(e.message, "1.tile"));
    st_ref_image_free(&img);
    st_dem_reference_destroy(ref);
    st_store_close(store);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planes_exact),
        cmocka_unit_test(test_sine_hits_are_first),
        cmocka_unit_test(test_image_and_shadows),
        cmocka_unit_test(test_damaged_tile_is_an_error),
        cmocka_unit_test(test_accelerated_equals_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
