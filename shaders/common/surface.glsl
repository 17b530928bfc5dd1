// Decoding a texel of the level and the SOLID predicate: the GLSL twin of st_level_texel/st_texel_solid
// (src/terrain/level.c), tested against each other, and its interval form along a ray within one column
// (column_entry, shared by the exact column walks). The level wraps in x and y unless g.knobs.w says an axis
// is bounded (bit 0: x, bit 1: y; st_level.wrap_x/wrap_y): past such an edge there is nothing. Requires
// globals.glsl.
struct Surface {
    float low, mid, high;
    uint low_type, high_type;
    bool dual;
    bool outside; // past the edge of a bounded axis: nothing there, SOLID at no height
};

// Paged terrain (g.knobs.w bit 2; src/render/paged_terrain.c): the texels live in pages of 2^s texels a side, the
// tiles of a layer store, in the layers of terrain_pool as the residency manager brings them; the page table
// says which layer holds each page. The far field: coarser levels of the same field (level k: one texel per
// 2^k × 2^k texels, conservative: docs/paged-terrain.md) in pages of their own; a texel whose page is missing is
// read from the finest coarser level that has its page, and where none has it, as a single floor at its tile's
// lowest height. Native only: the web build (ST_TERRAIN_PIECES, no storage buffers) draws whole levels.
#if !defined(ST_TERRAIN_PIECES) && !defined(ST_NO_STORAGE_BUFFERS)
#define ST_PAGED_TERRAIN 1
const uint LEVEL_PAGED = 4u;
layout(set = 0, binding = 6, std430) readonly buffer TerrainPages {
    uvec4 info;            // page shift s, level-0 pages along x, along y, levels (1 + the coarser ones)
    uint level_offset[8];  // each level's first entry; level k has (pages along x >> k) × (along y >> k)
    uint entry[];          // per page, row-major: (layer + 1) | floor << 24; layer + 1 = 0: not resident
} terrain_pages;
layout(set = 0, binding = 7) uniform usampler2DArray terrain_pool;

// A level-0 page is resolved once (its layer, or the coarser level over it) and what was found kept in the
// invocation's registers until a read falls in another page: a march crosses a page every few dozen steps, so
// most reads are one texel fetch, as on a whole-level texture (the table does not change while a frame draws).

// What a level-0 page resolves to: (layer + 1) | k << 24 for the finest level k (0: its own) whose page over it is
// mapped; where none is, layer + 1 = 0 and the page's floor in the top byte (the entry as it is).
uint terrain_page_resolve(uint page, uvec2 pc) {
    uint e = terrain_pages.entry[page];
    if ((e & 0xFFFFFFu) != 0u) return e & 0xFFFFFFu;
    for (uint k = 1u; k < g.pages_info.w; k++) {
        uint i = terrain_pages.level_offset[k] + (pc.y >> k) * (g.pages_info.y >> k) + (pc.x >> k);
        uint l = terrain_pages.entry[i] & 0xFFFFFFu;
        if (l != 0u) return l | (k << 24);
    }
    return e;
}

// The pair of texel c from what its page resolved to (terrain_page_resolve).
uvec4 terrain_page_fetch(ivec2 c, uint r) {
    ivec2 m0 = c & ((1 << int(g.pages_info.x)) - 1);
    if (r - 1u < 0xFFFFFFu) // its own page (k = 0, resident): the common case, one fetch and no more
        return texelFetch(terrain_pool, ivec3(m0.x >> 1, m0.y, int(r - 1u)), 0);
    uint layer = r & 0xFFFFFFu;
    if (layer == 0u) return uvec4(r >> 24, 0u, r >> 24, 0u);
    int k = int(r >> 24);
    ivec2 ck = c >> k;
    ivec2 m = ck & ((1 << int(g.pages_info.x)) - 1);
    uvec4 p = texelFetch(terrain_pool, ivec3(m.x >> 1, m.y, int(layer - 1u)), 0);
    // a dual pair is one column for both its texels; of two single ones the caller picks by c's parity, so
    // both halves hold the coarse texel over c
    if (k != 0 && (p.y & 0x40u) == 0u) p = (ck.x & 1) != 0 ? p.zwzw : p.xyxy;
    return p;
}

// The invocation's last resolved level-0 page: its index and what it resolved to.
uint terrain_page_last = 0xFFFFFFFFu;
uint terrain_page_last_resolved = 0u;

// The pair holding texel c (wrapped into the level) in its page, or the coarse texel over it.
uvec4 terrain_page_pair(ivec2 c) {
    uint s = g.pages_info.x;
    uvec2 pc = uvec2(c) >> s;
    uint page = pc.y * g.pages_info.y + pc.x;
    if (page != terrain_page_last) {
        terrain_page_last = page;
        terrain_page_last_resolved = terrain_page_resolve(page, pc);
    }
    return terrain_page_fetch(c, terrain_page_last_resolved);
}
#endif

// Whether any axis of the level is bounded (a uniform: wrapping worlds take none of the edge paths).
bool level_bounded() {
    return (g.knobs.w & (LEVEL_BOUNDED_X | LEVEL_BOUNDED_Y)) != 0u;
}

// Whether texel column `cell` exists: inside the level along every bounded axis (twin of st_level_contains).
bool level_contains(ivec2 cell) {
    uvec2 size = uvec2(g.level_info.xy);
    return !(((g.knobs.w & LEVEL_BOUNDED_X) != 0u && uint(cell.x) >= size.x) ||
             ((g.knobs.w & LEVEL_BOUNDED_Y) != 0u && uint(cell.y) >= size.y));
}

// The nearest existing column: `cell` clamped into the level along its bounded axes.
ivec2 level_clamp(ivec2 cell) {
    ivec2 last = ivec2(g.level_info.xy) - 1;
    if ((g.knobs.w & LEVEL_BOUNDED_X) != 0u) cell.x = clamp(cell.x, 0, last.x);
    if ((g.knobs.w & LEVEL_BOUNDED_Y) != 0u) cell.y = clamp(cell.y, 0, last.y);
    return cell;
}

// Clips the ray o + dir·t, t in [t0, t1], to the level's extent along its bounded axes (the box
// [0, W] × [0, H]); false when nothing of it is left. Unchanged in a wrapping world.
bool level_clip_ray(vec3 o, vec3 dir, inout float t0, inout float t1) {
    for (int a = 0; a < 2; a++) {
        if ((g.knobs.w & (LEVEL_BOUNDED_X << uint(a))) == 0u) continue; // x, then y
        float size = g.level_info[a];
        if (abs(dir[a]) < 1e-12) {
            if (o[a] < 0.0 || o[a] >= size) return false;
            continue;
        }
        float ta = (0.0 - o[a]) / dir[a], tb = (size - o[a]) / dir[a];
        t0 = max(t0, min(ta, tb));
        t1 = min(t1, max(ta, tb));
    }
    return t0 <= t1;
}

// The pair holding texel column c (wrapped into the level): one texel of the terrain texture, or of its page
// where the terrain is paged.
uvec4 terrain_pair(ivec2 c) {
#ifdef ST_TERRAIN_PIECES
    return texelFetch(terrain, ivec3(c.x >> 1, c.y & (TERRAIN_PIECE_ROWS - 1), c.y >> TERRAIN_PIECE_SHIFT), 0);
#else
#ifdef ST_PAGED_TERRAIN
    if ((g.knobs.w & LEVEL_PAGED) != 0u) return terrain_page_pair(c);
#endif
    return texelFetch(terrain, ivec2(c.x >> 1, c.y), 0);
#endif
}

uint terrain_type(uint meta) {
    return g.knobs.y == 16u ? (meta >> 2) & 15u : (meta >> 3) & 7u;
}

// The texel of a pair (h_even, m_even, h_odd, m_odd): the odd one's or the even one's where single.
Surface surface_of_pair(uvec4 pair, bool odd) {
    Surface s;
    if ((pair.y & 0x40u) != 0u) { // the even texel's flag decides
        uint d = ((pair.y & 3u) << 2) | (pair.w & 3u);
        s.low = float(pair.x);
        s.high = float(pair.z);
        s.mid = min(float(pair.x + (d << 3)), s.high);
        s.low_type = terrain_type(pair.y);
        s.high_type = terrain_type(pair.w);
        s.dual = true;
    } else {
        float h = float(odd ? pair.z : pair.x);
        s.low = h;
        s.mid = h;
        s.high = h;
        s.low_type = terrain_type(odd ? pair.w : pair.y);
        s.high_type = s.low_type;
        s.dual = false;
    }
    s.outside = false;
    return s;
}

Surface surface_at(ivec2 cell) {
    // Outside: heights −1, below every height a method meets (z ≥ 0), so even a test that forgot the flag
    // would find no floor there; every consumer checks the flag all the same.
    if (level_bounded() && !level_contains(cell)) return Surface(-1.0, -1.0, -1.0, 0u, 0u, false, true);
    ivec2 size = ivec2(g.level_info.xy);
    ivec2 c = cell & (size - 1); // power-of-two wrap (two's complement handles negatives)
    return surface_of_pair(terrain_pair(c), (c.x & 1) != 0);
}

bool surface_solid(Surface s, float z) {
    return !s.outside && (z <= s.low || (s.dual && s.mid <= z && z <= s.high));
}

// SOLID(p) := inside && (z <= low || (dual && mid <= z && z <= high)); height 0 is hittable.
bool solid(vec3 p) {
    return surface_solid(surface_at(ivec2(floor(p.xy))), p.z);
}

// The first t in [u0, u1] at which the ray (height oz + dz*t) is SOLID in column s, or -1: the interval
// form of surface_solid (z <= low, or dual and mid <= z <= high), so a column is never stepped over.
float column_entry(Surface s, float oz, float dz, float u0, float u1) {
    if (s.outside) return -1.0;
    float z0 = oz + dz * u0;
    if (surface_solid(s, z0)) return u0;
    float best = -1.0;
    if (dz < 0.0) { // descending: reaches the floor top, or the slab top from above
        float th = (s.low - oz) / dz;
        if (th <= u1) best = max(th, u0);
        if (s.dual && z0 > s.high) {
            th = (s.high - oz) / dz;
            if (th <= u1 && (best < 0.0 || th < best)) best = max(th, u0);
        }
    } else if (dz > 0.0 && s.dual && z0 < s.mid) { // rising under a slab: reaches its ceiling
        float th = (s.mid - oz) / dz;
        if (th <= u1) best = max(th, u0);
    }
    return best;
}
