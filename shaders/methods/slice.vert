#version 460
#extension GL_GOOGLE_include_directive : require
// Sliced: one horizontal quad per instance over the visible ground bounds, no vertex stream. Instances
// [0, n_below) are the planes under the eye, nearest (highest) first; the rest are the planes over the
// eye, nearest (lowest) first — so each pixel meets its nearest plane first and early depth tests cull
// the rest. Shared by slice.frag (refined) and slice_plain.frag (the paper's variant).
#include "globals.glsl"

layout(push_constant) uniform SlicePush {
    vec4 bounds;     // x0, y0, x1, y1 of the quads
    float z_below;   // height of the first plane under the eye
    float z_above;   // height of the first plane over the eye
    float dz;        // plane spacing
    float pad0;
    uint n_below;
    uint n_above;
    uint max_steps;  // refined: samples per band at most
    uint pad;
} pc;

layout(location = 0) flat out float plane_z;
layout(location = 1) flat out uint plane_first; // the first plane of its stack: nothing nearer sampled

void main() {
    uint i = uint(gl_InstanceIndex);
    bool below = i < pc.n_below;
    plane_z = below ? pc.z_below - float(i) * pc.dz : pc.z_above + float(i - pc.n_below) * pc.dz;
    plane_first = (i == 0u || i == pc.n_below) ? 1u : 0u;
    // two triangles: corners (0,1,2) and (2,1,3) of the bounds, corner bit 0 = x1, bit 1 = y1
    uint c = uint[6](0u, 1u, 2u, 2u, 1u, 3u)[gl_VertexIndex];
    vec2 xy = vec2((c & 1u) != 0u ? pc.bounds.z : pc.bounds.x, (c & 2u) != 0u ? pc.bounds.w : pc.bounds.y);
    gl_Position = g.view_proj * vec4(xy, plane_z, 1.0);
}
