/* GPU tests of the mesh methods (raster and compute variants) on lavapipe with validation on: analytic
 * scenes with known answers, crack-free coverage of a rough generated level against the ray method, an
 * edit that equals a fresh build on the very next frame (including edits that outgrow the buffers'
 * reserved room), and the memory hooks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/gen.h"
#include "strata/mesh.h"
#include "strata/render.h"
#include "support.h"

#define W 64
#define H 40

static const char *const methods[] = {"mesh", "mesh-compute"};

static void test_flat_floor(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 40);
    st_engine *e = test_engine(l);
    for (int m = 0; m < 2; m++) {
        test_expect_flat_floor(e, methods[m], W, H, NULL, NULL, 0.5f);
        float hit[3];
        /* oblique, toward the floor: the hit lies on the floor plane */
        st_camera oblique = {.position = {20, 30, 70}, .yaw_deg = 120, .pitch_deg = -20};
        test_centre_hit(e, methods[m], oblique, W, H, NULL, hit);
        if (!(fabsf(hit[2] - 40.0f) < 0.05f)) fail_msg("%s: oblique floor hit at z=%.3f", methods[m], hit[2]);
        /* from under the floor the eye is inside rock: every face is a back face (culled, never drawn at the
         * floor's 20 units), and the near plane, inside solid, is the hit (docs/harness.md) */
        st_camera below = {.position = {128, 128, 20}, .yaw_deg = 0, .pitch_deg = 90};
        float d = test_centre_hit(e, methods[m], below, W, H, NULL, hit);
        if (!(fabsf(d - 1.0f) < 1e-3f)) fail_msg("%s: from inside the rock the centre hit at %.3f, not the near plane", methods[m], d);
    }
    test_engine_finish(e, l);
}

/* The slab over a cave with a back wall (test_slab_cave_level). Floor vertices sit at texel centres, so
 * the cliff face slopes from x = 159.5 to 160.5; the slab's outline lies on its texels' outer edges, so its
 * side wall stands at y = 96. */
static void test_slab_and_cave(void **state) {
    (void)state;
    st_level *l = test_slab_cave_level();
    st_engine *e = test_engine(l);
    for (int m = 0; m < 2; m++) {
        test_expect_slab_cave(e, methods[m], W, H, NULL, NULL, 0.5f, 0.5f);
        /* the slab's side wall, seen from outside at mid-height between ceiling and top */
        float hit[3];
        st_camera wall = {.position = {128, 40, 95}, .yaw_deg = 0, .pitch_deg = 0};
        test_centre_hit(e, methods[m], wall, W, H, NULL, hit);
        if (!(fabsf(hit[1] - 96.0f) < 0.05f)) fail_msg("%s: slab wall hit at y=%.3f, want 96", methods[m], hit[1]);
    }
    test_engine_finish(e, l);
}

/* A dual texel's slab fills its texel square: seen from just above the slab's edge, every pixel agrees with
 * the exact reference cast. With the outline at texel centres the strip y ∈ [96, 96.5) of the top was
 * missing, and those rays fell 90 units to the floor. */
static void test_slab_edge(void **state) {
    (void)state;
    enum { EW = 96, EH = 60 };
    st_level *l = test_slab_level();
    st_engine *e = test_engine(l);
    const st_camera cams[] = {
        {.position = {128, 91, 104}, .yaw_deg = 0, .pitch_deg = -55},   /* over the edge y = 96 */
        {.position = {165, 130, 103}, .yaw_deg = 270, .pitch_deg = -45}, /* over the corner edge x = 160 */
    };
    for (size_t c = 0; c < sizeof cams / sizeof cams[0]; c++) {
        float *ref = test_reference_distances(l, cams[c], EW, EH);
        for (int m = 0; m < 2; m++) {
            float *d = test_render_distances(e, methods[m], cams[c], EW, EH, NULL, NULL);
            int wrong = 0, top = 0;
            st_view v = st_camera_view(&cams[c], EW, EH);
            for (uint32_t j = 0; j < EH; j++)
                for (uint32_t i = 0; i < EW; i++) {
                    float r = ref[j * EW + i], x = d[j * EW + i];
                    float dir[3];
                    st_view_pixel_ray(&v, i, j, dir, NULL, NULL);
                    top += !isnan(r) && fabsf(v.eye[2] + dir[2] * r - 100.0f) < 0.01f;
                    if (isnan(r) != isnan(x) || fabsf(x - r) > 5.0f) wrong++;
                }
            printf("%s camera %zu: %d of %d pixels more than 5 units off the reference\n", methods[m], c, wrong, EW * EH);
            if (top < EW * EH / 8) fail_msg("camera %zu: the slab top fills only %d pixels", c, top);
            /* the outline is exact: at most the pixels whose centre falls within rounding of the edge */
            if (wrong > EW / 16) fail_msg("%s camera %zu: %d of %d pixels more than 5 units off the reference", methods[m], c,
                                          wrong, EW * EH);
            free(d);
        }
        free(ref);
    }
    test_engine_finish(e, l);
}

/* Mean RGB of the centre 4×4 pixels of one frame of `method`, with or without the shared shadow map. */
static double centre_colour(st_engine *e, const char *method, bool shadows, st_camera cam) {
    enum { CW = 32, CH = 20 };
    st_renderer *r = NULL;
    st_render_desc d = {.method = method, .width = CW, .height = CH, .shadows = shadows, .shadow_size = 512};
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
    uint8_t *rgba = malloc(CW * CH * 4);
    assert_st_ok(st_renderer_readback(r, rgba, NULL, err));
    double sum = 0;
    for (int y = CH / 2 - 2; y < CH / 2 + 2; y++)
        for (int x = CW / 2 - 2; x < CW / 2 + 2; x++)
            for (int c = 0; c < 3; c++) sum += rgba[(y * CW + x) * 4 + c];
    free(rgba);
    st_renderer_destroy(r);
    return sum / 48.0;
}

/* A cliff face under a roof is in the roof's shadow: the mesh looks the shadow map up on the face at the
 * point's own height, as the ray method does (it once looked it up on top of the cliff, in the sun, so the
 * face came out lit with or without shadows). */
static void test_wall_under_roof_in_shadow(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 10);
    for (int y = 100; y < 108; y++) /* a wall 100 high whose face looks toward +y (and the sun) at y = 108 */
        for (int x = 0; x < 256; x++) st_level_set_single(l, x, y, 100, 2);
    for (int y = 108; y < 170; y++) /* a roof from the wall's top: ceiling 80, top 100 */
        for (int x = 40; x < 216; x += 2) st_level_set_dual(l, x, y, 10, 80, 100, 1, 3);
    st_engine *e = test_engine(l);
    st_camera cam = {.position = {128, 150, 40}, .yaw_deg = 180, .pitch_deg = 0}; /* under the roof, at the face */
    double ray = centre_colour(e, "ray-compute", true, cam);
    for (int m = 0; m < 2; m++) {
        double shadowed = centre_colour(e, methods[m], true, cam), lit = centre_colour(e, methods[m], false, cam);
        printf("%s: wall under the roof %.1f with shadows (ray %.1f), %.1f without\n", methods[m], shadowed, ray, lit);
        if (!(fabs(shadowed - ray) < 3.0)) fail_msg("%s: face %.1f with shadows, ray %.1f", methods[m], shadowed, ray);
        if (!(lit > shadowed + 10.0)) fail_msg("%s: face %.1f without shadows, %.1f with", methods[m], lit, shadowed);
    }
    test_engine_finish(e, l);
}

static st_level *rough_level(void) {
    st_gen_desc gd = {.width = 512, .height = 512, .seed = 11};
    st_level *l = NULL;
    assert_st_ok(st_gen_world(&gd, &l, err));
    return l;
}

/* No cracks: wherever the ray method hits, the mesh draws something (top-down over the whole level and
 * its wrapped copies, and an oblique view), and the two variants agree with each other. */
static void test_crack_free(void **state) {
    (void)state;
    enum { RW = 128, RH = 80 };
    st_level *l = rough_level();
    st_engine *e = test_engine(l);
    st_renderer *ray = test_renderer(e, "ray-compute", RW, RH, NULL);
    st_renderer *mr[2] = {test_renderer(e, methods[0], RW, RH, NULL), test_renderer(e, methods[1], RW, RH, NULL)};
    const st_camera cams[] = {
        {.position = {256, 256, 0}, .yaw_deg = 20, .pitch_deg = -90},
        {.position = {100, 400, 0}, .yaw_deg = 135, .pitch_deg = -55},
    };
    const float above[] = {330, 90};
    for (size_t c = 0; c < sizeof cams / sizeof cams[0]; c++) {
        st_camera cam = cams[c];
        st_texel t = st_level_texel(l, (int)cam.position[0], (int)cam.position[1]);
        cam.position[2] = (float)t.high + above[c];
        st_view v = st_camera_view(&cam, RW, RH);
        float *rd = test_draw_depth(ray, cam, RW, RH);
        float *md[2] = {test_draw_depth(mr[0], cam, RW, RH), test_draw_depth(mr[1], cam, RW, RH)};
        for (int m = 0; m < 2; m++) {
            int holes = 0, far_off = 0, hits = 0;
            for (uint32_t j = 0; j < RH; j++)
                for (uint32_t i = 0; i < RW; i++) {
                    float dr = st_view_distance_from_depth(&v, i, j, rd[j * RW + i]);
                    float dm = st_view_distance_from_depth(&v, i, j, md[m][j * RW + i]);
                    if (isnan(dr) || dr > 0.95f * v.far_dist) continue; /* the far boundary is fuzzy in both */
                    hits++;
                    if (isnan(dm)) holes++;
                    else if (fabsf(dm - dr) > 8.0f + 0.05f * dr) far_off++;
                }
            printf("%s view %zu: %d ray hits, %d holes, %d far off\n", methods[m], c, hits, holes, far_off);
            if (hits < RW * RH / 2) fail_msg("view %zu: the ray method hit only %d pixels", c, hits);
            if (holes) fail_msg("%s view %zu: %d holes where the ray method hits", methods[m], c, holes);
            /* the mesh is within τ = 4 of the level: depths agree up to that along grazing rays */
            if (far_off > RW * RH / 20) fail_msg("%s view %zu: %d pixels far off the ray depth", methods[m], c, far_off);
        }
        /* the variants draw the same triangles: depths agree to rounding wherever both hit */
        int differ = 0;
        for (uint32_t k = 0; k < RW * RH; k++) {
            float a = md[0][k], b = md[1][k];
            if ((a > 0) != (b > 0) || fabsf(a - b) > 1e-4f * fmaxf(a, b)) differ++;
        }
        if (differ > RW * RH / 200) fail_msg("view %zu: raster and compute variants differ at %d pixels", c, differ);
        free(rd);
        free(md[0]);
        free(md[1]);
    }
    st_renderer_destroy(ray);
    st_renderer_destroy(mr[0]);
    st_renderer_destroy(mr[1]);
    test_engine_finish(e, l);
}

/* Depth of a renderer built fresh on its own engine from the (edited) level. */
static float *fresh_depth(const st_level *l, const char *method, st_camera cam, uint32_t w, uint32_t h) {
    st_engine *e = test_engine(l);
    float *d = test_render_depth(e, method, cam, w, h, NULL);
    test_engine_finish(e, NULL);
    return d;
}

static void expect_identical(const float *a, const float *b, uint32_t n, const char *what) {
    uint32_t differ = 0;
    for (uint32_t k = 0; k < n; k++) differ += memcmp(&a[k], &b[k], sizeof *a) != 0;
    if (differ * 10000u > n) fail_msg("%s: %u of %u depth values differ from a fresh build", what, differ, n);
}

/* The first frame after a dig equals a renderer built fresh from the edited level. */
static void test_edit_matches_fresh(void **state) {
    (void)state;
    enum { RW = 128, RH = 80 };
    for (int m = 0; m < 2; m++) {
        st_level *l = rough_level();
        st_engine *e = test_engine(l);
        st_renderer *r = test_renderer(e, methods[m], RW, RH, NULL);
        /* the crater is centred on a chunk corner, so four chunks refit */
        st_texel t = st_level_texel(l, 256, 256);
        st_camera top = {.position = {250, 262, (float)t.high + 160}, .yaw_deg = 10, .pitch_deg = -90};
        st_camera side = {.position = {180, 200, (float)t.high + 60}, .yaw_deg = 45, .pitch_deg = -30};
        float *before = test_draw_depth(r, top, RW, RH);
        st_rect dirty;
        assert_st_ok(st_level_dig(l, 256, 256, 40, 70, &dirty, err));
        assert_st_ok(st_engine_update_level(e, dirty, err));
        float *after = test_draw_depth(r, top, RW, RH);
        /* the crater shows: the centre is deeper than before */
        st_view v = st_camera_view(&top, RW, RH);
        uint32_t c = (RH / 2) * RW + RW / 2;
        float d0 = st_view_distance_from_depth(&v, RW / 2, RH / 2, before[c]);
        float d1 = st_view_distance_from_depth(&v, RW / 2, RH / 2, after[c]);
        if (!(d1 > d0 + 20.0f)) fail_msg("%s: centre distance %.2f before, %.2f after the dig", methods[m], d0, d1);
        float *fresh = fresh_depth(l, methods[m], top, RW, RH);
        expect_identical(after, fresh, RW * RH, methods[m]);
        free(fresh);
        float *after_side = test_draw_depth(r, side, RW, RH);
        fresh = fresh_depth(l, methods[m], side, RW, RH);
        expect_identical(after_side, fresh, RW * RH, methods[m]);
        free(fresh);
        free(after_side);
        free(before);
        free(after);
        assert_true(st_renderer_method_gpu_bytes(r) > 0);
        assert_true(st_renderer_method_cpu_bytes(r) > 0);
        st_renderer_destroy(r);
        test_engine_finish(e, l);
    }
}

/* Many craters on a flat level: its chunks start with two triangles each, so the refits outgrow their
 * reserved room, then the shared tail, and the buffers are re-packed; the result still equals a fresh
 * build. */
static void test_edits_outgrow_buffers(void **state) {
    (void)state;
    enum { RW = 96, RH = 60 };
    st_level *l = test_flat_level(512, 512, 100);
    st_engine *e = test_engine(l);
    st_renderer *r = test_renderer(e, "mesh", RW, RH, NULL);
    st_camera cam = {.position = {256, 256, 420}, .yaw_deg = 0, .pitch_deg = -90};
    free(test_draw_depth(r, cam, RW, RH));
    uint64_t bytes0 = st_renderer_method_gpu_bytes(r);
    for (int k = 0; k < 16; k++) {
        st_rect dirty;
        int x = 64 + 128 * (k % 4) + (k * 13) % 40, y = 64 + 128 * (k / 4) - (k * 7) % 30;
        assert_st_ok(st_level_dig(l, x, y, 30, 50, &dirty, err));
        assert_st_ok(st_engine_update_level(e, dirty, err));
    }
    uint64_t bytes1 = st_renderer_method_gpu_bytes(r);
    if (!(bytes1 > bytes0)) fail_msg("the buffers were never re-packed (%llu -> %llu bytes)",
                                     (unsigned long long)bytes0, (unsigned long long)bytes1);
    float *after = test_draw_depth(r, cam, RW, RH);
    float *fresh = fresh_depth(l, "mesh", cam, RW, RH);
    expect_identical(after, fresh, RW * RH, "mesh after 16 craters");
    int deep = 0;
    st_view v = st_camera_view(&cam, RW, RH);
    for (uint32_t j = 0; j < RH; j++)
        for (uint32_t i = 0; i < RW; i++) deep += st_view_distance_from_depth(&v, i, j, after[j * RW + i]) > 340.0f;
    if (deep < 20) fail_msg("only %d pixels show a crater", deep);
    free(after);
    free(fresh);
    st_renderer_destroy(r);
    test_engine_finish(e, l);
}

/* The library side of edits (no GPU): a refit whose samples did not change leaves the chunks alone (same
 * version), a real change refits exactly the touched chunks, and the result equals a fresh fit. */
static void test_refit_skips_unchanged(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 60);
    for (int y = 40; y < 90; y++)
        for (int x = 40; x < 200; x++) st_level_set_single(l, x, y, (uint8_t)(60 + (x * 7 + y * 3) % 23), 2);
    st_mesh *m = NULL;
    assert_st_ok(st_mesh_create(l, NULL, &m, err));
    uint32_t count = m->chunks_x * m->chunks_y, v0[4], n = 0;
    assert_int_equal(count, 4);
    for (uint32_t i = 0; i < count; i++) v0[i] = m->chunks[i].version;
    st_rect rect = {100, 100, 160, 160}; /* meets all four chunks, changes nothing */
    assert_st_ok(st_mesh_refit(m, l, rect, &n, err));
    assert_int_equal(n, 4);
    for (uint32_t i = 0; i < count; i++) assert_int_equal(m->chunks[i].version, v0[i]);
    st_rect dirty;
    assert_st_ok(st_level_dig(l, 60, 60, 10, 30, &dirty, err)); /* inside chunk (0, 0) only */
    assert_st_ok(st_mesh_refit(m, l, dirty, &n, err));
    assert_int_equal(m->chunks[0].version, v0[0] + 1);
    for (uint32_t i = 1; i < count; i++) assert_int_equal(m->chunks[i].version, v0[i]);
    st_mesh *fresh = NULL;
    assert_st_ok(st_mesh_create(l, NULL, &fresh, err));
    for (uint32_t i = 0; i < count; i++) {
        const st_mesh_chunk *a = &m->chunks[i], *b = &fresh->chunks[i];
        assert_int_equal(a->vertex_count, b->vertex_count);
        assert_int_equal(a->index_count, b->index_count);
        assert_memory_equal(a->vertices, b->vertices, a->vertex_count * sizeof *a->vertices);
        assert_memory_equal(a->indices, b->indices, a->index_count * sizeof *a->indices);
        assert_memory_equal(a->lods, b->lods, sizeof a->lods);
    }
    st_mesh_destroy(fresh);
    st_mesh_destroy(m);
    st_level_destroy(l);
}

/* The wireframe overlay (the viewer's X toggle) draws edges over the shaded mesh and leaves depth alone. */
/* The viewer's wireframe overlay, raster and compute: it changes many pixels' colour and no depth. */
static void test_wireframe_overlay(void **state) {
    (void)state;
    st_level *l = test_random_level(256, 256, 11);
    st_engine *e = test_engine(l);
    enum { WW = 96, WH = 60 };
    st_camera cam = {.position = {128, 90, 330}, .yaw_deg = 10, .pitch_deg = -40}; /* above every column */
    for (int m = 0; m < 2; m++) {
        uint8_t *rgba[2];
        float *depth[2];
        for (int w = 0; w < 2; w++) {
            st_renderer *r = NULL;
            st_render_desc d = {.method = methods[m], .width = WW, .height = WH, .wireframe = w == 1};
            assert_st_ok(st_renderer_create(e, &d, &r, err));
            assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
            rgba[w] = malloc(WW * WH * 4);
            depth[w] = malloc(WW * WH * sizeof(float));
            assert_st_ok(st_renderer_readback(r, rgba[w], depth[w], err));
            st_renderer_destroy(r);
        }
        int changed = 0;
        for (int i = 0; i < WW * WH; i++) {
            assert_true(depth[0][i] == depth[1][i]);
            changed += rgba[0][4 * i] != rgba[1][4 * i] || rgba[0][4 * i + 1] != rgba[1][4 * i + 1];
        }
        if (changed < WW * WH / 20)
            fail_msg("%s: the overlay changed only %d of %d pixels", methods[m], changed, WW * WH);
        for (int w = 0; w < 2; w++) {
            free(rgba[w]);
            free(depth[w]);
        }
    }
    test_engine_finish(e, l);
}

/* The frustum reaches past the far distance toward its corners: terrain there is drawn (it was once culled
 * by a disc of the far distance). A flat floor seen obliquely: every pixel the ray method hits, mesh hits. */
static void test_far_corners(void **state) {
    (void)state;
    st_level *l = test_flat_level(2048, 2048, 0);
    st_engine *e = test_engine(l);
    enum { FW = 128, FH = 80 };
    st_camera cam = {.position = {1024, 1024, 200}, .yaw_deg = 30, .pitch_deg = -20};
    float *depth[2];
    const char *pair[2] = {"ray-compute", "mesh"};
    for (int m = 0; m < 2; m++) {
        st_renderer *r = NULL;
        st_render_desc d = {.method = pair[m], .width = FW, .height = FH};
        assert_st_ok(st_renderer_create(e, &d, &r, err));
        assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
        depth[m] = malloc(FW * FH * sizeof(float));
        assert_st_ok(st_renderer_readback(r, NULL, depth[m], err));
        st_renderer_destroy(r);
    }
    int missing = 0, far_hits = 0;
    st_view v = st_camera_view(&cam, FW, FH);
    for (uint32_t y = 0; y < FH; y++)
        for (uint32_t x = 0; x < FW; x++) {
            float ray = depth[0][y * FW + x], mesh = depth[1][y * FW + x];
            if (!(ray > 0.0f)) continue;
            float dir[3];
            st_view_pixel_ray(&v, x, y, dir, NULL, NULL);
            float t = st_view_distance_from_depth(&v, x, y, ray);
            if (hypotf(dir[0] * t, dir[1] * t) > v.far_dist) far_hits++;
            missing += !(mesh > 0.0f);
        }
    assert_true(far_hits > 0); /* the scene does put ground beyond the far distance in the frustum */
    if (missing) fail_msg("mesh left %d pixels empty that the ray method hits", missing);
    free(depth[0]);
    free(depth[1]);
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_floor),
        cmocka_unit_test(test_slab_and_cave),
        cmocka_unit_test(test_slab_edge),
        cmocka_unit_test(test_wall_under_roof_in_shadow),
        cmocka_unit_test(test_crack_free),
        cmocka_unit_test(test_edit_matches_fresh),
        cmocka_unit_test(test_edits_outgrow_buffers),
        cmocka_unit_test(test_refit_skips_unchanged),
        cmocka_unit_test(test_wireframe_overlay),
        cmocka_unit_test(test_far_corners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
