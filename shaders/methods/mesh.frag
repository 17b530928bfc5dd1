#version 460
#extension GL_GOOGLE_include_directive : require
// Mesh: flat geometric normal from the screen derivatives of the world position (the triangle's plane),
// turned toward the eye, blended with the gradient normal and shaded by the shared path.
#include "globals.glsl"
#include "surface.glsl"
#include "shading.glsl"
#include "mesh_shade.glsl"

layout(location = 0) in vec3 world;
layout(location = 1) flat in uint layer;
layout(location = 0) out vec4 color;

void main() {
    vec3 n = cross(dFdx(world), dFdy(world));
    float len = length(n);
    n = len > 0.0 ? n / len : vec3(0.0, 0.0, 1.0);
    if (dot(n, g.eye.xyz - world) < 0.0) n = -n;
    color = vec4(mesh_shade(world, layer, n), 1.0);
}
