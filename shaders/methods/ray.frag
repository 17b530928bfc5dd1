#version 460
#extension GL_GOOGLE_include_directive : require
// RayTraced, fragment variant: one ray per pixel of a full-screen triangle.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "ray_march.glsl"

layout(location = 0) out vec4 out_color;

void main() {
    vec3 color;
    float depth;
    trace_pixel(gl_FragCoord.xy, color, depth);
    out_color = vec4(color, 1.0); // the sRGB attachment encodes
    gl_FragDepth = depth;
}
