#version 460
#extension GL_GOOGLE_include_directive : require
// RayVoxel on a paged world: the first level held for the whole world (vp_info.x, "top"; a page holds whole cells
// of it), each cell from its page as the decode reads that page. One workgroup per 8x8-cell tile column (all z),
// one thread per cell; the group writes every word of the tile column with plain stores, as the leaf bake does.
// A page resident at full resolution gives the OR of its cell's children in its slot; a page drawn as its floor,
// the cells at or below that floor; a page drawn from a coarser level, the leaf rule folded over every texel it
// reads there (the group folds such a cell together, one texel per coarse texel: the 2^k x 2^k texels under a
// coarse one read alike). Cells of pages outside the dispatch's rectangle keep their bits.
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
    uvec4 pages;  // the pages whose cells are made again: x0, y0, x1, y1 (half-open)
} pc;

shared uint fold[8];        // a cell's leaf-resolution bit column, folded by the whole group
shared uint fold_level[64]; // per cell: 0 = nothing to fold, else 1 + the coarser level its page is read from

void set_bit(inout uint col[8], uint z) {
    col[z >> 5] |= 1u << (z & 31u);
}

void main() {
    uint top = vp_info.x;
    uvec3 dims = vg_lod[top].xyz;
    uvec3 vs = vg_info.yzw;
    uint zleaf = vg_lod[0].z;
    uint lin = gl_LocalInvocationIndex; // y * 8 + x
    uvec2 tile = pc.tile0 + gl_WorkGroupID.xy;
    uvec2 cell = tile * 8u + gl_LocalInvocationID.xy;
    uint col[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    uint need = 0u;
    if (lin < 8u) fold[lin] = 0u;
    if (cell.x < dims.x && cell.y < dims.y) {
        uvec4 pt = vp_lod[top];
        uvec2 page = cell >> pt.xy;
        if (any(lessThan(page, pc.pages.xy)) || any(greaterThanEqual(page, pc.pages.zw))) {
            for (uint z = 0u; z < dims.z; z++)
                if (voxel_whole_occupied(top, uvec3(cell, z))) set_bit(col, z);
        } else {
            uint r = terrain_page_resolve(page.y * terrain_pages.info.y + page.x, page), layer = r & 0xFFFFFFu;
            if (layer != 0u && (r >> 24) == 0u) {
                uvec2 l = (cell & ((uvec2(1u) << pt.xy) - 1u)) * 2u; // the first child in the page's level top - 1
                for (uint z = 0u; z < dims.z; z++) {
                    bool any_child = false;
                    for (uint d = 0u; d < 8u && !any_child; d++)
                        any_child = voxel_slot_occupied(layer - 1u, top - 1u,
                                                        uvec3(l + uvec2(d & 1u, (d >> 1) & 1u), 2u * z + (d >> 2)));
                    if (any_child) set_bit(col, z);
                }
            } else if (layer == 0u) {
                for (uint z = 0u; z < dims.z; z++)
                    if (z * (vs.z << top) <= (r >> 24)) set_bit(col, z);
            } else {
                need = 1u + (r >> 24);
            }
        }
    }
    fold_level[lin] = need;
    barrier(); // every cell's need is known before the group folds

    uvec2 texels = vs.xy << top; // a cell's texels along x and y
    for (uint i = 0u; i < 64u; i++) {
        uint k1 = fold_level[i]; // the same for the whole group
        if (k1 == 0u) continue;
        uint k = k1 - 1u;
        uvec2 n = max(texels >> k, uvec2(1u)); // the coarse texels over the cell, one read each
        ivec2 base = ivec2((tile * 8u + uvec2(i & 7u, i >> 3)) * texels);
        uint c[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
        float floor_top = 0.0;
        for (uint j = lin; j < n.x * n.y; j += 64u)
            voxel_fold_texel(surface_at(base + (ivec2(j % n.x, j / n.x) << int(k))), vs.z, zleaf, c, floor_top);
        if (lin < n.x * n.y) voxel_set_range(c, 0u, min(uint(floor_top) / vs.z, zleaf - 1u));
        for (uint w = 0u; w < 8u; w++)
            if (c[w] != 0u) atomicOr(fold[w], c[w]);
        barrier(); // the cell's column is whole
        if (lin == i) {
            for (uint z = 0u; z < dims.z; z++) {
                uint k0 = z << top, k1e = (z + 1u) << top; // its leaf voxels [k0, k1e)
                bool any_leaf = false;
                for (uint v = k0; v < k1e && !any_leaf; v++) any_leaf = ((fold[v >> 5] >> (v & 31u)) & 1u) != 0u;
                if (any_leaf) set_bit(col, z);
            }
        }
        barrier(); // read before it is cleared for the next cell
        if (lin < 8u) fold[lin] = 0u;
        barrier();
    }

    columns[lin] = col;
    barrier(); // every column of the tile is in shared memory before any word is assembled
    uint tile_words = ((dims.z + 7u) >> 3) * 16u;
    for (uint i = lin; i < tile_words; i += 64u) {
        uint tz = i >> 4, w = i & 15u;
        vg_words[voxel_tile_word(top, uvec3(tile, tz)) + w] = voxel_column_word(tz, w);
    }
}
