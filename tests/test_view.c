/* Tests of the viewer's library part that need no window: the edit history (undo/redo are exact, the
 * unsaved state follows them, the byte budget forgets the oldest edits), picking against an analytic
 * level, camera paths (parsing, linear interpolation, the short yaw arc) and the camera controllers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/materials.h"
#include "strata/view.h"
#include "support.h"

static bool planes_equal(const st_level *a, const st_level *b) {
    size_t n = (size_t)a->width * a->height;
    return !memcmp(a->heights, b->heights, n) && !memcmp(a->meta, b->meta, n);
}

static void test_undo_redo_are_exact(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 100);
    st_level_set_dual(l, 30, 30, 40, 64, 120, 2, 3); /* a slab the dig destroys: meta bytes change too */
    st_level *original = NULL, *after_one = NULL;
    assert_st_ok(st_level_clone(l, &original, err));
    st_edit_history *h = NULL;
    assert_st_ok(st_edit_history_create(0, &h, err));
    assert_false(st_edit_history_unsaved(h));
    st_rect dirty;
    assert_st_ok(st_edit_history_apply(h, l, ST_EDIT_DIG, 31, 30, 5, 20, &dirty, err));
    assert_false(st_rect_empty(dirty));
    assert_false(planes_equal(l, original));
    assert_true(st_edit_history_unsaved(h));
    assert_st_ok(st_level_clone(l, &after_one, err));
    assert_st_ok(st_edit_history_apply(h, l, ST_EDIT_RAISE, 10, 50, 4, 30, &dirty, err));
    assert_int_equal(st_edit_history_undo_count(h), 2);

    st_rect undone;
    assert_true(st_edit_history_undo(h, l, NULL, &undone, NULL));
    assert_true(planes_equal(l, after_one));
    assert_true(st_edit_history_undo(h, l, NULL, &undone, NULL));
    assert_true(planes_equal(l, original));
    assert_false(st_edit_history_unsaved(h)); /* back to the loaded state */
    assert_false(st_edit_history_undo(h, l, NULL, &undone, NULL));
    assert_int_equal(st_edit_history_redo_count(h), 2);
    assert_true(st_edit_history_redo(h, l, NULL, &undone, NULL));
    assert_true(planes_equal(l, after_one));
    assert_true(st_level_valid(l, NULL));

    /* saving marks the state; undoing past it makes the level unsaved again */
    st_edit_history_mark_saved(h);
    assert_false(st_edit_history_unsaved(h));
    assert_true(st_edit_history_undo(h, l, NULL, &undone, NULL));
    assert_true(st_edit_history_unsaved(h));
    assert_true(st_edit_history_redo(h, l, NULL, &undone, NULL));
    assert_false(st_edit_history_unsaved(h));

    /* a new edit drops what could be redone */
    assert_true(st_edit_history_undo(h, l, NULL, &undone, NULL));
    assert_st_ok(st_edit_history_apply(h, l, ST_EDIT_DIG, 50, 10, 3, 10, &dirty, err));
    assert_int_equal(st_edit_history_redo_count(h), 0);
    assert_true(st_edit_history_unsaved(h));
    st_edit_history_destroy(h);
    st_level_destroy(after_one);
    st_level_destroy(original);
    st_level_destroy(l);
}

/* Paints and digs share one history: undo and redo put back exactly the control texels and level bytes of each
 * step, in order, and a paint with bad input changes nothing. */
static void test_paint_undo_redo_are_exact(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 100);
    st_control_map *map = NULL;
    assert_st_ok(st_control_map_create(64, 64, &map, err));
    st_control_map_fill(map, l, (st_rect){0, 0, 64, 64}, ST_CONTROL_BY_RULES);
    size_t bytes = 64 * 64 * 4;
    uint8_t *loaded = malloc(bytes), *painted = malloc(bytes);
    memcpy(loaded, map->texels, bytes);
    st_edit_history *h = NULL;
    assert_st_ok(st_edit_history_create(0, &h, err));
    st_rect dirty, undone;
    bool of_control = false;
    assert_st_ok(st_edit_history_paint(h, map, 20.5f, 30.5f, 6.0f, ST_MAT_SNOW, 1.0f, &dirty, err));
    assert_false(st_rect_empty(dirty));
    assert_true(dirty.x0 >= 14 && dirty.x1 <= 27 && dirty.y0 >= 24 && dirty.y1 <= 37);
    assert_int_equal(map->texels[(30 * 64 + 20) * 4 + 1], ST_MAT_SNOW);
    assert_true(st_edit_history_unsaved(h));
    memcpy(painted, map->texels, bytes);
    assert_st_ok(st_edit_history_apply(h, l, ST_EDIT_DIG, 40, 40, 4, 20, &dirty, err));
    assert_st_ok(st_edit_history_paint(h, map, 22.0f, 30.0f, 4.0f, ST_MAT_ROCK, 0.5f, &dirty, err));
    assert_int_equal(st_edit_history_undo_count(h), 3);

    assert_true(st_edit_history_undo(h, l, map, &undone, &of_control)); /* the rock paint */
    assert_true(of_control);
    assert_memory_equal(map->texels, painted, bytes);
    assert_true(st_edit_history_undo(h, l, map, &undone, &of_control)); /* the dig */
    assert_false(of_control);
    assert_int_equal(l->heights[40 * 64 + 40], 100);
    /* a paint cannot be undone without its map: nothing changes */
    assert_false(st_edit_history_undo(h, l, NULL, &undone, &of_control));
    assert_int_equal(st_edit_history_undo_count(h), 1);
    assert_true(st_edit_history_undo(h, l, map, &undone, &of_control));
    assert_memory_equal(map->texels, loaded, bytes);
    assert_false(st_edit_history_unsaved(h));
    assert_true(st_edit_history_redo(h, l, map, &undone, &of_control));
    assert_true(of_control);
    assert_memory_equal(map->texels, painted, bytes);

    /* bad input: refused, the map untouched */
    st_error e = {0};
    assert_int_equal(st_edit_history_paint(h, map, 200, 10, 4, 1, 1, &dirty, &e), ST_ERR_INVALID);
    assert_int_equal(st_edit_history_paint(h, map, NAN, 10, 4, 1, 1, &dirty, &e), ST_ERR_INVALID);
    assert_int_equal(st_edit_history_paint(h, map, 10, 10, 0, 1, 1, &dirty, &e), ST_ERR_INVALID);
    assert_int_equal(st_edit_history_paint(h, map, 10, 10, 4, 1, 0, &dirty, &e), ST_ERR_INVALID);
    assert_int_equal(st_edit_history_paint(h, NULL, 10, 10, 4, 1, 1, &dirty, &e), ST_ERR_INVALID);
    assert_memory_equal(map->texels, painted, bytes);
    assert_int_equal(st_edit_history_undo_count(h), 1);
    st_edit_history_destroy(h);
    free(loaded);
    free(painted);
    st_control_map_destroy(map);
    st_level_destroy(l);
}

static void test_edits_at_the_border_and_bad_input(void **state) {
    (void)state;
    st_level *l = test_flat_level(32, 32, 50);
    st_level *original = NULL;
    assert_st_ok(st_level_clone(l, &original, err));
    st_edit_history *h = NULL;
    assert_st_ok(st_edit_history_create(0, &h, err));
    st_rect dirty, undone;
    assert_st_ok(st_edit_history_apply(h, l, ST_EDIT_DIG, 0, 31, 6, 40, &dirty, err));
    assert_int_equal(dirty.x0, 0);
    assert_int_equal(dirty.y1, 32);
    assert_true(st_edit_history_undo(h, l, NULL, &undone, NULL));
    assert_true(planes_equal(l, original));
    st_error e = {0};
    assert_int_equal(st_edit_history_apply(h, l, ST_EDIT_DIG, 40, 3, 6, 40, &dirty, &e), ST_ERR_INVALID);
    assert_int_equal(st_edit_history_apply(h, l, ST_EDIT_DIG, 3, 3, 0, 40, &dirty, &e), ST_ERR_INVALID);
    assert_true(planes_equal(l, original));
    st_edit_history_destroy(h);
    st_level_destroy(original);
    st_level_destroy(l);
}

static void test_budget_forgets_oldest(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 200);
    st_edit_history *h = NULL;
    assert_st_ok(st_edit_history_create(2000, &h, err)); /* about two 9×9 edits */
    st_rect dirty, undone;
    for (int i = 0; i < 6; i++) assert_st_ok(st_edit_history_apply(h, l, ST_EDIT_DIG, 8 + 8 * i, 20, 4, 10, &dirty, err));
    size_t kept = st_edit_history_undo_count(h);
    assert_true(kept >= 1 && kept < 6);
    while (st_edit_history_undo(h, l, NULL, &undone, NULL)) {
    }
    /* the oldest crater stays: it was forgotten, not undone; the level differs from the loaded one */
    assert_true(l->heights[20 * 64 + 8] < 200);
    assert_true(st_edit_history_unsaved(h));
    st_edit_history_destroy(h);
    st_level_destroy(l);
}

static void test_pick_flat_floor(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 30);
    st_camera cam = {.position = {100, 100, 80}, .yaw_deg = 0, .pitch_deg = -90};
    float hit[3];
    /* straight down through the centre: the floor top is the plane z = 30 */
    assert_true(st_viewer_pick(l, &cam, 320, 200, 160, 100, hit));
    assert_float_equal(hit[0], 100, 1e-3);
    assert_float_equal(hit[1], 100, 1e-3);
    assert_float_equal(hit[2], 30, 1e-3);
    /* looking up from the floor: sky */
    st_camera up = {.position = {100, 100, 80}, .pitch_deg = 80};
    assert_false(st_viewer_pick(l, &up, 320, 200, 160, 100, hit));
    /* an oblique ray lands on the floor along its own direction */
    st_camera oblique = {.position = {10, 10, 60}, .yaw_deg = 90, .pitch_deg = -30};
    assert_true(st_viewer_pick(l, &oblique, 320, 200, 160, 100, hit));
    assert_float_equal(hit[2], 30, 1e-3);
    assert_float_equal(hit[0], 10 + 30 / tanf(30 * 3.14159265f / 180), 1e-2); /* yaw 90 looks along +x */
    assert_float_equal(hit[1], 10, 1e-3);
    st_level_destroy(l);
}

/* Picking past the edge of a level that does not wrap finds nothing (not the copy, not the ground at 0); the
 * same ray on the wrapping level lands on the copy's floor. */
static void test_pick_past_a_bounded_edge(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 30);
    st_camera cam = {.position = {60, 32, 40}, .yaw_deg = 90, .pitch_deg = -20}; /* the floor past x = 64 */
    float hit[3];
    assert_true(st_viewer_pick(l, &cam, 320, 200, 160, 100, hit));
    assert_true(hit[0] > 64);
    l->wrap_x = false;
    assert_false(st_viewer_pick(l, &cam, 320, 200, 160, 100, hit));
    st_camera near = {.position = {30, 32, 40}, .yaw_deg = 90, .pitch_deg = -20}; /* the floor inside */
    assert_true(st_viewer_pick(l, &near, 320, 200, 160, 100, hit));
    assert_true(hit[0] < 64);
    st_level_destroy(l);
}

static void test_path_parse_and_interpolate(void **state) {
    (void)state;
    st_cam_path p;
    assert_st_ok(st_cam_path_parse("# comment\n\n0 0 0 10 350 -10\n2 20 40 30 10 -30  # trailing\n", &p, err));
    assert_int_equal(p.count, 2);
    assert_float_equal(st_cam_path_duration(&p), 2, 0);
    st_camera c = st_cam_path_at(&p, 1, NULL);
    assert_float_equal(c.position[0], 10, 1e-5);
    assert_float_equal(c.position[1], 20, 1e-5);
    assert_float_equal(c.position[2], 20, 1e-5);
    assert_float_equal(c.yaw_deg, 0, 1e-3); /* 350 → 10 crosses 0, not 180 */
    assert_float_equal(c.pitch_deg, -20, 1e-5);
    st_camera before = st_cam_path_at(&p, -1, NULL), after = st_cam_path_at(&p, 5, NULL);
    assert_float_equal(before.position[2], 10, 0);
    assert_float_equal(after.position[2], 30, 0);
    st_cam_path_free(&p);
    st_error e = {0};
    assert_int_equal(st_cam_path_parse("0 1 2 3 4\n", &p, &e), ST_ERR_FORMAT);
    assert_int_equal(st_cam_path_parse("1 0 0 0 0 0\n1 0 0 0 0 0\n", &p, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "line 2"));
    assert_int_equal(st_cam_path_parse("0 0 0 0 0 -100\n", &p, &e), ST_ERR_FORMAT);
    assert_int_equal(st_cam_path_parse("# nothing\n", &p, &e), ST_ERR_FORMAT);
    assert_int_equal(st_cam_path_parse("0 0 0 0 0 0 7\n", &p, &e), ST_ERR_FORMAT);
    /* times and positions within bounds: a last keyframe at 1e7 s would queue 3e8 frames at 30 fps, one at
     * 1e30 s overflows the frame count; 1e30 texels is no position */
    assert_st_ok(st_cam_path_parse("0 0 0 0 0 0\n3600 1 1 1 0 0\n", &p, err));
    st_cam_path_free(&p);
    assert_int_equal(st_cam_path_parse("0 0 0 0 0 0\n3600.5 1 1 1 0 0\n", &p, &e), ST_ERR_FORMAT);
    assert_int_equal(st_cam_path_parse("0 0 0 0 0 0\n1e7 1 1 1 0 0\n", &p, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "3600"));
    assert_int_equal(st_cam_path_parse("0 0 0 0 0 0\n1e30 1 1 1 0 0\n", &p, &e), ST_ERR_FORMAT);
    assert_int_equal(st_cam_path_parse("0 1e30 0 0 0 0\n", &p, &e), ST_ERR_FORMAT);
    assert_int_equal(st_cam_path_parse("0 0 0 0 1e30 0\n", &p, &e), ST_ERR_FORMAT);
    assert_null(p.keys);
}

/* The frame graph's scale holds the slowest frame: a 2.6 s frame on a CPU adapter is a bar, not a red box. */
static void test_graph_scale(void **state) {
    (void)state;
    const double fast[3] = {10, 20, NAN}, s50[2] = {50, 1}, s80[1] = {80}, s150[1] = {150}, s700[1] = {700},
                 s1500[1] = {1500}, s2600[1] = {2600}, s60k[1] = {60000};
    assert_float_equal(st_hud_graph_scale_ms(fast, 3), 100.0 / 3.0, 1e-9);
    assert_float_equal(st_hud_graph_scale_ms(s50, 2), 200.0 / 3.0, 1e-9);
    assert_float_equal(st_hud_graph_scale_ms(s80, 1), 100, 1e-9);
    assert_float_equal(st_hud_graph_scale_ms(s150, 1), 200, 1e-9);
    assert_float_equal(st_hud_graph_scale_ms(s700, 1), 1000, 1e-9);
    assert_float_equal(st_hud_graph_scale_ms(s1500, 1), 2000, 1e-9);
    assert_float_equal(st_hud_graph_scale_ms(s2600, 1), 5000, 1e-9);
    assert_float_equal(st_hud_graph_scale_ms(s60k, 1), 100000, 1e-9);
    assert_float_equal(st_hud_graph_scale_ms(NULL, 0), 100.0 / 3.0, 1e-9);
}

static void test_controllers(void **state) {
    (void)state;
    st_camera start = {.position = {100, 100, 50}, .yaw_deg = 90, .pitch_deg = 0};
    st_cam_control c;
    st_cam_control_init(&c, &start);
    /* fly: forward one second at the base speed along yaw 90 = +x */
    st_cam_input in = {.move = {0, 1, 0}, .dt = 1};
    st_cam_control_update(&c, &in, NULL);
    assert_float_equal(c.camera.position[0], 100 + c.speed, 1e-3);
    assert_float_equal(c.camera.position[1], 100, 1e-3);
    /* looking right turns toward what was at the right edge of the screen */
    st_view before = st_camera_view(&c.camera, 1, 1);
    st_cam_input turn = {.look = {100, 0}, .dt = 0.01f};
    st_cam_control_update(&c, &turn, NULL);
    st_view after = st_camera_view(&c.camera, 1, 1);
    float toward_right = (after.forward[0] - before.forward[0]) * before.screen_right[0] +
                         (after.forward[1] - before.forward[1]) * before.screen_right[1];
    assert_true(toward_right > 0);
    /* orbit: the eye sits `distance` back from the target along the view, looking down */
    float target[3] = {300, 300, 40};
    st_cam_control_mode(&c, ST_CAM_ORBIT, target);
    assert_true(c.camera.pitch_deg < -5);
    st_view o = st_camera_view(&c.camera, 1, 1);
    for (int k = 0; k < 3; k++) assert_float_equal(o.eye[k] + o.forward[k] * c.distance, target[k], 1e-2);
    float d0 = c.distance;
    st_cam_input zoom = {.scroll = 2, .dt = 0.01f};
    st_cam_control_update(&c, &zoom, NULL);
    assert_true(c.distance < d0);
    st_cam_control_mode(&c, ST_CAM_TOPDOWN, NULL);
    assert_float_equal(c.camera.pitch_deg, -90, 0);
    assert_float_equal(c.camera.position[0], c.target[0], 1e-3);
    st_cam_control_mode(&c, ST_CAM_FLY, NULL);
    assert_int_equal(c.mode, ST_CAM_FLY);
}

/* The tile-store viewer's switches: τ doubles and halves within its bounds, the toggles flip, only the HUD needs no
 * new renderer; the key script's characters; the HUD's text carries the level of detail and the residency. */
static void test_store_view_switches(void **state) {
    (void)state;
    st_store_view_state s = {.tau_px = 1, .shadows = true, .hud = true};
    assert_true(st_store_view_apply(&s, ST_STORE_KEY_TAU_UP));
    assert_true(s.tau_px == 2);
    for (int i = 0; i < 10; i++) st_store_view_apply(&s, ST_STORE_KEY_TAU_UP);
    assert_true(s.tau_px == ST_STORE_VIEW_MAX_TAU);
    for (int i = 0; i < 20; i++) st_store_view_apply(&s, ST_STORE_KEY_TAU_DOWN);
    assert_true(s.tau_px == ST_STORE_VIEW_MIN_TAU);
    st_store_view_state z = {0}; /* τ 0 means 1 */
    st_store_view_apply(&z, ST_STORE_KEY_TAU_DOWN);
    assert_true(z.tau_px == 0.5f);
    assert_true(st_store_view_apply(&s, ST_STORE_KEY_FREEZE) && s.freeze);
    assert_true(st_store_view_apply(&s, ST_STORE_KEY_WIREFRAME) && s.wireframe);
    assert_true(st_store_view_apply(&s, ST_STORE_KEY_SKIRTS) && s.skirts);
    assert_true(st_store_view_apply(&s, ST_STORE_KEY_SHADOWS) && !s.shadows);
    assert_false(st_store_view_apply(&s, ST_STORE_KEY_HUD));
    assert_false(s.hud);
    assert_true(st_store_view_apply(&s, ST_STORE_KEY_FREEZE) && !s.freeze);
    const char *script = "][fxkhi";
    const st_store_view_key want[] = {ST_STORE_KEY_TAU_UP, ST_STORE_KEY_TAU_DOWN, ST_STORE_KEY_FREEZE,
                                      ST_STORE_KEY_WIREFRAME, ST_STORE_KEY_SKIRTS, ST_STORE_KEY_SHADOWS, ST_STORE_KEY_HUD};
    for (int i = 0; script[i]; i++) {
        st_store_view_key k;
        assert_true(st_store_view_key_of(script[i], &k));
        assert_int_equal(k, want[i]);
    }
    st_store_view_key k;
    assert_false(st_store_view_key_of('q', &k));
    assert_false(st_store_view_key_of('\n', &k));

    st_lod_frame_stats lod = {.nodes = 12, .triangles = 2500000, .levels = 3, .per_level = {4, 0, 9}, .fallback = 2,
                              .missing = 1, .hole_px = 77, .select_ms = 0.042};
    st_world_stats ws = {.residency = {.resident = 31, .queued = 5, .loading = 3, .evictable = 8, .evictions = 19,
                                       .upload_ms_frame = 0.25}};
    double eye[3] = {1000.5, 2000.25, 300};
    char text[1024];
    st_store_view_state f = {.tau_px = 2, .freeze = true, .skirts = true, .shadows = true};
    st_store_view_hud_text(&f, "cdlod", &lod, &ws, eye, 45, -30, 16.5, text, sizeof text);
    const char *parts[] = {"cdlod", "tau 2 px", "LOD FROZEN", "skirts", "12 nodes", "2.50 M triangles", "L0 4 L2 9",
                           "2 from ancestors", "1 missing", "holes 77 px", "31 resident", "5 queued", "3 loading",
                           "8 evictable", "19 evictions", "upload 0.25 ms", "selection 0.042 ms", "eye 1000.5 2000.2 300.0"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!strstr(text, parts[i])) fail_msg("the HUD lacks '%s':\n%s", parts[i], text);
    char tiny[8];
    st_store_view_hud_text(&f, "cdlod", &lod, &ws, eye, 45, -30, 16.5, tiny, sizeof tiny);
    assert_int_equal(strlen(tiny), 7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_undo_redo_are_exact),
        cmocka_unit_test(test_paint_undo_redo_are_exact),
        cmocka_unit_test(test_pick_past_a_bounded_edge),
        cmocka_unit_test(test_edits_at_the_border_and_bad_input),
        cmocka_unit_test(test_budget_forgets_oldest),
        cmocka_unit_test(test_pick_flat_floor),
        cmocka_unit_test(test_path_parse_and_interpolate),
        cmocka_unit_test(test_controllers),
        cmocka_unit_test(test_store_view_switches),
        cmocka_unit_test(test_graph_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
