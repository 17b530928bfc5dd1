#version 460
#extension GL_GOOGLE_include_directive : require
// RayVoxel pyramid level: each cell is the OR of its 2x2x2 children. One thread per word of the parent
// level (16 per tile, 4 tiles along x per group). The 8 children of a parent cell are one byte of the child
// tile (their Morton index shares the parent's upper bits), so a parent word is "which bytes are non-zero"
// over half a child tile (8 words). On a paged world (VOXEL_PAGED) the region is a rectangle of pages of one
// level of the page table, each its own tiles, and a level below the top one is made in each resident page's slot.
#include "globals.glsl"
#include "surface.glsl"
#define VOXEL_GRID_WRITABLE
#include "voxel_grid.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push {
    uint lod;     // the parent level (>= 1)
    uint tile_x0; // first parent tile of the region; paged: its first page
    uint tile_y0;
    uint tiles_x; // region width in tiles (paged: of all its pages)
    uint level;   // paged: the pages' level (0: full resolution)
} pc;

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint rx = gl_WorkGroupID.x * 4u + (lane >> 4);
    if (rx >= pc.tiles_x) return;
    uvec3 pt = uvec3(pc.tile_x0 + rx, pc.tile_y0 + gl_WorkGroupID.y, gl_WorkGroupID.z);
    uvec3 ctiles = voxel_tiles(pc.lod - 1u);
    uint slot = 0u;
#ifdef ST_PAGED_TERRAIN
    if (VOXEL_PAGED) {
        uvec2 lt = voxel_page_tiles(pc.lod).xy;
        uvec2 page = uvec2(pc.tile_x0, pc.tile_y0) + uvec2(rx, gl_WorkGroupID.y) / lt;
        uint row = terrain_pages.info.y >> pc.level; // pages of the level along x
        uint e = terrain_pages.entry[terrain_pages.level_offset[pc.level] + page.y * row + page.x] & 0xFFFFFFu;
        if (e == 0u) return; // not resident: no slot
        slot = e - 1u;
        pt.xy = uvec2(rx, gl_WorkGroupID.y) % lt;
        ctiles = voxel_page_tiles(pc.lod - 1u);
    }
#endif
    uint w = lane & 15u;
    // Parent word w covers parent cells with Morton bits 5..8 = (z1, x2, y2, z2) = w's bits 0..3: their
    // children lie in child tile 2*pt + (x2, y2, z2), in its lower or upper half (8 words) by z1.
    uvec3 ct = 2u * pt + uvec3((w >> 1) & 1u, (w >> 2) & 1u, (w >> 3) & 1u);
    uint word = 0u;
    if (all(lessThan(ct, ctiles))) {
        uint base = (VOXEL_PAGED ? voxel_slot_tile_word(slot, pc.lod - 1u, ct) : voxel_tile_word(pc.lod - 1u, ct)) +
                    8u * (w & 1u);
        for (uint j = 0u; j < 8u; j++) {
            uint v = VOXEL_PAGED ? vp_words[base + j] : vg_words[base + j];
            for (uint k = 0u; k < 4u; k++)
                if (((v >> (8u * k)) & 0xFFu) != 0u) word |= 1u << (4u * j + k);
        }
    }
    if (VOXEL_PAGED) vp_words[voxel_slot_tile_word(slot, pc.lod, pt) + w] = word;
    else vg_words[voxel_tile_word(pc.lod, pt) + w] = word;
}
