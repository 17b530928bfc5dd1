/* Terrain bigger than memory: the tile store, a pyramid of square tiles on disk (or behind an http:// URL, or
 * generated on demand) at full precision, and the residency manager that streams tiles through explicit
 * states on the job system without ever blocking the caller. Knows no GPU: a renderer plugs its slot uploads
 * in through st_tile_uploader. The on-disk format is documented in docs/formats.md. */
#ifndef STRATA_TILES_H
#define STRATA_TILES_H

#include "strata/dem.h"
#include "strata/level.h"

#define ST_STORE_VERSION 1
#define ST_STORE_MAX_LEVELS 24
#define ST_TILE_MAX_SIZE 1025u
#define ST_TILE_NO_SLOT UINT32_MAX /* a tile that holds no GPU slot */
#define ST_STORE_MAX_FLOOD 8192u   /* flood sections a layer store keeps (a level's height >> section_power) */

/* ---- tile keys ----------------------------------------------------------------------------------------- */

/* Level 0 is the finest; tile (x, y) of level l covers finest samples [x·s·2^l, (x + 1)·s·2^l] in x (s = the
 * tile's intervals: size − 1 for DEM tiles, size for layer tiles), likewise in y. */
typedef struct st_tile_key {
    uint32_t level, x, y;
} st_tile_key;

/* A key as one 64-bit value (level in the top 8 bits, y and x in 28 bits each): table keys, ordering. */
static inline uint64_t st_tile_key_pack(st_tile_key k) {
    return ((uint64_t)k.level << 56) | ((uint64_t)(k.y & 0xFFFFFFFu) << 28) | (uint64_t)(k.x & 0xFFFFFFFu);
}
/* The key st_tile_key_pack packed. */
static inline st_tile_key st_tile_key_unpack(uint64_t v) {
    return (st_tile_key){(uint32_t)(v >> 56), (uint32_t)(v & 0xFFFFFFFu), (uint32_t)((v >> 28) & 0xFFFFFFFu)};
}
/* The tile of the next coarser level that covers k. */
static inline st_tile_key st_tile_key_parent(st_tile_key k) {
    return (st_tile_key){k.level + 1, k.x >> 1, k.y >> 1};
}
/* Whether a and b name the same tile. */
static inline bool st_tile_key_equal(st_tile_key a, st_tile_key b) {
    return a.level == b.level && a.x == b.x && a.y == b.y;
}

/* ---- tiles --------------------------------------------------------------------------------------------- */

typedef enum st_tile_kind {
    ST_TILE_DEM = 1,    /* single-valued elevation in metres, (2^k + 1)² samples sharing their edges */
    ST_TILE_LAYERS = 2, /* two-interval st_level texels (height + meta bytes), 2^k texels a side */
} st_tile_kind;

typedef enum st_tile_encoding {
    ST_TILE_U16 = 1,   /* metres = offset + scale · v, exact for sources whose samples sit on a unit grid */
    ST_TILE_F32 = 2,   /* float metres, for sources that need them */
    ST_TILE_PAIRS = 3, /* layer tiles: texel pairs packed (h_even, m_even, h_odd, m_odd) like the GPU texture */
} st_tile_encoding;

typedef enum st_tile_compression {
    ST_TILE_RAW = 0,
    ST_TILE_ZSTD = 1, /* samples delta-coded along rows, then zstd */
} st_tile_compression;

/* A decoded tile. data holds size² u16 or f32 samples, or (size/2)·size·4 pair bytes. */
typedef struct st_tile {
    st_tile_key key;
    st_tile_kind kind;
    st_tile_encoding encoding;
    uint32_t size;         /* samples (DEM) or texels (layers) per side */
    double scale, offset;  /* U16: metres = offset + scale · v */
    float min_m, max_m;    /* over the finest data in the tile's footprint, so its box bounds the surface at every
                              level; layer tiles: the lowest low and the highest high, in height steps */
    float delta_m;         /* geometric error: a bound on |bilinear surface of this tile − finest data| */
    void *data;
    size_t data_bytes;
} st_tile;

/* Allocates a tile with zeroed data of the right size; free with st_tile_destroy. */
st_result st_tile_create(st_tile_kind kind, st_tile_encoding enc, uint32_t size, st_tile **out, st_error *err);
void st_tile_destroy(st_tile *t);
/* Sample (i, j) of a DEM tile in metres (i along x). */
float st_tile_height(const st_tile *t, uint32_t i, uint32_t j);

/* The tile file: a 64-byte header (magic, version, kind, encoding, compression, key, size, payload sizes,
 * min/max/δ, scale/offset and a CRC-32 over header and samples) followed by the payload. Encoding writes a
 * complete file image into *data (malloc'd). */
st_result st_tile_encode(const st_tile *t, st_tile_compression c, uint8_t **data, size_t *size, st_error *err);
/* Decoding checks every field, the sizes and the CRC before trusting anything (ST_ERR_FORMAT, name labelling
 * the message); it never reads outside data. expect NULL: no key check (else the header must name it). */
st_result st_tile_decode(const uint8_t *data, size_t size, const char *name, const st_tile_key *expect,
                         st_tile **out, st_error *err);

/* ---- stores -------------------------------------------------------------------------------------------- */

typedef struct st_store_info {
    st_tile_kind kind;
    st_tile_encoding encoding;
    st_tile_compression compression;
    uint32_t tile_size;              /* samples (DEM: 2^k + 1) or texels (layers: 2^k) per side */
    uint32_t levels;                 /* level levels − 1 is a single root tile */
    uint64_t width, height;          /* finest samples (DEM) or texels (layers) */
    double spacing_x_m, spacing_y_m; /* metres between finest samples */
    double scale, offset;            /* U16 */
    double min_m, max_m;             /* over every sample */
    double sea_level_m;
    bool wrap_x;
    uint64_t tiles, bytes;           /* tiles in the store and their bytes on disk (0 for generated stores) */
    bool generated;                  /* tiles are made on demand (gen:...), none on disk */
    char source[512];                /* what it was built from */
    bool georeferenced;              /* the source's georeferencing (dem.h), for tools that place the store */
    double geotransform[6];
    char crs[128];
    /* layer stores: the level's palette and materials (the rest of st_level) */
    uint32_t terrain_types;
    uint8_t begin_color[16], end_color[16];
    st_rgb8 palette[256];
    char name[64];
    bool wrap_y;                     /* layer stores: the map repeats along y too (wrap_x above is along x) */
    uint32_t section_power;          /* layer stores: flood sections of 2^section_power rows */
    uint32_t flood_sections;         /* layer stores: the flood levels kept (0 = none: all zero) */
    uint8_t flood[ST_STORE_MAX_FLOOD];
    /* an overlay store: a layer store folder holding only the edited tiles of the generated world named here
     * ("gen:multi:..."), consulted before the generator (st_store_open_overlay); empty for every other store */
    char overlay_of[128];
    /* layer stores: the level's colour map (st_level.colors), an 8-bit RGB PNG of the map's size in the store's
     * folder, written before the manifest that names it; "" = none */
    char color_map[64];
} st_store_info;

/* Per-tile entry of a level's index: found by key without reading any tile. */
typedef struct st_tile_meta {
    float min_m, max_m, delta_m;
    uint32_t crc;   /* the tile file's CRC-32 (as in its header) */
    uint32_t bytes; /* its file size; 0 = no such tile */
} st_tile_meta;

typedef struct st_store st_store;

/* Opens a store: a folder, an http:// or https:// URL of one (libcurl), or "gen:SEED:WxH[:SPACING]" for the
 * procedural DEM made tile by tile on demand (no disk). Reads the manifest and the level indices only — and, in a
 * folder where a write-back (st_store_write_tiles) was interrupted, finishes it from its journal first (a damaged
 * journal is ST_ERR_FORMAT). */
st_result st_store_open(const char *where, st_store **out, st_error *err);
/* Opens the generated multi-layer world `spec` ("gen:multi:...") with its edits kept in the overlay store
 * `folder`: a layer store folder holding only edited tiles (its manifest names the world in overlay_of), made
 * empty when the folder has no manifest yet. Reads take a tile from the overlay when it holds one, else from the
 * generator; st_store_write_tiles writes into the overlay (journalled, as a folder store). st_store_open of the
 * folder opens the same (the world from its manifest). The info is the generated world's, with overlay_of set.
 * ST_ERR_INVALID for a spec that is not a multi-layer world or a folder that is the overlay of another world. */
st_result st_store_open_overlay(const char *spec, const char *folder, st_store **out, st_error *err);
void st_store_close(st_store *s);
/* The store's manifest as read (owned by the store, valid until st_store_close). */
const st_store_info *st_store_get_info(const st_store *s);
/* Tiles per axis at a level. */
void st_store_level_tiles(const st_store *s, uint32_t level, uint32_t *nx, uint32_t *ny);
/* The index entry of a tile; false when the key is outside the store or the tile is absent. Generated stores
 * compute nothing here: only min/max bounds from the source and the level's δ. */
bool st_store_tile_meta(const st_store *s, st_tile_key key, st_tile_meta *out);
/* Fetches, checks (size, CRC, header against the index) and decodes one tile. Thread-safe. */
st_result st_store_read_tile(st_store *s, st_tile_key key, st_tile **out, st_error *err);
/* A top-down picture of one level of a DEM store, one pixel per sample of that level (at most 8192 a side):
 * hypsometric tint over a hillshade, the sea in blues. region (x, y, w, h in the level's samples) picks a part;
 * NULL = the whole level. *rgb (3 bytes a pixel) is malloc'd. */
st_result st_store_preview(st_store *s, uint32_t level, const uint64_t region[4], uint8_t **rgb, uint32_t *width,
                           uint32_t *height, st_error *err);
/* The measured vertical error of each level's surface against the finest samples, as CDLOD draws it (every grid
 * cell split along its (0,0)-(1,1) diagonal): over a lattice × lattice grid of level-0 tiles spread evenly over the
 * world (1..64 a side, fewer where the level has fewer), each finest sample is compared with every ancestor's
 * surface, and out[l] is the largest over the sampled tiles of the `quantile` (0..1] of those errors at level l
 * (metres, over every third finest sample each way, rounded up by at most 3 %; out[0] = 0). Reads lattice² tiles
 * and their ancestors. */
st_result st_store_surface_error(st_store *s, double quantile, uint32_t lattice, double *out, st_error *err);
/* A layer store as one st_level (the whole world in memory: for tests and small worlds): its texels, palette,
 * materials, name, wrap flags and flood levels, equal to the level it was built from. */
st_result st_store_read_level(st_store *s, st_level **out, st_error *err);

/* The next coarser level of a layer store as a store of its own: half the texels each way, the same tile size,
 * palette and wrap, each tile made on demand from the four tiles under it by st_level_coarsen (conservative: every
 * height solid in a fine texel is solid in the coarse texel over it; docs/paged-terrain.md). Nothing on disk; the
 * finer store must outlive it. Opened again on a coarse store, it gives the next level up. ST_ERR_INVALID for a
 * DEM store or one with fewer than two tiles each way. Thread-safe reads, as the finer store's. */
st_result st_store_open_coarse(st_store *fine, st_store **out, st_error *err);

/* ---- a layer store's texels on the CPU (src/tiles/layer_pages.c) ------------------------------------------------
 * What the CPU side of a paged world reads in place of a level of the whole world: point reads through a small
 * cache of decoded pages, and windows of the world as levels of their own. Not thread-safe (one caller). */
typedef struct st_layer_pages st_layer_pages;

/* A reader of the layer store's level-0 tiles, keeping up to cache_pages (0 = 8) decoded pages; the store must
 * outlive it. ST_ERR_INVALID for a DEM store. */
st_result st_layer_pages_create(st_store *store, uint32_t cache_pages, st_layer_pages **out, st_error *err);
void st_layer_pages_destroy(st_layer_pages *p);
/* Where pages newer than the store's come from (a paged world's edits not written back): the page's tile, or
 * NULL to read it from the store. Called on the reader's thread. */
typedef const st_tile *(*st_layer_page_fn)(void *user, uint32_t tx, uint32_t ty);
/* Makes fn the first source of every page read from now on (NULL: the store alone); empties the cache. */
void st_layer_pages_set_source(st_layer_pages *p, st_layer_page_fn fn, void *user);
/* Drops page (tx, ty) from the cache (its texels changed); (UINT32_MAX, UINT32_MAX) drops every page. */
void st_layer_pages_forget(st_layer_pages *p, uint32_t tx, uint32_t ty);
/* Texel (x, y) of the world, decoded as st_level_texel decodes it: wrapped along the store's wrapping axes,
 * `outside` past the edge of a bounded one. Reads (and may generate) its page on a miss. */
st_result st_layer_pages_texel(st_layer_pages *p, int64_t x, int64_t y, st_texel *out, st_error *err);
/* The world's texels [x0, x0 + w) × [y0, y0 + h) as a new level of w×h (powers of two from 2; x0 even, so pairs
 * stay whole) that does not wrap, with the store's palette and name: the texel (i, j) of the window is the
 * world's (x0 + i, y0 + j), wrapped along wrapping axes. ST_ERR_INVALID for a window past a bounded edge. Reads
 * every page it meets (none kept in the cache). */
st_result st_layer_pages_window(st_layer_pages *p, int64_t x0, int64_t y0, uint32_t w, uint32_t h, st_level **out,
                                st_error *err);

/* ---- building a store ---------------------------------------------------------------------------------- */

typedef struct st_store_progress {
    uint64_t done, total; /* tiles */
    double elapsed_ms;
} st_store_progress;

typedef struct st_store_build_desc {
    uint32_t tile_size;              /* 0 = 257 (DEM) or 256 (layers) */
    uint32_t levels;                 /* 0 = down to one root tile */
    st_tile_encoding encoding;       /* 0 = U16 when the source has a unit grid that fits, else F32 */
    st_tile_compression compression; /* ST_TILE_ZSTD by default; ST_TILE_RAW for none (set raw = true) */
    bool raw;                        /* no compression */
    uint32_t shard_index, shard_count; /* build only this share of the tiles (count 0 = all) */
    const char *source_label;        /* recorded in the manifest */
    void (*progress)(void *user, const st_store_progress *p); /* from any worker, one call at a time, ≥ 100 ms apart */
    void *progress_user;
} st_store_build_desc;

typedef struct st_store_build_stats {
    uint64_t tiles_written, tiles_kept; /* kept: already complete from an earlier, interrupted run */
    uint64_t samples;                   /* finest samples produced */
    uint64_t bytes;                     /* tile bytes written */
    uint64_t raw_bytes;                 /* what the same tiles take uncompressed */
    double ms;
    double max_quantisation_m;          /* u16 forced on a source without a unit grid: the largest rounding */
    bool complete;                      /* the manifest was written (not a shard awaiting its peers) */
} st_store_build_stats;

/* Builds a DEM store into dir from any source, in parallel on the job system. Every tile is written under a
 * temporary name and renamed; a tile already present and intact is kept, so an interrupted build resumes.
 * With shards, each run builds the subtrees it owns; the run that finds every shard's subtrees present
 * builds the levels above them, the indices and the manifest (written last: a store without one is not
 * complete). */
st_result st_store_build_dem(st_dem_source *src, const char *dir, const st_store_build_desc *desc,
                             st_store_build_stats *stats, st_error *err);
/* The same for an st_level: layer tiles of its texel pairs (level 0 only: coarser two-interval levels are
 * not defined yet) plus the rest of the level (palette, materials, name, wrap flags, flood levels), so that
 * st_store_read_level gives the level back. ST_ERR_INVALID for a level with more than ST_STORE_MAX_FLOOD flood
 * sections. */
st_result st_store_build_level(const st_level *level, const char *dir, const st_store_build_desc *desc,
                               st_store_build_stats *stats, st_error *err);
/* The same from another layer store's tiles — a generated world ("gen:multi:...", a world larger than memory) or a
 * store elsewhere: every tile read from src (thread-safe reads, in parallel) and written here, with src's tile
 * size (desc->tile_size 0 or the same), palette and materials. A tile an earlier, interrupted run left here
 * intact is kept, so a re-run resumes. */
st_result st_store_build_layers(st_store *src, const char *dir, const st_store_build_desc *desc,
                                st_store_build_stats *stats, st_error *err);

/* ---- writing edited tiles back ------------------------------------------------------------------------- */

typedef struct st_store_write_desc {
    void (*after_journal)(void *user); /* tests: called once the journal is durable, before any tile is written */
    void *user;
} st_store_write_desc;

/* Writes level-0 tiles of a layer store in a local folder (edited ones) back into it, crash-safely: a journal of
 * all of them is made durable first (synced, renamed into place), then each tile file, the touched indices and the
 * manifest are replaced (each synced and renamed), then the journal is removed; the store's index follows, so its
 * reads give the new tiles. A crash at any moment leaves the store as before the write or, once the journal is
 * down, one that st_store_open completes to after it: never a corrupt tile. The tiles' bounds are recomputed.
 * One writer at a time. A generated world opened with an overlay (st_store_open_overlay) writes into the overlay.
 * ST_ERR_INVALID for a generated store without an overlay or an http store,
 * a DEM store, or a tile of another store (kind, encoding, size, key); ST_ERR_IO with the cause. */
st_result st_store_write_tiles(st_store *s, const st_tile *const *tiles, size_t count, const st_store_write_desc *desc,
                               st_error *err);

/* ---- the residency manager ----------------------------------------------------------------------------- */

/* The lab's state machine: Unloaded → Queued (needed) → Loading (a job picked it up; includes the GPU upload)
 * → Resident (upload complete) → Evictable (not needed this frame) → Resident (needed again) or Unloaded
 * (cache pressure). Also Queued → Unloaded on cancel, Loading → Evictable when a finished load is no longer
 * wanted, Evictable → Loading when a tile needed again has lost its GPU slot to another and is uploaded
 * again, and Failed (with its message) when a load fails, retried with back-off.
 * Every Resident tile holds its data on the CPU and a GPU slot; an Evictable one holds its data and maybe
 * still its slot. Requests, cancels, updates and queries all come from one thread, the caller's. */
typedef enum st_tile_state {
    ST_TILE_UNLOADED = 0,
    ST_TILE_QUEUED,
    ST_TILE_LOADING,
    ST_TILE_RESIDENT,
    ST_TILE_EVICTABLE,
    ST_TILE_FAILED,
} st_tile_state;
/* "unloaded", "queued", ..., for reports and messages. */
const char *st_tile_state_name(st_tile_state s);

/* How a renderer puts tiles on the GPU. All calls come from st_residency_update, on the caller's thread. */
typedef struct st_tile_uploader {
    void *user;
    /* Queue tile's data into GPU slot `slot`; false when this frame's staging room is used up (retried next
     * frame). *ticket identifies the upload for complete(). */
    bool (*upload)(void *user, uint32_t slot, const st_tile *tile, uint64_t *ticket);
    /* True once the upload with this ticket has finished on the GPU. */
    bool (*complete)(void *user, uint64_t ticket);
    /* Optional: false when no more uploads may start this frame (a budget shared with other managers); asked
     * before a slot is taken, so that a refused upload evicts nothing. */
    bool (*room)(void *user);
} st_tile_uploader;

/* Where tiles come from when not from a store (tests): must be thread-safe. */
typedef st_result (*st_tile_load_fn)(void *user, st_tile_key key, st_tile **out, st_error *err);

typedef struct st_residency_desc {
    st_store *store;                 /* tiles are read from it on the job system (or load/load_user) */
    st_tile_load_fn load;
    void *load_user;
    uint32_t levels;                 /* levels of the pyramid when there is no store (level levels − 1 is the
                                        root): pinning and key checks; with a store, the store's */
    uint32_t cpu_tiles;              /* CPU cache capacity in tiles (0 = 256) */
    uint32_t gpu_slots;              /* GPU slots (0 = the CPU capacity); without an uploader slots are notional */
    const st_tile_uploader *uploader;
    uint64_t upload_budget_bytes;    /* per frame (0 = 64 MiB) */
    uint32_t max_loads;              /* loads in flight (0 = 2 per worker) */
    uint32_t pinned_levels;          /* coarsest levels never evicted (0 = 1: the root) */
    bool pin_none;                   /* no level is pinned (pinned_levels ignored): a pyramid of one level that
                                        is the whole world, paged around a camera */
    double slow_load_ms;             /* sleep injected into every load (--slow-load) */
    double retry_ms;                 /* first back-off after a failure (0 = 100 ms, doubling up to 10 s) */
} st_residency_desc;

typedef struct st_residency st_residency;

typedef struct st_residency_stats {
    uint32_t unloaded_known, queued, loading, resident, evictable, failed; /* tiles in each state now */
    uint64_t requests, loads_started, loads_done, failures, uploads;
    uint64_t cancelled;       /* queued requests dropped: by cancel, or no longer requested at an update */
    uint64_t evictions;       /* Evictable tiles dropped from the CPU cache or from their GPU slot */
    uint64_t dropped;         /* requests not recorded because the table was full this frame (it grows at
                                 the next update; the caller's next request records them) */
    uint64_t bytes_loaded, bytes_uploaded;
    uint64_t frame;
    double upload_ms_frame;   /* CPU time spent in uploads in the last update */
    double load_ms_median;    /* median load + decode time of finished loads (job side) */
    double ready_ms_p90;      /* 90th percentile of the last 64 tiles' times from being queued (first requested,
                                 or retried) to Resident: loading, waiting for a slot and uploading (0: none yet) */
    double full_detail_ms;    /* time from the last change of the wanted set until all of it was resident;
                                 negative while still waiting */
} st_residency_stats;

/* A manager over desc's store (or load function): nothing is loaded until requested. ST_ERR_INVALID for a
 * desc without a tile source or with a field past its limit (naming it), ST_ERR_NOMEM. */
st_result st_residency_create(const st_residency_desc *desc, st_residency **out, st_error *err);
/* Cancels queued loads, waits for running ones (they are never waited on anywhere else) and frees all. */
void st_residency_destroy(st_residency *r);
/* Marks a tile needed this frame at a priority (larger first, e.g. ρ/τ). Returns its state; never blocks,
 * never allocates and never loads: it only records. A key outside the pyramid is Failed at once. */
st_tile_state st_residency_request(st_residency *r, st_tile_key key, float priority);
/* Drops a queued request (Queued → Unloaded); a running load finishes as Evictable. */
void st_residency_cancel(st_residency *r, st_tile_key key);
/* Once per frame on the caller's thread: collects finished loads, uploads within the budget, starts the
 * highest-priority queued loads, turns tiles not requested since the last update Evictable and evicts the
 * least recently needed Evictable tiles while a cache is over capacity (never a pinned level, never an
 * ancestor of a needed tile). Never waits for a load. */
void st_residency_update(st_residency *r);
/* The state of a tile: Unloaded when never requested (or forgotten), Failed for a key outside the pyramid. */
st_tile_state st_residency_state(const st_residency *r, st_tile_key key);
/* The failure message of a Failed tile (empty otherwise). */
const char *st_residency_error(const st_residency *r, st_tile_key key);
/* A Resident (or Evictable) tile's data and GPU slot (ST_TILE_NO_SLOT when it holds none); NULL when not
 * resident. Valid until the next update. */
const st_tile *st_residency_tile(const st_residency *r, st_tile_key key, uint32_t *slot);
/* The tile's source changed (an edited tile written back): a CPU copy held now (Resident or Evictable) takes
 * `tile`'s data (same key and size). False while a load of it runs or waits for its upload (what it read may
 * predate the change): the caller keeps the newer copy and calls again later; true otherwise (replaced, or
 * nothing held, so the next load reads the source as it is now). */
bool st_residency_refresh(st_residency *r, const st_tile *tile);
/* The key itself or its nearest ancestor that can be drawn (Resident, or Evictable still holding its GPU
 * slot); false when none can (not even the root). */
bool st_residency_resident_ancestor(const st_residency *r, st_tile_key key, st_tile_key *out);
/* The 90th percentile of the last 64 tiles' times from being queued to Resident (st_residency_stats.ready_ms_p90):
 * how far ahead of need a tile must be asked for; 0 before any. Cheap enough for every frame. */
double st_residency_ready_ms(const st_residency *r);
/* The counts and figures so far (see st_residency_stats). */
st_residency_stats st_residency_get_stats(const st_residency *r);
/* Checks every invariant (counts agree with states, caches within capacity after update, no pinned or needed
 * ancestor evicted, slots unique); for tests and the request-storm benchmark. */
bool st_residency_check(const st_residency *r, st_error *err);

/* ---- choosing tiles for a camera ------------------------------------------------------------------------ */

typedef struct st_tile_view {
    double eye[3];        /* metres: x east along the store's columns, y south along its rows, z up */
    double velocity[3];   /* metres per second, for prefetch */
    double forward[3];    /* unit view direction (for the frustum) */
    double fov_y;         /* radians */
    double aspect;        /* width / height */
    uint32_t viewport_h;  /* pixels */
    double far_m;
    double tau_px;        /* the screen-space error threshold τ (pixels) */
    double lookahead_s;   /* prefetch: also request what the eye needs this far ahead (0 = 1 s) */
} st_tile_view;

typedef struct st_tile_selection {
    st_tile_key *keys;    /* the tiles to draw: each finest resident tile whose error is within τ, or the
                             nearest resident ancestor of one still loading */
    uint32_t count, cap;
    uint32_t wanted;      /* tiles the view wants at full detail */
    uint32_t missing;     /* of those, not resident yet (drawn from an ancestor) */
} st_tile_selection;

/* Walks the quadtree from the root: a tile splits while its screen-space error ρ = δ·h / (2·d·tan(θ/2)) > τ
 * (d: distance from the eye to the tile's box, from the index's min/max) and the tile is inside the frustum;
 * requests the root, every tile it wants and the path down to it (priority: the ρ/τ of the parent a tile
 * replaces, > 1; a tile's own ρ is 0 at level 0), the children of tiles with ρ > τ/2 (prefetch, ρ/τ ≤ 1) and
 * the tiles the eye will want after lookahead_s along its velocity (below 0.5); fills sel with what to draw:
 * each region in view once, by the wanted tile or, while one of its siblings is missing, by the nearest
 * drawable ancestor of them all. */
st_result st_tile_select(st_store *s, st_residency *r, const st_tile_view *v, st_tile_selection *sel,
                         st_error *err);
void st_tile_selection_free(st_tile_selection *sel);

#endif
