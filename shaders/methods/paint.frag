#version 460
#extension GL_GOOGLE_include_directive : require
// Painted: shades a bar face with the shared path at the fragment's world position, held inside the
// block so the texel under it (and its gradient normal) is the bar's own, not the neighbour across the face.
#include "globals.glsl"
#include "surface.glsl"
#include "shading.glsl"

layout(location = 0) in vec3 world;
layout(location = 1) flat in ivec4 block;
layout(location = 0) out vec4 out_color;

void main() {
    vec2 lo = vec2(block.xy) + 1e-3, hi = vec2(block.xy + block.z) - 1e-3;
    vec3 p = vec3(clamp(world.xy, lo, hi), world.z);
    out_color = vec4(shade_point(p, surface_at(ivec2(floor(p.xy))), vec3(0.0)), 1.0);
}
