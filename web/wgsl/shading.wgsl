// WGSL port of shaders/common/shading.glsl with flat shading (materials.glsl's surface_color when shading is not
// textured, as the web build has no material set): the layer's central-difference normal,
// ambient + (1 − ambient)·visibility·max(0, n·l), the cave factor, horizontal fog. The web has no shadow map yet
// (g.shadow_info.y is 0 there), so the sun's visibility is 1 as shadow_lookup gives it then.
// Requires globals.wgsl and surface.wgsl.
fn layer_height(cell: vec2<i32>, upper: bool) -> f32 {
    let s = surface_at(cell);
    return select(s.low, s.high, upper);
}

fn gradient_normal(p: vec3<f32>, upper: bool) -> vec3<f32> {
    let c = vec2<i32>(floor(p.xy));
    if (!level_bounded()) {
        let gx = layer_height(c + vec2<i32>(1, 0), upper) - layer_height(c - vec2<i32>(1, 0), upper);
        let gy = layer_height(c + vec2<i32>(0, 1), upper) - layer_height(c - vec2<i32>(0, 1), upper);
        return normalize(vec3<f32>(-0.5 * gx, -0.5 * gy, 1.0));
    }
    var grad: vec2<f32>;
    for (var a = 0; a < 2; a++) {
        let e = select(vec2<i32>(0, 1), vec2<i32>(1, 0), a == 0);
        var lo = c - e;
        var hi = c + e;
        var k = 0.5;
        if (!level_contains(lo)) { lo = c; k = 1.0; }
        if (!level_contains(hi)) { hi = c; k = select(1.0, 0.0, k == 1.0); }
        grad[a] = k * (layer_height(hi, upper) - layer_height(lo, upper));
    }
    return normalize(vec3<f32>(-grad, 1.0));
}

fn shade_lit(p: vec3<f32>, s: Surface, n: vec3<f32>, visibility_in: f32) -> vec3<f32> {
    let upper = !s.dual || p.z >= s.mid;
    let kind = select(s.low_type, s.high_type, upper);
    var visibility = visibility_in;
    if (s.dual && p.z <= s.low && s.low < s.high) { visibility *= 0.25; } // the cave floor
    let albedo = g.albedo[kind].rgb;
    let color = albedo * (g.light.w + (1.0 - g.light.w) * visibility * max(0.0, dot(n, g.light.xyz)));
    let d = length(p.xy - g.eye.xy);
    let f = smoothstep(g.eye.w - g.fog.w, g.eye.w, d);
    return mix(color, g.fog.rgb, vec3<f32>(f));
}

fn shade_point(p: vec3<f32>, s: Surface, geometric_normal: vec3<f32>) -> vec3<f32> {
    let upper = !s.dual || p.z >= s.mid;
    var n = geometric_normal;
    if (dot(n, n) <= 0.0) { n = gradient_normal(p, upper); }
    return shade_lit(p, s, n, 1.0);
}

// select, not mix: pow(0, 1/2.4) may be NaN here, and mix would carry it into the dark branch
fn linear_to_srgb(c_in: vec3<f32>) -> vec3<f32> {
    let c = clamp(c_in, vec3<f32>(0.0), vec3<f32>(1.0));
    return select(12.92 * c, 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055, c >= vec3<f32>(0.0031308));
}
