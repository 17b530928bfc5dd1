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

bool cli_measure_option(cli_measure *m, const char *cmd, int c, char *arg, int *status) {
    int st = CLI_EXIT_OK;
    switch (c) {
    case 'w': m->world = arg; break;
    case 'm': m->methods_arg = arg; break;
    case 'v': m->views_arg = arg; break;
    case 's':
        if (!cli_parse_size(arg, &m->width, &m->height) || m->width > 8192 || m->height > 8192)
            st = cli_usage_error(cmd, "bad --size '%s' (WxH, at most 8192 each)", arg);
        break;
    case 'f':
        if (!cli_parse_uint(arg, 1, 100000, &m->frames)) st = cli_usage_error(cmd, "bad --frames '%s'", arg);
        break;
    case 'u':
        if (!cli_parse_uint(arg, 1, 100000, &m->warmup)) st = cli_usage_error(cmd, "bad --warmup '%s'", arg);
        break;
    case 'F':
        if (!cli_parse_float(arg, 2.0f, 100000.0f, &m->far_dist)) st = cli_usage_error(cmd, "bad --far '%s'", arg);
        break;
    case 'o': m->out = arg; break;
    case 'c': m->cache = strcmp(arg, "none") ? arg : ""; break;
    case 'd': {
        uint32_t device = 0;
        if (!cli_parse_uint(arg, 0, 64, &device)) {
            st = cli_usage_error(cmd, "bad --device '%s'", arg);
            break;
        }
        m->device_index = (int)device;
        m->device_given = true;
        break;
    }
    case 'V': m->validate = true; break;
    case 'S': m->no_shadows = true; break;
    case 'P': m->no_progress = true; break;
    case 'Z':
        if (!cli_parse_uint(arg, 16, 8192, &m->shadow_size))
            st = cli_usage_error(cmd, "bad --shadow-size '%s' (16..8192)", arg);
        break;
    default: return false;
    }
    *status = st;
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
    char *items[ST_MAX_VIEWS];
    size_t n = split_views(m->views_arg, items, ST_MAX_VIEWS);
    st_result r = ST_OK;
    for (size_t i = 0; i < n && !r; i++) r = st_views_find(level, items[i], &views[(*count)++], err);
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
