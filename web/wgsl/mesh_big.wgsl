// Mesh, compute variant, pass 2: WGSL port of shaders/methods/mesh_big.comp — the large triangles queued by pass
// 1 (dispatched indirectly). Workgroup (i, s) walks the 8×8-pixel tiles s, s + S, s + 2S, ... of big triangle i's
// box (S = the dispatch's groups in y), one pixel per invocation. Run once per phase over the same queue.
//! requires globals.wgsl camera.wgsl mesh_vertex.wgsl mesh_tri.wgsl vis_tri.wgsl

// the queue as pass 1 left it, read only (it is this dispatch's indirect arguments too)
struct BigQueue {
    groups_x: u32,
    groups_y: u32,
    groups_z: u32,
    offered: u32,
    items: array<u32>,
}
@group(2) @binding(4) var<storage, read> big: BigQueue;

@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let tri = big.items[wg.x];
    if (!mesh_phase_wants(tri)) { return; }
    let m = mesh_fetch(tri);
    let t = vis_setup(m.rel);
    if (t.box.x > t.box.z || t.box.y > t.box.w) { return; }
    let tiles = (t.box.zw - t.box.xy) / 8 + 1;
    for (var i = i32(wg.y); i < tiles.x * tiles.y; i += i32(groups.y)) {
        let px = t.box.xy + 8 * vec2<i32>(i % tiles.x, i / tiles.x) + vec2<i32>(lid.xy);
        if (px.x > t.box.z || px.y > t.box.w) { continue; }
        vis_splat(px, vis_pixel_depth(t, px), tri);
    }
}
