// WGSL port of shaders/common/mesh_tri.glsl: the mesh-compute method's data (group 2) and its triangle fetch,
// shared by the rasterising passes (mesh_raster.wgsl, mesh_big.wgsl) and the resolve (mesh_resolve.wgsl). WebGPU
// has no 64-bit atomics, so the native visibility buffer (reverse-Z depth bits << 32 | triangle id, one atomicMax)
// is two 32-bit words a pixel here: the depth bits, and the id + 1 of the triangle that has them (vis_tri.wgsl's
// vis_splat, docs/web.md). The big-triangle queue (binding 4) is declared by each pass as it uses it. Requires
// globals.wgsl and mesh_vertex.wgsl.

// Mirror of mesh_record in web/methods/mesh_compute.c: one visible chunk copy at one LOD.
struct MeshRecord {
    origin: vec2<f32>, // world position of the chunk's sample (0, 0) in this copy (texel centre)
    vb_first: u32,     // first vertex of the chunk in the vertex buffer
    ib_first: u32,     // first index of the LOD's triangles in the index buffer
    tri_first: u32,    // frame-wide id of the record's first triangle (prefix sum)
    tri_count: u32,
    pad0: u32,
    pad1: u32,
}

@group(2) @binding(0) var<storage, read> mesh_vertices: array<u32>;
@group(2) @binding(1) var<storage, read> mesh_indices: array<u32>; // u16 pairs
@group(2) @binding(2) var<storage, read> records: array<MeshRecord>;
// per pixel: the nearest reverse-Z depth's bits (0 = nothing drawn), and the id + 1 of the triangle met there
@group(2) @binding(3) var<storage, read_write> vis_depth: array<atomic<u32>>;
@group(2) @binding(5) var<storage, read_write> vis_id: array<atomic<u32>>;
// per triangle: the frame's stamp where phase 0 found it the nearest so far at some pixel; phase 1 passes over the
// others at once (none of them can be the nearest anywhere)
@group(2) @binding(6) var<storage, read_write> tri_stamp: array<u32>;

// Mirror of mesh_compute_push in web/methods/mesh_compute.c (the native push constants and the pass's phase)
struct MeshComputePush {
    tri_total: u32,    // triangles of all records
    record_count: u32,
    big_cap: u32,      // capacity of the big queue's items
    row_threads: u32,  // invocations per dispatch row (2-D dispatch of a 1-D range)
    wireframe: u32,    // the resolve draws the visible triangles' edges
    phase: u32,        // the rasterising passes: 0 splats depths, 1 the ids of the triangles that have them
    stamp: u32,        // this frame's mark in tri_stamp (never 0)
    pad1: u32,
}
@group(3) @binding(0) var<uniform> pc: MeshComputePush;

// Whether a rasterising pass has work for triangle tri: every triangle in phase 0; in phase 1 only those that
// were the nearest so far at some pixel in phase 0 (the nearest at the end is one of them).
fn mesh_phase_wants(tri: u32) -> bool {
    return pc.phase == 0u || tri_stamp[tri] == pc.stamp;
}

fn mesh_index(k: u32) -> u32 {
    let w = mesh_indices[k >> 1u];
    return select(w & 0xFFFFu, w >> 16u, (k & 1u) != 0u);
}

// The record holding frame-wide triangle id tri: the last one whose first id is ≤ tri.
fn mesh_find_record(tri: u32) -> u32 {
    var lo = 0u;
    var hi = pc.record_count - 1u;
    while (lo < hi) {
        let mid = (lo + hi + 1u) >> 1u;
        if (records[mid].tri_first <= tri) { lo = mid; } else { hi = mid - 1u; }
    }
    return lo;
}

// A triangle's corners relative to the eye and the layer of its first vertex.
struct MeshTri {
    rel: array<vec3<f32>, 3>,
    layer: u32,
}

fn mesh_fetch(tri: u32) -> MeshTri {
    let r = records[mesh_find_record(tri)];
    let k = r.ib_first + 3u * (tri - r.tri_first);
    var m: MeshTri;
    for (var i = 0u; i < 3u; i++) {
        let raw = mesh_vertices[r.vb_first + mesh_index(k + i)];
        m.rel[i] = mesh_vertex_world(r.origin, raw) - g.eye.xyz;
        if (i == 0u) { m.layer = mesh_vertex_layer(raw); }
    }
    return m;
}
