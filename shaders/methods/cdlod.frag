#version 460
#extension GL_GOOGLE_include_directive : require
// CDLOD: the point's normal from its node's tile, the hypsometric albedo, the sun's visibility from the march
// over the finest tiles on the GPU, fog (cdlod_shade, shared with the compute variant's resolve).
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "cdlod_vertex.glsl"

layout(location = 0) in vec3 rel;
layout(location = 1) flat in uint node_index;
layout(location = 0) out vec4 color;

void main() {
    color = vec4(cdlod_shade(nodes[node_index], rel), 1.0);
}
