/* The default views of a DEM tile store, placed from its relief (docs/harness.md), view specs in metres, the
 * camera of a view (the eye in double precision above the store's finest surface), the ground height at a point
 * and the far distance that suits a store. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/tiles.h"
#include "strata/views.h"

#define RELIEF_WINDOW 8      /* samples of the coarsest level either side: the window that measures relief */
#define EDGE_MARGIN 0.1      /* targets stay this share of the world away from its edges */

static double extent_x(const st_store_info *in) { return (double)(in->width - 1) * in->spacing_x_m; }
static double extent_y(const st_store_info *in) { return (double)(in->height - 1) * in->spacing_y_m; }

double st_store_far(const st_store *store) {
    const st_store_info *in = st_store_get_info(store);
    double e = fmax(extent_x(in), extent_y(in));
    double far = fmin(0.5 * e, 100000.0);
    return fmax(far, 100.0 * fmax(in->spacing_x_m, in->spacing_y_m));
}

st_result st_store_ground_cached(st_store *store, st_tile **cache, double x, double y, double *height,
                                 st_error *err) {
    const st_store_info *in = st_store_get_info(store);
    if (in->kind != ST_TILE_DEM) return st_error_set(err, ST_ERR_INVALID, "a layer store has no ground heights");
    if (!isfinite(x) || !isfinite(y)) return st_error_set(err, ST_ERR_INVALID, "a ground point must be finite");
    double u = fmin(fmax(x / in->spacing_x_m, 0), (double)(in->width - 1));
    double v = fmin(fmax(y / in->spacing_y_m, 0), (double)(in->height - 1));
    uint32_t s = in->tile_size - 1;
    uint32_t tx = (uint32_t)fmin(floor(u / s), floor((double)(in->width - 2) / s));
    uint32_t ty = (uint32_t)fmin(floor(v / s), floor((double)(in->height - 2) / s));
    st_tile_key key = {0, tx, ty};
    if (!*cache || !st_tile_key_equal((*cache)->key, key)) {
        st_tile_destroy(*cache);
        *cache = NULL;
        st_result r = st_store_read_tile(store, key, cache, err);
        if (r) return r;
    }
    const st_tile *t = *cache;
    double lu = u - (double)tx * s, lv = v - (double)ty * s;
    uint32_t i = (uint32_t)fmin(floor(lu), s - 1), j = (uint32_t)fmin(floor(lv), s - 1);
    double fu = lu - i, fv = lv - j;
    double h00 = st_tile_height(t, i, j), h10 = st_tile_height(t, i + 1, j);
    double h01 = st_tile_height(t, i, j + 1), h11 = st_tile_height(t, i + 1, j + 1);
    *height = (h00 * (1 - fu) + h10 * fu) * (1 - fv) + (h01 * (1 - fu) + h11 * fu) * fv;
    return ST_OK;
}

st_result st_store_ground(st_store *store, double x, double y, double *height, st_error *err) {
    st_tile *t = NULL;
    st_result r = st_store_ground_cached(store, &t, x, y, height, err);
    st_tile_destroy(t);
    return r;
}

typedef struct target {
    double x, y, relief, height;
} target;

/* Picks three targets on the root tile: the roughest sample, the highest, and one of middling relief, each at
 * least a quarter of the world from the others where the world allows (the distance relaxes until it does). */
static st_result pick_targets(st_store *store, target out[3], st_error *err) {
    const st_store_info *in = st_store_get_info(store);
    st_tile *root = NULL;
    st_result r = st_store_read_tile(store, (st_tile_key){in->levels - 1, 0, 0}, &root, err);
    if (r) return r;
    uint32_t n = root->size;
    double step_x = ldexp(in->spacing_x_m, (int)in->levels - 1), step_y = ldexp(in->spacing_y_m, (int)in->levels - 1);
    uint32_t nx = (uint32_t)fmin(n, floor(extent_x(in) / step_x) + 1), ny = (uint32_t)fmin(n, floor(extent_y(in) / step_y) + 1);
    size_t count = (size_t)nx * ny;
    float *relief = malloc(count * sizeof *relief);
    uint32_t *order = malloc(count * sizeof *order);
    if (!relief || !order) {
        free(relief);
        free(order);
        st_tile_destroy(root);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    for (uint32_t j = 0; j < ny; j++)
        for (uint32_t i = 0; i < nx; i++) {
            float lo = INFINITY, hi = -INFINITY;
            for (int dj = -RELIEF_WINDOW; dj <= RELIEF_WINDOW; dj++)
                for (int di = -RELIEF_WINDOW; di <= RELIEF_WINDOW; di++) {
                    int a = (int)i + di, b = (int)j + dj;
                    if (a < 0 || b < 0 || a >= (int)nx || b >= (int)ny) continue;
                    float h = st_tile_height(root, (uint32_t)a, (uint32_t)b);
                    lo = fminf(lo, h), hi = fmaxf(hi, h);
                }
            relief[(size_t)j * nx + i] = hi - lo;
        }
    double ex = extent_x(in), ey = extent_y(in);
    /* candidates: off the edges; ties go to the one nearest the world's centre */
    size_t m = 0;
    for (uint32_t j = 0; j < ny; j++)
        for (uint32_t i = 0; i < nx; i++) {
            double x = i * step_x, y = j * step_y;
            if (x < EDGE_MARGIN * ex || x > (1 - EDGE_MARGIN) * ex || y < EDGE_MARGIN * ey || y > (1 - EDGE_MARGIN) * ey)
                continue;
            order[m++] = j * nx + i;
        }
    if (!m) order[m++] = (ny / 2) * nx + nx / 2;
    double min_gap = 0.25 * fmax(ex, ey);
    int picked = 0;
    for (int tries = 0; picked < 3 && tries < 40; tries++, min_gap *= 0.7) {
        picked = 0;
        for (int k = 0; k < 3; k++) {
            double best = -INFINITY;
            size_t best_i = SIZE_MAX;
            /* the middling relief: the candidate closest to the median of the candidates' relief */
            double median = 0;
            if (k == 2) {
                float lo = INFINITY, hi = -INFINITY;
                for (size_t c = 0; c < m; c++) lo = fminf(lo, relief[order[c]]), hi = fmaxf(hi, relief[order[c]]);
                median = 0.5 * (lo + hi);
            }
            for (size_t c = 0; c < m; c++) {
                uint32_t id = order[c];
                double x = (id % nx) * step_x, y = (id / nx) * step_y;
                bool far_enough = true;
                for (int p = 0; p < picked; p++) far_enough &= hypot(x - out[p].x, y - out[p].y) >= min_gap;
                if (!far_enough) continue;
                double centre = -1e-9 * hypot(x - 0.5 * ex, y - 0.5 * ey);
                double score = k == 0 ? relief[id] : k == 1 ? st_tile_height(root, id % nx, id / nx) : -fabs(relief[id] - median);
                score += centre;
                if (score > best) best = score, best_i = id;
            }
            if (best_i == SIZE_MAX) break;
            out[picked].x = (best_i % nx) * step_x;
            out[picked].y = (best_i / nx) * step_y;
            out[picked].relief = relief[best_i];
            out[picked].height = st_tile_height(root, (uint32_t)(best_i % nx), (uint32_t)(best_i / nx));
            picked++;
        }
    }
    free(relief);
    free(order);
    st_tile_destroy(root);
    if (picked < 3) return st_error_set(err, ST_ERR_INVALID, "the store is too small for three view targets");
    return ST_OK;
}

st_result st_store_views_default(st_store *store, st_viewpoint *out, size_t cap, size_t *count, st_error *err) {
    *count = 0;
    const st_store_info *in = st_store_get_info(store);
    if (in->kind != ST_TILE_DEM) return st_error_set(err, ST_ERR_INVALID, "views are placed on DEM stores");
    if (cap < 12) return st_error_set(err, ST_ERR_INVALID, "room for %zu views, a store has 12", cap);
    target t[3];
    st_result r = pick_targets(store, t, err);
    if (r) return r;
    double ex = extent_x(in), ey = extent_y(in), sp = fmax(in->spacing_x_m, in->spacing_y_m);
    static const float pitches[4] = {0, -30, -60, -90};
    static const char *const names[4] = {"horizon", "pitch30", "pitch60", "top"};
    size_t n = 0;
    for (int p = 0; p < 4; p++)
        for (int k = 0; k < 3; k++) {
            st_viewpoint *v = &out[n++];
            memset(v, 0, sizeof *v);
            snprintf(v->name, sizeof v->name, "%s-%d", names[p], k + 1);
            float yaw = (float)fmod(45.0 + 120.0 * k + 25.0 * p, 360.0);
            /* the height above the target's ground follows its relief: a view a few times its relief wide */
            double above = fmin(fmax(1.5 * t[k].relief, 100.0 * sp), 0.125 * fmax(ex, ey));
            double hx = sin(yaw * M_PI / 180), hy = cos(yaw * M_PI / 180), back;
            if (p == 0) {
                back = fmax(2.0 * above, 0.0625 * fmax(ex, ey)); /* a horizon view from before the target */
                above = fmax(0.05 * t[k].relief, 10.0 * sp);
            } else if (p == 3) {
                back = 0;
            } else {
                back = above / tan(-pitches[p] * M_PI / 180);
            }
            double x = fmin(fmax(t[k].x - hx * back, 0), ex), y = fmin(fmax(t[k].y - hy * back, 0), ey);
            v->x = (float)x;
            v->y = (float)y;
            v->yaw_deg = yaw;
            v->pitch_deg = pitches[p];
            /* the eye's height over its own ground: the target's ground + above, or `above` when that is lower */
            double ground = 0;
            if ((r = st_store_ground(store, x, y, &ground, err))) return r;
            double want = p == 0 ? above : t[k].height + above - ground;
            v->eye_height = (float)fmax(want, 2.0 * sp);
        }
    *count = n;
    return ST_OK;
}

static bool parse_number(const char *text, double *out) {
    if (!*text) return false;
    char *end;
    double v = strtod(text, &end);
    if (*end || !isfinite(v)) return false;
    *out = v;
    return true;
}

st_result st_store_views_find(st_store *store, const char *name, st_viewpoint *out, st_error *err) {
    if (!name || !*name) return st_error_set(err, ST_ERR_INVALID, "empty view name");
    const st_store_info *in = st_store_get_info(store);
    if (strchr(name, ':')) {
        char buf[256];
        if (strlen(name) >= sizeof buf) return st_error_set(err, ST_ERR_INVALID, "view spec is too long");
        snprintf(buf, sizeof buf, "%s", name);
        char *f[6];
        int nf = 0;
        for (char *p = buf; nf < 6;) {
            f[nf++] = p;
            char *c = strchr(p, ':');
            if (!c) break;
            *c = 0;
            p = c + 1;
        }
        const char *form = "expected name:x,y:yaw:pitch[:height] (metres)";
        if (nf < 4 || nf > 5) return st_error_set(err, ST_ERR_INVALID, "view '%s': %s", name, form);
        st_viewpoint v;
        memset(&v, 0, sizeof v);
        if (!f[0][0] || strlen(f[0]) >= sizeof v.name)
            return st_error_set(err, ST_ERR_INVALID, "view '%s': the name must be 1 to %zu characters", name,
                                sizeof v.name - 1);
        snprintf(v.name, sizeof v.name, "%s", f[0]);
        char *comma = strchr(f[1], ',');
        double x, y, yaw, pitch, height = 100.0 * fmax(in->spacing_x_m, in->spacing_y_m);
        if (comma) *comma = 0;
        if (!comma || !parse_number(f[1], &x) || !parse_number(comma + 1, &y))
            return st_error_set(err, ST_ERR_INVALID, "view '%s': position must be x,y in metres", name);
        if (!parse_number(f[2], &yaw)) return st_error_set(err, ST_ERR_INVALID, "view '%s': bad yaw", name);
        if (!parse_number(f[3], &pitch) || pitch < -90 || pitch > 90)
            return st_error_set(err, ST_ERR_INVALID, "view '%s': pitch must be a number from -90 to 90", name);
        if (nf == 5 && (!parse_number(f[4], &height) || height < 0 || height > 1e6))
            return st_error_set(err, ST_ERR_INVALID, "view '%s': height must be 0 to 1000000 m", name);
        if (x < 0 || y < 0 || x > extent_x(in) || y > extent_y(in))
            return st_error_set(err, ST_ERR_INVALID, "view '%s': (%g, %g) is outside the %.0f x %.0f m store", name, x,
                                y, extent_x(in), extent_y(in));
        v.x = (float)x, v.y = (float)y, v.yaw_deg = (float)yaw, v.pitch_deg = (float)pitch, v.eye_height = (float)height;
        *out = v;
        return ST_OK;
    }
    st_viewpoint views[12];
    size_t n = 0;
    st_result r = st_store_views_default(store, views, 12, &n, err);
    if (r) return r;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(views[i].name, name)) {
            *out = views[i];
            return ST_OK;
        }
    return st_error_set(err, ST_ERR_INVALID, "unknown view '%s' (a store's views: horizon-1..3, pitch30-1..3, "
                        "pitch60-1..3, top-1..3; or name:x,y:yaw:pitch[:height] in metres)", name);
}

st_result st_store_view_camera(st_store *store, const st_viewpoint *v, st_camera *out, st_error *err) {
    memset(out, 0, sizeof *out);
    double ground = 0;
    st_result r = st_store_ground(store, v->x, v->y, &ground, err);
    if (r) return r;
    double eye[3] = {v->x, v->y, ground + v->eye_height};
    st_camera_set_eye(out, eye);
    out->yaw_deg = v->yaw_deg;
    out->pitch_deg = v->pitch_deg;
    out->fovy_deg = ST_DEFAULT_FOVY_DEG;
    out->near_dist = ST_DEFAULT_NEAR;
    out->far_dist = (float)st_store_far(store);
    return ST_OK;
}
