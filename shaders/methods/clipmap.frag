#version 460
#extension GL_GOOGLE_include_directive : require
// Geometry clipmaps: the blended normal of the point's level, the hypsometric albedo, the sun's visibility from
// the march over the finest tiles on the GPU, fog (clip_shade, shared with the compute variant's resolve). The
// wireframe overlay draws the grid's rows, columns and diagonals in the level's colour.
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "clipmap_vertex.glsl"

layout(location = 0) in vec3 rel;
layout(location = 1) flat in uint level;
layout(location = 2) in vec2 grid;
layout(location = 3) in float valid;
layout(location = 0) out vec4 color;

// distance in pixels to the nearest grid line of the triangulation: x, y and x − y integral
float edge_pixels(vec2 gp) {
    vec3 c = vec3(gp, gp.x - gp.y);
    vec3 d = abs(c - round(c)) / max(fwidth(c), vec3(1e-6));
    return min(d.x, min(d.y, d.z));
}

void main() {
    if (valid < 0.999) discard; // interpolation need not return 1 exactly
    vec3 c = clip_shade(level, rel);
    if (clip.info.w != 0u && edge_pixels(grid) < 0.6) c = clip_level_color(level);
    color = vec4(c, 1.0);
}
