/* The residency manager's state, shared by the manager (residency.c) and its invariant check
 * (residency_check.c). Records live in a pool and are found through an open-addressing table keyed by
 * st_tile_key_pack; two intrusive LRU lists order the Evictable ones. */
#ifndef STRATA_TILES_RESIDENCY_INTERNAL_H
#define STRATA_TILES_RESIDENCY_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "strata/tiles.h"

#define RES_NONE UINT32_MAX
#define RES_EMPTY_KEY UINT64_MAX /* level 255: never a valid key */
#define RES_LOAD_TIMES 1024      /* finished loads kept for the median */
#define RES_READY_TIMES 64       /* tiles made Resident kept for the time to ready: the recent ones */

enum {
    RES_LIVE = 1,           /* the pool entry is a record (else it is free) */
    RES_CANCELLED = 2,      /* cancelled since its last request: not wanted this frame */
    RES_PENDING_UPLOAD = 4, /* Loading with its data, waiting for a slot and room in the staging ring */
    RES_UPLOADING = 8,      /* Loading, its upload queued on the GPU (ticket) */
    RES_IN_LRU = 16,        /* RES_IN_LRU << list: in that LRU list */
};

enum { RES_LRU_CPU = 0, RES_LRU_GPU = 1 }; /* all Evictable tiles / those still holding a slot */

typedef struct res_record {
    uint64_t key;       /* st_tile_key_pack */
    st_tile *tile;      /* the decoded tile (Resident, Evictable, Loading once loaded) */
    char *error;        /* the last failure's message (malloc'd) */
    double retry_at_ms; /* Failed: not loaded again before this */
    double backoff_ms;  /* the last back-off; 0 after a success */
    double queued_ms;   /* when it was last queued from Unloaded or Failed (st_time_ms); 0 once Resident */
    uint64_t ticket;    /* RES_UPLOADING: the uploader's ticket */
    uint32_t req_frame; /* the frame it was last requested in */
    uint32_t anc_frame; /* the frame it was found to be an ancestor of a requested tile in */
    uint32_t slot;      /* GPU slot or RES_NONE */
    uint32_t link[2][2]; /* [list][0 = prev, 1 = next] */
    float priority;     /* the largest requested this frame */
    uint8_t state, flags;
} res_record;

typedef struct res_entry {
    uint64_t key;
    uint32_t rec;
} res_entry;

typedef struct res_lru {
    uint32_t head, tail, count; /* head = least recently needed */
} res_lru;

typedef struct res_job {
    st_residency *r;
    uint64_t key;
    uint32_t rec;
    st_tile *tile;
    st_result result;
    double ms;
    st_error err;
    struct res_job *next; /* the completion list, or the free list */
} res_job;

struct st_residency {
    st_residency_desc desc;
    st_tile_uploader uploader;
    bool has_uploader;
    uint32_t levels, pinned_from; /* tiles of level ≥ pinned_from are pinned */
    bool have_extent;             /* level_nx/ny known (from the store) */
    uint32_t level_nx[ST_STORE_MAX_LEVELS], level_ny[ST_STORE_MAX_LEVELS];

    /* records and their table */
    res_entry *table;
    uint32_t table_mask, table_count, table_limit; /* request inserts while table_count < table_limit */
    res_record *recs;
    uint32_t rec_cap, rec_high; /* entries [0, rec_high) have been used */
    uint32_t *free_recs, free_count;

    /* this frame */
    uint32_t frame;
    uint32_t *requested, requested_count; /* records requested this frame, once each (room for rec_cap) */
    uint32_t new_keys, max_new_keys;      /* keys new to the table requested this frame / in any frame */
    uint64_t *needed;                     /* the wanted keys of the last update (for the check) */
    uint32_t needed_count;
    uint64_t *evicted;                    /* keys evicted in the last update (for the check) */
    uint32_t evicted_count, evicted_cap;

    /* caches */
    uint32_t cpu_cap, cpu_used; /* used: records holding data + loads in flight */
    uint32_t gpu_cap;
    uint32_t *slot_owner; /* record of each slot, or RES_NONE */
    uint32_t *free_slots, free_slot_count;
    res_lru lru[2];
    uint32_t *pending, pending_count;     /* RES_PENDING_UPLOAD records (at most cpu_cap) */
    struct res_pending *pending_sort;     /* room for cpu_cap: sorting them */
    uint32_t *uploading, uploading_count; /* RES_UPLOADING records (at most gpu_cap) */

    /* loads on the job system */
    res_job *jobs, *free_jobs;
    uint32_t max_loads, in_flight;
    struct res_pick *picks; /* room for max_loads: the best queued requests */
    pthread_mutex_t lock;   /* guards done, outstanding */
    pthread_cond_t cond;
    res_job *done;
    uint32_t outstanding; /* jobs submitted and not yet on the done list */
    atomic_bool closing;

    /* counters */
    uint32_t counts[ST_TILE_FAILED + 1];
    st_residency_stats stats;
    double load_ms[RES_LOAD_TIMES];
    uint32_t load_ms_count, load_ms_next;
    double ready_ms[RES_READY_TIMES]; /* the last tiles' times from being queued to Resident */
    uint32_t ready_ms_count, ready_ms_next;
    uint64_t want_sig;
    uint32_t want_count;
    double want_changed_ms;
    bool want_waiting;
    bool ancestors_marked; /* anc_frame is up to date this update */
    uint64_t *filter;      /* bits of the keys in the LRU lists, for mark_needed_ancestors */
    uint32_t filter_mask;
};

/* The record of a packed key, or RES_NONE. */
uint32_t res_lookup(const st_residency *r, uint64_t key);
bool res_pinned(const st_residency *r, uint32_t level);

#endif
