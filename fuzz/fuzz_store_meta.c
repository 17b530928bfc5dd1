/* libFuzzer target: a store's manifest (store.json) and level index. The first byte picks which; an accepted
 * manifest formats back to text that parses to the same description. */
#include <stdlib.h>
#include <string.h>

#include "tiles/tiles_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    st_error err = {0};
    if (data[0] & 1) {
        st_store_info info, back;
        if (st_manifest_parse((const char *)data + 1, size - 1, "fuzz.json", &info, &err) != ST_OK) return 0;
        char *text = NULL;
        if (st_manifest_format(&info, &text, &err) != ST_OK) __builtin_trap();
        if (st_manifest_parse(text, strlen(text), "again", &back, &err) != ST_OK) __builtin_trap();
        if (back.kind != info.kind || back.levels != info.levels || back.width != info.width ||
            back.tile_size != info.tile_size || back.encoding != info.encoding)
            __builtin_trap();
        free(text);
    } else if (size >= 3) {
        /* an index of up to 16x16 tiles, its geometry from the next two bytes */
        uint32_t nx = 1u + data[1] % 16, ny = 1u + data[2] % 16;
        st_tile_meta rec[256];
        st_index_decode(data + 3, size - 3, "fuzz.idx", 0, nx, ny, rec, &err);
    }
    return 0;
}
