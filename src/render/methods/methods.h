/* The ops table of each method (one file per method under src/render/methods/). */
#ifndef STRATA_METHODS_H
#define STRATA_METHODS_H

#include "render/render_internal.h"

extern const st_method_ops st_method_ray;         /* ray.c: height-field ray march, fragment pass */
extern const st_method_ops st_method_ray_compute; /* ray.c: the same march in a compute pass */

#endif
