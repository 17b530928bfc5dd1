#version 460
#extension GL_GOOGLE_include_directive : require
// CDLOD skirts: one instance per skirt side (a quadrant's side of N/2 quads), a strip whose top edge is the
// patch's edge vertices (morphed like the patch's, so it hangs from exactly that edge) and whose bottom edge is
// the same vertices lowered by the node's skirt depth. Even vertices are the top, odd ones the bottom.
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "cdlod_vertex.glsl"

layout(location = 0) out vec3 rel;
layout(location = 1) flat out uint node_index;
layout(location = 2) out vec2 grid;

void main() {
    uint inst = instances[frame.instance_base.x + uint(gl_InstanceIndex)];
    uint v = uint(gl_VertexIndex), side = inst & 3u, q = (inst >> 2) & 3u;
    float k;
    node_index = inst >> 4;
    CdlodNode n = nodes[node_index];
    rel = cdlod_vertex(n, cdlod_skirt_grid(q, side, v >> 1), k);
    if ((v & 1u) != 0u) rel.z -= n.skirt;
    grid = vec2(float(v >> 1), float(v & 1u));
    gl_Position = g.view_proj * vec4(rel, 1.0);
}
