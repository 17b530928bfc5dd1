/* The measurement options `strata compare` and `strata tune` share: parsed one getopt_long result at a time,
 * with the same names, limits and one-line errors in both commands. */
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "strata/render.h"

size_t cli_split_list(char *text, char **items, size_t cap) {
    size_t n = 0;
    for (char *tok = strtok(text, ","); tok && n < cap; tok = strtok(NULL, ",")) items[n++] = tok;
    return n;
}

cli_measure cli_measure_defaults(const char *out) {
    return (cli_measure){.world = "default", .out = out, .cache = "out/cache", .device_index = -1};
}

/* --cache none: no cache (""). */
static bool parse_cache(const char *value, void *target) {
    *(const char **)target = strcmp(value, "none") ? value : "";
    return true;
}

/* --size: at most 8192 a side. */
static bool parse_size(const char *value, void *target) {
    cli_measure *m = target;
    uint32_t w, h;
    if (!cli_parse_size(value, &w, &h) || w > 8192 || h > 8192) return false;
    m->width = w;
    m->height = h;
    return true;
}

static bool parse_device(const char *value, void *target) {
    uint32_t device = 0;
    if (!cli_parse_uint(value, 0, 64, &device)) return false;
    *(int *)target = (int)device;
    return true;
}

size_t cli_measure_table(cli_measure *m, const cli_measure_help *h, cli_opt *out) {
    const cli_opt table[CLI_MEASURE_OPTION_COUNT] = {
        CLI_OPT_WORLD(&m->world),
        {.name = "methods", .kind = CLI_OPT_STRING, .target = &m->methods_arg, .arg = "a,b", .help = h->methods},
        {.name = "views", .kind = CLI_OPT_STRING, .target = &m->views_arg, .arg = "a,b", .help = h->views},
        {.name = "size", .kind = CLI_OPT_PARSE, .target = m, .parse = parse_size, .arg = "WxH",
         .bad = "bad --size '%s' (WxH, at most 8192 each)", .help = h->size},
        {.name = "frames", .kind = CLI_OPT_UINT, .target = &m->frames, .min = 1, .max = 100000, .arg = "N",
         .help = h->frames},
        {.name = "warmup", .kind = CLI_OPT_UINT, .target = &m->warmup, .min = 1, .max = 100000, .arg = "N",
         .help = h->warmup},
        {.name = "far", .kind = CLI_OPT_FLOAT, .target = &m->far_dist, .min = 2, .max = 100000, .arg = "F",
         .help = "far distance (default 600)"},
        CLI_OPT_OUT(&m->out, "DIR", h->out),
        {.name = "cache", .kind = CLI_OPT_PARSE, .target = &m->cache, .parse = parse_cache, .arg = "DIR",
         .help = "reference cache (default out/cache; 'none' disables it)"},
        {.name = "device", .kind = CLI_OPT_PARSE, .target = &m->device_index, .given = &m->device_given,
         .parse = parse_device, .arg = "N", .help = "the Vulkan adapter to use (see 'strata devices')"},
        {.name = "validate", .kind = CLI_OPT_FLAG, .target = &m->validate, .help = "Vulkan validation layers on"},
        {.name = "no-shadows", .kind = CLI_OPT_FLAG, .target = &m->no_shadows, .help = h->no_shadows},
        {.name = "no-progress", .kind = CLI_OPT_FLAG, .target = &m->no_progress,
         .help = "no progress (a bar when stderr is a terminal, else one line per step)"},
        CLI_OPT_SHADOW_SIZE(&m->shadow_size, h->shadow_size),
    };
    memcpy(out, table, sizeof table);
    return CLI_MEASURE_OPTION_COUNT;
}

bool cli_measure_option(cli_measure *m, const char *cmd, int c, char *arg, int *status) {
    /* the getopt_long codes of CLI_MEASURE_OPTIONS, in the table's order */
    static const char codes[CLI_MEASURE_OPTION_COUNT + 1] = "wmvsfuFocdVSPZ";
    const char *at = c > 0 && c < 128 ? strchr(codes, c) : NULL;
    if (!at || !*at) return false;
    static const cli_measure_help no_help = {0};
    cli_opt table[CLI_MEASURE_OPTION_COUNT];
    cli_measure_table(m, &no_help, table);
    *status = cli_option_take(cmd, &table[at - codes], arg);
    return true;
}

const char *cli_measure_methods(const cli_measure *m, char **items, size_t cap, size_t *count) {
    *count = m->methods_arg ? cli_split_list(m->methods_arg, items, cap) : 0;
    for (size_t i = 0; i < *count; i++)
        if (!st_method_find(items[i])) return items[i];
    return NULL;
}

/* Splits a --views list in place at its commas, except the one inside a spec's x,y: a spec is
 * name:x,y:yaw:pitch[...], so an item that has one ':' before a comma goes on to the next comma. */
static size_t split_views(char *text, char **items, size_t cap) {
    size_t n = 0;
    for (char *p = text; *p && n < cap;) {
        char *item = p, *comma = strchr(p, ',');
        size_t colons = 0;
        for (char *c = p; *c && c != comma; c++) colons += *c == ':';
        if (comma && colons == 1) comma = strchr(comma + 1, ',');
        p = comma ? comma + 1 : p + strlen(p);
        if (comma) *comma = 0;
        items[n++] = item;
    }
    return n;
}

st_result cli_measure_find_views(const cli_measure *m, const st_level *level, st_viewpoint *views, size_t *count,
                                 st_error *err) {
    return cli_measure_find_views_sized(m, level ? level->width : 0, level ? level->height : 0, views, count, err);
}

st_result cli_measure_find_views_sized(const cli_measure *m, uint32_t width, uint32_t height, st_viewpoint *views,
                                       size_t *count, st_error *err) {
    char *items[ST_MAX_VIEWS];
    size_t n = split_views(m->views_arg, items, ST_MAX_VIEWS);
    st_result r = ST_OK;
    for (size_t i = 0; i < n && !r; i++) r = st_views_find_sized(width, height, items[i], &views[(*count)++], err);
    return r;
}

bool cli_measure_progress(const cli_measure *m) { return !m->no_progress && isatty(2); }
bool cli_measure_progress_lines(const cli_measure *m) { return !m->no_progress && !isatty(2); }

volatile sig_atomic_t cli_interrupted = 0;

static void on_interrupt(int sig) {
    (void)sig;
    cli_interrupted = 1;
}

void cli_measure_catch_interrupt(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

st_measure_desc cli_measure_desc(const cli_measure *m, const st_level *level, const st_viewpoint *views,
                                 size_t view_count, char *const *method_items, size_t method_count) {
    return (st_measure_desc){.level = level,
                             .world_name = m->world,
                             .methods = m->methods_arg ? (const char *const *)method_items : NULL,
                             .method_count = method_count,
                             .views = views,
                             .view_count = view_count,
                             .width = m->width,
                             .height = m->height,
                             .far_dist = m->far_dist,
                             .frames = m->frames,
                             .warmup = m->warmup,
                             .no_shadows = m->no_shadows,
                             .shadow_size = m->shadow_size,
                             .out_dir = m->out,
                             .cache_dir = m->cache,
                             .device_index = m->device_index,
                             .device_given = m->device_given,
                             .validate = m->validate,
                             .progress = cli_measure_progress(m),
                             .progress_lines = cli_measure_progress_lines(m),
                             .cancel = &cli_interrupted};
}
