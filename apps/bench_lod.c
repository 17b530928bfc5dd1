/* strata bench lod: the cost of the CDLOD selection on a DEM store at a screen size and τ: on the CPU
 * (src/tiles/lod.c) each default view selected many times, alone and with the residency manager's requests and
 * ancestor lookups, and a straight flight low over the terrain at a set speed; on the GPU (the compute pass of
 * --lod-select gpu) the same views and flight drawn by cdlod, the pass timed by its timestamps; median and p99
 * against the targets of 0.05 ms CPU and 0.1 ms GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "store_cli.h"
#include "strata/eval.h"
#include "strata/lab.h"
#include "strata/lod.h"
#include "strata/views.h"

#define TARGET_MS 0.05
#define TARGET_GPU_MS 0.1
#define GPU_FRAMES 30 /* frames drawn per view for the GPU selection's timing (fewer when --repeat is less) */

static st_result cheap_load(void *user, st_tile_key key, st_tile **out, st_error *err) {
    const st_store_info *in = user;
    st_result r = st_tile_create(ST_TILE_DEM, in->encoding, in->tile_size, out, err);
    if (!r) (*out)->key = key;
    return r;
}

static double p99_of(double *v, uint32_t n) {
    float *f = malloc(n * sizeof *f);
    if (!f) return NAN;
    for (uint32_t i = 0; i < n; i++) f[i] = (float)v[i];
    double p = st_eval_percentile(f, n, 99);
    free(f);
    return p;
}

/* Frame f of the benches' flight: from the start camera's position along its heading at `speed` m/s and 60 frames
 * a second, 60 m over the ground, pitch −10°, clamped to the world. */
static st_result flight_camera(st_store *store, const st_camera *start, uint32_t f, float speed, st_camera *cam,
                               st_error *err) {
    double eye[3];
    st_camera_eye(start, eye);
    *cam = *start;
    double hx = sin(start->yaw_deg * M_PI / 180), hy = cos(start->yaw_deg * M_PI / 180);
    const st_store_info *in = st_store_get_info(store);
    double ex = (double)(in->width - 1) * in->spacing_x_m, ey = (double)(in->height - 1) * in->spacing_y_m;
    double x = eye[0] + hx * speed * f / 60.0, y = eye[1] + hy * speed * f / 60.0, ground = 0;
    x = fmin(fmax(x, 0), ex), y = fmin(fmax(y, 0), ey);
    st_result r = st_store_ground(store, x, y, &ground, err);
    double at[3] = {x, y, ground + 60};
    st_camera_set_eye(cam, at);
    cam->pitch_deg = -10;
    return r;
}

/* The benches' flight from the start: the first default view's position and heading (*start), and the renderer
 * (when given) settled to full detail at the flight's first frame, so the timed frames measure streaming while
 * moving rather than the first load. *cam is frame 0. */
static st_result flight_start(st_store *store, const st_viewpoint *first_view, float speed, st_renderer *settle,
                              st_camera *start, st_camera *cam, st_error *err) {
    st_result r = st_store_view_camera(store, first_view, start, err);
    if (!r) r = flight_camera(store, start, 0, speed, cam, err);
    if (!r && settle) r = st_renderer_settle(settle, cam, 4000, NULL, err);
    return r;
}

/* The table's default flight, found like the repository's other data: from the working directory, else from the
 * folders above the executable (build/strata, .device/bin/strata in a checkout); false when neither has it. */
#define DEFAULT_CRUISE "data/flights/cruise-300.flight"
static bool find_default_cruise(char *out, size_t cap) {
    FILE *fp = fopen(DEFAULT_CRUISE, "rb");
    if (fp) {
        fclose(fp);
        snprintf(out, cap, "%s", DEFAULT_CRUISE);
        return true;
    }
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = 0;
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash) return false;
        *slash = 0;
        int k = snprintf(out, cap, "%s/" DEFAULT_CRUISE, exe);
        if (k <= 0 || (size_t)k >= cap) return false;
        if ((fp = fopen(out, "rb"))) {
            fclose(fp);
            return true;
        }
    }
    return false;
}

/* strata bench lod --table: the lab's table into a Markdown file and a JSON file beside it. */
typedef struct table_opts {
    const char *out, *path, *method;
    double taus[ST_LAB_MAX_TAUS];
    size_t tau_count;
    double slow_ms;
    uint32_t gpu_slots, device;
    bool flights, depth, device_given, validate;
} table_opts;

static int run_table(const char *cmd, const char *world, uint32_t width, uint32_t height, uint32_t grid,
                     const table_opts *t) {
    if (!t->out) return cli_usage_error(cmd, "--table needs -o FILE.md (the JSON goes beside it)");
    if (!cli_has_suffix(t->out, ".md")) return cli_usage_error(cmd, "-o '%s': the table is Markdown, so its name must end in .md", t->out);
    char json[1100], zfight[1100];
    snprintf(json, sizeof json, "%.*s.json", (int)(strlen(t->out) - 3), t->out);
    snprintf(zfight, sizeof zfight, "%.*s-zfight.png", (int)(strlen(t->out) - 3), t->out);
    if (cli_check_output_file(cmd, t->out) || cli_check_output_file(cmd, json) || cli_check_output_file(cmd, zfight))
        return CLI_EXIT_USAGE;
    int status = cli_store_method_check(cmd, t->method, world);
    if (status) return status;
    st_error err = {0};
    st_flight flight = {0};
    char found[1200];
    const char *path = t->path;
    if (t->flights && !path) {
        if (!find_default_cruise(found, sizeof found))
            return cli_usage_error(cmd, "no --path: the default flight %s is neither under the working directory nor "
                                        "beside the executable's checkout; give --path FLIGHT or --no-flights",
                                   DEFAULT_CRUISE);
        path = found;
    }
    if (t->flights && st_flight_load(path, &flight, &err)) return cli_fail(cmd, &err);
    st_store *store = NULL;
    st_lod_lab_result *r = NULL;
    st_result res = st_store_open(world, &store, &err);
    st_lod_lab_desc d = {.store = store,
                         .world_name = world,
                         .width = width,
                         .height = height,
                         .taus = t->tau_count ? t->taus : NULL,
                         .tau_count = t->tau_count,
                         .lod_grid = grid,
                         .cruise = t->flights ? &flight : NULL,
                         .cruise_name = path,
                         .method = t->method,
                         .slow_load_ms = t->slow_ms,
                         .gpu_slots = t->gpu_slots,
                         .depth = t->depth,
                         .zfight_png = t->depth ? zfight : NULL,
                         .device_index = (int)t->device,
                         .device_given = t->device_given,
                         .validate = t->validate,
                         .progress_lines = true,
                         .cancel = &cli_interrupted};
    cli_measure_catch_interrupt();
    if (!res) res = st_lod_lab_run(&d, &r, &err);
    /* both files or neither */
    if (!res) res = st_lod_lab_write_json(r, json, &err);
    if (!res && (res = st_lod_lab_write_markdown(r, t->out, &err))) remove(json);
    if (res == ST_ERR_CANCELLED) {
        fprintf(stderr, "strata %s: interrupted: no table written\n", cmd);
        status = 130;
    } else if (res) {
        status = cli_fail(cmd, &err);
    } else {
        printf("lab table of %s at %ux%u on %s: triangles ∝ τ^%.3f (predicted −2), skirts %.2f %% (4/N = %.2f %%)",
               world, r->width, r->height, r->adapter, r->exponent, 100 * r->skirt_ratio_mean, 100 * r->skirt_predicted);
        if (r->flights)
            printf(", resident at cruise %.0f (bound %.0f), slow-load p99/median %.2f, holes %llu",
                   r->resident_median, r->bound, r->slow->frame.p99 / r->slow->frame.median,
                   (unsigned long long)(r->plain->hole_px_total + r->slow->hole_px_total));
        printf("\n  wrote %s and %s\n", t->out, json);
        status = r->validation_messages ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
        if (r->validation_messages) fprintf(stderr, "strata %s: %u Vulkan validation message(s)\n", cmd, r->validation_messages);
    }
    st_lod_lab_result_free(r);
    st_store_close(store);
    st_flight_free(&flight);
    return status;
}

static bool parse_taus(const char *value, void *target) {
    table_opts *t = target;
    char buf[256];
    if (!value || strlen(value) >= sizeof buf) return false;
    snprintf(buf, sizeof buf, "%s", value);
    char *items[ST_LAB_MAX_TAUS + 1];
    size_t n = cli_split_list(buf, items, ST_LAB_MAX_TAUS + 1);
    if (n < 2 || n > ST_LAB_MAX_TAUS) return false;
    for (size_t i = 0; i < n; i++)
        if (!cli_parse_double(items[i], 0.01, 1000, &t->taus[i])) return false;
    t->tau_count = n;
    return true;
}

static void usage(const char *world, const cli_opt *opts, size_t count) {
    printf("usage: strata bench lod [--world STORE] [--method M] [--size WxH] [--tau PX] [--repeat N] [--speed M/S]\n"
           "                        [--frames N] [--lod-grid N] [--lod-error measured|bound] [--clip-n N]\n\n"
           "Times the level-of-detail choice on the CPU for each default view of the store (default %s) at\n"
           "1920x1080, tau 1, then along a straight flight at --speed m/s (default 300) at 60 frames per second,\n"
           "60 m over the ground (--frames, default 600); prints median and p99 against %.2f ms.\n"
           "cdlod (and cdlod-compute, whose selection is the same): the quadtree selection alone, --repeat times per\n"
           "view (default 200), then with the residency manager's requests and drawable lookups; then the GPU\n"
           "selection (cdlod --lod-select gpu): each view settled and drawn %d times (or --repeat), then the flight\n"
           "drawn (--frames),\n"
           "the selection pass timed by GPU timestamps (against %.2f ms), its nodes beside the CPU's.\n"
           "--lod-select cpu or gpu runs only that part (default both); the GPU part takes --device, --validate and\n"
           "--gpu-slots.\n"
           "clipmap, clipmap-compute: the renderer's whole CPU frame (active levels, windows, requests, the toroidal\n"
           "update's rectangles, footprints and their culling, uniforms), each view settled and then drawn --repeat\n"
           "times (default 20), and the flight drawn frame by frame (it needs a GPU: --device, --gpu-slots); prints\n"
           "the levels drawn, footprints, triangles and the samples the update wrote.\n"
           "--lod-error bound takes the ranges from the index's δ bound instead of the measured error.\n\n"
           "strata bench lod --table -o FILE.md [--world STORE] [--size WxH] [--taus a,b,...] [--lod-grid N]\n"
           "                 [--path FLIGHT] [--slow-load MS] [--method M] [--gpu-slots N] [--no-flights]\n"
           "                 [--no-depth] [--device N] [--validate]\n"
           "writes the lab's table (docs/large-world.md) to FILE.md and FILE.json (and FILE-zfight.png, the\n"
           "depth-precision picture): triangles against τ (default\n"
           "0.5,1,2,4,8) with the fitted exponent, the skirts' overhead, resident tiles at cruise along FLIGHT\n"
           "(default data/flights/cruise-300.flight, from the working directory or the checkout of the executable)\n"
           "against the derived bound, the hitch with --slow-load MS (default 50), and the depth-precision experiment.\n\noptions:\n",
           world, TARGET_MS, GPU_FRAMES, TARGET_GPU_MS);
    cli_options_usage(opts, count);
}

#define MAX_CPU_LEVELS 8 /* values of --lod-cpu-levels one run compares */

typedef struct bench_opts {
    const char *world, *method, *views;
    uint32_t width, height, repeat, frames, device;
    float speed;
    bool device_given, validate;
    cli_store_opts so;
    /* --lod-cpu-levels K[,K...]: the knob lod_select_cpu_levels of each (0 = the default, −1 = K 0), in order */
    int32_t cpu_levels[MAX_CPU_LEVELS];
    uint32_t cpu_levels_n;
} bench_opts;

/* --lod-cpu-levels as a list (bench lod compares the values in one run): 1..MAX_CPU_LEVELS of 0..23 */
static bool parse_cpu_levels_list(const char *value, void *target) {
    bench_opts *b = target;
    char buf[128];
    if (!value || strlen(value) >= sizeof buf) return false;
    snprintf(buf, sizeof buf, "%s", value);
    char *items[MAX_CPU_LEVELS + 1];
    size_t n = cli_split_list(buf, items, MAX_CPU_LEVELS + 1);
    if (n < 1 || n > MAX_CPU_LEVELS) return false;
    for (size_t i = 0; i < n; i++) {
        uint32_t k;
        if (!cli_parse_uint(items[i], 0, ST_LOD_MAX_LEVELS - 1, &k)) return false;
        b->cpu_levels[i] = k ? (int32_t)k : -1;
    }
    b->cpu_levels_n = (uint32_t)n;
    return true;
}

/* The coarse levels a knob value of lod_select_cpu_levels walks in a world of `levels` (0: none). */
static uint32_t cpu_levels_of(int32_t knob, uint32_t levels) {
    uint32_t k = knob == 0 ? ST_LOD_SELECT_CPU_LEVELS : knob < 0 ? 0u : (uint32_t)knob;
    return levels < 2 ? 0 : k < levels ? k : levels - 1;
}

/* The views to run: --views A,B,... by name, else the store's default views. */
static st_result bench_views(st_store *store, const char *names, st_viewpoint views[ST_MAX_VIEWS], size_t *count,
                             st_error *err) {
    *count = 0;
    if (!names) return st_store_views_default(store, views, ST_MAX_VIEWS, count, err);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", names);
    char *items[ST_MAX_VIEWS];
    size_t n = cli_split_list(buf, items, ST_MAX_VIEWS);
    st_result r = n ? ST_OK : st_error_set(err, ST_ERR_INVALID, "--views '%s' names no view", names);
    for (size_t i = 0; i < n && !r; i++) r = st_store_views_find(store, items[i], &views[(*count)++], err);
    return r;
}

static int bench_clipmap(const char *cmd, const bench_opts *b);
static int bench_gpu_select(const char *cmd, const bench_opts *b);

int bench_lod(int argc, char **argv) {
    const char *cmd = "bench lod";
    bench_opts b = {.world = "gen:1:65537x65537", .method = "cdlod", .width = 1920, .height = 1080, .frames = 600,
                    .speed = 300};
    uint32_t size[2] = {1920, 1080}, repeat = 0;
    bool table = false, no_flights = false, no_depth = false, help = false, path_given = false, method_given = false;
    table_opts to = {.path = NULL, .method = "cdlod", .flights = true, .depth = true};
    cli_opt opts[20 + CLI_STORE_OPTION_COUNT] = {
        {.name = "world", .kind = CLI_OPT_STRING, .target = &b.world, .arg = "STORE",
         .help = "the DEM tile store (default gen:1:65537x65537)"},
        {.name = "method", .kind = CLI_OPT_STRING, .target = &b.method, .given = &method_given, .arg = "M",
         .help = "cdlod (the default), cdlod-compute, clipmap or clipmap-compute"},
        CLI_OPT_SIZE_WH(size, 16384, "image size (default 1920x1080)"),
        CLI_OPT_REPEAT(&repeat, 100000, "timed selections (cdlod, default 200) or frames (clipmap, default 20) per view"),
        {.name = "speed", .kind = CLI_OPT_FLOAT, .target = &b.speed, .min = 0, .max = 100000, .arg = "M/S",
         .bad = "bad --speed '%s' (0..100000 m/s)", .help = "the flight's speed (default 300)"},
        {.name = "frames", .kind = CLI_OPT_UINT, .target = &b.frames, .min = 1, .max = 100000, .arg = "N",
         .bad = "bad --frames '%s' (1..100000)", .help = "the flight's frames (default 600)"},
        {.name = "table", .kind = CLI_OPT_FLAG, .target = &table, .help = "the lab's table instead (below)"},
        {.name = "taus", .kind = CLI_OPT_PARSE, .target = &to, .parse = parse_taus, .arg = "a,b",
         .bad = "bad --taus '%s' (2 to " CLI_XSTR(ST_LAB_MAX_TAUS) " values, pixels 0.01..1000)",
         .help = "--table: the τ values (default 0.5,1,2,4,8)"},
        {.name = "path", .kind = CLI_OPT_STRING, .target = &to.path, .given = &path_given, .arg = "FLIGHT",
         .help = "--table: the cruise flight (default data/flights/cruise-300.flight)"},
        {.name = "no-flights", .kind = CLI_OPT_FLAG, .target = &no_flights, .help = "--table: leave out the flights"},
        {.name = "no-depth", .kind = CLI_OPT_FLAG, .target = &no_depth,
         .help = "--table: leave out the depth-precision experiment"},
        CLI_OPT_DEVICE(&b.device, &b.device_given),
        {.name = "validate", .kind = CLI_OPT_FLAG, .target = &b.validate, .help = "Vulkan validation on"},
        CLI_OPT_OUT(&to.out, "FILE.md", "--table: the table's Markdown file (its JSON beside it)"),
        {.name = "views", .kind = CLI_OPT_STRING, .target = &b.views, .arg = "A,B",
         .help = "the views to run, by name (horizon-1..3, pitch30-1..3, pitch60-1..3, top-1..3; default all)"},
    };
    size_t count = 15;
    count += cli_store_table(&b.so, opts + count);
    bool select_given = false, cpu_levels_given = false;
    for (size_t i = 15; i < count; i++) {
        if (!strcmp(opts[i].name, "lod-select")) opts[i].given = &select_given;
        if (!strcmp(opts[i].name, "lod-cpu-levels")) {
            /* a list here: the GPU part runs each value, the CPU part times each one's coarse walk */
            opts[i].target = &b, opts[i].parse = parse_cpu_levels_list, opts[i].given = &cpu_levels_given;
            opts[i].arg = "K,..";
            opts[i].bad = "bad --lod-cpu-levels '%s' (1 to " CLI_XSTR(MAX_CPU_LEVELS) " values 0..23)";
            opts[i].help = "cdlod: the coarse levels walked on the CPU before the GPU selection's pass, one value\n"
                           "or several to compare (default 2; 0: the pass walks every level)";
        }
    }
    b.cpu_levels_n = 1; /* the default */
    int parsed = cli_options_parse(cmd, argc, argv, opts, count, 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(b.world, opts, count);
        return parsed;
    }
    b.width = size[0], b.height = size[1];
    const char *world = b.world;
    uint32_t width = b.width, height = b.height, grid = b.so.grid;
    float tau = b.so.tau_px > 0 ? b.so.tau_px : 1.0f, speed = b.speed;
    bool bound = b.so.error_bound;
    if (table) {
        if (bound) return cli_usage_error(cmd, "--table gives both: --lod-error is not one of its options");
        if (select_given || cpu_levels_given)
            return cli_usage_error(cmd, "--table selects on the CPU: --lod-select and --lod-cpu-levels are not its options");
        if (b.views) return cli_usage_error(cmd, "--table takes every view: --views is not one of its options");
        to.flights = !no_flights, to.depth = !no_depth;
        to.slow_ms = b.so.slow_load_ms, to.gpu_slots = b.so.gpu_slots;
        to.device = b.device, to.device_given = b.device_given, to.validate = b.validate;
        if (method_given) to.method = b.method;
        return run_table(cmd, world, width, height, grid, &to);
    }
    if (to.out || to.tau_count || path_given || b.so.slow_load_ms > 0 || no_flights || no_depth)
        return cli_usage_error(cmd, "-o, --taus, --path, --slow-load, --no-flights and --no-depth are options of --table");
    bool clipmap = !strcmp(b.method, "clipmap") || !strcmp(b.method, "clipmap-compute");
    if (!clipmap && strcmp(b.method, "cdlod") && strcmp(b.method, "cdlod-compute"))
        return cli_usage_error(cmd, "bad --method '%s' (cdlod, cdlod-compute, clipmap or clipmap-compute)", b.method);
    b.repeat = repeat ? repeat : clipmap ? 20 : 200;
    if (clipmap && (select_given || cpu_levels_given))
        return cli_usage_error(cmd, "--lod-select and --lod-cpu-levels are cdlod's (the clipmap selects on the CPU)");
    if (clipmap) return bench_clipmap(cmd, &b);
    if (b.so.clip_n) return cli_usage_error(cmd, "--clip-n is an option of the clipmap methods");
    bool cpu_part = !select_given || !b.so.select_gpu, gpu_part = !select_given || b.so.select_gpu;
    if (!gpu_part && (b.so.gpu_slots || b.device_given || b.validate))
        return cli_usage_error(cmd, "--gpu-slots, --device and --validate are options of the GPU selection (--lod-select "
                               "cpu runs on the CPU alone)");
    if (!cpu_part) return bench_gpu_select(cmd, &b);
    repeat = b.repeat;
    uint32_t frames = b.frames;
    st_error err = {0};
    st_store *store = NULL;
    st_residency *res = NULL;
    st_lod_selection sel = {0};
    st_lod_frontier frontier = {0};
    double *ms = malloc(repeat * sizeof *ms), *fly = malloc(frames * sizeof *fly);
    if (!ms || !fly) return CLI_EXIT_RUNTIME;
    st_result r = st_store_open(world, &store, &err);
    st_viewpoint views[ST_MAX_VIEWS];
    size_t nv = 0;
    if (!r) r = bench_views(store, b.views, views, &nv, &err);
    st_lod_world alone, with;
    double t_world = st_time_ms();
    if (!r) r = st_lod_world_of_store(store, NULL, grid, &alone, &err);
    t_world = st_time_ms() - t_world;
    if (!r) {
        st_residency_desc rd = {.store = store, .load = cheap_load, .load_user = (void *)st_store_get_info(store),
                                .cpu_tiles = 4096};
        r = st_residency_create(&rd, &res, &err);
    }
    if (!r) r = st_lod_world_of_store(store, res, grid, &with, &err);
    if (!r && bound) st_lod_world_use_bound(&alone), st_lod_world_use_bound(&with);
    st_lod_params p = {.tau_px = tau, .lod_ratio = b.so.lod_ratio, .morph_ratio = b.so.morph_ratio, .skirts = b.so.skirts};
    double worst_median = 0, worst_p99 = 0;
    if (!r)
    {
        printf("lod selection on %s at %ux%u, tau %g px, grid %u: %u runs per view, one thread\n", world, width, height,
               (double)tau, alone.grid, repeat);
        printf("  δ per level (%s; measuring it took %.0f ms):", bound ? "the index's bound" : "measured", t_world);
        for (uint32_t l = 0; l < alone.levels; l++) printf(" %.3g", alone.delta[l]);
        printf(" m\n");
    }
    for (size_t v = 0; v < nv && !r; v++) {
        st_camera cam;
        r = st_store_view_camera(store, &views[v], &cam, &err);
        if (r) break;
        st_view view = st_camera_view(&cam, width, height);
        st_lod_view lv = st_lod_view_of(&view);
        double med[2], p99[2];
        for (int mode = 0; mode < 2 && !r; mode++) {
            const st_lod_world *w = mode ? &with : &alone;
            if (mode) /* let the residency manager learn the view's tiles first: steady state */
                for (int i = 0; i < 50 && !r; i++) {
                    r = st_lod_select(w, &p, &lv, &sel, &err);
                    st_residency_update(res);
                }
            for (uint32_t i = 0; i < repeat && !r; i++) {
                double t0 = st_time_ms();
                r = st_lod_select(w, &p, &lv, &sel, &err);
                ms[i] = st_time_ms() - t0;
                if (mode) st_residency_update(res);
            }
            st_stats s = st_stats_of(ms, repeat);
            med[mode] = s.median;
            p99[mode] = p99_of(ms, repeat);
        }
        if (r) break;
        printf("  %-10s %6u nodes %9.3f M triangles, widened %u: median %.4f ms (p99 %.4f) alone, %.4f ms (p99 %.4f) "
               "with residency\n", views[v].name, sel.count, (double)sel.triangles / 1e6, sel.widened, med[0], p99[0],
               med[1], p99[1]);
        /* the coarse levels' walk that --lod-select gpu does on the CPU before its pass (with residency, as there) */
        st_lod_band bands[ST_LOD_MAX_LEVELS];
        st_lod_bands(&with, &p, lv.focal_px, lv.far_m, bands);
        for (uint32_t c = 0; c < b.cpu_levels_n && !r; c++) {
            uint32_t k = cpu_levels_of(b.cpu_levels[c], with.levels);
            if (!k) continue;
            for (uint32_t i = 0; i < repeat && !r; i++) {
                double t0 = st_time_ms();
                r = st_lod_select_coarse(&with, &p, &lv, bands, k, &frontier, &err);
                ms[i] = st_time_ms() - t0;
                st_residency_update(res);
            }
            if (r) break;
            st_stats s = st_stats_of(ms, repeat);
            printf("    the GPU selection's coarse walk, levels %u..%u on the CPU: median %.4f ms (p99 %.4f), %u visits; "
                   "hands over %u draws, %u parents, %u candidates of level %u\n", with.levels - 1, with.levels - k,
                   s.median, p99_of(ms, repeat), frontier.visits, frontier.draw_count, frontier.parent_count,
                   frontier.cand_count, frontier.first);
        }
        if (r) break;
        worst_median = fmax(worst_median, med[1]);
        worst_p99 = fmax(worst_p99, p99[1]);
    }
    /* the flight: from the first view's position along its heading, 60 m over the ground */
    if (!r) {
        st_camera start, cam;
        r = flight_start(store, &views[0], speed, NULL, &start, &cam, &err);
        for (uint32_t f = 0; f < frames && !r; f++) {
            r = flight_camera(store, &start, f, speed, &cam, &err);
            st_view view = st_camera_view(&cam, width, height);
            st_lod_view lv = st_lod_view_of(&view);
            double t0 = st_time_ms();
            if (!r) r = st_lod_select(&with, &p, &lv, &sel, &err);
            fly[f] = st_time_ms() - t0;
            st_residency_update(res);
        }
        if (!r) {
            st_stats s = st_stats_of(fly, frames);
            double p99 = p99_of(fly, frames);
            printf("  flight at %.0f m/s: median %.4f ms, p99 %.4f ms, max %.4f ms with residency\n", (double)speed,
                   s.median, p99, s.max);
            worst_median = fmax(worst_median, s.median);
        }
    }
    if (!r) {
        printf("  worst p99 %.4f ms\n", worst_p99);
        bool standard = width == 1920 && height == 1080 && tau == 1.0f;
        cli_bench_verdict("median CDLOD selection (worst view or flight)", "<=", TARGET_MS, "ms", worst_median,
                          standard ? NULL : "the target is for 1920x1080 at tau 1");
    }
    st_lod_selection_free(&sel);
    st_lod_frontier_free(&frontier);
    st_residency_destroy(res);
    st_store_close(store);
    free(ms);
    free(fly);
    if (r) return cli_fail(cmd, &err);
    return gpu_part ? bench_gpu_select(cmd, &b) : CLI_EXIT_OK;
}

/* strata bench lod, the GPU selection: cdlod with --lod-select gpu draws each default view (settled first) and the
 * flight, once per value of --lod-cpu-levels (a renderer each); the "select" pass's timestamps are the pass's GPU
 * time, the coarse levels' walk before it its CPU part, and the pass's nodes are set beside the CPU's selection of
 * the same view (they are the same nodes: tests/test_gpu_cdlod_select.c). The verdict is the whole selection's:
 * per frame the pass plus the CPU's walk of the coarse levels. */
typedef struct gpu_series {
    double *gpu, *coarse, *whole, *cpu; /* per frame: the pass, the coarse walk, the two together, the CPU side */
} gpu_series;

static void gpu_frame(st_renderer *rd, const st_frame_timing *t, st_lod_frame_stats *s, gpu_series *g, uint32_t i) {
    st_renderer_lod_stats(rd, s);
    g->gpu[i] = st_frame_timing_pass_ms(t, "select");
    g->coarse[i] = s->coarse_ms;
    g->whole[i] = g->gpu[i] + s->coarse_ms;
    g->cpu[i] = s->select_ms;
}

static int bench_gpu_select(const char *cmd, const bench_opts *b) {
    st_error err = {0};
    st_store *store = NULL;
    st_engine *engine = NULL;
    st_renderer *rds[MAX_CPU_LEVELS] = {0};
    st_viewpoint views[ST_MAX_VIEWS];
    size_t nv = 0;
    uint32_t per_view = b->repeat < GPU_FRAMES ? b->repeat : GPU_FRAMES, nk = b->cpu_levels_n;
    uint32_t most = b->frames > per_view ? b->frames : per_view;
    gpu_series g = {malloc(most * sizeof(double)), malloc(most * sizeof(double)), malloc(most * sizeof(double)),
                    malloc(most * sizeof(double))};
    if (!g.gpu || !g.coarse || !g.whole || !g.cpu) {
        free(g.gpu), free(g.coarse), free(g.whole), free(g.cpu);
        return CLI_EXIT_RUNTIME;
    }
    st_result r = cli_store_engine(b->world, &b->so, (int)b->device, b->device_given, b->validate, &store, &engine, &err);
    if (!r) r = bench_views(store, b->views, views, &nv, &err);
    st_render_desc d = {.method = "cdlod", .width = b->width, .height = b->height};
    cli_store_knobs(&b->so, &d.knobs);
    d.knobs.lod_select_gpu = true;
    for (uint32_t c = 0; c < nk && !r; c++) {
        d.knobs.lod_select_cpu_levels = b->cpu_levels[c];
        r = st_renderer_create(engine, &d, &rds[c], &err);
    }
    st_lod_world world;
    st_lod_selection sel = {0};
    st_lod_params p = {.tau_px = d.knobs.tau_px > 0 ? d.knobs.tau_px : 1.0, .lod_ratio = b->so.lod_ratio,
                       .morph_ratio = b->so.morph_ratio, .skirts = b->so.skirts};
    if (!r) r = st_lod_world_of_store(store, NULL, b->so.grid, &world, &err);
    if (!r && b->so.error_bound) st_lod_world_use_bound(&world);
    /* per value of --lod-cpu-levels: the worst median of the whole selection and of the pass alone, the worst p99 */
    double worst[MAX_CPU_LEVELS] = {0}, worst_gpu[MAX_CPU_LEVELS] = {0}, worst_p99[MAX_CPU_LEVELS] = {0};
    uint32_t mismatched = 0;
    bool timed = true;
    st_lod_frame_stats s = {0};
    for (size_t v = 0; v < nv && !r; v++) {
        st_camera cam;
        r = st_store_view_camera(store, &views[v], &cam, &err);
        /* the CPU's selection of the view, every tile drawable (as in the settled frames) */
        st_view view = st_camera_view(&cam, b->width, b->height);
        st_lod_view lv = st_lod_view_of(&view);
        if (!r) r = st_lod_select(&world, &p, &lv, &sel, &err);
        for (uint32_t c = 0; c < nk && !r; c++) {
            st_renderer *rd = rds[c];
            r = st_renderer_settle(rd, &cam, 4000, NULL, &err);
            for (uint32_t i = 0; i < per_view && !r; i++) {
                st_frame_timing t;
                r = st_renderer_draw(rd, &cam, &t, &err);
                gpu_frame(rd, &t, &s, &g, i);
            }
            if (r) break;
            if (v == 0 && c == 0)
                printf("GPU lod selection (cdlod --lod-select gpu) on %s at %ux%u, tau %g px, grid %u, %u levels: %u "
                       "frames per view after settling\n", b->world, b->width, b->height, s.tau_px, s.grid, s.levels,
                       per_view);
            timed = timed && !isnan(g.gpu[0]);
            st_stats gs = st_stats_of(g.gpu, per_view), cs = st_stats_of(g.cpu, per_view);
            st_stats ks = st_stats_of(g.coarse, per_view), ws = st_stats_of(g.whole, per_view);
            double gp99 = p99_of(g.gpu, per_view);
            char gtxt[64] = "n/a (no timestamps)", wtxt[64] = "n/a";
            if (!isnan(gs.median)) {
                snprintf(gtxt, sizeof gtxt, "%.4f ms (p99 %.4f)", gs.median, gp99);
                snprintf(wtxt, sizeof wtxt, "%.4f ms", ws.median);
            }
            char levels[48] = "none: the pass walks every level";
            if (s.cpu_levels)
                snprintf(levels, sizeof levels, "%u..%u, the pass %u..0", s.levels - 1, s.levels - s.cpu_levels,
                         s.levels - 1 - s.cpu_levels);
            printf("  %-10s %6u nodes (CPU %u) %9.3f M triangles, widened %u (CPU %u): GPU median %s; CPU side %.4f ms; "
                   "CPU levels %s, their walk %.4f ms; pass + walk %s\n", views[v].name, s.nodes, sel.count,
                   (double)s.triangles / 1e6, s.widened, sel.widened, gtxt, cs.median, levels, ks.median, wtxt);
            if (s.nodes != sel.count || s.triangles != sel.triangles || s.widened != sel.widened) mismatched++;
            worst[c] = fmax(worst[c], ws.median);
            worst_gpu[c] = fmax(worst_gpu[c], gs.median);
            worst_p99[c] = fmax(worst_p99[c], gp99);
        }
    }
    for (uint32_t c = 0; c < nk && !r && nv; c++) {
        st_renderer *rd = rds[c];
        st_camera start, cam;
        r = flight_start(store, &views[0], b->speed, rd, &start, &cam, &err);
        /* frames by the widenings their selection took: the walks the pass made */
        uint32_t by_widened[ST_LOD_ONE_LEVEL_RETRIES + 1] = {0};
        for (uint32_t f = 0; f < b->frames && !r; f++) {
            st_frame_timing t;
            r = flight_camera(store, &start, f, b->speed, &cam, &err);
            if (!r) r = st_renderer_draw(rd, &cam, &t, &err);
            gpu_frame(rd, &t, &s, &g, f);
            if (!r) by_widened[s.widened <= ST_LOD_ONE_LEVEL_RETRIES ? s.widened : ST_LOD_ONE_LEVEL_RETRIES]++;
        }
        if (r) break;
        st_stats gs = st_stats_of(g.gpu, b->frames), cs = st_stats_of(g.cpu, b->frames);
        st_stats ks = st_stats_of(g.coarse, b->frames), ws = st_stats_of(g.whole, b->frames);
        char gtxt[96] = "n/a (no timestamps)", wtxt[64] = "n/a";
        if (!isnan(gs.median)) {
            snprintf(gtxt, sizeof gtxt, "%.4f ms, p99 %.4f ms, max %.4f ms", gs.median, p99_of(g.gpu, b->frames), gs.max);
            snprintf(wtxt, sizeof wtxt, "%.4f ms (p99 %.4f)", ws.median, p99_of(g.whole, b->frames));
        }
        printf("  flight at %.0f m/s (%u frames): GPU median %s; CPU side median %.4f ms; %u CPU levels, their walk "
               "median %.4f ms; pass + walk %s\n", (double)b->speed, b->frames, gtxt, cs.median, s.cpu_levels,
               ks.median, wtxt);
        printf("    frames by widenings:");
        for (uint32_t a = 0; a <= ST_LOD_ONE_LEVEL_RETRIES; a++)
            if (by_widened[a]) printf(" %u: %u", a, by_widened[a]);
        printf("\n");
        worst[c] = fmax(worst[c], ws.median);
        worst_gpu[c] = fmax(worst_gpu[c], gs.median);
    }
    if (!r) {
        if (mismatched)
            printf("  %u view%s: the GPU's nodes or triangles differ from the CPU's (a view not settled, or a bug)\n",
                   mismatched, mismatched > 1 ? "s" : "");
        bool standard = b->width == 1920 && b->height == 1080 && (b->so.tau_px == 0 || b->so.tau_px == 1.0f);
        for (uint32_t c = 0; c < nk; c++) {
            uint32_t k = cpu_levels_of(b->cpu_levels[c], world.levels);
            char what[128];
            if (timed)
                printf("  %u CPU levels: worst GPU p99 %.4f ms; worst median, the pass alone %.4f ms, with the CPU's "
                       "walk %.4f ms\n", k, worst_p99[c], worst_gpu[c], worst[c]);
            snprintf(what, sizeof what, "median GPU CDLOD selection, the pass + %u CPU levels (worst view or flight)", k);
            cli_bench_verdict(what, "<=", TARGET_GPU_MS, "ms", worst[c],
                              !timed ? "this adapter has no timestamps"
                              : standard ? NULL : "the target is for 1920x1080 at tau 1");
        }
    }
    st_lod_selection_free(&sel);
    for (uint32_t c = 0; c < nk; c++) st_renderer_destroy(rds[c]);
    st_engine_destroy(engine);
    st_store_close(store);
    free(g.gpu), free(g.coarse), free(g.whole), free(g.cpu);
    return r ? cli_fail(cmd, &err) : CLI_EXIT_OK;
}

/* The levels a clipmap frame drew: "F..L" from the per-level footprint counts. */
static void levels_drawn(const st_lod_frame_stats *s, uint32_t *first, uint32_t *last) {
    *first = UINT32_MAX, *last = 0;
    for (uint32_t l = 0; l < s->levels && l < ST_LOD_MAX_LEVELS; l++)
        if (s->per_level[l]) {
            if (*first == UINT32_MAX) *first = l;
            *last = l;
        }
    if (*first == UINT32_MAX) *first = 0;
}

/* strata bench lod --method clipmap: the renderer's CPU frame (prepare: active levels, windows, requests, the
 * toroidal update's rectangles, footprints, culling, uniforms), timed by the method itself (select_ms) on frames
 * that are drawn, since the update it plans is committed only by a recorded frame. */
static int bench_clipmap(const char *cmd, const bench_opts *b) {
    st_error err = {0};
    st_store *store = NULL;
    st_engine *engine = NULL;
    st_renderer *rd = NULL;
    st_viewpoint views[ST_MAX_VIEWS];
    size_t nv = 0;
    double *ms = malloc((b->repeat > b->frames ? b->repeat : b->frames) * sizeof *ms);
    uint64_t *upd = malloc(b->frames * sizeof *upd);
    if (!ms || !upd) {
        free(ms);
        free(upd);
        return CLI_EXIT_RUNTIME;
    }
    st_result r = cli_store_engine(b->world, &b->so, (int)b->device, b->device_given, b->validate, &store, &engine, &err);
    if (!r) r = bench_views(store, b->views, views, &nv, &err);
    st_render_desc d = {.method = b->method, .width = b->width, .height = b->height};
    cli_store_knobs(&b->so, &d.knobs);
    if (!r) r = st_renderer_create(engine, &d, &rd, &err);
    double worst_median = 0, worst_p99 = 0;
    st_lod_frame_stats s = {0};
    for (size_t v = 0; v < nv && !r; v++) {
        st_camera cam;
        r = st_store_view_camera(store, &views[v], &cam, &err);
        uint32_t settle_frames = 0;
        if (!r) r = st_renderer_settle(rd, &cam, 4000, &settle_frames, &err);
        for (uint32_t i = 0; i < b->repeat && !r; i++) {
            r = st_renderer_draw(rd, &cam, NULL, &err);
            st_renderer_lod_stats(rd, &s);
            ms[i] = s.select_ms;
        }
        if (r) break;
        if (v == 0)
            printf("%s frame CPU on %s at %ux%u, tau %g px, n %u%s: %u frames per view after settling, one thread\n",
                   b->method, b->world, b->width, b->height, s.tau_px, s.grid, b->so.clip_n ? "" : " (from τ)",
                   b->repeat);
        st_stats st = st_stats_of(ms, b->repeat);
        double p99 = p99_of(ms, b->repeat);
        uint32_t first, last;
        levels_drawn(&s, &first, &last);
        printf("  %-10s levels %u..%u (of %u) %4u footprints %9.3f M triangles: median %.4f ms (p99 %.4f)%s\n",
               views[v].name, first, last, s.levels, s.nodes, (double)s.triangles / 1e6, st.median, p99,
               s.settled ? "" : " (not settled)");
        worst_median = fmax(worst_median, st.median);
        worst_p99 = fmax(worst_p99, p99);
    }
    if (!r && nv) {
        st_camera start, cam;
        r = flight_start(store, &views[0], b->speed, rd, &start, &cam, &err);
        uint32_t most = 0, rects = 0;
        for (uint32_t f = 0; f < b->frames && !r; f++) {
            r = flight_camera(store, &start, f, b->speed, &cam, &err);
            if (!r) r = st_renderer_draw(rd, &cam, NULL, &err);
            st_renderer_lod_stats(rd, &s);
            ms[f] = s.select_ms;
            upd[f] = s.samples_updated;
            if (s.update_rects > most) most = s.update_rects;
            rects += s.update_rects;
        }
        if (!r) {
            st_stats st = st_stats_of(ms, b->frames);
            double p99 = p99_of(ms, b->frames), *u = malloc(b->frames * sizeof *u);
            uint64_t umax = 0;
            for (uint32_t f = 0; f < b->frames; f++) {
                if (u) u[f] = (double)upd[f];
                if (upd[f] > umax) umax = upd[f];
            }
            double umed = u ? st_stats_of(u, b->frames).median : NAN;
            free(u);
            printf("  flight at %.0f m/s (%u frames): median %.4f ms, p99 %.4f ms, max %.4f ms; samples updated per "
                   "frame median %.0f, max %llu; %.1f update rectangles a frame (at most %u)\n",
                   (double)b->speed, b->frames, st.median, p99, st.max, umed, (unsigned long long)umax,
                   (double)rects / b->frames, most);
            worst_median = fmax(worst_median, st.median);
        }
    }
    if (!r) {
        printf("  worst p99 %.4f ms\n", worst_p99);
        bool standard = b->width == 1920 && b->height == 1080 && (b->so.tau_px == 0 || b->so.tau_px == 1.0f);
        cli_bench_verdict("median clipmap CPU frame (worst view or flight)", "<=", TARGET_MS, "ms", worst_median,
                          standard ? NULL : "the target is for 1920x1080 at tau 1");
    }
    st_renderer_destroy(rd);
    st_engine_destroy(engine);
    st_store_close(store);
    free(ms);
    free(upd);
    return r ? cli_fail(cmd, &err) : CLI_EXIT_OK;
}
