/* strata render: one image of a world with one method, with GPU frame times. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "store_cli.h"
#include "strata/file.h"
#include "strata/image.h"
#include "strata/render.h"
#include "strata/views.h"

static void usage(void) {
    printf("usage: strata render [--world W] [--method M] [--view NAME | --camera x,y,z,yaw,pitch] [--far F]\n"
           "                     [--size WxH] [--frames N] [--ray-steps N] [--no-shadows] [--device N] -o out.png\n"
           "                     [--depth out.pfm]\n\n"
           "Renders one image and prints the time per frame (median, min, max over --frames): GPU time from\n"
           "timestamps where the adapter has them, and always the CPU's record + submit + wait time, which is\n"
           "the only figure on CPU adapters such as lavapipe.\n"
           "  --world W     'default' (the embedded procedural world; the default), a world directory or world.ini\n"
           "  --method M    one of:");
    for (size_t i = 0; i < st_method_count(); i++) printf(" %s", st_method_at(i)->name);
    printf(" (default ray; a tile store's: see strata render --world STORE --help)\n"
           "  --view NAME   a named view of the world's catalogue, or name:x,y:yaw:pitch[:height][:under]\n"
           "  --camera C    eye position and angles: x,y,z,yaw,pitch (yaw 0 = +y, clockwise; pitch -90..90)\n"
           "  --far F       far distance in texels, 2..100000 (default 600; fog reaches full at far)\n"
           "  --size WxH    image size (default 1280x800)\n"
           "  --frames N    timed frames (default 1)\n"
           "  --ray-steps N uniform steps of the ray march (default 128)\n"
           "  --no-shadows  skip the shared shadow map (on by default)\n"
           "  --shadow-size N  the shadow map's resolution (default 1024; 'strata run' uses 256 on a CPU adapter)\n"
           "  --device N    Vulkan adapter index (see 'strata devices'); default: discrete > integrated > CPU\n"
           "  -o, --out FILE  output image, a .png (sRGB)\n"
           "  --depth FILE  distance along each pixel's ray as a PFM (NaN where nothing was hit)\n" CLI_WATER_USAGE);
}

int cmd_render(int argc, char **argv) {
    if (cli_is_store(cli_world_arg(argc, argv))) return cli_render_store(argc, argv);
    static const struct option opts[] = {{"world", required_argument, 0, 'w'},  {"method", required_argument, 0, 'm'},
                                         {"view", required_argument, 0, 'v'},   {"camera", required_argument, 0, 'c'},
                                         {"size", required_argument, 0, 's'},   {"frames", required_argument, 0, 'f'},
                                         {"depth", required_argument, 0, 'd'},  {"device", required_argument, 0, 'D'},
                                         {"ray-steps", required_argument, 0, 'r'}, {"out", required_argument, 0, 'o'},
                                         {"output", required_argument, 0, 'o'},
                                         {"no-shadows", no_argument, 0, 'S'},   {"shadow-size", required_argument, 0, 'Z'},
                                         {"far", required_argument, 0, 'F'},
                                         CLI_WATER_OPTIONS,
                                         {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    const char *world = "default", *method = "ray", *view_name = NULL, *out_png = NULL, *out_depth = NULL;
    st_camera camera = {0};
    bool have_camera = false;
    uint32_t width = 1280, height = 800, frames = 1, steps = 0, device = 0, shadow_size = 0;
    float far_dist = 0;
    bool device_given = false, shadows = true;
    cli_water water = {0};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        int st = CLI_EXIT_OK;
        if (cli_water_option(&water, "render", c, optarg, &st)) {
            if (st) return st;
            continue;
        }
        switch (c) {
        case 'w': world = optarg; break;
        case 'm': method = optarg; break;
        case 'v': view_name = optarg; break;
        case 'c':
            if (!st_camera_parse(optarg, &camera)) return cli_usage_error("render", "malformed or out-of-range camera '%s' (want x,y,z,yaw,pitch: positions within 1e6, yaw -360..360, pitch -90..90)", optarg);
            have_camera = true;
            break;
        case 's':
            if (!cli_parse_size(optarg, &width, &height)) return cli_usage_error("render", "bad size '%s' (want WxH, each 1..16384)", optarg);
            if (width > 16384 || height > 16384) return cli_usage_error("render", "size '%s' is past 16384", optarg);
            break;
        case 'f':
            if (!cli_parse_uint(optarg, 1, 100000, &frames)) return cli_usage_error("render", "bad frame count '%s'", optarg);
            break;
        case 'r':
            if (!cli_parse_uint(optarg, 1, 4096, &steps)) return cli_usage_error("render", "bad ray step count '%s' (1..4096)", optarg);
            break;
        case 'D':
            if (!cli_parse_uint(optarg, 0, 64, &device)) return cli_usage_error("render", "bad device index '%s'", optarg);
            device_given = true;
            break;
        case 'd': out_depth = optarg; break;
        case 'S': shadows = false; break;
        case 'Z':
            if (!cli_parse_uint(optarg, 16, 8192, &shadow_size))
                return cli_usage_error("render", "bad --shadow-size '%s' (16..8192)", optarg);
            break;
        case 'F':
            if (!cli_parse_float(optarg, 2.0f, 100000.0f, &far_dist))
                return cli_usage_error("render", "bad --far '%s' (2..100000)", optarg);
            break;
        case 'o': out_png = optarg; break;
        case 'h': usage(); return CLI_EXIT_OK;
        case ':': return cli_usage_error("render", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("render", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error("render", "unexpected argument '%s'", argv[optind]);
    if (!out_png) return cli_usage_error("render", "missing -o out.png");
    struct stat out_stat; /* a directory gets its own message when the output is opened */
    bool out_is_dir = stat(out_png, &out_stat) == 0 && S_ISDIR(out_stat.st_mode);
    if (!out_is_dir && !cli_has_suffix(out_png, ".png"))
        return cli_usage_error("render", "-o '%s': the image is written as PNG, so its name must end in .png", out_png);
    if (out_depth && !cli_has_suffix(out_depth, ".pfm"))
        return cli_usage_error("render", "--depth '%s': the depth is written as PFM, so its name must end in .pfm",
                               out_depth);
    if (!st_method_find(method)) return cli_usage_error("render", "unknown method '%s'", method);
    if (st_method_find(method)->world == ST_WORLD_STORE)
        return cli_usage_error("render", "method '%s' draws tile stores and %s is a level (give --world STORE)", method,
                               world);
    if (view_name && have_camera) return cli_usage_error("render", "give --view or --camera, not both");

    st_error err = {0};
    st_level *level = NULL;
    st_engine *engine = NULL;
    st_renderer *renderer = NULL;
    uint8_t *rgba = NULL;
    float *depth = NULL;
    double *gpu_ms = calloc(frames, sizeof *gpu_ms), *cpu_ms = calloc(frames, sizeof *cpu_ms);
    int status = CLI_EXIT_OK;
    st_result r = gpu_ms && cpu_ms ? ST_OK : st_error_set(&err, ST_ERR_NOMEM, "out of memory");
    /* Every output is opened (as its temporary) before any work, so a bad path costs nothing and a failure
     * leaves none of them. */
    st_atomic_file outs[2];
    size_t out_count = 0;
    if (!r) r = st_atomic_open(&outs[out_count], out_png, &err);
    if (!r) out_count++;
    if (!r && out_depth) r = st_atomic_open(&outs[out_count], out_depth, &err);
    if (!r && out_depth) out_count++;
    if (!r) r = cli_load_world(world, &level, &err);
    if (!r && !have_camera) {
        st_viewpoint vp;
        if (view_name) r = st_views_find(level, view_name, &vp, &err);
        else {
            st_viewpoint all[ST_MAX_VIEWS];
            size_t n = 0;
            r = st_views_default(level, all, ST_MAX_VIEWS, &n, &err);
            if (!r && n == 0) r = st_error_set(&err, ST_ERR_INVALID, "the world has no default views: give --camera");
            if (!r) vp = all[0];
        }
        if (!r) camera = st_viewpoint_camera(level, &vp);
    }
    if (far_dist > 0) camera.far_dist = far_dist;
    st_engine_desc ed = {.device_index = (int)device, .device_given = device_given};
    if (!r) r = st_engine_create(&ed, &engine, &err);
    if (!r) r = st_engine_set_level(engine, level, &err);
    if (!r) cli_water_resolve(&water, level, ST_WATER_NONE);
    st_render_desc rd = {.method = method, .width = width, .height = height, .knobs.ray_steps = steps,
                        .shadows = shadows, .shadow_size = shadow_size, .water = water.desc};
    if (!r) r = st_renderer_create(engine, &rd, &renderer, &err);
    if (!r) st_renderer_set_time(renderer, water.time);
    double water_sim_ms = 0, water_ms = 0;
    for (uint32_t i = 0; i < frames && !r; i++) {
        st_frame_timing t;
        r = st_renderer_draw(renderer, &camera, &t, &err);
        gpu_ms[i] = t.gpu_ms;
        cpu_ms[i] = t.cpu_ms;
        water_sim_ms += t.water_sim_gpu_ms / frames;
        water_ms += t.water_gpu_ms / frames;
    }
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
        st_stats g = st_stats_of(gpu_ms, frames), cs = st_stats_of(cpu_ms, frames);
        printf("%s on %s (%s): %ux%u, %u frame%s, shadow map ", method, dev.name, dev.type, width, height, frames,
               frames > 1 ? "s" : "");
        if (shadows) printf("%u²\n", shadow_size ? shadow_size : 1024u);
        else printf("off\n");
        if (isnan(g.median)) printf("  gpu ms: not available on this adapter\n");
        else printf("  gpu ms: median %.3f  min %.3f  max %.3f%s\n", g.median, g.min, g.max,
                    shadows ? " (shadow pass included)" : "");
        printf("  cpu ms: median %.3f  min %.3f  max %.3f (record + submit + wait)\n", cs.median, cs.min, cs.max);
        if (rd.water.mode != ST_WATER_NONE) {
            printf("  water: %s at t = %.3f s", st_water_mode_name(rd.water.mode), water.time);
            if (!isnan(g.median))
                printf(", gpu ms (mean, included above): simulation %.3f, surface %.3f", water_sim_ms, water_ms);
            printf("\n");
        }
        printf("  wrote %s%s%s\n", out_png, out_depth ? " and " : "", out_depth ? out_depth : "");
        status = cli_validation_status("render", engine);
    } else {
        status = cli_fail("render", &err);
    }
    st_renderer_destroy(renderer);
    st_engine_destroy(engine);
    st_level_destroy(level);
    free(rgba);
    free(depth);
    free(gpu_ms);
    free(cpu_ms);
    return status;
}
