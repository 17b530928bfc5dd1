#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_vote : require
// CDLOD's quadtree selection on the GPU (cdlod --lod-select gpu): the walk of src/tiles/lod.c level by level in one
// workgroup — distance ranges, the one-level rule's widening, AABB culling, the resident-ancestor fallback through
// the page table, skirt sides — in double precision with the CPU's operations in the CPU's order, writing the node
// list, the instances and the two indirect draws. The C side is src/render/methods/cdlod_select.c.

// the invocations of the one workgroup: 256 unless the pipeline says otherwise (--lod-select gpu:N)
layout(local_size_x_id = 0) in;
// the first entries of each candidate and parent list held in shared memory (the rest in Work): min(invocations, 256)
layout(constant_id = 1) const uint LIST_SHARED = 256u;

#define MAX_LEVELS 24
#define ATTEMPTS 9 // 1 + ST_LOD_ONE_LEVEL_RETRIES
#define NO_PARENT 0xffffffffu
#define FLAG_SKIRTS 1u
#define FLAG_NO_CULL 2u

// Mirror of cdlod_select_in in src/render/methods/cdlod_select.c
layout(set = 1, binding = 0, std430) restrict readonly buffer SelectIn {
    dvec4 eye;                          // xyz
    dvec4 planes[6];                    // inward: n·p + d ≥ 0
    dvec4 extent;                       // the world in metres (x, y)
    dvec4 level_size[MAX_LEVELS];       // node size x, y, diagonal, skirt depth
    dvec4 bands[ATTEMPTS][MAX_LEVELS];  // range, morph start of each widening attempt
    vec4 frame_bands[ATTEMPTS][MAX_LEVELS]; // CdlodFrame.bands of each attempt
    uvec4 level_nodes[MAX_LEVELS];      // nodes across, down; bounds table offset and tiles across of tile level l
    uvec4 pages[MAX_LEVELS];            // page table level: offset, tiles across, down, present
    uvec4 info;                         // levels, grid N, log2(nodes per tile), flags
    uvec4 caps;                         // nodes, requests, missing boxes, work entries
    ivec4 anchor;                       // the anchor's finest sample (x, y), tile intervals s, skirt instance base
    uvec4 draw;                         // patch index count, strip index count, strip first index, unused
    uvec4 handover;                     // levels the CPU walked (0: none), its draws, parents, candidates
    uvec4 handover_counts;              // the CPU walk's visits, culls
} sin_;

layout(set = 1, binding = 1, std430) restrict readonly buffer Bounds { vec2 tile_bounds[]; }; // min, max; min > max: unknown
layout(set = 1, binding = 2, std430) restrict readonly buffer PageTable { uint page_table[]; }; // slot + 1, 0 = none

// Mirror of cdlod_node_gpu in cdlod.c (CdlodNode in cdlod_vertex.glsl)
struct Node {
    ivec2 corner, tex_origin;
    uint level, tile_level, slot;
    float skirt;
};
layout(set = 1, binding = 3, std430) writeonly buffer Nodes { Node nodes[]; };
layout(set = 1, binding = 4, std430) writeonly buffer Instances { uint instances[]; };

// Mirror of cdlod_select_out: the two VkDrawIndexedIndirectCommands, the counts and the chosen attempt's bands.
layout(set = 1, binding = 5, std430) buffer SelectOut {
    uint draw_patch[5];
    uint draw_skirt[5];
    uint nodes_n, patches_n, skirts_n, missing_n, fallback_n, culled_n, visits_n, violations_n;
    uint worst_bits, widened, overflow, requests_n, missing_kept_n, pad0, pad1, pad2, pad3, pad4;
    uint per_level[MAX_LEVELS];
    vec4 chosen_bands[MAX_LEVELS];
} sout;
layout(set = 1, binding = 6, std430) writeonly buffer Keys { uvec4 keys[]; };      // level|tile level<<8|quads<<16|fallback<<20, x, y, skirts
layout(set = 1, binding = 7, std430) writeonly buffer Requests { uvec4 requests[]; }; // level, x, y, priority bits
layout(set = 1, binding = 8, std430) writeonly buffer Missing { dvec4 missing_boxes[]; }; // lo, hi pairs
// candidates of the level being walked and the next (x, y, parent, frustum), twice (level l's in list l & 1), and
// the nodes that recurse into them (x, y, frustum, quadrants left to the node), three times (level l's in list
// l % 3: the parents of level l + 2 emit while level l is walked, beside level l + 1's, which level l's nodes mark)
layout(set = 1, binding = 9, std430) buffer Work { uvec4 work[]; };
// the frame's uniforms (CdlodFrame in tile_world.glsl): the pass writes their morph bands, the chosen attempt's
layout(set = 1, binding = 10, std430) writeonly buffer Frame { vec4 frame_bands_out[MAX_LEVELS]; };
// the coarse levels' walk on the CPU (st_lod_select_coarse), for the first attempt: its draws (level | quadrants
// << 8, x, y, frustum), then the parents of the first level walked here (x, y, frustum, 0), then that level's
// candidates (x, y, parent, frustum)
layout(set = 1, binding = 11, std430) restrict readonly buffer Handover { uvec4 hand[]; };

shared uint s_cand[MAX_LEVELS], s_parents[MAX_LEVELS]; // per level: its candidates, its recursing nodes
// the lists' first LIST_SHARED entries: a phase reads its candidates and parents there without a round trip to
// memory, and an invocation that wrote none of Work skips the buffer barrier (wrote_work)
shared uvec4 s_lists[5u * LIST_SHARED];
bool wrote_work = false;
shared uint s_nodes, s_patches, s_skirts, s_missing, s_fallback, s_culled, s_visits, s_violations, s_worst;
shared uint s_requests, s_missing_kept, s_overflow;
shared uint s_per_level[MAX_LEVELS];
// the inputs every node reads (the planes, the eye, the world's extent, each level's sizes, node counts, page table
// level and the attempt's bands), copied from SelectIn with each attempt's reset: a node's chain of dependent loads
// then starts from its candidate entry, not from a load of its level's inputs
shared dvec4 s_planes[6], s_level_size[MAX_LEVELS];
shared dvec2 s_bands[MAX_LEVELS]; // range, morph start
shared uvec4 s_level_nodes[MAX_LEVELS], s_pages[MAX_LEVELS];
shared dvec3 s_eye;
shared dvec2 s_extent;

uint g_attempt;

// The counters every invocation bumps (visits, requests, nodes, instances, list entries): one atomic per subgroup
// instead of one per invocation, since a workgroup's invocations adding to one shared word serialise. ADD_AT gives
// each invocation its own first index, as atomicAdd would (the order among a subgroup differs, which no result
// depends on). A counter of an array is shared only when every active invocation names the same entry.
#define ADD(counter, v) \
    { \
        uint sum_ = subgroupAdd(v); \
        if (subgroupElect()) atomicAdd(counter, sum_); \
    }
#define ADD_AT(counter, v, at) \
    { \
        uint v_ = (v), sum_ = subgroupAdd(v_), before_ = subgroupExclusiveAdd(v_), base_ = 0u; \
        if (subgroupElect()) base_ = atomicAdd(counter, sum_); \
        at = subgroupBroadcastFirst(base_) + before_; \
    }
#define ADD_ENTRY(array, entry, v) \
    { \
        if (subgroupAllEqual(entry)) ADD(array[entry], v) else atomicAdd(array[entry], v); \
    }
#define ADD_ENTRY_AT(array, entry, v, at) \
    { \
        if (subgroupAllEqual(entry)) ADD_AT(array[entry], v, at) else at = atomicAdd(array[entry], v); \
    }

struct Box {
    dvec3 lo, hi;
};

uint cap_work() { return sin_.caps.w; }
uint cand_at(uint level, uint i) { return (level & 1u) * cap_work() + i; }
uint parent_at(uint level, uint i) { return (2u + level % 3u) * cap_work() + i; }
uint cand_shared(uint level, uint i) { return (level & 1u) * LIST_SHARED + i; }
uint parent_shared(uint level, uint i) { return (2u + level % 3u) * LIST_SHARED + i; }

uvec4 cand_load(uint level, uint i) {
    return i < LIST_SHARED ? s_lists[cand_shared(level, i)] : work[cand_at(level, i)];
}
void cand_store(uint level, uint i, uvec4 v) {
    if (i < LIST_SHARED) {
        s_lists[cand_shared(level, i)] = v;
    } else {
        work[cand_at(level, i)] = v;
        wrote_work = true;
    }
}
uvec4 parent_load(uint level, uint i) {
    return i < LIST_SHARED ? s_lists[parent_shared(level, i)] : work[parent_at(level, i)];
}
void parent_store(uint level, uint i, uvec4 v) {
    if (i < LIST_SHARED) {
        s_lists[parent_shared(level, i)] = v;
    } else {
        work[parent_at(level, i)] = v;
        wrote_work = true;
    }
}
// the handed parents' entries: their quadrants cleared before the walk, their node written in the first phase
void parent_clear(uint level, uint i) {
    if (i < LIST_SHARED) {
        s_lists[parent_shared(level, i)].w = 0u;
    } else {
        work[parent_at(level, i)].w = 0u;
        wrote_work = true;
    }
}
void parent_set_node(uint level, uint i, uvec3 v) {
    if (i < LIST_SHARED) {
        s_lists[parent_shared(level, i)].xyz = v;
    } else {
        work[parent_at(level, i)].xyz = v;
        wrote_work = true;
    }
}
void parent_mark(uint level, uint i, uint quadrant) {
    if (i < LIST_SHARED) {
        atomicOr(s_lists[parent_shared(level, i)].w, quadrant);
    } else {
        atomicOr(work[parent_at(level, i)].w, quadrant);
        wrote_work = true;
    }
}

// -1: wholly outside one plane; 1: wholly inside all; 0: crossing (box_frustum in lod.c, whose early return for
// an outside plane gives the same answer: the six planes are summed without a branch, so their sums overlap)
int box_frustum(Box b) {
    bool outside = false, inside = true;
    for (int i = 0; i < 6; i++) {
        dvec4 p = s_planes[i];
        precise double hi = p.w, lo = p.w;
        for (int a = 0; a < 3; a++) {
            hi += p[a] * (p[a] >= 0.0lf ? b.hi[a] : b.lo[a]);
            lo += p[a] * (p[a] >= 0.0lf ? b.lo[a] : b.hi[a]);
        }
        outside = outside || hi < 0.0lf;
        inside = inside && !(lo < 0.0lf);
    }
    return outside ? -1 : inside ? 1 : 0;
}

double box_distance(Box b) {
    precise double s = 0.0lf;
    for (int a = 0; a < 3; a++) {
        double e = s_eye[a];
        precise double d = e < b.lo[a] ? b.lo[a] - e : e > b.hi[a] ? e - b.hi[a] : 0.0lf;
        s += d * d;
    }
    return sqrt(s);
}

double box_farthest(Box b) {
    precise double s = 0.0lf;
    for (int a = 0; a < 3; a++) {
        double e = s_eye[a];
        precise double d = max(abs(e - b.lo[a]), abs(e - b.hi[a]));
        s += d * d;
    }
    return sqrt(s);
}

// min/max of tile (level, x, y) from the bounds table; false when unknown
bool tile_bounds_of(uint level, uint x, uint y, out float mn, out float mx) {
    uvec4 ln = s_level_nodes[level];
    vec2 b = tile_bounds[ln.z + y * ln.w + x];
    mn = b.x, mx = b.y;
    return b.x <= b.y;
}

// node_box in lod.c: the footprint clamped to the world and the index's heights
bool node_box(uint level, uint x, uint y, out Box b) {
    uint t = sin_.info.z;
    float mn, mx;
    bool known = level >= t ? tile_bounds_of(level - t, x, y, mn, mx)
                            : tile_bounds_of(0u, x >> (t - level), y >> (t - level), mn, mx);
    if (!known) return false;
    dvec4 sz = s_level_size[level];
    precise double x0 = double(x) * sz.x, x1 = double(x + 1u) * sz.x;
    precise double y0 = double(y) * sz.y, y1 = double(y + 1u) * sz.y;
    b.lo = dvec3(min(x0, s_extent.x), min(y0, s_extent.y), double(mn));
    b.hi = dvec3(min(x1, s_extent.x), min(y1, s_extent.y), double(mx));
    return true;
}

// the page table's entry of a tile: its slot + 1, 0 = none
uint page_entry(uint level, uint x, uint y) {
    uvec4 pg = s_pages[level];
    if (pg.w == 0u || x >= pg.y || y >= pg.z) return 0u;
    return page_table[pg.x + y * pg.y + x];
}

// the page table's entry of node (level, x, y)'s own tile: loaded beside its bounds, before the walk knows whether
// it draws, so that a drawn node waits for one load rather than two in turn
uint own_page_entry(uint level, uint x, uint y) {
    uint k = 1u << sin_.info.z;
    return page_entry(level, x / k, y / k);
}

// the request of tile (level, x, y)'s node at distance d, written at index i
void request_at(uint i, uint level, uint x, uint y, double d, bool prefetch) {
    double close = 1.0lf / (1.0lf + d / s_level_size[level].z);
    float pri = float(prefetch ? 0.5lf * close : double(level + 1u) + close);
    uint k = 1u << sin_.info.z;
    if (i < sin_.caps.y) requests[i] = uvec4(level, x / k, y / k, floatBitsToUint(pri));
}

// the quadrants' footprint of node (level, x, y), clamped to the world (keep_missing and the one-level check)
void quadrant_box(uint level, uint x, uint y, uint quads, inout Box qb) {
    dvec4 sz = s_level_size[level];
    double inf = packDouble2x32(uvec2(0u, 0x7ff00000u));
    double lo0 = inf, hi0 = -inf, lo1 = inf, hi1 = -inf;
    for (uint q = 0u; q < 4u; q++) {
        if ((quads & (1u << q)) == 0u) continue;
        precise double qx0 = (double(x) + 0.5lf * double(q & 1u)) * sz.x, qy0 = (double(y) + 0.5lf * double(q >> 1)) * sz.y;
        precise double qx1 = qx0 + 0.5lf * sz.x, qy1 = qy0 + 0.5lf * sz.y;
        lo0 = min(lo0, qx0), hi0 = max(hi0, min(qx1, s_extent.x));
        lo1 = min(lo1, qy0), hi1 = max(hi1, min(qy1, s_extent.y));
    }
    qb.lo.x = lo0, qb.hi.x = hi0, qb.lo.y = lo1, qb.hi.y = hi1;
}

uint skirt_sides(uint level, uint x, uint y, uint quads) {
    dvec4 sz = s_level_size[level];
    uint sides = 0u;
    for (uint q = 0u; q < 4u; q++) {
        if ((quads & (1u << q)) == 0u) continue;
        uint qx = q & 1u, qy = q >> 1;
        precise double x0 = (double(x) + 0.5lf * double(qx)) * sz.x, x1 = x0 + 0.5lf * sz.x;
        precise double y0 = (double(y) + 0.5lf * double(qy)) * sz.y, y1 = y0 + 0.5lf * sz.y;
        bool s0 = qy == 0u ? y0 > 0.0lf : (quads & (1u << (q - 2u))) == 0u;
        bool s1 = qx == 1u ? x1 < s_extent.x : (quads & (1u << (q + 1u))) == 0u;
        bool s2 = qy == 1u ? y1 < s_extent.y : (quads & (1u << (q + 2u))) == 0u;
        bool s3 = qx == 0u ? x0 > 0.0lf : (quads & (1u << (q - 1u))) == 0u;
        s1 = s1 && x1 <= s_extent.x;
        s2 = s2 && y1 <= s_extent.y;
        sides |= ((s0 ? 1u : 0u) | (s1 ? 2u : 0u) | (s2 ? 4u : 0u) | (s3 ? 8u : 0u)) << (4u * q);
    }
    return sides;
}

// emit in lod.c: finds the tile (or an ancestor's), pads the box, culls it again, checks the one-level rule,
// writes the node, its key and its instances
void emit(uint level, uint x, uint y, uint quads, Box b, int frustum, uint own) {
    dvec4 sz = s_level_size[level];
    uint levels = sin_.info.x, flags = sin_.info.w;
    for (uint q = 0u; q < 4u; q++) {
        precise double qx0 = (double(x) + 0.5lf * double(q & 1u)) * sz.x, qy0 = (double(y) + 0.5lf * double(q >> 1)) * sz.y;
        if (qx0 >= s_extent.x || qy0 >= s_extent.y) quads &= ~(1u << q);
    }
    if (quads == 0u) return;
    uint k = 1u << sin_.info.z;
    uint tx = x / k, ty = y / k, tl = level, slot = 0u;
    bool found = false;
    for (; tl < levels; tl++) {
        uint e = tl == level ? own : page_entry(tl, tx >> (tl - level), ty >> (tl - level));
        if (e != 0u) {
            slot = e - 1u;
            found = true;
            break;
        }
    }
    if (!found) {
        ADD(s_missing, 1u);
        uint i;
        ADD_AT(s_missing_kept, 1u, i);
        if (i < sin_.caps.z) {
            Box mb = b;
            quadrant_box(level, x, y, quads, mb);
            missing_boxes[2u * i] = dvec4(mb.lo, 0.0lf);
            missing_boxes[2u * i + 1u] = dvec4(mb.hi, 0.0lf);
        }
        return;
    }
    bool fallback = tl != level;
    uint dtx = tx >> (tl - level), dty = ty >> (tl - level);
    Box pb = b;
    float mn, mx;
    if (fallback && tile_bounds_of(tl, dtx, dty, mn, mx)) {
        pb.lo.z = min(pb.lo.z, double(mn));
        pb.hi.z = max(pb.hi.z, double(mx));
    }
    uint sides = 0u;
    if ((flags & FLAG_SKIRTS) != 0u) {
        sides = skirt_sides(level, x, y, quads);
        pb.lo.z -= sz.w;
    }
    if (frustum != 1 && (flags & FLAG_NO_CULL) == 0u && box_frustum(pb) < 0) {
        ADD(s_culled, 1u);
        return;
    }
    if (level + 1u < levels) {
        Box qb = b;
        quadrant_box(level, x, y, quads, qb);
        double over = box_farthest(qb) - s_bands[level + 1u].y;
        if (over > 0.0lf) {
            atomicAdd(s_violations, 1u);
            atomicMax(s_worst, floatBitsToUint(float(over)));
        }
    }
    uint idx;
    ADD_AT(s_nodes, 1u, idx);
    if (idx >= sin_.caps.x) {
        s_overflow = 1u;
        return;
    }
    ivec2 a = sin_.anchor.xy;
    int s = sin_.anchor.z, N = int(sin_.info.y);
    ivec2 corner = ivec2(int(x) * N << level, int(y) * N << level) - a;
    ivec2 tex = ivec2(int(dtx) * s << tl, int(dty) * s << tl) - a;
    nodes[idx] = Node(corner, tex, level, tl, slot, float(sz.w));
    keys[idx] = uvec4(level | tl << 8 | quads << 16 | (fallback ? 1u << 20 : 0u), x, y, sides);
    uint nq = uint(bitCount(quads)), ns = uint(bitCount(sides)), pbase, sbase;
    ADD_AT(s_patches, nq, pbase);
    ADD_AT(s_skirts, ns, sbase);
    for (uint q = 0u, j = 0u; q < 4u; q++)
        if ((quads & (1u << q)) != 0u) instances[pbase + j++] = idx << 4 | q;
    sbase += uint(sin_.anchor.w);
    for (uint bit = 0u, j = 0u; bit < 16u; bit++)
        if ((sides & (1u << bit)) != 0u) instances[sbase + j++] = idx << 4 | bit;
    ADD_ENTRY(s_per_level, level, nq);
    if (fallback) ADD(s_fallback, 1u);
}

// visit in lod.c for one candidate; the quadrants a node leaves to its parent are or-ed into the parent's entry
void visit(uint level, uvec4 c) {
    uint x = c.x, y = c.y, parent = c.z, flags = sin_.info.w;
    int frustum = int(c.w);
    ADD(s_visits, 1u);
    uint own = own_page_entry(level, x, y);
    Box b;
    if (!node_box(level, x, y, b)) return;
    if (frustum != 1 && (flags & FLAG_NO_CULL) == 0u) {
        Box cb = b;
        if ((flags & FLAG_SKIRTS) != 0u) cb.lo.z -= s_level_size[level].w;
        frustum = box_frustum(cb);
        if (frustum < 0) {
            ADD(s_culled, 1u);
            return;
        }
    }
    double d = box_distance(b);
    if (!(d < s_bands[level].x)) {
        if (parent != NO_PARENT) {
            parent_mark(level + 1u, parent, 1u << ((x & 1u) | (y & 1u) << 1));
        } else if ((flags & FLAG_NO_CULL) != 0u || box_frustum(b) >= 0) {
            emit(level, x, y, 15u, b, 0, own); // a root beyond its range has no parent to draw it
        }
        return;
    }
    // the children inside the world (those of a node that splits, or the tiles a node about to split prefetches)
    uvec4 fn = level > 0u ? s_level_nodes[level - 1u] : uvec4(0u);
    uint kids = 0u;
    for (uint q = 0u; q < 4u; q++)
        if (2u * x + (q & 1u) < fn.x && 2u * y + (q >> 1) < fn.y) kids |= 1u << q;
    bool whole = level == 0u || !(d < s_bands[level - 1u].x);
    bool prefetch = whole && level > 0u && d < 1.5lf * s_bands[level - 1u].x;
    uint ri;
    ADD_AT(s_requests, 1u + (prefetch ? uint(bitCount(kids)) : 0u), ri);
    request_at(ri, level, x, y, d, false);
    if (whole) {
        emit(level, x, y, 15u, b, frustum, own);
        if (prefetch)
            for (uint q = 0u, j = 1u; q < 4u; q++)
                if ((kids & (1u << q)) != 0u)
                    request_at(ri + j++, level - 1u, 2u * x + (q & 1u), 2u * y + (q >> 1), d, true);
        return;
    }
    uint pi;
    ADD_ENTRY_AT(s_parents, level, 1u, pi);
    if (pi >= cap_work()) {
        s_overflow = 1u;
        return;
    }
    parent_store(level, pi, uvec4(x, y, uint(frustum), 0u));
    uint ci;
    ADD_ENTRY_AT(s_cand, level - 1u, uint(bitCount(kids)), ci);
    for (uint q = 0u; q < 4u; q++) {
        if ((kids & (1u << q)) == 0u) continue;
        if (ci < cap_work())
            cand_store(level - 1u, ci, uvec4(2u * x + (q & 1u), 2u * y + (q >> 1), pi, uint(frustum)));
        else s_overflow = 1u;
        ci++;
    }
}

void main() {
    uint tid = gl_LocalInvocationID.x, levels = sin_.info.x, top = levels - 1u;
    uvec4 roots = sin_.level_nodes[top];
    if (tid == 0u) s_requests = 0u;
    for (g_attempt = 0u; g_attempt < ATTEMPTS; g_attempt++) {
        // the first attempt starts where the CPU's walk of the coarse levels stopped, when it ran; a widening
        // walks again from the roots
        uvec4 hd = sin_.handover;
        bool handed = g_attempt == 0u && hd.x != 0u;
        uint first = handed ? top - hd.x : top, hdraws = handed ? hd.y : 0u, hparents = handed ? hd.z : 0u;
        if (tid == 0u) {
            s_nodes = s_patches = s_skirts = s_missing = s_fallback = s_culled = s_visits = s_violations = 0u;
            s_worst = 0u, s_missing_kept = 0u, s_overflow = 0u;
            if (handed) s_visits = sin_.handover_counts.x, s_culled = sin_.handover_counts.y;
        }
        if (tid < MAX_LEVELS) {
            s_per_level[tid] = s_cand[tid] = 0u;
            s_parents[tid] = handed && tid == first + 1u ? hparents : 0u;
            s_level_size[tid] = sin_.level_size[tid];
            s_bands[tid] = sin_.bands[g_attempt][tid].xy;
            s_level_nodes[tid] = sin_.level_nodes[tid];
            s_pages[tid] = sin_.pages[tid];
        }
        if (tid < 6u) s_planes[tid] = sin_.planes[tid];
        if (tid == 6u) s_eye = sin_.eye.xyz, s_extent = sin_.extent.xy;
        for (uint i = tid; i < hparents; i += gl_WorkGroupSize.x) parent_clear(first + 1u, i);
        if (wrote_work) memoryBarrierBuffer();
        wrote_work = false;
        barrier();
        // One barrier a level: the phase of level l visits its candidates (the roots, on the top level, made from
        // their index) and emits the parents of level l + 2, whose children (level l + 1) the phase before
        // decided; the last phase (l = −1) emits level 1's. The counts a phase reads were written two or one
        // phases before, the lists it writes are not the ones it reads. A handed-over first phase draws the CPU's
        // draws and writes its parents' nodes beside visiting its candidates (none of them reads what the others
        // write: the candidates mark only the parents' quadrants).
        for (int level = int(first); level >= -1; level--) {
            bool from_cpu = handed && level == int(first);
            uint n = level < 0 ? 0u
                     : from_cpu ? hd.w
                     : min(level == int(top) ? roots.x * roots.y : s_cand[level], cap_work());
            uint pl = uint(level + 2), np = pl <= top ? min(s_parents[pl], cap_work()) : 0u;
            uint nh = from_cpu ? hdraws + hparents : 0u;
            for (uint i = tid; i < np + nh + n; i += gl_WorkGroupSize.x) {
                if (i < np) {
                    uvec4 p = parent_load(pl, i);
                    if (p.w != 0u) {
                        uint own = own_page_entry(pl, p.x, p.y);
                        Box b;
                        node_box(pl, p.x, p.y, b);
                        emit(pl, p.x, p.y, p.w, b, int(p.z), own);
                    }
                } else if (i < np + nh) {
                    uint j = i - np;
                    uvec4 e = hand[j];
                    if (j < hdraws) {
                        uint dl = e.x & 0xffu, own = own_page_entry(dl, e.y, e.z);
                        Box b;
                        node_box(dl, e.y, e.z, b);
                        emit(dl, e.y, e.z, e.x >> 8, b, int(e.w), own);
                    } else {
                        parent_set_node(first + 1u, j - hdraws, e.xyz);
                    }
                } else {
                    uint c = i - np - nh;
                    visit(uint(level), from_cpu ? hand[hdraws + hparents + c]
                                       : level == int(top) ? uvec4(c % roots.x, c / roots.x, NO_PARENT, 0u)
                                                           : cand_load(uint(level), c));
                }
            }
            // the next phase reads what this one wrote to Work (the outputs are not read back in the pass)
            if (wrote_work) memoryBarrierBuffer();
            wrote_work = false;
            barrier();
        }
        bool done = s_violations == 0u || s_overflow != 0u || g_attempt + 1u == ATTEMPTS;
        barrier();
        if (done) break;
    }
    if (tid == 0u) {
        uint nodes_n = min(s_nodes, sin_.caps.x);
        sout.draw_patch[0] = sin_.draw.x, sout.draw_patch[1] = s_patches, sout.draw_patch[2] = 0u;
        sout.draw_patch[3] = 0u, sout.draw_patch[4] = 0u;
        sout.draw_skirt[0] = sin_.draw.y, sout.draw_skirt[1] = s_skirts, sout.draw_skirt[2] = sin_.draw.z;
        sout.draw_skirt[3] = 0u, sout.draw_skirt[4] = 0u;
        sout.nodes_n = nodes_n, sout.patches_n = s_patches, sout.skirts_n = s_skirts, sout.missing_n = s_missing;
        sout.fallback_n = s_fallback, sout.culled_n = s_culled, sout.visits_n = s_visits;
        sout.violations_n = s_violations, sout.worst_bits = s_worst, sout.widened = min(g_attempt, ATTEMPTS - 1u);
        sout.overflow = s_overflow, sout.requests_n = s_requests, sout.missing_kept_n = s_missing_kept;
    }
    if (tid < MAX_LEVELS) {
        sout.per_level[tid] = s_per_level[tid];
        vec4 chosen = sin_.frame_bands[min(g_attempt, ATTEMPTS - 1u)][tid];
        sout.chosen_bands[tid] = chosen;
        frame_bands_out[tid] = chosen;
    }
}
