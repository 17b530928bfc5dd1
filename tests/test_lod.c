/* Tests of the CDLOD selection on the CPU (src/tiles/lod.c) over an analytic world (a sum of sines whose every
 * level is the decimated bilinear surface, with δ per level as given): the bands meet τ and the one-level rule by
 * construction; the selection covers every point of the world exactly once and never puts two levels apart
 * side by side; every drawn node meets τ; the geometry is watertight where levels meet (morphed edge vertices
 * lie on the coarser neighbour's edge) over a sweep of eyes; the morph is continuous in distance and reaches the
 * coarse grid at the band's end; culling keeps every node an independent test sees; a node whose tile is missing
 * draws its nearest drawable ancestor; skirt sides; the one-level warning fires on a world too steep for its
 * ranges; bad parameters are refused; and a store binds with its index bounds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_store.h"
#include "strata/lod.h"
#include "support.h"

/* ---- the analytic world ------------------------------------------------------------------------------------ */

typedef struct aworld {
    st_lod_world w;
    double amp, wave_x, wave_y; /* metres */
    st_tile_key undrawable[8];  /* tiles that are not drawable */
    int undrawable_count;
    bool nothing_drawable;      /* no tile has arrived yet */
    uint32_t requests;
    float root_priority, best_other;
} aworld;

static double finest_height(const aworld *a, double X, double Y) {
    double x = X * a->w.spacing_x, y = Y * a->w.spacing_y;
    return 100.0 + a->amp * sin(2 * M_PI * x / a->wave_x) * cos(2 * M_PI * y / a->wave_y) +
           0.3 * a->amp * sin(2 * M_PI * (x + y) / (0.37 * a->wave_x));
}

/* The sample (i, j) of level l (finest samples at stride 2^l, clamped to the world's edge). */
static double level_sample(const aworld *a, uint32_t l, int64_t i, int64_t j) {
    int64_t X = i << l, Y = j << l;
    int64_t wx = (int64_t)a->w.width - 1, wy = (int64_t)a->w.height - 1;
    X = X < 0 ? 0 : X > wx ? wx : X;
    Y = Y < 0 ? 0 : Y > wy ? wy : Y;
    return finest_height(a, (double)X, (double)Y);
}

/* The bilinear surface of level l at sample coordinates (u, v) of that level. */
static double level_surface(const aworld *a, uint32_t l, double u, double v) {
    double fu = floor(u), fv = floor(v), tu = u - fu, tv = v - fv;
    int64_t i = (int64_t)fu, j = (int64_t)fv;
    double h00 = level_sample(a, l, i, j), h10 = level_sample(a, l, i + 1, j);
    double h01 = level_sample(a, l, i, j + 1), h11 = level_sample(a, l, i + 1, j + 1);
    return (h00 * (1 - tu) + h10 * tu) * (1 - tv) + (h01 * (1 - tu) + h11 * tu) * tv;
}

static bool a_bounds(const st_lod_world *w, uint32_t level, uint64_t x, uint64_t y, float *mn, float *mx) {
    const aworld *a = w->user;
    (void)level, (void)x, (void)y;
    *mn = (float)(100.0 - 1.3 * a->amp), *mx = (float)(100.0 + 1.3 * a->amp);
    return true;
}

static bool a_drawable(const st_lod_world *w, st_tile_key tile, st_tile_key *drawn) {
    const aworld *a = w->user;
    if (a->nothing_drawable) return false;
    for (;;) {
        bool ok = true;
        for (int i = 0; i < a->undrawable_count; i++)
            if (st_tile_key_equal(a->undrawable[i], tile)) ok = false;
        if (ok) {
            *drawn = tile;
            return true;
        }
        if (tile.level + 1 >= w->levels) return false;
        tile = st_tile_key_parent(tile);
    }
}

static void a_request(const st_lod_world *w, st_tile_key tile, float priority) {
    aworld *a = w->user;
    a->requests++;
    if (tile.level == w->levels - 1) {
        if (priority > a->root_priority) a->root_priority = priority;
    } else if (priority > a->best_other) {
        a->best_other = priority;
    }
}

/* 2049² samples 10 m apart in tiles of 64 intervals, a grid of 16: 6 levels, 4 × 4 roots. */
static aworld *make_world(double amp) {
    aworld *a = calloc(1, sizeof *a);
    assert_non_null(a);
    a->amp = amp;
    a->wave_x = 1900;
    a->wave_y = 2700;
    st_lod_world *w = &a->w;
    w->levels = 6;
    w->tile_intervals = 64;
    w->grid = 16;
    w->width = w->height = 2049;
    w->spacing_x = w->spacing_y = 10;
    for (uint32_t l = 0; l < w->levels; l++) w->delta[l] = l ? 0.4 * ldexp(1, (int)l) : 0;
    w->bounds = a_bounds;
    w->drawable = a_drawable;
    w->request = a_request;
    w->user = a;
    return a;
}

static double surface_at_world(const aworld *a, double x, double y) {
    return finest_height(a, x / a->w.spacing_x, y / a->w.spacing_y);
}

/* A camera at (x, y), `above` metres over the ground, looking along yaw/pitch, 320×200. */
static st_lod_view view_at(const aworld *a, double x, double y, double above, float yaw, float pitch, float far) {
    st_camera cam = {.yaw_deg = yaw, .pitch_deg = pitch, .far_dist = far, .near_dist = 1};
    double eye[3] = {x, y, surface_at_world(a, x, y) + above};
    st_camera_set_eye(&cam, eye);
    st_view v = st_camera_view(&cam, 320, 200);
    return st_lod_view_of(&v);
}

static st_lod_selection select_nodes(const aworld *a, const st_lod_params *p, const st_lod_view *v) {
    st_lod_selection sel = {0};
    st_error err = {0};
    if (st_lod_select(&a->w, p, v, &sel, &err)) fail_msg("st_lod_select: %s", err.message);
    return sel;
}

/* ---- the cell map: which level draws each leaf quadrant (N/2 finest intervals) -------------------------------- */

typedef struct cells {
    uint32_t n;        /* cells per side */
    int8_t *level;     /* -1 = none */
    uint8_t *count;
} cells;

static cells map_cells(const aworld *a, const st_lod_selection *sel) {
    cells c;
    uint32_t half = a->w.grid / 2;
    c.n = (uint32_t)((a->w.width - 1 + half - 1) / half);
    c.level = malloc((size_t)c.n * c.n);
    c.count = calloc((size_t)c.n * c.n, 1);
    assert_non_null(c.level);
    assert_non_null(c.count);
    memset(c.level, -1, (size_t)c.n * c.n);
    for (uint32_t i = 0; i < sel->count; i++) {
        const st_lod_node *nd = &sel->nodes[i];
        uint64_t side = 1ull << nd->level; /* cells per quadrant side */
        for (uint32_t q = 0; q < 4; q++) {
            if (!(nd->quadrants & (1u << q))) continue;
            uint64_t cx0 = (2 * nd->x + (q & 1)) * side, cy0 = (2 * nd->y + (q >> 1)) * side;
            for (uint64_t cy = cy0; cy < cy0 + side && cy < c.n; cy++)
                for (uint64_t cx = cx0; cx < cx0 + side && cx < c.n; cx++) {
                    c.count[cy * c.n + cx]++;
                    c.level[cy * c.n + cx] = (int8_t)nd->level;
                }
        }
    }
    return c;
}

static void free_cells(cells *c) {
    free(c->level);
    free(c->count);
}

/* ---- tests ------------------------------------------------------------------------------------------------- */

static void test_bands(void **state) {
    (void)state;
    aworld *a = make_world(60);
    for (double tau = 0.5; tau <= 8; tau *= 2) {
        st_lod_params p = {.tau_px = tau};
        st_lod_band b[ST_LOD_MAX_LEVELS];
        double focal = 256, far = 9000;
        st_lod_bands(&a->w, &p, focal, far, b);
        for (uint32_t l = 0; l < a->w.levels; l++) {
            if (l + 1 < a->w.levels) {
                /* the next coarser level is only drawn where its error is within τ */
                assert_true(b[l].range >= focal * a->w.delta[l + 1] / tau * (1 - 1e-12));
                assert_true(b[l].morph_start < b[l].morph_end && b[l].morph_end < b[l].range);
                /* the one-level rule by construction */
                double diag = hypot(16.0 * 10 * ldexp(1, (int)l), 16.0 * 10 * ldexp(1, (int)l));
                assert_true(b[l].range + 1.5 * diag <= b[l + 1].morph_start);
            }
            if (l) assert_true(b[l].range >= 2.0 * b[l - 1].range * (1 - 1e-12));
        }
        assert_true(b[a->w.levels - 1].range >= far);
        assert_true(isinf(b[a->w.levels - 1].morph_start));
    }
    /* where τ decides (δ large against the nodes), halving it doubles every range */
    aworld *rough = make_world(60);
    for (uint32_t l = 0; l < rough->w.levels; l++) rough->w.delta[l] = l ? 8.0 * ldexp(1, (int)l) : 0;
    st_lod_band b1[ST_LOD_MAX_LEVELS], b2[ST_LOD_MAX_LEVELS];
    st_lod_bands(&rough->w, &(st_lod_params){.tau_px = 1}, 256, 100, b1);
    st_lod_bands(&rough->w, &(st_lod_params){.tau_px = 0.5}, 256, 100, b2);
    for (uint32_t l = 0; l + 1 < rough->w.levels; l++) assert_true(fabs(b2[l].range / b1[l].range - 2) < 1e-9);
    free(rough);
    free(a);
}

static void test_covers_once_and_one_level(void **state) {
    (void)state;
    aworld *a = make_world(60);
    srand(7);
    st_lod_selection sel = {0};
    for (int trial = 0; trial < 60; trial++) {
        double x = (double)(rand() % 20480), y = (double)(rand() % 20480);
        double above = 2 + (rand() % 1000);
        float yaw = (float)(rand() % 360), pitch = -(float)(rand() % 91);
        double tau = ldexp(1, rand() % 4 - 1);
        st_lod_params p = {.tau_px = tau, .no_cull = true};
        st_lod_view v = view_at(a, x, y, above, yaw, pitch, 40000); /* the far plane past the world's diagonal */
        st_error err = {0};
        assert_int_equal(st_lod_select(&a->w, &p, &v, &sel, &err), ST_OK);
        cells c = map_cells(a, &sel);
        for (uint32_t i = 0; i < c.n * c.n; i++)
            if (c.count[i] != 1) fail_msg("trial %d: cell (%u, %u) drawn %u times", trial, i % c.n, i / c.n, c.count[i]);
        for (uint32_t cy = 0; cy < c.n; cy++)
            for (uint32_t cx = 0; cx + 1 < c.n; cx++) {
                int d1 = c.level[cy * c.n + cx] - c.level[cy * c.n + cx + 1];
                int d2 = c.level[cx * c.n + cy] - c.level[(cx + 1) * c.n + cy];
                if (abs(d1) > 1 || abs(d2) > 1) fail_msg("trial %d: levels two apart meet near cell %u,%u", trial, cx, cy);
            }
        assert_int_equal(sel.one_level_violations, 0);
        /* every drawn node meets τ: a node of level l ≥ 1 lies beyond the distance where δ_l projects to τ */
        for (uint32_t i = 0; i < sel.count; i++) {
            const st_lod_node *n = &sel.nodes[i];
            if (!n->level) continue;
            double rho = a->w.delta[n->level] * v.focal_px / fmax(n->distance, 1e-9);
            if (rho > tau * (1 + 1e-9)) fail_msg("trial %d: a level-%u node at %.1f m shows %.3f px > τ %.2f", trial,
                                                 n->level, n->distance, rho, tau);
        }
        assert_int_equal(sel.missing, 0);
        assert_int_equal(sel.fallback, 0);
        free_cells(&c);
    }
    st_lod_selection_free(&sel);
    free(a);
}

/* ---- watertight where levels meet ---------------------------------------------------------------------------- */

typedef struct sampler {
    const aworld *a;
    st_tile_key tile;
} sampler;

static double sample_tile(void *user, double u, double v) {
    const sampler *s = user;
    double s_int = s->a->w.tile_intervals;
    return level_surface(s->a, s->tile.level, s->tile.x * s_int + u, s->tile.y * s_int + v);
}

/* The morphed position of grid vertex (i, j) of node n. */
static void node_vertex(const aworld *a, const st_lod_selection *sel, const st_lod_view *v, const st_lod_node *n,
                        double i, double j, double out[3], double *k) {
    double corner[2], cx, cy;
    st_lod_node_corner(&a->w, n, corner, &cx, &cy);
    /* the node's samples inside the tile it draws from */
    double s_int = a->w.tile_intervals;
    double X0 = (double)n->x * a->w.grid * ldexp(1, (int)n->level), Y0 = (double)n->y * a->w.grid * ldexp(1, (int)n->level);
    double tstep = ldexp(1, (int)n->level - (int)n->tile.level);
    double tex0[2] = {X0 / ldexp(1, (int)n->tile.level) - n->tile.x * s_int, Y0 / ldexp(1, (int)n->tile.level) - n->tile.y * s_int};
    double limit[2] = {((double)(a->w.width - 1) * a->w.spacing_x - corner[0]) / cx,
                       ((double)(a->w.height - 1) * a->w.spacing_y - corner[1]) / cy};
    sampler s = {a, n->tile};
    st_lod_vertex(v->eye, &sel->bands[n->level], corner, cx, cy, tex0, tstep, limit, i, j, sample_tile, &s, out, k);
}

/* Along the side x = const (axis 0) or y = const (axis 1) of a drawn quadrant: its vertices, in order. */
static size_t side_vertices(const aworld *a, const st_lod_selection *sel, const st_lod_view *v, const st_lod_node *n,
                            uint32_t q, int side, double (*out)[3], double *ks) {
    uint32_t half = a->w.grid / 2, qx = q & 1, qy = q >> 1;
    size_t m = 0;
    for (uint32_t t = 0; t <= half; t++) {
        double i, j;
        switch (side) {
        case 0: i = qx * half + t, j = qy * half; break;          /* low y */
        case 1: i = (qx + 1) * half, j = qy * half + t; break;    /* high x */
        case 2: i = qx * half + t, j = (qy + 1) * half; break;    /* high y */
        default: i = qx * half, j = qy * half + t; break;         /* low x */
        }
        node_vertex(a, sel, v, n, i, j, out[m], &ks[m]);
        m++;
    }
    return m;
}

/* The height of the polyline through pts (ordered along `along`) at coordinate c; NAN outside it. */
static double polyline_at(double (*pts)[3], size_t n, int along, double c) {
    for (size_t i = 0; i + 1 < n; i++) {
        double a0 = pts[i][along], a1 = pts[i + 1][along];
        if (c < fmin(a0, a1) - 1e-6 || c > fmax(a0, a1) + 1e-6) continue;
        if (fabs(a1 - a0) < 1e-9) return pts[i][2];
        double t = (c - a0) / (a1 - a0);
        return pts[i][2] + t * (pts[i + 1][2] - pts[i][2]);
    }
    return NAN;
}

/* The drawn quadrant (node, q) covering leaf cell (cx, cy), or none. */
static bool quad_at(const aworld *a, const st_lod_selection *sel, int64_t cx, int64_t cy, uint32_t *node, uint32_t *q) {
    (void)a;
    if (cx < 0 || cy < 0) return false;
    for (uint32_t i = 0; i < sel->count; i++) {
        const st_lod_node *n = &sel->nodes[i];
        int64_t side = 1ll << n->level;
        int64_t qx = cx / side - 2 * (int64_t)n->x, qy = cy / side - 2 * (int64_t)n->y;
        if (qx < 0 || qx > 1 || qy < 0 || qy > 1) continue;
        uint32_t qq = (uint32_t)(qx + 2 * qy);
        if (n->quadrants & (1u << qq)) {
            *node = i;
            *q = qq;
            return true;
        }
    }
    return false;
}

static void test_watertight_sweep(void **state) {
    (void)state;
    aworld *a = make_world(60);
    st_lod_selection sel = {0};
    double (*fine)[3] = malloc(64 * sizeof *fine), (*coarse)[3] = malloc(64 * sizeof *coarse), kf[64], kc[64];
    assert_non_null(fine);
    assert_non_null(coarse);
    uint32_t boundaries = 0;
    /* the eye flies 10 km across the world low over the ground: every level boundary sweeps past it */
    for (int step = 0; step < 40; step++) {
        double x = 2000 + 250.0 * step, y = 3000 + 120.0 * step;
        st_lod_params p = {.tau_px = 1};
        st_lod_view v = view_at(a, x, y, 30 + 5 * (step % 7), 60, -20, 12000);
        sel = select_nodes(a, &p, &v);
        assert_int_equal(sel.one_level_violations, 0);
        uint32_t half = a->w.grid / 2;
        for (uint32_t ni = 0; ni < sel.count; ni++) {
            const st_lod_node *n = &sel.nodes[ni];
            int64_t side = 1ll << n->level;
            for (uint32_t q = 0; q < 4; q++) {
                if (!(n->quadrants & (1u << q))) continue;
                int64_t cx0 = (2 * (int64_t)n->x + (q & 1)) * side, cy0 = (2 * (int64_t)n->y + (q >> 1)) * side;
                for (int s = 0; s < 4; s++) {
                    /* the cell just across the side's middle */
                    int64_t ox = s == 1 ? cx0 + side : s == 3 ? cx0 - 1 : cx0 + side / 2;
                    int64_t oy = s == 2 ? cy0 + side : s == 0 ? cy0 - 1 : cy0 + side / 2;
                    uint32_t mi, mq;
                    if (!quad_at(a, &sel, ox, oy, &mi, &mq)) continue;
                    const st_lod_node *m = &sel.nodes[mi];
                    if (m->level <= n->level) continue; /* checked from the finer side only */
                    assert_int_equal(m->level, n->level + 1);
                    size_t nf = side_vertices(a, &sel, &v, n, q, s, fine, kf);
                    size_t nc = side_vertices(a, &sel, &v, m, mq, (s + 2) % 4, coarse, kc);
                    int along = (s == 0 || s == 2) ? 0 : 1;
                    for (size_t t = 0; t < nf; t++) {
                        /* the fine vertex is on the coarse grid (morph complete) and on the coarse edge */
                        if (t % 2 && kf[t] < 1.0) fail_msg("step %d: a level-%u edge vertex meets level %u with morph %.3f",
                                                           step, n->level, m->level, kf[t]);
                        double z = polyline_at(coarse, nc, along, fine[t][along]);
                        if (isnan(z) || fabs(z - fine[t][2]) > 1e-6)
                            fail_msg("step %d: crack of %g m between levels %u and %u at (%.2f, %.2f)", step,
                                     isnan(z) ? INFINITY : fabs(z - fine[t][2]), n->level, m->level, fine[t][0], fine[t][1]);
                    }
                    (void)half;
                    boundaries++;
                }
            }
        }
    }
    assert_true(boundaries > 100); /* the sweep did cross level boundaries */
    free(fine);
    free(coarse);
    st_lod_selection_free(&sel);
    free(a);
}

static void test_morph_continuous(void **state) {
    (void)state;
    aworld *a = make_world(60);
    st_lod_params p = {.tau_px = 1};
    st_lod_view v = view_at(a, 5000, 5000, 50, 0, -10, 12000);
    st_lod_selection sel = select_nodes(a, &p, &v);
    const st_lod_band *b = &sel.bands[1];
    assert_true(st_lod_morph_k(b, b->morph_start - 1) == 0);
    assert_true(st_lod_morph_k(b, b->morph_end + 1e-9) == 1);
    /* a level-1 node's odd vertex (3, 5) as the eye backs away along a line: the position moves continuously,
     * from the unmorphed vertex to its even neighbour (2, 4) at the band's end */
    st_lod_node n = {.level = 1, .x = 10, .y = 10, .quadrants = 0xF, .tile = {1, 2, 2}};
    double prev[3] = {0}, first[3] = {0}, last[3] = {0}, k;
    double worst = 0;
    int steps = 4000;
    for (int s = 0; s <= steps; s++) {
        double t = (double)s / steps;
        st_lod_view vv = v;
        double corner[2], cx, cy;
        st_lod_node_corner(&a->w, &n, corner, &cx, &cy);
        /* from inside the morph start to past its end, straight away from the vertex */
        double dist = (b->morph_start - 50) + t * (b->morph_end - b->morph_start + 100);
        vv.eye[0] = corner[0] + 3 * cx - dist;
        vv.eye[1] = corner[1] + 5 * cy;
        vv.eye[2] = 100;
        double p3[3];
        node_vertex(a, &sel, &vv, &n, 3, 5, p3, &k);
        if (s == 0) memcpy(first, p3, sizeof first);
        if (s) worst = fmax(worst, sqrt((p3[0] - prev[0]) * (p3[0] - prev[0]) + (p3[1] - prev[1]) * (p3[1] - prev[1]) +
                                        (p3[2] - prev[2]) * (p3[2] - prev[2])));
        memcpy(prev, p3, sizeof prev);
        memcpy(last, p3, sizeof last);
    }
    double corner[2], cx, cy;
    st_lod_node_corner(&a->w, &n, corner, &cx, &cy);
    assert_true(fabs(first[0] - (corner[0] + 3 * cx)) < 1e-9 && fabs(first[1] - (corner[1] + 5 * cy)) < 1e-9);
    assert_true(fabs(last[0] - (corner[0] + 2 * cx)) < 1e-9 && fabs(last[1] - (corner[1] + 4 * cy)) < 1e-9);
    /* at the end it stands on the coarse grid's vertex: the level-2 sample there */
    double coarse = level_surface(a, 2, (corner[0] + 2 * cx) / 40, (corner[1] + 4 * cy) / 40);
    assert_true(fabs(last[2] - coarse) < 1e-9);
    /* no jump: each step of the distance (≈ 0.3 m here) moves the vertex by a bounded, small amount */
    double step_m = (b->morph_end - b->morph_start + 100) / steps;
    assert_true(worst < 3 * step_m * (hypot(cx, cy) + 2 * a->amp) / (b->morph_end - b->morph_start) + 1e-9);
    st_lod_selection_free(&sel);
    free(a);
}

/* ---- culling --------------------------------------------------------------------------------------------------- */

static bool point_visible(const st_lod_view *v, const double p[3]) {
    double q[3] = {p[0] - v->eye[0], p[1] - v->eye[1], p[2] - v->eye[2]};
    double z = q[0] * v->forward[0] + q[1] * v->forward[1] + q[2] * v->forward[2];
    if (z < v->near_m || z > v->far_m) return false;
    double sx = v->focal_px * (q[0] * v->right[0] + q[1] * v->right[1] + q[2] * v->right[2]) / z;
    double sy = v->focal_px * (q[0] * v->up[0] + q[1] * v->up[1] + q[2] * v->up[2]) / z;
    return fabs(sx) <= 0.5 * v->width_px && fabs(sy) <= 0.5 * v->height_px;
}

/* Whether any of a drawn quadrant's surface points (at twice its grid's density) is in view. */
static bool quad_seen(const aworld *a, const st_lod_selection *sel, const st_lod_view *v, const st_lod_node *n,
                      uint32_t q) {
    uint32_t half = a->w.grid / 2;
    for (uint32_t j = 0; j <= 2 * half; j++)
        for (uint32_t i = 0; i <= 2 * half; i++) {
            double p[3], k;
            node_vertex(a, sel, v, n, (q & 1) * half + 0.5 * i, (q >> 1) * half + 0.5 * j, p, &k);
            if (point_visible(v, p)) return true;
        }
    return false;
}

static void test_culling_keeps_what_is_seen(void **state) {
    (void)state;
    aworld *a = make_world(60);
    srand(11);
    st_lod_selection all = {0}, culled = {0};
    uint32_t seen = 0, dropped_total = 0;
    for (int trial = 0; trial < 40; trial++) {
        /* pitches that put the frustum's corners on the ground near the eye, the world's edges and corners */
        double x = trial % 5 == 0 ? 5 : (double)(rand() % 20480), y = trial % 7 == 0 ? 20475 : (double)(rand() % 20480);
        float pitch = (float[]){-90, -75, -45, -20, -5, 0, 10}[trial % 7];
        float yaw = (float)(rand() % 360);
        st_lod_view v = view_at(a, x, y, 5 + rand() % 300, yaw, pitch, 6000);
        st_lod_params pa = {.tau_px = 2, .no_cull = true}, pc = {.tau_px = 2};
        st_error err = {0};
        assert_int_equal(st_lod_select(&a->w, &pa, &v, &all, &err), ST_OK);
        assert_int_equal(st_lod_select(&a->w, &pc, &v, &culled, &err), ST_OK);
        for (uint32_t i = 0; i < all.count; i++) {
            const st_lod_node *n = &all.nodes[i];
            for (uint32_t q = 0; q < 4; q++) {
                if (!(n->quadrants & (1u << q)) || !quad_seen(a, &all, &v, n, q)) continue;
                seen++;
                bool kept = false;
                for (uint32_t k = 0; k < culled.count && !kept; k++) {
                    const st_lod_node *c = &culled.nodes[k];
                    kept = c->level == n->level && c->x == n->x && c->y == n->y && (c->quadrants & (1u << q));
                }
                if (!kept) fail_msg("trial %d (pitch %g yaw %g): a visible quadrant %u of node %u/%llu/%llu was culled",
                                    trial, (double)pitch, (double)yaw, q, n->level, (unsigned long long)n->x,
                                    (unsigned long long)n->y);
            }
        }
        assert_true(culled.count <= all.count);
        dropped_total += culled.culled;
    }
    assert_true(seen > 1000);
    assert_true(dropped_total > 100); /* culling did drop nodes */
    st_lod_selection_free(&all);
    st_lod_selection_free(&culled);
    free(a);
}

/* ---- tiles that are not drawable yet ------------------------------------------------------------------------ */

static void test_missing_tiles_draw_their_ancestor(void **state) {
    (void)state;
    aworld *a = make_world(60);
    st_lod_params p = {.tau_px = 1, .no_cull = true};
    st_lod_view v = view_at(a, 3000, 3000, 20, 45, -30, 40000);
    st_lod_selection sel = select_nodes(a, &p, &v);
    /* the eye's level-0 tile and its parent are missing: their nodes draw the grandparent */
    st_tile_key t0 = {0, 3000 / 640, 3000 / 640}, t1 = st_tile_key_parent(t0), t2 = st_tile_key_parent(t1);
    uint32_t before = 0;
    for (uint32_t i = 0; i < sel.count; i++) before += st_tile_key_equal(st_lod_node_tile(&a->w, sel.nodes[i].level,
                                                                                             sel.nodes[i].x,
                                                                                             sel.nodes[i].y),
                                                                         t0);
    assert_true(before > 0);
    a->undrawable[0] = t0;
    a->undrawable[1] = t1;
    a->undrawable_count = 2;
    sel = select_nodes(a, &p, &v);
    uint32_t fallback = 0;
    for (uint32_t i = 0; i < sel.count; i++) {
        const st_lod_node *n = &sel.nodes[i];
        st_tile_key own = st_lod_node_tile(&a->w, n->level, n->x, n->y);
        if (st_tile_key_equal(own, t0) || st_tile_key_equal(own, t1)) {
            assert_true(n->fallback);
            assert_true(st_tile_key_equal(n->tile, t2));
            fallback++;
        } else {
            assert_false(n->fallback);
            assert_true(st_tile_key_equal(n->tile, own));
        }
    }
    assert_int_equal(fallback, sel.fallback);
    assert_true(fallback >= before);
    cells c = map_cells(a, &sel);
    for (uint32_t i = 0; i < c.n * c.n; i++) assert_int_equal(c.count[i], 1); /* still no hole, no overlap */
    free_cells(&c);
    /* nothing drawable at all (not even the roots have arrived): nothing drawn, every node counted missing */
    a->nothing_drawable = true;
    sel = select_nodes(a, &p, &v);
    assert_int_equal(sel.count, 0);
    assert_true(sel.missing > 0);
    st_lod_selection_free(&sel);
    free(a);
}

/* Holes: the missing nodes' boxes kept by the selection, and the pixels their screen rectangles cover. */
static void test_hole_pixels(void **state) {
    (void)state;
    uint64_t px = 99;
    st_lod_view v = {.eye = {0, 0, 100}, .forward = {0, 0, -1}, .right = {1, 0, 0}, .up = {0, 1, 0},
                     .focal_px = 100, .width_px = 320, .height_px = 200, .near_m = 1, .far_m = 1000};
    assert_st_ok(st_lod_hole_pixels(NULL, 0, &v, &px, err));
    assert_int_equal(px, 0);
    /* a flat 20 m square 100 m below, looking down: 2·100·10/100 = 20 px a side */
    st_lod_box sq = {.lo = {-10, -10, 0}, .hi = {10, 10, 0}};
    assert_st_ok(st_lod_hole_pixels(&sq, 1, &v, &px, err));
    assert_int_equal(px, 400);
    /* the same twice, and a second one overlapping half of it: the union counts */
    st_lod_box two[3] = {sq, sq, {.lo = {0, -10, 0}, .hi = {20, 10, 0}}};
    assert_st_ok(st_lod_hole_pixels(two, 3, &v, &px, err));
    assert_int_equal(px, 600);
    /* behind the eye: nothing; around the eye: the whole image (clipped at the near plane, clamped to the image) */
    st_lod_box behind = {.lo = {-10, -10, 150}, .hi = {10, 10, 200}};
    assert_st_ok(st_lod_hole_pixels(&behind, 1, &v, &px, err));
    assert_int_equal(px, 0);
    st_lod_box around = {.lo = {-10, -10, 50}, .hi = {10, 10, 150}};
    assert_st_ok(st_lod_hole_pixels(&around, 1, &v, &px, err));
    assert_int_equal(px, 320 * 200);

    /* the selection keeps a box per missing node, and seen from above they cover the image */
    aworld *a = make_world(60);
    a->nothing_drawable = true;
    st_lod_params p = {.tau_px = 1};
    st_lod_view top = view_at(a, 10000, 10000, 500, 0, -90, 40000);
    st_lod_selection sel = select_nodes(a, &p, &top);
    assert_int_equal(sel.count, 0);
    assert_true(sel.missing > 0);
    assert_int_equal(sel.missing_kept, sel.missing);
    assert_st_ok(st_lod_hole_pixels(sel.missing_boxes, sel.missing_kept, &top, &px, err));
    assert_int_equal(px, 320 * 200);
    /* everything drawable again: nothing kept */
    a->nothing_drawable = false;
    st_lod_selection_free(&sel);
    sel = select_nodes(a, &p, &top);
    assert_int_equal(sel.missing, 0);
    assert_int_equal(sel.missing_kept, 0);
    st_lod_selection_free(&sel);
    free(a);
}

static void test_requests(void **state) {
    (void)state;
    aworld *a = make_world(60);
    st_lod_params p = {.tau_px = 1};
    st_lod_view v = view_at(a, 3000, 3000, 20, 45, -30, 8000);
    st_lod_selection sel = select_nodes(a, &p, &v);
    assert_true(a->requests >= sel.count);
    assert_true(a->root_priority > a->best_other); /* roots first: every fallback ends there */
    st_lod_selection_free(&sel);
    free(a);
}

static void test_skirt_sides(void **state) {
    (void)state;
    aworld *a = make_world(60);
    st_lod_params p = {.tau_px = 1, .skirts = true, .no_cull = true};
    st_lod_view v = view_at(a, 7000, 7000, 20, 45, -30, 40000);
    st_lod_selection sel = select_nodes(a, &p, &v);
    uint64_t sides = 0;
    uint32_t partial = 0;
    double ex = 2048 * 10.0;
    for (uint32_t i = 0; i < sel.count; i++) {
        const st_lod_node *n = &sel.nodes[i];
        double size = 16.0 * 10 * ldexp(1, (int)n->level);
        for (uint32_t q = 0; q < 4; q++) {
            uint32_t bits = (n->skirts >> (4 * q)) & 15u;
            if (!(n->quadrants & (1u << q))) {
                assert_int_equal(bits, 0);
                continue;
            }
            uint32_t qx = q & 1, qy = q >> 1;
            double x0 = (n->x + 0.5 * qx) * size, y0 = (n->y + 0.5 * qy) * size;
            /* inner sides: a skirt exactly when the quadrant across is not this node's */
            bool across_x = n->quadrants & (1u << (q ^ 1)), across_y = n->quadrants & (1u << (q ^ 2));
            bool want1 = qx ? x0 + 0.5 * size < ex : !across_x;
            bool want3 = qx ? !across_x : x0 > 0;
            bool want0 = qy ? !across_y : y0 > 0;
            bool want2 = qy ? y0 + 0.5 * size < ex : !across_y;
            assert_int_equal(bits, (want0 ? 1u : 0) | (want1 ? 2u : 0) | (want2 ? 4u : 0) | (want3 ? 8u : 0));
        }
        if (n->quadrants != 0xF) partial++;
        sides += (uint64_t)__builtin_popcount(n->skirts);
    }
    assert_true(partial > 0);
    assert_true(sel.skirt_triangles == sides * 16); /* N/2 quads, two triangles each */
    /* boxes hang down by the skirt depth */
    for (uint32_t i = 0; i < sel.count; i++)
        assert_true(sel.nodes[i].lo[2] <= 100.0 - 1.3 * 60 - st_lod_skirt_depth(&a->w, sel.nodes[i].level) + 1e-3);
    st_lod_selection_free(&sel);
    free(a);
}

static void test_one_level_warning(void **state) {
    (void)state;
    /* a world whose nodes are far taller than wide: the farthest corner of a node overshoots the next level's
     * morph start, which the construction from horizontal sizes cannot see; the check reports it */
    aworld *a = make_world(60);
    a->amp = 20000;
    st_lod_params p = {.tau_px = 1};
    st_lod_view v = view_at(a, 3000, 3000, 5, 45, -30, 40000);
    v.eye[2] = 100; /* low in a world whose boxes span ±26 km */
    st_lod_selection sel = select_nodes(a, &p, &v);
    assert_true(sel.one_level_violations > 0);
    assert_true(sel.worst_violation_m > 0);
    st_lod_selection_free(&sel);
    free(a);
}


static void test_one_level_widened(void **state) {
    (void)state;
    /* nodes a few times taller than wide and a low eye: the first walk has nodes reaching past the next level's
     * morph start; the selection widens the ranges until none does, and the bands it reports are the widened ones */
    aworld *a = make_world(1500);
    st_lod_params p = {.tau_px = 1};
    st_lod_view v = view_at(a, 3000, 3000, 5, 45, -30, 40000);
    v.eye[2] = 100;
    st_lod_selection sel = select_nodes(a, &p, &v);
    assert_true(sel.widened > 0);
    assert_int_equal(sel.one_level_violations, 0);
    st_lod_band plain[ST_LOD_MAX_LEVELS];
    st_lod_bands(&a->w, &p, v.focal_px, v.far_m, plain);
    assert_true(sel.bands[0].range > plain[0].range);
    for (uint32_t l = 0; l + 1 < a->w.levels; l++) assert_true(sel.bands[l].range <= sel.bands[l + 1].morph_start);
    /* a view with ordinary nodes is selected once, with the plain bands */
    aworld *flat = make_world(10);
    st_lod_view fv = view_at(flat, 3000, 3000, 200, 45, -30, 40000);
    st_lod_selection fs = select_nodes(flat, &p, &fv);
    assert_int_equal(fs.widened, 0);
    st_lod_bands(&flat->w, &p, fv.focal_px, fv.far_m, plain);
    assert_true(fs.bands[0].range == plain[0].range);
    st_lod_selection_free(&sel);
    st_lod_selection_free(&fs);
    free(a);
    free(flat);
}


/* The coarse walk a GPU pass starts from (st_lod_select_coarse), for each number of coarse levels and a view
 * over the world, one across it from its edge and one at the sky: its draws are the full selection's nodes above
 * the parents' level (and those of that level drawn whole), with their quadrants; every node of the parents' level
 * the selection draws is a draw or a parent; every finer one descends from a candidate, each the child of its
 * parent; nothing is handed over for the sky. */
static bool has_coarse(const st_lod_coarse_node *list, uint32_t n, uint32_t level, uint64_t x, uint64_t y,
                       uint8_t *quads) {
    for (uint32_t i = 0; i < n; i++)
        if (list[i].level == level && list[i].x == x && list[i].y == y) {
            if (quads) *quads = list[i].quadrants;
            return true;
        }
    return false;
}

static void test_coarse_frontier(void **state) {
    (void)state;
    aworld *a = make_world(60);
    st_lod_params p = {.tau_px = 1};
    st_lod_view views[3] = {view_at(a, 3000, 3000, 20, 45, -30, 8000), view_at(a, 10, 9000, 150, 90, -10, 40000),
                            view_at(a, 10000, 10000, 300, 0, 70, 8000)};
    for (int v = 0; v < 3; v++) {
        st_lod_selection sel = select_nodes(a, &p, &views[v]);
        assert_int_equal(sel.widened, 0); /* the coarse walk is the first attempt's */
        assert_true(v == 2 ? sel.count == 0 : sel.count > 0);
        for (uint32_t k = 1; k < a->w.levels; k++) {
            st_lod_frontier f = {0};
            assert_st_ok(st_lod_select_coarse(&a->w, &p, &views[v], sel.bands, k, &f, err));
            uint32_t first = a->w.levels - 1 - k, found = 0;
            assert_int_equal(f.first, first);
            for (uint32_t i = 0; i < sel.count; i++) {
                const st_lod_node *n = &sel.nodes[i];
                uint8_t q = 0;
                if (n->level > first) {
                    bool drawn = has_coarse(f.draws, f.draw_count, n->level, n->x, n->y, &q);
                    if (drawn) {
                        assert_int_equal(q, n->quadrants);
                        found++;
                    } else {
                        if (n->level != first + 1) fail_msg("view %d, %u levels: L%u (%llu, %llu) is not a draw", v, k,
                                                            n->level, (unsigned long long)n->x, (unsigned long long)n->y);
                        assert_true(has_coarse(f.parents, f.parent_count, n->level, n->x, n->y, NULL));
                    }
                } else {
                    uint32_t up = first - n->level;
                    assert_true(has_coarse(f.cands, f.cand_count, first, n->x >> up, n->y >> up, NULL));
                }
            }
            assert_int_equal(found, f.draw_count); /* and nothing else is drawn */
            for (uint32_t i = 0; i < f.cand_count; i++) {
                const st_lod_coarse_node *c = &f.cands[i];
                assert_true(c->parent < f.parent_count);
                assert_true(f.parents[c->parent].x == c->x / 2 && f.parents[c->parent].y == c->y / 2);
            }
            assert_true(f.visits + f.cand_count <= sel.visits);
            if (v == 2) assert_int_equal(f.draw_count + f.parent_count + f.cand_count, 0);
            st_lod_frontier_free(&f);
        }
        st_lod_selection_free(&sel);
    }
    st_lod_frontier f = {0};
    st_lod_band bands[ST_LOD_MAX_LEVELS] = {{0}};
    st_error e2 = {0};
    assert_int_equal(st_lod_select_coarse(&a->w, &p, &views[0], bands, 0, &f, &e2), ST_ERR_INVALID);
    assert_int_equal(st_lod_select_coarse(&a->w, &p, &views[0], bands, a->w.levels, &f, &e2), ST_ERR_INVALID);
    free(a);
}

/* The measured error of a store's levels (st_store_surface_error): none for a plane and a tilted plane (a
 * triangulated plane is the plane), and for sines, with the quantile 1 over every level-0 tile, exactly the largest
 * gap at the sampled positions between each level's triangulated surface and the finest samples (rounded up by the
 * histogram's 3 % at most); the 0.99 quantile is below it. */
static double tri_level_surface(const analytic *a, uint32_t l, double u, double v) {
    double fu = floor(u), fv = floor(v), tu = u - fu, tv = v - fv;
    int64_t i = (int64_t)fu, j = (int64_t)fv, s = (int64_t)1 << l, last = ((int64_t)a->size - 1) >> l;
    if (i >= last) i = last - 1, tu = u - (double)i;
    if (j >= last) j = last - 1, tv = v - (double)j;
    double h00 = analytic_sample(a, i * s, j * s), h11 = analytic_sample(a, (i + 1) * s, (j + 1) * s);
    if (tu >= tv) return h00 + tu * (analytic_sample(a, (i + 1) * s, j * s) - h00) + tv * (h11 - analytic_sample(a, (i + 1) * s, j * s));
    return h00 + tv * (analytic_sample(a, i * s, (j + 1) * s) - h00) + tu * (h11 - analytic_sample(a, i * s, (j + 1) * s));
}

static void test_measured_error(void **state) {
    (void)state;
    double out[ST_STORE_MAX_LEVELS];
    for (int shape = 0; shape < 2; shape++) {
        analytic a = {.shape = shape ? SHAPE_TILT : SHAPE_PLANE, .size = 257, .spacing = 2, .base = 40, .slope_x = 0.3,
                      .slope_y = -0.2};
        st_store *s = analytic_store(&a, 33, shape ? "err-tilt" : "err-plane");
        assert_st_ok(st_store_surface_error(s, 1.0, 8, out, err));
        for (uint32_t l = 0; l < st_store_get_info(s)->levels; l++) assert_true(out[l] == 0);
        st_store_close(s);
    }
    analytic a = {.shape = SHAPE_SINE, .size = 513, .spacing = 2, .base = 60, .amp = 25, .wave = 90};
    st_store *s = analytic_store(&a, 33, "err-sine");
    const st_store_info *in = st_store_get_info(s);
    assert_st_ok(st_store_surface_error(s, 1.0, 16, out, err)); /* 16 × 16: every level-0 tile */
    double q99[ST_STORE_MAX_LEVELS];
    assert_st_ok(st_store_surface_error(s, 0.99, 16, q99, err));
    for (uint32_t l = 1; l < in->levels; l++) {
        double worst = 0;
        for (uint32_t ty = 0; ty < 16; ty++)
            for (uint32_t tx = 0; tx < 16; tx++)
                for (uint32_t j = 0; j <= 32; j += 3)
                    for (uint32_t i = 0; i <= 32; i += 3) {
                        int64_t X = tx * 32 + i, Y = ty * 32 + j;
                        double e = fabs(tri_level_surface(&a, l, ldexp((double)X, -(int)l), ldexp((double)Y, -(int)l)) -
                                        analytic_sample(&a, X, Y));
                        worst = fmax(worst, e);
                    }
        if (!(out[l] >= worst && out[l] <= worst * 1.04 + 1e-4))
            fail_msg("level %u: measured %.5f m, the largest gap is %.5f m", l, out[l], worst);
        assert_true(q99[l] <= out[l] && q99[l] > 0);
    }
    /* bad arguments */
    st_error e = {0};
    assert_int_equal(st_store_surface_error(s, 0, 8, out, &e), ST_ERR_INVALID);
    assert_int_equal(st_store_surface_error(s, 0.5, 0, out, &e), ST_ERR_INVALID);
    st_store_close(s);
}

static void test_bad_parameters(void **state) {
    (void)state;
    aworld *a = make_world(60);
    st_lod_view v = view_at(a, 3000, 3000, 20, 45, -30, 8000);
    st_lod_selection sel = {0};
    st_error err = {0};
    st_lod_params bad[] = {{.tau_px = -1}, {.tau_px = NAN}, {.lod_ratio = 1.2}, {.lod_ratio = 20}, {.morph_ratio = 1.5}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(st_lod_select(&a->w, &bad[i], &v, &sel, &err), ST_ERR_INVALID);
        assert_true(strlen(err.message) > 0);
    }
    st_lod_params ok = {0};
    a->w.grid = 12;
    assert_int_equal(st_lod_select(&a->w, &ok, &v, &sel, &err), ST_ERR_INVALID);
    a->w.grid = 128;
    assert_int_equal(st_lod_select(&a->w, &ok, &v, &sel, &err), ST_ERR_INVALID);
    a->w.grid = 16;
    st_lod_view nanv = v;
    nanv.eye[0] = NAN;
    assert_int_equal(st_lod_select(&a->w, &ok, &nanv, &sel, &err), ST_ERR_INVALID);
    st_lod_selection_free(&sel);
    free(a);
}

static void test_store_binding(void **state) {
    (void)state;
    st_store *s = NULL;
    st_error err = {0};
    assert_int_equal(st_store_open("gen:3:2049x2049", &s, &err), ST_OK);
    st_lod_world w;
    assert_int_equal(st_lod_world_of_store(s, NULL, 0, &w, &err), ST_OK);
    const st_store_info *in = st_store_get_info(s);
    assert_int_equal(w.levels, in->levels);
    assert_int_equal(w.tile_intervals, in->tile_size - 1);
    assert_int_equal(w.grid, 32);
    for (uint32_t l = 0; l < w.levels; l++) {
        st_tile_meta m;
        assert_true(st_store_tile_meta(s, (st_tile_key){l, 0, 0}, &m));
        assert_true(w.delta_bound[l] >= m.delta_m);
        if (l) assert_true(w.delta[l] >= w.delta[l - 1] && w.delta_bound[l] >= w.delta_bound[l - 1]);
    }
    /* node bounds: a node of level log2(s/N) + 1 is the footprint of a level-1 tile */
    float mn, mx;
    assert_true(w.bounds(&w, 4, 1, 0, &mn, &mx));
    st_tile_meta m1;
    assert_true(st_store_tile_meta(s, (st_tile_key){1, 1, 0}, &m1));
    assert_true(mn == m1.min_m && mx == m1.max_m);
    st_tile_key d;
    assert_true(w.drawable(&w, (st_tile_key){0, 1, 1}, &d) && d.level == 0); /* no residency: everything draws */
    st_lod_view v = st_lod_view_of(&(st_view){0});
    (void)v;
    st_store_close(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bands),
        cmocka_unit_test(test_covers_once_and_one_level),
        cmocka_unit_test(test_watertight_sweep),
        cmocka_unit_test(test_morph_continuous),
        cmocka_unit_test(test_culling_keeps_what_is_seen),
        cmocka_unit_test(test_missing_tiles_draw_their_ancestor),
        cmocka_unit_test(test_hole_pixels),
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_skirt_sides),
        cmocka_unit_test(test_one_level_warning),
        cmocka_unit_test(test_one_level_widened),
        cmocka_unit_test(test_coarse_frontier),
        cmocka_unit_test(test_measured_error),
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_store_binding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
