/* Between the flight's driver (fly.c) and its flight over a layer store (fly_paged.c). */
#ifndef STRATA_EVAL_FLY_INTERNAL_H
#define STRATA_EVAL_FLY_INTERNAL_H

#include "strata/fly.h"

/* The flight over a layer store (fly_paged.c): the store as a paged world with no level on `engine`, the method
 * r->method drawing every camera, the digs, write-backs and reload checks of d; fills r's frames and paged
 * figures (st_fly_run summarises and reports). */
st_result st_fly_paged(const st_fly_desc *d, st_fly_result *r, st_engine *engine, const st_camera *cams, st_error *err);

/* Keeps frame i's pass times (tm's passes by name) in r->passes; a name beyond ST_FLY_MAX_PASSES is dropped. */
void st_fly_record_passes(st_fly_result *r, uint32_t i, const st_frame_timing *tm);

/* The local figures of n values (st_fly_series.local_*; NAN ones are no frame's): each finite value over the median
 * of the finite values among the values within `half` of it (clipped at the ends), and that ratio's p99, p99.9 and
 * max into *p99, *p999 and *max (NAN where no ratio is defined: no finite value, or medians not positive). */
void st_fly_local(const double *v, uint32_t n, uint32_t half, double *p99, double *p999, double *max);

#endif
