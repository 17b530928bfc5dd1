/* Tests of flight files and the flight's cameras (src/eval/flight.c): the statements and their defaults, the shipped
 * example, every kind of bad line refused with its line number, and over a generated store the eye's speed, turns,
 * height over the ground and the mirror at the world's edge; and the flight's local frame-time figures (fly.c) on
 * series with known answers and against the slow, obvious computation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/fly_internal.h"
#include "strata/eval.h"
#include "strata/fly.h"
#include "support.h"

static st_flight parse_ok(const char *text) {
    st_flight f;
    st_error e = {0};
    if (st_flight_parse(text, &f, &e)) fail_msg("st_flight_parse: %s", e.message);
    return f;
}

static void parse_fails(const char *text, const char *says) {
    st_flight f;
    st_error e = {0};
    st_result r = st_flight_parse(text, &f, &e);
    if (r != ST_ERR_FORMAT) fail_msg("'%s' parsed (%d)", text, r);
    if (!strstr(e.message, says)) fail_msg("'%s': the message '%s' does not say '%s'", text, e.message, says);
    assert_null(f.legs);
}

static void test_parse(void **state) {
    (void)state;
    st_flight f = parse_ok("fly 2\n");
    assert_true(f.start[0] == 0.5 && f.start[1] == 0.5 && f.heading_deg == 0 && f.fps == 60);
    assert_int_equal(f.leg_count, 1);
    assert_true(f.legs[0].speed_mps == 300 && f.legs[0].height_m == 60 && f.legs[0].pitch_deg == -10);
    assert_int_equal(st_flight_frames(&f), 121);
    st_flight_free(&f);
    f = parse_ok("# a comment\r\nstart 0.1 0.9  # trailing\nheading -45\nfps 30\nspeed 100\nfly 1\n"
                 "height 200\npitch -30\nturn 90 2\n\n");
    assert_true(f.start[0] == 0.1 && f.start[1] == 0.9 && f.heading_deg == -45 && f.fps == 30);
    assert_int_equal(f.leg_count, 2);
    assert_true(f.legs[0].speed_mps == 100 && f.legs[0].height_m == 60 && f.legs[0].turn_deg == 0);
    assert_true(f.legs[1].height_m == 200 && f.legs[1].pitch_deg == -30 && f.legs[1].turn_deg == 90);
    assert_true(st_flight_duration(&f) == 3);
    assert_int_equal(st_flight_frames(&f), 91);
    st_flight_free(&f);

    /* the shipped example */
    const char *src = getenv("STRATA_SOURCE");
    assert_non_null(src);
    char path[1024];
    snprintf(path, sizeof path, "%s/data/flights/low-300.flight", src);
    st_error e = {0};
    if (st_flight_load(path, &f, &e)) fail_msg("%s", e.message);
    assert_true(st_flight_duration(&f) == 40);
    assert_int_equal(st_flight_frames(&f), 2401);
    st_flight_free(&f);
}

static void test_bad_flights(void **state) {
    (void)state;
    parse_fails("", "no legs");
    parse_fails("speed 10\n", "no legs");
    parse_fails("fly 1\nhover 2\n", "line 2: unknown statement");
    parse_fails("flyer 1\n", "unknown statement");
    parse_fails("fly 1\nstart 0.5 0.5\n", "line 2: 'start' must come before");
    parse_fails("start 1.5 0.5\nfly 1\n", "line 1: bad or out-of-range");
    parse_fails("start 0.5\nfly 1\n", "bad or out-of-range");
    parse_fails("fly 0\n", "bad or out-of-range");
    parse_fails("fly -1\n", "bad or out-of-range");
    parse_fails("fly nan\n", "bad or out-of-range");
    parse_fails("fly 1 2\n", "bad or out-of-range");
    parse_fails("fly 1x\n", "bad or out-of-range");
    parse_fails("pitch -91\nfly 1\n", "bad or out-of-range");
    parse_fails("speed 1e9\nfly 1\n", "bad or out-of-range");
    parse_fails("fps 0\nfly 1\n", "bad or out-of-range");
    parse_fails("turn 90\n", "bad or out-of-range");
    parse_fails("fly 3000\nfly 700\n", "line 2: the flight passes 3600 s");
    parse_fails("fps 1000\nfly 1001\n", "more than 1000000 frames");
    char longline[600];
    memset(longline, ' ', sizeof longline - 1);
    longline[sizeof longline - 1] = 0;
    parse_fails(longline, "line 1 is too long");
    /* a file that is not text, and a folder */
    const char *dir = test_temp_dir("flight");
    char path[1024];
    snprintf(path, sizeof path, "%s/nul.flight", dir);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fwrite("fly 1\n\0fly 2\n", 1, 13, fp);
    fclose(fp);
    st_flight f;
    st_error e = {0};
    assert_int_equal(st_flight_load(path, &f, &e), ST_ERR_FORMAT);
    assert_true(st_flight_load(dir, &f, &e) != ST_OK);
    remove(path);
}

static double yaw_of(const st_camera *c) { return c->yaw_deg; }

static void test_cameras(void **state) {
    (void)state;
    st_error e = {0};
    st_store *store = NULL;
    assert_st_ok(st_store_open("gen:2:1025x1025", &store, &e));
    const st_store_info *in = st_store_get_info(store);
    double ex = (double)(in->width - 1) * in->spacing_x_m, ey = (double)(in->height - 1) * in->spacing_y_m;
    /* straight east at 300 m/s, 60 m over the ground */
    st_flight f = parse_ok("start 0.25 0.5\nheading 90\nfly 2\n");
    uint32_t n = st_flight_frames(&f);
    st_camera *cams = calloc(n, sizeof *cams);
    assert_st_ok(st_flight_cameras(&f, store, 5000, cams, &e));
    for (uint32_t i = 0; i < n; i++) {
        double eye[3], ground;
        st_camera_eye(&cams[i], eye);
        assert_true(fabs(yaw_of(&cams[i]) - 90) < 1e-4 && cams[i].pitch_deg == -10 && cams[i].far_dist == 5000);
        assert_true(fabs(eye[1] - 0.5 * ey) < 1e-6);
        assert_true(fabs(eye[0] - (0.25 * ex + 5.0 * i)) < 1e-6); /* 300 m/s at 60 frames a second */
        assert_st_ok(st_store_ground(store, eye[0], eye[1], &ground, &e));
        if (eye[2] < ground + 60 - 1e-6) fail_msg("frame %u: the eye is %.2f m over the ground", i, eye[2] - ground);
    }
    /* a half turn right in a second: the heading goes round evenly, the path is an arc */
    st_flight_free(&f);
    f = parse_ok("heading 0\nturn 180 1\n");
    n = st_flight_frames(&f);
    st_camera *c2 = realloc(cams, n * sizeof *cams);
    assert_non_null(c2);
    cams = c2;
    assert_st_ok(st_flight_cameras(&f, store, 5000, cams, &e));
    assert_true(fabs(yaw_of(&cams[30]) - 90) < 1e-3);
    assert_true(fabs(fabs(yaw_of(&cams[60])) - 180) < 1e-3);
    double a[3], b[3];
    st_camera_eye(&cams[0], a);
    st_camera_eye(&cams[60], b);
    /* a half circle of length 300 m: radius 300/π, the ends 600/π apart, due east */
    assert_true(fabs((b[0] - a[0]) - 600 / M_PI) < 0.5 && fabs(b[1] - a[1]) < 0.5);
    /* toward the east edge from 100 m short of it: mirrored back, never outside */
    st_flight_free(&f);
    char text[128];
    snprintf(text, sizeof text, "start %.9f 0.5\nheading 90\nfly 3\n", (ex - 100) / ex);
    f = parse_ok(text);
    n = st_flight_frames(&f);
    c2 = realloc(cams, n * sizeof *cams);
    assert_non_null(c2);
    cams = c2;
    assert_st_ok(st_flight_cameras(&f, store, 5000, cams, &e));
    for (uint32_t i = 0; i < n; i++) {
        double eye[3];
        st_camera_eye(&cams[i], eye);
        assert_true(eye[0] >= 0 && eye[0] <= ex);
    }
    double last[3];
    st_camera_eye(&cams[n - 1], last);
    assert_true(fabs(last[0] - (ex - 800)) < 1e-6); /* 900 m flown: 100 m out, 800 m back */
    assert_true(fabs(yaw_of(&cams[n - 1]) + 90) < 1e-4);
    st_flight_free(&f);
    free(cams);
    st_store_close(store);
}

/* The local figures the slow, obvious way: for each finite value, the window's finite values copied and sorted, its
 * median (the mean of the middle two of an even count), the ratio; then the ratios' percentiles. */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void local_slow(const double *v, uint32_t n, uint32_t half, double out[3]) {
    double *w = malloc((n + 1) * sizeof *w);
    float *ratio = malloc((n + 1) * sizeof *ratio);
    assert_non_null(w);
    assert_non_null(ratio);
    uint32_t count = 0;
    out[0] = out[1] = out[2] = NAN;
    double hi = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) continue;
        uint32_t k = 0;
        for (int64_t j = (int64_t)i - half; j <= (int64_t)i + half; j++)
            if (j >= 0 && j < n && isfinite(v[j])) w[k++] = v[j];
        qsort(w, k, sizeof *w, cmp_double);
        double median = k % 2 ? w[k / 2] : 0.5 * (w[k / 2 - 1] + w[k / 2]);
        if (!(median > 0)) continue;
        ratio[count++] = (float)(v[i] / median);
        hi = fmax(hi, v[i] / median);
    }
    if (count) {
        out[2] = hi;
        out[0] = st_eval_percentile(ratio, count, 99);
        out[1] = st_eval_percentile(ratio, count, 99.9);
    }
    free(w);
    free(ratio);
}

static void local_of(const double *v, uint32_t n, double out[3]) {
    st_fly_local(v, n, ST_FLY_LOCAL_HALF, &out[0], &out[1], &out[2]);
}

/* The local figures: 1 on a slow ramp (but at its clipped end), 3 for one frame 3× its neighbours, 1 across a step
 * of the scene's cost that doubles the flight's p99 over its median; NAN without figures; and the same as the slow
 * computation on random series with gaps, for every window. */
static void test_local(void **state) {
    (void)state;
    enum { N = 1000 };
    double *v = malloc(3000 * sizeof *v), f[3];
    assert_non_null(v);
    /* a slow ramp: each window but the clipped ones at the ends is centred on its frame, so the ratio is 1; the
     * largest is the last frame's, over the median of the last 61 (frame N − 31) */
    for (int i = 0; i < N; i++) v[i] = 1.0 + 1e-4 * i;
    local_of(v, N, f);
    double last = v[N - 1] / v[N - 31];
    if (!(fabs(f[2] - last) < 1e-12 && f[2] < 1.003)) fail_msg("ramp: local max %.9f, want %.9f", f[2], last);
    if (!(f[0] >= 1.0 && f[0] <= f[1] && f[1] <= f[2])) fail_msg("ramp: local p99 %.6f p99.9 %.6f", f[0], f[1]);
    /* one spike of 3×: max 3; p99 1; p99.9 interpolates between the 999th ratio (1) and the spike's (3) */
    for (int i = 0; i < N; i++) v[i] = 1.0;
    v[500] = 3.0;
    local_of(v, N, f);
    if (!(f[2] == 3.0 && fabs(f[0] - 1.0) < 1e-6 && fabs(f[1] - 1.002) < 1e-6))
        fail_msg("spike: local p99 %.6f p99.9 %.6f max %.6f (want 1, 1.002, 3)", f[0], f[1], f[2]);
    /* a step from 1 to 2 ms at frame 500: every window's median is its frame's own level (the 61st of 121 values
     * is on the frame's side of the step), so nothing is a hitch; a frame 3× the later level is */
    for (int i = 0; i < N; i++) v[i] = i < 500 ? 1.0 : 2.0;
    local_of(v, N, f);
    if (!(f[0] == 1.0 && f[1] == 1.0 && f[2] == 1.0)) fail_msg("step: local %.6f %.6f %.6f (want 1)", f[0], f[1], f[2]);
    v[700] = 6.0;
    local_of(v, N, f);
    if (!(f[2] == 3.0)) fail_msg("step + spike: local max %.6f (want 3)", f[2]);
    /* no figures (an adapter without timestamps), and none at all */
    for (int i = 0; i < N; i++) v[i] = NAN;
    local_of(v, N, f);
    if (!(isnan(f[0]) && isnan(f[1]) && isnan(f[2]))) fail_msg("no figures: %g %g %g", f[0], f[1], f[2]);
    local_of(v, 0, f);
    if (!(isnan(f[0]) && isnan(f[1]) && isnan(f[2]))) fail_msg("no frames: %g %g %g", f[0], f[1], f[2]);
    /* random series with gaps and repeated values, each window size against the slow computation */
    srand(17);
    const uint32_t halves[] = {0, 1, 2, 7, 60, 61, 2999, 5000};
    const uint32_t sizes[] = {1, 2, 3, 120, 121, 122, 3000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t h = 0; h < sizeof halves / sizeof halves[0]; h++) {
            uint32_t n = sizes[s];
            for (uint32_t i = 0; i < n; i++) {
                int r = rand() % 100;
                v[i] = r < 10 ? NAN : r < 30 ? 1.5 : 0.5 + (double)(rand() % 1000) / 250.0 + (r < 32 ? 20.0 : 0.0);
            }
            double want[3];
            local_slow(v, n, halves[h], want);
            st_fly_local(v, n, halves[h], &f[0], &f[1], &f[2]);
            for (int q = 0; q < 3; q++)
                if (!(f[q] == want[q] || (isnan(f[q]) && isnan(want[q]))))
                    fail_msg("%u values, half %u: figure %d is %.9g, want %.9g", n, halves[h], q, f[q], want[q]);
        }
    free(v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_bad_flights),
        cmocka_unit_test(test_cameras),
        cmocka_unit_test(test_local),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
