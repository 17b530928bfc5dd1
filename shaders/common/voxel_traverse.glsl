// RayVoxel traversal shared by `voxel` and `voxel-compute`: a hierarchical DDA over the occupancy pyramid
// (voxel_grid.glsl) from the coarsest level — descend into occupied cells, skip empty ones to their exit
// plane, climb while a step leaves the parent into an empty one — and, in an occupied leaf cell, an exact walk over
// the cell's texel columns that intersects the ray's interval in each column with SOLID of the source
// height data. The pyramid only skips known-empty space; hits always come from the height field.
// Requires globals.glsl, surface.glsl, camera.glsl, shading.glsl, voxel_grid.glsl.

struct VoxelResult {
    float t;       // distance of the hit, -1 on a miss
    ivec2 texel;   // the column that was hit
    uint outer;    // pyramid steps used
    uint inner;    // texel columns tested
};

// Traces o + dir*t over [t0, t1] (dir normalised). Budgets: outer = steps across a cell at any level
// (descending and climbing are free, at most one per level), inner = texel columns tested in leaves. When either runs out a descending ray takes its current
// point as the hit (it is at or above the surface it was about to reach), a rising one misses.
VoxelResult voxel_trace(vec3 o, vec3 dir, float t0, float t1, uint outer_budget, uint inner_budget) {
    VoxelResult res = VoxelResult(-1.0, ivec2(0), 0u, 0u);
    // past the edge of a bounded axis there is nothing: trace only the part of the ray over the level
    if (level_bounded() && !level_clip_ray(o, dir, t0, t1)) return res;
    float top = g.level_info.w; // nothing is solid above
    if (dir.z < -1e-5) {
        t1 = min(t1, o.z / -dir.z);                        // z = 0: height 0 is solid
        if (o.z > top) t0 = max(t0, (o.z - top) / -dir.z); // enter the grid through its top
    } else if (o.z + dir.z * t0 > top) {
        return res;
    } else if (dir.z > 1e-5) {
        t1 = min(t1, (top - o.z) / dir.z);
    }
    if (t1 <= t0) return res;

    // Exactly-zero components would make 0 * inf plane distances: tilt them by a negligible amount.
    vec3 d = mix(dir, vec3(1e-7), lessThan(abs(dir), vec3(1e-7)));
    vec3 inv = 1.0 / d;
    ivec3 stp = ivec3(sign(d));
    vec3 far_side = step(vec3(0.0), d); // the exit face of a cell is its upper face on rising axes
    ivec2 leaf_size = ivec2(vg_info.yz);
    int top_lod = int(vg_info.x) - 1;
    int lod = top_lod;
    // Cell sizes are powers of two, so p / size and the planes (c + 1) * size are exact: the cell of a point
    // and the texel the leaf walk reads agree without any epsilon.
    vec3 csize = vec3(vg_info.yzw) * float(1 << lod);
    ivec3 c = ivec3(floor((o + d * t0) / csize));
    c.z = clamp(c.z, 0, int(vg_lod[lod].z) - 1); // a start on z = top belongs to the top cell
    float t = t0;
    uint outer = 0u, inner = 0u;
    bool exhausted = false;
    while (t < t1) {
        // Descend while the cell holding the current point is occupied (free: at most one per level).
        bool occupied = voxel_occupied(uint(lod), c);
        while (occupied && lod > 0) {
            lod--;
            csize *= 0.5;
            ivec3 child = ivec3(floor((o + d * t) / csize));
            c = clamp(child, 2 * c, 2 * c + 1); // stay inside the parent whatever the rounding
            occupied = voxel_occupied(uint(lod), c);
        }
        if (outer >= outer_budget) {
            exhausted = true;
            break;
        }
        outer++; // one step across a cell, at whatever level
        vec3 tn = ((vec3(c) + far_side) * csize - o) * inv;
        if (occupied) {
            // A run of occupied leaf voxels above or below in the same cell shares its texel columns: walk
            // them as one segment (a steep ray beside a cliff would otherwise re-test them per voxel).
            while (tn.z < min(tn.x, tn.y) && tn.z < t1 && voxel_occupied(0u, c + ivec3(0, 0, stp.z))) {
                c.z += stp.z;
                tn.z = ((float(c.z) + far_side.z) * csize.z - o.z) * inv.z;
            }
        }
        float t_exit = min(tn.x, min(tn.y, tn.z));
        if (occupied) { // a leaf: walk its texel columns over [t, t_exit]
            float tb = min(t_exit, t1);
            ivec2 lo = c.xy * leaf_size, hi = lo + leaf_size - 1;
            ivec2 tex = clamp(ivec2(floor((o + d * t).xy)), lo, hi);
            float u0 = t;
            while (true) {
                if (inner >= inner_budget) {
                    exhausted = true;
                    break;
                }
                inner++;
                vec2 tt = (vec2(tex) + far_side.xy - o.xy) * inv.xy;
                float tx_exit = min(tt.x, tt.y);
                float th = column_entry(surface_at(tex), o.z, d.z, u0, min(tx_exit, tb));
                if (th >= 0.0) {
                    res.t = th;
                    res.texel = tex;
                    res.outer = outer;
                    res.inner = inner;
                    return res;
                }
                if (tx_exit >= tb) break;
                if (tt.x <= tt.y) tex.x += stp.x;
                else tex.y += stp.y;
                if (any(lessThan(tex, lo)) || any(greaterThan(tex, hi))) break;
                u0 = max(u0, tx_exit);
            }
            if (exhausted) break;
        }
        // Advance to the neighbour across the exit face; when that leaves the parent and the new parent is
        // empty, climb (as far as the ancestors crossed are empty) so the next step skips more.
        int axis = tn.x <= tn.y && tn.x <= tn.z ? 0 : (tn.y <= tn.z ? 1 : 2);
        int before = c[axis];
        c[axis] += stp[axis];
        t = max(t, t_exit);
        while (lod < top_lod && (c[axis] >> 1) != (before >> 1) && !voxel_occupied(uint(lod + 1), c >> 1)) {
            lod++;
            csize *= 2.0;
            c >>= 1;
            before >>= 1;
        }
    }
    res.outer = outer;
    res.inner = inner;
    if (exhausted) {
        ivec2 at = ivec2(floor((o + d * t).xy));
        if (dir.z < 0.0 && level_contains(at)) { // (on a bounded level's edge the point may lie just past it)
            res.t = t;
            res.texel = at;
        }
        return res;
    }
    // Like ray_march, the end point counts when it is solid (the ground plane z = 0 always is).
    if (solid(o + d * t1)) {
        res.t = t1;
        res.texel = ivec2(floor((o + d * t1).xy));
    }
    return res;
}

// The hit of pixel position px's ray, like trace_pixel_hit: the point to shade, nudged inside the column it lies on
// a face of (so the gradient reads that texel, and the column is the one the point lies in), its reverse-Z depth
// (0 on a miss) and the traversal's result; false on a miss.
bool voxel_hit_pixel(vec2 px, uint outer_budget, uint inner_budget, out vec3 point, out float depth,
                     out VoxelResult res) {
    vec3 dpx = pixel_dir(px);
    float len = length(dpx);
    vec3 dir = dpx / len;
    float cos_axis = g.forward.w / len;
    float t_near = g.level_info.z / cos_axis, t_far = g.eye.w / cos_axis;
    res = voxel_trace(g.eye.xyz, dir, t_near, t_far, outer_budget, inner_budget);
    if (res.t < 0.0) {
        point = g.eye.xyz;
        depth = 0.0;
        return false;
    }
    vec3 p = g.eye.xyz + dir * res.t;
    point = vec3(clamp(p.xy, vec2(res.texel) + 0.01, vec2(res.texel) + 0.99), p.z);
    depth = depth_from_view_z(res.t * cos_axis);
    return true;
}

// Traces pixel position px: linear colour and reverse-Z depth (0 on a miss), like trace_pixel.
void voxel_trace_pixel(vec2 px, uint outer_budget, uint inner_budget, out vec3 color, out float depth,
                       out VoxelResult res) {
    vec3 p;
    if (!voxel_hit_pixel(px, outer_budget, inner_budget, p, depth, res)) {
        color = g.fog.rgb;
        return;
    }
    color = shade_point(p, surface_at(res.texel), vec3(0.0));
}
