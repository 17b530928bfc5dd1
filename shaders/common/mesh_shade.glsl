// Shading of a fitted-mesh surface point (mesh, mesh-compute). The mesh is within the fit tolerance of the
// level, not on it, and its vertices sit at texel centres, so a steep mesh face spans half of the lower
// texel and half of the higher one. The level's own texel decides what the ray method would see there:
// its material (floor → low type, slab → high type), the cave factor, and the height at which the shadow
// map is looked up (the shadow map is cast from the level; a mesh point up to τ below it would shadow
// itself). The normal blends the triangle's geometric normal with the gradient normal (spec §2):
// n = mix(n_grad, n_geo, smoothstep(0.55, 0.8, 1 − |n_geo.z|)). Requires globals, surface, shading.

// Of the four texels whose centres surround p, the one a ray through p would meet: for the floor, the
// column solid at p.z (the lowest such top; the texel under p when it is), else the highest; for the slab
// layers, a dual texel (the one under p when it is dual).
ivec2 mesh_texel(vec3 p, bool upper) {
    ivec2 under = ivec2(floor(p.xy));
    Surface s = surface_at(under);
    if (upper ? s.dual : s.low >= p.z - 0.5) return under;
    ivec2 base = ivec2(floor(p.xy - 0.5));
    ivec2 best = under;
    float best_low = s.low;
    bool best_solid = false;
    for (int i = 0; i < 4; i++) {
        ivec2 c = base + ivec2(i & 1, i >> 1);
        Surface t = surface_at(c);
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

// layer: the st_mesh_layer of the triangle's first vertex (0 floor; 1 ceiling or wall; 2 top);
// n_geo: the unit geometric normal, facing the eye.
vec3 mesh_shade(vec3 p, uint layer, vec3 n_geo) {
    bool upper = layer != 0u;
    ivec2 cell = mesh_texel(p, upper);
    Surface s = surface_at(cell);
    // the point on the chosen texel's layer, kept inside that texel (shadow, cave factor, material)
    vec3 q = vec3(clamp(p.xy, vec2(cell) + 0.001, vec2(cell) + 0.999), upper ? clamp(p.z, s.mid, s.high) : s.low);
    vec3 n_grad = gradient_normal(q, upper);
    vec3 n = normalize(mix(n_grad, n_geo, smoothstep(0.55, 0.8, 1.0 - abs(n_geo.z))));
    return shade_point(q, s, n);
}
