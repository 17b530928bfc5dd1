#version 460
#extension GL_GOOGLE_include_directive : require
// Casts a rectangle of the shared shadow map: for each texel, the absolute depth along the sun's rays of the
// first solid point, found exactly by walking texel cells and intersecting the ray's z span in each cell with
// both solid intervals [0, low] and [mid, high]. A texel's ray is a function of its absolute grid index alone
// (never of where the map's window stands), so a texel cast in any frame, by any rectangle, holds the same
// bits; it is stored at its index modulo the size (src/render/passes/shadow.c).
#include "globals.glsl"
#include "surface.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 1, binding = 0, r32f) uniform writeonly image2D out_shadow;

// Mirror of shadow_cast_push in src/render/passes/shadow.c
layout(push_constant) uniform ShadowCastPush {
    ivec4 rect;  // logical texels of this dispatch: x0, y0, width, height
    ivec4 base;  // absolute grid index of logical texel (0, 0); size
    ivec4 wrap;  // where logical texel (0, 0) is stored: base modulo the size, in [0, size)
    vec4 axis_u; // unit light-plane axis; w = texel size along it
    vec4 axis_v;
    vec4 dir;    // unit, down the sun's rays
} pc;

void main() {
    ivec2 local = ivec2(gl_GlobalInvocationID.xy);
    if (local.x >= pc.rect.z || local.y >= pc.rect.w) return;
    int n = pc.base.z;
    ivec2 grid = pc.base.xy + pc.rect.xy + local; // absolute index
    vec3 dir = pc.dir.xyz;
    // the texel's ray: its centre on the light plane through the origin, moved along the ray up to z = top,
    // where the walk starts (depth along the ray = s there)
    vec2 uv = (vec2(grid) + 0.5) * vec2(pc.axis_u.w, pc.axis_v.w);
    vec3 q = pc.axis_u.xyz * uv.x + pc.axis_v.xyz * uv.y;
    float top = g.level_info.w;
    float s = (top - q.z) / dir.z;
    vec3 o = q + dir * s;
    o.z = top;
    float t = 0.0;
    float t_end = top / -dir.z; // z = 0 is solid wherever the level is
    // past the edge of a bounded axis there is nothing: a ray that ends there meets no ground (lit)
    float hit = level_bounded() && !level_contains(ivec2(floor((o + dir * t_end).xy))) ? 3.0e38 : t_end;
    // DDA over texel cells in xy
    ivec2 cell = ivec2(floor(o.xy));
    ivec2 stp = ivec2(sign(dir.xy));
    vec2 inv = 1.0 / max(abs(dir.xy), vec2(1e-6));
    vec2 next = (vec2(cell) + max(vec2(stp), vec2(0.0)) - o.xy) * sign(dir.xy) * inv; // t at next x/y boundary
    for (int i = 0; i < 4096 && t < t_end; i++) {
        float t_out = min(min(next.x, next.y), t_end);
        float z_in = o.z + dir.z * t, z_out = o.z + dir.z * t_out; // z_in >= z_out
        Surface c = surface_at(cell);
        float h = -1.0;
        // (past a bounded edge there is nothing: no copy of the level casts a shadow there)
        if (!c.outside && z_out <= c.low) h = z_in <= c.low ? t : t + (z_in - c.low) / -dir.z;
        if (c.dual && z_out <= c.high && z_in >= c.mid) {
            float hs = z_in <= c.high ? t : t + (z_in - c.high) / -dir.z;
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
    ivec2 stored = (pc.wrap.xy + pc.rect.xy + local) % n; // non-negative operands
    imageStore(out_shadow, stored, vec4(s + hit));
}
