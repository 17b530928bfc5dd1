/* GPU tests of the large world and CDLOD (lavapipe, validation on), on tiny analytic stores (tests/analytic_store.h):
 * the known depth of every pixel on a plane and a tilted plane for cdlod and cdlod-compute; a method asked for the
 * wrong kind of world refused with one clear error; a camera sweep across level boundaries leaving no background
 * pixel where the surface is (morph alone, no skirts), and no sky under the drawn terrain at the pitches with a
 * skyline; skirts; a node whose tile fails to load drawing its ancestor; culling that changes no pixel; the two
 * variants agreeing; the GLSL vertex morph held to its C twin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/methods.h"
#include "store_frames.h"
#include "strata/eval.h"
#include "strata/lod.h"

#define W 96
#define H 64

static const char *const METHODS[2] = {"cdlod", "cdlod-compute"};

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
            frame f = store_frame(e, r, cams[c], W, H);
            char name[96];
            snprintf(name, sizeof name, "%s-%s-%zu", label, METHODS[m], c);
            frame_write(name, &f, W, H);
            st_view v = st_camera_view(&cams[c], W, H);
            uint32_t hits = 0;
            for (uint32_t j = 0; j < H; j++)
                for (uint32_t i = 0; i < W; i++) {
                    double want = analytic_ray(a, &v, i, j);
                    float got = f.dist[j * W + i];
                    double at = isnan(want) ? (double)got : want;
                    if (near_world_edge(&v, i, j, at, ext)) continue;
                    float dir[3];
                    st_view_pixel_ray(&v, i, j, dir, NULL, NULL);
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

/* ---- against the reference on a sum of sines ------------------------------------------------------------------- */

/* A camera low over the sines looking down at -55°, at (x, y): every pixel sees ground. */
static st_camera down_camera(const analytic *a, double x, double y, double above, float yaw) {
    return store_camera(x, y, analytic_bilinear(a, x, y) + above, yaw, -55, 3000);
}

/* The sweep: the eye flies 400 m over the sines (level boundaries cross the whole image), every pixel of every
 * frame must show ground, because the reference does; the morph alone (no skirts) closes every seam. */
static void test_no_crack_sweep(void **state) {
    (void)state;
    scene sc = sine_scene(70, "cdlod-sweep", NULL);
    st_method_knobs k = {.tau_px = 2, .lod_grid = 8};
    for (int m = 0; m < 2; m++) {
        st_renderer *r = store_renderer(sc.engine, METHODS[m], W, H, &k);
        uint32_t levels_seen = 0;
        for (int step = 0; step < 24; step++) {
            double x = 150 + 17.0 * step, y = 200 + 9.0 * step;
            st_camera cam = down_camera(&sc.a, x, y, 30 + (step % 5) * 6, 60);
            cam.pitch_deg = -50;
            frame f = store_frame(sc.engine, r, cam, W, H);
            float *ref = reference_distances(&sc, cam, W, H, false, NULL);
            uint32_t holes = 0, ground = 0;
            for (uint32_t i = 0; i < W * H; i++) {
                if (isnan(ref[i])) continue;
                ground++;
                if (isnan(f.dist[i])) holes++;
            }
            assert_true(ground == W * H); /* the camera sees nothing but ground */
            if (holes) {
                frame_write("sweep-crack", &f, W, H);
                fail_msg("%s step %d: %u background pixels where the ground is (levels %u..)", METHODS[m], step, holes,
                         f.lod.per_level[0] ? 0 : 1);
            }
            uint32_t used = 0;
            for (uint32_t l = 0; l < f.lod.levels; l++) used += f.lod.per_level[l] > 0;
            if (used > levels_seen) levels_seen = used;
            assert_int_equal(f.lod.one_level_violations, 0);
            free(ref);
            frame_free(&f);
        }
        assert_true(levels_seen >= 3); /* the frames did span level boundaries */
        st_renderer_destroy(r);
    }
    scene_free(&sc);
}

/* The sweep at the pitches where the skyline is in the image (0°, −15°, −30°): the eye low over the sines, level
 * boundaries running toward the horizon; a pixel the reference sees ground in may show sky only above the method's
 * own terrain (a ridge drawn a little lower by a coarser level), never under it (st_eval_seam_holes: a seam's
 * crack or a missing patch). */
static void test_no_seam_holes_low_pitch(void **state) {
    (void)state;
    scene sc = sine_scene(70, "cdlod-low-sweep", NULL);
    st_method_knobs k = {.tau_px = 2, .lod_grid = 8};
    static const float pitch[3] = {0, -15, -30};
    for (int m = 0; m < 2; m++) {
        st_renderer *r = store_renderer(sc.engine, METHODS[m], W, H, &k);
        uint32_t levels_seen = 0, sky_frames = 0;
        for (int step = 0; step < 18; step++) {
            double x = 120 + 21.0 * step, y = 150 + 11.0 * step;
            st_camera cam = store_camera(x, y, analytic_bilinear(&sc.a, x, y) + 6 + (step % 4) * 9, 40 + 7 * step,
                                         pitch[step % 3], 3000);
            frame f = store_frame(sc.engine, r, cam, W, H);
            float *ref = reference_distances(&sc, cam, W, H, false, NULL);
            size_t first;
            uint64_t holes = st_eval_seam_holes(f.dist, ref, W, H, &first);
            uint32_t sky = 0;
            for (uint32_t i = 0; i < W * H; i++) sky += isnan(ref[i]);
            sky_frames += sky > 0;
            if (holes) {
                frame_write("low-sweep-hole", &f, W, H);
                fail_msg("%s step %d (pitch %.0f°): %llu sky pixels under its own terrain, the first at (%zu, %zu)",
                         METHODS[m], step, (double)pitch[step % 3], (unsigned long long)holes, first % W, first / W);
            }
            uint32_t used = 0;
            for (uint32_t l = 0; l < f.lod.levels; l++) used += f.lod.per_level[l] > 0;
            if (used > levels_seen) levels_seen = used;
            free(ref);
            frame_free(&f);
        }
        assert_true(levels_seen >= 3); /* the frames did span level boundaries */
        assert_true(sky_frames >= 6);  /* and had a skyline */
        st_renderer_destroy(r);
    }
    scene_free(&sc);
}

/* Depth and the image-space error against the full-resolution reference: the error of the drawn surface, projected,
 * stays within τ (a little more where the morph blends), and both variants agree with each other. */
static void test_sine_against_reference(void **state) {
    (void)state;
    scene sc = sine_scene(90, "cdlod-sine", NULL);
    float tau = 1.0f;
    st_method_knobs k = {.tau_px = tau, .lod_grid = 8};
    st_camera cams[2] = {down_camera(&sc.a, 300, 250, 40, 30), store_camera(100, 120, 120, 45, -15, 3000)};
    frame fr[2][2];
    for (int m = 0; m < 2; m++) {
        st_renderer *r = store_renderer(sc.engine, METHODS[m], W, H, &k);
        for (int c = 0; c < 2; c++) fr[m][c] = store_frame(sc.engine, r, cams[c], W, H);
        st_renderer_destroy(r);
    }
    for (int c = 0; c < 2; c++) {
        float *ref = reference_distances(&sc, cams[c], W, H, false, NULL);
        st_view v = st_camera_view(&cams[c], W, H);
        for (int m = 0; m < 2; m++) {
            uint32_t both = 0, mismatch = 0, over = 0;
            for (uint32_t j = 0; j < H; j++)
                for (uint32_t i = 0; i < W; i++) {
                    float a = fr[m][c].dist[j * W + i], b = ref[j * W + i];
                    if (isnan(a) != isnan(b)) mismatch++;
                    if (isnan(a) || isnan(b)) continue;
                    both++;
                    /* the image-space error: the drawn point against the true surface below/above it, on screen */
                    float dir[3];
                    st_view_pixel_ray(&v, i, j, dir, NULL, NULL);
                    double p[3] = {dir[0] * a, dir[1] * a, dir[2] * a};
                    double dz = v.origin[2] + p[2] - analytic_bilinear(&sc.a, v.origin[0] + p[0], v.origin[1] + p[1]);
                    double q[3] = {p[0], p[1], p[2] - dz};
                    double zp = p[0] * v.forward[0] + p[1] * v.forward[1] + p[2] * v.forward[2];
                    double zq = q[0] * v.forward[0] + q[1] * v.forward[1] + q[2] * v.forward[2];
                    double px[2] = {v.focal_px * (p[0] * v.screen_right[0] + p[1] * v.screen_right[1] + p[2] * v.screen_right[2]) / zp,
                                    v.focal_px * (p[0] * v.screen_up[0] + p[1] * v.screen_up[1] + p[2] * v.screen_up[2]) / zp};
                    double qx[2] = {v.focal_px * (q[0] * v.screen_right[0] + q[1] * v.screen_right[1] + q[2] * v.screen_right[2]) / zq,
                                    v.focal_px * (q[0] * v.screen_up[0] + q[1] * v.screen_up[1] + q[2] * v.screen_up[2]) / zq};
                    if (hypot(px[0] - qx[0], px[1] - qx[1]) > 1.5 * tau) over++;
                }
            assert_true(both > W * H / 3);
            if (mismatch > W * H / 100) fail_msg("%s camera %d: %u pixels drawn where the reference is sky or back", METHODS[m], c, mismatch);
            if (over > both / 50) fail_msg("%s camera %d: %u of %u pixels off by more than 1.5 τ on screen", METHODS[m], c, over, both);
        }
        /* the two variants draw the same surface */
        uint32_t diff = 0;
        for (uint32_t i = 0; i < W * H; i++) {
            float a = fr[0][c].dist[i], b = fr[1][c].dist[i];
            if (isnan(a) != isnan(b) || (!isnan(a) && fabsf(a - b) > 1e-3f * a + 1e-3f)) diff++;
        }
        if (diff > W * H / 200) fail_msg("camera %d: cdlod and cdlod-compute differ in %u pixels", c, diff);
        free(ref);
    }
    for (int m = 0; m < 2; m++)
        for (int c = 0; c < 2; c++) frame_free(&fr[m][c]);
    scene_free(&sc);
}

/* Culling changes no pixel: the same frames with every node kept, from cameras whose frustum corners graze the
 * ground near the eye and the world's edges (where a culling bug drops what is seen). */
static void test_culling_changes_nothing(void **state) {
    (void)state;
    scene sc = sine_scene(70, "cdlod-cull", NULL);
    st_method_knobs kc = {.tau_px = 1, .lod_grid = 8}, ka = kc;
    ka.lod_no_cull = true;
    st_camera cams[4] = {store_camera(40, 40, 75, 200, -60, 3000), store_camera(1000, 30, 80, 330, -20, 3000),
                         store_camera(512, 512, 300, 10, -90, 3000), store_camera(20, 900, 90, 120, -5, 3000)};
    for (int m = 0; m < 2; m++) {
        st_renderer *rc = store_renderer(sc.engine, METHODS[m], W, H, &kc);
        st_renderer *ra = store_renderer(sc.engine, METHODS[m], W, H, &ka);
        for (int c = 0; c < 4; c++) {
            frame a = store_frame(sc.engine, rc, cams[c], W, H), b = store_frame(sc.engine, ra, cams[c], W, H);
            assert_true(a.lod.culled > 0);
            assert_true(b.lod.nodes > a.lod.nodes);
            uint32_t diff = 0;
            for (uint32_t i = 0; i < W * H; i++)
                if (memcmp(&a.dist[i], &b.dist[i], sizeof(float)) || memcmp(a.rgba + 4 * i, b.rgba + 4 * i, 3)) diff++;
            if (diff) fail_msg("%s camera %d: culling changed %u pixels", METHODS[m], c, diff);
            frame_free(&a);
            frame_free(&b);
        }
        st_renderer_destroy(rc);
        st_renderer_destroy(ra);
    }
    scene_free(&sc);
}

/* ---- a tile that does not load ---------------------------------------------------------------------------------- */

/* The finest tile under the eye fails to load: its nodes draw its parent's heights (the level-1 surface, which
 * differs from the finest here, the waves being short), and with skirts no pixel goes missing (without them the
 * parent's surface and the finest one meet with a step along the tile's edge: docs/large-world.md). */
static void test_missing_tile_draws_ancestor(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_SINE, .size = 257, .spacing = 2, .base = 60, .amp = 20, .wave = 10};
    st_store *store = analytic_store(&a, 33, "cdlod-broken");
    broken_loader bl = {store, {0, 3, 3}}; /* covers x, y in [192, 256] m */
    st_engine *e = store_engine(store, &(st_world_desc){.gpu_slots = 256, .load = broken_load, .load_user = &bl});
    st_method_knobs k = {.tau_px = 0.5f, .lod_grid = 8, .skirts = true};
    st_camera cam = store_camera(224, 224, analytic_bilinear(&a, 224, 224) + 60, 0, -90, 1000);
    st_dem_reference *ref = NULL;
    assert_st_ok(st_dem_reference_create(store, 0, &ref, err));
    for (int m = 0; m < 2; m++) {
        st_renderer *r = store_renderer(e, METHODS[m], W, H, &k);
        st_lod_frame_stats s = {0};
        for (int i = 0; i < 300; i++) { /* until every other tile is in: only the broken one falls back */
            assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
            st_renderer_lod_stats(r, &s);
            st_world_stats ws;
            assert_st_ok(st_engine_world_stats(e, &ws, err));
            if (!s.missing && s.fallback && !ws.residency.queued && !ws.residency.loading) break;
        }
        assert_true(s.fallback > 0);
        assert_int_equal(s.missing, 0);
        float *depth = store_frame_distances(r, &cam, W, H);
        st_view v = st_camera_view(&cam, W, H);
        uint32_t in_tile = 0, on_parent = 0;
        for (uint32_t j = 0; j < H; j++)
            for (uint32_t i = 0; i < W; i++) {
                float d = depth[j * W + i];
                if (isnan(d)) fail_msg("%s: pixel (%u, %u) is a hole", METHODS[m], i, j);
                float dir[3];
                st_view_pixel_ray(&v, i, j, dir, NULL, NULL);
                double x = v.origin[0] + dir[0] * d, y = v.origin[1] + dir[1] * d, z = v.origin[2] + dir[2] * d;
                if (x < 194 || x > 254 || y < 194 || y > 254) continue; /* inside the broken tile, off its edges */
                in_tile++;
                /* the level-1 surface: bilinear over every other sample */
                double u = x / 4, w = y / 4, fu = floor(u), fw = floor(w), tu = u - fu, tw = w - fw;
                int64_t i0 = (int64_t)fu * 2, j0 = (int64_t)fw * 2;
                double s1 = (analytic_sample(&a, i0, j0) * (1 - tu) + analytic_sample(&a, i0 + 2, j0) * tu) * (1 - tw) +
                            (analytic_sample(&a, i0, j0 + 2) * (1 - tu) + analytic_sample(&a, i0 + 2, j0 + 2) * tu) * tw;
                double s0 = analytic_bilinear(&a, x, y);
                if (fabs(z - s1) < fabs(z - s0)) on_parent++;
            }
        assert_true(in_tile > 100);
        if (on_parent < in_tile * 9 / 10)
            fail_msg("%s: %u of %u pixels in the broken tile lie on its parent's surface", METHODS[m], on_parent, in_tile);
        free(depth);
        st_renderer_destroy(r);
    }
    st_dem_reference_destroy(ref);
    test_engine_finish(e, NULL);
    st_store_close(store);
}

/* Holes: every tile under the eye, at every level, fails to load, so the nodes there have no drawable ancestor and
 * draw nothing; the frame's hole figure bounds the background pixels they leave, and is 0 once nothing is missing. */
typedef struct chain_loader {
    st_store *store;
    double x, y, spacing; /* the point whose tiles fail */
    uint32_t intervals;
} chain_loader;

static st_result chain_load(void *user, st_tile_key key, st_tile **out, st_error *err) {
    const chain_loader *c = user;
    double span = (double)(c->intervals << key.level) * c->spacing;
    if ((uint32_t)(c->x / span) == key.x && (uint32_t)(c->y / span) == key.y)
        return st_error_set(err, ST_ERR_IO, "tile %u/%u/%u is broken", key.level, key.x, key.y);
    return st_store_read_tile(c->store, key, out, err);
}

static void test_holes_counted(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_SINE, .size = 257, .spacing = 2, .base = 60, .amp = 20, .wave = 10};
    st_store *store = analytic_store(&a, 33, "cdlod-holes");
    chain_loader cl = {store, 224, 224, 2, 32};
    st_engine *e = store_engine(store, &(st_world_desc){.gpu_slots = 256, .load = chain_load, .load_user = &cl});
    st_method_knobs k = {.tau_px = 0.5f, .lod_grid = 8};
    st_camera cam = store_camera(224, 224, analytic_bilinear(&a, 224, 224) + 60, 0, -90, 1000);
    for (int m = 0; m < 2; m++) {
        st_renderer *r = store_renderer(e, METHODS[m], W, H, &k);
        st_lod_frame_stats s = {0};
        for (int i = 0; i < 300; i++) { /* until every other tile is in */
            assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
            st_renderer_lod_stats(r, &s);
            st_world_stats ws;
            assert_st_ok(st_engine_world_stats(e, &ws, err));
            if (!ws.residency.queued && !ws.residency.loading && i > 10) break;
        }
        assert_true(s.missing > 0);
        assert_false(s.settled);
        float *depth = store_frame_distances(r, &cam, W, H);
        uint32_t background = 0;
        for (uint32_t i = 0; i < W * H; i++) background += isnan(depth[i]);
        free(depth);
        /* looking straight down on the world, every background pixel is a hole, and the figure bounds them */
        if (!(background > 0 && background <= s.hole_px && s.hole_px <= W * H))
            fail_msg("%s: %u background pixels, hole figure %llu", METHODS[m], background, (unsigned long long)s.hole_px);
        st_renderer_destroy(r);
    }
    test_engine_finish(e, NULL);
    st_store_close(store);
}

/* Skirts: the same frame with skirts adds their triangles (N per side), keeps every pixel of the ground, and changes
 * only pixels where a skirt shows (none when the morph closes every seam and the view is from above). */
static void test_skirts(void **state) {
    (void)state;
    scene sc = sine_scene(70, "cdlod-skirts", NULL);
    st_method_knobs k = {.tau_px = 1, .lod_grid = 8, .lod_no_cull = true}, ks = k; /* the same nodes both times */
    ks.skirts = true;
    st_camera cam = down_camera(&sc.a, 300, 300, 30, 75);
    for (int m = 0; m < 2; m++) {
        st_renderer *r0 = store_renderer(sc.engine, METHODS[m], W, H, &k), *r1 = store_renderer(sc.engine, METHODS[m], W, H, &ks);
        frame a = store_frame(sc.engine, r0, cam, W, H), b = store_frame(sc.engine, r1, cam, W, H);
        assert_int_equal(a.lod.skirt_triangles, 0);
        assert_true(b.lod.skirt_triangles > 0);
        assert_int_equal(b.lod.triangles - b.lod.skirt_triangles, a.lod.triangles);
        uint32_t diff = 0;
        for (uint32_t i = 0; i < W * H; i++) {
            assert_false(isnan(b.dist[i]));
            if (fabsf(a.dist[i] - b.dist[i]) > 1e-3f * a.dist[i]) diff++;
        }
        assert_true(diff <= W * H / 100); /* skirts hide under the closed seams */
        frame_free(&a);
        frame_free(&b);
        st_renderer_destroy(r0);
        st_renderer_destroy(r1);
    }
    scene_free(&sc);
}

/* ---- the GLSL vertex against its C twin ------------------------------------------------------------------------ */

typedef struct tile_heights {
    st_tile *t;
} tile_heights;

static double tile_bilinear(void *user, double u, double v) {
    const st_tile *t = ((tile_heights *)user)->t;
    double last = t->size - 1;
    u = fmin(fmax(u, 0), last), v = fmin(fmax(v, 0), last);
    double fu = fmin(floor(u), last - 1), fv = fmin(floor(v), last - 1), tu = u - fu, tv = v - fv;
    uint32_t i = (uint32_t)fu, j = (uint32_t)fv;
    double a = st_tile_height(t, i, j) * (1 - tu) + st_tile_height(t, i + 1, j) * tu;
    double b = st_tile_height(t, i, j + 1) * (1 - tu) + st_tile_height(t, i + 1, j + 1) * tu;
    return a * (1 - tv) + b * tv;
}

/* Every grid vertex of the nodes of a frame, computed by the shader (cdlod_probe.comp runs the shared vertex
 * function) and by st_lod_vertex: the same positions and morph factors, morphing vertices among them. */
static void test_vertex_twin(void **state) {
    (void)state;
    scene sc = sine_scene(70, "cdlod-twin", NULL);
    st_method_knobs k = {.tau_px = 1, .lod_grid = 8};
    st_renderer *r = store_renderer(sc.engine, "cdlod", W, H, &k);
    st_camera cam = store_camera(300, 250, analytic_bilinear(&sc.a, 300, 250) + 35, 60, -25, 3000);
    frame f = store_frame(sc.engine, r, cam, W, H);
    const uint32_t *from;
    uint32_t drawn;
    const st_lod_selection *sel = st_cdlod_last_frame(r, &from, &drawn);
    assert_non_null(sel);
    assert_true(drawn > 10);
    st_lod_world w;
    assert_st_ok(st_lod_world_of_store(sc.store, NULL, 8, &w, err));
    st_view v = st_camera_view(&cam, W, H);
    uint32_t n1 = 9, count = n1 * n1, morphing = 0, checked = 0;
    float grid[2 * 81], out[4 * 81];
    for (uint32_t y = 0; y < n1; y++)
        for (uint32_t x = 0; x < n1; x++) grid[2 * (y * n1 + x)] = (float)x, grid[2 * (y * n1 + x) + 1] = (float)y;
    double worst_p = 0, worst_k = 0;
    for (uint32_t d = 0; d < drawn; d += drawn / 40 + 1) {
        const st_lod_node *n = &sel->nodes[from[d]];
        assert_st_ok(st_cdlod_probe(r, d, grid, count, out, err));
        tile_heights th = {0};
        assert_st_ok(st_store_read_tile(sc.store, n->tile, &th.t, err));
        double corner[2], cx, cy;
        st_lod_node_corner(&w, n, corner, &cx, &cy);
        double scale = ldexp(1, -(int)n->tile.level);
        double X0 = (double)n->x * 8 * ldexp(1, (int)n->level), Y0 = (double)n->y * 8 * ldexp(1, (int)n->level);
        double tex0[2] = {(X0 - (double)n->tile.x * 32 * ldexp(1, (int)n->tile.level)) * scale,
                          (Y0 - (double)n->tile.y * 32 * ldexp(1, (int)n->tile.level)) * scale};
        double step = ldexp(1, (int)n->level - (int)n->tile.level);
        double ext = 512 * 2.0, limit[2] = {(ext - corner[0]) / cx, (ext - corner[1]) / cy};
        for (uint32_t i = 0; i < count; i++) {
            double p[3], kk;
            st_lod_vertex(v.origin, &sel->bands[n->level], corner, cx, cy, tex0, step, limit, grid[2 * i],
                          grid[2 * i + 1], tile_bilinear, &th, p, &kk);
            double dx = v.origin[0] + out[4 * i] - p[0], dy = v.origin[1] + out[4 * i + 1] - p[1];
            double dz = v.origin[2] + out[4 * i + 2] - p[2];
            worst_p = fmax(worst_p, sqrt(dx * dx + dy * dy + dz * dz));
            worst_k = fmax(worst_k, fabs(out[4 * i + 3] - kk));
            if (kk > 0.01 && kk < 0.99) morphing++;
            checked++;
        }
        st_tile_destroy(th.t);
    }
    if (worst_p > 2e-3 || worst_k > 1e-3)
        fail_msg("the shader's vertices differ from st_lod_vertex by up to %.5f m (morph factor by %.5f)", worst_p, worst_k);
    assert_true(checked > 1000);
    assert_true(morphing > 20); /* vertices inside morph bands were compared */
    frame_free(&f);
    st_renderer_destroy(r);
    scene_free(&sc);
}

/* cdlod-compute computes a grid vertex once per triangle that uses it, in three inlined copies of the vertex
 * function (cdlod_fetch): every copy of a shared vertex must give the same bits, and the same as the vertex
 * function called alone (what the raster variant's vertex shader runs), or neighbouring triangles leave cracks the
 * rasteriser's exact test lets far terrain show through. */
static void test_compute_vertices_bit_identical(void **state) {
    (void)state;
    scene sc = sine_scene(70, "cdlod-bits", NULL);
    st_method_knobs k = {.tau_px = 1, .lod_grid = 8};
    st_renderer *r = store_renderer(sc.engine, "cdlod-compute", W, H, &k);
    st_camera cam = store_camera(300, 250, analytic_bilinear(&sc.a, 300, 250) + 35, 60, -25, 3000);
    frame f = store_frame(sc.engine, r, cam, W, H);
    uint32_t per_patch = 2 * 4 * 4, count = f.lod.quadrants * per_patch;
    assert_true(count > 1000);
    uint32_t *tris = malloc(count * sizeof *tris);
    float *out = malloc((size_t)count * 20 * sizeof *out);
    for (uint32_t i = 0; i < count; i++) tris[i] = i;
    assert_st_ok(st_cdlod_tri_probe(r, tris, count, out, err));
    /* per (node, grid vertex) of the 9 × 9 grid: the first copy seen, then every other held to it */
    uint32_t nodes = f.lod.nodes, compared = 0, differ = 0;
    float *first = malloc((size_t)nodes * 81 * 3 * sizeof *first);
    uint8_t *seen = calloc((size_t)nodes * 81, 1);
    for (uint32_t t = 0; t < count; t++) {
        const float *o = out + 20 * t;
        float g[6] = {o[12], o[13], o[14], o[15], o[16], o[17]};
        for (int c = 0; c < 3; c++) {
            uint32_t node = (uint32_t)o[4 * c + 3], gx = (uint32_t)g[2 * c], gy = (uint32_t)g[2 * c + 1];
            assert_true(node < nodes && gx <= 8 && gy <= 8);
            size_t at = (size_t)node * 81 + gy * 9 + gx;
            if (!seen[at]) {
                memcpy(first + 3 * at, o + 4 * c, 12);
                seen[at] = 1;
                continue;
            }
            compared++;
            if (memcmp(first + 3 * at, o + 4 * c, 12)) differ++;
        }
    }
    if (differ) fail_msg("%u of %u shared corners differ between the triangles that use them", differ, compared);
    assert_true(compared > count);
    /* and the vertex function alone, per node, on the same grid vertices */
    float grid[2 * 81], alone[4 * 81];
    for (uint32_t y = 0; y < 9; y++)
        for (uint32_t x = 0; x < 9; x++) grid[2 * (y * 9 + x)] = (float)x, grid[2 * (y * 9 + x) + 1] = (float)y;
    uint32_t against = 0, off = 0;
    for (uint32_t n = 0; n < nodes; n += nodes / 50 + 1) {
        assert_st_ok(st_cdlod_probe(r, n, grid, 81, alone, err));
        for (uint32_t v = 0; v < 81; v++) {
            size_t at = (size_t)n * 81 + v;
            if (!seen[at]) continue;
            against++;
            if (memcmp(first + 3 * at, alone + 4 * v, 12)) off++;
        }
    }
    if (off) fail_msg("%u of %u corners differ from the vertex function called alone", off, against);
    assert_true(against > 100);
    free(first);
    free(seen);
    free(tris);
    free(out);
    frame_free(&f);
    st_renderer_destroy(r);
    scene_free(&sc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane_known_depth),
        cmocka_unit_test(test_tilted_plane_known_depth),
        cmocka_unit_test(test_wrong_world_refused),
        cmocka_unit_test(test_no_crack_sweep),
        cmocka_unit_test(test_no_seam_holes_low_pitch),
        cmocka_unit_test(test_sine_against_reference),
        cmocka_unit_test(test_culling_changes_nothing),
        cmocka_unit_test(test_missing_tile_draws_ancestor),
        cmocka_unit_test(test_holes_counted),
        cmocka_unit_test(test_skirts),
        cmocka_unit_test(test_vertex_twin),
        cmocka_unit_test(test_compute_vertices_bit_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
