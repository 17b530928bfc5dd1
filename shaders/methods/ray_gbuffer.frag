#version 460
#extension GL_GOOGLE_include_directive : require
// RayTraced, fragment variant, textured shading: the march of ray.frag, its hit kept in the G-buffer instead of
// shaded (gbuffer.glsl), for deferred_shade.comp to shade once per pixel.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "ray_march.glsl"
#include "gbuffer.glsl"

layout(location = 0) out vec4 out_point;

void main() {
    vec3 p;
    float depth;
    bool hit = trace_pixel_hit(gl_FragCoord.xy, 0.0, p, depth);
    out_point = vec4(p, hit ? GBUFFER_COLUMN : GBUFFER_NONE);
    gl_FragDepth = depth;
}
