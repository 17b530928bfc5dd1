#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// Geometry clipmaps, compute variant, pass 3: per pixel, the nearest triangle from the visibility buffer is
// fetched again, the pixel's ray meets its plane at the surface point, and that point is shaded like the raster
// variant's (clip_shade); with the wireframe overlay, pixels near the triangle's edges take its level's colour.
#include "globals.glsl"
#include "camera.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "clipmap_vertex.glsl"
#include "clipmap_tri.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 2, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 2, binding = 1, r32f) uniform writeonly image2D out_depth;

// Pixel position of a point relative to the eye; z ≤ 0 behind the eye.
vec3 to_pixel(vec3 r) {
    float z = dot(r, g.forward.xyz);
    vec2 s = g.forward.w * vec2(dot(r, g.screen_right.xyz), dot(r, g.screen_up.xyz)) / z;
    return vec3(s.x + 0.5 * g.screen_right.w, 0.5 * g.screen_up.w - s.y, z);
}

// Whether the pixel centre lies within 0.6 pixels of an edge of the triangle (the overlay's line width).
bool on_edge(vec3 rel[3], vec2 c) {
    vec3 q[3] = {to_pixel(rel[0]), to_pixel(rel[1]), to_pixel(rel[2])};
    if (min(q[0].z, min(q[1].z, q[2].z)) <= g.level_info.z) return false;
    for (int i = 0; i < 3; i++) {
        vec2 a = q[i].xy, e = q[(i + 1) % 3].xy - a;
        float len = length(e);
        if (len > 0.0 && abs(e.x * (c.y - a.y) - e.y * (c.x - a.x)) < 0.6 * len) return true;
    }
    return false;
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    if (px.x >= int(g.screen_right.w) || px.y >= int(g.screen_up.w)) return;
    uint64_t v = vis[px.y * int(g.screen_right.w) + px.x];
    uint depth_bits = uint(v >> 32);
    if (depth_bits == 0u) {
        imageStore(out_color, px, vec4(linear_to_srgb_dem(g.fog.rgb), 1.0));
        imageStore(out_depth, px, vec4(0.0));
        return;
    }
    vec3 rel[3];
    uint level;
    ivec2 gp[3];
    bool two_sided, valid;
    clip_fetch(uint(v), rel, level, gp, two_sided, valid);
    vec3 n = vis_cross(rel[1] - rel[0], rel[2] - rel[0]);
    vec3 d = pixel_dir(vec2(px) + 0.5);
    vec3 p = d * (dot(n, rel[0]) / dot(n, d));
    vec3 color = clip_shade(level, p);
    if (clip.info.w != 0u && on_edge(rel, vec2(px) + 0.5)) color = clip_level_color(level);
    imageStore(out_color, px, vec4(linear_to_srgb_dem(color), 1.0));
    imageStore(out_depth, px, vec4(uintBitsToFloat(depth_bits)));
}
