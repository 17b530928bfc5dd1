/* The page's generated world made in bands of rows: the page's instance makes the first band and takes the
 * others from web workers (web/gen_worker.js), each of which makes its band's terrain in its own instance. */
#ifndef STRATA_WEB_GEN_BANDS_H
#define STRATA_WEB_GEN_BANDS_H

#include "strata/level.h"

/* The world of (seed, width, height) begun (0 = the default's): its level and work planes allocated. */
st_result web_bands_begin(uint32_t seed, uint32_t width, uint32_t height, st_error *err);
/* The begun world's slab passes over what the bands filled: the level, byte for byte st_gen_world's. */
st_result web_bands_finish(st_level **out, st_error *err);

/* The begun world's sides (0 when none is begun). */
uint32_t web_gen_width(void);
uint32_t web_gen_height(void);
/* The region [x0, x0 + w) × [y0, y0 + h) of the begun world (wrapping around it; x0 and w even) made alone and
 * finished with the world's dual threshold, written into `into` (a level of the world's size) and kept (until
 * web_bands_region_reset): its texels are those of the finished world there when threshold is the world's. */
st_result web_bands_region(uint32_t threshold, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, st_level *into,
                           st_error *err);
void web_bands_region_reset(void);
/* Whether the kept regions' texels are world's there: 1 yes, 0 no, -1 none kept. */
int web_bands_region_matches(const st_level *world);

#endif
