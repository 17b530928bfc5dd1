#version 460
#extension GL_GOOGLE_include_directive : require
// Painted: shades a bar face at the first SOLID point of the pixel's ray from the face (paint_shade.glsl).
#include "globals.glsl"
#include "surface.glsl"
#include "shading.glsl"
#include "paint_shade.glsl"

layout(location = 0) in vec3 world;
layout(location = 1) flat in ivec4 block; // x0, y0, size, bar
layout(location = 0) out vec4 out_color;

void main() { out_color = vec4(paint_shade(world, block), 1.0); }
