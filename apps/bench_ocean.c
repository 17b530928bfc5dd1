/* strata bench ocean: the water's GPU cost by timestamps — the FFT ocean's simulation (cascades × size², every
 * field, per pass) apart from the water surface pass (copies of the targets, the ring grid and its shading, drawn
 * in compute and by the raster pipeline) at 1280×800 and 3840×2160 over open water — against the targets: a
 * 3 × 256² simulation ≤ 0.08 ms, the surface ≤ 0.5 ms at 1280×800 and ≤ 1.5 ms at 3840×2160. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "render/passes/ocean_gpu.h"
#include "render/render_internal.h"

#define SIM_TARGET_MS 0.08
#define SURFACE_TARGET_HD_MS 0.5
#define SURFACE_TARGET_4K_MS 1.5
#define MAX_SIZES 8

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata bench ocean [--repeat N] [--sizes LIST] [--world W] [--method M] [--device N] [--validate]\n\n"
           "The FFT ocean's simulation alone — 3 and 4 cascades of 256², one and 3 of 512², every field — one step a\n"
           "submission, GPU time per pass (rows with the spectrum's evolution, columns, resolve with the first mips,\n"
           "the other mips) by timestamps; then frames of a renderer with the water on over open water (an all-sea\n"
           "level unless --world), the ocean's simulation and the water surface pass (copies, ring grid, shading)\n"
           "apart from the terrain method's passes, looking 30 degrees down and at the horizon, drawn in compute\n"
           "(the default, which the verdicts judge) and by the raster pipeline, and the Gerstner surface both ways.\n"
           "Medians of N after 3 that warm up. On a CPU adapter (no GPU timestamps) the CPU's submit-and-wait time\n"
           "is shown and the verdicts are n/a.\n\noptions:\n");
    cli_options_usage(opts, count);
}

typedef struct sim_config {
    uint32_t cascades, size;
} sim_config;

static st_level *open_sea(st_error *err) {
    st_level *l = NULL;
    if (st_level_create(1024, 1024, &l, err)) return NULL;
    for (int y = 0; y < 1024; y++)
        for (int x = 0; x < 1024; x++) st_level_set_single(l, x, y, 0, 0); /* water at the flood level */
    snprintf(l->name, sizeof l->name, "open sea");
    return l;
}

static double ticks_ms(const st_gpu *gpu, uint64_t a, uint64_t b) { return (double)(b - a) * gpu->timestamp_ns * 1e-6; }

/* One configuration of the simulation: medians of the total and of each pass. */
static st_result bench_sim(st_engine *e, sim_config cfg, uint32_t repeat, st_error *err) {
    st_gpu *gpu = e->gpu;
    st_water_desc wd = {.mode = ST_WATER_OCEAN, .cascades = cfg.cascades, .fft_size = cfg.size, .wind_speed = 10};
    st_water *w = NULL;
    st_ocean_gpu *o = NULL;
    VkQueryPool pool = VK_NULL_HANDLE;
    st_result r = st_water_create(&wd, &w, err);
    if (!r) r = st_ocean_gpu_create(gpu, w, &o, err);
    if (!r && gpu->timestamps) {
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 5};
        r = st_gpu_check(vkCreateQueryPool(gpu->device, &qi, NULL, &pool), "query pool", err);
        if (!r) st_ocean_gpu_set_timestamps(o, pool, 0);
    }
    double *total = calloc(repeat, sizeof *total), *pass = calloc((size_t)repeat * 4, sizeof *pass);
    double *cpu = calloc(repeat, sizeof *cpu);
    if (!r && (!total || !pass || !cpu)) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < repeat + 3 && !r; i++) {
        double t0 = st_time_ms();
        VkCommandBuffer cmd;
        r = st_gpu_once_begin(gpu, &cmd, err);
        if (r) break;
        if (pool) vkCmdResetQueryPool(cmd, pool, 0, 5);
        st_ocean_gpu_record(o, cmd, 10.0 + i / 60.0, 1.0 / 60.0, 1.0f, 2.5f, i == 0);
        r = st_gpu_once_submit(gpu, cmd, err);
        double t1 = st_time_ms();
        if (r || i < 3) continue;
        uint32_t k = i - 3;
        cpu[k] = t1 - t0;
        if (pool) {
            uint64_t q[5];
            r = st_gpu_check(vkGetQueryPoolResults(gpu->device, pool, 0, 5, sizeof q, q, sizeof q[0],
                                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                             "timestamps", err);
            total[k] = ticks_ms(gpu, q[0], q[4]);
            for (int p = 0; p < 4; p++) pass[(size_t)p * repeat + k] = ticks_ms(gpu, q[p], q[p + 1]);
        }
    }
    if (!r) {
        printf("  %u x %u²: ", cfg.cascades, cfg.size);
        if (pool) {
            printf("gpu ms %.4f (rows %.4f, columns %.4f, resolve %.4f, mips %.4f)", st_stats_of(total, repeat).median,
                   st_stats_of(pass, repeat).median, st_stats_of(pass + repeat, repeat).median,
                   st_stats_of(pass + 2 * repeat, repeat).median, st_stats_of(pass + 3 * repeat, repeat).median);
        } else {
            printf("gpu ms n/a");
        }
        printf(", cpu ms %.3f (record + submit + wait)\n", st_stats_of(cpu, repeat).median);
        if (cfg.cascades == 3 && cfg.size == 256)
            cli_bench_verdict("ocean simulation 3 x 256² (all fields)", "<=", SIM_TARGET_MS, "ms",
                              pool ? st_stats_of(total, repeat).median : NAN,
                              pool ? NULL : "no GPU timestamps on this adapter");
    }
    free(total);
    free(pass);
    free(cpu);
    if (pool) vkDestroyQueryPool(gpu->device, pool, NULL);
    st_ocean_gpu_destroy(o);
    st_water_destroy(w);
    return r;
}

/* Frames of one renderer: medians of the simulation, the surface and the whole frame. */
static st_result bench_frames(st_engine *e, const char *method, st_water_mode mode, st_water_draw draw, uint32_t w,
                              uint32_t h, const st_camera *cam, const char *label, uint32_t repeat, double *surface_ms,
                              st_error *err) {
    st_render_desc d = {.method = method, .width = w, .height = h, .shadows = true,
                        .water = {.mode = mode, .draw = draw}};
    st_renderer *r = NULL;
    st_result res = st_renderer_create(e, &d, &r, err);
    double *sim = calloc(repeat, sizeof *sim), *surf = calloc(repeat, sizeof *surf), *frame = calloc(repeat, sizeof *frame);
    double *cpu = calloc(repeat, sizeof *cpu);
    if (!res && (!sim || !surf || !frame || !cpu)) res = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < repeat + 3 && !res; i++) {
        st_frame_timing t;
        st_renderer_set_time(r, 10.0 + i / 60.0);
        res = st_renderer_draw(r, cam, &t, err);
        if (res || i < 3) continue;
        sim[i - 3] = st_frame_timing_pass_ms(&t, "water-sim");
        surf[i - 3] = st_frame_timing_pass_ms(&t, "water");
        frame[i - 3] = t.gpu_ms;
        cpu[i - 3] = t.cpu_ms;
    }
    if (!res) {
        bool stamps = st_engine_has_gpu_timestamps(e);
        printf("  %ux%u %-8s %-7s %-16s", w, h, st_water_mode_name(mode), st_water_draw_name(draw), label);
        if (stamps)
            printf(" surface %.4f  simulation %.4f  whole frame %.4f gpu ms", st_stats_of(surf, repeat).median,
                   st_stats_of(sim, repeat).median, st_stats_of(frame, repeat).median);
        else
            printf(" gpu ms n/a");
        printf(", cpu ms %.2f\n", st_stats_of(cpu, repeat).median);
        *surface_ms = stamps ? st_stats_of(surf, repeat).median : NAN;
    }
    free(sim);
    free(surf);
    free(frame);
    free(cpu);
    st_renderer_destroy(r);
    return res;
}

int bench_ocean(int argc, char **argv) {
    uint32_t repeat = 0, device = 0;
    bool device_given = false, validate = false, help = false;
    const char *world = NULL, *method = "ray-compute", *sizes_given = NULL;
    const cli_opt opts[] = {
        {.name = "repeat", .kind = CLI_OPT_UINT, .target = &repeat, .min = 1, .max = 100000, .arg = "N",
         .bad = "bad --repeat '%s' (1..100000)", .help = "timed steps and frames per figure (default 200; 3 on CPU adapters)"},
        {.name = "sizes", .kind = CLI_OPT_STRING, .target = &sizes_given, .arg = "LIST",
         .help = "frame sizes, comma separated (default 1280x800,3840x2160; 320x200 on CPU adapters)"},
        {.name = "world", .kind = CLI_OPT_STRING, .target = &world, .arg = "W",
         .help = "a world with water instead of the open sea (the cameras are then its first default view)"},
        {.name = "method", .kind = CLI_OPT_STRING, .target = &method, .arg = "M",
         .help = "the terrain method under the water (default ray-compute)"},
        CLI_OPT_DEVICE(&device, &device_given),
        {.name = "validate", .kind = CLI_OPT_FLAG, .target = &validate, .help = "Vulkan validation layers on"},
    };
    int parsed = cli_options_parse("bench ocean", argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (help) usage(opts, CLI_OPTS_COUNT(opts));
    if (parsed || help) return parsed;
    char sizes_buf[512], *sizes_arg = NULL;
    if (sizes_given) {
        if (strlen(sizes_given) >= sizeof sizes_buf) return cli_usage_error("bench ocean", "--sizes is too long");
        snprintf(sizes_buf, sizeof sizes_buf, "%s", sizes_given);
        sizes_arg = sizes_buf;
    }
    if (!st_method_find(method)) return cli_usage_error("bench ocean", "unknown method '%s'", method);
    uint32_t sw[MAX_SIZES], sh[MAX_SIZES], nsizes = 0;
    if (sizes_arg) {
        char *items[MAX_SIZES + 1];
        size_t n = cli_split_list(sizes_arg, items, MAX_SIZES + 1);
        if (n == 0 || n > MAX_SIZES) return cli_usage_error("bench ocean", "--sizes takes 1 to %d sizes", MAX_SIZES);
        for (size_t i = 0; i < n; i++) {
            if (!cli_parse_size(items[i], &sw[i], &sh[i]) || sw[i] > 8192 || sh[i] > 8192)
                return cli_usage_error("bench ocean", "bad size '%s' (WxH, at most 8192 each)", items[i]);
        }
        nsizes = (uint32_t)n;
    }
    st_error err = {0};
    st_level *level = NULL;
    st_engine *engine = NULL;
    st_result r = world ? cli_load_world(world, &level, &err) : ((level = open_sea(&err)) ? ST_OK : err.code);
    st_camera cams[2] = {{.position = {300, 300, 12}, .yaw_deg = 45, .pitch_deg = -30},
                         {.position = {300, 300, 12}, .yaw_deg = 45, .pitch_deg = 0}};
    const char *cam_label[2] = {"30 degrees down", "the horizon"};
    if (!r && world) {
        st_viewpoint vp[ST_MAX_VIEWS];
        size_t n = 0;
        r = st_views_default(level, vp, ST_MAX_VIEWS, &n, &err);
        if (!r && !n) r = st_error_set(&err, ST_ERR_INVALID, "the world has no default views");
        if (!r) cams[0] = cams[1] = st_viewpoint_camera(level, &vp[0]);
        cam_label[0] = cam_label[1] = "its first view";
    }
    st_engine_desc ed = {.device_index = (int)device, .device_given = device_given, .validate = validate};
    if (!r) r = st_engine_create(&ed, &engine, &err);
    if (!r) r = st_engine_set_level(engine, level, &err);
    if (r) {
        st_engine_destroy(engine);
        st_level_destroy(level);
        return cli_fail("bench ocean", &err);
    }
    bool stamps = st_engine_has_gpu_timestamps(engine);
    if (!repeat) repeat = stamps ? 200 : 3;
    if (!nsizes) {
        if (stamps) sw[0] = 1280, sh[0] = 800, sw[1] = 3840, sh[1] = 2160, nsizes = 2;
        else sw[0] = 320, sh[0] = 200, nsizes = 1;
    }
    st_device_info dev = st_engine_device(engine);
    printf("bench ocean on %s (%s), %u timed of %u\n", dev.name, dev.type, repeat, repeat + 3);
    printf("simulation, one step a submission (wind 10 m/s):\n");
    const sim_config configs[4] = {{3, 256}, {4, 256}, {1, 512}, {3, 512}};
    for (int i = 0; i < 4 && !r; i++) r = bench_sim(engine, configs[i], repeat, &err);
    if (!r) printf("frames, %s under the water, %s:\n", method, level->name);
    for (uint32_t s = 0; s < nsizes && !r; s++) {
        double worst = 0, ms = 0;
        for (int k = 0; k < 2 && !r; k++) {
            r = bench_frames(engine, method, ST_WATER_OCEAN, ST_WATER_DRAW_COMPUTE, sw[s], sh[s], &cams[k], cam_label[k],
                             repeat, &ms, &err);
            worst = fmax(worst, ms);
        }
        /* the same pictures by the hardware rasteriser and fragment shaders, and the Gerstner surface both ways */
        for (int k = 0; k < 2 && !r; k++)
            r = bench_frames(engine, method, ST_WATER_OCEAN, ST_WATER_DRAW_RASTER, sw[s], sh[s], &cams[k], cam_label[k],
                             repeat, &ms, &err);
        for (int k = 0; k < 2 && !r; k++)
            r = bench_frames(engine, method, ST_WATER_GERSTNER, k ? ST_WATER_DRAW_RASTER : ST_WATER_DRAW_COMPUTE, sw[s],
                             sh[s], &cams[0], cam_label[0], repeat, &ms, &err);
        if (r) break;
        bool hd = sw[s] == 1280 && sh[s] == 800, uhd = sw[s] == 3840 && sh[s] == 2160;
        if (hd || uhd) {
            char what[96];
            snprintf(what, sizeof what, "water surface pass at %ux%u (the slower camera)", sw[s], sh[s]);
            cli_bench_verdict(what, "<=", hd ? SURFACE_TARGET_HD_MS : SURFACE_TARGET_4K_MS, "ms", stamps ? worst : NAN,
                              stamps ? NULL : "no GPU timestamps on this adapter");
        }
    }
    int status = r ? cli_fail("bench ocean", &err) : cli_validation_status("bench ocean", engine);
    st_engine_destroy(engine);
    st_level_destroy(level);
    return status;
}
