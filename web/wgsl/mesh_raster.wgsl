// Mesh, compute variant, pass 1: WGSL port of shaders/methods/mesh_raster.comp — one invocation per selected
// triangle. Small triangles are rasterised here (bounding-box loop, exact ray test per pixel, vis_splat);
// triangles whose box exceeds MESH_BIG_AREA pixels go to the big queue in phase 0, which mesh_big.wgsl shares out
// among many invocations, and are left to it in phase 1 (the queue is kept between the phases).
//! requires globals.wgsl camera.wgsl mesh_vertex.wgsl mesh_tri.wgsl vis_tri.wgsl

const MESH_BIG_AREA: i32 = 256;

// triangles too large for one invocation: the indirect dispatch (groups_x counts them) and their ids
struct BigQueue {
    groups_x: atomic<u32>,
    groups_y: u32,
    groups_z: u32,
    offered: atomic<u32>,
    items: array<u32>,
}
@group(2) @binding(4) var<storage, read_write> big: BigQueue;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let tri = id.y * pc.row_threads + id.x;
    if (tri >= pc.tri_total || !mesh_phase_wants(tri)) { return; }
    let m = mesh_fetch(tri);
    let t = vis_setup(m.rel);
    if (t.box.x > t.box.z || t.box.y > t.box.w) { return; }
    let area = (t.box.z - t.box.x + 1) * (t.box.w - t.box.y + 1);
    if (area > MESH_BIG_AREA) {
        if (pc.phase == 0u) {
            let slot = atomicAdd(&big.offered, 1u);
            if (slot < pc.big_cap) {
                big.items[slot] = tri;
                atomicAdd(&big.groups_x, 1u);
                return;
            }
        } else if (atomicLoad(&big.offered) <= pc.big_cap) {
            return; // every big one was queued: the big pass has it
        }
        // the queue was full: rasterise it here (bounded by the screen). In phase 1 every big triangle is then
        // rasterised here, the queued ones again in the big pass too: a repeated id splat changes nothing.
    }
    for (var y = t.box.y; y <= t.box.w; y++) {
        for (var x = t.box.x; x <= t.box.z; x++) {
            let px = vec2<i32>(x, y);
            vis_splat(px, vis_pixel_depth(t, px), tri);
        }
    }
}
