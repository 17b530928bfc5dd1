/* The CPU's reads of a layer store's texels: a small cache of decoded pages (each one page-sized st_level, so
 * texels decode by the level's own rule) for point reads, and windows of the world as levels of their own — what
 * the CPU side of a paged world reads instead of a level of the whole world. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tiles/tiles_internal.h"

#define DEFAULT_CACHE 8u

typedef struct cached_page {
    uint64_t key; /* packed tile key + 1; 0 = empty */
    uint64_t used;
    st_level *level;
} cached_page;

struct st_layer_pages {
    st_store *store;
    const st_store_info *info;
    uint32_t shift, nx, ny;
    cached_page *cache;
    uint32_t cache_count;
    uint64_t clock;
    st_layer_page_fn newer; /* pages newer than the store's (a paged world's unsaved edits), or NULL */
    void *newer_user;
};

void st_layer_pages_set_source(st_layer_pages *p, st_layer_page_fn fn, void *user) {
    p->newer = fn;
    p->newer_user = user;
    st_layer_pages_forget(p, UINT32_MAX, UINT32_MAX);
}

void st_layer_pages_forget(st_layer_pages *p, uint32_t tx, uint32_t ty) {
    uint64_t key = tx == UINT32_MAX ? 0 : st_tile_key_pack((st_tile_key){0, tx, ty}) + 1;
    for (uint32_t i = 0; i < p->cache_count; i++)
        if (p->cache[i].key && (!key || p->cache[i].key == key)) {
            st_level_destroy(p->cache[i].level);
            p->cache[i] = (cached_page){0};
        }
}

st_result st_layer_pages_create(st_store *store, uint32_t cache_pages, st_layer_pages **out, st_error *err) {
    *out = NULL;
    const st_store_info *in = st_store_get_info(store);
    if (in->kind != ST_TILE_LAYERS) return st_error_set(err, ST_ERR_INVALID, "not a layer store: it holds a DEM");
    if (in->tile_size < 2 || !st_is_pow2(in->tile_size))
        return st_error_set(err, ST_ERR_INVALID, "layer pages of %u texels: a power of two", in->tile_size);
    st_layer_pages *p = calloc(1, sizeof *p);
    uint32_t n = cache_pages ? cache_pages : DEFAULT_CACHE;
    if (p) p->cache = calloc(n, sizeof *p->cache);
    if (!p || !p->cache) {
        free(p);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    p->store = store;
    p->info = in;
    p->cache_count = n;
    p->shift = (uint32_t)__builtin_ctz(in->tile_size);
    st_store_level_tiles(store, 0, &p->nx, &p->ny);
    *out = p;
    return ST_OK;
}

void st_layer_pages_destroy(st_layer_pages *p) {
    if (!p) return;
    for (uint32_t i = 0; i < p->cache_count; i++) st_level_destroy(p->cache[i].level);
    free(p->cache);
    free(p);
}

void st_tile_pairs_to_level(const st_tile *t, st_level *dst, int64_t wx, int64_t wy) {
    uint32_t n = t->size;
    uint8_t *heights, *meta;
    st_level_planes_mut(dst, &heights, &meta);
    for (uint32_t j = 0; j < n; j++) {
        int64_t y = wy + j;
        if (y < 0 || y >= (int64_t)dst->height) continue;
        const uint8_t *q = (const uint8_t *)t->data + (size_t)j * (n / 2) * 4;
        for (uint32_t i = 0; i < n; i += 2, q += 4) {
            int64_t x = wx + i;
            if (x < 0 || x >= (int64_t)dst->width) continue;
            size_t at = (size_t)y * dst->width + (size_t)x;
            heights[at] = q[0];
            meta[at] = q[1];
            heights[at + 1] = q[2];
            meta[at + 1] = q[3];
        }
    }
}

/* Copies page (tx, ty) — the newer source's when it has one, else the store's — into the window level dst, its
 * first texel at (wx, wy) there. */
static st_result copy_tile(st_layer_pages *p, uint32_t tx, uint32_t ty, int64_t wx, int64_t wy, st_level *dst,
                           st_error *err) {
    const st_tile *newer = p->newer ? p->newer(p->newer_user, tx, ty) : NULL;
    if (newer) {
        st_tile_pairs_to_level(newer, dst, wx, wy);
        return ST_OK;
    }
    st_tile *t = NULL;
    st_result r = st_store_read_tile(p->store, (st_tile_key){0, tx, ty}, &t, err);
    if (r) return r;
    st_tile_pairs_to_level(t, dst, wx, wy);
    st_tile_destroy(t);
    return ST_OK;
}

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

typedef struct window_fill {
    st_layer_pages *p;
    st_level *dst;
    int64_t x0, y0, n, tx0, ty0;
    uint32_t cols;
    pthread_mutex_t lock; /* guards the first error */
    st_result result;
    st_error err;
} window_fill;

static void fill_pages(void *user, size_t begin, size_t end) {
    window_fill *f = user;
    for (size_t i = begin; i < end; i++) {
        int64_t tx = f->tx0 + (int64_t)(i % f->cols), ty = f->ty0 + (int64_t)(i / f->cols);
        uint32_t sx = (uint32_t)(((tx % (int64_t)f->p->nx) + f->p->nx) % f->p->nx);
        uint32_t sy = (uint32_t)(((ty % (int64_t)f->p->ny) + f->p->ny) % f->p->ny);
        st_error e = {0};
        st_result r = copy_tile(f->p, sx, sy, tx * f->n - f->x0, ty * f->n - f->y0, f->dst, &e);
        if (!r) continue;
        pthread_mutex_lock(&f->lock);
        if (!f->result) f->result = r, f->err = e;
        pthread_mutex_unlock(&f->lock);
    }
}

st_result st_layer_pages_window(st_layer_pages *p, int64_t x0, int64_t y0, uint32_t w, uint32_t h, st_level **out,
                                st_error *err) {
    *out = NULL;
    const st_store_info *in = p->info;
    if (w < 2 || h < 2 || !st_is_pow2(w) || !st_is_pow2(h) || (x0 & 1))
        return st_error_set(err, ST_ERR_INVALID, "a window of %ux%u at x %lld: powers of two from 2, at an even x", w,
                            h, (long long)x0);
    if ((!in->wrap_x && (x0 < 0 || x0 + w > (int64_t)in->width)) ||
        (!in->wrap_y && (y0 < 0 || y0 + h > (int64_t)in->height)))
        return st_error_set(err, ST_ERR_INVALID, "a window of %ux%u at (%lld, %lld) reaches past the world's edge", w, h,
                            (long long)x0, (long long)y0);
    st_level *l = NULL;
    st_result r = st_level_create(w, h, &l, err);
    if (r) return r;
    l->terrain_types = in->terrain_types;
    memcpy(l->begin_color, in->begin_color, 16);
    memcpy(l->end_color, in->end_color, 16);
    memcpy(l->palette, in->palette, sizeof l->palette);
    snprintf(l->name, sizeof l->name, "%s", in->name);
    l->wrap_x = l->wrap_y = false; /* a window: nothing past it */
    /* the pages in parallel (the store's reads are thread-safe; each page fills its own texels of the window) */
    int64_t n = (int64_t)1 << p->shift;
    window_fill wf = {.p = p, .dst = l, .x0 = x0, .y0 = y0, .n = n, .tx0 = floor_div(x0, n), .ty0 = floor_div(y0, n)};
    wf.cols = (uint32_t)(floor_div(x0 + (int64_t)w - 1, n) - wf.tx0 + 1);
    uint32_t rows = (uint32_t)(floor_div(y0 + (int64_t)h - 1, n) - wf.ty0 + 1);
    pthread_mutex_init(&wf.lock, NULL);
    st_parallel_for((size_t)wf.cols * rows, 1, fill_pages, &wf);
    pthread_mutex_destroy(&wf.lock);
    r = wf.result;
    if (r && err) *err = wf.err;
    if (r) {
        st_level_destroy(l);
        return r;
    }
    *out = l;
    return ST_OK;
}

st_result st_layer_pages_texel(st_layer_pages *p, int64_t x, int64_t y, st_texel *out, st_error *err) {
    const st_store_info *in = p->info;
    if ((!in->wrap_x && (x < 0 || x >= (int64_t)in->width)) || (!in->wrap_y && (y < 0 || y >= (int64_t)in->height))) {
        *out = (st_texel){.outside = true};
        return ST_OK;
    }
    int64_t n = (int64_t)1 << p->shift;
    int64_t px = floor_div(x, n), py = floor_div(y, n);
    px = ((px % (int64_t)p->nx) + p->nx) % p->nx;
    py = ((py % (int64_t)p->ny) + p->ny) % p->ny;
    uint64_t key = st_tile_key_pack((st_tile_key){0, (uint32_t)px, (uint32_t)py}) + 1;
    cached_page *hit = NULL, *oldest = &p->cache[0];
    for (uint32_t i = 0; i < p->cache_count && !hit; i++) {
        if (p->cache[i].key == key) hit = &p->cache[i];
        else if (p->cache[i].used < oldest->used) oldest = &p->cache[i];
    }
    if (!hit) {
        st_level *l = NULL;
        st_result r = st_layer_pages_window(p, px * n, py * n, (uint32_t)n, (uint32_t)n, &l, err);
        if (r) return r;
        st_level_destroy(oldest->level);
        oldest->level = l;
        oldest->key = key;
        hit = oldest;
    }
    hit->used = ++p->clock;
    *out = st_level_texel(hit->level, (int)(x & (n - 1)), (int)(y & (n - 1))); /* pages align to n */
    return ST_OK;
}
