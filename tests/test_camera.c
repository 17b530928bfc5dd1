/* Tests of the camera's double-precision eye: origin + position, kept exact where a float would round (a
 * 655 km coordinate), the camera-relative view, and the precise parse. */
#include <math.h>
#include <string.h>

#include "strata/camera.h"
#include "support.h"

static void test_eye_is_origin_plus_position(void **state) {
    (void)state;
    st_camera cam = {.position = {10.5f, 20.25f, 30.0f}, .yaw_deg = 45, .pitch_deg = -30};
    double eye[3];
    st_camera_eye(&cam, eye);
    assert_true(eye[0] == 10.5 && eye[1] == 20.25 && eye[2] == 30.0);
    st_view v = st_camera_view(&cam, 64, 40);
    assert_true(v.eye[0] == 10.5f && v.eye[1] == 20.25f && v.eye[2] == 30.0f);
    assert_true(v.origin[0] == 10.5 && v.origin[2] == 30.0);

    /* 655,360.01 m is no float: the origin keeps it, the float eye rounds it */
    cam.origin[0] = 655360.01;
    cam.origin[1] = 655360.5;
    cam.origin[2] = 0;
    st_camera_eye(&cam, eye);
    assert_true(fabs(eye[0] - 655370.51) < 1e-9 && fabs(eye[1] - 655380.75) < 1e-9);
    v = st_camera_view(&cam, 64, 40);
    assert_true(fabs(v.origin[0] - 655370.51) < 1e-9);
    assert_true(v.eye[0] == (float)v.origin[0]);
}

static void test_relative_view(void **state) {
    (void)state;
    st_camera cam = {.yaw_deg = 30, .pitch_deg = -20};
    double at[3] = {655360.01, 123456.789, 2000.5};
    st_camera_set_eye(&cam, at);
    assert_true(cam.position[0] == 0 && cam.position[1] == 0 && cam.position[2] == 0);
    st_view v = st_camera_view(&cam, 80, 50);
    st_view r = st_view_relative(&v);
    assert_true(r.eye[0] == 0 && r.eye[1] == 0 && r.eye[2] == 0);
    assert_memory_equal(r.origin, at, sizeof at);
    float d0[3], d1[3];
    st_view_pixel_dir(&v, 3.5f, 7.5f, d0);
    st_view_pixel_dir(&r, 3.5f, 7.5f, d1);
    assert_memory_equal(d0, d1, sizeof d0);
    /* the view matrix of the relative view maps a point at (world − origin) where the world view maps it */
    float m[16];
    st_view_matrix(&r, m);
    float p[3] = {d0[0] * 10, d0[1] * 10, d0[2] * 10}; /* 10/focal along the ray through that pixel */
    float cx = m[0] * p[0] + m[4] * p[1] + m[8] * p[2] + m[12], cw = m[3] * p[0] + m[7] * p[1] + m[11] * p[2] + m[15];
    float sx = (cx / cw * 0.5f + 0.5f) * 80.0f;
    assert_true(fabsf(sx - 3.5f) < 1e-3f);
}

static void test_parse_precise(void **state) {
    (void)state;
    st_camera cam;
    memset(&cam, 0, sizeof cam);
    assert_true(st_camera_parse_precise("655360.01,20.5,1500.25,90,-45", &cam));
    assert_true(cam.origin[0] == 655360.01 && cam.origin[1] == 20.5 && cam.origin[2] == 1500.25);
    assert_true(cam.position[0] == 0 && cam.yaw_deg == 90 && cam.pitch_deg == -45);
    assert_false(st_camera_parse_precise("1,2,3,4", &cam));
    assert_false(st_camera_parse_precise("1,2,3,4,-91", &cam));
    assert_false(st_camera_parse_precise("1,2,nan,4,5", &cam));
    /* past the float parse's million but within the precise range; then past both, and an absurd yaw */
    assert_true(st_camera_parse_precise("5000000.5,2,3,4,5", &cam) && cam.origin[0] == 5000000.5);
    assert_false(st_camera_parse_precise("2e8,2,3,4,5", &cam));
    assert_false(st_camera_parse_precise("1,2,3,1e30,5", &cam));
    /* the float parse is unchanged: position holds the values, origin stays as it was */
    st_camera c2;
    memset(&c2, 0, sizeof c2);
    assert_true(st_camera_parse("1.5,2,3,4,5", &c2));
    assert_true(c2.position[0] == 1.5f && c2.origin[0] == 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eye_is_origin_plus_position),
        cmocka_unit_test(test_relative_view),
        cmocka_unit_test(test_parse_precise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
