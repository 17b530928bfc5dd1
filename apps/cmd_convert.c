/* strata convert IN... OUT: Vangers world ⇄ PNG set, and elevation models (PNG, SRTM .hgt and their mosaics,
 * raw s16/u16/f32, .r16, GeoTIFF and every raster GDAL reads, Terrarium/Terrain-RGB tile folders) into
 * single-layer strata worlds at their true vertical scale. Every output file is written atomically. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "strata/dem.h"
#include "strata/heightmap.h"
#include "strata/vangers.h"
#include "strata/world.h"

static const char *cmd = "convert";

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata convert IN... OUT [OPTIONS]   (or IN... -o OUT)\n\n"
           "IN is one of:\n"
           "  default             the embedded procedural world\n"
           "  DIR or DIR/world.ini  a Vangers world: world.ini ([Storage] Version 1.4; Map Power X/Y; Section Size\n"
           "                      Power; GeoNet Power; Compressed Format Using 1 → <File Name>.vmc, 0 → .vmp;\n"
           "                      Palette File, 768-byte 6-bit .pal; optional <File Name>.vpr of the exact size\n"
           "                      for its GeoNet/section powers, else flood levels 0; Terrain Max 8|16; Begin/End\n"
           "                      Colors)\n"
           "  DIR with height.png   a PNG set: height.png + meta.png, 8-bit grey, equal power-of-two sizes\n"
           "  FILE.png            a grey elevation model, 8- or 16-bit: greyscale, or palette or RGB whose\n"
           "                      pixels are all grey (Comanche-style maps; alpha ignored, colour refused)\n"
           "  FILE.hgt ...        SRTM tiles: big-endian int16, 1201x1201 or 3601x3601, voids (-32768) filled;\n"
           "                      several are joined by their names (N50E009.hgt N50E010.hgt ...) into one mosaic\n"
           "  FILE --raw WxH      raw samples, no header, exactly W*H samples (--type s16|u16|f32, default s16;\n"
           "                      --endian le|be, default le); FILE.r16 is u16 and, without --raw, square\n"
           "  FILE (GeoTIFF ...)  any raster GDAL reads: band 1, nodata filled, spacing from the CRS\n"
           "  DIR --rgb terrarium|mapbox [--zoom Z]  a z/x/y folder of Terrarium or Terrain-RGB PNG tiles\n"
           "                      (the deepest zoom present unless --zoom)\n\n"
           "OUT is a directory. Worlds become a PNG set (height.png, meta.png, preview.png); everything else\n"
           "becomes a Vangers world (world.ini, output.vmc, harmony.pal, output.vpr).\n\n"
           "options:\n");
    cli_options_usage(opts, count);
    printf(           "Elevations keep their true scale: one height step is one texel's width in metres (divided by\n"
           "--exaggerate); when the relief needs more than 256 steps the error says the largest --exaggerate\n"
           "that fits. Step 0 is the lowest elevation; material 0 (water) marks elevations <= 0 and the\n"
           "flood level is the sea-level step.\n");
}

static bool is_dir(const char *p) {
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}
static bool exists_in(const char *dir, const char *name) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat sb;
    return stat(p, &sb) == 0;
}
static bool has_suffix(const char *s, const char *suf) {
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcasecmp(s + n - m, suf);
}

static int save_world(const st_level *level, const char *out, bool vmp, bool identity) {
    st_error err = {0};
    st_world_save_desc d = {.vmp = vmp, .identity = identity};
    st_vmc_encode_info info;
    if (st_world_save_ex(level, out, &d, &info, &err)) return cli_fail(cmd, &err);
    if (vmp)
        printf("wrote %s: %ux%u world, output.vmp %llu bytes\n", out, level->width, level->height,
               2ull * level->width * level->height);
    else
        printf("wrote %s: %ux%u world, output.vmc %llu bytes = %.3f of the identity code's %llu "
               "(%s; longest codes %u/%u bits, %u/%u symbols in use)\n",
               out, level->width, level->height, (unsigned long long)info.bytes,
               (double)info.bytes / (double)info.identity_bytes, (unsigned long long)info.identity_bytes,
               identity ? "identity code" : "Huffman codes", info.max_len_height, info.max_len_meta,
               info.symbols_height, info.symbols_meta);
    return CLI_EXIT_OK;
}

/* Reads the elevation model(s), quantises them into a level and says what was done. */
static int convert_dem(char **in, size_t count, const st_dem_open_desc *od, const st_heightmap_level_desc *ld,
                       st_level **level) {
    st_error err = {0};
    st_dem_source *src = NULL;
    if (st_dem_open((const char *const *)in, count, od, &src, &err)) return cli_fail(cmd, &err);
    const st_dem_info *di = st_dem_source_info(src);
    if (!ld->stretch && !ld->keep_steps && !(di->spacing_x_m > 0)) {
        st_dem_source_destroy(src);
        return cli_usage_error(cmd, "%s carries no horizontal spacing, so its true scale is unknown: give --spacing M "
                                    "(metres between samples) or --exaggerate fit", in[0]);
    }
    st_heightmap *hm = NULL;
    st_result r = st_dem_read_heightmap(src, &hm, &err);
    char desc[256];
    snprintf(desc, sizeof desc, "%s", di->description);
    bool geo = di->georeferenced;
    char crs[128];
    snprintf(crs, sizeof crs, "%s", di->crs);
    st_dem_source_destroy(src);
    if (r) return cli_fail(cmd, &err);
    st_heightmap_level_info info;
    if (st_heightmap_to_level(hm, ld, level, &info, &err)) {
        st_heightmap_destroy(hm);
        return cli_fail(cmd, &err);
    }
    double vs = hm->vertical_scale;
    printf("read %s\n  %ux%u samples, %.6g..%.6g m", desc, hm->width, hm->height, hm->min * vs, hm->max * vs);
    if (hm->metres_per_sample > 0) {
        double sy = hm->metres_per_sample_y > 0 ? hm->metres_per_sample_y : hm->metres_per_sample;
        printf(", %.6g x %.6g m apart", hm->metres_per_sample, sy);
    }
    printf("%s%s\n", geo && crs[0] ? "; CRS " : "", geo ? crs : "");
    if (od->spacing_m > 0 && fabs(hm->metres_per_sample - od->spacing_m) > 1e-9 * od->spacing_m)
        printf("  --spacing %g is not used: the file says how far apart its samples are\n", od->spacing_m);
    if (hm->voids_filled)
        printf("  %llu void samples filled from their neighbours (%llu with no valid sample within %d set to the "
               "sea level)\n", (unsigned long long)hm->voids_filled, (unsigned long long)hm->voids_sea_level,
               ST_DEM_VOID_RADIUS);
    if (info.resampled)
        printf("  resampled (bilinear) %ux%u -> %ux%u\n", hm->width, hm->height, (*level)->width, (*level)->height);
    else if (info.src_width != hm->width || info.src_height != hm->height)
        printf("  cropped to %ux%u at (%u,%u) of %ux%u (powers of two; --fit resample keeps the whole extent)\n",
               info.src_width, info.src_height, info.x0, info.y0, hm->width, hm->height);
    if (ld->keep_steps)
        printf("  heights kept as they are (--heights as-is): sample s is height step s\n");
    else if (ld->stretch && info.texel_metres > 0)
        printf("  vertical scale: stretched over 256 steps (--exaggerate fit): %.4gx the true scale\n",
               info.exaggeration);
    else if (ld->stretch)
        printf("  vertical scale: stretched over 256 steps (--exaggerate fit)\n");
    else if (ld->exaggerate > 0 && ld->exaggerate != 1)
        printf("  vertical scale: exaggerated %.4gx (1 height step = %.4g m, 1 texel = %.4g m)\n", info.exaggeration,
               info.step_metres, info.texel_metres);
    else
        printf("  vertical scale: true (1 height step = 1 texel = %.4g m)\n", info.texel_metres);
    if (info.texel_metres > 0 && fabs(info.texel_metres_y / info.texel_metres - 1) > 0.01)
        printf("  texels are %.4g x %.4g m: the level is stretched %.3gx north-south\n", info.texel_metres,
               info.texel_metres_y, info.texel_metres / info.texel_metres_y);
    printf("  quantised: height step = %.4g m, step 0 = %.6g m, %u steps used, max error %.4g m; %llu water texels "
           "(<= 0 m), flood level %u\n",
           info.step_metres, info.base_metres, info.steps_used, info.max_error_metres,
           (unsigned long long)info.water_texels, (*level)->flood[0]);
    if ((*level)->wrap_x) printf("  wraps in x (a whole globe), not in y\n");
    else if (hm->wrap_x) printf("  wraps in neither axis: the crop keeps part of the globe's width (--fit resample keeps all)\n");
    else printf("  wraps in neither axis: past the model's edge there is nothing (--wrap-x for a whole globe)\n");
    st_heightmap_destroy(hm);
    return CLI_EXIT_OK;
}

static bool parse_to(const char *value, void *target) {
    if (strcmp(value, "world") && strcmp(value, "pngs")) return false;
    *(const char **)target = value;
    return true;
}

static bool parse_fit(const char *value, void *target) {
    st_fit *fit = target;
    if (!strcmp(value, "auto")) *fit = ST_FIT_AUTO;
    else if (!strcmp(value, "crop")) *fit = ST_FIT_CROP;
    else if (!strcmp(value, "resample")) *fit = ST_FIT_RESAMPLE;
    else return false;
    return true;
}

/* --size: powers of two (the texel bound is checked after, with its own message). */
static bool parse_level_size(const char *value, void *target) {
    st_heightmap_level_desc *ld = target;
    uint32_t w, h;
    if (!cli_parse_size(value, &w, &h) || !st_is_pow2(w) || !st_is_pow2(h)) return false;
    ld->width = w;
    ld->height = h;
    return true;
}

static bool parse_units(const char *value, void *target) {
    float f;
    if (!cli_parse_float(value, 1e-6f, 1e6f, &f)) return false;
    *(double *)target = f;
    return true;
}

static bool parse_spacing(const char *value, void *target) {
    float f;
    if (!cli_parse_float(value, 1e-6f, 1e7f, &f)) return false;
    *(double *)target = f;
    return true;
}

static bool parse_exaggerate(const char *value, void *target) {
    st_heightmap_level_desc *ld = target;
    float f;
    if (!strcmp(value, "fit")) ld->stretch = true;
    else if (cli_parse_float(value, 1e-6f, 1e6f, &f)) ld->exaggerate = f;
    else return false;
    return true;
}

static bool parse_heights(const char *value, void *target) {
    if (strcmp(value, "as-is") && strcmp(value, "scaled")) return false;
    *(bool *)target = !strcmp(value, "as-is");
    return true;
}

static bool parse_rgb(const char *value, void *target) {
    st_dem_rgb *rgb = target;
    if (!strcmp(value, "terrarium")) *rgb = ST_DEM_RGB_TERRARIUM;
    else if (!strcmp(value, "mapbox")) *rgb = ST_DEM_RGB_MAPBOX;
    else return false;
    return true;
}

int cmd_convert(int argc, char **argv) {
    const char *to = NULL;
    bool vmp = false, identity = false;
    st_dem_open_desc od = {0};
    st_heightmap_level_desc ld = {0};
    const char *out_opt = NULL;
    bool help = false;
    const cli_opt opts[] = {
        {.name = "to", .kind = CLI_OPT_PARSE, .target = &to, .parse = parse_to, .arg = "world|pngs",
         .bad = "--to must be world or pngs, not '%s'", .help = "choose the output kind"},
        {.name = "vmp", .kind = CLI_OPT_FLAG, .target = &vmp, .help = "write the uncompressed .vmp instead of .vmc"},
        {.name = "identity", .kind = CLI_OPT_FLAG, .target = &identity,
         .help = "write the .vmc with the identity code instead of Huffman codes"},
        {.name = "fit", .kind = CLI_OPT_PARSE, .target = &ld.fit, .parse = parse_fit, .arg = "auto|crop|resample",
         .bad = "--fit must be auto, crop or resample, not '%s'",
         .help = "elevation models: crop a centred power-of-two window (exact samples),\n"
                 "or resample bilinearly to powers of two (keeps the whole extent); auto (the\n"
                 "default) crops when the true scale fits, else resamples coarser until it does"},
        {.name = "size", .kind = CLI_OPT_PARSE, .target = &ld, .parse = parse_level_size, .arg = "WxH",
         .bad = "bad --size '%s' (powers of two, like 1024x512)",
         .help = "elevation models: the level size (powers of two, at most 2^27 texels in all)"},
        {.name = "units", .kind = CLI_OPT_PARSE, .target = &od.units_m, .parse = parse_units, .arg = "M",
         .bad = "bad --units '%s'",
         .help = "metres per sample unit where the format has none (default 1; Puget Sound 0.1)"},
        {.name = "spacing", .kind = CLI_OPT_PARSE, .target = &od.spacing_m, .parse = parse_spacing, .arg = "M",
         .bad = "bad --spacing '%s' (metres, 1e-6..1e7)",
         .help = "metres between samples where the format has none (Puget Sound 160)"},
        {.name = "exaggerate", .kind = CLI_OPT_PARSE, .target = &ld, .parse = parse_exaggerate, .arg = "E|fit",
         .bad = "bad --exaggerate '%s' (a factor in 1e-6..1e6, or fit)",
         .help = "vertical exaggeration (default 1, the true scale); fit stretches the relief\n"
                 "over the 256 height steps whatever the spacing"},
        {.name = "heights", .kind = CLI_OPT_PARSE, .target = &ld.keep_steps, .parse = parse_heights,
         .arg = "scaled|as-is", .bad = "--heights must be scaled or as-is, not '%s'",
         .help = "scaled (the default: the true scale above) or as-is: each sample, 0..255, is its\n"
                 "height step unchanged (an 8-bit Comanche-style height map kept 1:1; no --spacing)"},
        CLI_OPT_RAW(&od),
        CLI_OPT_RAW_TYPE(&od, NULL),
        CLI_OPT_ENDIAN(&od),
        {.name = "wrap-x", .kind = CLI_OPT_FLAG, .target = &od.wrap_x,
         .help = "the raster is a whole globe east-west (ETOPO): the world wraps in x. A raw grid\n"
                 "or a PNG carries no georeferencing to say so; a geographic GDAL raster spanning\n"
                 "360 degrees is found to wrap without it. Other elevation models, and a crop of\n"
                 "part of a globe's width, wrap in neither axis: past their edge there is nothing"},
        {.name = "rgb", .kind = CLI_OPT_PARSE, .target = &od.rgb, .parse = parse_rgb, .arg = "terrarium|mapbox",
         .bad = "--rgb must be terrarium or mapbox, not '%s'", .help = "IN is a z/x/y tile folder of that encoding"},
        {.name = "zoom", .kind = CLI_OPT_UINT, .target = &od.zoom, .min = 1, .max = 30, .arg = "Z",
         .bad = "bad --zoom '%s' (1..30)", .help = "the zoom of that folder to read (default: the deepest present)"},
        CLI_OPT_OUT(&out_opt, "OUT", "the output directory (or give it as the last argument)"),
    };
    int first = argc;
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), SIZE_MAX, &first, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    /* the texel bound of --size, with its own message */
    if ((uint64_t)ld.width * ld.height > ST_HEIGHTMAP_MAX_SAMPLES)
        return cli_usage_error(cmd, "--size %ux%u is past the limit of 2^27 texels for an elevation model's level (like "
                                    "16384x8192)", ld.width, ld.height);
    int optind_ = first;
    if (argc - optind_ < (out_opt ? 1 : 2)) return cli_usage_error(cmd, "expected IN and OUT (or IN -o OUT)");
    char **ins = argv + optind_;
    size_t n_in = (size_t)(argc - optind_ - (out_opt ? 0 : 1));
    const char *in = ins[0], *out = out_opt ? out_opt : argv[argc - 1];
    st_error err = {0};
    st_level *level = NULL;
    bool is_world = false;
    double t0 = st_time_ms();

    bool world_in = !strcmp(in, "default") || has_suffix(in, ".ini") || (is_dir(in) && exists_in(in, "world.ini"));
    bool pngs_in = !world_in && !od.rgb && is_dir(in) && exists_in(in, "height.png");
    if ((world_in || pngs_in) && n_in > 1)
        return cli_usage_error(cmd, "only SRTM .hgt tiles can be joined; a world is converted alone");
    if ((world_in || pngs_in) && od.wrap_x)
        return cli_usage_error(cmd, "--wrap-x is for elevation models; a world keeps its own wrap flags");
    if (world_in) {
        if (st_world_load(in, &level, &err)) return cli_fail(cmd, &err);
        is_world = true;
    } else if (pngs_in) {
        if (st_level_read_pngs(in, &level, &err)) return cli_fail(cmd, &err);
    } else {
        int status = convert_dem(ins, n_in, &od, &ld, &level);
        if (status != CLI_EXIT_OK) return status;
    }
    bool pngs = to ? !strcmp(to, "pngs") : is_world;
    int status;
    if (pngs) {
        if (st_level_write_pngs(level, out, &err)) status = cli_fail(cmd, &err);
        else {
            printf("wrote %s: height.png, meta.png, preview.png (%ux%u)\n", out, level->width, level->height);
            status = CLI_EXIT_OK;
        }
    } else {
        status = save_world(level, out, vmp, identity);
    }
    if (status == CLI_EXIT_OK) printf("done in %.0f ms\n", st_time_ms() - t0);
    st_level_destroy(level);
    return status;
}
