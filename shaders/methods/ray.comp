#version 460
#extension GL_GOOGLE_include_directive : require
// RayTraced, compute variant: the same march, writing colour (sRGB-encoded) and depth images. It passes the
// samples the air tables (set 2) show in the air without fetching them (ray_march.glsl, RAY_AIR_SKIP): the same
// samples decide, so the same image.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#define AIR_TABLES_SET 2
#define AIR_TABLES_BINDING 0
#include "air_tables.glsl"

// Mirror of ray_push in src/render/methods/ray.c
layout(push_constant) uniform RayPush {
    uint flags; // bit 0: the air tables hold the level (skip by them); bit 1: count the work into ray_work
} pc;

// the frame's work when counted (st_ray_compute_work): pixels, uniform samples fetched, walks, cells walked
layout(set = 2, binding = 1, std430) buffer RayWork { uint ray_work[]; };

bool ray_air_on() { return (pc.flags & 1u) != 0u; }

#define RAY_AIR_SKIP
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
    if ((pc.flags & 2u) != 0u) {
        atomicAdd(ray_work[0], 1u);
        atomicAdd(ray_work[1], ray_samples);
        atomicAdd(ray_work[2], ray_walks);
        atomicAdd(ray_work[3], air_walk_cells);
    }
}
