/* The ops table of each shared pass of the frame (one file per pass under src/render/passes/) and the frame's
 * order of them around the method (registry.c). */
#ifndef STRATA_PASSES_H
#define STRATA_PASSES_H

#include "render/render_internal.h"

/* shadow.c: the shared shadow map, cast from the sun in compute before the method (a 1×1 stand-in when shadows
 * are off; set 0's binding 2 either way). It stays valid across frames: a frame casts only the texels its
 * window newly covers and those whose rays cross an edit (none on a steady frame). Its timed pass is "shadow". */
extern const st_pass_ops st_pass_shadow;
/* For tests: the renderer's shadow map as stored (size² floats: grid texel (i, j) at (i mod size, j mod size);
 * the next frame's window decides which grid texels those are); ST_ERR_INVALID without a shadow pass. */
st_result st_shadow_read(const st_renderer *r, float *out, st_error *err);
/* For tests: how many texels the renderer's last frame cast (0 with shadows off). */
uint64_t st_shadow_last_cast_texels(const st_renderer *r);
/* near_cap.c: the near plane inside solid is a hit there (docs/harness.md): after the method's passes it writes
 * the near depth and a hit's shading wherever the near-plane point of a pixel's ray is SOLID, and records
 * nothing when no texel under the near plane can be. */
extern const st_pass_ops st_pass_near_cap;
/* water.c: the water surface (Gerstner waves or the FFT ocean) over the terrain, through its depth; nothing when
 * the renderer's water mode is NONE. Its timed passes are "water-sim" (the ocean's simulation, the ocean only) and
 * "water" (the surface: copies, depth, ring grid, shading). */
extern const st_pass_ops st_pass_water;

#endif
