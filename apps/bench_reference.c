/* strata bench reference: the CPU reference cast of whole views (never the disk cache) on a world's default
 * views, reporting the median per view and over all views, against the target of ≤ 2 s at 1280×800. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/reference.h"
#include "strata/views.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata bench reference [--world W] [--size WxH] [--views N] [--repeat R]\n\n"
           "Casts the CPU reference of the first N default views (one per pitch first) R times each at WxH\n"
           "(default: default world, 1280x800, 4 views, 3 repeats) and prints the median time per view and\n"
           "the median over all casts, with the verdict on the target (median <= 2 s at 1280x800).\n"
           "Threads: STRATA_THREADS (default: one per core).\n\noptions:\n");
    cli_options_usage(opts, count);
}

int bench_reference(int argc, char **argv) {
    const char *world = "default";
    uint32_t w = 1280, h = 800, view_limit = 4, repeat = 3;
    uint32_t size[2] = {w, h};
    bool help = false;
    const cli_opt opts[] = {
        CLI_OPT_WORLD(&world),
        CLI_OPT_SIZE_WH(size, 16384, "image size (default 1280x800)"),
        {.name = "views", .kind = CLI_OPT_UINT, .target = &view_limit, .min = 1, .max = ST_MAX_VIEWS, .arg = "N",
         .bad = "bad --views '%s' (1.." CLI_XSTR(ST_MAX_VIEWS) ")", .help = "default views cast (default 4)"},
        CLI_OPT_REPEAT(&repeat, 100, "casts of each view (default 3)"),
    };
    int parsed = cli_options_parse("bench reference", argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    w = size[0];
    h = size[1];
    st_error err = {0};
    st_level *level = NULL;
    if (cli_load_world(world, &level, &err)) return cli_fail("bench reference", &err);
    st_viewpoint all[ST_MAX_VIEWS], views[ST_MAX_VIEWS];
    size_t count = 0, n = 0;
    if (st_views_default(level, all, ST_MAX_VIEWS, &count, &err)) {
        st_level_destroy(level);
        return cli_fail("bench reference", &err);
    }
    /* one view of each pitch first, so a small N still covers horizon and straight-down rays */
    bool taken[ST_MAX_VIEWS] = {0};
    for (int pass = 0; pass < 2 && n < view_limit; pass++)
        for (size_t i = 0; i < count && n < view_limit; i++) {
            if (taken[i]) continue;
            bool new_pitch = true;
            for (size_t k = 0; k < n; k++)
                if (fabsf(views[k].pitch_deg - all[i].pitch_deg) < 0.5f) new_pitch = false;
            if (pass == 1 || new_pitch) {
                views[n++] = all[i];
                taken[i] = true;
            }
        }
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
