// The water's compute rasteriser (src/render/passes/water.c): its set 2 — the ring grid's displaced vertices, the
// lattice's indices, the visibility buffer, the big-triangle queue and the outputs — and the fetch of a triangle
// of the frame for the rasterising passes and the resolve. Requires globals.glsl, camera.glsl, water_common.glsl
// and GL_EXT_shader_explicit_arithmetic_types_int64 (VIS_SPLAT also GL_EXT_shader_atomic_int64).

// per ring, the (n + 1)² lattice points displaced, world units (water_lattice_*.comp); after the last ring's
// (WATER_RING_MAX of them: RING_MAX in water.c) the surface's height over the eye
layout(set = 2, binding = 0, std430) buffer WaterVertices { vec4 water_vertices[]; };
#define WATER_RING_MAX 16u
uint water_eye_slot() { uint n1 = uint(water.grid.y) + 1u; return WATER_RING_MAX * n1 * n1; }
// the lattice's triangles: the full square, then the four rings with their hole offset (water.c)
layout(set = 2, binding = 1, std430) readonly buffer WaterIndices { uint water_indices[]; };
// per pixel: reverse-Z depth bits (high 32) and triangle id (low 32); 0 = no water
layout(set = 2, binding = 2, std430) buffer Visibility { uint64_t vis[]; };
// triangles too large for one invocation: the indirect dispatch (groups_x counts them) and their ids
layout(set = 2, binding = 3, std430) buffer BigQueue {
    uint groups_x, groups_y, groups_z;
    uint offered;
    uint items[];
} big;
// the resolve's outputs: the colour (sRGB-encoded bytes: the target's own over storage targets, the pass's copy
// of it over raster targets) and every pixel's depth, copied into the depth target afterwards
layout(set = 2, binding = 4, rgba8) uniform writeonly image2D out_color;
layout(set = 2, binding = 5, std430) writeonly buffer OutDepth { float out_depth[]; };

// Mirror of water_compute_push in src/render/passes/water.c
layout(push_constant) uniform WaterComputePush {
    uint tri_total;   // triangles of all rings
    uint big_cap;     // capacity of big.items
    uint row_threads; // invocations per dispatch row (2-D dispatch of a 1-D range)
    uint rings;
} pc;

#include "vis_tri.glsl"

// The ring holding frame-wide triangle id `tri`: the last one whose first id is ≤ tri.
uint water_find_ring(uint tri) {
    uint i = 0u;
    while (i + 1u < pc.rings && water.ring_tris[i + 1u].x <= tri) i++;
    return i;
}

// The triangle's corners relative to the eye and their rest points (relative to O), ordered to face the eye:
// both faces are drawn (the underside shows from below), so a back face is turned around.
void water_fetch(uint tri, out vec3 rel[3], out vec2 rest[3]) {
    uint i = water_find_ring(tri);
    uvec4 rt = water.ring_tris[i];
    vec4 ring = water.ring[i];
    uint n1 = uint(water.grid.y) + 1u;
    uint k = rt.y + 3u * (tri - rt.x);
    for (int c = 0; c < 3; c++) {
        uint v = water_indices[k + uint(c)];
        rel[c] = water_vertices[i * n1 * n1 + v].xyz - g.eye.xyz;
        rest[c] = ring.xy + vec2(v % n1, v / n1) * ring.z;
    }
    if (dot(vis_cross(rel[1] - rel[0], rel[2] - rel[0]), rel[0]) > 0.0) {
        vec3 r = rel[1];
        rel[1] = rel[2];
        rel[2] = r;
        vec2 q = rest[1];
        rest[1] = rest[2];
        rest[2] = q;
    }
}
