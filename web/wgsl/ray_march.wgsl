// WGSL port of shaders/common/ray_march.glsl: uniform steps over the segment from the near to the far plane
// (clipped to the terrain's z range), then four bisection steps; a miss gives the far depth (0) and the fog.
// Requires globals.wgsl, surface.wgsl, camera.wgsl, shading.wgsl.
fn ray_march(o: vec3<f32>, dir: vec3<f32>, t0_in: f32, t1_in: f32, steps: u32) -> f32 {
    var t0 = t0_in;
    var t1 = t1_in;
    if (level_bounded() && !level_clip_ray(o, dir, &t0, &t1)) { return -1.0; }
    let top = g.level_info.w;
    var ends_on_ground = false;
    if (dir.z < -1e-5) {
        let t_ground = o.z / -dir.z;
        ends_on_ground = t_ground <= t1;
        t1 = min(t1, t_ground);
        if (o.z > top) { t0 = max(t0, (o.z - top) / -dir.z); }
    } else if (o.z + dir.z * t0 > top) {
        return -1.0;
    } else if (dir.z > 1e-5) {
        t1 = min(t1, (top - o.z) / dir.z);
    }
    if (t1 <= t0) { return -1.0; }
    let dt = (t1 - t0) / f32(steps + 1u);
    var a = t0;
    var b = t1;
    var hit = false;
    for (var k = 1u; k <= steps; k++) {
        let t = t0 + f32(k) * dt;
        if (solid(o + dir * t)) {
            a = t - dt;
            b = t;
            hit = true;
            break;
        }
    }
    if (!hit) {
        if (!ends_on_ground && !solid(o + dir * t1)) { return -1.0; }
        a = t1 - dt;
        b = t1;
    }
    for (var i = 0; i < 4; i++) {
        let c = 0.5 * (a + b);
        if (solid(o + dir * c)) { b = c; } else { a = c; }
    }
    return b;
}

struct Traced {
    color: vec3<f32>, // linear
    depth: f32,       // reverse-Z, 0 on a miss
}

fn trace_pixel(px: vec2<f32>) -> Traced {
    let d = pixel_dir(px);
    let len = length(d);
    let dir = d / len;
    let cos_axis = g.forward.w / len;
    let t_near = g.level_info.z / cos_axis;
    let t_far = g.eye.w / cos_axis;
    let t = ray_march(g.eye.xyz, dir, t_near, t_far, g.knobs.x);
    if (t < 0.0) { return Traced(g.fog.rgb, 0.0); }
    let p = g.eye.xyz + dir * t;
    return Traced(shade_point(p, surface_at(vec2<i32>(floor(p.xy))), vec3<f32>(0.0)), depth_from_view_z(t * cos_axis));
}
