/* strata: the command line. Dispatches to one subcommand per file (cmd_*.c). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include "cli.h"
#include "strata/file.h"
#include "strata/gen.h"
#include "strata/heightmap.h"
#include "strata/image.h"
#include "strata/tiles.h"
#include "strata/views.h"
#include "strata/world.h"

static const cli_command commands[] = {
    {"run", "the main job: every method on the default world's views into out/, with a timing table", cmd_run},
    {"render", "render one image of a world with one method", cmd_render},
    {"gen", "generate the procedural multi-layer world and write it to disk", cmd_gen},
    {"info", "print a world's size, dual fraction and material histogram", cmd_info},
    {"devices", "list the Vulkan adapters strata can use", cmd_devices},
    {"bench", "benchmarks of the speed targets (generator, decoder, reference, ...)", cmd_bench},
    {"compare", "score every method against the CPU reference: timings, accuracy, reports", cmd_compare},
    {"tune", "sweep each method's quality knob against the reference and pick the cheapest within 1 point", cmd_tune},
    {"merge", "merge compare results of several adapters into one Markdown report", cmd_merge},
    {"convert", "convert worlds, PNG sets and elevation models (PNG, SRTM .hgt, raw int16)", cmd_convert},
    {"view", "the interactive viewer: a window with any method live, a HUD, cameras, edits, screenshots", cmd_view},
    {"mesh", "fit the chunked three-LOD triangle mesh of a world; stats, optional .obj/.ply export", cmd_mesh},
    {"tin", "fit a single-layer DEM as one TIN in parallel tiles; the exact bound check and the time", cmd_tin},
    {"tile", "build a tile store (terrain bigger than memory) from DEMs, the procedural DEM or a world", cmd_tile},
    {"fly", "a scripted flight over a tile store: every frame's times, triangles, tiles, uploads and holes", cmd_fly},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

int cli_fail(const char *cmd, const st_error *err) {
    fprintf(stderr, "strata %s: %s\n", cmd, err->message[0] ? err->message : st_result_name(err->code));
    switch (err->code) {
    case ST_ERR_INVALID:
    case ST_ERR_FORMAT:
    case ST_ERR_IO: return CLI_EXIT_USAGE;
    default: return CLI_EXIT_RUNTIME;
    }
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "strata %s: %s (see 'strata %s --help')\n", cmd, line, cmd);
    return CLI_EXIT_USAGE;
}

bool cli_has_suffix(const char *name, const char *suffix) {
    size_t n = strlen(name), m = strlen(suffix);
    return n >= m && !strcasecmp(name + n - m, suffix);
}

int cli_check_output_file(const char *cmd, const char *path) {
    st_atomic_file f;
    st_error err = {0};
    if (st_atomic_open(&f, path, &err)) {
        fprintf(stderr, "strata %s: %s\n", cmd, err.message);
        return CLI_EXIT_USAGE;
    }
    st_atomic_abort(&f);
    return CLI_EXIT_OK;
}

void cli_getopt_reset(void) {
    optind = 0; /* glibc: full re-initialisation */
    opterr = 0; /* we print our own one-line errors */
}

bool cli_parse_uint(const char *text, uint32_t min, uint32_t max, uint32_t *out) {
    if (!text || !*text || *text == '-' || *text == '+') return false;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || v < min || v > max) return false;
    *out = (uint32_t)v;
    return true;
}

bool cli_parse_float(const char *text, float min, float max, float *out) {
    if (!text || !*text) return false;
    char *end;
    double v = strtod(text, &end);
    if (*end || !(v >= min && v <= max)) return false;
    *out = (float)v;
    return true;
}

bool cli_parse_double(const char *text, double min, double max, double *out) {
    if (!text || !*text) return false;
    char *end;
    double v = strtod(text, &end);
    if (*end || !(v >= min && v <= max)) return false;
    *out = v;
    return true;
}

size_t cli_parse_ints(const char *text, long min, long max, int *out, size_t cap) {
    size_t n = 0;
    const char *p = text;
    while (p && *p && n < cap) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno == ERANGE || v < min || v > max) return 0;
        out[n++] = (int)v;
        if (*end == 0) return n;
        if (*end != ',') return 0;
        p = end + 1;
    }
    return 0; /* empty, a trailing comma, or more than cap values */
}

bool cli_parse_size(const char *text, uint32_t *w, uint32_t *h) {
    const char *x = text ? strchr(text, 'x') : NULL;
    if (!x) return false;
    char left[32];
    size_t n = (size_t)(x - text);
    if (n == 0 || n >= sizeof left) return false;
    memcpy(left, text, n);
    left[n] = 0;
    return cli_parse_uint(left, 1, 65536, w) && cli_parse_uint(x + 1, 1, 65536, h);
}

int cli_validation_status(const char *cmd, const st_engine *engine) {
    uint32_t n = st_engine_validation_messages(engine);
    if (!n) return CLI_EXIT_OK;
    fprintf(stderr, "strata %s: %u Vulkan validation message(s)\n", cmd, n);
    return CLI_EXIT_RUNTIME;
}

st_result cli_load_world(const char *path, st_level **out, st_error *err) {
    if (path && !strncmp(path, "gen:multi:", 10)) { /* the generated world whole, where a level can hold it */
        st_gen_desc d;
        st_result r = st_gen_parse(path, &d, err);
        return r ? r : st_gen_world(&d, out, err);
    }
    if (cli_is_layer_store(path)) { /* a layer store's folder: the whole world read back into a level */
        st_store *s = NULL;
        st_result r = st_store_open(path, &s, err);
        if (!r) r = st_store_read_level(s, out, err);
        st_store_close(s);
        return r;
    }
    bool taken = false; /* a Comanche-style pair's folder, or a height map's .png */
    st_result r = st_level_load_world_pair(path, &taken, out, err);
    if (taken) return r;
    r = st_world_load(path, out, err);
    if (!r && path && strcmp(path, "default")) r = st_world_load_colors(path, *out, err); /* a saved pair's colour map */
    if (r && *out) st_level_destroy(*out), *out = NULL;
    return r;
}

st_result cli_load_world_color(const char *path, const char *color, st_level **out, st_error *err) {
    *out = NULL;
    if (!color) return cli_load_world(path, out, err);
    if (!path || !cli_has_suffix(path, ".png"))
        return st_error_set(err, ST_ERR_INVALID, "--color %s goes with --world HEIGHT.png (a height map), not %s",
                            color, path ? path : "default");
    return st_level_load_color_pair(path, color, out, err);
}

st_result cli_view_camera(const st_level *level, st_store *pages, const char *name, st_camera *camera,
                          st_error *err) {
    uint32_t w = level ? level->width : 0, h = level ? level->height : 0;
    if (!level && pages) {
        w = (uint32_t)st_store_get_info(pages)->width;
        h = (uint32_t)st_store_get_info(pages)->height;
    }
    st_viewpoint vp;
    st_result r = ST_OK;
    if (name) r = st_views_find_sized(w, h, name, &vp, err);
    else {
        st_viewpoint all[ST_MAX_VIEWS];
        size_t n = 0;
        r = st_views_default_sized(w, h, all, ST_MAX_VIEWS, &n, err);
        if (!r && n == 0) r = st_error_set(err, ST_ERR_INVALID, "the world has no default views: give --camera");
        if (!r) vp = all[0];
    }
    if (r) return r;
    if (level || !pages) {
        *camera = st_viewpoint_camera(level, &vp);
        return ST_OK;
    }
    st_layer_pages *reader = NULL;
    st_texel ground;
    r = st_layer_pages_create(pages, 1, &reader, err);
    if (!r) r = st_layer_pages_texel(reader, (int64_t)floorf(vp.x), (int64_t)floorf(vp.y), &ground, err);
    st_layer_pages_destroy(reader);
    if (!r) *camera = st_viewpoint_camera_on(ground, &vp);
    return r;
}

/* The folder of a world given as a folder or as its world.ini; NULL for the others (default, gen:...). */
static bool world_folder(const char *world, char *dir, size_t cap) {
    struct stat st;
    if (!world || stat(world, &st)) return false;
    if (S_ISDIR(st.st_mode)) return (size_t)snprintf(dir, cap, "%s", world) < cap;
    const char *slash = strrchr(world, '/');
    if (!S_ISREG(st.st_mode)) return false;
    if (!slash) return (size_t)snprintf(dir, cap, ".") < cap;
    return (size_t)snprintf(dir, cap, "%.*s", (int)(slash - world), world) < cap;
}

st_result cli_world_materials(st_engine *engine, const char *world, st_error *err) {
    char dir[1024], path[1100];
    if (!world_folder(world, dir, sizeof dir)) return ST_OK;
    struct stat st;
    snprintf(path, sizeof path, "%s/materials", dir);
    st_result r = ST_OK;
    if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
        uint32_t added = 0;
        r = st_engine_add_materials(engine, path, &added, err);
    }
    snprintf(path, sizeof path, "%s/control.ctl", dir);
    if (!r && !stat(path, &st)) {
        st_control_map *map = NULL;
        r = st_control_map_load(path, &map, err);
        if (!r) r = st_engine_set_control_map(engine, map, err);
        st_control_map_destroy(map);
    }
    return r;
}

static void print_help(FILE *to) {
    fprintf(to, "strata — real-time rendering of editable multi-layer height-field terrain\n\n"
                "usage: strata COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++) fprintf(to, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(to, "\n'strata COMMAND --help' describes a command. Worlds: 'default' (the embedded procedural world),\n"
                "a directory holding world.ini, a world.ini file, a layer store's folder (strata tile), or\n"
                "gen:multi:SEED:WxH[:DUAL] (the procedural world of that seed and size).\n");
}

int main(int argc, char **argv) {
    if (argc < 2) { /* a usage error: the usage goes where errors go */
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("strata 0.1\n");
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "strata: unknown command '%s' (see 'strata --help')\n", argv[1]);
    return CLI_EXIT_USAGE;
}
