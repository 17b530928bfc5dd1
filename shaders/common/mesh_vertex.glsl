// The mesh's 4-byte vertex (st_mesh_vertex, include/strata/mesh.h): chunk-local x, y, height and a tag byte
// holding the layer (bits 0-1) and, on slab vertices, a half-texel shift (bits 2-5) that puts slab outlines
// on texel edges. Shared by mesh.vert and mesh_tri.glsl; mesh_vertex_world requires globals.glsl.

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

// World position of a vertex of the chunk copy whose sample (0, 0) lies at `origin`. Along a bounded axis
// (g.knobs.w, as in surface.glsl) the mesh ends at the level's edges: the first texel's centre (≤ 0.5) moves
// out to 0, and the far side of the last chunk (≥ W: samples that copy the last texel, src/mesh/chunks.c) in
// to W, so the surface covers [0, W] and nothing past it. Monotone, so no triangle turns over.
vec3 mesh_vertex_world(vec2 origin, uint raw) {
    vec3 p = vec3(origin, 0.0) + mesh_vertex_offset(raw);
    if (g.knobs.w != 0u) {
        for (int a = 0; a < 2; a++) {
            if ((g.knobs.w & (LEVEL_BOUNDED_X << uint(a))) == 0u) continue; // x, then y
            float size = g.level_info[a];
            p[a] = p[a] <= 0.5 ? 0.0 : min(p[a], size);
        }
    }
    return p;
}
