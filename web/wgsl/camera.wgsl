// WGSL port of shaders/common/camera.glsl: the one camera's pixel ray and reverse-Z depth. Requires globals.wgsl.
fn pixel_dir(px: vec2<f32>) -> vec3<f32> {
    let s = vec2<f32>(px.x - 0.5 * g.screen_right.w, 0.5 * g.screen_up.w - px.y);
    return g.forward.w * g.forward.xyz + s.x * g.screen_right.xyz + s.y * g.screen_up.xyz;
}

fn depth_from_view_z(z: f32) -> f32 {
    let n = g.level_info.z;
    let f = g.eye.w;
    return n * (f - z) / (z * (f - n));
}
