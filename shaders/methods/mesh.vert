#version 460
#extension GL_GOOGLE_include_directive : require
// Mesh: one indexed draw per visible chunk copy. The 4-byte vertices (chunk-local x, y, height, layer and
// slab shift; mesh_vertex.glsl) are read from a storage buffer by gl_VertexIndex (which includes the draw's
// vertex offset), so no vertex input state is needed; the copy's world origin comes as a push constant.
#include "globals.glsl"
#include "mesh_vertex.glsl"

layout(set = 1, binding = 0, std430) readonly buffer MeshVertices { uint mesh_vertices[]; };

// Mirror of mesh_draw_push in src/render/methods/mesh.c
layout(push_constant) uniform MeshDrawPush {
    vec4 origin; // xy: world position of the chunk's sample (0, 0) in this copy (texel centre); zw unused
} pc;

layout(location = 0) out vec3 world;
layout(location = 1) flat out uint layer;

void main() {
    uint raw = mesh_vertices[gl_VertexIndex];
    world = mesh_vertex_world(pc.origin.xy, raw);
    layer = mesh_vertex_layer(raw);
    gl_Position = g.view_proj * vec4(world, 1.0);
}
