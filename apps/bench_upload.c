/* strata bench upload: the GPU tile pool's upload throughput — batches of 257² u16 and f32 tiles through the
 * pinned staging ring into the slot array, by GPU timestamps of the copy batches and end to end (memcpy into
 * the ring + submit + wait), for each kind of staging memory, a batch-size sweep and plain bus copies for
 * context — against the target of ≥ 20 GiB/s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "strata/tile_pool.h"

#define TILE 257u
#define TARGET_GIBS 20.0
#define BUS_GIBS 51.0 /* pinned host→device, measured on the H200 */
#define MAX_SWEEP 16

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata bench upload [--tiles N] [--repeat R] [--sweep LIST] [--memory KIND] [--device N]\n"
           "                           [--validate] [--json]\n\n"
           "Uploads batches of N tiles of 257x257 samples (u16 and f32) through the tile pool's pinned staging\n"
           "ring into its slot array and reports GiB/s: GPU copy (timestamps around each batch's copies), fill\n"
           "(memcpy into the ring), end to end (fill + submit + wait, one batch at a time) and streamed (frames\n"
           "of N/4 tiles back to back, the next frame filling while the last is copied); medians of R batches\n"
           "after one that warms up. Then a sweep over batch sizes (LIST, tiles per batch) and plain bus copies\n"
           "(buffer to buffer and buffer to tiles, on the engine's queue and on a transfer-only queue when the\n"
           "adapter has one). The verdict compares the GPU copy rate with the target of >= 20 GiB/s.\n\n"
           "options:\n");
    cli_options_usage(opts, count);
}

/* --sweep: 1..MAX_SWEEP batch sizes of 1..2048 tiles, into a sweep_list. */
typedef struct sweep_list {
    uint32_t size[MAX_SWEEP];
    uint32_t count;
} sweep_list;

static bool parse_sweep(const char *value, void *target) {
    sweep_list *s = target;
    char copy[256], *items[MAX_SWEEP + 1];
    snprintf(copy, sizeof copy, "%s", value);
    size_t n = cli_split_list(copy, items, MAX_SWEEP + 1);
    if (n == 0 || n > MAX_SWEEP) return false;
    for (size_t i = 0; i < n; i++)
        if (!cli_parse_uint(items[i], 1, 2048, &s->size[i])) return false;
    s->count = (uint32_t)n;
    return true;
}

/* --memory: auto, cached, uncached or both. */
static bool parse_memory(const char *value, void *target) {
    static const char *const kinds[] = {"auto", "cached", "uncached", "both"};
    for (size_t i = 0; i < 4; i++)
        if (!strcmp(value, kinds[i])) {
            *(const char **)target = kinds[i];
            return true;
        }
    return false;
}

typedef struct figures {
    double fill_gibs, gpu_gibs, e2e_gibs, streamed_gibs;
    double gpu_ms, e2e_ms; /* medians per batch */
    uint64_t tile_bytes, batch_bytes;
    const char *memory;    /* the ring's memory type */
} figures;

typedef struct bench {
    st_engine *engine;
    uint32_t tiles, repeat;
    bool cpu; /* a CPU adapter: no GPU timestamps */
    st_tile *src[2][2048]; /* [u16, f32] distinct source tiles, as decoded tiles would be */
} bench;

static double gibs(uint64_t bytes, double ms) { return ms > 0 ? (double)bytes / (double)(1ull << 30) / (ms * 1e-3) : NAN; }
static double median(double *v, uint32_t n) { return st_stats_of(v, n).median; }

static st_result make_sources(bench *b, uint32_t count, st_error *err) {
    const st_tile_encoding enc[2] = {ST_TILE_U16, ST_TILE_F32};
    uint32_t h = 12345;
    for (int e = 0; e < 2; e++)
        for (uint32_t i = 0; i < count; i++) {
            st_result r = st_tile_create(ST_TILE_DEM, enc[e], TILE, &b->src[e][i], err);
            if (r) return r;
            b->src[e][i]->key = (st_tile_key){0, i, 0};
            uint32_t *w = b->src[e][i]->data;
            for (size_t k = 0; k < b->src[e][i]->data_bytes / 4; k++) w[k] = (h = h * 1664525u + 1013904223u);
        }
    return ST_OK;
}

static st_tile_pool_desc pool_desc(st_tile_encoding enc, st_staging_memory mem, uint32_t slots, uint64_t budget,
                                   uint64_t ring) {
    return (st_tile_pool_desc){.encoding = enc, .tile_size = TILE, .slots = slots, .frame_budget_bytes = budget,
                               .ring_bytes = ring, .memory = mem};
}

/* Batches of n tiles, one at a time: fill, flush, wait. */
static st_result measure_batches(bench *b, int e, st_staging_memory mem, uint32_t n, figures *f, st_error *err) {
    const st_tile_encoding enc[2] = {ST_TILE_U16, ST_TILE_F32};
    uint64_t tile = b->src[e][0]->data_bytes, batch = (uint64_t)n * tile;
    st_tile_pool *p = NULL;
    st_tile_pool_desc d = pool_desc(enc[e], mem, n, batch, 2 * batch + (1u << 20));
    st_result r = st_tile_pool_create(b->engine, &d, &p, err);
    if (r) return r;
    double fill[101], gpu[101], e2e[101];
    for (uint32_t i = 0; i <= b->repeat && !r; i++) { /* batch 0 warms up */
        uint64_t ticket = 0;
        double t0 = st_time_ms();
        for (uint32_t j = 0; j < n && !r; j++)
            if (!st_tile_pool_upload(p, j, b->src[e][j], &ticket))
                r = st_error_set(err, ST_ERR_GPU, "the pool refused tile %u of a batch that fits its budget and ring", j);
        double t1 = st_time_ms();
        if (!r) r = st_tile_pool_flush(p, err);
        if (!r) r = st_tile_pool_wait(p, ticket, err);
        double t2 = st_time_ms();
        if (!r && i) {
            fill[i - 1] = t1 - t0;
            e2e[i - 1] = t2 - t0;
            gpu[i - 1] = st_tile_pool_get_stats(p).last_batch_gpu_ms;
        }
    }
    if (!r) {
        st_tile_pool_stats s = st_tile_pool_get_stats(p);
        f->tile_bytes = tile;
        f->batch_bytes = batch;
        f->memory = s.memory;
        f->gpu_ms = s.gpu_timestamps ? median(gpu, b->repeat) : NAN;
        f->e2e_ms = median(e2e, b->repeat);
        f->fill_gibs = gibs(batch, median(fill, b->repeat));
        f->gpu_gibs = gibs(batch, f->gpu_ms);
        f->e2e_gibs = gibs(batch, f->e2e_ms);
    }
    st_tile_pool_destroy(p);
    return r;
}

/* Frames of n/4 tiles back to back through the default ring (three frame budgets): a refused upload waits for
 * the oldest frame still in flight, as a loader that is ahead of the GPU would. 4n tiles a run. */
static st_result measure_streamed(bench *b, int e, st_staging_memory mem, figures *f, st_error *err) {
    const st_tile_encoding enc[2] = {ST_TILE_U16, ST_TILE_F32};
    uint32_t n = b->tiles, frame = n / 4 ? n / 4 : 1, total = 4 * n;
    uint64_t tile = b->src[e][0]->data_bytes;
    st_tile_pool *p = NULL;
    st_tile_pool_desc d = pool_desc(enc[e], mem, n, (uint64_t)frame * tile, 0);
    st_result r = st_tile_pool_create(b->engine, &d, &p, err);
    if (r) return r;
    double runs[3];
    uint32_t nruns = b->repeat < 3 ? b->repeat : 3;
    for (uint32_t run = 0; run <= nruns && !r; run++) { /* run 0 warms up */
        uint64_t inflight[64];
        uint32_t first = 0, count = 0;
        uint64_t ticket = 0;
        double t0 = st_time_ms();
        for (uint32_t done = 0; done < total && !r;) {
            for (uint32_t j = 0; j < frame && done < total && !r; j++) {
                st_tile *t = b->src[e][done % n];
                while (!r && !st_tile_pool_upload(p, done % n, t, &ticket)) {
                    if (!count) {
                        r = st_error_set(err, ST_ERR_GPU, "the pool refused a tile with nothing in flight");
                        break;
                    }
                    r = st_tile_pool_wait(p, inflight[first], err);
                    first = (first + 1) % 64;
                    count--;
                }
                done++;
            }
            if (!r) r = st_tile_pool_flush(p, err);
            if (!r && count < 64) {
                inflight[(first + count) % 64] = ticket;
                count++;
            }
        }
        if (!r) r = st_tile_pool_wait(p, ticket, err);
        if (!r && run) runs[run - 1] = st_time_ms() - t0;
    }
    if (!r) f->streamed_gibs = gibs((uint64_t)total * tile, median(runs, nruns));
    st_tile_pool_destroy(p);
    return r;
}

static const char *memory_word(st_staging_memory m) {
    return m == ST_STAGING_CACHED ? "cached" : m == ST_STAGING_UNCACHED ? "uncached" : "auto";
}

static void print_rate(double v) {
    if (isnan(v)) printf(" %10s", "n/a");
    else printf(" %10.2f", v);
}

int bench_upload(int argc, char **argv) {
    const char *cmd = "bench upload";
    uint32_t tiles = 0, repeat = 0, sweep[MAX_SWEEP], nsweep = 0;
    int device = -1;
    bool validate = false, json = false, sweep_given = false, device_given = false;
    const char *memory = "both";
    uint32_t device_index = 0;
    sweep_list list = {{0}, 0};
    bool help = false;
    const cli_opt opts[] = {
        {.name = "tiles", .kind = CLI_OPT_UINT, .target = &tiles, .min = 4, .max = 2048, .arg = "N",
         .bad = "bad --tiles '%s' (4 to 2048)", .help = "tiles per batch (default 512; 32 on CPU adapters)"},
        CLI_OPT_REPEAT(&repeat, 100, "timed batches per figure (default 9; 3 on CPU adapters)"),
        {.name = "sweep", .kind = CLI_OPT_PARSE, .target = &list, .parse = parse_sweep, .given = &sweep_given,
         .arg = "LIST", .bad = "bad --sweep '%s' (1 to " CLI_XSTR(MAX_SWEEP) " batch sizes of 1 to 2048 tiles)",
         .help = "batch sizes, comma separated (default 1,4,16,64,256,1024;\n1,4,16,32 on CPU adapters)"},
        {.name = "memory", .kind = CLI_OPT_PARSE, .target = &memory, .parse = parse_memory, .arg = "KIND",
         .bad = "bad --memory '%s' (auto, cached, uncached or both)",
         .help = "staging memory: auto, cached, uncached or both (default both)"},
        CLI_OPT_DEVICE(&device_index, &device_given),
        {.name = "validate", .kind = CLI_OPT_FLAG, .target = &validate, .help = "Vulkan validation layers on"},
        CLI_OPT_JSON(&json),
    };
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    if (device_given) device = (int)device_index;
    if (sweep_given) {
        memcpy(sweep, list.size, list.count * sizeof *sweep);
        nsweep = list.count;
    }

    st_error err = {0};
    bench *b = calloc(1, sizeof *b);
    if (!b) return cli_usage_error(cmd, "out of memory");
    st_engine_desc ed = {.device_index = device, .device_given = device >= 0, .validate = validate};
    if (st_engine_create(&ed, &b->engine, &err)) {
        free(b);
        return cli_fail(cmd, &err);
    }
    st_device_info dev = st_engine_device(b->engine);
    b->cpu = !st_engine_has_gpu_timestamps(b->engine);
    b->tiles = tiles ? tiles : b->cpu ? 32 : 512;
    b->repeat = repeat ? repeat : b->cpu ? 3 : 9;
    if (!sweep_given) {
        static const uint32_t gpu_sweep[] = {1, 4, 16, 64, 256, 1024}, cpu_sweep[] = {1, 4, 16, 32};
        const uint32_t *s = b->cpu ? cpu_sweep : gpu_sweep;
        nsweep = b->cpu ? 4 : 6;
        memcpy(sweep, s, nsweep * sizeof *s);
    }
    uint32_t most = b->tiles;
    for (uint32_t i = 0; i < nsweep; i++) most = sweep[i] > most ? sweep[i] : most;
    st_staging_memory kinds[2];
    uint32_t nkinds = 0;
    if (!strcmp(memory, "both")) {
        kinds[nkinds++] = ST_STAGING_CACHED;
        kinds[nkinds++] = ST_STAGING_UNCACHED;
    } else {
        kinds[nkinds++] = !strcmp(memory, "cached") ? ST_STAGING_CACHED
                          : !strcmp(memory, "uncached") ? ST_STAGING_UNCACHED
                                                        : ST_STAGING_AUTO;
    }
    int status = CLI_EXIT_OK;
    st_result r = make_sources(b, most, &err);

    figures runs[2][2] = {{{0}}}; /* [kind][u16, f32] */
    bool ran[2] = {false, false};
    const char *seen = NULL;
    for (uint32_t k = 0; k < nkinds && !r; k++) {
        for (int e = 0; e < 2 && !r; e++) {
            r = measure_batches(b, e, kinds[k], b->tiles, &runs[k][e], &err);
            if (!r) r = measure_streamed(b, e, kinds[k], &runs[k][e], &err);
        }
        if (r) break;
        /* An adapter with one host-visible kind gives it to both requests: one row says it all. */
        ran[k] = !seen || strcmp(seen, runs[k][0].memory);
        if (!seen) seen = runs[k][0].memory;
    }
    figures sw[MAX_SWEEP] = {{0}};
    for (uint32_t i = 0; i < nsweep && !r; i++) r = measure_batches(b, 0, kinds[0], sweep[i], &sw[i], &err);
    st_bus_probe bus[4] = {{0}};
    const char *bus_label[4] = {"engine queue, buffer to buffer", "engine queue, buffer to 257x257 u16 tiles",
                                "transfer queue, buffer to buffer", "transfer queue, buffer to 257x257 u16 tiles"};
    for (int i = 0; i < 4 && !r; i++) {
        st_bus_probe_desc pd = {.bytes = (uint64_t)b->tiles * TILE * TILE * 2, .repeat = b->repeat,
                                .memory = kinds[0], .transfer_queue = i >= 2, .into_tiles = i % 2};
        r = st_tile_pool_measure_bus(b->engine, &pd, &bus[i], &err);
    }
    if (r) status = cli_fail(cmd, &err);

    /* The verdict: the pool's GPU copy rate of both encodings with the first staging kind measured. */
    double v16 = runs[0][0].gpu_gibs, v32 = runs[0][1].gpu_gibs, worst = v16 < v32 ? v16 : v32;
    bool measured = !r && !b->cpu && !isnan(worst);
    bool pass = measured && worst >= TARGET_GIBS;
    char verdict[400];
    if (!measured)
        snprintf(verdict, sizeof verdict, "not measured: %s adapter (%s) — no GPU timestamps, the copies run on the CPU "
                 "and every figure is CPU time; run it on a GPU", dev.type, dev.name);
    else
        snprintf(verdict, sizeof verdict, "%s — GPU copy from the pinned ring (%s) %.1f GiB/s u16, %.1f GiB/s f32, "
                 "target >= %.0f GiB/s", pass ? "PASS" : "FAIL", runs[0][0].memory, v16, v32, TARGET_GIBS);

    if (!r && json) {
        cJSON *o = cJSON_CreateObject();
        cJSON *d = cJSON_AddObjectToObject(o, "device");
        cJSON_AddStringToObject(d, "name", dev.name);
        cJSON_AddStringToObject(d, "type", dev.type);
        cJSON_AddStringToObject(d, "driver", dev.driver);
        cJSON_AddStringToObject(o, "timing", b->cpu ? "cpu" : "gpu timestamps");
        cJSON_AddNumberToObject(o, "tile_size", TILE);
        cJSON_AddNumberToObject(o, "tiles_per_batch", b->tiles);
        cJSON_AddNumberToObject(o, "repeat", b->repeat);
        cJSON_AddNumberToObject(o, "target_gibs", TARGET_GIBS);
        cJSON_AddNumberToObject(o, "bus_reference_gibs", BUS_GIBS);
        cJSON *ra = cJSON_AddArrayToObject(o, "runs");
        for (uint32_t k = 0; k < nkinds; k++) {
            if (!ran[k]) continue;
            for (int e = 0; e < 2; e++) {
                figures *f = &runs[k][e];
                cJSON *x = cJSON_CreateObject();
                cJSON_AddStringToObject(x, "memory_requested", memory_word(kinds[k]));
                cJSON_AddStringToObject(x, "memory", f->memory);
                cJSON_AddStringToObject(x, "encoding", e ? "f32" : "u16");
                cJSON_AddNumberToObject(x, "tile_bytes", (double)f->tile_bytes);
                cJSON_AddNumberToObject(x, "batch_bytes", (double)f->batch_bytes);
                cJSON_AddNumberToObject(x, "gpu_copy_gibs", f->gpu_gibs);
                cJSON_AddNumberToObject(x, "gpu_copy_ms", f->gpu_ms);
                cJSON_AddNumberToObject(x, "fill_gibs", f->fill_gibs);
                cJSON_AddNumberToObject(x, "end_to_end_gibs", f->e2e_gibs);
                cJSON_AddNumberToObject(x, "end_to_end_ms", f->e2e_ms);
                cJSON_AddNumberToObject(x, "streamed_gibs", f->streamed_gibs);
                cJSON_AddItemToArray(ra, x);
            }
        }
        cJSON *sa = cJSON_AddArrayToObject(o, "sweep");
        for (uint32_t i = 0; i < nsweep; i++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "tiles", sweep[i]);
            cJSON_AddNumberToObject(x, "batch_bytes", (double)sw[i].batch_bytes);
            cJSON_AddNumberToObject(x, "gpu_copy_gibs", sw[i].gpu_gibs);
            cJSON_AddNumberToObject(x, "gpu_copy_ms", sw[i].gpu_ms);
            cJSON_AddNumberToObject(x, "end_to_end_gibs", sw[i].e2e_gibs);
            cJSON_AddNumberToObject(x, "end_to_end_ms", sw[i].e2e_ms);
            cJSON_AddItemToArray(sa, x);
        }
        cJSON *ba = cJSON_AddArrayToObject(o, "bus");
        for (int i = 0; i < 4; i++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "copy", bus_label[i]);
            cJSON_AddBoolToObject(x, "available", bus[i].available);
            cJSON_AddNumberToObject(x, "bytes", (double)bus[i].bytes);
            cJSON_AddNumberToObject(x, "gpu_gibs", bus[i].gpu_gibs);
            cJSON_AddNumberToObject(x, "wall_gibs", bus[i].wall_gibs);
            if (bus[i].memory) cJSON_AddStringToObject(x, "memory", bus[i].memory);
            cJSON_AddItemToArray(ba, x);
        }
        cJSON *v = cJSON_AddObjectToObject(o, "verdict");
        if (measured) cJSON_AddBoolToObject(v, "pass", pass);
        else cJSON_AddNullToObject(v, "pass");
        cJSON_AddNumberToObject(v, "gpu_copy_gibs_u16", v16);
        cJSON_AddNumberToObject(v, "gpu_copy_gibs_f32", v32);
        cJSON_AddStringToObject(v, "text", verdict);
        char *text = cJSON_Print(o);
        if (text) printf("%s\n", text);
        free(text);
        cJSON_Delete(o);
    } else if (!r) {
        printf("strata bench upload: %s (%s, %s)\n", dev.name, dev.type, dev.driver);
        printf("timing: %s\n", b->cpu ? "CPU — a CPU adapter has no GPU timestamps; copies run on the CPU and the GPU "
                                        "column is n/a"
                                      : "GPU timestamps around each batch's copies; the wall clock for the rest");
        printf("batches of %u tiles of %ux%u (u16 %.1f MiB, f32 %.1f MiB), medians of %u after one warm-up\n\n", b->tiles,
               TILE, TILE, (double)runs[0][0].batch_bytes / 1048576.0, (double)runs[0][1].batch_bytes / 1048576.0, b->repeat);
        printf("%-8s %-34s %-4s %10s %10s %10s %10s  (GiB/s)\n", "asked", "staging memory", "tile", "GPU copy",
               "fill", "end2end", "streamed");
        for (uint32_t k = 0; k < nkinds; k++) {
            if (!ran[k]) {
                printf("%-8s (the adapter has no other host-visible kind: the memory above)\n", memory_word(kinds[k]));
                continue;
            }
            for (int e = 0; e < 2; e++) {
                figures *f = &runs[k][e];
                printf("%-8s %-34s %-4s", memory_word(kinds[k]), f->memory, e ? "f32" : "u16");
                print_rate(f->gpu_gibs);
                print_rate(f->fill_gibs);
                print_rate(f->e2e_gibs);
                print_rate(f->streamed_gibs);
                printf("\n");
            }
        }
        printf("\nbatch sweep (u16, %s): tiles per batch, GPU copy and end to end\n", runs[0][0].memory);
        for (uint32_t i = 0; i < nsweep; i++) {
            printf("  %5u tiles %8.2f MiB  GPU", sweep[i], (double)sw[i].batch_bytes / 1048576.0);
            print_rate(sw[i].gpu_gibs);
            if (isnan(sw[i].gpu_ms)) printf(" GiB/s (     n/a)");
            else printf(" GiB/s (%5.3f ms)", sw[i].gpu_ms);
            printf("  end to end");
            print_rate(sw[i].e2e_gibs);
            printf(" GiB/s (%5.3f ms)\n", sw[i].e2e_ms);
        }
        printf("\nbus, plain copies of %.1f MiB from %s (one submission each, waited):\n",
               (double)b->tiles * TILE * TILE * 2 / 1048576.0, bus[0].memory ? bus[0].memory : "?");
        for (int i = 0; i < 4; i++) {
            printf("  %-42s", bus_label[i]);
            if (!bus[i].available) {
                printf(" (no transfer-only queue on this adapter)\n");
                continue;
            }
            printf(" GPU");
            print_rate(bus[i].gpu_gibs);
            printf(" GiB/s  wall");
            print_rate(bus[i].wall_gibs);
            printf(" GiB/s\n");
        }
        printf("\nverdict: %s\n", verdict);
        printf("end to end (fill + submit + wait, serial): %.1f GiB/s u16, %.1f GiB/s f32; streamed %.1f / %.1f GiB/s\n",
               runs[0][0].e2e_gibs, runs[0][1].e2e_gibs, runs[0][0].streamed_gibs, runs[0][1].streamed_gibs);
        if (measured)
            printf("context: about %.0f GiB/s pinned host->device was measured on the H200 (the bus); the pool's GPU "
                   "copy reaches %.0f %% of it (u16)\n", BUS_GIBS, 100.0 * v16 / BUS_GIBS);
        else
            printf("context: about %.0f GiB/s pinned host->device was measured on the H200 (the bus)\n", BUS_GIBS);
    }
    if (!r) status = cli_validation_status(cmd, b->engine);
    for (int e = 0; e < 2; e++)
        for (uint32_t i = 0; i < most; i++) st_tile_destroy(b->src[e][i]);
    st_engine_destroy(b->engine);
    free(b);
    return status;
}
