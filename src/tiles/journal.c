/* Writing edited tiles back into a layer store on disk, crash-safely: first a journal holding every tile file of
 * the write (synced and renamed into place: from then on the write is durable), then each tile file, the touched
 * indices and the manifest (each synced and renamed, so each is the old file or the new one), then the journal is
 * removed. A store opened with a journal still there finishes its write first (st_store_replay_journal). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strata/file.h"
#include "tiles/tiles_internal.h"

#define JOURNAL_NAME "journal.bin"
#define JOURNAL_MAGIC "STRAJRN1"
#define JOURNAL_HEADER 12u /* magic, record count */
#define RECORD_HEADER 16u  /* level, x, y, file bytes */
#define JOURNAL_MAX_RECORDS 65536u

/* The bounds a layer tile's index record keeps: the lowest and the highest height of its pairs (a dual pair's two
 * heights are its low and its high; two singles are both floors), as the builder and the generator take them. */
static void layer_bounds(st_tile *t) {
    const uint8_t *q = t->data;
    uint8_t mn = 255, mx = 0;
    for (size_t i = 0; i + 3 < t->data_bytes; i += 4) {
        uint8_t a = q[i] < q[i + 2] ? q[i] : q[i + 2], b = q[i] < q[i + 2] ? q[i + 2] : q[i];
        mn = a < mn ? a : mn;
        mx = b > mx ? b : mx;
    }
    t->min_m = mn;
    t->max_m = mx;
    t->delta_m = 0;
}

/* Applies a checked journal: every tile file, then the touched indices, then the manifest, then the journal goes. */
static st_result apply(st_store *s, const uint8_t *j, size_t size, st_error *err) {
    const char *dir = st_store_folder(s);
    st_store_info *in = st_store_info_mut(s);
    uint32_t count = st_le_get32(j + 8);
    bool touched[ST_STORE_MAX_LEVELS] = {false};
    const uint8_t *p = j + JOURNAL_HEADER;
    st_result r = ST_OK;
    for (uint32_t k = 0; k < count && !r; k++) {
        st_tile_key key = {st_le_get32(p), st_le_get32(p + 4), st_le_get32(p + 8)};
        uint32_t bytes = st_le_get32(p + 12);
        const uint8_t *file = p + RECORD_HEADER;
        char rel[96], path[1200], folder[1200];
        st_tile_path(key, rel, sizeof rel);
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        snprintf(folder, sizeof folder, "%s", path);
        *strrchr(folder, '/') = 0;
        r = st_make_dirs(folder, err);
        if (!r) r = st_file_write_durable(path, file, bytes, err);
        if (!r) {
            st_tile *t = NULL;
            r = st_tile_decode(file, bytes, rel, &key, &t, err); /* checked before: only for the bounds */
            if (!r) {
                st_tile_meta m = {t->min_m, t->max_m, t->delta_m, st_tile_file_crc(file, bytes), bytes};
                st_store_set_tile_meta(s, key, &m);
                touched[key.level] = true;
            }
            st_tile_destroy(t);
        }
        p += RECORD_HEADER + bytes;
    }
    (void)size;
    uint64_t tiles = 0, total = 0;
    for (uint32_t l = 0; l < in->levels && !r; l++) {
        uint32_t nx, ny;
        st_store_level_tiles(s, l, &nx, &ny);
        const st_tile_meta *m = st_store_index_mut(s, l);
        for (size_t i = 0; i < (size_t)nx * ny; i++)
            if (m[i].bytes) tiles++, total += m[i].bytes;
        if (!touched[l]) continue;
        uint8_t *data = NULL;
        size_t n = 0;
        char rel[64], path[1200];
        st_index_path(l, rel, sizeof rel);
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        r = st_index_encode(l, nx, ny, m, &data, &n, err);
        if (!r) r = st_file_write_durable(path, data, n, err);
        free(data);
    }
    if (!r) {
        in->tiles = tiles;
        in->bytes = total;
        char *text = NULL, path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, ST_STORE_MANIFEST);
        r = st_manifest_format(in, &text, err);
        if (!r) r = st_file_write_durable(path, text, strlen(text), err);
        free(text);
    }
    if (!r) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_NAME);
        r = st_file_remove_durable(path, err);
    }
    return r;
}

/* Whether j is a whole journal of tiles of this store: magic, count, every record inside, each tile file intact
 * (its own CRC) and of this store's kind and size, the CRC over everything. */
static st_result check(st_store *s, const uint8_t *j, size_t size, const char *name, st_error *err) {
    const st_store_info *in = st_store_get_info(s);
    if (size < JOURNAL_HEADER + 4 || memcmp(j, JOURNAL_MAGIC, 8))
        return st_error_set(err, ST_ERR_FORMAT, "%s: not a strata journal", name);
    if (st_crc32(j, size - 4) != st_le_get32(j + size - 4))
        return st_error_set(err, ST_ERR_FORMAT, "%s: checksum mismatch (the journal is damaged)", name);
    uint32_t count = st_le_get32(j + 8);
    if (!count || count > JOURNAL_MAX_RECORDS) return st_error_set(err, ST_ERR_FORMAT, "%s: %u records", name, count);
    size_t at = JOURNAL_HEADER;
    for (uint32_t k = 0; k < count; k++) {
        if (size - 4 - at < RECORD_HEADER) return st_error_set(err, ST_ERR_FORMAT, "%s: record %u is cut off", name, k);
        st_tile_key key = {st_le_get32(j + at), st_le_get32(j + at + 4), st_le_get32(j + at + 8)};
        uint32_t bytes = st_le_get32(j + at + 12), nx, ny;
        st_store_level_tiles(s, key.level, &nx, &ny);
        if (key.level >= in->levels || key.x >= nx || key.y >= ny || bytes > size - 4 - at - RECORD_HEADER)
            return st_error_set(err, ST_ERR_FORMAT, "%s: record %u names no tile of the store", name, k);
        st_tile *t = NULL;
        st_result r = st_tile_decode(j + at + RECORD_HEADER, bytes, name, &key, &t, err);
        bool fits = !r && t->kind == in->kind && t->encoding == in->encoding && t->size == in->tile_size;
        st_tile_destroy(t);
        if (r) return r;
        if (!fits) return st_error_set(err, ST_ERR_FORMAT, "%s: record %u holds a tile of another store", name, k);
        at += RECORD_HEADER + bytes;
    }
    if (at != size - 4) return st_error_set(err, ST_ERR_FORMAT, "%s: bytes after the last record", name);
    return ST_OK;
}

st_result st_store_replay_journal(st_store *s, st_error *err) {
    const char *dir = st_store_folder(s);
    if (!dir) return ST_OK;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_NAME);
    struct stat sb;
    if (stat(path, &sb) != 0) return ST_OK; /* no write was interrupted */
    uint8_t *j = NULL;
    size_t size = 0;
    st_result r = st_fetch(dir, JOURNAL_NAME, ST_STORE_MAX_FILE * 4u, &j, &size, err);
    if (!r) r = check(s, j, size, path, err);
    if (!r) r = apply(s, j, size, err);
    free(j);
    return r;
}

st_result st_store_write_tiles(st_store *s, const st_tile *const *tiles, size_t count, const st_store_write_desc *desc,
                               st_error *err) {
    s = st_store_edits_target(s); /* a generated world's edits go to its overlay */
    const st_store_info *in = st_store_get_info(s);
    const char *dir = st_store_folder(s);
    if (!dir) return st_error_set(err, ST_ERR_INVALID, "%s: only a store in a local folder is written", in->source);
    if (in->kind != ST_TILE_LAYERS) return st_error_set(err, ST_ERR_INVALID, "%s: not a layer store", dir);
    if (!count) return ST_OK;
    if (count > JOURNAL_MAX_RECORDS)
        return st_error_set(err, ST_ERR_INVALID, "%zu tiles in one write (at most %u)", count, JOURNAL_MAX_RECORDS);
    uint8_t **files = calloc(count, sizeof *files);
    size_t *sizes = calloc(count, sizeof *sizes), total = JOURNAL_HEADER + 4;
    st_result r = files && sizes ? ST_OK : st_error_set(err, ST_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < count && !r; k++) {
        const st_tile *t = tiles[k];
        uint32_t nx, ny;
        st_store_level_tiles(s, t->key.level, &nx, &ny);
        if (t->kind != in->kind || t->encoding != in->encoding || t->size != in->tile_size || t->key.level != 0 ||
            t->key.x >= nx || t->key.y >= ny) {
            r = st_error_set(err, ST_ERR_INVALID, "tile %u/%u/%u does not belong to %s", t->key.level, t->key.x,
                             t->key.y, dir);
            break;
        }
        st_tile copy = *t; /* the index's bounds are the tile's own, whatever the caller left in them */
        layer_bounds(&copy);
        r = st_tile_encode(&copy, in->compression, &files[k], &sizes[k], err);
        total += RECORD_HEADER + sizes[k];
    }
    uint8_t *j = r ? NULL : malloc(total);
    if (!r && !j) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (!r) {
        memcpy(j, JOURNAL_MAGIC, 8);
        st_le_put32(j + 8, (uint32_t)count);
        size_t at = JOURNAL_HEADER;
        for (size_t k = 0; k < count; k++) {
            st_le_put32(j + at, tiles[k]->key.level);
            st_le_put32(j + at + 4, tiles[k]->key.x);
            st_le_put32(j + at + 8, tiles[k]->key.y);
            st_le_put32(j + at + 12, (uint32_t)sizes[k]);
            memcpy(j + at + RECORD_HEADER, files[k], sizes[k]);
            at += RECORD_HEADER + sizes[k];
        }
        st_le_put32(j + at, st_crc32(j, at));
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, JOURNAL_NAME);
        r = st_file_write_durable(path, j, total, err); /* from here on the write survives a crash */
        if (!r && desc && desc->after_journal) desc->after_journal(desc->user);
        if (!r) r = apply(s, j, total, err);
    }
    for (size_t k = 0; files && k < count; k++) free(files[k]);
    free(files);
    free(sizes);
    free(j);
    return r;
}
