#version 460
#extension GL_GOOGLE_include_directive : require
// Evaluates the shared shading (shade_lit, shade_point, gradient_normal, linear_to_srgb) at given points, so
// tests can hold the GLSL to its C twin (src/reference/shading.c).
#include "globals.glsl"
#include "surface.glsl"
#include "shading.glsl"

layout(local_size_x = 64) in;
struct ShadeIn {
    vec4 p_vis;    // point, sun visibility
    vec4 normal;   // xyz: unit normal, or 0 = the gradient normal
};
struct ShadeOut {
    vec4 lit, point, gradient, srgb;
};
layout(set = 1, binding = 0, std430) readonly buffer Inputs { ShadeIn inputs[]; };
layout(set = 1, binding = 1, std430) writeonly buffer Results { ShadeOut results[]; };
layout(push_constant) uniform Push { uint count; } push;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) return;
    vec3 p = inputs[i].p_vis.xyz;
    Surface s = surface_at(ivec2(floor(p.xy)));
    bool upper = !s.dual || p.z >= s.mid;
    vec3 grad = gradient_normal(p, upper);
    vec3 n_in = inputs[i].normal.xyz;
    vec3 n = dot(n_in, n_in) > 0.0 ? n_in : grad;
    vec3 lit = shade_lit(p, s, n, inputs[i].p_vis.w);
    results[i].lit = vec4(lit, 0.0);
    results[i].point = vec4(shade_point(p, s, n_in), 0.0);
    results[i].gradient = vec4(grad, 0.0);
    results[i].srgb = vec4(linear_to_srgb(lit), 0.0);
}
