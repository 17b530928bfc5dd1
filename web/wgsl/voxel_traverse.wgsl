// WGSL port of shaders/common/voxel_traverse.glsl: the RayVoxel traversal — a hierarchical DDA over the occupancy
// pyramid (voxel_grid.wgsl) from the coarsest level — descend into occupied cells, skip empty ones to their exit
// plane, climb while a step leaves the parent into an empty one — and, in an occupied leaf cell, an exact walk
// over the cell's texel columns that intersects the ray's interval in each column with SOLID of the source height
// data. The pyramid only skips known-empty space; hits always come from the height field.
// Requires globals.wgsl, surface.wgsl, camera.wgsl, shading.wgsl, voxel_grid.wgsl.

struct VoxelResult {
    t: f32,            // distance of the hit, -1 on a miss
    texel: vec2<i32>,  // the column that was hit
    outer: u32,        // pyramid steps used
    inner: u32,        // texel columns tested
}

// Traces o + dir·t over [t0, t1] (dir normalised). Budgets: outer = steps across a cell at any level (descending
// and climbing are free, at most one per level), inner = texel columns tested in leaves. When either runs out a
// descending ray takes its current point as the hit (it is at or above the surface it was about to reach), a
// rising one misses.
fn voxel_trace(o: vec3<f32>, dir: vec3<f32>, t0_in: f32, t1_in: f32, outer_budget: u32, inner_budget: u32) -> VoxelResult {
    var res = VoxelResult(-1.0, vec2<i32>(0), 0u, 0u);
    var t0 = t0_in;
    var t1 = t1_in;
    // past the edge of a bounded axis there is nothing: trace only the part of the ray over the level
    if (level_bounded() && !level_clip_ray(o, dir, &t0, &t1)) { return res; }
    let top = g.level_info.w; // nothing is solid above
    if (dir.z < -1e-5) {
        t1 = min(t1, o.z / -dir.z);                               // z = 0: height 0 is solid
        if (o.z > top) { t0 = max(t0, (o.z - top) / -dir.z); }    // enter the grid through its top
    } else if (o.z + dir.z * t0 > top) {
        return res;
    } else if (dir.z > 1e-5) {
        t1 = min(t1, (top - o.z) / dir.z);
    }
    if (t1 <= t0) { return res; }

    // Exactly-zero components would make 0 * inf plane distances: tilt them by a negligible amount.
    let d = select(dir, vec3<f32>(1e-7), abs(dir) < vec3<f32>(1e-7));
    let inv = vec3<f32>(1.0) / d;
    let stp = vec3<i32>(sign(d));
    let far_side = step(vec3<f32>(0.0), d); // the exit face of a cell is its upper face on rising axes
    let leaf_size = vec2<i32>(vg.info.yz);
    let top_lod = i32(vg.info.x) - 1;
    var lod = top_lod;
    // Cell sizes are powers of two, so p / size and the planes (c + 1) · size are exact: the cell of a point and
    // the texel the leaf walk reads agree without any epsilon.
    var csize = vec3<f32>(vg.info.yzw) * f32(1 << u32(lod));
    var c = vec3<i32>(floor((o + d * t0) / csize));
    c.z = clamp(c.z, 0, i32(vg.lod[lod].z) - 1); // a start on z = top belongs to the top cell
    var t = t0;
    var outer = 0u;
    var inner = 0u;
    var exhausted = false;
    while (t < t1) {
        // Descend while the cell holding the current point is occupied (free: at most one per level).
        var occupied = voxel_occupied(u32(lod), c);
        while (occupied && lod > 0) {
            lod--;
            csize *= 0.5;
            let child = vec3<i32>(floor((o + d * t) / csize));
            c = clamp(child, 2 * c, 2 * c + 1); // stay inside the parent whatever the rounding
            occupied = voxel_occupied(u32(lod), c);
        }
        if (outer >= outer_budget) {
            exhausted = true;
            break;
        }
        outer++; // one step across a cell, at whatever level
        var tn = ((vec3<f32>(c) + far_side) * csize - o) * inv;
        if (occupied) {
            // A run of occupied leaf voxels above or below in the same cell shares its texel columns: walk them
            // as one segment (a steep ray beside a cliff would otherwise re-test them per voxel).
            while (tn.z < min(tn.x, tn.y) && tn.z < t1 && voxel_occupied(0u, c + vec3<i32>(0, 0, stp.z))) {
                c.z += stp.z;
                tn.z = ((f32(c.z) + far_side.z) * csize.z - o.z) * inv.z;
            }
        }
        let t_exit = min(tn.x, min(tn.y, tn.z));
        if (occupied) { // a leaf: walk its texel columns over [t, t_exit]
            let tb = min(t_exit, t1);
            let lo = c.xy * leaf_size;
            let hi = lo + leaf_size - 1;
            var tex = clamp(vec2<i32>(floor((o + d * t).xy)), lo, hi);
            var u0 = t;
            loop {
                if (inner >= inner_budget) {
                    exhausted = true;
                    break;
                }
                inner++;
                let tt = (vec2<f32>(tex) + far_side.xy - o.xy) * inv.xy;
                let tx_exit = min(tt.x, tt.y);
                let th = column_entry(surface_at(tex), o.z, d.z, u0, min(tx_exit, tb));
                if (th >= 0.0) {
                    res.t = th;
                    res.texel = tex;
                    res.outer = outer;
                    res.inner = inner;
                    return res;
                }
                if (tx_exit >= tb) { break; }
                if (tt.x <= tt.y) { tex.x += stp.x; } else { tex.y += stp.y; }
                if (any(tex < lo) || any(tex > hi)) { break; }
                u0 = max(u0, tx_exit);
            }
            if (exhausted) { break; }
        }
        // Advance to the neighbour across the exit face; when that leaves the parent and the new parent is empty,
        // climb (as far as the ancestors crossed are empty) so the next step skips more.
        let axis = select(select(2, 1, tn.y <= tn.z), 0, tn.x <= tn.y && tn.x <= tn.z);
        var before = c[axis];
        c[axis] += stp[axis];
        t = max(t, t_exit);
        while (lod < top_lod && (c[axis] >> 1u) != (before >> 1u) && !voxel_occupied(u32(lod + 1), c >> vec3<u32>(1u))) {
            lod++;
            csize *= 2.0;
            c = c >> vec3<u32>(1u);
            before = before >> 1u;
        }
    }
    res.outer = outer;
    res.inner = inner;
    if (exhausted) {
        let at = vec2<i32>(floor((o + d * t).xy));
        if (dir.z < 0.0 && level_contains(at)) { // (on a bounded level's edge the point may lie just past it)
            res.t = t;
            res.texel = at;
        }
        return res;
    }
    // Like ray_march, the end point counts when it is solid (the ground plane z = 0 always is).
    if (solid(o + d * t1)) {
        res.t = t1;
        res.texel = vec2<i32>(floor((o + d * t1).xy));
    }
    return res;
}

struct VoxelPixel {
    color: vec3<f32>, // linear
    depth: f32,       // reverse-Z, 0 on a miss
    res: VoxelResult,
}

// Traces pixel position px: linear colour and reverse-Z depth (0 on a miss), like trace_pixel.
fn voxel_trace_pixel(px: vec2<f32>, outer_budget: u32, inner_budget: u32) -> VoxelPixel {
    let dpx = pixel_dir(px);
    let len = length(dpx);
    let dir = dpx / len;
    let cos_axis = g.forward.w / len;
    let t_near = g.level_info.z / cos_axis;
    let t_far = g.eye.w / cos_axis;
    let res = voxel_trace(g.eye.xyz, dir, t_near, t_far, outer_budget, inner_budget);
    if (res.t < 0.0) { return VoxelPixel(g.fog.rgb, 0.0, res); }
    let p = g.eye.xyz + dir * res.t;
    // The hit lies on a face of its column: shade that column (the point is nudged inside it so the gradient
    // reads the same texel).
    let inside = clamp(p.xy, vec2<f32>(res.texel) + 0.01, vec2<f32>(res.texel) + 0.99);
    return VoxelPixel(shade_point(vec3<f32>(inside, p.z), surface_at(res.texel), vec3<f32>(0.0)),
                      depth_from_view_z(res.t * cos_axis), res);
}
