/* strata bench materials: what textured shading costs outside the frame time — the material set's synthesis at
 * start-up (wall and CPU ms, target ≤ 200 ms) and the texture fetches each pixel's shading makes (ST_SHADING_FETCHES;
 * targets ≤ 8 on flat ground, ≤ 12 on cliffs), per method: on a scene of a flat floor and an 80° cliff, and with
 * --views on a world's views, split by what the shading read (the top projection alone, or a side's too). */
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
    printf("usage: strata bench materials [--repeat N] [--size WxH] [--methods a,b] [--views LIST [--world W]]\n"
           "                              [--device N] [--validate]\n\n"
           "Synthesises the material set N times (median and fastest wall ms, and CPU ms, against <= 200 ms),\n"
           "then renders a scene of a flat floor and a cliff rising at 80 degrees with each level method in the\n"
           "fetch-counting shading (strata render --shading fetches) and a flat render whose colour map labels\n"
           "floor and cliff, and reports the material texture fetches per pixel (max and mean) on each, against\n"
           "<= 8 on flat ground and <= 12 on the cliff; the per-texel map lookups (control, colour) apart.\n"
           "With --views (names, or 'default': the world's 12 default views) it renders those views of --world\n"
           "(default: the default world) too and splits their pixels by what the shading read: flat ground (the\n"
           "top projection alone) and cliffs (a side projection too); the sky is left out.\n\n"
           "options:\n");
    cli_options_usage(opts, count);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static st_result render(st_engine *e, const char *method, st_shading shading, const st_camera *cam, uint32_t w,
                        uint32_t h, uint8_t *rgba, float *depth, st_error *err) {
    st_renderer *r = NULL;
    st_render_desc d = {.method = method, .width = w, .height = h, .shading = shading};
    st_result res = st_renderer_create(e, &d, &r, err);
    if (!res) res = st_renderer_draw(r, cam, NULL, err);
    if (!res) res = st_renderer_readback(r, rgba, depth, err);
    st_renderer_destroy(r);
    return res;
}

static void print_tallies(const char *name, const char *what0, const st_fetch_tally *t0, const char *what1,
                          const st_fetch_tally *t1) {
    printf("  %-18s %s max %2d mean %5.2f (%7zu px)   %s max %2d mean %5.2f (%7zu px)   map lookups <= %d\n", name,
           what0, t0->max, st_fetch_tally_mean(t0), t0->count, what1, t1->max, st_fetch_tally_mean(t1), t1->count,
           t0->lookups_max > t1->lookups_max ? t0->lookups_max : t1->lookups_max);
}

/* Each method's fetches over the views of `world` at w×h, split by the projection the shading read; the
 * worst counts into worst[0] (flat ground) and worst[1] (cliffs). */
static st_result fetches_on_views(const char *world, const char *views_arg, const char *const *names, size_t count,
                                  const st_engine_desc *ed, uint32_t w, uint32_t h, int worst[2], st_error *err) {
    st_level *level = NULL;
    st_engine *engine = NULL;
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count = 0;
    st_result r = cli_load_world(world, &level, err);
    if (!r && !strcmp(views_arg, "default")) r = st_views_default(level, views, ST_MAX_VIEWS, &view_count, err);
    else if (!r) {
        char *list = strdup(views_arg), *items[ST_MAX_VIEWS];
        size_t n = list ? cli_split_list(list, items, ST_MAX_VIEWS) : 0;
        for (size_t i = 0; i < n && !r; i++) r = st_views_find(level, items[i], &views[view_count++], err);
        free(list);
    }
    if (!r) r = st_engine_create(ed, &engine, err);
    if (!r) r = st_engine_set_level(engine, level, err);
    if (!r) r = cli_world_materials(engine, world, err);
    uint8_t *counts = malloc((size_t)w * h * 4);
    float *depth = malloc((size_t)w * h * sizeof *depth);
    if (!r && (!counts || !depth)) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (!r)
        printf("views of %s: %zu at %ux%u; per method, over all of them: material fetches per pixel\n", world,
               view_count, w, h);
    for (size_t m = 0; m < count && !r; m++) {
        st_fetch_tally t[2] = {{0}};
        st_renderer *rd = NULL;
        st_render_desc d = {.method = names[m], .width = w, .height = h, .shading = ST_SHADING_FETCHES};
        r = st_renderer_create(engine, &d, &rd, err);
        for (size_t v = 0; v < view_count && !r; v++) {
            st_camera cam = st_viewpoint_camera(level, &views[v]);
            r = st_renderer_draw(rd, &cam, NULL, err);
            if (!r) r = st_renderer_readback(rd, counts, depth, err);
            for (size_t k = 0; k < (size_t)w * h && !r; k++) {
                if (depth[k] == 0.0f) continue; /* the sky */
                st_fetch_pixel p = st_fetch_pixel_decode(counts + k * 4);
                st_fetch_tally_add(&t[p.steep], p);
            }
        }
        st_renderer_destroy(rd);
        if (r) break;
        print_tallies(names[m], "flat ground", &t[0], "cliffs", &t[1]);
        for (int k = 0; k < 2; k++)
            if (t[k].max > worst[k]) worst[k] = t[k].max;
    }
    free(counts);
    free(depth);
    if (!r && cli_validation_status("bench materials", engine)) r = st_error_set(err, ST_ERR_GPU, "validation messages");
    st_engine_destroy(engine);
    st_level_destroy(level);
    return r;
}

int bench_materials(int argc, char **argv) {
    const char *cmd = "bench materials";
    uint32_t repeat = 5, size[2] = {320, 200}, device = 0;
    bool device_given = false, validate = false, help = false;
    char *methods_arg = NULL;
    const char *views_arg = NULL, *world = "default";
    const cli_opt opts[] = {
        CLI_OPT_REPEAT(&repeat, 100, "syntheses timed (default 5)"),
        CLI_OPT_SIZE_WH(size, 4096, "the fetch scene's image size (default 320x200)"),
        CLI_OPT_METHODS(&methods_arg),
        {.name = "views", .kind = CLI_OPT_STRING, .target = &views_arg, .arg = "LIST",
         .help = "also the views of --world: names, or 'default' (its 12 default views)"},
        CLI_OPT_WORLD(&world),
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
    st_result r = st_fetch_scene_level(&level, &err);
    if (!r) r = st_engine_create(&ed, &engine, &err);
    if (!r) r = st_engine_set_level(engine, level, &err);
    uint32_t w = size[0], h = size[1];
    uint8_t *label = malloc((size_t)w * h * 4), *counts = malloc((size_t)w * h * 4);
    if (!r && (!label || !counts)) r = st_error_set(&err, ST_ERR_NOMEM, "out of memory");
    st_camera cam = st_fetch_scene_camera();
    int worst[2] = {0, 0};
    if (!r) printf("fetch scene: %ux%u, floor and an 80-degree cliff; per method: material fetches per pixel\n", w, h);
    for (size_t m = 0; m < count && !r; m++) {
        r = render(engine, names[m], ST_SHADING_FLAT, &cam, w, h, label, NULL, &err);
        if (!r) r = render(engine, names[m], ST_SHADING_FETCHES, &cam, w, h, counts, NULL, &err);
        if (r) break;
        st_fetch_tally t[2] = {{0}};
        for (size_t k = 0; k < (size_t)w * h; k++) {
            int region = st_fetch_scene_region(label + k * 4);
            if (region >= 0) st_fetch_tally_add(&t[region], st_fetch_pixel_decode(counts + k * 4));
        }
        print_tallies(names[m], "floor", &t[0], "cliff", &t[1]);
        for (int k = 0; k < 2; k++)
            if (t[k].max > worst[k]) worst[k] = t[k].max;
    }
    free(label);
    free(counts);
    int status = r ? cli_fail(cmd, &err) : cli_validation_status(cmd, engine);
    st_engine_destroy(engine);
    st_level_destroy(level);
    if (r) return status;
    if (views_arg) {
        r = fetches_on_views(world, views_arg, names, count, &ed, w, h, worst, &err);
        if (r) return cli_fail(cmd, &err);
    }
    cli_bench_verdict("material synthesis at start-up", "<=", SYNTH_TARGET_MS, "ms", synth_ms, NULL);
    cli_bench_verdict("texture fetches per pixel on flat ground", "<=", FLAT_TARGET, "fetches", worst[0], NULL);
    cli_bench_verdict(views_arg ? "texture fetches per pixel on cliffs" : "texture fetches per pixel on an 80-degree cliff", "<=", CLIFF_TARGET, "fetches", worst[1], NULL);
    return status;
}
