// Scattered, the paper's variant (`scatter-plain`): WGSL port of shaders/methods/scatter_plain.comp — a fixed
// compute grid over a camera-aligned ground footprint, warped to spend more samples nearby; one point per solid
// interval projected to the nearest pixel with atomicMin (gaps and all, as the paper's method leaves them).
//! requires globals.wgsl surface.wgsl camera.wgsl scatter.wgsl
@group(2) @binding(0) var<storage, read_write> screen: array<atomic<u32>>;

// Mirror of scatter_plain_push (web/methods/scatter.c): the push constants, in the ports' group 3
struct Push {
    origin: vec2<f32>,  // the eye's xy
    heading: vec2<f32>, // flat heading (unit)
    range_y: vec2<f32>, // forward range of the footprint
    range_x: vec2<f32>, // half-width of the footprint at its near and far end
    layers: u32,        // samples along each interval (the grid's z size)
}
@group(3) @binding(0) var<uniform> pc: Push;

fn footprint_point(id: vec3<u32>, groups: vec3<u32>) -> vec2<f32> {
    let total = vec2<f32>(groups.xy * vec2<u32>(16u, 16u)) - 1.0;
    let uv = vec2<f32>(id.xy) / max(total, vec2<f32>(1.0));
    let s0 = sign(pc.range_y.x) * sqrt(abs(pc.range_y.x));
    let s1 = sign(pc.range_y.y) * sqrt(abs(pc.range_y.y));
    let s = mix(s0, s1, uv.y);
    let y = s * abs(s);
    let span = pc.range_y.y - pc.range_y.x;
    let half_width = mix(pc.range_x.x, pc.range_x.y, select(0.0, (y - pc.range_y.x) / span, span > 0.0));
    let x = mix(-half_width, half_width, uv.x);
    let perp = vec2<f32>(pc.heading.y, -pc.heading.x);
    return pc.origin + pc.heading * y + perp * x;
}

fn splat_point(p: vec3<f32>, material: u32) {
    let q = p - g.eye.xyz;
    let v = vec3<f32>(dot(q, g.screen_right.xyz), dot(q, g.screen_up.xyz), dot(q, g.forward.xyz));
    if (v.z < g.level_info.z || v.z > g.eye.w) { return; }
    let size = vec2<f32>(g.screen_right.w, g.screen_up.w);
    let sp = 0.5 * size + g.forward.w * vec2<f32>(v.x, -v.y) / v.z;
    if (any(sp < vec2<f32>(0.0)) || any(sp > size)) { return; }
    // nearest pixel corner, as the original rounding of the NDC position did
    let px = min(vec2<i32>(round(sp)), vec2<i32>(size) - 1);
    atomicMin(&screen[px.y * i32(size.x) + px.x], scatter_pack(depth_from_view_z(v.z), material));
}

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let pos = footprint_point(id, groups);
    let t = f32(id.z) / f32(max(pc.layers, 1u));
    let s = surface_at(vec2<i32>(floor(pos)));
    if (s.outside) { return; } // past a bounded level's edge there is nothing
    var base = 0.0;
    if (s.dual) {
        splat_point(vec3<f32>(pos, mix(s.low, 0.0, t)), scatter_material(s.low_type, false, SCATTER_FACE_TOP));
        base = s.mid;
    }
    splat_point(vec3<f32>(pos, mix(s.high, base, t)), scatter_material(s.high_type, true, SCATTER_FACE_TOP));
}
