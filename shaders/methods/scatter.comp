#version 460
#extension GL_GOOGLE_include_directive : require
// Scattered, hole-free: one invocation per ground block of one level of a distance quadtree over the
// visible ground bounds (src/render/methods/scatter.c dispatches one level at a time). A block is a single
// texel near the eye; farther out blocks of k×k texels are used only where a block projects to at most
// 1/density pixels. Each block emits its exposed faces — floor top, slab top, cave ceiling and the walls
// that face the camera, trimmed to the parts the neighbour column does not hide — and every face is
// splatted exactly (pixel ray ∩ face plane) into the packed screen buffer with atomicMin.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "scatter.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

// Mirror of scatter_level_push in scatter.c
layout(push_constant) uniform Push {
    ivec2 origin;   // texel of block (0, 0), a multiple of k
    ivec2 count;    // blocks of this level in x and y
    int k;          // block size in texels (a power of two)
    int root;       // 1 for the coarsest level: its blocks have no parent
    float lod_dist; // a block of size k > 1 may be used where its nearest distance is at least k·lod_dist
    int pad;
} pc;

float block_distance(ivec2 b, int size) {
    vec2 d = max(max(vec2(b) - g.eye.xy, g.eye.xy - vec2(b + size)), vec2(0.0));
    return length(d);
}

bool allowed(int size, float d) {
    return size == 1 || d >= float(size) * pc.lod_dist;
}

// True when the box [lo, hi] lies wholly outside one plane of the view frustum.
bool box_culled(vec3 lo, vec3 hi) {
    float hw = 0.5 * g.screen_right.w / g.forward.w, hh = 0.5 * g.screen_up.w / g.forward.w;
    bool r = true, l = true, t = true, b = true, n = true, f = true;
    for (int c = 0; c < 8; c++) {
        vec3 p = vec3((c & 1) != 0 ? hi.x : lo.x, (c & 2) != 0 ? hi.y : lo.y, (c & 4) != 0 ? hi.z : lo.z) - g.eye.xyz;
        vec3 v = vec3(dot(p, g.screen_right.xyz), dot(p, g.screen_up.xyz), dot(p, g.forward.xyz));
        r = r && v.x > hw * v.z;
        l = l && v.x < -hw * v.z;
        t = t && v.y > hh * v.z;
        b = b && v.y < -hh * v.z;
        n = n && v.z < g.level_info.z;
        f = f && v.z > g.eye.w;
    }
    return r || l || t || b || n || f;
}

// The parts of [a, b] that the neighbour column n does not fill (up to two intervals; lo >= hi = empty).
void exposed(float a, float b, Surface n, out vec2 i0, out vec2 i1) {
    float lo = max(a, n.low);
    i0 = vec2(lo, b);
    i1 = vec2(1.0, 0.0);
    if (n.dual && n.mid < n.high) {
        i0.y = min(b, n.mid);
        i1 = vec2(max(lo, n.high), b);
    }
}

// The neighbour column across one side of the block: exact for single texels; for a coarse block, a
// single column at the lowest floor along that side (any finer or coarser neighbour fills at least that,
// so trimming to it never opens a crack).
Surface side_neighbour(ivec2 b, int k, ivec2 first, ivec2 along) {
    Surface n = surface_at(first);
    if (k == 1) return n;
    float lowest = n.low;
    for (int i = 1; i < k; i++) lowest = min(lowest, surface_at(first + along * i).low);
    n.low = lowest;
    n.mid = lowest;
    n.high = lowest;
    n.dual = false;
    return n;
}

void wall(uint axis, float plane, vec2 span, vec2 z, uint material) {
    if (z.x < z.y) splat_face(Face(axis, plane, vec4(span, z), material));
}

void walls_of(uint axis, float plane, vec2 span, float a, float b, Surface n, uint material) {
    vec2 i0, i1;
    exposed(a, b, n, i0, i1);
    wall(axis, plane, span, i0, material);
    wall(axis, plane, span, i1, material);
}

void main() {
    ivec2 id = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(id, pc.count))) return;
    int k = pc.k;
    ivec2 b = pc.origin + id * k;
    // a leaf of the quadtree: allowed at its own size, and its parent (if any) was too near to be used
    if (!allowed(k, block_distance(b, k))) return;
    if (pc.root == 0 && allowed(2 * k, block_distance(b & ~(2 * k - 1), 2 * k))) return;
    vec2 lo = vec2(b), hi = vec2(b + k);
    if (box_culled(vec3(lo, 0.0), vec3(hi, g.level_info.w))) return;

    // The block's column: exact for one texel; for k×k texels the highest floor and the widest slab, so
    // the coarse column contains every texel column it stands for.
    Surface s = surface_at(b);
    if (k == 1 && s.outside) return; // past a bounded level's edge there is nothing
    if (k > 1) {
        float floor_h = -1.0, mid = 1e9, high = -1.0;
        uint floor_type = 0u, high_type = 0u;
        bool present = false;
        for (int y = 0; y < k; y++)
            for (int x = 0; x < k; x++) {
                Surface c = surface_at(b + ivec2(x, y));
                if (c.outside) continue; // (a block wider than a bounded level reaches past its edge)
                present = true;
                if (c.low > floor_h) {
                    floor_h = c.low;
                    floor_type = c.low_type;
                }
                if (c.dual && c.mid < c.high) {
                    mid = min(mid, c.mid);
                    if (c.high > high) {
                        high = c.high;
                        high_type = c.high_type;
                    }
                }
            }
        if (!present) return;
        s.outside = false;
        s.low = floor_h;
        s.low_type = floor_type;
        s.dual = high > floor_h;
        s.mid = s.dual ? max(mid, floor_h) : floor_h;
        s.high = s.dual ? high : floor_h;
        s.high_type = s.dual ? high_type : floor_type;
    }
    if (box_culled(vec3(lo, 0.0), vec3(hi, s.high))) return;

    vec3 e = g.eye.xyz;
    bool slab = s.dual && s.mid < s.high;
    uint floor_mat = scatter_material(s.low_type, !slab, SCATTER_FACE_TOP);
    uint slab_mat = scatter_material(s.high_type, true, SCATTER_FACE_TOP);
    // horizontal faces, each only when the eye is on its open side
    if (e.z > s.low && !(slab && s.mid <= s.low)) splat_face(Face(0u, s.low, vec4(lo.x, hi.x, lo.y, hi.y), floor_mat));
    if (slab && e.z > s.high) splat_face(Face(0u, s.high, vec4(lo.x, hi.x, lo.y, hi.y), slab_mat));
    if (slab && s.mid > s.low && e.z < s.mid)
        splat_face(Face(0u, s.mid, vec4(lo.x, hi.x, lo.y, hi.y), slab_mat | (SCATTER_FACE_BOTTOM << 5)));
    // walls on the sides that face the eye
    for (int side = 0; side < 2; side++) { // side 0: a wall across x, side 1: across y
        bool low_side = e[side] < lo[side];  // the eye is on the −x (−y) side of the block
        if (!low_side && !(e[side] > hi[side])) continue;
        float edge = low_side ? lo[side] : hi[side];
        ivec2 along = side == 0 ? ivec2(0, 1) : ivec2(1, 0);
        ivec2 first = b;
        first[side] = low_side ? b[side] - 1 : b[side] + k;
        Surface n = side_neighbour(b, k, first, along);
        uint axis = side == 0 ? 1u : 2u;
        uint code = side == 0 ? (low_side ? SCATTER_FACE_XNEG : SCATTER_FACE_XPOS)
                              : (low_side ? SCATTER_FACE_YNEG : SCATTER_FACE_YPOS);
        vec2 span = side == 0 ? vec2(lo.y, hi.y) : vec2(lo.x, hi.x);
        walls_of(axis, edge, span, 0.0, s.low, n, (floor_mat & 31u) | (code << 5));
        if (slab) walls_of(axis, edge, span, s.mid, s.high, n, (slab_mat & 31u) | (code << 5));
    }
}
