/* The waves over a bed (src/water/shore.c) against known answers: on a plane beach a wave's crests move at
 * √(g/k·tanh(k·d)) of the local depth, its amplitude grows by the shoaling coefficient √(c_g far / c_g(d)), it
 * breaks (and is held at ST_WATER_BREAKING·d) exactly where 2·A·Ks passes that ratio; the depth of a bed the
 * level only stands for is the modelled slope times the distance to the shore. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/water.h"
#include "support.h"

#define BEACH_ROWS 320u
#define SHORE_ROW 300u  /* samples at and past it are dry */
#define BEACH_SLOPE 0.05 /* metres of depth per metre toward the sea */

/* One Gerstner wave (toward +y, the shore) over a plane beach: bed sample j (world y = j) lies BEACH_SLOPE ×
 * (SHORE_ROW − j) under the level, dry from SHORE_ROW on. */
static st_water *beach(float chop) {
    st_water_desc d = {.mode = ST_WATER_GERSTNER, .gerstner_waves = 1, .choppiness = chop};
    st_water *w = NULL;
    st_error err = {0};
    if (st_water_create(&d, &w, &err)) fail_msg("st_water_create: %s", err.message);
    float *bed = malloc(8 * BEACH_ROWS * sizeof *bed);
    for (uint32_t j = 0; j < BEACH_ROWS; j++)
        for (uint32_t i = 0; i < 8; i++)
            bed[j * 8 + i] = j >= SHORE_ROW ? 1.0f : (float)(-BEACH_SLOPE * (SHORE_ROW - j));
    st_water_bed b = {.width = 8, .height = BEACH_ROWS, .origin = {0, 0}, .spacing = 1, .bed = bed};
    if (st_water_set_bed(w, &b, &err)) fail_msg("st_water_set_bed: %s", err.message);
    free(bed);
    return w;
}

static double depth_at_row(double y) { return BEACH_SLOPE * (SHORE_ROW - y); }

static double height_at(st_water *w, double t, double y) {
    float p[3];
    st_error err = {0};
    if (st_water_displace(w, t, 4.0, y, p, &err)) fail_msg("st_water_displace: %s", err.message);
    return p[2];
}

/* The zero up-crossing of the surface (along +y) nearest y0 at time t: found in 5 mm steps, then linear. */
static double crossing_near(st_water *w, double t, double y0, double reach) {
    double best = NAN;
    for (double y = y0 - reach; y < y0 + reach; y += 0.005) {
        double a = height_at(w, t, y), b = height_at(w, t, y + 0.005);
        if (a < 0 && b >= 0) {
            double c = y + 0.005 * a / (a - b);
            if (isnan(best) || fabs(c - y0) < fabs(best - y0)) best = c;
        }
    }
    return best;
}

static void test_wavenumber_inverts_dispersion(void **state) {
    (void)state;
    const double ks[4] = {0.05, 0.3, 1.0, 6.0}, ds[4] = {0.2, 1.5, 8.0, 0};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            double k = st_water_wavenumber(st_water_dispersion(ks[a], ds[b]), ds[b]);
            assert_true(fabs(k - ks[a]) <= 1e-9 * ks[a]);
        }
    assert_true(st_water_wavenumber(0, 3) == 0);
}

/* Crests at texels 0.5, 1, 2 and 3 m deep move at the phase speed of that depth. */
static void test_phase_speed_follows_depth(void **state) {
    (void)state;
    st_water *w = beach(-1); /* no choppiness: the crossings are where the phase is */
    const st_gerstner_wave *v = st_water_waves(w);
    const double depths[4] = {0.5, 1.0, 2.0, 3.0};
    for (int i = 0; i < 4; i++) {
        double y0 = SHORE_ROW - depths[i] / BEACH_SLOPE;
        double k = st_water_wavenumber(v[0].omega, depth_at_row(y0)), c = v[0].omega / k;
        double dt = 0.01 * 2.0 * 3.14159265358979 / v[0].omega;
        double a = crossing_near(w, 10.0, y0, 3.14159265358979 / k);
        double b = crossing_near(w, 10.0 + dt, a + c * dt, 0.25 * 3.14159265358979 / k);
        double measured = (b - a) / dt, ca = v[0].omega / st_water_wavenumber(v[0].omega, depth_at_row(a));
        print_message("depth %.1f m: crest speed %.4f m/s, expected %.4f (deep water %.4f)\n", depths[i], measured,
                      ca, ST_WATER_G / v[0].omega);
        assert_true(fabs(measured - ca) <= 0.01 * ca);
        /* and slower than the deep water's by the dispersion, not by chance */
        if (depths[i] <= 2.0) assert_true(measured < 0.97 * ST_WATER_G / v[0].omega);
    }
    st_water_destroy(w);
}

/* The envelope at a texel is A·Ks(d) until the surf zone holds it at ST_WATER_BREAKING·d/2; the shore reports
 * breaking exactly where 2·A·Ks passes the ratio. */
static void test_shoaling_and_breaking(void **state) {
    (void)state;
    st_water *w = beach(-1);
    const st_gerstner_wave *v = st_water_waves(w);
    double k_far = v[0].omega * v[0].omega / ST_WATER_G, cg_far = st_water_dispersion_slope(k_far, 0);
    int breaking = 0, calm = 0;
    for (double d = 0.1; d <= 4.0; d += 0.15) {
        double y = SHORE_ROW - d / BEACH_SLOPE;
        double k = st_water_wavenumber(v[0].omega, d);
        double ks = sqrt(cg_far / st_water_dispersion_slope(k, d)), H = 2.0 * v[0].amplitude * ks;
        bool breaks = H > ST_WATER_BREAKING * d;
        st_water_shore_sample s = st_water_shore_at(w, 4.0, y);
        assert_true(fabs(s.depth_m - d) < 1e-4);
        assert_true(fabs(s.normal[1] + 1.0f) < 1e-4f); /* away from the shore: −y */
        assert_true(fabs(s.height_m - H) <= 1e-3 * H);
        if (fabs(H / (ST_WATER_BREAKING * d) - 1.0) > 1e-3) assert_true((s.breaking > 1.0f) == breaks);
        breaking += breaks;
        calm += !breaks;
        /* the envelope over one period at this texel */
        double top = 0, period = 2.0 * 3.14159265358979 / v[0].omega;
        for (int q = 0; q < 400; q++) top = fmax(top, height_at(w, 3.0 + period * q / 400.0, y));
        double expect = breaks ? 0.5 * ST_WATER_BREAKING * d : 0.5 * H;
        assert_true(fabs(top - expect) <= 0.01 * expect);
    }
    assert_true(breaking > 2 && calm > 10); /* both sides of the ratio were met */
    st_water_destroy(w);
}

/* A river of material 0 at the flood level between two dry banks: the level only stands for the surface there,
 * so its depth is the shore slope times the distance to the nearer bank. */
static void test_stand_in_depth(void **state) {
    (void)state;
    st_level *l = test_flat_level(256, 256, 20); /* land at 20 */
    for (int y = 0; y < 256; y++)
        for (int x = 100; x < 160; x++) st_level_set_single(l, x, y, 0, 0);
    float level = st_water_default_level(l);
    float *heights = NULL;
    st_water_bed bed;
    assert_st_ok(st_water_bed_from_level(l, level, (st_rect){0, 0, 256, 256}, 1, &heights, &bed, err));
    assert_true(isnan(heights[50 * 256 + 120]) && heights[50 * 256 + 20] == 20.0f);
    st_water_desc d = {.mode = ST_WATER_GERSTNER, .shore_slope = 0.1f};
    st_water *w = NULL;
    assert_st_ok(st_water_create(&d, &w, err));
    assert_st_ok(st_water_set_bed(w, &bed, err));
    for (int x = 100; x < 160; x++) {
        int dist = x - 99 < 160 - x ? x - 99 : 160 - x; /* samples to the nearer dry one */
        st_water_shore_sample s = st_water_shore_at(w, x + 0.5, 50.5);
        assert_true(fabs(s.depth_m - 0.1 * dist) < 1e-4);
    }
    assert_true(st_water_shore_at(w, 50.5, 50.5).depth_m == 0.0f); /* the bank */
    /* a bad bed is refused */
    st_error e = {0};
    st_water_bed bad = bed;
    bad.spacing = NAN;
    assert_int_equal(st_water_set_bed(w, &bad, &e), ST_ERR_INVALID);
    heights[7] = INFINITY;
    assert_int_equal(st_water_set_bed(w, &bed, &e), ST_ERR_INVALID);
    assert_false(st_water_has_bed(w));
    free(heights);
    st_water_destroy(w);
    st_level_destroy(l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wavenumber_inverts_dispersion),
        cmocka_unit_test(test_phase_speed_follows_depth),
        cmocka_unit_test(test_shoaling_and_breaking),
        cmocka_unit_test(test_stand_in_depth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
