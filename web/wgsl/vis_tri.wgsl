// WGSL port of shaders/common/vis_tri.glsl: the compute rasteriser's exact per-pixel triangle test — edge planes
// through the eye, the ray meeting the triangle's plane, the box of its projection clipped to the near plane — and
// the splat into the visibility buffer in two 32-bit words (mesh_tri.wgsl declares them). Requires globals.wgsl,
// camera.wgsl and mesh_tri.wgsl. GLSL's `precise` (no fused multiply-adds, so two triangles sharing an edge get
// exactly opposite signs there) has no WGSL spelling; the test against the native image is what holds it.

fn vis_cross(a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    return a.yzx * b.zxy - a.zxy * b.yzx;
}

fn vis_ray(px: vec2<f32>) -> vec3<f32> {
    let s = vec2<f32>(px.x - 0.5 * g.screen_right.w, 0.5 * g.screen_up.w - px.y);
    return g.forward.w * g.forward.xyz + s.x * g.screen_right.xyz + s.y * g.screen_up.xyz;
}

fn vis_side(d: vec3<f32>, e: vec3<f32>) -> f32 {
    return d.x * e.x + d.y * e.y + d.z * e.z;
}

struct VisTri {
    e0: vec3<f32>, // edge planes through the eye: the pixel ray d is inside when every dot(d, e) ≤ 0
    e1: vec3<f32>,
    e2: vec3<f32>,
    n: vec3<f32>,  // plane normal, facing the eye (front faces only)
    n_rel0: f32,   // dot(n, corner 0 − eye)
    box: vec4<i32>, // pixel bounds, inclusive (x0, y0, x1, y1); empty when x0 > x1
}

// Sets a triangle up for the pixel test: back faces and triangles wholly outside the near–far range or off
// screen come back empty. The box is the projection of the triangle clipped to the near plane.
fn vis_setup(rel_in: array<vec3<f32>, 3>) -> VisTri {
    var rel = rel_in;
    var t: VisTri;
    t.box = vec4<i32>(1, 1, 0, 0);
    t.n = vis_cross(rel[1] - rel[0], rel[2] - rel[0]);
    t.n_rel0 = dot(t.n, rel[0]);
    if (!(t.n_rel0 < 0.0)) { return t; } // back-facing (outward faces are counter-clockwise) or degenerate
    let near = g.level_info.z;
    let far = g.eye.w;
    var z: array<f32, 3>;
    for (var i = 0; i < 3; i++) { z[i] = dot(rel[i], g.forward.xyz); }
    if (max(z[0], max(z[1], z[2])) < near || min(z[0], min(z[1], z[2])) > far) { return t; }
    var lo = vec2<f32>(1e30);
    var hi = vec2<f32>(-1e30);
    let half_size = 0.5 * vec2<f32>(g.screen_right.w, g.screen_up.w);
    for (var i = 0; i < 3; i++) {
        let j = (i + 1) % 3;
        for (var k = 0; k < 2; k++) {
            var q: vec3<f32>;
            var zq: f32;
            if (k == 0) {
                if (z[i] < near) { continue; }
                q = rel[i];
                zq = z[i];
            } else {
                if ((z[i] < near) == (z[j] < near)) { continue; }
                q = mix(rel[i], rel[j], vec3<f32>((near - z[i]) / (z[j] - z[i]))); // where the edge crosses the near plane
                zq = near;
            }
            let s = half_size + g.forward.w / zq * vec2<f32>(dot(q, g.screen_right.xyz), -dot(q, g.screen_up.xyz));
            lo = min(lo, s);
            hi = max(hi, s);
        }
    }
    // every pixel whose square meets the bounds (conservative: the exact test decides)
    let size = vec2<i32>(i32(g.screen_right.w), i32(g.screen_up.w));
    let a = vec2<i32>(max(floor(lo - 0.5), vec2<f32>(0.0)));
    let b = vec2<i32>(min(floor(hi + 0.5), vec2<f32>(size - 1)));
    t.box = vec4<i32>(a, b);
    t.e0 = vis_cross(rel[0], rel[1]);
    t.e1 = vis_cross(rel[1], rel[2]);
    t.e2 = vis_cross(rel[2], rel[0]);
    return t;
}

// The pixel's reverse-Z depth on the triangle, or 0 when the ray misses it or meets it outside near–far.
fn vis_pixel_depth(t: VisTri, px: vec2<i32>) -> f32 {
    let d = vis_ray(vec2<f32>(px) + 0.5);
    if (max(vis_side(d, t.e0), max(vis_side(d, t.e1), vis_side(d, t.e2))) > 0.0) { return 0.0; }
    let view_z = g.forward.w * t.n_rel0 / dot(t.n, d); // the ray eye + d·s meets the plane at s = view_z/focal
    if (!(view_z >= g.level_info.z && view_z <= g.eye.w)) { return 0.0; }
    return depth_from_view_z(view_z);
}

// The native atomicMax of (depth bits << 32 | tri) in two passes over the same triangles: phase 0 keeps each
// pixel's largest depth bits (positive floats order as their bits), phase 1 the largest tri among the triangles
// whose depth there has exactly those bits — the 64-bit maximum's low word, so the pair equals the native word.
// The id is stored + 1, so 0 says no triangle matched (the resolve draws nothing there, which the test sees).
// Phase 0 stamps a triangle whose depth bits were at least those it met (atomicMax's old word): the final nearest
// at a pixel always was, when it splatted there, so phase 1 needs only the stamped ones (mesh_phase_wants).
fn vis_splat(px: vec2<i32>, depth: f32, tri: u32) {
    if (depth <= 0.0) { return; }
    let i = px.y * i32(g.screen_right.w) + px.x;
    let bits = bitcast<u32>(depth);
    if (pc.phase == 0u) {
        // a plain load first: where a nearer depth is there already (most splats of a far, hidden triangle) no
        // read-modify-write is needed, and the triangle is not the nearest so far
        if (atomicLoad(&vis_depth[i]) <= bits && atomicMax(&vis_depth[i], bits) <= bits) { tri_stamp[tri] = pc.stamp; }
    } else if (atomicLoad(&vis_depth[i]) == bits) {
        atomicMax(&vis_id[i], tri + 1u);
    }
}
