// RayVoxel pyramid level: WGSL port of shaders/methods/voxel_mip.comp — each cell is the OR of its 2×2×2 children.
// One invocation per word of the parent level (16 per tile, 4 tiles along x per group). The 8 children of a parent
// cell are one byte of the child tile (their Morton index shares the parent's upper bits), so a parent word is
// "which bytes are non-zero" over half a child tile (8 words).
//! requires globals.wgsl voxel_grid.wgsl

// Mirror of voxel_mip_push (web/methods/voxel.c): the push constants, in the ports' group 3
struct Push {
    lod: u32,     // the parent level (>= 1)
    tile_x0: u32, // first parent tile of the region
    tile_y0: u32,
    tiles_x: u32, // region width in tiles
}
@group(3) @binding(0) var<uniform> pc: Push;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
    let lane = local.x;
    let rx = group.x * 4u + (lane >> 4u);
    if (rx >= pc.tiles_x) { return; }
    let pt = vec3<u32>(pc.tile_x0 + rx, pc.tile_y0 + group.y, group.z);
    let w = lane & 15u;
    // Parent word w covers parent cells with Morton bits 5..8 = (z1, x2, y2, z2) = w's bits 0..3: their children
    // lie in child tile 2·pt + (x2, y2, z2), in its lower or upper half (8 words) by z1.
    let ct = 2u * pt + vec3<u32>((w >> 1u) & 1u, (w >> 2u) & 1u, (w >> 3u) & 1u);
    let ctiles = voxel_tiles(pc.lod - 1u);
    var word = 0u;
    if (all(ct < ctiles)) {
        let base = voxel_tile_word(pc.lod - 1u, ct) + 8u * (w & 1u);
        for (var j = 0u; j < 8u; j++) {
            let v = vg.words[base + j];
            for (var k = 0u; k < 4u; k++) {
                if (((v >> (8u * k)) & 0xFFu) != 0u) { word |= 1u << (4u * j + k); }
            }
        }
    }
    vg.words[voxel_tile_word(pc.lod, pt) + w] = word;
}
