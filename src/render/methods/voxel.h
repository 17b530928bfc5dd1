/* RayVoxel internals that tests and reports look at: the occupancy pyramid's layout for a level size and
 * grid, a readback of a renderer's pyramid, and the measured full-bake time. */
#ifndef STRATA_VOXEL_H
#define STRATA_VOXEL_H

#include "render/methods/voxel_layout.h"
#include "render/render_internal.h"

/* For a renderer of method voxel or voxel-compute (NULL otherwise). */
const st_voxel_layout *st_voxel_renderer_layout(const st_renderer *r);
/* For a voxel renderer of a paged world: the layout of its pages' levels and of those held whole (NULL
 * otherwise). */
const st_voxel_paged *st_voxel_renderer_paged(const st_renderer *r);
/* The words st_voxel_read copies: every level's (layout.words), or on a paged world those of the levels held
 * whole (from paged.top up; layout.words − paged.world_first). */
uint64_t st_voxel_words(const st_renderer *r);
/* Copies the pyramid's words (st_voxel_words of them) to host memory. */
st_result st_voxel_read(st_renderer *r, uint32_t *words, st_error *err);
/* On a paged world: *resident is whether page (px, py) is mapped to a slot now, and if so `words` gets its levels
 * below the top one (paged.slot_words words, in the page's own layout) as its slot holds them. */
st_result st_voxel_read_page(st_renderer *r, uint32_t px, uint32_t py, uint32_t *words, bool *resident, st_error *err);
/* The full bake at create: GPU time (timestamps; NAN without them) and CPU wall time with the wait. */
void st_voxel_bake_time(const st_renderer *r, double *gpu_ms, double *cpu_ms);
/* The tile columns (8×8 cells in x, y, every z) the last frame's bake wrote: of the leaf level, and of every level
 * together (0 and 0 when nothing was edited; tests and docs). */
void st_voxel_last_bake(const st_renderer *r, uint64_t *leaf_columns, uint64_t *columns);

#endif
