// Scattered: WGSL port of shaders/methods/scatter_resolve.comp — each pixel unpacks the nearest sample,
// rebuilds its world position from the pixel's ray and the depth, and shades it with shade_point using the
// packed material; writes the frame's colour and depth targets.
//! requires globals.wgsl surface.wgsl camera.wgsl shading.wgsl scatter.wgsl
@group(1) @binding(0) var out_color: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(1) var out_depth: texture_storage_2d<r32float, write>;
@group(2) @binding(0) var<storage, read> screen: array<u32>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let px = vec2<i32>(id.xy);
    if (px.x >= i32(g.screen_right.w) || px.y >= i32(g.screen_up.w)) { return; }
    let word = screen[px.y * i32(g.screen_right.w) + px.x];
    if ((word >> 8u) == SCATTER_KEY_MISS) {
        textureStore(out_color, px, vec4<f32>(linear_to_srgb(g.fog.rgb), 1.0));
        textureStore(out_depth, px, vec4<f32>(0.0));
        return;
    }
    let depth = scatter_unpack_depth(word);
    let n = g.level_info.z;
    let f = g.eye.w;
    let view_z = n * f / (depth * (f - n) + n);
    var p = g.eye.xyz + pixel_dir(vec2<f32>(px) + 0.5) * (view_z / g.forward.w);
    let material = word & 255u;
    let kind = material & 15u;
    let face = material >> 5u;
    let upper = (material & 16u) != 0u;
    let nudge = 1e-3;
    if (face == SCATTER_FACE_XNEG) { p.x += nudge; }
    if (face == SCATTER_FACE_XPOS) { p.x -= nudge; }
    if (face == SCATTER_FACE_YNEG) { p.y += nudge; }
    if (face == SCATTER_FACE_YPOS) { p.y -= nudge; }
    var s = surface_at(vec2<i32>(floor(p.xy)));
    if (s.dual) { p.z = select(min(p.z, s.low), max(p.z, s.mid), upper); } // on the layer that was drawn
    if (upper || !s.dual) { s.high_type = kind; }
    if (!upper || !s.dual) { s.low_type = kind; }
    textureStore(out_color, px, vec4<f32>(linear_to_srgb(shade_point(p, s, vec3<f32>(0.0))), 1.0));
    textureStore(out_depth, px, vec4<f32>(depth));
}
