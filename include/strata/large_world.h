/* A large world in the engine: a DEM tile store (a folder, an http:// URL or gen:SEED:WxH) drawn instead of an
 * st_level by the methods that draw stores (cdlod, cdlod-compute). The engine then owns the residency manager
 * and the GPU tile pool (src/render/large_world.c); every frame of a store renderer drives the residency
 * manager once, the method's selection requests what it draws, and the frame's uploads are submitted before
 * the frame. World units are metres; renderers of a store draw relative to the eye (the camera's double
 * origin, strata/camera.h). docs/large-world.md explains the design. */
#ifndef STRATA_LARGE_WORLD_H
#define STRATA_LARGE_WORLD_H

#include "strata/lod.h"
#include "strata/render.h"
#include "strata/tile_pool.h"
#include "strata/tiles.h"

typedef struct st_world_desc {
    uint32_t gpu_slots;           /* tile slots on the GPU (0 = 1024, at most the adapter's array layers) */
    uint32_t cpu_tiles;           /* decoded tiles kept on the CPU (0 = the GPU slots + 256) */
    uint64_t upload_budget_bytes; /* tile bytes uploaded per frame (0 = 64 MiB) */
    uint32_t max_loads;           /* loads in flight (0 = the residency manager's default) */
    double slow_load_ms;          /* sleep injected into every load (slow-load mode) */
    st_tile_load_fn load;         /* tests: where tiles come from instead of the store (thread-safe) */
    void *load_user;
} st_world_desc;

/* Makes `store` the engine's large world (replacing any earlier one; no renderer may be live): creates the
 * residency manager over it and a tile pool of its encoding. The store must outlive the engine or the next
 * st_engine_set_store. Only DEM stores are drawn (a layer store is ST_ERR_INVALID). */
st_result st_engine_set_store(st_engine *engine, st_store *store, const st_world_desc *desc, st_error *err);
/* The engine's store, or NULL. */
st_store *st_engine_store(const st_engine *engine);

typedef struct st_world_stats {
    st_residency_stats residency;
    st_tile_pool_stats pool;
    uint32_t gpu_slots;
    uint64_t gpu_bytes;   /* the tile slots plus the page table and slot table */
    uint32_t page_levels; /* levels held in the page table (the finest ones with at most 2^20 tiles are left out) */
} st_world_stats;

/* Residency and upload counters of the engine's large world; ST_ERR_INVALID without one. */
st_result st_engine_world_stats(const st_engine *engine, st_world_stats *out, st_error *err);

/* What a level-of-detail method drew in its last frame. */
typedef struct st_lod_frame_stats {
    double tau_px;
    uint32_t nodes, quadrants, fallback, missing, culled, one_level_violations;
    uint32_t widened;   /* times the selection widened the ranges for the one-level rule (st_lod_selection's) */
    uint64_t triangles, skirt_triangles;
    uint32_t per_level[ST_LOD_MAX_LEVELS]; /* drawn quadrants per level */
    uint32_t levels;
    uint32_t undrawn;   /* selected nodes not drawn: their tile lost its GPU slot this frame */
    uint64_t hole_px;   /* pixels that may show a hole (st_lod_hole_pixels over the missing and undrawn nodes);
                           UINT64_MAX when it could not be counted */
    double select_ms;   /* CPU time of the selection (requests included) */
    double coarse_ms;   /* cdlod --lod-select gpu: of select_ms, the coarse levels' walk on the CPU */
    uint32_t cpu_levels; /* cdlod --lod-select gpu: the levels that walk took (0: the pass walked them all) */
    bool settled;       /* every drawn node at its own level: nothing drawn from an ancestor, nothing missing */
    uint32_t grid;      /* quads per node side (cdlod), vertices per level side n (clipmap) */
    uint32_t finest;    /* clipmap: the finest level drawn (cdlod: 0) */
    uint64_t samples_updated; /* clipmap: height samples the frame's toroidal update wrote (cdlod: 0) */
    uint32_t update_rects;    /* clipmap: the update's fill rectangles (split at tile edges) */
} st_lod_frame_stats;

/* The last frame's figures of a method that selects levels of detail; false for other methods. */
bool st_renderer_lod_stats(const st_renderer *renderer, st_lod_frame_stats *out);

/* Draws frames of `camera` until the method's view is settled (every node drawn from its own tile) or max_frames
 * pass; *frames (may be NULL) gets how many were drawn. For harnesses that
 * score full detail; a frame loop never needs it. ST_ERR_INVALID for a method without levels of detail. */
st_result st_renderer_settle(st_renderer *renderer, const st_camera *camera, uint32_t max_frames, uint32_t *frames,
                             st_error *err);

#endif
