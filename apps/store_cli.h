/* The command line's pieces for tile stores drawn as worlds (store_cli.c): the level-of-detail options shared by
 * render, compare and view with --world STORE, opening a store into an engine, and the subcommands' store runs. */
#ifndef STRATA_STORE_CLI_H
#define STRATA_STORE_CLI_H

#include "cli.h"
#include "strata/large_world.h"
#include "strata/render.h"

/* getopt_long values of the shared options (outside the printable range the commands' own letters use), in the
 * order of cli_store_table. */
enum {
    CLI_OPT_TAU = 0x300,
    CLI_OPT_SKIRTS,
    CLI_OPT_LOD_GRID,
    CLI_OPT_LOD_RATIO,
    CLI_OPT_MORPH_RATIO,
    CLI_OPT_GPU_SLOTS,
    CLI_OPT_SLOW_LOAD,
    CLI_OPT_LOD_ERROR,
    CLI_OPT_CLIP_N,
    CLI_OPT_LOD_SELECT,
    CLI_OPT_LOD_CPU_LEVELS,
};

#define CLI_STORE_OPTIONS                                                                                            \
    {"tau", required_argument, 0, CLI_OPT_TAU}, {"skirts", no_argument, 0, CLI_OPT_SKIRTS},                          \
        {"lod-grid", required_argument, 0, CLI_OPT_LOD_GRID}, {"lod-ratio", required_argument, 0, CLI_OPT_LOD_RATIO}, \
        {"morph-ratio", required_argument, 0, CLI_OPT_MORPH_RATIO},                                                  \
        {"gpu-slots", required_argument, 0, CLI_OPT_GPU_SLOTS}, {"slow-load", required_argument, 0, CLI_OPT_SLOW_LOAD}, \
        {"lod-error", required_argument, 0, CLI_OPT_LOD_ERROR}, {"clip-n", required_argument, 0, CLI_OPT_CLIP_N},        \
        {"lod-select", required_argument, 0, CLI_OPT_LOD_SELECT},                                                    \
        {"lod-cpu-levels", required_argument, 0, CLI_OPT_LOD_CPU_LEVELS}

typedef struct cli_store_opts {
    float tau_px;              /* 0 = 1 */
    bool skirts;
    uint32_t grid, gpu_slots;  /* 0 = defaults */
    float lod_ratio, morph_ratio;
    double slow_load_ms;
    bool error_bound;          /* --lod-error bound */
    uint32_t clip_n;           /* clipmap grid (0 = from τ) */
    bool select_gpu;           /* --lod-select gpu */
    uint32_t select_threads;   /* --lod-select gpu:N, the selection's workgroup (0 = its default) */
    int32_t select_cpu_levels; /* --lod-cpu-levels K as the knob lod_select_cpu_levels (0 = its default, -1 = K 0) */
} cli_store_opts;

/* The value of --world in a command's arguments (--world X or --world=X), or NULL. */
const char *cli_world_arg(int argc, char **argv);
#define CLI_STORE_OPTION_COUNT 11
/* The options above as table entries into out[0..CLI_STORE_OPTION_COUNT), in the order of their codes (their
 * values go into o), for cli_options_parse; returns the count. */
size_t cli_store_table(cli_store_opts *o, cli_opt *out);
/* Takes getopt_long's c when it is one of CLI_STORE_OPTIONS (true; *status CLI_EXIT_USAGE after a bad value; the
 * same values and messages as the table). */
bool cli_store_option(cli_store_opts *o, const char *cmd, int c, const char *arg, int *status);
/* The options as method knobs. */
void cli_store_knobs(const cli_store_opts *o, st_method_knobs *k);
/* Opens the store and an engine holding it as its large world. */
st_result cli_store_engine(const char *world, const cli_store_opts *o, int device, bool device_given, bool validate,
                           st_store **store, st_engine **engine, st_error *err);
/* "cdlod, cdlod-compute, ...": the methods of stores. */
const char *cli_store_methods_list(void);
/* CLI_EXIT_OK when `method` draws stores, else the one usage error saying so. */
int cli_store_method_check(const char *cmd, const char *method, const char *world);
/* CLI_EXIT_OK unless --lod-select gpu is asked of a method other than cdlod (then the one usage error saying so). */
int cli_store_select_check(const char *cmd, const char *method, const cli_store_opts *o);
/* One line of a frame's level-of-detail figures, one of the residency's. */
void cli_print_lod(const st_lod_frame_stats *s);
void cli_print_world(const st_world_stats *w);

int cli_render_store(int argc, char **argv);  /* strata render --world STORE */
int cli_compare_store(int argc, char **argv); /* strata compare --world STORE */
int cli_view_store(int argc, char **argv);    /* strata view --world STORE */

#endif
