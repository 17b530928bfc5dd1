/* Reading a tile store: the manifest and every level's index at open, then single tiles on demand (fetched from a
 * folder or over HTTP, checked against the index and their own CRC, decoded). "gen:SEED:WxH[:SPACING]" opens a
 * store whose tiles the procedural DEM makes on demand, "gen:multi:SEED:WxH[:DUAL]" one of two-interval tiles of
 * the procedural multi-layer world: nothing on disk, bounds learnt as tiles are made. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/file.h"
#include "strata/gen.h"
#include "strata/heightmap.h"
#include "tiles/tiles_internal.h"

#define GEN_TILE_SIZE 257u
#define GEN_LAYER_TILE 256u /* texels a side of a generated world's layer tiles */
#define GEN_META_CAP (1u << 20) /* learnt bounds kept for this many tiles, then forgotten */

typedef struct gen_meta {
    uint64_t key; /* packed key + 1; 0 = empty slot */
    float min_m, max_m;
} gen_meta;

struct st_store {
    st_store_info info;
    char where[1024];
    st_tile_meta *index[ST_STORE_MAX_LEVELS]; /* disk and http stores: one record per tile, row-major */
    uint32_t nx[ST_STORE_MAX_LEVELS], ny[ST_STORE_MAX_LEVELS];
    /* generated stores: a DEM (gen) or a multi-layer world (layers) */
    st_dem_source *gen;
    st_gen_source *layers;
    double gen_delta[ST_STORE_MAX_LEVELS];
    pthread_mutex_t meta_lock;
    gen_meta *learnt; /* open addressing, GEN_META_CAP slots */
    uint32_t learnt_count;
    st_store *coarse_of; /* a coarser level of this layer store (st_store_open_coarse): its tiles are made from it */
    st_store *overlay;   /* a generated world's edits (st_store_open_overlay): a folder store of the edited tiles */
};

const st_store_info *st_store_get_info(const st_store *s) { return &s->info; }
st_store_info *st_store_info_mut(st_store *s) { return &s->info; }
st_tile_meta *st_store_index_mut(st_store *s, uint32_t level) { return level < s->info.levels ? s->index[level] : NULL; }
const char *st_store_folder(const st_store *s) {
    if (s->gen || s->layers || s->coarse_of || !strncmp(s->where, "http://", 7) || !strncmp(s->where, "https://", 8)) return NULL;
    return s->where;
}

void st_store_level_tiles(const st_store *s, uint32_t level, uint32_t *nx, uint32_t *ny) {
    bool in = level < s->info.levels;
    *nx = in ? s->nx[level] : 0;
    *ny = in ? s->ny[level] : 0;
}

static bool key_inside(const st_store *s, st_tile_key k) {
    return k.level < s->info.levels && k.x < s->nx[k.level] && k.y < s->ny[k.level];
}

void st_store_close(st_store *s) {
    if (!s) return;
    for (uint32_t l = 0; l < ST_STORE_MAX_LEVELS; l++) free(s->index[l]);
    st_dem_source_destroy(s->gen);
    st_gen_source_destroy(s->layers);
    free(s->learnt);
    st_store_close(s->overlay);
    pthread_mutex_destroy(&s->meta_lock);
    free(s);
}

st_store *st_store_edits_target(st_store *s) { return s->overlay ? s->overlay : s; }

void st_store_set_tile_meta(st_store *s, st_tile_key key, const st_tile_meta *m) {
    if (!key_inside(s, key) || !s->index[key.level]) return;
    pthread_mutex_lock(&s->meta_lock); /* loads on other threads read the index while a write-back lands */
    s->index[key.level][(size_t)key.y * s->nx[key.level] + key.x] = *m;
    pthread_mutex_unlock(&s->meta_lock);
}

static void fill_geometry(st_store *s) {
    for (uint32_t l = 0; l < s->info.levels; l++) {
        s->nx[l] = st_tiles_across(s->info.kind, s->info.width, s->info.tile_size, l);
        s->ny[l] = st_tiles_across(s->info.kind, s->info.height, s->info.tile_size, l);
    }
}

/* ---- generated stores ------------------------------------------------------------------------------------ */

static uint64_t mix64(uint64_t v) {
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdull;
    v ^= v >> 33;
    v *= 0xc4ceb9fe1a85ec53ull;
    return v ^ (v >> 33);
}

static void learn(st_store *s, st_tile_key k, float mn, float mx) {
    uint64_t key = st_tile_key_pack(k) + 1;
    pthread_mutex_lock(&s->meta_lock);
    if (s->learnt_count > GEN_META_CAP / 2) { /* keep probing short: forget everything, it is only a cache */
        memset(s->learnt, 0, sizeof(gen_meta) * GEN_META_CAP);
        s->learnt_count = 0;
    }
    for (uint64_t i = mix64(key);; i++) {
        gen_meta *m = &s->learnt[i & (GEN_META_CAP - 1)];
        if (m->key == key || !m->key) {
            if (!m->key) s->learnt_count++;
            *m = (gen_meta){key, mn, mx};
            break;
        }
    }
    pthread_mutex_unlock(&s->meta_lock);
}

static bool learnt(st_store *s, st_tile_key k, float *mn, float *mx) {
    uint64_t key = st_tile_key_pack(k) + 1;
    bool found = false;
    pthread_mutex_lock(&s->meta_lock);
    for (uint64_t i = mix64(key);; i++) {
        gen_meta *m = &s->learnt[i & (GEN_META_CAP - 1)];
        if (!m->key) break;
        if (m->key == key) {
            *mn = m->min_m;
            *mx = m->max_m;
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&s->meta_lock);
    return found;
}

/* A generated store's shell: the table of bounds learnt as tiles are made, its lock, and the spec as its name;
 * NULL when out of memory. The caller gives it its source and info. */
static st_store *generated_store_new(const char *spec) {
    st_store *s = calloc(1, sizeof *s);
    gen_meta *learnt_table = calloc(GEN_META_CAP, sizeof(gen_meta));
    if (!s || !learnt_table) {
        free(s);
        free(learnt_table);
        return NULL;
    }
    s->learnt = learnt_table;
    pthread_mutex_init(&s->meta_lock, NULL);
    snprintf(s->where, sizeof s->where, "%s", spec);
    return s;
}

/* The multi-layer world: one level of layer tiles, the texel pairs as a store built from the same world holds them. */
static st_result open_generated_layers(const char *spec, st_store **out, st_error *err) {
    st_gen_desc gd;
    st_gen_source *src = NULL;
    st_result r = st_gen_parse(spec, &gd, err);
    if (!r) r = st_gen_source_create(&gd, &src, err);
    if (r) return r;
    st_store *s = generated_store_new(spec);
    if (!s) {
        st_gen_source_destroy(src);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    const st_gen_desc *d = st_gen_source_desc(src);
    s->layers = src;
    st_store_info *in = &s->info;
    in->kind = ST_TILE_LAYERS;
    in->encoding = ST_TILE_PAIRS;
    in->compression = ST_TILE_RAW;
    in->tile_size = GEN_LAYER_TILE;
    in->width = d->width;
    in->height = d->height;
    in->levels = 1; /* coarser two-interval levels are not defined yet, as in built layer stores */
    in->spacing_x_m = in->spacing_y_m = 1.0;
    in->scale = 1.0;
    in->min_m = 0;
    in->max_m = 255;
    in->generated = true;
    in->wrap_x = in->wrap_y = true; /* the generator's world repeats both ways, as st_gen_world's level does */
    in->section_power = 7;
    st_level palette = {0};
    st_level_default_palette(&palette);
    in->terrain_types = 8;
    memcpy(in->begin_color, palette.begin_color, 16);
    memcpy(in->end_color, palette.end_color, 16);
    memcpy(in->palette, palette.palette, sizeof in->palette);
    snprintf(in->name, sizeof in->name, "%s", st_gen_source_name(src));
    if (d->dual_percent > 0)
        snprintf(in->source, sizeof in->source, "procedural multi-layer world seed %llu, %ux%u texels, %g%% dual",
                 (unsigned long long)d->seed, d->width, d->height, (double)d->dual_percent);
    else
        snprintf(in->source, sizeof in->source, "procedural multi-layer world seed %llu, %ux%u texels, no dual",
                 (unsigned long long)d->seed, d->width, d->height);
    fill_geometry(s);
    in->tiles = (uint64_t)s->nx[0] * s->ny[0];
    *out = s;
    return ST_OK;
}

static st_result read_generated_layers(st_store *s, st_tile_key key, st_tile **out, st_error *err) {
    const uint32_t n = GEN_LAYER_TILE;
    st_tile_meta edited;
    if (s->overlay && st_store_tile_meta(s->overlay, key, &edited)) /* an edited tile: the overlay holds it */
        return st_store_read_tile(s->overlay, key, out, err);
    st_tile *t = NULL;
    st_result r = st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, n, &t, err);
    if (r) return r;
    t->key = key;
    uint8_t *planes = malloc(2 * (size_t)n * n);
    if (!planes) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (!r) r = st_gen_source_read(s->layers, key.x * n, key.y * n, n, n, planes, planes + (size_t)n * n, err);
    if (r) {
        free(planes);
        st_tile_destroy(t);
        return r;
    }
    /* the pair packing of a layer tile; a pair's two heights bound it, whether it is dual (low, high) or two singles */
    const uint8_t *hp = planes, *mp = planes + (size_t)n * n;
    uint8_t *q = t->data, mn = 255, mx = 0;
    for (size_t i = 0; i < (size_t)n * n; i += 2, q += 4) {
        q[0] = hp[i];
        q[1] = mp[i];
        q[2] = hp[i + 1];
        q[3] = mp[i + 1];
        uint8_t a = hp[i] < hp[i + 1] ? hp[i] : hp[i + 1], b = hp[i] < hp[i + 1] ? hp[i + 1] : hp[i];
        mn = a < mn ? a : mn;
        mx = b > mx ? b : mx;
    }
    free(planes);
    t->min_m = mn;
    t->max_m = mx;
    t->scale = 1;
    learn(s, key, t->min_m, t->max_m);
    *out = t;
    return ST_OK;
}

static st_result open_generated(const char *spec, st_store **out, st_error *err) {
    if (!strncmp(spec, "gen:multi:", 10)) return open_generated_layers(spec, out, err);
    st_dem_gen_desc gd;
    st_result r = st_dem_gen_parse(spec, &gd, err);
    if (r) return r;
    st_dem_source *src = NULL;
    r = st_dem_generator(&gd, &src, err);
    if (r) return r;
    st_store *s = generated_store_new(spec);
    if (!s) {
        st_dem_source_destroy(src);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    const st_dem_info *di = st_dem_source_info(src);
    s->gen = src;
    st_store_info *in = &s->info;
    in->kind = ST_TILE_DEM;
    in->encoding = ST_TILE_F32;
    in->compression = ST_TILE_RAW;
    in->tile_size = GEN_TILE_SIZE;
    in->width = di->width;
    in->height = di->height;
    in->levels = st_tiles_levels(ST_TILE_DEM, in->width, in->height, in->tile_size);
    in->spacing_x_m = di->spacing_x_m;
    in->spacing_y_m = di->spacing_y_m;
    in->scale = 1;
    in->min_m = di->min_m;
    in->max_m = di->max_m;
    in->sea_level_m = di->sea_level_m;
    in->generated = true;
    snprintf(in->source, sizeof in->source, "%s", di->description);
    fill_geometry(s);
    for (uint32_t l = 0; l < in->levels; l++) {
        in->tiles += (uint64_t)s->nx[l] * s->ny[l];
        s->gen_delta[l] = st_dem_source_level_error(src, l);
        if (s->gen_delta[l] < 0) {
            st_store_close(s);
            return st_error_set(err, ST_ERR_UNSUPPORTED, "%s: the generator gives no error bound", spec);
        }
    }
    *out = s;
    return ST_OK;
}

static st_result read_generated(st_store *s, st_tile_key key, st_tile **out, st_error *err) {
    st_tile *t = NULL;
    st_result r = st_tile_create(ST_TILE_DEM, ST_TILE_F32, GEN_TILE_SIZE, &t, err);
    if (r) return r;
    t->key = key;
    uint32_t stride = 1u << key.level, span = GEN_TILE_SIZE - 1;
    int64_t x0 = (int64_t)key.x * span * stride, y0 = (int64_t)key.y * span * stride;
    float *v = t->data;
    r = st_dem_source_read_stride(s->gen, x0, y0, stride, GEN_TILE_SIZE, GEN_TILE_SIZE, v, err);
    if (r) {
        st_tile_destroy(t);
        return r;
    }
    /* bounds of the samples inside the world, widened by δ: they then bound the finest data in the footprint */
    float mn = INFINITY, mx = -INFINITY;
    for (uint32_t j = 0; j < GEN_TILE_SIZE; j++) {
        if ((uint64_t)y0 + (uint64_t)j * stride >= s->info.height) break;
        for (uint32_t i = 0; i < GEN_TILE_SIZE; i++) {
            if ((uint64_t)x0 + (uint64_t)i * stride >= s->info.width) break;
            float h = v[(size_t)j * GEN_TILE_SIZE + i];
            mn = h < mn ? h : mn;
            mx = h > mx ? h : mx;
        }
    }
    t->delta_m = (float)s->gen_delta[key.level];
    t->min_m = mn - t->delta_m;
    t->max_m = mx + t->delta_m;
    t->scale = 1;
    learn(s, key, t->min_m, t->max_m);
    *out = t;
    return ST_OK;
}

/* ---- folders and URLs -------------------------------------------------------------------------------------- */

/* The generated world a just-opened overlay folder store names, with the folder as its edits. */
static st_result open_with_overlay(st_store *edits, st_store **out, st_error *err) {
    const st_store_info *e = &edits->info;
    st_store *g = NULL;
    st_result r = open_generated_layers(e->overlay_of, &g, err);
    if (!r && (g->info.width != e->width || g->info.height != e->height || g->info.tile_size != e->tile_size ||
               e->kind != ST_TILE_LAYERS || e->encoding != ST_TILE_PAIRS || e->levels != 1))
        r = st_error_set(err, ST_ERR_FORMAT, "%s: the overlay's tiles are not those of %s", edits->where, e->overlay_of);
    if (r) {
        st_store_close(g);
        st_store_close(edits);
        return r;
    }
    g->overlay = edits;
    snprintf(g->info.overlay_of, sizeof g->info.overlay_of, "%s", e->overlay_of);
    *out = g;
    return ST_OK;
}

st_result st_store_open_overlay(const char *spec, const char *folder, st_store **out, st_error *err) {
    *out = NULL;
    if (!spec || strncmp(spec, "gen:multi:", 10))
        return st_error_set(err, ST_ERR_INVALID, "an overlay keeps the edits of a generated multi-layer world "
                                                 "(gen:multi:...), not of '%.200s'", spec ? spec : "");
    if (!folder || !*folder || strlen(folder) >= 1000 || st_fetch_is_url(folder))
        return st_error_set(err, ST_ERR_INVALID, "an overlay is a folder on local disk");
    if (strlen(spec) >= sizeof ((st_store_info *)0)->overlay_of)
        return st_error_set(err, ST_ERR_INVALID, "%.64s...: world name too long for an overlay", spec);
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", folder, ST_STORE_MANIFEST);
    FILE *probe = fopen(path, "rb");
    if (probe) { /* an overlay already: it must be this world's */
        fclose(probe);
        st_store *s = NULL;
        st_result r = st_store_open(folder, &s, err);
        if (r) return r;
        if (strcmp(s->info.overlay_of, spec)) {
            r = st_error_set(err, ST_ERR_INVALID, "%s: %s%s, not of %s", folder,
                             s->info.overlay_of[0] ? "the overlay of " : "a store of its own",
                             s->info.overlay_of, spec);
            st_store_close(s);
            return r;
        }
        *out = s;
        return ST_OK;
    }
    /* a new, empty overlay: an index of no tiles, then the manifest (last: a folder without one is no store) */
    st_store *g = NULL;
    st_result r = open_generated_layers(spec, &g, err);
    if (r) return r;
    st_store_info info = g->info;
    info.generated = false;
    info.tiles = info.bytes = 0;
    snprintf(info.overlay_of, sizeof info.overlay_of, "%s", spec);
    snprintf(info.source, sizeof info.source, "the edited tiles of %.400s", spec);
    size_t count = (size_t)g->nx[0] * g->ny[0];
    st_tile_meta *none = count <= (1u << 26) ? calloc(count, sizeof *none) : NULL;
    uint8_t *idx = NULL;
    size_t idx_size = 0;
    char *text = NULL;
    r = none ? ST_OK : st_error_set(err, ST_ERR_NOMEM, "out of memory for an index of %zu tiles", count);
    snprintf(path, sizeof path, "%s/index", folder);
    if (!r) r = st_make_dirs(path, err);
    if (!r) r = st_index_encode(0, g->nx[0], g->ny[0], none, &idx, &idx_size, err);
    char rel[64];
    st_index_path(0, rel, sizeof rel);
    snprintf(path, sizeof path, "%s/%s", folder, rel);
    if (!r) r = st_file_write_durable(path, idx, idx_size, err);
    if (!r) r = st_manifest_format(&info, &text, err);
    snprintf(path, sizeof path, "%s/%s", folder, ST_STORE_MANIFEST);
    if (!r) r = st_file_write_durable(path, text, strlen(text), err);
    free(none);
    free(idx);
    free(text);
    st_store_close(g);
    return r ? r : st_store_open(folder, out, err);
}

st_result st_store_open(const char *where, st_store **out, st_error *err) {
    *out = NULL;
    if (!where || !*where) return st_error_set(err, ST_ERR_INVALID, "no store given");
    if (!strncmp(where, "gen:", 4)) return open_generated(where, out, err);
    if (strlen(where) >= 1000) return st_error_set(err, ST_ERR_INVALID, "%.64s...: location too long", where);
    uint8_t *text = NULL;
    size_t size = 0;
    st_result r = st_fetch(where, ST_STORE_MANIFEST, 1u << 20, &text, &size, err);
    if (r) {
        if (strstr(err->message, "no such file"))
            st_error_set(err, r, "%s: not a tile store (no %s; an interrupted build leaves none until it completes)",
                         where, ST_STORE_MANIFEST);
        return r;
    }
    st_store *s = calloc(1, sizeof *s);
    if (!s) {
        free(text);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    pthread_mutex_init(&s->meta_lock, NULL);
    snprintf(s->where, sizeof s->where, "%s", where);
    char name[1100];
    snprintf(name, sizeof name, "%s/%s", where, ST_STORE_MANIFEST);
    r = st_manifest_parse((const char *)text, size, name, &s->info, err);
    free(text);
    if (r) {
        free(s);
        return r;
    }
    fill_geometry(s);
    uint64_t tiles = 0, bytes = 0;
    for (uint32_t l = 0; l < s->info.levels && !r; l++) {
        size_t count = (size_t)s->nx[l] * s->ny[l];
        if (count > (1u << 26)) {
            r = st_error_set(err, ST_ERR_FORMAT, "%s: level %u has %zu tiles, more than this reader takes", name, l, count);
            break;
        }
        char rel[64];
        st_index_path(l, rel, sizeof rel);
        uint8_t *idx = NULL;
        size_t idx_size = 0;
        s->index[l] = calloc(count, sizeof(st_tile_meta));
        if (!s->index[l]) {
            r = st_error_set(err, ST_ERR_NOMEM, "out of memory for the index of level %u", l);
            break;
        }
        r = st_fetch(where, rel, ST_INDEX_HEADER_BYTES + count * ST_INDEX_RECORD_BYTES, &idx, &idx_size, err);
        if (!r) {
            snprintf(name, sizeof name, "%s/%s", where, rel);
            r = st_index_decode(idx, idx_size, name, l, s->nx[l], s->ny[l], s->index[l], err);
        }
        free(idx);
        for (size_t i = 0; i < count && !r; i++)
            if (s->index[l][i].bytes) tiles++, bytes += s->index[l][i].bytes;
    }
    if (!r && st_store_folder(s)) { /* a write-back that a crash interrupted is finished first */
        r = st_store_replay_journal(s, err);
        tiles = bytes = 0; /* the indices as the journal left them */
        for (uint32_t l = 0; l < s->info.levels && !r; l++)
            for (size_t i = 0; i < (size_t)s->nx[l] * s->ny[l]; i++)
                if (s->index[l][i].bytes) tiles++, bytes += s->index[l][i].bytes;
    }
    if (!r && (tiles != s->info.tiles || bytes != s->info.bytes))
        r = st_error_set(err, ST_ERR_FORMAT, "%s: the indices list %llu tiles (%llu bytes), the manifest %llu (%llu)",
                         where, (unsigned long long)tiles, (unsigned long long)bytes,
                         (unsigned long long)s->info.tiles, (unsigned long long)s->info.bytes);
    if (r) {
        st_store_close(s);
        return r;
    }
    if (s->info.overlay_of[0]) return open_with_overlay(s, out, err);
    *out = s;
    return ST_OK;
}

bool st_store_tile_meta(const st_store *s, st_tile_key key, st_tile_meta *out) {
    if (!key_inside(s, key)) return false;
    if (s->overlay && st_store_tile_meta(s->overlay, key, out)) return true; /* an edited tile's own bounds */
    if (s->gen || s->layers || s->coarse_of) {
        /* The tile's own bounds when it was made, else the nearest ancestor's (the finest data inside a tile lies
         * inside its parent's bounds), else the generator's global bound. */
        st_store *ms = (st_store *)s;
        float mn = (float)s->info.min_m, mx = (float)s->info.max_m;
        for (st_tile_key k = key; k.level < s->info.levels; k = st_tile_key_parent(k))
            if (learnt(ms, k, &mn, &mx)) break;
        *out = (st_tile_meta){mn, mx, s->gen ? (float)s->gen_delta[key.level] : 0.0f, 0, 0};
        return true;
    }
    st_store *ms = (st_store *)s; /* the lock only: a write-back may be changing the record */
    pthread_mutex_lock(&ms->meta_lock);
    st_tile_meta m = s->index[key.level][(size_t)key.y * s->nx[key.level] + key.x];
    pthread_mutex_unlock(&ms->meta_lock);
    if (!m.bytes) return false;
    *out = m;
    return true;
}

/* ---- coarser levels of a layer store --------------------------------------------------------------------- */

st_result st_store_open_coarse(st_store *fine, st_store **out, st_error *err) {
    *out = NULL;
    const st_store_info *f = &fine->info;
    if (f->kind != ST_TILE_LAYERS) return st_error_set(err, ST_ERR_INVALID, "%s: not a layer store", fine->where);
    if (f->width / 2 < f->tile_size || f->height / 2 < f->tile_size || f->width % (2ull * f->tile_size) ||
        f->height % (2ull * f->tile_size))
        return st_error_set(err, ST_ERR_INVALID, "%s: %llux%llu texels in tiles of %u have no coarser level of whole tiles",
                            fine->where, (unsigned long long)f->width, (unsigned long long)f->height, f->tile_size);
    char name[1100];
    snprintf(name, sizeof name, "coarse:%.1000s", fine->where);
    st_store *s = generated_store_new(name);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    s->coarse_of = fine;
    st_store_info *in = &s->info;
    *in = *f;
    in->width = f->width / 2;
    in->height = f->height / 2;
    in->levels = 1;
    in->generated = true;
    in->bytes = 0;
    in->compression = ST_TILE_RAW;
    in->flood_sections = 0;
    in->overlay_of[0] = 0; /* made from the finer level's tiles, edited ones included: no overlay of its own */
    in->color_map[0] = 0;  /* the finer level's colour map is of the finer size */
    snprintf(in->source, sizeof in->source, "the coarser level of %.480s", fine->where);
    fill_geometry(s);
    in->tiles = (uint64_t)s->nx[0] * s->ny[0];
    *out = s;
    return ST_OK;
}

/* A coarse tile: its four children (tiles of the finer store under it) side by side as one level of twice the
 * tile's side, coarsened (st_level_coarsen, conservative), packed as pairs. */
static st_result read_coarse(st_store *s, st_tile_key key, st_tile **out, st_error *err) {
    const uint32_t n = s->info.tile_size;
    st_level *block = NULL, *coarse = NULL;
    st_tile *t = NULL;
    st_result r = st_level_create(2 * n, 2 * n, &block, err);
    if (!r) {
        block->terrain_types = s->info.terrain_types;
        block->wrap_x = block->wrap_y = false; /* each coarse texel is its own 2×2 fine texels: no neighbour read */
    }
    for (uint32_t j = 0; j < 2 && !r; j++)
        for (uint32_t i = 0; i < 2 && !r; i++) {
            st_tile *child = NULL;
            r = st_store_read_tile(s->coarse_of, (st_tile_key){0, 2 * key.x + i, 2 * key.y + j}, &child, err);
            if (!r) st_tile_pairs_to_level(child, block, (int64_t)i * n, (int64_t)j * n);
            st_tile_destroy(child);
        }
    if (!r) r = st_level_coarsen(block, &coarse, err);
    if (!r) r = st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, n, &t, err);
    if (!r) {
        t->key = key;
        st_level_pack_pairs(coarse, (st_rect){0, 0, (int32_t)n, (int32_t)n}, t->data);
        uint8_t mn = 255, mx = 0;
        const uint8_t *q = t->data;
        for (size_t i = 0; i < (size_t)n * n / 2; i++, q += 4) { /* a pair's two heights bound it */
            uint8_t a = q[0] < q[2] ? q[0] : q[2], b = q[0] < q[2] ? q[2] : q[0];
            mn = a < mn ? a : mn;
            mx = b > mx ? b : mx;
        }
        t->min_m = mn;
        t->max_m = mx;
        t->scale = 1;
        learn(s, key, t->min_m, t->max_m);
    }
    st_level_destroy(block);
    st_level_destroy(coarse);
    if (r) {
        st_tile_destroy(t);
        return r;
    }
    *out = t;
    return ST_OK;
}

st_result st_store_read_tile(st_store *s, st_tile_key key, st_tile **out, st_error *err) {
    *out = NULL;
    if (!key_inside(s, key))
        return st_error_set(err, ST_ERR_INVALID, "%s: no tile %u/%u/%u in a store of %u levels", s->where, key.level,
                            key.x, key.y, s->info.levels);
    if (s->gen) return read_generated(s, key, out, err);
    if (s->layers) return read_generated_layers(s, key, out, err);
    if (s->coarse_of) return read_coarse(s, key, out, err);
    st_tile_meta m;
    if (!st_store_tile_meta(s, key, &m))
        return st_error_set(err, ST_ERR_IO, "%s: tile %u/%u/%u is not in the store", s->where, key.level, key.x, key.y);
    char rel[96], name[1200];
    st_tile_path(key, rel, sizeof rel);
    snprintf(name, sizeof name, "%s/%s", s->where, rel);
    uint8_t *data = NULL;
    size_t size = 0;
    st_result r = st_fetch(s->where, rel, m.bytes, &data, &size, err);
    if (r) return r;
    if (size != m.bytes || st_tile_file_crc(data, size) != m.crc) {
        free(data);
        return st_error_set(err, ST_ERR_FORMAT, "%s: does not match the store's index (%zu bytes, index says %u)",
                            name, size, m.bytes);
    }
    r = st_tile_decode(data, size, name, &key, out, err);
    free(data);
    if (!r && ((*out)->kind != s->info.kind || (*out)->encoding != s->info.encoding ||
               (*out)->size != s->info.tile_size)) {
        st_tile_destroy(*out);
        *out = NULL;
        r = st_error_set(err, ST_ERR_FORMAT, "%s: a tile of another store", name);
    }
    return r;
}

st_result st_store_read_level(st_store *s, st_level **out, st_error *err) {
    *out = NULL;
    const st_store_info *in = &s->info;
    if (in->kind != ST_TILE_LAYERS) return st_error_set(err, ST_ERR_INVALID, "%s: not a layer store", s->where);
    st_result r = st_level_check_size(in->width, in->height, err);
    if (r) return r;
    st_level *level = NULL;
    if ((r = st_level_create((uint32_t)in->width, (uint32_t)in->height, &level, err))) return r;
    level->terrain_types = in->terrain_types;
    memcpy(level->begin_color, in->begin_color, 16);
    memcpy(level->end_color, in->end_color, 16);
    memcpy(level->palette, in->palette, sizeof level->palette);
    snprintf(level->name, sizeof level->name, "%s", in->name);
    level->wrap_x = in->wrap_x;
    level->wrap_y = in->wrap_y;
    uint32_t sections = level->height >> in->section_power ? level->height >> in->section_power : 1;
    uint8_t *flood = calloc(sections, 1);
    if (!flood) {
        st_level_destroy(level);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    if (in->flood_sections == sections) memcpy(flood, in->flood, sections);
    free(level->flood);
    level->flood = flood;
    level->section_power = in->section_power;
    uint32_t n = in->tile_size;
    uint8_t *heights, *meta;
    st_level_planes_mut(level, &heights, &meta);
    for (uint32_t ty = 0; ty < s->ny[0] && !r; ty++)
        for (uint32_t tx = 0; tx < s->nx[0] && !r; tx++) {
            st_tile *t = NULL;
            if ((r = st_store_read_tile(s, (st_tile_key){0, tx, ty}, &t, err))) break;
            const uint8_t *p = t->data;
            for (uint32_t j = 0; j < n && (uint64_t)ty * n + j < in->height; j++) {
                size_t row = ((size_t)ty * n + j) * level->width + (size_t)tx * n;
                for (uint32_t i = 0; i < n && (uint64_t)tx * n + i < in->width; i += 2) {
                    const uint8_t *q = p + ((size_t)j * (n / 2) + i / 2) * 4;
                    heights[row + i] = q[0];
                    meta[row + i] = q[1];
                    heights[row + i + 1] = q[2];
                    meta[row + i + 1] = q[3];
                }
            }
            st_tile_destroy(t);
        }
    const char *folder = st_store_folder(s);
    if (!r && in->color_map[0] && folder) { /* the level's colour map, beside the manifest (a local store's) */
        char path[1200];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", folder, in->color_map) >= sizeof path)
            r = st_error_set(err, ST_ERR_INVALID, "%s: path too long", folder);
        else r = st_level_read_color_map(path, level, err);
    }
    if (r) {
        st_level_destroy(level);
        return r;
    }
    *out = level;
    return ST_OK;
}
