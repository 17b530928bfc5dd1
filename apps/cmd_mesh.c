/* strata mesh: fits the chunked three-LOD triangle mesh of a world and prints what it cost (vertices,
 * triangles, reduction, error, time, memory, insertion drivers); optionally exports one LOD. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "strata/mesh.h"

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata mesh [--world W | W] [-q QUALITY] [--tolerance T] [-o FILE.obj|FILE.ply] [--lod N]\n"
           "                   [--no-outline] [--fit-tile N]\n\n");
    cli_options_usage(opts, count);
}

/* --fit-tile: a power of two from a quarter of the chunk to all of it. */
static bool parse_fit_tile(const char *value, void *target) {
    uint32_t v;
    if (!cli_parse_uint(value, 2, ST_MESH_CHUNK, &v) || !st_is_pow2(v) || v * 4 < ST_MESH_CHUNK) return false;
    *(uint32_t *)target = v;
    return true;
}

static void print_drivers(const st_mesh_totals *t) {
    uint64_t sum = 0;
    for (int k = 0; k < ST_TIN_DRIVER_COUNT; k++) sum += t->insertions[k];
    static const char *const names[ST_TIN_DRIVER_COUNT] = {"floor", "slab interior", "single/dual boundary",
                                                           "tile sides"};
    printf("insertion drivers (LOD 0, %llu insertions):\n", (unsigned long long)sum);
    for (int k = 0; k < ST_TIN_DRIVER_COUNT; k++)
        printf("  %-22s %10llu  %5.1f %%\n", names[k], (unsigned long long)t->insertions[k],
               sum ? 100.0 * (double)t->insertions[k] / (double)sum : 0.0);
}

int cmd_mesh(int argc, char **argv) {
    float quality = 0.5f, tolerance = 0;
    uint32_t lod = 0, fit_tile = 0;
    const char *export_path = NULL, *world = NULL;
    bool no_outline = false, help = false;
    const cli_opt opts[] = {
        {.name = "world", .kind = CLI_OPT_STRING, .target = &world, .arg = "W",
         .help = "'default' (the procedural world), a world directory or a world.ini (or give it\n"
                 "as the one argument)"},
        {.name = "quality", .letter = 'q', .kind = CLI_OPT_FLOAT, .target = &quality, .min = 0, .max = 1, .arg = "Q",
         .bad = "bad quality '%s' (want 0..1)", .help = "0..1, tolerance 2^(4(1-q)) height units (default 0.5: 4 units)"},
        {.name = "tolerance", .kind = CLI_OPT_FLOAT, .target = &tolerance, .min = 0.001, .max = 65535, .arg = "T",
         .bad = "bad tolerance '%s' (want 0.001..65535)", .help = "LOD 0 tolerance in height units (overrides -q)"},
        CLI_OPT_OUT(&export_path, "FILE", "write one LOD (default 0) as .obj groups or .ply with a per-face part\n"
                                          "(--export FILE is the same)"),
        {.name = "export", .kind = CLI_OPT_STRING, .target = &export_path}, /* the older name of --out */
        {.name = "lod", .kind = CLI_OPT_UINT, .target = &lod, .min = 0, .max = ST_MESH_LODS - 1, .arg = "N",
         .bad = "bad LOD '%s' (want 0..2)", .help = "the LOD to export, 0..2"},
        {.name = "no-outline", .kind = CLI_OPT_FLAG, .target = &no_outline,
         .help = "the paper's metric: mid/high fitted across the single/dual boundary"},
        {.name = "fit-tile", .kind = CLI_OPT_PARSE, .target = &fit_tile, .parse = parse_fit_tile, .arg = "N",
         .bad = "bad fit tile '%s' (want 32, 64 or 128)",
         .help = "fit each 128² chunk as N² tiles: 32, 64 (default) or 128; an edit refits\n"
                 "only the tiles it touches"},
    };
    int first = argc;
    int parsed = cli_options_parse("mesh", argc, argv, opts, CLI_OPTS_COUNT(opts), SIZE_MAX, &first, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    int nargs = argc - first;
    if (world ? nargs != 0 : nargs != 1)
        return cli_usage_error("mesh", world ? "give the world once (--world W or W)" : "expected one WORLD argument");
    if (!world) world = argv[first];
    if (export_path && !st_mesh_export_format_known(export_path)) /* before the fit, not after it */
        return cli_usage_error("mesh", "export file '%s' must end in .obj or .ply", export_path);
    if (export_path && cli_check_output_file("mesh", export_path)) return CLI_EXIT_USAGE;
    st_error err = {0};
    st_level *level = NULL;
    if (cli_load_world(world, &level, &err)) return cli_fail("mesh", &err);

    st_mesh_desc desc = {.tolerance = tolerance > 0 ? tolerance : st_mesh_tolerance(quality), .fit_tile = fit_tile,
                         .no_outline = no_outline};
    st_mesh *mesh = NULL;
    /* the fit is the long part (tens of seconds on a 2-core machine for the default world): say it is under way */
    fprintf(stderr, "mesh: fitting %s (%ux%u) on %u threads...\n", level->name, level->width, level->height,
            st_job_threads());
    double t0 = st_time_ms();
    st_result r = st_mesh_create(level, &desc, &mesh, &err);
    double fit_ms = st_time_ms() - t0;
    if (!r) fprintf(stderr, "mesh: fitted in %.1f s\n", fit_ms / 1000.0);
    if (r) {
        st_level_destroy(level);
        return cli_fail("mesh", &err);
    }
    st_mesh_totals t = st_mesh_compute_totals(mesh);
    double grid_tris = 2.0 * (double)level->width * (double)level->height;
    printf("world %s: %ux%u, %u×%u chunks of %u in fit tiles of %u, tolerance %.3g (LOD 1 %.3g, LOD 2 %.3g), %s metric\n",
           level->name, level->width, level->height, mesh->chunks_x, mesh->chunks_y, mesh->chunk_size,
           mesh->fit_tile, mesh->tolerance, 2 * mesh->tolerance, 4 * mesh->tolerance, mesh->outline ? "outline" : "paper");
    printf("fit: %.1f ms wall on %u threads (%.1f ms CPU in chunk fits), %.2f M stored triangles/s\n", fit_ms,
           st_job_threads(), t.fit_ms_sum, (double)t.triangles / fit_ms / 1000.0);
    printf("LOD 0 triangulation: %llu vertices, %llu triangles, reduction %.1f× vs 2 per texel, max error %.3g\n",
           (unsigned long long)t.tin_vertices, (unsigned long long)t.tin_triangles[0],
           grid_tris / (double)(t.tin_triangles[0] ? t.tin_triangles[0] : 1), t.max_error);
    printf("%-5s %12s %12s %12s %12s %12s\n", "LOD", "planar", "floor", "slab top", "ceiling", "walls");
    for (uint32_t l = 0; l < ST_MESH_LODS; l++)
        printf("%-5u %12llu %12llu %12llu %12llu %12llu\n", l, (unsigned long long)t.tin_triangles[l],
               (unsigned long long)t.part_triangles[l][0], (unsigned long long)t.part_triangles[l][1],
               (unsigned long long)t.part_triangles[l][2], (unsigned long long)t.part_triangles[l][3]);
    printf("memory: GPU %.2f MiB (%llu vertices × 4 B + u16 indices, %llu triangles over 3 LODs, %.2f B/triangle), "
           "CPU retained %.3f MiB (chunk and tile tables; refits need only the level and the buffers)\n",
           (double)t.gpu_bytes / 1048576.0, (unsigned long long)t.vertices, (unsigned long long)t.triangles,
           (double)t.gpu_bytes / (double)(t.triangles ? t.triangles : 1), (double)t.cpu_bytes / 1048576.0);
    print_drivers(&t);
    int status = CLI_EXIT_OK;
    if (export_path) {
        if (st_mesh_export(mesh, lod, export_path, &err))
            status = cli_fail("mesh", &err);
        else
            printf("exported LOD %u to %s\n", lod, export_path);
    }
    st_mesh_destroy(mesh);
    st_level_destroy(level);
    return status;
}
