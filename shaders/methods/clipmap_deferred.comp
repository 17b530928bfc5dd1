#version 460
#extension GL_GOOGLE_include_directive : require
// Geometry clipmaps, textured shading, the resolve: per pixel, the point and level clipmap_gbuffer.frag kept
// (w < 0: none, the sky) shaded as clipmap.frag shades a fragment (clip_shade), into the image the deferred pass
// copies onto the colour target.
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "clipmap_vertex.glsl"
#define GBUFFER_SET 2
#include "gbuffer.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    if (px.x >= int(g.screen_right.w) || px.y >= int(g.screen_up.w)) return;
    vec4 p = imageLoad(gbuffer_point, px);
    vec3 color = p.w >= 0.0 ? clip_shade(uint(p.w + 0.5), p.xyz) : g.fog.rgb;
    imageStore(out_color, px, vec4(linear_to_srgb_dem(color), 1.0));
}
