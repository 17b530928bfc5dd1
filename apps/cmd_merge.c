/* strata merge A.json B.json ...: one Markdown report across adapters (frame time per method per adapter)
 * and the accuracy cross-check against the first file. Exit status 0 even with findings: they are results. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "strata/eval.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata merge [-o FILE] [--tolerance P] RESULTS.json [RESULTS.json ...]\n\n"
           "Merges 'strata compare' results of several adapters into one Markdown report (stdout unless -o/--out):\n"
           "frame time per method per adapter, then every method x view whose see-through, coherence or\n"
           "covers-sky differs from the first file by more than P percentage points (default 0.05) as a finding.\n");
    cli_options_usage(opts, count);
}

int cmd_merge(int argc, char **argv) {
    const char *out = NULL;
    float tol = 0.05f;
    bool help = false;
    const cli_opt opts[] = {
        CLI_OPT_OUT(&out, "FILE", "the report (default: stdout)"),
        {.name = "tolerance", .kind = CLI_OPT_FLOAT, .target = &tol, .min = 0, .max = 100, .arg = "P",
         .help = "percentage points of difference that make a finding (default 0.05)"},
    };
    int first = argc;
    int parsed = cli_options_parse("merge", argc, argv, opts, CLI_OPTS_COUNT(opts), SIZE_MAX, &first, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    if (first >= argc) return cli_usage_error("merge", "give at least one results.json");
    if (out && cli_check_output_file("merge", out)) return CLI_EXIT_USAGE;
    st_error err = {0};
    size_t findings = 0;
    if (st_compare_merge((const char *const *)argv + first, (size_t)(argc - first), tol, out, &findings, &err))
        return cli_fail("merge", &err);
    if (out) fprintf(stderr, "strata merge: %s written, %zu finding%s\n", out, findings, findings == 1 ? "" : "s");
    return CLI_EXIT_OK;
}
