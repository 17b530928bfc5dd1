/* strata tune: each method swept over its quality knob on the three horizon views (pitch 0) at 400×260, the
 * cheapest setting within one percentage point of the method's best error chosen; writes tuning.md,
 * tuning.json (for `strata compare --tuning`) and tuning.svg into out/tune/<adapter>/. */
#include <math.h>
#include <stdio.h>

#include "cli.h"
#include "strata/eval.h"
#include "strata/render.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata tune [OPTIONS]\n\n"
           "Sweeps every method's quality knob (ray steps 16..256, voxel steps 40..400, slices 32..512, scatter\n"
           "density 1..4, mesh q 0..1) on the world's three horizon views, scores each setting against the CPU\n"
           "reference (error = see-through + coherence + depth-wrong + colour-visible, %% of pixels) and picks the\n"
           "cheapest within 1 point of the best: by GPU time, or, on an adapter without GPU timestamps (lavapipe),\n"
           "by the knob's cost order, since CPU frame times there are noise.\n\n");
    cli_options_usage(opts, count);
}

int cmd_tune(int argc, char **argv) {
    const char *cmd = "tune";
    cli_measure mo = cli_measure_defaults("out/tune");
    static const cli_measure_help text = {
        .methods = "method names (default: every registered method)",
        .views = "view names or specs (name:x,y:yaw:pitch[:height][:under]; default: the default\n"
                 "views at pitch 0)",
        .size = "image size (default 400x260)",
        .frames = "timed frames per setting and view (default 10)",
        .warmup = "warm-up frames per setting and view (default 3)",
        .out = "output folder (default out/tune)",
        .no_shadows = "no shadow map",
        .shadow_size = "the shadow map's resolution (default 1024)"};
    cli_opt opts[CLI_MEASURE_OPTION_COUNT];
    size_t count = cli_measure_table(&mo, &text, opts);
    bool help = false;
    int parsed = cli_options_parse(cmd, argc, argv, opts, count, 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, count);
        return parsed;
    }

    st_error err = {0};
    st_level *level = NULL;
    if (cli_load_world(mo.world, &level, &err)) return cli_fail(cmd, &err);
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count = 0;
    st_result r = ST_OK;
    if (mo.views_arg) {
        r = cli_measure_find_views(&mo, level, views, &view_count, &err);
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
    size_t method_count = 0;
    const char *unknown = cli_measure_methods(&mo, method_items, 32, &method_count);
    if (unknown) {
        st_level_destroy(level);
        return cli_usage_error(cmd, "unknown method '%s'", unknown);
    }
    st_tune_desc d = {.run = cli_measure_desc(&mo, level, views, view_count, method_items, method_count)};
    st_tune_result *res = NULL;
    r = st_tune_run(&d, &res, &err);
    st_level_destroy(level);
    if (r) return cli_fail(cmd, &err);
    printf("%s: %zu methods on %zu views at %ux%u -> %s/\n", res->adapter, res->method_count, res->view_count,
           res->width, res->height, res->out_dir);
    printf("error = see-through + coherence + depth-wrong + colour-visible (%% of pixels); shadow map %s\n",
           res->shadows ? (res->shadow_size == 1024 ? "1024²" : "custom") : "off");
    printf("%-14s %-16s %8s %10s %9s  %s\n", "method", "knob", "chosen", "ms", "error %", "ranked by");
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
        printf("%-14s %-16s %8s %10.3f %9.2f  %s\n", tm->name, tm->knob[0] ? tm->knob : "(no knob)", value, s->ms,
               s->error, !tm->knob[0] ? "-" : tm->by_time ? "GPU time" : "knob cost order (CPU times are noise here)");
    }
    if (res->validation_messages) printf("validation messages: %u\n", res->validation_messages);
    st_tune_result_free(res);
    return CLI_EXIT_OK;
}
