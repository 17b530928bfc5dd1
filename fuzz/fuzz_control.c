/* libFuzzer target: the control map file (WORLD/control.ctl). An accepted map encodes and decodes again to the
 * same size and texels: what is accepted is exactly what the format describes. */
#include <stdlib.h>
#include <string.h>

#include "strata/materials.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    st_control_map *m = NULL, *back = NULL;
    st_error err = {0};
    if (st_control_map_decode(data, size, "control.ctl", &m, &err) != ST_OK) {
        if (m) __builtin_trap();
        return 0;
    }
    uint8_t *again = NULL;
    size_t n = 0;
    if (st_control_map_encode(m, &again, &n, &err) != ST_OK) __builtin_trap();
    if (st_control_map_decode(again, n, "again", &back, &err) != ST_OK) __builtin_trap();
    if (back->width != m->width || back->height != m->height ||
        memcmp(back->texels, m->texels, (size_t)m->width * m->height * 4))
        __builtin_trap();
    free(again);
    st_control_map_destroy(back);
    st_control_map_destroy(m);
    return 0;
}
