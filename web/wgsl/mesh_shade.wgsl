// WGSL port of shaders/common/mesh_shade.glsl with flat shading (the web has no material set): a fitted-mesh
// surface point shaded as the ray method would see the level's own texel there — its material, cave factor and
// point on that texel's surface — with the normal blending the triangle's geometric normal and the gradient
// normal. Requires globals.wgsl, surface.wgsl, shading.wgsl.

// Of the four texels whose centres surround p, the one a ray through p would meet: for the floor, the column
// solid at p.z (the lowest such top; the texel under p when it is), else the highest; for the slab layers, a
// dual texel (the one under p when it is dual).
fn mesh_texel(p: vec3<f32>, upper: bool) -> vec2<i32> {
    let under = level_clamp(vec2<i32>(floor(p.xy))); // (a bounded level's mesh reaches its edge x = W: texel W − 1)
    let s = surface_at(under);
    if (select(s.low >= p.z - 0.5, s.dual, upper)) { return under; }
    let base = vec2<i32>(floor(p.xy - 0.5));
    var best = under;
    var best_low = s.low;
    var best_solid = false;
    for (var i = 0; i < 4; i++) {
        let c = base + vec2<i32>(i & 1, i >> 1u);
        let t = surface_at(c);
        if (t.outside) { continue; } // past a bounded edge: nothing to meet
        if (upper) {
            if (t.dual) { return c; }
            continue;
        }
        let solid = t.low >= p.z - 0.5;
        if ((solid && (!best_solid || t.low < best_low)) || (!solid && !best_solid && t.low > best_low)) {
            best = c;
            best_low = t.low;
            best_solid = solid;
        }
    }
    return best;
}

// The point of floor column cell (solid at p.z) that stands for mesh point p: on its top when p is within half
// a unit of it; otherwise on its side at p's own height, on the side nearest p whose neighbour is air there.
fn mesh_floor_point(p: vec3<f32>, cell: vec2<i32>, s: Surface) -> vec3<f32> {
    let lo = vec2<f32>(cell) + 0.001;
    let hi = vec2<f32>(cell) + 0.999;
    let xy = clamp(p.xy, lo, hi);
    if (p.z >= s.low - 0.5) { return vec3<f32>(xy, s.low); }
    var best = 2.0;
    var q = vec3<f32>(xy, s.low);
    for (var i = 0; i < 4; i++) {
        let step = vec2<i32>(select(select(0, 1, i == 1), -1, i == 0), select(select(0, 1, i == 3), -1, i == 2));
        if (surface_solid(surface_at(cell + step), p.z)) { continue; } // an inner face, covered by the neighbour
        let side = vec2<f32>(select(select(xy.x, hi.x, step.x > 0), lo.x, step.x < 0),
                             select(select(xy.y, hi.y, step.y > 0), lo.y, step.y < 0));
        let d = distance(p.xy, side);
        if (d < best) {
            best = d;
            q = vec3<f32>(side, p.z);
        }
    }
    return q;
}

// layer: the st_mesh_layer of the triangle's first vertex (0 floor; 1 ceiling or wall; 2 top);
// n_geo: the unit geometric normal, facing the eye.
fn mesh_shade(p: vec3<f32>, layer: u32, n_geo: vec3<f32>) -> vec3<f32> {
    let upper = layer != 0u;
    let cell = mesh_texel(p, upper);
    let s = surface_at(cell);
    // the point on the chosen texel's surface, kept inside that texel (cave factor, material)
    var q: vec3<f32>;
    if (upper) {
        q = vec3<f32>(clamp(p.xy, vec2<f32>(cell) + 0.001, vec2<f32>(cell) + 0.999), clamp(p.z, s.mid, s.high));
    } else {
        q = mesh_floor_point(p, cell, s);
    }
    let n_grad = gradient_normal(q, upper);
    let n = normalize(mix(n_grad, n_geo, vec3<f32>(smoothstep(0.55, 0.8, 1.0 - abs(n_geo.z)))));
    return shade_point(q, s, n);
}
