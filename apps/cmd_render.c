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
#include "strata/paged.h"
#include "strata/render.h"
#include "strata/views.h"

static bool parse_camera(const char *value, void *camera) { return st_camera_parse(value, camera); }

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata render [--world W] [--method M] [--view NAME | --camera x,y,z,yaw,pitch] [--far F]\n"
           "                     [--size WxH] [--frames N] [--ray-steps N] [--no-shadows] [--device N] -o out.png\n"
           "                     [--depth out.pfm]\n\n"
           "Renders one image and prints the time per frame (median, min, max over --frames): GPU time from\n"
           "timestamps where the adapter has them, and always the CPU's record + submit + wait time, which is\n"
           "the only figure on CPU adapters such as lavapipe.\n");
    cli_options_usage(opts, count);
    printf("methods:");
    for (size_t i = 0; i < st_method_count(); i++) printf(" %s", st_method_at(i)->name);
    printf(" (a tile store's: see strata render --world STORE --help)\n");
}

int cmd_render(int argc, char **argv) {
    if (cli_is_store(cli_world_arg(argc, argv))) return cli_render_store(argc, argv);
    const char *world = "default", *method = "ray", *view_name = NULL, *out_png = NULL, *out_depth = NULL;
    const char *color = NULL;
    st_camera camera = {0};
    bool have_camera = false;
    uint32_t size[2] = {1280, 800}, frames = 1, steps = 0, device = 0, shadow_size = 0;
    float far_dist = 0;
    bool device_given = false, no_shadows = false, help = false, paged = false, wireframe = false;
    float mesh_quality = 0;
    bool quality_given = false;
    uint32_t pool_pages = 0;
    cli_water water = {0};
    st_shading shading = ST_SHADING_TEXTURED;
    const cli_opt own[] = {
        CLI_OPT_WORLD(&world),
        CLI_OPT_COLOR(&color),
        {.name = "method", .kind = CLI_OPT_STRING, .target = &method, .arg = "M",
         .help = "the method (default ray; the list below)"},
        {.name = "view", .kind = CLI_OPT_STRING, .target = &view_name, .arg = "NAME",
         .help = "a named view of the world's catalogue, or name:x,y:yaw:pitch[:height][:under]"},
        {.name = "camera", .kind = CLI_OPT_PARSE, .target = &camera, .given = &have_camera, .parse = parse_camera,
         .arg = "C",
         .bad = "malformed or out-of-range camera '%s' (want x,y,z,yaw,pitch: positions within 1e6, yaw -360..360, "
                "pitch -90..90)",
         .help = "eye position and angles: x,y,z,yaw,pitch (yaw 0 = +y, clockwise; pitch -90..90)"},
        CLI_OPT_FAR(&far_dist),
        CLI_OPT_SIZE_WH(size, 16384, "image size (default 1280x800)"),
        CLI_OPT_FRAMES(&frames, 100000, "timed frames (default 1)"),
        {.name = "ray-steps", .kind = CLI_OPT_UINT, .target = &steps, .min = 1, .max = 4096, .arg = "N",
         .bad = "bad ray step count '%s' (1..4096)",
         .help = "uniform steps of the ray march (default 128, 128·far/2000 beyond far 2000)"},
        CLI_OPT_NO_SHADOWS(&no_shadows),
        {.name = "wireframe", .kind = CLI_OPT_FLAG, .target = &wireframe,
         .help = "the mesh methods' triangle edges over the image (as the viewer's X)"},
        {.name = "mesh-quality", .kind = CLI_OPT_FLOAT, .target = &mesh_quality, .given = &quality_given, .min = 0, .max = 1, .arg = "Q",
         .bad = "bad --mesh-quality '%s' (0..1)", .help = "the mesh methods' fit quality q (default 0.5; docs/mesh.md)"},
        {.name = "shading", .kind = CLI_OPT_PARSE, .target = &shading, .parse = cli_parse_shading_fetches, .arg = "S",
         .bad = "unknown shading '%s' (flat, textured or fetches)",
         .help = "flat (the paper's colour per material type), textured (the default), or fetches (the\n"
                 "texture fetches per pixel as the image: red material taps, green map lookups, k = k/32 linear)"},
        CLI_OPT_SHADOW_SIZE(&shadow_size, "the shadow map's resolution (default 1024; 'strata run' uses 256 on a "
                                          "CPU adapter)"),
        CLI_OPT_DEVICE(&device, &device_given),
        CLI_OPT_OUT(&out_png, "FILE", "output image, a .png (sRGB)"),
        {.name = "output", .kind = CLI_OPT_STRING, .target = &out_png}, /* the older name of --out */
        {.name = "depth", .kind = CLI_OPT_STRING, .target = &out_depth, .arg = "FILE",
         .help = "distance along each pixel's ray as a PFM (NaN where nothing was hit)"},
        {.name = "paged", .kind = CLI_OPT_FLAG, .target = &paged,
         .help = "the terrain reaches the GPU as pages of the layer store W (a folder or gen:multi:...),\n"
                 "brought in around the camera before the frames; no level of W is made, so W may be\n"
                 "of any size (up to 65536x65536); methods ray, ray-compute, scatter (docs/paged-terrain.md)"},
        {.name = "pool-pages", .kind = CLI_OPT_UINT, .target = &pool_pages, .min = 1, .max = 65536, .arg = "N",
         .bad = "bad --pool-pages '%s' (1..65536)", .help = "resident pages of paged terrain on the GPU (default 256)"},
    };
    cli_opt opts[CLI_OPTS_COUNT(own) + CLI_WATER_OPTION_COUNT];
    memcpy(opts, own, sizeof own);
    size_t count = CLI_OPTS_COUNT(own) + cli_water_table(&water, opts + CLI_OPTS_COUNT(own));
    int status = cli_options_parse("render", argc, argv, opts, count, 0, NULL, &help);
    if (status || help) {
        if (help) usage(opts, count);
        return status;
    }
    uint32_t width = size[0], height = size[1];
    bool shadows = !no_shadows;
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
    if (pool_pages && !paged) return cli_usage_error("render", "--pool-pages is for --paged");
    if (color && paged) return cli_usage_error("render", "--color is for a height map's world, not --paged");
    if (paged && !cli_is_layer_store(world) && strncmp(world, "gen:multi:", 10))
        return cli_usage_error("render", "--paged draws a layer store (strata tile W -o STORE), and %s is none", world);

    st_error err = {0};
    st_level *level = NULL;
    st_engine *engine = NULL;
    st_renderer *renderer = NULL;
    uint8_t *rgba = NULL;
    float *depth = NULL;
    double *gpu_ms = calloc(frames, sizeof *gpu_ms), *cpu_ms = calloc(frames, sizeof *cpu_ms);
    st_result r = gpu_ms && cpu_ms ? ST_OK : st_error_set(&err, ST_ERR_NOMEM, "out of memory");
    /* Every output is opened (as its temporary) before any work, so a bad path costs nothing and a failure
     * leaves none of them. */
    st_atomic_file outs[2];
    size_t out_count = 0;
    if (!r) r = st_atomic_open(&outs[out_count], out_png, &err);
    if (!r) out_count++;
    if (!r && out_depth) r = st_atomic_open(&outs[out_count], out_depth, &err);
    if (!r && out_depth) out_count++;
    /* a paged world is read through its pages alone: no level of it is made, whatever its size */
    st_store *pages = NULL;
    if (!r && paged) r = st_store_open(world, &pages, &err);
    else if (!r) r = cli_load_world_color(world, color, &level, &err);
    if (!r && !have_camera) r = cli_view_camera(level, pages, view_name, &camera, &err);
    if (far_dist > 0) camera.far_dist = far_dist;
    st_engine_desc ed = {.device_index = (int)device, .device_given = device_given};
    if (!r) r = st_engine_create(&ed, &engine, &err);
    if (!r && paged) {
        /* past the full-resolution window the far field comes from coarser levels (docs/paged-terrain.md) */
        st_paged_desc pd = {.pool_pages = pool_pages, .far_levels = st_paged_far_levels_for(camera.far_dist, 0)};
        r = st_engine_set_paged_world(engine, pages, &pd, &err);
        if (!r) r = st_engine_paged_settle(engine, &camera, 1000000, NULL, &err); /* returns once all are in */
    } else if (!r) {
        r = st_engine_set_level(engine, level, &err);
    }
    if (!r && shading != ST_SHADING_FLAT) r = cli_world_materials(engine, world, &err);
    if (!r && level) cli_water_resolve(&water, level, ST_WATER_NONE);
    else if (!r) cli_water_resolve_paged(&water, pages, ST_WATER_NONE);
    /* the knob's 0 is its default (0.5): q = 0 itself is a negative value there */
    float knob_q = !quality_given ? 0.0f : mesh_quality > 0 ? mesh_quality : -1.0f;
    st_render_desc rd = {.method = method, .width = width, .height = height, .knobs.ray_steps = steps,
                        .knobs.mesh_quality = knob_q,
                        .wireframe = wireframe, .shadows = shadows, .shadow_size = shadow_size, .water = water.desc, .shading = shading};
    if (!r) r = st_renderer_create(engine, &rd, &renderer, &err);
    if (!r) st_renderer_set_time(renderer, water.time);
    double water_sim_ms = 0, water_ms = 0;
    for (uint32_t i = 0; i < frames && !r; i++) {
        st_frame_timing t;
        r = st_renderer_draw(renderer, &camera, &t, &err);
        gpu_ms[i] = t.gpu_ms;
        cpu_ms[i] = t.cpu_ms;
        water_sim_ms += st_frame_timing_pass_ms(&t, "water-sim") / frames;
        water_ms += st_frame_timing_pass_ms(&t, "water") / frames;
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
            printf("  water: %s (drawn in %s) at t = %.3f s", st_water_mode_name(rd.water.mode),
                   rd.water.draw == ST_WATER_DRAW_RASTER ? "the raster pipeline" : "compute", water.time);
            if (!isnan(g.median))
                printf(", gpu ms (mean, included above): simulation %.3f, surface %.3f", water_sim_ms, water_ms);
            printf("\n");
        }
        st_paged_stats ps;
        if (paged && !st_engine_paged_stats(engine, &ps, &err))
            printf("  paged: %u of %u pages wanted are missing, %u mapped in a pool of %u (%.1f MiB on the GPU), %llu "
                   "loads, %llu evictions; %u coarser level%s (%u pages)\n",
                   ps.missing, ps.wanted, ps.mapped, ps.pool_pages, (double)ps.gpu_bytes / 1048576.0,
                   (unsigned long long)ps.residency.loads_done, (unsigned long long)ps.residency.evictions,
                   ps.levels - 1, ps.levels == 2 ? "" : "s", ps.far_mapped);
        printf("  wrote %s%s%s\n", out_png, out_depth ? " and " : "", out_depth ? out_depth : "");
        status = cli_validation_status("render", engine);
    } else {
        status = cli_fail("render", &err);
    }
    st_renderer_destroy(renderer);
    st_engine_destroy(engine);
    st_store_close(pages);
    st_level_destroy(level);
    free(rgba);
    free(depth);
    free(gpu_ms);
    free(cpu_ms);
    return status;
}
