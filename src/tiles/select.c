/* Choosing tiles for a camera: the quadtree walk by screen-space error ρ against τ with AABB frustum culling,
 * the requests it makes (the wanted tiles and the path down to them, prefetch children, the view lookahead_s
 * ahead along the velocity) and a draw list that covers what is in view once, never leaving a hole. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/tiles.h"

#define MAX_VISITS (1u << 18) /* nodes one walk may visit: far more than any sane τ needs */
/* Priorities, larger first. A tile the view wants (or passes on the way down) gets the ρ/τ of its parent: the
 * error of what is drawn while it is missing (its own ρ says little: level 0 has δ = 0). That is > 1, since the
 * parent split, and largest for coarse tiles, so detail arrives level by level. Then the children of tiles
 * close to splitting get their parent's ρ/τ in (0.5, 1], and what the eye will want after lookahead_s gets
 * [0.25, 0.5). The pinned root comes before everything. */
#define ROOT_PRIORITY 1e30f

typedef struct walk {
    st_store *store;
    st_residency *r;
    st_tile_selection *sel; /* NULL: requests only (the lookahead) */
    double eye[3];
    double planes[6][4]; /* inward: n·p + d ≥ 0 */
    int plane_count;
    double k;          /* h / (2·tan(θv/2)): ρ = δ·k / d */
    double tau;
    double cell_x, cell_y; /* metres per tile at level 0 */
    double extent_x, extent_y;
    uint32_t visits;
    st_result failed;
} walk;

static void normalize(double v[3]) {
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    v[0] /= n, v[1] /= n, v[2] /= n;
}

static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void set_plane(walk *w, const double n[3], double d) {
    double *p = w->planes[w->plane_count++];
    p[0] = n[0], p[1] = n[1], p[2] = n[2], p[3] = d;
}

/* The four side planes through the eye, the plane through the eye facing forward, and the far plane. */
static void build_frustum(walk *w, const st_tile_view *v) {
    double f[3] = {v->forward[0], v->forward[1], v->forward[2]}, up[3] = {0, 0, 1}, right[3], u[3];
    normalize(f);
    cross(f, up, right);
    if (right[0] * right[0] + right[1] * right[1] + right[2] * right[2] < 1e-18) right[0] = 1, right[1] = right[2] = 0;
    normalize(right);
    cross(right, f, u);
    double ty = tan(v->fov_y / 2), tx = ty * v->aspect;
    w->plane_count = 0;
    for (int side = -1; side <= 1; side += 2) {
        double nx[3], ny[3];
        for (int i = 0; i < 3; i++) nx[i] = tx * f[i] + side * right[i], ny[i] = ty * f[i] + side * u[i];
        set_plane(w, nx, -(nx[0] * w->eye[0] + nx[1] * w->eye[1] + nx[2] * w->eye[2]));
        set_plane(w, ny, -(ny[0] * w->eye[0] + ny[1] * w->eye[1] + ny[2] * w->eye[2]));
    }
    double fe = f[0] * w->eye[0] + f[1] * w->eye[1] + f[2] * w->eye[2];
    set_plane(w, f, -fe);
    if (v->far_m > 0) {
        double b[3] = {-f[0], -f[1], -f[2]};
        set_plane(w, b, fe + v->far_m);
    }
}

typedef struct box {
    double lo[3], hi[3];
} box;

/* A box partly inside is kept: it is outside only when wholly behind one plane. */
static bool box_visible(const walk *w, const box *b) {
    for (int i = 0; i < w->plane_count; i++) {
        const double *p = w->planes[i];
        double s = p[3];
        for (int a = 0; a < 3; a++) s += p[a] * (p[a] >= 0 ? b->hi[a] : b->lo[a]);
        if (s < 0) return false;
    }
    return true;
}

static double box_distance(const walk *w, const box *b) {
    double s = 0;
    for (int a = 0; a < 3; a++) {
        double d = w->eye[a] < b->lo[a] ? b->lo[a] - w->eye[a] : w->eye[a] > b->hi[a] ? w->eye[a] - b->hi[a] : 0;
        s += d * d;
    }
    double d = sqrt(s);
    return d < 1 ? 1 : d;
}

/* The tile's box in metres (heights from the index) and its ρ; false when the store has no such tile. */
static bool tile_box(const walk *w, st_tile_key k, box *b, double *rho) {
    st_tile_meta m;
    if (!st_store_tile_meta(w->store, k, &m)) return false;
    double sx = ldexp(w->cell_x, (int)k.level), sy = ldexp(w->cell_y, (int)k.level);
    b->lo[0] = fmin(k.x * sx, w->extent_x), b->hi[0] = fmin((k.x + 1) * sx, w->extent_x);
    b->lo[1] = fmin(k.y * sy, w->extent_y), b->hi[1] = fmin((k.y + 1) * sy, w->extent_y);
    b->lo[2] = m.min_m, b->hi[2] = m.max_m;
    *rho = m.delta_m * w->k / box_distance(w, b);
    return true;
}

static bool drawable(const walk *w, st_tile_key k) {
    uint32_t slot = ST_TILE_NO_SLOT;
    return st_residency_tile(w->r, k, &slot) && slot != ST_TILE_NO_SLOT;
}

static bool emit(walk *w, st_tile_key k) {
    st_tile_selection *sel = w->sel;
    if (sel->count == sel->cap) {
        uint32_t cap = sel->cap ? 2 * sel->cap : 256;
        st_tile_key *keys = realloc(sel->keys, cap * sizeof *keys);
        if (!keys) {
            w->failed = ST_ERR_NOMEM;
            return false;
        }
        sel->keys = keys;
        sel->cap = cap;
    }
    sel->keys[sel->count++] = k;
    return true;
}

/* The request of a tile the view wants whose parent has ratio ρ/τ (see the priorities above). */
static float wanted_priority(const walk *w, double parent_ratio) {
    if (w->sel) return parent_ratio > 1e6 ? 1e6f : (float)parent_ratio;
    return (float)(0.5 - 0.25 / fmax(parent_ratio, 1.0)); /* the lookahead */
}

/* Prefetch: the children of a tile close to splitting, below every tile the view wants. */
static void prefetch_children(walk *w, st_tile_key k, double ratio) {
    for (uint32_t c = 0; c < 4; c++) {
        st_tile_key ck = {k.level - 1, 2 * k.x + (c & 1), 2 * k.y + (c >> 1)};
        box b;
        double rho;
        if (tile_box(w, ck, &b, &rho) && box_visible(w, &b)) st_residency_request(w->r, ck, (float)fmin(ratio, 1.0));
    }
}

/* Visits a tile: splits it while ρ > τ, requests what it wants (the path down too: the coarser tiles a missing
 * one falls back to), and appends what to draw. Returns whether its region in view is drawn (by it or its
 * descendants); when not, the caller draws an ancestor instead. */
static bool visit(walk *w, st_tile_key k, const box *b, double rho, double parent_ratio) {
    if (++w->visits > MAX_VISITS) {
        w->failed = ST_ERR_INVALID;
        return false;
    }
    if (!box_visible(w, b)) return true; /* nothing of it is in view */
    double ratio = rho / w->tau;
    st_residency_request(w->r, k, wanted_priority(w, parent_ratio));
    if (rho <= w->tau || k.level == 0) {
        if (!w->sel) return true;
        if (k.level > 0 && rho > w->tau / 2) prefetch_children(w, k, ratio);
        w->sel->wanted++;
        if (drawable(w, k)) return emit(w, k);
        w->sel->missing++;
        return false;
    }
    uint32_t mark = w->sel ? w->sel->count : 0;
    bool covered = true;
    for (uint32_t c = 0; c < 4 && !w->failed; c++) {
        st_tile_key ck = {k.level - 1, 2 * k.x + (c & 1), 2 * k.y + (c >> 1)};
        box cb;
        double crho;
        if (tile_box(w, ck, &cb, &crho) && !visit(w, ck, &cb, crho, ratio)) covered = false;
    }
    if (covered || !w->sel || w->failed) return covered;
    /* A child is missing: this tile replaces all four (drawing the others too would overlap it). */
    if (!drawable(w, k)) return false;
    w->sel->count = mark;
    return emit(w, k);
}

static bool finite3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

static st_result check_view(const st_tile_view *v, st_error *err) {
    if (!finite3(v->eye) || !finite3(v->velocity) || !finite3(v->forward))
        return st_error_set(err, ST_ERR_INVALID, "tile selection: the eye, velocity and forward must be finite");
    if (v->forward[0] == 0 && v->forward[1] == 0 && v->forward[2] == 0)
        return st_error_set(err, ST_ERR_INVALID, "tile selection: no view direction");
    if (!(v->fov_y > 0 && v->fov_y < 3.1))
        return st_error_set(err, ST_ERR_INVALID, "tile selection: field of view %g rad is outside (0, 3.1)", v->fov_y);
    if (!(v->aspect > 0 && v->aspect < 1e3))
        return st_error_set(err, ST_ERR_INVALID, "tile selection: aspect %g is outside (0, 1000)", v->aspect);
    if (!v->viewport_h || v->viewport_h > 1u << 16)
        return st_error_set(err, ST_ERR_INVALID, "tile selection: viewport height %u is outside 1..65536", v->viewport_h);
    if (!(v->tau_px > 0 && v->tau_px < 1e6))
        return st_error_set(err, ST_ERR_INVALID, "tile selection: τ %g px is outside (0, 10^6)", v->tau_px);
    if (!(v->far_m >= 0 && v->far_m <= 1e12) || !(v->lookahead_s >= 0 && v->lookahead_s <= 1e3))
        return st_error_set(err, ST_ERR_INVALID, "tile selection: far %g m or lookahead %g s is out of range", v->far_m,
                            v->lookahead_s);
    return ST_OK;
}

/* One walk from the root for an eye position. */
static st_result walk_from(walk *w, const st_tile_view *v, const double eye[3], uint32_t levels, st_error *err) {
    memcpy(w->eye, eye, sizeof w->eye);
    build_frustum(w, v);
    w->visits = 0;
    w->failed = ST_OK;
    st_tile_key root = {levels - 1, 0, 0};
    box b;
    double rho;
    if (tile_box(w, root, &b, &rho)) visit(w, root, &b, rho, ROOT_PRIORITY);
    if (w->failed == ST_ERR_INVALID)
        return st_error_set(err, ST_ERR_INVALID, "tile selection: the view wants more than %u tiles (τ = %g px is too "
                            "small for this world)", MAX_VISITS, v->tau_px);
    if (w->failed) return st_error_set(err, w->failed, "tile selection: out of memory");
    return ST_OK;
}

st_result st_tile_select(st_store *s, st_residency *r, const st_tile_view *v, st_tile_selection *sel,
                         st_error *err) {
    if (!s || !r || !v || !sel) return st_error_set(err, ST_ERR_INVALID, "tile selection: a store, a residency "
                                                    "manager, a view and a selection are needed");
    sel->count = sel->wanted = sel->missing = 0;
    st_result res = check_view(v, err);
    if (res) return res;
    const st_store_info *info = st_store_get_info(s);
    if (!info || !info->levels || info->levels > ST_STORE_MAX_LEVELS || info->tile_size < 2)
        return st_error_set(err, ST_ERR_INVALID, "tile selection: the store has no usable pyramid");
    uint32_t intervals = info->kind == ST_TILE_DEM ? info->tile_size - 1 : info->tile_size;
    double spx = info->spacing_x_m > 0 ? info->spacing_x_m : 1, spy = info->spacing_y_m > 0 ? info->spacing_y_m : 1;
    uint64_t wx = info->kind == ST_TILE_DEM && info->width ? info->width - 1 : info->width;
    uint64_t wy = info->kind == ST_TILE_DEM && info->height ? info->height - 1 : info->height;
    walk w = {
        .store = s,
        .r = r,
        .k = v->viewport_h / (2 * tan(v->fov_y / 2)),
        .tau = v->tau_px,
        .cell_x = intervals * spx,
        .cell_y = intervals * spy,
        .extent_x = (double)wx * spx,
        .extent_y = (double)wy * spy,
    };
    /* The pinned root first: every fallback ends there, so the view is never a hole once it is in. */
    st_residency_request(r, (st_tile_key){info->levels - 1, 0, 0}, ROOT_PRIORITY);
    w.sel = sel;
    res = walk_from(&w, v, v->eye, info->levels, err);
    if (res) return res;
    double ahead = v->lookahead_s > 0 ? v->lookahead_s : 1.0;
    if (v->velocity[0] || v->velocity[1] || v->velocity[2]) {
        double eye[3];
        for (int i = 0; i < 3; i++) eye[i] = v->eye[i] + v->velocity[i] * ahead;
        w.sel = NULL;
        res = walk_from(&w, v, eye, info->levels, err);
    }
    return res;
}

void st_tile_selection_free(st_tile_selection *sel) {
    if (!sel) return;
    free(sel->keys);
    memset(sel, 0, sizeof *sel);
}
