/* Internals of the tile module shared by its files: the tile file's header size and CRC, fetching a store's
 * files from a folder or over HTTP, the store's paths, and the geometry of tiles in finest samples. */
#ifndef STRATA_TILES_INTERNAL_H
#define STRATA_TILES_INTERNAL_H

#include <string.h>

#include "strata/tiles.h"

#define ST_TILE_HEADER_BYTES 80u
#define ST_STORE_MANIFEST "store.json"
#define ST_STORE_MAX_FILE (64u << 20) /* no tile, index or manifest is larger than this */

/* Little-endian fields of the tile files and indices, whatever the host's byte order. */
static inline void st_le_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static inline void st_le_put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void st_le_put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t st_le_get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t st_le_get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t st_le_get64(const uint8_t *p) { return (uint64_t)st_le_get32(p) | (uint64_t)st_le_get32(p + 4) << 32; }
static inline void st_le_putf(uint8_t *p, float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    st_le_put32(p, u);
}
static inline float st_le_getf(const uint8_t *p) {
    uint32_t u = st_le_get32(p);
    float v;
    memcpy(&v, &u, 4);
    return v;
}
static inline void st_le_putd(uint8_t *p, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    st_le_put64(p, u);
}
static inline double st_le_getd(const uint8_t *p) {
    uint64_t u = st_le_get64(p);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

/* The CRC a tile file's header records (0 for a buffer too short to hold a header). */
uint32_t st_tile_file_crc(const uint8_t *data, size_t size);

/* ---- fetching a store's files (fetch.c) ------------------------------------------------------------------ */

/* True for http:// and https:// locations. */
bool st_fetch_is_url(const char *where);
/* Reads the file `rel` (a path relative to the store) of the store at `base` (a folder or a URL) into *data
 * (malloc'd), at most max bytes. A missing file is ST_ERR_IO with "no such file"; refuses anything that is not
 * a regular file (a named pipe never blocks the reader). Thread-safe. */
st_result st_fetch(const char *base, const char *rel, size_t max, uint8_t **data, size_t *size, st_error *err);

/* ---- geometry -------------------------------------------------------------------------------------------- */

/* Intervals a tile spans per axis: size − 1 for DEM tiles (they share edge samples), size for layer tiles. */
static inline uint32_t st_tile_span(st_tile_kind kind, uint32_t size) { return kind == ST_TILE_DEM ? size - 1 : size; }
/* Tiles per axis at a level of a world of `extent` finest samples (DEM) or texels (layers). */
uint32_t st_tiles_across(st_tile_kind kind, uint64_t extent, uint32_t tile_size, uint32_t level);
/* Levels from the finest down to a single root tile. */
uint32_t st_tiles_levels(st_tile_kind kind, uint64_t width, uint64_t height, uint32_t tile_size);
/* The relative path of a tile file ("tiles/L/Y/X.tile") and of a level's index ("index/L.idx"). */
void st_tile_path(st_tile_key key, char *out, size_t cap);
void st_index_path(uint32_t level, char *out, size_t cap);

/* A level's index file: a 32-byte header ("STRAIDX\0", version, level, tiles per axis, the records' CRC), then
 * one 20-byte record per tile in row-major order (min f32, max f32, delta f32, crc u32, bytes u32). */
#define ST_INDEX_HEADER_BYTES 32u
#define ST_INDEX_RECORD_BYTES 20u
st_result st_index_encode(uint32_t level, uint32_t nx, uint32_t ny, const st_tile_meta *records, uint8_t **data,
                          size_t *size, st_error *err);
st_result st_index_decode(const uint8_t *data, size_t size, const char *name, uint32_t level, uint32_t nx,
                          uint32_t ny, st_tile_meta *records, st_error *err);

/* The manifest (store.json) as text, and back; docs/formats.md lists its fields. */
st_result st_manifest_format(const st_store_info *info, char **text, st_error *err);
st_result st_manifest_parse(const char *text, size_t size, const char *name, st_store_info *info, st_error *err);

/* ---- the store's own tables, for the journal (journal.c) ---------------------------------------------------- */
/* The manifest and index of an opened store, to change as written-back tiles land (journal.c). */
st_store_info *st_store_info_mut(st_store *s);
/* Copies a layer tile's texel pairs into dst with the tile's first texel at (wx, wy) (wx even): only the texels
 * that fall inside dst. */
void st_tile_pairs_to_level(const st_tile *t, st_level *dst, int64_t wx, int64_t wy);
st_tile_meta *st_store_index_mut(st_store *s, uint32_t level);
/* Sets a tile's index record under the store's lock (loads on other threads read it meanwhile). */
void st_store_set_tile_meta(st_store *s, st_tile_key key, const st_tile_meta *m);
/* Where a store's edits are written: a generated world's overlay (st_store_open_overlay), else the store. */
st_store *st_store_edits_target(st_store *s);
/* The folder of a store on local disk; NULL for generated and http stores. */
const char *st_store_folder(const st_store *s);
/* Applies the journal a crashed write-back left in the store's folder (no journal: nothing to do); called by
 * st_store_open once the indices are read, before they are checked against the manifest. */
st_result st_store_replay_journal(st_store *s, st_error *err);

#endif
