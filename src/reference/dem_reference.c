/* The CPU reference of DEM tile stores: rays against the full-resolution DEM (the finest tiles' bilinear surface)
 * in double precision — a front-to-back descent of the tile quadtree pruned by the index's highest points, a DDA
 * over blocks of 16×16 cells pruned by each block's highest sample, a DDA over cells with the exact intersection of
 * the ray and the cell's bilinear patch — shaded by the DEM ground's formula with an exact shadow ray. Decoded tiles
 * live in a bounded cache (mutex, reference counts, LRU) shared by the casting threads. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/reference.h"
#include "strata/shading.h"
#include "strata/tiles.h"

#define BLOCK 16u            /* cells per side of a pruning block */
#define BUCKETS 4096u        /* hash buckets of the tile cache */
#define DEFAULT_CACHE 1024u  /* decoded tiles */

typedef struct ref_tile {
    uint64_t key;
    float *h;                /* size² samples, metres */
    float *bmax;             /* per block: the highest of its samples (its edges included) */
    uint32_t refs;
    bool ready;
    st_result failed;
    char message[256];
    struct ref_tile *hnext, *prev, *next; /* hash chain; LRU of unreferenced ready tiles */
} ref_tile;

struct st_dem_reference {
    st_store *store;
    const st_store_info *in;
    uint32_t s, size, blocks, block; /* intervals, samples a side, blocks a side, cells per block side */
    double sx, sy, ext_x, ext_y;
    bool shadows;
    uint32_t cap, count;
    ref_tile *buckets[BUCKETS];
    ref_tile *lru_head, *lru_tail;
    pthread_mutex_t lock;
    pthread_cond_t ready;
    atomic_ullong tiles_read;
};

/* ---- the tile cache ------------------------------------------------------------------------------------------ */

static uint32_t bucket_of(uint64_t key) { return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 52) % BUCKETS; }

static void lru_unlink(st_dem_reference *r, ref_tile *t) {
    if (t->prev) t->prev->next = t->next;
    else if (r->lru_head == t) r->lru_head = t->next;
    if (t->next) t->next->prev = t->prev;
    else if (r->lru_tail == t) r->lru_tail = t->prev;
    t->prev = t->next = NULL;
}

static void tile_free(ref_tile *t) {
    free(t->h);
    free(t->bmax);
    free(t);
}

static void hash_remove(st_dem_reference *r, ref_tile *t) {
    ref_tile **p = &r->buckets[bucket_of(t->key)];
    while (*p && *p != t) p = &(*p)->hnext;
    if (*p) *p = t->hnext;
    r->count--;
}

/* Drops unreferenced tiles, least recently used first, while the cache is over its capacity. Locked. */
static void trim(st_dem_reference *r) {
    while (r->count > r->cap && r->lru_head) {
        ref_tile *t = r->lru_head;
        lru_unlink(r, t);
        hash_remove(r, t);
        tile_free(t);
    }
}

static st_result load(st_dem_reference *r, ref_tile *t, st_error *err) {
    st_tile *tile = NULL;
    st_result res = st_store_read_tile(r->store, st_tile_key_unpack(t->key), &tile, err);
    if (res) return res;
    size_t n = (size_t)r->size * r->size;
    t->h = malloc(n * sizeof *t->h);
    t->bmax = malloc((size_t)r->blocks * r->blocks * sizeof *t->bmax);
    if (!t->h || !t->bmax) {
        st_tile_destroy(tile);
        return st_error_set(err, ST_ERR_NOMEM, "reference: out of memory for a tile");
    }
    for (uint32_t j = 0; j < r->size; j++)
        for (uint32_t i = 0; i < r->size; i++) t->h[(size_t)j * r->size + i] = st_tile_height(tile, i, j);
    st_tile_destroy(tile);
    for (uint32_t bj = 0; bj < r->blocks; bj++)
        for (uint32_t bi = 0; bi < r->blocks; bi++) {
            float mx = -INFINITY;
            for (uint32_t j = bj * r->block; j <= (bj + 1) * r->block; j++)
                for (uint32_t i = bi * r->block; i <= (bi + 1) * r->block; i++)
                    mx = fmaxf(mx, t->h[(size_t)j * r->size + i]);
            t->bmax[bj * r->blocks + bi] = mx;
        }
    atomic_fetch_add(&r->tiles_read, 1);
    return ST_OK;
}

/* The decoded tile of key, loaded on first use (other threads wanting it meanwhile wait). Release it after use. */
static ref_tile *acquire(st_dem_reference *r, st_tile_key key, st_error *err) {
    uint64_t k = st_tile_key_pack(key);
    pthread_mutex_lock(&r->lock);
    ref_tile *t = r->buckets[bucket_of(k)];
    while (t && t->key != k) t = t->hnext;
    if (t) {
        if (!t->refs && t->ready) lru_unlink(r, t);
        t->refs++;
        while (!t->ready) pthread_cond_wait(&r->ready, &r->lock);
        pthread_mutex_unlock(&r->lock);
        if (t->failed) {
            st_error_set(err, t->failed, "%s", t->message);
            return NULL; /* the caller still releases it */
        }
        return t;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        pthread_mutex_unlock(&r->lock);
        st_error_set(err, ST_ERR_NOMEM, "reference: out of memory");
        return NULL;
    }
    t->key = k;
    t->refs = 1;
    uint32_t b = bucket_of(k);
    t->hnext = r->buckets[b];
    r->buckets[b] = t;
    r->count++;
    trim(r);
    pthread_mutex_unlock(&r->lock);
    st_error lerr = {0};
    st_result res = load(r, t, &lerr);
    pthread_mutex_lock(&r->lock);
    t->ready = true;
    if (res) {
        t->failed = res;
        snprintf(t->message, sizeof t->message, "%s", lerr.message);
    }
    pthread_cond_broadcast(&r->ready);
    pthread_mutex_unlock(&r->lock);
    if (res) {
        st_error_set(err, res, "%s", lerr.message);
        return NULL;
    }
    return t;
}

static void release(st_dem_reference *r, st_tile_key key) {
    uint64_t k = st_tile_key_pack(key);
    pthread_mutex_lock(&r->lock);
    ref_tile *t = r->buckets[bucket_of(k)];
    while (t && t->key != k) t = t->hnext;
    if (t && !--t->refs) {
        if (t->failed) { /* a failed load is tried again by the next acquire */
            hash_remove(r, t);
            tile_free(t);
        } else {
            t->prev = r->lru_tail;
            if (r->lru_tail) r->lru_tail->next = t;
            else r->lru_head = t;
            r->lru_tail = t;
            trim(r);
        }
    }
    pthread_mutex_unlock(&r->lock);
}

/* ---- creation -------------------------------------------------------------------------------------------------- */

st_result st_dem_reference_create(st_store *store, uint32_t cache_tiles, st_dem_reference **out, st_error *err) {
    *out = NULL;
    const st_store_info *in = st_store_get_info(store);
    if (in->kind != ST_TILE_DEM) return st_error_set(err, ST_ERR_INVALID, "reference: a layer store has no DEM");
    if (in->tile_size < 3 || !st_is_pow2(in->tile_size - 1))
        return st_error_set(err, ST_ERR_INVALID, "reference: tiles of %u samples", in->tile_size);
    st_dem_reference *r = calloc(1, sizeof *r);
    if (!r) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    r->store = store;
    r->in = in;
    r->s = in->tile_size - 1;
    r->size = in->tile_size;
    r->block = r->s < BLOCK ? r->s : BLOCK;
    r->blocks = r->s / r->block;
    r->sx = in->spacing_x_m;
    r->sy = in->spacing_y_m;
    r->ext_x = (double)(in->width - 1) * r->sx;
    r->ext_y = (double)(in->height - 1) * r->sy;
    r->shadows = true;
    r->cap = cache_tiles ? cache_tiles : DEFAULT_CACHE;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->ready, NULL);
    *out = r;
    return ST_OK;
}

void st_dem_reference_destroy(st_dem_reference *r) {
    if (!r) return;
    for (uint32_t b = 0; b < BUCKETS; b++)
        for (ref_tile *t = r->buckets[b], *next; t; t = next) {
            next = t->hnext;
            tile_free(t);
        }
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->ready);
    free(r);
}

void st_dem_reference_set_shadows(st_dem_reference *r, bool on) { r->shadows = on; }

uint64_t st_dem_reference_tiles_read(const st_dem_reference *r) {
    return atomic_load(&((st_dem_reference *)r)->tiles_read);
}

/* ---- the ray ---------------------------------------------------------------------------------------------------- */

typedef struct ray {
    double o[3], d[3];
} ray;

/* The interval of t where the ray's xy lies in [x0, x1] × [y0, y1], within [t0, t1]; false when empty. */
static bool slab(const ray *ry, double x0, double x1, double y0, double y1, double *t0, double *t1) {
    double lo = *t0, hi = *t1;
    const double b0[2] = {x0, y0}, b1[2] = {x1, y1};
    for (int a = 0; a < 2; a++) {
        if (ry->d[a] == 0) {
            if (ry->o[a] < b0[a] || ry->o[a] > b1[a]) return false;
            continue;
        }
        double ta = (b0[a] - ry->o[a]) / ry->d[a], tb = (b1[a] - ry->o[a]) / ry->d[a];
        if (ta > tb) {
            double s = ta;
            ta = tb, tb = s;
        }
        lo = fmax(lo, ta), hi = fmin(hi, tb);
    }
    *t0 = lo, *t1 = hi;
    return lo <= hi;
}

/* The first t in [t0, t1] where the ray is on or below the bilinear patch of cell (i, j) of tile t (whose sample
 * (0, 0) is at world (ox, oy)). */
static bool cell_hit(const st_dem_reference *r, const ref_tile *t, double ox, double oy, uint32_t i, uint32_t j,
                     const ray *ry, double t0, double t1, double *hit) {
    const float *h = t->h + (size_t)j * r->size + i;
    double h00 = h[0], h10 = h[1], h01 = h[r->size], h11 = h[r->size + 1];
    double A = h00, B = h10 - h00, C = h01 - h00, D = h00 - h10 - h01 + h11;
    /* the patch's local coordinates at t0, and their rates */
    double au = (ry->o[0] + t0 * ry->d[0] - ox) / r->sx - i, av = (ry->o[1] + t0 * ry->d[1] - oy) / r->sy - j;
    double du = ry->d[0] / r->sx, dv = ry->d[1] / r->sy;
    double z0 = ry->o[2] + t0 * ry->d[2];
    /* f(s) = z(t0 + s) − h(u, v) = c + b·s + a·s² */
    double c = z0 - (A + B * au + C * av + D * au * av);
    double b = ry->d[2] - (B * du + C * dv + D * (au * dv + av * du));
    double a = -D * du * dv;
    double len = t1 - t0;
    if (c <= 0) {
        *hit = t0;
        return true;
    }
    double root = INFINITY;
    if (fabs(a) < 1e-300) {
        if (b < 0) root = -c / b;
    } else {
        double disc = b * b - 4 * a * c;
        if (disc >= 0) {
            double sq = sqrt(disc);
            /* the numerically stable pair of roots */
            double q = -0.5 * (b + (b >= 0 ? sq : -sq));
            double r1 = q / a, r2 = q != 0 ? c / q : INFINITY;
            if (r1 > 0) root = r1;
            if (r2 > 0 && r2 < root) root = r2;
        }
    }
    if (root <= len) {
        *hit = t0 + root;
        return true;
    }
    /* f(len) ≤ 0 with no root found inside (rounding): the exit point */
    if (c + b * len + a * len * len <= 0) {
        *hit = t1;
        return true;
    }
    return false;
}

/* A DDA over the n × n cells of size (cw, ch) metres whose cell (0, 0) starts at world (ox, oy), between t0 and t1:
 * calls visit(cell) for each cell the ray passes, in order, until it returns true. */
typedef bool (*cell_fn)(void *user, uint32_t i, uint32_t j, double t0, double t1);

static bool dda(const ray *ry, double ox, double oy, double cw, double ch, uint32_t n, double t0, double t1, cell_fn fn,
                void *user) {
    double tm = 0.5 * (t0 + fmin(t1, t0 + 1e-9));
    double u = (ry->o[0] + tm * ry->d[0] - ox) / cw, v = (ry->o[1] + tm * ry->d[1] - oy) / ch;
    int64_t i = (int64_t)floor(u), j = (int64_t)floor(v);
    i = i < 0 ? 0 : i >= (int64_t)n ? (int64_t)n - 1 : i;
    j = j < 0 ? 0 : j >= (int64_t)n ? (int64_t)n - 1 : j;
    int si = ry->d[0] > 0 ? 1 : -1, sj = ry->d[1] > 0 ? 1 : -1;
    double next_i = ry->d[0] != 0 ? (ox + (double)(i + (si > 0)) * cw - ry->o[0]) / ry->d[0] : INFINITY;
    double next_j = ry->d[1] != 0 ? (oy + (double)(j + (sj > 0)) * ch - ry->o[1]) / ry->d[1] : INFINITY;
    double step_i = ry->d[0] != 0 ? cw / fabs(ry->d[0]) : INFINITY, step_j = ry->d[1] != 0 ? ch / fabs(ry->d[1]) : INFINITY;
    double t = t0;
    for (;;) {
        double exit = fmin(fmin(next_i, next_j), t1);
        if (exit < t) exit = t;
        if (fn(user, (uint32_t)i, (uint32_t)j, t, exit)) return true;
        if (exit >= t1) return false;
        t = exit;
        if (next_i <= next_j) {
            i += si;
            next_i += step_i;
            if (i < 0 || i >= (int64_t)n) return false;
        } else {
            j += sj;
            next_j += step_j;
            if (j < 0 || j >= (int64_t)n) return false;
        }
    }
}

typedef struct tile_walk {
    const st_dem_reference *r;
    const ref_tile *t;
    const ray *ry;
    double ox, oy; /* world position of the tile's sample (0, 0) */
    uint32_t bi, bj; /* the block being walked */
    double hit;
} tile_walk;

static bool visit_cell(void *user, uint32_t ci, uint32_t cj, double t0, double t1) {
    tile_walk *w = user;
    uint32_t i = w->bi * w->r->block + ci, j = w->bj * w->r->block + cj;
    return cell_hit(w->r, w->t, w->ox, w->oy, i, j, w->ry, t0, t1, &w->hit);
}

static bool visit_block(void *user, uint32_t bi, uint32_t bj, double t0, double t1) {
    tile_walk *w = user;
    const st_dem_reference *r = w->r;
    double z0 = w->ry->o[2] + t0 * w->ry->d[2], z1 = w->ry->o[2] + t1 * w->ry->d[2];
    if (fmin(z0, z1) > w->t->bmax[bj * r->blocks + bi]) return false; /* above every sample of the block */
    w->bi = bi, w->bj = bj;
    double bx = w->ox + (double)(bi * r->block) * r->sx, by = w->oy + (double)(bj * r->block) * r->sy;
    return dda(w->ry, bx, by, r->sx, r->sy, r->block, t0, t1, visit_cell, w);
}

typedef struct walk {
    st_dem_reference *r;
    const ray *ry;
    st_result failed;
    st_error *err;
} walk;

/* The first hit inside tile key between t0 and t1 (already clipped to its footprint). */
static bool tile_hit(walk *k, st_tile_key key, double t0, double t1, double *hit) {
    st_dem_reference *r = k->r;
    ref_tile *t = acquire(r, key, k->err);
    if (!t) {
        k->failed = k->err && k->err->code ? k->err->code : ST_ERR_IO;
        release(r, key);
        return false;
    }
    tile_walk w = {.r = r, .t = t, .ry = k->ry, .ox = (double)key.x * r->s * r->sx, .oy = (double)key.y * r->s * r->sy};
    bool found = dda(k->ry, w.ox, w.oy, r->block * r->sx, r->block * r->sy, r->blocks, t0, t1, visit_block, &w);
    release(r, key);
    if (found) *hit = w.hit;
    return found;
}

static bool visit_tile(walk *k, st_tile_key key, double t0, double t1, double *hit) {
    st_dem_reference *r = k->r;
    if (k->failed) return false;
    double span_x = ldexp((double)r->s * r->sx, (int)key.level), span_y = ldexp((double)r->s * r->sy, (int)key.level);
    double x0 = key.x * span_x, y0 = key.y * span_y;
    double x1 = fmin(x0 + span_x, r->ext_x), y1 = fmin(y0 + span_y, r->ext_y);
    if (x0 > r->ext_x || y0 > r->ext_y || !slab(k->ry, x0, x1, y0, y1, &t0, &t1)) return false;
    st_tile_meta m;
    if (!st_store_tile_meta(r->store, key, &m)) return false;
    double z0 = k->ry->o[2] + t0 * k->ry->d[2], z1 = k->ry->o[2] + t1 * k->ry->d[2];
    if (fmin(z0, z1) > m.max_m) return false;
    if (key.level == 0) return tile_hit(k, key, t0, t1, hit);
    /* the children front to back */
    struct {
        st_tile_key key;
        double t0, t1;
    } c[4];
    int n = 0;
    uint32_t nx, ny;
    st_store_level_tiles(r->store, key.level - 1, &nx, &ny);
    for (uint32_t q = 0; q < 4; q++) {
        st_tile_key ck = {key.level - 1, 2 * key.x + (q & 1), 2 * key.y + (q >> 1)};
        if (ck.x >= nx || ck.y >= ny) continue;
        double cx0 = ck.x * 0.5 * span_x, cy0 = ck.y * 0.5 * span_y;
        double a = t0, b = t1;
        if (!slab(k->ry, cx0, fmin(cx0 + 0.5 * span_x, r->ext_x), cy0, fmin(cy0 + 0.5 * span_y, r->ext_y), &a, &b))
            continue;
        int at = n++;
        while (at > 0 && c[at - 1].t0 > a) c[at] = c[at - 1], at--;
        c[at].key = ck, c[at].t0 = a, c[at].t1 = b;
    }
    for (int i = 0; i < n; i++)
        if (visit_tile(k, c[i].key, c[i].t0, c[i].t1, hit)) return true;
    return false;
}

st_result st_dem_reference_ray(st_dem_reference *r, const double origin[3], const double dir[3], double t_min,
                               double t_max, bool *hit, double *t_hit, st_error *err) {
    *hit = false;
    ray ry = {{origin[0], origin[1], origin[2]}, {dir[0], dir[1], dir[2]}};
    st_error local = {0};
    walk k = {.r = r, .ry = &ry, .err = err ? err : &local};
    double t = 0;
    bool found = visit_tile(&k, (st_tile_key){r->in->levels - 1, 0, 0}, t_min, t_max, &t);
    if (k.failed) return k.failed;
    *hit = found;
    if (found) *t_hit = t;
    return ST_OK;
}

st_result st_dem_reference_height(st_dem_reference *r, double x, double y, double *height, double grad[2],
                                  st_error *err) {
    double u = fmin(fmax(x / r->sx, 0), (double)(r->in->width - 1)), v = fmin(fmax(y / r->sy, 0), (double)(r->in->height - 1));
    uint32_t nx, ny;
    st_store_level_tiles(r->store, 0, &nx, &ny);
    uint32_t tx = (uint32_t)fmin(floor(u / r->s), nx - 1), ty = (uint32_t)fmin(floor(v / r->s), ny - 1);
    st_tile_key key = {0, tx, ty};
    ref_tile *t = acquire(r, key, err);
    if (!t) {
        release(r, key);
        return err && err->code ? err->code : ST_ERR_IO;
    }
    double lu = u - (double)tx * r->s, lv = v - (double)ty * r->s;
    uint32_t i = (uint32_t)fmin(floor(lu), r->s - 1), j = (uint32_t)fmin(floor(lv), r->s - 1);
    double fu = lu - i, fv = lv - j;
    const float *h = t->h + (size_t)j * r->size + i;
    double h00 = h[0], h10 = h[1], h01 = h[r->size], h11 = h[r->size + 1];
    double a = h00 * (1 - fu) + h10 * fu, b = h01 * (1 - fu) + h11 * fu;
    *height = a * (1 - fv) + b * fv;
    if (grad) {
        grad[0] = ((h10 - h00) * (1 - fv) + (h11 - h01) * fv) / r->sx;
        grad[1] = (b - a) / r->sy;
    }
    release(r, key);
    return ST_OK;
}

/* ---- the image ------------------------------------------------------------------------------------------------ */

typedef struct cast_job {
    st_dem_reference *r;
    st_view view;
    st_ref_image *img;
    float sun[3];
    pthread_mutex_t lock;
    st_result failed;
    st_error err;
} cast_job;

static st_result shade(cast_job *job, const float dir[3], double t, uint8_t *c, st_error *err) {
    st_dem_reference *r = job->r;
    const double *o = job->view.origin;
    double p[3] = {o[0] + dir[0] * t, o[1] + dir[1] * t, o[2] + dir[2] * t};
    double h, g[2];
    st_result res = st_dem_reference_height(r, p[0], p[1], &h, g, err);
    if (res) return res;
    float n[3] = {(float)-g[0], (float)-g[1], 1.0f};
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) n[k] /= len;
    float vis = 1.0f;
    if (r->shadows) {
        /* from just off the surface, as the GPU's march starts: half a spacing along the normal and the sun */
        double step = 0.5 * fmax(r->sx, r->sy), q[3], L[3] = {job->sun[0], job->sun[1], job->sun[2]};
        for (int k = 0; k < 3; k++) q[k] = p[k] + n[k] * step + L[k] * step;
        double top = r->in->max_m;
        if (L[2] > 0 && q[2] < top) {
            bool hit = false;
            double th;
            res = st_dem_reference_ray(r, q, L, 0, (top - q[2]) / L[2] + 1, &hit, &th, err);
            if (res) return res;
            if (hit) vis = 0.0f;
        }
    }
    float rel[3] = {(float)(dir[0] * t), (float)(dir[1] * t), (float)(dir[2] * t)}, rgb[3];
    st_dem_shade(rel, (float)p[2], n, vis, (float)r->in->sea_level_m, (float)r->in->max_m, job->view.far_dist, rgb);
    for (int k = 0; k < 3; k++) c[k] = st_shade_srgb8(rgb[k]);
    return ST_OK;
}

static void cast_rows(void *user, size_t begin, size_t end) {
    cast_job *job = user;
    st_ref_image *img = job->img;
    for (size_t j = begin; j < end; j++) {
        if (job->failed) return;
        for (uint32_t i = 0; i < img->width; i++) {
            float dir[3], tn, tf;
            st_view_pixel_ray(&job->view, i, (uint32_t)j, dir, &tn, &tf);
            double d[3] = {dir[0], dir[1], dir[2]}, t = 0;
            size_t k = j * img->width + i;
            uint8_t *c = img->rgba + 4 * k;
            bool hit = false;
            st_error err = {0};
            st_result res = st_dem_reference_ray(job->r, job->view.origin, d, tn, tf, &hit, &t, &err);
            if (!res && hit) res = shade(job, dir, t, c, &err);
            if (res) {
                pthread_mutex_lock(&job->lock);
                if (!job->failed) job->failed = res, job->err = err;
                pthread_mutex_unlock(&job->lock);
                return;
            }
            if (hit) {
                img->distance[k] = (float)t;
                img->face[k] = ST_REF_FACE_TOP;
            } else {
                img->distance[k] = NAN;
                img->face[k] = ST_REF_SKY;
                c[0] = st_shade_srgb8(ST_FOG_R), c[1] = st_shade_srgb8(ST_FOG_G), c[2] = st_shade_srgb8(ST_FOG_B);
            }
            img->type[k] = 0;
            c[3] = 255;
        }
    }
}

st_result st_dem_reference_cast(st_dem_reference *r, const st_camera *camera, st_ref_image *img, st_error *err) {
    if (!img->distance || !img->width) return st_error_set(err, ST_ERR_INVALID, "reference: the image is not allocated");
    cast_job *job = calloc(1, sizeof *job);
    if (!job) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    job->r = r;
    job->view = st_camera_view(camera, img->width, img->height);
    job->img = img;
    float s = 1.0f / sqrtf(ST_SUN_X * ST_SUN_X + ST_SUN_Y * ST_SUN_Y + ST_SUN_Z * ST_SUN_Z);
    job->sun[0] = ST_SUN_X * s, job->sun[1] = ST_SUN_Y * s, job->sun[2] = ST_SUN_Z * s;
    pthread_mutex_init(&job->lock, NULL);
    st_parallel_for(img->height, 2, cast_rows, job);
    st_result res = job->failed;
    if (res && err) *err = job->err;
    pthread_mutex_destroy(&job->lock);
    free(job);
    return res;
}
