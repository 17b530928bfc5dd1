#version 460
#extension GL_GOOGLE_include_directive : require
// RayTraced, compute variant: the same march, writing colour (sRGB-encoded) and depth images.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "ray_march.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 1, binding = 1, r32f) uniform writeonly image2D out_depth;

void main() {
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (pixel.x >= int(g.screen_right.w) || pixel.y >= int(g.screen_up.w)) return;
    vec3 color;
    float depth;
    trace_pixel(vec2(pixel) + 0.5, color, depth);
    imageStore(out_color, pixel, vec4(linear_to_srgb(color), 1.0));
    imageStore(out_depth, pixel, vec4(depth));
}
