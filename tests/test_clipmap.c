/* The geometry clipmap's layout without a GPU (src/tiles/clipmap.c): the footprints cover the finest level's window
 * and every ring exactly once, leaving exactly the finer level's window; windows nest at an offset of m − 1 or m;
 * the toroidal update's exposed rectangles are exactly the new window less the old; the grid for a τ. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/clipmap.h"
#include "support.h"

static st_clipmap_geom geom(uint32_t n, uint64_t size) {
    st_clipmap_geom g;
    assert_st_ok(st_clipmap_geom_init(&g, size, size, 2, 2, 32, 5, n, 1e9, err));
    return g;
}

/* Every quad of level l's window: how many footprints of the level cover it (zero-area strips aside). */
static void cover(const st_clipmap_geom *g, const st_clipmap_piece *p, uint32_t k, uint8_t *count) {
    uint32_t q = g->n - 1;
    memset(count, 0, (size_t)q * q);
    for (uint32_t i = 0; i < k; i++) {
        if (p[i].shape == ST_CLIP_EDGE_H || p[i].shape == ST_CLIP_EDGE_V) continue;
        uint32_t w, h;
        st_clipmap_shape_size(g, (st_clipmap_shape)p[i].shape, &w, &h);
        assert_true(p[i].x + w <= g->n && p[i].y + h <= g->n);
        for (uint32_t y = p[i].y; y + 1 < p[i].y + h; y++)
            for (uint32_t x = p[i].x; x + 1 < p[i].x + w; x++) count[y * q + x]++;
    }
}

static void test_footprints_cover_once(void **state) {
    (void)state;
    uint32_t ns[4] = {31, 127, 71, 99}; /* powers of two less one, and other 4m − 1 */
    srand(7);
    for (int t = 0; t < 4; t++) {
        st_clipmap_geom g = geom(ns[t], 1u << 20);
        uint32_t q = g.n - 1;
        uint8_t *count = malloc((size_t)q * q);
        for (int trial = 0; trial < 200; trial++) {
            double eye[2] = {rand() % 100000 + rand() / (double)RAND_MAX, rand() % 100000 + rand() / (double)RAND_MAX};
            int64_t o[ST_CLIPMAP_MAX_LEVELS][2];
            for (uint32_t l = 0; l < g.levels; l++) st_clipmap_window(&g, l, eye, o[l]);
            uint32_t finest = (uint32_t)(trial % 3);
            for (uint32_t l = finest; l < g.levels; l++) {
                st_clipmap_piece p[32];
                uint32_t k = st_clipmap_pieces(&g, l, finest, o[l], l ? o[l - 1] : o[l], p);
                cover(&g, p, k, count);
                /* the window centre is within a level sample of the eye */
                for (int a = 0; a < 2; a++) assert_true(fabs(ldexp(eye[a], -(int)l) - (o[l][a] + (g.n - 1) / 2.0)) <= 1.0);
                for (uint32_t y = 0; y < q; y++)
                    for (uint32_t x = 0; x < q; x++) {
                        bool inner = false;
                        if (l > finest) { /* the finer window, in this level's samples */
                            int64_t fx = o[l - 1][0] / 2 - o[l][0], fy = o[l - 1][1] / 2 - o[l][1];
                            assert_true(fx == g.m - 1 || fx == g.m);
                            assert_true(fy == g.m - 1 || fy == g.m);
                            inner = x >= fx && x < fx + (g.n - 1) / 2 && y >= fy && y < fy + (g.n - 1) / 2;
                        }
                        if (count[y * q + x] != (inner ? 0 : 1))
                            fail_msg("n %u level %u (finest %u): quad (%u, %u) covered %u times", g.n, l, finest, x, y,
                                     count[y * q + x]);
                    }
            }
        }
        free(count);
    }
}

static bool inside(const int64_t o[2], int64_t n, int64_t x, int64_t y) {
    return x >= o[0] && x < o[0] + n && y >= o[1] && y < o[1] + n;
}

static void test_exposed_is_new_less_old(void **state) {
    (void)state;
    st_clipmap_geom g = geom(63, 1u << 16);
    int64_t n = g.n;
    srand(11);
    for (int trial = 0; trial < 300; trial++) {
        int64_t a[2] = {rand() % 200 - 100, rand() % 200 - 100};
        int64_t d = trial % 4 == 0 ? 100 : 6;
        int64_t b[2] = {a[0] + rand() % (2 * d + 1) - d, a[1] + rand() % (2 * d + 1) - d};
        st_clip_rect r[2];
        uint32_t k = st_clipmap_exposed(&g, a, b, r);
        assert_true(k <= 2);
        for (int64_t y = b[1]; y < b[1] + n; y++)
            for (int64_t x = b[0]; x < b[0] + n; x++) {
                uint32_t hits = 0;
                for (uint32_t i = 0; i < k; i++) hits += x >= r[i].x0 && x < r[i].x1 && y >= r[i].y0 && y < r[i].y1;
                uint32_t want = inside(a, n, x, y) ? 0 : 1;
                if (hits != want) fail_msg("trial %d: sample (%lld, %lld) in %u exposed rectangles", trial, (long long)x, (long long)y, hits);
            }
        for (uint32_t i = 0; i < k; i++) /* nothing outside the new window */
            assert_true(r[i].x0 >= b[0] && r[i].x1 <= b[0] + n && r[i].y0 >= b[1] && r[i].y1 <= b[1] + n);
    }
}

static void test_levels_and_active(void **state) {
    (void)state;
    st_clipmap_geom g;
    st_error e = {0};
    assert_int_equal(st_clipmap_geom_init(&g, 100, 100, 1, 1, 32, 3, 100, 0, &e), ST_ERR_INVALID);
    assert_int_equal(st_clipmap_geom_init(&g, 100, 100, 1, 1, 32, 3, 15, 0, &e), ST_ERR_INVALID);
    assert_int_equal(st_clipmap_geom_init(&g, 100, 100, 1, 1, 32, 3, 2047, 0, &e), ST_ERR_INVALID);
    assert_int_equal(st_clipmap_geom_init(&g, 100, 100, 1, 1, 32, 3, 33, 0, &e), ST_ERR_INVALID);
    assert_st_ok(st_clipmap_geom_init(&g, 100, 100, 1, 1, 32, 3, 35, 0, err));
    /* the coarsest window reaches the far distance */
    assert_st_ok(st_clipmap_geom_init(&g, 65537, 65537, 2.5, 2.5, 256, 9, 255, 20000, err));
    double half = ((g.n - 1) / 2.0 - 1) * 2.5;
    assert_true(ldexp(half, (int)g.levels - 1) >= 20000);
    assert_true(ldexp(half, (int)g.levels - 2) < 20000);
    /* the finest level drawn: the first at least 2.5 h wide */
    assert_int_equal(st_clipmap_finest_active(&g, 0), 0);
    for (double h = 10; h < 1e5; h *= 1.7) {
        uint32_t l = st_clipmap_finest_active(&g, h);
        if (l + 1 < g.levels) assert_true((g.n - 1) * ldexp(2.5, (int)l) >= 2.5 * h);
        if (l > 0) assert_true((g.n - 1) * ldexp(2.5, (int)l - 1) < 2.5 * h);
    }
}

static void test_n_for_tau(void **state) {
    (void)state;
    double zero[4] = {0}, delta[4] = {0, 1.5, 3.5, 9};
    assert_int_equal(st_clipmap_n_for_tau(zero, 4, 2, 500, 1, 0, NULL), ST_CLIPMAP_MIN_N);
    uint32_t prev = 0;
    for (double tau = 8; tau >= 0.5; tau /= 2) {
        bool capped;
        uint32_t n = st_clipmap_n_for_tau(delta, 4, 2, 500, tau, 0, &capped);
        assert_true(n >= prev);
        assert_int_equal((n + 1) % 4, 0);
        if (!capped) { /* it meets τ, and the next smaller grid does not */
            double w = n / 10.0, inner = (n - 1) / 2.0 - w - 2;
            for (uint32_t l = 1; l < 4; l++) assert_true(delta[l] * 500 <= tau * inner * ldexp(2, (int)l - 1));
            if (n > ST_CLIPMAP_MIN_N) {
                uint32_t s = n - ST_CLIPMAP_N_STEP;
                double ws = s / 10.0, in2 = (s - 1) / 2.0 - ws - 2;
                bool ok = true;
                for (uint32_t l = 1; l < 4; l++) ok = ok && delta[l] * 500 <= tau * in2 * ldexp(2, (int)l - 1);
                assert_false(ok);
            }
        }
        prev = n;
    }
    /* levels that first show beyond the far distance ask for nothing */
    double steep[4] = {0, 0.1, 0.2, 1e6};
    assert_int_equal(st_clipmap_n_for_tau(steep, 4, 2, 500, 1, 0, NULL), ST_CLIPMAP_MAX_N);
    assert_true(st_clipmap_n_for_tau(steep, 4, 2, 500, 1, 150, NULL) < ST_CLIPMAP_MAX_N);
}

/* The finest level from τ: a level replaces the finer one while its error, seen from the nearest its window comes
 * to the eye, stays within τ; it stops at the first that does not, and at a window the eye is not above. */
static void test_finest_for_tau(void **state) {
    (void)state;
    st_clipmap_geom g = geom(63, 1u << 16);
    double delta[5] = {0, 1, 2, 4, 8}, clear[5] = {0, 1000, 1000, 1000, 1000};
    /* K = 500 px: level l shows δ_l·500/1000 px = δ_l/2 px */
    assert_int_equal(st_clipmap_finest_for_tau(&g, delta, 5, clear, 500, 0.4), 0);
    assert_int_equal(st_clipmap_finest_for_tau(&g, delta, 5, clear, 500, 0.5), 1);
    assert_int_equal(st_clipmap_finest_for_tau(&g, delta, 5, clear, 500, 1.0), 2);
    assert_int_equal(st_clipmap_finest_for_tau(&g, delta, 5, clear, 500, 100), 4);
    assert_int_equal(st_clipmap_finest_for_tau(&g, delta, 3, clear, 500, 100), 2); /* no δ past the store's levels */
    clear[2] = -5; /* the eye below the highest ground of level 2's window */
    assert_int_equal(st_clipmap_finest_for_tau(&g, delta, 5, clear, 500, 100), 1);
    clear[2] = 1000;
    st_clipmap_geom g2 = geom(63, 256); /* few levels: never past the coarsest */
    assert_true(st_clipmap_finest_for_tau(&g2, delta, 5, clear, 500, 100) + 1 <= g2.levels);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_footprints_cover_once),
        cmocka_unit_test(test_exposed_is_new_less_old),
        cmocka_unit_test(test_levels_and_active),
        cmocka_unit_test(test_n_for_tau),
        cmocka_unit_test(test_finest_for_tau),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
