/* strata merge A.json B.json ...: one Markdown report across adapters (frame time per method per adapter)
 * and the accuracy cross-check against the first file. Exit status 0 even with findings: they are results. */
#include <stdio.h>
#include <stdlib.h>
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
    char **files = calloc((size_t)argc, sizeof *files);
    if (!files) return cli_usage_error("merge", "out of memory");
    size_t count = 0;
    int parsed = cli_options_parse("merge", argc, argv, opts, CLI_OPTS_COUNT(opts), files, (size_t)argc, &count, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        free(files);
        return parsed;
    }
    int status = CLI_EXIT_OK;
    st_error err = {0};
    size_t findings = 0;
    if (!count) status = cli_usage_error("merge", "give at least one results.json");
    else if (out && cli_check_output_file("merge", out)) status = CLI_EXIT_USAGE;
    else if (st_compare_merge((const char *const *)files, count, tol, out, &findings, &err))
        status = cli_fail("merge", &err);
    else if (out) fprintf(stderr, "strata merge: %s written, %zu finding%s\n", out, findings, findings == 1 ? "" : "s");
    free(files);
    return status;
}
