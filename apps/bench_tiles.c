/* strata bench tiles: the tile streaming benchmarks, one part per function, chosen by options (all parts when
 * none is named). --storm: the request storm (random requests over a large key space, a small cache, the
 * invariant check every frame) against the target of ≤ 1 µs per request (median); --slow-load MS: the cost of
 * request() and update() with and without a sleep of MS in every load, which must stay flat; --build, --load and
 * --generated: the store parts (bench_tiles_store.c). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_tiles.h"

#define STORM_TARGET_US 1.0

typedef struct tiles_bench {
    bool storm, slow_load, json, build, load, generated;
    uint32_t frames, requests, cache, levels, slow_frames;
    float slow_ms;
    uint64_t seed;
} tiles_bench;

/* A cheap tile source: a zeroed 17² tile with the key asked for. */
static st_result cheap_load(void *user, st_tile_key key, st_tile **out, st_error *err) {
    (void)user;
    st_result r = st_tile_create(ST_TILE_DEM, ST_TILE_U16, 17, out, err);
    if (r == ST_OK) (*out)->key = key;
    return r;
}

static uint64_t xorshift(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void add_counters(cJSON *o, const st_residency_stats *s) {
    cJSON_AddNumberToObject(o, "requests", (double)s->requests);
    cJSON_AddNumberToObject(o, "dropped", (double)s->dropped);
    cJSON_AddNumberToObject(o, "loads_started", (double)s->loads_started);
    cJSON_AddNumberToObject(o, "loads_done", (double)s->loads_done);
    cJSON_AddNumberToObject(o, "cancelled", (double)s->cancelled);
    cJSON_AddNumberToObject(o, "failures", (double)s->failures);
    cJSON_AddNumberToObject(o, "evictions", (double)s->evictions);
    cJSON_AddNumberToObject(o, "bytes_loaded", (double)s->bytes_loaded);
    cJSON_AddNumberToObject(o, "resident", s->resident);
    cJSON_AddNumberToObject(o, "evictable", s->evictable);
    cJSON_AddNumberToObject(o, "queued", s->queued);
    cJSON_AddNumberToObject(o, "loading", s->loading);
    cJSON_AddNumberToObject(o, "failed", s->failed);
    cJSON_AddNumberToObject(o, "load_ms_median", s->load_ms_median);
}

static void print_counters(const st_residency_stats *s) {
    printf("  counters: %llu requests (%llu dropped), %llu loads started, %llu done (%.1f MiB, median %.4f ms), "
           "%llu queued dropped, %llu evictions, %llu failures\n",
           (unsigned long long)s->requests, (unsigned long long)s->dropped, (unsigned long long)s->loads_started,
           (unsigned long long)s->loads_done, (double)s->bytes_loaded / 1048576.0, s->load_ms_median,
           (unsigned long long)s->cancelled, (unsigned long long)s->evictions, (unsigned long long)s->failures);
    printf("  now: %u resident, %u evictable, %u loading, %u queued, %u failed\n", s->resident, s->evictable,
           s->loading, s->queued, s->failed);
}

static cJSON *stats_json(const double *v, size_t n) {
    st_stats s = st_stats_of(v, n);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "median", s.median);
    cJSON_AddNumberToObject(o, "mean", s.mean);
    cJSON_AddNumberToObject(o, "min", s.min);
    cJSON_AddNumberToObject(o, "max", s.max);
    return o;
}

/* The 99th percentile (v is sorted in place). */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double p99(double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    return n ? v[(n - 1) * 99 / 100] : 0;
}

/* ---- the request storm ------------------------------------------------------------------------------------ */

static int part_storm(const tiles_bench *b, cJSON *out) {
    st_residency_desc d = {.load = cheap_load, .levels = b->levels, .cpu_tiles = b->cache};
    st_residency *r = NULL;
    st_error err = {0};
    if (st_residency_create(&d, &r, &err)) return cli_fail("bench tiles", &err);
    double *req_us = malloc(b->frames * sizeof *req_us), *upd_ms = malloc(b->frames * sizeof *upd_ms),
           *chk_ms = malloc(b->frames * sizeof *chk_ms);
    st_tile_key *keys = malloc(b->requests * sizeof *keys);
    float *prio = malloc(b->requests * sizeof *prio);
    if (!req_us || !upd_ms || !chk_ms || !keys || !prio) {
        free(req_us), free(upd_ms), free(chk_ms), free(keys), free(prio);
        st_residency_destroy(r);
        fprintf(stderr, "strata bench tiles: out of memory\n");
        return CLI_EXIT_RUNTIME;
    }
    uint64_t rng = b->seed * 0x9e3779b97f4a7c15ull + 1;
    double keyspace = 0;
    for (uint32_t l = 0; l < b->levels; l++) keyspace += (double)(1ull << (b->levels - 1 - l)) * (double)(1ull << (b->levels - 1 - l));
    int status = CLI_EXIT_OK;
    double t_all = st_time_ms();
    for (uint32_t f = 0; f < b->frames; f++) {
        /* Keys are drawn before the clock starts: only the requests are timed. */
        for (uint32_t i = 0; i < b->requests; i++) {
            /* Uniform over the key space: a level has 4× the keys of the next coarser one. */
            uint32_t level = 0;
            while (level + 1 < b->levels && xorshift(&rng) % 4 == 0) level++;
            uint64_t v = xorshift(&rng);
            uint32_t side = 1u << (b->levels - 1 - level);
            keys[i] = (st_tile_key){level, (uint32_t)((v >> 8) % side), (uint32_t)((v >> 36) % side)};
            prio[i] = (float)((v >> 20) & 1023) / 64.0f;
        }
        double t0 = st_time_ms();
        for (uint32_t i = 0; i < b->requests; i++) st_residency_request(r, keys[i], prio[i]);
        double t1 = st_time_ms();
        st_residency_update(r);
        double t2 = st_time_ms();
        bool ok = st_residency_check(r, &err);
        double t3 = st_time_ms();
        req_us[f] = (t1 - t0) * 1000.0 / b->requests;
        upd_ms[f] = t2 - t1;
        chk_ms[f] = t3 - t2;
        if (!ok) {
            fprintf(stderr, "strata bench tiles: frame %u: %s\n", f, err.message);
            status = CLI_EXIT_RUNTIME;
            break;
        }
    }
    double wall = st_time_ms() - t_all;
    st_residency_stats s = st_residency_get_stats(r);
    uint32_t n = (uint32_t)s.frame;
    st_stats rq = st_stats_of(req_us, n), up = st_stats_of(upd_ms, n), ck = st_stats_of(chk_ms, n);
    double rq99 = p99(req_us, n), up99 = p99(upd_ms, n);
    bool met = status == CLI_EXIT_OK && rq.median <= STORM_TARGET_US;
    if (out) {
        cJSON *o = cJSON_AddObjectToObject(out, "storm");
        cJSON_AddNumberToObject(o, "frames", n);
        cJSON_AddNumberToObject(o, "requests_per_frame", b->requests);
        cJSON_AddNumberToObject(o, "cache_tiles", b->cache);
        cJSON_AddNumberToObject(o, "levels", b->levels);
        cJSON_AddNumberToObject(o, "key_space", keyspace);
        cJSON_AddNumberToObject(o, "threads", st_job_threads());
        cJSON_AddItemToObject(o, "request_us", stats_json(req_us, n));
        cJSON_AddNumberToObject(cJSON_GetObjectItem(o, "request_us"), "p99", rq99);
        cJSON_AddItemToObject(o, "update_ms", stats_json(upd_ms, n));
        cJSON_AddNumberToObject(cJSON_GetObjectItem(o, "update_ms"), "p99", up99);
        cJSON_AddItemToObject(o, "check_ms", stats_json(chk_ms, n));
        cJSON_AddNumberToObject(o, "target_request_us", STORM_TARGET_US);
        cJSON_AddBoolToObject(o, "invariants_held", status == CLI_EXIT_OK);
        cJSON_AddBoolToObject(o, "target_met", met);
        add_counters(o, &s);
    } else {
        printf("storm: %u frames x %u random requests over %.3g keys (%u levels), cache %u tiles, %u threads, "
               "%.1f s\n", n, b->requests, keyspace, b->levels, b->cache, st_job_threads(), wall / 1000.0);
        printf("  request: median %.3f us per request (p99 of frames %.3f, max %.3f; batch timing of %u per frame) "
               "-- target <= %.1f us: %s\n", rq.median, rq99, rq.max, b->requests, STORM_TARGET_US,
               met ? "ok" : "MISSED");
        printf("  update: median %.3f ms (p99 %.3f, max %.3f); check: median %.3f ms; invariants %s every frame\n",
               up.median, up99, up.max, ck.median, status == CLI_EXIT_OK ? "held" : "BROKEN");
        print_counters(&s);
    }
    free(req_us), free(upd_ms), free(chk_ms), free(keys), free(prio);
    st_residency_destroy(r);
    return status;
}

/* ---- slow loads ------------------------------------------------------------------------------------------- */

typedef struct slow_run {
    double request_us, update_median, update_p99, update_max, full_detail_median;
    uint32_t windows, windows_done, frames;
    st_residency_stats stats;
} slow_run;

static void sleep_until(double t_ms) {
    double now = st_time_ms();
    if (t_ms <= now) return;
    double d = (t_ms - now) / 1000.0;
    struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
    nanosleep(&ts, NULL);
}

/* A camera stepping along a row of tiles: every `step` frames its window (3×3 level-0 tiles and the path up to
 * the root) moves one tile, three new tiles to load. Frames are paced at 4 ms. */
static int slow_load_run(const tiles_bench *b, double sleep_ms, slow_run *out) {
    const uint32_t levels = 10, step = 125;
    const double period = 4.0;
    st_residency_desc d = {.load = cheap_load, .levels = levels, .cpu_tiles = 256, .slow_load_ms = sleep_ms};
    st_residency *r = NULL;
    st_error err = {0};
    if (st_residency_create(&d, &r, &err)) return cli_fail("bench tiles", &err);
    uint32_t frames = b->slow_frames;
    double *upd = malloc(frames * sizeof *upd), *req = malloc(frames * sizeof *req), *full = malloc(frames * sizeof *full);
    if (!upd || !req || !full) {
        free(upd), free(req), free(full);
        st_residency_destroy(r);
        return CLI_EXIT_RUNTIME;
    }
    uint32_t windows = 0, done = 0;
    bool window_done = false;
    double next = st_time_ms();
    int status = CLI_EXIT_OK;
    for (uint32_t f = 0; f < frames; f++) {
        uint32_t cx = 1 + f / step, cy = 100;
        if (f % step == 0) windows++, window_done = false;
        double t0 = st_time_ms();
        uint32_t n = 0;
        for (uint32_t dy = 0; dy < 3; dy++)
            for (uint32_t dx = 0; dx < 3; dx++) {
                st_tile_key k = {0, cx + dx - 1, cy + dy - 1};
                st_residency_request(r, k, 2);
                n++;
                for (uint32_t l = 1; l < levels; l++, n++)
                    st_residency_request(r, (st_tile_key){l, k.x >> l, k.y >> l}, 2.0f + (float)l);
            }
        double t1 = st_time_ms();
        st_residency_update(r);
        double t2 = st_time_ms();
        req[f] = (t1 - t0) * 1000.0 / n;
        upd[f] = t2 - t1;
        if (!st_residency_check(r, &err)) {
            fprintf(stderr, "strata bench tiles: slow-load frame %u: %s\n", f, err.message);
            status = CLI_EXIT_RUNTIME;
            frames = f + 1;
            break;
        }
        st_residency_stats s = st_residency_get_stats(r);
        if (!window_done && s.full_detail_ms >= 0) full[done++] = s.full_detail_ms, window_done = true;
        next += period;
        sleep_until(next);
    }
    out->frames = frames;
    out->request_us = st_stats_of(req, frames).median;
    st_stats u = st_stats_of(upd, frames);
    out->update_median = u.median;
    out->update_max = u.max;
    out->update_p99 = p99(upd, frames);
    out->windows = windows;
    out->windows_done = done;
    out->full_detail_median = done ? st_stats_of(full, done).median : -1;
    out->stats = st_residency_get_stats(r);
    free(upd), free(req), free(full);
    st_residency_destroy(r);
    return status;
}

static cJSON *slow_run_json(const slow_run *s, double sleep_ms) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "load_sleep_ms", sleep_ms);
    cJSON_AddNumberToObject(o, "frames", s->frames);
    cJSON_AddNumberToObject(o, "request_us_median", s->request_us);
    cJSON_AddNumberToObject(o, "update_ms_median", s->update_median);
    cJSON_AddNumberToObject(o, "update_ms_p99", s->update_p99);
    cJSON_AddNumberToObject(o, "update_ms_max", s->update_max);
    cJSON_AddNumberToObject(o, "windows", s->windows);
    cJSON_AddNumberToObject(o, "windows_at_full_detail", s->windows_done);
    cJSON_AddNumberToObject(o, "full_detail_ms_median", s->full_detail_median);
    add_counters(o, &s->stats);
    return o;
}

static void slow_run_print(const char *label, const slow_run *s) {
    printf("  %-15s request median %.3f us; update median %.3f ms, p99 %.3f, max %.3f; full detail in %u of %u "
           "windows, median %.1f ms; %llu loads, median %.3f ms\n",
           label, s->request_us, s->update_median, s->update_p99, s->update_max, s->windows_done, s->windows,
           s->full_detail_median, (unsigned long long)s->stats.loads_done, s->stats.load_ms_median);
}

static int part_slow_load(const tiles_bench *b, cJSON *out) {
    slow_run base = {0}, slow = {0};
    int status = slow_load_run(b, 0, &base);
    if (status == CLI_EXIT_OK) status = slow_load_run(b, b->slow_ms, &slow);
    if (status != CLI_EXIT_OK) return status;
    /* Waiting for a load even once would make that frame as long as the sleep. */
    bool flat = slow.update_max < 0.5 * b->slow_ms;
    if (out) {
        cJSON *o = cJSON_AddObjectToObject(out, "slow_load");
        cJSON_AddItemToObject(o, "baseline", slow_run_json(&base, 0));
        cJSON_AddItemToObject(o, "slow", slow_run_json(&slow, b->slow_ms));
        cJSON_AddBoolToObject(o, "never_waited", flat);
    } else {
        printf("slow-load: %u frames paced at 4 ms, a 3x3 window (+ path to the root) moving one tile every 125 "
               "frames, %u threads\n", base.frames, st_job_threads());
        slow_run_print("no sleep:", &base);
        char label[32];
        snprintf(label, sizeof label, "sleep %g ms:", (double)b->slow_ms);
        slow_run_print(label, &slow);
        printf("  verdict: the longest update (%.3f ms) is %s half a load's sleep (%g ms): %s\n", slow.update_max,
               flat ? "under" : "NOT under", (double)b->slow_ms, flat ? "nothing waited on a load" : "A FRAME WAITED");
    }
    return CLI_EXIT_OK;
}

/* ---- options -------------------------------------------------------------------------------------------- */

/* --amplify: 1 or a power of two up to 64. */
static bool parse_amplify(const char *value, void *target) {
    uint32_t v;
    if (!cli_parse_uint(value, 1, 64, &v) || !st_is_pow2(v)) return false;
    *(uint32_t *)target = v;
    return true;
}

int bench_tiles(int argc, char **argv) {
    const char *cmd = "bench tiles";
    tiles_bench b = {.frames = 1000, .requests = 10000, .cache = 64, .levels = 16, .slow_frames = 750,
                     .slow_ms = 50, .seed = 1};
    tiles_store_bench sb = {.dem = "data/dem/ps_height_1k.png", .units = 0.1, .spacing = 160, .amplify = 16,
                            .load_tiles = 500, .gen_tiles = 64};
    const char *load_store = NULL;
    uint32_t seed = 1;
    bool help = false;
    const cli_opt opts[] = {
        {.name = "build", .kind = CLI_OPT_FLAG, .target = &b.build,
         .help = "a store of DEM (default data/dem/ps_height_1k.png, --units 0.1 --spacing 160)\n"
                 "amplified --amplify N (16: 16385x16385) on every thread: wall and CPU time\n"
                 "against the target of <= 20 s, samples/s, bytes against uncompressed"},
        {.name = "load", .kind = CLI_OPT_FLAG, .target = &b.load,
         .help = "--load-tiles N (500) random level-0 tiles of that store (or --store DIR) read,\n"
                 "checked and decoded on one thread, against <= 0.5 ms; zstd against raw"},
        {.name = "generated", .kind = CLI_OPT_FLAG, .target = &b.generated,
         .help = "the 65536x65536 procedural worlds (DEM: bytes on disk, ms per tile made on\n"
                 "demand; multi-layer, gen:multi:1:65536x65536: the first tile, then\n"
                 "--gen-tiles N (64) random 256² tiles on one thread, 4N on every thread)"},
        {.name = "storm", .kind = CLI_OPT_FLAG, .target = &b.storm,
         .help = "FRAMES frames of REQUESTS random requests, uniform over the keys of a\n"
                 "pyramid of LEVELS levels, a cache of CACHE tiles (loads from a cheap\n"
                 "callback), the invariant check every frame; the median request cost\n"
                 "against the target of <= 1 us"},
        {.name = "slow-load", .kind = CLI_OPT_FLOAT, .target = &b.slow_ms, .given = &b.slow_load, .min = 1,
         .max = 10000, .arg = "MS", .bad = "bad --slow-load '%s' (1..10000 ms)",
         .help = "request() and update() cost without and with MS ms slept in every load\n"
                 "(default 50), SLOW_FRAMES frames paced at 4 ms"},
        {.name = "keep", .kind = CLI_OPT_STRING, .target = &sb.keep, .arg = "DIR",
         .help = "build into DIR and keep it (default: a temporary folder, removed)"},
        {.name = "store", .kind = CLI_OPT_STRING, .target = &load_store, .arg = "DIR",
         .help = "the store --load reads (default: the one --build made)"},
        {.name = "dem", .kind = CLI_OPT_STRING, .target = &sb.dem, .arg = "FILE", .help = "the DEM --build tiles"},
        {.name = "units", .kind = CLI_OPT_DOUBLE, .target = &sb.units, .min = 1e-9, .max = 1e6, .arg = "M",
         .bad = "bad --units '%s'", .help = "metres per DEM height unit (default 0.1)"},
        {.name = "spacing", .kind = CLI_OPT_DOUBLE, .target = &sb.spacing, .min = 1e-6, .max = 1e6, .arg = "M",
         .bad = "bad --spacing '%s'", .help = "metres between DEM samples (default 160)"},
        {.name = "amplify", .kind = CLI_OPT_PARSE, .target = &sb.amplify, .parse = parse_amplify, .arg = "N",
         .bad = "bad --amplify '%s' (1 or a power of two up to 64)", .help = "DEM amplification (default 16)"},
        {.name = "load-tiles", .kind = CLI_OPT_UINT, .target = &sb.load_tiles, .min = 1, .max = 1000000, .arg = "N",
         .bad = "bad --load-tiles '%s' (1..1000000)", .help = "tiles --load reads (default 500)"},
        {.name = "gen-tiles", .kind = CLI_OPT_UINT, .target = &sb.gen_tiles, .min = 1, .max = 100000, .arg = "N",
         .bad = "bad --gen-tiles '%s' (1..100000)", .help = "generated tiles timed (default 64)"},
        CLI_OPT_FRAMES(&b.frames, 1000000, "storm frames (default 1000)"),
        {.name = "requests", .kind = CLI_OPT_UINT, .target = &b.requests, .min = 1, .max = 1000000, .arg = "N",
         .bad = "bad --requests '%s' (1..1000000)", .help = "requests per storm frame (default 10000)"},
        {.name = "cache", .kind = CLI_OPT_UINT, .target = &b.cache, .min = 1, .max = 1u << 20, .arg = "N",
         .bad = "bad --cache '%s' (1..1048576)", .help = "storm cache tiles (default 64)"},
        {.name = "levels", .kind = CLI_OPT_UINT, .target = &b.levels, .min = 1, .max = ST_STORE_MAX_LEVELS,
         .arg = "N", .bad = "bad --levels '%s' (1.." CLI_XSTR(ST_STORE_MAX_LEVELS) ")",
         .help = "storm pyramid levels (default 16)"},
        {.name = "slow-frames", .kind = CLI_OPT_UINT, .target = &b.slow_frames, .min = 1, .max = 100000,
         .arg = "N", .bad = "bad --slow-frames '%s' (1..100000)", .help = "slow-load frames (default 750)"},
        {.name = "seed", .kind = CLI_OPT_UINT, .target = &seed, .min = 0, .max = UINT32_MAX, .arg = "N",
         .bad = "bad --seed '%s'", .help = "random seed (default 1)"},
        CLI_OPT_JSON(&b.json),
    };
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (parsed || help) {
        if (help) {
            printf("usage: strata bench tiles [--storm] [--slow-load MS] [--build] [--load] [--generated] [--json]\n"
                   "                          [OPTIONS]\n\n"
                   "Runs the parts named (all when none is):\n");
            cli_options_usage(opts, CLI_OPTS_COUNT(opts));
        }
        return parsed;
    }
    b.seed = seed;
    if (!b.storm && !b.slow_load && !b.build && !b.load && !b.generated)
        b.storm = b.slow_load = b.build = b.load = b.generated = true;
    sb.json = b.json;
    cJSON *json = b.json ? cJSON_CreateObject() : NULL;
    int status = CLI_EXIT_OK;
    if (b.storm) status = part_storm(&b, json);
    if (status == CLI_EXIT_OK && b.slow_load) status = part_slow_load(&b, json);
    char built[1024] = "";
    if (status == CLI_EXIT_OK && b.build)
        status = bench_tiles_build(&sb, json, b.load && !load_store ? built : NULL, sizeof built);
    if (status == CLI_EXIT_OK && b.load) {
        if (!load_store && !built[0]) { /* --load alone: a small store of its own (amplified 4x) */
            tiles_store_bench small = sb;
            small.amplify = sb.amplify > 4 ? 4 : sb.amplify;
            small.keep = NULL;
            status = bench_tiles_build(&small, NULL, built, sizeof built);
        }
        if (status == CLI_EXIT_OK) status = bench_tiles_load(&sb, load_store ? load_store : built, json);
        if (built[0] && !sb.keep) {
            char rm[1200];
            snprintf(rm, sizeof rm, "rm -rf '%s'", built);
            if (system(rm) != 0) fprintf(stderr, "strata bench tiles: could not remove %s\n", built);
        }
    }
    if (status == CLI_EXIT_OK && b.generated) status = bench_tiles_generated(&sb, json);
    if (json) {
        if (status == CLI_EXIT_OK) {
            char *text = cJSON_Print(json);
            if (text) printf("%s\n", text);
            free(text);
        }
        cJSON_Delete(json);
    }
    return status;
}
