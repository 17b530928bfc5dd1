// The air tables (src/render/methods/air_tables.c), shared by slice-compute and ray-compute: per cell of 4×4
// (table 0), 16×16 (table 1) and 64×64 texels (table 2), over the cell grown by one texel on every side (wrapping
// with the level), what a ray may pass without meeting SOLID; and the walk that finds how far along a ray it may.
// The includer defines AIR_TABLES_SET and AIR_TABLES_BINDING (where it binds the buffer). Requires globals.glsl
// and surface.glsl.

// Per cell: the highest solid top (bits 0..7), the highest floor top (bits 8..15: a single texel's height, a dual
// one's low) and the lowest cave ceiling (bits 16..24, a dual texel's mid; 256 when there is none). A point above
// the first, or between the second and the third, is not SOLID anywhere within a texel of the cell — the margin
// that keeps a float sample of a ray, which can land a little off the exact line, inside what was checked.
layout(set = AIR_TABLES_SET, binding = AIR_TABLES_BINDING, std430) buffer AirTables { uint air_table[]; };

// texels per side of a cell of table `level`
int air_cell_side(int level) { return level == 0 ? 4 : level == 1 ? 16 : 64; }
ivec2 air_table_size(int level) { return max(ivec2(g.level_info.xy) / air_cell_side(level), ivec2(1)); }
int air_table_base(int level) {
    ivec2 s0 = air_table_size(0), s1 = air_table_size(1);
    return level == 0 ? 0 : level == 1 ? s0.x * s0.y : s0.x * s0.y + s1.x * s1.y;
}
uint air_pack(uint top, uint floor_top, uint ceiling) { return top | (floor_top << 8) | (ceiling << 16); }

// Cell c (wrapped) of table `level`: (highest top, highest floor top, lowest ceiling).
vec3 air_cell(ivec2 c, int level) {
    ivec2 size = air_table_size(level);
    c &= size - 1; // power-of-two sizes
    uint w = air_table[air_table_base(level) + c.y * size.x + c.x];
    return vec3(float(w & 255u), float((w >> 8) & 255u), float(w >> 16));
}

// Where the ray o + dir·t leaves cell c of side `side` texels; d: the ray's direction in xy with no component zero
// (so the cell's far edges and the reciprocals agree in sign), inv its reciprocal.
float air_cell_exit(vec3 o, ivec2 c, float side, vec2 d, vec2 inv) {
    vec2 far_edge = (vec2(c) + step(vec2(0.0), d)) * side;
    vec2 t = (far_edge - o.xy) * inv;
    return min(t.x, t.y);
}

// The ray in a cell of value v (highest top, highest floor top, lowest ceiling) over [t, exit]: the air is z above
// the top, or between the floor top and the ceiling (a cave), each with 0.01 of margin. Returns where the ray
// leaves the air after t (exit when it stays in it; t when it is not in the air at t) and, in *next, where it is
// next in the air after that (exit when not before).
float air_cell_air(vec3 o, vec3 dir, vec3 v, float t, float exit, out float next) {
    const float m = 0.01;
    float dz = dir.z, z0 = o.z + dz * t;
    float top = v.x + m, lo = v.y + m, hi = v.z - m;
    bool cave = lo < hi;
    // the t at which the ray is at height h (exit when it never gets there after t)
    #define AT(h) (dz != 0.0 ? clamp((h - o.z) / dz, t, exit) : exit)
    next = exit;
    if (z0 > top) return dz < 0.0 ? AT(top) : exit;
    if (cave && z0 > lo && z0 < hi) return dz < 0.0 ? AT(lo) : dz > 0.0 ? AT(hi) : exit;
    // not in the air at t: a descending ray may sink into the cave from above it, a rising one climb into the
    // cave from below it or over the top
    if (dz < 0.0 && cave && z0 >= hi) next = AT(hi);
    if (dz > 0.0) next = cave && z0 <= lo ? AT(lo) : AT(top);
    #undef AT
    return t;
}

// Texel c's value as a cell's: its top, its floor top and its cave ceiling (256 when it has none).
vec3 air_texel_cell(ivec2 c) {
    Surface q = surface_at(c);
    return vec3(max(q.low, q.high), q.low, q.dual ? q.mid : 256.0);
}

// What the walks of this invocation looked at, for the methods' work counters: cells of the tables, and texels
// fetched at the finest look.
uint air_walk_cells = 0u;
uint air_walk_texels = 0u;

// The air from t on along the ray o + dir·t (dir a unit vector): the end of the longest stretch [t, end) over
// which no point of the ray, nor one within e of it in xy, can be SOLID, up to t_limit. It walks the air tables'
// cells along the ray — a 64×64 cell while the ray stays in its air over the whole stretch, else its 16×16 cells,
// else their 4×4 cells, else their texels — and ends where the ray first leaves the air of a cell of the finest
// look: `finest` 0 the texels, 1, 2 or 3 the cells of tables 0, 1 or 2 (a walk that stops at coarser cells costs
// fewer fetches and finds shorter stretches). A float sample can land a little off the exact line: the tables'
// cells hold for a texel around them, and a texel is taken together with those within e of the stretch (its
// neighbours where the stretch touches them). *t_block: where the ray is next in that cell's air (no sooner is the
// air looked for again).
float air_clear_until(vec3 o, vec3 dir, float t, float t_limit, float e, int finest, out float t_block) {
    vec2 d = mix(dir.xy, vec2(1e-12), lessThan(abs(dir.xy), vec2(1e-12))), inv = 1.0 / d;
    vec2 ahead = 1e-3 * normalize(d); // at a cell boundary, take the cell the ray goes on into
    // where the ray leaves the parent of the cell looked at, per level (3 has none: t_limit); scalars, not an
    // array indexed by the level, which some compilers keep in memory rather than registers
    float parent_exit0 = t_limit, parent_exit1 = t_limit, parent_exit2 = t_limit;
    #define PARENT_EXIT(l) ((l) == 0 ? parent_exit0 : (l) == 1 ? parent_exit1 : (l) == 2 ? parent_exit2 : t_limit)
    int level = 3; // 3, 2, 1: the tables 2, 1, 0; 0: texels
    ivec2 key0 = ivec2(0x7FFFFFFF), key1 = key0, key2 = key0;
    vec3 val0 = vec3(0.0), val1 = val0, val2 = val0;
    t_block = t;
    for (int i = 0; i < 256 && t < t_limit; i++) {
        air_walk_cells++;
        float side = level > 0 ? float(air_cell_side(level - 1)) : 1.0;
        vec2 p = o.xy + dir.xy * t;
        ivec2 c = ivec2(floor((p + ahead) / side));
        float exit = min(air_cell_exit(o, c, side, d, inv), PARENT_EXIT(level));
        if (!(exit > t)) break; // no progress in float: the air ends here
        vec3 v;
        if (level > 0) {
            v = air_cell(c, level - 1);
        } else { // the texels within e of the stretch: its own and where it touches them, the neighbours
            vec2 q = o.xy + dir.xy * exit;
            ivec2 lo = ivec2(floor(min(p, q) - e)), hi = ivec2(floor(max(p, q) + e));
            v = vec3(0.0, 0.0, 256.0);
            if (any(greaterThan(hi - lo, ivec2(2)))) v = vec3(256.0, 256.0, 0.0); // never: no air claimed
            for (int y = lo.y; y <= min(hi.y, lo.y + 2); y++)
                for (int x = lo.x; x <= min(hi.x, lo.x + 2); x++) {
                    // consecutive stretches share most of these texels: the last three are remembered
                    ivec2 k = ivec2(x, y);
                    vec3 w;
                    if (k == key0) w = val0;
                    else if (k == key1) w = val1;
                    else if (k == key2) w = val2;
                    else {
                        w = air_texel_cell(k);
                        air_walk_texels++;
                        key2 = key1, val2 = val1, key1 = key0, val1 = val0, key0 = k, val0 = w;
                    }
                    v = vec3(max(v.xy, w.xy), min(v.z, w.z));
                }
        }
        float next;
        float end = air_cell_air(o, dir, v, t, exit, next);
        if (end >= exit) { // clear over the whole stretch
            t = exit;
            while (level < 3 && t >= PARENT_EXIT(level)) level++; // out of the parent cell: a coarser look
            continue;
        }
        if (level > finest) { // a finer look inside this cell
            if (level == 1) parent_exit0 = exit;
            else if (level == 2) parent_exit1 = exit;
            else parent_exit2 = exit;
            level--;
            continue;
        }
        t_block = end > t ? exit : next;
        return end;
    }
    #undef PARENT_EXIT
    t = min(t, t_limit);
    t_block = max(t_block, t);
    return t;
}

#ifdef AIR_TILE_TEST
// The tile test (the includer defines AIR_TILE_TEST; a compute shader of 8×8 workgroups, camera.glsl included
// before): the 8×8 pixels of a workgroup test their rays together. The frustum of the tile's rays is cut into 64
// chunks along the view axis, one per invocation, and a chunk whose every point the tables show in the air is passed;
// air_tile_start gives the start of the first chunk that is not, so the pixels of a tile start together near the
// surface and step as one (per-pixel walks diverge, which on wide devices costs more than the fetches they save).
const uint AIR_TILE = 8u, AIR_TILE_CHUNKS = AIR_TILE * AIR_TILE; // one chunk per invocation
shared uint air_tile_first; // the first chunk not shown in the air
uint air_tile_words = 0u;   // table words this invocation read (work counts)
uint air_tile_passed = 0u;  // chunks the tile passed (invocation 0's)

// Whether chunk [sa, sb] of the frustum of the rays eye + s·d, d in the quad of corner directions c[0..3], is in the
// air: the frustum piece is the convex hull of its eight corners, so their box in xy and their lowest and highest z
// bound it; it is air when, in each of the (at most 2×2) cells of the finest table that cover the box, its z range
// lies above the highest top or inside the cave between the highest floor top and the lowest ceiling. The tables
// hold for a texel around their cells, which covers a float sample landing a little off its exact ray.
bool air_chunk_in_air(vec3 c[4], float sa, float sb) {
    vec3 e = g.eye.xyz;
    vec3 lo = vec3(1e30), hi = vec3(-1e30);
    for (int i = 0; i < 4; i++) {
        vec3 pa = e + sa * c[i], pb = e + sb * c[i];
        lo = min(lo, min(pa, pb));
        hi = max(hi, max(pa, pb));
    }
    int level = -1;
    ivec2 c0 = ivec2(0);
    for (int l = 0; l < 3; l++) {
        float side = float(air_cell_side(l));
        ivec2 a = ivec2(floor(lo.xy / side)), b = ivec2(floor(hi.xy / side));
        if (all(lessThanEqual(b - a, ivec2(1)))) {
            level = l;
            c0 = a;
            break;
        }
    }
    if (level < 0) return false; // wider than two of the coarsest cells: not looked at
    // a margin for the rounding of the samples' heights (they sit up to ~1e-7 of their distance off)
    float m = 0.02 + 1e-6 * (abs(e.z) + sb * length(c[0]));
    float top = 0.0, floor_top = 0.0, ceiling = 256.0;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++) {
            vec3 v = air_cell(c0 + ivec2(x, y), level);
            air_tile_words++;
            top = max(top, v.x);
            floor_top = max(floor_top, v.y);
            ceiling = min(ceiling, v.z);
        }
    return lo.z - m > top + 0.01 || (lo.z - m > floor_top + 0.01 && hi.z + m < ceiling - 0.01);
}

// The s before which no ray eye + s·pixel_dir(px) of the workgroup's tile (the 8×8 pixels from tile·8) meets SOLID
// (0 when `on` is false, which must be the same for the whole workgroup: every invocation of it calls this, before
// any returns).
float air_tile_start(bool on, uvec2 tile) {
    if (!on) return 0.0;
    uint i = gl_LocalInvocationIndex;
    if (i == 0u) air_tile_first = AIR_TILE_CHUNKS;
    barrier();
    vec2 p0 = vec2(tile * AIR_TILE) + 0.5, p1 = p0 + float(AIR_TILE - 1u);
    vec3 c[4] = vec3[4](pixel_dir(p0), pixel_dir(vec2(p1.x, p0.y)), pixel_dir(vec2(p0.x, p1.y)), pixel_dir(p1));
    float f = g.forward.w;
    float s_lo = g.level_info.z / f, s_hi = g.eye.w / f; // the near and far planes: s is the view depth over f
    // z: before every corner's ray is down to the top there is nothing; once all are below z = 0 the marches end
    float top = g.level_info.w + 0.05, ez = g.eye.z; // a margin for the rounding of the samples' heights
    float s_top = 1e30, s_ground = 0.0;
    bool all_down = true;
    for (int k = 0; k < 4; k++) {
        if (c[k].z < 0.0) {
            s_top = min(s_top, (ez - top) / -c[k].z);
            s_ground = max(s_ground, ez / -c[k].z);
        } else {
            all_down = false;
        }
    }
    if (ez > top) s_lo = max(s_lo, s_top);
    if (all_down) s_hi = min(s_hi, s_ground);
    if (ez > top && s_top == 1e30) s_lo = s_hi; // every ray rises from above the top: all air
    float result = s_lo;
    if (s_hi > s_lo) {
        float ds = (s_hi - s_lo) / float(AIR_TILE_CHUNKS);
        if (!air_chunk_in_air(c, s_lo + float(i) * ds, s_lo + float(i + 1u) * ds)) atomicMin(air_tile_first, i);
        barrier();
        uint first = air_tile_first;
        result = s_lo + float(first) * ds; // the end of the last chunk passed, as that chunk computed it
        if (i == 0u) air_tile_passed = first;
    }
    return result;
}

#endif
