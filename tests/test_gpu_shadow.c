/* GPU tests of the shared shadow map: a slab shades the floor beneath it, open floor stays lit, and the
 * map costs nothing when shadows are off. */
#include <stdlib.h>
#include <string.h>

#include "strata/render.h"
#include "support.h"

#define W 32
#define H 20

/* Mean 8-bit luminance of the centre 4×4 pixels seen by the camera. */
static double centre_brightness(st_engine *e, bool shadows, st_camera cam) {
    st_renderer *r = NULL;
    st_render_desc d = {.method = "ray-compute", .width = W, .height = H, .shadows = shadows, .shadow_size = 512};
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    st_frame_timing t;
    assert_st_ok(st_renderer_draw(r, &cam, &t, err));
    /* the shadow is a timed pass of the frame only when it is cast */
    bool listed = false;
    for (uint32_t i = 0; i < t.pass_count; i++) listed |= strcmp(t.passes[i].name, "shadow") == 0;
    assert_true(listed == shadows);
    if (!shadows) assert_true(st_frame_timing_pass_ms(&t, "shadow") == 0);
    uint8_t *rgba = malloc(W * H * 4);
    assert_st_ok(st_renderer_readback(r, rgba, NULL, err));
    double sum = 0;
    for (int y = H / 2 - 2; y < H / 2 + 2; y++)
        for (int x = W / 2 - 2; x < W / 2 + 2; x++)
            for (int c = 0; c < 3; c++) sum += rgba[(y * W + x) * 4 + c];
    free(rgba);
    st_renderer_destroy(r);
    return sum / 48.0;
}

static void test_slab_shades_floor(void **state) {
    (void)state;
    st_level *l = test_slab_level();
    st_engine *e = test_engine(l);
    /* inside the cave, looking down at floor whose path to the sun crosses the slab */
    st_camera under = {.position = {110, 100, 50}, .yaw_deg = 0, .pitch_deg = -90};
    double lit_cave = centre_brightness(e, false, under), shadowed_cave = centre_brightness(e, true, under);
    if (!(shadowed_cave < lit_cave - 3)) fail_msg("cave floor: %.1f with shadows, %.1f without", shadowed_cave, lit_cave);
    /* open floor far from the slab: the same with or without shadows */
    st_camera open = {.position = {30, 30, 60}, .yaw_deg = 0, .pitch_deg = -90};
    double a = centre_brightness(e, false, open), b = centre_brightness(e, true, open);
    if (!(b > a - 1.5 && b < a + 1.5)) fail_msg("open floor: %.1f with shadows, %.1f without", b, a);
    /* floor just north-east... of the slab in its cast shadow (toward -light from the slab) */
    st_camera cast = {.position = {90, 84, 60}, .yaw_deg = 0, .pitch_deg = -90};
    double c0 = centre_brightness(e, false, cast), c1 = centre_brightness(e, true, cast);
    if (!(c1 < c0 - 10)) fail_msg("cast shadow: %.1f with shadows, %.1f without", c1, c0);
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_slab_shades_floor)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
