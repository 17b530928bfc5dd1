// WGSL port of shaders/common/mesh_vertex.glsl: the mesh's 4-byte vertex (st_mesh_vertex) — chunk-local x, y,
// height and a tag byte holding the layer (bits 0-1) and, on slab vertices, a half-texel shift (bits 2-5).
// Requires globals.wgsl.
fn mesh_vertex_offset(raw: u32) -> vec3<f32> {
    let tag = raw >> 24u;
    let shift = 0.5 * vec2<f32>(f32((tag >> 3u) & 1u) - f32((tag >> 2u) & 1u),
                                f32((tag >> 5u) & 1u) - f32((tag >> 4u) & 1u));
    return vec3<f32>(vec2<f32>(f32(raw & 255u), f32((raw >> 8u) & 255u)) + shift, f32((raw >> 16u) & 255u));
}

// The st_mesh_layer: 0 floor, 1 ceiling (and walls), 2 top.
fn mesh_vertex_layer(raw: u32) -> u32 {
    return (raw >> 24u) & 3u;
}

// World position of a vertex of the chunk copy whose sample (0, 0) lies at origin; along a bounded axis the mesh
// ends at the level's edges (0 and W), as natively.
fn mesh_vertex_world(origin: vec2<f32>, raw: u32) -> vec3<f32> {
    var p = vec3<f32>(origin, 0.0) + mesh_vertex_offset(raw);
    if (g.knobs.w != 0u) {
        for (var a = 0; a < 2; a++) {
            if ((g.knobs.w & (LEVEL_BOUNDED_X << u32(a))) == 0u) { continue; } // x, then y
            let size = g.level_info[a];
            p[a] = select(min(p[a], size), 0.0, p[a] <= 0.5);
        }
    }
    return p;
}
