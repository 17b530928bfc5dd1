/* strata convert IN OUT: Vangers world ⇄ PNG set, and elevation models (PNG, SRTM .hgt, raw int16) into
 * single-layer strata worlds. Every output file is written atomically. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "strata/heightmap.h"
#include "strata/vangers.h"
#include "strata/world.h"

static const char *cmd = "convert";

static int usage(void) {
    printf("usage: strata convert IN OUT [OPTIONS]\n\n"
           "IN is one of:\n"
           "  default             the embedded procedural world\n"
           "  DIR or DIR/world.ini  a Vangers world: world.ini ([Storage] Version 1.4; Map Power X/Y; Section Size\n"
           "                      Power; GeoNet Power; Compressed Format Using 1 → <File Name>.vmc, 0 → .vmp;\n"
           "                      Palette File, 768-byte 6-bit .pal; optional <File Name>.vpr of the exact size\n"
           "                      for its GeoNet/section powers, else flood levels 0; Terrain Max 8|16; Begin/End\n"
           "                      Colors)\n"
           "  DIR with height.png   a PNG set: height.png + meta.png, 8-bit grey, equal power-of-two sizes\n"
           "  FILE.png            a greyscale elevation model, 8- or 16-bit (alpha ignored, colour refused)\n"
           "  FILE.hgt            an SRTM tile: big-endian int16, 1201x1201 or 3601x3601, voids (-32768) filled\n"
           "  FILE --raw WxH      raw int16 samples, no header, exactly 2*W*H bytes (--endian le|be, default le)\n\n"
           "OUT is a directory. Worlds become a PNG set (height.png, meta.png, preview.png); everything else\n"
           "becomes a Vangers world (world.ini, output.vmc, harmony.pal, output.vpr).\n\n"
           "options:\n"
           "  --to world|pngs     choose the output kind\n"
           "  --vmp               write the uncompressed .vmp instead of .vmc\n"
           "  --identity          write the .vmc with the identity code instead of Huffman codes\n"
           "  --fit crop|resample elevation models: crop a centred power-of-two window (default; exact samples)\n"
           "                      or resample bilinearly to the nearest powers of two (keeps the whole extent)\n"
           "  --size WxH          elevation models: the level size (powers of two)\n"
           "  --units M           elevation models: metres per sample unit (default 1; e.g. 0.1 for Puget Sound)\n"
           "  --raw WxH, --endian le|be   raw int16 input\n"
           "Elevations are quantised to heights 0..255 spanning the window's min..max; the step, the base and\n"
           "the largest quantisation error are reported. Material 0 (water) marks elevations <= 0.\n");
    return CLI_EXIT_OK;
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

int cmd_convert(int argc, char **argv) {
    const char *to = NULL;
    bool vmp = false, identity = false;
    st_heightmap_read_desc rd = {0};
    st_heightmap_level_desc ld = {0};
    float units = 1.0f;
    static const struct option opts[] = {
        {"to", required_argument, 0, 't'},   {"vmp", no_argument, 0, 'v'},        {"identity", no_argument, 0, 'i'},
        {"fit", required_argument, 0, 'f'},  {"size", required_argument, 0, 's'}, {"units", required_argument, 0, 'u'},
        {"raw", required_argument, 0, 'r'},  {"endian", required_argument, 0, 'e'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (strcmp(optarg, "world") && strcmp(optarg, "pngs"))
                return cli_usage_error(cmd, "--to must be world or pngs, not '%s'", optarg);
            to = optarg;
            break;
        case 'v': vmp = true; break;
        case 'i': identity = true; break;
        case 'f':
            if (!strcmp(optarg, "crop")) ld.fit = ST_FIT_CROP;
            else if (!strcmp(optarg, "resample")) ld.fit = ST_FIT_RESAMPLE;
            else return cli_usage_error(cmd, "--fit must be crop or resample, not '%s'", optarg);
            break;
        case 's':
            if (!cli_parse_size(optarg, &ld.width, &ld.height) || !st_is_pow2(ld.width) || !st_is_pow2(ld.height))
                return cli_usage_error(cmd, "bad --size '%s' (powers of two, like 1024x512)", optarg);
            break;
        case 'u':
            if (!cli_parse_float(optarg, 1e-6f, 1e6f, &units)) return cli_usage_error(cmd, "bad --units '%s'", optarg);
            break;
        case 'r':
            if (!cli_parse_size(optarg, &rd.raw_width, &rd.raw_height))
                return cli_usage_error(cmd, "bad --raw '%s' (like 1080x540)", optarg);
            break;
        case 'e':
            if (!strcmp(optarg, "le")) rd.endian = ST_ENDIAN_LITTLE;
            else if (!strcmp(optarg, "be")) rd.endian = ST_ENDIAN_BIG;
            else return cli_usage_error(cmd, "--endian must be le or be, not '%s'", optarg);
            break;
        case 'h': return usage();
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 2) return cli_usage_error(cmd, "expected IN and OUT");
    const char *in = argv[optind], *out = argv[optind + 1];
    st_error err = {0};
    st_level *level = NULL;
    bool is_world = false;
    double t0 = st_time_ms();

    if (!strcmp(in, "default") || has_suffix(in, ".ini") || (is_dir(in) && exists_in(in, "world.ini"))) {
        if (st_world_load(in, &level, &err)) return cli_fail(cmd, &err);
        is_world = true;
    } else if (is_dir(in) && exists_in(in, "height.png")) {
        if (st_level_read_pngs(in, &level, &err)) return cli_fail(cmd, &err);
    } else if (rd.raw_width || has_suffix(in, ".png") || has_suffix(in, ".hgt")) {
        st_heightmap *hm = NULL;
        if (st_heightmap_read(in, &rd, &hm, &err)) return cli_fail(cmd, &err);
        hm->vertical_scale = units;
        st_heightmap_level_info info;
        st_result r = st_heightmap_to_level(hm, &ld, &level, &info, &err);
        if (r) {
            st_heightmap_destroy(hm);
            return cli_fail(cmd, &err);
        }
        printf("read %s: %ux%u samples, %d..%d (x %.4g m)%s\n", in, hm->width, hm->height, hm->min, hm->max,
               hm->vertical_scale, hm->voids_filled ? ", voids filled" : "");
        if (hm->voids_filled) printf("  %llu void samples filled from their neighbours\n",
                                     (unsigned long long)hm->voids_filled);
        if (info.resampled)
            printf("  resampled (bilinear) %ux%u -> %ux%u\n", hm->width, hm->height, level->width, level->height);
        else if (info.src_width != hm->width || info.src_height != hm->height)
            printf("  cropped to %ux%u at (%u,%u) of %ux%u (powers of two; --fit resample keeps the whole extent)\n",
                   info.src_width, info.src_height, info.x0, info.y0, hm->width, hm->height);
        printf("  quantised: height step = %.4g m, step 0 = %.4g m, max error %.4g m; %llu water texels (<= 0 m), "
               "flood level %u\n",
               info.step_metres, info.base_metres, info.max_error_metres, (unsigned long long)info.water_texels,
               level->flood[0]);
        st_heightmap_destroy(hm);
    } else {
        return cli_usage_error(cmd, "cannot tell what '%s' is (see --help for what each reader accepts)", in);
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
