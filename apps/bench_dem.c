/* strata bench dem: windowed reads through st_dem_open (what the tile builder does), as windows per second
 * from every worker at once: a GeoTIFF with GDAL's dataset handles pooled 1 or N ways, the same raster as a
 * raw grid, and with voids to fill. Without inputs the rasters are written into a temporary folder first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if STRATA_HAVE_GDAL
#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>
#endif

#include "cli.h"
#include "strata/dem.h"

static const char *cmd = "bench dem";

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata bench dem [IN...] [--window N] [--reads N] [--repeat N] [--handles N,M,...]\n\n"
           "IN is one raster, or several SRTM .hgt tiles read as one mosaic.\n"
           "Reads --reads windows of N² samples (default 257², 256 reads) at random places (fixed seed) from\n"
           "every worker at once, --repeat times (default 5), and prints the median windows/s and samples/s.\n"
           "GDAL rasters are measured once per dataset-handle pool size in --handles (default 1 and one per\n"
           "thread plus one). Without IN: a 4097² Int16 GeoTIFF (tiled 256², UTM, 30 m) is written plain, DEFLATE-\n"
           "compressed and with 1 %% nodata, and the same samples as raw s16, into a temporary folder.\n"
           "Threads: STRATA_THREADS (default: one per core).\n\noptions:\n");
    cli_options_usage(opts, count);
}

/* --handles: 1..8 pool sizes of 1..16 handles each, into a handle_list. */
typedef struct handle_list {
    unsigned size[8];
    size_t count;
} handle_list;

static bool parse_handles(const char *value, void *target) {
    handle_list *l = target;
    char copy[256], *items[9];
    snprintf(copy, sizeof copy, "%s", value);
    size_t n = cli_split_list(copy, items, 9);
    if (n == 0 || n > 8) return false;
    for (size_t i = 0; i < n; i++)
        if (!cli_parse_uint(items[i], 1, 16, &l->size[i])) return false;
    l->count = n;
    return true;
}

typedef struct bench_reads {
    st_dem_source *src;
    uint32_t window, reads;
    int64_t *xy; /* reads × 2 */
    int failed;
    st_error err;
} bench_reads;

static void do_reads(void *user, size_t begin, size_t end) {
    bench_reads *b = user;
    size_t n = (size_t)b->window * b->window;
    float *buf = malloc(sizeof(float) * n);
    for (size_t k = begin; k < end && buf; k++) {
        st_error e = {0};
        if (st_dem_source_read(b->src, b->xy[2 * k], b->xy[2 * k + 1], b->window, b->window, buf, &e) &&
            !__atomic_exchange_n(&b->failed, 1, __ATOMIC_RELAXED))
            b->err = e;
    }
    free(buf);
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Each run opens the source afresh, so that GDAL's block cache starts empty as a build's would (the OS page
 * cache stays warm); the open is not timed. */
static int measure(const char *label, const char *const *paths, size_t count, const st_dem_open_desc *d,
                   uint32_t window, uint32_t reads, uint32_t repeat) {
    st_error err = {0};
    bench_reads b = {.window = window, .reads = reads};
    b.xy = malloc(sizeof(int64_t) * 2 * reads);
    double *runs = malloc(sizeof(double) * repeat);
    int status = CLI_EXIT_OK;
    for (uint32_t r = 0; r < repeat && status == CLI_EXIT_OK; r++) {
        if (st_dem_open(paths, count, d, &b.src, &err)) {
            status = cli_fail(cmd, &err);
            break;
        }
        const st_dem_info *in = st_dem_source_info(b.src);
        uint64_t seed = 12345 + r;
        for (uint32_t k = 0; k < reads; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t span_x = in->width > window ? in->width - window : 1;
            uint64_t span_y = in->height > window ? in->height - window : 1;
            b.xy[2 * k] = (int64_t)((seed >> 33) % span_x);
            b.xy[2 * k + 1] = (int64_t)((seed >> 13) % span_y);
        }
        double t0 = st_time_ms();
        st_parallel_for(reads, 1, do_reads, &b);
        runs[r] = st_time_ms() - t0;
        st_dem_source_destroy(b.src);
        if (b.failed) status = cli_fail(cmd, &b.err);
    }
    if (status == CLI_EXIT_OK) {
        qsort(runs, repeat, sizeof *runs, compare_double);
        double med = runs[repeat / 2];
        printf("  %-44s %8.0f windows/s  %7.1f Msamples/s  (median of %u, %.1f..%.1f ms for %u reads)\n", label,
               reads / (med / 1000.0), (double)reads * window * window / (med / 1000.0) / 1e6, repeat, runs[0],
               runs[repeat - 1], reads);
    }
    free(runs);
    free(b.xy);
    return status;
}

/* The synthetic rasters: a smooth field of ridges, 1 % of the samples nodata in `voids`. */
#if STRATA_HAVE_GDAL
static int write_rasters(const char *dir, char *tif, char *tif_deflate, char *tif_voids, char *raw, size_t cap) {
    const int N = 4097;
    int16_t *v = malloc(sizeof(int16_t) * (size_t)N * N);
    if (!v) return cli_usage_error(cmd, "out of memory");
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            v[(size_t)y * N + x] = (int16_t)(1000 + 800 * sin(x * 0.01) * cos(y * 0.013) + 200 * sin((x + y) * 0.05));
    snprintf(raw, cap, "%s/dem.raw", dir);
    FILE *fp = fopen(raw, "wb");
    if (!fp || fwrite(v, sizeof(int16_t), (size_t)N * N, fp) != (size_t)N * N) {
        if (fp) fclose(fp);
        free(v);
        return cli_usage_error(cmd, "cannot write %s", raw);
    }
    fclose(fp);
    GDALAllRegister();
    GDALDriverH drv = GDALGetDriverByName("GTiff");
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    OSRImportFromEPSG(srs, 32610);
    char *wkt = NULL;
    OSRExportToWkt(srs, &wkt);
    double g[6] = {500000, 30, 0, 5200000, 0, -30};
    for (int pass = 0; pass < 3; pass++) {
        char *path = pass == 0 ? tif : pass == 1 ? tif_deflate : tif_voids;
        snprintf(path, cap, "%s/%s.tif", dir, pass == 0 ? "dem" : pass == 1 ? "dem-deflate" : "dem-voids");
        if (pass == 2)
            for (size_t i = 0; i < (size_t)N * N; i += 97) v[i] = -9999;
        char **opt = CSLSetNameValue(NULL, "TILED", "YES");
        opt = CSLSetNameValue(opt, "BLOCKXSIZE", "256");
        opt = CSLSetNameValue(opt, "BLOCKYSIZE", "256");
        if (pass == 1) { /* as most published DEMs are: each block inflated inside GDAL's read */
            opt = CSLSetNameValue(opt, "COMPRESS", "DEFLATE");
            opt = CSLSetNameValue(opt, "PREDICTOR", "2");
        }
        GDALDatasetH ds = drv ? GDALCreate(drv, path, N, N, 1, GDT_Int16, opt) : NULL;
        CSLDestroy(opt);
        if (!ds) {
            free(v);
            return cli_usage_error(cmd, "cannot write %s", path);
        }
        GDALSetGeoTransform(ds, g);
        GDALSetProjection(ds, wkt);
        GDALRasterBandH band = GDALGetRasterBand(ds, 1);
        if (pass) GDALSetRasterNoDataValue(band, -9999);
        CPLErr e = GDALRasterIO(band, GF_Write, 0, 0, N, N, v, N, N, GDT_Int16, 0, 0);
        GDALClose(ds);
        if (e != CE_None) {
            free(v);
            return cli_usage_error(cmd, "cannot write %s", path);
        }
    }
    CPLFree(wkt);
    OSRDestroySpatialReference(srs);
    free(v);
    return CLI_EXIT_OK;
}
#else
static int write_rasters(const char *dir, char *tif, char *tif_deflate, char *tif_voids, char *raw, size_t cap) {
    (void)dir, (void)tif, (void)tif_deflate, (void)tif_voids, (void)raw, (void)cap;
    fprintf(stderr, "strata bench dem: this strata was built without GDAL: name the DEM files to read\n");
    return CLI_EXIT_USAGE;
}
#endif

int bench_dem(int argc, char **argv) {
    uint32_t window = 257, reads = 256, repeat = 5;
    handle_list list = {{0}, 0};
    bool help = false;
    int first;
    const cli_opt opts[] = {
        {.name = "window", .kind = CLI_OPT_UINT, .target = &window, .min = 1, .max = 8192, .arg = "N",
         .bad = "bad --window '%s' (1..8192)", .help = "window side in samples (default 257)"},
        {.name = "reads", .kind = CLI_OPT_UINT, .target = &reads, .min = 1, .max = 1u << 20, .arg = "N",
         .bad = "bad --reads '%s' (1..1048576)", .help = "windows read per repeat (default 256)"},
        CLI_OPT_REPEAT(&repeat, 1000, "timed repeats (default 5)"),
        {.name = "handles", .kind = CLI_OPT_PARSE, .target = &list, .parse = parse_handles, .arg = "N,M,...",
         .bad = "bad --handles '%s' (1 to 8 pool sizes of 1..16 each)",
         .help = "GDAL dataset-handle pool sizes (default 1 and one per thread plus one)"},
    };
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), 64, &first, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    unsigned handles[8];
    size_t nh = list.count;
    memcpy(handles, list.size, sizeof handles);
    if (!nh) { /* one handle, and one per thread (the workers and the caller) */
        handles[nh++] = 1;
        handles[nh++] = st_job_threads() + 1 < 16 ? st_job_threads() + 1 : 16;
    }
    printf("DEM window reads: %u² windows, %u threads\n", window, st_job_threads());
    const char *dir = NULL;
    char tif[512], tif_deflate[512], tif_voids[512], raw[512], tmp[400];
    int status = CLI_EXIT_OK;
    if (first >= argc) {
        const char *base = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/strata-bench-dem-XXXXXX", base ? base : "/tmp");
        dir = mkdtemp(tmp);
        if (!dir) return cli_usage_error(cmd, "cannot make a temporary folder");
        if ((status = write_rasters(dir, tif, tif_deflate, tif_voids, raw, sizeof tif))) return status;
    }
    char label[128];
    char envbuf[16];
    for (size_t k = 0; k < nh && status == CLI_EXIT_OK; k++) {
        snprintf(envbuf, sizeof envbuf, "%u", handles[k]);
        setenv("STRATA_GDAL_HANDLES", envbuf, 1);
        if (dir) {
            snprintf(label, sizeof label, "GeoTIFF 4097² Int16, %u GDAL handle%s", handles[k], handles[k] > 1 ? "s" : "");
            const char *p = tif;
            status = measure(label, &p, 1, NULL, window, reads, repeat);
            snprintf(label, sizeof label, "GeoTIFF with 1%% nodata, %u handle%s", handles[k], handles[k] > 1 ? "s" : "");
            snprintf(label, sizeof label, "GeoTIFF DEFLATE, %u handle%s", handles[k], handles[k] > 1 ? "s" : "");
            p = tif_deflate;
            if (!status) status = measure(label, &p, 1, NULL, window, reads, repeat);
            snprintf(label, sizeof label, "GeoTIFF with 1%% nodata, %u handle%s", handles[k], handles[k] > 1 ? "s" : "");
            p = tif_voids;
            if (!status) status = measure(label, &p, 1, NULL, window, reads, repeat);
        } else {
            /* Several inputs are one .hgt mosaic; one input is measured per pool size (only GDAL pools). */
            snprintf(label, sizeof label, "%.32s%s, %u handle%s", argv[first], argc - first > 1 ? " (mosaic)" : "",
                     handles[k], handles[k] > 1 ? "s" : "");
            status = measure(label, (const char *const *)argv + first, (size_t)(argc - first), NULL, window, reads,
                             repeat);
        }
    }
    unsetenv("STRATA_GDAL_HANDLES");
    if (dir && !status) {
        st_dem_open_desc d = {.raw_width = 4097, .raw_height = 4097};
        const char *p = raw;
        status = measure("the same samples as raw s16 (pread)", &p, 1, &d, window, reads, repeat);
    }
    if (dir) {
        unlink(tif);
        unlink(tif_deflate);
        unlink(tif_voids);
        unlink(raw);
        rmdir(dir);
    }
    return status;
}
