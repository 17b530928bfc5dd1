#version 460
#extension GL_GOOGLE_include_directive : require
// RayTraced, compute variant: the same march, writing colour (sRGB-encoded) and depth images. Each workgroup's
// 8×8 pixels first test their rays together against the air tables (set 2; air_tile_start, air_tables.glsl) when
// pc.flags bit 0 says the tables hold the level, and every pixel's march begins where its tile may first meet the
// terrain, so the pixels of a tile start together near the surface and step as one. The samples passed are air in
// the full march too: the same image.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#define AIR_TABLES_SET 2
#define AIR_TABLES_BINDING 0
#define AIR_TILE_TEST
#include "air_tables.glsl"
#define RAY_COUNT_SAMPLES
#include "ray_march.glsl"

// Mirror of ray_push in src/render/methods/ray.c
layout(push_constant) uniform RayPush {
    uint flags; // bit 0: the tile test (the air tables hold the level)
} pc;

// 1: count the work into ray_work (the pipeline of st_ray_compute_work); 0, the frames': the counters are dead code,
// folded away at pipeline creation
layout(constant_id = 0) const uint RAY_COUNT = 0u;

// the frame's work when counted (st_ray_compute_work): pixels, uniform samples fetched, chunks passed, table words
layout(set = 2, binding = 1, std430) buffer RayWork { uint ray_work[]; };

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 1, binding = 1, r32f) uniform writeonly image2D out_depth;

void main() {
    float s_air = air_tile_start((pc.flags & 1u) != 0u, gl_WorkGroupID.xy); // before the bounds check: the whole group takes part
    ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
    if (pixel.x >= int(g.screen_right.w) || pixel.y >= int(g.screen_up.w)) return;
    vec3 color;
    float depth;
    trace_pixel_after(vec2(pixel) + 0.5, s_air, color, depth);
    imageStore(out_color, pixel, vec4(linear_to_srgb(color), 1.0));
    imageStore(out_depth, pixel, vec4(depth));
    if (RAY_COUNT != 0u) {
        atomicAdd(ray_work[0], 1u);
        atomicAdd(ray_work[1], ray_samples);
        atomicAdd(ray_work[2], air_tile_passed);
        atomicAdd(ray_work[3], air_tile_words);
    }
}
