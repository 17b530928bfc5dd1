/* The CDLOD quadtree selection on the CPU: each level's distance range from τ and the LOD ratio, the morph
 * bands, Strugar's recursive selection of nodes and quadrants with frustum culling and the one-level check,
 * skirt sides, the vertex morph's C twin, and the binding of a tile store (index bounds, residency). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/lod.h"

#define MAX_VISITS (1u << 22)  /* nodes one selection may visit: far more than any sane τ needs */
#define ONE_LEVEL_MARGIN 1.5   /* range_l + 1.5 × a level-l node's diagonal must not pass morph_start_{l+1} */
#define MORPH_END_PULL 0.01    /* CDLOD pulls the morph's end 1 % toward its start */

static double param(double v, double def) { return v > 0 ? v : def; }

st_lod_view st_lod_view_of(const st_view *v) {
    st_lod_view o;
    for (int k = 0; k < 3; k++) {
        o.eye[k] = v->origin[k];
        o.forward[k] = v->forward[k];
        o.right[k] = v->screen_right[k];
        o.up[k] = v->screen_up[k];
    }
    o.focal_px = v->focal_px;
    o.width_px = v->width;
    o.height_px = v->height;
    o.near_m = v->near_dist;
    o.far_m = v->far_dist;
    return o;
}

static double node_size_x(const st_lod_world *w, uint32_t level) {
    return ldexp((double)w->grid * w->spacing_x, (int)level);
}
static double node_size_y(const st_lod_world *w, uint32_t level) {
    return ldexp((double)w->grid * w->spacing_y, (int)level);
}

/* The bands with range_0 at least min_base (0: the least the one-level rule allows). */
static void bands_from(const st_lod_world *w, const st_lod_params *p, double focal_px, double far_m, double min_base,
                       st_lod_band bands[ST_LOD_MAX_LEVELS]) {
    uint32_t L = w->levels;
    double tau = param(p->tau_px, 1.0), r = param(p->lod_ratio, ST_LOD_DEFAULT_RATIO);
    double m = param(p->morph_ratio, ST_LOD_DEFAULT_MORPH);
    double need[ST_LOD_MAX_LEVELS + 1] = {0}, diag[ST_LOD_MAX_LEVELS];
    /* need[l]: the distance from which a level-l node's error δ_l projects to at most τ pixels */
    for (uint32_t l = 0; l < L; l++) {
        need[l] = focal_px * w->delta[l] / tau;
        diag[l] = hypot(node_size_x(w, l), node_size_y(w, l));
    }
    double base = min_base;
    for (int iter = 0; iter < 400; iter++) {
        double prev = 0;
        for (uint32_t l = 0; l < L; l++) {
            double range;
            if (l == 0) range = fmax(l + 1 < L ? need[1] : 0, base);
            else range = fmax(l + 1 < L ? need[l + 1] : 0, r * bands[l - 1].range);
            if (l + 1 == L) range = fmax(range, far_m);
            bands[l].range = range;
            bands[l].morph_start = prev + (range - prev) * m;
            bands[l].morph_end = range - MORPH_END_PULL * (range - bands[l].morph_start);
            prev = bands[l].morph_start;
        }
        /* the coarsest level has no coarser grid to morph into */
        bands[L - 1].morph_start = bands[L - 1].morph_end = INFINITY;
        bool ok = true;
        for (uint32_t l = 0; l + 1 < L && ok; l++)
            ok = bands[l].range + ONE_LEVEL_MARGIN * diag[l] <= bands[l + 1].morph_start;
        if (ok) break;
        base = base > 0 ? base * 1.25 : diag[0];
    }
}

void st_lod_bands(const st_lod_world *w, const st_lod_params *p, double focal_px, double far_m,
                  st_lod_band bands[ST_LOD_MAX_LEVELS]) {
    bands_from(w, p, focal_px, far_m, 0, bands);
}

void st_lod_widening_bands(const st_lod_world *w, const st_lod_params *p, double focal_px, double far_m,
                           st_lod_band bands[ST_LOD_ONE_LEVEL_RETRIES + 1][ST_LOD_MAX_LEVELS]) {
    double min_base = 0;
    for (uint32_t a = 0; a <= ST_LOD_ONE_LEVEL_RETRIES; a++) {
        bands_from(w, p, focal_px, far_m, min_base, bands[a]);
        min_base = bands[a][0].range * 1.25; /* as st_lod_select widens */
    }
}

double st_lod_morph_k(const st_lod_band *b, double d) {
    double span = b->morph_end - b->morph_start;
    if (!(span > 0)) return d >= b->morph_end ? 1.0 : 0.0;
    double k = (d - b->morph_start) / span;
    return k < 0 ? 0 : k > 1 ? 1 : k;
}

double st_lod_skirt_depth(const st_lod_world *w, uint32_t level) {
    uint32_t coarser = level + 1 < w->levels ? level + 1 : level;
    return 2.0 * w->delta[coarser] + ldexp(fmax(w->spacing_x, w->spacing_y), (int)level);
}

void st_lod_node_corner(const st_lod_world *w, const st_lod_node *n, double corner[2], double *cell_x,
                        double *cell_y) {
    corner[0] = (double)n->x * node_size_x(w, n->level);
    corner[1] = (double)n->y * node_size_y(w, n->level);
    *cell_x = ldexp(w->spacing_x, (int)n->level);
    *cell_y = ldexp(w->spacing_y, (int)n->level);
}

st_result st_lod_check(const st_lod_world *w, const st_lod_params *p, st_error *err) {
    if (!w->levels || w->levels > ST_LOD_MAX_LEVELS)
        return st_error_set(err, ST_ERR_INVALID, "lod: %u levels (1..%u)", w->levels, ST_LOD_MAX_LEVELS);
    if (!st_is_pow2(w->tile_intervals) || !st_is_pow2(w->grid) || w->grid < 4 || w->grid > w->tile_intervals)
        return st_error_set(err, ST_ERR_INVALID, "lod: a grid of %u quads per node in tiles of %u intervals (want a "
                            "power of two from 4 to the tile's)", w->grid, w->tile_intervals);
    if (w->width < 2 || w->height < 2 || !(w->spacing_x > 0) || !(w->spacing_y > 0) || !w->bounds)
        return st_error_set(err, ST_ERR_INVALID, "lod: a world of %llux%llu samples %g x %g m apart", 
                            (unsigned long long)w->width, (unsigned long long)w->height, w->spacing_x, w->spacing_y);
    for (uint32_t l = 0; l < w->levels; l++)
        if (!(w->delta[l] >= 0 && isfinite(w->delta[l])))
            return st_error_set(err, ST_ERR_INVALID, "lod: level %u has δ %g", l, w->delta[l]);
    if (p->tau_px != 0 && !(p->tau_px > 0 && p->tau_px <= 1e4))
        return st_error_set(err, ST_ERR_INVALID, "lod: τ %g px is outside (0, 10000]", p->tau_px);
    if (p->lod_ratio != 0 && !(p->lod_ratio >= 1.5 && p->lod_ratio <= 16))
        return st_error_set(err, ST_ERR_INVALID, "lod: LOD ratio %g is outside 1.5..16", p->lod_ratio);
    if (p->morph_ratio != 0 && !(p->morph_ratio >= 0.05 && p->morph_ratio <= 0.95))
        return st_error_set(err, ST_ERR_INVALID, "lod: morph start ratio %g is outside 0.05..0.95", p->morph_ratio);
    return ST_OK;
}

/* ---- the walk --------------------------------------------------------------------------------------------- */

typedef struct walk {
    const st_lod_world *w;
    const st_lod_params *p;
    st_lod_selection *sel;
    double eye[3];
    double planes[6][4]; /* inward: n·p + d ≥ 0 */
    double extent[2];    /* the world in metres */
    uint64_t nodes_x[ST_LOD_MAX_LEVELS], nodes_y[ST_LOD_MAX_LEVELS];
    double diag[ST_LOD_MAX_LEVELS];
    bool failed;
    st_result why;
} walk;

typedef struct box {
    double lo[3], hi[3];
} box;

enum { OUTSIDE = -1 /* handled: nothing in view */, NOT_HANDLED = 0, HANDLED = 1 };

static void set_plane(double plane[4], const double n[3], const double eye[3], double offset) {
    plane[0] = n[0], plane[1] = n[1], plane[2] = n[2];
    plane[3] = -(n[0] * eye[0] + n[1] * eye[1] + n[2] * eye[2]) + offset;
}

/* The four sides through the eye and the image's edges (pixel rays all pass inside them), near and far. */
void st_lod_frustum(const st_lod_view *v, double planes[6][4]) {
    const double *f = v->forward, *r = v->right, *u = v->up;
    double hw = 0.5 * v->width_px, hh = 0.5 * v->height_px, fo = v->focal_px, n[3];
    for (int s = -1, i = 0; s <= 1; s += 2, i++) {
        for (int a = 0; a < 3; a++) n[a] = hw * f[a] + s * fo * r[a];
        set_plane(planes[i], n, v->eye, 0);
        for (int a = 0; a < 3; a++) n[a] = hh * f[a] + s * fo * u[a];
        set_plane(planes[2 + i], n, v->eye, 0);
    }
    set_plane(planes[4], f, v->eye, -v->near_m);
    for (int a = 0; a < 3; a++) n[a] = -f[a];
    set_plane(planes[5], n, v->eye, v->far_m);
}

/* -1: wholly outside one plane; 1: wholly inside all; 0: crossing. */
static int box_frustum(const walk *k, const box *b) {
    bool inside = true;
    for (int i = 0; i < 6; i++) {
        const double *p = k->planes[i];
        double hi = p[3], lo = p[3];
        for (int a = 0; a < 3; a++) {
            hi += p[a] * (p[a] >= 0 ? b->hi[a] : b->lo[a]);
            lo += p[a] * (p[a] >= 0 ? b->lo[a] : b->hi[a]);
        }
        if (hi < 0) return -1;
        if (lo < 0) inside = false;
    }
    return inside ? 1 : 0;
}

static double box_distance(const double eye[3], const box *b) {
    double s = 0;
    for (int a = 0; a < 3; a++) {
        double d = eye[a] < b->lo[a] ? b->lo[a] - eye[a] : eye[a] > b->hi[a] ? eye[a] - b->hi[a] : 0;
        s += d * d;
    }
    return sqrt(s);
}

static double box_farthest(const double eye[3], const box *b) {
    double s = 0;
    for (int a = 0; a < 3; a++) {
        double d = fmax(fabs(eye[a] - b->lo[a]), fabs(eye[a] - b->hi[a]));
        s += d * d;
    }
    return sqrt(s);
}

/* The node's footprint in metres, clamped to the world, and its heights; false when the bounds are unknown. */
static bool node_box(const walk *k, uint32_t level, uint64_t x, uint64_t y, box *b) {
    const st_lod_world *w = k->w;
    float mn, mx;
    if (!w->bounds(w, level, x, y, &mn, &mx)) return false;
    double sx = node_size_x(w, level), sy = node_size_y(w, level);
    b->lo[0] = fmin((double)x * sx, k->extent[0]), b->hi[0] = fmin((double)(x + 1) * sx, k->extent[0]);
    b->lo[1] = fmin((double)y * sy, k->extent[1]), b->hi[1] = fmin((double)(y + 1) * sy, k->extent[1]);
    b->lo[2] = mn, b->hi[2] = mx;
    return true;
}

static bool push_node(walk *k, const st_lod_node *n) {
    st_lod_selection *s = k->sel;
    if (s->count == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 512;
        st_lod_node *nodes = realloc(s->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes) {
            k->failed = true;
            k->why = ST_ERR_NOMEM;
            return false;
        }
        s->nodes = nodes;
        s->cap = cap;
    }
    s->nodes[s->count++] = *n;
    return true;
}

/* Keeps the box of a missing node's quadrants for st_lod_hole_pixels (a failed allocation keeps fewer: the
 * count in `missing` stays exact, and the hole figure is then a bound of what was kept). */
static void keep_missing(walk *k, uint32_t level, uint64_t x, uint64_t y, uint8_t quads, const box *b) {
    st_lod_selection *s = k->sel;
    if (s->missing_kept == s->missing_cap) {
        uint32_t cap = s->missing_cap ? 2 * s->missing_cap : 64;
        st_lod_box *boxes = realloc(s->missing_boxes, (size_t)cap * sizeof *boxes);
        if (!boxes) return;
        s->missing_boxes = boxes;
        s->missing_cap = cap;
    }
    const st_lod_world *w = k->w;
    double sx = node_size_x(w, level), sy = node_size_y(w, level);
    st_lod_box o = {.lo = {INFINITY, INFINITY, b->lo[2]}, .hi = {-INFINITY, -INFINITY, b->hi[2]}};
    for (uint32_t q = 0; q < ST_LOD_QUADRANTS; q++) {
        if (!(quads & (1u << q))) continue;
        double qx0 = ((double)x + 0.5 * (q & 1)) * sx, qy0 = ((double)y + 0.5 * (q >> 1)) * sy;
        o.lo[0] = fmin(o.lo[0], qx0), o.hi[0] = fmax(o.hi[0], fmin(qx0 + 0.5 * sx, k->extent[0]));
        o.lo[1] = fmin(o.lo[1], qy0), o.hi[1] = fmax(o.hi[1], fmin(qy0 + 0.5 * sy, k->extent[1]));
    }
    s->missing_boxes[s->missing_kept++] = o;
}

/* Skirt sides of the drawn quadrants: the node's outer sides except on the world's edge, and inner sides
 * facing a quadrant drawn by finer nodes (bit 4·q + side; side 0 low y, 1 high x, 2 high y, 3 low x). */
static uint16_t skirt_sides(const walk *k, uint32_t level, uint64_t x, uint64_t y, uint8_t quads) {
    const st_lod_world *w = k->w;
    double sx = node_size_x(w, level), sy = node_size_y(w, level);
    uint16_t sides = 0;
    for (uint32_t q = 0; q < ST_LOD_QUADRANTS; q++) {
        if (!(quads & (1u << q))) continue;
        uint32_t qx = q & 1, qy = q >> 1;
        double x0 = ((double)x + 0.5 * qx) * sx, x1 = x0 + 0.5 * sx;
        double y0 = ((double)y + 0.5 * qy) * sy, y1 = y0 + 0.5 * sy;
        /* side 0 (low y): outer when qy = 0; inner faces quadrant q − 2 */
        bool s0 = qy == 0 ? y0 > 0 : !(quads & (1u << (q - 2)));
        bool s1 = qx == 1 ? x1 < k->extent[0] : !(quads & (1u << (q + 1)));
        bool s2 = qy == 1 ? y1 < k->extent[1] : !(quads & (1u << (q + 2)));
        bool s3 = qx == 0 ? x0 > 0 : !(quads & (1u << (q - 1)));
        /* sides past the world's end collapse onto it: no skirt there either */
        s1 = s1 && x1 <= k->extent[0];
        s2 = s2 && y1 <= k->extent[1];
        sides |= (uint16_t)((s0 ? 1u : 0u) | (s1 ? 2u : 0u) | (s2 ? 4u : 0u) | (s3 ? 8u : 0u)) << (4 * q);
    }
    return sides;
}

/* Draws quadrants `quads` of node (level, x, y): finds its tile (or an ancestor's), pads its box, counts. */
static void emit(walk *k, uint32_t level, uint64_t x, uint64_t y, uint8_t quads, const box *b, int frustum) {
    const st_lod_world *w = k->w;
    st_lod_selection *s = k->sel;
    /* quadrants that lie wholly past the world's end are not drawn */
    double sx = node_size_x(w, level), sy = node_size_y(w, level);
    for (uint32_t q = 0; q < ST_LOD_QUADRANTS; q++) {
        double qx0 = ((double)x + 0.5 * (q & 1)) * sx, qy0 = ((double)y + 0.5 * (q >> 1)) * sy;
        if (qx0 >= k->extent[0] || qy0 >= k->extent[1]) quads &= (uint8_t)~(1u << q);
    }
    if (!quads) return;
    st_lod_node n = {.level = level, .x = x, .y = y, .quadrants = quads};
    st_tile_key own = st_lod_node_tile(w, level, x, y), drawn = own;
    if (w->drawable && !w->drawable(w, own, &drawn)) {
        s->missing++;
        keep_missing(k, level, x, y, quads, b);
        return;
    }
    n.tile = drawn;
    n.fallback = !st_tile_key_equal(drawn, own);
    box pb = *b;
    float mn, mx;
    if (n.fallback && w->tile_bounds && w->tile_bounds(w, drawn, &mn, &mx)) {
        pb.lo[2] = fmin(pb.lo[2], mn);
        pb.hi[2] = fmax(pb.hi[2], mx);
    }
    if (k->p->skirts) {
        n.skirts = skirt_sides(k, level, x, y, quads);
        pb.lo[2] -= st_lod_skirt_depth(w, level);
    }
    /* a fallback's heights or its skirts may reach outside the box the walk culled with */
    if (frustum != 1 && !k->p->no_cull && box_frustum(k, &pb) < 0) {
        s->culled++;
        return;
    }
    memcpy(n.lo, pb.lo, sizeof n.lo);
    memcpy(n.hi, pb.hi, sizeof n.hi);
    n.distance = box_distance(k->eye, b);
    /* The one-level rule: every point this node draws must lie inside the next level's morph start, so that
     * no neighbour two levels coarser can touch it and a coarser neighbour is not yet morphing where they meet. */
    if (level + 1 < w->levels) {
        box qb = *b;
        double lo0 = INFINITY, hi0 = -INFINITY, lo1 = INFINITY, hi1 = -INFINITY;
        for (uint32_t q = 0; q < ST_LOD_QUADRANTS; q++) {
            if (!(quads & (1u << q))) continue;
            double qx0 = ((double)x + 0.5 * (q & 1)) * sx, qy0 = ((double)y + 0.5 * (q >> 1)) * sy;
            lo0 = fmin(lo0, qx0), hi0 = fmax(hi0, fmin(qx0 + 0.5 * sx, k->extent[0]));
            lo1 = fmin(lo1, qy0), hi1 = fmax(hi1, fmin(qy0 + 0.5 * sy, k->extent[1]));
        }
        qb.lo[0] = lo0, qb.hi[0] = hi0, qb.lo[1] = lo1, qb.hi[1] = hi1;
        double over = box_farthest(k->eye, &qb) - s->bands[level + 1].morph_start;
        if (over > 0) {
            s->one_level_violations++;
            if (over > s->worst_violation_m) s->worst_violation_m = over;
        }
    }
    if (!push_node(k, &n)) return;
    uint32_t nq = (uint32_t)__builtin_popcount(quads), half = w->grid / 2;
    s->per_level[level] += nq;
    s->quadrants += nq;
    s->triangles += (uint64_t)nq * 2 * half * half;
    uint64_t skirt = (uint64_t)__builtin_popcount(n.skirts) * 2 * half;
    s->skirt_triangles += skirt;
    s->triangles += skirt;
    if (n.fallback) s->fallback++;
}

/* The request of a visited node's tile: coarse levels first (every fallback ends there), near first. */
static void request(walk *k, uint32_t level, uint64_t x, uint64_t y, double distance, bool prefetch) {
    const st_lod_world *w = k->w;
    if (!w->request) return;
    /* wanted tiles: level + 1 + closeness (≥ 1, coarse first); prefetched ones below 0.5 */
    double close = 1.0 / (1.0 + distance / k->diag[level]);
    float pri = (float)(prefetch ? 0.5 * close : (double)(level + 1) + close);
    w->request(w, st_lod_node_tile(w, level, x, y), pri);
}

/* What visiting a node decides (steps 1-4 of st_lod_select, the recursion left to the caller). */
typedef enum judgement {
    JUDGE_NONE,    /* no data there, or the walk failed: handled, nothing drawn */
    JUDGE_OUTSIDE, /* wholly outside the frustum: handled, nothing drawn */
    JUDGE_FAR,     /* its box does not reach inside its range: not handled (its parent draws its quadrant) */
    JUDGE_WHOLE,   /* drawn whole */
    JUDGE_SPLIT,   /* its children are visited */
} judgement;

/* Visits node (level, x, y) whose parent's frustum state is *frustum: counts the visit (and a cull), makes its
 * requests (its tile; a node drawn whole that is about to split prefetches its children's), and gives its box
 * (*b, valid unless JUDGE_NONE) and its own frustum state (*frustum). */
static judgement judge(walk *k, uint32_t level, uint64_t x, uint64_t y, int *frustum, box *b) {
    if (k->failed) return JUDGE_NONE;
    if (++k->sel->visits > MAX_VISITS) {
        k->failed = true;
        k->why = ST_ERR_INVALID;
        return JUDGE_NONE;
    }
    if (!node_box(k, level, x, y, b)) return JUDGE_NONE; /* no data there */
    if (*frustum != 1 && !k->p->no_cull) {
        box cb = *b;
        if (k->p->skirts) cb.lo[2] -= st_lod_skirt_depth(k->w, level);
        *frustum = box_frustum(k, &cb);
        if (*frustum < 0) {
            k->sel->culled++;
            return JUDGE_OUTSIDE;
        }
    }
    double d = box_distance(k->eye, b);
    const st_lod_band *bands = k->sel->bands;
    if (!(d < bands[level].range)) return JUDGE_FAR;
    request(k, level, x, y, d, false);
    if (level == 0 || !(d < bands[level - 1].range)) {
        /* prefetch: the children of a node about to split */
        if (level > 0 && d < 1.5 * bands[level - 1].range && k->w->request)
            for (uint32_t c = 0; c < ST_LOD_QUADRANTS; c++) {
                uint64_t cx = 2 * x + (c & 1), cy = 2 * y + (c >> 1);
                if (cx < k->nodes_x[level - 1] && cy < k->nodes_y[level - 1])
                    request(k, level - 1, cx, cy, d, true);
            }
        return JUDGE_WHOLE;
    }
    return JUDGE_SPLIT;
}

static int visit(walk *k, uint32_t level, uint64_t x, uint64_t y, int parent_frustum) {
    box b;
    int frustum = parent_frustum;
    switch (judge(k, level, x, y, &frustum, &b)) {
    case JUDGE_NONE: return HANDLED;
    case JUDGE_OUTSIDE: return OUTSIDE;
    case JUDGE_FAR: return NOT_HANDLED;
    case JUDGE_WHOLE: emit(k, level, x, y, 0xF, &b, frustum); return HANDLED;
    case JUDGE_SPLIT: break;
    }
    uint8_t quads = 0;
    for (uint32_t c = 0; c < ST_LOD_QUADRANTS; c++) {
        uint64_t cx = 2 * x + (c & 1), cy = 2 * y + (c >> 1);
        if (cx >= k->nodes_x[level - 1] || cy >= k->nodes_y[level - 1]) continue; /* past the world */
        if (visit(k, level - 1, cx, cy, frustum) == NOT_HANDLED) quads |= (uint8_t)(1u << c);
    }
    if (quads) emit(k, level, x, y, quads, &b, frustum);
    return HANDLED;
}

static bool finite3(const double v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* A walk of w for view v, counting into sel (whose bands it reads). */
static void walk_begin(walk *k, const st_lod_world *w, const st_lod_params *p, const st_lod_view *v,
                       st_lod_selection *sel) {
    *k = (walk){.w = w, .p = p, .sel = sel};
    memcpy(k->eye, v->eye, sizeof k->eye);
    st_lod_frustum(v, k->planes);
    k->extent[0] = (double)(w->width - 1) * w->spacing_x;
    k->extent[1] = (double)(w->height - 1) * w->spacing_y;
    for (uint32_t l = 0; l < w->levels; l++) {
        uint64_t span = (uint64_t)w->grid << l;
        k->nodes_x[l] = (w->width - 1 + span - 1) / span;
        k->nodes_y[l] = (w->height - 1 + span - 1) / span;
        k->diag[l] = hypot(node_size_x(w, l), node_size_y(w, l));
    }
}

/* One walk of the quadtree with range_0 at least min_base. */
static void select_once(const st_lod_world *w, const st_lod_params *p, const st_lod_view *v, st_lod_selection *sel,
                        double min_base, bool *failed, st_result *why) {
    sel->count = 0;
    sel->levels = w->levels;
    sel->grid = w->grid;
    memset(sel->per_level, 0, sizeof sel->per_level);
    sel->quadrants = sel->triangles = sel->skirt_triangles = 0;
    sel->fallback = sel->missing = sel->culled = sel->visits = sel->one_level_violations = 0;
    sel->missing_kept = 0;
    sel->worst_violation_m = 0;
    bands_from(w, p, v->focal_px, v->far_m, min_base, sel->bands);
    walk k;
    walk_begin(&k, w, p, v, sel);
    uint32_t top = w->levels - 1;
    for (uint64_t y = 0; y < k.nodes_y[top] && !k.failed; y++)
        for (uint64_t x = 0; x < k.nodes_x[top] && !k.failed; x++) {
            /* a root out of range has no parent to draw it: it is drawn itself (its range reaches the far plane,
             * so only a root beyond the far plane, culled anyway, gets here) */
            if (visit(&k, top, x, y, 0) == NOT_HANDLED) {
                box b;
                if (node_box(&k, top, x, y, &b) && (p->no_cull || box_frustum(&k, &b) >= 0))
                    emit(&k, top, x, y, 0xF, &b, 0);
            }
        }
    *failed = k.failed;
    *why = k.why;
}

/* st_lod_check, and a view the walk can use. */
static st_result check_walk(const st_lod_world *w, const st_lod_params *p, const st_lod_view *v, st_error *err) {
    st_result res = st_lod_check(w, p, err);
    if (res) return res;
    if (!finite3(v->eye) || !finite3(v->forward) || !(v->focal_px > 0) || !(v->width_px >= 1) ||
        !(v->height_px >= 1) || !(v->near_m > 0) || !(v->far_m > v->near_m) || !isfinite(v->far_m))
        return st_error_set(err, ST_ERR_INVALID, "lod: a view with a non-finite eye or bad planes (near %g, far %g)",
                            v->near_m, v->far_m);
    return ST_OK;
}

st_result st_lod_select(const st_lod_world *w, const st_lod_params *p, const st_lod_view *v, st_lod_selection *sel,
                        st_error *err) {
    st_result res = check_walk(w, p, v, err);
    if (res) return res;
    /* The bands' construction keeps the one-level rule horizontally; a node much taller than wide, close to the
     * eye, can still reach past the next level's morph start. Then the ranges are widened (the least range_0 by
     * 25 % a time) and the view selected again, so a frame never draws a node that may meet one two levels
     * coarser; views without such a node are selected once. */
    double min_base = 0;
    bool failed = false;
    sel->widened = 0;
    st_result why = ST_OK;
    for (uint32_t attempt = 0;; attempt++) {
        select_once(w, p, v, sel, min_base, &failed, &why);
        if (failed || !sel->one_level_violations || attempt == ST_LOD_ONE_LEVEL_RETRIES) break;
        min_base = sel->bands[0].range * 1.25;
        sel->widened = attempt + 1;
    }
    if (failed && why == ST_ERR_INVALID)
        return st_error_set(err, ST_ERR_INVALID, "lod: the view visits more than %u nodes (τ %g px is too small for "
                            "this world)", MAX_VISITS, param(p->tau_px, 1));
    if (failed) return st_error_set(err, ST_ERR_NOMEM, "lod: out of memory for the selection");
    return ST_OK;
}

void st_lod_selection_free(st_lod_selection *sel) {
    if (!sel) return;
    free(sel->nodes);
    free(sel->missing_boxes);
    memset(sel, 0, sizeof *sel);
}

/* ---- the coarse levels for a GPU walk of the fine ones ----------------------------------------------------- */

typedef struct coarse {
    walk k;
    st_lod_frontier *f;
    bool nomem;
} coarse;

static void frontier_push(coarse *c, st_lod_coarse_node **list, uint32_t *count, uint32_t *cap, st_lod_coarse_node n) {
    if (*count == *cap) {
        uint32_t grown = *cap ? 2 * *cap : 256;
        st_lod_coarse_node *l = realloc(*list, (size_t)grown * sizeof *l);
        if (!l) {
            c->nomem = c->k.failed = true;
            return;
        }
        *list = l;
        *cap = grown;
    }
    (*list)[(*count)++] = n;
}

static void push_draw(coarse *c, uint32_t level, uint64_t x, uint64_t y, uint8_t quads, int frustum) {
    st_lod_frontier *f = c->f;
    st_lod_coarse_node n = {level, (uint32_t)x, (uint32_t)y, quads, (int8_t)frustum, 0};
    frontier_push(c, &f->draws, &f->draw_count, &f->draw_cap, n);
}

/* visit, down to the parents of level `first`: those record themselves and their children instead of visiting
 * them, and a node that would be emitted is recorded as a draw. */
static int coarse_visit(coarse *c, uint32_t level, uint64_t x, uint64_t y, int parent_frustum) {
    walk *k = &c->k;
    st_lod_frontier *f = c->f;
    box b;
    int frustum = parent_frustum;
    switch (judge(k, level, x, y, &frustum, &b)) {
    case JUDGE_NONE: return HANDLED;
    case JUDGE_OUTSIDE: return OUTSIDE;
    case JUDGE_FAR: return NOT_HANDLED;
    case JUDGE_WHOLE: push_draw(c, level, x, y, 0xF, frustum); return HANDLED;
    case JUDGE_SPLIT: break;
    }
    if (level == f->first + 1) {
        uint32_t pi = f->parent_count;
        st_lod_coarse_node n = {level, (uint32_t)x, (uint32_t)y, 0, (int8_t)frustum, 0};
        frontier_push(c, &f->parents, &f->parent_count, &f->parent_cap, n);
        for (uint32_t q = 0; q < ST_LOD_QUADRANTS; q++) {
            uint64_t cx = 2 * x + (q & 1), cy = 2 * y + (q >> 1);
            if (cx >= k->nodes_x[level - 1] || cy >= k->nodes_y[level - 1]) continue; /* past the world */
            st_lod_coarse_node ch = {level - 1, (uint32_t)cx, (uint32_t)cy, 0, (int8_t)frustum, pi};
            frontier_push(c, &f->cands, &f->cand_count, &f->cand_cap, ch);
        }
        return HANDLED;
    }
    uint8_t quads = 0;
    for (uint32_t q = 0; q < ST_LOD_QUADRANTS; q++) {
        uint64_t cx = 2 * x + (q & 1), cy = 2 * y + (q >> 1);
        if (cx >= k->nodes_x[level - 1] || cy >= k->nodes_y[level - 1]) continue;
        if (coarse_visit(c, level - 1, cx, cy, frustum) == NOT_HANDLED) quads |= (uint8_t)(1u << q);
    }
    if (quads) push_draw(c, level, x, y, quads, frustum);
    return HANDLED;
}

st_result st_lod_select_coarse(const st_lod_world *w, const st_lod_params *p, const st_lod_view *v,
                               const st_lod_band bands[ST_LOD_MAX_LEVELS], uint32_t cpu_levels, st_lod_frontier *f,
                               st_error *err) {
    f->draw_count = f->parent_count = f->cand_count = f->visits = f->culled = 0;
    st_result res = check_walk(w, p, v, err);
    if (res) return res;
    if (cpu_levels < 1 || cpu_levels >= w->levels)
        return st_error_set(err, ST_ERR_INVALID, "lod: %u coarse levels of %u (1..%u)", cpu_levels, w->levels,
                            w->levels - 1);
    uint32_t top = w->levels - 1;
    f->first = top - cpu_levels;
    /* the walk counts its visits and culls into a selection of its own, which holds the bands it reads */
    st_lod_selection counts = {0};
    memcpy(counts.bands, bands, sizeof counts.bands);
    coarse c = {.f = f};
    walk_begin(&c.k, w, p, v, &counts);
    walk *k = &c.k;
    for (uint64_t y = 0; y < k->nodes_y[top] && !k->failed; y++)
        for (uint64_t x = 0; x < k->nodes_x[top] && !k->failed; x++)
            if (coarse_visit(&c, top, x, y, 0) == NOT_HANDLED) { /* as in select_once */
                box b;
                if (node_box(k, top, x, y, &b) && (p->no_cull || box_frustum(k, &b) >= 0))
                    push_draw(&c, top, x, y, 0xF, 0);
            }
    f->visits = counts.visits;
    f->culled = counts.culled;
    if (c.nomem) return st_error_set(err, ST_ERR_NOMEM, "lod: out of memory for the coarse walk");
    if (k->failed)
        return st_error_set(err, ST_ERR_INVALID, "lod: the view visits more than %u nodes (τ %g px is too small for "
                            "this world)", MAX_VISITS, param(p->tau_px, 1));
    return ST_OK;
}

void st_lod_frontier_free(st_lod_frontier *f) {
    free(f->draws);
    free(f->parents);
    free(f->cands);
    memset(f, 0, sizeof *f);
}


/* The screen rectangle of a box: its corners in front of the near plane and the points where its edges cross
 * it, projected; false when none of it is in front. */
static bool box_screen_rect(const st_lod_box *b, const st_lod_view *v, double rect[4]) {
    double c[8][3], z[8];
    for (int i = 0; i < 8; i++) {
        double p[3] = {(i & 1 ? b->hi : b->lo)[0] - v->eye[0], (i & 2 ? b->hi : b->lo)[1] - v->eye[1],
                       (i & 4 ? b->hi : b->lo)[2] - v->eye[2]};
        memcpy(c[i], p, sizeof p);
        z[i] = p[0] * v->forward[0] + p[1] * v->forward[1] + p[2] * v->forward[2];
    }
    rect[0] = rect[1] = INFINITY;
    rect[2] = rect[3] = -INFINITY;
    bool any = false;
    for (int i = 0; i < 8; i++)
        for (int bit = 0; bit <= 3; bit++) {
            /* bit 3: the corner itself; bits 0..2: the edge to the neighbour along that axis, once per edge */
            double p[3], pz;
            if (bit == 3) {
                if (z[i] < v->near_m) continue;
                memcpy(p, c[i], sizeof p), pz = z[i];
            } else {
                int j = i ^ (1 << bit);
                if (j < i || (z[i] < v->near_m) == (z[j] < v->near_m)) continue;
                double t = (v->near_m - z[i]) / (z[j] - z[i]);
                for (int a = 0; a < 3; a++) p[a] = c[i][a] + t * (c[j][a] - c[i][a]);
                pz = v->near_m;
            }
            double sx = 0.5 * v->width_px + v->focal_px * (p[0] * v->right[0] + p[1] * v->right[1] + p[2] * v->right[2]) / pz;
            double sy = 0.5 * v->height_px - v->focal_px * (p[0] * v->up[0] + p[1] * v->up[1] + p[2] * v->up[2]) / pz;
            rect[0] = fmin(rect[0], sx), rect[1] = fmin(rect[1], sy);
            rect[2] = fmax(rect[2], sx), rect[3] = fmax(rect[3], sy);
            any = true;
        }
    return any;
}

st_result st_lod_hole_pixels(const st_lod_box *boxes, uint32_t count, const st_lod_view *v, uint64_t *pixels,
                             st_error *err) {
    *pixels = 0;
    if (!count) return ST_OK;
    uint32_t w = (uint32_t)v->width_px, h = (uint32_t)v->height_px;
    uint8_t *mask = calloc((size_t)w * h, 1);
    if (!mask) return st_error_set(err, ST_ERR_NOMEM, "lod: out of memory for a %ux%u hole mask", w, h);
    for (uint32_t i = 0; i < count; i++) {
        double r[4];
        if (!box_screen_rect(&boxes[i], v, r)) continue;
        /* pixel (x, y) is covered when its centre lies inside */
        double x0 = fmax(ceil(r[0] - 0.5), 0), y0 = fmax(ceil(r[1] - 0.5), 0);
        double x1 = fmin(floor(r[2] - 0.5), (double)w - 1), y1 = fmin(floor(r[3] - 0.5), (double)h - 1);
        if (!(x1 >= x0 && y1 >= y0)) continue;
        for (double y = y0; y <= y1; y++) memset(mask + (size_t)y * w + (size_t)x0, 1, (size_t)(x1 - x0 + 1));
    }
    uint64_t n = 0;
    for (size_t k = 0; k < (size_t)w * h; k++) n += mask[k];
    free(mask);
    *pixels = n;
    return ST_OK;
}

/* ---- the vertex ------------------------------------------------------------------------------------------- */

void st_lod_vertex(const double eye[3], const st_lod_band *band, const double corner[2], double cell_x,
                   double cell_y, const double tex0[2], double tex_step, const double limit[2], double i, double j,
                   st_lod_height_fn height, void *user, double out[3], double *morph_k) {
    double gx = fmin(i, limit[0]), gy = fmin(j, limit[1]);
    double x = corner[0] + gx * cell_x, y = corner[1] + gy * cell_y;
    double z = height(user, tex0[0] + gx * tex_step, tex0[1] + gy * tex_step);
    double d = sqrt((x - eye[0]) * (x - eye[0]) + (y - eye[1]) * (y - eye[1]) + (z - eye[2]) * (z - eye[2]));
    double k = st_lod_morph_k(band, d);
    /* odd grid coordinates slide toward their even neighbour below: at k = 1 the grid is the coarser one */
    double mx = i - (i * 0.5 - floor(i * 0.5)) * 2.0 * k, my = j - (j * 0.5 - floor(j * 0.5)) * 2.0 * k;
    gx = fmin(mx, limit[0]), gy = fmin(my, limit[1]);
    out[0] = corner[0] + gx * cell_x;
    out[1] = corner[1] + gy * cell_y;
    out[2] = height(user, tex0[0] + gx * tex_step, tex0[1] + gy * tex_step);
    if (morph_k) *morph_k = k;
}

/* ---- a store as a quadtree -------------------------------------------------------------------------------- */

static uint32_t log2u(uint32_t v) { return (uint32_t)__builtin_ctz(v); }

static bool store_bounds(const st_lod_world *w, uint32_t level, uint64_t x, uint64_t y, float *mn, float *mx) {
    uint32_t t = log2u(st_lod_nodes_per_tile(w));
    st_tile_key key;
    if (level >= t) key = (st_tile_key){level - t, (uint32_t)x, (uint32_t)y};
    else key = (st_tile_key){0, (uint32_t)(x >> (t - level)), (uint32_t)(y >> (t - level))};
    st_tile_meta m;
    if (!st_store_tile_meta(w->store, key, &m)) return false;
    *mn = m.min_m, *mx = m.max_m;
    return true;
}

static bool store_drawable(const st_lod_world *w, st_tile_key tile, st_tile_key *drawn) {
    if (!w->residency) {
        *drawn = tile;
        return true;
    }
    return st_residency_resident_ancestor(w->residency, tile, drawn);
}

static void store_request(const st_lod_world *w, st_tile_key tile, float priority) {
    if (w->residency) st_residency_request(w->residency, tile, priority);
}

static bool store_tile_bounds(const st_lod_world *w, st_tile_key tile, float *mn, float *mx) {
    st_tile_meta m;
    if (!st_store_tile_meta(w->store, tile, &m)) return false;
    *mn = m.min_m, *mx = m.max_m;
    return true;
}

st_result st_lod_world_of_store(st_store *store, st_residency *r, uint32_t grid, st_lod_world *out, st_error *err) {
    memset(out, 0, sizeof *out);
    const st_store_info *in = st_store_get_info(store);
    if (in->kind != ST_TILE_DEM) return st_error_set(err, ST_ERR_INVALID, "lod: a layer store has no heights to draw");
    if (!in->levels || in->levels > ST_LOD_MAX_LEVELS)
        return st_error_set(err, ST_ERR_INVALID, "lod: a store of %u levels", in->levels);
    uint32_t s = in->tile_size - 1;
    if (!grid) grid = ST_LOD_DEFAULT_GRID < s ? ST_LOD_DEFAULT_GRID : s;
    out->levels = in->levels;
    out->tile_intervals = s;
    out->grid = grid;
    out->width = in->width;
    out->height = in->height;
    out->spacing_x = in->spacing_x_m;
    out->spacing_y = in->spacing_y_m;
    out->bounds = store_bounds;
    out->drawable = store_drawable;
    out->request = store_request;
    out->tile_bounds = store_tile_bounds;
    out->store = store;
    out->residency = r;
    /* each level's δ: the largest of its tiles' (a bound everywhere on that level), made monotone */
    for (uint32_t l = 0; l < in->levels; l++) {
        uint32_t nx, ny;
        st_store_level_tiles(store, l, &nx, &ny);
        double worst = 0;
        uint32_t step = in->generated ? UINT32_MAX : 1; /* generated stores: one δ per level */
        for (uint32_t y = 0; y < ny; y += step > ny ? ny : step)
            for (uint32_t x = 0; x < nx; x += step > nx ? nx : step) {
                st_tile_meta m;
                if (st_store_tile_meta(store, (st_tile_key){l, x, y}, &m) && m.delta_m > worst) worst = m.delta_m;
            }
        out->delta_bound[l] = l ? fmax(worst, out->delta_bound[l - 1]) : worst;
    }
    /* The bound is the worst tile anywhere and a sum of per-level gaps: on amplified Puget Sound it is 20-25x the
     * error 99 % of the surface has, so it keeps the finest level far past where the eye sees any difference.
     * The ranges use the measured quantile instead (docs/large-world.md, "δ per level"). */
    double measured[ST_LOD_MAX_LEVELS] = {0};
    st_result res = st_store_surface_error(store, ST_LOD_ERROR_QUANTILE,
                                           in->generated ? ST_LOD_ERROR_LATTICE_GEN : ST_LOD_ERROR_LATTICE, measured, err);
    if (res) return st_error_prefix(err, "lod: δ of %s", in->source);
    for (uint32_t l = 0; l < in->levels; l++) out->delta[l] = l ? fmax(measured[l], out->delta[l - 1]) : 0;
    out->delta_measured = true;
    st_lod_params none = {0};
    return st_lod_check(out, &none, err);
}

void st_lod_world_use_bound(st_lod_world *w) {
    memcpy(w->delta, w->delta_bound, sizeof w->delta);
    w->delta_measured = false;
}
