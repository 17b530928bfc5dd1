/* Scattered's hole-free enumeration of quadtree levels: which blocks of each level a frame dispatches. Knows
 * no GPU API, so the Vulkan method and the web backend walk the levels with the same code. */
#ifndef STRATA_RENDER_SCATTER_LEVELS_H
#define STRATA_RENDER_SCATTER_LEVELS_H

#include <stdbool.h>
#include <stdint.h>

#define ST_SCATTER_MAX_BLOCK 4096 /* coarsest block size, far beyond any sane far distance */
#define ST_SCATTER_MAX_LEVELS 13  /* block sizes 1, 2, 4 … 4096 */

/* One level's dispatch: blocks of size k from origin (texels, a multiple of k), count blocks along x and y. */
typedef struct st_scatter_level {
    int32_t origin[2];
    int32_t count[2];
    int32_t k;
    bool root; /* the coarsest level: it keeps every block, however near */
} st_scatter_level;

/* The levels for ground bounds b (x0, y0, x1, y1 in texels, non-empty), the eye's ground position and the LOD
 * distance lod (focal px × density: a block of size k > 1 is used where its nearest horizontal distance is at least
 * k·lod). A level k below the root only covers where its leaves can lie (within 2k·(lod + 1.5) of the eye); levels
 * with nothing there are left out. Fills out and returns how many (1 … ST_SCATTER_MAX_LEVELS). */
int st_scatter_levels(const float b[4], const float eye[2], float lod, st_scatter_level out[ST_SCATTER_MAX_LEVELS]);

#endif
