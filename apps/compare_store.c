/* strata compare --world STORE: the large-world methods (cdlod, cdlod-compute) at each τ and default view of a DEM
 * tile store, settled to full detail, timed and scored against the full-resolution reference, with the
 * image-space error in pixels; reports in OUT/<adapter>/<time>-world-<digest>/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store_cli.h"
#include "strata/eval.h"
#include "strata/views.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata compare --world STORE [OPTIONS]\n\n"
           "Renders every large-world method (%s) at each τ and view of a DEM tile store (a folder, an\n"
           "http(s):// URL or gen:SEED:WxH) once every tile the view wants is on the GPU, times it and scores it\n"
           "against the CPU reference cast on the store's full-resolution DEM: see-through, covers-sky, depth (m),\n"
           "colour and the image-space error in pixels (docs/harness.md), with triangles, nodes and the selection's\n"
           "CPU time; writes results.json, results.md and the frames as PNGs into OUT/<adapter>/<time>-world-<digest>/.\n\n",
           cli_store_methods_list());
    cli_options_usage(opts, count);
}

/* --tau a,b,...: 1 to ST_COMPARE_STORE_MAX_TAUS thresholds in pixels, each 0.01..1000; one run per value. */
typedef struct tau_list {
    double v[ST_COMPARE_STORE_MAX_TAUS];
    size_t count;
} tau_list;

static bool parse_taus(const char *value, void *target) {
    tau_list *t = target;
    char buf[256];
    if (strlen(value) >= sizeof buf) return false;
    snprintf(buf, sizeof buf, "%s", value);
    char *items[ST_COMPARE_STORE_MAX_TAUS + 1];
    size_t n = cli_split_list(buf, items, ST_COMPARE_STORE_MAX_TAUS + 1);
    if (!n || n > ST_COMPARE_STORE_MAX_TAUS) return false;
    for (size_t i = 0; i < n; i++)
        if (!cli_parse_double(items[i], 0.01, 1000, &t->v[i])) return false;
    t->count = n;
    return true;
}

/* The shared measurement options a store comparison reads: the levels' reference cache and shadow-map size
 * have no meaning here, and --far is in metres (below). */
static size_t measure_options(cli_measure *mo, cli_opt *out) {
    static const cli_measure_help text = {
        .methods = "store methods (default: all of them)",
        .views = "the store's view names (horizon-1..3, pitch30-1..3, pitch60-1..3, top-1..3) or\n"
                 "name:x,y:yaw:pitch[:height] in metres (default: all 12)",
        .size = "image size (default 1280x800)",
        .frames = "timed frames per method, τ and view (default 20)",
        .warmup = "untimed frames after full detail (default 3)",
        .out = "output folder (default out/compare-world)",
        .no_shadows = "no sun shadows (in the methods and the reference)"};
    cli_opt all[CLI_MEASURE_OPTION_COUNT];
    size_t n = cli_measure_table(mo, &text, all), kept = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, "cache") && strcmp(all[i].name, "shadow-size") && strcmp(all[i].name, "far"))
            out[kept++] = all[i];
    return kept;
}

/* The store options a comparison reads: τ is a list here and slow loads are for flights; --lod-select gpu moves
 * cdlod's selection to the GPU and leaves the other methods' on the CPU. */
static size_t store_options(cli_store_opts *so, cli_opt *out) {
    cli_opt all[CLI_STORE_OPTION_COUNT];
    size_t n = cli_store_table(so, all), kept = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].name, "tau") && strcmp(all[i].name, "slow-load") && strcmp(all[i].name, "lod-ratio") &&
            strcmp(all[i].name, "morph-ratio"))
            out[kept++] = all[i];
    return kept;
}

int cli_compare_store(int argc, char **argv) {
    const char *cmd = "compare";
    cli_measure mo = cli_measure_defaults("out/compare-world");
    cli_store_opts so = {0};
    bool quick = false, help = false;
    uint32_t settle = 0;
    tau_list taus = {.count = 0};
    double far = 0;
    st_shading shading = ST_SHADING_FLAT;
    enum { OWN = 5 };
    cli_opt opts[OWN + CLI_MEASURE_OPTION_COUNT + CLI_STORE_OPTION_COUNT] = {
        {.name = "tau", .kind = CLI_OPT_PARSE, .target = &taus, .parse = parse_taus, .arg = "a,b,...",
         .bad = "bad --tau '%s' (1 to " CLI_XSTR(ST_COMPARE_STORE_MAX_TAUS) " values, pixels 0.01..1000 each)",
         .help = "screen-space error thresholds in pixels, up to " CLI_XSTR(ST_COMPARE_STORE_MAX_TAUS) " (default 1)"},
        {.name = "quick", .kind = CLI_OPT_FLAG, .target = &quick,
         .help = "320x200, one view per pitch, 1 warm-up + 3 timed frames"},
        {.name = "settle", .kind = CLI_OPT_UINT, .target = &settle, .min = 1, .max = 1000000, .arg = "N",
         .help = "frames allowed to reach full detail per view (default 4000)"},
        {.name = "far", .kind = CLI_OPT_DOUBLE, .target = &far, .min = 2, .max = 1e7, .arg = "M",
         .bad = "bad --far '%s' (metres, 2..10^7)",
         .help = "far distance in metres (default: half the store's extent, at most 100 km)"},
        CLI_OPT_SHADING(&shading, "flat (the default: the protocol's shading) or textured (the materials: what\n"
                                  "texturing costs per method; colours then differ from the flat reference)"),
    };
    size_t count = OWN;
    count += measure_options(&mo, opts + count);
    count += store_options(&so, opts + count);
    int parsed = cli_options_parse(cmd, argc, argv, opts, count, 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, count);
        return parsed;
    }
    if (quick) {
        if (!mo.width) mo.width = 320, mo.height = 200;
        if (!mo.frames) mo.frames = 3;
        if (!mo.warmup) mo.warmup = 1;
    }
    char *method_items[ST_COMPARE_MAX_METHODS];
    size_t method_count = 0;
    const char *unknown = cli_measure_methods(&mo, method_items, ST_COMPARE_MAX_METHODS, &method_count);
    if (unknown) return cli_usage_error(cmd, "unknown method '%s'", unknown);
    for (size_t i = 0; i < method_count; i++) {
        int st = cli_store_method_check(cmd, method_items[i], mo.world);
        if (st) return st;
    }
    st_error err = {0};
    st_store *store = NULL;
    if (st_store_open(mo.world, &store, &err)) return cli_fail(cmd, &err);
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count = 0;
    st_result r = ST_OK;
    if (mo.views_arg) {
        char *items[ST_MAX_VIEWS];
        size_t n = cli_split_list(mo.views_arg, items, ST_MAX_VIEWS);
        for (size_t i = 0; i < n && !r; i++) r = st_store_views_find(store, items[i], &views[view_count++], &err);
    } else {
        st_viewpoint all[ST_MAX_VIEWS];
        size_t n = 0;
        r = st_store_views_default(store, all, ST_MAX_VIEWS, &n, &err);
        if (!r && quick) view_count = st_compare_pick_per_pitch(all, n, views, ST_MAX_VIEWS);
        else if (!r) memcpy(views, all, n * sizeof *all), view_count = n;
    }
    if (r) {
        st_store_close(store);
        return cli_fail(cmd, &err);
    }
    st_compare_store_desc d = {.store = store,
                               .world_name = mo.world,
                               .methods = method_count ? (const char *const *)method_items : NULL,
                               .method_count = method_count,
                               .views = views,
                               .view_count = view_count,
                               .taus = taus.count ? taus.v : NULL,
                               .tau_count = taus.count,
                               .shading = shading,
                               .width = mo.width,
                               .height = mo.height,
                               .far_m = far,
                               .frames = mo.frames,
                               .warmup = mo.warmup,
                               .settle_frames = settle,
                               .skirts = so.skirts,
                               .no_shadows = mo.no_shadows,
                               .lod_grid = so.grid,
                               .lod_error_bound = so.error_bound,
                               .lod_select_gpu = so.select_gpu,
                               .clip_n = so.clip_n,
                               .gpu_slots = so.gpu_slots,
                               .out_dir = mo.out,
                               .device_index = mo.device_index,
                               .device_given = mo.device_given,
                               .validate = mo.validate,
                               .progress_lines = !mo.no_progress,
                               .cancel = &cli_interrupted};
    cli_measure_catch_interrupt();
    st_compare_store_result *res = NULL;
    r = st_compare_store_run(&d, &res, &err);
    if (r == ST_ERR_CANCELLED) {
        fprintf(stderr, "strata compare: interrupted: this run kept nothing\n");
        st_compare_store_result_free(res);
        st_store_close(store);
        return 130;
    }
    if (r) {
        st_compare_store_result_free(res);
        st_store_close(store);
        return cli_fail(cmd, &err);
    }
    bool gpu = res->rows[0].gpu_timing;
    printf("%s: %zu method%s x %zu τ x %zu views of %s at %ux%u, far %.0f m, skirts %s, cdlod selected on the %s -> "
           "%s/\n", res->adapter, res->method_count, res->method_count > 1 ? "s" : "", res->tau_count, res->view_count,
           res->world, res->width, res->height, res->far_m, res->skirts ? "on" : "off",
           res->lod_select_gpu ? "GPU" : "CPU", res->out_dir);
    printf("frame time: %s; image error: pixels, pooled over every drawn pixel of every view; see-through: %% of "
           "pixels, mean over the views\n",
           gpu ? "GPU timestamps" : "CPU submit-and-wait (no GPU timestamps on this adapter)");
    printf("%-14s %6s %10s %12s %10s %9s %12s %10s\n", "method", "tau", "mean ms", "img err p95", "max", "see-thr",
           "triangles", "select ms");
    for (size_t m = 0; m < res->method_count; m++)
        for (size_t t = 0; t < res->tau_count; t++)
            printf("%-14s %6g %10.3f %12.2f %10.2f %8.3f%% %12.0f %10.3f\n", res->methods[m], res->taus[t],
                   res->mean_ms[m][t], res->ise_p95[m][t], res->ise_max[m][t], res->see_through[m][t],
                   res->triangles[m][t], res->select_ms[m][t]);
    printf("see-through per pitch (%% of pixels), and of it the seams' holes (under the method's own terrain; target "
           "0):\n  %-12s %6s", "method", "tau");
    for (size_t k = 0; k < res->pitch_count; k++) printf(" %17.0f°", res->pitches[k]);
    printf("\n");
    for (size_t m = 0; m < res->method_count; m++)
        for (size_t t = 0; t < res->tau_count; t++) {
            printf("  %-12s %6g", res->methods[m], res->taus[t]);
            for (size_t k = 0; k < res->pitch_count; k++)
                printf(" %7.3f%% (%.4f%%)", res->see_through_pitch[m][t][k], res->seam_pitch[m][t][k]);
            printf("\n");
        }
    printf("peak RSS %.0f MiB, GPU tile slots %.0f MiB\n", (double)res->peak_rss_bytes / 1048576.0,
           (double)res->gpu_tile_bytes / 1048576.0);
    if (res->validation_messages) printf("validation messages: %u\n", res->validation_messages);
    int status = res->validation_messages ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
    st_compare_store_result_free(res);
    st_store_close(store);
    return status;
}
