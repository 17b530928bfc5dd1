/* strata fly --world STORE --path FILE: a scripted flight over a DEM tile store, every frame rendered by a store
 * method and recorded (GPU, CPU and whole-frame ms, triangles, resident tiles, uploads, holes) into fly.json,
 * fly.md and fly.svg in a run folder of its own; over a layer store, a paged world drawn by a level method, with
 * random digs written back and checked after eviction. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "store_cli.h"
#include "strata/fly.h"
#include "strata/image.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata fly --world STORE --path FILE [--method M] [--size WxH] [--far M] [--tau PX] [--skirts]\n"
           "                  [--lod-grid N] [--lod-ratio R] [--morph-ratio M] [--lod-error E] [--gpu-slots N]\n"
           "                  [--slow-load MS] [--settle N] [--no-shadows] [--device N] [--validate] [--no-progress]\n"
           "                  [--pool-pages N] [--upload-pages N] [--dig-every N] [--write-back-every N] [--seed N]\n"
           "                  [--overlay DIR] [-o|--out DIR]\n\n"
           "Flies the flight FILE over a DEM tile store (a folder, an http(s):// URL or gen:SEED:WxH), rendering every\n"
           "frame with %s, after the first camera has reached full detail. Writes fly.json (every frame's\n"
           "GPU, CPU and whole-frame ms, triangles, nodes, resident/queued/loading tiles, uploads, hole pixels),\n"
           "fly.md and fly.svg into OUT/<adapter>/<time>-fly-<digest>/ and prints the summary: median, p99 and max of\n"
           "each time, and its local p99, p99.9 and max (each frame over the median of the 121 frames around it).\n"
           "A flight file (data/flights/*.flight) has one statement a line: start U V (fractions of the world),\n"
           "heading DEG, fps N, then speed M/S, height M (over the ground), pitch DEG, fly SECONDS, turn DEG SECONDS.\n"
           "A layer store (a folder, or gen:multi:SEED:WxH with --overlay DIR keeping its edits) is flown as a paged\n"
           "world with no level by ray-compute (or ray, scatter): --dig-every N digs ahead of the eye, the edits are\n"
           "written back every --write-back-every frames, and every dug page evicted and mapped again is read back\n"
           "from the GPU and checked against the world with every dig (lost edits, in fly.json and fly.md).\n\n"
           "options:\n",
           cli_store_methods_list());
    cli_options_usage(opts, count);
}

int cmd_fly(int argc, char **argv) {
    const char *cmd = "fly";
    const char *world = NULL, *path = NULL, *method = NULL, *out = "out/fly", *overlay = NULL;
    uint32_t size[2] = {1920, 1080}, settle = 0, device = 0, pool_pages = 0, upload_pages = 2, dig_every = 0, write_back_every = 0;
    uint32_t seed = 0;
    double far = 0;
    bool no_shadows = false, device_given = false, validate = false, no_progress = false, help = false;
    cli_store_opts so = {0};
    char method_help[256];
    snprintf(method_help, sizeof method_help, "%s (default cdlod); on a layer store ray, ray-compute (default) or "
             "scatter", cli_store_methods_list());
    cli_opt opts[24 + CLI_STORE_OPTION_COUNT] = {
        {.name = "world", .kind = CLI_OPT_STRING, .target = &world, .arg = "STORE",
         .help = "the DEM tile store: a folder, an http(s):// URL or gen:SEED:WxH"},
        {.name = "path", .kind = CLI_OPT_STRING, .target = &path, .arg = "FILE", .help = "the flight (data/flights/*.flight)"},
        {.name = "method", .kind = CLI_OPT_STRING, .target = &method, .arg = "M", .help = method_help},
        CLI_OPT_SIZE_WH(size, 16384, "image size (default 1920x1080)"),
        {.name = "far", .kind = CLI_OPT_DOUBLE, .target = &far, .min = 2, .max = 1e7, .arg = "M",
         .bad = "bad --far '%s' (metres, 2..10^7)",
         .help = "far distance in metres (default: half the store's extent, at most 100 km)"},
        {.name = "settle", .kind = CLI_OPT_UINT, .target = &settle, .min = 1, .max = 1000000, .arg = "N",
         .help = "frames allowed to reach full detail at the start (default 4000)"},
        {.name = "no-shadows", .kind = CLI_OPT_FLAG, .target = &no_shadows, .help = "no sun shadow"},
        CLI_OPT_DEVICE(&device, &device_given),
        {.name = "validate", .kind = CLI_OPT_FLAG, .target = &validate, .help = "Vulkan validation on (messages fail the run)"},
        {.name = "no-progress", .kind = CLI_OPT_FLAG, .target = &no_progress, .help = "no progress lines on stderr"},
        CLI_OPT_OUT(&out, "DIR", "output folder (default out/fly)"),
        {.name = "pool-pages", .kind = CLI_OPT_UINT, .target = &pool_pages, .min = 1, .max = 65536, .arg = "N",
         .help = "a layer store: full-resolution pages on the GPU (default 256)"},
        {.name = "upload-pages", .kind = CLI_OPT_UINT, .target = &upload_pages, .min = 0, .max = 65536, .arg = "N",
         .help = "a layer store: pages mapped into the pool a frame, all levels (default 2; 0 = no bound)"},
        {.name = "dig-every", .kind = CLI_OPT_UINT, .target = &dig_every, .min = 1, .max = 1000000, .arg = "N",
         .help = "a layer store: a random dig ahead of the eye every N frames (default none)"},
        {.name = "write-back-every", .kind = CLI_OPT_UINT, .target = &write_back_every, .min = 1, .max = 1000000,
         .arg = "N", .help = "a layer store: frames between write-backs of the digs (default 30)"},
        {.name = "seed", .kind = CLI_OPT_UINT, .target = &seed, .min = 0, .max = 4294967295.0, .arg = "N",
         .help = "the digs' random seed (default 1)"},
        {.name = "overlay", .kind = CLI_OPT_STRING, .target = &overlay, .arg = "DIR",
         .help = "gen:multi:...: the overlay store keeping the world's edits (made when absent)"},
    };
    size_t count = 17; /* the options above */
    count += cli_store_table(&so, opts + count);
    int parsed = cli_options_parse(cmd, argc, argv, opts, count, 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, count);
        return parsed;
    }
    uint32_t width = size[0], height = size[1];
    bool shadows = !no_shadows, progress = !no_progress;
    if (!world) return cli_usage_error(cmd, "missing --world STORE");
    if (!path) return cli_usage_error(cmd, "missing --path FILE (a flight: see data/flights/)");
    if (!out[0]) return cli_usage_error(cmd, "--out needs a folder");
    bool layers = !strncmp(world, "gen:multi:", 10) || cli_is_layer_store(world);
    if (!layers && !cli_is_store(world))
        return cli_usage_error(cmd, "%s is no tile store (a flight needs one: strata tile)", world);
    if (!layers && (pool_pages || dig_every || write_back_every || overlay))
        return cli_usage_error(cmd, "--pool-pages, --dig-every, --write-back-every and --overlay are for layer stores");
    if (overlay && strncmp(world, "gen:multi:", 10))
        return cli_usage_error(cmd, "--overlay keeps the edits of a generated world (gen:multi:...)");
    if (overlay && !overlay[0]) return cli_usage_error(cmd, "--overlay needs a folder");
    if (!method) method = layers ? "ray-compute" : "cdlod";
    int status = layers ? CLI_EXIT_OK : cli_store_method_check(cmd, method, world);
    if (!status) status = cli_store_select_check(cmd, method, &so);
    if (status) return status;
    if (layers) {
        const st_method_info *mi = st_method_find(method);
        if (!mi) return cli_usage_error(cmd, "unknown method '%s'", method);
        if (mi->world != ST_WORLD_LEVEL)
            return cli_usage_error(cmd, "method '%s' draws DEM stores; %s is a layer store (ray, ray-compute, scatter)",
                                   method, world);
    }

    st_error err = {0};
    st_flight flight;
    if (st_flight_load(path, &flight, &err)) return cli_fail(cmd, &err);
    /* the output folder before any work: a bad one costs no flight */
    if (st_make_dirs(out, &err)) {
        st_flight_free(&flight);
        return cli_fail(cmd, &err);
    }
    st_store *store = NULL;
    if (overlay ? st_store_open_overlay(world, overlay, &store, &err) : st_store_open(world, &store, &err)) {
        st_flight_free(&flight);
        return cli_fail(cmd, &err);
    }
    st_fly_desc d = {.store = store,
                     .world_name = world,
                     .flight_name = path,
                     .flight = &flight,
                     .method = method,
                     .width = width,
                     .height = height,
                     .far_m = far,
                     .no_shadows = !shadows,
                     .world = {.gpu_slots = so.gpu_slots, .slow_load_ms = so.slow_load_ms},
                     .settle_frames = settle,
                     .out_dir = out,
                     .device_index = (int)device,
                     .device_given = device_given,
                     .validate = validate,
                     .progress_lines = progress,
                     .cancel = &cli_interrupted,
                     .pool_pages = pool_pages,
                     .upload_pages = layers ? upload_pages : 0,
                     .dig_every = dig_every,
                     .write_back_every = write_back_every,
                     .seed = seed};
    cli_store_knobs(&so, &d.knobs);
    cli_measure_catch_interrupt();
    st_fly_result *r = NULL;
    st_result res = st_fly_run(&d, &r, &err);
    if (res == ST_ERR_CANCELLED) {
        fprintf(stderr, "strata fly: interrupted: this run kept nothing\n");
        status = 130;
    } else if (res) {
        status = cli_fail(cmd, &err);
    } else {
        printf("%s on %s (%s): %u frames of %s over %s at %ux%u, τ %g px, skirts %s, slow-load %g ms -> %s/\n",
               r->method, r->adapter, r->device_type, r->frame_count, r->flight, r->world, r->width, r->height,
               r->tau_px, r->skirts ? "on" : "off", r->slow_load_ms, r->out_dir);
        if (!r->settled) printf("  the first camera did not reach full detail in %u frames (--settle)\n", r->settle_frames);
        const struct {
            const char *name;
            const st_fly_series *s;
        } rows[] = {{"gpu ms", &r->gpu}, {"cpu ms", &r->cpu}, {"frame ms", &r->frame}};
        for (size_t i = 0; i < 3; i++) {
            if (!r->gpu_timing && i == 0) {
                printf("  gpu ms: not available on this adapter\n");
                continue;
            }
            printf("  %s: median %.3f  p99 %.3f (%.2fx)  max %.3f  frames over median + 2 ms: %u  local p99 %.2fx  "
                   "p99.9 %.2fx  max %.2fx\n",
                   rows[i].name, rows[i].s->median, rows[i].s->p99, rows[i].s->p99 / rows[i].s->median, rows[i].s->max,
                   rows[i].s->over_2ms, rows[i].s->local_p99, rows[i].s->local_p999, rows[i].s->local_max);
        }
        printf("  (local: each frame over the median of the %u frames around it, ±%u)\n", 2 * ST_FLY_LOCAL_HALF + 1,
               ST_FLY_LOCAL_HALF);
        printf("  holes: %llu pixels in %u frames; triangles median %.0f; tiles resident median %.0f, max %u; %llu "
               "uploads; load median %.2f ms\n",
               (unsigned long long)r->hole_px_total, r->frames_with_holes, r->triangles_median, r->resident_median,
               r->resident_max, (unsigned long long)r->uploads_total, r->load_ms_median);
        if (r->paged) {
            printf("  paged: pool %u pages, %u coarser levels; missing pages median %u; holes: %llu pages in %u frames; "
                   "uploads at most %u a frame (bound %u)\n",
                   r->pool_pages, r->far_levels, r->missing_median, (unsigned long long)r->hole_pages_total,
                   r->frames_with_holes, r->uploads_max, r->upload_pages);
            if (r->digs)
                printf("  digs: %u (edit median %.3f ms) over %u pages; %u write-backs of %llu pages (median %.1f ms, "
                       "max %.1f ms, between frames); reloads checked %u, lost edits %u%s\n",
                       r->digs, r->edit_ms_median, r->dug_pages, r->write_backs, (unsigned long long)r->pages_written,
                       r->write_back_ms_median, r->write_back_ms_max, r->reloads_checked, r->lost_edits,
                       r->edits_checked ? "" : " (not checked: only a generated world's digs are)");
        }
        printf("  peak RSS %.0f MiB, GPU tiles %.0f MiB\n", (double)r->peak_rss_bytes / 1048576.0,
               (double)r->gpu_tile_bytes / 1048576.0);
        status = r->validation_messages ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
        if (r->lost_edits) {
            fprintf(stderr, "strata fly: %u lost edit(s)\n", r->lost_edits);
            status = CLI_EXIT_RUNTIME;
        }
        if (r->validation_messages)
            fprintf(stderr, "strata fly: %u Vulkan validation message(s)\n", r->validation_messages);
    }
    st_fly_result_free(r);
    st_store_close(store);
    st_flight_free(&flight);
    return status;
}
