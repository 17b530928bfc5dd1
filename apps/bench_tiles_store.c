/* strata bench tiles, the store parts: --build (a 16,385² store from the Puget Sound DEM amplified 16× against the
 * ≤ 20 s target, samples/s, what compression buys), --load (load + decode + checksum of one tile on one core
 * against ≤ 0.5 ms, compressed and raw) and --generated (a 65,536² procedural world: no disk, tiles on demand). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

int bench_tiles_generated(const tiles_store_bench *b, cJSON *json) {
    (void)b;
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
    return CLI_EXIT_OK;
}
