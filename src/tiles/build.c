/* Building a tile store. DEM stores are built bottom-up, one subtree at a time (memory stays a few tiles per level,
 * whatever the world's size): level-0 tiles are read from the source, a parent takes every other sample of its
 * four children (decimation: its vertices are vertices of the finer grid), and its geometric error δ is the
 * largest gap between its bilinear surface and each child's samples plus that child's δ — a bound on the error
 * against the finest data, monotone up the tree by construction. Tiles go to disk under a temporary name and are
 * renamed, intact tiles of an interrupted run are kept, and the manifest is written last. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/file.h"
#include "strata/image.h"
#include "strata/vangers.h"
#include "tiles/tiles_internal.h"

#define DEFAULT_DEM_TILE 257u
#define DEFAULT_LAYER_TILE 256u
#define PROGRESS_EVERY_MS 100.0

typedef struct builder {
    st_dem_source *src;
    const st_level *level; /* layer stores: from a level, */
    st_store *layer_src;   /* or copied from another layer store (a generated world) */
    const char *dir;
    st_store_info info;
    uint32_t n, span;
    uint32_t nx[ST_STORE_MAX_LEVELS], ny[ST_STORE_MAX_LEVELS];
    st_tile_meta *records[ST_STORE_MAX_LEVELS];
    uint32_t shard_level; /* subtrees are rooted here */
    /* the first error, and a flag every worker polls so a failed build stops soon */
    pthread_mutex_t lock;
    atomic_bool failed;
    st_error error;
    /* progress and stats */
    const st_store_build_desc *desc;
    atomic_uint_fast64_t done, written, kept, bytes, raw_bytes, samples;
    uint64_t total;
    double t0, last_progress;
    double max_quantisation; /* u16 from a source without a unit grid */
    bool exact;              /* u16 on the source's own unit grid: no rounding beyond float's */
} builder;

static void fail(builder *b, const st_error *e) {
    pthread_mutex_lock(&b->lock);
    if (!atomic_load(&b->failed)) b->error = *e;
    atomic_store(&b->failed, true);
    pthread_mutex_unlock(&b->lock);
}

static void progress(builder *b, bool final) {
    if (!b->desc->progress) return;
    pthread_mutex_lock(&b->lock);
    double now = st_time_ms();
    if (final || now - b->last_progress >= PROGRESS_EVERY_MS) {
        b->last_progress = now;
        st_store_progress p = {atomic_load(&b->done), b->total, now - b->t0};
        b->desc->progress(b->desc->progress_user, &p);
    }
    pthread_mutex_unlock(&b->lock);
}

static bool key_in_pyramid(const builder *b, st_tile_key k) {
    return k.level < b->info.levels && k.x < b->nx[k.level] && k.y < b->ny[k.level];
}

/* Writes a tile file atomically (its row folder made first) and returns its index record. */
static st_result write_tile(builder *b, const st_tile *t, st_tile_meta *meta, st_error *err) {
    uint8_t *data = NULL;
    size_t size = 0;
    st_result r = st_tile_encode(t, b->info.compression, &data, &size, err);
    if (r) return r;
    char rel[96], path[1200], folder[1200];
    st_tile_path(t->key, rel, sizeof rel);
    snprintf(path, sizeof path, "%s/%s", b->dir, rel);
    snprintf(folder, sizeof folder, "%s", path);
    *strrchr(folder, '/') = 0;
    r = st_make_dirs(folder, err);
    if (!r) r = st_file_write_atomic(path, data, size, err);
    if (!r) *meta = (st_tile_meta){t->min_m, t->max_m, t->delta_m, st_tile_file_crc(data, size), (uint32_t)size};
    free(data);
    if (!r) {
        atomic_fetch_add(&b->written, 1);
        atomic_fetch_add(&b->bytes, size);
        atomic_fetch_add(&b->raw_bytes, t->data_bytes + ST_TILE_HEADER_BYTES);
    }
    return r;
}

/* A tile of an earlier run that is complete and was made with the same settings: returned decoded. */
static st_tile *existing_tile(builder *b, st_tile_key k, st_tile_meta *meta, bool count) {
    char rel[96];
    st_tile_path(k, rel, sizeof rel);
    uint8_t *data = NULL;
    size_t size = 0;
    st_error e = {0};
    if (st_fetch(b->dir, rel, ST_STORE_MAX_FILE, &data, &size, &e)) return NULL;
    st_tile *t = NULL;
    bool ok = !st_tile_decode(data, size, rel, &k, &t, &e) && t->kind == b->info.kind &&
              t->encoding == b->info.encoding && t->size == b->n && t->scale == b->info.scale &&
              t->offset == b->info.offset;
    if (ok) *meta = (st_tile_meta){t->min_m, t->max_m, t->delta_m, st_tile_file_crc(data, size), (uint32_t)size};
    free(data);
    if (!ok) {
        st_tile_destroy(t);
        return NULL;
    }
    if (count) {
        atomic_fetch_add(&b->kept, 1);
        atomic_fetch_add(&b->bytes, size);
        atomic_fetch_add(&b->raw_bytes, t->data_bytes + ST_TILE_HEADER_BYTES);
    }
    return t;
}

/* ---- DEM tiles ------------------------------------------------------------------------------------------- */

/* Whether finest sample index `g` of an axis of `extent` samples lies inside the world. */
static inline bool inside(uint64_t g, uint64_t extent) { return g < extent; }

/* Metres of the samples, and the tile from them in the store's encoding. */
static st_result make_tile(builder *b, st_tile_key k, const float *h, float mn, float mx, float delta, st_tile **out,
                           st_error *err) {
    st_tile *t = NULL;
    st_result r = st_tile_create(ST_TILE_DEM, b->info.encoding, b->n, &t, err);
    if (r) return r;
    t->key = k;
    t->min_m = mn;
    t->max_m = mx;
    t->delta_m = delta;
    t->scale = b->info.scale;
    t->offset = b->info.offset;
    size_t count = (size_t)b->n * b->n;
    if (b->info.encoding == ST_TILE_F32) {
        memcpy(t->data, h, count * sizeof(float));
    } else {
        uint16_t *v = t->data;
        double worst = 0;
        for (size_t i = 0; i < count; i++) {
            double q = nearbyint(((double)h[i] - b->info.offset) / b->info.scale);
            if (!(q >= 0 && q <= 65535)) {
                st_tile_destroy(t);
                return st_error_set(err, ST_ERR_FORMAT, "tile %u/%u/%u: %.3f m is outside the source's stated range "
                                    "%.3f..%.3f m", k.level, k.x, k.y, h[i], b->info.min_m, b->info.max_m);
            }
            v[i] = (uint16_t)q;
            double e = fabs(b->info.offset + q * b->info.scale - (double)h[i]);
            worst = e > worst ? e : worst;
        }
        if (worst > 0 && !b->exact) {
            pthread_mutex_lock(&b->lock);
            if (worst > b->max_quantisation) b->max_quantisation = worst;
            pthread_mutex_unlock(&b->lock);
        }
    }
    *out = t;
    return ST_OK;
}

/* Heights (metres) of a decoded tile. */
static void tile_heights(const st_tile *t, float *h) {
    size_t count = (size_t)t->size * t->size;
    if (t->encoding == ST_TILE_F32) memcpy(h, t->data, count * sizeof(float));
    else
        for (size_t i = 0; i < count; i++) h[i] = (float)(t->offset + t->scale * ((const uint16_t *)t->data)[i]);
}

typedef struct node_out {
    float *h; /* n² metres, as stored (quantised for u16) */
    st_tile_meta meta;
} node_out;

static st_result build_node(builder *b, st_tile_key k, node_out *out, st_error *err);

typedef struct child_job {
    builder *b;
    st_tile_key key[4];
    bool present[4];
    node_out out[4];
    st_result r[4];
    st_error e[4];
} child_job;

static void child_range(void *user, size_t begin, size_t end) {
    child_job *j = user;
    for (size_t c = begin; c < end; c++)
        if (j->present[c]) j->r[c] = build_node(j->b, j->key[c], &j->out[c], &j->e[c]);
}

/* Level 0: samples straight from the source; bounds over the samples inside the world. */
static st_result build_leaf(builder *b, st_tile_key k, node_out *out, st_error *err) {
    int64_t x0 = (int64_t)k.x * b->span, y0 = (int64_t)k.y * b->span;
    st_result r = st_dem_source_read(b->src, x0, y0, b->n, b->n, out->h, err);
    if (r) return st_error_prefix(err, "tile 0/%u/%u", k.x, k.y);
    float mn = INFINITY, mx = -INFINITY;
    uint64_t inside_count = 0;
    for (uint32_t j = 0; j < b->n; j++) {
        if (!inside((uint64_t)y0 + j, b->info.height)) break;
        for (uint32_t i = 0; i < b->n; i++) {
            if (!inside((uint64_t)x0 + i, b->info.width)) break;
            float v = out->h[(size_t)j * b->n + i];
            if (!isfinite(v))
                return st_error_set(err, ST_ERR_FORMAT, "tile 0/%u/%u: the source gave a non-finite sample", k.x, k.y);
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
            /* a tile's last column and row are its neighbour's first: count each finest sample once */
            if ((i < b->span || (uint64_t)x0 + i + 1 == b->info.width) &&
                (j < b->span || (uint64_t)y0 + j + 1 == b->info.height))
                inside_count++;
        }
    }
    atomic_fetch_add(&b->samples, inside_count);
    st_tile *t = NULL;
    if ((r = make_tile(b, k, out->h, mn, mx, 0, &t, err))) return r;
    tile_heights(t, out->h); /* what readers will see (u16 rounding included) */
    r = write_tile(b, t, &out->meta, err);
    st_tile_destroy(t);
    return r;
}

/* A parent from its children: decimated samples, children's bounds, and δ. */
static st_result build_parent(builder *b, st_tile_key k, child_job *cj, node_out *out, st_error *err) {
    uint32_t n = b->n, span = b->span, half = span / 2;
    float mn = INFINITY, mx = -INFINITY;
    for (int c = 0; c < 4; c++)
        if (cj->present[c]) {
            mn = fminf(mn, cj->out[c].meta.min_m);
            mx = fmaxf(mx, cj->out[c].meta.max_m);
        }
    /* decimation: parent sample i comes from child (i ≥ half) at 2i − span; a missing second child means the world
     * ended inside the first, whose last sample already repeats the world's edge */
    for (uint32_t j = 0; j < n; j++) {
        uint32_t cy = j > half && cj->present[2] ? 1 : 0;
        uint32_t ly = 2 * j - cy * span;
        if (ly > span) ly = span;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t cx = i > half && cj->present[cy * 2 + 1] ? 1 : 0;
            uint32_t lx = 2 * i - cx * span;
            if (lx > span) lx = span;
            out->h[(size_t)j * n + i] = cj->out[cy * 2 + cx].h[(size_t)ly * n + lx];
        }
    }
    st_tile *t = NULL;
    st_result r = make_tile(b, k, out->h, mn, mx, 0, &t, err);
    if (r) return r;
    tile_heights(t, out->h);
    /* δ: the parent's bilinear surface against each child's samples inside the world, plus the child's δ. Within a
     * child cell both surfaces are bilinear, so their gap peaks at child samples: this is exact for |P − C|. */
    double delta = 0;
    uint64_t stride_c = 1ull << (k.level - 1);
    for (int c = 0; c < 4; c++) {
        if (!cj->present[c]) continue;
        uint32_t cx = (uint32_t)c & 1, cy = (uint32_t)c >> 1;
        st_tile_key ck = cj->key[c];
        double worst = 0;
        for (uint32_t j = 0; j < n; j++) {
            if (!inside(((uint64_t)ck.y * span + j) * stride_c, b->info.height)) break;
            uint32_t py2 = cy * span + j; /* twice the parent row */
            uint32_t p0 = py2 / 2, p1 = (py2 + 1) / 2;
            for (uint32_t i = 0; i < n; i++) {
                if (!inside(((uint64_t)ck.x * span + i) * stride_c, b->info.width)) break;
                uint32_t px2 = cx * span + i, q0 = px2 / 2, q1 = (px2 + 1) / 2;
                const float *P = out->h;
                double bil = 0.25 * ((double)P[(size_t)p0 * n + q0] + P[(size_t)p0 * n + q1] + P[(size_t)p1 * n + q0] +
                                     P[(size_t)p1 * n + q1]);
                double e = fabs(bil - (double)cj->out[c].h[(size_t)j * n + i]);
                worst = e > worst ? e : worst;
            }
        }
        worst += cj->out[c].meta.delta_m;
        delta = worst > delta ? worst : delta;
    }
    t->delta_m = (float)delta * (1.0f + 1e-6f); /* float rounding never makes the bound too small */
    r = write_tile(b, t, &out->meta, err);
    st_tile_destroy(t);
    return r;
}

static bool tile_file_present(const builder *b, st_tile_key k) {
    char rel[96], path[1200];
    st_tile_path(k, rel, sizeof rel);
    snprintf(path, sizeof path, "%s/%s", b->dir, rel);
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Resuming under a tile that is already there: its descendants must be too. Missing ones are built (they do not
 * change the tile above: the source is the same); present ones are only looked at. */
static st_result complete_subtree(builder *b, st_tile_key k, st_error *err) {
    if (!k.level) return ST_OK;
    st_result r = ST_OK;
    for (int c = 0; c < 4 && !r; c++) {
        st_tile_key ck = {k.level - 1, 2 * k.x + ((uint32_t)c & 1), 2 * k.y + ((uint32_t)c >> 1)};
        if (!key_in_pyramid(b, ck)) continue;
        if (tile_file_present(b, ck)) {
            atomic_fetch_add(&b->done, 1);
            r = complete_subtree(b, ck, err);
            continue;
        }
        node_out out = {.h = malloc((size_t)b->n * b->n * sizeof(float))};
        if (!out.h) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
        r = build_node(b, ck, &out, err);
        free(out.h);
    }
    return r;
}

static st_result build_node(builder *b, st_tile_key k, node_out *out, st_error *err) {
    if (atomic_load(&b->failed)) return st_error_set(err, ST_ERR_INVALID, "stopped");
    st_result r = ST_OK;
    st_tile *old = existing_tile(b, k, &out->meta, true);
    if (old) {
        tile_heights(old, out->h);
        st_tile_destroy(old);
        r = complete_subtree(b, k, err);
    } else if (k.level == 0) {
        r = build_leaf(b, k, out, err);
    } else {
        child_job *cj = calloc(1, sizeof *cj);
        if (!cj) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
        cj->b = b;
        size_t count = (size_t)b->n * b->n;
        for (int c = 0; c < 4 && !r; c++) {
            cj->key[c] = (st_tile_key){k.level - 1, 2 * k.x + ((uint32_t)c & 1), 2 * k.y + ((uint32_t)c >> 1)};
            cj->present[c] = key_in_pyramid(b, cj->key[c]);
            if (cj->present[c] && !(cj->out[c].h = malloc(count * sizeof(float))))
                r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
        }
        if (!r) {
            st_parallel_for(4, 1, child_range, cj);
            for (int c = 0; c < 4 && !r; c++)
                if (cj->present[c] && cj->r[c]) {
                    *err = cj->e[c];
                    r = cj->r[c];
                }
        }
        if (!r) r = build_parent(b, k, cj, out, err);
        for (int c = 0; c < 4; c++) free(cj->out[c].h);
        free(cj);
    }
    if (!r) {
        b->records[k.level][(size_t)k.y * b->nx[k.level] + k.x] = out->meta;
        atomic_fetch_add(&b->done, 1);
        progress(b, false);
    } else if (r && !atomic_load(&b->failed)) {
        fail(b, err);
    }
    return r;
}

/* ---- layer tiles ------------------------------------------------------------------------------------------ */

/* A tile of the source layer store, kept when an earlier run left it here intact. */
static st_result copy_layer_tile(builder *b, st_tile_key k, st_error *err) {
    st_tile_meta *meta = &b->records[0][(size_t)k.y * b->nx[0] + k.x];
    st_tile *t = existing_tile(b, k, meta, true);
    st_result r = ST_OK;
    if (!t) {
        if ((r = st_store_read_tile(b->layer_src, k, &t, err))) return r;
        r = write_tile(b, t, meta, err);
    }
    atomic_fetch_add(&b->samples, (uint64_t)b->n * b->n);
    st_tile_destroy(t);
    return r;
}

static st_result build_layer_tile(builder *b, st_tile_key k, st_error *err) {
    if (b->layer_src) return copy_layer_tile(b, k, err);
    st_tile *t = NULL;
    st_result r = st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, b->n, &t, err);
    if (r) return r;
    t->key = k;
    const st_level *l = b->level;
    uint8_t *p = t->data;
    float mn = INFINITY, mx = -INFINITY;
    for (uint32_t j = 0; j < b->n; j++) {
        uint32_t y = k.y * b->n + j < l->height ? k.y * b->n + j : l->height - 1;
        const uint8_t *hr = st_level_height_row(l, y), *mr = st_level_meta_row(l, y);
        for (uint32_t i = 0; i < b->n; i += 2) {
            uint32_t x = k.x * b->n + i < l->width ? k.x * b->n + i : l->width - 2;
            uint8_t *q = p + ((size_t)j * (b->n / 2) + i / 2) * 4;
            q[0] = hr[x];
            q[1] = mr[x];
            q[2] = hr[x + 1];
            q[3] = mr[x + 1];
            for (int e = 0; e < 2; e++) {
                st_texel tx = st_level_texel(l, (int)x + e, (int)y);
                mn = fminf(mn, (float)tx.low);
                mx = fmaxf(mx, (float)tx.high);
            }
        }
    }
    t->min_m = mn;
    t->max_m = mx;
    atomic_fetch_add(&b->samples, (uint64_t)b->n * b->n);
    r = write_tile(b, t, &b->records[0][(size_t)k.y * b->nx[0] + k.x], err);
    st_tile_destroy(t);
    return r;
}

typedef struct layer_job {
    builder *b;
} layer_job;

static void layer_range(void *user, size_t begin, size_t end) {
    builder *b = ((layer_job *)user)->b;
    for (size_t i = begin; i < end && !atomic_load(&b->failed); i++) {
        st_tile_key k = {0, (uint32_t)(i % b->nx[0]), (uint32_t)(i / b->nx[0])};
        st_error e = {0};
        if (build_layer_tile(b, k, &e)) fail(b, &e);
        atomic_fetch_add(&b->done, 1);
        progress(b, false);
    }
}

/* ---- finishing: indices, manifest, leftovers ---------------------------------------------------------------- */

/* Index records of tiles this run did not make (other shards'): read from their headers. */
static st_result read_records(builder *b, uint32_t level, st_error *err) {
    for (uint32_t y = 0; y < b->ny[level]; y++)
        for (uint32_t x = 0; x < b->nx[level]; x++) {
            st_tile_meta *m = &b->records[level][(size_t)y * b->nx[level] + x];
            if (m->bytes) continue;
            st_tile_key k = {level, x, y};
            st_tile *t = existing_tile(b, k, m, false);
            if (!t)
                return st_error_set(err, ST_ERR_IO, "%s: tile %u/%u/%u is missing or damaged", b->dir, level, x, y);
            st_tile_destroy(t);
        }
    return ST_OK;
}

/* Temporary files of builds that were killed: name.tmpPID whose process is gone. */
static void remove_stale_temps(const char *folder) {
    DIR *d = opendir(folder);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *t = strstr(e->d_name, ".tmp");
        if (!t || !t[4]) continue;
        char *end;
        long pid = strtol(t + 4, &end, 10);
        if (*end || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno != ESRCH)) continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static st_result finish(builder *b, st_error *err) {
    st_result r = ST_OK;
    char path[1200];
    snprintf(path, sizeof path, "%s/index", b->dir);
    if ((r = st_make_dirs(path, err))) return r;
    b->info.tiles = 0;
    b->info.bytes = 0;
    for (uint32_t l = 0; l < b->info.levels && !r; l++) {
        r = read_records(b, l, err);
        if (r) break;
        size_t count = (size_t)b->nx[l] * b->ny[l];
        for (size_t i = 0; i < count; i++) {
            b->info.tiles++;
            b->info.bytes += b->records[l][i].bytes;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        char rel[64];
        st_index_path(l, rel, sizeof rel);
        snprintf(path, sizeof path, "%s/%s", b->dir, rel);
        r = st_index_encode(l, b->nx[l], b->ny[l], b->records[l], &data, &size, err);
        if (!r) r = st_file_write_atomic(path, data, size, err);
        free(data);
        for (uint32_t y = 0; y < b->ny[l]; y++) {
            snprintf(path, sizeof path, "%s/tiles/%u/%u", b->dir, l, y);
            remove_stale_temps(path);
        }
    }
    if (r) return r;
    /* the store's range: a DEM root's bounds are exact over every finest sample; layer stores take all tiles */
    b->info.min_m = INFINITY;
    b->info.max_m = -INFINITY;
    uint32_t top = b->info.levels - 1;
    for (size_t i = 0; i < (size_t)b->nx[top] * b->ny[top]; i++) {
        b->info.min_m = fmin(b->info.min_m, b->records[top][i].min_m);
        b->info.max_m = fmax(b->info.max_m, b->records[top][i].max_m);
    }
    char *text = NULL;
    if ((r = st_manifest_format(&b->info, &text, err))) return r;
    snprintf(path, sizeof path, "%s/%s", b->dir, ST_STORE_MANIFEST);
    r = st_file_write_atomic(path, text, strlen(text), err);
    free(text);
    return r;
}

/* ---- entry points ----------------------------------------------------------------------------------------- */

static st_result builder_init(builder *b, const char *dir, const st_store_build_desc *desc, st_error *err) {
    pthread_mutex_init(&b->lock, NULL);
    b->dir = dir;
    b->desc = desc;
    b->t0 = st_time_ms();
    b->last_progress = -1e9;
    b->n = b->info.tile_size;
    b->span = st_tile_span(b->info.kind, b->n);
    /* coarser two-interval levels are not defined yet: a layer store holds its finest level only */
    b->info.levels = b->info.kind == ST_TILE_DEM ? st_tiles_levels(b->info.kind, b->info.width, b->info.height, b->n) : 1;
    if (desc->levels && desc->levels < b->info.levels)
        return st_error_set(err, ST_ERR_INVALID, "%u levels cannot reach a single root tile (%u are needed); "
                            "a larger --tile-size needs fewer", desc->levels, b->info.levels);
    for (uint32_t l = 0; l < b->info.levels; l++) {
        b->nx[l] = st_tiles_across(b->info.kind, b->info.width, b->n, l);
        b->ny[l] = st_tiles_across(b->info.kind, b->info.height, b->n, l);
        b->records[l] = calloc((size_t)b->nx[l] * b->ny[l], sizeof(st_tile_meta));
        if (!b->records[l]) return st_error_set(err, ST_ERR_NOMEM, "out of memory for the index");
    }
    if (desc->shard_count > 1 && desc->shard_index >= desc->shard_count)
        return st_error_set(err, ST_ERR_INVALID, "shard %u/%u: the index must be below the count", desc->shard_index,
                            desc->shard_count);
    st_result r = st_make_dirs(dir, err);
    if (r) return r;
    /* a store without its manifest is incomplete: remove an earlier one before anything changes */
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, ST_STORE_MANIFEST);
    if (unlink(path) && errno != ENOENT) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    return ST_OK;
}

static void builder_free(builder *b) {
    for (uint32_t l = 0; l < ST_STORE_MAX_LEVELS; l++) free(b->records[l]);
    pthread_mutex_destroy(&b->lock);
}

static void fill_stats(builder *b, st_store_build_stats *stats, bool complete) {
    if (!stats) return;
    *stats = (st_store_build_stats){.tiles_written = atomic_load(&b->written),
                                    .tiles_kept = atomic_load(&b->kept),
                                    .samples = atomic_load(&b->samples),
                                    .bytes = atomic_load(&b->bytes),
                                    .raw_bytes = atomic_load(&b->raw_bytes),
                                    .ms = st_time_ms() - b->t0,
                                    .complete = complete,
                                    .max_quantisation_m = b->max_quantisation};
}

/* The level the shards' subtrees are rooted at: the finest level with at least 4 roots per shard (or the root). */
static uint32_t shard_level(const builder *b, uint32_t shards) {
    uint32_t l = b->info.levels - 1;
    if (shards <= 1) return l;
    for (uint32_t k = 0; k < b->info.levels; k++) {
        uint32_t lk = b->info.levels - 1 - k;
        if ((uint64_t)b->nx[lk] * b->ny[lk] >= 4ull * shards) return lk;
    }
    return 0;
}

typedef struct root_job {
    builder *b;
    uint32_t level, shard, shards;
} root_job;

static void root_range(void *user, size_t begin, size_t end) {
    root_job *j = user;
    builder *b = j->b;
    size_t n = (size_t)b->n * b->n;
    float *h = malloc(n * sizeof(float));
    for (size_t i = begin; i < end && !atomic_load(&b->failed); i++) {
        if (j->shards > 1 && i % j->shards != j->shard) continue;
        st_tile_key k = {j->level, (uint32_t)(i % b->nx[j->level]), (uint32_t)(i / b->nx[j->level])};
        st_error e = {0};
        node_out out = {.h = h};
        if (!h) {
            st_error_set(&e, ST_ERR_NOMEM, "out of memory");
            fail(b, &e);
            break;
        }
        build_node(b, k, &out, &e);
    }
    free(h);
}

/* Tiles of the subtree under a tile at `level` (itself included). */
static uint64_t subtree_tiles(const builder *b, st_tile_key k) {
    uint64_t count = 1;
    if (!k.level) return count;
    for (int c = 0; c < 4; c++) {
        st_tile_key ck = {k.level - 1, 2 * k.x + ((uint32_t)c & 1), 2 * k.y + ((uint32_t)c >> 1)};
        if (key_in_pyramid(b, ck)) count += subtree_tiles(b, ck);
    }
    return count;
}

st_result st_store_build_dem(st_dem_source *src, const char *dir, const st_store_build_desc *desc,
                             st_store_build_stats *stats, st_error *err) {
    st_store_build_desc defaults = {0};
    if (!desc) desc = &defaults;
    const st_dem_info *si = st_dem_source_info(src);
    builder b = {.src = src};
    st_store_info *in = &b.info;
    in->kind = ST_TILE_DEM;
    in->tile_size = desc->tile_size ? desc->tile_size : DEFAULT_DEM_TILE;
    if (in->tile_size < 3 || in->tile_size > ST_TILE_MAX_SIZE || !st_is_pow2(in->tile_size - 1))
        return st_error_set(err, ST_ERR_INVALID, "tile size %u: DEM tiles are 2^k + 1 samples (3..%u), e.g. 257",
                            in->tile_size, ST_TILE_MAX_SIZE);
    if (si->width < 2 || si->height < 2)
        return st_error_set(err, ST_ERR_INVALID, "%s: a DEM store needs at least 2x2 samples", si->description);
    if (!(si->spacing_x_m > 0) || !(si->spacing_y_m > 0))
        return st_error_set(err, ST_ERR_INVALID, "%s: the horizontal spacing is unknown (give it with --spacing M)",
                            si->description);
    in->width = si->width;
    in->height = si->height;
    in->spacing_x_m = si->spacing_x_m;
    in->spacing_y_m = si->spacing_y_m;
    in->sea_level_m = si->sea_level_m;
    in->wrap_x = si->wrap_x;
    in->compression = desc->raw ? ST_TILE_RAW : ST_TILE_ZSTD;
    in->georeferenced = si->georeferenced;
    memcpy(in->geotransform, si->geotransform, sizeof in->geotransform);
    snprintf(in->crs, sizeof in->crs, "%s", si->crs);
    snprintf(in->source, sizeof in->source, "%s", desc->source_label ? desc->source_label : si->description);
    /* Full precision: u16 on the source's own unit grid when its range fits 16 bits, else float. */
    double lo = si->min_m, hi = si->max_m;
    if (!isfinite(lo) || !isfinite(hi) || lo > hi)
        return st_error_set(err, ST_ERR_FORMAT, "%s: no valid elevation range", si->description);
    bool exact = si->unit_m > 0 && (hi - lo) / si->unit_m < 65535.0 - 2;
    in->encoding = desc->encoding ? desc->encoding : exact ? ST_TILE_U16 : ST_TILE_F32;
    b.exact = exact && in->encoding == ST_TILE_U16;
    if (in->encoding == ST_TILE_U16) {
        if (exact) {
            in->scale = si->unit_m;
            in->offset = floor(lo / si->unit_m) * si->unit_m;
        } else {
            in->scale = hi > lo ? (hi - lo) / 65535.0 : 1.0;
            in->offset = lo;
        }
    } else if (in->encoding == ST_TILE_F32) {
        in->scale = 1.0;
    } else {
        return st_error_set(err, ST_ERR_INVALID, "DEM tiles are u16 or f32");
    }
    st_result r = builder_init(&b, dir, desc, err);
    uint32_t shards = desc->shard_count > 1 ? desc->shard_count : 1;
    if (!r) {
        b.shard_level = shard_level(&b, shards);
        uint32_t sl = b.shard_level;
        size_t roots = (size_t)b.nx[sl] * b.ny[sl];
        for (size_t i = 0; i < roots; i++)
            if (shards == 1 || i % shards == desc->shard_index)
                b.total += subtree_tiles(&b, (st_tile_key){sl, (uint32_t)(i % b.nx[sl]), (uint32_t)(i / b.nx[sl])});
        root_job j = {&b, sl, desc->shard_index, shards};
        st_parallel_for(roots, 1, root_range, &j);
        if (atomic_load(&b.failed)) {
            *err = b.error;
            r = err->code;
        }
    }
    bool complete = false;
    if (!r && shards > 1) {
        /* the shard that finds every subtree root present builds the levels above them and finishes the store */
        bool all = true;
        uint32_t sl = b.shard_level;
        for (uint32_t y = 0; y < b.ny[sl] && all; y++)
            for (uint32_t x = 0; x < b.nx[sl] && all; x++) {
                st_tile_meta *m = &b.records[sl][(size_t)y * b.nx[sl] + x];
                if (m->bytes) continue;
                st_tile *t = existing_tile(&b, (st_tile_key){sl, x, y}, m, false);
                if (!t) all = false;
                st_tile_destroy(t);
            }
        if (all && sl + 1 < in->levels) {
            size_t n = (size_t)b.n * b.n;
            node_out out = {.h = malloc(n * sizeof(float))};
            if (!out.h) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
            else r = build_node(&b, (st_tile_key){in->levels - 1, 0, 0}, &out, err);
            free(out.h);
        }
        if (!r && all) complete = true;
    } else if (!r) {
        complete = true;
    }
    if (!r && complete) r = finish(&b, err);
    progress(&b, true);
    fill_stats(&b, stats, !r && complete);
    builder_free(&b);
    return r;
}

/* The layer stores' one level, in parallel, then the index and the manifest. */
static st_result build_layers(builder *b, const char *dir, const st_store_build_desc *desc,
                              st_store_build_stats *stats, st_error *err) {
    st_result r = builder_init(b, dir, desc, err);
    if (!r) {
        b->total = (uint64_t)b->nx[0] * b->ny[0];
        layer_job j = {b};
        st_parallel_for(b->total, 1, layer_range, &j);
        if (atomic_load(&b->failed)) {
            *err = b->error;
            r = err->code;
        }
    }
    if (!r) r = finish(b, err);
    progress(b, true);
    fill_stats(b, stats, !r);
    builder_free(b);
    return r;
}

static st_result layer_tile_size(const st_store_build_desc *desc, uint32_t *out, st_error *err) {
    *out = desc->tile_size ? desc->tile_size : DEFAULT_LAYER_TILE;
    if (*out < 2 || *out > ST_TILE_MAX_SIZE - 1 || !st_is_pow2(*out))
        return st_error_set(err, ST_ERR_INVALID, "tile size %u: layer tiles are 2^k texels (2..1024), e.g. 256", *out);
    if (desc->shard_count > 1)
        return st_error_set(err, ST_ERR_INVALID, "layer stores are built in one run (no --shard)");
    return ST_OK;
}

st_result st_store_build_level(const st_level *level, const char *dir, const st_store_build_desc *desc,
                               st_store_build_stats *stats, st_error *err) {
    st_store_build_desc defaults = {0};
    if (!desc) desc = &defaults;
    builder b = {.level = level};
    st_store_info *in = &b.info;
    in->kind = ST_TILE_LAYERS;
    in->encoding = ST_TILE_PAIRS;
    in->compression = desc->raw ? ST_TILE_RAW : ST_TILE_ZSTD;
    st_result r = layer_tile_size(desc, &in->tile_size, err);
    if (r) return r;
    in->width = level->width;
    in->height = level->height;
    in->spacing_x_m = in->spacing_y_m = 1.0; /* one texel per unit: the level's own units */
    in->scale = 1.0;
    in->terrain_types = level->terrain_types;
    memcpy(in->begin_color, level->begin_color, 16);
    memcpy(in->end_color, level->end_color, 16);
    memcpy(in->palette, level->palette, sizeof in->palette);
    snprintf(in->name, sizeof in->name, "%s", level->name);
    snprintf(in->source, sizeof in->source, "%s", desc->source_label ? desc->source_label : level->name);
    in->wrap_x = level->wrap_x;
    in->wrap_y = level->wrap_y;
    in->section_power = level->section_power;
    uint32_t sections = level->height >> level->section_power ? level->height >> level->section_power : 1;
    if (sections > ST_STORE_MAX_FLOOD)
        return st_error_set(err, ST_ERR_INVALID, "%s: %u flood sections, a layer store keeps at most %u", level->name,
                            sections, ST_STORE_MAX_FLOOD);
    in->flood_sections = sections;
    memcpy(in->flood, level->flood, sections);
    if (level->colors) { /* before the manifest that names it, which is written last */
        char path[1200];
        snprintf(in->color_map, sizeof in->color_map, "color.png");
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, in->color_map) >= sizeof path)
            return st_error_set(err, ST_ERR_INVALID, "%s: path too long", dir);
        st_result r2 = st_make_dirs(dir, err);
        if (!r2) r2 = st_png_write(path, level->width, level->height, 3, 8, level->colors, err);
        if (r2) return r2;
    }
    return build_layers(&b, dir, desc, stats, err);
}

st_result st_store_build_layers(st_store *src, const char *dir, const st_store_build_desc *desc,
                                st_store_build_stats *stats, st_error *err) {
    st_store_build_desc defaults = {0};
    if (!desc) desc = &defaults;
    const st_store_info *si = st_store_get_info(src);
    if (si->kind != ST_TILE_LAYERS) return st_error_set(err, ST_ERR_INVALID, "%s: not a layer store", si->source);
    builder b = {.layer_src = src};
    st_store_info *in = &b.info;
    st_result r = layer_tile_size(desc, &in->tile_size, err);
    if (r) return r;
    if (desc->tile_size && desc->tile_size != si->tile_size)
        return st_error_set(err, ST_ERR_INVALID, "tile size %u: a copy of a layer store keeps its tiles (%u texels)",
                            desc->tile_size, si->tile_size);
    in->tile_size = si->tile_size;
    in->kind = ST_TILE_LAYERS;
    in->encoding = ST_TILE_PAIRS;
    in->compression = desc->raw ? ST_TILE_RAW : ST_TILE_ZSTD;
    in->width = si->width;
    in->height = si->height;
    in->spacing_x_m = si->spacing_x_m;
    in->spacing_y_m = si->spacing_y_m;
    in->scale = 1.0;
    in->terrain_types = si->terrain_types;
    memcpy(in->begin_color, si->begin_color, 16);
    memcpy(in->end_color, si->end_color, 16);
    memcpy(in->palette, si->palette, sizeof in->palette);
    snprintf(in->name, sizeof in->name, "%s", si->name);
    snprintf(in->source, sizeof in->source, "%s", desc->source_label ? desc->source_label : si->source);
    in->wrap_x = si->wrap_x;
    in->wrap_y = si->wrap_y;
    in->section_power = si->section_power;
    in->flood_sections = si->flood_sections;
    memcpy(in->flood, si->flood, si->flood_sections);
    return build_layers(&b, dir, desc, stats, err);
}
