/* Tests of viewpoints: the embedded catalogue (12 views, 3 per pitch, scaled with the level), the paper's
 * views, spec strings, the viewpoint camera, and that the default world and its views agree: each
 * landmark has its feature and each non-horizon view's centre ray hits terrain within 300 units. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "strata/camera.h"
#include "strata/gen.h"
#include "strata/views.h"
#include "support.h"

static st_level *world; /* the default world, generated once */

static int setup_world(void **state) {
    (void)state;
    st_error err = {0};
    if (st_gen_world(NULL, &world, &err) != ST_OK) {
        fprintf(stderr, "st_gen_world: %s\n", err.message);
        return -1;
    }
    return 0;
}

static int teardown_world(void **state) {
    (void)state;
    st_level_destroy(world);
    return 0;
}

static cJSON *catalogue(void) {
    size_t size = 0;
    const char *text = st_data_file("default_world.json", &size);
    assert_non_null(text);
    cJSON *root = cJSON_ParseWithLength(text, size);
    assert_non_null(root);
    return root;
}

static void test_data_file_lookup(void **state) {
    (void)state;
    size_t size = 0;
    const char *t = st_data_file("default_world.json", &size);
    assert_non_null(t);
    assert_true(size > 100);
    assert_int_equal(strlen(t), size);
    assert_null(st_data_file("no_such_file.json", &size));
    assert_null(st_data_file(NULL, &size));
}

static void test_default_views(void **state) {
    (void)state;
    st_viewpoint v[ST_MAX_VIEWS];
    size_t n = 0;
    assert_st_ok(st_views_default(NULL, v, ST_MAX_VIEWS, &n, err));
    assert_int_equal(n, 12);
    int per_pitch[4] = {0};
    for (size_t i = 0; i < n; i++) {
        int p = (int)lrintf(-v[i].pitch_deg / 30.0f);
        assert_true(p >= 0 && p <= 3);
        assert_true(fabsf(v[i].pitch_deg + 30.0f * (float)p) < 1e-6f);
        per_pitch[p]++;
        for (size_t j = 0; j < i; j++) assert_string_not_equal(v[i].name, v[j].name);
    }
    for (int p = 0; p < 4; p++) assert_int_equal(per_pitch[p], 3);
    /* scaled with the level: x by width/2048, y by height/16384 */
    st_level *small = test_flat_level(512, 1024, 10);
    st_viewpoint s[ST_MAX_VIEWS];
    size_t m = 0;
    assert_st_ok(st_views_default(small, s, ST_MAX_VIEWS, &m, err));
    assert_int_equal(m, n);
    for (size_t i = 0; i < n; i++) {
        assert_true(fabsf(s[i].x - v[i].x / 4.0f) < 1e-3f);
        assert_true(fabsf(s[i].y - v[i].y / 16.0f) < 1e-3f);
        assert_true(s[i].eye_height == v[i].eye_height);
    }
    st_level_destroy(small);
    st_error e = {0};
    assert_int_equal(st_views_default(NULL, v, 5, &n, &e), ST_ERR_INVALID);
}

static void test_paper_views(void **state) {
    (void)state;
    st_viewpoint v[12];
    size_t n = 0;
    assert_st_ok(st_views_paper(v, 12, &n, err));
    assert_int_equal(n, 12);
    assert_string_equal(v[0].name, "river");
    assert_true(v[0].x == 837 && v[0].y == 3984 && v[0].yaw_deg == 299 && v[0].eye_height == 78);
    assert_string_equal(v[1].name, "hangar");
    assert_true(v[1].x == 1588 && v[1].y == 4101 && v[1].eye_height == 12);
    assert_true(v[11].x == 237 && v[11].y == 12065 && v[11].pitch_deg == -90 && v[11].eye_height == 376);
    for (int i = 0; i < 12; i++) assert_true(v[i].pitch_deg == -30.0f * (float)(i / 3));
    st_error e = {0};
    assert_int_equal(st_views_paper(v, 11, &n, &e), ST_ERR_INVALID);
}

static void test_find_and_specs(void **state) {
    (void)state;
    st_level *l = test_flat_level(512, 1024, 10);
    st_viewpoint v;
    assert_st_ok(st_views_find(l, "hangar", &v, err));
    assert_string_equal(v.name, "hangar");
    assert_true(fabsf(v.x - 1372.0f / 4.0f) < 1e-3f);
    assert_st_ok(st_views_find(l, "a:10,20:90:-30", &v, err));
    assert_string_equal(v.name, "a");
    assert_true(v.x == 10 && v.y == 20 && v.yaw_deg == 90 && v.pitch_deg == -30);
    assert_true(v.eye_height == 40.0f);
    assert_false(v.under);
    assert_st_ok(st_views_find(l, "cave:100.5,200:0:0:7.5:under", &v, err));
    assert_true(v.x == 100.5f && v.eye_height == 7.5f && v.under);
    assert_st_ok(st_views_find(l, "b:1,2:3:-90:under", &v, err));
    assert_true(v.under && v.eye_height == 40.0f);
    const char *bad[] = {"nope", "a:10:90:-30", "a:1,2:x:0", "a:1,2:0:-91", "a:1,2:0:0:-5", "a:1,2:0:0:5:over",
                         ":1,2:0:0", "a:1,2:0", "a:600,2:0:0", "a:1,-2:0:0", "a:1,2:0:0:5:under:x", "a:1,2:0:nan",
                         ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        st_error e = {0};
        if (st_views_find(l, bad[i], &v, &e) != ST_ERR_INVALID) fail_msg("'%s' was accepted", bad[i]);
        assert_true(e.message[0] != 0);
    }
    st_level_destroy(l);
}

static void test_viewpoint_camera(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 10);
    st_level_set_dual(l, 40, 50, 20, 60, 90, 5, 2);
    st_viewpoint v = {.x = 41.5f, .y = 50.2f, .yaw_deg = 33, .pitch_deg = -30, .eye_height = 12};
    st_camera c = st_viewpoint_camera(l, &v);
    assert_true(c.position[0] == 41.5f && c.position[1] == 50.2f);
    assert_true(c.position[2] == 102.0f); /* on the slab top */
    assert_true(c.yaw_deg == 33 && c.pitch_deg == -30);
    assert_true(c.far_dist == ST_DEFAULT_FAR && c.near_dist == ST_DEFAULT_NEAR);
    v.under = true;
    c = st_viewpoint_camera(l, &v);
    assert_true(c.position[2] == 32.0f); /* on the cave floor */
    v.x = 10;
    c = st_viewpoint_camera(l, &v);
    assert_true(c.position[2] == 22.0f); /* single texel: low == high */
    st_level_destroy(l);
}

/* Distance along the centre pixel's ray to the first solid point, or -1 within max_dist. */
static float centre_hit(const st_level *l, const st_camera *cam, float max_dist) {
    st_view view = st_camera_view(cam, 1280, 800);
    float dir[3], tn, tf;
    st_view_pixel_ray(&view, 640, 400, dir, &tn, &tf);
    for (float t = tn; t < max_dist; t += 0.25f) {
        float p[3] = {view.eye[0] + dir[0] * t, view.eye[1] + dir[1] * t, view.eye[2] + dir[2] * t};
        if (st_level_solid(l, p[0], p[1], p[2])) return t;
    }
    return -1.0f;
}

static void test_views_look_at_their_features(void **state) {
    (void)state;
    cJSON *root = catalogue();
    const cJSON *views = cJSON_GetObjectItemCaseSensitive(root, "views");
    const cJSON *landmarks = cJSON_GetObjectItemCaseSensitive(root, "landmarks");
    assert_true(cJSON_IsArray(views) && cJSON_IsArray(landmarks));
    const cJSON *jv;
    cJSON_ArrayForEach(jv, views) {
        const char *name = cJSON_GetObjectItemCaseSensitive(jv, "name")->valuestring;
        const char *lm = cJSON_GetObjectItemCaseSensitive(jv, "landmark")->valuestring;
        bool horizon = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(jv, "horizon"));
        const cJSON *jl, *found = NULL;
        cJSON_ArrayForEach(jl, landmarks) {
            if (!strcmp(cJSON_GetObjectItemCaseSensitive(jl, "name")->valuestring, lm)) found = jl;
        }
        if (!found) fail_msg("view %s names unknown landmark %s", name, lm);
        st_viewpoint v;
        assert_st_ok(st_views_find(world, name, &v, err));
        float lx = (float)cJSON_GetObjectItemCaseSensitive(found, "x")->valuedouble;
        float ly = (float)cJSON_GetObjectItemCaseSensitive(found, "y")->valuedouble;
        if (hypotf(v.x - lx, v.y - ly) > 300.0f) fail_msg("view %s stands far from %s", name, lm);
        st_camera cam = st_viewpoint_camera(world, &v);
        if (st_level_solid(world, cam.position[0], cam.position[1], cam.position[2]))
            fail_msg("view %s: the eye is inside terrain", name);
        if (v.under) {
            st_texel t = st_level_texel(world, (int)v.x, (int)v.y);
            if (!t.dual || cam.position[2] >= t.mid) fail_msg("view %s: not inside a cave", name);
        }
        float hit = centre_hit(world, &cam, 300.0f);
        if (!horizon && hit < 0) fail_msg("view %s: the centre ray hits nothing within 300", name);
    }
    cJSON_Delete(root);
}

/* Each catalogued landmark has its feature at its position in the generated world. */
static void test_landmarks_present(void **state) {
    (void)state;
    assert_string_equal(world->name, "default");
    cJSON *root = catalogue();
    const cJSON *jl;
    int count = 0;
    cJSON_ArrayForEach(jl, cJSON_GetObjectItemCaseSensitive(root, "landmarks")) {
        const char *name = cJSON_GetObjectItemCaseSensitive(jl, "name")->valuestring;
        const char *kind = cJSON_GetObjectItemCaseSensitive(jl, "kind")->valuestring;
        int x = (int)cJSON_GetObjectItemCaseSensitive(jl, "x")->valuedouble;
        int y = (int)cJSON_GetObjectItemCaseSensitive(jl, "y")->valuedouble;
        assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(jl, "description")));
        count++;
        int dual = 0, metal = 0, max_h = 0, tall_cave = 0;
        for (int dy = -48; dy <= 48; dy++) {
            for (int dx = -48; dx <= 48; dx++) {
                st_texel t = st_level_texel(world, x + dx, y + dy);
                dual += t.dual;
                tall_cave += t.dual && t.mid - t.low >= 64;
                metal += t.high_type == 7;
                max_h = t.high > max_h ? t.high : max_h;
            }
        }
        st_texel c = st_level_texel(world, x, y);
        bool ok = true;
        if (!strcmp(kind, "hangar")) ok = tall_cave > 1000 && metal > 1000;
        else if (!strcmp(kind, "slab") || !strcmp(kind, "tunnel") || !strcmp(kind, "ledge") || !strcmp(kind, "mesa"))
            ok = dual > 200;
        else if (!strcmp(kind, "bridge")) ok = c.dual && c.low_type == 0 && c.high > c.mid;
        else if (!strcmp(kind, "river") || !strcmp(kind, "lake")) ok = c.high_type == 0 && c.high == 0;
        else if (!strcmp(kind, "canyon")) ok = c.high_type == 0 && max_h >= 150;
        else if (!strcmp(kind, "peak")) ok = c.high >= 230;
        else if (!strcmp(kind, "outpost")) ok = metal > 500;
        else fail_msg("landmark %s has unknown kind %s", name, kind);
        if (!ok) fail_msg("landmark %s (%s) not found at (%d,%d)", name, kind, x, y);
    }
    assert_int_equal(count, 12);
    cJSON_Delete(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_data_file_lookup),
        cmocka_unit_test(test_default_views),
        cmocka_unit_test(test_paper_views),
        cmocka_unit_test(test_find_and_specs),
        cmocka_unit_test(test_viewpoint_camera),
        cmocka_unit_test(test_views_look_at_their_features),
        cmocka_unit_test(test_landmarks_present),
    };
    return cmocka_run_group_tests(tests, setup_world, teardown_world);
}
