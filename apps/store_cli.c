/* The command line's side of tile stores drawn as worlds: finding --world in a command's arguments, the
 * level-of-detail options every store command shares, opening a store into an engine, and `strata render
 * --world STORE` (the render of a store: settle to full detail, then time frames). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "store_cli.h"
#include "strata/image.h"
#include "strata/views.h"

const char *cli_world_arg(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if (!strcmp(argv[i], "--world") && i + 1 < argc) return argv[i + 1];
        if (!strncmp(argv[i], "--world=", 8)) return argv[i] + 8;
    }
    return NULL;
}

static bool parse_lod_grid(const char *value, void *target) {
    uint32_t v;
    if (!cli_parse_uint(value, 4, 256, &v) || !st_is_pow2(v)) return false;
    *(uint32_t *)target = v;
    return true;
}

static bool parse_lod_error(const char *value, void *target) {
    if (!strcmp(value, "bound")) *(bool *)target = true;
    else if (!strcmp(value, "measured")) *(bool *)target = false;
    else return false;
    return true;
}

/* cpu, gpu, or gpu:N (N invocations in the selection's one workgroup, a power of two 64..1024: the H200's
 * comparison of the walk's widths) */
static bool parse_lod_select(const char *value, void *target) {
    cli_store_opts *o = target;
    o->select_threads = 0;
    if (!strcmp(value, "gpu")) o->select_gpu = true;
    else if (!strcmp(value, "cpu")) o->select_gpu = false;
    else if (!strncmp(value, "gpu:", 4)) {
        uint32_t n;
        if (!cli_parse_uint(value + 4, 64, 1024, &n) || (n & (n - 1))) return false;
        o->select_gpu = true, o->select_threads = n;
    } else return false;
    return true;
}

/* K coarse levels walked on the CPU before the GPU selection's pass; 0: none (the knob's −1) */
static bool parse_cpu_levels(const char *value, void *target) {
    uint32_t k;
    if (!cli_parse_uint(value, 0, ST_LOD_MAX_LEVELS - 1, &k)) return false;
    *(int32_t *)target = k ? (int32_t)k : -1;
    return true;
}

static bool parse_clip_n(const char *value, void *target) {
    uint32_t v;
    if (!cli_parse_uint(value, 31, 1023, &v) || (v + 1) % 4) return false;
    *(uint32_t *)target = v;
    return true;
}

size_t cli_store_table(cli_store_opts *o, cli_opt *out) {
    const cli_opt table[CLI_STORE_OPTION_COUNT] = {
        {.name = "tau", .kind = CLI_OPT_FLOAT, .target = &o->tau_px, .min = 0.01, .max = 1000, .arg = "PX",
         .bad = "bad --tau '%s' (pixels, 0.01..1000)", .help = "screen-space error threshold in pixels (default 1)"},
        {.name = "skirts", .kind = CLI_OPT_FLAG, .target = &o->skirts,
         .help = "hang skirts under the node edges (the morph alone closes seams without them)"},
        {.name = "lod-grid", .kind = CLI_OPT_PARSE, .target = &o->grid, .parse = parse_lod_grid, .arg = "N",
         .bad = "bad --lod-grid '%s' (a power of two, 4..256)", .help = "quads per node side (a power of two, default 32)"},
        {.name = "lod-ratio", .kind = CLI_OPT_FLOAT, .target = &o->lod_ratio, .min = 1.5, .max = 16, .arg = "R",
         .bad = "bad --lod-ratio '%s' (1.5..16)", .help = "least ratio of consecutive levels' ranges (default 2)"},
        {.name = "morph-ratio", .kind = CLI_OPT_FLOAT, .target = &o->morph_ratio, .min = 0.05, .max = 0.95, .arg = "M",
         .bad = "bad --morph-ratio '%s' (0.05..0.95)", .help = "where a level's morph band starts (default 0.66)"},
        {.name = "gpu-slots", .kind = CLI_OPT_UINT, .target = &o->gpu_slots, .min = 16, .max = 65536, .arg = "N",
         .bad = "bad --gpu-slots '%s' (16..65536)", .help = "tile slots on the GPU (default 1024)"},
        {.name = "slow-load", .kind = CLI_OPT_DOUBLE, .target = &o->slow_load_ms, .min = 0, .max = 60000, .arg = "MS",
         .bad = "bad --slow-load '%s' (milliseconds, 0..60000)",
         .help = "sleep this long in every tile load (the hitch test: frame times must stay flat; default 0)"},
        {.name = "lod-error", .kind = CLI_OPT_PARSE, .target = &o->error_bound, .parse = parse_lod_error, .arg = "E",
         .bad = "bad --lod-error '%s' (measured or bound)",
         .help = "δ per level for the ranges: measured (the error 99 % of the surface stays within;\n"
                 "default) or bound (the index's worst tile)"},
        {.name = "clip-n", .kind = CLI_OPT_PARSE, .target = &o->clip_n, .parse = parse_clip_n, .arg = "N",
         .bad = "bad --clip-n '%s' (4m - 1, 31..1023)",
         .help = "clipmap: vertices per level side, 4m - 1 (31..1023; default: the least that meets τ)"},
        {.name = "lod-select", .kind = CLI_OPT_PARSE, .target = o, .parse = parse_lod_select, .arg = "S",
         .bad = "bad --lod-select '%s' (cpu, gpu or gpu:N, N a power of two 64..1024)",
         .help = "cdlod: where the quadtree selection runs, cpu (default) or gpu (a compute pass\n"
                 "writing the draws' indirect arguments; gpu:N walks with N invocations, default 256)"},
        {.name = "lod-cpu-levels", .kind = CLI_OPT_PARSE, .target = &o->select_cpu_levels, .parse = parse_cpu_levels,
         .arg = "K", .bad = "bad --lod-cpu-levels '%s' (0..23)",
         .help = "--lod-select gpu: the coarse levels, from the roots, walked on the CPU before the pass\n"
                 "(default 2; 0: the pass walks every level)"},
    };
    memcpy(out, table, sizeof table);
    return CLI_STORE_OPTION_COUNT;
}

bool cli_store_option(cli_store_opts *o, const char *cmd, int c, const char *arg, int *status) {
    if (c < CLI_OPT_TAU || c > CLI_OPT_LOD_CPU_LEVELS) return false;
    cli_opt table[CLI_STORE_OPTION_COUNT]; /* in the order of the codes */
    cli_store_table(o, table);
    *status = cli_option_take(cmd, &table[c - CLI_OPT_TAU], arg);
    return true;
}

void cli_store_knobs(const cli_store_opts *o, st_method_knobs *k) {
    k->tau_px = o->tau_px;
    k->skirts = o->skirts;
    k->lod_grid = o->grid;
    k->lod_ratio = o->lod_ratio;
    k->morph_ratio = o->morph_ratio;
    k->lod_error_bound = o->error_bound;
    k->clip_n = o->clip_n;
    k->lod_select_gpu = o->select_gpu;
    k->lod_select_threads = o->select_threads;
    k->lod_select_cpu_levels = o->select_cpu_levels;
}

st_result cli_store_engine(const char *world, const cli_store_opts *o, int device, bool device_given, bool validate,
                           st_store **store, st_engine **engine, st_error *err) {
    *store = NULL;
    *engine = NULL;
    st_result r = st_store_open(world, store, err);
    if (!r && st_store_get_info(*store)->kind != ST_TILE_DEM)
        r = st_error_set(err, ST_ERR_INVALID, "%s is a layer store: open it as a level (it has no DEM to draw)", world);
    st_engine_desc ed = {.device_index = device, .device_given = device_given, .validate = validate};
    if (!r) r = st_engine_create(&ed, engine, err);
    st_world_desc wd = {.gpu_slots = o->gpu_slots, .slow_load_ms = o->slow_load_ms};
    if (!r) r = st_engine_set_store(*engine, *store, &wd, err);
    return r;
}

const char *cli_store_methods_list(void) {
    static char list[256];
    if (!list[0]) {
        size_t used = 0;
        for (size_t i = 0; i < st_store_method_count(); i++) {
            int k = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", st_store_method_at(i)->name);
            if (k > 0 && used + (size_t)k < sizeof list) used += (size_t)k;
        }
    }
    return list;
}

int cli_store_method_check(const char *cmd, const char *method, const char *world) {
    const st_method_info *m = st_method_find(method);
    if (!m) return cli_usage_error(cmd, "unknown method '%s'", method);
    if (m->world != ST_WORLD_STORE)
        return cli_usage_error(cmd, "method '%s' draws levels and %s is a tile store (its methods: %s)", method, world,
                               cli_store_methods_list());
    return CLI_EXIT_OK;
}

int cli_store_select_check(const char *cmd, const char *method, const cli_store_opts *o) {
    if (!o->select_gpu || !strcmp(method, "cdlod")) return CLI_EXIT_OK;
    return cli_usage_error(cmd, "--lod-select gpu is cdlod's (method '%s' selects on the CPU)", method);
}

void cli_print_lod(const st_lod_frame_stats *s) {
    printf("  lod: %u nodes, %u quadrants (", s->nodes, s->quadrants);
    bool first = true;
    for (uint32_t l = 0; l < s->levels; l++)
        if (s->per_level[l]) {
            printf("%sL%u %u", first ? "" : ", ", l, s->per_level[l]);
            first = false;
        }
    printf("), %.3f M triangles (skirts %.3f M), selection %.3f ms CPU", (double)s->triangles / 1e6,
           (double)s->skirt_triangles / 1e6, s->select_ms);
    if (s->fallback || s->missing) printf(", %u from an ancestor, %u missing", s->fallback, s->missing);
    if (s->one_level_violations) printf(", %u breaking the one-level rule", s->one_level_violations);
    printf("\n");
}

void cli_print_world(const st_world_stats *w) {
    printf("  tiles: %u resident, %u evictable, %u queued, %u loading, %u failed; %u GPU slots (%.1f MiB); %llu loads, "
           "%llu uploads (%.1f MiB), %llu evictions\n",
           w->residency.resident, w->residency.evictable, w->residency.queued, w->residency.loading, w->residency.failed,
           w->gpu_slots, (double)w->gpu_bytes / 1048576.0, (unsigned long long)w->residency.loads_done,
           (unsigned long long)w->residency.uploads, (double)w->residency.bytes_uploaded / 1048576.0,
           (unsigned long long)w->residency.evictions);
}

/* ---- strata render --world STORE ---------------------------------------------------------------------------- */

static void render_usage(const cli_opt *opts, size_t count) {
    printf("usage: strata render --world STORE [--method M] [--view NAME | --camera x,y,z,yaw,pitch] [--size WxH]\n"
           "                     [--frames N] [--far M] [--tau PX] [--skirts] [--wireframe] [--lod-grid N]\n"
           "                     [--lod-ratio R] [--morph-ratio M] [--gpu-slots N] [--settle N] [--no-shadows]\n"
           "                     [--shading flat|textured] [--device N] -o|--out out.png [--depth out.pfm]\n\n"
           "Renders one image of a DEM tile store (a folder, an http(s):// URL or gen:SEED:WxH) once every tile the\n"
           "view wants is on the GPU, and prints the frame times, the level-of-detail figures and the residency.\n"
           "The water defaults to the ocean where the DEM reaches its sea level.\n\n"
           "options:\n");
    cli_options_usage(opts, count);
}

static bool parse_camera(const char *value, void *camera) { return st_camera_parse_precise(value, camera); }

int cli_render_store(int argc, char **argv) {
    const char *cmd = "render";
    const char *world = NULL, *method = "cdlod", *view_name = NULL, *out_png = NULL, *out_depth = NULL;
    cli_water water = {0};
    st_camera camera = {0};
    bool have_camera = false, device_given = false, no_shadows = false, wireframe = false, help = false;
    st_shading shading = ST_SHADING_TEXTURED;
    uint32_t size[2] = {1280, 800}, frames = 1, device = 0, settle = 4000;
    double far = 0;
    cli_store_opts so = {0};
    char method_help[320];
    snprintf(method_help, sizeof method_help, "%s (default cdlod)", cli_store_methods_list());
    const cli_opt own[] = {
        CLI_OPT_WORLD(&world),
        {.name = "method", .kind = CLI_OPT_STRING, .target = &method, .arg = "M", .help = method_help},
        {.name = "view", .kind = CLI_OPT_STRING, .target = &view_name, .arg = "NAME",
         .help = "one of the store's default views (horizon-1..3, pitch30-1..3, pitch60-1..3, top-1..3;\n"
                 "default horizon-1) or name:x,y:yaw:pitch[:height] in metres"},
        {.name = "camera", .kind = CLI_OPT_PARSE, .target = &camera, .given = &have_camera, .parse = parse_camera,
         .arg = "C",
         .bad = "malformed or out-of-range camera '%s' (want x,y,z,yaw,pitch: positions within 1e8 m, yaw -360..360, "
                "pitch -90..90)",
         .help = "eye x,y,z in metres (double precision), yaw, pitch"},
        {.name = "far", .kind = CLI_OPT_DOUBLE, .target = &far, .min = 2, .max = 1e7, .arg = "M",
         .bad = "bad --far '%s' (metres, 2..10^7)",
         .help = "far distance in metres (default: half the store's extent, at most 100 km)"},
        CLI_OPT_SIZE_WH(size, 16384, "image size (default 1280x800)"),
        CLI_OPT_FRAMES(&frames, 100000, "timed frames (default 1)"),
        {.name = "settle", .kind = CLI_OPT_UINT, .target = &settle, .min = 1, .max = 1000000, .arg = "N",
         .bad = "bad --settle '%s' (1..1000000)",
         .help = "frames allowed to reach full detail before timing (default 4000)"},
        {.name = "wireframe", .kind = CLI_OPT_FLAG, .target = &wireframe,
         .help = "overlay the triangle edges, coloured by LOD level"},
        CLI_OPT_NO_SHADOWS(&no_shadows),
        CLI_OPT_SHADING(&shading, "flat (the hypsometric tint) or textured (the default: materials by slope and height)"),
        CLI_OPT_DEVICE(&device, &device_given),
        CLI_OPT_OUT(&out_png, "FILE", "output image, a .png (sRGB)"),
        {.name = "output", .kind = CLI_OPT_STRING, .target = &out_png}, /* the older name of --out */
        {.name = "depth", .kind = CLI_OPT_STRING, .target = &out_depth, .arg = "FILE",
         .help = "distance along each pixel's ray as a PFM (NaN where nothing was hit)"},
    };
    cli_opt opts[CLI_OPTS_COUNT(own) + CLI_STORE_OPTION_COUNT + CLI_WATER_OPTION_COUNT];
    memcpy(opts, own, sizeof own);
    size_t count = CLI_OPTS_COUNT(own);
    count += cli_store_table(&so, opts + count);
    count += cli_water_table(&water, opts + count);
    int status = cli_options_parse(cmd, argc, argv, opts, count, 0, NULL, &help);
    if (status || help) {
        if (help) render_usage(opts, count);
        return status;
    }
    uint32_t width = size[0], height = size[1];
    bool shadows = !no_shadows;
    if (!out_png) return cli_usage_error(cmd, "missing -o out.png");
    struct stat out_stat; /* a directory gets its own message when the output is opened */
    bool out_is_dir = stat(out_png, &out_stat) == 0 && S_ISDIR(out_stat.st_mode);
    if (!out_is_dir && !cli_has_suffix(out_png, ".png"))
        return cli_usage_error(cmd, "-o '%s': the image is written as PNG, so its name must end in .png", out_png);
    if (out_depth && !cli_has_suffix(out_depth, ".pfm"))
        return cli_usage_error(cmd, "--depth '%s': the depth is written as PFM, so its name must end in .pfm", out_depth);
    status = cli_store_method_check(cmd, method, world);
    if (!status) status = cli_store_select_check(cmd, method, &so);
    if (status) return status;
    if (view_name && have_camera) return cli_usage_error(cmd, "give --view or --camera, not both");

    st_error err = {0};
    st_store *store = NULL;
    st_engine *engine = NULL;
    st_renderer *renderer = NULL;
    uint8_t *rgba = NULL;
    float *depth = NULL;
    double *gpu_ms = calloc(frames, sizeof *gpu_ms), *cpu_ms = calloc(frames, sizeof *cpu_ms);
    char view_label[64] = "camera";
    st_result r = gpu_ms && cpu_ms ? ST_OK : st_error_set(&err, ST_ERR_NOMEM, "out of memory");
    /* Every output is opened (as its temporary) before any work, so a bad path costs nothing and a failure
     * leaves none of them. */
    st_atomic_file outs[2];
    size_t out_count = 0;
    if (!r) r = st_atomic_open(&outs[out_count], out_png, &err);
    if (!r) out_count++;
    if (!r && out_depth) r = st_atomic_open(&outs[out_count], out_depth, &err);
    if (!r && out_depth) out_count++;
    if (!r) r = cli_store_engine(world, &so, (int)device, device_given, false, &store, &engine, &err);
    if (!r && !have_camera) {
        st_viewpoint vp;
        if (view_name) r = st_store_views_find(store, view_name, &vp, &err);
        else {
            st_viewpoint all[12];
            size_t n = 0;
            r = st_store_views_default(store, all, 12, &n, &err);
            if (!r) vp = all[0];
        }
        if (!r) r = st_store_view_camera(store, &vp, &camera, &err);
        if (!r) snprintf(view_label, sizeof view_label, "view %s", vp.name);
    }
    if (!r) {
        camera.far_dist = (float)(far > 0 ? far : camera.far_dist > 0 ? camera.far_dist : st_store_far(store));
        if (!camera.fovy_deg) camera.fovy_deg = ST_DEFAULT_FOVY_DEG;
    }
    /* the ocean where the DEM reaches its sea level (or below), unless --water says otherwise */
    if (!r && !water.mode_given) {
        const st_store_info *in = st_store_get_info(store);
        water.desc.mode = in->min_m <= in->sea_level_m ? ST_WATER_OCEAN : ST_WATER_NONE;
    }
    st_render_desc rd = {.method = method, .width = width, .height = height, .shadows = shadows, .wireframe = wireframe,
                         .water = water.desc, .shading = shading};
    cli_store_knobs(&so, &rd.knobs);
    if (!r) r = st_renderer_create(engine, &rd, &renderer, &err);
    if (!r) st_renderer_set_time(renderer, water.time);
    uint32_t settled_after = 0;
    st_lod_frame_stats lod = {0};
    if (!r) r = st_renderer_settle(renderer, &camera, settle, &settled_after, &err);
    if (!r) st_renderer_lod_stats(renderer, &lod);
    bool settled = lod.settled;
    double water_sim_ms = 0, water_ms = 0;
    for (uint32_t i = 0; i < frames && !r; i++) {
        st_frame_timing t;
        r = st_renderer_draw(renderer, &camera, &t, &err);
        gpu_ms[i] = t.gpu_ms;
        cpu_ms[i] = t.cpu_ms;
        water_sim_ms += st_frame_timing_pass_ms(&t, "water-sim") / frames;
        water_ms += st_frame_timing_pass_ms(&t, "water") / frames;
    }
    if (!r) st_renderer_lod_stats(renderer, &lod);
    size_t pixels = (size_t)width * height;
    if (!r) {
        rgba = malloc(pixels * 4);
        depth = out_depth ? malloc(pixels * sizeof *depth) : NULL;
        if (!rgba || (out_depth && !depth)) r = st_error_set(&err, ST_ERR_NOMEM, "out of memory");
    }
    if (!r) r = st_renderer_readback(renderer, rgba, depth, &err);
    if (!r) r = st_png_write_to(&outs[0], width, height, 4, 8, rgba, &err);
    if (!r && out_depth) {
        st_view v = st_camera_view(&camera, width, height);
        for (uint32_t y = 0; y < height; y++)
            for (uint32_t x = 0; x < width; x++) {
                size_t i = (size_t)y * width + x;
                depth[i] = st_view_distance_from_depth(&v, x, y, depth[i]);
            }
        r = st_pfm_write_to(&outs[1], width, height, depth, &err);
    }
    if (!r) r = st_atomic_commit_all(outs, out_count, &err);
    else st_atomic_abort_all(outs, out_count);
    if (!r) {
        st_device_info dev = st_engine_device(engine);
        const st_store_info *in = st_store_get_info(store);
        double eye[3];
        st_camera_eye(&camera, eye);
        printf("%s on %s (%s): %ux%u, %u frame%s, world %s (%.1f x %.1f km), %s at (%.1f, %.1f, %.1f) yaw %g pitch %g, "
               "far %.0f m, tau %g px, skirts %s, shadows %s\n",
               method, dev.name, dev.type, width, height, frames, frames > 1 ? "s" : "", world,
               (double)(in->width - 1) * in->spacing_x_m / 1000, (double)(in->height - 1) * in->spacing_y_m / 1000,
               view_label, eye[0], eye[1], eye[2], (double)camera.yaw_deg, (double)camera.pitch_deg,
               (double)camera.far_dist, lod.tau_px, so.skirts ? "on" : "off", shadows ? "on" : "off");
        if (settled) printf("  full detail after %u frame%s\n", settled_after, settled_after > 1 ? "s" : "");
        else printf("  not at full detail after %u frames (--settle, --gpu-slots)\n", settled_after);
        st_stats g = st_stats_of(gpu_ms, frames), cs = st_stats_of(cpu_ms, frames);
        if (isnan(g.median)) printf("  gpu ms: not available on this adapter\n");
        else printf("  gpu ms: median %.3f  min %.3f  max %.3f\n", g.median, g.min, g.max);
        printf("  cpu ms: median %.3f  min %.3f  max %.3f (record + submit + wait)\n", cs.median, cs.min, cs.max);
        if (rd.water.mode != ST_WATER_NONE) {
            printf("  water: %s (drawn in %s) at sea level %.2f m, t = %.3f s", st_water_mode_name(rd.water.mode),
                   rd.water.draw == ST_WATER_DRAW_RASTER ? "the raster pipeline" : "compute",
                   st_water_get_desc(st_renderer_water(renderer))->level, water.time);
            if (!isnan(g.median))
                printf(", gpu ms (mean, included above): simulation %.3f, surface %.3f", water_sim_ms, water_ms);
            printf("\n");
        }
        cli_print_lod(&lod);
        st_world_stats ws;
        if (!st_engine_world_stats(engine, &ws, &err)) cli_print_world(&ws);
        printf("  wrote %s%s%s\n", out_png, out_depth ? " and " : "", out_depth ? out_depth : "");
        status = cli_validation_status(cmd, engine);
    } else {
        status = cli_fail(cmd, &err);
    }
    st_renderer_destroy(renderer);
    st_engine_destroy(engine);
    st_store_close(store);
    free(rgba);
    free(depth);
    free(gpu_ms);
    free(cpu_ms);
    return status;
}
