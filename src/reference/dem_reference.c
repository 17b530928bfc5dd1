/* The CPU reference of DEM tile stores: rays against the full-resolution DEM (the finest tiles' bilinear surface)
 * in double precision — a front-to-back descent of the tile quadtree pruned by the index's highest points, then
 * inside a finest tile a descent of its max pyramid (2×2 cells up to the whole tile) and of the cells by their
 * corners' highest sample, with the exact intersection of the ray and a cell's bilinear patch — shaded by the DEM
 * ground's formula with an exact shadow ray. Decoded tiles live in a bounded cache shared by the casting threads
 * (shards by key, each with its own mutex, reference counts and LRU); a cast pins the tiles a block of pixels uses,
 * so a sample costs no lock. */
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
#define SHARDS 16u           /* the tile cache's shards (a power of two up to 16: the hash's top four bits) */
#define SHARD_BUCKETS 256u   /* hash buckets per shard */
#define SHARDED_FROM 64u     /* caches of fewer tiles are one shard */
#define DEFAULT_CACHE 1024u  /* decoded tiles */

#define MAX_MIPS 16u          /* levels of a tile's max pyramid: tiles up to 2^16 cells a side */
#define PINS 48u             /* tiles a block of pixels keeps pinned */
#define BOUNDS 256u          /* tile bounds a block of pixels remembers (direct-mapped; a power of two) */
#define BOUNDS_TABLE_MAX (1u << 21) /* levels of at most this many tiles have a table of bounds shared by a cast */
#define PIXEL_BLOCK 16u      /* a cast's unit of work: 16×16 pixels, whose rays share their tiles */
#define CAST_GRAIN 4u        /* blocks (along a row of blocks) a thread casts at a time, its pins kept between them */

typedef struct ref_tile {
    uint64_t key;
    float *h;                /* size² samples, metres */
    float *bmax;             /* per block: the highest of its samples (its edges included): a level of mip */
    float *mip;              /* the max pyramid: level k ≥ 1 holds (s >> k)² blocks of 2^k cells, each the highest
                                of its samples (edges included); r->mip_at[k] is where level k starts */
    uint32_t refs;
    bool ready;
    st_result failed;
    char message[256];
    struct ref_tile *hnext, *prev, *next; /* hash chain; LRU of unreferenced ready tiles */
} ref_tile;

/* One shard of the tile cache: its tiles by key, and the unreferenced ready ones least recently used first. */
typedef struct cache_shard {
    pthread_mutex_t lock;
    pthread_cond_t ready;
    uint32_t cap, count;
    ref_tile *buckets[SHARD_BUCKETS];
    ref_tile *lru_head, *lru_tail;
    char pad[64]; /* shards' locks on lines of their own */
} cache_shard;

struct st_dem_reference {
    st_store *store;
    const st_store_info *in;
    uint32_t s, size, blocks, block; /* intervals, samples a side, blocks a side, cells per block side */
    uint32_t mips;                   /* log2(s): the pyramid's top level is the whole tile */
    uint32_t block_level;            /* log2(block) */
    size_t mip_at[MAX_MIPS + 1], mip_total;
    bool plain;                      /* the walk without the pyramid (tests: the same hits) */
    bool index_every_node;           /* tile bounds from the store at every node (measurement) */
    double sx, sy, ext_x, ext_y;
    double span_x[ST_STORE_MAX_LEVELS], span_y[ST_STORE_MAX_LEVELS]; /* a tile's footprint per level, metres */
    uint32_t nx[ST_STORE_MAX_LEVELS], ny[ST_STORE_MAX_LEVELS];       /* tiles per level */
    /* per level (NULL for a level of too many tiles), per tile: 0 not yet asked this cast, else BOUND_IN | the
     * highest point's bits, or BOUND_OUT (no such tile); filled by whichever thread asks first, read lock-free */
    atomic_ullong *bounds[ST_STORE_MAX_LEVELS];
    bool shadows;
    uint32_t shard_count;
    cache_shard shards[SHARDS];
    atomic_ullong tiles_read;
};

/* fmin, fmax and fmaxf, inline (libm's are calls): the same values, NaN operands included (the other is
 * returned), and for equal operands the second, as the x86-64 library's minsd/maxsd do. */
static inline double min_d(double a, double b) { return a != a ? b : b != b ? a : a < b ? a : b; }
static inline double max_d(double a, double b) { return a != a ? b : b != b ? a : a > b ? a : b; }
static inline float max_f(float a, float b) { return a != a ? b : b != b ? a : a > b ? a : b; }

/* ---- the tile cache ------------------------------------------------------------------------------------------
 * Split into shards by key, each with its own lock, hash chains and LRU, so that threads wanting different tiles
 * do not queue on one lock; a small cache (tests) is one shard, so its capacity is exact. */

static uint64_t key_hash(uint64_t key) { return key * 0x9E3779B97F4A7C15ull; }

static cache_shard *shard_of(st_dem_reference *r, uint64_t key) {
    return &r->shards[r->shard_count > 1 ? (uint32_t)(key_hash(key) >> 60) : 0];
}

static uint32_t bucket_of(uint64_t key) { return (uint32_t)(key_hash(key) >> 40) & (SHARD_BUCKETS - 1); }

static void lru_unlink(cache_shard *c, ref_tile *t) {
    if (t->prev) t->prev->next = t->next;
    else if (c->lru_head == t) c->lru_head = t->next;
    if (t->next) t->next->prev = t->prev;
    else if (c->lru_tail == t) c->lru_tail = t->prev;
    t->prev = t->next = NULL;
}

static void tile_free(ref_tile *t) {
    free(t->h);
    free(t->mip);
    free(t);
}

static void hash_remove(cache_shard *c, ref_tile *t) {
    ref_tile **p = &c->buckets[bucket_of(t->key)];
    while (*p && *p != t) p = &(*p)->hnext;
    if (*p) *p = t->hnext;
    c->count--;
}

/* Unlinks unreferenced tiles, least recently used first, while the shard is over its capacity, and returns them
 * chained by hnext, to be freed once the lock is let go (freeing a tile's planes may take the system's time).
 * Locked. */
static ref_tile *trim(cache_shard *c) {
    ref_tile *victims = NULL;
    while (c->count > c->cap && c->lru_head) {
        ref_tile *t = c->lru_head;
        lru_unlink(c, t);
        hash_remove(c, t);
        t->hnext = victims;
        victims = t;
    }
    return victims;
}

static void free_victims(ref_tile *t) {
    for (ref_tile *next; t; t = next) {
        next = t->hnext;
        tile_free(t);
    }
}

static st_result load(st_dem_reference *r, ref_tile *t, st_error *err) {
    st_tile *tile = NULL;
    st_result res = st_store_read_tile(r->store, st_tile_key_unpack(t->key), &tile, err);
    if (res) return res;
    size_t n = (size_t)r->size * r->size;
    t->h = malloc((n + 3 * (size_t)(r->s >> 1)) * sizeof *t->h); /* and the pyramid's scratch rows */
    t->mip = malloc(r->mip_total * sizeof *t->mip);
    if (!t->h || !t->mip) {
        st_tile_destroy(tile);
        return st_error_set(err, ST_ERR_NOMEM, "reference: out of memory for a tile");
    }
    if (tile->encoding == ST_TILE_U16) { /* st_tile_height's formula, without a call per sample */
        const uint16_t *q = tile->data;
        for (size_t k = 0; k < n; k++) t->h[k] = (float)(tile->offset + tile->scale * q[k]);
    } else {
        for (uint32_t j = 0; j < r->size; j++)
            for (uint32_t i = 0; i < r->size; i++) t->h[(size_t)j * r->size + i] = st_tile_height(tile, i, j);
    }
    st_tile_destroy(tile);
    /* the max pyramid: 2×2 cells from their 3×3 samples, each level above from its four children (which share
     * their edges, so the parent's maximum covers its every sample). x > mx keeps mx for a NAN sample, as fmaxf
     * does. Level 1 takes each of a block row's three sample rows' maxima over every block's three samples
     * first, then the three of each block: 6 reads a block instead of 9, and the same number (of samples equal
     * to the maximum the first in row order stays, as it did when the nine were read in row order). */
    {
        uint32_t nb = r->s >> 1;
        float *lv = t->mip + r->mip_at[1], *rows = t->h + n; /* three rows of nb maxima past the samples */
        for (uint32_t bj = 0; bj < nb; bj++) {
            for (uint32_t q = 0; q < 3; q++) {
                const float *h = t->h + (size_t)(2 * bj + q) * r->size;
                for (uint32_t bi = 0; bi < nb; bi++) { /* the three samples written out: no loop of three */
                    float a = h[2 * bi], b = h[2 * bi + 1], c = h[2 * bi + 2], mx = -INFINITY;
                    mx = a > mx ? a : mx;
                    mx = b > mx ? b : mx;
                    mx = c > mx ? c : mx;
                    rows[q * nb + bi] = mx;
                }
            }
            for (uint32_t bi = 0; bi < nb; bi++) {
                float a = rows[bi], b = rows[nb + bi], c = rows[2 * nb + bi], mx = -INFINITY;
                mx = a > mx ? a : mx;
                mx = b > mx ? b : mx;
                mx = c > mx ? c : mx;
                lv[bj * nb + bi] = mx;
            }
        }
    }
    for (uint32_t k = 2; k <= r->mips; k++) {
        uint32_t nb = r->s >> k, cb = nb * 2;
        float *lv = t->mip + r->mip_at[k];
        const float *below = t->mip + r->mip_at[k - 1];
        for (uint32_t bj = 0; bj < nb; bj++)
            for (uint32_t bi = 0; bi < nb; bi++) {
                float mx = -INFINITY;
                for (uint32_t q = 0; q < 4; q++) {
                    float x = below[(2 * bj + (q >> 1)) * cb + 2 * bi + (q & 1)];
                    mx = x > mx ? x : mx;
                }
                lv[bj * nb + bi] = mx;
            }
    }
    /* the plain walk's 16×16-cell blocks are the pyramid's level log2(16) (or its top for smaller tiles) */
    t->bmax = t->mip + r->mip_at[r->block_level];
    atomic_fetch_add(&r->tiles_read, 1);
    return ST_OK;
}

/* The decoded tile of key, loaded on first use (other threads wanting it meanwhile wait). Release it after use,
 * also when this fails with a tile (*held set): its reference is counted. */
static ref_tile *acquire(st_dem_reference *r, st_tile_key key, ref_tile **held, st_error *err) {
    uint64_t k = st_tile_key_pack(key);
    cache_shard *c = shard_of(r, k);
    *held = NULL;
    pthread_mutex_lock(&c->lock);
    ref_tile *t = c->buckets[bucket_of(k)];
    while (t && t->key != k) t = t->hnext;
    if (t) {
        if (!t->refs && t->ready) lru_unlink(c, t);
        t->refs++;
        *held = t;
        while (!t->ready) pthread_cond_wait(&c->ready, &c->lock);
        pthread_mutex_unlock(&c->lock);
        if (t->failed) {
            st_error_set(err, t->failed, "%s", t->message);
            return NULL;
        }
        return t;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        pthread_mutex_unlock(&c->lock);
        st_error_set(err, ST_ERR_NOMEM, "reference: out of memory");
        return NULL;
    }
    t->key = k;
    t->refs = 1;
    *held = t;
    uint32_t b = bucket_of(k);
    t->hnext = c->buckets[b];
    c->buckets[b] = t;
    c->count++;
    ref_tile *victims = trim(c);
    pthread_mutex_unlock(&c->lock);
    free_victims(victims);
    st_error lerr = {0};
    st_result res = load(r, t, &lerr);
    pthread_mutex_lock(&c->lock);
    t->ready = true;
    if (res) {
        t->failed = res;
        snprintf(t->message, sizeof t->message, "%s", lerr.message);
    }
    pthread_cond_broadcast(&c->ready);
    pthread_mutex_unlock(&c->lock);
    if (res) {
        st_error_set(err, res, "%s", lerr.message);
        return NULL;
    }
    return t;
}

/* Gives back one reference to a tile acquire returned (or counted on failure). */
static void release(st_dem_reference *r, ref_tile *t) {
    if (!t) return;
    cache_shard *c = shard_of(r, t->key);
    ref_tile *victims = NULL;
    pthread_mutex_lock(&c->lock);
    if (!--t->refs) {
        if (t->failed) { /* a failed load is tried again by the next acquire */
            hash_remove(c, t);
            t->hnext = NULL;
            victims = t;
        } else {
            t->prev = c->lru_tail;
            if (c->lru_tail) c->lru_tail->next = t;
            else c->lru_head = t;
            c->lru_tail = t;
            victims = trim(c);
        }
    }
    pthread_mutex_unlock(&c->lock);
    free_victims(victims);
}

/* The tiles one block of pixels holds: looked up without the lock, each acquired once and released when the block
 * is done (or when it needs the slot for another), so the cache's lock is taken per tile, not per sample. Beside
 * them the bounds of the tiles of every level its rays met, so that the store's index (behind its own lock) is
 * asked once per tile and block rather than at every node of every ray: with 16 threads that lock was the walk's
 * bottleneck. */
typedef struct pins {
    uint64_t key[PINS];
    ref_tile *tile[PINS];
    uint32_t count, next;
    uint64_t bound_key[BOUNDS]; /* packed key + 1; 0: an empty slot */
    float bound_max[BOUNDS];
    bool bound_in[BOUNDS];      /* the index has the tile */
} pins;

static void pins_release(st_dem_reference *r, pins *p) {
    for (uint32_t i = 0; i < p->count; i++) release(r, p->tile[i]);
    p->count = p->next = 0;
    memset(p->bound_key, 0, sizeof p->bound_key);
}

#define BOUND_IN (1ull << 32)
#define BOUND_OUT (2ull << 32)

/* The highest point of tile key as the store's index has it; false when the store has no such tile. A cast asks
 * the index (behind the store's lock) once per tile for all its threads where the level has a table, else once per
 * tile and block of pixels: 16 threads asking it per block still queued on that lock. */
static bool tile_top(const st_dem_reference *r, pins *p, st_tile_key key, float *top) {
    st_tile_meta m;
    if (!p || r->index_every_node) {
        if (!st_store_tile_meta(r->store, key, &m)) return false;
        *top = m.max_m;
        return true;
    }
    atomic_ullong *table = r->bounds[key.level];
    if (table) {
        atomic_ullong *e = &table[(size_t)key.y * r->nx[key.level] + key.x];
        uint64_t v = atomic_load_explicit(e, memory_order_relaxed);
        if (!v) {
            bool in = st_store_tile_meta(r->store, key, &m);
            uint32_t bits = 0;
            if (in) memcpy(&bits, &m.max_m, sizeof bits);
            v = in ? BOUND_IN | bits : BOUND_OUT;
            atomic_store_explicit(e, v, memory_order_relaxed);
        }
        if (v == BOUND_OUT) return false;
        uint32_t bits = (uint32_t)v;
        memcpy(top, &bits, sizeof *top);
        return true;
    }
    uint64_t k = st_tile_key_pack(key) + 1;
    uint32_t slot = (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 56) & (BOUNDS - 1);
    if (p->bound_key[slot] != k) {
        p->bound_key[slot] = k;
        p->bound_in[slot] = st_store_tile_meta(r->store, key, &m);
        p->bound_max[slot] = p->bound_in[slot] ? m.max_m : 0.0f;
    }
    *top = p->bound_max[slot];
    return p->bound_in[slot];
}

/* The tile of key, through the pins when there are any; NULL on failure (nothing left to release then). */
static ref_tile *get_tile(st_dem_reference *r, pins *p, st_tile_key key, st_error *err) {
    ref_tile *held;
    if (!p) {
        ref_tile *t = acquire(r, key, &held, err);
        if (!t) release(r, held);
        return t;
    }
    uint64_t k = st_tile_key_pack(key);
    for (uint32_t i = 0; i < p->count; i++)
        if (p->key[i] == k) return p->tile[i];
    ref_tile *t = acquire(r, key, &held, err);
    if (!t) {
        release(r, held);
        return NULL;
    }
    uint32_t slot;
    if (p->count < PINS) {
        slot = p->count++;
    } else { /* full: the oldest pin goes (no caller holds its pointer: one tile is walked at a time) */
        slot = p->next;
        p->next = (p->next + 1) % PINS;
        release(r, p->tile[slot]);
    }
    p->key[slot] = k;
    p->tile[slot] = t;
    return t;
}

/* Gives a tile back unless the pins hold it. */
static void put_tile(st_dem_reference *r, pins *p, ref_tile *t) {
    if (!p) release(r, t);
}

/* ---- creation -------------------------------------------------------------------------------------------------- */

st_result st_dem_reference_create(st_store *store, uint32_t cache_tiles, st_dem_reference **out, st_error *err) {
    *out = NULL;
    const st_store_info *in = st_store_get_info(store);
    if (in->kind != ST_TILE_DEM) return st_error_set(err, ST_ERR_INVALID, "reference: a layer store has no DEM");
    if (in->tile_size < 3 || !st_is_pow2(in->tile_size - 1) || in->tile_size - 1 > (1u << MAX_MIPS))
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
    if (in->levels > ST_STORE_MAX_LEVELS) {
        free(r);
        return st_error_set(err, ST_ERR_INVALID, "reference: %u levels", in->levels);
    }
    for (uint32_t l = 0; l < in->levels; l++) {
        r->span_x[l] = ldexp((double)r->s * r->sx, (int)l);
        r->span_y[l] = ldexp((double)r->s * r->sy, (int)l);
        st_store_level_tiles(store, l, &r->nx[l], &r->ny[l]);
        uint64_t tiles = (uint64_t)r->nx[l] * r->ny[l];
        if (tiles && tiles <= BOUNDS_TABLE_MAX) r->bounds[l] = calloc(tiles, sizeof *r->bounds[l]); /* else memos */
    }
    while ((1u << (r->mips + 1)) <= r->s && r->mips < MAX_MIPS) r->mips++;
    while ((1u << (r->block_level + 1)) <= r->block) r->block_level++;
    /* level 0 of the pyramid is never stored (a cell's bound is its four corners); mip_at[0] is a zero-sized
     * level so that level 1's children index from it */
    r->mip_total = 0;
    for (uint32_t k = 0; k <= r->mips; k++) {
        r->mip_at[k] = r->mip_total;
        if (k) r->mip_total += (size_t)(r->s >> k) * (r->s >> k);
    }
    uint32_t cap = cache_tiles ? cache_tiles : DEFAULT_CACHE;
    r->shard_count = cap >= SHARDED_FROM ? SHARDS : 1;
    for (uint32_t i = 0; i < r->shard_count; i++) {
        cache_shard *c = &r->shards[i];
        c->cap = (cap + r->shard_count - 1) / r->shard_count;
        pthread_mutex_init(&c->lock, NULL);
        pthread_cond_init(&c->ready, NULL);
    }
    *out = r;
    return ST_OK;
}

void st_dem_reference_destroy(st_dem_reference *r) {
    if (!r) return;
    for (uint32_t i = 0; i < r->shard_count; i++) {
        cache_shard *c = &r->shards[i];
        for (uint32_t b = 0; b < SHARD_BUCKETS; b++) free_victims(c->buckets[b]);
        pthread_mutex_destroy(&c->lock);
        pthread_cond_destroy(&c->ready);
    }
    for (uint32_t l = 0; l < ST_STORE_MAX_LEVELS; l++) free(r->bounds[l]);
    free(r);
}

void st_dem_reference_set_shadows(st_dem_reference *r, bool on) { r->shadows = on; }

void st_dem_reference_set_plain(st_dem_reference *r, bool plain) { r->plain = plain; }

void st_dem_reference_set_index_every_node(st_dem_reference *r, bool on) { r->index_every_node = on; }

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
        lo = max_d(lo, ta), hi = min_d(hi, tb);
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
    double tm = 0.5 * (t0 + min_d(t1, t0 + 1e-9));
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
        double exit = min_d(min_d(next_i, next_j), t1);
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
    if (min_d(z0, z1) > w->t->bmax[bj * r->blocks + bi]) return false; /* above every sample of the block */
    w->bi = bi, w->bj = bj;
    double bx = w->ox + (double)(bi * r->block) * r->sx, by = w->oy + (double)(bj * r->block) * r->sy;
    return dda(w->ry, bx, by, r->sx, r->sy, r->block, t0, t1, visit_cell, w);
}

typedef struct walk {
    st_dem_reference *r;
    const ray *ry;
    double inv[2];  /* 1 / d[0], 1 / d[1] (unused where d is 0) */
    pins *pins;     /* the cast's pinned tiles, or NULL */
    st_result failed;
    st_error *err;
} walk;

/* ---- the plain walk: tiles by their slabs, blocks of 16×16 cells and cells by 2-D DDAs ------------------------- */

/* The first hit inside tile key between t0 and t1 (already clipped to its footprint). */
static bool tile_hit(walk *k, st_tile_key key, double t0, double t1, double *hit) {
    st_dem_reference *r = k->r;
    ref_tile *t = get_tile(r, k->pins, key, k->err);
    if (!t) {
        k->failed = k->err && k->err->code ? k->err->code : ST_ERR_IO;
        return false;
    }
    tile_walk w = {.r = r, .t = t, .ry = k->ry, .ox = (double)key.x * r->s * r->sx, .oy = (double)key.y * r->s * r->sy};
    bool found = dda(k->ry, w.ox, w.oy, r->block * r->sx, r->block * r->sy, r->blocks, t0, t1, visit_block, &w);
    put_tile(r, k->pins, t);
    if (found) *hit = w.hit;
    return found;
}

static bool visit_tile(walk *k, st_tile_key key, double t0, double t1, double *hit) {
    st_dem_reference *r = k->r;
    if (k->failed) return false;
    double span_x = r->span_x[key.level], span_y = r->span_y[key.level];
    double x0 = key.x * span_x, y0 = key.y * span_y;
    double x1 = min_d(x0 + span_x, r->ext_x), y1 = min_d(y0 + span_y, r->ext_y);
    if (x0 > r->ext_x || y0 > r->ext_y || !slab(k->ry, x0, x1, y0, y1, &t0, &t1)) return false;
    float top;
    if (!tile_top(r, k->pins, key, &top)) return false;
    double z0 = k->ry->o[2] + t0 * k->ry->d[2], z1 = k->ry->o[2] + t1 * k->ry->d[2];
    if (min_d(z0, z1) > top) return false;
    if (key.level == 0) return tile_hit(k, key, t0, t1, hit);
    /* the children front to back */
    struct {
        st_tile_key key;
        double t0, t1;
    } c[4];
    int n = 0;
    uint32_t nx = r->nx[key.level - 1], ny = r->ny[key.level - 1];
    for (uint32_t q = 0; q < 4; q++) {
        st_tile_key ck = {key.level - 1, 2 * key.x + (q & 1), 2 * key.y + (q >> 1)};
        if (ck.x >= nx || ck.y >= ny) continue;
        double cx0 = ck.x * 0.5 * span_x, cy0 = ck.y * 0.5 * span_y;
        double a = t0, b = t1;
        if (!slab(k->ry, cx0, min_d(cx0 + 0.5 * span_x, r->ext_x), cy0, min_d(cy0 + 0.5 * span_y, r->ext_y), &a, &b))
            continue;
        int at = n++;
        while (at > 0 && c[at - 1].t0 > a) c[at] = c[at - 1], at--;
        c[at].key = ck, c[at].t0 = a, c[at].t1 = b;
    }
    for (int i = 0; i < n; i++)
        if (visit_tile(k, c[i].key, c[i].t0, c[i].t1, hit)) return true;
    return false;
}

/* ---- the accelerated walk: one quadtree from the root tile down to the cells ------------------------------------
 * A node (a tile of some level, a block of a finest tile's pyramid, a cell) is entered with the ray's interval
 * inside it; the ray passes it when its lowest point there is above the node's highest sample, else the node's
 * children are walked in the order the ray meets them: it crosses the node's two mid-lines at most once each, so
 * the children's intervals are the pieces between those crossings — contiguous, no gaps, no sort. */

static inline bool passes_above(const ray *ry, double t0, double t1, float top) {
    double z0 = ry->o[2] + t0 * ry->d[2], z1 = ry->o[2] + t1 * ry->d[2];
    return min_d(z0, z1) > top;
}

/* The children a node's interval [t0, t1] crosses, in order: *n pieces, piece i over [cut[i], cut[i + 1]] in the
 * child (cx[i], cy[i]) (0 or 1 on each axis) of the node whose mid-lines are x = xm, y = ym. */
static int split(const walk *k, double xm, double ym, double t0, double t1, double cut[4], uint8_t cx[3], uint8_t cy[3]) {
    const ray *ry = k->ry;
    double tx = ry->d[0] != 0 ? (xm - ry->o[0]) * k->inv[0] : INFINITY;
    double ty = ry->d[1] != 0 ? (ym - ry->o[1]) * k->inv[1] : INFINITY;
    double ev[2];
    int axis[2], ne = 0;
    if (tx > t0 && tx < t1) ev[ne] = tx, axis[ne++] = 0;
    if (ty > t0 && ty < t1) ev[ne] = ty, axis[ne++] = 1;
    if (ne == 2 && ev[1] < ev[0]) {
        double e = ev[0];
        ev[0] = ev[1], ev[1] = e;
        axis[0] = 1, axis[1] = 0;
    }
    /* the side of each mid-line at t0, from where the ray crosses it and which way it goes, never from a position
     * (a ray through a corner of the lattice is on a mid-line to within rounding at a cut) */
    uint8_t x = ry->d[0] == 0 ? ry->o[0] >= xm : (tx > t0) == (ry->d[0] < 0);
    uint8_t y = ry->d[1] == 0 ? ry->o[1] >= ym : (ty > t0) == (ry->d[1] < 0);
    cut[0] = t0;
    for (int e = 0; e <= ne; e++) {
        cx[e] = x, cy[e] = y;
        cut[e + 1] = e < ne ? ev[e] : t1;
        if (e < ne) {
            if (axis[e] == 0) x ^= 1;
            else y ^= 1;
        }
    }
    return ne + 1;
}

typedef struct tile_descent {
    walk *k;
    const ref_tile *t;
    double ox, oy; /* world position of the tile's sample (0, 0) */
    double hit;
} tile_descent;

/* Block (bi, bj) of level lv of the tile's pyramid (level 0: a cell), the ray inside it over [t0, t1]. */
static bool descend(tile_descent *w, uint32_t lv, uint32_t bi, uint32_t bj, double t0, double t1) {
    const st_dem_reference *r = w->k->r;
    const ray *ry = w->k->ry;
    if (lv == 0) { /* a bilinear patch lies under its highest corner */
        const float *h = w->t->h + (size_t)bj * r->size + bi;
        float top = max_f(max_f(h[0], h[1]), max_f(h[r->size], h[r->size + 1]));
        if (passes_above(ry, t0, t1, top)) return false;
        return cell_hit(r, w->t, w->ox, w->oy, bi, bj, ry, t0, t1, &w->hit);
    }
    if (passes_above(ry, t0, t1, w->t->mip[r->mip_at[lv] + (size_t)bj * (r->s >> lv) + bi])) return false;
    uint32_t half = 1u << (lv - 1);
    double xm = w->ox + (double)((2 * bi + 1) * half) * r->sx, ym = w->oy + (double)((2 * bj + 1) * half) * r->sy;
    double cut[4];
    uint8_t cx[3], cy[3];
    int n = split(w->k, xm, ym, t0, t1, cut, cx, cy);
    for (int i = 0; i < n; i++)
        if (descend(w, lv - 1, 2 * bi + cx[i], 2 * bj + cy[i], cut[i], cut[i + 1])) return true;
    return false;
}

/* Tile key of any level, the ray inside its footprint (clipped to the world) over [t0, t1]. */
static bool descend_tiles(walk *k, st_tile_key key, double t0, double t1, double *hit) {
    st_dem_reference *r = k->r;
    if (k->failed) return false;
    float top;
    if (!tile_top(r, k->pins, key, &top) || passes_above(k->ry, t0, t1, top)) return false;
    double span_x = r->span_x[key.level], span_y = r->span_y[key.level];
    double x0 = key.x * span_x, y0 = key.y * span_y;
    if (key.level == 0) {
        ref_tile *t = get_tile(r, k->pins, key, k->err);
        if (!t) {
            k->failed = k->err && k->err->code ? k->err->code : ST_ERR_IO;
            return false;
        }
        tile_descent w = {.k = k, .t = t, .ox = x0, .oy = y0};
        bool found = descend(&w, r->mips, 0, 0, t0, t1);
        put_tile(r, k->pins, t);
        if (found) *hit = w.hit;
        return found;
    }
    uint32_t nx = r->nx[key.level - 1], ny = r->ny[key.level - 1];
    double cut[4];
    uint8_t cx[3], cy[3];
    int n = split(k, x0 + 0.5 * span_x, y0 + 0.5 * span_y, t0, t1, cut, cx, cy);
    for (int i = 0; i < n; i++) {
        st_tile_key ck = {key.level - 1, 2 * key.x + cx[i], 2 * key.y + cy[i]};
        if (ck.x >= nx || ck.y >= ny) continue; /* past the world's last tile: the ray is not there */
        if (descend_tiles(k, ck, cut[i], cut[i + 1], hit)) return true;
    }
    return false;
}

static st_result cast_ray(st_dem_reference *r, pins *p, const double origin[3], const double dir[3], double t_min,
                          double t_max, bool *hit, double *t_hit, st_error *err) {
    *hit = false;
    ray ry = {{origin[0], origin[1], origin[2]}, {dir[0], dir[1], dir[2]}};
    st_error local = {0};
    walk k = {.r = r, .ry = &ry, .pins = p, .err = err ? err : &local};
    k.inv[0] = dir[0] != 0 ? 1.0 / dir[0] : 0;
    k.inv[1] = dir[1] != 0 ? 1.0 / dir[1] : 0;
    double t = 0;
    st_tile_key root = {r->in->levels - 1, 0, 0};
    bool found;
    if (r->plain) {
        found = visit_tile(&k, root, t_min, t_max, &t);
    } else {
        /* the root's footprint is the world: the ray's interval inside it, then the one descent */
        double t0 = t_min, t1 = t_max;
        found = slab(&ry, 0, r->ext_x, 0, r->ext_y, &t0, &t1) && descend_tiles(&k, root, t0, t1, &t);
    }
    if (k.failed) return k.failed;
    *hit = found;
    if (found) *t_hit = t;
    return ST_OK;
}

st_result st_dem_reference_ray(st_dem_reference *r, const double origin[3], const double dir[3], double t_min,
                               double t_max, bool *hit, double *t_hit, st_error *err) {
    return cast_ray(r, NULL, origin, dir, t_min, t_max, hit, t_hit, err);
}

static st_result height_at(st_dem_reference *r, pins *p, double x, double y, double *height, double grad[2],
                           st_error *err) {
    double u = min_d(max_d(x / r->sx, 0), (double)(r->in->width - 1)), v = min_d(max_d(y / r->sy, 0), (double)(r->in->height - 1));
    uint32_t nx = r->nx[0], ny = r->ny[0];
    uint32_t tx = (uint32_t)min_d(floor(u / r->s), nx - 1), ty = (uint32_t)min_d(floor(v / r->s), ny - 1);
    st_tile_key key = {0, tx, ty};
    ref_tile *t = get_tile(r, p, key, err);
    if (!t) return err && err->code ? err->code : ST_ERR_IO;
    double lu = u - (double)tx * r->s, lv = v - (double)ty * r->s;
    uint32_t i = (uint32_t)min_d(floor(lu), r->s - 1), j = (uint32_t)min_d(floor(lv), r->s - 1);
    double fu = lu - i, fv = lv - j;
    const float *h = t->h + (size_t)j * r->size + i;
    double h00 = h[0], h10 = h[1], h01 = h[r->size], h11 = h[r->size + 1];
    double a = h00 * (1 - fu) + h10 * fu, b = h01 * (1 - fu) + h11 * fu;
    *height = a * (1 - fv) + b * fv;
    if (grad) {
        grad[0] = ((h10 - h00) * (1 - fv) + (h11 - h01) * fv) / r->sx;
        grad[1] = (b - a) / r->sy;
    }
    put_tile(r, p, t);
    return ST_OK;
}

st_result st_dem_reference_height(st_dem_reference *r, double x, double y, double *height, double grad[2],
                                  st_error *err) {
    return height_at(r, NULL, x, y, height, grad, err);
}

st_result st_dem_reference_heights(st_dem_reference *r, const double *xy, size_t n, double *height, st_error *err) {
    pins p = {.count = 0};
    st_result res = ST_OK;
    for (size_t k = 0; k < n && !res; k++) res = height_at(r, &p, xy[2 * k], xy[2 * k + 1], &height[k], NULL, err);
    pins_release(r, &p);
    return res;
}

/* ---- the image ------------------------------------------------------------------------------------------------ */

typedef struct cast_job {
    st_dem_reference *r;
    st_view view;
    st_ref_image *img;
    float sun[3];
    uint32_t blocks_x, blocks_y;
    pthread_mutex_t lock;
    st_result failed;
    st_error err;
} cast_job;

static st_result shade(cast_job *job, pins *p, const float dir[3], double t, uint8_t *c, st_error *err) {
    st_dem_reference *r = job->r;
    const double *o = job->view.origin;
    double pt[3] = {o[0] + dir[0] * t, o[1] + dir[1] * t, o[2] + dir[2] * t};
    double h, g[2];
    st_result res = height_at(r, p, pt[0], pt[1], &h, g, err);
    if (res) return res;
    float n[3] = {(float)-g[0], (float)-g[1], 1.0f};
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) n[k] /= len;
    float vis = 1.0f;
    if (r->shadows) {
        /* from just off the surface, as the GPU's march starts: half a spacing along the normal and the sun */
        double step = 0.5 * max_d(r->sx, r->sy), q[3], L[3] = {job->sun[0], job->sun[1], job->sun[2]};
        for (int k = 0; k < 3; k++) q[k] = pt[k] + n[k] * step + L[k] * step;
        double top = r->in->max_m;
        if (L[2] > 0 && q[2] < top) {
            bool hit = false;
            double th;
            res = cast_ray(r, p, q, L, 0, (top - q[2]) / L[2] + 1, &hit, &th, err);
            if (res) return res;
            if (hit) vis = 0.0f;
        }
    }
    float rel[3] = {(float)(dir[0] * t), (float)(dir[1] * t), (float)(dir[2] * t)}, rgb[3];
    st_dem_shade(rel, (float)pt[2], n, vis, (float)r->in->sea_level_m, (float)r->in->max_m, job->view.far_dist, rgb);
    for (int k = 0; k < 3; k++) c[k] = st_shade_srgb8(rgb[k]);
    return ST_OK;
}

/* Blocks of PIXEL_BLOCK² pixels in rows of blocks: neighbouring rays meet the same tiles, which stay pinned for
 * the call's blocks (CAST_GRAIN neighbours), and the blocks in flight at once are neighbours too, so they share the
 * cache's tiles. */
static void cast_blocks(void *user, size_t begin, size_t end) {
    cast_job *job = user;
    st_ref_image *img = job->img;
    pins p = {.count = 0};
    for (size_t b = begin; b < end && !job->failed; b++) {
        uint32_t i0 = (uint32_t)(b % job->blocks_x) * PIXEL_BLOCK, j0 = (uint32_t)(b / job->blocks_x) * PIXEL_BLOCK;
        uint32_t i1 = i0 + PIXEL_BLOCK < img->width ? i0 + PIXEL_BLOCK : img->width;
        uint32_t j1 = j0 + PIXEL_BLOCK < img->height ? j0 + PIXEL_BLOCK : img->height;
        for (uint32_t j = j0; j < j1; j++)
            for (uint32_t i = i0; i < i1; i++) {
                float dir[3], tn, tf;
                st_view_pixel_ray(&job->view, i, j, dir, &tn, &tf);
                double d[3] = {dir[0], dir[1], dir[2]}, t = 0;
                size_t k = (size_t)j * img->width + i;
                uint8_t *c = img->rgba + 4 * k;
                bool hit = false;
                st_error err = {0};
                st_result res = cast_ray(job->r, &p, job->view.origin, d, tn, tf, &hit, &t, &err);
                if (!res && hit) res = shade(job, &p, dir, t, c, &err);
                if (res) {
                    pthread_mutex_lock(&job->lock);
                    if (!job->failed) job->failed = res, job->err = err;
                    pthread_mutex_unlock(&job->lock);
                    pins_release(job->r, &p);
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
    pins_release(job->r, &p);
}

st_result st_dem_reference_cast(st_dem_reference *r, const st_camera *camera, st_ref_image *img, st_error *err) {
    if (!img->distance || !img->width) return st_error_set(err, ST_ERR_INVALID, "reference: the image is not allocated");
    cast_job *job = calloc(1, sizeof *job);
    if (!job) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    job->r = r;
    job->view = st_camera_view(camera, img->width, img->height);
    job->img = img;
    job->blocks_x = (img->width + PIXEL_BLOCK - 1) / PIXEL_BLOCK;
    job->blocks_y = (img->height + PIXEL_BLOCK - 1) / PIXEL_BLOCK;
    float s = 1.0f / sqrtf(ST_SUN_X * ST_SUN_X + ST_SUN_Y * ST_SUN_Y + ST_SUN_Z * ST_SUN_Z);
    job->sun[0] = ST_SUN_X * s, job->sun[1] = ST_SUN_Y * s, job->sun[2] = ST_SUN_Z * s;
    pthread_mutex_init(&job->lock, NULL);
    /* the index is asked afresh by every cast (a store may be edited between casts) */
    for (uint32_t l = 0; l < r->in->levels; l++)
        if (r->bounds[l])
            for (size_t i = 0, n = (size_t)r->nx[l] * r->ny[l]; i < n; i++)
                atomic_store_explicit(&r->bounds[l][i], 0, memory_order_relaxed);
    /* a few neighbouring blocks a call, which keep their pins between them: fewer trips to the cache's locks */
    st_parallel_for((size_t)job->blocks_x * job->blocks_y, CAST_GRAIN, cast_blocks, job);
    st_result res = job->failed;
    if (res && err) *err = job->err;
    pthread_mutex_destroy(&job->lock);
    free(job);
    return res;
}

