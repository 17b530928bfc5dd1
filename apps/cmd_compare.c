/* strata compare: the publication protocol with no arguments — every method, the 12 default views,
 * 1280×800, far 600, 3 warm-up and 40 timed frames, shadow map on — scored against the CPU reference into
 * out/compare/<adapter>/. Options narrow it (--quick, --methods, --views, --size, --frames, ...), add the edit
 * protocol (--edits), use tuned knobs (--tuning) or run the soak instead (--soak N). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store_cli.h"
#include "strata/eval.h"
#include "strata/render.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata compare [OPTIONS]\n\n"
           "Renders every method at every view, times it and scores it against the CPU reference; writes\n"
           "results.json, results.md, frame-time.svg, grid.png, heatmap-<method>.png and heatmap-color-<method>.png\n"
           "into a folder of its own, OUT/<adapter>/<UTC time>-<quick|compare>-<settings digest>/, written complete\n"
           "or not at all; OUT/<adapter>/latest points at the last complete run.\n\n");
    cli_options_usage(opts, count);
    printf("\nEdits (spec §4.7): --edits adds the dig protocol for every method to the run (edit_rows in\n"
           "results.json, a table in results.md, edit-<method>-before/after.png): radius 48, depth 90 at the level\n"
           "centre, camera (cx, cy+158), eye 40, yaw 180, pitch -30, or the crater --dig gives.\n\n"
           "Soak (instead of the protocol): --soak [N] digs at random every frame (radius 4..64, depth 10..90)\n"
           "for N frames (default 10000) with each --methods entry (default ray) at 320x200 (or --size), writes\n"
           "soak.json into OUT/<adapter>/ and one line per method.\n");
}

/* --dig X,Y[,R[,D]]: two to four integers (the radius and depth are checked after, with their own messages). */
static bool parse_dig(const char *value, void *target) {
    int *dig = target; /* dig[0..3], dig[4] = how many were given */
    dig[4] = (int)cli_parse_ints(value, -(long)ST_LEVEL_MAX_DIM, ST_LEVEL_MAX_DIM, dig, 4);
    return dig[4] >= 2;
}

static bool parse_water(const char *value, void *target) { return st_water_mode_parse(value, target); }

/* --soak [N]: N frames per method, the default when left out. */
static bool parse_soak(const char *value, void *target) {
    return !value || cli_parse_uint(value, 1, 100000000, target);
}

static int run_soak(st_level *level, const char *const *methods, size_t method_count, uint32_t frames,
                    uint32_t check_every, uint32_t seed, const st_tuning *tuning, const cli_measure *mo) {
    st_soak_desc d = {.level = level, .methods = methods, .method_count = method_count, .frames = frames,
                      .check_every = check_every, .width = mo->width, .height = mo->height, .seed = seed,
                      .no_shadows = mo->no_shadows, .tuning = tuning, .out_dir = mo->out,
                      .device_index = mo->device_index, .device_given = mo->device_given, .validate = mo->validate,
                      .progress = cli_measure_progress(mo)};
    st_error err = {0};
    st_soak_result *r = NULL;
    st_result res = st_soak_run(&d, &r, &err);
    if (r) {
        printf("%s: soak of %u frames at %ux%u, checked every %u -> %s/soak.json\n", r->adapter, r->frames, r->width,
               r->height, r->check_every, r->out_dir);
        for (size_t m = 0; m < r->method_count; m++) {
            const st_soak_method *sm = &r->methods[m];
            if (!sm->frames && !sm->error[0]) continue;
            printf("%-14s %u frames, %u checks, %u inconsistent (worst hit/miss %.4f %%, p95 %.3f), median %.2f ms, "
                   "RSS %+.1f MiB", sm->name, sm->frames, sm->checks, sm->inconsistent, sm->worst_mismatch_pct,
                   sm->worst_depth_p95, sm->cpu_ms_median, (sm->rss_last - sm->rss_first) / 1048576.0);
            if (sm->device_usage_known) printf(", device %+.1f MiB", (sm->device_last - sm->device_first) / 1048576.0);
            printf(", %u validation messages\n", sm->validation_messages);
        }
        st_soak_result_free(r);
    }
    st_level_destroy(level);
    return res ? cli_fail("compare", &err) : CLI_EXIT_OK;
}

static void cell(double v, int width, const char *fmt) {
    if (isfinite(v)) printf(fmt, width, v);
    else printf("%*s", width, "n/a");
}

/* The headline: frame time, then every kind of error, so a gross one cannot hide in results.md. */
static void print_summary(const st_compare_result *res) {
    printf("%s: %zu methods x %zu views at %ux%u, shadow map %s -> %s/\n", res->adapter, res->method_count,
           res->view_count, res->width, res->height,
           res->shadows ? (res->shadow_size == ST_SHADOW_SIZE_PUBLICATION ? "1024² (publication)"
                                                                          : res->shadow_size == ST_SHADOW_SIZE_PREVIEW
                                                                                ? "256² (preview)"
                                                                                : "custom")
                        : "off",
           res->out_dir);
    bool gpu = false;
    for (size_t k = 0; k < res->method_count * res->view_count; k++) gpu |= res->rows[k].gpu_timing;
    printf("frame time: %s; errors are means over the views (see-through, coherence, colour visible: %% of pixels; "
           "depth: world units; colour MAE: 8-bit levels, visible: dE*ab > %g)\n",
           gpu ? "GPU timestamps" : "CPU submit-and-wait (no GPU timestamps on this adapter)", ST_COLOR_VISIBLE_DE);
    printf("%-14s %10s %8s %8s %8s %8s %8s %8s %8s\n", "method", "mean ms", "± 95%", "see-thr", "coher", "p50",
           "p95", "col MAE", "col vis");
    for (size_t m = 0; m < res->method_count; m++) {
        double see = 0, coh = 0, p50 = 0, p95 = 0, mae = 0, vis = 0;
        size_t nd = 0, nv = res->view_count;
        for (size_t v = 0; v < nv; v++) {
            const st_metrics *mt = &res->rows[m * nv + v].metrics;
            see += mt->see_through;
            coh += mt->coherence;
            mae += mt->color_mae;
            vis += mt->color_visible;
            if (isfinite(mt->depth_p50)) p50 += mt->depth_p50, p95 += mt->depth_p95, nd++;
        }
        printf("%-14s", res->methods[m].name);
        cell(res->methods[m].mean_ms, 11, "%*.3f");
        cell(res->methods[m].ci95_ms, 9, "%*.3f");
        printf(" %7.2f%% %7.2f%%", see / (double)nv, coh / (double)nv);
        cell(nd ? p50 / (double)nd : NAN, 9, "%*.2f");
        cell(nd ? p95 / (double)nd : NAN, 9, "%*.2f");
        cell(mae / (double)nv, 9, "%*.2f");
        printf(" %7.2f%%\n", vis / (double)nv);
    }
    if (res->frames < 2) printf("± 95%%: n/a — one timed frame per view gives no interval\n");
    if (res->water.mode != ST_WATER_NONE) {
        const st_compare_water *w = &res->water;
        printf("water (%s over %s, timed, not scored): ", st_water_mode_name(w->mode), w->method);
        if (w->gpu_timing)
            printf("simulation %.3f + surface %.3f gpu ms per frame, beside %.3f of terrain (means over the views)\n",
                   w->sim_mean, w->surface_mean, w->terrain_mean);
        else
            printf("gpu ms n/a (no GPU timestamps on this adapter)\n");
    }
    if (res->edits) {
        printf("\nedits (ms; CPU0/GPU0 steady on a fresh edited build, CPU1/GPU1 first post-edit frame):\n");
        printf("%-14s %-20s %8s %8s %8s %8s %12s %9s %10s %9s\n", "method", "update", "CPU0", "CPU1", "GPU0", "GPU1",
               "match", "changed", "close", "changed");
        for (size_t m = 0; m < res->method_count; m++) {
            const st_edit_row *e = &res->edit_rows[m];
            char match[32];
            if (e->consistent_after) snprintf(match, sizeof match, "%u frame%s", e->consistent_after,
                                              e->consistent_after > 1 ? "s" : "");
            else snprintf(match, sizeof match, "not by 16");
            printf("%-14s %-20s", e->method, st_update_class_name(e->update));
            cell(e->steady_cpu_ms, 9, "%*.2f");
            cell(e->first_cpu_median, 9, "%*.2f");
            cell(e->steady_gpu_ms, 9, "%*.2f");
            cell(e->first_gpu_median, 9, "%*.2f");
            printf(" %12s %8.2f%% %10s %8.2f%%%s\n", match, e->changed_pct, e->close.consistent ? "consistent" : "NOT",
                   e->close_changed_pct, e->overhead_cpu_noise ? "  (CPU1 − CPU0 within noise)" : "");
        }
    }
    if (res->cache_note[0]) printf("reference cache not written: %s\n", res->cache_note);
}

int cmd_compare(int argc, char **argv) {
    if (cli_is_store(cli_world_arg(argc, argv))) return cli_compare_store(argc, argv);
    const char *cmd = "compare";
    cli_measure mo = cli_measure_defaults("out/compare");
    bool quick = false, edits = false, soak = false, dig_given = false, help = false, paged = false;
    bool paged_level = false;
    uint32_t pool_pages = 0;
    const char *tuning_path = NULL;
    int dig[5] = {0, 0, 0, 0, 0};
    uint32_t edit_repeats = 0, soak_frames = 10000, check_every = 0, seed = 0;
    st_water_mode water = ST_WATER_NONE;
    bool water_given = false;
    st_shading shading = ST_SHADING_FLAT;
    static const cli_measure_help text = {
        .methods = "method names (default: every registered method)",
        .views = "view names or specs (name:x,y:yaw:pitch[:height][:under]), or 'paper' for the\n"
                 "paper's 12 views (default: the world's 12)",
        .size = "image size (default 1280x800)",
        .frames = "timed frames per method and view (default 40)",
        .warmup = "warm-up frames per method and view, at least 1 (default 3)",
        .out = "output folder (default out/compare)",
        .no_shadows = "no shadow map (a method-only diagnostic; the protocol casts it for every method)",
        .shadow_size = "the shadow map's resolution (default 1024, the publication's; 256 with --quick)"};
    const char *color = NULL;
    cli_opt opts[CLI_MEASURE_OPTION_COUNT + 14] = {
        CLI_OPT_COLOR(&color),
        {.name = "quick", .kind = CLI_OPT_FLAG, .target = &quick,
         .help = "320x200, one view per pitch, 1 warm-up + 3 timed frames, 256² shadow map"},
        {.name = "tuning", .kind = CLI_OPT_STRING, .target = &tuning_path, .arg = "FILE",
         .help = "knob settings from a 'strata tune' tuning.json"},
        {.name = "edits", .kind = CLI_OPT_FLAG, .target = &edits, .help = "add the dig protocol (below)"},
        {.name = "dig", .kind = CLI_OPT_PARSE, .target = dig, .given = &dig_given, .parse = parse_dig,
         .arg = "X,Y[,R[,D]]", .bad = "bad --dig '%s' (X,Y[,R[,D]])",
         .help = "another crater (centre, radius, depth); implies --edits"},
        {.name = "edit-repeats", .kind = CLI_OPT_UINT, .target = &edit_repeats, .min = 1, .max = ST_EDIT_MAX_REPEATS,
         .arg = "N", .bad = "bad --edit-repeats '%s' (1.." CLI_XSTR(ST_EDIT_MAX_REPEATS) ")",
         .help = "independently built renderers timed for the first post-edit frame (default 5)"},
        {.name = "soak", .kind = CLI_OPT_PARSE, .target = &soak_frames, .given = &soak, .parse = parse_soak,
         .optional = true, .arg = "[N]", .help = "the soak (below) instead of the protocol: frames per method"},
        {.name = "check-every", .kind = CLI_OPT_UINT, .target = &check_every, .min = 1, .max = 100000000, .arg = "K",
         .help = "soak: compare with a freshly built renderer every K frames (default 1 on a GPU,\n"
                 "100 on a CPU adapter such as lavapipe)"},
        {.name = "seed", .kind = CLI_OPT_UINT, .target = &seed, .min = 1, .max = 0xFFFFFFFFu, .arg = "S",
         .help = "soak: the random seed (default 1)"},
        {.name = "water", .kind = CLI_OPT_PARSE, .target = &water, .given = &water_given, .parse = parse_water,
         .arg = "M", .bad = "unknown --water '%s' (none, gerstner or ocean)",
         .help = "the water row: the first method under the water (none, gerstner or ocean; default\n"
                 "ocean where the world has water), timed apart from the terrain, never scored"},
        CLI_OPT_SHADING(&shading, "flat (the default: the protocol's shading, comparable with the paper) or\n"
                                  "textured (what the materials cost per method; colours then differ from the reference)"),
        {.name = "paged", .kind = CLI_OPT_FLAG, .target = &paged,
         .help = "the methods draw the layer store W as a paged world with no level (the far field\n"
                 "from coarser levels past 1024 texels), scored against the reference cast on each\n"
                 "view's window of W read through its pages (any size); methods ray, ray-compute, scatter"},
        {.name = "paged-level", .kind = CLI_OPT_FLAG, .target = &paged_level,
         .help = "with --paged: W's level read too and its pages drawn with it in memory, so every\n"
                 "level method draws them (voxel-compute included; default ray-compute,voxel-compute,scatter)"},
        {.name = "pool-pages", .kind = CLI_OPT_UINT, .target = &pool_pages, .min = 1, .max = 65536, .arg = "N",
         .bad = "bad --pool-pages '%s' (1..65536)", .help = "--paged: full-resolution pages on the GPU (default 256)"},
    };
    size_t count = 13 + cli_measure_table(&mo, &text, opts + 13);
    int parsed = cli_options_parse(cmd, argc, argv, opts, count, 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, count);
        return parsed;
    }
    int dig_n = dig[4];
    if (dig_given) {
        /* zero would mean "the default" in the descriptor: a given radius must be a real one */
        if (dig_n > 2 && dig[2] < 1) return cli_usage_error(cmd, "bad --dig radius %d (at least 1)", dig[2]);
        if (dig_n > 3 && (dig[3] < 1 || dig[3] > 255))
            return cli_usage_error(cmd, "bad --dig depth %d (1..255)", dig[3]);
        edits = true;
    }
    if (quick) {
        if (!mo.width) mo.width = 320, mo.height = 200;
        if (!mo.frames) mo.frames = 3;
        if (!mo.warmup) mo.warmup = 1;
        if (!mo.shadow_size) mo.shadow_size = ST_SHADOW_SIZE_PREVIEW;
    }

    if (soak && edits) return cli_usage_error(cmd, "--soak and --edits are separate runs");
    if (pool_pages && !paged) return cli_usage_error(cmd, "--pool-pages is for --paged");
    if (paged_level && !paged) return cli_usage_error(cmd, "--paged-level is for --paged");
    if (paged && (soak || edits)) return cli_usage_error(cmd, "--paged scores frames of a world that takes no edits");
    if (paged && !cli_is_layer_store(mo.world) && strncmp(mo.world, "gen:multi:", 10))
        return cli_usage_error(cmd, "--paged draws a layer store (strata tile W -o STORE), and %s is none", mo.world);

    st_error err = {0};
    st_tuning tuning;
    if (tuning_path && st_tuning_read(tuning_path, &tuning, &err)) return cli_fail(cmd, &err);
    st_level *level = NULL;
    if (color && paged) return cli_usage_error(cmd, "--color is for a height map's world, not --paged");
    st_store *pages = NULL;
    /* --paged reads no level: the methods draw the pages, the reference casts on windows read through them */
    if (paged && st_store_open(mo.world, &pages, &err)) return cli_fail(cmd, &err);
    if ((!paged || paged_level) && cli_load_world_color(mo.world, color, &level, &err)) {
        st_store_close(pages);
        return cli_fail(cmd, &err);
    }
    uint32_t world_w = level ? level->width : (uint32_t)st_store_get_info(pages)->width;
    uint32_t world_h = level ? level->height : (uint32_t)st_store_get_info(pages)->height;
    char *method_items[ST_COMPARE_MAX_METHODS];
    size_t method_count = 0;
    static char paged_methods[] = "ray,ray-compute,scatter"; /* the methods a paged world takes (split in place) */
    static char paged_level_methods[] = "ray-compute,voxel-compute,scatter";
    if (paged && !mo.methods_arg) mo.methods_arg = paged_level ? paged_level_methods : paged_methods;
    const char *unknown = cli_measure_methods(&mo, method_items, ST_COMPARE_MAX_METHODS, &method_count);
    if (unknown) {
        st_level_destroy(level);
        st_store_close(pages);
        return cli_usage_error(cmd, "unknown method '%s'", unknown);
    }
    if (soak) return run_soak(level, mo.methods_arg ? (const char *const *)method_items : NULL, method_count,
                              soak_frames, check_every, seed, tuning_path ? &tuning : NULL, &mo);
    st_edit_desc edit = {.repeats = edit_repeats};
    if (dig_given) {
        edit.centre_given = true;
        edit.cx = dig[0];
        edit.cy = dig[1];
        edit.radius = dig_n > 2 ? dig[2] : 0;
        edit.depth = dig_n > 3 ? dig[3] : 0;
    }
    if (edits && st_edit_check(level, &edit, &err)) {
        st_level_destroy(level);
        st_store_close(pages);
        return cli_fail(cmd, &err);
    }
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count = 0;
    st_result r = ST_OK;
    if (mo.views_arg && !strcmp(mo.views_arg, "paper")) {
        r = st_views_paper(views, ST_MAX_VIEWS, &view_count, &err);
    } else if (mo.views_arg) {
        r = cli_measure_find_views_sized(&mo, world_w, world_h, views, &view_count, &err);
    } else {
        st_viewpoint all[ST_MAX_VIEWS];
        size_t n = 0;
        r = level ? st_views_default(level, all, ST_MAX_VIEWS, &n, &err)
                  : st_views_default_sized(world_w, world_h, all, ST_MAX_VIEWS, &n, &err);
        if (!r) {
            if (quick) view_count = st_compare_pick_per_pitch(all, n, views, ST_MAX_VIEWS);
            else memcpy(views, all, n * sizeof *all), view_count = n;
        }
    }
    if (r) {
        st_level_destroy(level);
        st_store_close(pages);
        return cli_fail(cmd, &err);
    }
    if (!view_count) {
        st_level_destroy(level);
        st_store_close(pages);
        return cli_usage_error(cmd, "no views");
    }
    st_compare_desc d = {.run = cli_measure_desc(&mo, level, views, view_count, method_items, method_count),
                         .quick = quick,
                         .tuning = tuning_path ? &tuning : NULL,
                         .tuning_path = tuning_path,
                         .edits = edits,
                         .edit = edit,
                         .water = water_given ? water
                                  : level && st_water_world_has_water(level) ? ST_WATER_OCEAN
                                                                           : ST_WATER_NONE};
    d.run.shading = shading;
    if (paged) {
        d.water = water_given ? water : ST_WATER_NONE;
        d.run.paged = pages;
        d.run.paged_pool = pool_pages;
        d.run.paged_level = paged_level;
    }
    st_compare_result *res = NULL;
    cli_measure_catch_interrupt();
    double started = st_time_ms();
    r = st_compare_run(&d, &res, &err);
    st_level_destroy(level);
    st_store_close(pages);
    if (r == ST_ERR_CANCELLED) {
        fprintf(stderr, "strata compare: interrupted after %.0f s: this run kept nothing (its partial folder is "
                        "removed; %s/<adapter>/latest still names the last complete run); the reference cache keeps "
                        "the views already cast\n", (st_time_ms() - started) / 1000.0, mo.out);
        return 130;
    }
    if (r) return cli_fail(cmd, &err);
    print_summary(res);
    if (res->validation_messages) printf("validation messages: %u\n", res->validation_messages);
    st_compare_result_free(res);
    return CLI_EXIT_OK;
}
