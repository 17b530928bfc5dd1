#version 460
#extension GL_GOOGLE_include_directive : require
// Painted, textured shading: the point paint.frag shades a bar face at (paint_point: the first SOLID point of the
// pixel's ray from the face, inside its texel) kept in the G-buffer instead of shaded (gbuffer.glsl), for
// deferred_shade.comp to shade once per pixel.
#include "globals.glsl"
#include "surface.glsl"
#include "shading.glsl"
#include "paint_shade.glsl"
#include "gbuffer.glsl"

layout(location = 0) in vec3 world;
layout(location = 1) flat in ivec4 block; // x0, y0, size, bar
layout(location = 0) out vec4 out_point;

void main() {
    ivec2 cell;
    out_point = vec4(paint_point(world, block, cell), GBUFFER_COLUMN);
}
