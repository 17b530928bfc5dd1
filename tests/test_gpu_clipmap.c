/* GPU tests of geometry clipmaps (lavapipe, validation on) on tiny analytic stores (tests/analytic_store.h): the
 * known depth of every pixel on a plane, a tilted plane and a sum of sines for clipmap and clipmap-compute; a
 * camera sweep across level borders leaving no background pixel where the reference has ground; the toroidal
 * update equal to a fresh fill, bit for bit, after random moves; the blend continuous at every level border; a tile
 * that does not load drawn from the coarser level. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/methods.h"
#include "store_frames.h"

#define W 96
#define H 64

static const char *const METHODS[2] = {"clipmap", "clipmap-compute"};

static st_renderer *clip_renderer(st_engine *e, const char *method, uint32_t n) {
    return store_renderer(e, method, W, H, &(st_method_knobs){.clip_n = n});
}

/* ---- known depth ------------------------------------------------------------------------------------------------ */

/* Every pixel against the analytic surface: planes exactly (any level's grid is the plane), the sines within the
 * error of the level drawn there (a tolerance of a grid step of the coarsest level seen, on screen). */
static void check_known_depth(const analytic *a, const char *label, uint32_t n) {
    st_store *s = analytic_store(a, 33, label);
    st_engine *e = store_engine(s, &(st_world_desc){.gpu_slots = 256});
    double ext = (double)(a->size - 1) * a->spacing;
    double x[3] = {0.5 * ext, 0.2 * ext, 0.9 * ext}, y[3] = {0.5 * ext, 0.1 * ext, 0.8 * ext};
    st_camera cams[] = {
        store_camera(x[0], y[0], analytic_at(a, x[0], y[0]) + 300, 0, -90, 2000),
        store_camera(x[1], y[1], analytic_at(a, x[1], y[1]) + 30, 30, -25, 2000),
        store_camera(x[2], y[2], analytic_at(a, x[2], y[2]) + 8, 200, -10, 2000),
    };
    bool plane = a->shape != SHAPE_SINE;
    for (int m = 0; m < 2; m++) {
        st_renderer *r = clip_renderer(e, METHODS[m], n);
        for (size_t c = 0; c < sizeof cams / sizeof cams[0]; c++) {
            frame f = store_frame(e, r, cams[c], W, H);
            char name[96];
            snprintf(name, sizeof name, "clip-%s-%s-%zu", label, METHODS[m], c);
            frame_write(name, &f, W, H);
            st_view v = st_camera_view(&cams[c], W, H);
            uint32_t hits = 0, off = 0, mismatch = 0;
            for (uint32_t j = 0; j < H; j++)
                for (uint32_t i = 0; i < W; i++) {
                    double want = analytic_ray(a, &v, i, j);
                    float got = f.dist[j * W + i];
                    if (near_world_edge(&v, i, j, isnan(want) ? (double)got : want, ext)) continue;
                    if (isnan(want) != isnan(got)) {
                        if (plane)
                            fail_msg("%s %s camera %zu pixel (%u, %u): %s drawn where the surface %s", label, METHODS[m],
                                     c, i, j, isnan(got) ? "nothing" : "terrain", isnan(want) ? "is not" : "is");
                        mismatch++;
                        continue;
                    }
                    if (isnan(want)) continue;
                    hits++;
                    if (plane && fabs(got - want) > 1e-3 * want + 1e-3)
                        fail_msg("%s %s camera %zu pixel (%u, %u): distance %.4f, the plane is at %.4f", label,
                                 METHODS[m], c, i, j, (double)got, want);
                    if (!plane && fabs(got - want) > 0.03 * want + 0.5) off++;
                }
            assert_true(hits > W * H / 4);
            if (!plane && (mismatch > W * H / 100 || off > hits / 50))
                fail_msg("%s %s camera %zu: %u pixels drawn where not, %u of %u off by more than 3 %%", label,
                         METHODS[m], c, mismatch, off, hits);
            frame_free(&f);
        }
        st_renderer_destroy(r);
    }
    test_engine_finish(e, NULL);
    st_store_close(s);
}

static void test_plane_known_depth(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_PLANE, .size = 257, .spacing = 2, .base = 40};
    check_known_depth(&a, "plane", 31);
}

static void test_tilted_plane_known_depth(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_TILT, .size = 257, .spacing = 2, .base = 10, .slope_x = 0.15, .slope_y = -0.05};
    check_known_depth(&a, "tilt", 63);
}

static void test_sine_known_depth(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_SINE, .size = 257, .spacing = 2, .base = 60, .amp = 20, .wave = 120};
    check_known_depth(&a, "sine", 63);
}

/* ---- no crack -------------------------------------------------------------------------------------------------- */

/* The sweep: the eye flies over the sines with a grid of 31, looking down, so that level borders cross the image; every pixel where the reference sees ground shows ground (no crack between rings, no T-junction gap). */
static void test_no_crack_sweep(void **state) {
    (void)state;
    scene sc = sine_scene(70, "clip-sweep", NULL);
    for (int m = 0; m < 2; m++) {
        st_renderer *r = clip_renderer(sc.engine, METHODS[m], 31);
        uint32_t levels_seen = 0;
        for (int step = 0; step < 20; step++) {
            double x = 150 + 17.3 * step, y = 200 + 9.1 * step;
            st_camera cam = store_camera(x, y, analytic_bilinear(&sc.a, x, y) + 20 + (step % 5) * 7, 60 + 9 * step,
                                         -65 - step % 3 * 8, 3000);
            frame f = store_frame(sc.engine, r, cam, W, H);
            float *ref = reference_distances(&sc, cam, W, H, false, NULL);
            uint32_t holes = 0, ground = 0;
            for (uint32_t i = 0; i < W * H; i++) {
                if (isnan(ref[i])) continue;
                ground++;
                if (isnan(f.dist[i])) {
                    if (holes < 8) print_message("hole at (%u, %u), the reference at %.1f m\n", i % W, i / W, (double)ref[i]);
                    holes++;
                }
            }
            assert_true(ground == W * H); /* the camera sees nothing but ground */
            if (holes) {
                frame_write("clip-sweep-crack", &f, W, H);
                fail_msg("%s step %d: %u background pixels where the ground is", METHODS[m], step, holes);
            }
            uint32_t used = 0;
            for (uint32_t l = 0; l < f.lod.levels; l++) used += f.lod.per_level[l] > 0;
            if (used > levels_seen) levels_seen = used;
            free(ref);
            frame_free(&f);
        }
        assert_true(levels_seen >= 3); /* the frames did span level borders */
        st_renderer_destroy(r);
    }
    scene_free(&sc);
}

/* ---- the toroidal update ---------------------------------------------------------------------------------------- */

/* A renderer moved through random cameras (short hops that shift the windows by a few samples, and jumps) holds,
 * at the end, the same heights bit for bit in every level's window as a fresh renderer drawn at the last camera;
 * a frame that does not move updates nothing. */
static void toroidal_equals_fresh(uint32_t n) {
    scene sc = sine_scene(90, "clip-torus", NULL);
    st_renderer *moved = clip_renderer(sc.engine, "clipmap", n);
    srand(5);
    double x = 400, y = 500;
    st_camera cam = {0};
    uint64_t updated_moving = 0;
    for (int step = 0; step < 40; step++) {
        if (step % 13 == 12) x = 100 + rand() % 800, y = 100 + rand() % 800; /* a jump */
        else x += (rand() % 41 - 20) * 0.7, y += (rand() % 41 - 20) * 0.7;
        x = fmin(fmax(x, 10), 1010), y = fmin(fmax(y, 10), 1010);
        cam = store_camera(x, y, analytic_bilinear(&sc.a, x, y) + 5 + rand() % 60, (float)(rand() % 360), -20, 3000);
        frame f = store_frame(sc.engine, moved, cam, W, H);
        st_clipmap_frame_info fi;
        assert_st_ok(st_clipmap_last_frame(moved, &fi, err));
        updated_moving += fi.texels_updated;
        frame_free(&f);
    }
    st_clipmap_frame_info a;
    assert_st_ok(st_clipmap_last_frame(moved, &a, err));
    /* the same camera again: nothing to update */
    assert_st_ok(st_renderer_draw(moved, &cam, NULL, err));
    st_clipmap_frame_info still;
    assert_st_ok(st_clipmap_last_frame(moved, &still, err));
    assert_int_equal(still.texels_updated, 0);
    st_renderer *fresh = clip_renderer(sc.engine, "clipmap", n);
    frame f = store_frame(sc.engine, fresh, cam, W, H);
    frame_free(&f);
    st_clipmap_frame_info b;
    assert_st_ok(st_clipmap_last_frame(fresh, &b, err));
    assert_int_equal(a.finest, b.finest);
    uint32_t N = a.geom.n + 1;
    float *ha = malloc((size_t)N * N * 8), *hb = malloc((size_t)N * N * 8);
    uint64_t compared = 0;
    for (uint32_t l = a.finest; l < a.geom.levels; l++) {
        assert_true(a.origin[l][0] == b.origin[l][0] && a.origin[l][1] == b.origin[l][1]);
        assert_st_ok(st_clipmap_read_heights(moved, l, ha, err));
        assert_st_ok(st_clipmap_read_heights(fresh, l, hb, err));
        for (int64_t j = a.origin[l][1]; j < a.origin[l][1] + a.geom.n; j++)
            for (int64_t i = a.origin[l][0]; i < a.origin[l][0] + a.geom.n; i++) {
                size_t t = (size_t)(((j % N) + N) % N) * N + (size_t)(((i % N) + N) % N);
                if (memcmp(&ha[2 * t], &hb[2 * t], 8))
                    fail_msg("level %u sample (%lld, %lld): (%.9g, %.9g) updated, (%.9g, %.9g) fresh", l, (long long)i,
                             (long long)j, ha[2 * t], ha[2 * t + 1], hb[2 * t], hb[2 * t + 1]);
                compared++;
            }
    }
    assert_true(compared >= 2ull * n * n);
    /* the moves updated far less than refilling every level every frame would have */
    assert_true(updated_moving < 40ull * (a.geom.levels - a.finest) * n * n / 2);
    free(ha);
    free(hb);
    st_renderer_destroy(moved);
    st_renderer_destroy(fresh);
    scene_free(&sc);
}

static void test_toroidal_equals_fresh(void **state) {
    (void)state;
    toroidal_equals_fresh(63);
    toroidal_equals_fresh(75); /* n + 1 = 76 texels a side, not a power of two: the wrap is a true modulo */
}

/* ---- the finest level from τ ------------------------------------------------------------------------------------ */

/* With n from τ the finest level follows the error too: over a plane (δ = 0 at every level) the coarsest level is
 * with a δ drawn from the eye on and the depth is still exact; over short sines seen from low down level 0 stays. */
static void test_finest_level_from_tau(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_PLANE, .size = 513, .spacing = 2, .base = 40};
    st_store *s = analytic_store(&a, 33, "clip-tau-plane");
    st_engine *e = store_engine(s, &(st_world_desc){.gpu_slots = 256});
    st_camera cam = store_camera(500, 480, 80, 20, -60, 3000); /* LH04 alone draws level 1 from 40 m up */
    st_renderer *r = store_renderer(e, "clipmap", W, H, &(st_method_knobs){.tau_px = 1});
    frame f = store_frame(e, r, cam, W, H);
    st_clipmap_frame_info fi;
    assert_st_ok(st_clipmap_last_frame(r, &fi, err));
    assert_int_equal(fi.finest, fi.geom.store_levels - 1); /* the coarsest with a measured δ */
    st_view v = st_camera_view(&cam, W, H);
    uint32_t hits = 0;
    for (uint32_t j = 0; j < H; j++)
        for (uint32_t i = 0; i < W; i++) {
            double want = analytic_ray(&a, &v, i, j);
            float got = f.dist[j * W + i];
            if (near_world_edge(&v, i, j, isnan(want) ? (double)got : want, (double)(a.size - 1) * a.spacing)) continue;
            if (isnan(want) != isnan(got)) fail_msg("pixel (%u, %u): %s drawn", i, j, isnan(got) ? "nothing" : "terrain");
            if (isnan(want)) continue;
            hits++;
            if (fabs(got - want) > 1e-3 * want + 1e-3) fail_msg("pixel (%u, %u): %.4f, the plane at %.4f", i, j, (double)got, want);
        }
    assert_true(hits > W * H / 4);
    frame_free(&f);
    st_renderer_destroy(r);
    test_engine_finish(e, NULL);
    st_store_close(s);

    scene sc = sine_scene(20, "clip-tau-sine", NULL);
    cam = store_camera(500, 480, analytic_bilinear(&sc.a, 500, 480) + 40, 20, -30, 3000);
    r = store_renderer(sc.engine, "clipmap", W, H, &(st_method_knobs){.tau_px = 1});
    f = store_frame(sc.engine, r, cam, W, H);
    assert_st_ok(st_clipmap_last_frame(r, &fi, err));
    assert_int_equal(fi.finest, 0);
    frame_free(&f);
    st_renderer_destroy(r);
    scene_free(&sc);
}

/* ---- freeze ------------------------------------------------------------------------------------------------------ */

/* freeze_culling (the viewer's freeze-LOD key): the layout stays where the first frame put it — active levels,
 * windows — while the eye flies out and up, so the rings can be looked at from outside; without it they follow. */
static void test_freeze_keeps_layout(void **state) {
    (void)state;
    scene sc = sine_scene(40, "clip-freeze", NULL);
    st_camera here = store_camera(400, 420, analytic_bilinear(&sc.a, 400, 420) + 30, 20, -30, 3000);
    st_camera away = store_camera(700, 150, analytic_bilinear(&sc.a, 700, 150) + 400, 300, -60, 3000);
    for (int freeze = 0; freeze < 2; freeze++) {
        st_render_desc d = {.method = "clipmap", .width = W, .height = H, .freeze_culling = freeze};
        st_renderer *r = NULL;
        assert_st_ok(st_renderer_create(sc.engine, &d, &r, err));
        frame f = store_frame(sc.engine, r, here, W, H);
        st_clipmap_frame_info a, b;
        assert_st_ok(st_clipmap_last_frame(r, &a, err));
        assert_st_ok(st_renderer_draw(r, &away, NULL, err));
        assert_st_ok(st_clipmap_last_frame(r, &b, err));
        bool same = a.finest == b.finest;
        for (uint32_t l = 0; l < a.geom.levels; l++)
            same = same && a.origin[l][0] == b.origin[l][0] && a.origin[l][1] == b.origin[l][1];
        if (freeze) {
            assert_true(same);
            float *dist = store_frame_distances(r, &away, W, H);
            uint32_t drawn = 0;
            for (uint32_t i = 0; i < W * H; i++) drawn += !isnan(dist[i]);
            assert_true(drawn > W * H / 4); /* the frozen rings are drawn from where the eye is now */
            free(dist);
        } else {
            assert_false(same);
        }
        frame_free(&f);
        st_renderer_destroy(r);
    }
    scene_free(&sc);
}

/* ---- the blend -------------------------------------------------------------------------------------------------- */

/* At every level border the finer level's outer vertices have α = 1 and lie on the coarser level's surface (its
 * vertices at even points, the middle of its edge at odd ones) to the float, the coarser level's vertices there
 * have α = 0, and the shading normal is the same on both sides. */
static void test_blend_continuous(void **state) {
    (void)state;
    scene sc = sine_scene(60, "clip-blend", NULL);
    st_renderer *r = clip_renderer(sc.engine, "clipmap", 63);
    st_camera cam = store_camera(512, 480, analytic_bilinear(&sc.a, 512, 480) + 12, 30, -35, 3000);
    frame f = store_frame(sc.engine, r, cam, W, H);
    frame_free(&f);
    st_clipmap_frame_info fi;
    assert_st_ok(st_clipmap_last_frame(r, &fi, err));
    uint32_t n = fi.geom.n;
    int32_t *pts = malloc(sizeof(int32_t) * 3 * 8 * n);
    float *out = malloc(sizeof(float) * 8 * 8 * n);
    uint32_t checked = 0;
    for (uint32_t l = fi.finest; l + 1 < fi.geom.levels; l++) {
        /* the fine level's border, and the coarse grid points under it (x, y in coarse samples when even) */
        uint32_t k = 0;
        int64_t fx = fi.origin[l][0] / 2 - fi.origin[l + 1][0], fy = fi.origin[l][1] / 2 - fi.origin[l + 1][1];
        for (uint32_t i = 0; i < n; i++) {
            int32_t side[4][2] = {{(int32_t)i, 0}, {(int32_t)i, (int32_t)n - 1}, {0, (int32_t)i}, {(int32_t)n - 1, (int32_t)i}};
            for (int s = 0; s < 4; s++) {
                pts[3 * k] = (int32_t)l, pts[3 * k + 1] = side[s][0], pts[3 * k + 2] = side[s][1];
                k++;
            }
        }
        uint32_t fine = k;
        for (uint32_t i = 0; i < fine; i++) { /* the coarse vertices at and beside each fine border vertex */
            int32_t gx = pts[3 * i + 1], gy = pts[3 * i + 2];
            pts[3 * (fine + i)] = (int32_t)l + 1;
            pts[3 * (fine + i) + 1] = (int32_t)(fx + gx / 2);
            pts[3 * (fine + i) + 2] = (int32_t)(fy + gy / 2);
        }
        assert_st_ok(st_clipmap_probe(r, pts, 2 * fine, out, err));
        for (uint32_t i = 0; i < fine; i++) {
            const float *p = out + 8 * i, *c0 = out + 8 * (fine + i);
            int32_t gx = pts[3 * i + 1], gy = pts[3 * i + 2];
            int64_t wx = (fi.origin[l][0] + gx) << l, wy = (fi.origin[l][1] + gy) << l;
            if (wx <= 0 || wy <= 0 || wx >= (int64_t)sc.a.size - 1 || wy >= (int64_t)sc.a.size - 1) continue; /* clamped */
            if (p[3] != 1.0f) fail_msg("level %u border (%d, %d): α %.7f", l, gx, gy, (double)p[3]);
            if (c0[3] != 0.0f) fail_msg("level %u under (%d, %d): α %.7f", l + 1, gx, gy, (double)c0[3]);
            bool odd = (gx & 1) || (gy & 1);
            if (!odd) {
                if (memcmp(p, c0, 12))
                    fail_msg("level %u border (%d, %d): (%.6f %.6f %.6f), the coarser vertex (%.6f %.6f %.6f)", l, gx,
                             gy, (double)p[0], (double)p[1], (double)p[2], (double)c0[0], (double)c0[1], (double)c0[2]);
            } else { /* the middle of a coarse edge: its neighbours along the border */
                const float *prev = out + 8 * (i >= 4 ? i - 4 : i), *next = out + 8 * (i + 4 < fine ? i + 4 : i);
                float mz = 0.5f * (prev[2] + next[2]);
                if (fabsf(p[2] - mz) > 1e-4f * (1 + fabsf(mz)))
                    fail_msg("level %u border (%d, %d): height %.6f, the coarse edge's middle %.6f", l, gx, gy,
                             (double)p[2], (double)mz);
            }
            /* the normal at the border is the coarser level's there */
            float dn = fabsf(p[4] - c0[4]) + fabsf(p[5] - c0[5]) + fabsf(p[6] - c0[6]);
            if (!odd && dn > 1e-3f)
                fail_msg("level %u border (%d, %d): normals differ by %.5f", l, gx, gy, (double)dn);
            checked++;
        }
    }
    assert_true(checked >= 2 * 4 * n);
    free(pts);
    free(out);
    st_renderer_destroy(r);
    scene_free(&sc);
}


/* ---- a tile that does not load ---------------------------------------------------------------------------------- */

/* The grid of every `step`-th sample as the clipmap triangulates it (diagonals from low x, low y to high x, high y)
 * at world metres (x, y). */
static double triangulated(const analytic *a, double x, double y, int step) {
    double u = x / (a->spacing * step), w = y / (a->spacing * step), fu = floor(u), fw = floor(w), tu = u - fu, tw = w - fw;
    int64_t i0 = (int64_t)fu * step, j0 = (int64_t)fw * step;
    double h00 = analytic_sample(a, i0, j0), h10 = analytic_sample(a, i0 + step, j0);
    double h01 = analytic_sample(a, i0, j0 + step), h11 = analytic_sample(a, i0 + step, j0 + step);
    return tu >= tw ? h00 + tu * (h10 - h00) + tw * (h11 - h10) : h00 + tw * (h01 - h00) + tu * (h11 - h01);
}

/* The finest tile under the eye fails to load: its part of level 0's window is filled from level 1 (the surface
 * every other sample makes, which differs from the finest here, the waves being short), with no hole anywhere. */
static void test_missing_tile_draws_coarser(void **state) {
    (void)state;
    analytic a = {.shape = SHAPE_SINE, .size = 257, .spacing = 2, .base = 60, .amp = 20, .wave = 10};
    st_store *store = analytic_store(&a, 33, "clip-broken");
    broken_loader bl = {store, {0, 3, 3}}; /* covers x, y in [192, 256] m */
    st_engine *e = store_engine(store, &(st_world_desc){.gpu_slots = 256, .load = broken_load, .load_user = &bl});
    st_camera cam = store_camera(224, 224, analytic_bilinear(&a, 224, 224) + 25, 0, -90, 1000);
    for (int m = 0; m < 2; m++) {
        st_renderer *r = clip_renderer(e, METHODS[m], 63);
        st_lod_frame_stats s = {0};
        for (int i = 0; i < 300; i++) { /* until every other tile is in */
            assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
            st_renderer_lod_stats(r, &s);
            st_world_stats ws;
            assert_st_ok(st_engine_world_stats(e, &ws, err));
            if (!ws.residency.queued && !ws.residency.loading && s.fallback == 1 && i > 5) break;
        }
        assert_int_equal(s.fallback, 1);
        assert_int_equal(s.missing, 0);
        assert_false(s.settled);
        st_clipmap_frame_info fi;
        assert_st_ok(st_clipmap_last_frame(r, &fi, err));
        assert_int_equal(fi.finest, 0);
        float *depth = store_frame_distances(r, &cam, W, H);
        st_view v = st_camera_view(&cam, W, H);
        uint32_t in_tile = 0, on_coarse = 0;
        for (uint32_t j = 0; j < H; j++)
            for (uint32_t i = 0; i < W; i++) {
                float d = depth[j * W + i];
                if (isnan(d)) fail_msg("%s: pixel (%u, %u) is a hole", METHODS[m], i, j);
                float dir[3];
                st_view_pixel_ray(&v, i, j, dir, NULL, NULL);
                double x = v.origin[0] + dir[0] * d, y = v.origin[1] + dir[1] * d, z = v.origin[2] + dir[2] * d;
                if (x < 194 || x > 254 || y < 194 || y > 254) continue; /* inside the broken tile, off its edges */
                in_tile++;
                if (fabs(z - triangulated(&a, x, y, 2)) < fabs(z - triangulated(&a, x, y, 1))) on_coarse++;
            }
        assert_true(in_tile > 100);
        if (on_coarse < in_tile * 8 / 10)
            fail_msg("%s: %u of %u pixels in the broken tile lie on the coarser surface", METHODS[m], on_coarse, in_tile);
        free(depth);
        st_renderer_destroy(r);
    }
    test_engine_finish(e, NULL);
    st_store_close(store);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane_known_depth),     cmocka_unit_test(test_tilted_plane_known_depth),
        cmocka_unit_test(test_sine_known_depth),      cmocka_unit_test(test_no_crack_sweep),
        cmocka_unit_test(test_toroidal_equals_fresh), cmocka_unit_test(test_finest_level_from_tau),
        cmocka_unit_test(test_blend_continuous),      cmocka_unit_test(test_freeze_keeps_layout),
        cmocka_unit_test(test_missing_tile_draws_coarser),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
