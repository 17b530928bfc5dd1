/* Tests of the DEM TIN fitted in parallel tiles: it holds the bound at every sample like the single fit, its
 * tiles' shared sides meet without a crack or a T-junction, a sample exactly at the tolerance stays out (≤), the
 * check finds a broken tiling and a violated bound, and bad descriptions are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/image.h"
#include "strata/mesh.h"
#include "support.h"

/* A w×h crop at (x0, y0) of the shipped Puget Sound DEM (0.1 m units). */
static uint16_t *puget_crop(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h) {
    const char *src = getenv("STRATA_SOURCE");
    assert_non_null(src);
    char path[1024];
    snprintf(path, sizeof path, "%s/data/dem/ps_height_1k.png", src);
    uint32_t W, H;
    int ch, bits;
    void *px = NULL;
    assert_st_ok(st_png_read(path, &W, &H, &ch, &bits, &px, err));
    assert_true(ch == 1 && bits == 16 && x0 + w <= W && y0 + h <= H);
    uint16_t *out = malloc((size_t)w * h * sizeof *out);
    for (uint32_t j = 0; j < h; j++) memcpy(out + (size_t)j * w, (uint16_t *)px + (size_t)(y0 + j) * W + x0, w * 2);
    free(px);
    return out;
}

static st_dem_tin *fit(const uint16_t *z, uint32_t w, uint32_t h, double tol, uint32_t tile) {
    st_dem_tin_desc d = {.width = w, .height = h, .samples = z, .tolerance = tol, .tile_x = tile, .tile_y = tile};
    st_dem_tin *t = NULL;
    assert_st_ok(st_dem_tin_fit(&d, &t, err));
    return t;
}

static st_dem_tin_report check_ok(const st_dem_tin *t, const uint16_t *z, double tol) {
    st_dem_tin_report rep;
    st_error e = {0};
    if (st_dem_tin_check(t, z, tol, &rep, &e)) fail_msg("check: %s", e.message);
    assert_int_equal(rep.samples_checked, (uint64_t)t->width * t->height);
    assert_int_equal(rep.over_tolerance, 0);
    assert_true(rep.max_error <= tol);
    return rep;
}

/* Tiles of several sizes (one of them not dividing the grid) hold the bound at every sample, as the single fit
 * does, with the shared sides conforming; the tile sides cost a few vertices more than the single fit. */
static void test_tiles_bound_like_the_single_fit(void **state) {
    (void)state;
    const uint32_t W = 301, H = 257;
    uint16_t *z = puget_crop(500, 400, W, H);
    const double tol = 40; /* 4 m */
    st_dem_tin *single = fit(z, W, H, tol, ST_DEM_TIN_MAX_SIDE);
    assert_int_equal(single->tiles, 1);
    check_ok(single, z, tol);
    const uint32_t tiles[] = {64, 100, 128};
    for (int k = 0; k < 3; k++) {
        st_dem_tin *t = fit(z, W, H, tol, tiles[k]);
        assert_true(t->tiles > 1);
        st_dem_tin_report rep = check_ok(t, z, tol);
        assert_true(rep.border_edges > 0 && rep.interior_edges > 0);
        /* more vertices than the single fit (the tile sides), but not many more */
        assert_true(t->vertex_count >= single->vertex_count * 98 / 100);
        if (t->vertex_count > single->vertex_count * 115 / 100)
            fail_msg("tile %u: %u vertices against %u in one fit", tiles[k], t->vertex_count, single->vertex_count);
        /* the same fit again gives the same triangulation */
        st_dem_tin *again = fit(z, W, H, tol, tiles[k]);
        assert_int_equal(again->vertex_count, t->vertex_count);
        assert_int_equal(again->triangle_count, t->triangle_count);
        assert_memory_equal(again->vertices, t->vertices, t->vertex_count * sizeof *t->vertices);
        assert_memory_equal(again->triangles, t->triangles, (size_t)t->triangle_count * 3 * sizeof *t->triangles);
        assert_true(st_dem_tin_digest(again) == st_dem_tin_digest(t));
        assert_true(st_dem_tin_digest(t) != st_dem_tin_digest(single));
        /* one corner of one triangle moved to another vertex changes the digest */
        again->triangles[3 * (again->triangle_count / 2)] = again->triangles[3 * (again->triangle_count / 2) + 3];
        assert_true(st_dem_tin_digest(again) != st_dem_tin_digest(t));
        st_dem_tin_destroy(again);
        st_dem_tin_destroy(t);
    }
    /* the sides also bounded against the rows beside them (the chunked mesh's rule): the bound holds, with more
     * vertices on the sides than when they are simplified alone */
    st_dem_tin_desc beside = {.width = W, .height = H, .samples = z, .tolerance = tol, .tile_x = 64, .sides_beside = true};
    st_dem_tin *b = NULL, *alone = fit(z, W, H, tol, 64);
    assert_st_ok(st_dem_tin_fit(&beside, &b, err));
    check_ok(b, z, tol);
    assert_true(b->vertex_count > alone->vertex_count);
    st_dem_tin_destroy(b);
    st_dem_tin_destroy(alone);
    st_dem_tin_destroy(single);
    free(z);
}

/* Every vertex on a tile side is one vertex of the stitched TIN, and both tiles' triangles use it: on each shared
 * line the triangles on either side have the same vertices there. */
static void test_shared_sides_match(void **state) {
    (void)state;
    const uint32_t W = 129, H = 129, T = 32;
    uint16_t *z = puget_crop(300, 600, W, H);
    st_dem_tin *t = fit(z, W, H, 20, T);
    check_ok(t, z, 20);
    /* per shared column x = kT: the vertices used by triangles left of it and right of it */
    for (uint32_t x = T; x < W - 1; x += T) {
        uint8_t *left = calloc(H, 1), *right = calloc(H, 1);
        for (uint32_t i = 0; i < t->triangle_count; i++) {
            const uint32_t *v = &t->triangles[3 * (size_t)i];
            uint32_t xmin = W, xmax = 0;
            for (int k = 0; k < 3; k++) {
                uint32_t vx = t->vertices[v[k]].x;
                xmin = vx < xmin ? vx : xmin, xmax = vx > xmax ? vx : xmax;
            }
            for (int k = 0; k < 3; k++)
                if (t->vertices[v[k]].x == x) {
                    if (xmax == x && xmin < x) left[t->vertices[v[k]].y] = 1;
                    if (xmin == x && xmax > x) right[t->vertices[v[k]].y] = 1;
                }
        }
        uint32_t count = 0;
        for (uint32_t y = 0; y < H; y++) {
            if (left[y] != right[y]) fail_msg("column %u, row %u: a vertex on one side only", x, y);
            count += left[y];
        }
        assert_true(count >= 2);
        free(left);
        free(right);
    }
    st_dem_tin_destroy(t);
    free(z);
}

/* On integer data the bound is ≤: a lone bump exactly at the tolerance stays out, one unit more goes in. */
static void test_tie_at_the_tolerance_stays_out(void **state) {
    (void)state;
    const uint32_t W = 9, H = 9;
    uint16_t z[81] = {0};
    z[4 * W + 4] = 40;
    st_dem_tin *t = fit(z, W, H, 40, ST_DEM_TIN_MAX_SIDE); /* one tile: no side between */
    st_dem_tin_report rep = check_ok(t, z, 40);
    assert_int_equal(t->vertex_count, 4);
    assert_int_equal(rep.at_tolerance, 1);
    assert_true(rep.max_error == 40);
    st_dem_tin_destroy(t);
    z[4 * W + 4] = 41;
    t = fit(z, W, H, 40, ST_DEM_TIN_MAX_SIDE);
    rep = check_ok(t, z, 40);
    assert_int_equal(t->vertex_count, 5);
    assert_int_equal(rep.at_tolerance, 0);
    st_dem_tin_destroy(t);
    /* the same across a tile side: the bump on the shared column x = 4 */
    t = fit(z, W, H, 40, 4);
    check_ok(t, z, 40);
    st_dem_tin_destroy(t);
}

/* The check is not blind: a sample moved past the bound, a triangle taken away, and a T-junction (a triangle
 * split by a vertex on its edge, its neighbour left whole) are each found. */
static void test_check_finds_faults(void **state) {
    (void)state;
    const uint32_t W = 65, H = 65;
    uint16_t *z = puget_crop(100, 100, W, H);
    st_dem_tin *t = fit(z, W, H, 30, 32);
    check_ok(t, z, 30);
    st_dem_tin_report rep;
    st_error e = {0};
    /* a sample that is no vertex, raised past the bound */
    uint8_t *is_vertex = calloc((size_t)W * H, 1);
    for (uint32_t v = 0; v < t->vertex_count; v++) is_vertex[t->vertices[v].y * W + t->vertices[v].x] = 1;
    size_t s = 0;
    while (is_vertex[s]) s++;
    uint16_t keep = z[s];
    z[s] = (uint16_t)(keep + 200);
    assert_int_equal(st_dem_tin_check(t, z, 30, &rep, &e), ST_OK);
    assert_true(rep.over_tolerance >= 1);
    z[s] = keep;
    free(is_vertex);
    /* one triangle fewer: a hole */
    t->triangle_count--;
    assert_int_equal(st_dem_tin_check(t, z, 30, &rep, &e), ST_ERR_INVALID);
    t->triangle_count++;
    /* a T-junction: split triangle 0 at the midpoint of its longest edge, where its neighbour stays whole;
     * find one whose edge midpoint is a sample and lies inside the grid */
    bool made = false;
    for (uint32_t i = 0; i < t->triangle_count && !made; i++) {
        uint32_t *v = &t->triangles[3 * (size_t)i];
        for (int k = 0; k < 3 && !made; k++) {
            st_tin_vertex a = t->vertices[v[k]], b = t->vertices[v[(k + 1) % 3]];
            if ((a.x + b.x) % 2 || (a.y + b.y) % 2) continue;
            st_tin_vertex m = {(uint16_t)((a.x + b.x) / 2), (uint16_t)((a.y + b.y) / 2)};
            bool on_border = (a.x == b.x && (a.x == 0 || a.x == W - 1)) || (a.y == b.y && (a.y == 0 || a.y == H - 1));
            if (on_border || (m.x == a.x && m.y == a.y)) continue;
            bool taken = false;
            for (uint32_t u = 0; u < t->vertex_count; u++) taken |= t->vertices[u].x == m.x && t->vertices[u].y == m.y;
            if (taken) continue;
            t->vertices = realloc(t->vertices, (t->vertex_count + 1) * sizeof *t->vertices);
            t->triangles = realloc(t->triangles, ((size_t)t->triangle_count + 1) * 3 * sizeof *t->triangles);
            v = &t->triangles[3 * (size_t)i];
            uint32_t mv = t->vertex_count++, c = v[(k + 2) % 3], va = v[k], vb = v[(k + 1) % 3];
            t->vertices[mv] = m;
            v[0] = va, v[1] = mv, v[2] = c;
            uint32_t *n = &t->triangles[3 * (size_t)t->triangle_count++];
            n[0] = mv, n[1] = vb, n[2] = c;
            made = true;
        }
    }
    assert_true(made);
    assert_int_equal(st_dem_tin_check(t, z, 30, &rep, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "T-junction"));
    /* more triangles than 32-bit half-edge numbers hold: refused before anything is read */
    uint32_t kept = t->triangle_count;
    t->triangle_count = UINT32_MAX / 3 + 1;
    assert_int_equal(st_dem_tin_check(t, z, 30, &rep, &e), ST_ERR_INVALID);
    t->triangle_count = kept;
    st_dem_tin_destroy(t);
    free(z);
}

/* An analytic DEM (a smooth swell over 16-bit heights, a cliff, and terraces whose flat steps put many samples
 * exactly at the tolerance from the planes across them), fitted in tiles and on one tile: an independent exact
 * test of every sample against every closed triangle it lies in agrees with st_dem_tin_check's counts, and no
 * sample is over the bound (≤: the ties stay out). */
static void test_analytic_dem_bound(void **state) {
    (void)state;
    const uint32_t W = 203, H = 150; /* no multiple of the tile */
    const double tol = 25;
    uint16_t *z = malloc((size_t)W * H * sizeof *z);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            double v = 30000 + 20000 * sin(x / 23.0) * cos(y / 31.0) + (x > 140 ? 9000 : 0);
            if (y > 100) v = 5000 + 50 * floor((x + y) / 9.0); /* terraces, 50 units a step */
            z[(size_t)y * W + x] = (uint16_t)v;
        }
    const uint32_t tiles[] = {64, 32, ST_DEM_TIN_MAX_SIDE};
    for (int k = 0; k < 3; k++) {
        st_dem_tin *t = fit(z, W, H, tol, tiles[k]);
        st_dem_tin_report rep = check_ok(t, z, tol);
        uint8_t *flag = calloc((size_t)W * H, 1); /* 1 seen, 2 over, 4 at */
        for (uint32_t i = 0; i < t->triangle_count; i++) {
            const st_tin_vertex *p[3];
            for (int c = 0; c < 3; c++) p[c] = &t->vertices[t->triangles[3 * (size_t)i + c]];
            int64_t A = ((int64_t)p[1]->x - p[0]->x) * ((int64_t)p[2]->y - p[0]->y) -
                        ((int64_t)p[1]->y - p[0]->y) * ((int64_t)p[2]->x - p[0]->x);
            assert_true(A > 0);
            uint32_t x0 = W, x1 = 0, y0 = H, y1 = 0;
            for (int c = 0; c < 3; c++) {
                x0 = p[c]->x < x0 ? p[c]->x : x0, x1 = p[c]->x > x1 ? p[c]->x : x1;
                y0 = p[c]->y < y0 ? p[c]->y : y0, y1 = p[c]->y > y1 ? p[c]->y : y1;
            }
            for (uint32_t y = y0; y <= y1; y++)
                for (uint32_t x = x0; x <= x1; x++) {
                    int64_t w[3], sum = 0;
                    bool in = true;
                    for (int c = 0; c < 3 && in; c++) {
                        const st_tin_vertex *a = p[(c + 1) % 3], *b = p[(c + 2) % 3];
                        w[c] = ((int64_t)b->x - a->x) * ((int64_t)y - a->y) - ((int64_t)b->y - a->y) * ((int64_t)x - a->x);
                        in = w[c] >= 0;
                    }
                    if (!in) continue;
                    for (int c = 0; c < 3; c++) sum += w[c] * z[(size_t)p[c]->y * W + p[c]->x];
                    int64_t e = llabs((int64_t)z[(size_t)y * W + x] * A - sum), EA = (int64_t)tol * A;
                    flag[(size_t)y * W + x] |= 1 | (e > EA ? 2 : 0) | (e == EA ? 4 : 0);
                }
        }
        uint64_t seen = 0, over = 0, at = 0;
        for (size_t i = 0; i < (size_t)W * H; i++)
            seen += flag[i] & 1, over += (flag[i] & 2) != 0, at += (flag[i] & 6) == 4;
        assert_int_equal(seen, (uint64_t)W * H);
        assert_int_equal(over, 0);
        assert_int_equal(at, rep.at_tolerance);
        assert_true(at > 0); /* the terraces put samples exactly at the bound */
        free(flag);
        st_dem_tin_destroy(t);
    }
    free(z);
}

/* The vector scan holds every 16-bit height exactly: on the DEM's highest 65² tile (heights past 2^14) and on a
 * low one, a tile fit gives the same triangulation with the vector scan as with the 64-bit one, bit for bit. */
static void test_vector_scan_on_the_real_dem(void **state) {
    (void)state;
    const uint32_t N = 1025, T = 65;
    uint16_t *z = puget_crop(0, 0, N, N);
    uint32_t best_x = 0, best_y = 0;
    uint16_t best = 0;
    for (uint32_t ty = 0; ty + T <= N; ty += 64)
        for (uint32_t tx = 0; tx + T <= N; tx += 64) {
            uint16_t top = 0;
            for (uint32_t j = 0; j < T; j++)
                for (uint32_t i = 0; i < T; i++) top = z[(ty + j) * N + tx + i] > top ? z[(ty + j) * N + tx + i] : top;
            if (top > best) best = top, best_x = tx, best_y = ty;
        }
    assert_true(best >= 1u << 14);
    st_tin *a, *b;
    assert_st_ok(st_tin_create(&a, err));
    assert_st_ok(st_tin_create(&b, err));
    const uint32_t at[2][2] = {{best_x, best_y}, {0, 0}};
    uint16_t *tile = malloc((size_t)T * T * sizeof *tile);
    for (int k = 0; k < 2; k++) {
        for (uint32_t j = 0; j < T; j++) memcpy(tile + j * T, z + (at[k][1] + j) * N + at[k][0], T * sizeof *tile);
        st_tin_desc d = {.width = T, .height = T, .low = tile, .tolerance = 40, .sides_alone = true};
        assert_st_ok(st_tin_fit(a, &d, err));
        d.scalar_scan = true;
        assert_st_ok(st_tin_fit(b, &d, err));
        assert_true(a->vertex_count > 100);
        assert_int_equal(a->vertex_count, b->vertex_count);
        assert_int_equal(a->triangle_count, b->triangle_count);
        assert_memory_equal(a->vertices, b->vertices, a->vertex_count * sizeof *a->vertices);
        assert_memory_equal(a->triangles, b->triangles, a->triangle_count * sizeof *a->triangles);
        assert_true(a->stats.samples_scanned == b->stats.samples_scanned);
        assert_true(a->stats.max_error == b->stats.max_error && a->stats.max_error <= 40);
    }
    free(tile);
    st_tin_destroy(a);
    st_tin_destroy(b);
    free(z);
}

static void test_bad_descriptions(void **state) {
    (void)state;
    uint16_t z[16] = {0};
    st_dem_tin *t = NULL;
    st_error e = {0};
    st_dem_tin_desc bad[] = {
        {.width = 4, .height = 4, .samples = NULL, .tolerance = 1},
        {.width = 1, .height = 4, .samples = z, .tolerance = 1},
        {.width = 4, .height = 4, .samples = z, .tolerance = 0},
        {.width = 4, .height = 4, .samples = z, .tolerance = -1},
        {.width = 4, .height = 4, .samples = z, .tolerance = INFINITY},
        {.width = ST_DEM_TIN_MAX_SIDE + 1, .height = 4, .samples = z, .tolerance = 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(st_dem_tin_fit(&bad[i], &t, &e), ST_ERR_INVALID);
        assert_null(t);
    }
    /* a single tile longer than one fit takes */
    uint16_t *big = calloc((size_t)5000 * 2, sizeof *big);
    st_dem_tin_desc huge = {.width = 5000, .height = 2, .samples = big, .tolerance = 1, .tile_x = ST_DEM_TIN_MAX_SIDE};
    assert_int_equal(st_dem_tin_fit(&huge, &t, &e), ST_ERR_INVALID);
    huge.tile_x = 0; /* by default in tiles, which fit */
    assert_st_ok(st_dem_tin_fit(&huge, &t, err));
    assert_int_equal(t->tiles, (5000 - 1 + 63) / 64);
    check_ok(t, big, 1);
    st_dem_tin_destroy(t);
    free(big);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiles_bound_like_the_single_fit), cmocka_unit_test(test_shared_sides_match),
        cmocka_unit_test(test_tie_at_the_tolerance_stays_out), cmocka_unit_test(test_check_finds_faults),
        cmocka_unit_test(test_analytic_dem_bound), cmocka_unit_test(test_vector_scan_on_the_real_dem),
        cmocka_unit_test(test_bad_descriptions)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
