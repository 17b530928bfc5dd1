#version 460
#extension GL_GOOGLE_include_directive : require
// Mesh, textured shading, pass 2: per pixel, the point, layer and normal the raster pass kept (w < 0: no
// triangle, the sky) shaded as mesh.frag shades a fragment (mesh_shade), into a storage image the method copies
// onto the colour target.
#include "globals.glsl"
#include "surface.glsl"
#include "shading.glsl"
#include "mesh_shade.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 2, binding = 0, rgba32f) uniform readonly image2D gbuffer_point;
layout(set = 2, binding = 1, rgba16f) uniform readonly image2D gbuffer_normal;
layout(set = 2, binding = 2, rgba8) uniform writeonly image2D out_color;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    if (px.x >= int(g.screen_right.w) || px.y >= int(g.screen_up.w)) return;
    vec4 p = imageLoad(gbuffer_point, px);
    vec3 color = g.fog.rgb;
    if (p.w >= 0.0) color = mesh_shade(p.xyz, uint(p.w + 0.5), normalize(imageLoad(gbuffer_normal, px).xyz));
    imageStore(out_color, px, vec4(linear_to_srgb(color), 1.0));
}
