// The RayVoxel occupancy pyramid (set 1, binding 0): one bit per voxel, 8x8x8 tiles of 16 words with the
// bits in 3-D Morton order, each level the OR of the 8 children below it. Layout: docs/voxel.md;
// the C side is src/render/methods/voxel.c. Define VOXEL_GRID_WRITABLE before including to write it.
// Requires globals.glsl (a bounded level's axes do not wrap).
#ifdef VOXEL_GRID_WRITABLE
#define VOXEL_GRID_ACCESS
#else
#define VOXEL_GRID_ACCESS readonly
#endif

layout(set = 1, binding = 0, std430) VOXEL_GRID_ACCESS buffer VoxelGrid {
    uvec4 vg_info;    // level count, voxel size x, y (texels), z (height units)
    uvec4 vg_lod[16]; // per level: cells in x, y, z (powers of two), first word (index into vg_words)
    uint vg_words[];
};

// Bit index inside a tile of local coordinates l in [0, 8)^3: x in bits 0, 3, 6; y in 1, 4, 7; z in 2, 5, 8.
uint voxel_morton(uvec3 l) {
    return (l.x & 1u) | ((l.y & 1u) << 1) | ((l.z & 1u) << 2) | ((l.x & 2u) << 2) | ((l.y & 2u) << 3) |
           ((l.z & 2u) << 4) | ((l.x & 4u) << 4) | ((l.y & 4u) << 5) | ((l.z & 4u) << 6);
}

// Tiles per axis of a level: ceil(cells / 8).
uvec3 voxel_tiles(uint lod) {
    return (vg_lod[lod].xyz + 7u) >> 3;
}

// Index into vg_words of the first word of tile t of a level.
uint voxel_tile_word(uint lod, uvec3 t) {
    uvec3 tc = voxel_tiles(lod);
    return vg_lod[lod].w + 16u * ((t.z * tc.y + t.y) * tc.x + t.x);
}

// Occupancy of cell c of a level; x and y wrap like the map, except along a bounded axis (g.knobs.w, as in
// surface.glsl), past whose edge every cell is empty; z outside the grid is empty.
bool voxel_occupied(uint lod, ivec3 c) {
    uvec3 n = vg_lod[lod].xyz;
    if (c.z < 0 || uint(c.z) >= n.z) return false;
    if (((g.knobs.w & LEVEL_BOUNDED_X) != 0u && uint(c.x) >= n.x) || ((g.knobs.w & LEVEL_BOUNDED_Y) != 0u && uint(c.y) >= n.y))
        return false;
    uvec3 u = uvec3(uint(c.x) & (n.x - 1u), uint(c.y) & (n.y - 1u), uint(c.z)); // two's complement wrap
    uint bit = voxel_morton(u & 7u);
    return (vg_words[voxel_tile_word(lod, u >> 3) + (bit >> 5)] & (1u << (bit & 31u))) != 0u;
}
