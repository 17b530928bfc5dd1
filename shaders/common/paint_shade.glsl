// Painted's shading, shared by the raster variant (paint.frag) and the compute one (paint_resolve.comp): a bar
// face is shaded with the shared path at the first SOLID point of the pixel's ray from the face — the texel whose
// column it enters first, on that column's layer — so a face is shaded as the ray method shades the same surface.
// The face's own position is not enough: on a face at exactly low, mid or high half the points fall on the wrong
// side of the layer tests (ceiling stripes, cave-floor bands); and a merged far block's bars stand for the highest
// of its cells, so the texel under a point may be a lower one, of another material (far walls that change colour).
// Requires globals.glsl, surface.glsl and shading.glsl.

// Walks the ray from o (on the block's bar face) through the texel columns, at most 16, and returns the first
// SOLID point and its cell; false when there is none within them. A merged block's bars stand proud of its lower
// cells, so the ray may meet the terrain a few cells behind the face, also in the next block.
bool paint_first_solid(ivec4 block, vec3 o, vec3 dir, out ivec2 cell, out vec3 hit) {
    vec3 d = mix(dir, vec3(1e-7), lessThan(abs(dir), vec3(1e-7)));
    vec2 inv = 1.0 / d.xy;
    ivec2 stp = ivec2(sign(d.xy));
    vec2 far_side = step(vec2(0.0), d.xy);
    ivec2 c = clamp(ivec2(floor(o.xy)), block.xy, block.xy + block.z - 1);
    float u0 = 0.0;
    for (int k = 0; k < 16; k++) {
        vec2 tt = (vec2(c) + far_side - o.xy) * inv;
        float u1 = max(min(tt.x, tt.y), u0);
        float th = column_entry(surface_at(c), o.z, d.z, u0, u1);
        if (th >= 0.0) {
            cell = c;
            hit = o + d * th;
            return true;
        }
        if (tt.x <= tt.y) c.x += stp.x;
        else c.y += stp.y;
        u0 = u1;
    }
    cell = ivec2(0);
    hit = o;
    return false;
}

// The point that bar face point `world` of block (x0, y0, size, bar) is shaded at, and its cell: on the interval of
// the column the ray enters and inside that texel, as the ray method's hit point is (a SOLID point).
vec3 paint_point(vec3 world, ivec4 block, out ivec2 cell) {
    vec2 lo = vec2(block.xy) + 1e-3, hi = vec2(block.xy + block.z) - 1e-3;
    vec3 p = vec3(clamp(world.xy, lo, hi), world.z);
    vec3 q;
    bool slab;
    if (paint_first_solid(block, p, normalize(world - g.eye.xyz), cell, q)) {
        Surface s = surface_at(cell);
        slab = s.dual && q.z >= 0.5 * (s.low + s.mid); // which of the column's two intervals it entered
    } else {
        cell = ivec2(floor(p.xy)); // what the block's bar face covers: the bar's own layer
        q = p;
        slab = block.w == 1;
    }
    Surface s = surface_at(cell);
    q.z = slab && s.dual ? clamp(q.z, s.mid, s.high) : min(q.z, s.low);
    q.xy = clamp(q.xy, vec2(cell) + 1e-3, vec2(cell) + 1.0 - 1e-3);
    return q;
}

// The linear colour of the bar face point `world` of block (x0, y0, size, bar).
vec3 paint_shade(vec3 world, ivec4 block) {
    ivec2 cell;
    vec3 q = paint_point(world, block, cell);
    return shade_point(q, surface_at(cell), vec3(0.0));
}
