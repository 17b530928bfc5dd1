/* strata bench NAME: benchmarks that measure the speed targets (never timed unit tests). Each benchmark
 * lives in its own bench_*.c file, prints a median over repeated runs and a verdict line per target; repeats
 * are --repeat N in every one. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct bench_entry {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} bench_entry;

static const bench_entry benches[] = {
    {"gen", "generate the default world (2048×16384), median ms (target ≤ 3 s)", bench_gen},
    {"reference", "CPU reference cast of default views at 1280×800 (median per view, target ≤ 2 s)", bench_reference},
    {"decode", "decode the default world's .vmc (2048×16384) from memory, median ms (target ≤ 150 ms)", bench_decode},
    {"mesh", "mesh fit of the default world (target ≥ 2 M tri/s), refit after the r48 crater (≤ 3 ms CPU), "
             "GPU bytes/tri (≤ 8), DEM fit", bench_mesh},
    {"upload", "GPU tile pool: 257² u16/f32 tiles through the pinned staging ring, GiB/s (target >= 20)", bench_upload},
    {"tiles", "tile streaming: request storm (median us/request, target <= 1 us), slow-load flatness", bench_tiles},
    {"dem", "DEM window reads through st_dem_open (GeoTIFF, pooled GDAL handles, raw): windows/s", bench_dem},
    {"lod", "CDLOD selection on the CPU per view and along a flight, 1920×1080 (median ms, target <= 0.05)", bench_lod},
    {"ocean", "FFT ocean simulation (target 3×256² ≤ 0.08 ms) and water surface pass (≤ 0.5 ms at 1280×800, "
              "≤ 1.5 ms at 3840×2160), GPU timestamps", bench_ocean},
    {"materials", "material synthesis at start-up (target ≤ 200 ms) and texture fetches per pixel on a floor "
                  "(≤ 8) and an 80° cliff (≤ 12), per method", bench_materials},
};
#define BENCH_COUNT (sizeof benches / sizeof benches[0])

bool cli_bench_verdict(const char *what, const char *cmp, double limit, const char *unit, double measured,
                       const char *not_applicable) {
    bool met = !strcmp(cmp, ">=") ? measured >= limit : measured <= limit;
    printf("target: %s %s %g %s: ", what, !strcmp(cmp, ">=") ? "≥" : "≤", limit, unit);
    if (not_applicable) printf("n/a for this run (%s; measured %.4g %s)\n", not_applicable, measured, unit);
    else printf("%s (measured %.4g %s)\n", met ? "met" : "MISSED", measured, unit);
    return met && !not_applicable;
}

int cmd_bench(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        printf("usage: strata bench NAME [--repeat N] [OPTIONS]\n\nbenchmarks:\n");
        for (size_t i = 0; i < BENCH_COUNT; i++) printf("  %-12s %s\n", benches[i].name, benches[i].summary);
        return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    for (size_t i = 0; i < BENCH_COUNT; i++)
        if (!strcmp(argv[1], benches[i].name)) return benches[i].run(argc - 1, argv + 1);
    return cli_usage_error("bench", "unknown benchmark '%s'", argv[1]);
}
