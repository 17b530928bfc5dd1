#version 460
#extension GL_GOOGLE_include_directive : require
// Sliced, the paper's variant: a plane sample is kept where it is SOLID and shaded there; the rasterised
// depth of the plane is the depth (so bands appear at grazing angles: the surface is only known to the
// plane spacing).
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"

layout(location = 0) flat in float plane_z;
layout(location = 1) flat in uint plane_first;
layout(location = 0) out vec4 out_color;

void main() {
    // the pixel's own ray cut with the plane: the same point the reference's ray passes through
    vec3 d = pixel_dir(gl_FragCoord.xy);
    vec3 p = g.eye.xyz + d * ((plane_z - g.eye.z) / d.z);
    p.z = plane_z;
    Surface s = surface_at(ivec2(floor(p.xy)));
    if (!surface_solid(s, plane_z)) discard;
    out_color = vec4(shade_point(p, s, vec3(0.0)), 1.0);
}
