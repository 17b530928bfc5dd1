// The RayVoxel occupancy pyramid (set 1, binding 0): one bit per voxel, 8x8x8 tiles of 16 words with the
// bits in 3-D Morton order, each level the OR of the 8 children below it. Layout: docs/voxel.md;
// the C side is src/render/methods/voxel.c. Define VOXEL_GRID_WRITABLE before including to write it.
// With VOXEL_GRID_COLUMNS, the includer's shared uint columns[64][8] (a tile column's 64 bit columns over z)
// are assembled into words by voxel_column_word.
// Requires globals.glsl (a bounded level's axes do not wrap) and surface.glsl (the leaf rule reads a Surface).
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

// A paged world (docs/voxel.md, "Paged worlds"; VOXEL_PAGED, set by the renderer): the levels below the top one
// held whole (vp_info.x) live per page, each page's (a coarser level's too) in the slot of the pool that holds its
// texels (set 1, binding 1); vg_lod keeps every level's cells of the whole world, and vg_words holds the levels from the top
// one up (their first words counted from there). Unpaged, binding 1 is a placeholder never read.
layout(constant_id = 0) const bool VOXEL_PAGED = false;
layout(set = 1, binding = 1, std430) VOXEL_GRID_ACCESS buffer VoxelPages {
    uvec4 vp_info;    // the first level held whole (top), words of a slot, 0, 0
    uvec4 vp_lod[16]; // per level up to top: log2 of a page's cells in x and y, its cells in z, first word in a slot
    uint vp_words[];
};

// Tiles per axis of a page's level (its own tiles: ceil(cells / 8)).
uvec3 voxel_page_tiles(uint lod) {
    uvec4 pl = vp_lod[lod];
    return (uvec3(1u << pl.x, 1u << pl.y, pl.z) + 7u) >> 3;
}

// Index into vp_words of the first word of tile t of a page's level in a slot.
uint voxel_slot_tile_word(uint slot, uint lod, uvec3 t) {
    uvec3 tc = voxel_page_tiles(lod);
    return slot * vp_info.y + vp_lod[lod].w + 16u * ((t.z * tc.y + t.y) * tc.x + t.x);
}

// Cell l (inside the page) of a page's level in a slot.
bool voxel_slot_occupied(uint slot, uint lod, uvec3 l) {
    uint bit = voxel_morton(l & 7u);
    return (vp_words[voxel_slot_tile_word(slot, lod, l >> 3) + (bit >> 5)] & (1u << (bit & 31u))) != 0u;
}

// Cell u (inside the grid) of a level held whole.
bool voxel_whole_occupied(uint lod, uvec3 u) {
    uint bit = voxel_morton(u & 7u);
    return (vg_words[voxel_tile_word(lod, u >> 3) + (bit >> 5)] & (1u << (bit & 31u))) != 0u;
}

#ifdef ST_PAGED_TERRAIN
// The invocation's last page asked of the pyramid and what it resolved to (terrain_page_resolve): the table does
// not change while a frame draws, and a ray asks many cells of one page before it leaves it.
uint voxel_page_last = 0xFFFFFFFFu;
uint voxel_page_last_resolved = 0u;

// Cell u (wrapped into the grid) of level m below the top one (or of the top one: voxel_top.comp) over a page
// drawn from the coarser level k, whose page sits in `slot` with its own levels in coarse texels (each 2^k x 2^k
// texels): at m >= k the cell is one cell of the coarse page's level m - k in x and y and 2^k of its cells in z; at
// m < k it lies in one cell of its level 0 (wider: conservative), 2^m of them in z.
bool voxel_coarse_occupied(uint slot, uint k, uint m, uvec3 u) {
    uvec2 lv = uvec2(findLSB(vg_info.y), findLSB(vg_info.z)); // log2 of a leaf's texels in x and y
    uint mk = min(m, k), mc = m - mk;
    uvec2 t = (u.xy << (lv + m)) >> k; // the coarse texel of the cell's first texel
    uvec2 l = (t & ((1u << terrain_pages.info.x) - 1u)) >> (lv + mc);
    uint z0 = u.z << mk;
    for (uint j = 0u; j < (1u << mk); j++)
        if (voxel_slot_occupied(slot, mc, uvec3(l, z0 + j))) return true;
    return false;
}

// Cell u (wrapped into the grid) of a level below the top one, through the page table, as the decode reads its
// page: a page resident at full resolution answers from its slot, one drawn from a coarser level from that page's
// slot (voxel_coarse_occupied), one drawn as its floor as one flat floor (a cell is occupied where its bottom is at
// or below it, as a bake of it would say).
bool voxel_page_occupied(uint lod, uvec3 u) {
    uvec4 pl = vp_lod[lod];
    uvec2 pc = u.xy >> pl.xy;
    uint page = pc.y * terrain_pages.info.y + pc.x;
    if (page != voxel_page_last) {
        voxel_page_last = page;
        voxel_page_last_resolved = terrain_page_resolve(page, pc);
    }
    uint r = voxel_page_last_resolved, layer = r & 0xFFFFFFu;
    if (layer == 0u) return u.z * (vg_info.w << lod) <= (r >> 24);
    if ((r >> 24) == 0u) return voxel_slot_occupied(layer - 1u, lod, uvec3(u.xy & ((uvec2(1u) << pl.xy) - 1u), u.z));
    return voxel_coarse_occupied(layer - 1u, r >> 24, lod, u);
}
#endif

// Occupancy of cell c of a level; x and y wrap like the map, except along a bounded axis (g.knobs.w, as in
// surface.glsl), past whose edge every cell is empty; z outside the grid is empty.
bool voxel_occupied(uint lod, ivec3 c) {
    uvec3 n = vg_lod[lod].xyz;
    if (c.z < 0 || uint(c.z) >= n.z) return false;
    if (((g.knobs.w & LEVEL_BOUNDED_X) != 0u && uint(c.x) >= n.x) || ((g.knobs.w & LEVEL_BOUNDED_Y) != 0u && uint(c.y) >= n.y))
        return false;
    uvec3 u = uvec3(uint(c.x) & (n.x - 1u), uint(c.y) & (n.y - 1u), uint(c.z)); // two's complement wrap
#ifdef ST_PAGED_TERRAIN
    if (VOXEL_PAGED && lod < vp_info.x) return voxel_page_occupied(lod, u);
#endif
    return voxel_whole_occupied(lod, u);
}

// Sets bits [k0, k1] of a 256-bit column.
void voxel_set_range(inout uint col[8], uint k0, uint k1) {
    for (uint w = k0 >> 5; w <= (k1 >> 5); w++) {
        uint lo = w == (k0 >> 5) ? (k0 & 31u) : 0u;
        uint hi = w == (k1 >> 5) ? (k1 & 31u) : 31u;
        uint mask = (hi == 31u ? 0xFFFFFFFFu : ((1u << (hi + 1u)) - 1u)) & ~((1u << lo) - 1u);
        col[w] |= mask;
    }
}

// The leaf rule for texel column s, voxels vz units tall, zcells of them: voxel k spans [k*vz, (k+1)*vz).
// Conservative (never empty where SOLID holds anywhere in the voxel, boundaries included): the floor z <= low
// hits k when k*vz <= low, kept as the highest floor in floor_top for the caller to set [0, floor_top / vz]
// once over all its texels; the slab [mid, high] hits k when k*vz <= high and (k+1)*vz >= mid (>= rather than
// >: one extra voxel when mid is on a plane), set into col here.
void voxel_fold_texel(Surface s, uint vz, uint zcells, inout uint col[8], inout float floor_top) {
    floor_top = max(floor_top, s.low);
    if (s.dual && s.high >= s.mid) {
        uint mid = uint(s.mid), high = uint(s.high);
        uint k0 = mid > 0u ? (mid - 1u) / vz : 0u;
        voxel_set_range(col, k0, min(high / vz, zcells - 1u));
    }
}

#ifdef VOXEL_GRID_COLUMNS
// Word w of tile layer tz of a tile column, from the group's bit columns over z (columns[y * 8 + x]).
uint voxel_column_word(uint tz, uint w) {
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
    return word;
}
#endif
