#version 460
#extension GL_GOOGLE_include_directive : require
// Mesh wireframe overlay (the viewer's X toggle): the triangle edges of the drawn LODs in a dark line colour,
// drawn over the shaded mesh with a small depth bias toward the eye.
#include "globals.glsl"

layout(location = 0) in vec3 world;
layout(location = 1) flat in uint layer;
layout(location = 0) out vec4 color;

void main() {
    color = layer == 0u ? vec4(0.02, 0.02, 0.03, 1.0) : vec4(0.45, 0.05, 0.02, 1.0); // floor dark, slab red
}
