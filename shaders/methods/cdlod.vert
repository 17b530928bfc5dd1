#version 460
#extension GL_GOOGLE_include_directive : require
// CDLOD, rasterised: one instance per drawn quadrant of a selected node, of the shared (N/2)×(N/2) quarter of the
// N×N patch grid (a node drawing all four quadrants is four instances); gl_VertexIndex is the vertex of that
// quarter, the instance names the node and the quadrant. No vertex input: everything is read from the nodes.
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "cdlod_vertex.glsl"

layout(location = 0) out vec3 rel;
layout(location = 1) flat out uint node_index;
layout(location = 2) out vec2 grid; // the vertex's grid coordinate, for the wireframe overlay

void main() {
    uint inst = instances[gl_InstanceIndex];
    uint q = inst & 15u, half_n = frame.info.y / 2u, v = uint(gl_VertexIndex);
    uvec2 ij = uvec2(v % (half_n + 1u), v / (half_n + 1u)) + uvec2(q & 1u, q >> 1) * half_n;
    float k;
    node_index = inst >> 4;
    rel = cdlod_vertex(nodes[node_index], vec2(ij), k);
    grid = vec2(ij);
    gl_Position = g.view_proj * vec4(rel, 1.0);
}
