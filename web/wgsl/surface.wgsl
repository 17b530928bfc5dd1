// WGSL port of shaders/common/surface.glsl (its unpaged part): a texel of the level, the SOLID predicate and its
// interval form along a ray in one column (column_entry), the level wrapping in x and y unless g.knobs.w says an axis is bounded. Requires globals.wgsl.
struct Surface {
    low: f32,
    mid: f32,
    high: f32,
    low_type: u32,
    high_type: u32,
    dual: bool,
    outside: bool, // past the edge of a bounded axis: nothing there, SOLID at no height
}

fn level_bounded() -> bool {
    return (g.knobs.w & (LEVEL_BOUNDED_X | LEVEL_BOUNDED_Y)) != 0u;
}

fn level_contains(cell: vec2<i32>) -> bool {
    let size = vec2<u32>(g.level_info.xy);
    return !(((g.knobs.w & LEVEL_BOUNDED_X) != 0u && u32(cell.x) >= size.x) ||
             ((g.knobs.w & LEVEL_BOUNDED_Y) != 0u && u32(cell.y) >= size.y));
}

fn level_clamp(cell_in: vec2<i32>) -> vec2<i32> {
    var cell = cell_in;
    let last = vec2<i32>(g.level_info.xy) - 1;
    if ((g.knobs.w & LEVEL_BOUNDED_X) != 0u) { cell.x = clamp(cell.x, 0, last.x); }
    if ((g.knobs.w & LEVEL_BOUNDED_Y) != 0u) { cell.y = clamp(cell.y, 0, last.y); }
    return cell;
}

// Clips the ray o + dir·t, t in [*t0, *t1], to the level's extent along its bounded axes.
fn level_clip_ray(o: vec3<f32>, dir: vec3<f32>, t0: ptr<function, f32>, t1: ptr<function, f32>) -> bool {
    for (var a = 0; a < 2; a++) {
        if ((g.knobs.w & (LEVEL_BOUNDED_X << u32(a))) == 0u) { continue; }
        let size = g.level_info[a];
        if (abs(dir[a]) < 1e-12) {
            if (o[a] < 0.0 || o[a] >= size) { return false; }
            continue;
        }
        let ta = (0.0 - o[a]) / dir[a];
        let tb = (size - o[a]) / dir[a];
        *t0 = max(*t0, min(ta, tb));
        *t1 = min(*t1, max(ta, tb));
    }
    return *t0 <= *t1;
}

fn terrain_pair(c: vec2<i32>) -> vec4<u32> {
    return textureLoad(terrain, vec2<i32>(c.x >> 1u, c.y & (TERRAIN_PIECE_ROWS - 1)), c.y >> TERRAIN_PIECE_SHIFT, 0);
}

fn terrain_type(m: u32) -> u32 {
    if (g.knobs.y == 16u) { return (m >> 2u) & 15u; }
    return (m >> 3u) & 7u;
}

fn surface_at(cell: vec2<i32>) -> Surface {
    if (level_bounded() && !level_contains(cell)) { return Surface(-1.0, -1.0, -1.0, 0u, 0u, false, true); }
    let size = vec2<i32>(g.level_info.xy);
    let c = cell & (size - 1); // power-of-two wrap
    let pair = terrain_pair(c);
    var s: Surface;
    if ((pair.y & 0x40u) != 0u) { // the even texel's flag decides
        let d = ((pair.y & 3u) << 2u) | (pair.w & 3u);
        s.low = f32(pair.x);
        s.high = f32(pair.z);
        s.mid = min(f32(pair.x + (d << 3u)), s.high);
        s.low_type = terrain_type(pair.y);
        s.high_type = terrain_type(pair.w);
        s.dual = true;
    } else {
        let odd = (c.x & 1) != 0;
        let h = f32(select(pair.x, pair.z, odd));
        s.low = h;
        s.mid = h;
        s.high = h;
        s.low_type = terrain_type(select(pair.y, pair.w, odd));
        s.high_type = s.low_type;
        s.dual = false;
    }
    s.outside = false;
    return s;
}

fn surface_solid(s: Surface, z: f32) -> bool {
    return !s.outside && (z <= s.low || (s.dual && s.mid <= z && z <= s.high));
}

fn solid(p: vec3<f32>) -> bool {
    return surface_solid(surface_at(vec2<i32>(floor(p.xy))), p.z);
}

// The first t in [u0, u1] at which the ray (height oz + dz·t) is SOLID in column s, or −1: the interval form of
// surface_solid, so a column is never stepped over (the exact column walks).
fn column_entry(s: Surface, oz: f32, dz: f32, u0: f32, u1: f32) -> f32 {
    if (s.outside) { return -1.0; }
    let z0 = oz + dz * u0;
    if (surface_solid(s, z0)) { return u0; }
    var best = -1.0;
    if (dz < 0.0) { // descending: reaches the floor top, or the slab top from above
        var th = (s.low - oz) / dz;
        if (th <= u1) { best = max(th, u0); }
        if (s.dual && z0 > s.high) {
            th = (s.high - oz) / dz;
            if (th <= u1 && (best < 0.0 || th < best)) { best = max(th, u0); }
        }
    } else if (dz > 0.0 && s.dual && z0 < s.mid) { // rising under a slab: reaches its ceiling
        let th = (s.mid - oz) / dz;
        if (th <= u1) { best = max(th, u0); }
    }
    return best;
}
