// The compute rasteriser's exact per-pixel triangle test (mesh-compute, cdlod-compute): edge planes through the
// eye, the ray meeting the triangle's plane, the box of its projection clipped to the near plane, and the splat
// of a pixel's depth and triangle id into the 64-bit visibility buffer (with VIS_SPLAT defined; the includer
// declares `vis`). Requires globals.glsl, camera.glsl and GL_EXT_shader_explicit_arithmetic_types_int64.

// a × b without fused multiply-adds: the edge functions of two triangles sharing an edge are then exact
// negatives of each other, so a pixel on the edge is covered by one of them or both, never by neither.
vec3 vis_cross(vec3 a, vec3 b) {
    precise vec3 c = a.yzx * b.zxy - a.zxy * b.yzx;
    return c;
}

// The pixel's ray and its side of an edge plane, without fused multiply-adds either: every triangle tested
// against a pixel, in whichever pass or copy (the small triangles' pass, the big ones'), sees the same ray bits,
// and two triangles sharing an edge get exactly opposite signs there. A compiler fusing in one pass and not in
// the other would leave a pixel on a shared edge to neither triangle: a hole in the middle of the terrain.
vec3 vis_ray(vec2 px) {
    precise vec2 s = vec2(px.x - 0.5 * g.screen_right.w, 0.5 * g.screen_up.w - px.y);
    precise vec3 d = g.forward.w * g.forward.xyz + s.x * g.screen_right.xyz + s.y * g.screen_up.xyz;
    return d;
}
float vis_side(vec3 d, vec3 e) {
    precise float v = d.x * e.x + d.y * e.y + d.z * e.z;
    return v;
}

struct VisTri {
    vec3 e0, e1, e2; // edge planes through the eye: the pixel ray d is inside when every dot(d, e) ≤ 0
    vec3 n;          // plane normal, facing the eye (front faces only)
    float n_rel0;    // dot(n, corner 0 − eye)
    ivec4 box;       // pixel bounds, inclusive (x0, y0, x1, y1); empty when x0 > x1
};

// Sets a triangle up for the pixel test: back faces and triangles wholly outside the near–far range or
// off screen come back empty. The box is the projection of the triangle clipped to the near plane.
VisTri vis_setup(vec3 rel[3]) {
    VisTri t;
    t.box = ivec4(1, 1, 0, 0);
    t.n = vis_cross(rel[1] - rel[0], rel[2] - rel[0]);
    t.n_rel0 = dot(t.n, rel[0]);
    if (!(t.n_rel0 < 0.0)) return t; // back-facing (emit winding: outward faces are counter-clockwise) or degenerate
    float near = g.level_info.z, far = g.eye.w;
    float z[3];
    for (int i = 0; i < 3; i++) z[i] = dot(rel[i], g.forward.xyz);
    if (max(z[0], max(z[1], z[2])) < near || min(z[0], min(z[1], z[2])) > far) return t;
    vec2 lo = vec2(1e30), hi = vec2(-1e30);
    vec2 half_size = 0.5 * vec2(g.screen_right.w, g.screen_up.w);
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3;
        for (int k = 0; k < 2; k++) {
            vec3 q;
            float zq;
            if (k == 0) {
                if (z[i] < near) continue;
                q = rel[i], zq = z[i];
            } else {
                if ((z[i] < near) == (z[j] < near)) continue;
                q = mix(rel[i], rel[j], (near - z[i]) / (z[j] - z[i])); // where the edge crosses the near plane
                zq = near;
            }
            vec2 s = half_size + g.forward.w / zq * vec2(dot(q, g.screen_right.xyz), -dot(q, g.screen_up.xyz));
            lo = min(lo, s);
            hi = max(hi, s);
        }
    }
    // every pixel whose square meets the bounds (conservative: the exact test decides)
    ivec2 size = ivec2(g.screen_right.w, g.screen_up.w);
    ivec2 a = ivec2(max(floor(lo - 0.5), vec2(0.0))), b = ivec2(min(floor(hi + 0.5), vec2(size - 1)));
    t.box = ivec4(a, b);
    t.e0 = vis_cross(rel[0], rel[1]);
    t.e1 = vis_cross(rel[1], rel[2]);
    t.e2 = vis_cross(rel[2], rel[0]);
    return t;
}

// The pixel's reverse-Z depth on the triangle, or 0 when the ray misses it or meets it outside near–far.
float vis_pixel_depth(VisTri t, ivec2 px) {
    vec3 d = vis_ray(vec2(px) + 0.5);
    if (max(vis_side(d, t.e0), max(vis_side(d, t.e1), vis_side(d, t.e2))) > 0.0) return 0.0;
    float view_z = g.forward.w * t.n_rel0 / dot(t.n, d); // the ray eye + d·s meets the plane at s = view_z/focal
    if (!(view_z >= g.level_info.z && view_z <= g.eye.w)) return 0.0;
    return depth_from_view_z(view_z);
}

#ifdef VIS_SPLAT // the rasterising passes (GL_EXT_shader_atomic_int64)
void vis_splat(ivec2 px, float depth, uint tri) {
    if (depth <= 0.0) return;
    uint64_t v = (uint64_t(floatBitsToUint(depth)) << 32) | uint64_t(tri);
    atomicMax(vis[px.y * int(g.screen_right.w) + px.x], v); // larger reverse-Z depth = nearer
}
#endif
