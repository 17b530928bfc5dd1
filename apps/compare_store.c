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

static int usage(void) {
    printf("usage: strata compare --world STORE [OPTIONS]\n\n"
           "Renders every large-world method (%s) at each τ and view of a DEM tile store (a folder, an\n"
           "http(s):// URL or gen:SEED:WxH) once every tile the view wants is on the GPU, times it and scores it\n"
           "against the CPU reference cast on the store's full-resolution DEM: see-through, covers-sky, depth (m),\n"
           "colour and the image-space error in pixels (docs/harness.md), with triangles, nodes and the selection's\n"
           "CPU time; writes results.json, results.md and the frames as PNGs into OUT/<adapter>/<time>-world-<digest>/.\n\n"
           "  --methods a,b      store methods (default: all of them)\n"
           "  --tau a,b,...      screen-space error thresholds in pixels, up to %d (default 1)\n"
           "  --views a,b        the store's view names (horizon-1..3, pitch30-1..3, pitch60-1..3, top-1..3) or\n"
           "                     name:x,y:yaw:pitch[:height] in metres (default: all 12)\n"
           "  --quick            320x200, one view per pitch, 1 warm-up + 3 timed frames\n"
           "  --size WxH         image size (default 1280x800)\n"
           "  --frames N         timed frames per method, τ and view (default 20)\n"
           "  --warmup N         untimed frames after full detail (default 3)\n"
           "  --settle N         frames allowed to reach full detail per view (default 4000)\n"
           "  --far M            far distance in metres (default: half the store's extent, at most 100 km)\n"
           "  --skirts           skirts under node edges\n"
           "  --lod-grid N       quads per node side (default 32)\n"
           "  --lod-error E      δ per level for the ranges: measured (default) or bound (the index's worst tile)\n"
           "  --clip-n N         clipmap: vertices per level side, 4m - 1 (default: the least that meets each τ)\n"
           "  --gpu-slots N      tile slots on the GPU (default 1024)\n"
           "  -o, --out DIR      output folder (default out/compare-world)\n"
           "  --no-shadows       no sun shadows (in the methods and the reference)\n"
           "  --device N, --validate, --no-progress as for levels\n",
           cli_store_methods_list(), ST_COMPARE_STORE_MAX_TAUS);
    return CLI_EXIT_OK;
}

int cli_compare_store(int argc, char **argv) {
    const char *cmd = "compare";
    cli_measure mo = cli_measure_defaults("out/compare-world");
    cli_store_opts so = {0};
    bool quick = false;
    uint32_t settle = 0;
    double taus[ST_COMPARE_STORE_MAX_TAUS];
    size_t tau_count = 0;
    double far = 0;
    static const struct option opts[] = {
        CLI_MEASURE_OPTIONS, CLI_STORE_OPTIONS, {"quick", no_argument, 0, 'q'}, {"settle", required_argument, 0, 'e'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        int status;
        if (c == CLI_OPT_TAU) { /* a list here: one run per value */
            char buf[256];
            snprintf(buf, sizeof buf, "%s", optarg);
            char *items[ST_COMPARE_STORE_MAX_TAUS + 1];
            size_t n = cli_split_list(buf, items, ST_COMPARE_STORE_MAX_TAUS + 1);
            if (!n || n > ST_COMPARE_STORE_MAX_TAUS)
                return cli_usage_error(cmd, "bad --tau '%s' (1 to %d values)", optarg, ST_COMPARE_STORE_MAX_TAUS);
            for (size_t i = 0; i < n; i++)
                if (!cli_parse_double(items[i], 0.01, 1000, &taus[i]))
                    return cli_usage_error(cmd, "bad --tau value '%s' (pixels, 0.01..1000)", items[i]);
            tau_count = n;
            continue;
        }
        if (c == 'F') { /* metres here, up to 10^7 */
            if (!cli_parse_double(optarg, 2, 1e7, &far)) return cli_usage_error(cmd, "bad --far '%s' (metres)", optarg);
            continue;
        }
        if (cli_store_option(&so, cmd, c, optarg, &status)) {
            if (status) return status;
            continue;
        }
        if (cli_measure_option(&mo, cmd, c, optarg, &status)) {
            if (status) return status;
            continue;
        }
        switch (c) {
        case 'q': quick = true; break;
        case 'e':
            if (!cli_parse_uint(optarg, 1, 1000000, &settle)) return cli_usage_error(cmd, "bad --settle '%s'", optarg);
            break;
        case 'h': return usage();
        case ':': return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (so.slow_load_ms > 0) return cli_usage_error(cmd, "--slow-load is for flights, not the comparison");
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
                               .taus = tau_count ? taus : NULL,
                               .tau_count = tau_count,
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
    printf("%s: %zu method%s x %zu τ x %zu views of %s at %ux%u, far %.0f m, skirts %s -> %s/\n", res->adapter,
           res->method_count, res->method_count > 1 ? "s" : "", res->tau_count, res->view_count, res->world, res->width,
           res->height, res->far_m, res->skirts ? "on" : "off", res->out_dir);
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
    printf("see-through per pitch (%% of pixels; seams' target 0):\n  %-12s %6s", "method", "tau");
    for (size_t k = 0; k < res->pitch_count; k++) printf(" %8.0f°", res->pitches[k]);
    printf("\n");
    for (size_t m = 0; m < res->method_count; m++)
        for (size_t t = 0; t < res->tau_count; t++) {
            printf("  %-12s %6g", res->methods[m], res->taus[t]);
            for (size_t k = 0; k < res->pitch_count; k++) printf(" %8.3f%%", res->see_through_pitch[m][t][k]);
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
