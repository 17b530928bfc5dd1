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

// a × b without fused multiply-adds: the edge functions of two triangles sharing an edge are then exact
// negatives of each other, so a pixel on the edge is covered by one of them or both, never by neither.
vec3 mesh_cross(vec3 a, vec3 b) {
    precise vec3 c = a.yzx * b.zxy - a.zxy * b.yzx;
    return c;
}

struct MeshTri {
    vec3 e0, e1, e2; // edge planes through the eye: the pixel ray d is inside when every dot(d, e) ≤ 0
    vec3 n;          // plane normal, facing the eye (front faces only)
    float n_rel0;    // dot(n, corner 0 − eye)
    ivec4 box;       // pixel bounds, inclusive (x0, y0, x1, y1); empty when x0 > x1
};

// Sets a triangle up for the pixel test: back faces and triangles wholly outside the near–far range or
// off screen come back empty. The box is the projection of the triangle clipped to the near plane.
MeshTri mesh_setup(vec3 rel[3]) {
    MeshTri t;
    t.box = ivec4(1, 1, 0, 0);
    t.n = mesh_cross(rel[1] - rel[0], rel[2] - rel[0]);
    t.n_rel0 = dot(t.n, rel[0]);
    if (!(t.n_rel0 < 0.0)) return t; // back-facing (emit winding: outward faces are counter-clockwise) or degenerate
    float near = g.level_info.z, far = g.eye.w;
    float z[3];
    for (int i = 0; i < 3; i++) z[i] = dot(rel[i], g.forward.xyz);
    if (max(z[0], max(z[1], z[2])) < near || min(z[0], min(z[1], z[2])) > far) return t;
    vec2 lo = vec2(1e30), hi = vec2(-1e30);
    vec2 half_size = 0.5 * vec2(g.screen_right.w, g.screen_up.w);
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3;
        for (int k = 0; k < 2; k++) {
            vec3 q;
            float zq;
            if (k == 0) {
                if (z[i] < near) continue;
                q = rel[i], zq = z[i];
            } else {
                if ((z[i] < near) == (z[j] < near)) continue;
                q = mix(rel[i], rel[j], (near - z[i]) / (z[j] - z[i])); // where the edge crosses the near plane
                zq = near;
            }
            vec2 s = half_size + g.forward.w / zq * vec2(dot(q, g.screen_right.xyz), -dot(q, g.screen_up.xyz));
            lo = min(lo, s);
            hi = max(hi, s);
        }
    }
    // every pixel whose square meets the bounds (conservative: the exact test decides)
    ivec2 size = ivec2(g.screen_right.w, g.screen_up.w);
    ivec2 a = ivec2(max(floor(lo - 0.5), vec2(0.0))), b = ivec2(min(floor(hi + 0.5), vec2(size - 1)));
    t.box = ivec4(a, b);
    t.e0 = mesh_cross(rel[0], rel[1]);
    t.e1 = mesh_cross(rel[1], rel[2]);
    t.e2 = mesh_cross(rel[2], rel[0]);
    return t;
}

// The pixel's reverse-Z depth on the triangle, or 0 when the ray misses it or meets it outside near–far.
float mesh_pixel_depth(MeshTri t, ivec2 px) {
    vec3 d = pixel_dir(vec2(px) + 0.5);
    if (max(dot(d, t.e0), max(dot(d, t.e1), dot(d, t.e2))) > 0.0) return 0.0;
    float view_z = g.forward.w * t.n_rel0 / dot(t.n, d); // the ray eye + d·s meets the plane at s = view_z/focal
    if (!(view_z >= g.level_info.z && view_z <= g.eye.w)) return 0.0;
    return depth_from_view_z(view_z);
}

#ifdef MESH_SPLAT // the rasterising passes (GL_EXT_shader_atomic_int64)
void mesh_splat(ivec2 px, float depth, uint tri) {
    if (depth <= 0.0) return;
    uint64_t v = (uint64_t(floatBitsToUint(depth)) << 32) | uint64_t(tri);
    atomicMax(vis[px.y * int(g.screen_right.w) + px.x], v); // larger reverse-Z depth = nearer
}
#endif
