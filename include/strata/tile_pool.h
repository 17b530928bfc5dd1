/* The GPU tile pool: a fixed array of tile slots (one 2D-array image, one layer per slot) filled through a
 * persistently mapped staging ring, with an upload budget per frame. Uploads of a frame go to the GPU as one
 * transfer batch; a ticket says when its batch is done. The residency manager drives it through
 * st_tile_uploader (strata/tiles.h). A pool is used from the thread that draws with its engine: it submits on
 * the engine's queue, which two threads may not use at once. */
#ifndef STRATA_TILE_POOL_H
#define STRATA_TILE_POOL_H

#include "strata/render.h"
#include "strata/tiles.h"

/* Where the staging ring lives. Both are pinned host memory the GPU reads across the bus. */
typedef enum st_staging_memory {
    ST_STAGING_AUTO = 0,  /* host-cached where the adapter offers it, else write-combined */
    ST_STAGING_CACHED,    /* HOST_CACHED | HOST_COHERENT: CPU writes go through the caches, the GPU snoops */
    ST_STAGING_UNCACHED,  /* HOST_COHERENT, not cached: write-combined */
} st_staging_memory;

typedef struct st_tile_pool_desc {
    st_tile_encoding encoding;   /* required: the store's encoding (U16, F32 or PAIRS) */
    uint32_t tile_size;          /* required: samples (DEM) or texels (layers) per side, as st_tile.size */
    uint32_t slots;              /* required: array layers, at most the adapter's maxImageArrayLayers */
    uint64_t frame_budget_bytes; /* tile bytes accepted per frame (0 = 64 MiB); at least one tile */
    uint64_t ring_bytes;         /* staging ring size (0 = 3 frame budgets: a frame filling while two are read) */
    st_staging_memory memory;
    bool u16_uint;               /* U16 slots as R16_UINT instead of R16_UNORM (which samplers can filter) */
} st_tile_pool_desc;

typedef struct st_tile_pool st_tile_pool;

typedef struct st_tile_pool_stats {
    uint64_t uploads;          /* accepted by st_tile_pool_upload */
    uint64_t bytes_uploaded;   /* their tile bytes */
    uint64_t refused_budget;   /* refused: the frame's budget was used up */
    uint64_t refused_ring;     /* refused: no ring space (or batch) free of GPU reads yet */
    uint64_t rejected;         /* refused: the tile or slot does not fit the pool (st_tile_pool_accepts) */
    uint64_t batches_submitted, batches_done;
    uint64_t ring_bytes, ring_used, ring_wraps;
    bool gpu_timestamps;       /* batches are timed on the GPU (not on CPU adapters) */
    double last_batch_gpu_ms;  /* GPU time of the copies of the latest finished batch; NAN untimed */
    uint64_t last_batch_bytes; /* its tile bytes */
    double gpu_ms_total;       /* over finished, timed batches */
    uint64_t gpu_bytes_total;  /* their tile bytes */
    const char *format;        /* "R16_UNORM", "R16_UINT", "R32_SFLOAT", "RGBA8_UINT" */
    const char *memory;        /* the ring's memory type, e.g. "host cached coherent" */
} st_tile_pool_stats;

/* Creates the slot image (all slots zero) and the ring on the engine's device. The engine must outlive the
 * pool. ST_ERR_INVALID for a missing field or a budget or ring smaller than one tile; ST_ERR_UNSUPPORTED when
 * the adapter lacks the format or the layers. */
st_result st_tile_pool_create(st_engine *engine, const st_tile_pool_desc *desc, st_tile_pool **out, st_error *err);
/* Waits for the pool's submitted batches, then frees everything. */
void st_tile_pool_destroy(st_tile_pool *pool);

/* Bytes of one tile in a slot: size²·2 (U16), size²·4 (F32), (size/2)·size·4 (PAIRS). */
uint64_t st_tile_pool_tile_bytes(const st_tile_pool *pool);
/* Whether tile fits the pool's slots (encoding, size, data and its byte count); the reason in err if not. */
bool st_tile_pool_accepts(const st_tile_pool *pool, const st_tile *tile, st_error *err);

/* Copies tile's data into the ring now and queues its copy into `slot` in this frame's batch; *ticket then
 * names the batch. True when queued. False, queueing nothing, when this frame's budget is used up, the ring has
 * no room free of GPU reads (both retried next frame), or the tile or slot does not fit (counted as rejected,
 * st_tile_pool_accepts says why). A slot queued twice in one frame gets the later tile. Never waits. */
bool st_tile_pool_upload(st_tile_pool *pool, uint32_t slot, const st_tile *tile, uint64_t *ticket);
/* Once per frame, before the frame that may read the new tiles is submitted: submits this frame's batch (if
 * any uploads were queued) on the engine's queue and starts the next frame's budget. Uploads are visible to
 * every later submission on that queue; a slot read before its ticket completes holds either tile. */
st_result st_tile_pool_flush(st_tile_pool *pool, st_error *err);
/* True once the batch of ticket has finished on the GPU (its slots hold the new tiles and its ring bytes are
 * free). Polls the batch's timeline semaphore; never waits. A ticket not yet flushed is not complete. */
bool st_tile_pool_complete(st_tile_pool *pool, uint64_t ticket);
/* Blocks until ticket's batch has finished (flushing first if it is this frame's): for tests, benchmarks and
 * teardown, never for a frame loop. */
st_result st_tile_pool_wait(st_tile_pool *pool, uint64_t ticket, st_error *err);

/* Reads back the content of a slot (st_tile_pool_tile_bytes bytes, the tile's data layout) as the submitted
 * batches leave it: waits for the device. For tests and tools. */
st_result st_tile_pool_read_slot(st_tile_pool *pool, uint32_t slot, void *out, size_t bytes, st_error *err);

/* The pool's counters and figures so far (see st_tile_pool_stats). */
st_tile_pool_stats st_tile_pool_get_stats(const st_tile_pool *pool);

/* The pool as the residency manager's uploader: upload and complete above (user = pool). */
st_tile_uploader st_tile_pool_uploader(st_tile_pool *pool);

/* ---- the bus, measured beside the pool (strata bench upload) ------------------------------------------- */

typedef struct st_bus_probe_desc {
    uint64_t bytes;          /* per copy (0 = 64 MiB) */
    uint32_t repeat;         /* copies timed (0 = 9), after one that warms up */
    st_staging_memory memory;
    bool transfer_queue;     /* on the adapter's transfer-only queue (a copy engine) instead of the engine's */
    bool into_tiles;         /* into an array image of u16 257² slots (as many as the bytes hold), not a buffer */
} st_bus_probe_desc;

typedef struct st_bus_probe {
    bool available;          /* false: the adapter has no transfer-only queue (nothing was measured) */
    uint32_t queue_family;
    uint64_t bytes;          /* copied each time */
    double gpu_gibs;         /* median by GPU timestamps; NAN where the queue has none (CPU adapters) */
    double wall_gibs;        /* median of submit + wait by the wall clock */
    const char *memory;      /* the staging buffer's memory type */
} st_bus_probe;

/* Times plain copies from a staging buffer into device-local memory, one submission each, waiting for each:
 * what the bus and the queue's copy path give without the pool's bookkeeping. For reports. */
st_result st_tile_pool_measure_bus(st_engine *engine, const st_bus_probe_desc *desc, st_bus_probe *out,
                                   st_error *err);

#endif
