/* The page's generated world made in bands of rows: the page's instance makes the first band and takes the
 * others from web workers (web/gen_worker.js), each of which makes its band's terrain in its own instance. */
#ifndef STRATA_WEB_GEN_BANDS_H
#define STRATA_WEB_GEN_BANDS_H

#include "strata/level.h"

/* The world of (seed, width, height) begun (0 = the default's): its level and work planes allocated. */
st_result web_bands_begin(uint32_t seed, uint32_t width, uint32_t height, st_error *err);
/* The begun world's slab passes over what the bands filled: the level, byte for byte st_gen_world's. */
st_result web_bands_finish(st_level **out, st_error *err);

#endif
