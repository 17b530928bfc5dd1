/* libFuzzer target: the whole-world loader from memory (world.ini, then every file checked against it before
 * the level is allocated, the map's CRC-32, then the decoders). Input: a header of u16 ini length, u16 palette
 * length, u32 .vpr length (0xFFFFFFFF: no .vpr), all little-endian, then the ini, the palette, the .vpr and the
 * map (the rest). The sizes come from the ini's own Map Power X/Y (up to 16 each): nothing is clamped here. */
#include <stdlib.h>

#include "strata/vangers.h"

static uint32_t le(const uint8_t *p, int bytes) {
    uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int quiet;
    if (!quiet) st_log_set_level(ST_LOG_ERROR), quiet = 1; /* no warning per input for a missing checksum */
    if (size < 8) return 0;
    size_t ini = le(data, 2), pal = le(data + 2, 2);
    uint32_t vpr = le(data + 4, 4);
    data += 8;
    size -= 8;
    if (ini > size) return 0;
    st_world_files f = {.ini = data, .ini_size = ini, .ini_name = "world.ini", .map_name = "map",
                        .pal_name = "palette", .vpr_name = "vpr"};
    data += ini, size -= ini;
    if (pal > size) return 0;
    f.pal = data, f.pal_size = pal;
    data += pal, size -= pal;
    if (vpr != 0xFFFFFFFFu) {
        if (vpr > size) return 0;
        f.vpr = data, f.vpr_size = vpr;
        data += vpr, size -= vpr;
    }
    f.map = data, f.map_size = size;
    st_level *level = NULL;
    st_error err = {0};
    if (st_world_decode(&f, &level, &err) == ST_OK) st_level_destroy(level);
    return 0;
}
