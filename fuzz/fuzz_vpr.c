/* libFuzzer target: the .vpr size check and flood levels; the third byte picks the GeoNet and section
 * powers. */
#include <stdlib.h>

#include "fuzz_common.h"
#include "strata/vangers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint32_t w, h;
    if (!fuzz_take_size(&data, &size, &w, &h) || size < 1) return 0;
    uint32_t geonet = data[0] & 7u, section = (data[0] >> 3) & 7u;
    data++;
    size--;
    uint8_t flood[128] = {0};
    if ((h >> section) > sizeof flood) return 0;
    st_error err = {0};
    st_vpr_decode(data, size, w, h, geonet, section, flood, "fuzz.vpr", &err);
    return 0;
}
