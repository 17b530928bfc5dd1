/* strata bench reference: the CPU reference cast of whole views (never the disk cache) on a world's default
 * views, reporting the median per view and over all views, against the target of ≤ 2 s at 1280×800; on a DEM
 * tile store (--world STORE) the store's reference (st_dem_reference) on the store's default views, cold (the
 * first cast of a view) and warm, with the tiles decoded and a CRC of each image to compare code against code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/reference.h"
#include "strata/tiles.h"
#include "strata/views.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata bench reference [--world W] [--size WxH] [--views N] [--repeat R] [--cache TILES]\n"
           "                              [--index-every-node]\n\n"
           "Casts the CPU reference of the first N default views (one per pitch first) R times each at WxH\n"
           "(default: default world, 1280x800, 4 views, 3 repeats) and prints the median time per view and\n"
           "the median over all casts, with the verdict on the target (median <= 2 s at 1280x800).\n"
           "With --world STORE (a DEM tile store) it casts the store's full-resolution reference on the\n"
           "store's default views (far as strata compare), one reference for all casts as strata compare has:\n"
           "per view the first (cold) cast, the median of the rest, the tiles decoded and the image's CRC.\n"
           "Threads: STRATA_THREADS (default: one per core).\n\noptions:\n");
    cli_options_usage(opts, count);
}

/* One per pitch first, so a small N still covers horizon and straight-down rays. */
static size_t pick_views(const st_viewpoint *all, size_t count, uint32_t limit, st_viewpoint *views) {
    bool taken[ST_MAX_VIEWS] = {0};
    size_t n = 0;
    for (int pass = 0; pass < 2 && n < limit; pass++)
        for (size_t i = 0; i < count && n < limit; i++) {
            if (taken[i]) continue;
            bool new_pitch = true;
            for (size_t k = 0; k < n; k++)
                if (fabsf(views[k].pitch_deg - all[i].pitch_deg) < 0.5f) new_pitch = false;
            if (pass == 1 || new_pitch) {
                views[n++] = all[i];
                taken[i] = true;
            }
        }
    return n;
}

/* The DEM store's reference: cold and warm casts per view. */
static int bench_store(const char *world, uint32_t w, uint32_t h, uint32_t view_limit, uint32_t repeat,
                       uint32_t cache, bool every_node) {
    const char *cmd = "bench reference";
    st_error err = {0};
    st_store *store = NULL;
    st_dem_reference *ref = NULL;
    st_ref_image img = {0};
    st_viewpoint all[ST_MAX_VIEWS], views[ST_MAX_VIEWS];
    size_t count = 0;
    if (st_store_open(world, &store, &err) || st_store_views_default(store, all, ST_MAX_VIEWS, &count, &err) ||
        st_dem_reference_create(store, cache, &ref, &err) || st_ref_image_create(w, h, &img, &err)) {
        st_ref_image_free(&img);
        st_dem_reference_destroy(ref);
        st_store_close(store);
        return cli_fail(cmd, &err);
    }
    st_dem_reference_set_index_every_node(ref, every_node);
    size_t n = pick_views(all, count, view_limit, views);
    const st_store_info *in = st_store_get_info(store);
    float far = (float)st_store_far(store);
    printf("DEM reference on %s (%llux%llu samples, tiles of %u), %ux%u, far %.0f m, %u threads, cache %u tiles%s\n",
           world,
           (unsigned long long)in->width, (unsigned long long)in->height, in->tile_size, w, h, (double)far, st_job_threads(),
           cache ? cache : 1024u, every_node ? ", the index asked at every node" : "");
    double *warm = malloc(sizeof(double) * n * repeat), cold_sum = 0;
    size_t m = 0;
    int status = CLI_EXIT_OK;
    for (size_t v = 0; v < n && status == CLI_EXIT_OK; v++) {
        st_camera cam;
        if (st_store_view_camera(store, &views[v], &cam, &err)) {
            status = cli_fail(cmd, &err);
            break;
        }
        cam.far_dist = far;
        double ms[100];
        uint64_t read0 = st_dem_reference_tiles_read(ref), read1 = read0;
        for (uint32_t r = 0; r < repeat; r++) {
            double s = st_time_ms();
            if (st_dem_reference_cast(ref, &cam, &img, &err)) {
                status = cli_fail(cmd, &err);
                break;
            }
            ms[r] = st_time_ms() - s;
            if (r) warm[m++] = ms[r];
            else read1 = st_dem_reference_tiles_read(ref);
        }
        if (status) break;
        cold_sum += ms[0];
        size_t px = (size_t)w * h, sky = 0;
        for (size_t k = 0; k < px; k++) sky += isnan(img.distance[k]);
        uint32_t crc = st_crc32_update(st_crc32(img.rgba, 4 * px), img.distance, px * sizeof *img.distance);
        printf("  %-12s pitch %4.0f  cold %8.1f ms (%llu tiles decoded)", views[v].name, views[v].pitch_deg, ms[0],
               (unsigned long long)(read1 - read0));
        if (repeat > 1) printf("  warm median %8.1f ms (%llu tiles decoded)", st_stats_of(ms + 1, repeat - 1).median,
                               (unsigned long long)(st_dem_reference_tiles_read(ref) - read1));
        printf("  sky %5.1f %%  crc %08x\n", 100.0 * (double)sky / (double)px, crc);
    }
    if (status == CLI_EXIT_OK) {
        printf("mean cold cast %.1f ms over %zu views", cold_sum / (double)n, n);
        if (m) printf(", warm median %.1f ms over %zu casts", st_stats_of(warm, m).median, m);
        printf(", %llu tiles decoded in all\n", (unsigned long long)st_dem_reference_tiles_read(ref));
    }
    free(warm);
    st_ref_image_free(&img);
    st_dem_reference_destroy(ref);
    st_store_close(store);
    return status;
}

int bench_reference(int argc, char **argv) {
    const char *world = "default";
    uint32_t w = 1280, h = 800, view_limit = 4, repeat = 3, cache = 0;
    uint32_t size[2] = {w, h};
    bool help = false, every_node = false;
    const cli_opt opts[] = {
        CLI_OPT_WORLD(&world),
        CLI_OPT_SIZE_WH(size, 16384, "image size (default 1280x800)"),
        {.name = "views", .kind = CLI_OPT_UINT, .target = &view_limit, .min = 1, .max = ST_MAX_VIEWS, .arg = "N",
         .bad = "bad --views '%s' (1.." CLI_XSTR(ST_MAX_VIEWS) ")", .help = "default views cast (default 4)"},
        CLI_OPT_REPEAT(&repeat, 100, "casts of each view (default 3)"),
        {.name = "cache", .kind = CLI_OPT_UINT, .target = &cache, .min = 0, .max = 1u << 20, .arg = "TILES",
         .help = "a store's reference: decoded tiles it keeps (default 0: the reference's own default)"},
        {.name = "index-every-node", .kind = CLI_OPT_FLAG, .target = &every_node,
         .help = "a store's reference: ask the store's index for tile bounds at every node (the walk as it\n"
                 "was, to measure the lock; the same images)"},
    };
    int parsed = cli_options_parse("bench reference", argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    w = size[0];
    h = size[1];
    if (cli_is_store(world)) return bench_store(world, w, h, view_limit, repeat, cache, every_node);
    st_error err = {0};
    st_level *level = NULL;
    if (cli_load_world(world, &level, &err)) return cli_fail("bench reference", &err);
    st_viewpoint all[ST_MAX_VIEWS], views[ST_MAX_VIEWS];
    size_t count = 0, n = 0;
    if (st_views_default(level, all, ST_MAX_VIEWS, &count, &err)) {
        st_level_destroy(level);
        return cli_fail("bench reference", &err);
    }
    n = pick_views(all, count, view_limit, views);
    double t0 = st_time_ms();
    st_reference *ref = NULL;
    st_ref_image img = {0};
    if (st_reference_create(level, &ref, &err) || st_ref_image_create(w, h, &img, &err)) {
        st_reference_destroy(ref);
        st_level_destroy(level);
        return cli_fail("bench reference", &err);
    }
    double build = st_time_ms() - t0;
    printf("reference on %s (%ux%u), %ux%u, %u threads: pyramid + crc %.1f ms\n", world, level->width,
           level->height, w, h, st_job_threads(), build);
    double *all_ms = malloc(sizeof(double) * n * repeat);
    size_t m = 0;
    for (size_t v = 0; v < n; v++) {
        st_camera cam = st_viewpoint_camera(level, &views[v]);
        double ms[100];
        size_t sky = 0;
        for (uint32_t r = 0; r < repeat; r++) {
            double s = st_time_ms();
            st_reference_cast(ref, &cam, &img, &err);
            ms[r] = st_time_ms() - s;
            all_ms[m++] = ms[r];
        }
        for (size_t k = 0; k < (size_t)w * h; k++) sky += isnan(img.distance[k]);
        st_stats st = st_stats_of(ms, repeat);
        printf("  %-20s pitch %4.0f  median %8.1f ms  (min %.1f, max %.1f)  sky %5.1f %%\n", views[v].name,
               views[v].pitch_deg, st.median, st.min, st.max, 100.0 * (double)sky / ((double)w * h));
    }
    st_stats total = st_stats_of(all_ms, m);
    printf("median over %zu casts: %.1f ms\n", m, total.median);
    cli_bench_verdict("median reference cast of a 1280x800 view", "<=", 2000, "ms", total.median,
                      w == 1280 && h == 800 ? NULL : "the target is for 1280x800");
    free(all_ms);
    st_ref_image_free(&img);
    st_reference_destroy(ref);
    st_level_destroy(level);
    return CLI_EXIT_OK;
}
