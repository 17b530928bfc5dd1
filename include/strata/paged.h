/* Paged terrain: the level's texels reach the GPU as pages — the tiles of a layer store (strata/tiles.h) — in a
 * fixed pool of resident pages plus a page table, instead of one texture of the whole level. The residency
 * manager fills the pool around the camera and along its motion, never blocking a frame; the shared texel
 * decode (shaders/common/surface.glsl) reads through the table, so every level method draws unchanged. A page
 * not resident yet reads as a floor at its tile's lowest height. src/render/paged_terrain.c owns it;
 * docs/paged-terrain.md explains the design. */
#ifndef STRATA_PAGED_H
#define STRATA_PAGED_H

#include "strata/render.h"
#include "strata/tile_pool.h"
#include "strata/tiles.h"

#define ST_PAGED_MAX_LEVELS 8u /* the full-resolution pages and up to 7 coarser levels */

typedef struct st_paged_desc {
    uint32_t pool_pages;          /* resident pages on the GPU (0 = 256; at most the adapter's array layers) */
    uint32_t cpu_tiles;           /* decoded tiles kept on the CPU (0 = pool_pages) */
    uint64_t upload_budget_bytes; /* page bytes uploaded per frame (0 = 64 MiB) */
    double slow_load_ms;          /* sleep injected into every load (slow-load mode) */
    uint32_t upload_pages;        /* pages mapped into the pool per frame, all levels together (0 = no bound): the
                                     rest stay Loading, drawn from a coarser level meanwhile, so that no frame
                                     carries a burst of uploads and the work each arrival causes */
    float margin;                 /* texels wanted beyond the far distance (0 = one page) */
    float lookahead_frames;       /* prefetch where the eye will be after this many frames of its last motion
                                     (0 = 30), or farther: where it will be, at its speed in wall time, when a page
                                     asked for now is resident (the recent pages' time to ready) */
    /* The far field: coarser levels of the store (st_store_open_coarse, made on demand from the pages under
     * them), each half the resolution of the one below. With far_levels > 0, full resolution is wanted within
     * full_radius of the eye only, level k within full_radius·2^k (the coarsest out to the far distance), and a
     * texel whose page is missing at one level is read from the finest coarser level that has it. */
    uint32_t far_levels;          /* coarser levels (0 = none: every page within far at full resolution; at most
                                     ST_PAGED_MAX_LEVELS − 1, fewer where the world runs out of whole pages) */
    float full_radius;            /* texels around the eye at full resolution when far_levels > 0 (0 = 1024) */
    uint32_t far_pages;           /* pool pages of each coarser level (0 = all that its disc can meet: 169 for
                                     the default radius in 256² pages) */
} st_paged_desc;

/* The coarser levels st_paged_desc.far_levels needs for `far_dist` with that full_radius (0 = the default). */
uint32_t st_paged_far_levels_for(float far_dist, float full_radius);

/* Makes `level` the engine's world with its texels paged from `store`, a layer store of the same texels (built
 * from the level or the level read from it): every renderer created afterwards reads terrain through the page
 * table. The level stays the CPU's world (the reference, the near-plane test, the methods' own CPU data); the
 * store must outlive the engine or the next st_engine_set_level. No renderer may be live. ST_ERR_INVALID for a
 * DEM store or one whose size, tile size (a power of two ≥ 16) or palette differs from the level. Edits go to the
 * level and then st_engine_update_level as ever: the pages they touch take their texels from the level from then
 * on (on the GPU in the next frame where they are resident, when they come back otherwise) until written back. */
st_result st_engine_set_paged_level(st_engine *engine, const st_level *level, st_store *store,
                                    const st_paged_desc *desc, st_error *err);

/* Makes the layer store `store` the engine's world with no level of it in memory: a world of any size up to
 * ST_LEVEL_MAX_DIM a side (a generated "gen:multi:..." store makes its pages on demand, on the job system). The GPU
 * reads the pages as with st_engine_set_paged_level; the CPU reads the few texels it needs through them
 * (st_layer_pages) and holds nothing of the size of the world but the page table and a byte per page. Only
 * methods that read the terrain through the pages alone draw it (ray, ray-compute, scatter: the others keep data of
 * the whole level and refuse it at st_renderer_create). Edits go through st_engine_paged_edit
 * (st_engine_update_level refuses them: there is no level to have edited). The store must outlive the engine or the next set_level. No renderer may be live; ST_ERR_INVALID for a
 * DEM store or a size or tile size paged terrain cannot hold. */
st_result st_engine_set_paged_world(st_engine *engine, st_store *store, const st_paged_desc *desc, st_error *err);

/* Digs (raise false: st_level_dig's crater, amount its depth) or raises (st_level_raise) a paged world without a
 * level (st_engine_set_paged_world), centred on texel (cx, cy) — the same texels as the same edit of the whole
 * level. Each page it meets is held on the CPU as edited (its truth until written back), reaches its GPU slot in
 * the next frame where it holds one and comes back edited where it lost it; the renderers are told of *dirty (may
 * be NULL), the rectangle it changed. The texels it replaced are kept for st_engine_paged_undo (the latest 64 MiB
 * of them). ST_ERR_INVALID on a level's engine (edit the level, then st_engine_update_level), for a centre
 * outside the world, a radius outside 1..1024 or an amount outside 0..255; the error of a page it cannot read. */
st_result st_engine_paged_edit(st_engine *engine, bool raise, int64_t cx, int64_t cy, int radius, int amount,
                               st_rect *dirty, st_error *err);
/* Undoes the latest edit not undone yet — its texels back as they were, whether its pages are held, resident,
 * evicted or written back since — as one more edit (*undone false and nothing changed when none is left). */
st_result st_engine_paged_undo(st_engine *engine, bool *undone, st_rect *dirty, st_error *err);
/* How many edits st_engine_paged_undo can undo now. */
size_t st_engine_paged_undo_count(const st_engine *engine);
/* The world's heights and metadata in rect (inside the world; each (x1−x0)·(y1−y0) bytes, row by row) as they are
 * now, edits included, on a paged world without a level: tests and harnesses. */
st_result st_engine_paged_read_rect(st_engine *engine, st_rect rect, uint8_t *heights, uint8_t *meta, st_error *err);

/* Writes every page edited since the last write-back into the store (st_store_write_tiles: journalled, crash-safe:
 * a generated world's into its overlay, st_store_open_overlay); *written (may be NULL) gets how many. On a world
 * without a level the pages written are then dropped from the CPU (the store is their truth again; one still
 * being loaded is dropped at a later write-back). ST_ERR_INVALID for a store that is neither a local folder nor a
 * generated world with an overlay, or an engine whose terrain is not paged; the edits then stay unsaved (on the
 * GPU and, without a level, held on the CPU). */
st_result st_engine_paged_write_back(st_engine *engine, uint32_t *written, st_error *err);

typedef struct st_paged_stats {
    st_residency_stats residency;
    st_tile_pool_stats pool;
    uint32_t pool_pages;  /* slots of the pool */
    uint32_t mapped;      /* pages the table maps to a slot now */
    uint32_t wanted;      /* pages the last frame asked for */
    uint32_t missing;     /* of those, not mapped yet (read from a coarser level, or as floors) */
    uint32_t holes;       /* of the missing full-resolution pages, those no coarser level has mapped either: drawn
                             as their floors, the only pages drawn without their terrain */
    uint32_t levels;      /* 1 + the coarser levels of the far field */
    uint32_t far_mapped;  /* pages of the coarser levels in the pool */
    uint32_t arrivals;    /* pages mapped into the pool by the last frame's update, all levels (edits re-sent to
                             a page already mapped are not counted) */
    uint64_t gpu_bytes;   /* the pool plus the page table */
    uint32_t edits_held;  /* a world without a level: edited pages held on the CPU (unsaved, or saved and not
                             dropped yet) */
    double ahead;         /* how far ahead of the eye (texels) the last frame asked for pages: the lookahead
                             frames of its motion, or more, the distance it covers in wall time while a page takes
                             to become resident (residency.ready_ms_p90 at any level); 0 when it did not move */
} st_paged_stats;

/* The figures of the engine's paged terrain; ST_ERR_INVALID when its terrain is not paged. */
st_result st_engine_paged_stats(const st_engine *engine, st_paged_stats *out, st_error *err);
/* Drives the residency manager for `camera` as frames would (requests, update, uploads), without drawing,
 * until every wanted page is mapped or max_frames pass; *frames (may be NULL) gets how many were needed. For
 * harnesses and tests that need every page resident; a frame loop never calls it. */
st_result st_engine_paged_settle(st_engine *engine, const st_camera *camera, uint32_t max_frames, uint32_t *frames,
                                 st_error *err);
/* The slot the page table maps page (px, py) to (false when none), and, when out is not NULL, that slot's
 * texels as the GPU holds them (the tile's pair layout, (size/2)·size·4 bytes; waits for the device): tests. */
bool st_engine_paged_page(st_engine *engine, uint32_t px, uint32_t py, uint32_t *slot, void *out, size_t bytes);
/* Whether page (px, py) of level k (0 = full resolution, k ≥ 1 the far field's coarser levels) is mapped to a
 * slot now: tests. */
bool st_engine_paged_level_mapped(const st_engine *engine, uint32_t k, uint32_t px, uint32_t py);

#endif
