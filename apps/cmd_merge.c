/* strata merge A.json B.json ...: one Markdown report across adapters (frame time per method per adapter)
 * and the accuracy cross-check against the first file. Exit status 0 even with findings: they are results. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "strata/eval.h"

static int usage(void) {
    printf("usage: strata merge [-o FILE] [--tolerance P] RESULTS.json [RESULTS.json ...]\n\n"
           "Merges 'strata compare' results of several adapters into one Markdown report (stdout unless -o/--out):\n"
           "frame time per method per adapter, then every method x view whose see-through, coherence or\n"
           "covers-sky differs from the first file by more than P percentage points (default 0.05) as a finding.\n");
    return CLI_EXIT_OK;
}

int cmd_merge(int argc, char **argv) {
    const char *out = NULL;
    float tol = 0.05f;
    static const struct option opts[] = {{"out", required_argument, 0, 'o'},
                                         {"tolerance", required_argument, 0, 't'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 't':
            if (!cli_parse_float(optarg, 0.0f, 100.0f, &tol)) return cli_usage_error("merge", "bad --tolerance '%s'", optarg);
            break;
        case 'h': return usage();
        default: return cli_usage_error("merge", "unknown option or missing value '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("merge", "give at least one results.json");
    if (out && cli_check_output_file("merge", out)) return CLI_EXIT_USAGE;
    st_error err = {0};
    size_t findings = 0;
    if (st_compare_merge((const char *const *)argv + optind, (size_t)(argc - optind), tol, out, &findings, &err))
        return cli_fail("merge", &err);
    if (out) fprintf(stderr, "strata merge: %s written, %zu finding%s\n", out, findings, findings == 1 ? "" : "s");
    return CLI_EXIT_OK;
}
