/* The TIN fitter: known answers on flat and planar grids, the Delaunay property after every insertion
 * batch (exact in-circle over all edges), the error bound on every sample of every layer under both
 * metrics, coarse fits as prefixes of fine ones, bit-for-bit determinism, and the vector scan against the
 * 64-bit one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "strata/mesh.h"

typedef struct grid {
    uint32_t w, h;
    uint16_t *low, *mid, *high;
    uint8_t *dual;
} grid;

static uint32_t hash(uint32_t x) {
    x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
    return x;
}

/* Hills, a noisy terrace, and a dual blob (a slab over a cave) with a single-sample hole. */
static grid make_grid(uint32_t w, uint32_t h, uint32_t seed, bool with_slab) {
    grid g = {w, h, calloc(w * h, 2), calloc(w * h, 2), calloc(w * h, 2), calloc(w * h, 1)};
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            double v = 60 + 30 * sin(x * 0.21 + seed) * cos(y * 0.17) + (x > w / 2 ? 25 : 0) + (hash(i * 7 + seed) % 5);
            g.low[i] = g.mid[i] = g.high[i] = (uint16_t)v;
            double dx = x - w * 0.4, dy = y - h * 0.55;
            if (with_slab && dx * dx + 0.6 * dy * dy < (w * 0.28) * (w * 0.28) && !(x == w / 2 && y == h / 2)) {
                g.dual[i] = 1;
                g.mid[i] = (uint16_t)(g.low[i] + 24 + (x % 3) * 8);
                g.high[i] = (uint16_t)(g.mid[i] + 20 + (y % 4));
            }
        }
    return g;
}

static void free_grid(grid *g) {
    free(g->low), free(g->mid), free(g->high), free(g->dual);
}

static st_tin_desc desc_of(const grid *g, double tol, bool outline) {
    return (st_tin_desc){.width = g->w, .height = g->h, .low = g->low, .mid = g->mid, .high = g->high,
                         .dual = g->dual, .tolerance = tol, .outline = outline};
}

/* Independent check of the metric: every sample of every triangle (closed), in doubles. */
static void check_error_bound(const st_tin *tin, const grid *g, double tol, bool outline) {
    uint32_t covered = 0;
    uint8_t *seen = calloc(g->w * g->h, 1);
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        const st_tin_triangle *T = &tin->triangles[t];
        const st_tin_vertex *v[3] = {&tin->vertices[T->v[0]], &tin->vertices[T->v[1]], &tin->vertices[T->v[2]]};
        size_t vs[3];
        bool all_dual = true;
        for (int k = 0; k < 3; k++) {
            vs[k] = (size_t)v[k]->y * g->w + v[k]->x;
            all_dual = all_dual && g->dual[vs[k]];
        }
        double A = ((double)v[1]->x - v[0]->x) * ((double)v[2]->y - v[0]->y) - ((double)v[1]->y - v[0]->y) * ((double)v[2]->x - v[0]->x);
        assert_true(A > 0);
        for (uint32_t y = 0; y < g->h; y++)
            for (uint32_t x = 0; x < g->w; x++) {
                double wgt[3];
                bool inside = true;
                for (int k = 0; k < 3; k++) {
                    const st_tin_vertex *a = v[(k + 1) % 3], *b = v[(k + 2) % 3];
                    wgt[k] = ((double)b->x - a->x) * ((double)y - a->y) - ((double)b->y - a->y) * ((double)x - a->x);
                    if (wgt[k] < 0) inside = false;
                }
                if (!inside) continue;
                size_t s = (size_t)y * g->w + x;
                if (!seen[s]) seen[s] = 1, covered++;
                const uint16_t *L[3] = {g->low, g->mid, g->high};
                int layers = (!outline || all_dual) ? 3 : 1;
                for (int l = 0; l < layers; l++) {
                    double z = (wgt[0] * L[l][vs[0]] + wgt[1] * L[l][vs[1]] + wgt[2] * L[l][vs[2]]) / A;
                    if (fabs(z - L[l][s]) > tol + 1e-9)
                        fail_msg("layer %d sample (%u,%u): error %.3f > %.3f", l, x, y, fabs(z - L[l][s]), tol);
                }
                /* the slab covers every dual sample and reaches past the dual region by at most a texel: a
                 * single sample under a slab triangle lies within 1 of its edges; a dual sample under
                 * another triangle is a corner or lies on an edge joining two dual corners */
                bool near[3];
                for (int k = 0; k < 3; k++) {
                    const st_tin_vertex *a = v[(k + 1) % 3], *b = v[(k + 2) % 3];
                    double len2 = ((double)b->x - a->x) * ((double)b->x - a->x) + ((double)b->y - a->y) * ((double)b->y - a->y);
                    near[k] = wgt[k] * wgt[k] <= len2;
                }
                if (outline && all_dual && !g->dual[s] && !(near[0] || near[1] || near[2]))
                    fail_msg("single sample (%u,%u) deep under a slab triangle", x, y);
                if (outline && !all_dual && g->dual[s]) {
                    bool ok = s == vs[0] || s == vs[1] || s == vs[2];
                    for (int k = 0; k < 3; k++)
                        if (wgt[k] == 0 && g->dual[vs[(k + 1) % 3]] && g->dual[vs[(k + 2) % 3]]) ok = true;
                    if (!ok) fail_msg("dual sample (%u,%u) left under a non-slab triangle", x, y);
                }
            }
    }
    assert_int_equal(covered, g->w * g->h); /* the triangles tile the grid */
    free(seen);
}

static void flat_grid_is_two_triangles(void **state) {
    (void)state;
    grid g = make_grid(33, 17, 1, false);
    for (uint32_t i = 0; i < 33 * 17; i++) g.low[i] = g.mid[i] = g.high[i] = 77;
    st_tin *tin;
    assert_st_ok(st_tin_create(&tin, err));
    st_tin_desc d = desc_of(&g, 0.5, true);
    assert_st_ok(st_tin_fit(tin, &d, err));
    assert_int_equal(tin->vertex_count, 4);
    assert_int_equal(tin->triangle_count, 2);
    /* a tilted plane is exact too: z = 3x + 2y */
    for (uint32_t y = 0; y < 17; y++)
        for (uint32_t x = 0; x < 33; x++) g.low[y * 33 + x] = g.mid[y * 33 + x] = g.high[y * 33 + x] = (uint16_t)(3 * x + 2 * y);
    assert_st_ok(st_tin_fit(tin, &d, err));
    assert_int_equal(tin->triangle_count, 2);
    assert_true(tin->stats.max_error == 0);
    /* one spike in the middle: the sides stay put, the spike is inserted and nothing else is needed
     * beyond what the tolerance asks around it */
    for (uint32_t i = 0; i < 33 * 17; i++) g.low[i] = g.mid[i] = g.high[i] = 10;
    g.low[8 * 33 + 16] = g.mid[8 * 33 + 16] = g.high[8 * 33 + 16] = 200;
    d.tolerance = 1000; /* nothing to do */
    assert_st_ok(st_tin_fit(tin, &d, err));
    assert_int_equal(tin->vertex_count, 4);
    d.tolerance = 100; /* the spike (error 190) goes in; its fan then leaves samples ≤ 190·(1 − 1/16) off */
    assert_st_ok(st_tin_fit(tin, &d, err));
    assert_true(tin->vertex_count >= 5);
    assert_int_equal(tin->vertices[4].x, 16);
    assert_int_equal(tin->vertices[4].y, 8);
    check_error_bound(tin, &g, 100, true);
    st_tin_destroy(tin);
    free_grid(&g);
}

static void delaunay_after_every_batch(void **state) {
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        grid g = make_grid(41, 29, (uint32_t)variant, variant != 2);
        if (variant == 2) /* a checkerboard of plateaus: cocircular grid points everywhere */
            for (uint32_t y = 0; y < g.h; y++)
                for (uint32_t x = 0; x < g.w; x++)
                    g.low[y * g.w + x] = g.mid[y * g.w + x] = g.high[y * g.w + x] = (uint16_t)((((x / 4) + (y / 4)) & 1) * 40);
        st_tin *tin;
        assert_st_ok(st_tin_create(&tin, err));
        st_tin_desc d = desc_of(&g, 1.0, variant == 0);
        assert_st_ok(st_tin_fit(tin, &d, err));
        uint32_t total = tin->vertex_count;
        for (uint32_t k = 1; k < total; k += 7) {
            d.max_insertions = k;
            assert_st_ok(st_tin_fit(tin, &d, err));
            st_error e = {0};
            if (!st_tin_check_delaunay(tin, &e)) fail_msg("variant %d after %u insertions: %s", variant, k, e.message);
        }
        d.max_insertions = 0;
        assert_st_ok(st_tin_fit(tin, &d, err));
        st_error e = {0};
        if (!st_tin_check_delaunay(tin, &e)) fail_msg("variant %d final: %s", variant, e.message);
        st_tin_destroy(tin);
        free_grid(&g);
    }
}

static void error_bound_both_metrics(void **state) {
    (void)state;
    grid g = make_grid(65, 49, 3, true);
    st_tin *tin;
    assert_st_ok(st_tin_create(&tin, err));
    const double tols[] = {1, 4, 16};
    for (int outline = 0; outline < 2; outline++)
        for (int i = 0; i < 3; i++) {
            st_tin_desc d = desc_of(&g, tols[i], outline);
            assert_st_ok(st_tin_fit(tin, &d, err));
            assert_true(tin->stats.max_error <= tols[i]);
            check_error_bound(tin, &g, tols[i], outline);
            uint32_t sum = 0;
            for (int k = 0; k < ST_TIN_DRIVER_COUNT; k++) sum += tin->stats.insertions[k];
            assert_int_equal(sum + 4, tin->vertex_count); /* every vertex but the corners has one driver */
            if (outline) assert_true(tin->stats.insertions[ST_TIN_DRIVER_OUTLINE] > 0);
        }
    /* 16-bit heights (a DEM in decimetres), single layer */
    for (uint32_t i = 0; i < g.w * g.h; i++) g.low[i] = (uint16_t)(g.low[i] * 211 + (hash(i) % 97));
    st_tin_desc d = {.width = g.w, .height = g.h, .low = g.low, .tolerance = 40};
    assert_st_ok(st_tin_fit(tin, &d, err));
    for (uint32_t i = 0; i < g.w * g.h; i++) g.mid[i] = g.high[i] = g.low[i], g.dual[i] = 0;
    check_error_bound(tin, &g, 40, false);
    st_tin_destroy(tin);
    free_grid(&g);
}

typedef struct snap_copy {
    uint32_t vertex_count[ST_TIN_MAX_SNAPSHOTS], triangle_count[ST_TIN_MAX_SNAPSHOTS];
    st_tin_vertex vertices[ST_TIN_MAX_SNAPSHOTS][4096];
    st_tin_triangle triangles[ST_TIN_MAX_SNAPSHOTS][8192];
} snap_copy;

static void on_snap(void *user, const st_tin *tin, uint32_t i) {
    snap_copy *s = user;
    s->vertex_count[i] = tin->vertex_count;
    s->triangle_count[i] = tin->triangle_count;
    memcpy(s->vertices[i], tin->vertices, tin->vertex_count * sizeof *tin->vertices);
    memcpy(s->triangles[i], tin->triangles, tin->triangle_count * sizeof *tin->triangles);
}

static void coarse_fit_is_a_prefix_and_deterministic(void **state) {
    (void)state;
    grid g = make_grid(57, 45, 5, true);
    snap_copy *snaps = calloc(1, sizeof *snaps);
    st_tin *tin, *other;
    assert_st_ok(st_tin_create(&tin, err));
    assert_st_ok(st_tin_create(&other, err));
    for (int outline = 0; outline < 2; outline++) {
        st_tin_desc d = desc_of(&g, 2, outline);
        d.snapshot_tolerances[0] = 8, d.snapshot_tolerances[1] = 4;
        d.snapshot = on_snap, d.user = snaps;
        assert_st_ok(st_tin_fit(tin, &d, err));
        for (int i = 0; i < 2; i++) {
            st_tin_desc c = desc_of(&g, i == 0 ? 8 : 4, outline);
            c.border_tolerance = 2;
            assert_st_ok(st_tin_fit(other, &c, err));
            assert_int_equal(other->vertex_count, snaps->vertex_count[i]);
            assert_int_equal(other->triangle_count, snaps->triangle_count[i]);
            assert_memory_equal(other->vertices, snaps->vertices[i], other->vertex_count * sizeof(st_tin_vertex));
            assert_memory_equal(other->triangles, snaps->triangles[i], other->triangle_count * sizeof(st_tin_triangle));
            assert_true(snaps->vertex_count[i] < tin->vertex_count);
        }
        /* a workspace that just fitted something else gives the same answer as a fresh one */
        st_tin_desc c = desc_of(&g, 2, outline);
        assert_st_ok(st_tin_fit(other, &c, err));
        assert_int_equal(other->triangle_count, tin->triangle_count);
        assert_memory_equal(other->vertices, tin->vertices, tin->vertex_count * sizeof(st_tin_vertex));
        assert_memory_equal(other->triangles, tin->triangles, tin->triangle_count * sizeof(st_tin_triangle));
    }
    st_tin_destroy(tin);
    st_tin_destroy(other);
    free(snaps);
    free_grid(&g);
}

/* Grids up to 129 a side are scanned in 32-bit vector lanes where the CPU allows, whatever their heights;
 * scalar_scan forces the 64-bit loop. Both must give the same triangulation bit for bit, on small heights
 * and on the same grid times 256 (heights past 2^14, at 256 times the tolerance: scaling by a power of two
 * scales every error exactly, so that fit is the same again). */
static void vector_and_64bit_scans_agree(void **state) {
    (void)state;
    st_tin *a, *b;
    assert_st_ok(st_tin_create(&a, err));
    assert_st_ok(st_tin_create(&b, err));
    const uint32_t sizes[][2] = {{129, 129}, {57, 45}, {9, 31}};
    for (int k = 0; k < 3; k++) {
        grid g = make_grid(sizes[k][0], sizes[k][1], (uint32_t)k + 11, true);
        grid s = make_grid(sizes[k][0], sizes[k][1], (uint32_t)k + 11, true);
        for (size_t i = 0; i < (size_t)g.w * g.h; i++) s.low[i] *= 256, s.mid[i] *= 256, s.high[i] *= 256;
        uint16_t top = 0;
        for (size_t i = 0; i < (size_t)s.w * s.h; i++) top = s.high[i] > top ? s.high[i] : top;
        assert_true(top >= 1u << 14);
        for (int outline = 0; outline < 2; outline++)
            for (int variant = 0; variant < 3; variant++) {
                /* variant 0: vector against scalar on g; 1: the same on s; 2: vector on g against vector on s */
                const grid *ga = variant == 1 ? &s : &g, *gb = variant == 0 ? &g : &s;
                double scale = variant == 2 ? 256 : 1;
                st_tin_desc d = desc_of(ga, variant == 1 ? 3 * 256 : 3, outline), e = desc_of(gb, 3 * (variant ? 256 : 1), outline);
                d.snapshot_tolerances[0] = d.tolerance * 4, e.snapshot_tolerances[0] = e.tolerance * 4;
                e.scalar_scan = variant < 2;
                assert_st_ok(st_tin_fit(a, &d, err));
                assert_st_ok(st_tin_fit(b, &e, err));
                assert_int_equal(a->vertex_count, b->vertex_count);
                assert_int_equal(a->triangle_count, b->triangle_count);
                assert_memory_equal(a->vertices, b->vertices, a->vertex_count * sizeof(st_tin_vertex));
                assert_memory_equal(a->triangles, b->triangles, a->triangle_count * sizeof(st_tin_triangle));
                assert_memory_equal(a->stats.insertions, b->stats.insertions, sizeof a->stats.insertions);
                assert_true(a->stats.samples_scanned == b->stats.samples_scanned);
                assert_true(a->stats.max_error * scale == b->stats.max_error);
                assert_true(a->vertex_count > 8);
            }
        free_grid(&g);
        free_grid(&s);
    }
    st_tin_destroy(a);
    st_tin_destroy(b);
}

/* A flat slab over the whole grid with a round hole of single samples in the upper-left triangle: the
 * first insertion is the hole sample deepest inside that triangle — (5, 11), 3·√2 from the diagonal and
 * farther from the other edges — not the first one met in row-major order, (4, 10). Both scans (the vector
 * one and scalar_scan's 64-bit one), with slab heights below 2^14 and above it. */
static void deepest_outline_sample_first(void **state) {
    (void)state;
    enum { N = 17 };
    st_tin *tin;
    assert_st_ok(st_tin_create(&tin, err));
    for (int variant = 0; variant < 4; variant++) {
        uint16_t low[N * N], mid[N * N], high[N * N];
        uint8_t dual[N * N];
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++) {
                int i = y * N + x, dx = x - 4, dy = y - 12;
                bool hole = dx * dx + dy * dy <= 4;
                low[i] = 10;
                mid[i] = hole ? 10 : (variant & 1 ? 20000 : 40);
                high[i] = hole ? 10 : (variant & 1 ? 20100 : 60);
                dual[i] = !hole;
            }
        st_tin_desc d = {.width = N, .height = N, .low = low, .mid = mid, .high = high, .dual = dual,
                         .tolerance = 1, .outline = true, .max_insertions = 1, .scalar_scan = variant >= 2};
        assert_st_ok(st_tin_fit(tin, &d, err));
        assert_int_equal(tin->vertex_count, 5); /* four corners, no side vertex, one insertion */
        assert_int_equal(tin->stats.insertions[ST_TIN_DRIVER_OUTLINE], 1);
        assert_int_equal(tin->vertices[4].x, 5);
        assert_int_equal(tin->vertices[4].y, 11);
        d.max_insertions = 0; /* and the whole fit cuts the hole out to within a texel */
        assert_st_ok(st_tin_fit(tin, &d, err));
        assert_true(st_tin_check_delaunay(tin, NULL));
        assert_true(tin->stats.insertions[ST_TIN_DRIVER_OUTLINE] >= 3);
    }
    st_tin_destroy(tin);
}

/* A flat slab whose dual samples meet the bottom side along x = 10..20: the side keeps exactly the two ends
 * of that run (the outline crosses the side there), not every sample of it. */
static void side_keeps_the_ends_of_dual_runs(void **state) {
    (void)state;
    enum { W = 33, H = 9 };
    uint16_t low[W * H], mid[W * H], high[W * H];
    uint8_t dual[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int i = y * W + x;
            dual[i] = x >= 10 && x <= 20 && y <= 3;
            low[i] = 10, mid[i] = dual[i] ? 40 : 10, high[i] = dual[i] ? 60 : 10;
        }
    st_tin *tin;
    assert_st_ok(st_tin_create(&tin, err));
    st_tin_desc d = {.width = W, .height = H, .low = low, .mid = mid, .high = high, .dual = dual, .tolerance = 1,
                     .outline = true};
    assert_st_ok(st_tin_fit(tin, &d, err));
    assert_int_equal(tin->stats.insertions[ST_TIN_DRIVER_BORDER], 2);
    uint32_t on_side = 0;
    for (uint32_t v = 0; v < tin->vertex_count; v++)
        if (tin->vertices[v].y == 0 && tin->vertices[v].x > 0 && tin->vertices[v].x < W - 1) {
            assert_true(tin->vertices[v].x == 10 || tin->vertices[v].x == 20);
            on_side++;
        }
    assert_int_equal(on_side, 2);
    assert_true(st_tin_check_delaunay(tin, NULL));
    st_tin_destroy(tin);
}

/* The fitted low surface at (px, py): barycentric in the (closed) triangle holding the point. */
static double surface_at(const st_tin *tin, const uint16_t *low, uint32_t w, double px, double py) {
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        const st_tin_vertex *v[3];
        for (int k = 0; k < 3; k++) v[k] = &tin->vertices[tin->triangles[t].v[k]];
        double A = ((double)v[1]->x - v[0]->x) * ((double)v[2]->y - v[0]->y) - ((double)v[1]->y - v[0]->y) * ((double)v[2]->x - v[0]->x);
        double wgt[3], z = 0;
        bool inside = true;
        for (int k = 0; k < 3; k++) {
            const st_tin_vertex *a = v[(k + 1) % 3], *b = v[(k + 2) % 3];
            wgt[k] = ((double)b->x - a->x) * (py - a->y) - ((double)b->y - a->y) * (px - a->x);
            if (wgt[k] < -1e-9) inside = false;
        }
        if (!inside) continue;
        for (int k = 0; k < 3; k++) z += wgt[k] * low[(size_t)v[k]->y * w + v[k]->x];
        return z / A;
    }
    fail_msg("(%.2f, %.2f) lies in no triangle", px, py);
    return 0;
}

/* A flat road along the bottom side and a ridge from the row above it, cut by a channel at road height (a
 * tunnel mouth on the side). The side itself is flat, so Douglas-Peucker alone keeps only its ends; a
 * triangle on that long side edge then takes a ridge corner one row up as its third corner, holds no
 * sample but its corners and stands as a sheet from the road to the ridge top across the channel. The side
 * must keep vertices where the row beside it does not follow it: halfway between the side and the row
 * beside it the surface stays within the tolerance of the two rows' mean — beside all four sides, with
 * the rows across them given as the grid's outside or not. */
static void side_follows_the_rows_beside_it(void **state) {
    (void)state;
    enum { W = 65, H = 33 };
    uint16_t low[W * H], across[4][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) low[y * W + x] = y == 0 || (x >= 24 && x <= 40) ? 47 : 160;
    for (int x = 0; x < W; x++) {
        across[0][x] = x >= 30 && x <= 34 ? 47 : 120; /* below the bottom side: another cut */
        across[2][x] = 160;
    }
    for (int y = 0; y < H; y++) across[1][y] = across[3][y] = (uint16_t)(y < 8 ? 47 : 160);
    st_tin *tin;
    assert_st_ok(st_tin_create(&tin, err));
    for (int variant = 0; variant < 2; variant++) {
        st_tin_desc d = {.width = W, .height = H, .low = low, .tolerance = 4};
        if (variant)
            for (int k = 0; k < 4; k++) d.outside[k].low = across[k];
        assert_st_ok(st_tin_fit(tin, &d, err));
        assert_true(st_tin_check_delaunay(tin, NULL));
        for (int side = 0; side < 4; side++) {
            bool horiz = side == 0 || side == 2;
            int n = horiz ? W : H, fixed = side == 0 ? 0 : side == 1 ? W - 1 : side == 2 ? H - 1 : 0;
            int in = side == 0 || side == 3 ? 1 : -1; /* toward the grid's inside */
            for (int i = 0; i < n; i++) {
                int x = horiz ? i : fixed, y = horiz ? fixed : i;
                double zs = low[y * W + x], zr = low[(horiz ? y + in : y) * W + (horiz ? x : x + in)];
                double px = x + (horiz ? 0 : 0.5 * in), py = y + (horiz ? 0.5 * in : 0);
                double z = surface_at(tin, low, W, px, py), want = 0.5 * (zs + zr);
                if (fabs(z - want) > 4 + 1e-9)
                    fail_msg("variant %d side %d: surface %.2f at (%.1f, %.1f), the rows' mean %.1f", variant, side, z,
                             px, py, want);
            }
        }
    }
    /* the row across a side counts as much as the row inside: the grid below the bottom side (its top side
     * is that side, its row inside is `across[0]`, the row across its top is the grid's row 1) keeps the
     * same vertices on the side they share */
    uint16_t below[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) below[y * W + x] = y == H - 1 ? low[x] : y == H - 2 ? across[0][x] : 120;
    uint16_t above_row[W];
    for (int x = 0; x < W; x++) above_row[x] = low[W + x];
    uint8_t kept[2][W] = {{0}};
    for (int g = 0; g < 2; g++) {
        st_tin_desc d = {.width = W, .height = H, .low = g ? below : low, .tolerance = 4};
        d.outside[g ? 2 : 0].low = g ? above_row : across[0];
        assert_st_ok(st_tin_fit(tin, &d, err));
        for (uint32_t v = 0; v < tin->vertex_count; v++)
            if (tin->vertices[v].y == (g ? H - 1 : 0)) kept[g][tin->vertices[v].x] = 1;
    }
    assert_memory_equal(kept[0], kept[1], W);
    uint32_t on_side = 0;
    for (int x = 0; x < W; x++) on_side += kept[0][x];
    assert_true(on_side >= 6); /* both ends and both edges of both cuts at least */
    st_tin_destroy(tin);
}

static void bad_descriptors(void **state) {
    (void)state;
    st_tin *tin;
    assert_st_ok(st_tin_create(&tin, err));
    uint16_t z[4] = {0};
    st_error e = {0};
    st_tin_desc d = {.width = 1, .height = 4, .low = z, .tolerance = 1};
    assert_int_equal(st_tin_fit(tin, &d, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "grid"));
    d = (st_tin_desc){.width = 2, .height = 2, .low = z, .tolerance = 0};
    assert_int_equal(st_tin_fit(tin, &d, &e), ST_ERR_INVALID);
    d = (st_tin_desc){.width = 2, .height = 2, .low = z, .mid = z, .tolerance = 1};
    assert_int_equal(st_tin_fit(tin, &d, &e), ST_ERR_INVALID);
    /* the samples across a side come with the grid's layers */
    uint8_t du[4] = {0};
    d = (st_tin_desc){.width = 2, .height = 2, .low = z, .mid = z, .high = z, .dual = du, .tolerance = 1};
    d.outside[1].low = z;
    assert_int_equal(st_tin_fit(tin, &d, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "side 1"));
    d.outside[1] = (st_tin_outside){z, z, z, du};
    assert_st_ok(st_tin_fit(tin, &d, err));
    st_tin_destroy(tin);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flat_grid_is_two_triangles),
        cmocka_unit_test(delaunay_after_every_batch),
        cmocka_unit_test(error_bound_both_metrics),
        cmocka_unit_test(coarse_fit_is_a_prefix_and_deterministic),
        cmocka_unit_test(vector_and_64bit_scans_agree),
        cmocka_unit_test(deepest_outline_sample_first),
        cmocka_unit_test(side_keeps_the_ends_of_dual_runs),
        cmocka_unit_test(side_follows_the_rows_beside_it),
        cmocka_unit_test(bad_descriptors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
