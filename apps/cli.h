/* Shared pieces of the strata command line: each subcommand lives in its own cmd_*.c file. */
#ifndef STRATA_CLI_H
#define STRATA_CLI_H

#include <getopt.h>
#include <signal.h>

#include "strata/core.h"
#include "strata/dem.h"
#include "strata/eval.h"
#include "strata/level.h"
#include "strata/tiles.h"
#include "strata/render.h"
#include "strata/views.h"

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
/* Whether name ends in suffix, ignoring case (".png"). */
bool cli_has_suffix(const char *name, const char *suffix);
/* Checks, before any work, that an output file can be created where path says (its folder exists and path is
 * no directory) by opening and removing its temporary; prints "strata CMD: ..." and returns CLI_EXIT_USAGE
 * when not, CLI_EXIT_OK when it can. */
int cli_check_output_file(const char *cmd, const char *path);
/* Resets getopt so a subcommand can parse its own argv. */
void cli_getopt_reset(void);
/* "WxH" with both sides in 1..65536 (a command bounds them further); false otherwise. */
bool cli_parse_size(const char *text, uint32_t *w, uint32_t *h);
/* A whole decimal number in [min, max] and nothing else; false otherwise. */
bool cli_parse_uint(const char *text, uint32_t min, uint32_t max, uint32_t *out);
/* A finite number in [min, max] and nothing else; false otherwise. */
bool cli_parse_float(const char *text, float min, float max, float *out);
/* A finite number in [min, max] kept in double precision (metres, spacings: 0.1 must stay 0.1). */
bool cli_parse_double(const char *text, double min, double max, double *out);
/* Parses 1..cap comma-separated integers, each in [min, max] (min, max within int); returns how many, or 0
 * when the text is malformed, a value is out of range or there are more than cap. */
size_t cli_parse_ints(const char *text, long min, long max, int *out, size_t cap);
/* Reads a 16-bit grey PNG of min_side..max_side samples a side (a single-layer DEM) into *samples (malloc'd, w*h
 * of them), judged by its header before anything is decoded; returns CLI_EXIT_OK, or the exit status after one
 * line "strata CMD: ..." on stderr. */
int cli_read_grey16_png(const char *cmd, const char *path, uint32_t min_side, uint32_t max_side, uint32_t *w,
                        uint32_t *h, void **samples);
/* Loads "default", a world directory, a world.ini file, "gen:multi:SEED:WxH[:DUAL]" (generated whole: a level's
 * size limits apply), a folder of height.png and color.png or a height map's .png (st_level_load_world_pair). */
st_result cli_load_world(const char *path, st_level **out, st_error *err);
/* cli_load_world, or with color (--color FILE) the Comanche-style pair of height map `path` (a .png) and that
 * colour map (st_level_load_color_pair); color with any other world is ST_ERR_INVALID. */
st_result cli_load_world_color(const char *path, const char *color, st_level **out, st_error *err);
#define CLI_OPT_COLOR(dst)                                                                                      \
    {.name = "color", .kind = CLI_OPT_STRING, .target = (dst), .arg = "FILE",                                   \
     .help = "the colour map of --world HEIGHT.png (a Comanche-style pair: the colour map is the albedo)"}
/* The camera of view `name` (NULL = the world's first default view) on the level, or, where there is none, on
 * the paged world of layer store `pages` (its size and the texel under the view read through its pages). */
st_result cli_view_camera(const st_level *level, st_store *pages, const char *name, st_camera *camera,
                          st_error *err);
/* A world folder's own materials for textured shading (docs/materials.md): WORLD/materials/NAME_albedo.png ...
 * added to the engine's set, and WORLD/control.ctl as the level's control map; nothing for other worlds or when
 * they are absent. */
st_result cli_world_materials(st_engine *engine, const char *world, st_error *err);
/* The verdict on the engine's Vulkan validation: CLI_EXIT_OK when it saw no messages, otherwise
 * "strata CMD: N Vulkan validation message(s)" on stderr and CLI_EXIT_RUNTIME. */
int cli_validation_status(const char *cmd, const st_engine *engine);
/* Splits a comma list in place into at most cap items; returns how many. */
size_t cli_split_list(char *text, char **items, size_t cap);

/* ---- options (cli_options.c) -----------------------------------------------------------------------------
 * A command declares its options once, as a table; cli_options_parse reads argv through getopt_long (long
 * names and their unique prefixes, --name=value, a one-letter form, options anywhere among the arguments) with
 * one error line per problem, and cli_options_usage prints the table as its --help's option list. The options
 * several commands share are declared once below (CLI_OPT_WORLD, CLI_OPT_SIZE_WH, ...). */
typedef enum cli_opt_kind {
    CLI_OPT_FLAG,   /* no value: *(bool *)target = true */
    CLI_OPT_CLEAR,  /* no value: *(bool *)target = false (--no-X after --X) */
    CLI_OPT_SET,    /* no value: *(int *)target = (int)min, an enum's value (the last one given wins) */
    CLI_OPT_STRING, /* *(const char **)target = the value */
    CLI_OPT_UINT,   /* *(uint32_t *)target = a whole number in [min, max] */
    CLI_OPT_FLOAT,  /* *(float *)target = a finite number in [min, max] */
    CLI_OPT_DOUBLE, /* *(double *)target = the same, in double precision */
    CLI_OPT_SIZE,   /* ((uint32_t *)target)[0], [1] = W and H of "WxH", each in [min, max] */
    CLI_OPT_PARSE,  /* parse(value, target) takes it: false is a bad value */
} cli_opt_kind;

typedef struct cli_opt {
    const char *name;  /* the long name: "world" for --world */
    char letter;       /* a one-letter form ('o' for -o); 0 for none */
    cli_opt_kind kind;
    void *target;
    bool *given;       /* set true when the option appears (may be NULL) */
    double min, max;   /* UINT, FLOAT, DOUBLE, SIZE */
    bool (*parse)(const char *value, void *target); /* PARSE (value NULL: an optional value not given) */
    bool optional;     /* the value may be left out (PARSE only): --name, --name=V or --name V with V a number */
    const char *bad;   /* the error for a bad value: a format with one %s (the value); NULL: "bad --NAME '%s'" */
    const char *arg;   /* the value's name in the option list ("W", "N", "WxH"); NULL for a flag */
    const char *help;  /* its text in the option list ('\n' continues it on the next line); NULL: not listed */
} cli_opt;

/* Parses argv[1..argc) against opts[0..count), each value into its option's target. The arguments that are no
 * option end up, in their order, at argv[*first..argc) (first may be NULL when max_args is 0); more than
 * max_args of them is an error. Returns CLI_EXIT_OK to go on, or CLI_EXIT_USAGE after one line "strata CMD: ..."
 * on stderr for an unknown option, a missing or bad value or an argument too many. With -h or --help it stops
 * there with *help set and CLI_EXIT_OK: the command prints its usage. */
int cli_options_parse(const char *cmd, int argc, char **argv, const cli_opt *opts, size_t count, size_t max_args,
                      int *first, bool *help);
/* Takes one option's value (NULL for a flag, or an optional value left out) into its target; CLI_EXIT_USAGE
 * after the option's one-line error when the value is bad. */
int cli_option_take(const char *cmd, const cli_opt *o, const char *value);
/* The option list of a --help: one entry per listed option, "  --name ARG  text". */
void cli_options_usage(const cli_opt *opts, size_t count);
#define CLI_OPTS_COUNT(table) (sizeof(table) / sizeof((table)[0]))
#define CLI_STR(x) #x
#define CLI_XSTR(x) CLI_STR(x) /* a macro's value as a string literal */

/* The options several commands share. */
#define CLI_OPT_WORLD(dst)                                                                                      \
    {.name = "world", .kind = CLI_OPT_STRING, .target = (dst), .arg = "W",                                      \
     .help = "'default' (the embedded procedural world; the default), a world directory or world.ini,\n" \
             "a layer store (strata tile), gen:multi:SEED:WxH, a height map's .png (with --color, a\n"     \
             "Comanche-style pair) or a folder holding height.png and color.png"}
/* -o/--out: the command's output (a file or a folder, as help says). */
#define CLI_OPT_OUT(dst, arg_name, text)                                                                        \
    {.name = "out", .letter = 'o', .kind = CLI_OPT_STRING, .target = (dst), .arg = (arg_name), .help = (text)}
/* --size WxH into uint32_t wh[2], each side 1..max. */
#define CLI_OPT_SIZE_WH(wh, max_side, text)                                                                        \
    {.name = "size", .kind = CLI_OPT_SIZE, .target = (wh), .min = 1, .max = (max_side), .arg = "WxH",            \
     .bad = "bad --size '%s' (WxH, each 1.." #max_side ")", .help = (text)}
#define CLI_OPT_FRAMES(dst, max_frames, text)                                                                   \
    {.name = "frames", .kind = CLI_OPT_UINT, .target = (dst), .min = 1, .max = (max_frames), .arg = "N",      \
     .bad = "bad --frames '%s' (1.." #max_frames ")", .help = (text)}
#define CLI_OPT_METHODS(dst)                                                                                    \
    {.name = "methods", .kind = CLI_OPT_STRING, .target = (dst), .arg = "a,b",                                  \
     .help = "the methods, comma-separated (default: every one)"}
#define CLI_OPT_DEVICE(dst, given_flag)                                                                         \
    {.name = "device", .kind = CLI_OPT_UINT, .target = (dst), .given = (given_flag), .min = 0, .max = 64,     \
     .arg = "N", .bad = "bad --device '%s' (an adapter index, see 'strata devices')",                           \
     .help = "Vulkan adapter index (see 'strata devices'); default: discrete > integrated > CPU"}
#define CLI_OPT_NO_SHADOWS(dst)                                                                                 \
    {.name = "no-shadows", .kind = CLI_OPT_FLAG, .target = (dst),                                              \
     .help = "skip the shared shadow map (on by default)"}
#define CLI_OPT_SHADOW_SIZE(dst, text)                                                                          \
    {.name = "shadow-size", .kind = CLI_OPT_UINT, .target = (dst), .min = 16, .max = 8192, .arg = "N",        \
     .bad = "bad --shadow-size '%s' (16..8192)", .help = (text)}
#define CLI_OPT_FAR(dst)                                                                                        \
    {.name = "far", .kind = CLI_OPT_FLOAT, .target = (dst), .min = 2, .max = 100000, .arg = "F",              \
     .bad = "bad --far '%s' (2..100000)",                                                                         \
     .help = "far distance in texels, 2..100000 (default 600; fog reaches full at far)"}
/* --repeat N: how many timed runs a benchmark takes, 1..max. */
#define CLI_OPT_REPEAT(dst, max_runs, text)                                                                     \
    {.name = "repeat", .kind = CLI_OPT_UINT, .target = (dst), .min = 1, .max = (max_runs), .arg = "N",        \
     .bad = "bad --repeat '%s' (1.." #max_runs ")", .help = (text)}
/* --shading flat|textured into an st_shading; `text` says the command's default. */
bool cli_parse_shading(const char *value, void *shading);
/* The same, and fetches (ST_SHADING_FETCHES: texture fetches per pixel as the image), for strata render. */
bool cli_parse_shading_fetches(const char *value, void *shading);
#define CLI_OPT_SHADING(dst, text)                                                                              \
    {.name = "shading", .kind = CLI_OPT_PARSE, .target = (dst), .parse = cli_parse_shading, .arg = "S",        \
     .bad = "unknown shading '%s' (flat or textured)", .help = (text)}
#define CLI_OPT_JSON(dst)                                                                                       \
    {.name = "json", .kind = CLI_OPT_FLAG, .target = (dst), .help = "the same as one JSON object on stdout"}

/* The raw-grid options of the elevation readers (convert, tile), into an st_dem_open_desc: --raw WxH, --type
 * s16|u16|f32 (type_given set when given), --endian le|be. */
bool cli_parse_raw(const char *value, void *dem_open_desc);
bool cli_parse_raw_type(const char *value, void *dem_open_desc);
bool cli_parse_endian(const char *value, void *dem_open_desc);
#define CLI_OPT_RAW(od)                                                                                            \
    {.name = "raw", .kind = CLI_OPT_PARSE, .target = (od), .parse = cli_parse_raw, .arg = "WxH",                  \
     .bad = "bad --raw '%s' (like 1080x540)", .help = "raw samples, no header: W*H of them"}
#define CLI_OPT_RAW_TYPE(od, type_given)                                                                           \
    {.name = "type", .kind = CLI_OPT_PARSE, .target = (od), .given = (type_given), .parse = cli_parse_raw_type,   \
     .arg = "s16|u16|f32", .bad = "--type must be s16, u16 or f32, not '%s'", .help = "the raw samples' type (default s16)"}
#define CLI_OPT_ENDIAN(od)                                                                                         \
    {.name = "endian", .kind = CLI_OPT_PARSE, .target = (od), .parse = cli_parse_endian, .arg = "le|be",          \
     .bad = "--endian must be le or be, not '%s'", .help = "the raw samples' byte order (default le)"}

/* ---- the measurement options of compare and tune (cli_measure.c) ---------------------------------------- */

/* --world, --methods, --views, --size, --frames, --warmup, --far, --out, --cache, --device, --validate,
 * --no-shadows, --no-progress as parsed; zero (or NULL) where not given, for the run's own default. */
typedef struct cli_measure {
    const char *world;             /* default "default" */
    const char *out;               /* the command's default folder */
    const char *cache;             /* default out/cache; "" for --cache none */
    char *methods_arg, *views_arg; /* comma lists as given (split in place later) */
    uint32_t width, height, frames, warmup;
    uint32_t shadow_size; /* --shadow-size; 0 = the run's own */
    float far_dist;
    int device_index; /* -1 unless --device */
    bool device_given, validate, no_shadows, no_progress;
} cli_measure;

/* getopt_long table entries of the options above (their values are what cli_measure_option takes). */
#define CLI_MEASURE_OPTIONS                                                         \
    {"world", required_argument, 0, 'w'},   {"methods", required_argument, 0, 'm'}, \
    {"views", required_argument, 0, 'v'},   {"size", required_argument, 0, 's'},    \
    {"frames", required_argument, 0, 'f'},  {"warmup", required_argument, 0, 'u'},  \
    {"far", required_argument, 0, 'F'},     {"out", required_argument, 0, 'o'},     \
    {"cache", required_argument, 0, 'c'},   {"device", required_argument, 0, 'd'},  \
    {"validate", no_argument, 0, 'V'},      {"no-shadows", no_argument, 0, 'S'},    \
    {"no-progress", no_argument, 0, 'P'},   {"shadow-size", required_argument, 0, 'Z'}

/* The shared part of a compare or tune run, from the parsed options and the loaded world. */
st_measure_desc cli_measure_desc(const cli_measure *m, const st_level *level, const st_viewpoint *views,
                                 size_t view_count, char *const *method_items, size_t method_count);

/* Nothing given yet: world "default", output folder `out`, cache out/cache. */
cli_measure cli_measure_defaults(const char *out);
/* The texts of the options whose defaults differ between the commands (NULL: not listed in --help). */
typedef struct cli_measure_help {
    const char *methods, *views, *size, *frames, *warmup, *out, *no_shadows, *shadow_size;
} cli_measure_help;
#define CLI_MEASURE_OPTION_COUNT 14
/* The options above as table entries into out[0..CLI_MEASURE_OPTION_COUNT) (their values go into m), for
 * cli_options_parse; returns the count. */
size_t cli_measure_table(cli_measure *m, const cli_measure_help *help, cli_opt *out);
/* Takes getopt_long's result c (with its argument) when it is one of CLI_MEASURE_OPTIONS and returns true;
 * *status is then CLI_EXIT_OK, or CLI_EXIT_USAGE once a bad value has been reported for cmd (the same values and
 * messages as the table). Returns false, touching nothing, for any other c: the command's own option. */
bool cli_measure_option(cli_measure *m, const char *cmd, int c, char *arg, int *status);
/* Splits --methods into items (at most cap, *count of them; none without --methods) and returns the first
 * name that is no registered method, or NULL when all are. */
const char *cli_measure_methods(const cli_measure *m, char **items, size_t cap, size_t *count);
/* With --views: the views it names (names or specs, comma-separated; a spec's own x,y comma is kept), looked
 * up in level and appended to views[*count]
 * (room for ST_MAX_VIEWS in all). */
st_result cli_measure_find_views(const cli_measure *m, const st_level *level, st_viewpoint *views, size_t *count,
                                 st_error *err);
/* The same for a world of width×height known without its level (a paged store): named views by that size. */
st_result cli_measure_find_views_sized(const cli_measure *m, uint32_t width, uint32_t height, st_viewpoint *views,
                                       size_t *count, st_error *err);
/* The progress display: on unless --no-progress; a bar when stderr is a terminal, else one line per step. */
bool cli_measure_progress(const cli_measure *m);
bool cli_measure_progress_lines(const cli_measure *m);
/* SIGINT asks a measurement run to stop: the flag the runs poll (st_measure_desc.cancel), set by the handler
 * cli_measure_catch_interrupt installs. A signal flag is the one mutable global a signal handler may touch. */
extern volatile sig_atomic_t cli_interrupted;
void cli_measure_catch_interrupt(void);

/* ---- the water options (cli_water.c) ------------------------------------------------------------------ */
typedef struct cli_water {
    st_water_desc desc; /* mode, wind, choppiness and level as given (zero = the defaults) */
    bool mode_given;
    double time; /* --time, seconds */
    bool time_given;
} cli_water;

enum { CLI_OPT_WATER = 0x380, CLI_OPT_WIND, CLI_OPT_CHOPPY, CLI_OPT_TIME, CLI_OPT_WATER_LEVEL, CLI_OPT_WATER_DRAW,
       CLI_OPT_WATER_DEPTH };
#define CLI_WATER_OPTIONS                                                                       \
    {"water", required_argument, 0, CLI_OPT_WATER}, {"wind", required_argument, 0, CLI_OPT_WIND}, \
    {"choppy", required_argument, 0, CLI_OPT_CHOPPY}, {"time", required_argument, 0, CLI_OPT_TIME}, \
    {"water-level", required_argument, 0, CLI_OPT_WATER_LEVEL}, {"water-draw", required_argument, 0, CLI_OPT_WATER_DRAW}, \
    {"water-depth", required_argument, 0, CLI_OPT_WATER_DEPTH}
#define CLI_WATER_USAGE                                                                                         \
    "  --water M     none, gerstner (a few waves) or ocean (the FFT ocean); default ocean where the world has\n" \
    "                water (material 0 at the flood level), else none\n"                                      \
    "  --wind S[,D]  wind speed in m/s (0.1..60, default 5) and the direction it blows toward (like yaw)\n"   \
    "  --choppy L    sideways displacement of the waves, 0..4 (default 1; 0 = round crests)\n"               \
    "  --time T      the waves' time in seconds (default 0), for reproducible frames\n"                      \
    "  --water-level Z  the mean surface height (default: the flood level + 0.5)\n"                          \
    "  --water-draw D   compute (the default: rasterised and shaded in compute) or raster (vertex and fragment)\n" \
    "  --water-depth H  metres of water in the dispersion relation (default 0: deep water)\n"

#define CLI_WATER_OPTION_COUNT 7
/* The water options as table entries into out[0..CLI_WATER_OPTION_COUNT) (their values go into w), for
 * cli_options_parse; returns the count. */
size_t cli_water_table(cli_water *w, cli_opt *out);
/* Takes getopt_long's result c when it is a water option (*status as for cli_measure_option, the same values and
 * messages as the table); false for any other c. */
bool cli_water_option(cli_water *w, const char *cmd, int c, const char *arg, int *status);
/* Without --water: the ocean when the world has water, else `otherwise`. */
void cli_water_resolve(cli_water *w, const st_level *level, st_water_mode otherwise);
/* The same for a paged world held by no level: from the layer store's index (its tiles' lowest heights) and
 * flood levels, reading no texel. */
void cli_water_resolve_paged(cli_water *w, st_store *store, st_water_mode otherwise);

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
int cmd_tin(int argc, char **argv);
int cmd_tile(int argc, char **argv);
int cmd_fly(int argc, char **argv);
/* True for a tile store the commands draw as one: a folder holding the store.json of a DEM store, an http(s):// URL,
 * or gen:SEED:WxH (not gen:multi:... nor a layer store's folder, which load as levels; strata info and strata tile
 * take them as stores). */
bool cli_is_store(const char *where);
/* True for a folder holding a layer store (two-interval tiles of a multi-layer world): cli_load_world reads it
 * into a level. */
bool cli_is_layer_store(const char *where);
/* strata info STORE (info_store.c): prints the store; preview: a PNG of level `level` (negative: the coarsest
 * that fits 2048 pixels, or level 0 with a region), of the region (x, y, w, h) of it when given. */
int cli_info_store(const char *cmd, const char *where, bool json, const char *preview, int level,
                   const uint64_t *region);

/* A benchmark's verdict, one line in one form for every bench: "target: WHAT CMP LIMIT UNIT: met|MISSED
 * (measured M UNIT)", or "n/a for this run (CONDITION)" when the run is not what the target is about (a
 * condition is given). cmp is "<=" or ">=". Returns whether the target was met. */
bool cli_bench_verdict(const char *what, const char *cmp, double limit, const char *unit, double measured,
                       const char *not_applicable);

/* Benchmarks (strata bench NAME), one bench_*.c file each. */
int bench_gen(int argc, char **argv);
int bench_reference(int argc, char **argv);
int bench_decode(int argc, char **argv);
int bench_mesh(int argc, char **argv);
int bench_upload(int argc, char **argv);
int bench_tiles(int argc, char **argv);
int bench_dem(int argc, char **argv);
int bench_lod(int argc, char **argv);
int bench_ocean(int argc, char **argv);
/* strata bench materials: the material set's synthesis time and the texture fetches per pixel (bench_materials.c). */
int bench_materials(int argc, char **argv);

#endif
