/* The CPU reference against analytic scenes: a flat floor (height 0 included), a 1-texel wall, a slab over
 * a cave (opening, ceiling, top), near/far limits, a whole camera image, random rays against a fine march
 * of the SOLID predicate, and the disk cache (hit, key, corruption). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/reference.h"
#include "support.h"

#define TOL ST_REFERENCE_TOLERANCE

static st_reference *make_ref(const st_level *level) {
    st_reference *ref = NULL;
    assert_st_ok(st_reference_create(level, &ref, err));
    return ref;
}

static void norm(float d[3]) {
    float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    d[0] /= l, d[1] /= l, d[2] /= l;
}

static float cast(const st_reference *ref, float ox, float oy, float oz, float dx, float dy, float dz, float tmin,
                  float tmax, uint8_t *face) {
    float o[3] = {ox, oy, oz}, d[3] = {dx, dy, dz}, t = -1;
    norm(d);
    uint8_t f = 0, type = 0;
    if (!st_reference_ray(ref, o, d, tmin, tmax, &t, &f, &type)) return NAN;
    if (face) *face = f;
    return t;
}

/* The documented camera: focal 512 px at 800 rows (the paper's 1280×800), the same field of view at every size,
 * and the one projection the reference and the GPU methods share (the renderer passes view.focal_px on). */
static void test_default_focal(void **state) {
    (void)state;
    st_camera cam = {.position = {0, 0, 100}};
    st_view v = st_camera_view(&cam, 1280, 800);
    assert_float_equal(v.focal_px, 512.0f, 1e-3f);
    assert_float_equal(st_camera_view(&cam, 320, 200).focal_px, 128.0f, 1e-3f);
    float dir[3], tn;
    st_view_pixel_ray(&v, 1279, 400, dir, &tn, NULL); /* the right edge: atan(640/512) off the axis */
    assert_float_equal(acosf(dir[0] * v.forward[0] + dir[1] * v.forward[1] + dir[2] * v.forward[2]),
                       atanf(639.5f / 512.0f), 1e-5f);
}

/* The culling frustum against the projection: a small box around a point passes exactly when the point is
 * in front of the near plane, short of the far plane and on the screen (points a margin inside or outside). */
static void test_frustum_matches_projection(void **state) {
    (void)state;
    st_camera cam = {.position = {100, 200, 80}, .yaw_deg = 30, .pitch_deg = -20, .far_dist = 300};
    st_view v = st_camera_view(&cam, 320, 200);
    st_frustum f = st_view_frustum(&v);
    uint32_t seed = 7;
    int inside = 0, outside = 0;
    for (int i = 0; i < 20000; i++) {
        float p[3];
        for (int k = 0; k < 3; k++) {
            seed = seed * 1664525u + 1013904223u;
            p[k] = v.eye[k] + ((float)(seed >> 8) / (float)(1u << 24) - 0.5f) * 800.0f;
        }
        float q[3] = {p[0] - v.eye[0], p[1] - v.eye[1], p[2] - v.eye[2]};
        float z = q[0] * v.forward[0] + q[1] * v.forward[1] + q[2] * v.forward[2];
        float x = q[0] * v.screen_right[0] + q[1] * v.screen_right[1] + q[2] * v.screen_right[2];
        float y = q[0] * v.screen_up[0] + q[1] * v.screen_up[1] + q[2] * v.screen_up[2];
        /* how far inside (> 0) or outside (< 0) the nearest face, in units of the box's half size */
        float in_z = fminf(z - v.near_dist, v.far_dist - z);
        float in_x = z > 0 ? 0.5f * v.width - fabsf(x * v.focal_px / z) : -1e9f;
        float in_y = z > 0 ? 0.5f * v.height - fabsf(y * v.focal_px / z) : -1e9f;
        float lo[3] = {p[0] - 0.01f, p[1] - 0.01f, p[2] - 0.01f}, hi[3] = {p[0] + 0.01f, p[1] + 0.01f, p[2] + 0.01f};
        if (in_z > 1 && in_x > 1 && in_y > 1) {
            assert_true(st_frustum_meets_box(&f, lo, hi));
            inside++;
        } else if (in_z < -1 || in_x < -1 || in_y < -1) {
            /* outside one plane by more than the box: the test may keep it only near a corner, and a
             * margin of a pixel or a unit puts these well away from one */
            if (in_z < -1 || (in_x < -1 && in_y > 1) || (in_y < -1 && in_x > 1)) {
                assert_false(st_frustum_meets_box(&f, lo, hi));
                outside++;
            }
        }
    }
    assert_true(inside > 100 && outside > 1000);
    /* a box enclosing the eye meets the frustum; one wholly behind the camera does not */
    float lo[3] = {v.eye[0] - 5, v.eye[1] - 5, v.eye[2] - 5}, hi[3] = {v.eye[0] + 5, v.eye[1] + 5, v.eye[2] + 5};
    assert_true(st_frustum_meets_box(&f, lo, hi));
    for (int k = 0; k < 3; k++) {
        lo[k] = v.eye[k] - 20 * v.forward[k] - 1;
        hi[k] = v.eye[k] - 20 * v.forward[k] + 1;
    }
    assert_false(st_frustum_meets_box(&f, lo, hi));
}

static void test_flat_floor(void **state) {
    (void)state;
    st_level *level = test_flat_level(64, 64, 50);
    st_reference *ref = make_ref(level);
    uint8_t face = 0;
    assert_float_equal(cast(ref, 10.3f, 20.7f, 100, 0, 0, -1, 0, 1000, &face), 50.0f, TOL);
    assert_int_equal(face, ST_REF_FACE_TOP);
    /* oblique: z drops 0.8 per unit, 50 units of height → 62.5 along the ray, across the x wrap */
    assert_float_equal(cast(ref, 60.5f, 3.5f, 100, 0.6f, 0, -0.8f, 0, 1000, NULL), 62.5f, TOL);
    assert_float_equal(cast(ref, 3.5f, 60.5f, 100, -0.6f, 0.0f, -0.8f, 0, 1000, NULL), 62.5f, TOL);
    /* upward and level rays above the floor see sky */
    assert_true(isnan(cast(ref, 10, 10, 60, 0.3f, 0.2f, 0.5f, 0, 1000, NULL)));
    assert_true(isnan(cast(ref, 10, 10, 60, 1, 0, 0, 0, 1000, NULL)));
    /* the far limit: a hit beyond t_max is a miss, one exactly at it counts */
    assert_true(isnan(cast(ref, 10, 10, 100, 0, 0, -1, 0, 49.9f, NULL)));
    assert_float_equal(cast(ref, 10, 10, 100, 0, 0, -1, 0, 50.0f, NULL), 50.0f, TOL);
    /* starting below the surface (the near plane inside terrain) hits at once */
    assert_float_equal(cast(ref, 10, 10, 40, 1, 0, 0, 2.0f, 100, &face), 2.0f, TOL);
    assert_int_equal(face, ST_REF_FACE_INSIDE);
    st_reference_destroy(ref);
    st_level_destroy(level);
}

static void test_height_zero_is_hittable(void **state) {
    (void)state;
    st_level *level = test_flat_level(32, 32, 0);
    st_reference *ref = make_ref(level);
    assert_float_equal(cast(ref, 5.5f, 5.5f, 10, 0, 0, -1, 0, 100, NULL), 10.0f, TOL);
    assert_float_equal(cast(ref, 5.5f, 5.5f, 30, 0, 0.6f, -0.8f, 0, 100, NULL), 37.5f, TOL);
    st_reference_destroy(ref);
    st_level_destroy(level);
}

static void test_thin_wall(void **state) {
    (void)state;
    st_level *level = test_flat_level(64, 64, 10);
    for (int y = 0; y < 64; y++) st_level_set_single(level, 40, y, 200, 3); /* one texel thick */
    st_reference *ref = make_ref(level);
    uint8_t face = 0;
    assert_float_equal(cast(ref, 20.25f, 5.5f, 50, 1, 0, 0, 0, 1000, &face), 19.75f, TOL);
    assert_int_equal(face, ST_REF_FACE_WEST);
    assert_float_equal(cast(ref, 50.5f, 5.5f, 50, -1, 0, 0, 0, 1000, &face), 9.5f, TOL);
    assert_int_equal(face, ST_REF_FACE_EAST);
    /* grazing just under the top edge still hits; just over it flies on (and meets the floor later) */
    float t = cast(ref, 20.5f, 5.5f, 199.99f, 1, 0.0f, 0.0f, 0, 1000, NULL);
    assert_float_equal(t, 19.5f, TOL);
    float over = cast(ref, 39.0f, 5.5f, 200.01f, 1, 0, -0.0001f, 0, 1000, NULL);
    assert_true(isnan(over) || over > 100.0f);
    /* a diagonal ray clipping only a corner region of the wall column */
    float s = sqrtf(2.0f);
    assert_float_equal(cast(ref, 38.5f, 0.25f, 50, 1, 1, 0, 0, 1000, NULL), 1.5f * s, TOL);
    /* the top of the wall seen from above */
    assert_float_equal(cast(ref, 40.5f, 7.5f, 250, 0, 0, -1, 0, 1000, &face), 50.0f, TOL);
    assert_int_equal(face, ST_REF_FACE_TOP);
    st_reference_destroy(ref);
    st_level_destroy(level);
}

/* floor 10 everywhere; dual pairs over x ∈ [20, 40): low 10, mid 50, high 100; a back wall at x 40..41 */
static st_level *cave_level(void) {
    st_level *level = test_flat_level(64, 64, 10);
    for (int y = 0; y < 64; y++) {
        for (int x = 20; x < 40; x += 2) st_level_set_dual(level, x, y, 10, 50, 100, 1, 3);
        st_level_set_single(level, 40, y, 200, 5);
        st_level_set_single(level, 41, y, 200, 5);
    }
    st_texel tx = st_level_texel(level, 30, 7);
    assert_true(tx.dual);
    assert_int_equal(tx.low, 10);
    assert_int_equal(tx.mid, 50);
    assert_int_equal(tx.high, 100);
    return level;
}

static void test_slab_over_cave(void **state) {
    (void)state;
    st_level *level = cave_level();
    st_reference *ref = make_ref(level);
    uint8_t face = 0;
    /* into the opening (between floor and ceiling): through the cave to the back wall */
    assert_float_equal(cast(ref, 10, 5.5f, 30, 1, 0, 0, 0, 1000, &face), 30.0f, TOL);
    assert_int_equal(face, ST_REF_FACE_WEST);
    /* at slab height: the slab's side */
    assert_float_equal(cast(ref, 10, 5.5f, 70, 1, 0, 0, 0, 1000, &face), 10.0f, TOL);
    assert_int_equal(face, ST_REF_FACE_WEST);
    /* from inside looking up: the ceiling at mid */
    assert_float_equal(cast(ref, 30.5f, 5.5f, 20, 0, 0, 1, 0, 1000, &face), 30.0f, TOL);
    assert_int_equal(face, ST_REF_FACE_BOTTOM);
    /* from inside looking down: the cave floor */
    assert_float_equal(cast(ref, 30.5f, 5.5f, 20, 0, 0, -1, 0, 1000, &face), 10.0f, TOL);
    assert_int_equal(face, ST_REF_FACE_TOP);
    /* from above: the slab top at high */
    assert_float_equal(cast(ref, 30.5f, 5.5f, 150, 0, 0, -1, 0, 1000, &face), 50.0f, TOL);
    assert_int_equal(face, ST_REF_FACE_TOP);
    /* from inside the cave rising obliquely: ceiling at z 50, 6 units up at slope 3/5 → 10 along the ray */
    assert_float_equal(cast(ref, 22.5f, 5.5f, 44, 0.8f, 0, 0.6f, 0, 1000, NULL), 10.0f, TOL);
    /* from outside, descending into the opening, landing on the cave floor: z 30 → 10 at slope 0.6 */
    assert_float_equal(cast(ref, 12.0f, 5.5f, 30, 0.8f, 0, -0.6f, 0, 1000, NULL), 20.0f / 0.6f, TOL);
    st_reference_destroy(ref);
    st_level_destroy(level);
}

/* A long cave: the air gap under the slab is crossed a block at a time, and the hits stay exact. */
static void test_long_cave(void **state) {
    (void)state;
    st_level *level = test_flat_level(256, 64, 10);
    for (int y = 0; y < 64; y++) {
        for (int x = 16; x < 240; x += 2) st_level_set_dual(level, x, y, 10, 50, 100, 1, 3);
        st_level_set_single(level, 240, y, 200, 5);
        st_level_set_single(level, 241, y, 200, 5);
    }
    st_level_set_single(level, 130, 5, 45, 2); /* one stalagmite in the middle of the cave */
    st_level_set_single(level, 131, 5, 45, 2);
    st_reference *ref = make_ref(level);
    uint8_t face = 0;
    assert_float_equal(cast(ref, 20, 9.5f, 30, 1, 0, 0, 0, 1000, &face), 220.0f, TOL);
    assert_int_equal(face, ST_REF_FACE_WEST);
    assert_float_equal(cast(ref, 20, 5.5f, 30, 1, 0, 0, 0, 1000, &face), 110.0f, TOL); /* the stalagmite */
    assert_float_equal(cast(ref, 20, 9.5f, 30, 1, 0, 0.1f, 0, 1000, &face), 200.0f * sqrtf(1.01f), 2 * TOL);
    assert_int_equal(face, ST_REF_FACE_BOTTOM);
    assert_float_equal(cast(ref, 20, 9.5f, 30, 1, 0, -0.1f, 0, 1000, &face), 200.0f * sqrtf(1.01f), 2 * TOL);
    assert_int_equal(face, ST_REF_FACE_TOP);
    st_reference_destroy(ref);
    st_level_destroy(level);
}

/* Random levels and rays: no solid sample of a fine march lies before the reference's hit, and just past
 * the hit the predicate holds. Levels keep slabs at least 1 unit thick so a march can see them. */
static void test_random_against_march(void **state) {
    (void)state;
    st_level *level = test_flat_level(128, 128, 0);
    srand(12345);
    for (int y = 0; y < 128; y++)
        for (int x = 0; x < 128; x += 2) {
            if (rand() % 4 == 0) {
                int low = rand() % 120, gap = 8 * (1 + rand() % 6), high = low + gap + 1 + rand() % 60;
                st_level_set_dual(level, x, y, (uint8_t)low, (uint8_t)(low + gap), (uint8_t)high, 1, 2);
            } else {
                st_level_set_single(level, x, y, (uint8_t)(rand() % 160), 1);
                st_level_set_single(level, x + 1, y, (uint8_t)(rand() % 160), 1);
            }
        }
    st_reference *ref = make_ref(level);
    int hits = 0, early = 0, not_solid_after = 0;
    for (int k = 0; k < 400; k++) {
        float o[3] = {(float)(rand() % 12800) / 100.0f, (float)(rand() % 12800) / 100.0f,
                      170.0f + (float)(rand() % 800) / 10.0f};
        float d[3] = {(float)(rand() % 2001 - 1000), (float)(rand() % 2001 - 1000), -(float)(50 + rand() % 950)};
        norm(d);
        float t = 0;
        bool hit = st_reference_ray(ref, o, d, 0.5f, 400.0f, &t, NULL, NULL);
        float end = hit ? t - 0.002f : 400.0f;
        for (float s = 0.5f; s < end; s += 0.005f)
            if (st_level_solid(level, o[0] + d[0] * s, o[1] + d[1] * s, o[2] + d[2] * s)) {
                early++;
                break;
            }
        if (hit) {
            hits++;
            float s = t + 0.002f;
            if (!st_level_solid(level, o[0] + d[0] * s, o[1] + d[1] * s, o[2] + d[2] * s)) not_solid_after++;
        }
    }
    assert_true(hits > 300);
    assert_int_equal(early, 0);
    assert_true(not_solid_after <= 2); /* only a hit exactly on a texel edge may step into a lower neighbour */
    st_reference_destroy(ref);
    st_level_destroy(level);
}

/* A whole image over a flat floor equals the analytic distance (h_eye − floor)/(−dir.z) or sky. */
static void test_camera_image(void **state) {
    (void)state;
    st_level *level = test_flat_level(256, 256, 20);
    st_reference *ref = make_ref(level);
    st_camera cam = {.position = {100, 100, 60}, .yaw_deg = 30, .pitch_deg = -20, .far_dist = 300};
    st_ref_image img;
    assert_st_ok(st_ref_image_create(64, 40, &img, err));
    assert_st_ok(st_reference_cast(ref, &cam, &img, err));
    st_view view = st_camera_view(&cam, 64, 40);
    int sky = 0, ground = 0;
    for (uint32_t j = 0; j < 40; j++)
        for (uint32_t i = 0; i < 64; i++) {
            float dir[3], tn, tf;
            st_view_pixel_ray(&view, i, j, dir, &tn, &tf);
            float want = dir[2] < 0 ? 40.0f / -dir[2] : NAN;
            if (!(want <= tf)) want = NAN;
            float got = img.distance[j * 64 + i];
            if (isnan(want)) {
                assert_true(isnan(got));
                assert_int_equal(img.face[j * 64 + i], ST_REF_SKY);
                sky++;
            } else {
                assert_float_equal(got, want, TOL * fmaxf(1.0f, want / 100.0f));
                ground++;
            }
        }
    assert_true(sky > 0 && ground > 0);
    assert_int_equal(img.rgba[3], 255);
    st_ref_image_free(&img);
    st_reference_destroy(ref);
    st_level_destroy(level);
}

/* The share of pixels whose colour differs from their 3×3 neighbourhood's median by more than 8 levels in some
 * channel (edge pixels skipped): speckle. */
static double speckle_pct(const uint8_t *rgba, uint32_t w, uint32_t h) {
    size_t bad = 0, n = 0;
    for (uint32_t j = 1; j + 1 < h; j++)
        for (uint32_t i = 1; i + 1 < w; i++) {
            n++;
            for (int c = 0; c < 3; c++) {
                int v[9], k = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) v[k++] = rgba[4 * ((j + dy) * w + i + dx) + c];
                for (int a = 1; a < 9; a++)
                    for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
                        int t = v[b];
                        v[b] = v[b - 1], v[b - 1] = t;
                    }
                if (abs(rgba[4 * (j * w + i) + c] - v[4]) > 8) {
                    bad++;
                    break;
                }
            }
        }
    return 100.0 * (double)bad / (double)n;
}

/* Rough ground seen from afar is a staircase of texel columns finer than a pixel, so neighbouring pixels hit a top
 * or a wall at random. Shaded by the face entered, the reference picture was speckled (tops bright, walls dark);
 * shaded by the shared formula (the gradient normal of the column, as every method) it is as smooth as the
 * ground: steps of one unit every two texels have one gradient. The shadow rays stay on: the shading's shadow
 * offsets (those of the map) keep a step from shading the next. */
static void test_rough_ground_is_not_speckled(void **state) {
    (void)state;
    st_level *level = test_flat_level(512, 512, 0);
    for (int y = 0; y < 512; y++)
        for (int x = 0; x < 512; x++) level->heights[y * 512 + x] = (uint8_t)(20 + (x % 256) / 2);
    st_reference *ref = make_ref(level);
    st_camera cam = {.position = {20, 60, 120}, .yaw_deg = 80, .pitch_deg = -20, .far_dist = 400};
    st_ref_image img;
    assert_st_ok(st_ref_image_create(160, 100, &img, err));
    assert_st_ok(st_reference_cast(ref, &cam, &img, err));
    int walls = 0, tops = 0;
    for (int k = 0; k < 160 * 100; k++) {
        if (img.face[k] == ST_REF_FACE_TOP) tops++;
        else if (img.face[k] >= ST_REF_FACE_WEST && img.face[k] <= ST_REF_FACE_NORTH) walls++;
    }
    double speckle = speckle_pct(img.rgba, 160, 100);
    printf("  %d top and %d wall hits; speckled pixels %.2f %%\n", tops, walls, speckle);
    assert_true(walls > 1000 && tops > 1000); /* the staircase is really there */
    assert_true(speckle < 1.0);
    st_ref_image_free(&img);
    st_reference_destroy(ref);
    st_level_destroy(level);
}

static void test_cache(void **state) {
    (void)state;
    st_level *level = cave_level();
    st_reference *ref = make_ref(level);
    st_camera cam = {.position = {5, 5.5f, 40}, .yaw_deg = 90, .pitch_deg = -10};
    const char *dir = test_temp_dir("refcache");
    char cache[512];
    snprintf(cache, sizeof cache, "%s/nested/cache", dir);
    st_ref_image a, b;
    assert_st_ok(st_ref_image_create(48, 30, &a, err));
    assert_st_ok(st_ref_image_create(48, 30, &b, err));
    bool cached = true;
    assert_st_ok(st_reference_cast_cached(ref, &cam, cache, &a, &cached, NULL, err));
    assert_false(cached);
    assert_st_ok(st_reference_cast_cached(ref, &cam, cache, &b, &cached, NULL, err));
    assert_true(cached);
    assert_memory_equal(a.face, b.face, 48 * 30);
    for (int k = 0; k < 48 * 30; k++) assert_true(a.distance[k] == b.distance[k] || (isnan(a.distance[k]) && isnan(b.distance[k])));
    /* another camera is another key */
    st_camera cam2 = cam;
    cam2.yaw_deg = 91;
    assert_st_ok(st_reference_cast_cached(ref, &cam2, cache, &b, &cached, NULL, err));
    assert_false(cached);
    /* a corrupted file is detected and recomputed */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "for f in %s/ref-*.bin; do printf 'XXXX' | dd of=$f bs=1 seek=200 conv=notrunc 2>/dev/null; done", cache);
    assert_int_equal(system(cmd), 0);
    assert_st_ok(st_reference_cast_cached(ref, &cam, cache, &b, &cached, NULL, err));
    assert_false(cached);
    assert_memory_equal(a.face, b.face, 48 * 30);
    /* an edited level changes the CRC and so the key */
    uint32_t crc = st_reference_crc(ref);
    level->heights[0] ^= 1;
    assert_int_not_equal(st_reference_level_crc32(level), crc);
    st_ref_image_free(&a);
    st_ref_image_free(&b);
    st_reference_destroy(ref);
    st_level_destroy(level);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_focal),   cmocka_unit_test(test_frustum_matches_projection),   cmocka_unit_test(test_flat_floor),      cmocka_unit_test(test_height_zero_is_hittable),
        cmocka_unit_test(test_thin_wall),       cmocka_unit_test(test_slab_over_cave),
        cmocka_unit_test(test_long_cave),
        cmocka_unit_test(test_random_against_march), cmocka_unit_test(test_camera_image),
        cmocka_unit_test(test_rough_ground_is_not_speckled), cmocka_unit_test(test_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
