/* strata bench materials: what textured shading costs outside the frame time — the material set's synthesis at
 * start-up (wall and CPU ms, target ≤ 200 ms) and the texture fetches each pixel's shading makes on a scene of a
 * flat floor and an 80° cliff (ST_SHADING_FETCHES; targets ≤ 8 on flat ground, ≤ 12 on the cliff), per method. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "strata/materials.h"
#include "strata/shading.h"

#define SYNTH_TARGET_MS 200.0
#define FLAT_TARGET 8
#define CLIFF_TARGET 12

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata bench materials [--repeat N] [--size WxH] [--methods a,b] [--device N] [--validate]\n\n"
           "Synthesises the material set N times (median and fastest wall ms, and CPU ms, against <= 200 ms),\n"
           "then renders a scene of a flat floor and a cliff rising at 80 degrees with each level method in the\n"
           "fetch-counting shading (strata render --shading fetches) and a flat render whose colour map labels\n"
           "floor and cliff, and reports the material texture fetches per pixel (max and mean) on each, against\n"
           "<= 8 on flat ground and <= 12 on the cliff; the per-texel map lookups (control, colour) apart.\n\n"
           "options:\n");
    cli_options_usage(opts, count);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A floor at 20 for x < 128, a cliff rising at 80° (tan 80° = 5.67 steps per texel) up to a plateau at 220, its
 * colour map labelling floor (red), cliff (green) and plateau (magenta): tests/test_gpu_materials.c's scene. */
static st_result cliff_level(st_level **out, st_error *err) {
    st_result r = st_level_create(256, 256, out, err);
    if (r) return r;
    st_level *l = *out;
    l->wrap_x = l->wrap_y = false;
    l->colors = malloc(256 * 256 * 3);
    if (!l->colors) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) {
            float rise = 20.0f + (float)(x - 127) * 5.671f;
            int h = x < 128 ? 20 : rise >= 220.0f ? 220 : (int)(rise + 0.5f);
            st_level_set_single(l, x, y, (uint8_t)h, (uint8_t)(h >= 60 ? 3 : 2));
            uint8_t *c = l->colors + ((size_t)y * 256 + (size_t)x) * 3;
            c[0] = h < 21 || h >= 220 ? 255 : 0;
            c[1] = h >= 21 && h < 220 ? 255 : 0;
            c[2] = h >= 220 ? 255 : 0;
        }
    return ST_OK;
}

/* The count an 8-bit sRGB channel holds: the linear value k / 32 (materials.glsl, mat_fetch_colour). */
static int decode_count(uint8_t v) {
    int best = 0;
    for (int k = 1; k <= 32; k++)
        if (abs((int)st_shade_srgb8((float)k / 32.0f) - v) < abs((int)st_shade_srgb8((float)best / 32.0f) - v)) best = k;
    return best;
}

static st_result render(st_engine *e, const char *method, st_shading shading, const st_camera *cam, uint32_t w,
                        uint32_t h, uint8_t *rgba, st_error *err) {
    st_renderer *r = NULL;
    st_render_desc d = {.method = method, .width = w, .height = h, .shading = shading};
    st_result res = st_renderer_create(e, &d, &r, err);
    if (!res) res = st_renderer_draw(r, cam, NULL, err);
    if (!res) res = st_renderer_readback(r, rgba, NULL, err);
    st_renderer_destroy(r);
    return res;
}

int bench_materials(int argc, char **argv) {
    const char *cmd = "bench materials";
    uint32_t repeat = 5, size[2] = {320, 200}, device = 0;
    bool device_given = false, validate = false, help = false;
    char *methods_arg = NULL;
    const cli_opt opts[] = {
        CLI_OPT_REPEAT(&repeat, 100, "syntheses timed (default 5)"),
        CLI_OPT_SIZE_WH(size, 4096, "the fetch scene's image size (default 320x200)"),
        CLI_OPT_METHODS(&methods_arg),
        CLI_OPT_DEVICE(&device, &device_given),
        {.name = "validate", .kind = CLI_OPT_FLAG, .target = &validate, .help = "Vulkan validation layers on"},
    };
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    const char *names[64];
    size_t count = 0;
    char *items[64];
    if (methods_arg) {
        size_t n = cli_split_list(methods_arg, items, 64);
        for (size_t i = 0; i < n; i++) {
            const st_method_info *mi = st_method_find(items[i]);
            if (!mi) return cli_usage_error(cmd, "unknown method '%s'", items[i]);
            if (mi->world == ST_WORLD_STORE) return cli_usage_error(cmd, "method '%s' draws tile stores", items[i]);
            names[count++] = items[i];
        }
    } else {
        for (size_t i = 0; i < st_method_count() && count < 64; i++)
            if (st_method_at(i)->world != ST_WORLD_STORE) names[count++] = st_method_at(i)->name;
    }

    /* the synthesis, as the first textured renderer runs it */
    st_error err = {0};
    double *wall = calloc(repeat, sizeof *wall), *cpu = calloc(repeat, sizeof *cpu);
    if (!wall || !cpu) return cli_usage_error(cmd, "out of memory");
    for (uint32_t i = 0; i < repeat; i++) {
        st_material_set *set = NULL;
        clock_t c0 = clock();
        double t0 = st_time_ms();
        if (st_material_set_synthesize(&set, &err)) {
            free(wall), free(cpu);
            return cli_fail(cmd, &err);
        }
        wall[i] = st_time_ms() - t0;
        cpu[i] = (double)(clock() - c0) * 1000.0 / CLOCKS_PER_SEC;
        if (i == 0) printf("material set: %u layers of %u² with %u mips\n", set->count, set->size, set->mips);
        st_material_set_destroy(set);
    }
    qsort(wall, repeat, sizeof *wall, cmp_double);
    qsort(cpu, repeat, sizeof *cpu, cmp_double);
    double synth_ms = wall[repeat / 2];
    printf("synthesis: median %.1f ms wall (fastest %.1f), %.1f ms CPU, %u runs\n", synth_ms, wall[0],
           cpu[repeat / 2], repeat);
    free(wall);
    free(cpu);

    /* the fetches, from each method's own image */
    st_level *level = NULL;
    st_engine *engine = NULL;
    st_engine_desc ed = {.device_index = (int)device, .device_given = device_given, .validate = validate};
    st_result r = cliff_level(&level, &err);
    if (!r) r = st_engine_create(&ed, &engine, &err);
    if (!r) r = st_engine_set_level(engine, level, &err);
    uint32_t w = size[0], h = size[1];
    uint8_t *label = malloc((size_t)w * h * 4), *counts = malloc((size_t)w * h * 4);
    if (!r && (!label || !counts)) r = st_error_set(&err, ST_ERR_NOMEM, "out of memory");
    /* from over the floor toward the cliff, which fills the upper part of the image */
    st_camera cam = {.position = {20.3f, 128.6f, 70.0f}, .yaw_deg = 90, .pitch_deg = -14};
    int worst[2] = {0, 0};
    if (!r) printf("fetch scene: %ux%u, floor and an 80-degree cliff; per method: material fetches per pixel\n", w, h);
    for (size_t m = 0; m < count && !r; m++) {
        r = render(engine, names[m], ST_SHADING_FLAT, &cam, w, h, label, &err);
        if (!r) r = render(engine, names[m], ST_SHADING_FETCHES, &cam, w, h, counts, &err);
        if (r) break;
        int most[2] = {0, 0}, lookups = 0;
        double sum[2] = {0, 0};
        size_t n[2] = {0, 0};
        for (size_t k = 0; k < (size_t)w * h; k++) {
            const uint8_t *c = label + k * 4;
            int region = c[0] > 60 && c[1] < 20 && c[2] < 20 ? 0 : c[1] > 60 && c[0] < 20 && c[2] < 20 ? 1 : -1;
            if (region < 0) continue;
            int taps = decode_count(counts[k * 4]), look = decode_count(counts[k * 4 + 1]);
            if (taps > most[region]) most[region] = taps;
            if (look > lookups) lookups = look;
            sum[region] += taps;
            n[region]++;
        }
        printf("  %-18s floor max %2d mean %5.2f (%6zu px)   cliff max %2d mean %5.2f (%6zu px)   map lookups <= %d\n",
               names[m], most[0], n[0] ? sum[0] / (double)n[0] : 0.0, n[0], most[1],
               n[1] ? sum[1] / (double)n[1] : 0.0, n[1], lookups);
        for (int k = 0; k < 2; k++)
            if (most[k] > worst[k]) worst[k] = most[k];
    }
    free(label);
    free(counts);
    int status = r ? cli_fail(cmd, &err) : cli_validation_status(cmd, engine);
    st_engine_destroy(engine);
    st_level_destroy(level);
    if (r) return status;
    cli_bench_verdict("material synthesis at start-up", "<=", SYNTH_TARGET_MS, "ms", synth_ms, NULL);
    cli_bench_verdict("texture fetches per pixel on flat ground", "<=", FLAT_TARGET, "fetches", worst[0], NULL);
    cli_bench_verdict("texture fetches per pixel on an 80-degree cliff", "<=", CLIFF_TARGET, "fetches", worst[1], NULL);
    return status;
}
