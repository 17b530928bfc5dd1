#version 460
#extension GL_GOOGLE_include_directive : require
// RayVoxel leaf bake: one workgroup per 8x8-cell tile column of the finest level, one thread per cell.
// Each thread folds the source columns of its cell into a bit column over z, then the group writes every
// word of the tile column with plain stores — clear and set in one go, so a dig that removes solid is
// baked as correctly as a raise. On a paged world (VOXEL_PAGED) the groups cover a rectangle of pages of one level
// (full resolution, or a coarser one of the far field: its texels each stand for 2^k x 2^k), each page its own tile
// columns, and write into the slot of each resident page its levels' leaf, from the texels in that slot.
#include "globals.glsl"
#include "surface.glsl"
#define VOXEL_GRID_WRITABLE
// The bit columns of the group's 64 cells: up to 256 voxels in z (a voxel is at least 1 unit tall).
shared uint columns[64][8];
#define VOXEL_GRID_COLUMNS
#include "voxel_grid.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(push_constant) uniform Push {
    uvec2 tile0; // first tile (x, y) of this dispatch; paged: its first page (x, y)
    uint level;  // paged: the pages' level (0: full resolution)
} pc;

void main() {
    uvec3 dims = vg_lod[0].xyz;
    uvec3 vs = vg_info.yzw;
    uvec2 tile = pc.tile0 + gl_WorkGroupID.xy;
    uvec2 cell = tile * 8u + gl_LocalInvocationID.xy;
    uint slot = 0u;
#ifdef ST_PAGED_TERRAIN
    if (VOXEL_PAGED) {
        uvec2 lt = voxel_page_tiles(0u).xy;
        uvec2 page = pc.tile0 + gl_WorkGroupID.xy / lt;
        uint row = terrain_pages.info.y >> pc.level; // pages of the level along x
        uint e = terrain_pages.entry[terrain_pages.level_offset[pc.level] + page.y * row + page.x] & 0xFFFFFFu;
        if (e == 0u) return; // not resident: no slot (the whole group leaves, before any barrier)
        slot = e - 1u;
        tile = gl_WorkGroupID.xy % lt;
        dims = uvec3(uvec2(1u) << vp_lod[0].xy, vp_lod[0].z);
        cell = tile * 8u + gl_LocalInvocationID.xy;
    }
#endif
    uint col[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    if (cell.x < dims.x && cell.y < dims.y) {
        // The leaf rule (voxel_fold_texel), each texel's floor folded into the highest one.
        float floor_top = 0.0;
        ivec2 base = ivec2(cell * vs.xy);
        for (uint y = 0u; y < vs.y; y++)
            for (uint x = 0u; x < vs.x; x++) {
                ivec2 t = base + ivec2(x, y); // paged: the texel in its page, read from the page's slot
#ifdef ST_PAGED_TERRAIN
                Surface s = VOXEL_PAGED ? surface_of_pair(texelFetch(terrain_pool, ivec3(t.x >> 1, t.y, int(slot)), 0),
                                                          (t.x & 1) != 0)
                                        : surface_at(t);
#else
                Surface s = surface_at(t);
#endif
                voxel_fold_texel(s, vs.z, dims.z, col, floor_top);
            }
        voxel_set_range(col, 0u, min(uint(floor_top) / vs.z, dims.z - 1u));
    }
    uint lin = gl_LocalInvocationIndex; // y * 8 + x
    columns[lin] = col;
    barrier(); // every column of the tile is in shared memory before any word is assembled

    uint tile_words = ((dims.z + 7u) >> 3) * 16u;
    for (uint i = lin; i < tile_words; i += 64u) {
        uint tz = i >> 4, w = i & 15u;
        uint word = voxel_column_word(tz, w);
        if (VOXEL_PAGED) vp_words[voxel_slot_tile_word(slot, 0u, uvec3(tile, tz)) + w] = word;
        else vg_words[voxel_tile_word(0u, uvec3(tile, tz)) + w] = word;
    }
}
