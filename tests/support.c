/* Shared test helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

st_level *test_flat_level(uint32_t w, uint32_t h, uint8_t floor) {
    st_level *l = NULL;
    st_error err = {0};
    if (st_level_create(w, h, &l, &err) != ST_OK) fail_msg("level: %s", err.message);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) st_level_set_single(l, (int)x, (int)y, floor, 1);
    return l;
}

const char *test_temp_dir(const char *tag) {
    static char path[256];
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%s/strata-test-%s-XXXXXX", base, tag);
    if (!mkdtemp(path)) fail_msg("mkdtemp failed");
    return path;
}
