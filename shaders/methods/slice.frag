#version 460
#extension GL_GOOGLE_include_directive : require
// Sliced, refined: each plane owns the band of the pixel's ray from where the ray crosses it to where
// the ray crosses the next plane away from the eye. The fragment samples SOLID along the band (about a
// texel apart, coarser with distance, at most max_steps) and bisects the first crossing, then writes that
// point's depth. The bands of a ray's planes tile the ray, so the planes turn into the true surface
// instead of steps of the plane spacing. The refined point is never nearer than the plane, so the depth
// only grows farther (depth_less in reverse-Z) and the early depth test stays valid.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"

layout(push_constant) uniform SlicePush {
    vec4 bounds;
    float z_below;
    float z_above;
    float dz;
    float pad0;
    uint n_below;
    uint n_above;
    uint max_steps;
    uint pad;
} pc;

layout(location = 0) flat in float plane_z;
layout(location = 1) flat in uint plane_first;
layout(location = 0) out vec4 out_color;
layout(depth_less) out float gl_FragDepth;

void main() {
    vec3 d = pixel_dir(gl_FragCoord.xy);
    float len = length(d);
    vec3 dir = d / len;
    float cos_axis = g.forward.w / len;
    vec3 o = g.eye.xyz;
    float t0 = (plane_z - o.z) / dir.z; // the ray meets the plane here
    float t_far = g.eye.w / cos_axis;
    // The band is never cut short: near the eye's height (grazing rays) it gets long and its samples
    // coarse, but no stretch of the ray goes unsampled.
    float t1 = min(t0 + pc.dz / abs(dir.z), t_far);
    float hit = -1.0;
    // The previous plane's band ended with a sample here. If that was SOLID, the previous plane drew
    // this pixel nearer, and this fragment is done at the cost of one fetch — the early depth test that
    // writing gl_FragDepth may cost on some drivers. Only the first plane of a stack, or one whose
    // previous crossing fell before the near plane, has no such neighbour and keeps the point.
    if (solid(vec3(o.xy + dir.xy * t0, plane_z))) {
        float t_near = g.level_info.z / cos_axis;
        if (plane_first == 0u && t0 - pc.dz / abs(dir.z) > t_near * 1.001) discard;
        hit = t0;
    }
    if (hit < 0.0 && t1 > t0) {
        // a sample about every texel, or every pixel footprint once that is wider
        float horiz = (t1 - t0) * length(dir.xy);
        float spacing = max(1.0, t0 / g.forward.w);
        uint n = uint(clamp(ceil(horiz / spacing), 1.0, float(pc.max_steps)));
        float dt = (t1 - t0) / float(n);
        float a = t0;
        for (uint k = 1u; k <= n; k++) {
            float t = t0 + float(k) * dt;
            if (solid(o + dir * t)) {
                float b = t;
                for (int j = 0; j < 5; j++) {
                    float c = 0.5 * (a + b);
                    if (solid(o + dir * c)) b = c;
                    else a = c;
                }
                hit = b;
                break;
            }
            a = t;
        }
    }
    if (hit < 0.0) discard;
    vec3 p = o + dir * hit;
    if (hit == t0) p.z = plane_z;
    out_color = vec4(shade_point(p, surface_at(ivec2(floor(p.xy))), vec3(0.0)), 1.0);
    gl_FragDepth = depth_from_view_z(hit * cos_axis);
}
