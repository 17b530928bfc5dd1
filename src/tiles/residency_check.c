/* Every invariant of the residency manager, checked from its state alone: counts against states, the table
 * against the records, what each state holds, the caches within capacity, slots owned once, the LRU lists,
 * and that the last update evicted no pinned tile and no ancestor of a tile it was asked for. */
#include <stdlib.h>

#include "residency_internal.h"

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            st_error_set(err, ST_ERR_INVALID, "residency check: " __VA_ARGS__); \
            goto fail;                                                          \
        }                                                                       \
    } while (0)

static bool is_ancestor(uint64_t a, uint64_t k) {
    st_tile_key ak = st_tile_key_unpack(a), kk = st_tile_key_unpack(k);
    if (ak.level <= kk.level) return false;
    uint32_t d = ak.level - kk.level;
    return (kk.x >> d) == ak.x && (kk.y >> d) == ak.y;
}

bool st_residency_check(const st_residency *r, st_error *err) {
    uint8_t *mark = calloc(r->rec_high + 1, 1);
    uint8_t *slot_seen = calloc(r->gpu_cap + 1, 1);
    if (!mark || !slot_seen) {
        free(mark);
        free(slot_seen);
        st_error_set(err, ST_ERR_NOMEM, "residency check: out of memory");
        return false;
    }
    uint32_t counts[ST_TILE_FAILED + 1] = {0};
    uint32_t live = 0, holding = 0, jobs = 0, pending = 0, uploading = 0, in_lru[2] = {0, 0};
    uint32_t prev_frame = r->frame - 1 ? r->frame - 1 : UINT32_MAX;
    for (uint32_t i = 0; i < r->rec_high; i++) {
        const res_record *t = &r->recs[i];
        if (!(t->flags & RES_LIVE)) {
            CHECK(!t->tile && t->slot == RES_NONE, "free record %u holds a tile or a slot", i);
            continue;
        }
        st_tile_key k = st_tile_key_unpack(t->key);
        CHECK(t->state <= ST_TILE_FAILED, "record %u has state %u", i, t->state);
        st_tile_state s = (st_tile_state)t->state;
        live++;
        counts[s]++;
        CHECK(k.level < r->levels, "tile (%u, %u, %u) is below the pyramid's %u levels", k.level, k.x, k.y, r->levels);
        CHECK(res_lookup(r, t->key) == i, "tile (%u, %u, %u) is not found through the table", k.level, k.x, k.y);
        bool pend = t->flags & RES_PENDING_UPLOAD, upl = t->flags & RES_UPLOADING;
        bool lru_cpu = t->flags & (RES_IN_LRU << RES_LRU_CPU), lru_gpu = t->flags & (RES_IN_LRU << RES_LRU_GPU);
        bool pinned = res_pinned(r, k.level);
        holding += t->tile != NULL;
        pending += pend;
        uploading += upl;
        in_lru[0] += lru_cpu;
        in_lru[1] += lru_gpu;
        const char *name = st_tile_state_name(s);
        switch (s) {
        case ST_TILE_UNLOADED:
        case ST_TILE_QUEUED:
        case ST_TILE_FAILED:
            CHECK(!t->tile && t->slot == RES_NONE && !pend && !upl && !lru_cpu && !lru_gpu,
                  "%s tile (%u, %u, %u) holds data, a slot or a list place", name, k.level, k.x, k.y);
            CHECK(s != ST_TILE_FAILED || t->error, "failed tile (%u, %u, %u) has no message", k.level, k.x, k.y);
            CHECK(s != ST_TILE_QUEUED || t->req_frame == r->frame || t->req_frame == prev_frame,
                  "tile (%u, %u, %u) is still queued though not requested in the last frame", k.level, k.x, k.y);
            break;
        case ST_TILE_LOADING:
            CHECK(!lru_cpu && !lru_gpu, "loading tile (%u, %u, %u) is in an LRU list", k.level, k.x, k.y);
            if (!t->tile) {
                jobs++;
                CHECK(!pend && !upl && t->slot == RES_NONE, "tile (%u, %u, %u) waits for an upload before its load",
                      k.level, k.x, k.y);
            } else {
                CHECK(pend != upl, "loaded tile (%u, %u, %u) is neither waiting for nor in an upload", k.level, k.x, k.y);
                CHECK(upl == (t->slot != RES_NONE), "tile (%u, %u, %u): a slot %s an upload", k.level, k.x, k.y,
                      upl ? "missing for" : "without");
            }
            break;
        case ST_TILE_RESIDENT:
            CHECK(t->tile && t->slot != RES_NONE, "resident tile (%u, %u, %u) lacks its data or its slot", k.level, k.x, k.y);
            CHECK(!pend && !upl && !lru_cpu && !lru_gpu, "resident tile (%u, %u, %u) is in a list", k.level, k.x, k.y);
            CHECK(t->req_frame == r->frame || t->req_frame == prev_frame,
                  "tile (%u, %u, %u) is resident though not requested in the last frame", k.level, k.x, k.y);
            break;
        case ST_TILE_EVICTABLE:
            CHECK(t->tile && !pend && !upl, "evictable tile (%u, %u, %u) lacks its data or waits for an upload", k.level,
                  k.x, k.y);
            CHECK(lru_cpu == !pinned, "evictable tile (%u, %u, %u) %s the CPU LRU list", k.level, k.x, k.y,
                  pinned ? "is pinned but in" : "is missing from");
            CHECK(lru_gpu == (!pinned && t->slot != RES_NONE), "evictable tile (%u, %u, %u) is %s the GPU LRU list",
                  k.level, k.x, k.y, lru_gpu ? "wrongly in" : "missing from");
            break;
        }
        if (t->slot != RES_NONE) {
            CHECK(t->slot < r->gpu_cap && r->slot_owner[t->slot] == i, "tile (%u, %u, %u) holds slot %u not owned by it",
                  k.level, k.x, k.y, t->slot);
            slot_seen[t->slot] = 1;
        }
    }
    for (int s = 0; s <= ST_TILE_FAILED; s++)
        CHECK(counts[s] == r->counts[s], "%u %s tiles counted as %u", counts[s], st_tile_state_name((st_tile_state)s),
              r->counts[s]);
    CHECK(live == r->table_count && live + r->free_count == r->rec_cap,
          "%u records, %u in the table, %u free of %u", live, r->table_count, r->free_count, r->rec_cap);
    uint32_t entries = 0;
    for (uint32_t p = 0; p <= r->table_mask; p++) {
        if (r->table[p].key == RES_EMPTY_KEY) continue;
        entries++;
        uint32_t i = r->table[p].rec;
        CHECK(i < r->rec_high && (r->recs[i].flags & RES_LIVE) && r->recs[i].key == r->table[p].key,
              "table entry %u points at the wrong record", p);
    }
    CHECK(entries == r->table_count, "%u table entries counted as %u", entries, r->table_count);

    /* caches */
    CHECK(jobs == r->in_flight && r->in_flight <= r->max_loads, "%u loads in flight, %u counted, at most %u", jobs,
          r->in_flight, r->max_loads);
    CHECK(holding + jobs == r->cpu_used && r->cpu_used <= r->cpu_cap, "CPU cache: %u tiles + %u loads, %u counted, "
          "capacity %u", holding, jobs, r->cpu_used, r->cpu_cap);
    uint32_t owned = 0;
    for (uint32_t s = 0; s < r->gpu_cap; s++)
        if (r->slot_owner[s] != RES_NONE) {
            owned++;
            CHECK(slot_seen[s], "slot %u has an owner that does not hold it", s);
        }
    for (uint32_t n = 0; n < r->free_slot_count; n++) {
        uint32_t s = r->free_slots[n];
        CHECK(s < r->gpu_cap && r->slot_owner[s] == RES_NONE && slot_seen[s] != 2, "free slot %u is owned or listed twice",
              s);
        slot_seen[s] = 2;
    }
    CHECK(owned + r->free_slot_count == r->gpu_cap, "%u slots owned + %u free of %u", owned, r->free_slot_count,
          r->gpu_cap);

    /* lists */
    for (int list = 0; list < 2; list++) {
        uint32_t n = 0, prev = RES_NONE;
        for (uint32_t i = r->lru[list].head; i != RES_NONE; i = r->recs[i].link[list][1]) {
            CHECK(i < r->rec_high && n < live, "LRU list %d is broken", list);
            CHECK(r->recs[i].link[list][0] == prev, "LRU list %d: a back link is wrong", list);
            CHECK(r->recs[i].state == ST_TILE_EVICTABLE && (r->recs[i].flags & (RES_IN_LRU << list)),
                  "LRU list %d holds a tile that is not evictable", list);
            prev = i;
            n++;
        }
        CHECK(prev == r->lru[list].tail && n == r->lru[list].count && n == in_lru[list],
              "LRU list %d: %u members, %u counted, %u flagged", list, n, r->lru[list].count, in_lru[list]);
    }
    CHECK(pending == r->pending_count && uploading == r->uploading_count, "%u/%u tiles waiting for/in an upload, "
          "%u/%u listed", pending, uploading, r->pending_count, r->uploading_count);
    for (uint32_t n = 0; n < r->pending_count; n++) {
        uint32_t i = r->pending[n];
        CHECK(i < r->rec_high && (r->recs[i].flags & RES_PENDING_UPLOAD) && !(mark[i] & 1), "the upload queue is wrong");
        mark[i] |= 1;
    }
    for (uint32_t n = 0; n < r->uploading_count; n++) {
        uint32_t i = r->uploading[n];
        CHECK(i < r->rec_high && (r->recs[i].flags & RES_UPLOADING) && !(mark[i] & 2), "the upload list is wrong");
        mark[i] |= 2;
    }

    /* what the last update evicted */
    for (uint32_t e = 0; e < r->evicted_count; e++) {
        st_tile_key k = st_tile_key_unpack(r->evicted[e]);
        CHECK(!res_pinned(r, k.level), "pinned tile (%u, %u, %u) was evicted", k.level, k.x, k.y);
        for (uint32_t n = 0; n < r->needed_count; n++) {
            CHECK(r->needed[n] != r->evicted[e], "tile (%u, %u, %u) was evicted though requested", k.level, k.x, k.y);
            CHECK(!is_ancestor(r->evicted[e], r->needed[n]),
                  "tile (%u, %u, %u) was evicted though an ancestor of a requested tile", k.level, k.x, k.y);
        }
    }
    free(mark);
    free(slot_seen);
    return true;
fail:
    free(mark);
    free(slot_seen);
    return false;
}
