/* GPU tests of levels that do not wrap (a DEM's edges): in every registered method, past the edge of a bounded
 * axis there is nothing — no copy of the level, no ground at height 0 — while the same level wrapping shows its
 * copy there as it always has; the CPU reference agrees; a copy casts no shadow; an edit at an edge stays there. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/reference.h"
#include "strata/render.h"
#include "support.h"

#define W 64
#define H 40
#define SIDE 128 /* the level: one mesh chunk */
#define CLIFF 200

/* SIDE², floor 10; a cliff 200 high along the west edge (8 ≤ x < 16) and another along the south edge
 * (8 ≤ y < 16): seen across the east or north edge of the wrapping level, the copy's floor and cliff stand
 * just behind the edge. */
static st_level *edge_cliff_level(bool wrap) {
    st_level *l = test_flat_level(SIDE, SIDE, 10);
    for (int y = 0; y < SIDE; y++)
        for (int x = 0; x < SIDE; x++)
            if ((x >= 8 && x < 16) || (y >= 8 && y < 16)) st_level_set_single(l, x, y, CLIFF, 3);
    l->wrap_x = l->wrap_y = wrap;
    return l;
}

/* Inside, 40 texels from the east (or north) edge, 10 above the floor, looking out across it a little below the
 * horizon: the floor inside, then past the edge the copy's floor and cliff (wrapping) or nothing at all, not
 * even ground (bounded). */
static const st_camera out_east = {.position = {SIDE - 40, 64, 20}, .yaw_deg = 90, .pitch_deg = -10};
static const st_camera out_north = {.position = {64, SIDE - 40, 20}, .yaw_deg = 0, .pitch_deg = -10};

typedef struct hits {
    int inside, beyond; /* pixels whose hit lies within the level's extent (0.5 of slack) / past its edges */
} hits;

static hits count_hits(const float *dist, st_camera cam) {
    st_view v = st_camera_view(&cam, W, H);
    hits n = {0, 0};
    for (uint32_t j = 0; j < H; j++)
        for (uint32_t i = 0; i < W; i++) {
            float d = dist[j * W + i];
            if (!isfinite(d)) continue;
            float dir[3];
            st_view_pixel_ray(&v, i, j, dir, NULL, NULL);
            float x = v.eye[0] + dir[0] * d, y = v.eye[1] + dir[1] * d;
            bool in = x >= -0.5f && x <= SIDE + 0.5f && y >= -0.5f && y <= SIDE + 0.5f;
            n.inside += in;
            n.beyond += !in;
        }
    return n;
}

/* Pixels that `dist` hits where the reference sees sky. */
static int hits_on_sky(const float *dist, const float *ref) {
    int n = 0;
    for (int k = 0; k < W * H; k++) n += isfinite(dist[k]) && !isfinite(ref[k]);
    return n;
}

/* Every method, and the reference, on the two views out across an edge. */
static void check_views(bool wrap) {
    st_level *l = edge_cliff_level(wrap);
    st_engine *e = test_engine(l);
    const st_camera cams[2] = {out_east, out_north};
    const char *names[2] = {"east", "north"};
    for (int c = 0; c < 2; c++) {
        float *ref = test_reference_distances(l, cams[c], W, H);
        hits rh = count_hits(ref, cams[c]);
        printf("%s, looking %s: reference %d inside, %d beyond the edge\n", wrap ? "wrapping" : "bounded", names[c],
               rh.inside, rh.beyond);
        if (wrap ? rh.beyond < W * H / 4 : rh.beyond != 0)
            fail_msg("reference, %s: %d pixels past the edge", names[c], rh.beyond);
        if (rh.inside < W * H / 8) fail_msg("reference, %s: only %d pixels on the floor inside", names[c], rh.inside);
        for (size_t m = 0; m < st_method_count(); m++) {
            const char *name = st_method_at(m)->name;
            float *d = test_render_distances(e, name, cams[c], W, H, NULL, NULL);
            hits n = count_hits(d, cams[c]);
            int sky = hits_on_sky(d, ref);
            printf("  %-14s %4d inside, %4d beyond, %4d where the reference sees sky\n", name, n.inside, n.beyond, sky);
            if (n.inside < W * H / 16) fail_msg("%s, %s: only %d pixels on the floor inside", name, names[c], n.inside);
            if (wrap && n.beyond < W * H / 8)
                fail_msg("%s, wrapping, %s: the copy past the edge is missing (%d pixels)", name, names[c], n.beyond);
            if (!wrap && n.beyond) fail_msg("%s, bounded, %s: %d pixels drawn past the edge", name, names[c], n.beyond);
            if (!wrap && sky > W / 8) fail_msg("%s, bounded, %s: %d pixels hit where the reference sees sky", name,
                                               names[c], sky);
            free(d);
        }
        free(ref);
    }
    test_engine_finish(e, l);
}

static void test_nothing_past_a_bounded_edge(void **state) {
    (void)state;
    check_views(false);
}

static void test_wrapping_level_shows_its_copy(void **state) {
    (void)state;
    check_views(true);
}

/* Only x bounded: past the east edge nothing, past the north edge the copy (the axes are independent). */
static void test_axes_apart(void **state) {
    (void)state;
    st_level *l = edge_cliff_level(true);
    l->wrap_x = false;
    st_engine *e = test_engine(l);
    for (int c = 0; c < 2; c++) {
        st_camera cam = c ? out_north : out_east;
        float *d = test_render_distances(e, "ray-compute", cam, W, H, NULL, NULL);
        hits n = count_hits(d, cam);
        if (c == 0 && n.beyond) fail_msg("x bounded: %d pixels past the east edge", n.beyond);
        if (c == 1 && n.beyond < W * H / 8) fail_msg("y wraps: only %d pixels of the copy past the north edge", n.beyond);
        free(d);
    }
    test_engine_finish(e, l);
}

/* Past the east edge and below height 0, looking away from the level: in a wrapping level that is inside rock
 * (z < 0 is solid everywhere there, the near plane is capped); past a bounded edge there is nothing at all. */
static void test_camera_past_the_edge_below_ground(void **state) {
    (void)state;
    for (int wrap = 0; wrap < 2; wrap++) {
        st_level *l = edge_cliff_level(wrap);
        st_engine *e = test_engine(l);
        st_camera cam = {.position = {SIDE + 20, 64, -5}, .yaw_deg = 90, .pitch_deg = 10};
        float *ref = test_reference_distances(l, cam, W, H);
        int ref_hits = 0;
        for (int k = 0; k < W * H; k++) ref_hits += isfinite(ref[k]);
        if (ref_hits != (wrap ? W * H : 0)) fail_msg("reference, %s: %d pixels hit", wrap ? "wrapping" : "bounded", ref_hits);
        for (size_t m = 0; m < st_method_count(); m++) {
            const char *name = st_method_at(m)->name;
            float *d = test_render_distances(e, name, cam, W, H, NULL, NULL);
            int n = 0;
            for (int k = 0; k < W * H; k++) n += isfinite(d[k]);
            if (n != ref_hits) fail_msg("%s, %s: %d pixels hit, the reference %d", name, wrap ? "wrapping" : "bounded", n, ref_hits);
            free(d);
        }
        free(ref);
        test_engine_finish(e, l);
    }
}

/* The sun (1, 2, 4) stands east-north-east: the copy of the west cliff 8 texels past the east edge of a wrapping
 * level shades the floor along that edge (the shadow reaches (200 − 10)/4 ≈ 47 texels west of the cliff).
 * Bounded, there is no copy and the floor there is lit — on the GPU's shadow map and in the reference's shadow
 * rays. */
static void test_no_shadow_from_a_copy(void **state) {
    (void)state;
    st_camera down = {.position = {SIDE - 12, 64, 150}, .yaw_deg = 0, .pitch_deg = -90};
    float lum[2], ref_lum[2];
    for (int wrap = 0; wrap < 2; wrap++) {
        st_level *l = edge_cliff_level(wrap);
        st_engine *e = test_engine(l);
        st_render_desc rd = {.method = "ray-compute", .width = W, .height = H, .shadows = true};
        st_renderer *r = NULL;
        assert_st_ok(st_renderer_create(e, &rd, &r, err));
        uint8_t *rgba = malloc(W * H * 4);
        float *depth = malloc(W * H * sizeof *depth);
        assert_st_ok(st_renderer_draw(r, &down, NULL, err));
        assert_st_ok(st_renderer_readback(r, rgba, depth, err));
        size_t k = (size_t)(H / 2) * W + W / 2;
        lum[wrap] = (float)(rgba[4 * k] + rgba[4 * k + 1] + rgba[4 * k + 2]);
        st_reference *ref = NULL;
        st_ref_image img = {0};
        assert_st_ok(st_reference_create(l, &ref, err));
        assert_st_ok(st_ref_image_create(W, H, &img, err));
        assert_st_ok(st_reference_cast(ref, &down, &img, err));
        ref_lum[wrap] = (float)(img.rgba[4 * k] + img.rgba[4 * k + 1] + img.rgba[4 * k + 2]);
        printf("%s: floor by the east edge, GPU %.0f, reference %.0f (r+g+b)\n", wrap ? "wrapping" : "bounded", lum[wrap],
               ref_lum[wrap]);
        st_ref_image_free(&img);
        st_reference_destroy(ref);
        free(rgba);
        free(depth);
        st_renderer_destroy(r);
        test_engine_finish(e, l);
    }
    if (!(lum[1] < 0.7f * lum[0])) fail_msg("GPU: the wrapping level's edge (%.0f) is not shaded against the bounded one (%.0f)", lum[1], lum[0]);
    if (!(ref_lum[1] < 0.7f * ref_lum[0]))
        fail_msg("reference: the wrapping level's edge (%.0f) is not shaded against the bounded one (%.0f)", ref_lum[1],
                 ref_lum[0]);
    if (fabsf(lum[0] - ref_lum[0]) > 6.0f) fail_msg("bounded: GPU %.0f and reference %.0f disagree", lum[0], ref_lum[0]);
}

/* A crater dug at the west edge of a bounded level, through every live renderer's update path: it shows on its
 * own side, and nothing appears past the east edge (no method's derived data — the voxel pyramid, the mesh
 * chunks, the height tiles — takes it round to the other side). */
static void test_edge_dig_stays_on_its_side(void **state) {
    (void)state;
    st_level *l = test_flat_level(SIDE, SIDE, 100);
    l->wrap_x = l->wrap_y = false;
    st_engine *e = test_engine(l);
    const st_camera out = {.position = {SIDE - 40, 64, 110}, .yaw_deg = 90, .pitch_deg = -10};
    const st_camera into = {.position = {4, 64, 220}, .yaw_deg = 0, .pitch_deg = -90}; /* straight down */
    size_t count = st_method_count();
    st_renderer **rs = calloc(count, sizeof *rs);
    for (size_t m = 0; m < count; m++) {
        rs[m] = test_renderer(e, st_method_at(m)->name, W, H, NULL);
        free(test_draw_depth(rs[m], into, W, H));
    }
    st_rect dirty;
    assert_st_ok(st_level_dig(l, 4, 64, 24, 80, &dirty, err)); /* a bowl 80 deep, cut by the edge */
    assert_true(dirty.x0 == 0 && dirty.x1 <= 30);             /* never wrapped round to the east edge */
    for (uint32_t y = 0; y < SIDE; y++)
        for (uint32_t x = SIDE - 32; x < SIDE; x++) assert_int_equal(st_level_texel(l, (int)x, (int)y).low, 100);
    assert_st_ok(st_engine_update_level(e, dirty, err));
    float *ref = test_reference_distances(l, into, W, H);
    float want = ref[(H / 2) * W + W / 2];
    for (size_t m = 0; m < count; m++) {
        const char *name = st_method_at(m)->name;
        float got = test_draw_centre_distance(rs[m], into, W, H);
        printf("%-14s the crater at the west edge: %.2f (reference %.2f)\n", name, got, want);
        if (!(fabsf(got - want) < 3.0f)) fail_msg("%s: the crater reads %.2f, the reference %.2f", name, got, want);
        float *depth = test_draw_depth(rs[m], out, W, H);
        st_view v = st_camera_view(&out, W, H);
        int beyond = 0, inside = 0;
        for (uint32_t j = 0; j < H; j++)
            for (uint32_t i = 0; i < W; i++) {
                float hit[3];
                if (!isfinite(test_pixel_hit(&v, depth, i, j, hit))) continue;
                beyond += hit[0] > SIDE + 0.5f;
                inside += hit[0] <= SIDE + 0.5f;
            }
        free(depth);
        if (beyond || inside < W * H / 16)
            fail_msg("%s: after the dig at the west edge, %d pixels past the east edge, %d inside", name, beyond, inside);
        st_renderer_destroy(rs[m]);
    }
    free(ref);
    free(rs);
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_past_a_bounded_edge),
        cmocka_unit_test(test_wrapping_level_shows_its_copy),
        cmocka_unit_test(test_axes_apart),
        cmocka_unit_test(test_camera_past_the_edge_below_ground),
        cmocka_unit_test(test_no_shadow_from_a_copy),
        cmocka_unit_test(test_edge_dig_stays_on_its_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
