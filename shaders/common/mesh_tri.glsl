// The mesh-compute method's data and its exact per-pixel triangle test, shared by the rasterising passes
// (mesh_raster.comp, mesh_big.comp) and the resolve (mesh_resolve.comp). Requires globals.glsl,
// camera.glsl and GL_EXT_shader_explicit_arithmetic_types_int64.

#include "mesh_vertex.glsl"

// Mirror of mesh_record in src/render/methods/mesh.c: one visible chunk copy at one LOD.
struct MeshRecord {
    vec2 origin;    // world position of the chunk's sample (0, 0) in this copy (texel centre)
    uint vb_first;  // first vertex of the chunk in the vertex buffer
    uint ib_first;  // first index of the LOD's triangles in the index buffer
    uint tri_first; // frame-wide id of the record's first triangle (prefix sum)
    uint tri_count;
    uint pad0, pad1;
};

layout(set = 1, binding = 0, std430) readonly buffer MeshVertices { uint mesh_vertices[]; };
layout(set = 1, binding = 1, std430) readonly buffer MeshIndices { uint mesh_indices[]; }; // u16 pairs
layout(set = 1, binding = 2, std430) readonly buffer MeshRecords { MeshRecord records[]; };
// per pixel: reverse-Z depth bits (high 32) and triangle id (low 32); 0 = nothing drawn
layout(set = 1, binding = 3, std430) buffer Visibility { uint64_t vis[]; };
// triangles too large for one invocation: the indirect dispatch (groups_x counts them) and their ids
layout(set = 1, binding = 4, std430) buffer BigQueue {
    uint groups_x, groups_y, groups_z;
    uint offered;
    uint items[];
} big;

// Mirror of mesh_compute_push in src/render/methods/mesh.c
layout(push_constant) uniform MeshComputePush {
    uint tri_total;    // triangles of all records
    uint record_count;
    uint big_cap;      // capacity of big.items
    uint row_threads;  // invocations per dispatch row (2-D dispatch of a 1-D range)
    uint wireframe;    // the viewer's overlay: the resolve draws the visible triangles' edges
} pc;

uint mesh_index(uint k) {
    uint w = mesh_indices[k >> 1];
    return (k & 1u) != 0u ? w >> 16 : w & 0xFFFFu;
}

// The record holding frame-wide triangle id `tri`: the last one whose first id is ≤ tri.
uint mesh_find_record(uint tri) {
    uint lo = 0u, hi = pc.record_count - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) >> 1;
        if (records[mid].tri_first <= tri) lo = mid;
        else hi = mid - 1u;
    }
    return lo;
}

// The triangle's corners relative to the eye and the layer of its first vertex.
void mesh_fetch(uint tri, out vec3 rel[3], out uint layer) {
    MeshRecord r = records[mesh_find_record(tri)];
    uint k = r.ib_first + 3u * (tri - r.tri_first);
    for (int i = 0; i < 3; i++) {
        uint raw = mesh_vertices[r.vb_first + mesh_index(k + uint(i))];
        vec3 p = mesh_vertex_world(r.origin, raw);
        rel[i] = p - g.eye.xyz;
        if (i == 0) layer = mesh_vertex_layer(raw);
    }
}

#include "vis_tri.glsl"
