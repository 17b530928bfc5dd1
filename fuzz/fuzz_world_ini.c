/* libFuzzer target: the world.ini parser, and the writer's output re-parsed to the same fields. */
#include <stdlib.h>
#include <string.h>

#include "strata/vangers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    st_world_ini ini, back;
    st_error err = {0};
    if (st_world_ini_parse((const char *)data, size, "fuzz.ini", &ini, &err) != ST_OK) return 0;
    char *text = NULL;
    size_t n = 0;
    if (st_world_ini_format(&ini, &text, &n, &err) != ST_OK) return 0;
    if (st_world_ini_parse(text, n, "fuzz.ini", &back, &err) != ST_OK) __builtin_trap();
    if (back.map_power_x != ini.map_power_x || back.map_power_y != ini.map_power_y ||
        back.compressed != ini.compressed || back.terrain_max != ini.terrain_max ||
        memcmp(back.begin_color, ini.begin_color, ini.terrain_max) != 0)
        __builtin_trap();
    free(text);
    return 0;
}
