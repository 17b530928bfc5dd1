/* The residency manager: which tiles are queued, loading on the job system, resident (CPU data + a GPU slot),
 * evictable or failed. A request is one probe of an open-addressing table and an append, with no lock and
 * no allocation; update() does the rest once per frame on the caller's thread and never waits for a load. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "residency_internal.h"

#define MAX_BACKOFF_MS 10000.0
#define MIN_HEADROOM 16384u       /* new keys one frame may add before the table has to grow */
#define MAX_CAPACITY (1u << 22)   /* cpu_tiles, gpu_slots */
#define MAX_RECORDS (1u << 22)    /* the table stops growing here (requests are then dropped) */
#define MAX_LOADS 4096u
#define MAX_SLOW_LOAD_MS 60000.0

typedef struct res_pick {
    float priority;
    uint32_t order; /* position in this frame's requests: earlier first among equals */
    uint32_t rec;
} res_pick;

typedef struct res_pending {
    float priority;
    uint32_t rec;
    uint64_t key;
} res_pending;

const char *st_tile_state_name(st_tile_state s) {
    switch (s) {
    case ST_TILE_UNLOADED: return "unloaded";
    case ST_TILE_QUEUED: return "queued";
    case ST_TILE_LOADING: return "loading";
    case ST_TILE_RESIDENT: return "resident";
    case ST_TILE_EVICTABLE: return "evictable";
    case ST_TILE_FAILED: return "failed";
    }
    return "unknown";
}

/* ---- the table ----------------------------------------------------------------------------------------- */

static inline uint32_t key_hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k;
}

uint32_t res_lookup(const st_residency *r, uint64_t key) {
    for (uint32_t p = key_hash(key) & r->table_mask;; p = (p + 1) & r->table_mask) {
        if (r->table[p].key == key) return r->table[p].rec;
        if (r->table[p].key == RES_EMPTY_KEY) return RES_NONE;
    }
}

/* Removes key by shifting the entries after it back (linear probing needs no tombstones then). */
static void table_remove(st_residency *r, uint64_t key) {
    uint32_t m = r->table_mask, p = key_hash(key) & m;
    while (r->table[p].key != key) {
        if (r->table[p].key == RES_EMPTY_KEY) return;
        p = (p + 1) & m;
    }
    for (uint32_t q = (p + 1) & m;; q = (q + 1) & m) {
        if (r->table[q].key == RES_EMPTY_KEY) break;
        uint32_t home = key_hash(r->table[q].key) & m;
        /* q's entry may move into the hole at p unless its home lies cyclically in (p, q]. */
        bool stays = p <= q ? (p < home && home <= q) : (p < home || home <= q);
        if (!stays) {
            r->table[p] = r->table[q];
            p = q;
        }
    }
    r->table[p].key = RES_EMPTY_KEY;
    r->table_count--;
}

static void table_put(res_entry *table, uint32_t mask, uint64_t key, uint32_t rec) {
    uint32_t p = key_hash(key) & mask;
    while (table[p].key != RES_EMPTY_KEY) p = (p + 1) & mask;
    table[p] = (res_entry){key, rec};
}

/* ---- records, states, LRU lists ------------------------------------------------------------------------ */

bool res_pinned(const st_residency *r, uint32_t level) { return level >= r->pinned_from; }

static inline bool wanted(const st_residency *r, const res_record *t) {
    return t->req_frame == r->frame && !(t->flags & RES_CANCELLED);
}

static inline void set_state(st_residency *r, res_record *t, st_tile_state s) {
    /* the time from wanting a tile to drawing it: what a caller must ask that far ahead of need */
    if (s == ST_TILE_QUEUED && (t->state == ST_TILE_UNLOADED || t->state == ST_TILE_FAILED)) {
        t->queued_ms = st_time_ms();
    } else if (s == ST_TILE_RESIDENT && t->queued_ms > 0) {
        r->ready_ms[r->ready_ms_next] = st_time_ms() - t->queued_ms;
        r->ready_ms_next = (r->ready_ms_next + 1) % RES_READY_TIMES;
        if (r->ready_ms_count < RES_READY_TIMES) r->ready_ms_count++;
        t->queued_ms = 0;
    }
    r->counts[t->state]--;
    r->counts[s]++;
    t->state = (uint8_t)s;
}

static void lru_push(st_residency *r, int list, uint32_t i) {
    res_record *t = &r->recs[i];
    res_lru *l = &r->lru[list];
    t->link[list][0] = l->tail;
    t->link[list][1] = RES_NONE;
    if (l->tail != RES_NONE) r->recs[l->tail].link[list][1] = i;
    else l->head = i;
    l->tail = i;
    l->count++;
    t->flags |= (uint8_t)(RES_IN_LRU << list);
}

static void lru_unlink(st_residency *r, int list, uint32_t i) {
    res_record *t = &r->recs[i];
    if (!(t->flags & (RES_IN_LRU << list))) return;
    res_lru *l = &r->lru[list];
    uint32_t prev = t->link[list][0], next = t->link[list][1];
    if (prev != RES_NONE) r->recs[prev].link[list][1] = next;
    else l->head = next;
    if (next != RES_NONE) r->recs[next].link[list][0] = prev;
    else l->tail = prev;
    l->count--;
    t->flags &= (uint8_t) ~(RES_IN_LRU << list);
}

/* Not needed any more: into the LRU lists at their most recent end (pinned tiles stay out of them, so they
 * are never chosen). */
static void make_evictable(st_residency *r, uint32_t i) {
    res_record *t = &r->recs[i];
    set_state(r, t, ST_TILE_EVICTABLE);
    if (res_pinned(r, (uint32_t)(t->key >> 56))) return;
    lru_push(r, RES_LRU_CPU, i);
    if (t->slot != RES_NONE) lru_push(r, RES_LRU_GPU, i);
}

static void release_slot(st_residency *r, res_record *t) {
    if (t->slot == RES_NONE) return;
    r->slot_owner[t->slot] = RES_NONE;
    r->free_slots[r->free_slot_count++] = t->slot;
    t->slot = RES_NONE;
}

/* Forgets an Unloaded or Failed record (no data, no slot, no job). */
static void record_free(st_residency *r, uint32_t i) {
    res_record *t = &r->recs[i];
    table_remove(r, t->key);
    r->counts[t->state]--;
    free(t->error);
    memset(t, 0, sizeof *t);
    t->slot = RES_NONE;
    r->free_recs[r->free_count++] = i;
}

/* ---- requests (the hot path) --------------------------------------------------------------------------- */

static bool key_valid(const st_residency *r, st_tile_key k) {
    if (k.level >= r->levels || k.x > 0xFFFFFFFu || k.y > 0xFFFFFFFu) return false;
    return !r->have_extent || (k.x < r->level_nx[k.level] && k.y < r->level_ny[k.level]);
}

st_tile_state st_residency_request(st_residency *r, st_tile_key key, float priority) {
    r->stats.requests++;
    if (!key_valid(r, key)) return ST_TILE_FAILED;
    uint64_t k = st_tile_key_pack(key);
    uint32_t p = key_hash(k) & r->table_mask;
    while (r->table[p].key != k && r->table[p].key != RES_EMPTY_KEY) p = (p + 1) & r->table_mask;
    uint32_t i;
    if (r->table[p].key == k) {
        i = r->table[p].rec;
    } else {
        if (!r->free_count || r->table_count >= r->table_limit) {
            r->stats.dropped++;
            r->new_keys++; /* demand the table grows for */
            return ST_TILE_UNLOADED;
        }
        i = r->free_recs[--r->free_count];
        if (i >= r->rec_high) r->rec_high = i + 1;
        res_record *n = &r->recs[i];
        n->key = k;
        n->slot = RES_NONE;
        n->state = ST_TILE_UNLOADED;
        n->flags = RES_LIVE;
        r->counts[ST_TILE_UNLOADED]++;
        r->table[p] = (res_entry){k, i};
        r->table_count++;
        r->new_keys++;
    }
    res_record *t = &r->recs[i];
    if (!(priority == priority)) priority = 0; /* NaN */
    if (t->req_frame != r->frame) {
        t->req_frame = r->frame;
        t->priority = priority;
        r->requested[r->requested_count++] = i;
    } else if (priority > t->priority) {
        t->priority = priority;
    }
    t->flags &= (uint8_t)~RES_CANCELLED;
    if (t->state == ST_TILE_UNLOADED) {
        set_state(r, t, ST_TILE_QUEUED);
    } else if (t->state == ST_TILE_EVICTABLE && t->slot != RES_NONE) {
        lru_unlink(r, RES_LRU_CPU, i);
        lru_unlink(r, RES_LRU_GPU, i);
        set_state(r, t, ST_TILE_RESIDENT);
    }
    return (st_tile_state)t->state;
}

void st_residency_cancel(st_residency *r, st_tile_key key) {
    if (!key_valid(r, key)) return;
    uint32_t i = res_lookup(r, st_tile_key_pack(key));
    if (i == RES_NONE) return;
    res_record *t = &r->recs[i];
    t->flags |= RES_CANCELLED;
    if (t->state == ST_TILE_QUEUED) {
        set_state(r, t, ST_TILE_UNLOADED);
        r->stats.cancelled++;
    }
}

/* ---- loads on the job system ---------------------------------------------------------------------------- */

/* The injected sleep of slow-load mode; destroy cuts it short. */
static void slow_load_sleep(st_residency *r) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double s = r->desc.slow_load_ms / 1000.0;
    until.tv_sec += (time_t)s;
    until.tv_nsec += (long)((s - floor(s)) * 1e9);
    if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&r->lock);
    while (!atomic_load(&r->closing))
        if (pthread_cond_timedwait(&r->cond, &r->lock, &until)) break;
    pthread_mutex_unlock(&r->lock);
}

/* Runs on a worker: loads one tile and hands it to the completion list (touching nothing else of r). */
static void load_job_run(void *arg) {
    res_job *j = arg;
    st_residency *r = j->r;
    st_tile_key key = st_tile_key_unpack(j->key);
    j->tile = NULL;
    j->err = (st_error){0};
    double t0 = st_time_ms();
    if (r->desc.slow_load_ms > 0) slow_load_sleep(r);
    if (atomic_load(&r->closing)) {
        j->result = st_error_set(&j->err, ST_ERR_INVALID, "cancelled: the residency manager is closing");
    } else {
        j->result = r->desc.load ? r->desc.load(r->desc.load_user, key, &j->tile, &j->err)
                                 : st_store_read_tile(r->desc.store, key, &j->tile, &j->err);
        if (j->result == ST_OK && (!j->tile || !j->tile->data || !j->tile->data_bytes))
            j->result = st_error_set(&j->err, ST_ERR_FORMAT, "tile (%u, %u, %u): the load returned no data",
                                     key.level, key.x, key.y);
        else if (j->result == ST_OK && !st_tile_key_equal(j->tile->key, key))
            j->result = st_error_set(&j->err, ST_ERR_FORMAT, "tile (%u, %u, %u): the load returned tile (%u, %u, %u)",
                                     key.level, key.x, key.y, j->tile->key.level, j->tile->key.x, j->tile->key.y);
        if (j->result != ST_OK) {
            st_tile_destroy(j->tile);
            j->tile = NULL;
            if (!j->err.message[0]) st_error_set(&j->err, j->result, "tile (%u, %u, %u): the load failed",
                                                 key.level, key.x, key.y);
        }
    }
    j->ms = st_time_ms() - t0;
    pthread_mutex_lock(&r->lock);
    j->next = r->done;
    r->done = j;
    r->outstanding--;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
}

static void record_failure(st_residency *r, res_record *t, const char *message, double now) {
    free(t->error);
    t->error = strdup(message && message[0] ? message : "the load failed");
    t->backoff_ms = t->backoff_ms > 0 ? fmin(2.0 * t->backoff_ms, MAX_BACKOFF_MS) : r->desc.retry_ms;
    t->retry_at_ms = now + t->backoff_ms;
    set_state(r, t, ST_TILE_FAILED);
    r->stats.failures++;
}

/* Takes the finished loads off the completion list: a wanted tile waits for its upload, an unwanted one is
 * kept Evictable, a failure becomes Failed with its back-off. */
static void collect_loads(st_residency *r, double now) {
    pthread_mutex_lock(&r->lock);
    res_job *list = r->done;
    r->done = NULL;
    pthread_mutex_unlock(&r->lock);
    while (list) {
        res_job *j = list;
        list = j->next;
        uint32_t i = j->rec;
        res_record *t = &r->recs[i];
        r->in_flight--;
        if (j->result == ST_OK) {
            t->tile = j->tile;
            t->backoff_ms = 0;
            r->stats.loads_done++;
            r->stats.bytes_loaded += t->tile->data_bytes;
            r->load_ms[r->load_ms_next] = j->ms;
            r->load_ms_next = (r->load_ms_next + 1) % RES_LOAD_TIMES;
            if (r->load_ms_count < RES_LOAD_TIMES) r->load_ms_count++;
            if (wanted(r, t)) {
                t->flags |= RES_PENDING_UPLOAD;
                r->pending[r->pending_count++] = i;
            } else {
                make_evictable(r, i);
            }
        } else {
            r->cpu_used--;
            record_failure(r, t, j->err.message, now);
        }
        j->tile = NULL;
        j->next = r->free_jobs;
        r->free_jobs = j;
    }
}

/* ---- eviction -------------------------------------------------------------------------------------------- */

/* Stamps every tile in the LRU lists (the only ones that can be evicted) that is an ancestor of a tile wanted
 * this frame; once per update, when the first eviction needs it. Most ancestors on the walks up are in no
 * list, so a bit filter of the listed keys (small enough for the L1 cache) spares the table probes; a walk
 * stops at a tile already stamped, whose own ancestors were stamped by the walk that reached it. */
static void mark_needed_ancestors(st_residency *r) {
    if (r->ancestors_marked) return;
    r->ancestors_marked = true;
    if (!r->lru[RES_LRU_CPU].count) return; /* the GPU list is a part of it */
    memset(r->filter, 0, (r->filter_mask / 64 + 1) * sizeof *r->filter);
    for (uint32_t i = r->lru[RES_LRU_CPU].head; i != RES_NONE; i = r->recs[i].link[RES_LRU_CPU][1]) {
        uint32_t b = key_hash(r->recs[i].key) & r->filter_mask;
        r->filter[b / 64] |= 1ull << (b % 64);
    }
    for (uint32_t n = 0; n < r->requested_count; n++) {
        const res_record *t = &r->recs[r->requested[n]];
        if (!wanted(r, t)) continue;
        st_tile_key k = st_tile_key_unpack(t->key);
        while (k.level + 1 < r->levels) {
            k = st_tile_key_parent(k);
            uint64_t packed = st_tile_key_pack(k);
            uint32_t b = key_hash(packed) & r->filter_mask;
            if (!(r->filter[b / 64] >> (b % 64) & 1)) continue;
            uint32_t a = res_lookup(r, packed);
            if (a == RES_NONE || r->recs[a].state != ST_TILE_EVICTABLE) continue;
            if (r->recs[a].anc_frame == r->frame) break;
            r->recs[a].anc_frame = r->frame;
        }
    }
}

/* The least recently needed tile of a list that may go: never an ancestor of a tile needed this frame
 * (pinned tiles are in no list). */
static uint32_t lru_victim(st_residency *r, int list) {
    mark_needed_ancestors(r);
    for (uint32_t i = r->lru[list].head; i != RES_NONE; i = r->recs[i].link[list][1])
        if (r->recs[i].anc_frame != r->frame) return i;
    return RES_NONE;
}

static void log_eviction(st_residency *r, const res_record *t) {
    if (r->evicted_count < r->evicted_cap) r->evicted[r->evicted_count++] = t->key;
    r->stats.evictions++;
}

/* Evictable → Unloaded: frees the CPU entry (and the slot, when it still had one). */
static void evict_cpu(st_residency *r, uint32_t i) {
    res_record *t = &r->recs[i];
    log_eviction(r, t);
    lru_unlink(r, RES_LRU_CPU, i);
    lru_unlink(r, RES_LRU_GPU, i);
    release_slot(r, t);
    st_tile_destroy(t->tile);
    t->tile = NULL;
    r->cpu_used--;
    set_state(r, t, ST_TILE_UNLOADED);
    record_free(r, i);
}

/* A free GPU slot, or the slot of the least recently needed Evictable tile (which keeps its CPU data). */
static uint32_t take_slot(st_residency *r) {
    if (r->free_slot_count) return r->free_slots[--r->free_slot_count];
    uint32_t v = lru_victim(r, RES_LRU_GPU);
    if (v == RES_NONE) return RES_NONE;
    res_record *t = &r->recs[v];
    log_eviction(r, t);
    lru_unlink(r, RES_LRU_GPU, v);
    uint32_t slot = t->slot;
    r->slot_owner[slot] = RES_NONE;
    t->slot = RES_NONE;
    return slot;
}

/* ---- the steps of an update ----------------------------------------------------------------------------- */

/* Tiles not requested since the last update: Resident → Evictable, Queued → Unloaded; records that hold
 * nothing are forgotten (a Failed one once its back-off has passed, so the back-off survives). */
static void sweep(st_residency *r, double now) {
    for (uint32_t i = 0; i < r->rec_high; i++) {
        res_record *t = &r->recs[i];
        if (!(t->flags & RES_LIVE)) continue;
        bool w = wanted(r, t);
        switch ((st_tile_state)t->state) {
        case ST_TILE_RESIDENT:
            if (!w) make_evictable(r, i);
            break;
        case ST_TILE_QUEUED:
            if (!w) {
                set_state(r, t, ST_TILE_UNLOADED);
                r->stats.cancelled++;
                record_free(r, i);
            }
            break;
        case ST_TILE_UNLOADED: record_free(r, i); break;
        case ST_TILE_FAILED:
            if (!w && now >= t->retry_at_ms) record_free(r, i);
            break;
        default: break;
        }
    }
}

/* Requested tiles that need more than a state change: an Evictable one that lost its slot is uploaded again,
 * a Failed one whose back-off has passed is queued again. */
static void revive_requested(st_residency *r, double now) {
    for (uint32_t n = 0; n < r->requested_count; n++) {
        uint32_t i = r->requested[n];
        res_record *t = &r->recs[i];
        if (!wanted(r, t)) continue;
        if (t->state == ST_TILE_EVICTABLE && t->slot == RES_NONE) {
            lru_unlink(r, RES_LRU_CPU, i);
            set_state(r, t, ST_TILE_LOADING);
            t->flags |= RES_PENDING_UPLOAD;
            r->pending[r->pending_count++] = i;
        } else if (t->state == ST_TILE_FAILED && now >= t->retry_at_ms) {
            set_state(r, t, ST_TILE_QUEUED);
        }
    }
}

/* Uploads the GPU has finished: Loading → Resident, or Evictable when no longer wanted. */
static void finish_uploads(st_residency *r) {
    uint32_t kept = 0;
    for (uint32_t n = 0; n < r->uploading_count; n++) {
        uint32_t i = r->uploading[n];
        res_record *t = &r->recs[i];
        if (!r->uploader.complete(r->uploader.user, t->ticket)) {
            r->uploading[kept++] = i;
            continue;
        }
        t->flags &= (uint8_t)~RES_UPLOADING;
        if (wanted(r, t)) set_state(r, t, ST_TILE_RESIDENT);
        else make_evictable(r, i);
    }
    r->uploading_count = kept;
}

static int pending_order(const void *a, const void *b) {
    const res_pending *x = a, *y = b;
    if (x->priority != y->priority) return x->priority > y->priority ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

/* Best first (ties by key, so the order does not depend on the records' places). */
static void sort_pending(st_residency *r) {
    for (uint32_t n = 0; n < r->pending_count; n++) {
        const res_record *t = &r->recs[r->pending[n]];
        r->pending_sort[n] = (res_pending){t->priority, r->pending[n], t->key};
    }
    qsort(r->pending_sort, r->pending_count, sizeof *r->pending_sort, pending_order);
    for (uint32_t n = 0; n < r->pending_count; n++) r->pending[n] = r->pending_sort[n].rec;
}

/* Loaded tiles into GPU slots, best first, within the frame's budget and the uploader's staging room.
 * Without an uploader a slot is only a number and the tile is Resident at once. */
static void start_uploads(st_residency *r) {
    uint32_t kept = 0;
    for (uint32_t n = 0; n < r->pending_count; n++) {
        uint32_t i = r->pending[n];
        res_record *t = &r->recs[i];
        if (wanted(r, t)) {
            r->pending[kept++] = i;
        } else {
            t->flags &= (uint8_t)~RES_PENDING_UPLOAD;
            make_evictable(r, i);
        }
    }
    r->pending_count = kept;
    sort_pending(r);
    uint64_t bytes = 0;
    double ms = 0;
    uint32_t n = 0;
    for (; n < r->pending_count; n++) {
        uint32_t i = r->pending[n];
        res_record *t = &r->recs[i];
        /* The budget admits at least one tile a frame, so a tile larger than it still goes. */
        if (r->has_uploader && bytes && bytes + t->tile->data_bytes > r->desc.upload_budget_bytes) break;
        if (r->has_uploader && r->uploader.room && !r->uploader.room(r->uploader.user)) break;
        uint32_t slot = take_slot(r);
        if (slot == RES_NONE) break;
        if (r->has_uploader) {
            uint64_t ticket = 0;
            double t0 = st_time_ms();
            bool queued = r->uploader.upload(r->uploader.user, slot, t->tile, &ticket);
            ms += st_time_ms() - t0;
            if (!queued) {
                r->free_slots[r->free_slot_count++] = slot;
                break;
            }
            t->ticket = ticket;
            t->flags |= RES_UPLOADING;
            r->uploading[r->uploading_count++] = i;
            bytes += t->tile->data_bytes;
            r->stats.uploads++;
            r->stats.bytes_uploaded += t->tile->data_bytes;
        } else {
            set_state(r, t, ST_TILE_RESIDENT);
        }
        t->slot = slot;
        r->slot_owner[slot] = i;
        t->flags &= (uint8_t)~RES_PENDING_UPLOAD;
    }
    memmove(r->pending, r->pending + n, (r->pending_count - n) * sizeof *r->pending);
    r->pending_count -= n;
    r->stats.upload_ms_frame = ms;
}

static bool pick_better(const res_pick *a, const res_pick *b) {
    return a->priority > b->priority || (a->priority == b->priority && a->order < b->order);
}

/* A min-heap (the worst pick on top) of at most k of the best Queued requests. */
static void pick_sift_down(res_pick *h, uint32_t count, uint32_t at) {
    for (;;) {
        uint32_t worst = at, c1 = 2 * at + 1, c2 = c1 + 1;
        if (c1 < count && pick_better(&h[worst], &h[c1])) worst = c1;
        if (c2 < count && pick_better(&h[worst], &h[c2])) worst = c2;
        if (worst == at) return;
        res_pick tmp = h[at];
        h[at] = h[worst];
        h[worst] = tmp;
        at = worst;
    }
}

static void pick_sift_up(res_pick *h, uint32_t at) {
    while (at > 0) {
        uint32_t parent = (at - 1) / 2;
        if (!pick_better(&h[parent], &h[at])) return;
        res_pick tmp = h[at];
        h[at] = h[parent];
        h[parent] = tmp;
        at = parent;
    }
}

static int pick_order(const void *a, const void *b) {
    return pick_better(a, b) ? -1 : pick_better(b, a) ? 1 : 0;
}

/* Starts the best Queued requests while loads are free, making room in the CPU cache by evicting. */
static void start_loads(st_residency *r, double now) {
    uint32_t k = r->max_loads - r->in_flight, count = 0;
    if (!k) return;
    res_pick *h = r->picks;
    for (uint32_t n = 0; n < r->requested_count; n++) {
        const res_record *t = &r->recs[r->requested[n]];
        if (t->state != ST_TILE_QUEUED || !wanted(r, t)) continue;
        res_pick p = {t->priority, n, r->requested[n]};
        if (count < k) {
            h[count] = p;
            pick_sift_up(h, count++);
        } else if (pick_better(&p, &h[0])) {
            h[0] = p;
            pick_sift_down(h, count, 0);
        }
    }
    qsort(h, count, sizeof *h, pick_order);
    for (uint32_t n = 0; n < count; n++) {
        uint32_t i = h[n].rec;
        res_record *t = &r->recs[i];
        if (r->cpu_used >= r->cpu_cap) {
            uint32_t v = lru_victim(r, RES_LRU_CPU);
            if (v == RES_NONE) break;
            evict_cpu(r, v);
        }
        res_job *j = r->free_jobs;
        r->free_jobs = j->next;
        *j = (res_job){.r = r, .key = t->key, .rec = i};
        pthread_mutex_lock(&r->lock);
        r->outstanding++;
        pthread_mutex_unlock(&r->lock);
        if (!st_job_submit(load_job_run, j)) {
            pthread_mutex_lock(&r->lock);
            r->outstanding--;
            pthread_mutex_unlock(&r->lock);
            j->next = r->free_jobs;
            r->free_jobs = j;
            record_failure(r, t, "no job could be started for the load (out of memory)", now);
            continue;
        }
        set_state(r, t, ST_TILE_LOADING);
        r->cpu_used++;
        r->in_flight++;
        r->stats.loads_started++;
    }
}

/* full_detail_ms: the wanted set is summarised by its size and a sum of hashed keys (order-free); when it
 * differs from the last frame's the clock restarts, and stops once every wanted tile is Resident. */
static void track_full_detail(st_residency *r, double now) {
    uint64_t sig = 0;
    uint32_t count = 0, resident = 0;
    for (uint32_t n = 0; n < r->requested_count; n++) {
        const res_record *t = &r->recs[r->requested[n]];
        if (!wanted(r, t)) continue;
        count++;
        sig += t->key * 0x9e3779b97f4a7c15ull ^ (t->key >> 29);
        resident += t->state == ST_TILE_RESIDENT;
    }
    if (count != r->want_count || sig != r->want_sig) {
        r->want_count = count;
        r->want_sig = sig;
        r->want_changed_ms = now;
        r->want_waiting = true;
        r->stats.full_detail_ms = -1;
    }
    if (r->want_waiting && resident == count) {
        r->stats.full_detail_ms = st_time_ms() - r->want_changed_ms;
        r->want_waiting = false;
    }
}

/* ---- growing (only here, between frames) ----------------------------------------------------------------- */

static bool grow_array(void **p, size_t count, size_t size) {
    void *q = realloc(*p, count * size);
    if (!q) return false;
    *p = q;
    return true;
}

/* Makes room for the records one more frame may add (twice the most any frame has asked for so far, dropped
 * requests included) and keeps the table at most half full. On failure the sizes stay and requests beyond them are dropped. */
static bool ensure_room(st_residency *r) {
    uint32_t headroom = r->max_new_keys > MIN_HEADROOM / 2 ? 2 * r->max_new_keys : MIN_HEADROOM;
    uint32_t live = r->rec_cap - r->free_count;
    if (r->free_count >= headroom && (uint64_t)(r->table_count + headroom) * 2 <= r->table_mask + 1ull) return true;
    uint64_t want = (uint64_t)live + headroom;
    if (want > MAX_RECORDS) want = MAX_RECORDS;
    uint32_t cap = r->rec_cap;
    if (want > cap) {
        cap = (uint32_t)want;
        if (!grow_array((void **)&r->recs, cap, sizeof *r->recs) ||
            !grow_array((void **)&r->free_recs, cap, sizeof *r->free_recs) ||
            !grow_array((void **)&r->requested, cap, sizeof *r->requested) ||
            !grow_array((void **)&r->needed, cap, sizeof *r->needed))
            return false;
        for (uint32_t i = r->rec_cap; i < cap; i++) {
            memset(&r->recs[i], 0, sizeof r->recs[i]);
            r->recs[i].slot = RES_NONE;
        }
        /* New entries go below the old free ones on the stack, so low indices keep being used first. */
        uint32_t added = cap - r->rec_cap;
        memmove(r->free_recs + added, r->free_recs, r->free_count * sizeof *r->free_recs);
        for (uint32_t n = 0; n < added; n++) r->free_recs[n] = cap - 1 - n;
        r->free_count += added;
        r->rec_cap = cap;
    }
    uint64_t slots = r->table_mask + 1ull;
    while (slots < 2ull * cap) slots *= 2;
    if (slots != r->table_mask + 1ull) {
        res_entry *t = malloc(slots * sizeof *t);
        if (!t) return false;
        for (uint64_t s = 0; s < slots; s++) t[s].key = RES_EMPTY_KEY;
        for (uint32_t s = 0; s <= r->table_mask; s++)
            if (r->table[s].key != RES_EMPTY_KEY) table_put(t, (uint32_t)(slots - 1), r->table[s].key, r->table[s].rec);
        free(r->table);
        r->table = t;
        r->table_mask = (uint32_t)(slots - 1);
    }
    r->table_limit = (uint32_t)((r->table_mask + 1ull) * 7 / 8);
    return true;
}

void st_residency_update(st_residency *r) {
    double now = st_time_ms();
    r->ancestors_marked = false;
    r->evicted_count = 0;
    r->stats.upload_ms_frame = 0;
    collect_loads(r, now);
    sweep(r, now);
    revive_requested(r, now);
    if (r->has_uploader) finish_uploads(r);
    start_uploads(r);
    start_loads(r, now);
    track_full_detail(r, now);
    r->needed_count = 0;
    for (uint32_t n = 0; n < r->requested_count; n++) {
        const res_record *t = &r->recs[r->requested[n]];
        if (wanted(r, t)) r->needed[r->needed_count++] = t->key;
    }
    if (r->new_keys > r->max_new_keys) r->max_new_keys = r->new_keys;
    r->requested_count = 0;
    r->new_keys = 0;
    ensure_room(r);
    /* Frame numbers wrap after 2^32 updates; a record requested exactly 2^32 frames ago would look wanted. */
    r->frame++;
    if (!r->frame) r->frame = 1;
    r->stats.frame++;
}

/* ---- queries ------------------------------------------------------------------------------------------- */

st_tile_state st_residency_state(const st_residency *r, st_tile_key key) {
    if (!key_valid(r, key)) return ST_TILE_FAILED;
    uint32_t i = res_lookup(r, st_tile_key_pack(key));
    return i == RES_NONE ? ST_TILE_UNLOADED : (st_tile_state)r->recs[i].state;
}

const char *st_residency_error(const st_residency *r, st_tile_key key) {
    if (!key_valid(r, key)) return "the tile is outside the pyramid";
    uint32_t i = res_lookup(r, st_tile_key_pack(key));
    if (i == RES_NONE || r->recs[i].state != ST_TILE_FAILED || !r->recs[i].error) return "";
    return r->recs[i].error;
}

const st_tile *st_residency_tile(const st_residency *r, st_tile_key key, uint32_t *slot) {
    if (slot) *slot = ST_TILE_NO_SLOT;
    if (!key_valid(r, key)) return NULL;
    uint32_t i = res_lookup(r, st_tile_key_pack(key));
    if (i == RES_NONE) return NULL;
    const res_record *t = &r->recs[i];
    if (t->state != ST_TILE_RESIDENT && t->state != ST_TILE_EVICTABLE) return NULL;
    if (slot) *slot = t->slot;
    return t->tile;
}

bool st_residency_refresh(st_residency *r, const st_tile *tile) {
    if (!key_valid(r, tile->key)) return true;
    uint32_t i = res_lookup(r, st_tile_key_pack(tile->key));
    if (i == RES_NONE) return true;
    res_record *t = &r->recs[i];
    if (t->state == ST_TILE_LOADING) return false; /* its data, read or still to come, may predate the change */
    if ((t->state == ST_TILE_RESIDENT || t->state == ST_TILE_EVICTABLE) && t->tile) {
        if (t->tile->data_bytes != tile->data_bytes) return false;
        memcpy(t->tile->data, tile->data, tile->data_bytes);
        t->tile->min_m = tile->min_m;
        t->tile->max_m = tile->max_m;
    }
    return true;
}

bool st_residency_resident_ancestor(const st_residency *r, st_tile_key key, st_tile_key *out) {
    if (!key_valid(r, key)) return false;
    for (;;) {
        uint32_t i = res_lookup(r, st_tile_key_pack(key));
        if (i != RES_NONE) {
            const res_record *t = &r->recs[i];
            if (t->state == ST_TILE_RESIDENT || (t->state == ST_TILE_EVICTABLE && t->slot != RES_NONE)) {
                if (out) *out = key;
                return true;
            }
        }
        if (key.level + 1 >= r->levels) return false;
        key = st_tile_key_parent(key);
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double st_residency_ready_ms(const st_residency *r) {
    uint32_t n = r->ready_ms_count;
    if (!n) return 0;
    double sorted[RES_READY_TIMES];
    memcpy(sorted, r->ready_ms, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    return sorted[(size_t)ceil(0.9 * (double)n) - 1]; /* nearest rank */
}

st_residency_stats st_residency_get_stats(const st_residency *r) {
    st_residency_stats s = r->stats;
    s.unloaded_known = r->counts[ST_TILE_UNLOADED];
    s.queued = r->counts[ST_TILE_QUEUED];
    s.loading = r->counts[ST_TILE_LOADING];
    s.resident = r->counts[ST_TILE_RESIDENT];
    s.evictable = r->counts[ST_TILE_EVICTABLE];
    s.failed = r->counts[ST_TILE_FAILED];
    s.load_ms_median = 0;
    if (r->load_ms_count) {
        double sorted[RES_LOAD_TIMES];
        memcpy(sorted, r->load_ms, r->load_ms_count * sizeof *sorted);
        qsort(sorted, r->load_ms_count, sizeof *sorted, cmp_double);
        uint32_t n = r->load_ms_count;
        s.load_ms_median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    }
    s.ready_ms_p90 = st_residency_ready_ms(r);
    return s;
}

/* ---- life -------------------------------------------------------------------------------------------- */

void st_residency_destroy(st_residency *r) {
    if (!r) return;
    /* Jobs not yet started see closing and return at once; running ones cut their injected sleep short. */
    atomic_store(&r->closing, true);
    pthread_mutex_lock(&r->lock);
    pthread_cond_broadcast(&r->cond);
    while (r->outstanding) pthread_cond_wait(&r->cond, &r->lock);
    pthread_mutex_unlock(&r->lock);
    for (res_job *j = r->done; j; j = j->next) st_tile_destroy(j->tile);
    if (r->recs)
        for (uint32_t i = 0; i < r->rec_high; i++) {
            st_tile_destroy(r->recs[i].tile);
            free(r->recs[i].error);
        }
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cond);
    free(r->table);
    free(r->recs);
    free(r->free_recs);
    free(r->requested);
    free(r->needed);
    free(r->evicted);
    free(r->slot_owner);
    free(r->free_slots);
    free(r->pending);
    free(r->pending_sort);
    free(r->uploading);
    free(r->jobs);
    free(r->picks);
    free(r->filter);
    free(r);
}

static st_result check_desc(const st_residency_desc *d, st_error *err) {
    if (!d) return st_error_set(err, ST_ERR_INVALID, "residency manager: no description");
    if (!d->store && !d->load) return st_error_set(err, ST_ERR_INVALID, "residency manager: neither a store nor a load function");
    if (!d->store && (!d->levels || d->levels > ST_STORE_MAX_LEVELS))
        return st_error_set(err, ST_ERR_INVALID, "residency manager: without a store, levels must be 1..%d (got %u)",
                            ST_STORE_MAX_LEVELS, d->levels);
    if (d->cpu_tiles > MAX_CAPACITY || d->gpu_slots > MAX_CAPACITY)
        return st_error_set(err, ST_ERR_INVALID, "residency manager: cpu_tiles %u / gpu_slots %u past the limit of %u",
                            d->cpu_tiles, d->gpu_slots, MAX_CAPACITY);
    uint32_t cpu = d->cpu_tiles ? d->cpu_tiles : 256;
    if (d->gpu_slots > cpu)
        return st_error_set(err, ST_ERR_INVALID, "residency manager: %u GPU slots for %u CPU tiles (every tile on the GPU "
                            "is also held on the CPU)", d->gpu_slots, cpu);
    if (d->max_loads > MAX_LOADS)
        return st_error_set(err, ST_ERR_INVALID, "residency manager: max_loads %u past %u", d->max_loads, MAX_LOADS);
    if (d->uploader && (!d->uploader->upload || !d->uploader->complete))
        return st_error_set(err, ST_ERR_INVALID, "residency manager: an uploader needs upload and complete");
    if (!isfinite(d->slow_load_ms) || d->slow_load_ms < 0 || d->slow_load_ms > MAX_SLOW_LOAD_MS)
        return st_error_set(err, ST_ERR_INVALID, "residency manager: slow_load_ms %g is outside 0..%g", d->slow_load_ms,
                            MAX_SLOW_LOAD_MS);
    if (!isfinite(d->retry_ms) || d->retry_ms < 0 || d->retry_ms > MAX_BACKOFF_MS)
        return st_error_set(err, ST_ERR_INVALID, "residency manager: retry_ms %g is outside 0..%g", d->retry_ms,
                            MAX_BACKOFF_MS);
    return ST_OK;
}

st_result st_residency_create(const st_residency_desc *desc, st_residency **out, st_error *err) {
    *out = NULL;
    st_result res = check_desc(desc, err);
    if (res) return res;
    st_residency *r = calloc(1, sizeof *r);
    if (!r) return st_error_set(err, ST_ERR_NOMEM, "residency manager: out of memory");
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, NULL);
    atomic_init(&r->closing, false);
    r->desc = *desc;
    if (!r->desc.upload_budget_bytes) r->desc.upload_budget_bytes = 64ull << 20;
    if (!r->desc.retry_ms) r->desc.retry_ms = 100;
    if (desc->uploader) r->uploader = *desc->uploader, r->has_uploader = true;
    r->desc.uploader = NULL;
    r->cpu_cap = desc->cpu_tiles ? desc->cpu_tiles : 256;
    r->gpu_cap = desc->gpu_slots ? desc->gpu_slots : r->cpu_cap;
    unsigned workers = st_job_threads() > 1 ? st_job_threads() - 1 : 1;
    r->max_loads = desc->max_loads ? desc->max_loads : 2 * workers;
    r->levels = desc->levels;
    if (desc->store) {
        const st_store_info *info = st_store_get_info(desc->store);
        if (!info || !info->levels || info->levels > ST_STORE_MAX_LEVELS) {
            st_residency_destroy(r);
            return st_error_set(err, ST_ERR_INVALID, "residency manager: the store has no usable level count");
        }
        r->levels = info->levels;
        r->have_extent = true;
        for (uint32_t l = 0; l < r->levels; l++) st_store_level_tiles(desc->store, l, &r->level_nx[l], &r->level_ny[l]);
    }
    uint32_t pinned = desc->pinned_levels ? desc->pinned_levels : 1;
    r->pinned_from = desc->pin_none ? r->levels : pinned >= r->levels ? 0 : r->levels - pinned;
    r->frame = 1;
    r->lru[0] = r->lru[1] = (res_lru){RES_NONE, RES_NONE, 0};
    r->table_mask = 0;
    r->table = malloc(sizeof *r->table);
    r->evicted_cap = r->cpu_cap + r->max_loads;
    r->evicted = malloc(r->evicted_cap * sizeof *r->evicted);
    r->slot_owner = malloc(r->gpu_cap * sizeof *r->slot_owner);
    r->free_slots = malloc(r->gpu_cap * sizeof *r->free_slots);
    r->pending = malloc(r->cpu_cap * sizeof *r->pending);
    r->pending_sort = malloc(r->cpu_cap * sizeof *r->pending_sort);
    r->uploading = malloc(r->gpu_cap * sizeof *r->uploading);
    r->jobs = calloc(r->max_loads, sizeof *r->jobs);
    r->picks = malloc(r->max_loads * sizeof *r->picks);
    uint64_t bits = 4096;
    while (bits < 32ull * r->cpu_cap && bits < (1ull << 24)) bits *= 2;
    r->filter_mask = (uint32_t)(bits - 1);
    r->filter = malloc(bits / 8);
    if (r->table) r->table[0].key = RES_EMPTY_KEY;
    r->max_new_keys = r->cpu_cap; /* the first frame may ask for a whole cache's worth and more */
    if (!r->table || !r->evicted || !r->slot_owner || !r->free_slots || !r->pending || !r->uploading || !r->jobs ||
        !r->picks || !r->filter || !r->pending_sort || !ensure_room(r)) {
        st_residency_destroy(r);
        return st_error_set(err, ST_ERR_NOMEM, "residency manager: out of memory for %u tiles", r->cpu_cap);
    }
    for (uint32_t s = 0; s < r->gpu_cap; s++) {
        r->slot_owner[s] = RES_NONE;
        r->free_slots[s] = r->gpu_cap - 1 - s; /* slot 0 is handed out first */
    }
    r->free_slot_count = r->gpu_cap;
    for (uint32_t j = 0; j < r->max_loads; j++) {
        r->jobs[j].next = r->free_jobs;
        r->free_jobs = &r->jobs[j];
    }
    r->stats.full_detail_ms = 0;
    *out = r;
    return ST_OK;
}
