#version 460
#extension GL_GOOGLE_include_directive : require
// RayVoxel on a paged world: the first level held for the whole world (vp_info.x, "top"; a page holds whole cells
// of it), each cell from its page as the decode reads that page. One workgroup per 8x8-cell tile column (all z),
// one thread per cell; the group writes every word of the tile column with plain stores, as the leaf bake does.
// A page resident at full resolution gives the OR of its cell's children in its slot; a page drawn from a coarser
// level, the cells of that page's slot under it (voxel_coarse_occupied); a page drawn as its floor, the cells at
// or below that floor. Cells of pages outside the dispatch's rectangle keep their bits.
#include "globals.glsl"
#include "surface.glsl"
#define VOXEL_GRID_WRITABLE
// The bit columns of the group's 64 cells at the top level's z resolution (at most 128 cells: top >= 1).
shared uint columns[64][8];
#define VOXEL_GRID_COLUMNS
#include "voxel_grid.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(push_constant) uniform Push {
    uvec2 tile0;  // first tile (x, y) of the top level in this dispatch
    uvec2 unused;
    uvec4 pages;  // the full-resolution pages whose cells are made again: x0, y0, x1, y1 (half-open)
} pc;

void main() {
    uint top = vp_info.x;
    uvec3 dims = vg_lod[top].xyz;
    uint lin = gl_LocalInvocationIndex; // y * 8 + x
    uvec2 tile = pc.tile0 + gl_WorkGroupID.xy;
    uvec2 cell = tile * 8u + gl_LocalInvocationID.xy;
    uint col[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    if (cell.x < dims.x && cell.y < dims.y) {
        uvec4 pt = vp_lod[top];
        uvec2 page = cell >> pt.xy;
        bool again = all(greaterThanEqual(page, pc.pages.xy)) && all(lessThan(page, pc.pages.zw));
        uint r = again ? terrain_page_resolve(page.y * terrain_pages.info.y + page.x, page) : 0u;
        uint layer = r & 0xFFFFFFu, k = r >> 24;
        uvec2 l = (cell & ((uvec2(1u) << pt.xy) - 1u)) * 2u; // resident: its first child in the page's level top - 1
        for (uint z = 0u; z < dims.z; z++) {
            bool occupied = false;
            if (!again) {
                occupied = voxel_whole_occupied(top, uvec3(cell, z));
            } else if (layer == 0u) {
                occupied = z * (vg_info.w << top) <= k; // the floor (in the entry's top byte)
            } else if (k == 0u) {
                for (uint d = 0u; d < 8u && !occupied; d++)
                    occupied = voxel_slot_occupied(layer - 1u, top - 1u,
                                                   uvec3(l + uvec2(d & 1u, (d >> 1) & 1u), 2u * z + (d >> 2)));
            } else {
                occupied = voxel_coarse_occupied(layer - 1u, k, top, uvec3(cell, z));
            }
            if (occupied) col[z >> 5] |= 1u << (z & 31u);
        }
    }
    columns[lin] = col;
    barrier(); // every column of the tile is in shared memory before any word is assembled
    uint tile_words = ((dims.z + 7u) >> 3) * 16u;
    for (uint i = lin; i < tile_words; i += 64u) {
        uint tz = i >> 4, w = i & 15u;
        vg_words[voxel_tile_word(top, uvec3(tile, tz)) + w] = voxel_column_word(tz, w);
    }
}
