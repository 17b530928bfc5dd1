/* The WebGL2 backend of the seam (src/gpu/backend.h), drawing into a page's canvas. */
#ifndef STRATA_WEB_BACKEND_GL_H
#define STRATA_WEB_BACKEND_GL_H

#include "gpu/backend.h"

/* A WebGL2 context on the canvas of that CSS selector ("#canvas") with the backend's copy passes built;
 * ST_ERR_GPU when the browser has no WebGL2. */
st_result st_gb_gl_create(const char *canvas, st_gb **out, st_error *err);

#endif
