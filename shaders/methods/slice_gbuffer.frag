#version 460
#extension GL_GOOGLE_include_directive : require
// Sliced, refined, textured shading: slice.frag's band of the pixel's ray, its refined point kept in the G-buffer
// instead of shaded (gbuffer.glsl), for deferred_shade.comp to shade once per pixel — the nearest plane's, whatever
// the overdraw of the planes. The depth only grows farther, as slice.frag's.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "slice_band.glsl"
#include "gbuffer.glsl"

layout(push_constant) uniform SlicePush { // slice.frag's
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
layout(location = 0) out vec4 out_point;
layout(depth_less) out float gl_FragDepth;

void main() {
    SliceRay r = slice_ray(gl_FragCoord.xy);
    bool on_plane;
    float hit = slice_band(r, plane_z, plane_first != 0u, pc.dz, pc.max_steps, 0.0, 0.0, on_plane);
    if (hit < 0.0) discard;
    out_point = vec4(slice_hit_point(r, hit, on_plane, plane_z), GBUFFER_COLUMN);
    gl_FragDepth = depth_from_view_z(hit * r.cos_axis);
}
