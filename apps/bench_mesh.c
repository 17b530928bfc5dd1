/* strata bench mesh: the mesh targets on the default world (2048×16384) — full fit of all chunks and LODs
 * in stored triangles per second on every core, the exact refit after the r48 depth-90 crater, GPU bytes
 * per triangle — plus a quality sweep with insertion drivers and a single-layer DEM control. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/gen.h"
#include "strata/image.h"
#include "strata/mesh.h"

static double median(double *v, size_t n) { return st_stats_of(v, n).median; }

static bool meshes_equal(const st_mesh *a, const st_mesh *b) {
    for (uint32_t i = 0; i < a->chunks_x * a->chunks_y; i++) {
        const st_mesh_chunk *x = &a->chunks[i], *y = &b->chunks[i];
        if (x->vertex_count != y->vertex_count || x->index_count != y->index_count ||
            memcmp(x->vertices, y->vertices, x->vertex_count * sizeof *x->vertices) ||
            memcmp(x->indices, y->indices, x->index_count * sizeof *x->indices) || memcmp(x->lods, y->lods, sizeof x->lods))
            return false;
    }
    return true;
}

static void print_fit(const char *label, const st_mesh *m, double ms, double grid_tris) {
    st_mesh_totals t = st_mesh_compute_totals(m);
    uint64_t ins = 0;
    for (int k = 0; k < ST_TIN_DRIVER_COUNT; k++) ins += t.insertions[k];
    double slab = 0, all = 0;
    for (int p = 0; p < ST_MESH_PART_COUNT; p++) all += (double)t.part_triangles[0][p];
    slab = (double)(t.part_triangles[0][ST_MESH_PART_TOP] + t.part_triangles[0][ST_MESH_PART_CEILING] +
                    t.part_triangles[0][ST_MESH_PART_WALL]);
    printf("%-16s %7.0f ms %6.2f Mtri/s | LOD0 %6.2f M vert %6.2f M tri %5.1fx err %.2f | stored %6.2f M tri "
           "(slab/wall share LOD0 %4.1f %%) | GPU %6.1f MiB %.2f B/tri | drivers floor %4.1f slab %4.1f "
           "outline %4.1f border %4.1f %%\n",
           label, ms, (double)t.triangles / ms / 1000.0, (double)t.tin_vertices / 1e6, (double)t.tin_triangles[0] / 1e6,
           grid_tris / (double)t.tin_triangles[0], t.max_error, (double)t.triangles / 1e6, 100.0 * slab / all,
           (double)t.gpu_bytes / 1048576.0, (double)t.gpu_bytes / (double)t.triangles,
           100.0 * (double)t.insertions[0] / (double)ins, 100.0 * (double)t.insertions[1] / (double)ins,
           100.0 * (double)t.insertions[2] / (double)ins, 100.0 * (double)t.insertions[3] / (double)ins);
}

static const char *cmd = "bench mesh";

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata bench mesh [--repeat N] [-q Q] [--sweep] [--dem FILE.png [--units M] | --no-dem]\n\n"
           "On the default world (2048x16384): the full fit of every chunk and LOD (median of N runs, default 3)\n"
           "with the outline metric in 64² tiles, in whole chunks and with the paper's metric; the exact refit\n"
           "after the edit protocol's r48 depth-90 crater (median of 15); then a single-layer TIN of a DEM.\n"
           "Verdicts on the targets (at q = 0.5): full fit >= 2 M stored triangles/s, GPU <= 8 bytes per\n"
           "stored triangle, refit <= 3 ms CPU.\n\noptions:\n");
    cli_options_usage(opts, count);
}

typedef struct dem_samples {
    uint32_t w, h;
    void *px; /* 16-bit grey */
} dem_samples;

/* Read before the long fits, so a bad --dem fails at once. */
static int dem_read(const char *path, dem_samples *d) {
    return cli_read_grey16_png(cmd, path, 2, ST_TIN_MAX_SIDE, &d->w, &d->h, &d->px);
}

static int dem_control(const char *path, const dem_samples *dem, double units) {
    uint32_t w = dem->w, h = dem->h;
    void *px = dem->px;
    st_error err = {0};
    st_tin *tin = NULL;
    if (st_tin_create(&tin, &err)) return cli_fail(cmd, &err);
    printf("DEM control %s: %ux%u samples of %g m, one single-layer TIN (one thread)\n", path, w, h, units);
    const double metres[] = {1, 4, 16};
    for (int i = 0; i < 3; i++) {
        st_tin_desc d = {.width = w, .height = h, .low = px, .tolerance = metres[i] / units};
        double runs[3];
        for (int k = 0; k < 3; k++) {
            double t0 = st_time_ms();
            if (st_tin_fit(tin, &d, &err)) {
                st_tin_destroy(tin);
                return cli_fail(cmd, &err);
            }
            runs[k] = st_time_ms() - t0;
        }
        printf("  tolerance %4.0f m: %8.1f ms  %8u vertices %8u triangles  reduction %6.1fx  max error %.2f m\n",
               metres[i], median(runs, 3), tin->vertex_count, tin->triangle_count,
               2.0 * (double)(w - 1) * (double)(h - 1) / (double)tin->triangle_count, tin->stats.max_error * units);
    }
    st_tin_destroy(tin);
    return CLI_EXIT_OK;
}

int bench_mesh(int argc, char **argv) {
    uint32_t repeat = 3;
    float quality = 0.5f, units = 0;
    bool sweep = false, dem = true, dem_given = false, help = false;
    const char *dem_path = "data/dem/ps_height_1k.png";
    char dem_help[160];
    snprintf(dem_help, sizeof dem_help, "the DEM of the single-layer control: a 16-bit grey PNG up to %u a side\n"
             "(default data/dem/ps_height_1k.png, Puget Sound, 0.1 m units)", ST_TIN_MAX_SIDE);
    const cli_opt opts[] = {
        CLI_OPT_REPEAT(&repeat, 100, "full fits per variant (default 3)"),
        {.name = "quality", .letter = 'q', .kind = CLI_OPT_FLOAT, .target = &quality, .min = 0, .max = 1, .arg = "Q",
         .bad = "bad --quality '%s' (0..1)", .help = "0..1 (default 0.5)"},
        {.name = "sweep", .kind = CLI_OPT_FLAG, .target = &sweep,
         .help = "also one fit at each of q = 0, 0.25, 0.5, 0.75, 1 with both metrics"},
        {.name = "dem", .kind = CLI_OPT_STRING, .target = &dem_path, .given = &dem_given, .arg = "FILE",
         .help = dem_help},
        {.name = "units", .kind = CLI_OPT_FLOAT, .target = &units, .min = 1e-6, .max = 1e6, .arg = "M",
         .bad = "bad --units '%s' (metres per sample unit, 1e-6..1e6)",
         .help = "metres per sample unit of --dem FILE (default 1)"},
        {.name = "no-dem", .kind = CLI_OPT_CLEAR, .target = &dem, .help = "skip the DEM control"},
    };
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), 0, NULL, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    if (units && !dem_given) return cli_usage_error(cmd, "--units is for --dem FILE");
    /* the shipped Puget Sound model is in decimetres; any other file says its own unit (default metres) */
    double dem_units = units ? units : dem_given ? 1.0 : 0.1;
    dem_samples samples = {0};
    if (dem) {
        int status = dem_read(dem_path, &samples);
        if (status) return status;
    }
    st_error err = {0};
    st_level *level = NULL;
    double t0 = st_time_ms();
    if (st_gen_world(NULL, &level, &err)) return cli_fail(cmd, &err);
    double grid_tris = 2.0 * (double)level->width * (double)level->height;
    printf("default world %ux%u generated in %.0f ms; %u threads; q=%.2f (tolerance %.2f)\n", level->width,
           level->height, st_time_ms() - t0, st_job_threads(), quality, st_mesh_tolerance(quality));

    /* full fit: every chunk, all three LODs; the outline metric in 64² fit tiles (the default), in whole
     * 128² chunks, and the paper's metric */
    st_mesh *mesh = NULL;
    double fit_rate = 0, bytes_per_tri = 0;
    const struct {
        const char *label;
        uint32_t fit_tile;
        bool no_outline;
    } variants[] = {{"fit outline", 0, false}, {"fit outline 128", ST_MESH_CHUNK, false}, {"fit paper metric", 0, true}};
    for (int v = 0; v < 3; v++) {
        st_mesh_desc desc = {.tolerance = st_mesh_tolerance(quality), .fit_tile = variants[v].fit_tile,
                             .no_outline = variants[v].no_outline};
        double *runs = calloc(repeat, sizeof *runs);
        st_mesh *m = NULL;
        for (uint32_t k = 0; k < repeat; k++) {
            st_mesh_destroy(m);
            fprintf(stderr, "bench mesh: %s, fit %u/%u...\n", variants[v].label, k + 1, repeat);
            double s = st_time_ms();
            if (st_mesh_create(level, &desc, &m, &err)) return cli_fail(cmd, &err);
            runs[k] = st_time_ms() - s;
        }
        double fit_ms = median(runs, repeat);
        print_fit(variants[v].label, m, fit_ms, grid_tris);
        if (v == 0) {
            st_mesh_totals t = st_mesh_compute_totals(m);
            fit_rate = (double)t.triangles / fit_ms / 1000.0;
            bytes_per_tri = (double)t.gpu_bytes / (double)(t.triangles ? t.triangles : 1);
        }
        free(runs);
        if (v == 0) mesh = m;
        else st_mesh_destroy(m);
    }

    /* the edit protocol's crater (spec §4.7): centre (1024, 8192), r = 48, depth 90 */
    st_rect dirty;
    int cx = (int)level->width / 2, cy = (int)level->height / 2;
    if (st_level_dig(level, cx, cy, 48, 90, &dirty, &err)) return cli_fail(cmd, &err);
    double refit[15], cpu[15];
    uint32_t n = 0, list[64], tiles = 0;
    uint32_t listed = st_mesh_chunks_in_rect(mesh, dirty, list, 64);
    mesh->refit_unchanged = true; /* every run fits the touched tiles (later runs would find them unchanged) */
    fprintf(stderr, "bench mesh: 15 refits of the crater, then a fresh fit to compare...\n");
    for (int k = 0; k < 15; k++) {
        double s = st_time_ms();
        if (st_mesh_refit(mesh, level, dirty, &n, &err)) return cli_fail(cmd, &err);
        refit[k] = st_time_ms() - s;
        cpu[k] = 0;
        tiles = 0;
        for (uint32_t i = 0; i < listed && i < 64; i++) {
            cpu[k] += mesh->chunks[list[i]].fit_ms;
            tiles += mesh->chunks[list[i]].tiles_fitted;
        }
    }
    st_mesh *fresh = NULL;
    st_mesh_desc desc = {.tolerance = st_mesh_tolerance(quality)};
    if (st_mesh_create(level, &desc, &fresh, &err)) return cli_fail(cmd, &err);
    printf("refit after the r48 depth-90 crater at (%d,%d): %u chunks, %u of their %u fit tiles fitted, median "
           "%.2f ms wall, %.2f ms CPU (sum of chunk fits), min %.2f ms wall; identical to a fresh fit: %s\n",
           cx, cy, n, tiles, n * mesh->tiles_x * mesh->tiles_x, median(refit, 15), median(cpu, 15),
           st_stats_of(refit, 15).min, meshes_equal(mesh, fresh) ? "yes" : "NO");
    st_mesh_destroy(fresh);
    st_mesh_destroy(mesh);
    /* the targets are for q = 0.5 (tolerance 4) on the default world */
    const char *off = quality == 0.5f ? NULL : "the targets are for q = 0.5";
    cli_bench_verdict("full fit (outline metric, 64² tiles)", ">=", 2, "M stored triangles/s", fit_rate, off);
    cli_bench_verdict("GPU memory", "<=", 8, "bytes per stored triangle", bytes_per_tri, off);
    cli_bench_verdict("refit after the r48 crater", "<=", 3, "ms CPU", median(cpu, 15), off);

    if (sweep) {
        printf("quality sweep (one fit each):\n");
        static const float qs[] = {0, 0.25f, 0.5f, 0.75f, 1};
        st_level_destroy(level);
        if (st_gen_world(NULL, &level, &err)) return cli_fail(cmd, &err);
        for (int i = 0; i < 5; i++)
            for (int outline = 1; outline >= 0; outline--) {
                st_mesh_desc d = {.tolerance = st_mesh_tolerance(qs[i]), .no_outline = !outline};
                st_mesh *m = NULL;
                double s = st_time_ms();
                if (st_mesh_create(level, &d, &m, &err)) return cli_fail(cmd, &err);
                char label[32];
                snprintf(label, sizeof label, "q=%.2f %s", (double)qs[i], outline ? "outline" : "paper");
                print_fit(label, m, st_time_ms() - s, grid_tris);
                st_mesh_destroy(m);
            }
    }
    st_level_destroy(level);
    int status = dem ? dem_control(dem_path, &samples, dem_units) : CLI_EXIT_OK;
    free(samples.px);
    return status;
}
