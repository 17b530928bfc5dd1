/* A dropped DEM PNG for the page: greyscale, 8 or 16 bits, decoded by stb_image (the web build has no libpng)
 * into an st_heightmap and made a level by the native quantisation (src/io/heightmap_level.c), stretched over
 * heights 0..255 since a bare PNG says nothing of its spacing. */
#include <stdlib.h>

#include "strata/heightmap.h"

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Weverything"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_NO_STDIO
#define STBI_NO_HDR
#define STBI_NO_LINEAR
#include "stb_image.h"
#pragma clang diagnostic pop

/* A greyscale DEM PNG (8 or 16 bits) as a single-layer level. */
st_result st_web_dem_png(const uint8_t *data, size_t size, st_level **out, st_error *err);

st_result st_web_dem_png(const uint8_t *data, size_t size, st_level **out, st_error *err) {
    int w = 0, h = 0, comp = 0;
    if (size > (size_t)INT32_MAX || !stbi_info_from_memory(data, (int)size, &w, &h, &comp))
        return st_error_set(err, ST_ERR_FORMAT, "not a world and not a PNG (drop world.ini with its .vmc and .pal, or "
                                                "a greyscale DEM PNG)");
    if (comp > 2) return st_error_set(err, ST_ERR_FORMAT, "a colour PNG: a DEM PNG is greyscale (8 or 16 bits)");
    if (w < 2 || h < 2 || (uint64_t)w * (uint64_t)h > ST_HEIGHTMAP_MAX_SAMPLES)
        return st_error_set(err, ST_ERR_INVALID, "a %dx%d PNG is too large for the browser", w, h);
    bool wide = stbi_is_16_bit_from_memory(data, (int)size);
    int got = 0;
    void *pixels = wide ? (void *)stbi_load_16_from_memory(data, (int)size, &w, &h, &got, 1)
                        : (void *)stbi_load_from_memory(data, (int)size, &w, &h, &got, 1);
    if (!pixels) return st_error_set(err, ST_ERR_FORMAT, "the PNG is corrupt: %s", stbi_failure_reason());
    st_heightmap hm = {.width = (uint32_t)w, .height = (uint32_t)h, .vertical_scale = 1.0};
    hm.samples = malloc(sizeof(int32_t) * (size_t)w * (size_t)h);
    if (!hm.samples) {
        stbi_image_free(pixels);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory (the PNG's samples)");
    }
    hm.min = INT32_MAX;
    hm.max = INT32_MIN;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++) {
        int32_t v = wide ? ((const uint16_t *)pixels)[i] : ((const uint8_t *)pixels)[i];
        hm.samples[i] = v;
        hm.min = v < hm.min ? v : hm.min;
        hm.max = v > hm.max ? v : hm.max;
    }
    stbi_image_free(pixels);
    st_heightmap_level_desc d = {.fit = ST_FIT_RESAMPLE, .stretch = true};
    st_heightmap_level_info info;
    st_result r = st_heightmap_to_level(&hm, &d, out, &info, err);
    free(hm.samples);
    return r;
}
