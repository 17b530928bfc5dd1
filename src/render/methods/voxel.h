/* RayVoxel internals that tests and reports look at: the occupancy pyramid's layout for a level size and
 * grid, a readback of a renderer's pyramid, and the measured full-bake time. */
#ifndef STRATA_VOXEL_H
#define STRATA_VOXEL_H

#include "render/methods/voxel_layout.h"
#include "render/render_internal.h"

/* For a renderer of method voxel or voxel-compute (NULL otherwise). */
const st_voxel_layout *st_voxel_renderer_layout(const st_renderer *r);
/* Copies the pyramid's words (layout.words of them) to host memory. */
st_result st_voxel_read(st_renderer *r, uint32_t *words, st_error *err);
/* The full bake at create: GPU time (timestamps; NAN without them) and CPU wall time with the wait. */
void st_voxel_bake_time(const st_renderer *r, double *gpu_ms, double *cpu_ms);
/* The tile columns (8×8 cells in x, y, every z) the last frame's bake wrote: of the leaf level, and of every level
 * together (0 and 0 when nothing was edited; tests and docs). */
void st_voxel_last_bake(const st_renderer *r, uint64_t *leaf_columns, uint64_t *columns);

#endif
