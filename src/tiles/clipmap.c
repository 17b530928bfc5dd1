/* The geometry clipmap's layout without any GPU (strata/clipmap.h): level windows that follow the eye, the
 * footprints of each ring, the toroidal update's exposed rectangles, the active levels and the grid for a τ. */
#include <math.h>
#include <string.h>

#include "strata/clipmap.h"

/* n = 4m − 1: the ring's layout (blocks of m, the two-quad fix-ups, the one-quad trim) needs nothing more */
static bool is_grid_n(uint32_t n) { return (n + 1) % 4 == 0; }

st_result st_clipmap_geom_init(st_clipmap_geom *g, uint64_t width, uint64_t height, double spacing_x,
                               double spacing_y, uint32_t tile_intervals, uint32_t store_levels, uint32_t n,
                               double far_m, st_error *err) {
    memset(g, 0, sizeof *g);
    if (!is_grid_n(n) || n < ST_CLIPMAP_MIN_N || n > ST_CLIPMAP_MAX_N)
        return st_error_set(err, ST_ERR_INVALID, "clipmap: a grid of %u vertices (4m − 1, %u..%u)", n,
                            ST_CLIPMAP_MIN_N, ST_CLIPMAP_MAX_N);
    if (width < 2 || height < 2 || !(spacing_x > 0) || !(spacing_y > 0) || !st_is_pow2(tile_intervals) ||
        !store_levels || store_levels > ST_CLIPMAP_MAX_LEVELS)
        return st_error_set(err, ST_ERR_INVALID, "clipmap: a world of %llu x %llu samples, %u levels",
                            (unsigned long long)width, (unsigned long long)height, store_levels);
    g->n = n;
    g->m = (n + 1) / 4;
    g->store_levels = store_levels;
    g->tile_intervals = tile_intervals;
    g->width = width, g->height = height;
    g->spacing_x = spacing_x, g->spacing_y = spacing_y;
    g->blend_w = n / 10.0;
    /* enough levels for the coarsest window's half-extent (less the eye's offset of one sample) to reach the far
     * distance or the whole world from any eye inside it */
    double world = fmax((double)(width - 1) * spacing_x, (double)(height - 1) * spacing_y);
    double reach = fmin(far_m > 0 ? far_m : world, world), step = fmin(spacing_x, spacing_y);
    uint32_t levels = 1;
    while (levels < ST_CLIPMAP_MAX_LEVELS && ((n - 1) / 2.0 - 1) * ldexp(step, (int)levels - 1) < reach) levels++;
    g->levels = levels;
    return ST_OK;
}

uint32_t st_clipmap_n_for_tau(const double *delta, uint32_t count, double spacing_m, double focal_px, double tau_px,
                              double far_m, bool *capped) {
    if (capped) *capped = false;
    for (uint32_t n = ST_CLIPMAP_MIN_N; n <= ST_CLIPMAP_MAX_N; n += 4) {
        double w = n / 10.0, inner = (n - 1) / 2.0 - w - 2;
        bool ok = true;
        for (uint32_t l = 1; l < count && ok; l++) {
            double d = inner * ldexp(spacing_m, (int)l - 1);
            if (far_m > 0 && d > far_m) break; /* this level and the coarser ones lie beyond the view */
            ok = delta[l] * focal_px <= tau_px * d;
        }
        if (ok) return n;
    }
    if (capped) *capped = true;
    return ST_CLIPMAP_MAX_N;
}

void st_clipmap_window(const st_clipmap_geom *g, uint32_t level, const double eye_idx[2], int64_t origin[2]) {
    for (int k = 0; k < 2; k++) {
        int64_t f = (int64_t)floor(ldexp(eye_idx[k], -(int)level - 1));
        origin[k] = (f - (int64_t)(g->m - 1)) * 2;
    }
}

uint32_t st_clipmap_finest_for_tau(const st_clipmap_geom *g, const double *delta, uint32_t count,
                                   const double *clearance_m, double focal_px, double tau_px) {
    uint32_t l = 0;
    while (l + 1 < g->levels && l + 1 < count && clearance_m[l + 1] > 0 &&
           delta[l + 1] * focal_px <= tau_px * clearance_m[l + 1])
        l++;
    return l;
}

uint32_t st_clipmap_finest_active(const st_clipmap_geom *g, double height_above_m) {
    double step = fmin(g->spacing_x, g->spacing_y), need = 2.5 * fmax(height_above_m, 0);
    uint32_t l = 0;
    while (l + 1 < g->levels && (double)(g->n - 1) * ldexp(step, (int)l) < need) l++;
    return l;
}

void st_clipmap_shape_size(const st_clipmap_geom *g, st_clipmap_shape s, uint32_t *w, uint32_t *h) {
    uint32_t m = g->m;
    switch (s) {
    case ST_CLIP_BLOCK: *w = m, *h = m; break;
    case ST_CLIP_FIX_V: *w = 3, *h = m; break;
    case ST_CLIP_FIX_H: *w = m, *h = 3; break;
    case ST_CLIP_TRIM_H: *w = 2 * m + 1, *h = 2; break;
    case ST_CLIP_TRIM_V: *w = 2, *h = 2 * m; break;
    case ST_CLIP_CENTER: *w = 3, *h = 3; break;
    case ST_CLIP_EDGE_H: *w = g->n, *h = 1; break;
    case ST_CLIP_EDGE_V: *w = 1, *h = g->n; break;
    default: *w = *h = 0; break;
    }
}

uint32_t st_clipmap_shape_triangles(const st_clipmap_geom *g, st_clipmap_shape s) {
    if (s == ST_CLIP_EDGE_H || s == ST_CLIP_EDGE_V) return (g->n - 1) / 2;
    uint32_t w, h;
    st_clipmap_shape_size(g, s, &w, &h);
    return w && h ? 2 * (w - 1) * (h - 1) : 0;
}

static void put(st_clipmap_piece *out, uint32_t *k, st_clipmap_shape s, uint32_t level, uint32_t x, uint32_t y) {
    out[(*k)++] = (st_clipmap_piece){.shape = (uint8_t)s, .level = (uint8_t)level, .x = (uint16_t)x, .y = (uint16_t)y};
}

uint32_t st_clipmap_pieces(const st_clipmap_geom *g, uint32_t level, uint32_t finest, const int64_t origin[2],
                           const int64_t finer_origin[2], st_clipmap_piece out[32]) {
    uint32_t m = g->m, n = g->n, k = 0;
    const uint32_t b[4] = {0, m - 1, 2 * m, 3 * m - 1}; /* block starts along an axis: 4(m − 1) + 2 = n − 1 quads */
    for (uint32_t j = 0; j < 4; j++)
        for (uint32_t i = 0; i < 4; i++)
            if (!(i >= 1 && i <= 2 && j >= 1 && j <= 2)) put(out, &k, ST_CLIP_BLOCK, level, b[i], b[j]);
    /* the ring fix-ups: the two quads left in the middle of each side */
    put(out, &k, ST_CLIP_FIX_V, level, 2 * m - 2, 0);
    put(out, &k, ST_CLIP_FIX_V, level, 2 * m - 2, 3 * m - 1);
    put(out, &k, ST_CLIP_FIX_H, level, 0, 2 * m - 2);
    put(out, &k, ST_CLIP_FIX_H, level, 3 * m - 1, 2 * m - 2);
    if (level == finest) { /* the hole [m − 1, 3m − 1]² filled: 4 blocks, the cross between them, its centre */
        put(out, &k, ST_CLIP_BLOCK, level, m - 1, m - 1);
        put(out, &k, ST_CLIP_BLOCK, level, 2 * m, m - 1);
        put(out, &k, ST_CLIP_BLOCK, level, m - 1, 2 * m);
        put(out, &k, ST_CLIP_BLOCK, level, 2 * m, 2 * m);
        put(out, &k, ST_CLIP_FIX_H, level, m - 1, 2 * m - 2);
        put(out, &k, ST_CLIP_FIX_H, level, 2 * m, 2 * m - 2);
        put(out, &k, ST_CLIP_FIX_V, level, 2 * m - 2, m - 1);
        put(out, &k, ST_CLIP_FIX_V, level, 2 * m - 2, 2 * m);
        put(out, &k, ST_CLIP_CENTER, level, 2 * m - 2, 2 * m - 2);
    } else {
        /* the finer level covers 2m − 1 of the hole's 2m quads a side, from coarse vertex m − 1 + f (f = 0 or 1,
         * as its origin says): the one quad row and column it leaves are the L-shaped interior trim */
        int64_t fx = finer_origin[0] / 2 - origin[0] - (int64_t)(m - 1), fy = finer_origin[1] / 2 - origin[1] - (int64_t)(m - 1);
        uint32_t tx = fx ? m - 1 : 3 * m - 2, ty = fy ? m - 1 : 3 * m - 2;
        put(out, &k, ST_CLIP_TRIM_H, level, m - 1, ty);
        put(out, &k, ST_CLIP_TRIM_V, level, tx, fy ? m : m - 1);
    }
    if (level + 1 < g->levels) { /* against T-junctions with the coarser level's edges */
        put(out, &k, ST_CLIP_EDGE_H, level, 0, 0);
        put(out, &k, ST_CLIP_EDGE_H, level, 0, n - 1);
        put(out, &k, ST_CLIP_EDGE_V, level, 0, 0);
        put(out, &k, ST_CLIP_EDGE_V, level, n - 1, 0);
    }
    return k;
}

uint32_t st_clipmap_exposed(const st_clipmap_geom *g, const int64_t before[2], const int64_t now[2],
                            st_clip_rect out[2]) {
    int64_t n = g->n;
    st_clip_rect w = {now[0], now[1], now[0] + n, now[1] + n};
    int64_t ox0 = before[0] > w.x0 ? before[0] : w.x0, ox1 = before[0] + n < w.x1 ? before[0] + n : w.x1;
    int64_t oy0 = before[1] > w.y0 ? before[1] : w.y0, oy1 = before[1] + n < w.y1 ? before[1] + n : w.y1;
    if (ox0 >= ox1 || oy0 >= oy1) {
        out[0] = w;
        return 1;
    }
    uint32_t k = 0;
    /* the columns outside the overlap, full height; then the rows outside it, within the overlap's columns */
    if (w.x0 < ox0) out[k++] = (st_clip_rect){w.x0, w.y0, ox0, w.y1};
    if (ox1 < w.x1) out[k++] = (st_clip_rect){ox1, w.y0, w.x1, w.y1};
    st_clip_rect rows[2];
    uint32_t r = 0;
    if (w.y0 < oy0) rows[r++] = (st_clip_rect){ox0, w.y0, ox1, oy0};
    if (oy1 < w.y1) rows[r++] = (st_clip_rect){ox0, oy1, ox1, w.y1};
    /* a window moves by at most its overlap on each axis, so at most one side of each is exposed */
    for (uint32_t i = 0; i < r && k < 2; i++) out[k++] = rows[i];
    return k;
}
