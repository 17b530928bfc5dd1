#version 460
#extension GL_GOOGLE_include_directive : require
// Scattered, the paper's variant (`scatter-plain`): a fixed compute grid over a camera-aligned ground
// footprint whose forward coordinate is warped (signed square of a linear ramp in sqrt space) to spend more
// samples nearby; each invocation projects one point per solid interval — mix(low, 0, t) of a dual floor
// and mix(high, base, t) of the top column — to the nearest pixel with atomicMin. Points do not cover
// pixels, so this leaves gaps (the paper's coverage figures); kept for before/after comparisons.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "scatter.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

// Mirror of scatter_plain_push in scatter.c
layout(push_constant) uniform Push {
    vec2 origin;  // the eye's xy
    vec2 heading; // flat heading (unit)
    vec2 range_y; // forward range of the footprint
    vec2 range_x; // half-width of the footprint at its near and far end
    uint layers;  // samples along each interval (the grid's z size)
} pc;

vec2 footprint_point() {
    vec2 total = vec2(gl_NumWorkGroups.xy * gl_WorkGroupSize.xy) - 1.0;
    vec2 uv = vec2(gl_GlobalInvocationID.xy) / max(total, vec2(1.0));
    float s0 = sign(pc.range_y.x) * sqrt(abs(pc.range_y.x)), s1 = sign(pc.range_y.y) * sqrt(abs(pc.range_y.y));
    float s = mix(s0, s1, uv.y);
    float y = s * abs(s);
    float span = pc.range_y.y - pc.range_y.x;
    float half_width = mix(pc.range_x.x, pc.range_x.y, span > 0.0 ? (y - pc.range_y.x) / span : 0.0);
    float x = mix(-half_width, half_width, uv.x);
    vec2 perp = vec2(pc.heading.y, -pc.heading.x);
    return pc.origin + pc.heading * y + perp * x;
}

void splat_point(vec3 p, uint material) {
    vec3 q = p - g.eye.xyz;
    vec3 v = vec3(dot(q, g.screen_right.xyz), dot(q, g.screen_up.xyz), dot(q, g.forward.xyz));
    if (v.z < g.level_info.z || v.z > g.eye.w) return;
    vec2 size = vec2(g.screen_right.w, g.screen_up.w);
    vec2 sp = 0.5 * size + g.forward.w * vec2(v.x, -v.y) / v.z;
    if (any(lessThan(sp, vec2(0.0))) || any(greaterThan(sp, size))) return;
    // nearest pixel corner, as the original rounding of the NDC position did
    ivec2 px = min(ivec2(round(sp)), ivec2(size) - 1);
    atomicMin(screen[px.y * int(size.x) + px.x], scatter_pack(depth_from_view_z(v.z), material));
}

void main() {
    vec2 pos = footprint_point();
    float t = float(gl_GlobalInvocationID.z) / float(max(pc.layers, 1u));
    Surface s = surface_at(ivec2(floor(pos)));
    if (s.outside) return; // past a bounded level's edge there is nothing
    float base = 0.0;
    if (s.dual) {
        splat_point(vec3(pos, mix(s.low, 0.0, t)), scatter_material(s.low_type, false, SCATTER_FACE_TOP));
        base = s.mid;
    }
    splat_point(vec3(pos, mix(s.high, base, t)), scatter_material(s.high_type, true, SCATTER_FACE_TOP));
}
