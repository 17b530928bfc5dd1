/* The WebGPU backend of the seam (src/gpu/backend.h): compute methods from the WGSL ports (web/wgsl/). */
#ifndef STRATA_WEB_BACKEND_GPU_H
#define STRATA_WEB_BACKEND_GPU_H

#include "gpu/backend.h"

/* The backend over the page's WebGPU device (web/gpu.js, which the page starts before calling this: the
 * device is asynchronous to get); ST_ERR_GPU when the page has none. */
st_result st_gb_gpu_create(st_gb **out, st_error *err);

#endif
