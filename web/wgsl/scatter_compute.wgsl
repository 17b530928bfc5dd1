// Scattered, hole-free (`scatter`): WGSL port of shaders/methods/scatter.comp — one invocation per ground block
// of one level of a distance quadtree over the visible ground bounds (web/methods/scatter.c dispatches one level
// at a time). A block is a single texel near the eye; farther out blocks of k×k texels are used only where a
// block projects to at most 1/density pixels. Each block emits its exposed faces — floor top, slab top, cave
// ceiling and the walls that face the camera, trimmed to the parts the neighbour column does not hide — and
// every face is splatted exactly (pixel ray ∩ face plane) into the packed screen buffer with atomicMin.
//! requires globals.wgsl surface.wgsl camera.wgsl scatter.wgsl face_raster.wgsl scatter_queue.wgsl

// Mirror of scatter_level_push (web/methods/scatter.c): the push constants, in the ports' group 3
struct Push {
    origin: vec2<i32>, // texel of block (0, 0), a multiple of k
    count: vec2<i32>,  // blocks of this level in x and y
    k: i32,            // block size in texels (a power of two)
    root: i32,         // 1 for the coarsest level: its blocks have no parent
    lod_dist: f32,     // a block of size k > 1 may be used where its nearest distance is at least k·lod_dist
    pad: i32,
}
@group(3) @binding(0) var<uniform> pc: Push;

fn block_distance(b: vec2<i32>, size: i32) -> f32 {
    let d = max(max(vec2<f32>(b) - g.eye.xy, g.eye.xy - vec2<f32>(b + size)), vec2<f32>(0.0));
    return length(d);
}

fn allowed(size: i32, d: f32) -> bool {
    return size == 1 || d >= f32(size) * pc.lod_dist;
}

// True when the box [lo, hi] lies wholly outside one plane of the view frustum.
fn box_culled(lo: vec3<f32>, hi: vec3<f32>) -> bool {
    let hw = 0.5 * g.screen_right.w / g.forward.w;
    let hh = 0.5 * g.screen_up.w / g.forward.w;
    var r = true;
    var l = true;
    var t = true;
    var b = true;
    var n = true;
    var f = true;
    for (var c = 0; c < 8; c++) {
        let p = vec3<f32>(select(lo.x, hi.x, (c & 1) != 0), select(lo.y, hi.y, (c & 2) != 0),
                          select(lo.z, hi.z, (c & 4) != 0)) - g.eye.xyz;
        let v = vec3<f32>(dot(p, g.screen_right.xyz), dot(p, g.screen_up.xyz), dot(p, g.forward.xyz));
        r = r && v.x > hw * v.z;
        l = l && v.x < -hw * v.z;
        t = t && v.y > hh * v.z;
        b = b && v.y < -hh * v.z;
        n = n && v.z < g.level_info.z;
        f = f && v.z > g.eye.w;
    }
    return r || l || t || b || n || f;
}

// The neighbour column across one side of the block: exact for single texels; for a coarse block, a single
// column at the lowest floor along that side (any finer or coarser neighbour fills at least that, so trimming
// to it never opens a crack).
fn side_neighbour(k: i32, first: vec2<i32>, along: vec2<i32>) -> Surface {
    var n = surface_at(first);
    if (k == 1) { return n; }
    var lowest = n.low;
    for (var i = 1; i < k; i++) { lowest = min(lowest, surface_at(first + along * i).low); }
    n.low = lowest;
    n.mid = lowest;
    n.high = lowest;
    n.dual = false;
    return n;
}

fn wall(axis: u32, plane: f32, span: vec2<f32>, z: vec2<f32>, material: u32) {
    if (z.x < z.y) { splat_face(Face(axis, plane, vec4<f32>(span, z), material)); }
}

// The parts of [a, b] that the neighbour column n does not fill (up to two intervals), each splatted as a wall.
fn walls_of(axis: u32, plane: f32, span: vec2<f32>, a: f32, b: f32, n: Surface, material: u32) {
    let lo = max(a, n.low);
    var i0 = vec2<f32>(lo, b);
    var i1 = vec2<f32>(1.0, 0.0);
    if (n.dual && n.mid < n.high) {
        i0.y = min(b, n.mid);
        i1 = vec2<f32>(max(lo, n.high), b);
    }
    wall(axis, plane, span, i0, material);
    wall(axis, plane, span, i1, material);
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let id = vec2<i32>(gid.xy);
    if (any(id >= pc.count)) { return; }
    let k = pc.k;
    let b = pc.origin + id * k;
    // a leaf of the quadtree: allowed at its own size, and its parent (if any) was too near to be used
    if (!allowed(k, block_distance(b, k))) { return; }
    if (pc.root == 0 && allowed(2 * k, block_distance(b & vec2<i32>(~(2 * k - 1)), 2 * k))) { return; }
    let lo = vec2<f32>(b);
    let hi = vec2<f32>(b + k);
    if (box_culled(vec3<f32>(lo, 0.0), vec3<f32>(hi, g.level_info.w))) { return; }

    // The block's column: exact for one texel; for k×k texels the highest floor and the widest slab, so the
    // coarse column contains every texel column it stands for.
    var s = surface_at(b);
    if (k == 1 && s.outside) { return; } // past a bounded level's edge there is nothing
    if (k > 1) {
        var floor_h = -1.0;
        var mid = 1e9;
        var high = -1.0;
        var floor_type = 0u;
        var high_type = 0u;
        var present = false;
        for (var y = 0; y < k; y++) {
            for (var x = 0; x < k; x++) {
                let c = surface_at(b + vec2<i32>(x, y));
                if (c.outside) { continue; } // (a block wider than a bounded level reaches past its edge)
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
        }
        if (!present) { return; }
        s.outside = false;
        s.low = floor_h;
        s.low_type = floor_type;
        s.dual = high > floor_h;
        s.mid = select(floor_h, max(mid, floor_h), s.dual);
        s.high = select(floor_h, high, s.dual);
        s.high_type = select(floor_type, high_type, s.dual);
    }
    if (box_culled(vec3<f32>(lo, 0.0), vec3<f32>(hi, s.high))) { return; }

    let e = g.eye.xyz;
    let slab = s.dual && s.mid < s.high;
    let floor_mat = scatter_material(s.low_type, !slab, SCATTER_FACE_TOP);
    let slab_mat = scatter_material(s.high_type, true, SCATTER_FACE_TOP);
    let box = vec4<f32>(lo.x, hi.x, lo.y, hi.y);
    // horizontal faces, each only when the eye is on its open side
    if (e.z > s.low && !(slab && s.mid <= s.low)) { splat_face(Face(0u, s.low, box, floor_mat)); }
    if (slab && e.z > s.high) { splat_face(Face(0u, s.high, box, slab_mat)); }
    if (slab && s.mid > s.low && e.z < s.mid) {
        splat_face(Face(0u, s.mid, box, slab_mat | (SCATTER_FACE_BOTTOM << 5u)));
    }
    // walls on the sides that face the eye
    for (var side = 0; side < 2; side++) { // side 0: a wall across x, side 1: across y
        let low_side = e[side] < lo[side]; // the eye is on the −x (−y) side of the block
        if (!low_side && !(e[side] > hi[side])) { continue; }
        let edge = select(hi[side], lo[side], low_side);
        let along = select(vec2<i32>(1, 0), vec2<i32>(0, 1), side == 0);
        var first = b;
        first[side] = select(b[side] + k, b[side] - 1, low_side);
        let n = side_neighbour(k, first, along);
        let axis = select(2u, 1u, side == 0);
        let code = select(select(SCATTER_FACE_YPOS, SCATTER_FACE_YNEG, low_side),
                          select(SCATTER_FACE_XPOS, SCATTER_FACE_XNEG, low_side), side == 0);
        let span = select(vec2<f32>(lo.x, hi.x), vec2<f32>(lo.y, hi.y), side == 0);
        walls_of(axis, edge, span, 0.0, s.low, n, (floor_mat & 31u) | (code << 5u));
        if (slab) { walls_of(axis, edge, span, s.mid, s.high, n, (slab_mat & 31u) | (code << 5u)); }
    }
}
