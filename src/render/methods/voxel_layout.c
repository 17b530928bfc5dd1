/* The occupancy pyramid's layout (voxel_layout.h). */
#include <string.h>

#include "render/methods/voxel_layout.h"
#include "strata/core.h"

/* leaf voxel sizes per grid (st_method_knobs.voxel_grid): texels in x, y; height units in z */
static const uint32_t GRIDS[2][3] = {{4, 8, 2}, {2, 4, 1}};

st_result st_voxel_layout_of(uint32_t width, uint32_t height, uint32_t grid, st_voxel_layout *out, st_error *err) {
    memset(out, 0, sizeof *out);
    if (grid > 1) return st_error_set(err, ST_ERR_INVALID, "voxel grid %u: expected 0 (4,8,2) or 1 (2,4,1)", grid);
    const uint32_t *v = GRIDS[grid];
    if (!st_is_pow2(width) || !st_is_pow2(height) || width < v[0] || height < v[1])
        return st_error_set(err, ST_ERR_INVALID, "a %ux%u level does not hold whole %ux%u voxel cells", width,
                            height, v[0], v[1]);
    memcpy(out->voxel, v, sizeof out->voxel);
    uint32_t n[3] = {width / v[0], height / v[1], 256u / v[2]};
    uint32_t smallest = n[0] < n[1] ? n[0] : n[1];
    if (n[2] < smallest) smallest = n[2];
    /* Every axis halves per level (all are powers of two), down to a level whose smallest axis is 1. */
    while ((1u << out->lods) <= smallest && out->lods < ST_VOXEL_MAX_LODS) out->lods++;
    uint64_t words = 0;
    for (uint32_t l = 0; l < out->lods; l++) {
        for (int a = 0; a < 3; a++) {
            out->dims[l][a] = n[a] >> l;
            out->tiles[l][a] = (out->dims[l][a] + 7) / 8;
        }
        out->offset[l] = words;
        words += 16ull * out->tiles[l][0] * out->tiles[l][1] * out->tiles[l][2];
    }
    if (words > UINT32_MAX) return st_error_set(err, ST_ERR_NOMEM, "voxel pyramid of %llu words", (unsigned long long)words);
    out->words = words;
    out->bytes = ST_VOXEL_HEADER_BYTES + 4 * words;
    return ST_OK;
}

st_result st_voxel_paged_of(uint32_t width, uint32_t height, uint32_t page, uint32_t grid, st_voxel_paged *out,
                            st_error *err) {
    memset(out, 0, sizeof *out);
    if (!st_is_pow2(page) || page > width || page > height)
        return st_error_set(err, ST_ERR_INVALID, "pages of %u texels in a %ux%u world", page, width, height);
    st_result r = st_voxel_layout_of(width, height, grid, &out->world, err);
    if (!r) r = st_voxel_layout_of(page, page, grid, &out->page, err);
    if (r) return r;
    /* A page's own levels stop where its smallest axis is one cell, so its top level's cells tile it: the whole
     * world's cells of that level each lie in one page. */
    out->top = out->page.lods - 1;
    if (out->top < 1)
        return st_error_set(err, ST_ERR_INVALID, "pages of %u texels hold no level of the voxel pyramid below one cell",
                            page);
    out->slot_words = out->page.offset[out->top];
    out->world_first = out->world.offset[out->top];
    return ST_OK;
}
