/* GPU tests of the shared shadow map: a slab shades the floor beneath it, open floor stays lit, the map costs
 * nothing when shadows are off, and the map kept across frames (cast only where the window moved or an edit
 * landed) equals a freshly cast one bit for bit after random edits and camera moves. */
#include <stdlib.h>
#include <string.h>

#include "render/passes/passes.h"
#include "strata/gen.h"
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

#define MAP 128u

/* The map as stored after one frame of `cam` on a renderer of its own. */
static void fresh_map(st_engine *e, const st_render_desc *d, st_camera cam, float *out) {
    st_renderer *r = NULL;
    assert_st_ok(st_renderer_create(e, d, &r, err));
    assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
    assert_int_equal(st_shadow_last_cast_texels(r), MAP * MAP);
    assert_st_ok(st_shadow_read(r, out, err));
    st_renderer_destroy(r);
}

static int rnd(int lo, int hi) { return lo + rand() % (hi - lo + 1); }

/* Moves, turns and digs (some in wrapped copies of the level) with a renderer kept alive, each step's map held
 * to a fresh renderer's bit for bit; steady steps cast nothing, the others part of the map. */
static void check_sequence(st_engine *e, st_level *l, st_camera cam, int steps) {
    st_render_desc d = {.method = "ray-compute", .width = 24, .height = 16, .shadows = true, .shadow_size = MAP};
    st_renderer *cached = NULL;
    assert_st_ok(st_renderer_create(e, &d, &cached, err));
    float *a = malloc(MAP * MAP * sizeof(float)), *b = malloc(MAP * MAP * sizeof(float));
    assert_st_ok(st_renderer_draw(cached, &cam, NULL, err));
    assert_int_equal(st_shadow_last_cast_texels(cached), MAP * MAP);
    uint64_t partial = 0;
    for (int step = 0; step < steps; step++) {
        int kind = step % 5; /* 0 move, 1 dig, 2 move and dig, 3 steady, 4 two digs then a turn */
        if (kind == 0 || kind == 2) { /* by 10..40 along each axis, either way: the window moves */
            cam.position[0] += (float)(rnd(10, 40) * (rnd(0, 1) ? 1 : -1));
            cam.position[1] += (float)(rnd(10, 40) * (rnd(0, 1) ? 1 : -1));
        }
        if (kind == 1 || kind == 2 || kind == 4) {
            for (int k = 0; k < (kind == 4 ? 2 : 1); k++) {
                st_rect rect;
                int w = (int)l->width, h = (int)l->height;
                /* within the window; a level that does not wrap has the dig on its own ground near the eye */
                int cx = (int)cam.position[0] + rnd(-300, 300), cy = (int)cam.position[1] + rnd(-300, 300);
                if (l->wrap_x) cx = ((cx % w) + w) % w;
                else cx = cx < 50 ? 50 : cx > w - 50 ? w - 50 : cx;
                if (l->wrap_y) cy = ((cy % h) + h) % h;
                else cy = cy < 50 ? 50 : cy > h - 50 ? h - 50 : cy;
                assert_st_ok(st_level_dig(l, cx, cy, rnd(4, 40), rnd(20, 90), &rect, err));
                assert_st_ok(st_engine_update_level(e, rect, err));
            }
        }
        if (kind == 4) cam.yaw_deg += (float)rnd(5, 40);
        assert_st_ok(st_renderer_draw(cached, &cam, NULL, err));
        uint64_t cast = st_shadow_last_cast_texels(cached);
        if (kind == 3) assert_int_equal(cast, 0); /* nothing moved, nothing changed: nothing cast */
        if (kind != 3) assert_true(cast > 0);
        if (cast > 0 && cast < MAP * MAP) partial++;
        assert_st_ok(st_shadow_read(cached, a, err));
        fresh_map(e, &d, cam, b);
        size_t diff = 0;
        for (size_t i = 0; i < MAP * MAP; i++) diff += memcmp(&a[i], &b[i], sizeof(float)) != 0;
        if (diff) fail_msg("step %d (kind %d): %zu of %u texels differ from a fresh cast", step, kind, diff, MAP * MAP);
    }
    assert_true(partial >= (uint64_t)steps / 2); /* the moves and digs were cast in part, not whole */
    /* a jump across the world casts everything again */
    cam.position[0] += 5000;
    assert_st_ok(st_renderer_draw(cached, &cam, NULL, err));
    assert_int_equal(st_shadow_last_cast_texels(cached), MAP * MAP);
    free(a);
    free(b);
    st_renderer_destroy(cached);
}

static void test_cached_map_equals_fresh(void **state) {
    (void)state;
    st_gen_desc gd = {.width = 512, .height = 512, .seed = 5};
    st_level *l = NULL;
    assert_st_ok(st_gen_world(&gd, &l, err));
    st_engine *e = test_engine(l);
    srand(11);
    /* near the level's corner, so the window spans the wrap and edits land in several copies of the level */
    st_camera cam = {.position = {20, 30, 140}, .yaw_deg = 30, .pitch_deg = -30, .far_dist = 600};
    check_sequence(e, l, cam, 14);
    test_engine_finish(e, NULL);
    /* the same world not wrapping: one copy, and past its edges nothing casts a shadow */
    l->wrap_x = l->wrap_y = false;
    e = test_engine(l);
    check_sequence(e, l, cam, 6);
    test_engine_finish(e, l);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_slab_shades_floor),
                                       cmocka_unit_test(test_cached_map_equals_fresh)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
