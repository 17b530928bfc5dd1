#version 460
#extension GL_GOOGLE_include_directive : require
// CDLOD: the point's normal from its node's tile, the hypsometric albedo, the sun's visibility from the march
// over the finest tiles on the GPU, fog (cdlod_shade, shared with the compute variant's resolve). The wireframe
// overlay draws the grid's edges (its rows, columns and diagonals, found from the interpolated grid coordinate)
// in the node's level colour, so hidden edges never show (the compute variant's resolve does the same per triangle).
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "cdlod_vertex.glsl"

layout(location = 0) in vec3 rel;
layout(location = 1) flat in uint node_index;
layout(location = 2) in vec2 grid;
layout(location = 0) out vec4 color;

// distance in pixels to the nearest grid line of the triangulation: x, y and x − y integral
float edge_pixels(vec2 g) {
    vec3 c = vec3(g, g.x - g.y);
    vec3 d = abs(c - round(c)) / max(fwidth(c), vec3(1e-6));
    return min(d.x, min(d.y, d.z));
}

void main() {
    CdlodNode n = nodes[node_index];
    vec3 c = cdlod_shade(n, rel);
    if (frame.eye_world.z != 0.0 && edge_pixels(grid) < 0.6) c = cdlod_level_color(n.level);
    color = vec4(c, 1.0);
}
