#version 460
#extension GL_GOOGLE_include_directive : require
// RayVoxel leaf bake: one workgroup per 8x8-cell tile column of the finest level, one thread per cell.
// Each thread folds the source columns of its cell into a bit column over z, then the group writes every
// word of the tile column with plain stores — clear and set in one go, so a dig that removes solid is
// baked as correctly as a raise.
#include "globals.glsl"
#include "surface.glsl"
#define VOXEL_GRID_WRITABLE
#include "voxel_grid.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(push_constant) uniform Push {
    uvec2 tile0; // first tile (x, y) of this dispatch
} pc;

// The bit columns of the group's 64 cells: up to 256 voxels in z (a voxel is at least 1 unit tall).
shared uint columns[64][8];

// Sets bits [k0, k1] of a 256-bit column.
void set_range(inout uint col[8], uint k0, uint k1) {
    for (uint w = k0 >> 5; w <= (k1 >> 5); w++) {
        uint lo = w == (k0 >> 5) ? (k0 & 31u) : 0u;
        uint hi = w == (k1 >> 5) ? (k1 & 31u) : 31u;
        uint mask = (hi == 31u ? 0xFFFFFFFFu : ((1u << (hi + 1u)) - 1u)) & ~((1u << lo) - 1u);
        col[w] |= mask;
    }
}

void main() {
    uvec3 dims = vg_lod[0].xyz;
    uvec3 vs = vg_info.yzw;
    uvec2 tile = pc.tile0 + gl_WorkGroupID.xy;
    uvec2 cell = tile * 8u + gl_LocalInvocationID.xy;
    uint col[8] = uint[8](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    if (cell.x < dims.x && cell.y < dims.y) {
        // Voxel k spans [k*vz, (k+1)*vz). Conservative rule (never empty where SOLID holds anywhere in the
        // voxel, boundaries included): floor z <= low hits k when k*vz <= low; the slab [mid, high] hits k
        // when k*vz <= high and (k+1)*vz >= mid (>= rather than >: one extra voxel when mid is on a plane).
        float floor_top = 0.0;
        ivec2 base = ivec2(cell * vs.xy);
        for (uint y = 0u; y < vs.y; y++) {
            for (uint x = 0u; x < vs.x; x++) {
                Surface s = surface_at(base + ivec2(x, y));
                floor_top = max(floor_top, s.low);
                if (s.dual && s.high >= s.mid) {
                    uint mid = uint(s.mid), high = uint(s.high);
                    uint k0 = mid > 0u ? (mid - 1u) / vs.z : 0u;
                    set_range(col, k0, min(high / vs.z, dims.z - 1u));
                }
            }
        }
        set_range(col, 0u, min(uint(floor_top) / vs.z, dims.z - 1u));
    }
    uint lin = gl_LocalInvocationIndex; // y * 8 + x
    columns[lin] = col;
    barrier(); // every column of the tile is in shared memory before any word is assembled

    uint tile_words = ((dims.z + 7u) >> 3) * 16u;
    for (uint i = lin; i < tile_words; i += 64u) {
        uint tz = i >> 4, w = i & 15u;
        // Word w holds Morton bits 32w..32w+31: bits 5..8 of the index (z1, x2, y2, z2) are w's bits 0..3.
        uint xh = ((w >> 1) & 1u) << 2, yh = ((w >> 2) & 1u) << 2;
        uint zh = ((w & 1u) << 1) | (((w >> 3) & 1u) << 2);
        uint word = 0u;
        for (uint b = 0u; b < 32u; b++) {
            uint lx = xh | (b & 1u) | ((b >> 2) & 2u);
            uint ly = yh | ((b >> 1) & 1u) | ((b >> 3) & 2u);
            uint z = tz * 8u + (zh | ((b >> 2) & 1u));
            word |= ((columns[ly * 8u + lx][z >> 5] >> (z & 31u)) & 1u) << b;
        }
        vg_words[voxel_tile_word(0u, uvec3(tile, tz)) + w] = word;
    }
}
