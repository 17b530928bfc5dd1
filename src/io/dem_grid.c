/* The read every DEM reader shares: a window clamped (or wrapped) onto the raster, fetched through the reader,
 * its voids filled by the one rule — the inverse-distance-squared mean of the valid samples on the nearest
 * ring that has any, and the ring after it — and converted to metres. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dem_internal.h"

static inline int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Columns [x0, x0 + w) (unwrapped coordinates when the grid wraps) of rows [y0, y0 + h), all in the raster. */
static st_result fetch_region(st_dem_grid *g, int64_t x0, uint64_t y0, uint32_t w, uint32_t h, float *dst,
                              size_t stride, st_error *err) {
    if (!g->wrap_x) return g->fetch(g->state, (uint64_t)x0, y0, w, h, dst, stride, err);
    const int64_t W = (int64_t)g->width;
    for (uint32_t done = 0; done < w;) {
        int64_t xm = ((x0 + done) % W + W) % W;
        uint64_t n = (uint64_t)(W - xm);
        if (n > w - done) n = w - done;
        st_result r = g->fetch(g->state, (uint64_t)xm, y0, (uint32_t)n, h, dst + done, stride, err);
        if (r) return r;
        done += (uint32_t)n;
    }
    return ST_OK;
}

/* Sets every void of the rectangle to NAN: NaN and infinite values, and values whose metres lie beyond
 * ±ST_DEM_ABSURD_M (one range test on the raw value, the bound taken back through the scale); returns how
 * many there are. */
static size_t mark_voids(const st_dem_grid *g, float *v, uint32_t w, uint32_t h, size_t stride) {
    double a = (-ST_DEM_ABSURD_M - g->offset) / g->scale, b = (ST_DEM_ABSURD_M - g->offset) / g->scale;
    const float lo = (float)fmin(a, b), hi = (float)fmax(a, b);
    size_t voids = 0;
    for (uint32_t j = 0; j < h; j++) {
        float *row = v + (size_t)j * stride;
        for (uint32_t i = 0; i < w; i++)
            if (!(row[i] >= lo && row[i] <= hi)) { /* false for NaN too */
                row[i] = NAN;
                voids++;
            }
    }
    return voids;
}

/* ---- the fill rule ------------------------------------------------------------------------------------------ */

/* A padded window: values v and validity valid (row stride `stride`), pw × ph, holding every sample within
 * ST_DEM_VOID_RADIUS of the voids to fill that lies in the raster. Validity comes from its own array so that a
 * fill written in place is never taken for a valid sample. */
typedef struct fill_window {
    const float *v;
    const uint8_t *valid;
    size_t stride;
    uint32_t pw, ph;
    uint32_t *sat; /* (pw + 1) · (ph + 1): valid samples in [0, x) × [0, y) */
    bool integral;
    float sea_raw;
} fill_window;

static void build_sat(fill_window *f) {
    size_t sw = (size_t)f->pw + 1;
    memset(f->sat, 0, sizeof(uint32_t) * sw);
    for (uint32_t y = 0; y < f->ph; y++) {
        uint32_t row = 0;
        uint32_t *above = f->sat + (size_t)y * sw, *here = above + sw;
        here[0] = 0;
        for (uint32_t x = 0; x < f->pw; x++) {
            row += f->valid[(size_t)y * f->stride + x] != 0;
            here[x + 1] = above[x + 1] + row;
        }
    }
}

/* Valid samples in the square of half-side r around (x, y), clipped to the window. */
static uint32_t box_count(const fill_window *f, int64_t x, int64_t y, int64_t r) {
    int64_t x0 = clamp64(x - r, 0, f->pw), x1 = clamp64(x + r + 1, 0, f->pw);
    int64_t y0 = clamp64(y - r, 0, f->ph), y1 = clamp64(y + r + 1, 0, f->ph);
    if (x0 >= x1 || y0 >= y1) return 0;
    size_t sw = (size_t)f->pw + 1;
    const uint32_t *s = f->sat;
    return s[(size_t)y1 * sw + (size_t)x1] - s[(size_t)y0 * sw + (size_t)x1] - s[(size_t)y1 * sw + (size_t)x0] +
           s[(size_t)y0 * sw + (size_t)x0];
}

/* The fill of the void at (x, y) of the window. The result depends only on the raster's samples within the
 * radius, and the sum runs in one fixed order around the sample, so every window that holds the
 * neighbourhood computes the same float. */
static float fill_one(const fill_window *f, int64_t x, int64_t y, bool *sea) {
    const int64_t R = ST_DEM_VOID_RADIUS;
    *sea = false;
    if (!box_count(f, x, y, R)) {
        *sea = true;
        return f->sea_raw;
    }
    int64_t lo = 1, hi = R; /* the nearest ring (Chebyshev distance) holding a valid sample */
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (box_count(f, x, y, mid)) hi = mid;
        else lo = mid + 1;
    }
    /* The next ring too: its samples can be nearer in Euclidean terms than the nearest ring's corners, and a
     * second ring smooths the fill across a void's width. */
    int64_t last = lo < R ? lo + 1 : lo;
    double sw = 0, s = 0;
    for (int64_t r = lo; r <= last; r++)
        for (int64_t dy = -r; dy <= r; dy++) {
            int64_t yy = y + dy;
            if (yy < 0 || yy >= f->ph) continue;
            int64_t step = (dy == -r || dy == r) ? 1 : 2 * r;
            for (int64_t dx = -r; dx <= r; dx += step) {
                int64_t xx = x + dx;
                if (xx < 0 || xx >= f->pw) continue;
                size_t i = (size_t)yy * f->stride + (size_t)xx;
                if (!f->valid[i]) continue;
                double wgt = 1.0 / (double)(dx * dx + dy * dy);
                sw += wgt;
                s += wgt * (double)f->v[i];
            }
        }
    double v = s / sw;
    return (float)(f->integral ? floor(v + 0.5) : v);
}

/* Fills the voids of the block [ox, ox + bw) × [oy, oy + bh) of the window into dst (row stride ds). */
static void fill_block(const fill_window *f, uint32_t ox, uint32_t oy, uint32_t bw, uint32_t bh, float *dst,
                       size_t ds, uint64_t *filled, uint64_t *sea_level) {
    for (uint32_t j = 0; j < bh; j++)
        for (uint32_t i = 0; i < bw; i++) {
            if (f->valid[(size_t)(oy + j) * f->stride + ox + i]) continue;
            bool sea;
            dst[(size_t)j * ds + i] = fill_one(f, ox + i, oy + j, &sea);
            (*filled)++;
            *sea_level += sea;
        }
}

static float sea_raw_of(const st_dem_grid *g) {
    double s = (0.0 - g->offset) / g->scale;
    return (float)(g->integral ? floor(s + 0.5) : s);
}

/* The padded window [px0, px0 + pw) × [py0, py0 + ph) around a core that lies inside it: the core's samples
 * (voids already marked) copied in, the frame of up to four bands around them fetched and marked. */
static st_result fetch_frame(st_dem_grid *g, const float *core, int64_t cx0, int64_t cy0, uint32_t cw, uint32_t ch,
                             int64_t px0, int64_t py0, uint32_t pw, uint32_t ph, float *pad, st_error *err) {
    uint32_t ox = (uint32_t)(cx0 - px0), oy = (uint32_t)(cy0 - py0);
    for (uint32_t j = 0; j < ch; j++) memcpy(pad + (size_t)(oy + j) * pw + ox, core + (size_t)j * cw, sizeof(float) * cw);
    const struct {
        uint32_t x, y, w, h;
    } band[4] = {{0, 0, pw, oy},                       /* above */
                 {0, oy + ch, pw, ph - oy - ch},       /* below */
                 {0, oy, ox, ch},                      /* left */
                 {ox + cw, oy, pw - ox - cw, ch}};     /* right */
    for (int k = 0; k < 4; k++) {
        if (!band[k].w || !band[k].h) continue;
        float *dst = pad + (size_t)band[k].y * pw + band[k].x;
        st_result r = fetch_region(g, px0 + band[k].x, (uint64_t)(py0 + band[k].y), band[k].w, band[k].h, dst, pw, err);
        if (r) return r;
        mark_voids(g, dst, band[k].w, band[k].h, pw);
    }
    return ST_OK;
}

/* Fills the voids of core (cw × ch, row stride cw, raster origin (cx0, cy0)) block by block, each block from
 * its own window padded by the radius and clipped to the raster (not in x when it wraps). */
static st_result fill_core(st_dem_grid *g, float *core, int64_t cx0, uint64_t cy0, uint32_t cw, uint32_t ch,
                           st_error *err) {
    const uint32_t B = ST_DEM_FILL_BLOCK, R = ST_DEM_VOID_RADIUS;
    const size_t pmax = (size_t)(B + 2 * R) * (B + 2 * R);
    float *pad = malloc(sizeof(float) * pmax);
    uint8_t *valid = malloc(pmax);
    uint32_t *sat = malloc(sizeof(uint32_t) * (size_t)(B + 2 * R + 1) * (B + 2 * R + 1));
    st_result r = ST_OK;
    if (!pad || !valid || !sat) r = st_error_set(err, ST_ERR_NOMEM, "%s: out of memory filling voids", g->name);
    uint64_t filled = 0, sea = 0;
    /* One block (any window up to B²): its padded window reuses the core's samples and fetches only the frame
     * around them. With several blocks a block's fills land in the core before the next block pads, so each
     * pads from the source instead. */
    const bool single = cw <= B && ch <= B;
    for (uint32_t by = 0; !r && by < ch; by += B)
        for (uint32_t bx = 0; !r && bx < cw; bx += B) {
            uint32_t bw = cw - bx < B ? cw - bx : B, bh = ch - by < B ? ch - by : B;
            bool any = false;
            for (uint32_t j = 0; j < bh && !any; j++)
                for (uint32_t i = 0; i < bw && !any; i++) any = isnan(core[(size_t)(by + j) * cw + bx + i]);
            if (!any) continue;
            int64_t X0 = cx0 + bx, Y0 = (int64_t)(cy0 + by);
            int64_t px0 = X0 - R, px1 = X0 + bw - 1 + R;
            if (!g->wrap_x) {
                px0 = clamp64(px0, 0, (int64_t)g->width - 1);
                px1 = clamp64(px1, 0, (int64_t)g->width - 1);
            }
            int64_t py0 = clamp64(Y0 - R, 0, (int64_t)g->height - 1);
            int64_t py1 = clamp64(Y0 + bh - 1 + R, 0, (int64_t)g->height - 1);
            uint32_t pw = (uint32_t)(px1 - px0 + 1), ph = (uint32_t)(py1 - py0 + 1);
            if (single) r = fetch_frame(g, core, cx0, cy0, cw, ch, px0, py0, pw, ph, pad, err);
            else if (!(r = fetch_region(g, px0, (uint64_t)py0, pw, ph, pad, pw, err))) mark_voids(g, pad, pw, ph, pw);
            if (r) break;
            for (size_t i = 0; i < (size_t)pw * ph; i++) valid[i] = !isnan(pad[i]);
            fill_window f = {pad, valid, pw, pw, ph, sat, g->integral, sea_raw_of(g)};
            build_sat(&f);
            fill_block(&f, (uint32_t)(X0 - px0), (uint32_t)(Y0 - py0), bw, bh, core + (size_t)by * cw + bx, cw,
                       &filled, &sea);
        }
    free(pad);
    free(valid);
    free(sat);
    atomic_fetch_add(&g->filled, filled);
    atomic_fetch_add(&g->sea_level, sea);
    return r;
}

st_result st_dem_grid_read(st_dem_grid *g, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out,
                           st_error *err) {
    const int64_t W = (int64_t)g->width, H = (int64_t)g->height;
    /* The raster samples the window needs: clamped to the edge (or, wrapping, the window's own columns). */
    int64_t cx0 = g->wrap_x ? x0 : clamp64(x0, 0, W - 1);
    int64_t cx1 = g->wrap_x ? x0 + w - 1 : clamp64(x0 + (int64_t)w - 1, 0, W - 1);
    int64_t cy0 = clamp64(y0, 0, H - 1), cy1 = clamp64(y0 + (int64_t)h - 1, 0, H - 1);
    uint32_t cw = (uint32_t)(cx1 - cx0 + 1), ch = (uint32_t)(cy1 - cy0 + 1);
    bool direct = cx0 == x0 && cw == w && cy0 == y0 && ch == h; /* wholly inside: fetch straight into out */
    float *core = direct ? out : malloc(sizeof(float) * (size_t)cw * ch);
    if (!core) return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory reading %ux%u samples", g->name, w, h);
    st_result r = fetch_region(g, cx0, (uint64_t)cy0, cw, ch, core, cw, err);
    if (!r && mark_voids(g, core, cw, ch, cw)) r = fill_core(g, core, cx0, (uint64_t)cy0, cw, ch, err);
    if (!r) {
        if (direct) {
            for (size_t i = 0; i < (size_t)w * h; i++) out[i] = (float)(g->offset + g->scale * (double)out[i]);
        } else {
            for (uint32_t j = 0; j < h; j++) {
                const float *row = core + (size_t)(clamp64(y0 + j, 0, H - 1) - cy0) * cw;
                float *o = out + (size_t)j * w;
                for (uint32_t i = 0; i < w; i++) {
                    int64_t ci = g->wrap_x ? (int64_t)i : clamp64(x0 + i, 0, W - 1) - cx0;
                    o[i] = (float)(g->offset + g->scale * (double)row[ci]);
                }
            }
        }
    }
    if (!direct) free(core);
    return r;
}

void st_dem_bound(double lo_m, double hi_m, bool voids, st_dem_info *info) {
    double lo = fmin(lo_m, hi_m), hi = fmax(lo_m, hi_m);
    bool clipped = !(lo >= -ST_DEM_ABSURD_M) || !(hi <= ST_DEM_ABSURD_M);
    lo = lo >= -ST_DEM_ABSURD_M ? lo : -ST_DEM_ABSURD_M;
    hi = hi <= ST_DEM_ABSURD_M ? hi : ST_DEM_ABSURD_M;
    if (voids || clipped) {
        lo = fmin(lo, 0);
        hi = fmax(hi, 0);
    }
    info->min_m = lo;
    info->max_m = hi;
}

void st_dem_grid_counts(st_dem_grid *g, uint64_t *filled, uint64_t *sea_level) {
    *filled = atomic_load(&g->filled);
    *sea_level = atomic_load(&g->sea_level);
}

st_result st_dem_fill_voids(float *raw, uint32_t w, uint32_t h, bool integral, double sea_raw, uint64_t *filled,
                            uint64_t *sea_level, const char *name, st_error *err) {
    const uint32_t B = ST_DEM_FILL_BLOCK, R = ST_DEM_VOID_RADIUS;
    size_t n = (size_t)w * h, voids = 0;
    uint8_t *valid = malloc(n ? n : 1);
    uint32_t *sat = malloc(sizeof(uint32_t) * (size_t)(B + 2 * R + 1) * (B + 2 * R + 1));
    if (!valid || !sat) {
        free(valid);
        free(sat);
        return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory filling voids", name);
    }
    for (size_t i = 0; i < n; i++) {
        valid[i] = !isnan(raw[i]);
        voids += !valid[i];
    }
    if (voids == n) {
        free(valid);
        free(sat);
        return st_error_set(err, ST_ERR_FORMAT, "%s: every sample is a void", name);
    }
    float sea = (float)(integral ? floor(sea_raw + 0.5) : sea_raw);
    for (uint32_t by = 0; voids && by < h; by += B)
        for (uint32_t bx = 0; bx < w; bx += B) {
            uint32_t bw = w - bx < B ? w - bx : B, bh = h - by < B ? h - by : B;
            bool any = false;
            for (uint32_t j = 0; j < bh && !any; j++)
                for (uint32_t i = 0; i < bw && !any; i++) any = !valid[(size_t)(by + j) * w + bx + i];
            if (!any) continue;
            uint32_t px0 = bx > R ? bx - R : 0, py0 = by > R ? by - R : 0;
            uint32_t px1 = bx + bw - 1 + R < w ? bx + bw - 1 + R : w - 1;
            uint32_t py1 = by + bh - 1 + R < h ? by + bh - 1 + R : h - 1;
            size_t base = (size_t)py0 * w + px0;
            /* In place: the fills land in raw, but validity comes from `valid`, taken before any fill. */
            fill_window f = {raw + base, valid + base, w, px1 - px0 + 1, py1 - py0 + 1, sat, integral, sea};
            build_sat(&f);
            fill_block(&f, bx - px0, by - py0, bw, bh, raw + (size_t)by * w + bx, w, filled, sea_level);
        }
    free(valid);
    free(sat);
    return ST_OK;
}
