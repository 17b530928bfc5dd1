/* strata tin: the TIN of a single-layer DEM (a 16-bit grey PNG), fitted in parallel tiles that share their
 * sides, checked exactly (the bound at every sample, a tiling with no crack or T-junction) and timed. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "strata/image.h"
#include "strata/mesh.h"

static const char *cmd = "tin";

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata tin FILE.png [--tolerance M] [--units M] [--tile N | --serial] [--sides-beside] [--no-check]\n\n"
           "Fits a 16-bit grey PNG DEM (up to %u a side) as one TIN on every core: tiles that share their sides, each\n"
           "fitted until every sample's error is at most the tolerance (error <= tolerance: a sample exactly at\n"
           "it stays out), stitched by their common side vertices. Prints the vertices and triangles, the exact\n"
           "check of the bound at every sample and of the tiling, the TIN's digest (the same on any thread count)\n"
           "and the times. STRATA_THREADS=N sets the threads.\n\n",
           ST_DEM_TIN_MAX_SIDE);
    cli_options_usage(opts, count);
}

int cmd_tin(int argc, char **argv) {
    double t_start = st_time_ms();
    double tolerance_m = 4, units = 1;
    uint32_t tile = 0;
    bool serial = false, no_check = false, beside = false, help = false;
    const cli_opt opts[] = {
        {.name = "tolerance", .kind = CLI_OPT_DOUBLE, .target = &tolerance_m, .min = 1e-9, .max = 1e9, .arg = "M",
         .bad = "bad tolerance '%s' (want metres > 0)", .help = "the bound in metres (default 4)"},
        {.name = "units", .kind = CLI_OPT_DOUBLE, .target = &units, .min = 1e-9, .max = 1e9, .arg = "M",
         .bad = "bad units '%s' (want metres per sample unit > 0)",
         .help = "metres per sample unit (default 1; data/dem/ps_height_1k.png is in 0.1 m)"},
        {.name = "tile", .kind = CLI_OPT_UINT, .target = &tile, .min = 2, .max = ST_TIN_MAX_SIDE - 1, .arg = "N",
         .bad = "bad tile '%s' (want 2..4096 sample steps)",
         .help = "square tiles of N sample steps (default 64)"},
        {.name = "serial", .kind = CLI_OPT_FLAG, .target = &serial,
         .help = "one tile: the single fit on one thread, for comparison"},
        {.name = "sides-beside", .kind = CLI_OPT_FLAG, .target = &beside,
         .help = "also bound the surface between tile sides and the rows beside them (more vertices)"},
        {.name = "no-check", .kind = CLI_OPT_FLAG, .target = &no_check, .help = "skip the exact check"},
    };
    int first = argc;
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), 1, &first, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    if (argc - first != 1) return cli_usage_error(cmd, "expected one FILE.png");
    if (serial && tile) return cli_usage_error(cmd, "--serial is one tile: give --tile or --serial");
    const char *path = argv[first];
    double tolerance = tolerance_m / units;
    if (!(tolerance > 0) || tolerance > 65535)
        return cli_usage_error(cmd, "tolerance %g m is %g sample units (want more than 0, at most 65535)", tolerance_m,
                               tolerance);
    st_error err = {0};
    uint32_t w = 0, h = 0;
    void *px = NULL;
    double t0 = st_time_ms();
    int status = cli_read_grey16_png(cmd, path, 2, ST_DEM_TIN_MAX_SIDE, &w, &h, &px);
    if (status) return status;
    double read_ms = st_time_ms() - t0;
    uint32_t side = serial ? ST_DEM_TIN_MAX_SIDE : tile;
    st_dem_tin_desc d = {.width = w, .height = h, .samples = px, .tolerance = tolerance, .tile_x = side, .tile_y = side,
                         .sides_beside = beside};
    st_dem_tin *tin = NULL;
    t0 = st_time_ms();
    if (st_dem_tin_fit(&d, &tin, &err)) {
        free(px);
        return cli_fail(cmd, &err);
    }
    double fit_ms = st_time_ms() - t0;
    unsigned threads = serial ? 1 : st_job_threads();
    printf("%s: %ux%u samples, tolerance %g m = %g units of %g m (error <= tolerance)\n", path, w, h, tolerance_m,
           tolerance, units);
    printf("fit: %u tile(s) of %ux%u sample steps on %u thread(s): %.1f ms wall; %u vertices, %u triangles "
           "(reduction %.1fx vs 2 per cell), %.0f vertices/s\n",
           tin->tiles, tin->tile_x, tin->tile_y, threads < tin->tiles ? threads : tin->tiles, fit_ms, tin->vertex_count,
           tin->triangle_count, 2.0 * (double)(w - 1) * (double)(h - 1) / (double)tin->triangle_count,
           (double)tin->vertex_count / (fit_ms / 1000.0));
    status = CLI_EXIT_OK;
    double check_ms = 0;
    if (!no_check) {
        st_dem_tin_report rep;
        t0 = st_time_ms();
        st_result r = st_dem_tin_check(tin, px, tolerance, &rep, &err);
        check_ms = st_time_ms() - t0;
        if (r) {
            fprintf(stderr, "strata tin: the check failed: %s\n", err.message);
            status = CLI_EXIT_RUNTIME;
        } else {
            printf("check: the tiling conforms (no crack, no T-junction: %llu interior and %llu border edges); bound "
                   "at all %llu samples: max error %.4g m, %llu exactly at the tolerance, %llu over it -> %s\n",
                   (unsigned long long)rep.interior_edges, (unsigned long long)rep.border_edges,
                   (unsigned long long)rep.samples_checked, rep.max_error * units, (unsigned long long)rep.at_tolerance,
                   (unsigned long long)rep.over_tolerance, rep.over_tolerance ? "VIOLATED" : "holds");
            if (rep.over_tolerance) status = CLI_EXIT_RUNTIME;
        }
        printf("digest: %016llx (the vertices and triangles in order)\n", (unsigned long long)st_dem_tin_digest(tin));
    }
    printf("time: read %.1f ms, fit %.1f ms, check %.1f ms, command %.1f ms\n", read_ms, fit_ms, check_ms,
           st_time_ms() - t_start);
    st_dem_tin_destroy(tin);
    free(px);
    return status;
}
