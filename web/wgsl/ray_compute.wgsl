// RayTraced, compute variant: WGSL port of shaders/methods/ray.comp — the same march, writing colour
// (sRGB-encoded) and depth images (group 1: the frame's targets).
//! requires globals.wgsl surface.wgsl camera.wgsl shading.wgsl ray_march.wgsl
@group(1) @binding(0) var out_color: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(1) var out_depth: texture_storage_2d<r32float, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let pixel = vec2<i32>(id.xy);
    if (pixel.x >= i32(g.screen_right.w) || pixel.y >= i32(g.screen_up.w)) { return; }
    let r = trace_pixel(vec2<f32>(pixel) + 0.5);
    textureStore(out_color, pixel, vec4<f32>(linear_to_srgb(r.color), 1.0));
    textureStore(out_depth, pixel, vec4<f32>(r.depth));
}
