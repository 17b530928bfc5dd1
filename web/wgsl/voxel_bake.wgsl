// RayVoxel leaf bake: WGSL port of shaders/methods/voxel_bake.comp — one workgroup per 8×8-cell tile column of the
// finest level, one invocation per cell. Each invocation folds the source columns of its cell into a bit column
// over z, then the group writes every word of the tile column with plain stores — clear and set in one go, so a dig
// that removes solid is baked as correctly as a raise.
//! requires globals.wgsl surface.wgsl voxel_grid.wgsl

// Mirror of voxel_bake_push (web/methods/voxel.c): the push constants, in the ports' group 3
struct Push {
    tile0: vec2<u32>, // first tile (x, y) of this dispatch
    pad: vec2<u32>,
}
@group(3) @binding(0) var<uniform> pc: Push;

// The bit columns of the group's 64 cells: up to 256 voxels in z (a voxel is at least 1 unit tall).
var<workgroup> columns: array<array<u32, 8>, 64>;

// Sets bits [k0, k1] of a 256-bit column.
fn set_range(col: ptr<function, array<u32, 8>>, k0: u32, k1: u32) {
    for (var w = k0 >> 5u; w <= (k1 >> 5u); w++) {
        let lo = select(0u, k0 & 31u, w == (k0 >> 5u));
        let hi = select(31u, k1 & 31u, w == (k1 >> 5u));
        let mask = select((1u << (hi + 1u)) - 1u, 0xFFFFFFFFu, hi == 31u) & ~((1u << lo) - 1u);
        (*col)[w] |= mask;
    }
}

@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>,
        @builtin(local_invocation_index) lin: u32) {
    let dims = vg.lod[0].xyz;
    let vs = vg.info.yzw;
    let tile = pc.tile0 + group.xy;
    let cell = tile * 8u + local.xy;
    var col = array<u32, 8>(0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    if (cell.x < dims.x && cell.y < dims.y) {
        // Voxel k spans [k·vz, (k+1)·vz). Conservative rule (never empty where SOLID holds anywhere in the voxel,
        // boundaries included): floor z <= low hits k when k·vz <= low; the slab [mid, high] hits k when
        // k·vz <= high and (k+1)·vz >= mid (>= rather than >: one extra voxel when mid is on a plane).
        var floor_top = 0.0;
        let base = vec2<i32>(cell * vs.xy);
        for (var y = 0u; y < vs.y; y++) {
            for (var x = 0u; x < vs.x; x++) {
                let s = surface_at(base + vec2<i32>(i32(x), i32(y)));
                floor_top = max(floor_top, s.low);
                if (s.dual && s.high >= s.mid) {
                    let mid = u32(s.mid);
                    let high = u32(s.high);
                    let k0 = select(0u, (mid - 1u) / vs.z, mid > 0u);
                    set_range(&col, k0, min(high / vs.z, dims.z - 1u));
                }
            }
        }
        set_range(&col, 0u, min(u32(floor_top) / vs.z, dims.z - 1u));
    }
    columns[lin] = col; // lin = y · 8 + x
    workgroupBarrier(); // every column of the tile is in workgroup memory before any word is assembled

    let tile_words = ((dims.z + 7u) >> 3u) * 16u;
    for (var i = lin; i < tile_words; i += 64u) {
        let tz = i >> 4u;
        let w = i & 15u;
        // Word w holds Morton bits 32w..32w+31: bits 5..8 of the index (z1, x2, y2, z2) are w's bits 0..3.
        let xh = ((w >> 1u) & 1u) << 2u;
        let yh = ((w >> 2u) & 1u) << 2u;
        let zh = ((w & 1u) << 1u) | (((w >> 3u) & 1u) << 2u);
        var word = 0u;
        for (var b = 0u; b < 32u; b++) {
            let lx = xh | (b & 1u) | ((b >> 2u) & 2u);
            let ly = yh | ((b >> 1u) & 1u) | ((b >> 3u) & 2u);
            let z = tz * 8u + (zh | ((b >> 2u) & 1u));
            word |= ((columns[ly * 8u + lx][z >> 5u] >> (z & 31u)) & 1u) << b;
        }
        vg.words[voxel_tile_word(0u, vec3<u32>(tile, tz)) + w] = word;
    }
}
