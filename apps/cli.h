/* Shared pieces of the strata command line: each subcommand lives in its own cmd_*.c file. */
#ifndef STRATA_CLI_H
#define STRATA_CLI_H

#include <getopt.h>

#include "strata/core.h"
#include "strata/level.h"

/* Exit statuses: 0 success, 1 runtime failure, 2 bad input or usage. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_RUNTIME 1
#define CLI_EXIT_USAGE 2

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

/* Prints "strata CMD: message" on stderr and returns the exit status for the error's code. */
int cli_fail(const char *cmd, const st_error *err);
/* Prints "strata CMD: <formatted>" and returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Resets getopt so a subcommand can parse its own argv. */
void cli_getopt_reset(void);
/* getopt_long with the common error handling: unknown option or missing argument → usage error. */
bool cli_parse_size(const char *text, uint32_t *w, uint32_t *h);
bool cli_parse_uint(const char *text, uint32_t min, uint32_t max, uint32_t *out);
bool cli_parse_float(const char *text, float min, float max, float *out);
/* Loads "default", a world directory, or a world.ini file. */
st_result cli_load_world(const char *path, st_level **out, st_error *err);

int cmd_gen(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_mesh(int argc, char **argv);

/* Benchmarks (strata bench NAME), one bench_*.c file each. */
int bench_gen(int argc, char **argv);
int bench_reference(int argc, char **argv);
int bench_decode(int argc, char **argv);
int bench_mesh(int argc, char **argv);

#endif
