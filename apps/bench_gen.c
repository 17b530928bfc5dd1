/* strata bench gen: generates the default world (2048×16384), or another size of it, N times and reports the
 * median, min and max wall time and the job system's thread count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/gen.h"

int bench_gen(int argc, char **argv) {
    const char *cmd = "bench gen";
    uint32_t runs = 5, size[2] = {ST_GEN_DEFAULT_WIDTH, ST_GEN_DEFAULT_HEIGHT};
    bool help = false, sized = false;
    const cli_opt opts[] = {
        CLI_OPT_REPEAT(&runs, 1000, "generations timed (default 5)"),
        {.name = "runs", .kind = CLI_OPT_UINT, .target = &runs, .min = 1, .max = 1000, .arg = "N",
         .bad = "bad --runs '%s' (1..1000)", .help = "the same as --repeat"},
        {.name = "size", .kind = CLI_OPT_SIZE, .target = size, .given = &sized, .min = 256, .max = 65536,
         .arg = "WxH", .help = "another size of the default seed's world (powers of two; the verdict is for the\n"
                               "default size only)"},
    };
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (parsed || help) {
        if (help) {
            printf("usage: strata bench gen [--repeat N] [--size WxH]\n\n"
                   "Generates the default world (%ux%u, seed %u, %g%% dual) N times and prints the median, min\n"
                   "and max milliseconds and the verdict on the target (median <= 3 s). STRATA_THREADS sets the\n"
                   "thread count.\n\noptions:\n",
                   ST_GEN_DEFAULT_WIDTH, ST_GEN_DEFAULT_HEIGHT, ST_GEN_DEFAULT_SEED,
                   (double)ST_GEN_DEFAULT_DUAL_PERCENT);
            cli_options_usage(opts, CLI_OPTS_COUNT(opts));
        }
        return parsed;
    }
    double *ms = calloc(runs, sizeof *ms);
    if (!ms) return CLI_EXIT_RUNTIME;
    for (uint32_t i = 0; i < runs; i++) {
        st_level *level = NULL;
        st_error err = {0};
        double t0 = st_time_ms();
        st_gen_desc d = {.width = size[0], .height = size[1]};
        st_result r = st_gen_world(&d, &level, &err);
        ms[i] = st_time_ms() - t0;
        if (r) {
            free(ms);
            return cli_fail(cmd, &err);
        }
        fprintf(stderr, "bench gen: run %u/%u: %.0f ms\n", i + 1, runs, ms[i]);
        st_level_destroy(level);
    }
    st_stats s = st_stats_of(ms, runs);
    printf("gen %ux%u: median %.1f ms, min %.1f ms, max %.1f ms over %u runs on %u threads\n", size[0], size[1],
           s.median, s.min, s.max, runs, st_job_threads());
    bool is_default = size[0] == ST_GEN_DEFAULT_WIDTH && size[1] == ST_GEN_DEFAULT_HEIGHT;
    cli_bench_verdict("median generation of the default world", "<=", 3000, "ms", s.median,
                      is_default ? NULL : "the target is for the default size");
    free(ms);
    return CLI_EXIT_OK;
}
