/* strata info: a world's size, dual share, material histogram, height range and identity (the CRC-32 that
 * results.json records), as text or JSON; or a tile store's description. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "strata/reference.h"
#include "strata/tiles.h"

static const char *cmd = "info";

static const char *material_names[16] = {"water", "sand/soil", "grass/moss", "rock", "red clay", "basalt",
                                         "chalk/salt", "rust/metal"};

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata info [--world W | W | STORE] [--json] [--preview out.png [--level L]]\n\n"
           "W is 'default' (the embedded procedural world, the default), a directory holding world.ini,\n"
           "or a world.ini file (given as the one argument or as --world W). Prints the size, where it wraps,\n"
           "the share of dual (two-layer) texels, the texels per visible material, the height range and the\n"
           "world's identity: the CRC-32 (zlib) of the height plane followed by the metadata plane, in hex, the\n"
           "value results.json gives as level.crc32.\n"
           "STORE is a tile store (a folder with store.json, an http:// URL of one, gen:SEED:WxH for the procedural\n"
           "DEM or gen:multi:SEED:WxH[:DUAL] for the procedural multi-layer world, both made on demand): prints\n"
           "its size, spacing, levels, tiles, bytes, height range, encoding and source.\n\n"
           "options:\n");
    cli_options_usage(opts, count);
}

/* --region X,Y,W,H: four whole numbers, W and H 1..8192. */
static bool parse_region(const char *value, void *target) {
    unsigned long long v[4];
    int used = 0;
    if (sscanf(value, "%llu,%llu,%llu,%llu%n", &v[0], &v[1], &v[2], &v[3], &used) != 4 || value[used] ||
        strchr(value, '-') || !v[2] || !v[3] || v[2] > 8192 || v[3] > 8192)
        return false;
    uint64_t *region = target;
    for (int k = 0; k < 4; k++) region[k] = v[k];
    return true;
}

int cmd_info(int argc, char **argv) {
    bool json = false, have_region = false, help = false;
    const char *preview = NULL, *world = NULL;
    uint32_t preview_level_arg = 0;
    bool have_level = false;
    uint64_t region[4];
    const cli_opt opts[] = {
        {.name = "world", .kind = CLI_OPT_STRING, .target = &world, .arg = "W",
         .help = "the world (or give it as the one argument)"},
        {.name = "json", .kind = CLI_OPT_FLAG, .target = &json, .help = "one JSON object on stdout instead of text"},
        {.name = "preview", .kind = CLI_OPT_STRING, .target = &preview, .arg = "F",
         .help = "stores: a hillshaded top-down PNG of one level (default: the coarsest that fits\n"
                 "2048 pixels; --level L picks one; --region X,Y,W,H a part of it, in its samples)"},
        {.name = "level", .kind = CLI_OPT_UINT, .target = &preview_level_arg, .given = &have_level, .min = 0,
         .max = ST_STORE_MAX_LEVELS - 1, .bad = "bad --level '%s'"},
        {.name = "region", .kind = CLI_OPT_PARSE, .target = region, .given = &have_region, .parse = parse_region,
         .bad = "bad --region '%s' (X,Y,W,H; W and H 1..8192)"},
    };
    int first = argc;
    int parsed = cli_options_parse(cmd, argc, argv, opts, CLI_OPTS_COUNT(opts), SIZE_MAX, &first, &help);
    if (parsed || help) {
        if (help) usage(opts, CLI_OPTS_COUNT(opts));
        return parsed;
    }
    int preview_level = have_level ? (int)preview_level_arg : -1;
    int nargs = argc - first;
    if (nargs > 1) return cli_usage_error(cmd, "expected at most one WORLD");
    if (world && nargs) return cli_usage_error(cmd, "give the world once (--world W or W)");
    const char *path = world ? world : nargs ? argv[first] : "default";
    if (cli_is_store(path) || cli_is_layer_store(path) || !strncmp(path, "gen:multi:", 10)) { /* a generated world: described, never made */
        /* the picture's path is judged before the store is read: PNG bytes go only into a .png that can be made */
        int status = preview ? cli_check_output_file(cmd, preview) : CLI_EXIT_OK;
        if (status) return status;
        if (preview && !cli_has_suffix(preview, ".png"))
            return cli_usage_error(cmd, "--preview '%s': the picture is written as PNG, so its name must end in .png",
                                   preview);
        return cli_info_store(cmd, path, json, preview, preview_level, have_region ? region : NULL);
    }
    if (preview || have_region || preview_level >= 0) return cli_usage_error(cmd, "--preview is for tile stores");
    st_error err = {0};
    st_level *level = NULL;
    if (cli_load_world(path, &level, &err)) return cli_fail(cmd, &err);
    st_level_stats s = st_level_compute_stats(level);
    size_t n = (size_t)level->width * level->height;
    char crc[16]; /* the identity results.json records */
    snprintf(crc, sizeof crc, "%08x", (unsigned)st_reference_level_crc32(level));
    uint32_t types = level->terrain_types == 16 ? 16 : 8;

    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "world", path);
        cJSON_AddStringToObject(o, "name", level->name);
        cJSON_AddNumberToObject(o, "width", level->width);
        cJSON_AddNumberToObject(o, "height", level->height);
        cJSON_AddNumberToObject(o, "terrain_types", types);
        cJSON_AddBoolToObject(o, "wrap_x", level->wrap_x);
        cJSON_AddBoolToObject(o, "wrap_y", level->wrap_y);
        cJSON_AddNumberToObject(o, "dual_fraction", s.dual_fraction);
        cJSON_AddNumberToObject(o, "min_height", s.min_height);
        cJSON_AddNumberToObject(o, "max_height", s.max_height);
        cJSON *hist = cJSON_AddArrayToObject(o, "material_texels");
        for (uint32_t t = 0; t < types; t++) cJSON_AddItemToArray(hist, cJSON_CreateNumber((double)s.type_histogram[t]));
        cJSON_AddStringToObject(o, "crc32", crc); /* heights then meta, as results.json's level.crc32 */
        char *text = cJSON_Print(o);
        cJSON_Delete(o);
        if (!text) {
            st_level_destroy(level);
            err.code = ST_ERR_NOMEM;
            snprintf(err.message, sizeof err.message, "cannot format the JSON");
            return cli_fail(cmd, &err);
        }
        printf("%s\n", text);
        free(text);
    } else {
        printf("world      %s (%s)\n", path, level->name);
        printf("size       %u x %u texels, %u material types\n", level->width, level->height, types);
        printf("wraps      %s\n", level->wrap_x && level->wrap_y ? "in x and y"
                                  : level->wrap_x               ? "in x only (nothing past the y edges)"
                                  : level->wrap_y               ? "in y only (nothing past the x edges)"
                                                                : "in neither axis (nothing past its edges)");
        printf("dual       %.3f%% of texels\n", s.dual_fraction * 100.0);
        printf("heights    %u..%u\n", s.min_height, s.max_height);
        printf("materials  (visible top layer)\n");
        for (uint32_t t = 0; t < types; t++) {
            if (!s.type_histogram[t] && t >= 8) continue;
            printf("  %2u %-11s %12llu  %6.2f%%\n", t, t < 8 && types == 8 ? material_names[t] : "",
                   (unsigned long long)s.type_histogram[t], 100.0 * (double)s.type_histogram[t] / (double)n);
        }
        printf("crc32      %s (height plane then metadata plane; results.json: level.crc32)\n", crc);
    }
    st_level_destroy(level);
    return CLI_EXIT_OK;
}
