/* RayVoxel internals that tests and reports look at: the occupancy pyramid's layout for a level size and
 * grid, a readback of a renderer's pyramid, and the measured full-bake time. */
#ifndef STRATA_VOXEL_H
#define STRATA_VOXEL_H

#include "render/render_internal.h"

#define ST_VOXEL_MAX_LODS 16
#define ST_VOXEL_HEADER_BYTES (16u * (1u + ST_VOXEL_MAX_LODS)) /* info + one uvec4 per level */

typedef struct st_voxel_layout {
    uint32_t voxel[3];                  /* leaf voxel size: texels in x, y; height units in z */
    uint32_t lods;                      /* levels, finest first */
    uint32_t dims[ST_VOXEL_MAX_LODS][3]; /* cells per axis of each level (powers of two) */
    uint32_t tiles[ST_VOXEL_MAX_LODS][3]; /* 8×8×8 tiles per axis: ceil(dims / 8) */
    uint64_t offset[ST_VOXEL_MAX_LODS];  /* first word of each level (after the header) */
    uint64_t words;                     /* words of all levels */
    uint64_t bytes;                     /* header + words: the GPU buffer */
} st_voxel_layout;

/* grid: 0 = (4,8,2), 1 = (2,4,1) (st_method_knobs.voxel_grid). */
st_result st_voxel_layout_of(uint32_t width, uint32_t height, uint32_t grid, st_voxel_layout *out, st_error *err);
/* Word index (from the first word of all levels) and bit of cell (x, y, z) of a level. */
static inline uint64_t st_voxel_word(const st_voxel_layout *l, uint32_t lod, uint32_t x, uint32_t y, uint32_t z,
                                     uint32_t *bit) {
    uint32_t lx = x & 7, ly = y & 7, lz = z & 7, m = 0;
    for (uint32_t b = 0; b < 3; b++)
        m |= (((lx >> b) & 1u) << (3 * b)) | (((ly >> b) & 1u) << (3 * b + 1)) | (((lz >> b) & 1u) << (3 * b + 2));
    uint64_t tile = ((uint64_t)(z >> 3) * l->tiles[lod][1] + (y >> 3)) * l->tiles[lod][0] + (x >> 3);
    *bit = m & 31u;
    return l->offset[lod] + 16 * tile + (m >> 5);
}

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
