#version 460
#extension GL_GOOGLE_include_directive : require
// RayVoxel, compute variant: the same traversal, writing colour (sRGB-encoded) and depth images.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "voxel_grid.glsl"
#include "voxel_traverse.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 2, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 2, binding = 1, r32f) uniform writeonly image2D out_depth;

layout(push_constant) uniform Push {
    uint outer_budget;
    uint inner_budget;
    uint show_steps; // diagnostic: colour = (outer, inner) steps used / budget, blue = hit
} pc;

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (pixel.x >= int(g.screen_right.w) || pixel.y >= int(g.screen_up.w)) return;
    vec3 color;
    float depth;
    VoxelResult res;
    voxel_trace_pixel(vec2(pixel) + 0.5, pc.outer_budget, pc.inner_budget, color, depth, res);
    if (pc.show_steps != 0u)
        color = vec3(float(res.outer) / float(pc.outer_budget), float(res.inner) / float(pc.inner_budget),
                     res.t >= 0.0 ? 1.0 : 0.0);
    imageStore(out_color, pixel, vec4(linear_to_srgb(color), 1.0));
    imageStore(out_depth, pixel, vec4(depth));
}
