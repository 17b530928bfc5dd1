#version 460
#extension GL_GOOGLE_include_directive : require
// The near plane inside solid (src/render/passes/near_cap.c), storage targets: the pixels whose ray starts inside
// solid terrain at the near plane get a hit there, shaded as a hit, over whatever the method wrote.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 1, binding = 1, r32f) uniform writeonly image2D out_depth;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    if (px.x >= int(g.screen_right.w) || px.y >= int(g.screen_up.w)) return;
    vec3 p = g.eye.xyz + pixel_dir(vec2(px) + 0.5) * (g.level_info.z / g.forward.w); // view depth = near
    Surface s = surface_at(ivec2(floor(p.xy)));
    if (!surface_solid(s, p.z)) return;
    imageStore(out_color, px, vec4(linear_to_srgb(shade_point(p, s, vec3(0.0))), 1.0));
    imageStore(out_depth, px, vec4(1.0)); // reverse-Z: the near plane
}
