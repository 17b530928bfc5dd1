#version 460
#extension GL_GOOGLE_include_directive : require
// Scattered: the full-screen resolve. Each pixel unpacks the nearest sample, rebuilds its world position
// from the pixel's ray and the depth, and shades it with the shared shade_point using the packed material
// (type and layer); the face code moves the point a hair into the column that drew it, so the texel the
// shading reads is the one the sample came from. Writes the storage colour and depth targets.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "scatter.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 1, binding = 1, r32f) uniform writeonly image2D out_depth;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    if (px.x >= int(g.screen_right.w) || px.y >= int(g.screen_up.w)) return;
    uint word = screen[px.y * int(g.screen_right.w) + px.x];
    if ((word >> 8) == SCATTER_KEY_MISS) {
        imageStore(out_color, px, vec4(linear_to_srgb(g.fog.rgb), 1.0));
        imageStore(out_depth, px, vec4(0.0));
        return;
    }
    float depth = scatter_unpack_depth(word);
    float n = g.level_info.z, f = g.eye.w;
    float view_z = n * f / (depth * (f - n) + n);
    vec3 p = g.eye.xyz + pixel_dir(vec2(px) + 0.5) * (view_z / g.forward.w);
    uint material = word & 255u, type = material & 15u, face = material >> 5;
    bool upper = (material & 16u) != 0u;
    const float nudge = 1e-3;
    if (face == SCATTER_FACE_XNEG) p.x += nudge;
    if (face == SCATTER_FACE_XPOS) p.x -= nudge;
    if (face == SCATTER_FACE_YNEG) p.y += nudge;
    if (face == SCATTER_FACE_YPOS) p.y -= nudge;
    Surface s = surface_at(ivec2(floor(p.xy)));
    if (s.dual) p.z = upper ? max(p.z, s.mid) : min(p.z, s.low); // on the layer that was drawn
    if (upper || !s.dual) s.high_type = type;
    if (!upper || !s.dual) s.low_type = type;
    imageStore(out_color, px, vec4(linear_to_srgb(shade_point(p, s, vec3(0.0))), 1.0));
    imageStore(out_depth, px, vec4(depth));
}
