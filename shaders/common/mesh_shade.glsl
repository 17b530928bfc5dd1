// Shading of a fitted-mesh surface point (mesh, mesh-compute). The mesh is within the fit tolerance of the
// level, not on it, and its floor vertices sit at texel centres, so a steep mesh face spans half of the lower
// texel and half of the higher one. The level's own texel decides what the ray method would see there: its
// material (floor → low type, slab → high type), the cave factor, and the point at which the shadow map is
// looked up — on that texel's surface, as the ray method's hit is (the shadow map is cast from the level; a
// mesh point up to τ below a top would shadow itself, and one moved up onto the top of a cliff would be lit
// where the cliff's face is in shadow). The normal blends the triangle's geometric normal with the gradient
// normal (spec §2): n = mix(n_grad, n_geo, smoothstep(0.55, 0.8, 1 − |n_geo.z|)). Textured, the materials project
// onto the triangle's plane at p itself. Requires globals,
// surface, shading.

// Of the four texels whose centres surround p, the one a ray through p would meet: for the floor, the
// column solid at p.z (the lowest such top; the texel under p when it is), else the highest; for the slab
// layers, a dual texel (the one under p when it is dual).
ivec2 mesh_texel(vec3 p, bool upper) {
    ivec2 under = level_clamp(ivec2(floor(p.xy))); // (a bounded level's mesh reaches its edge x = W: texel W − 1)
    Surface s = surface_at(under);
    if (upper ? s.dual : s.low >= p.z - 0.5) return under;
    ivec2 base = ivec2(floor(p.xy - 0.5));
    ivec2 best = under;
    float best_low = s.low;
    bool best_solid = false;
    for (int i = 0; i < 4; i++) {
        ivec2 c = base + ivec2(i & 1, i >> 1);
        Surface t = surface_at(c);
        if (t.outside) continue; // past a bounded edge: nothing to meet
        if (upper) {
            if (t.dual) return c;
            continue;
        }
        bool solid = t.low >= p.z - 0.5;
        if ((solid && (!best_solid || t.low < best_low)) || (!solid && !best_solid && t.low > best_low)) {
            best = c;
            best_low = t.low;
            best_solid = solid;
        }
    }
    return best;
}

// The point of floor column `cell` (solid at p.z) that stands for mesh point p: on its top when p is within
// half a unit of it; otherwise on its side at p's own height — a cliff face, where the ray method meets the
// column — on the side nearest p whose neighbour is air at that height (none: the top).
vec3 mesh_floor_point(vec3 p, ivec2 cell, Surface s) {
    vec2 lo = vec2(cell) + 0.001, hi = vec2(cell) + 0.999;
    vec2 xy = clamp(p.xy, lo, hi);
    if (p.z >= s.low - 0.5) return vec3(xy, s.low);
    float best = 2.0;
    vec3 q = vec3(xy, s.low);
    for (int i = 0; i < 4; i++) {
        ivec2 step = ivec2(i == 0 ? -1 : i == 1 ? 1 : 0, i == 2 ? -1 : i == 3 ? 1 : 0);
        if (surface_solid(surface_at(cell + step), p.z)) continue; // an inner face, covered by the neighbour
        vec2 side = vec2(step.x < 0 ? lo.x : step.x > 0 ? hi.x : xy.x, step.y < 0 ? lo.y : step.y > 0 ? hi.y : xy.y);
        float d = distance(p.xy, side);
        if (d < best) best = d, q = vec3(side, p.z);
    }
    return q;
}

// layer: the st_mesh_layer of the triangle's first vertex (0 floor; 1 ceiling or wall; 2 top);
// n_geo: the unit geometric normal, facing the eye.
vec3 mesh_shade(vec3 p, uint layer, vec3 n_geo) {
    bool upper = layer != 0u;
    ivec2 cell = mesh_texel(p, upper);
    Surface s = surface_at(cell);
    // the point on the chosen texel's surface, kept inside that texel (shadow, cave factor, material)
    vec3 q = upper ? vec3(clamp(p.xy, vec2(cell) + 0.001, vec2(cell) + 0.999), clamp(p.z, s.mid, s.high))
                   : mesh_floor_point(p, cell, s);
    vec3 n_grad = gradient_normal(q, upper);
    vec3 n = normalize(mix(n_grad, n_geo, smoothstep(0.55, 0.8, 1.0 - abs(n_geo.z))));
    if (!shading_textured()) return shade_point(q, s, n);
    // the materials lie on the triangle the pixel shows, at p: projected onto q's column face instead, a
    // steep triangle would take a step's top projection wherever it passes within half a unit of that top, and
    // its texture would be stretched there
    return shade_lit_face(q, s, n, shadow_lookup(q, n), n_geo, p);
}
