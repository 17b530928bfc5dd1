// Mesh, compute variant, pass 3: WGSL port of shaders/methods/mesh_resolve.comp — per pixel, the nearest
// triangle from the visibility buffer's two words is fetched again, the pixel ray meets its plane at the surface
// point, and that point is shaded (mesh_shade.wgsl); writes the frame's colour and depth targets (group 1).
//! requires globals.wgsl surface.wgsl camera.wgsl shading.wgsl mesh_shade.wgsl mesh_vertex.wgsl mesh_tri.wgsl vis_tri.wgsl
@group(1) @binding(0) var out_color: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(1) var out_depth: texture_storage_2d<r32float, write>;

// Pixel position of a point relative to the eye (pixel_dir inverted); z ≤ 0 when it is behind the eye.
fn to_pixel(r: vec3<f32>) -> vec3<f32> {
    let z = dot(r, g.forward.xyz);
    let s = g.forward.w * vec2<f32>(dot(r, g.screen_right.xyz), dot(r, g.screen_up.xyz)) / z;
    return vec3<f32>(s.x + 0.5 * g.screen_right.w, 0.5 * g.screen_up.w - s.y, z);
}

// Whether the pixel centre lies within 0.6 pixels of an edge of the triangle (the overlay's line width);
// triangles reaching behind the near plane draw no edges.
fn on_edge(rel: array<vec3<f32>, 3>, c: vec2<f32>) -> bool {
    var q = array<vec3<f32>, 3>(to_pixel(rel[0]), to_pixel(rel[1]), to_pixel(rel[2]));
    if (min(q[0].z, min(q[1].z, q[2].z)) <= g.level_info.z) { return false; }
    for (var i = 0; i < 3; i++) {
        let a = q[i].xy;
        let e = q[(i + 1) % 3].xy - a;
        let len = length(e);
        if (len > 0.0 && abs(e.x * (c.y - a.y) - e.y * (c.x - a.x)) < 0.6 * len) { return true; }
    }
    return false;
}

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let px = vec2<i32>(id.xy);
    if (px.x >= i32(g.screen_right.w) || px.y >= i32(g.screen_up.w)) { return; }
    let i = px.y * i32(g.screen_right.w) + px.x;
    let depth_bits = atomicLoad(&vis_depth[i]);
    let tri1 = atomicLoad(&vis_id[i]);
    if (depth_bits == 0u || tri1 == 0u) {
        textureStore(out_color, px, vec4<f32>(linear_to_srgb(g.fog.rgb), 1.0));
        textureStore(out_depth, px, vec4<f32>(0.0));
        return;
    }
    let m = mesh_fetch(tri1 - 1u);
    let n = vis_cross(m.rel[1] - m.rel[0], m.rel[2] - m.rel[0]);
    let d = pixel_dir(vec2<f32>(px) + 0.5);
    let p = g.eye.xyz + d * (dot(n, m.rel[0]) / dot(n, d));
    var color = mesh_shade(p, m.layer, normalize(n));
    if (pc.wireframe != 0u && on_edge(m.rel, vec2<f32>(px) + 0.5)) {
        color = select(vec3<f32>(0.45, 0.05, 0.02), vec3<f32>(0.02, 0.02, 0.03), m.layer == 0u); // as mesh_wire.frag
    }
    textureStore(out_color, px, vec4<f32>(linear_to_srgb(color), 1.0));
    textureStore(out_depth, px, vec4<f32>(bitcast<f32>(depth_bits)));
}
