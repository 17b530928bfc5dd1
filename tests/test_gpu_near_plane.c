/* GPU tests of the near-plane rule (docs/harness.md): a pixel whose ray starts inside solid terrain at the
 * near plane hits there, in every registered method, exactly where the CPU reference says so — on cameras
 * whose near plane cuts a thin slab's edge, lies wholly inside a slab, or inside a cliff. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "strata/render.h"
#include "support.h"

#define W 64
#define H 40

/* For every method: the pixels the reference hits at the near plane are at the near plane, and no other
 * pixel is. Returns how many pixels the reference hits there. */
static int check_camera(const st_level *l, st_engine *e, st_camera cam, const char *what) {
    float *ref = test_reference_distances(l, cam, W, H);
    st_view v = st_camera_view(&cam, W, H);
    float *t_near = malloc(W * H * sizeof *t_near);
    int at_near = 0;
    for (uint32_t j = 0; j < H; j++)
        for (uint32_t i = 0; i < W; i++) {
            float dir[3];
            st_view_pixel_ray(&v, i, j, dir, &t_near[j * W + i], NULL);
            at_near += fabsf(ref[j * W + i] - t_near[j * W + i]) < 1e-3f;
        }
    for (size_t m = 0; m < st_method_count(); m++) {
        const char *name = st_method_at(m)->name;
        float *d = test_render_distances(e, name, cam, W, H, NULL, NULL);
        int wrong = 0;
        for (uint32_t k = 0; k < W * H; k++) {
            bool want = fabsf(ref[k] - t_near[k]) < 1e-3f, got = fabsf(d[k] - t_near[k]) < 1e-3f;
            wrong += want != got;
        }
        printf("%s, %s: %d of %d pixels at the near plane in the reference, %d wrong\n", what, name, at_near, W * H,
               wrong);
        /* the one predicate at the same points: only pixels within rounding of an edge of the solid may differ */
        if (wrong > W / 8) fail_msg("%s, %s: %d pixels disagree with the reference about the near plane", what, name, wrong);
        free(d);
    }
    free(t_near);
    free(ref);
    return at_near;
}

static void test_near_plane_in_solid(void **state) {
    (void)state;
    st_level *l = test_slab_cave_level(); /* slab x, y ∈ [96, 160), mid 90, high 100; wall x ∈ [160, 168) to 150 */
    st_engine *e = test_engine(l);
    /* the eye in air just off the slab's edge, level with its top: the near plane cuts the edge */
    st_camera edge = {.position = {128, 95.6f, 100}, .yaw_deg = 0, .pitch_deg = -10};
    int n = check_camera(l, e, edge, "slab edge");
    if (!(n > W * H / 5 && n < W * H * 4 / 5)) fail_msg("slab edge: %d pixels at the near plane, want a mix", n);
    /* the eye inside the slab: every ray starts in rock */
    st_camera inside = {.position = {120, 120, 95}, .yaw_deg = 30, .pitch_deg = 5};
    if (check_camera(l, e, inside, "inside the slab") != W * H) fail_msg("inside the slab: not every pixel at the near plane");
    /* the eye in air at the foot of the cliff, the near plane inside it */
    st_camera cliff = {.position = {159.6f, 40, 60}, .yaw_deg = 90, .pitch_deg = 0};
    if (check_camera(l, e, cliff, "cliff") != W * H) fail_msg("cliff: not every pixel at the near plane");
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_near_plane_in_solid)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
