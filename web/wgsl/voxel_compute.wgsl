// RayVoxel, compute variant: WGSL port of shaders/methods/voxel.comp — the traversal of voxel_traverse.wgsl,
// writing colour (sRGB-encoded) and depth images (group 1: the frame's targets; the pyramid in group 2).
//! requires globals.wgsl surface.wgsl camera.wgsl shading.wgsl voxel_grid.wgsl voxel_traverse.wgsl
@group(1) @binding(0) var out_color: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(1) var out_depth: texture_storage_2d<r32float, write>;

// Mirror of voxel_draw_push (web/methods/voxel.c): the push constants, in the ports' group 3
struct Push {
    outer_budget: u32,
    inner_budget: u32,
    show_steps: u32, // diagnostic: colour = (outer, inner) steps used / budget, blue = hit
    pad: u32,
}
@group(3) @binding(0) var<uniform> pc: Push;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let pixel = vec2<i32>(id.xy);
    if (pixel.x >= i32(g.screen_right.w) || pixel.y >= i32(g.screen_up.w)) { return; }
    let r = voxel_trace_pixel(vec2<f32>(pixel) + 0.5, pc.outer_budget, pc.inner_budget);
    var color = r.color;
    if (pc.show_steps != 0u) {
        color = vec3<f32>(f32(r.res.outer) / f32(pc.outer_budget), f32(r.res.inner) / f32(pc.inner_budget),
                          select(0.0, 1.0, r.res.t >= 0.0));
    }
    textureStore(out_color, pixel, vec4<f32>(linear_to_srgb(color), 1.0));
    textureStore(out_depth, pixel, vec4<f32>(r.depth));
}
