#version 460
#extension GL_GOOGLE_include_directive : require
// Casts the shared shadow map: for each texel of the light plane, the depth along the sun's rays of the
// first solid point, found exactly by walking texel cells and intersecting the ray's z span in each cell
// with both solid intervals [0, low] and [mid, high].
#include "globals.glsl"
#include "surface.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 1, binding = 0, r32f) uniform writeonly image2D out_shadow;

// The world point of light-plane coordinates (u, v) at depth 0: solve the 3×3 system given by the
// rows shadow_u, shadow_v, shadow_d (orthogonal directions scaled per axis).
vec3 plane_point(vec2 uv) {
    vec3 a = g.shadow_u.xyz, b = g.shadow_v.xyz, c = g.shadow_d.xyz;
    vec3 rhs = vec3(uv.x - g.shadow_u.w, uv.y - g.shadow_v.w, -g.shadow_d.w);
    return a * (rhs.x / dot(a, a)) + b * (rhs.y / dot(b, b)) + c * (rhs.z / dot(c, c));
}

void main() {
    uint n = uint(g.shadow_info.x);
    ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
    if (texel.x >= int(n) || texel.y >= int(n)) return;
    vec2 uv = (vec2(texel) + 0.5) / float(n);
    vec3 dir = g.shadow_d.xyz; // unit, pointing down along the sun's rays
    vec3 o = plane_point(uv);
    float top = g.level_info.w;
    float t = o.z > top ? (o.z - top) / -dir.z : 0.0;
    float t_end = o.z / -dir.z; // z = 0 is solid wherever the level is
    // past the edge of a bounded axis there is nothing: a ray that ends there meets no ground (lit)
    float hit = level_bounded() && !level_contains(ivec2(floor((o + dir * t_end).xy))) ? 3.0e38 : t_end;
    // DDA over texel cells in xy
    vec3 p = o + dir * t;
    ivec2 cell = ivec2(floor(p.xy));
    ivec2 stp = ivec2(sign(dir.xy));
    vec2 inv = 1.0 / max(abs(dir.xy), vec2(1e-6));
    vec2 next = (vec2(cell) + max(vec2(stp), vec2(0.0)) - p.xy) * sign(dir.xy) * inv + t; // t at next x/y boundary
    for (int i = 0; i < 4096 && t < t_end; i++) {
        float t_out = min(min(next.x, next.y), t_end);
        float z_in = o.z + dir.z * t, z_out = o.z + dir.z * t_out; // z_in >= z_out
        Surface s = surface_at(cell);
        float h = -1.0;
        // (past a bounded edge there is nothing: no copy of the level casts a shadow there)
        if (!s.outside && z_out <= s.low) h = z_in <= s.low ? t : t + (z_in - s.low) / -dir.z;
        if (s.dual && z_out <= s.high && z_in >= s.mid) {
            float hs = z_in <= s.high ? t : t + (z_in - s.high) / -dir.z;
            h = h < 0.0 ? hs : min(h, hs);
        }
        if (h >= 0.0) {
            hit = h;
            break;
        }
        t = t_out;
        if (next.x < next.y) {
            cell.x += stp.x;
            next.x += inv.x;
        } else {
            cell.y += stp.y;
            next.y += inv.y;
        }
    }
    imageStore(out_shadow, texel, vec4(hit));
}
