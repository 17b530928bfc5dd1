// CDLOD, compute variant: the frame's triangles by id (patch instances' first, then skirt instances'), their
// vertices from the shared vertex function, and the exact per-pixel test of a triangle against a pixel's ray
// (edge planes through the eye, the ray meeting the triangle's plane), as mesh-compute does it. Requires
// globals.glsl, camera.glsl, tile_world.glsl, cdlod_vertex.glsl and GL_EXT_shader_explicit_arithmetic_types_int64.

// per pixel: reverse-Z depth bits (high 32) and triangle id (low 32); 0 = nothing drawn
layout(set = 1, binding = 6, std430) buffer Visibility { uint64_t vis[]; };
// triangles too large for one invocation: the indirect dispatch (groups_x counts them) and their ids
layout(set = 1, binding = 7, std430) buffer BigQueue {
    uint groups_x, groups_y, groups_z;
    uint offered;
    uint items[];
} big;

// Mirror of cdlod_compute_push in src/render/methods/cdlod.c
layout(push_constant) uniform CdlodComputePush {
    uint tri_total;
    uint big_cap;
    uint row_threads; // invocations per dispatch row (2-D dispatch of a 1-D range)
    uint pad;
} pc;

// Triangle `tri`'s corners relative to the eye, its node, and whether it is a skirt's (drawn from both sides).
void cdlod_fetch(uint tri, out vec3 rel[3], out uint node_index, out bool skirt) {
    uint half_n = frame.info.y / 2u, patches = frame.counts.x, per_patch = frame.counts.z;
    float k;
    skirt = tri >= patches * per_patch;
    if (!skirt) {
        uint inst = instances[tri / per_patch], t = tri % per_patch, quad = t >> 1, q = inst & 15u;
        node_index = inst >> 4;
        CdlodNode n = nodes[node_index];
        uvec2 base = uvec2(q & 1u, q >> 1) * half_n + uvec2(quad % half_n, quad / half_n);
        // the raster variant's triangulation: (0,0) (1,0) (1,1) and (0,0) (1,1) (0,1)
        uvec2 c1 = (t & 1u) == 0u ? uvec2(1u, 0u) : uvec2(1u, 1u);
        uvec2 c2 = (t & 1u) == 0u ? uvec2(1u, 1u) : uvec2(0u, 1u);
        rel[0] = cdlod_vertex(n, vec2(base), k);
        rel[1] = cdlod_vertex(n, vec2(base + c1), k);
        rel[2] = cdlod_vertex(n, vec2(base + c2), k);
        return;
    }
    uint st = tri - patches * per_patch, per_skirt = frame.counts.w;
    uint inst = instances[patches + st / per_skirt], t = st % per_skirt, seg = t >> 1;
    uint side = inst & 3u, q = (inst >> 2) & 3u;
    node_index = inst >> 4;
    CdlodNode n = nodes[node_index];
    vec3 top0 = cdlod_vertex(n, cdlod_skirt_grid(q, side, seg), k);
    vec3 top1 = cdlod_vertex(n, cdlod_skirt_grid(q, side, seg + 1u), k);
    vec3 bot0 = top0 - vec3(0.0, 0.0, n.skirt), bot1 = top1 - vec3(0.0, 0.0, n.skirt);
    // the raster variant's strip: (top0, top1, bot1) and (top0, bot1, bot0)
    rel[0] = top0;
    rel[1] = (t & 1u) == 0u ? top1 : bot1;
    rel[2] = (t & 1u) == 0u ? bot1 : bot0;
}

// a × b without fused multiply-adds: the edge functions of two triangles sharing an edge are then exact negatives
// of each other, so a pixel on the edge is covered by one of them or both, never by neither.
vec3 cdlod_cross(vec3 a, vec3 b) {
    precise vec3 c = a.yzx * b.zxy - a.zxy * b.yzx;
    return c;
}

struct CdlodTri {
    vec3 e0, e1, e2; // edge planes through the eye: pixel ray d is inside when every dot(d, e) ≤ 0
    vec3 n;          // plane normal, facing the eye
    float n_rel0;    // dot(n, corner 0)
    ivec4 box;       // pixel bounds, inclusive; empty when x0 > x1
};

// Sets a triangle up: back faces (of the patches; skirts are turned to face the eye), degenerate ones (a
// morph's collapsed triangles) and those outside the near–far range or the screen come back empty.
CdlodTri cdlod_setup(vec3 rel[3], bool two_sided) {
    CdlodTri t;
    t.box = ivec4(1, 1, 0, 0);
    t.n = cdlod_cross(rel[1] - rel[0], rel[2] - rel[0]);
    t.n_rel0 = dot(t.n, rel[0]);
    if (two_sided && t.n_rel0 > 0.0) {
        vec3 s = rel[1];
        rel[1] = rel[2];
        rel[2] = s;
        t.n = -t.n;
        t.n_rel0 = -t.n_rel0;
    }
    if (!(t.n_rel0 < 0.0)) return t;
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
    ivec2 size = ivec2(g.screen_right.w, g.screen_up.w);
    ivec2 a = ivec2(max(floor(lo - 0.5), vec2(0.0))), b = ivec2(min(floor(hi + 0.5), vec2(size - 1)));
    t.box = ivec4(a, b);
    t.e0 = cdlod_cross(rel[0], rel[1]);
    t.e1 = cdlod_cross(rel[1], rel[2]);
    t.e2 = cdlod_cross(rel[2], rel[0]);
    return t;
}

// The pixel's reverse-Z depth on the triangle, or 0 when its ray misses it or meets it outside near–far.
float cdlod_pixel_depth(CdlodTri t, ivec2 px) {
    vec3 d = pixel_dir(vec2(px) + 0.5);
    if (max(dot(d, t.e0), max(dot(d, t.e1), dot(d, t.e2))) > 0.0) return 0.0;
    float view_z = g.forward.w * t.n_rel0 / dot(t.n, d);
    if (!(view_z >= g.level_info.z && view_z <= g.eye.w)) return 0.0;
    return depth_from_view_z(view_z);
}

#ifdef CDLOD_SPLAT // the rasterising passes (GL_EXT_shader_atomic_int64)
void cdlod_splat(ivec2 px, float depth, uint tri) {
    if (depth <= 0.0) return;
    uint64_t v = (uint64_t(floatBitsToUint(depth)) << 32) | uint64_t(tri);
    atomicMax(vis[px.y * int(g.screen_right.w) + px.x], v); // larger reverse-Z depth = nearer
}
#endif
