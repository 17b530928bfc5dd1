#version 460
#extension GL_GOOGLE_include_directive : require
// Sliced, the paper's variant, textured shading: slice_plain.frag's plane sample kept in the G-buffer where it is
// SOLID instead of shaded (gbuffer.glsl), for deferred_shade.comp to shade once per pixel; the rasterised depth of
// the plane is the depth.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "gbuffer.glsl"

layout(location = 0) flat in float plane_z;
layout(location = 1) flat in uint plane_first;
layout(location = 0) out vec4 out_point;

void main() {
    // the pixel's own ray cut with the plane: the same point the reference's ray passes through
    vec3 d = pixel_dir(gl_FragCoord.xy);
    vec3 p = g.eye.xyz + d * ((plane_z - g.eye.z) / d.z);
    p.z = plane_z;
    if (!surface_solid(surface_at(ivec2(floor(p.xy))), plane_z)) discard;
    out_point = vec4(p, GBUFFER_COLUMN);
}
