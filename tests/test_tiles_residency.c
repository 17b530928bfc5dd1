/* Tests of the residency manager without a GPU: every state transition (cancel, failure with back-off, a
 * load finishing unwanted), LRU order, pinning and the needed-ancestor rule under long random request
 * streams (the invariant check after every update), capacity bounds, the uploader path against a fake GPU
 * whose uploads complete frames later and whose staging ring refuses past a budget, slow-load mode, and
 * destroy with loads in flight. Tiles come from a fake load callback. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strata/tiles.h"
#include "support.h"

#define TILE_SIDE 17u
#define TILE_BYTES (TILE_SIDE * TILE_SIDE * 2u)

/* ---- a fake tile source ----------------------------------------------------------------------------------- */

typedef struct fake_source {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool gate_closed;        /* loads wait in the callback until opened */
    double sleep_ms;         /* inside the callback (not the injected slow-load sleep) */
    int active, loads;       /* callbacks running now / run in all */
    st_tile_key fail_key;    /* fails its first fail_times loads */
    int fail_times, fail_attempts;
    double fail_at_ms[16];   /* when each load of fail_key began */
    uint32_t fail_mod;       /* > 0: keys with (x·31 + y) % fail_mod == 1 always fail */
    int wrong_key_x, null_x; /* x of a key answered with another tile's key / with no tile (-1: none) */
} fake_source;

static void fake_init(fake_source *f) {
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->cond, NULL);
    f->fail_key.level = 99;
    f->wrong_key_x = f->null_x = -1;
}

static void fake_gate(fake_source *f, bool closed) {
    pthread_mutex_lock(&f->lock);
    f->gate_closed = closed;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

static st_result fake_load(void *user, st_tile_key key, st_tile **out, st_error *err) {
    fake_source *f = user;
    *out = NULL;
    pthread_mutex_lock(&f->lock);
    f->active++;
    f->loads++;
    bool fail = false;
    if (st_tile_key_equal(key, f->fail_key)) {
        if (f->fail_attempts < 16) f->fail_at_ms[f->fail_attempts] = st_time_ms();
        fail = f->fail_attempts++ < f->fail_times;
    }
    if (f->fail_mod && (key.x * 31 + key.y) % f->fail_mod == 1) fail = true;
    while (f->gate_closed) pthread_cond_wait(&f->cond, &f->lock);
    pthread_mutex_unlock(&f->lock);
    if (f->sleep_ms > 0) usleep((useconds_t)(f->sleep_ms * 1000));
    st_result r = ST_OK;
    if (fail) {
        r = st_error_set(err, ST_ERR_IO, "fake: tile (%u, %u, %u) is on a broken disk", key.level, key.x, key.y);
    } else if ((int)key.x != f->null_x) {
        r = st_tile_create(ST_TILE_DEM, ST_TILE_U16, TILE_SIDE, out, err);
        if (r == ST_OK) {
            (*out)->key = key;
            if ((int)key.x == f->wrong_key_x) (*out)->key.x++;
            ((uint16_t *)(*out)->data)[0] = (uint16_t)(key.x * 7 + key.y);
        }
    }
    pthread_mutex_lock(&f->lock);
    f->active--;
    pthread_mutex_unlock(&f->lock);
    return r;
}

static int fake_active(fake_source *f) {
    pthread_mutex_lock(&f->lock);
    int a = f->active;
    pthread_mutex_unlock(&f->lock);
    return a;
}

/* Waits until n loads have run and none is inside the callback, then a little for the jobs to report. */
static void fake_wait_loads(fake_source *f, int n) {
    double t0 = st_time_ms();
    for (;;) {
        pthread_mutex_lock(&f->lock);
        bool done = f->loads >= n && !f->active;
        pthread_mutex_unlock(&f->lock);
        if (done) break;
        if (st_time_ms() - t0 > 5000) fail_msg("the loads never ran");
        usleep(200);
    }
    usleep(20000);
}

/* ---- a fake GPU: uploads complete `delay` frames later; the ring takes ring_bytes a frame ------------------- */

#define FAKE_SLOTS 64
#define FAKE_TICKETS 100000

typedef struct fake_gpu {
    uint32_t frame, delay;
    uint64_t ring_bytes, used;  /* this frame */
    uint32_t uploads_frame, refused, max_uploads_frame;
    uint64_t tickets;
    uint32_t done_frame[FAKE_TICKETS];
    st_tile_key slot_key[FAKE_SLOTS];
    bool bad_slot;
    bool no_room; /* room() says no: a budget shared with other managers is spent */
} fake_gpu;

static bool gpu_upload(void *user, uint32_t slot, const st_tile *tile, uint64_t *ticket) {
    fake_gpu *g = user;
    if (slot >= FAKE_SLOTS || g->tickets >= FAKE_TICKETS) {
        g->bad_slot = true;
        return false;
    }
    if (g->no_room || g->used + tile->data_bytes > g->ring_bytes) { /* (a budget refuses here too, as room() said) */
        g->refused++;
        return false;
    }
    g->used += tile->data_bytes;
    g->uploads_frame++;
    if (g->uploads_frame > g->max_uploads_frame) g->max_uploads_frame = g->uploads_frame;
    g->slot_key[slot] = tile->key;
    *ticket = g->tickets;
    g->done_frame[g->tickets++] = g->frame + g->delay;
    return true;
}

static bool gpu_room(void *user) { return !((const fake_gpu *)user)->no_room; }

static bool gpu_complete(void *user, uint64_t ticket) {
    fake_gpu *g = user;
    return ticket < g->tickets && g->frame >= g->done_frame[ticket];
}

/* ---- helpers ---------------------------------------------------------------------------------------------- */

static st_residency *make(fake_source *f, st_residency_desc d) {
    d.load = fake_load;
    d.load_user = f;
    if (!d.levels) d.levels = 4;
    st_residency *r = NULL;
    st_error err = {0};
    if (st_residency_create(&d, &r, &err) != ST_OK) fail_msg("st_residency_create: %s", err.message);
    return r;
}

static void update_checked(st_residency *r) {
    st_residency_update(r);
    st_error err = {0};
    if (!st_residency_check(r, &err)) fail_msg("%s", err.message);
}

static st_tile_key key(uint32_t level, uint32_t x, uint32_t y) { return (st_tile_key){level, x, y}; }

/* Runs frames (the requests in the loop body, then an update and the check) until cond holds; fails after 5 s. */
#define FRAMES_UNTIL(r, cond, ...)                                                        \
    do {                                                                                  \
        double t0_ = st_time_ms();                                                        \
        for (;;) {                                                                        \
            __VA_ARGS__;                                                                  \
            update_checked(r);                                                            \
            if (cond) break;                                                              \
            if (st_time_ms() - t0_ > 5000) fail_msg("timed out waiting until %s", #cond); \
            usleep(300);                                                                  \
        }                                                                                 \
    } while (0)

#define STATE(r, k) st_residency_state(r, k)

/* ---- transitions ---------------------------------------------------------------------------------------- */

static void test_state_names(void **state) {
    (void)state;
    assert_string_equal(st_tile_state_name(ST_TILE_UNLOADED), "unloaded");
    assert_string_equal(st_tile_state_name(ST_TILE_QUEUED), "queued");
    assert_string_equal(st_tile_state_name(ST_TILE_LOADING), "loading");
    assert_string_equal(st_tile_state_name(ST_TILE_RESIDENT), "resident");
    assert_string_equal(st_tile_state_name(ST_TILE_EVICTABLE), "evictable");
    assert_string_equal(st_tile_state_name(ST_TILE_FAILED), "failed");
}

/* Unloaded → Queued → Loading → Resident → Evictable → Resident, and the data is the tile asked for. */
static void test_lifecycle(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    fake_gate(&f, true);
    st_residency *r = make(&f, (st_residency_desc){0});
    st_tile_key a = key(0, 5, 3);
    assert_int_equal(STATE(r, a), ST_TILE_UNLOADED);
    assert_int_equal(st_residency_request(r, a, 1), ST_TILE_QUEUED);
    assert_int_equal(st_residency_get_stats(r).queued, 1);
    update_checked(r);
    assert_int_equal(STATE(r, a), ST_TILE_LOADING);
    assert_null(st_residency_tile(r, a, NULL));
    fake_gate(&f, false);
    FRAMES_UNTIL(r, STATE(r, a) == ST_TILE_RESIDENT, st_residency_request(r, a, 1));
    uint32_t slot = ST_TILE_NO_SLOT;
    const st_tile *t = st_residency_tile(r, a, &slot);
    assert_non_null(t);
    assert_true(st_tile_key_equal(t->key, a));
    assert_int_equal(((const uint16_t *)t->data)[0], 5 * 7 + 3);
    assert_true(slot < 256);
    st_tile_key got;
    assert_true(st_residency_resident_ancestor(r, a, &got));
    assert_true(st_tile_key_equal(got, a));
    /* a frame without a request: Evictable, still drawable from its slot */
    update_checked(r);
    assert_int_equal(STATE(r, a), ST_TILE_EVICTABLE);
    assert_non_null(st_residency_tile(r, a, &slot));
    assert_true(slot < 256);
    /* needed again: Resident at once, without a load */
    assert_int_equal(st_residency_request(r, a, 1), ST_TILE_RESIDENT);
    update_checked(r);
    st_residency_stats s = st_residency_get_stats(r);
    assert_int_equal(s.resident, 1);
    assert_int_equal(s.loads_started, 1);
    assert_int_equal(s.loads_done, 1);
    assert_int_equal(s.bytes_loaded, TILE_BYTES);
    assert_true(s.requests >= 3);
    st_residency_destroy(r);
}

static void test_cancel_queued(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    fake_gate(&f, true);
    st_residency *r = make(&f, (st_residency_desc){.max_loads = 1});
    st_tile_key a = key(0, 1, 1), b = key(0, 2, 2);
    st_residency_request(r, a, 2);
    st_residency_request(r, b, 1);
    update_checked(r);
    assert_int_equal(STATE(r, a), ST_TILE_LOADING); /* the higher priority goes first */
    assert_int_equal(STATE(r, b), ST_TILE_QUEUED);
    st_residency_request(r, a, 2);
    st_residency_request(r, b, 1);
    st_residency_cancel(r, b);
    assert_int_equal(STATE(r, b), ST_TILE_UNLOADED);
    assert_int_equal(st_residency_get_stats(r).unloaded_known, 1);
    fake_gate(&f, false);
    FRAMES_UNTIL(r, STATE(r, a) == ST_TILE_RESIDENT, st_residency_request(r, a, 2));
    for (int i = 0; i < 5; i++) {
        st_residency_request(r, a, 2);
        update_checked(r);
    }
    assert_int_equal(STATE(r, b), ST_TILE_UNLOADED);
    st_residency_stats s = st_residency_get_stats(r);
    assert_int_equal(s.loads_started, 1);
    assert_int_equal(s.cancelled, 1);
    assert_int_equal(s.unloaded_known, 0);
    st_residency_destroy(r);
}

/* A cancelled load that is already running finishes as Evictable (data kept, no slot: nothing to draw). */
static void test_cancel_running_load_finishes_evictable(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    fake_gate(&f, true);
    st_residency *r = make(&f, (st_residency_desc){0});
    st_tile_key a = key(0, 4, 4);
    st_residency_request(r, a, 1);
    update_checked(r);
    assert_int_equal(STATE(r, a), ST_TILE_LOADING);
    st_residency_request(r, a, 1);
    st_residency_cancel(r, a);
    assert_int_equal(STATE(r, a), ST_TILE_LOADING);
    fake_gate(&f, false);
    FRAMES_UNTIL(r, STATE(r, a) != ST_TILE_LOADING, (void)0);
    assert_int_equal(STATE(r, a), ST_TILE_EVICTABLE);
    uint32_t slot = 0;
    assert_non_null(st_residency_tile(r, a, &slot));
    assert_int_equal(slot, ST_TILE_NO_SLOT);
    assert_false(st_residency_resident_ancestor(r, a, NULL));
    /* wanted again: it gets its slot without another load */
    FRAMES_UNTIL(r, STATE(r, a) == ST_TILE_RESIDENT, st_residency_request(r, a, 1));
    assert_int_equal(st_residency_get_stats(r).loads_started, 1);
    st_residency_destroy(r);
}

/* Stopping the requests of a tile whose load runs has the same outcome. */
static void test_load_finishing_unwanted_is_evictable(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    f.sleep_ms = 20;
    st_residency *r = make(&f, (st_residency_desc){0});
    st_tile_key a = key(1, 2, 3);
    st_residency_request(r, a, 1);
    update_checked(r);
    assert_int_equal(STATE(r, a), ST_TILE_LOADING);
    FRAMES_UNTIL(r, STATE(r, a) != ST_TILE_LOADING, (void)0);
    assert_int_equal(STATE(r, a), ST_TILE_EVICTABLE);
    st_residency_stats s = st_residency_get_stats(r);
    assert_int_equal(s.evictable, 1);
    assert_int_equal(s.loads_done, 1);
    st_residency_destroy(r);
}

static void test_queued_dropped_when_no_longer_requested(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    fake_gate(&f, true);
    st_residency *r = make(&f, (st_residency_desc){.max_loads = 1});
    st_tile_key a = key(0, 1, 0), b = key(0, 2, 0);
    st_residency_request(r, a, 1);
    st_residency_request(r, b, 0.5f);
    update_checked(r);
    assert_int_equal(STATE(r, b), ST_TILE_QUEUED);
    st_residency_request(r, a, 1);
    update_checked(r);
    assert_int_equal(STATE(r, b), ST_TILE_UNLOADED);
    assert_int_equal(st_residency_get_stats(r).cancelled, 1);
    assert_int_equal(st_residency_get_stats(r).queued, 0);
    fake_gate(&f, false);
    st_residency_destroy(r);
}

/* Failed with its message; retried while requested, each time after twice the last wait (20, 40, 80 ms);
 * the parent is drawn meanwhile; success clears the message. */
static void test_failure_and_back_off(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    f.fail_key = key(0, 3, 2);
    f.fail_times = 3;
    st_residency *r = make(&f, (st_residency_desc){.retry_ms = 20, .levels = 3});
    st_tile_key root = key(2, 0, 0), a = f.fail_key;
    FRAMES_UNTIL(r, STATE(r, root) == ST_TILE_RESIDENT, st_residency_request(r, root, 9));
    FRAMES_UNTIL(r, STATE(r, a) == ST_TILE_FAILED, st_residency_request(r, root, 9); st_residency_request(r, a, 1));
    assert_non_null(strstr(st_residency_error(r, a), "broken disk"));
    assert_int_equal(st_residency_get_stats(r).failed, 1);
    st_tile_key got;
    assert_true(st_residency_resident_ancestor(r, a, &got));
    assert_true(st_tile_key_equal(got, root));
    FRAMES_UNTIL(r, STATE(r, a) == ST_TILE_RESIDENT, st_residency_request(r, root, 9); st_residency_request(r, a, 1));
    assert_int_equal(f.fail_attempts, 4);
    for (int i = 1; i < 4; i++) {
        double gap = f.fail_at_ms[i] - f.fail_at_ms[i - 1], backoff = 20.0 * (1 << (i - 1));
        if (gap < backoff) fail_msg("retry %d came %.1f ms after the failure, before its back-off of %.0f ms", i, gap, backoff);
    }
    st_residency_stats s = st_residency_get_stats(r);
    assert_int_equal(s.failures, 3);
    assert_int_equal(s.failed, 0);
    assert_string_equal(st_residency_error(r, a), "");
    st_residency_destroy(r);
}

/* Between retries a Failed tile is not loaded again however often it is requested. */
static void test_failed_tile_waits_for_its_back_off(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    f.fail_key = key(0, 1, 1);
    f.fail_times = 100;
    st_residency *r = make(&f, (st_residency_desc){.retry_ms = 400});
    st_tile_key a = f.fail_key;
    FRAMES_UNTIL(r, STATE(r, a) == ST_TILE_FAILED, st_residency_request(r, a, 1));
    double t0 = st_time_ms();
    while (st_time_ms() - t0 < 150) {
        st_residency_request(r, a, 1);
        update_checked(r);
        usleep(1000);
    }
    assert_int_equal(f.fail_attempts, 1);
    assert_int_equal(STATE(r, a), ST_TILE_FAILED);
    st_residency_destroy(r);
}

static void test_bad_loads_fail_with_a_message(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    f.wrong_key_x = 6;
    f.null_x = 7;
    st_residency *r = make(&f, (st_residency_desc){0});
    st_tile_key wrong = key(0, 6, 0), none = key(0, 7, 0);
    FRAMES_UNTIL(r, STATE(r, wrong) == ST_TILE_FAILED && STATE(r, none) == ST_TILE_FAILED,
                 st_residency_request(r, wrong, 1);
                 st_residency_request(r, none, 1));
    assert_non_null(strstr(st_residency_error(r, wrong), "returned tile (0, 7, 0)"));
    assert_non_null(strstr(st_residency_error(r, none), "no data"));
    st_residency_destroy(r);
}

static void test_keys_outside_the_pyramid(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    st_residency *r = make(&f, (st_residency_desc){.levels = 3});
    st_tile_key bad[] = {key(3, 0, 0), key(200, 0, 0), key(0, 1u << 28, 0), key(0, 0, 0xFFFFFFFFu)};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(st_residency_request(r, bad[i], 1), ST_TILE_FAILED);
        assert_int_equal(STATE(r, bad[i]), ST_TILE_FAILED);
        assert_true(strlen(st_residency_error(r, bad[i])) > 0);
        assert_false(st_residency_resident_ancestor(r, bad[i], NULL));
        st_residency_cancel(r, bad[i]);
    }
    update_checked(r);
    st_residency_stats s = st_residency_get_stats(r);
    assert_int_equal(s.queued + s.loading + s.failed + s.unloaded_known, 0);
    assert_int_equal(f.loads, 0);
    st_residency_destroy(r);
}

static void test_bad_descriptions(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    st_tile_uploader half = {.upload = gpu_upload};
    st_residency_desc bad[] = {
        {.levels = 4},
        {.load = fake_load},
        {.load = fake_load, .levels = 25},
        {.load = fake_load, .levels = 4, .cpu_tiles = 8, .gpu_slots = 9},
        {.load = fake_load, .levels = 4, .cpu_tiles = 1u << 30},
        {.load = fake_load, .levels = 4, .slow_load_ms = -1},
        {.load = fake_load, .levels = 4, .slow_load_ms = INFINITY},
        {.load = fake_load, .levels = 4, .retry_ms = NAN},
        {.load = fake_load, .levels = 4, .uploader = &half},
        {.load = fake_load, .levels = 4, .max_loads = 100000},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        st_residency *r = (st_residency *)(uintptr_t)1;
        st_error err = {0};
        assert_int_equal(st_residency_create(&bad[i], &r, &err), ST_ERR_INVALID);
        assert_null(r);
        assert_true(strlen(err.message) > 0);
    }
}

/* ---- eviction ------------------------------------------------------------------------------------------ */

/* The least recently needed Evictable tile goes first. */
static void test_lru_order(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = 4, .max_loads = 1, .levels = 3});
    st_tile_key root = key(2, 0, 0), a = key(0, 0, 0), b = key(0, 3, 0), c = key(0, 0, 3), d = key(0, 3, 3),
                e = key(0, 1, 2);
    FRAMES_UNTIL(r, STATE(r, a) == ST_TILE_RESIDENT && STATE(r, b) == ST_TILE_RESIDENT && STATE(r, c) == ST_TILE_RESIDENT,
                 st_residency_request(r, root, 9);
                 st_residency_request(r, a, 1); st_residency_request(r, b, 1); st_residency_request(r, c, 1));
    /* a leaves first, then b, then c */
    st_residency_request(r, root, 9);
    st_residency_request(r, b, 1);
    st_residency_request(r, c, 1);
    update_checked(r);
    st_residency_request(r, root, 9);
    st_residency_request(r, c, 1);
    update_checked(r);
    st_residency_request(r, root, 9);
    update_checked(r);
    assert_int_equal(st_residency_get_stats(r).evictable, 3);
    FRAMES_UNTIL(r, STATE(r, d) == ST_TILE_RESIDENT, st_residency_request(r, root, 9); st_residency_request(r, d, 1));
    assert_int_equal(STATE(r, a), ST_TILE_UNLOADED);
    assert_int_equal(STATE(r, b), ST_TILE_EVICTABLE);
    assert_int_equal(STATE(r, c), ST_TILE_EVICTABLE);
    FRAMES_UNTIL(r, STATE(r, e) == ST_TILE_RESIDENT, st_residency_request(r, root, 9); st_residency_request(r, e, 1));
    assert_int_equal(STATE(r, b), ST_TILE_UNLOADED);
    assert_int_equal(STATE(r, c), ST_TILE_EVICTABLE);
    /* c needed again is Resident at once and so no longer the next to go */
    assert_int_equal(st_residency_request(r, c, 1), ST_TILE_RESIDENT);
    assert_int_equal(st_residency_get_stats(r).evictions, 2);
    st_residency_destroy(r);
}

/* Pinned levels stay however hard the cache is pressed, even when nobody asks for them. */
static void test_pinned_levels_are_never_evicted(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = 7, .max_loads = 2, .levels = 4, .pinned_levels = 2});
    st_tile_key pinned[5] = {key(3, 0, 0), key(2, 0, 0), key(2, 1, 0), key(2, 0, 1), key(2, 1, 1)};
    FRAMES_UNTIL(r, st_residency_get_stats(r).resident == 5, for (int i = 0; i < 5; i++) st_residency_request(r, pinned[i], 9));
    srand(3);
    for (int frame = 0; frame < 300; frame++) {
        for (int i = 0; i < 6; i++) st_residency_request(r, key(0, (uint32_t)rand() % 8, (uint32_t)rand() % 8), 1);
        update_checked(r);
        for (int i = 0; i < 5; i++)
            if (!st_residency_tile(r, pinned[i], NULL)) fail_msg("pinned tile %d left the cache in frame %d", i, frame);
    }
    assert_true(st_residency_get_stats(r).evictions > 20);
    st_residency_destroy(r);
}

/* An Evictable tile that is an ancestor of a tile needed this frame is passed over, even when it is the least
 * recently needed; when nothing else can go, the load waits. */
static void test_needed_ancestor_is_not_evicted(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = 3, .max_loads = 1, .levels = 3});
    st_tile_key root = key(2, 0, 0), p = key(1, 1, 1), x = key(0, 0, 0), c = key(0, 2, 2), c2 = key(0, 3, 3);
    FRAMES_UNTIL(r, STATE(r, p) == ST_TILE_RESIDENT && STATE(r, x) == ST_TILE_RESIDENT,
                 st_residency_request(r, root, 9); st_residency_request(r, p, 2); st_residency_request(r, x, 1));
    st_residency_request(r, root, 9);
    st_residency_request(r, x, 1);
    update_checked(r); /* p becomes Evictable first */
    st_residency_request(r, root, 9);
    update_checked(r); /* then x */
    FRAMES_UNTIL(r, STATE(r, c) == ST_TILE_RESIDENT, st_residency_request(r, root, 9); st_residency_request(r, c, 1));
    assert_int_equal(STATE(r, p), ST_TILE_EVICTABLE);
    assert_int_equal(STATE(r, x), ST_TILE_UNLOADED);
    /* c and c2 both need p: the cache (root, p, c) has nothing it may give up */
    for (int i = 0; i < 20; i++) {
        st_residency_request(r, root, 9);
        st_residency_request(r, c, 1);
        st_residency_request(r, c2, 1);
        update_checked(r);
        usleep(500);
    }
    assert_int_equal(STATE(r, p), ST_TILE_EVICTABLE);
    assert_int_equal(STATE(r, c2), ST_TILE_QUEUED);
    st_tile_key got;
    assert_true(st_residency_resident_ancestor(r, c2, &got));
    assert_true(st_tile_key_equal(got, p));
    st_residency_destroy(r);
}

/* ---- random streams ------------------------------------------------------------------------------------ */

/* Before an update: the tile is in the CPU cache. After: it still is (Loading again: a re-upload keeps it). */
static bool holds_data(const st_residency *r, st_tile_key k) { return st_residency_tile(r, k, NULL) != NULL; }
static bool still_holds_data(const st_residency *r, st_tile_key k) {
    return holds_data(r, k) || st_residency_state(r, k) == ST_TILE_LOADING;
}

static bool drawable(const st_residency *r, st_tile_key k) {
    uint32_t slot = ST_TILE_NO_SLOT;
    return st_residency_tile(r, k, &slot) && slot != ST_TILE_NO_SLOT;
}

/* Long random request streams (with cancels and tiles that always fail), the invariant check after every
 * update, plus the rules checked here from outside: caches within bounds, no pinned tile and no ancestor of a
 * requested tile dropped by an update. */
static void random_stream(fake_gpu *gpu, uint32_t cpu, uint32_t slots, unsigned seed, int frames) {
    fake_source f;
    fake_init(&f);
    f.fail_mod = 23;
    st_tile_uploader up = {.user = gpu, .upload = gpu_upload, .complete = gpu_complete};
    enum { levels = 6 };
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = cpu, .gpu_slots = slots, .max_loads = 3,
                                                   .levels = levels, .retry_ms = 5, .uploader = gpu ? &up : NULL,
                                                   .upload_budget_bytes = 3 * TILE_BYTES});
    srand(seed);
    st_tile_key wanted[64];
    uint32_t hot_x = 0, hot_y = 0;
    for (int frame = 0; frame < frames; frame++) {
        /* a drifting hot spot (tiles come back) plus uniform noise (they do not) */
        if (rand() % 8 == 0) hot_x = (uint32_t)rand() % 32, hot_y = (uint32_t)rand() % 32;
        int n = rand() % 40;
        for (int i = 0; i < n; i++) {
            uint32_t level = (uint32_t)rand() % levels, side = 32u >> level;
            uint32_t x = rand() % 2 ? hot_x >> level : (uint32_t)rand() % side;
            uint32_t y = rand() % 2 ? hot_y >> level : (uint32_t)rand() % side;
            if (rand() % 2) x = (x + (uint32_t)rand() % 2) % side, y = (y + (uint32_t)rand() % 2) % side;
            wanted[i] = key(level, x, y);
            st_residency_request(r, wanted[i], (float)(rand() % 100) / 10.0f);
        }
        st_tile_key cancelled = key(99, 0, 0);
        if (n && rand() % 4 == 0) {
            cancelled = wanted[rand() % n];
            st_residency_cancel(r, cancelled);
        }
        /* which ancestors of the requested tiles hold data / are drawable before the update */
        bool before[64][levels], drawn_before[64][levels];
        for (int i = 0; i < n; i++) {
            st_tile_key k = wanted[i];
            for (uint32_t l = k.level + 1; l < levels; l++) {
                st_tile_key a = key(l, k.x >> (l - k.level), k.y >> (l - k.level));
                before[i][l] = holds_data(r, a);
                drawn_before[i][l] = drawable(r, a);
            }
        }
        bool root_before = holds_data(r, key(levels - 1, 0, 0));
        if (gpu) gpu->used = 0, gpu->uploads_frame = 0, gpu->frame++;
        update_checked(r);
        for (int i = 0; i < n; i++) {
            st_tile_key k = wanted[i];
            if (st_tile_key_equal(k, cancelled)) continue;
            st_tile_state s = STATE(r, k);
            if (s == ST_TILE_UNLOADED || s == ST_TILE_EVICTABLE)
                fail_msg("frame %d: requested tile (%u, %u, %u) is %s after the update", frame, k.level, k.x, k.y,
                         st_tile_state_name(s));
            for (uint32_t l = k.level + 1; l < levels; l++) {
                st_tile_key a = key(l, k.x >> (l - k.level), k.y >> (l - k.level));
                if (before[i][l] && !still_holds_data(r, a))
                    fail_msg("frame %d: ancestor (%u, %u, %u) of requested (%u, %u, %u) was evicted", frame, a.level, a.x,
                             a.y, k.level, k.x, k.y);
                if (drawn_before[i][l] && !drawable(r, a))
                    fail_msg("frame %d: ancestor (%u, %u, %u) of requested (%u, %u, %u) lost its slot", frame, a.level,
                             a.x, a.y, k.level, k.x, k.y);
            }
        }
        if (root_before && !still_holds_data(r, key(levels - 1, 0, 0))) fail_msg("frame %d: the root was evicted", frame);
        st_residency_stats s = st_residency_get_stats(r);
        if (s.resident + s.evictable + s.loading > cpu) fail_msg("frame %d: %u tiles in a CPU cache of %u", frame,
                                                                  s.resident + s.evictable + s.loading, cpu);
        if (s.resident > slots) fail_msg("frame %d: %u resident tiles for %u slots", frame, s.resident, slots);
        if (gpu && gpu->used > 3 * TILE_BYTES) fail_msg("frame %d: %llu bytes uploaded past the budget", frame,
                                                       (unsigned long long)gpu->used);
        if (frame % 7 == 0) usleep(200); /* let some loads land */
    }
    st_residency_stats s = st_residency_get_stats(r);
    assert_true(s.evictions > 0);
    assert_true(s.failures > 0);
    assert_true(s.cancelled > 0);
    assert_true(s.loads_done > 50);
    if (gpu) {
        assert_false(gpu->bad_slot);
        assert_true(s.uploads > 50);
    }
    st_residency_destroy(r);
}

static void test_random_streams_keep_every_invariant(void **state) {
    (void)state;
    random_stream(NULL, 24, 24, 1, 3000);
    random_stream(NULL, 40, 12, 2, 3000);
}

static void test_random_streams_with_an_uploader(void **state) {
    (void)state;
    fake_gpu *gpu = calloc(1, sizeof *gpu);
    gpu->delay = 2;
    gpu->ring_bytes = 2 * TILE_BYTES;
    random_stream(gpu, 32, 16, 3, 3000);
    memset(gpu, 0, sizeof *gpu);
    gpu->delay = 0;
    gpu->ring_bytes = 10 * TILE_BYTES;
    random_stream(gpu, 16, 16, 4, 2000);
    free(gpu);
}

/* Far more tiles wanted than fit: the caches stay within their bounds and what fits is resident. */
static void test_capacity_bounds(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = 8, .gpu_slots = 5, .levels = 8});
    for (int frame = 0; frame < 400; frame++) {
        for (uint32_t i = 0; i < 100; i++) st_residency_request(r, key(0, i, 0), (float)i);
        update_checked(r);
        st_residency_stats s = st_residency_get_stats(r);
        assert_true(s.resident + s.evictable + s.loading <= 8);
        assert_true(s.resident <= 5);
        if (frame > 100 && s.resident == 5) break;
        usleep(500);
    }
    st_residency_stats s = st_residency_get_stats(r);
    assert_int_equal(s.resident, 5);
    /* the five with the highest priority */
    for (uint32_t i = 95; i < 100; i++) assert_int_equal(STATE(r, key(0, i, 0)), ST_TILE_RESIDENT);
    st_residency_destroy(r);
}

/* One frame asking for more new keys than the table was sized for: the excess is dropped (and counted), the
 * table grows at the update, and the next frame records them all. */
static void test_table_grows_between_frames(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    fake_gate(&f, true);
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = 16, .levels = 12});
    for (uint32_t i = 0; i < 60000; i++) st_residency_request(r, key(0, i % 2048, i / 2048), 1);
    st_residency_stats s = st_residency_get_stats(r);
    assert_true(s.dropped > 0);
    assert_int_equal(s.queued + s.dropped, 60000);
    update_checked(r);
    for (uint32_t i = 0; i < 60000; i++) st_residency_request(r, key(0, i % 2048, i / 2048), 1);
    update_checked(r);
    s = st_residency_get_stats(r);
    assert_true(s.queued + s.loading == 60000);
    uint64_t dropped = s.dropped;
    for (uint32_t i = 0; i < 60000; i++) st_residency_request(r, key(0, i % 2048, i / 2048), 1);
    assert_int_equal(st_residency_get_stats(r).dropped, dropped);
    fake_gate(&f, false);
    st_residency_destroy(r);
}

/* ---- the uploader ------------------------------------------------------------------------------------ */

/* A fake GPU whose uploads complete `delay` frames after they are sent, through a ring of ring_bytes. */
static fake_gpu *fake_gpu_new(uint32_t delay, uint64_t ring_bytes) {
    fake_gpu *g = calloc(1, sizeof *g);
    assert_non_null(g);
    g->delay = delay;
    g->ring_bytes = ring_bytes;
    return g;
}

static void gpu_frame(st_residency *r, fake_gpu *g) {
    g->used = 0;
    g->uploads_frame = 0;
    g->frame++;
    update_checked(r);
}

/* Loading until the GPU says the upload is done; the ring and the byte budget limit uploads per frame; each
 * resident tile's slot holds that tile on the GPU. */
static void test_uploader_path(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    fake_gpu *g = fake_gpu_new(3, 3 * TILE_BYTES);
    st_tile_uploader up = {.user = g, .upload = gpu_upload, .complete = gpu_complete};
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = 16, .gpu_slots = 16, .uploader = &up,
                                                   .upload_budget_bytes = 2 * TILE_BYTES, .max_loads = 8});
    st_tile_key keys[10];
    for (uint32_t i = 0; i < 10; i++) keys[i] = key(0, i, 1);
    /* the first 8 loads finish before the next update collects them all at once */
    fake_gate(&f, true);
    for (int i = 0; i < 10; i++) st_residency_request(r, keys[i], 1);
    gpu_frame(r, g);
    fake_gate(&f, false);
    double t0 = st_time_ms();
    fake_wait_loads(&f, 8);
    uint32_t loaded_frame = 0;
    for (;;) {
        for (int i = 0; i < 10; i++) st_residency_request(r, keys[i], 1);
        gpu_frame(r, g);
        st_residency_stats s = st_residency_get_stats(r);
        if (s.loads_done == 10 && !loaded_frame) loaded_frame = g->frame;
        if (s.resident == 10) break;
        if (st_time_ms() - t0 > 5000) fail_msg("uploads never completed");
        usleep(500);
    }
    /* 10 tiles at 2 a frame (the budget, below the ring's 3) and 3 frames of GPU latency */
    assert_int_equal(g->max_uploads_frame, 2);
    assert_true(g->frame >= loaded_frame + 3);
    for (int i = 0; i < 10; i++) {
        uint32_t slot;
        assert_non_null(st_residency_tile(r, keys[i], &slot));
        assert_true(slot < 16);
        assert_true(st_tile_key_equal(g->slot_key[slot], keys[i]));
    }
    st_residency_stats s = st_residency_get_stats(r);
    assert_int_equal(s.uploads, 10);
    assert_int_equal(s.bytes_uploaded, 10 * TILE_BYTES);
    st_residency_destroy(r);
    free(g);
}

/* A full ring refuses: the tile waits (Loading, with its data) and goes in a later frame. */
static void test_full_ring_retries_next_frame(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    fake_gpu *g = fake_gpu_new(1, TILE_BYTES); /* one tile a frame */
    st_tile_uploader up = {.user = g, .upload = gpu_upload, .complete = gpu_complete};
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = 8, .uploader = &up, .max_loads = 4});
    st_tile_key a = key(0, 1, 0), b = key(0, 2, 0), c = key(0, 3, 0);
    /* all three loaded before the update that collects them: two must wait for room in the ring */
    fake_gate(&f, true);
    st_residency_request(r, a, 3);
    st_residency_request(r, b, 2);
    st_residency_request(r, c, 1);
    gpu_frame(r, g);
    fake_gate(&f, false);
    fake_wait_loads(&f, 3);
    double t0 = st_time_ms();
    while (st_residency_get_stats(r).resident < 3) {
        st_residency_request(r, a, 3);
        st_residency_request(r, b, 2);
        st_residency_request(r, c, 1);
        gpu_frame(r, g);
        assert_true(g->uploads_frame <= 1);
        if (st_time_ms() - t0 > 5000) fail_msg("uploads never completed");
        usleep(500);
    }
    assert_true(g->refused > 0);
    assert_int_equal(st_residency_get_stats(r).uploads, 3);
    st_residency_destroy(r);
    free(g);
}

/* Fewer GPU slots than CPU tiles: an Evictable tile gives its slot up (keeping its data); needed again it is
 * uploaded again (Evictable → Loading → Resident) without another load. */
static void test_slot_reclaimed_and_reuploaded(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    fake_gpu *g = fake_gpu_new(1, 100 * TILE_BYTES);
    st_tile_uploader up = {.user = g, .upload = gpu_upload, .complete = gpu_complete};
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = 6, .gpu_slots = 2, .uploader = &up, .levels = 3});
    st_tile_key a = key(0, 0, 0), b = key(0, 1, 0), c = key(0, 2, 0);
    double t0 = st_time_ms();
#define GPU_UNTIL(cond, ...)                                                 \
    for (t0 = st_time_ms(); !(cond);) {                                      \
        __VA_ARGS__;                                                         \
        gpu_frame(r, g);                                                     \
        if (st_time_ms() - t0 > 5000) fail_msg("timed out waiting: %s", #cond); \
        usleep(300);                                                         \
    }
    GPU_UNTIL(STATE(r, a) == ST_TILE_RESIDENT && STATE(r, b) == ST_TILE_RESIDENT, st_residency_request(r, a, 1);
              st_residency_request(r, b, 1));
    gpu_frame(r, g); /* both Evictable, a and b in slots */
    GPU_UNTIL(STATE(r, c) == ST_TILE_RESIDENT, st_residency_request(r, c, 1));
    uint32_t slot_a, slot_b;
    assert_non_null(st_residency_tile(r, a, &slot_a));
    assert_non_null(st_residency_tile(r, b, &slot_b));
    assert_true((slot_a == ST_TILE_NO_SLOT) != (slot_b == ST_TILE_NO_SLOT)); /* one gave its slot to c */
    st_tile_key lost = slot_a == ST_TILE_NO_SLOT ? a : b;
    uint64_t loads = st_residency_get_stats(r).loads_done, uploads = st_residency_get_stats(r).uploads;
    assert_int_equal(STATE(r, lost), ST_TILE_EVICTABLE);
    assert_int_equal(st_residency_request(r, lost, 1), ST_TILE_EVICTABLE);
    st_residency_request(r, c, 1);
    gpu_frame(r, g);
    assert_int_equal(STATE(r, lost), ST_TILE_LOADING);
    GPU_UNTIL(STATE(r, lost) == ST_TILE_RESIDENT, st_residency_request(r, lost, 1); st_residency_request(r, c, 1));
    assert_int_equal(st_residency_get_stats(r).loads_done, loads);
    assert_int_equal(st_residency_get_stats(r).uploads, uploads + 1);
    uint32_t slot;
    st_residency_tile(r, lost, &slot);
    assert_true(st_tile_key_equal(g->slot_key[slot], lost));
#undef GPU_UNTIL
    st_residency_destroy(r);
    free(g);
}

/* An uploader without room this frame (room() false): the loaded tile waits Loading, and no tile loses its slot for
 * it (a refused upload would have taken one); with room again it goes, in the slot of an Evictable one. */
static void test_no_room_evicts_nothing(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    fake_gpu *g = fake_gpu_new(1, 100 * TILE_BYTES);
    st_tile_uploader up = {.user = g, .upload = gpu_upload, .complete = gpu_complete, .room = gpu_room};
    st_residency *r = make(&f, (st_residency_desc){.cpu_tiles = 6, .gpu_slots = 2, .uploader = &up, .levels = 3});
    st_tile_key a = key(0, 0, 0), b = key(0, 1, 0), c = key(0, 2, 0);
    double t0 = st_time_ms();
    while (STATE(r, a) != ST_TILE_RESIDENT || STATE(r, b) != ST_TILE_RESIDENT) {
        st_residency_request(r, a, 1);
        st_residency_request(r, b, 1);
        gpu_frame(r, g);
        if (st_time_ms() - t0 > 5000) fail_msg("a and b never became resident");
        usleep(300);
    }
    g->no_room = true;
    st_residency_request(r, c, 1);
    gpu_frame(r, g); /* a and b Evictable in their slots; c's load starts */
    fake_wait_loads(&f, 1);
    uint64_t uploads = st_residency_get_stats(r).uploads, evictions = st_residency_get_stats(r).evictions;
    for (int i = 0; i < 20; i++) { /* c's load is in: it is offered every frame and refused */
        st_residency_request(r, c, 1);
        gpu_frame(r, g);
        usleep(300);
    }
    assert_int_equal(STATE(r, c), ST_TILE_LOADING);
    assert_int_equal(st_residency_get_stats(r).uploads, uploads);
    assert_int_equal(st_residency_get_stats(r).evictions, evictions);
    uint32_t slot;
    assert_non_null(st_residency_tile(r, a, &slot));
    assert_true(slot != ST_TILE_NO_SLOT);
    assert_non_null(st_residency_tile(r, b, &slot));
    assert_true(slot != ST_TILE_NO_SLOT);
    g->no_room = false;
    for (t0 = st_time_ms(); STATE(r, c) != ST_TILE_RESIDENT;) {
        st_residency_request(r, c, 1);
        gpu_frame(r, g);
        if (st_time_ms() - t0 > 5000) fail_msg("c never went up once there was room");
        usleep(300);
    }
    assert_int_equal(st_residency_get_stats(r).uploads, uploads + 1);
    assert_int_equal(st_residency_get_stats(r).evictions, evictions + 1);
    st_residency_destroy(r);
    free(g);
}

/* ---- slow loads, time to full detail, destroy ------------------------------------------------------------ */

/* Every load sleeps 100 ms on the job system; request + update never wait for one. The bound (no frame as
 * long as half a load) is behavioural: waiting for any load even once would take 100 ms. */
static void test_slow_load_never_blocks_the_caller(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    st_residency *r = make(&f, (st_residency_desc){.slow_load_ms = 100, .cpu_tiles = 32});
    assert_true(st_residency_ready_ms(r) == 0); /* nothing made Resident yet */
    double worst = 0, t0 = st_time_ms();
    double frame_ms[4096];
    int frames = 0;
    for (;;) {
        double a = st_time_ms();
        for (uint32_t i = 0; i < 6; i++) st_residency_request(r, key(0, i, 0), 1);
        st_residency_update(r);
        double ms = st_time_ms() - a;
        if (frames < 4096) frame_ms[frames++] = ms;
        if (ms > worst) worst = ms;
        st_error err = {0};
        if (!st_residency_check(r, &err)) fail_msg("%s", err.message);
        if (st_residency_get_stats(r).resident == 6) break;
        if (st_time_ms() - t0 > 10000) fail_msg("slow loads never finished");
        usleep(1000);
    }
    st_stats s = st_stats_of(frame_ms, (size_t)frames);
    if (worst >= 50) fail_msg("a frame took %.1f ms while loads sleep 100 ms", worst);
    if (s.median >= 5) fail_msg("the median frame took %.2f ms", s.median);
    assert_true(st_time_ms() - t0 >= 100); /* the loads really slept */
    assert_true(st_residency_get_stats(r).load_ms_median >= 100);
    /* from queued to Resident takes the load at least: the time a caller must ask ahead of need */
    assert_true(st_residency_ready_ms(r) >= 100);
    assert_true(st_residency_get_stats(r).ready_ms_p90 == st_residency_ready_ms(r));
    st_residency_destroy(r);
}

static void test_time_to_full_detail(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    f.sleep_ms = 10;
    st_residency *r = make(&f, (st_residency_desc){0});
    st_residency_request(r, key(0, 0, 0), 1);
    st_residency_request(r, key(0, 1, 0), 1);
    update_checked(r);
    assert_true(st_residency_get_stats(r).full_detail_ms < 0);
    FRAMES_UNTIL(r, st_residency_get_stats(r).full_detail_ms >= 0, st_residency_request(r, key(0, 0, 0), 1);
                 st_residency_request(r, key(0, 1, 0), 1));
    assert_true(st_residency_get_stats(r).full_detail_ms >= 10);
    /* the same set again: nothing changes */
    double before = st_residency_get_stats(r).full_detail_ms;
    st_residency_request(r, key(0, 1, 0), 1);
    st_residency_request(r, key(0, 0, 0), 1);
    update_checked(r);
    assert_true(st_residency_get_stats(r).full_detail_ms == before);
    /* a new tile in the set: waiting again */
    st_residency_request(r, key(0, 0, 0), 1);
    st_residency_request(r, key(0, 2, 0), 1);
    update_checked(r);
    assert_true(st_residency_get_stats(r).full_detail_ms < 0);
    st_residency_destroy(r);
}

/* destroy() with loads sleeping and more queued in the job system: it returns without waiting out the
 * injected sleeps, and no load runs after it. */
static void test_destroy_with_loads_in_flight(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    st_residency *r = make(&f, (st_residency_desc){.slow_load_ms = 2000, .max_loads = 16, .cpu_tiles = 64});
    for (uint32_t i = 0; i < 40; i++) st_residency_request(r, key(0, i, 0), 1);
    st_residency_update(r);
    assert_int_equal(st_residency_get_stats(r).loading, 16);
    usleep(20000);
    double t0 = st_time_ms();
    st_residency_destroy(r);
    double ms = st_time_ms() - t0;
    if (ms > 1000) fail_msg("destroy waited %.0f ms for sleeping loads", ms);
    assert_int_equal(fake_active(&f), 0);
    assert_int_equal(f.loads, 0); /* every load was still in its sleep */
}

/* destroy() waits for loads already inside the load function (they cannot be stopped) and frees their tiles. */
static void test_destroy_waits_for_running_loads(void **state) {
    (void)state;
    fake_source f;
    fake_init(&f);
    f.sleep_ms = 60;
    st_residency *r = make(&f, (st_residency_desc){.max_loads = 4});
    for (uint32_t i = 0; i < 8; i++) st_residency_request(r, key(0, i, 0), 1);
    st_residency_update(r);
    double t0 = st_time_ms();
    while (fake_active(&f) == 0 && st_time_ms() - t0 < 2000) usleep(500);
    assert_true(fake_active(&f) > 0);
    st_residency_destroy(r);
    assert_int_equal(fake_active(&f), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_names),
        cmocka_unit_test(test_lifecycle),
        cmocka_unit_test(test_cancel_queued),
        cmocka_unit_test(test_cancel_running_load_finishes_evictable),
        cmocka_unit_test(test_load_finishing_unwanted_is_evictable),
        cmocka_unit_test(test_queued_dropped_when_no_longer_requested),
        cmocka_unit_test(test_failure_and_back_off),
        cmocka_unit_test(test_failed_tile_waits_for_its_back_off),
        cmocka_unit_test(test_bad_loads_fail_with_a_message),
        cmocka_unit_test(test_keys_outside_the_pyramid),
        cmocka_unit_test(test_bad_descriptions),
        cmocka_unit_test(test_lru_order),
        cmocka_unit_test(test_pinned_levels_are_never_evicted),
        cmocka_unit_test(test_needed_ancestor_is_not_evicted),
        cmocka_unit_test(test_random_streams_keep_every_invariant),
        cmocka_unit_test(test_random_streams_with_an_uploader),
        cmocka_unit_test(test_capacity_bounds),
        cmocka_unit_test(test_table_grows_between_frames),
        cmocka_unit_test(test_uploader_path),
        cmocka_unit_test(test_full_ring_retries_next_frame),
        cmocka_unit_test(test_slot_reclaimed_and_reuploaded),
        cmocka_unit_test(test_no_room_evicts_nothing),
        cmocka_unit_test(test_slow_load_never_blocks_the_caller),
        cmocka_unit_test(test_time_to_full_detail),
        cmocka_unit_test(test_destroy_with_loads_in_flight),
        cmocka_unit_test(test_destroy_waits_for_running_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
