#version 460
#extension GL_GOOGLE_include_directive : require
// Mesh, textured shading, pass 1: what mesh.frag would shade, written instead of shaded — the surface point
// (xyz) and its layer (w), and the flat geometric normal from the screen derivatives turned toward the eye —
// so that deferred_shade.comp shades each pixel once, on every compute unit, whatever the overdraw (w: the
// layer, as gbuffer.glsl lays the G-buffer out).
#include "globals.glsl"

layout(location = 0) in vec3 world;
layout(location = 1) flat in uint layer;
layout(location = 0) out vec4 out_point;
layout(location = 1) out vec4 out_normal;

void main() {
    vec3 n = cross(dFdx(world), dFdy(world));
    float len = length(n);
    n = len > 0.0 ? n / len : vec3(0.0, 0.0, 1.0);
    if (dot(n, g.eye.xyz - world) < 0.0) n = -n;
    out_point = vec4(world, float(layer));
    out_normal = vec4(n, 0.0);
}
