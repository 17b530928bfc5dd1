#version 460
#extension GL_GOOGLE_include_directive : require
// Deferred shading of the raster methods' textured frames: per pixel, the point the raster pass kept in the
// G-buffer (gbuffer.glsl) shaded as the method's fragment shader shades it, into a storage image the pass copies
// onto the colour target (src/render/passes/deferred.c).
#include "globals.glsl"
#include "surface.glsl"
#include "shading.glsl"
#include "mesh_shade.glsl"
#define GBUFFER_SET 1
#include "gbuffer.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    if (px.x >= int(g.screen_right.w) || px.y >= int(g.screen_up.w)) return;
    vec4 p = imageLoad(gbuffer_point, px);
    vec3 color = g.fog.rgb;
    if (p.w >= GBUFFER_COLUMN - 0.5)
        color = shade_point(p.xyz, surface_at(ivec2(floor(p.xy))), vec3(0.0));
    else if (p.w >= 0.0)
        color = mesh_shade(p.xyz, uint(p.w + 0.5), normalize(imageLoad(gbuffer_normal, px).xyz));
    imageStore(out_color, px, vec4(linear_to_srgb(color), 1.0));
}
