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

static int usage(void) {
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
           "                         made tile by tile: a layer store of 256² tiles, resumable\n\n"
           "options:\n"
           "  -o, --out STORE        the store's folder (created; an earlier build there is resumed)\n"
           "  --tile-size N          samples per tile side: 2^k+1 for DEMs (default 257), 2^k for layers (256)\n"
           "  --encoding u16|f32     default: u16 on the source's own unit grid when it fits, else f32\n"
           "  --no-compress          store samples raw instead of delta-coded + zstd\n"
           "  --units M              metres per sample unit for formats without units (PNG, raw; default 1)\n"
           "  --spacing M            metres between samples for formats without georeferencing\n"
           "  --amplify N            N× finer (2..64, a power of two) with procedural detail below the source's\n"
           "                         resolution; the source's own samples are kept exactly\n"
           "  --amplify-seed S, --detail D   the detail's seed and amplitude (relative to local relief, 1)\n"
           "  --shard I/N            build only share I of N (0-based): run all N (anywhere, sharing the folder\n"
           "                         or copied together afterwards); the run that finds every share present\n"
           "                         completes the store\n"
           "  --progress, --no-progress   a progress bar with ETA (default: when stderr is a terminal)\n"
           "  --json                 the result as one JSON object on stdout\n");
    return CLI_EXIT_OK;
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

static bool parse_shard(const char *text, uint32_t *i, uint32_t *n) {
    const char *slash = text ? strchr(text, '/') : NULL;
    if (!slash) return false;
    char left[16];
    size_t k = (size_t)(slash - text);
    if (!k || k >= sizeof left) return false;
    memcpy(left, text, k);
    left[k] = 0;
    return cli_parse_uint(left, 0, 1u << 20, i) && cli_parse_uint(slash + 1, 1, 1u << 20, n) && *i < *n;
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
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'},      {"tile-size", required_argument, 0, 't'},
        {"encoding", required_argument, 0, 'e'}, {"no-compress", no_argument, 0, 'n'},
        {"units", required_argument, 0, 'u'},    {"spacing", required_argument, 0, 'p'},
        {"amplify", required_argument, 0, 'a'},  {"amplify-seed", required_argument, 0, 'S'},
        {"detail", required_argument, 0, 'D'},   {"shard", required_argument, 0, 's'},
        {"raw", required_argument, 0, 'r'},      {"type", required_argument, 0, 'y'},
        {"endian", required_argument, 0, 'E'},   {"terrarium", no_argument, 0, 'T'},
        {"mapbox", no_argument, 0, 'M'},         {"zoom", required_argument, 0, 'z'},
        {"progress", no_argument, 0, 'P'},       {"no-progress", no_argument, 0, 'Q'},
        {"json", no_argument, 0, 'j'},           {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 't':
            if (!cli_parse_uint(optarg, 2, ST_TILE_MAX_SIZE, &d.tile_size))
                return cli_usage_error(cmd, "bad --tile-size '%s' (2^k+1 up to %u for DEMs, 2^k for layers)", optarg,
                                       ST_TILE_MAX_SIZE);
            break;
        case 'e':
            if (!strcmp(optarg, "u16")) d.encoding = ST_TILE_U16;
            else if (!strcmp(optarg, "f32")) d.encoding = ST_TILE_F32;
            else return cli_usage_error(cmd, "--encoding must be u16 or f32, not '%s'", optarg);
            break;
        case 'n': d.raw = true; break;
        case 'u':
            if (!cli_parse_double(optarg, 1e-9, 1e6, &units))
                return cli_usage_error(cmd, "bad --units '%s' (metres per sample unit, above 0)", optarg);
            break;
        case 'p':
            if (!cli_parse_double(optarg, 1e-6, 1e6, &spacing))
                return cli_usage_error(cmd, "bad --spacing '%s' (metres between samples, above 0)", optarg);
            break;
        case 'a':
            if (!cli_parse_uint(optarg, 2, 64, &ad.factor) || !st_is_pow2(ad.factor))
                return cli_usage_error(cmd, "bad --amplify '%s' (a power of two, 2..64)", optarg);
            break;
        case 'S': {
            uint32_t v;
            if (!cli_parse_uint(optarg, 0, UINT32_MAX, &v)) return cli_usage_error(cmd, "bad --amplify-seed '%s'", optarg);
            ad.seed = v;
            break;
        }
        case 'D': {
            float v;
            if (!cli_parse_float(optarg, 0.0f, 10.0f, &v)) return cli_usage_error(cmd, "bad --detail '%s' (0..10)", optarg);
            ad.detail = v;
            break;
        }
        case 's':
            if (!parse_shard(optarg, &d.shard_index, &d.shard_count))
                return cli_usage_error(cmd, "bad --shard '%s' (I/N with 0 <= I < N)", optarg);
            break;
        case 'r':
            if (!cli_parse_size(optarg, &od.raw_width, &od.raw_height))
                return cli_usage_error(cmd, "bad --raw '%s' (like 1080x540)", optarg);
            break;
        case 'y':
            raw_type_given = true;
            if (!strcmp(optarg, "s16")) od.raw_type = ST_DEM_RAW_S16;
            else if (!strcmp(optarg, "u16")) od.raw_type = ST_DEM_RAW_U16;
            else if (!strcmp(optarg, "f32")) od.raw_type = ST_DEM_RAW_F32;
            else return cli_usage_error(cmd, "--type must be s16, u16 or f32, not '%s'", optarg);
            break;
        case 'E':
            if (!strcmp(optarg, "le")) od.endian = ST_ENDIAN_LITTLE;
            else if (!strcmp(optarg, "be")) od.endian = ST_ENDIAN_BIG;
            else return cli_usage_error(cmd, "--endian must be le or be, not '%s'", optarg);
            break;
        case 'T': od.rgb = ST_DEM_RGB_TERRARIUM; break;
        case 'M': od.rgb = ST_DEM_RGB_MAPBOX; break;
        case 'z':
            if (!cli_parse_uint(optarg, 0, 30, &od.zoom)) return cli_usage_error(cmd, "bad --zoom '%s' (0..30)", optarg);
            break;
        case 'P': progress = true; break;
        case 'Q': progress = false; break;
        case 'j': json = true; break;
        case 'h': return usage();
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    int inputs = argc - optind;
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
    const char *first = argv[optind];
    int status;
    if (inputs == 1 && is_layer_world(first)) {
        if (ad.factor || od.raw_width || od.rgb || d.encoding)
            return cli_usage_error(cmd, "a multi-layer world takes no DEM options (--amplify, --raw, --encoding ...)");
        st_level *level = NULL;
        if (cli_load_world(first, &level, &err)) return cli_fail(cmd, &err);
        d.source_label = first;
        st_result r = st_store_build_level(level, out, &d, &st, &err);
        st_level_destroy(level);
        if (progress && !json) fputc('\n', stderr);
        if (r) return cli_fail(cmd, &err);
        print_result(out, &d, &st, json);
        return CLI_EXIT_OK;
    }
    if (!strncmp(first, "gen:multi:", 10)) {
        if (inputs > 1) return cli_usage_error(cmd, "a generated world is the only input");
        if (ad.factor || od.raw_width || od.rgb || d.encoding || units || spacing)
            return cli_usage_error(cmd, "a multi-layer world takes no DEM options (--amplify, --raw, --encoding ...)");
        st_store *gen = NULL;
        if (st_store_open(first, &gen, &err)) return cli_fail(cmd, &err);
        st_result r = st_store_build_layers(gen, out, &d, &st, &err);
        st_store_close(gen);
        if (progress && !json) fputc('\n', stderr);
        if (r) return cli_fail(cmd, &err);
        print_result(out, &d, &st, json);
        return CLI_EXIT_OK;
    }
    st_dem_source *src = NULL;
    if (!strncmp(first, "gen:", 4)) {
        if (inputs > 1) return cli_usage_error(cmd, "a generated DEM is the only input");
        st_dem_gen_desc gd;
        if (st_dem_gen_parse(first, &gd, &err) || st_dem_generator(&gd, &src, &err)) return cli_fail(cmd, &err);
    } else {
        if (st_dem_open((const char *const *)argv + optind, (size_t)inputs, &od, &src, &err)) return cli_fail(cmd, &err);
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
