/* The occupancy pyramid's layout (RayVoxel: docs/voxel.md) for a level size and grid, and the word and bit of a
 * cell: plain C with no GPU in it, shared by the native voxel methods (voxel.c) and the web build's. */
#ifndef STRATA_VOXEL_LAYOUT_H
#define STRATA_VOXEL_LAYOUT_H

#include <stdint.h>

#include "strata/core.h"

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

/* The pyramid of a paged world (docs/voxel.md, "Paged worlds"): the whole world's levels below `top` are held
 * per page, each page's in a slot parallel to its pool slot; the levels from `top` up (top's cells are the
 * page's coarsest: a page holds whole cells of it) are held for the whole world, small at any size. */
typedef struct st_voxel_paged {
    st_voxel_layout world; /* the whole world's levels, cells and tiles */
    st_voxel_layout page;  /* one page's levels (its own tiles, first words inside a slot); 0 .. top − 1 held */
    uint32_t top;          /* the first level held for the whole world (≥ 1) */
    uint64_t slot_words;   /* words of a slot: page.offset[top] */
    uint64_t world_first;  /* world.offset[top]: the whole world's words start there (world.words − it held) */
} st_voxel_paged;

/* The paged layout of a width × height world in pages of `page` texels a side (powers of two, page ≤ both). */
st_result st_voxel_paged_of(uint32_t width, uint32_t height, uint32_t page, uint32_t grid, st_voxel_paged *out,
                            st_error *err);
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

#endif
