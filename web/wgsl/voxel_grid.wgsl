// WGSL port of shaders/common/voxel_grid.glsl: the RayVoxel occupancy pyramid (group 2, binding 0; the ports'
// group 1 holds the frame's targets): one bit per voxel, 8×8×8 tiles of 16 words with the bits in 3-D Morton
// order, each level the OR of the 8 children below it. Layout: docs/voxel.md; the C side is web/methods/voxel.c.
// WGSL has no preprocessor for the GLSL's VOXEL_GRID_WRITABLE: the bake and the mip write through this one
// declaration and the march only reads it. Requires globals.wgsl (a bounded level's axes do not wrap).
struct VoxelGrid {
    info: vec4<u32>,              // level count, voxel size x, y (texels), z (height units)
    lod: array<vec4<u32>, 16>,    // per level: cells in x, y, z (powers of two), first word (index into words)
    words: array<u32>,
}
@group(2) @binding(0) var<storage, read_write> vg: VoxelGrid;

// Bit index inside a tile of local coordinates l in [0, 8)^3: x in bits 0, 3, 6; y in 1, 4, 7; z in 2, 5, 8.
fn voxel_morton(l: vec3<u32>) -> u32 {
    return (l.x & 1u) | ((l.y & 1u) << 1u) | ((l.z & 1u) << 2u) | ((l.x & 2u) << 2u) | ((l.y & 2u) << 3u) |
           ((l.z & 2u) << 4u) | ((l.x & 4u) << 4u) | ((l.y & 4u) << 5u) | ((l.z & 4u) << 6u);
}

// Tiles per axis of a level: ceil(cells / 8).
fn voxel_tiles(lod: u32) -> vec3<u32> {
    return (vg.lod[lod].xyz + 7u) >> vec3<u32>(3u);
}

// Index into vg.words of the first word of tile t of a level.
fn voxel_tile_word(lod: u32, t: vec3<u32>) -> u32 {
    let tc = voxel_tiles(lod);
    return vg.lod[lod].w + 16u * ((t.z * tc.y + t.y) * tc.x + t.x);
}

// Occupancy of cell c of a level; x and y wrap like the map, except along a bounded axis (g.knobs.w, as in
// surface.wgsl), past whose edge every cell is empty; z outside the grid is empty.
fn voxel_occupied(lod: u32, c: vec3<i32>) -> bool {
    let n = vg.lod[lod].xyz;
    if (c.z < 0 || u32(c.z) >= n.z) { return false; }
    if (((g.knobs.w & LEVEL_BOUNDED_X) != 0u && u32(c.x) >= n.x) ||
        ((g.knobs.w & LEVEL_BOUNDED_Y) != 0u && u32(c.y) >= n.y)) { return false; }
    let u = vec3<u32>(u32(c.x) & (n.x - 1u), u32(c.y) & (n.y - 1u), u32(c.z)); // two's complement wrap
    let bit = voxel_morton(u & vec3<u32>(7u));
    return (vg.words[voxel_tile_word(lod, u >> vec3<u32>(3u)) + (bit >> 5u)] & (1u << (bit & 31u))) != 0u;
}
