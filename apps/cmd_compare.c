/* strata compare: the publication protocol with no arguments — every method, the 12 default views,
 * 1280×800, far 600, 3 warm-up and 40 timed frames — scored against the CPU reference into
 * out/compare/<adapter>/. Options narrow it (--quick, --methods, --views, --size, --frames, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "strata/eval.h"
#include "strata/render.h"

static int usage(void) {
    printf("usage: strata compare [OPTIONS]\n\n"
           "Renders every method at every view, times it and scores it against the CPU reference; writes\n"
           "results.json, results.md, frame-time.svg, grid.png and heatmap-<method>.png into OUT/<adapter>/.\n\n"
           "  --quick            320x200, one view per pitch, 1 warm-up + 3 timed frames\n"
           "  --world W          default (embedded), a world directory or a world.ini (default: default)\n"
           "  --methods a,b      method names (default: every registered method)\n"
           "  --views a,b        view names or specs, or 'paper' for the paper's 12 views (default: the world's 12)\n"
           "  --size WxH         image size (default 1280x800)\n"
           "  --frames N         timed frames per method and view (default 40)\n"
           "  --warmup N         warm-up frames per method and view, at least 1 (default 3)\n"
           "  --far F            far distance (default 600)\n"
           "  --out DIR          output folder (default out/compare)\n"
           "  --cache DIR        reference cache (default out/cache; 'none' disables it)\n"
           "  --device N         the Vulkan adapter to use (see 'strata devices')\n"
           "  --validate         Vulkan validation layers on\n"
           "  --no-progress      no progress bar (it is shown only when stderr is a terminal)\n");
    return CLI_EXIT_OK;
}

/* Splits a comma list in place into at most cap items. */
static size_t split(char *text, char **items, size_t cap) {
    size_t n = 0;
    for (char *tok = strtok(text, ","); tok && n < cap; tok = strtok(NULL, ",")) items[n++] = tok;
    return n;
}

int cmd_compare(int argc, char **argv) {
    const char *cmd = "compare";
    const char *world = "default", *out = "out/compare", *cache = "out/cache";
    char *methods_arg = NULL, *views_arg = NULL;
    uint32_t w = 0, h = 0, frames = 0, warmup = 0, device = 0;
    float far_dist = 0;
    bool quick = false, validate = false, no_progress = false, device_given = false;
    static const struct option opts[] = {
        {"quick", no_argument, 0, 'q'},        {"world", required_argument, 0, 'w'},
        {"methods", required_argument, 0, 'm'}, {"views", required_argument, 0, 'v'},
        {"size", required_argument, 0, 's'},    {"frames", required_argument, 0, 'f'},
        {"warmup", required_argument, 0, 'u'},  {"far", required_argument, 0, 'F'},
        {"out", required_argument, 0, 'o'},     {"cache", required_argument, 0, 'c'},
        {"device", required_argument, 0, 'd'},  {"validate", no_argument, 0, 'V'},
        {"no-progress", no_argument, 0, 'P'},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'q': quick = true; break;
        case 'w': world = optarg; break;
        case 'm': methods_arg = optarg; break;
        case 'v': views_arg = optarg; break;
        case 's':
            if (!cli_parse_size(optarg, &w, &h) || w > 8192 || h > 8192)
                return cli_usage_error(cmd, "bad --size '%s' (WxH, at most 8192 each)", optarg);
            break;
        case 'f':
            if (!cli_parse_uint(optarg, 1, 100000, &frames)) return cli_usage_error(cmd, "bad --frames '%s'", optarg);
            break;
        case 'u':
            if (!cli_parse_uint(optarg, 1, 100000, &warmup)) return cli_usage_error(cmd, "bad --warmup '%s'", optarg);
            break;
        case 'F':
            if (!cli_parse_float(optarg, 2.0f, 100000.0f, &far_dist)) return cli_usage_error(cmd, "bad --far '%s'", optarg);
            break;
        case 'o': out = optarg; break;
        case 'c': cache = strcmp(optarg, "none") ? optarg : ""; break;
        case 'd':
            if (!cli_parse_uint(optarg, 0, 64, &device)) return cli_usage_error(cmd, "bad --device '%s'", optarg);
            device_given = true;
            break;
        case 'V': validate = true; break;
        case 'P': no_progress = true; break;
        case 'h': return usage();
        default: return cli_usage_error(cmd, "unknown option or missing value '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (quick) {
        if (!w) w = 320, h = 200;
        if (!frames) frames = 3;
        if (!warmup) warmup = 1;
    }

    st_error err = {0};
    st_level *level = NULL;
    if (cli_load_world(world, &level, &err)) return cli_fail(cmd, &err);
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count = 0;
    st_result r = ST_OK;
    if (views_arg && !strcmp(views_arg, "paper")) {
        r = st_views_paper(views, ST_MAX_VIEWS, &view_count, &err);
    } else if (views_arg) {
        char *items[ST_MAX_VIEWS];
        size_t n = split(views_arg, items, ST_MAX_VIEWS);
        for (size_t i = 0; i < n && !r; i++) r = st_views_find(level, items[i], &views[view_count++], &err);
    } else {
        st_viewpoint all[ST_MAX_VIEWS];
        size_t n = 0;
        r = st_views_default(level, all, ST_MAX_VIEWS, &n, &err);
        if (!r) {
            if (quick) view_count = st_compare_pick_per_pitch(all, n, views, ST_MAX_VIEWS);
            else memcpy(views, all, n * sizeof *all), view_count = n;
        }
    }
    if (r) {
        st_level_destroy(level);
        return cli_fail(cmd, &err);
    }
    if (!view_count) {
        st_level_destroy(level);
        return cli_usage_error(cmd, "no views");
    }
    char *method_items[ST_COMPARE_MAX_METHODS];
    size_t method_count = methods_arg ? split(methods_arg, method_items, ST_COMPARE_MAX_METHODS) : 0;
    for (size_t i = 0; i < method_count; i++)
        if (!st_method_find(method_items[i])) {
            st_level_destroy(level);
            return cli_usage_error(cmd, "unknown method '%s'", method_items[i]);
        }

    st_compare_desc d = {.level = level,
                         .world_name = world,
                         .methods = methods_arg ? (const char *const *)method_items : NULL,
                         .method_count = method_count,
                         .views = views,
                         .view_count = view_count,
                         .width = w,
                         .height = h,
                         .far_dist = far_dist,
                         .frames = frames,
                         .warmup = warmup,
                         .quick = quick,
                         .out_dir = out,
                         .cache_dir = cache,
                         .device_index = device_given ? (int)device : -1,
                         .device_given = device_given,
                         .validate = validate,
                         .progress = !no_progress && isatty(2)};
    st_compare_result *res = NULL;
    r = st_compare_run(&d, &res, &err);
    st_level_destroy(level);
    if (r) return cli_fail(cmd, &err);
    printf("%s: %zu methods x %zu views at %ux%u -> %s/\n", res->adapter, res->method_count, res->view_count,
           res->width, res->height, res->out_dir);
    printf("%-14s %10s %9s %12s %11s\n", "method", "mean ms", "± 95%", "see-through", "coherence");
    for (size_t m = 0; m < res->method_count; m++) {
        double see = 0, coh = 0;
        for (size_t v = 0; v < res->view_count; v++) {
            see += res->rows[m * res->view_count + v].metrics.see_through;
            coh += res->rows[m * res->view_count + v].metrics.coherence;
        }
        printf("%-14s %10.3f %9.3f %11.2f%% %10.2f%%\n", res->methods[m].name, res->methods[m].mean_ms,
               res->methods[m].ci95_ms, see / (double)res->view_count, coh / (double)res->view_count);
    }
    if (res->validation_messages) printf("validation messages: %u\n", res->validation_messages);
    st_compare_result_free(res);
    return CLI_EXIT_OK;
}
