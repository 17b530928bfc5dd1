/* The water options every command that draws frames shares (render, view, bench ocean, compare's water row):
 * --water MODE, --wind SPEED[,DIR], --choppy L, --time T, --water-level Z, with one set of limits and messages. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

bool cli_water_option(cli_water *w, const char *cmd, int c, const char *arg, int *status) {
    int st = CLI_EXIT_OK;
    switch (c) {
    case CLI_OPT_WATER:
        if (!st_water_mode_parse(arg, &w->desc.mode))
            st = cli_usage_error(cmd, "unknown --water '%s' (none, gerstner or ocean)", arg);
        w->mode_given = true;
        break;
    case CLI_OPT_WIND: {
        /* SPEED or SPEED,DIR: m/s at 10 m, the direction it blows toward in degrees like yaw */
        char buf[64];
        snprintf(buf, sizeof buf, "%s", arg);
        char *comma = strchr(buf, ',');
        if (comma) *comma = 0;
        if (strlen(arg) >= sizeof buf || !cli_parse_float(buf, 0.1f, 60.0f, &w->desc.wind_speed) ||
            (comma && !cli_parse_float(comma + 1, -360.0f, 360.0f, &w->desc.wind_dir_deg)))
            st = cli_usage_error(cmd, "bad --wind '%s' (SPEED[,DIR]: 0.1..60 m/s, direction -360..360)", arg);
        break;
    }
    case CLI_OPT_CHOPPY: {
        float v = 0;
        if (!cli_parse_float(arg, 0.0f, 4.0f, &v)) st = cli_usage_error(cmd, "bad --choppy '%s' (0..4)", arg);
        w->desc.choppiness = v > 0 ? v : -1.0f; /* 0 on the command line means none */
        break;
    }
    case CLI_OPT_TIME:
        if (!cli_parse_double(arg, 0.0, 1e6, &w->time)) st = cli_usage_error(cmd, "bad --time '%s' (0..1e6 s)", arg);
        w->time_given = true;
        break;
    case CLI_OPT_WATER_LEVEL: {
        float z = 0;
        if (!cli_parse_float(arg, -1000.0f, 1000.0f, &z))
            st = cli_usage_error(cmd, "bad --water-level '%s' (-1000..1000 height units)", arg);
        w->desc.level = z == 0 ? 1e-6f : z; /* 0 in the descriptor stands for the default level */
        break;
    }
    default: return false;
    }
    *status = st;
    return true;
}

void cli_water_resolve(cli_water *w, const st_level *level, st_water_mode otherwise) {
    if (!w->mode_given) w->desc.mode = st_water_world_has_water(level) ? ST_WATER_OCEAN : otherwise;
}
