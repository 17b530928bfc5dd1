#version 460
#extension GL_GOOGLE_include_directive : require
// Sliced, refined: one fragment is one plane's band of the pixel's ray (slice_band.glsl); it writes the refined
// point's depth. The refined point is never nearer than the plane, so the depth only grows farther (depth_less
// in reverse-Z) and the early depth test stays valid.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "slice_band.glsl"

layout(push_constant) uniform SlicePush {
    vec4 bounds;
    float z_below;
    float z_above;
    float dz;
    float pad0;
    uint n_below;
    uint n_above;
    uint max_steps;
    uint pad;
} pc;

layout(location = 0) flat in float plane_z;
layout(location = 1) flat in uint plane_first;
layout(location = 0) out vec4 out_color;
layout(depth_less) out float gl_FragDepth;

void main() {
    SliceRay r = slice_ray(gl_FragCoord.xy);
    bool on_plane;
    float hit = slice_band(r, plane_z, plane_first != 0u, pc.dz, pc.max_steps, 0.0, 0.0, on_plane);
    if (hit < 0.0) discard;
    vec3 p = slice_hit_point(r, hit, on_plane, plane_z);
    out_color = vec4(shade_point(p, surface_at(ivec2(floor(p.xy))), vec3(0.0)), 1.0);
    gl_FragDepth = depth_from_view_z(hit * r.cos_axis);
}
