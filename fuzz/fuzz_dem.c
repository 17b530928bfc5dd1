/* libFuzzer target: the raw (s16, u16, f32: NaN and absurd floats filled as voids by the DEM readers' rule)
 * and SRTM .hgt readers, then quantisation into a level (crop, resample or auto; stretched or at the true
 * scale). The first byte picks the reader, byte order, sample type and fit; raw sizes come from the next two
 * bytes. */
#include <stdlib.h>

#include "fuzz_common.h"
#include "strata/heightmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t mode = data[0];
    data++;
    size--;
    st_heightmap *hm = NULL;
    st_error err = {0};
    if (mode & 1) {
        st_heightmap_decode_hgt(data, size, "N47W122.hgt", &hm, &err);
    } else {
        uint32_t w, h;
        if (!fuzz_take_size(&data, &size, &w, &h)) return 0;
        st_dem_raw_type type = (st_dem_raw_type)((mode >> 3) % 3);
        st_heightmap_decode_raw(data, size, w, h, type, (mode & 2) ? ST_ENDIAN_BIG : ST_ENDIAN_LITTLE, "fuzz.raw",
                                &hm, &err);
    }
    if (hm) {
        /* bits 2 and 6: the fit; bit 5: stretched, else the true scale at a spacing from bit 7 */
        st_fit fit = (mode & 4) ? ST_FIT_RESAMPLE : (mode & 64) ? ST_FIT_AUTO : ST_FIT_CROP;
        st_heightmap_level_desc d = {.fit = fit, .stretch = (mode & 32) != 0, .spacing_m = (mode & 128) ? 0.5 : 30};
        st_level *level = NULL;
        st_heightmap_level_info info;
        if (st_heightmap_to_level(hm, &d, &level, &info, &err) == ST_OK) st_level_destroy(level);
        st_heightmap_destroy(hm);
    }
    return 0;
}
