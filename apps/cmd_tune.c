/* strata tune: each method swept over its quality knob on the three horizon views (pitch 0) at 400×260, the
 * cheapest setting within one percentage point of the method's best error chosen; writes tuning.md,
 * tuning.json (for `strata compare --tuning`) and tuning.svg into out/tune/<adapter>/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "strata/eval.h"
#include "strata/render.h"

static int usage(void) {
    printf("usage: strata tune [OPTIONS]\n\n"
           "Sweeps every method's quality knob (ray steps 16..256, voxel steps 40..400, slices 32..512, scatter\n"
           "density 1..4, mesh q 0..1) on the world's three horizon views, scores each setting against the CPU\n"
           "reference (error = see-through + coherence) and picks the cheapest within 1 point of the best.\n\n"
           "  --world W          default (embedded), a world directory or a world.ini\n"
           "  --methods a,b      method names (default: every registered method)\n"
           "  --views a,b        view names or specs (default: the default views at pitch 0)\n"
           "  --size WxH         image size (default 400x260)\n"
           "  --frames N         timed frames per setting and view (default 10)\n"
           "  --warmup N         warm-up frames per setting and view (default 3)\n"
           "  --far F            far distance (default 600)\n"
           "  --out DIR          output folder (default out/tune)\n"
           "  --cache DIR        reference cache (default out/cache; 'none' disables it)\n"
           "  --device N         the Vulkan adapter\n"
           "  --validate         Vulkan validation layers on\n"
           "  --no-shadows       no shadow map\n"
           "  --no-progress      no progress line\n");
    return CLI_EXIT_OK;
}

static size_t split(char *text, char **items, size_t cap) {
    size_t n = 0;
    for (char *tok = strtok(text, ","); tok && n < cap; tok = strtok(NULL, ",")) items[n++] = tok;
    return n;
}

int cmd_tune(int argc, char **argv) {
    const char *cmd = "tune";
    const char *world = "default", *out = "out/tune", *cache = "out/cache";
    char *methods_arg = NULL, *views_arg = NULL;
    uint32_t w = 0, h = 0, frames = 0, warmup = 0, device = 0;
    float far_dist = 0;
    bool validate = false, no_progress = false, device_given = false, no_shadows = false;
    static const struct option opts[] = {
        {"world", required_argument, 0, 'w'},   {"methods", required_argument, 0, 'm'},
        {"views", required_argument, 0, 'v'},   {"size", required_argument, 0, 's'},
        {"frames", required_argument, 0, 'f'},  {"warmup", required_argument, 0, 'u'},
        {"far", required_argument, 0, 'F'},     {"out", required_argument, 0, 'o'},
        {"cache", required_argument, 0, 'c'},   {"device", required_argument, 0, 'd'},
        {"validate", no_argument, 0, 'V'},      {"no-shadows", no_argument, 0, 'S'},
        {"no-progress", no_argument, 0, 'P'},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
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
        case 'S': no_shadows = true; break;
        case 'P': no_progress = true; break;
        case 'h': return usage();
        default: return cli_usage_error(cmd, "unknown option or missing value '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);

    st_error err = {0};
    st_level *level = NULL;
    if (cli_load_world(world, &level, &err)) return cli_fail(cmd, &err);
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count = 0;
    st_result r = ST_OK;
    if (views_arg) {
        char *items[ST_MAX_VIEWS];
        size_t n = split(views_arg, items, ST_MAX_VIEWS);
        for (size_t i = 0; i < n && !r; i++) r = st_views_find(level, items[i], &views[view_count++], &err);
    } else {
        /* the paper tunes at the horizon: the default views at pitch 0 */
        st_viewpoint all[ST_MAX_VIEWS];
        size_t n = 0;
        r = st_views_default(level, all, ST_MAX_VIEWS, &n, &err);
        for (size_t i = 0; i < n && !r; i++)
            if (fabsf(all[i].pitch_deg) < 0.5f) views[view_count++] = all[i];
    }
    if (r) {
        st_level_destroy(level);
        return cli_fail(cmd, &err);
    }
    if (!view_count) {
        st_level_destroy(level);
        return cli_usage_error(cmd, "no views");
    }
    char *method_items[32];
    size_t method_count = methods_arg ? split(methods_arg, method_items, 32) : 0;
    for (size_t i = 0; i < method_count; i++)
        if (!st_method_find(method_items[i])) {
            st_level_destroy(level);
            return cli_usage_error(cmd, "unknown method '%s'", method_items[i]);
        }
    st_tune_desc d = {.level = level,
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
                      .no_shadows = no_shadows,
                      .out_dir = out,
                      .cache_dir = cache,
                      .device_index = device_given ? (int)device : -1,
                      .device_given = device_given,
                      .validate = validate,
                      .progress = !no_progress && isatty(2)};
    st_tune_result *res = NULL;
    r = st_tune_run(&d, &res, &err);
    st_level_destroy(level);
    if (r) return cli_fail(cmd, &err);
    printf("%s: %zu methods on %zu views at %ux%u -> %s/\n", res->adapter, res->method_count, res->view_count,
           res->width, res->height, res->out_dir);
    printf("%-14s %-16s %8s %10s %9s\n", "method", "knob", "chosen", "ms", "error %");
    for (size_t m = 0; m < res->method_count; m++) {
        const st_tune_method *tm = &res->methods[m];
        if (tm->chosen >= tm->count) {
            printf("%-14s %-16s %8s\n", tm->name, tm->knob[0] ? tm->knob : "(no knob)", "–");
            continue;
        }
        const st_tune_setting *s = &tm->settings[tm->chosen];
        char value[32];
        if (tm->knob[0]) snprintf(value, sizeof value, "%g", s->value);
        else snprintf(value, sizeof value, "—");
        printf("%-14s %-16s %8s %10.3f %9.2f\n", tm->name, tm->knob[0] ? tm->knob : "(no knob)", value, s->ms, s->error);
    }
    if (res->validation_messages) printf("validation messages: %u\n", res->validation_messages);
    st_tune_result_free(res);
    return CLI_EXIT_OK;
}
