#version 460
#extension GL_GOOGLE_include_directive : require
// Sliced in compute, pass 2: the resolve. Each pixel's hit from the visibility buffer becomes the raster
// variant's fragment output — the point on the ray (on its plane's height when it is the plane's own point),
// shaded with the shared path, and its reverse-Z depth — into the storage colour and depth targets.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "slice_band.glsl"
#include "slice_compute.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 2, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 2, binding = 1, r32f) uniform writeonly image2D out_depth;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    int w = int(g.screen_right.w);
    if (px.x >= w || px.y >= int(g.screen_up.w)) return;
    uvec2 v = slice_vis[px.y * w + px.x];
    if (v.x == SLICE_NONE) {
        imageStore(out_color, px, vec4(linear_to_srgb(g.fog.rgb), 1.0));
        imageStore(out_depth, px, vec4(0.0));
        return;
    }
    SliceRay r = slice_ray(vec2(px) + 0.5);
    float hit = uintBitsToFloat(v.x);
    vec3 p = slice_hit_point(r, hit, v.y != SLICE_NONE, uintBitsToFloat(v.y));
    vec3 color = shade_point(p, surface_at(ivec2(floor(p.xy))), vec3(0.0));
    imageStore(out_color, px, vec4(linear_to_srgb(color), 1.0));
    imageStore(out_depth, px, vec4(depth_from_view_z(hit * r.cos_axis)));
}
