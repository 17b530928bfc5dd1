/* Exact grid predicates: orientation and in-circle on collinear, cocircular and extreme-coordinate cases
 * where a floating-point evaluation would round. */
#include "support.h"
#include "strata/mesh.h"

static void orient_signs(void **state) {
    (void)state;
    assert_int_equal(st_tin_orient(0, 0, 4, 0, 0, 3), 1);
    assert_int_equal(st_tin_orient(0, 0, 0, 3, 4, 0), -1);
    assert_int_equal(st_tin_orient(0, 0, 1, 1, 2, 2), 0);
    assert_int_equal(st_tin_orient(3, 7, 3, 7, 9, 1), 0); /* repeated point */
    assert_int_equal(st_tin_orient(5, 5, 5, 9, 5, 100), 0);
}

static void orient_extreme(void **state) {
    (void)state;
    const int M = ST_TIN_MAX_COORD;
    /* 16384·16382 − 16383² = −1: one unit from collinear at the far end of the range */
    assert_int_equal(st_tin_orient(0, 0, M, M - 1, M - 1, M - 2), -1);
    assert_int_equal(st_tin_orient(0, 0, M - 1, M - 2, M, M - 1), 1);
    assert_int_equal(st_tin_orient(0, 0, M, M, M / 2, M / 2), 0);
}

static void incircle_square_and_right_triangle(void **state) {
    (void)state;
    assert_int_equal(st_tin_incircle(0, 0, 1, 0, 1, 1, 0, 1), 0); /* the four corners of a cell */
    assert_int_equal(st_tin_incircle(0, 0, 2, 0, 0, 2, 1, 1), 1);
    assert_int_equal(st_tin_incircle(0, 0, 2, 0, 0, 2, 2, 2), 0);
    assert_int_equal(st_tin_incircle(0, 0, 2, 0, 0, 2, 3, 3), -1);
    /* clockwise order flips the sign */
    assert_int_equal(st_tin_incircle(0, 0, 0, 2, 2, 0, 1, 1), -1);
}

static void incircle_many_cocircular(void **state) {
    (void)state;
    /* the twelve lattice points on x² + y² = 25, shifted to (5, 5): every quadruple is cocircular */
    static const int p[12][2] = {{10, 5}, {9, 8}, {8, 9}, {5, 10}, {2, 9}, {1, 8},
                                 {0, 5},  {1, 2}, {2, 1}, {5, 0},  {8, 1}, {9, 2}};
    for (int a = 0; a < 12; a++)
        for (int b = a + 1; b < 12; b++)
            for (int c = b + 1; c < 12; c++) {
                assert_int_equal(st_tin_orient(p[a][0], p[a][1], p[b][0], p[b][1], p[c][0], p[c][1]), 1);
                for (int d = 0; d < 12; d++)
                    assert_int_equal(st_tin_incircle(p[a][0], p[a][1], p[b][0], p[b][1], p[c][0], p[c][1], p[d][0],
                                                     p[d][1]),
                                     0);
                assert_int_equal(st_tin_incircle(p[a][0], p[a][1], p[b][0], p[b][1], p[c][0], p[c][1], 5, 5), 1);
                assert_int_equal(st_tin_incircle(p[a][0], p[a][1], p[b][0], p[b][1], p[c][0], p[c][1], 10, 10), -1);
            }
}

static void incircle_extreme(void **state) {
    (void)state;
    const int M = ST_TIN_MAX_COORD;
    assert_int_equal(st_tin_incircle(0, 0, M, 0, M, M, 0, M), 0);
    /* (1, M): (M/2 − 1)² + (M/2)² is one step inside the radius² 2·(M/2)² */
    assert_int_equal(st_tin_incircle(0, 0, M, 0, M, M, 1, M), 1);
    assert_int_equal(st_tin_incircle(0, 0, M, 0, M, M, 0, M - 1), 1);
    assert_int_equal(st_tin_incircle(1, 0, M, 0, M, M, 0, 0), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(orient_signs),
        cmocka_unit_test(orient_extreme),
        cmocka_unit_test(incircle_square_and_right_triangle),
        cmocka_unit_test(incircle_many_cocircular),
        cmocka_unit_test(incircle_extreme),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
