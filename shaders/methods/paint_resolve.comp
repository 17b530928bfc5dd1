#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// Painted in compute, pass 3: the resolve. Each pixel's nearest face from the visibility buffer gives the point
// the pixel's ray meets it and the face's block; the point is shaded as the raster variant's fragment is
// (paint_shade.glsl) into the storage colour and depth targets.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "face_raster.glsl"
#include "paint_bars.glsl"
#include "paint_shade.glsl"
#include "paint_compute.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 2, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 2, binding = 1, r32f) uniform writeonly image2D out_depth;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    if (px.x >= int(g.screen_right.w) || px.y >= int(g.screen_up.w)) return;
    uint64_t v = paint_vis[px.y * int(g.screen_right.w) + px.x];
    uint depth_bits = uint(v >> 32);
    if (depth_bits == 0u) {
        imageStore(out_color, px, vec4(linear_to_srgb(g.fog.rgb), 1.0));
        imageStore(out_depth, px, vec4(0.0));
        return;
    }
    uint id = uint(v & 0xFFFFFFFFul), gi = id / 6u, lod = paint_lod_of(gi);
    PaintBlock k = paint_block(pc.tile_base[lod], lod, gi - pc.first[lod]);
    float depth = uintBitsToFloat(depth_bits);
    float n = g.level_info.z, f = g.eye.w;
    float view_z = n * f / (depth * (f - n) + n);
    vec3 world = g.eye.xyz + pixel_dir(vec2(px) + 0.5) * (view_z / g.forward.w);
    vec3 color = paint_shade(world, ivec4(k.origin, k.size, int((id % 6u) / 3u)));
    imageStore(out_color, px, vec4(linear_to_srgb(color), 1.0));
    imageStore(out_depth, px, vec4(depth));
}
