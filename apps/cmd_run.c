/* strata run: the main job. Every registered method renders every default view of a world into
 * out/, then a table of GPU frame times per method and pitch is printed with the device used. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "store_cli.h"
#include "strata/file.h"
#include "strata/image.h"
#include "strata/render.h"
#include "strata/views.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata run [--world W] [-o DIR] [--size WxH] [--frames N] [--methods a,b] [--no-shadows]\n"
           "                  [--shadow-size N] [--dem STORE] [--device N]\n\n"
           "Renders every method (or --methods) from every default view into DIR (-o/--out; default out/) as\n"
           "VIEW-METHOD.png with a labelled contact sheet of them all (contact-sheet.png), and prints the median\n"
           "GPU time per frame of each method at each pitch. The default size is 1280x800 on a GPU and 320x200\n"
           "on a CPU adapter (lavapipe), where the default is 1 timed frame per view (warm-up on the first view\n"
           "only) and the shared shadow map is cast at 256² (the preview size) instead of 1024²; --shadow-size\n"
           "sets it. 'strata render' with the same view, method, size and --shadow-size draws the same image.\n"
           "With --dem STORE (a DEM tile store: a folder, an http(s):// URL or gen:SEED:WxH; `make run` builds one\n"
           "from the shipped Puget Sound DEM) the store methods (%s) also render every default view of\n"
           "the store, each view at full detail before timing, into DIR/dem-VIEW-METHOD.png and\n"
           "DIR/dem-contact-sheet.png, with their rows in the table.\n"
           "For the full measurement protocol use 'strata compare'.\n",
           cli_store_methods_list());
    cli_options_usage(opts, count);
}

/* The store methods over the store's default views: each view settled to full detail, then timed like the level
 * methods; dem-VIEW-METHOD.png and dem-contact-sheet.png; median[m·views + v] gets the times. */
static st_result run_dem(st_engine *engine, st_store *store, const char *const *names, size_t n, uint32_t width,
                         uint32_t height, uint32_t frames, bool cpu, bool shadows, st_shading shading, const char *out, bool tty,
                         st_viewpoint *views, size_t *view_count, double *median, st_error *err) {
    st_result r = st_engine_set_store(engine, store, &(st_world_desc){0}, err);
    if (!r) r = st_store_views_default(store, views, ST_MAX_VIEWS, view_count, err);
    if (r) return r;
    size_t nv = *view_count;
    double *samples = calloc(frames, sizeof *samples);
    uint8_t *rgba = malloc((size_t)width * height * 4);
    st_mosaic sheet = {0};
    uint32_t factor = (width + 159) / 160;
    int label_w = 0;
    for (size_t m = 0; m < n; m++) {
        int w = st_mosaic_text_width(names[m], 2);
        label_w = w > label_w ? w : label_w;
    }
    st_mosaic_layout sl = {.cols = (uint32_t)nv, .rows = (uint32_t)n, .tile_w = width / factor,
                           .tile_h = height / factor, .left = (uint32_t)label_w + 12, .top = 52};
    if (!sl.tile_w || !sl.tile_h) sl.tile_w = sl.tile_h = 1;
    if (!samples || !rgba) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (!r) r = st_mosaic_create_framed(&sl, &sheet, err);
    for (size_t m = 0; m < n && !r; m++) {
        st_renderer *renderer = NULL;
        st_render_desc rd = {.method = names[m], .width = width, .height = height, .shadows = shadows,
                             .shading = shading};
        r = st_renderer_create(engine, &rd, &renderer, err);
        for (size_t v = 0; v < nv && !r; v++) {
            st_camera cam;
            r = st_store_view_camera(store, &views[v], &cam, err);
            if (!r) r = st_renderer_settle(renderer, &cam, 4000, NULL, err);
            st_frame_timing t;
            if (!r && (!cpu || v == 0)) r = st_renderer_draw(renderer, &cam, &t, err); /* warm-up */
            for (uint32_t f = 0; f < frames && !r; f++) {
                r = st_renderer_draw(renderer, &cam, &t, err);
                samples[f] = isnan(t.gpu_ms) ? t.cpu_ms : t.gpu_ms;
            }
            if (r) break;
            median[m * nv + v] = st_stats_of(samples, frames).median;
            char path[1024];
            snprintf(path, sizeof path, "%s/dem-%s-%s.png", out, views[v].name, names[m]);
            r = st_renderer_readback(renderer, rgba, NULL, err);
            if (!r) r = st_png_write(path, width, height, 4, 8, rgba, err);
            if (!r) st_mosaic_put(&sheet, (uint32_t)v, (uint32_t)m, rgba, width, height, factor, false);
            if (tty) fprintf(stderr, "\r%-14s %2zu/%zu store views", names[m], v + 1, nv);
        }
        if (tty) fprintf(stderr, "\n");
        st_renderer_destroy(renderer);
    }
    if (!r) {
        for (size_t v = 0; v < nv; v++) {
            char cap[96];
            snprintf(cap, sizeof cap, "%s (%.0f)", views[v].name, views[v].pitch_deg);
            st_mosaic_col_label(&sheet, (uint32_t)v, cap);
        }
        for (size_t m = 0; m < n; m++) st_mosaic_row_label(&sheet, (uint32_t)m, names[m], 2);
        char title[300], path[1024];
        const st_store_info *in = st_store_get_info(store);
        snprintf(title, sizeof title, "strata run: the DEM store (%.0f x %.0f km), %ux%u, full detail; files "
                 "dem-VIEW-METHOD.png", (double)(in->width - 1) * in->spacing_x_m / 1000,
                 (double)(in->height - 1) * in->spacing_y_m / 1000, width, height);
        st_mosaic_text(&sheet, 6, 6, title, (const uint8_t[3]){255, 255, 255}, 2);
        snprintf(path, sizeof path, "%s/dem-contact-sheet.png", out);
        r = st_png_write(path, sheet.width, sheet.height, 4, 8, sheet.rgba, err);
    }
    free(samples);
    free(rgba);
    st_mosaic_free(&sheet);
    return r;
}

/* One table row: the mean of the views at each pitch, then of all views. */
static void table_row(const char *name, const double *median, const st_viewpoint *views, size_t view_count) {
    static const int pitches[4] = {0, -30, -60, -90};
    printf("%-20s", name);
    double all = 0;
    for (int p = 0; p < 4; p++) {
        double sum = 0;
        int n = 0;
        for (size_t v = 0; v < view_count; v++)
            if (fabsf(views[v].pitch_deg - (float)pitches[p]) < 0.5f) {
                sum += median[v];
                n++;
            }
        if (n) printf(" %10.3f", sum / n);
        else printf(" %10s", "-");
    }
    for (size_t v = 0; v < view_count; v++) all += median[v];
    printf(" %10.3f\n", view_count ? all / (double)view_count : 0.0);
}

int cmd_run(int argc, char **argv) {
    const char *dem = NULL;
    const char *world = "default", *out = "out", *color = NULL;
    char *methods_arg = NULL;
    uint32_t size[2] = {0, 0}, frames = 0, device = 0, shadow_size = 0;
    bool device_given = false, no_shadows = false, help = false;
    st_shading shading = ST_SHADING_TEXTURED;
    const cli_opt opts[] = {
        CLI_OPT_WORLD(&world),
        CLI_OPT_COLOR(&color),
        CLI_OPT_OUT(&out, "DIR", "the output folder (default out/)"),
        CLI_OPT_SHADING(&shading, "flat (the paper's colour per material type) or textured (the default)"),
        CLI_OPT_SIZE_WH(size, 16384, "image size (default 1280x800 on a GPU, 320x200 on a CPU adapter)"),
        CLI_OPT_FRAMES(&frames, 10000, "timed frames per view"),
        CLI_OPT_METHODS(&methods_arg),
        CLI_OPT_NO_SHADOWS(&no_shadows),
        CLI_OPT_SHADOW_SIZE(&shadow_size, "the shadow map's resolution (default 1024; 256 on a CPU adapter)"),
        {.name = "dem", .kind = CLI_OPT_STRING, .target = &dem, .arg = "STORE",
         .help = "also the store methods on that DEM tile store's default views"},
        CLI_OPT_DEVICE(&device, &device_given),
    };
    int parsed = cli_options_parse("run", argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    uint32_t width = size[0], height = size[1];
    bool shadows = !no_shadows;
    if (dem && !cli_is_store(dem))
        return cli_usage_error("run", "--dem %s: not a tile store (a folder with store.json, an http(s):// URL or "
                               "gen:SEED:WxH; strata tile builds one)", dem);
    /* the methods of the level, and with --dem those of the store */
    const char *names[64], *dem_names[16];
    size_t methods = 0, dem_methods = 0;
    if (methods_arg) {
        char *items[64];
        size_t n = cli_split_list(methods_arg, items, 64);
        for (size_t i = 0; i < n; i++) {
            const st_method_info *mi = st_method_find(items[i]);
            if (!mi) return cli_usage_error("run", "unknown method '%s'", items[i]);
            if (mi->world == ST_WORLD_STORE) {
                if (!dem) return cli_usage_error("run", "method '%s' draws tile stores: give --dem STORE", items[i]);
                if (dem_methods < 16) dem_names[dem_methods++] = items[i];
            } else {
                names[methods++] = items[i];
            }
        }
        if (dem && !dem_methods)
            return cli_usage_error("run", "--dem needs a store method in --methods (%s)", cli_store_methods_list());
    } else {
        for (size_t i = 0; i < st_method_count() && i < 64; i++) names[methods++] = st_method_at(i)->name;
        for (size_t i = 0; dem && i < st_store_method_count() && i < 16; i++)
            dem_names[dem_methods++] = st_store_method_at(i)->name;
    }
    st_error err = {0};
    if (st_make_dirs(out, &err)) {
        fprintf(stderr, "strata run: cannot create %s\n", err.message);
        return CLI_EXIT_USAGE;
    }
    st_level *level = NULL;
    st_engine *engine = NULL;
    st_store *store = NULL; /* outlives the engine */
    st_viewpoint views[ST_MAX_VIEWS], dem_views[ST_MAX_VIEWS];
    size_t view_count = 0, dem_view_count = 0;
    double t_load = st_time_ms();
    st_result r = cli_load_world_color(world, color, &level, &err);
    t_load = st_time_ms() - t_load;
    if (!r) r = st_views_default(level, views, ST_MAX_VIEWS, &view_count, &err);
    if (!r && dem) r = st_store_open(dem, &store, &err);
    st_engine_desc ed = {.device_index = (int)device, .device_given = device_given};
    if (!r) r = st_engine_create(&ed, &engine, &err);
    if (!r) r = st_engine_set_level(engine, level, &err);
    if (!r && shading == ST_SHADING_TEXTURED) r = cli_world_materials(engine, world, &err);
    if (r) {
        int status = cli_fail("run", &err);
        st_engine_destroy(engine);
        st_level_destroy(level);
        st_store_close(store);
        return status;
    }
    st_device_info dev = st_engine_device(engine);
    bool cpu = !strcmp(dev.type, "cpu");
    if (!width) { /* a CPU adapter runs thirteen methods at a tenth of a GPU's pixel count within minutes */
        width = cpu ? 320 : 1280;
        height = cpu ? 200 : 800;
    }
    if (!frames) frames = cpu ? 1 : 10;
    /* One shadow setting per purpose: the publication's 1024² on a GPU, the 256² preview on a CPU adapter. */
    if (!shadow_size) shadow_size = cpu ? ST_SHADOW_SIZE_PREVIEW : ST_SHADOW_SIZE_PUBLICATION;
    printf("strata run: world %s (%ux%u, loaded in %.0f ms), %zu views, %zu methods, %ux%u, %u timed frame%s, "
           "shadow map %s\n", level->name, level->width, level->height, t_load, view_count, methods, width, height,
           frames, frames > 1 ? "s" : "", !shadows ? "off" : shadow_size == ST_SHADOW_SIZE_PREVIEW ? "256² (preview)"
                                                   : shadow_size == ST_SHADOW_SIZE_PUBLICATION ? "1024²" : "custom");
    if (dem) printf("DEM store %s: %zu store method%s on its default views at full detail\n", dem, dem_methods,
                    dem_methods > 1 ? "s" : "");
    printf("device: %s (%s), driver %s, Vulkan %s\n", dev.name, dev.type, dev.driver, dev.api_version);

    bool tty = isatty(2);
    double *median = calloc(methods * view_count + 1, sizeof *median); /* GPU ms per method × view */
    double *dem_median = calloc(dem_methods * ST_MAX_VIEWS + 1, sizeof *dem_median);
    double *samples = calloc(frames, sizeof *samples);
    uint8_t *rgba = malloc((size_t)width * height * 4);
    if (!median || !dem_median || !samples || !rgba) r = st_error_set(&err, ST_ERR_NOMEM, "out of memory");
    /* the contact sheet: methods in rows, views in columns, tiles at most 160 wide */
    st_mosaic sheet = {0};
    uint32_t factor = (width + 159) / 160;
    int label_w = 0;
    for (size_t m = 0; m < methods; m++) {
        int w = st_mosaic_text_width(names[m], 2);
        label_w = w > label_w ? w : label_w;
    }
    st_mosaic_layout sl = {.cols = (uint32_t)view_count, .rows = (uint32_t)methods, .tile_w = width / factor,
                           .tile_h = height / factor, .left = (uint32_t)label_w + 12, .top = 52};
    if (!r && (!sl.tile_w || !sl.tile_h)) sl.tile_w = sl.tile_h = 1;
    if (!r && methods) r = st_mosaic_create_framed(&sl, &sheet, &err);
    for (size_t m = 0; m < methods && !r; m++) {
        const char *name = names[m];
        st_renderer *renderer = NULL;
        st_render_desc rd = {.method = name, .width = width, .height = height, .shadows = shadows,
                             .shadow_size = shadow_size, .shading = shading};
        r = st_renderer_create(engine, &rd, &renderer, &err);
        for (size_t v = 0; v < view_count && !r; v++) {
            st_camera cam = st_viewpoint_camera(level, &views[v]);
            st_frame_timing t;
            if (!cpu || v == 0) r = st_renderer_draw(renderer, &cam, &t, &err); /* warm-up */
            for (uint32_t f = 0; f < frames && !r; f++) {
                r = st_renderer_draw(renderer, &cam, &t, &err);
                samples[f] = isnan(t.gpu_ms) ? t.cpu_ms : t.gpu_ms;
            }
            if (r) break;
            median[m * view_count + v] = st_stats_of(samples, frames).median;
            char path[1024];
            snprintf(path, sizeof path, "%s/%s-%s.png", out, views[v].name, name);
            r = st_renderer_readback(renderer, rgba, NULL, &err);
            if (!r) r = st_png_write(path, width, height, 4, 8, rgba, &err);
            if (!r) st_mosaic_put(&sheet, (uint32_t)v, (uint32_t)m, rgba, width, height, factor, false);
            if (tty) fprintf(stderr, "\r%-14s %2zu/%zu views", name, v + 1, view_count);
        }
        if (tty) fprintf(stderr, "\n");
        st_renderer_destroy(renderer);
    }
    if (!r && dem)
        r = run_dem(engine, store, dem_names, dem_methods, width, height, frames, cpu, shadows, shading, out, tty, dem_views,
                    &dem_view_count, dem_median, &err);
    int status = CLI_EXIT_OK;
    if (!r) {
        printf("\nmedian %s ms per frame (mean of the views at each pitch)\n",
               st_engine_has_gpu_timestamps(engine) ? "GPU" : "CPU submit-and-wait");
        printf("%-20s", "method");
        static const int pitches[4] = {0, -30, -60, -90};
        for (int p = 0; p < 4; p++) printf(" %9d°", pitches[p]);
        printf(" %10s\n", "all views");
        for (size_t m = 0; m < methods; m++) table_row(names[m], &median[m * view_count], views, view_count);
        for (size_t m = 0; m < dem_methods; m++) {
            char name[40];
            snprintf(name, sizeof name, "%s (DEM)", dem_names[m]);
            table_row(name, &dem_median[m * dem_view_count], dem_views, dem_view_count);
        }
    }
    if (!r && methods) { /* the level's sheet */
        for (size_t v = 0; v < view_count; v++) {
            char cap[96];
            snprintf(cap, sizeof cap, "%s (%.0f)", views[v].name, views[v].pitch_deg);
            st_mosaic_col_label(&sheet, (uint32_t)v, cap);
        }
        for (size_t m = 0; m < methods; m++) st_mosaic_row_label(&sheet, (uint32_t)m, names[m], 2);
        char title[300], path[1024];
        snprintf(title, sizeof title, "strata run: %s, %ux%u, shadow map %s; files VIEW-METHOD.png beside this sheet",
                 dev.name, width, height, shadows ? (shadow_size == ST_SHADOW_SIZE_PREVIEW ? "256" : "1024") : "off");
        st_mosaic_text(&sheet, 6, 6, title, (const uint8_t[3]){255, 255, 255}, 2);
        snprintf(path, sizeof path, "%s/contact-sheet.png", out);
        r = st_png_write(path, sheet.width, sheet.height, 4, 8, sheet.rgba, &err);
    }
    if (!r) {
        if (methods)
            printf("\nimages: %s/VIEW-METHOD.png (%zu files) and %s/contact-sheet.png\n", out, methods * view_count, out);
        if (dem)
            printf("%simages: %s/dem-VIEW-METHOD.png (%zu files) and %s/dem-contact-sheet.png\n", methods ? "" : "\n",
                   out, dem_methods * dem_view_count, out);
        status = cli_validation_status("run", engine);
    } else {
        status = cli_fail("run", &err);
    }
    free(median);
    free(dem_median);
    free(samples);
    free(rgba);
    st_mosaic_free(&sheet);
    st_engine_destroy(engine);
    st_level_destroy(level);
    st_store_close(store);
    return status;
}
