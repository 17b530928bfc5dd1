#version 460
#extension GL_GOOGLE_include_directive : require
// CDLOD wireframe overlay: the triangle edges of every drawn quadrant, coloured by the node's LOD level.
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "cdlod_vertex.glsl"

layout(location = 0) in vec3 rel;
layout(location = 1) flat in uint node_index;
layout(location = 0) out vec4 color;

void main() {
    color = vec4(cdlod_level_color(nodes[node_index].level), 1.0);
}
