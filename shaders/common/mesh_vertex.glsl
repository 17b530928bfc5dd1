// The mesh's 4-byte vertex (st_mesh_vertex, include/strata/mesh.h): chunk-local x, y, height and a tag byte
// holding the layer (bits 0-1) and, on slab vertices, a half-texel shift (bits 2-5) that puts slab outlines
// on texel edges. Shared by mesh.vert and mesh_tri.glsl.

// Position relative to the chunk copy's origin (the world position of its sample (0, 0), a texel centre).
vec3 mesh_vertex_offset(uint raw) {
    uint tag = raw >> 24;
    vec2 shift = 0.5 * vec2(float((tag >> 3) & 1u) - float((tag >> 2) & 1u), float((tag >> 5) & 1u) - float((tag >> 4) & 1u));
    return vec3(vec2(float(raw & 255u), float((raw >> 8) & 255u)) + shift, float((raw >> 16) & 255u));
}

// The st_mesh_layer: 0 floor, 1 ceiling (and walls), 2 top.
uint mesh_vertex_layer(uint raw) {
    return (raw >> 24) & 3u;
}
