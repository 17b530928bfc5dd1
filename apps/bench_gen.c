/* strata bench gen: generates the default world (2048×16384) N times and reports the median, min and
 * max wall time and the job system's thread count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/gen.h"

int bench_gen(int argc, char **argv) {
    const char *cmd = "bench gen";
    uint32_t runs = 5;
    static const struct option opts[] = {{"repeat", required_argument, 0, 'r'}, {"runs", required_argument, 0, 'r'},
                                         {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (!cli_parse_uint(optarg, 1, 1000, &runs)) return cli_usage_error(cmd, "bad --repeat '%s' (1..1000)", optarg);
            break;
        case 'h':
            printf("usage: strata bench gen [--repeat N]\n\n"
                   "Generates the default world (%ux%u, seed %u, %g%% dual) N times (default 5; --runs is the\n"
                   "same) and prints the median, min and max milliseconds and the verdict on the target (median\n"
                   "<= 3 s). STRATA_THREADS sets the thread count.\n",
                   ST_GEN_DEFAULT_WIDTH, ST_GEN_DEFAULT_HEIGHT, ST_GEN_DEFAULT_SEED,
                   (double)ST_GEN_DEFAULT_DUAL_PERCENT);
            return CLI_EXIT_OK;
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    double *ms = calloc(runs, sizeof *ms);
    if (!ms) return CLI_EXIT_RUNTIME;
    for (uint32_t i = 0; i < runs; i++) {
        st_level *level = NULL;
        st_error err = {0};
        double t0 = st_time_ms();
        st_result r = st_gen_world(NULL, &level, &err);
        ms[i] = st_time_ms() - t0;
        fprintf(stderr, "bench gen: run %u/%u: %.0f ms\n", i + 1, runs, ms[i]);
        if (r) {
            free(ms);
            return cli_fail(cmd, &err);
        }
        st_level_destroy(level);
    }
    st_stats s = st_stats_of(ms, runs);
    printf("gen %ux%u: median %.1f ms, min %.1f ms, max %.1f ms over %u runs on %u threads\n", ST_GEN_DEFAULT_WIDTH,
           ST_GEN_DEFAULT_HEIGHT, s.median, s.min, s.max, runs, st_job_threads());
    cli_bench_verdict("median generation of the default world", "<=", 3000, "ms", s.median, NULL);
    free(ms);
    return CLI_EXIT_OK;
}
