/* strata bench tiles, the store parts: --build (a 16,385² store from the Puget Sound DEM amplified 16× against the
 * ≤ 20 s target, samples/s, what compression buys), --load (load + decode + checksum of one tile on one core
 * against ≤ 0.5 ms, compressed and raw) and --generated (65,536² procedural worlds, the DEM and the multi-layer
 * one: no disk, tiles on demand, tiles per second on one thread and on all). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_tiles.h"
#include "strata/image.h"

#define BUILD_TARGET_S 20.0
#define LOAD_TARGET_MS 0.5

static double cpu_ms(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec * 1e3 + (double)u.ru_utime.tv_usec / 1e3 + (double)u.ru_stime.tv_sec * 1e3 +
           (double)u.ru_stime.tv_usec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(double *v, size_t n, double q) {
    qsort(v, n, sizeof *v, cmp_double);
    size_t k = (size_t)(q * (double)(n - 1) + 0.5);
    return v[k < n ? k : n - 1];
}

/* Removes a store folder this benchmark made (tiles/L/Y/X.tile, index/L.idx, store.json). */
static void remove_store(const char *dir) {
    char cmdline[1200];
    snprintf(cmdline, sizeof cmdline, "rm -rf '%s'", dir);
    if (system(cmdline) != 0) fprintf(stderr, "strata bench tiles: could not remove %s\n", dir);
}

int bench_tiles_build(const tiles_store_bench *b, cJSON *json, char *store_out, size_t cap) {
    st_error err = {0};
    st_dem_open_desc od = {.units_m = b->units, .spacing_m = b->spacing};
    const char *paths[1] = {b->dem};
    st_dem_source *src = NULL;
    if (st_dem_open(paths, 1, &od, &src, &err)) return cli_fail("bench tiles", &err);
    st_dem_amplify_desc ad = {.factor = b->amplify, .seed = 1};
    if (b->amplify > 1 && st_dem_amplify(src, &ad, &src, &err)) return cli_fail("bench tiles", &err);
    const st_dem_info *in = st_dem_source_info(src);
    char dir[1024];
    if (b->keep) snprintf(dir, sizeof dir, "%s", b->keep);
    else {
        const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(dir, sizeof dir, "%s/strata-bench-store-XXXXXX", tmp);
        if (!mkdtemp(dir)) {
            st_dem_source_destroy(src);
            fprintf(stderr, "strata bench tiles: cannot make a temporary folder in %s\n", tmp);
            return CLI_EXIT_RUNTIME;
        }
    }
    if (!b->json)
        printf("build: %s (%llux%llu samples, %g m), %u threads, into %s\n", in->description,
               (unsigned long long)in->width, (unsigned long long)in->height, in->spacing_x_m, st_job_threads(), dir);
    st_store_build_desc d = {0};
    st_store_build_stats st = {0};
    double c0 = cpu_ms(), t0 = st_time_ms();
    st_result r = st_store_build_dem(src, dir, &d, &st, &err);
    double wall = st_time_ms() - t0, cpu = cpu_ms() - c0;
    st_dem_source_destroy(src);
    if (r) return cli_fail("bench tiles", &err);
    double sps = (double)st.samples / (wall / 1000.0), ratio = (double)st.bytes / (double)st.raw_bytes;
    bool ok = wall / 1000.0 <= BUILD_TARGET_S;
    if (json) {
        cJSON *o = cJSON_AddObjectToObject(json, "build");
        cJSON_AddStringToObject(o, "source", in->description);
        cJSON_AddNumberToObject(o, "wall_ms", wall);
        cJSON_AddNumberToObject(o, "cpu_ms", cpu);
        cJSON_AddNumberToObject(o, "threads", st_job_threads());
        cJSON_AddNumberToObject(o, "samples", (double)st.samples);
        cJSON_AddNumberToObject(o, "samples_per_s", sps);
        cJSON_AddNumberToObject(o, "tiles", (double)st.tiles_written);
        cJSON_AddNumberToObject(o, "bytes", (double)st.bytes);
        cJSON_AddNumberToObject(o, "uncompressed_bytes", (double)st.raw_bytes);
        cJSON_AddNumberToObject(o, "target_s", BUILD_TARGET_S);
        cJSON_AddBoolToObject(o, "met", ok);
    } else {
        printf("  %.2f s wall, %.2f s CPU: %.1f M samples/s, %llu tiles, %.1f MB = %.3f of the %.1f MB uncompressed "
               "(zstd buys %.2fx)\n",
               wall / 1000.0, cpu / 1000.0, sps / 1e6, (unsigned long long)st.tiles_written, (double)st.bytes / 1e6,
               ratio, (double)st.raw_bytes / 1e6, 1.0 / ratio);
        printf("  target <= %.0f s: %s\n", BUILD_TARGET_S, ok ? "met" : "MISSED");
    }
    if (store_out) snprintf(store_out, cap, "%s", dir);
    else if (!b->keep) remove_store(dir);
    return CLI_EXIT_OK;
}

/* One tile read the way a loader job reads it (fetch the file, check its size and CRC against the index, decode),
 * and the same bytes re-encoded raw and decoded from memory, on this thread only. */
int bench_tiles_load(const tiles_store_bench *b, const char *store, cJSON *json) {
    st_error err = {0};
    st_store *s = NULL;
    if (st_store_open(store, &s, &err)) return cli_fail("bench tiles", &err);
    uint32_t nx, ny;
    st_store_level_tiles(s, 0, &nx, &ny);
    uint32_t n = b->load_tiles;
    double *full = calloc(n, sizeof *full), *zstd_dec = calloc(n, sizeof *zstd_dec), *raw_dec = calloc(n, sizeof *raw_dec);
    uint64_t rng = 0x9E3779B97F4A7C15ull, bytes = 0, raw_bytes = 0;
    int status = CLI_EXIT_OK;
    for (uint32_t i = 0; i < n && status == CLI_EXIT_OK; i++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        st_tile_key k = {0, (uint32_t)(rng % nx), (uint32_t)((rng >> 32) % ny)};
        st_tile *t = NULL;
        double t0 = st_time_ms();
        if (st_store_read_tile(s, k, &t, &err)) {
            status = cli_fail("bench tiles", &err);
            break;
        }
        full[i] = st_time_ms() - t0;
        /* decode alone, compressed and raw, from memory */
        uint8_t *zd = NULL, *rd = NULL;
        size_t zn = 0, rn = 0;
        st_tile_encode(t, ST_TILE_ZSTD, &zd, &zn, &err);
        st_tile_encode(t, ST_TILE_RAW, &rd, &rn, &err);
        st_tile_destroy(t);
        bytes += zn;
        raw_bytes += rn;
        t0 = st_time_ms();
        if (!zd || st_tile_decode(zd, zn, "zstd", &k, &t, &err)) status = cli_fail("bench tiles", &err);
        zstd_dec[i] = st_time_ms() - t0;
        st_tile_destroy(t);
        t0 = st_time_ms();
        if (!rd || st_tile_decode(rd, rn, "raw", &k, &t, &err)) status = cli_fail("bench tiles", &err);
        raw_dec[i] = st_time_ms() - t0;
        st_tile_destroy(t);
        free(zd);
        free(rd);
    }
    if (status == CLI_EXIT_OK) {
        double med = quantile(full, n, 0.5), p99 = quantile(full, n, 0.99);
        double zmed = quantile(zstd_dec, n, 0.5), rmed = quantile(raw_dec, n, 0.5);
        bool ok = med <= LOAD_TARGET_MS;
        if (json) {
            cJSON *o = cJSON_AddObjectToObject(json, "load");
            cJSON_AddNumberToObject(o, "tiles", n);
            cJSON_AddNumberToObject(o, "read_tile_median_ms", med);
            cJSON_AddNumberToObject(o, "read_tile_p99_ms", p99);
            cJSON_AddNumberToObject(o, "decode_zstd_median_ms", zmed);
            cJSON_AddNumberToObject(o, "decode_raw_median_ms", rmed);
            cJSON_AddNumberToObject(o, "zstd_bytes_per_tile", (double)bytes / n);
            cJSON_AddNumberToObject(o, "raw_bytes_per_tile", (double)raw_bytes / n);
            cJSON_AddNumberToObject(o, "target_ms", LOAD_TARGET_MS);
            cJSON_AddBoolToObject(o, "met", ok);
        } else {
            printf("load: %u random level-0 tiles of %s on one thread (files in the page cache)\n", n, store);
            printf("  fetch + check + decode: median %.3f ms, p99 %.3f ms; target <= %.1f ms: %s\n", med, p99,
                   LOAD_TARGET_MS, ok ? "met" : "MISSED");
            printf("  decode from memory: zstd %.3f ms (%.0f B a tile), raw %.3f ms (%.0f B): zstd costs %.3f ms and "
                   "saves %.0f%% of the bytes\n",
                   zmed, (double)bytes / n, rmed, (double)raw_bytes / n, zmed - rmed,
                   100.0 * (1.0 - (double)bytes / (double)raw_bytes));
        }
    }
    free(full);
    free(zstd_dec);
    free(raw_dec);
    st_store_close(s);
    return status;
}

static double thread_cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

typedef struct layer_reads {
    st_store *s;
    uint32_t nx, ny, seed;
    _Atomic int failed;
    st_error err;
} layer_reads;

/* Tile i of the random sequence every part of the benchmark reads. */
static st_tile_key random_tile(const layer_reads *j, size_t i) {
    uint64_t h = (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull ^ j->seed;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (st_tile_key){0, (uint32_t)(h % j->nx), (uint32_t)((h >> 32) % j->ny)};
}

static void read_layer_tiles(void *user, size_t begin, size_t end) {
    layer_reads *j = user;
    for (size_t i = begin; i < end && !j->failed; i++) {
        st_tile *t = NULL;
        st_error e = {0};
        if (st_store_read_tile(j->s, random_tile(j, i), &t, &e)) {
            if (!j->failed++) j->err = e;
        }
        st_tile_destroy(t);
    }
}

/* The multi-layer world of 65,536²: the first tile (it makes the dual threshold from the sample), then random
 * tiles on one thread (wall and that thread's CPU time) and on every thread. */
static int generated_layers(uint32_t tiles, cJSON *json) {
    const char *spec = "gen:multi:1:65536x65536";
    st_error err = {0};
    st_store *s = NULL;
    if (st_store_open(spec, &s, &err)) return cli_fail("bench tiles", &err);
    const st_store_info *in = st_store_get_info(s);
    layer_reads j = {.s = s, .seed = 12345};
    st_store_level_tiles(s, 0, &j.nx, &j.ny);
    double t0 = st_time_ms();
    st_tile *first = NULL;
    if (st_store_read_tile(s, (st_tile_key){0, 0, 0}, &first, &err)) {
        st_store_close(s);
        return cli_fail("bench tiles", &err);
    }
    st_tile_destroy(first);
    double first_ms = st_time_ms() - t0;
    double *ms = malloc(sizeof(double) * tiles);
    if (!ms) {
        st_store_close(s);
        err.code = ST_ERR_NOMEM;
        snprintf(err.message, sizeof err.message, "out of memory");
        return cli_fail("bench tiles", &err);
    }
    double w0 = st_time_ms(), c0 = thread_cpu_ms();
    for (uint32_t i = 0; i < tiles && !j.failed; i++) {
        double a = st_time_ms();
        read_layer_tiles(&j, i, i + 1);
        ms[i] = st_time_ms() - a;
    }
    double one_wall = st_time_ms() - w0, one_cpu = thread_cpu_ms() - c0;
    j.seed = 54321; /* other tiles, so nothing is learnt from the first pass */
    double p0 = st_time_ms(), pc0 = cpu_ms();
    if (!j.failed) st_parallel_for(4 * (size_t)tiles, 1, read_layer_tiles, &j);
    double all_wall = st_time_ms() - p0, all_cpu = cpu_ms() - pc0;
    st_store_close(s);
    if (j.failed) {
        free(ms);
        return cli_fail("bench tiles", &j.err);
    }
    double med = quantile(ms, tiles, 0.5), texels = 256.0 * 256.0;
    free(ms);
    double one_tps = tiles / (one_wall / 1e3), all_tps = 4.0 * tiles / (all_wall / 1e3);
    cJSON *o = json ? cJSON_AddObjectToObject(json, "generated_layers") : NULL;
    if (o) {
        cJSON_AddStringToObject(o, "world", spec);
        cJSON_AddNumberToObject(o, "disk_bytes", (double)in->bytes);
        cJSON_AddNumberToObject(o, "tiles", (double)in->tiles);
        cJSON_AddNumberToObject(o, "tile_size", 256);
        cJSON_AddNumberToObject(o, "first_tile_ms", first_ms);
        cJSON_AddNumberToObject(o, "tile_ms_median_one_thread", med);
        cJSON_AddNumberToObject(o, "tile_cpu_ms_one_thread", one_cpu / tiles);
        cJSON_AddNumberToObject(o, "tiles_per_s_one_thread", one_tps);
        cJSON_AddNumberToObject(o, "tiles_per_s_all_threads", all_tps);
        cJSON_AddNumberToObject(o, "cpu_ms_per_tile_all_threads", all_cpu / (4.0 * tiles));
        cJSON_AddNumberToObject(o, "threads", st_job_threads());
    } else {
        printf("generated layers: %s, %llu tiles of 256² texels, %llu bytes on disk\n", spec,
               (unsigned long long)in->tiles, (unsigned long long)in->bytes);
        printf("  first tile %.0f ms (it makes the dual threshold from the sample)\n", first_ms);
        printf("  one thread: %u random tiles, median %.2f ms a tile (%.2f ms of CPU): %.1f tiles/s, %.1f M texels/s\n",
               tiles, med, one_cpu / tiles, one_tps, one_tps * texels / 1e6);
        printf("  %u threads: %u random tiles, %.1f tiles/s, %.1f M texels/s (%.2f ms of CPU a tile)\n",
               st_job_threads(), 4 * tiles, all_tps, all_tps * texels / 1e6, all_cpu / (4.0 * tiles));
    }
    return CLI_EXIT_OK;
}

int bench_tiles_generated(const tiles_store_bench *b, cJSON *json) {
    st_error err = {0};
    st_store *s = NULL;
    const char *spec = "gen:1:65536x65536";
    if (st_store_open(spec, &s, &err)) return cli_fail("bench tiles", &err);
    const st_store_info *in = st_store_get_info(s);
    cJSON *o = json ? cJSON_AddObjectToObject(json, "generated") : NULL;
    if (o) {
        cJSON_AddStringToObject(o, "world", spec);
        cJSON_AddNumberToObject(o, "disk_bytes", (double)in->bytes);
        cJSON_AddNumberToObject(o, "tiles", (double)in->tiles);
    } else {
        printf("generated: %s, %llux%llu samples, %u levels, %llu tiles, %llu bytes on disk\n", spec,
               (unsigned long long)in->width, (unsigned long long)in->height, in->levels,
               (unsigned long long)in->tiles, (unsigned long long)in->bytes);
    }
    cJSON *lv = o ? cJSON_AddArrayToObject(o, "tile_ms_per_level") : NULL;
    for (uint32_t l = 0; l < in->levels; l += 2) {
        double ms[5];
        uint32_t nx, ny;
        st_store_level_tiles(s, l, &nx, &ny);
        for (uint32_t k = 0; k < 5; k++) {
            st_tile *t = NULL;
            double t0 = st_time_ms();
            if (st_store_read_tile(s, (st_tile_key){l, k % nx, k / nx % ny}, &t, &err)) {
                st_store_close(s);
                return cli_fail("bench tiles", &err);
            }
            ms[k] = st_time_ms() - t0;
            st_tile_destroy(t);
        }
        double med = quantile(ms, 5, 0.5);
        if (lv) cJSON_AddItemToArray(lv, cJSON_CreateNumber(med));
        else printf("  a level-%u tile made on demand: median %.2f ms (one thread)\n", l, med);
    }
    st_store_close(s);
    return generated_layers(b->gen_tiles, json);
}
