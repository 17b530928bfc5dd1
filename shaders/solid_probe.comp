#version 460
#extension GL_GOOGLE_include_directive : require
// Evaluates the GLSL SOLID predicate and surface decode at given points, so tests can hold the GPU
// twin of st_level_solid/st_level_texel to the C definition, outside a bounded level's edges too.
#include "globals.glsl"
#include "surface.glsl"

layout(local_size_x = 64) in;
layout(set = 1, binding = 0, std430) readonly buffer Points { vec4 points[]; };
layout(set = 1, binding = 1, std430) writeonly buffer Results { uvec4 results[]; };
layout(push_constant) uniform Push { uint count; } push;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) return;
    vec3 p = points[i].xyz;
    Surface s = surface_at(ivec2(floor(p.xy)));
    // an outside column's heights (−1 in GLSL) are reported as C's 0
    uint packed = s.outside ? 0u : uint(s.low) | (uint(s.mid) << 8) | (uint(s.high) << 16) | (s.dual ? 1u << 24 : 0u);
    results[i] = uvec4(solid(p) ? 1u : 0u, packed, s.low_type | (s.high_type << 8), s.outside ? 1u : 0u);
}
