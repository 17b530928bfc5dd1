// The water's camera-centred ring grid (src/render/passes/water.c): ring i is a square lattice of spacing
// s·2^i around the origin snapped to its own 2·spacing lattice, with the square of ring i − 1 cut out. Each
// vertex is displaced by the waves (Gerstner) or the ocean's cascades, filtered by distance; in the outer band
// of a ring the odd vertices morph onto the coarser ring's edges, so rings meet without cracks. The vertex
// shader (water_surface_vert.glsl) and the compute rasteriser's vertex pass (water_lattice.comp) both place
// the vertices here. Requires globals.glsl, water_common.glsl and, with WATER_OCEAN, ocean_sample.glsl.

// The geometry's filter: waves shorter than a few vertex spacings at this distance are left to the shading.
vec3 water_lattice_displacement(vec2 rest) {
    vec2 d2 = water.origin.xy + rest - g.eye.xy;
    float r = sqrt(dot(d2, d2) + (g.eye.z - water.surface.x) * (g.eye.z - water.surface.x));
    float cut = water.grid.w * max(water.grid.x, 2.0 * r / water.grid.y);
#ifdef WATER_GERSTNER
    return gerstner_displacement(rest, cut);
#else
    return ocean_displacement(rest, cut);
#endif
}

// Lattice vertex (a, b) of the ring whose lower corner (relative to the origin O) is `corner`: its rest point
// (relative to O) and its displaced world point.
vec3 water_lattice_point(vec2 corner, float spacing, bool morph, uint a, uint b, out vec2 rest) {
    uint n = uint(water.grid.y);
    rest = corner + vec2(a, b) * spacing;
    // the vertex's own displacement, or in the outer band a blend toward the coarser ring's edge (the mean of
    // its even neighbours): one loop over the points, one call site
    uint odd = (a & 1u) | ((b & 1u) << 1);
    float alpha = 0.0;
    if (morph && odd != 0u) {
        float e = float(min(min(a, b), min(n - a, n - b)));
        alpha = clamp((water.grid.z - e) / water.grid.z, 0.0, 1.0);
    }
    float s = spacing;
    vec2 offsets[5] = vec2[5](vec2(0.0), vec2(-s, 0.0), vec2(s, 0.0), vec2(0.0, -s), vec2(0.0, s));
    if (odd == 2u) {
        offsets[1] = vec2(0.0, -s);
        offsets[2] = vec2(0.0, s);
    } else if (odd == 3u) {
        offsets[1] = vec2(-s, -s);
        offsets[2] = vec2(s, -s);
        offsets[3] = vec2(-s, s);
        offsets[4] = vec2(s, s);
    }
    uint points = alpha > 0.0 ? (odd == 3u ? 5u : 3u) : 1u;
    vec3 d = vec3(0.0);
    for (uint k = 0u; k < points; k++) {
        float wgt = k == 0u ? 1.0 - alpha : alpha / float(points - 1u);
        d += wgt * water_lattice_displacement(rest + offsets[k]);
    }
    return vec3(water.origin.xy + rest + d.xy, water.surface.x + d.z);
}
