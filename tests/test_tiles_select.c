/* Tests of the tile selection against a generated store (gen:1:4097x4097, no disk): full detail near and
 * coarse far by the screen-space error rule, nothing behind the camera wanted, every region in view drawn
 * exactly once (no overlap, no gap) while tiles load and once they are all in, prefetch along the velocity,
 * a missing child drawn by its resident ancestor, and bad views refused. Tiles come from a cheap load
 * callback (the store gives the pyramid's geometry and index), except in the test of loading from the store. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata/tiles.h"
#include "support.h"

#define WORLD "gen:1:4097x4097"
#define MAX_CELLS 64

typedef struct world {
    st_store *store;
    const st_store_info *info;
    uint32_t levels, cells; /* level-0 tiles per side */
    double cell_m;          /* metres per level-0 tile */
} world;

static world open_world(void) {
    world w = {0};
    st_error err = {0};
    if (st_store_open(WORLD, &w.store, &err)) fail_msg("st_store_open: %s", err.message);
    w.info = st_store_get_info(w.store);
    w.levels = w.info->levels;
    uint32_t ny;
    st_store_level_tiles(w.store, 0, &w.cells, &ny);
    assert_int_equal(w.cells, ny);
    assert_true(w.cells >= 8 && w.cells <= MAX_CELLS);
    w.cell_m = (w.info->tile_size - 1) * w.info->spacing_x_m;
    return w;
}

/* ---- a cheap source that can be told to fail one tile ----------------------------------------------------- */

typedef struct source {
    st_tile_key broken;
} source;

static st_result cheap_load(void *user, st_tile_key key, st_tile **out, st_error *err) {
    const source *s = user;
    if (st_tile_key_equal(key, s->broken)) return st_error_set(err, ST_ERR_IO, "tile (%u, %u, %u) is broken", key.level, key.x, key.y);
    st_result r = st_tile_create(ST_TILE_DEM, ST_TILE_U16, 17, out, err);
    if (r == ST_OK) (*out)->key = key;
    return r;
}

static st_residency *residency(const world *w, source *src, uint32_t max_loads) {
    st_residency_desc d = {.store = w->store, .load = cheap_load, .load_user = src, .cpu_tiles = 1024,
                           .max_loads = max_loads};
    st_residency *r = NULL;
    st_error err = {0};
    if (st_residency_create(&d, &r, &err)) fail_msg("st_residency_create: %s", err.message);
    return r;
}

/* ---- views and an independent oracle of what is in view -------------------------------------------------- */

/* Eye a quarter of the way across the world, 30 m above its highest point, looking along +x and 15° down.
 * τ is the ρ of a level-2 tile half the world away, so that (with δ about doubling per level) level 2 is
 * kept in the distance and level 0 is wanted near the eye, whatever the generator's bounds. */
static st_tile_view oblique_view(const world *w) {
    double e = 2048 * w->info->spacing_x_m, pitch = -15 * M_PI / 180, fov = 60 * M_PI / 180;
    st_tile_meta m;
    assert_true(st_store_tile_meta(w->store, (st_tile_key){2, 0, 0}, &m));
    return (st_tile_view){
        .eye = {e * 0.5, e, w->info->max_m + 30},
        .forward = {cos(pitch), 0, sin(pitch)},
        .fov_y = fov,
        .aspect = 16.0 / 9.0,
        .viewport_h = 720,
        .tau_px = m.delta_m * 720 / (2 * tan(fov / 2)) / e,
    };
}

static void unit(const double v[3], double out[3]) {
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++) out[i] = v[i] / n;
}

/* Whether a point is inside the view's pyramid, in camera coordinates (another method than the selection's
 * planes: a point in view puts the box around it in view). */
static bool point_in_view(const st_tile_view *v, const double p[3]) {
    double f[3], z[3] = {0, 0, 1}, r[3], u[3], d[3];
    unit(v->forward, f);
    r[0] = f[1] * z[2] - f[2] * z[1], r[1] = f[2] * z[0] - f[0] * z[2], r[2] = f[0] * z[1] - f[1] * z[0];
    unit(r, r);
    u[0] = r[1] * f[2] - r[2] * f[1], u[1] = r[2] * f[0] - r[0] * f[2], u[2] = r[0] * f[1] - r[1] * f[0];
    for (int i = 0; i < 3; i++) d[i] = p[i] - v->eye[i];
    double df = d[0] * f[0] + d[1] * f[1] + d[2] * f[2], dr = d[0] * r[0] + d[1] * r[1] + d[2] * r[2],
           du = d[0] * u[0] + d[1] * u[1] + d[2] * u[2], ty = tan(v->fov_y / 2);
    return df > 0 && fabs(dr) <= df * ty * v->aspect && fabs(du) <= df * ty && (!v->far_m || df <= v->far_m);
}

/* The box of a tile from the store's index, in metres. */
static void tile_box(const world *w, st_tile_key k, double lo[3], double hi[3]) {
    st_tile_meta m;
    assert_true(st_store_tile_meta(w->store, k, &m));
    double s = w->cell_m * (double)(1u << k.level), ext = (double)(w->info->width - 1) * w->info->spacing_x_m;
    lo[0] = fmin(k.x * s, ext), hi[0] = fmin((k.x + 1) * s, ext);
    lo[1] = fmin(k.y * s, ext), hi[1] = fmin((k.y + 1) * s, ext);
    lo[2] = m.min_m, hi[2] = m.max_m;
}

static double box_distance(const double eye[3], const double lo[3], const double hi[3]) {
    double s = 0;
    for (int a = 0; a < 3; a++) {
        double d = eye[a] < lo[a] ? lo[a] - eye[a] : eye[a] > hi[a] ? eye[a] - hi[a] : 0;
        s += d * d;
    }
    return fmax(sqrt(s), 1);
}

static double rho(const world *w, const st_tile_view *v, st_tile_key k) {
    st_tile_meta m;
    assert_true(st_store_tile_meta(w->store, k, &m));
    double lo[3], hi[3];
    tile_box(w, k, lo, hi);
    return m.delta_m * v->viewport_h / (2 * box_distance(v->eye, lo, hi) * tan(v->fov_y / 2));
}

/* A level-0 cell is in view when one of its sample points (a 5×5 grid at three heights) is. */
static bool cell_in_view(const world *w, const st_tile_view *v, uint32_t cx, uint32_t cy) {
    double lo[3], hi[3];
    tile_box(w, (st_tile_key){0, cx, cy}, lo, hi);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            for (int h = 0; h < 3; h++) {
                double p[3] = {lo[0] + (hi[0] - lo[0]) * i / 4, lo[1] + (hi[1] - lo[1]) * j / 4,
                               lo[2] + (hi[2] - lo[2]) * h / 2};
                if (point_in_view(v, p)) return true;
            }
    return false;
}

/* Every cell covered at most once; every cell in view exactly once (when something can be drawn at all). */
static void expect_coverage(const world *w, const st_tile_view *v, const st_tile_selection *sel, const char *when) {
    uint8_t cover[MAX_CELLS][MAX_CELLS] = {{0}};
    for (uint32_t n = 0; n < sel->count; n++) {
        st_tile_key k = sel->keys[n];
        uint32_t span = 1u << k.level;
        for (uint32_t y = k.y * span; y < (k.y + 1) * span && y < w->cells; y++)
            for (uint32_t x = k.x * span; x < (k.x + 1) * span && x < w->cells; x++)
                if (++cover[y][x] > 1)
                    fail_msg("%s: cell (%u, %u) drawn twice (by tile (%u, %u, %u))", when, x, y, k.level, k.x, k.y);
    }
    if (!sel->count) return;
    for (uint32_t y = 0; y < w->cells; y++)
        for (uint32_t x = 0; x < w->cells; x++)
            if (!cover[y][x] && cell_in_view(w, v, x, y)) fail_msg("%s: cell (%u, %u) in view is not drawn", when, x, y);
}

static void select_checked(const world *w, st_residency *r, const st_tile_view *v, st_tile_selection *sel) {
    st_error err = {0};
    if (st_tile_select(w->store, r, v, sel, &err)) fail_msg("st_tile_select: %s", err.message);
}

/* Frames of select + update until nothing wanted is missing, checking the coverage every frame. */
static void frames_until_complete(const world *w, st_residency *r, const st_tile_view *v, st_tile_selection *sel) {
    double t0 = st_time_ms();
    for (int frame = 0;; frame++) {
        select_checked(w, r, v, sel);
        char when[64];
        snprintf(when, sizeof when, "frame %d (%u of %u missing)", frame, sel->missing, sel->wanted);
        expect_coverage(w, v, sel, when);
        if (!sel->missing && sel->count) break;
        st_residency_update(r);
        st_error err = {0};
        if (!st_residency_check(r, &err)) fail_msg("%s", err.message);
        if (st_time_ms() - t0 > 10000) fail_msg("the view never reached full detail (%u missing)", sel->missing);
        usleep(500);
    }
}

/* ---- tests --------------------------------------------------------------------------------------------------- */

/* Once everything is in: each drawn tile is within τ (or finest) and its parent was not; the nearest tiles
 * are finest, the farthest coarse. */
static void test_full_detail_near_coarse_far(void **state) {
    (void)state;
    world w = open_world();
    source src = {.broken = {99, 0, 0}};
    st_residency *r = residency(&w, &src, 0);
    st_tile_view v = oblique_view(&w);
    st_tile_selection sel = {0};
    frames_until_complete(&w, r, &v, &sel);
    assert_int_equal(sel.count, sel.wanted);
    double near_d = INFINITY, far_d = 0;
    uint32_t near_level = 99, far_level = 0;
    for (uint32_t n = 0; n < sel.count; n++) {
        st_tile_key k = sel.keys[n];
        double p = rho(&w, &v, k);
        if (k.level > 0 && p > v.tau_px) fail_msg("tile (%u, %u, %u) drawn at ρ = %.2f px > τ", k.level, k.x, k.y, p);
        if (k.level + 1 < w.levels) {
            double pp = rho(&w, &v, st_tile_key_parent(k));
            if (pp <= v.tau_px) fail_msg("tile (%u, %u, %u) drawn though its parent has ρ = %.2f px ≤ τ", k.level, k.x, k.y, pp);
        }
        double lo[3], hi[3];
        tile_box(&w, k, lo, hi);
        double d = box_distance(v.eye, lo, hi);
        if (d < near_d) near_d = d, near_level = k.level;
        if (d > far_d) far_d = d, far_level = k.level;
    }
    assert_int_equal(near_level, 0);
    assert_true(far_level >= 2);
    assert_true(sel.count > 8);
    st_tile_selection_free(&sel);
    st_residency_destroy(r);
    st_store_close(w.store);
}

/* Nothing wholly behind the camera is requested or drawn. */
static void test_nothing_behind_the_camera(void **state) {
    (void)state;
    world w = open_world();
    source src = {.broken = {99, 0, 0}};
    st_residency *r = residency(&w, &src, 0);
    st_tile_view v = oblique_view(&w);
    st_tile_selection sel = {0};
    frames_until_complete(&w, r, &v, &sel);
    uint32_t behind = 0;
    for (uint32_t l = 0; l < w.levels; l++) {
        uint32_t nx, ny;
        st_store_level_tiles(w.store, l, &nx, &ny);
        for (uint32_t y = 0; y < ny; y++)
            for (uint32_t x = 0; x < nx; x++) {
                st_tile_key k = {l, x, y};
                double lo[3], hi[3];
                tile_box(&w, k, lo, hi);
                /* behind: the box's farthest corner along the view direction is behind the eye */
                double far = 0;
                for (int a = 0; a < 3; a++) far += (v.forward[a] >= 0 ? hi[a] : lo[a]) * v.forward[a] - v.eye[a] * v.forward[a];
                if (far >= 0) continue;
                behind++;
                if (st_residency_state(r, k) != ST_TILE_UNLOADED)
                    fail_msg("tile (%u, %u, %u) behind the camera was requested", l, x, y);
                for (uint32_t n = 0; n < sel.count; n++)
                    if (st_tile_key_equal(sel.keys[n], k)) fail_msg("tile (%u, %u, %u) behind the camera is drawn", l, x, y);
            }
    }
    assert_true(behind > 10);
    st_tile_selection_free(&sel);
    st_residency_destroy(r);
    st_store_close(w.store);
}

/* While tiles arrive one at a time (one load in flight) every frame covers the view exactly once; so does a
 * steep view over a corner of the world. */
static void test_each_region_drawn_exactly_once(void **state) {
    (void)state;
    world w = open_world();
    source src = {.broken = {99, 0, 0}};
    st_residency *r = residency(&w, &src, 1);
    st_tile_view v = oblique_view(&w);
    st_tile_selection sel = {0};
    frames_until_complete(&w, r, &v, &sel); /* checks every frame on the way */
    st_tile_view steep = v;
    double pitch = -60 * M_PI / 180, yaw = 40 * M_PI / 180;
    steep.eye[0] = steep.eye[1] = 300 * w.info->spacing_x_m;
    steep.eye[2] = w.info->max_m + 400;
    steep.forward[0] = cos(pitch) * cos(yaw), steep.forward[1] = cos(pitch) * sin(yaw), steep.forward[2] = sin(pitch);
    steep.tau_px /= 4;
    frames_until_complete(&w, r, &steep, &sel);
    assert_true(sel.count > 4);
    st_tile_selection_free(&sel);
    st_residency_destroy(r);
    st_store_close(w.store);
}

/* Requests made by a moving eye that a still one does not make lie ahead, along the velocity. */
static void test_prefetch_along_the_velocity(void **state) {
    (void)state;
    world w = open_world();
    source src = {.broken = {99, 0, 0}};
    st_tile_view still = oblique_view(&w), moving = still;
    moving.velocity[0] = 0.25 * 4096 * w.info->spacing_x_m; /* a quarter of the world per second, along +x */
    moving.lookahead_s = 1;
    st_residency *rs = residency(&w, &src, 0), *rm = residency(&w, &src, 0);
    st_tile_selection sel = {0};
    select_checked(&w, rs, &still, &sel);
    select_checked(&w, rm, &moving, &sel);
    uint32_t extra = 0, fewer = 0;
    for (uint32_t l = 0; l < w.levels; l++) {
        uint32_t nx, ny;
        st_store_level_tiles(w.store, l, &nx, &ny);
        for (uint32_t y = 0; y < ny; y++)
            for (uint32_t x = 0; x < nx; x++) {
                st_tile_key k = {l, x, y};
                bool a = st_residency_state(rs, k) != ST_TILE_UNLOADED, b = st_residency_state(rm, k) != ST_TILE_UNLOADED;
                if (a && !b) fewer++;
                if (!b || a) continue;
                extra++;
                double lo[3], hi[3];
                tile_box(&w, k, lo, hi);
                if (hi[0] <= still.eye[0])
                    fail_msg("tile (%u, %u, %u), wanted only by the moving eye, lies behind it (x ≤ %.0f m)", l, x, y, hi[0]);
            }
    }
    assert_true(extra > 0);
    assert_int_equal(fewer, 0); /* the lookahead only adds */
    st_tile_selection_free(&sel);
    st_residency_destroy(rs);
    st_residency_destroy(rm);
    st_store_close(w.store);
}

/* A tile that cannot load is drawn by its parent, which then also stands in for its siblings. */
static void test_missing_child_drawn_by_its_ancestor(void **state) {
    (void)state;
    world w = open_world();
    st_tile_view v = oblique_view(&w);
    /* the finest tile under the eye is wanted at level 0 */
    st_tile_key broken = {0, (uint32_t)(v.eye[0] / w.cell_m), (uint32_t)(v.eye[1] / w.cell_m)};
    source src = {.broken = broken};
    st_residency *r = residency(&w, &src, 0);
    st_tile_selection sel = {0};
    double t0 = st_time_ms();
    st_tile_key parent = st_tile_key_parent(broken);
    for (;;) {
        select_checked(&w, r, &v, &sel);
        expect_coverage(&w, &v, &sel, "with a broken tile");
        if (sel.missing == 1 && st_residency_state(r, broken) == ST_TILE_FAILED &&
            st_residency_state(r, parent) == ST_TILE_RESIDENT)
            break;
        st_residency_update(r);
        if (st_time_ms() - t0 > 10000) fail_msg("never settled (%u missing)", sel.missing);
        usleep(500);
    }
    bool parent_drawn = false;
    for (uint32_t n = 0; n < sel.count; n++) {
        st_tile_key k = sel.keys[n];
        if (st_tile_key_equal(k, parent)) parent_drawn = true;
        if (k.level == 0 && st_tile_key_equal(st_tile_key_parent(k), parent))
            fail_msg("tile (0, %u, %u) is drawn beside its parent", k.x, k.y);
    }
    assert_true(parent_drawn);
    st_tile_key got;
    assert_true(st_residency_resident_ancestor(r, broken, &got));
    assert_true(st_tile_key_equal(got, parent));
    st_tile_selection_free(&sel);
    st_residency_destroy(r);
    st_store_close(w.store);
}

static void test_bad_views_are_refused(void **state) {
    (void)state;
    world w = open_world();
    source src = {.broken = {99, 0, 0}};
    st_residency *r = residency(&w, &src, 0);
    st_tile_view good = oblique_view(&w), bad[8];
    for (int i = 0; i < 8; i++) bad[i] = good;
    bad[0].eye[0] = NAN;
    bad[1].forward[0] = bad[1].forward[1] = bad[1].forward[2] = 0;
    bad[2].fov_y = 0;
    bad[3].tau_px = 0;
    bad[4].aspect = -1;
    bad[5].viewport_h = 0;
    bad[6].velocity[2] = INFINITY;
    bad[7].far_m = -5;
    st_tile_selection sel = {0};
    for (int i = 0; i < 8; i++) {
        st_error err = {0};
        assert_int_equal(st_tile_select(w.store, r, &bad[i], &sel, &err), ST_ERR_INVALID);
        assert_true(strlen(err.message) > 0);
    }
    st_tile_selection_free(&sel);
    st_residency_destroy(r);
    st_store_close(w.store);
}

/* A τ far too small for a huge world is refused with a message instead of walking millions of tiles. */
static void test_absurd_detail_is_refused(void **state) {
    (void)state;
    st_store *s = NULL;
    st_error err = {0};
    if (st_store_open("gen:1:262145x262145", &s, &err)) fail_msg("st_store_open: %s", err.message);
    source src = {.broken = {99, 0, 0}};
    st_residency_desc d = {.store = s, .load = cheap_load, .load_user = &src};
    st_residency *r = NULL;
    assert_int_equal(st_residency_create(&d, &r, &err), ST_OK);
    const st_store_info *info = st_store_get_info(s);
    double half = 131072 * info->spacing_x_m;
    st_tile_view v = {.eye = {half, half, info->max_m + 4 * half}, .forward = {0, 0, -1}, .fov_y = 1.5, .aspect = 1,
                      .viewport_h = 1080, .tau_px = 1e-6};
    st_tile_selection sel = {0};
    assert_int_equal(st_tile_select(s, r, &v, &sel, &err), ST_ERR_INVALID);
    assert_non_null(strstr(err.message, "too small"));
    st_tile_selection_free(&sel);
    st_residency_destroy(r);
    st_store_close(s);
}

/* Without a load function the manager reads the store's own tiles (on the job system); a key outside the
 * store is Failed at once. */
static void test_loads_from_the_store(void **state) {
    (void)state;
    world w = open_world();
    st_residency_desc d = {.store = w.store, .cpu_tiles = 16};
    st_residency *r = NULL;
    st_error err = {0};
    assert_int_equal(st_residency_create(&d, &r, &err), ST_OK);
    st_tile_key keys[3] = {{w.levels - 1, 0, 0}, {1, 2, 3}, {0, w.cells - 1, 5}};
    double t0 = st_time_ms();
    for (;;) {
        uint32_t in = 0;
        for (int i = 0; i < 3; i++) in += st_residency_request(r, keys[i], 1) == ST_TILE_RESIDENT;
        if (in == 3) break;
        st_residency_update(r);
        if (!st_residency_check(r, &err)) fail_msg("%s", err.message);
        if (st_time_ms() - t0 > 10000) fail_msg("store tiles never arrived");
        usleep(1000);
    }
    for (int i = 0; i < 3; i++) {
        const st_tile *t = st_residency_tile(r, keys[i], NULL);
        st_tile *direct = NULL;
        assert_int_equal(st_store_read_tile(w.store, keys[i], &direct, &err), ST_OK);
        assert_true(st_tile_key_equal(t->key, keys[i]));
        assert_int_equal(t->data_bytes, direct->data_bytes);
        assert_memory_equal(t->data, direct->data, t->data_bytes);
        st_tile_destroy(direct);
    }
    assert_int_equal(st_residency_request(r, (st_tile_key){0, w.cells, 0}, 1), ST_TILE_FAILED);
    assert_int_equal(st_residency_request(r, (st_tile_key){w.levels, 0, 0}, 1), ST_TILE_FAILED);
    st_residency_destroy(r);
    st_store_close(w.store);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_detail_near_coarse_far),
        cmocka_unit_test(test_nothing_behind_the_camera),
        cmocka_unit_test(test_each_region_drawn_exactly_once),
        cmocka_unit_test(test_prefetch_along_the_velocity),
        cmocka_unit_test(test_missing_child_drawn_by_its_ancestor),
        cmocka_unit_test(test_bad_views_are_refused),
        cmocka_unit_test(test_absurd_detail_is_refused),
        cmocka_unit_test(test_loads_from_the_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
