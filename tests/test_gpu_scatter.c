/* GPU tests of Scattered (`scatter`, `scatter-plain`) and Voxel Space (`voxelspace`, `voxelspace-serial`) on
 * analytic scenes with known answers (lavapipe, validation on): depth and coverage against the analytic floor
 * and the ray method, the slab and its cave, an edit on the next frame, the packed word's C twin, and the
 * parallel Voxel Space against the serial one, bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/methods.h"
#include "strata/gen.h"
#include "strata/render.h"
#include "support.h"

#define W 128
#define H 80

/* Every frame here uses the same ray budget and, for the scatter methods, the given point density. */
static float *render_depth(st_engine *e, const char *method, st_camera cam, uint32_t density) {
    st_method_knobs knobs = {.scatter_density = density, .ray_steps = 1024};
    return test_render_depth(e, method, cam, W, H, &knobs);
}

static const st_method_knobs default_knobs = {.ray_steps = 1024};

static float centre_hit(st_engine *e, const char *method, st_camera cam, float hit[3]) {
    return test_centre_hit(e, method, cam, W, H, &default_knobs, hit);
}

/* Pixels the reference image hits that the tested image leaves empty. */
static int count_holes(const float *ref, const float *test) {
    int holes = 0;
    for (int i = 0; i < W * H; i++) holes += ref[i] > 0.0f && !(test[i] > 0.0f);
    return holes;
}

/* ---- the packed word (CPU twin of shaders/common/scatter.glsl) ------------------------------------------ */
static void test_pack_round_trip(void **state) {
    (void)state;
    uint8_t m = 0;
    /* the cleared word and a far-plane depth both read as a miss (depth 0) */
    assert_true(st_scatter_unpack(0xFFFFFFFFu, &m) == 0.0f);
    assert_int_equal(m, 0xFF);
    assert_true(st_scatter_unpack(st_scatter_pack(0.0f, 7), NULL) == 0.0f);
    uint32_t prev = 0;
    for (int i = 0; i <= 1000; i++) {
        float depth = (float)i / 1000.0f * (float)i / 1000.0f; /* denser near 0, where far depths live */
        uint8_t mat = (uint8_t)(i * 37);
        uint32_t w = st_scatter_pack(depth, mat);
        float back = st_scatter_unpack(w, &m);
        if (m != mat) fail_msg("material %u came back as %u", mat, m);
        if (!(fabsf(back - depth) <= 0.5f / 16777215.0f + 1e-7f)) fail_msg("depth %.9g came back as %.9g", depth, back);
        /* reverse-Z: a larger depth is nearer and must win atomicMin, whatever the material */
        if (i > 0 && !(w >> 8 < prev >> 8) && depth > 0.0f && depth != (float)(i - 1) / 1000.0f * (float)(i - 1) / 1000.0f)
            fail_msg("depth %.9g does not pack below the farther one", depth);
        prev = w;
    }
    assert_true(st_scatter_pack(0.5f, 255) < st_scatter_pack(0.4f, 0));
    /* out-of-range depths clamp instead of wrapping */
    assert_true(st_scatter_pack(2.0f, 0) == st_scatter_pack(1.0f, 0));
    assert_true(st_scatter_pack(-1.0f, 0) == st_scatter_pack(0.0f, 0));
}

/* ---- Scattered ------------------------------------------------------------------------------------------ */
static void test_scatter_flat_floor(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 40);
    st_engine *e = test_engine(l);
    const float pitches[3] = {-90.0f, -30.0f, 0.0f};
    for (int p = 0; p < 3; p++) {
        st_camera cam = {.position = {128, 128, pitches[p] == 0.0f ? 52.0f : 100.0f}, .yaw_deg = 30,
                         .pitch_deg = pitches[p]};
        st_view v = st_camera_view(&cam, W, H);
        float *ray = render_depth(e, "ray-compute", cam, 0);
        float *sc = render_depth(e, "scatter", cam, 0);
        /* every drawn pixel lies on the analytic floor */
        int holes = count_holes(ray, sc), wrong = 0;
        for (int j = 0; j < H; j++)
            for (int i = 0; i < W; i++) {
                if (!(sc[j * W + i] > 0.0f)) continue;
                float hit[3];
                test_pixel_hit(&v, sc, i, j, hit);
                if (fabsf(hit[2] - 40.0f) > 0.05f) wrong++;
            }
        float hit[3];
        float d = test_pixel_hit(&v, sc, W / 2, H / 2, hit);
        if (pitches[p] < 0.0f) {
            float dir[3];
            st_view_pixel_ray(&v, W / 2, H / 2, dir, NULL, NULL);
            float expected = (v.eye[2] - 40.0f) / -dir[2];
            if (!(fabsf(d - expected) < 1.0f)) fail_msg("pitch %.0f: centre distance %.3f, expected %.3f", pitches[p], d, expected);
        }
        if (holes > W * H / 1000) fail_msg("pitch %.0f: %d holes where the ray method hits", pitches[p], holes);
        if (wrong) fail_msg("pitch %.0f: %d pixels off the floor plane", pitches[p], wrong);
        /* nothing drawn where the ray method sees sky */
        int extra = count_holes(sc, ray);
        if (extra > W * H / 1000) fail_msg("pitch %.0f: %d pixels drawn where the ray method misses", pitches[p], extra);
        free(ray);
        free(sc);
    }
    /* the hole counter can fail: the paper's sparse point scatter leaves gaps on the same floor */
    st_camera cam = {.position = {128, 128, 100}, .yaw_deg = 30, .pitch_deg = -30};
    float *ray = render_depth(e, "ray-compute", cam, 0);
    float *plain = render_depth(e, "scatter-plain", cam, 1);
    int plain_holes = count_holes(ray, plain);
    if (plain_holes == 0) fail_msg("scatter-plain at density 1 left no holes: the check is blind");
    free(ray);
    free(plain);
    test_engine_finish(e, l);
}

/* The packed depth of a flat-floor pixel equals what the C twin makes of the analytic depth. */
static void test_scatter_pack_matches_gpu(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 40);
    st_engine *e = test_engine(l);
    st_camera cam = {.position = {100, 90, 100}, .yaw_deg = 10, .pitch_deg = -90};
    st_view v = st_camera_view(&cam, W, H);
    float *sc = render_depth(e, "scatter", cam, 0);
    int bad = 0;
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++) {
            float dir[3];
            st_view_pixel_dir(&v, (float)i + 0.5f, (float)j + 0.5f, dir);
            float view_z = (40.0f - v.eye[2]) / dir[2] * v.focal_px;
            float expected = st_scatter_unpack(st_scatter_pack(st_view_depth_from_z(&v, view_z), 0), NULL);
            if (fabsf(sc[j * W + i] - expected) > 2.0f / 16777215.0f) bad++;
        }
    if (bad) fail_msg("%d pixels disagree with the C packing", bad);
    free(sc);
    test_engine_finish(e, l);
}

/* The slab over a cave with a back wall (test_slab_cave_level). */
static void test_scatter_slab_and_cave(void **state) {
    (void)state;
    st_level *l = test_slab_cave_level();
    st_engine *e = test_engine(l);
    test_expect_slab_cave(e, "scatter", W, H, &default_knobs, NULL, 0.5f, 0.5f);
    /* the whole opening view against the ray method: no holes, the same depth nearly everywhere */
    st_camera into = {.position = {60, 120, 40}, .yaw_deg = 80, .pitch_deg = -10};
    float *ray = render_depth(e, "ray-compute", into, 0);
    float *sc = render_depth(e, "scatter", into, 0);
    st_view v = st_camera_view(&into, W, H);
    int holes = count_holes(ray, sc), far_off = 0;
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++) {
            float a[3], b[3];
            float da = test_pixel_hit(&v, ray, i, j, a), db = test_pixel_hit(&v, sc, i, j, b);
            if (da > 0.0f && db > 0.0f && fabsf(da - db) > 1.0f) far_off++;
        }
    if (holes > 0) fail_msg("%d holes in the cave view", holes);
    if (far_off > W * H / 100) fail_msg("%d pixels more than 1 unit from the ray method", far_off);
    free(ray);
    free(sc);
    test_engine_finish(e, l);
}

/* Rough generated terrain with slabs and one-texel ridges: coverage and depth against the ray method at
 * three pitches and two headings (with distant blocks merged, the default density). */
static void test_scatter_rough_coverage(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 0);
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x += 2) {
            float fx = (float)x / 256.0f * 6.2831853f, fy = (float)y / 256.0f * 6.2831853f;
            float h = 60.0f + 35.0f * sinf(3.0f * fx) * cosf(2.0f * fy) + 12.0f * sinf(11.0f * fx + 7.0f * fy);
            uint8_t hb = (uint8_t)(h < 0 ? 0 : h);
            if ((x / 16 + y / 16) % 5 == 0) {
                st_level_set_dual(l, x, y, hb, (uint8_t)(hb + 24), (uint8_t)(hb + 40), 2, 4);
            } else {
                st_level_set_single(l, x, y, hb, (uint8_t)(1 + (x / 32) % 6));
                st_level_set_single(l, x + 1, y, (uint8_t)(hb + (x % 7 == 0 ? 9 : 0)), (uint8_t)(1 + (x / 32) % 6));
            }
        }
    st_engine *e = test_engine(l);
    const float pitches[3] = {0.0f, -30.0f, -90.0f}, yaws[2] = {35.0f, 250.0f};
    for (int p = 0; p < 3; p++)
        for (int y = 0; y < 2; y++) {
            st_camera cam = {.position = {70, 40, pitches[p] == -90.0f ? 220.0f : 130.0f}, .yaw_deg = yaws[y],
                             .pitch_deg = pitches[p]};
            st_view v = st_camera_view(&cam, W, H);
            float *ray = render_depth(e, "ray-compute", cam, 0);
            float *sc = render_depth(e, "scatter", cam, 0);
            int holes = count_holes(ray, sc), extra = count_holes(sc, ray), off = 0;
            for (int j = 0; j < H; j++)
                for (int i = 0; i < W; i++) {
                    float a[3], b[3];
                    float da = test_pixel_hit(&v, ray, i, j, a), db = test_pixel_hit(&v, sc, i, j, b);
                    if (da > 0.0f && db > 0.0f && fabsf(da - db) > 0.04f * fmaxf(da, 1.0f)) off++;
                }
            if (holes > W * H / 1000)
                fail_msg("pitch %.0f yaw %.0f: %d holes where the ray method hits", pitches[p], yaws[y], holes);
            /* merged distant blocks stand as tall as their highest texel: silhouettes grow a little */
            if (extra > W * H / 200)
                fail_msg("pitch %.0f yaw %.0f: %d pixels drawn where the ray method misses", pitches[p], yaws[y], extra);
            /* the ray method's own step error sits in this budget too */
            if (off > W * H / 50)
                fail_msg("pitch %.0f yaw %.0f: %d pixels off the ray method's depth by > 4 %%", pitches[p], yaws[y], off);
            free(ray);
            free(sc);
        }
    test_engine_finish(e, l);
}

/* An edit shows on the next frame: dig a crater under a top-down camera. */
static void test_scatter_edit_next_frame(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 100);
    st_engine *e = test_engine(l);
    st_renderer *r = test_renderer(e, "scatter", W, H, NULL);
    float before, after;
    test_dig_crater(e, r, W, H, l, &before, &after);
    if (!(fabsf(before - 100.0f) < 0.5f)) fail_msg("before the dig: %.3f", before);
    if (!(after > 150.0f && after < 161.0f)) fail_msg("after the dig: %.3f (want ~160)", after);
    /* the screen buffer, the near-face queue and its header are the method's own memory */
    uint64_t bytes = st_renderer_method_gpu_bytes(r);
    if (bytes < 4ull * W * H) fail_msg("gpu bytes %llu below the screen buffer", (unsigned long long)bytes);
    st_renderer_destroy(r);
    test_engine_finish(e, l);
}

/* ---- Voxel Space ---------------------------------------------------------------------------------------- */
static void test_voxelspace_flat_floor(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 40);
    st_engine *e = test_engine(l);
    const float pitches[3] = {-90.0f, -30.0f, -60.0f};
    for (int p = 0; p < 3; p++) {
        st_camera cam = {.position = {128, 128, 100}, .yaw_deg = 30, .pitch_deg = pitches[p]};
        float hit[3];
        float d = centre_hit(e, "voxelspace", cam, hit);
        st_view v = st_camera_view(&cam, W, H);
        float dir[3];
        st_view_pixel_ray(&v, W / 2, H / 2, dir, NULL, NULL);
        float expected = (100.0f - 40.0f) / -dir[2];
        if (!(fabsf(d - expected) < 1.0f)) fail_msg("pitch %.0f: floor distance %.3f, expected %.3f", pitches[p], d, expected);
        /* the whole floor is covered like the ray method covers it */
        float *ray = render_depth(e, "ray-compute", cam, 0);
        float *vs = render_depth(e, "voxelspace", cam, 0);
        int holes = count_holes(ray, vs);
        if (holes > W * H / 1000) fail_msg("pitch %.0f: %d holes", pitches[p], holes);
        free(ray);
        free(vs);
    }
    /* looking above the horizon over a floor far below the far plane: sky */
    st_camera up = {.position = {128, 128, 100}, .yaw_deg = 0, .pitch_deg = 10};
    float hit[3];
    float d = centre_hit(e, "voxelspace", up, hit);
    if (!isnan(d)) fail_msg("an upward ray hit something at %.3f", d);
    test_engine_finish(e, l);
}

/* A terrace: height 40 for x < 128, 80 from x = 128 on. */
static void test_voxelspace_terrace(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 40);
    for (int y = 0; y < 256; y++)
        for (int x = 128; x < 256; x++) st_level_set_single(l, x, y, 80, 2);
    st_engine *e = test_engine(l);
    float hit[3];
    /* −30°: the centre ray reaches x = 128 at z ≈ 60.7, below the terrace top: the wall */
    st_camera wall = {.position = {60, 128, 100}, .yaw_deg = 90, .pitch_deg = -30};
    float d = centre_hit(e, "voxelspace", wall, hit);
    st_view v = st_camera_view(&wall, W, H);
    float dir[3];
    st_view_pixel_ray(&v, W / 2, H / 2, dir, NULL, NULL);
    float expected = (128.0f - 60.0f) / dir[0];
    if (!(fabsf(d - expected) < 1.0f)) fail_msg("terrace wall at %.3f, expected %.3f", d, expected);
    /* −45°: the centre ray meets the lower floor at x = 120, before the terrace */
    st_camera low = {.position = {60, 128, 100}, .yaw_deg = 90, .pitch_deg = -45};
    d = centre_hit(e, "voxelspace", low, hit);
    v = st_camera_view(&low, W, H);
    st_view_pixel_ray(&v, W / 2, H / 2, dir, NULL, NULL);
    expected = (100.0f - 40.0f) / -dir[2];
    if (!(fabsf(d - expected) < 1.0f)) fail_msg("lower floor at %.3f, expected %.3f", d, expected);
    /* from above the terrace top */
    st_camera top = {.position = {180, 128, 160}, .yaw_deg = 90, .pitch_deg = -60};
    d = centre_hit(e, "voxelspace", top, hit);
    if (!(fabsf(hit[2] - 80.0f) < 1.0f)) fail_msg("terrace top at z=%.3f", hit[2]);
    test_engine_finish(e, l);
}

/* One height per texel: from the side, Voxel Space shows the slab's front face where the ray method
 * looks through the opening to the back wall. */
static void test_voxelspace_slab_from_side(void **state) {
    (void)state;
    st_level *l = test_slab_cave_level();
    st_engine *e = test_engine(l);
    float hit[3];
    st_camera into = {.position = {60, 128, 40}, .yaw_deg = 90, .pitch_deg = 0};
    float d = centre_hit(e, "voxelspace", into, hit);
    if (!(fabsf(hit[0] - 96.0f) < 1.0f)) fail_msg("voxelspace hit x=%.3f (d=%.3f), want the slab front at 96", hit[0], d);
    d = centre_hit(e, "ray-compute", into, hit);
    if (!(fabsf(hit[0] - 160.0f) < 0.5f)) fail_msg("ray hit x=%.3f, want the back wall at 160", hit[0]);
    st_camera down = {.position = {128, 128, 200}, .yaw_deg = 0, .pitch_deg = -90};
    centre_hit(e, "voxelspace", down, hit);
    if (!(fabsf(hit[2] - 100.0f) < 1.0f)) fail_msg("slab top at z=%.3f", hit[2]);
    test_engine_finish(e, l);
}

/* The near-face queue grows with the image: its capacities follow the pixels (a fixed cap of 65 535 faces, the
 * 1-D dispatch limit, overflowed at 3840×2160, and the overflow was splatted by single invocations), and a close,
 * low view of rough ground, whose near faces' boxes cover the screen many times over, fits in it. */
static void test_scatter_queue_scales(void **state) {
    (void)state;
    st_gen_desc gd = {.width = 512, .height = 512, .seed = 4};
    st_level *l = NULL;
    assert_st_ok(st_gen_world(&gd, &l, err));
    st_engine *e = test_engine(l);
    uint32_t counts[4];
    st_renderer *big = test_renderer(e, "scatter", 3840, 2160, NULL);
    st_camera cam = {.position = {250, 250, 300}, .yaw_deg = 20, .pitch_deg = 60, .far_dist = 2}; /* sky: cheap */
    assert_st_ok(st_renderer_draw(big, &cam, NULL, err)); /* the header is written by a frame */
    assert_st_ok(st_scatter_queue_stats(big, counts, err));
    if (counts[1] < 3840u * 2160u / 8u || counts[3] < 3840u * 2160u / 8u)
        fail_msg("3840x2160: room for %u faces and %u jobs", counts[1], counts[3]);
    st_renderer_destroy(big);
    st_renderer *r = test_renderer(e, "scatter", 320, 200, NULL);
    uint32_t most = 0;
    for (int k = 0; k < 4; k++) { /* print_message below shows how full the queue got */
        /* low over the ground, looking down a slope nearby: the eye 20 units over the terrain */
        float x = 60.0f + 100.0f * (float)k, y = 80.0f + 90.0f * (float)k;
        st_texel t = st_level_texel(l, (int)x, (int)y);
        float ground = (float)(t.dual ? t.high : t.low);
        st_camera low = {.position = {x, y, ground + 20.0f}, .yaw_deg = 45.0f * (float)k, .pitch_deg = -35};
        assert_st_ok(st_renderer_draw(r, &low, NULL, err));
        assert_st_ok(st_scatter_queue_stats(r, counts, err));
        if (counts[0] > counts[1] || counts[2] > counts[3])
            fail_msg("view %d overflows the queue: %u of %u faces, %u of %u jobs", k, counts[0], counts[1], counts[2],
                     counts[3]);
        print_message("view %d: %u of %u faces, %u of %u jobs\n", k, counts[0], counts[1], counts[2], counts[3]);
        most = counts[2] > most ? counts[2] : most;
    }
    if (most == 0) fail_msg("no view queued a face: the test shows nothing");
    st_renderer_destroy(r);
    test_engine_finish(e, l);
}

/* The parallel Voxel Space (a workgroup per column) draws the serial one's image to the bit — colour and depth —
 * on a generated world from every pitch (the forward march and, looking down, the backward one; at pitch 0
 * the column's ground line does not move with the height, below it does and the guesses matter), from inside a
 * valley, at a size whose focal length makes the steps grow with distance within the far plane, and across the
 * edge of a level that does not wrap. */
static void test_voxelspace_parallel_matches_serial(void **state) {
    (void)state;
    st_gen_desc gd = {.width = 512, .height = 512, .seed = 9};
    st_level *l = NULL;
    assert_st_ok(st_gen_world(&gd, &l, err));
    st_engine *e = test_engine(l);
    const st_camera cams[] = {
        {.position = {100, 60, 120}, .yaw_deg = 35, .pitch_deg = 0},
        {.position = {300, 300, 160}, .yaw_deg = 200, .pitch_deg = -30},
        {.position = {20, 500, 200}, .yaw_deg = 80, .pitch_deg = -60},
        {.position = {250, 120, 220}, .yaw_deg = 0, .pitch_deg = -90},
        {.position = {400, 410, 60}, .yaw_deg = 300, .pitch_deg = 12},
    };
    const uint32_t sizes[2][2] = {{96, 60}, {200, 36}};
    for (size_t c = 0; c < sizeof cams / sizeof cams[0] + 2; c++)
        for (int z = 0; z < 2; z++) {
            /* the last two: the same world not wrapping in x, seen across its edge (samples past it draw nothing
             * and leave the march's guess as it was) */
            bool bounded = c >= sizeof cams / sizeof cams[0];
            if (bounded && z == 0) {
                test_engine_finish(e, NULL);
                l->wrap_x = false;
                e = test_engine(l);
            }
            const st_camera edge_cams[2] = {{.position = {90, 200, 120}, .yaw_deg = 300, .pitch_deg = -25},
                                            {.position = {490, 300, 180}, .yaw_deg = 60, .pitch_deg = -70}};
            st_camera cam = bounded ? edge_cams[c - sizeof cams / sizeof cams[0]] : cams[c];
            uint32_t w = sizes[z][0], h = sizes[z][1];
            uint8_t *ca = malloc(w * h * 4), *cb = malloc(w * h * 4);
            float *da = malloc(w * h * sizeof(float)), *db = malloc(w * h * sizeof(float));
            const char *names[2] = {"voxelspace-serial", "voxelspace"};
            for (int m = 0; m < 2; m++) {
                st_renderer *r = test_renderer(e, names[m], w, h, NULL);
                assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
                assert_st_ok(st_renderer_readback(r, m ? cb : ca, m ? db : da, err));
                st_renderer_destroy(r);
            }
            size_t color_diff = 0, depth_diff = 0, drawn = 0;
            for (size_t k = 0; k < (size_t)w * h; k++) {
                color_diff += memcmp(ca + 4 * k, cb + 4 * k, 4) != 0;
                depth_diff += memcmp(da + k, db + k, sizeof(float)) != 0;
                drawn += da[k] > 0.0f;
            }
            if (color_diff || depth_diff)
                fail_msg("camera %zu at %ux%u: %zu colour and %zu depth values differ", c, w, h, color_diff, depth_diff);
            if (drawn < (size_t)w * h / 10) fail_msg("camera %zu: only %zu pixels drawn", c, drawn);
            free(ca);
            free(cb);
            free(da);
            free(db);
        }
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_round_trip),
        cmocka_unit_test(test_scatter_flat_floor),
        cmocka_unit_test(test_scatter_pack_matches_gpu),
        cmocka_unit_test(test_scatter_slab_and_cave),
        cmocka_unit_test(test_scatter_rough_coverage),
        cmocka_unit_test(test_scatter_edit_next_frame),
        cmocka_unit_test(test_scatter_queue_scales),
        cmocka_unit_test(test_voxelspace_flat_floor),
        cmocka_unit_test(test_voxelspace_terrace),
        cmocka_unit_test(test_voxelspace_slab_from_side),
        cmocka_unit_test(test_voxelspace_parallel_matches_serial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
