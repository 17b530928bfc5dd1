/* GPU test of the depth-precision experiment (src/render/depth_precision.c, lavapipe, validation on): two planes a
 * gap apart stay apart up to a distance and merge beyond it, standard Z near √(s·n·2²⁴) and reverse Z near s·2²³,
 * with nothing wrong before; bad settings are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/depth_precision.h"
#include "support.h"

static void test_onsets(void **state) {
    (void)state;
    const double gaps[1] = {0.1};
    st_depth_precision_desc d = {.gaps_m = gaps, .gap_count = 1, .from_m = 10, .to_m = 5e6, .steps_per_decade = 12,
                                 .size = 32, .validate = true};
    st_depth_precision_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_st_ok(st_depth_precision_run(&d, r, err));
    assert_int_equal(r->validation_messages, 0);
    double s = 0.1, n = r->near_m;
    double std_pred = sqrt(s * n * 16777216.0), rev_pred = s * 8388608.0;
    double std_on = r->onset_m[0][0], rev_on = r->onset_m[0][1];
    if (!(std_on > 0.5 * std_pred && std_on < 2 * std_pred)) fail_msg("standard Z onset %g m, predicted %g", std_on, std_pred);
    if (!(rev_on > 0.5 * rev_pred && rev_on < 2 * rev_pred)) fail_msg("reverse Z onset %g m, predicted %g", rev_on, rev_pred);
    /* before its onset each mode tells the planes apart everywhere; from twice the onset on, most steps do not
     * (a step whose z and z + s happen to round apart still does) */
    for (int m = 0; m < 2; m++) {
        double on = r->onset_m[0][m];
        uint32_t beyond = 0, merged = 0;
        for (size_t i = 0; i < r->step_count; i++) {
            double z = r->distance_m[i];
            if (z < on) assert_true(r->wrong_pct[0][m][i] <= r->threshold_pct);
            if (z >= 2 * on) beyond++, merged += r->wrong_pct[0][m][i] > 50;
        }
        assert_true(beyond >= 3);
        if (merged * 10 < beyond * 6) fail_msg("mode %d: %u of %u steps past twice the onset merged", m, merged, beyond);
    }
    free(r);
}

static void test_bad_settings(void **state) {
    (void)state;
    st_depth_precision_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    st_error e = {0};
    st_depth_precision_desc d = {.near_m = 10, .far_m = 5};
    assert_int_equal(st_depth_precision_run(&d, r, &e), ST_ERR_INVALID);
    const double bad[1] = {-1};
    st_depth_precision_desc d2 = {.gaps_m = bad, .gap_count = 1};
    assert_int_equal(st_depth_precision_run(&d2, r, &e), ST_ERR_INVALID);
    st_depth_precision_desc d3 = {.from_m = 1, .to_m = 1e8, .steps_per_decade = 1000};
    assert_int_equal(st_depth_precision_run(&d3, r, &e), ST_ERR_INVALID);
    free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_onsets),
        cmocka_unit_test(test_bad_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
