/* strata tile IN... -o STORE: builds a tile store — from real rasters (PNG, SRTM .hgt mosaics, raw grids, GeoTIFF
 * and everything GDAL reads, Terrarium / Terrain-RGB tile folders), the procedural DEM, optionally amplified, a
 * multi-layer world, or the procedural multi-layer world at any size — in parallel, resumable, optionally one
 * shard of many. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "strata/tiles.h"
#include "strata/world.h"

static const char *cmd = "tile";

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata tile IN... -o STORE [OPTIONS]\n\n"
           "Builds a tile store: a pyramid of square tiles at full precision, every level down to one root tile,\n"
           "with per-tile bounds, geometric error and checksum, and an index (docs/formats.md).\n\n"
           "IN is one of:\n"
           "  FILE.png               8- or 16-bit greyscale elevation (--units, --spacing)\n"
           "  FILE.hgt ...           SRTM tiles; several are joined by their names (N50E009 + N50E010 ...)\n"
           "  FILE --raw WxH         raw samples, no header (--type s16|u16|f32, --endian le|be)\n"
           "  FILE.tif, any raster   through GDAL: georeferencing, nodata as voids, read in windows\n"
           "  DIR --terrarium|--mapbox  a z/x/y folder of Terrarium or Mapbox Terrain-RGB PNG tiles (--zoom Z)\n"
           "  gen:SEED:WxH[:SPACING] the procedural DEM (SPACING metres, default 10)\n"
           "  default, WORLD         a multi-layer world (the embedded default world, a Vangers world): a layer\n"
           "                         store of its texel pairs, palette and materials\n"
           "  gen:multi:SEED:WxH[:DUAL]  the procedural multi-layer world at any size (sides powers of two,\n"
           "                         256..1048576; DUAL the dual share in percent, default 11, or 'none'),\n"
           "                         made tile by tile: a layer store of 256² tiles, resumable\n"
           "  LAYER-STORE            a copy of a layer store, tile by tile\n\n"
           "options:\n");
    cli_options_usage(opts, count);
}

static void show_progress(void *user, const st_store_progress *p) {
    (void)user;
    double frac = p->total ? (double)p->done / (double)p->total : 1.0;
    int bar = (int)(frac * 30.0 + 0.5);
    char line[40];
    for (int i = 0; i < 30; i++) line[i] = i < bar ? '#' : '.';
    line[30] = 0;
    double eta = frac > 0.01 ? p->elapsed_ms * (1.0 - frac) / frac / 1000.0 : NAN;
    fprintf(stderr, "\r[%s] %5.1f%% %llu/%llu tiles, %.1f s", line, frac * 100.0, (unsigned long long)p->done,
            (unsigned long long)p->total, p->elapsed_ms / 1000.0);
    if (isfinite(eta)) fprintf(stderr, ", ETA %.1f s   ", eta);
    fflush(stderr);
}

static bool split_shard(const char *text, uint32_t *i, uint32_t *n) {
    const char *slash = text ? strchr(text, '/') : NULL;
    if (!slash) return false;
    char left[16];
    size_t k = (size_t)(slash - text);
    if (!k || k >= sizeof left) return false;
    memcpy(left, text, k);
    left[k] = 0;
    return cli_parse_uint(left, 0, 1u << 20, i) && cli_parse_uint(slash + 1, 1, 1u << 20, n) && *i < *n;
}

/* --shard I/N into the build description. */
static bool parse_shard(const char *value, void *target) {
    st_store_build_desc *d = target;
    return split_shard(value, &d->shard_index, &d->shard_count);
}

static bool parse_encoding(const char *value, void *target) {
    st_tile_encoding *e = target;
    if (!strcmp(value, "u16")) *e = ST_TILE_U16;
    else if (!strcmp(value, "f32")) *e = ST_TILE_F32;
    else return false;
    return true;
}

/* --amplify: a power of two, 2..64. */
static bool parse_amplify(const char *value, void *target) {
    uint32_t v;
    if (!cli_parse_uint(value, 2, 64, &v) || !st_is_pow2(v)) return false;
    *(uint32_t *)target = v;
    return true;
}

static bool is_layer_world(const char *in) {
    struct stat sb;
    char ini[1100];
    if (!strcmp(in, "default")) return true;
    size_t n = strlen(in);
    if (n > 4 && !strcasecmp(in + n - 4, ".ini")) return true;
    snprintf(ini, sizeof ini, "%s/world.ini", in);
    return stat(in, &sb) == 0 && S_ISDIR(sb.st_mode) && stat(ini, &sb) == 0;
}

static void print_result(const char *out, const st_store_build_desc *d, const st_store_build_stats *st, bool json) {
    st_store *s = NULL;
    st_error err = {0};
    const st_store_info *in = NULL;
    if (st->complete && !st_store_open(out, &s, &err)) in = st_store_get_info(s);
    double sec = st->ms / 1000.0, ratio = st->raw_bytes ? (double)st->bytes / (double)st->raw_bytes : 1.0;
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "store", out);
        cJSON_AddBoolToObject(o, "complete", st->complete);
        if (d->shard_count > 1) {
            cJSON_AddNumberToObject(o, "shard", d->shard_index);
            cJSON_AddNumberToObject(o, "shards", d->shard_count);
        }
        cJSON_AddNumberToObject(o, "tiles_written", (double)st->tiles_written);
        cJSON_AddNumberToObject(o, "tiles_kept", (double)st->tiles_kept);
        cJSON_AddNumberToObject(o, "samples", (double)st->samples);
        cJSON_AddNumberToObject(o, "bytes", (double)st->bytes);
        cJSON_AddNumberToObject(o, "raw_bytes", (double)st->raw_bytes);
        cJSON_AddNumberToObject(o, "ms", st->ms);
        cJSON_AddNumberToObject(o, "samples_per_s", sec > 0 ? (double)st->samples / sec : 0);
        cJSON_AddNumberToObject(o, "threads", st_job_threads());
        if (in) {
            cJSON_AddNumberToObject(o, "width", (double)in->width);
            cJSON_AddNumberToObject(o, "height", (double)in->height);
            cJSON_AddNumberToObject(o, "levels", in->levels);
            cJSON_AddNumberToObject(o, "tiles", (double)in->tiles);
        }
        char *text = cJSON_Print(o);
        if (text) printf("%s\n", text);
        free(text);
        cJSON_Delete(o);
    } else {
        if (d->shard_count > 1) printf("shard %u/%u: ", d->shard_index, d->shard_count);
        printf("%llu tiles written, %llu kept from an earlier run, %.1f MB (%.3f of uncompressed) in %.1f s on %u "
               "threads: %.1f M samples/s\n",
               (unsigned long long)st->tiles_written, (unsigned long long)st->tiles_kept, (double)st->bytes / 1e6,
               ratio, sec, st_job_threads(), sec > 0 ? (double)st->samples / sec / 1e6 : 0.0);
        if (in)
            printf("store %s: %llux%llu %s, %g m spacing, %u levels, %llu tiles of %u², %.1f MB, %s%s\n", out,
                   (unsigned long long)in->width, (unsigned long long)in->height,
                   in->kind == ST_TILE_DEM ? "samples" : "texels", in->spacing_x_m, in->levels,
                   (unsigned long long)in->tiles, in->tile_size, (double)in->bytes / 1e6,
                   in->encoding == ST_TILE_U16 ? "u16" : in->encoding == ST_TILE_F32 ? "f32" : "texel pairs",
                   in->compression == ST_TILE_ZSTD ? " + zstd" : "");
        else if (!st->complete)
            printf("the store completes when the run of the last missing shard finds every other shard's tiles\n");
        if (st->max_quantisation_m > 0)
            printf("u16 on a source without a unit grid: samples rounded by up to %.4g m\n", st->max_quantisation_m);
    }
    st_store_close(s);
}

int cmd_tile(int argc, char **argv) {
    const char *out = NULL;
    st_store_build_desc d = {0};
    st_dem_open_desc od = {0};
    st_dem_amplify_desc ad = {0};
    bool json = false, progress = isatty(2), raw_type_given = false;
    double units = 0, spacing = 0;
    uint32_t amplify_seed = 0;
    float detail = 0;
    bool help = false;
    const cli_opt opts[] = {
        CLI_OPT_OUT(&out, "STORE", "the store's folder (created; an earlier build there is resumed)"),
        {.name = "tile-size", .kind = CLI_OPT_UINT, .target = &d.tile_size, .min = 2, .max = ST_TILE_MAX_SIZE,
         .arg = "N", .bad = "bad --tile-size '%s' (2^k+1 up to " CLI_XSTR(ST_TILE_MAX_SIZE) " for DEMs, 2^k for layers)",
         .help = "samples per tile side: 2^k+1 for DEMs (default 257), 2^k for layers (256)"},
        {.name = "encoding", .kind = CLI_OPT_PARSE, .target = &d.encoding, .parse = parse_encoding, .arg = "u16|f32",
         .bad = "--encoding must be u16 or f32, not '%s'",
         .help = "default: u16 on the source's own unit grid when it fits, else f32"},
        {.name = "no-compress", .kind = CLI_OPT_FLAG, .target = &d.raw,
         .help = "store samples raw instead of delta-coded + zstd"},
        {.name = "units", .kind = CLI_OPT_DOUBLE, .target = &units, .min = 1e-9, .max = 1e6, .arg = "M",
         .bad = "bad --units '%s' (metres per sample unit, above 0)",
         .help = "metres per sample unit for formats without units (PNG, raw; default 1)"},
        {.name = "spacing", .kind = CLI_OPT_DOUBLE, .target = &spacing, .min = 1e-6, .max = 1e6, .arg = "M",
         .bad = "bad --spacing '%s' (metres between samples, above 0)",
         .help = "metres between samples for formats without georeferencing"},
        {.name = "amplify", .kind = CLI_OPT_PARSE, .target = &ad.factor, .parse = parse_amplify, .arg = "N",
         .bad = "bad --amplify '%s' (a power of two, 2..64)",
         .help = "N× finer (2..64, a power of two) with procedural detail below the source's\n"
                 "resolution; the source's own samples are kept exactly"},
        {.name = "amplify-seed", .kind = CLI_OPT_UINT, .target = &amplify_seed, .min = 0, .max = UINT32_MAX,
         .arg = "S", .help = "the detail's seed"},
        {.name = "detail", .kind = CLI_OPT_FLOAT, .target = &detail, .min = 0, .max = 10,
         .arg = "D", .bad = "bad --detail '%s' (0..10)", .help = "the detail's amplitude (relative to local relief, 1)"},
        {.name = "shard", .kind = CLI_OPT_PARSE, .target = &d, .parse = parse_shard, .arg = "I/N",
         .bad = "bad --shard '%s' (I/N with 0 <= I < N)",
         .help = "build only share I of N (0-based): run all N (anywhere, sharing the folder\n"
                 "or copied together afterwards); the run that finds every share present\n"
                 "completes the store"},
        CLI_OPT_RAW(&od),
        CLI_OPT_RAW_TYPE(&od, &raw_type_given),
        CLI_OPT_ENDIAN(&od),
        {.name = "terrarium", .kind = CLI_OPT_SET, .target = &od.rgb, .min = ST_DEM_RGB_TERRARIUM,
         .help = "IN is a Terrarium z/x/y folder"},
        {.name = "mapbox", .kind = CLI_OPT_SET, .target = &od.rgb, .min = ST_DEM_RGB_MAPBOX,
         .help = "IN is a Mapbox Terrain-RGB z/x/y folder"},
        {.name = "zoom", .kind = CLI_OPT_UINT, .target = &od.zoom, .min = 0, .max = 30, .arg = "Z",
         .bad = "bad --zoom '%s' (0..30)", .help = "the zoom of that folder to read (default: the deepest)"},
        {.name = "progress", .kind = CLI_OPT_FLAG, .target = &progress,
         .help = "a progress bar with ETA (default: when stderr is a terminal)"},
        {.name = "no-progress", .kind = CLI_OPT_CLEAR, .target = &progress, .help = "no progress bar"},
        CLI_OPT_JSON(&json),
    };
    int first = argc;
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), SIZE_MAX, &first, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    ad.seed = amplify_seed;
    ad.detail = detail;
    int inputs = argc - first;
    if (inputs < 1) return cli_usage_error(cmd, "expected at least one IN");
    if (!out) return cli_usage_error(cmd, "no output store (-o STORE)");
    if (raw_type_given && !od.raw_width) return cli_usage_error(cmd, "--type needs --raw WxH");
    od.units_m = units;
    od.spacing_m = spacing;
    if (progress && !json) {
        d.progress = show_progress;
        d.progress_user = NULL;
    }
    st_error err = {0};
    st_store_build_stats st = {0};
    const char *first_in = argv[first];
    int status;
    if (inputs == 1 && is_layer_world(first_in)) {
        if (ad.factor || od.raw_width || od.rgb || d.encoding)
            return cli_usage_error(cmd, "a multi-layer world takes no DEM options (--amplify, --raw, --encoding ...)");
        st_level *level = NULL;
        if (cli_load_world(first_in, &level, &err)) return cli_fail(cmd, &err);
        d.source_label = first_in;
        st_result r = st_store_build_level(level, out, &d, &st, &err);
        st_level_destroy(level);
        if (progress && !json) fputc('\n', stderr);
        if (r) return cli_fail(cmd, &err);
        print_result(out, &d, &st, json);
        return CLI_EXIT_OK;
    }
    if (!strncmp(first_in, "gen:multi:", 10) || cli_is_layer_store(first_in)) { /* tile by tile from a store */
        if (inputs > 1) return cli_usage_error(cmd, "a multi-layer world from tiles is the only input");
        if (ad.factor || od.raw_width || od.rgb || d.encoding || units || spacing)
            return cli_usage_error(cmd, "a multi-layer world takes no DEM options (--amplify, --raw, --encoding ...)");
        st_store *gen = NULL;
        if (st_store_open(first_in, &gen, &err)) return cli_fail(cmd, &err);
        st_result r = st_store_build_layers(gen, out, &d, &st, &err);
        st_store_close(gen);
        if (progress && !json) fputc('\n', stderr);
        if (r) return cli_fail(cmd, &err);
        print_result(out, &d, &st, json);
        return CLI_EXIT_OK;
    }
    st_dem_source *src = NULL;
    if (!strncmp(first_in, "gen:", 4)) {
        if (inputs > 1) return cli_usage_error(cmd, "a generated DEM is the only input");
        st_dem_gen_desc gd;
        if (st_dem_gen_parse(first_in, &gd, &err) || st_dem_generator(&gd, &src, &err)) return cli_fail(cmd, &err);
    } else {
        if (st_dem_open((const char *const *)argv + first, (size_t)inputs, &od, &src, &err)) return cli_fail(cmd, &err);
    }
    if (ad.factor && st_dem_amplify(src, &ad, &src, &err)) return cli_fail(cmd, &err);
    char label[512];
    snprintf(label, sizeof label, "%s", st_dem_source_info(src)->description);
    d.source_label = label;
    st_result r = st_store_build_dem(src, out, &d, &st, &err);
    if (progress && !json) fputc('\n', stderr);
    st_dem_source_destroy(src);
    if (r) return cli_fail(cmd, &err);
    print_result(out, &d, &st, json);
    status = CLI_EXIT_OK;
    return status;
}
