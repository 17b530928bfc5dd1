#version 460
#extension GL_GOOGLE_include_directive : require
// RayVoxel, fragment variant: one hierarchical-DDA ray per pixel of a full-screen triangle.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "voxel_grid.glsl"
#include "voxel_traverse.glsl"

layout(push_constant) uniform Push {
    uint outer_budget;
    uint inner_budget;
    uint show_steps; // diagnostic: colour = (outer, inner) steps used / budget, blue = hit
} pc;

layout(location = 0) out vec4 out_color;

void main() {
    vec3 color;
    float depth;
    VoxelResult res;
    voxel_trace_pixel(gl_FragCoord.xy, pc.outer_budget, pc.inner_budget, color, depth, res);
    if (pc.show_steps != 0u)
        color = vec3(float(res.outer) / float(pc.outer_budget), float(res.inner) / float(pc.inner_budget),
                     res.t >= 0.0 ? 1.0 : 0.0);
    out_color = vec4(color, 1.0); // the sRGB attachment encodes
    gl_FragDepth = depth;
}
