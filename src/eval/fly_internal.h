/* Between the flight's driver (fly.c) and its flight over a layer store (fly_paged.c). */
#ifndef STRATA_EVAL_FLY_INTERNAL_H
#define STRATA_EVAL_FLY_INTERNAL_H

#include "strata/fly.h"

/* The flight over a layer store (fly_paged.c): the store as a paged world with no level on `engine`, the method
 * r->method drawing every camera, the digs, write-backs and reload checks of d; fills r's frames and paged
 * figures (st_fly_run summarises and reports). */
st_result st_fly_paged(const st_fly_desc *d, st_fly_result *r, st_engine *engine, const st_camera *cams, st_error *err);

#endif
