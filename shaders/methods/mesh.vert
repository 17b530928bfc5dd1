#version 460
#extension GL_GOOGLE_include_directive : require
// Mesh: one indexed draw per visible chunk copy. The 4-byte vertices (chunk-local x, y, height, layer and
// slab shift; mesh_vertex.glsl) are read from a storage buffer by gl_VertexIndex (which includes the draw's
// vertex offset), so no vertex input state is needed; the copy's world origin comes as a push constant.
#include "globals.glsl"
#include "mesh_vertex.glsl"

#ifdef ST_NO_STORAGE_BUFFERS
// The web build: WebGL2 has neither storage buffers nor a draw's base vertex. The vertices are a list texture
// of MESH_LIST_WIDTH ivec4s a row (src/gpu/backend.h, ST_GB_LIST_WIDTH), four vertices a texel, and the draw's
// first vertex comes as a push constant (web/methods/mesh.c).
const uint MESH_LIST_WIDTH = 1024u;
layout(set = 1, binding = 0) uniform highp isampler2D mesh_vertex_list;
#else
layout(set = 1, binding = 0, std430) readonly buffer MeshVertices { uint mesh_vertices[]; };
#endif

// Mirror of mesh_draw_push in src/render/methods/mesh.c (and web/methods/mesh.c)
layout(push_constant) uniform MeshDrawPush {
    vec4 origin; // xy: world position of the chunk's sample (0, 0) in this copy (texel centre); zw unused
#ifdef ST_NO_STORAGE_BUFFERS
    uint vertex_base; // the chunk's first vertex in the list (natively the draw's vertex offset)
#endif
} pc;

layout(location = 0) out vec3 world;
layout(location = 1) flat out uint layer;

void main() {
#ifdef ST_NO_STORAGE_BUFFERS
    uint v = pc.vertex_base + uint(gl_VertexIndex), t = v >> 2;
    ivec4 quad = texelFetch(mesh_vertex_list, ivec2(int(t % MESH_LIST_WIDTH), int(t / MESH_LIST_WIDTH)), 0);
    uint raw = uint(quad[int(v & 3u)]);
#else
    uint raw = mesh_vertices[gl_VertexIndex];
#endif
    world = mesh_vertex_world(pc.origin.xy, raw);
    layer = mesh_vertex_layer(raw);
    gl_Position = g.view_proj * vec4(world, 1.0);
}
