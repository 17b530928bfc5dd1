/* The water options every command that draws frames shares (render, view, bench ocean, compare's water row):
 * --water MODE, --wind SPEED[,DIR], --choppy L, --time T, --water-level Z, --water-draw D, --water-depth H, with one
 * set of limits and messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static bool parse_mode(const char *value, void *target) {
    cli_water *w = target;
    w->mode_given = true;
    return st_water_mode_parse(value, &w->desc.mode);
}

/* SPEED or SPEED,DIR: m/s at 10 m, the direction it blows toward in degrees like yaw */
static bool parse_wind(const char *value, void *target) {
    cli_water *w = target;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", value);
    char *comma = strchr(buf, ',');
    if (comma) *comma = 0;
    return strlen(value) < sizeof buf && cli_parse_float(buf, 0.1f, 60.0f, &w->desc.wind_speed) &&
           (!comma || cli_parse_float(comma + 1, -360.0f, 360.0f, &w->desc.wind_dir_deg));
}

static bool parse_choppy(const char *value, void *target) {
    cli_water *w = target;
    float v = 0;
    if (!cli_parse_float(value, 0.0f, 4.0f, &v)) return false;
    w->desc.choppiness = v > 0 ? v : -1.0f; /* 0 on the command line means none */
    return true;
}

static bool parse_level(const char *value, void *target) {
    cli_water *w = target;
    float z = 0;
    if (!cli_parse_float(value, -1000.0f, 1000.0f, &z)) return false;
    w->desc.level = z == 0 ? 1e-6f : z; /* 0 in the descriptor stands for the default level */
    return true;
}

static bool parse_draw(const char *value, void *target) {
    cli_water *w = target;
    return st_water_draw_parse(value, &w->desc.draw);
}

size_t cli_water_table(cli_water *w, cli_opt *out) {
    const cli_opt table[CLI_WATER_OPTION_COUNT] = {
        {.name = "water", .kind = CLI_OPT_PARSE, .target = w, .parse = parse_mode, .arg = "M",
         .bad = "unknown --water '%s' (none, gerstner or ocean)",
         .help = "none, gerstner (a few waves) or ocean (the FFT ocean); default ocean where the world has\n"
                 "water (material 0 at the flood level), else none"},
        {.name = "wind", .kind = CLI_OPT_PARSE, .target = w, .parse = parse_wind, .arg = "S[,D]",
         .bad = "bad --wind '%s' (SPEED[,DIR]: 0.1..60 m/s, direction -360..360)",
         .help = "wind speed in m/s (0.1..60, default 5) and the direction it blows toward (like yaw)"},
        {.name = "choppy", .kind = CLI_OPT_PARSE, .target = w, .parse = parse_choppy, .arg = "L",
         .bad = "bad --choppy '%s' (0..4)", .help = "sideways displacement of the waves, 0..4 (default 1; 0 = round crests)"},
        {.name = "time", .kind = CLI_OPT_DOUBLE, .target = &w->time, .given = &w->time_given, .min = 0, .max = 1e6,
         .arg = "T", .bad = "bad --time '%s' (0..1e6 s)",
         .help = "the waves' time in seconds (default 0), for reproducible frames"},
        {.name = "water-level", .kind = CLI_OPT_PARSE, .target = w, .parse = parse_level, .arg = "Z",
         .bad = "bad --water-level '%s' (-1000..1000 height units)",
         .help = "the mean surface height (default: the flood level + 0.5)"},
        {.name = "water-draw", .kind = CLI_OPT_PARSE, .target = w, .parse = parse_draw, .arg = "D",
         .bad = "unknown --water-draw '%s' (compute or raster)",
         .help = "how the surface is drawn: compute (the default: rasterised and shaded in compute) or raster\n"
                 "(the hardware rasteriser, vertex and fragment shaders)"},
        {.name = "water-depth", .kind = CLI_OPT_FLOAT, .target = &w->desc.depth_m, .min = 0, .max = 1e5, .arg = "H",
         .bad = "bad --water-depth '%s' (0..100000 m)",
         .help = "metres of water in the dispersion relation ω² = g·k·tanh(k·h) (default 0: deep water)"},
    };
    memcpy(out, table, sizeof table);
    return CLI_WATER_OPTION_COUNT;
}

bool cli_water_option(cli_water *w, const char *cmd, int c, const char *arg, int *status) {
    if (c < CLI_OPT_WATER || c > CLI_OPT_WATER_DEPTH) return false;
    cli_opt table[CLI_WATER_OPTION_COUNT]; /* in the order of the codes */
    cli_water_table(w, table);
    *status = cli_option_take(cmd, &table[c - CLI_OPT_WATER], arg);
    return true;
}

void cli_water_resolve(cli_water *w, const st_level *level, st_water_mode otherwise) {
    if (!w->mode_given) w->desc.mode = st_water_world_has_water(level) ? ST_WATER_OCEAN : otherwise;
}

void cli_water_resolve_paged(cli_water *w, st_store *store, st_water_mode otherwise) {
    if (w->mode_given) return;
    /* no texel is read: the index's lowest height of each tile against the most common flood level (a generated
     * world's index knows no bounds before its tiles are made: no water unless asked for) */
    const st_store_info *in = st_store_get_info(store);
    uint32_t count[256] = {0}, best = 0;
    for (uint32_t s = 0; s < in->flood_sections; s++) count[in->flood[s]]++;
    for (uint32_t v = 1; v < 256; v++)
        if (count[v] > count[best]) best = v;
    float z = (float)best + 0.5f;
    uint32_t nx, ny;
    st_store_level_tiles(store, 0, &nx, &ny);
    bool wet = false;
    for (uint32_t y = 0; y < ny && !wet && !in->generated; y++)
        for (uint32_t x = 0; x < nx && !wet; x++) {
            st_tile_meta m;
            wet = st_store_tile_meta(store, (st_tile_key){0, x, y}, &m) && m.min_m <= z;
        }
    w->desc.mode = wet ? ST_WATER_OCEAN : otherwise;
}
