// Painted's primitives, shared by the raster variant (paint.vert) and the compute one (paint_compute.comp):
// the frame's tile list, a block of cells of one tile (the instance), and the block's two bars, the floor bar
// [0, low] and the slab bar [mid, high]. The CPU lists the visible 16×16-texel tiles nearest first; an instance
// is one block of 2^lod × 2^lod cells of one tile, its cells enumerated from the camera outward.
// Requires globals.glsl and surface.glsl.

const int PAINT_TILE = 16;

// x0, y0 (world texels, unwrapped), flags: 1 = x from the far end, 2 = y from the far end, 4 = x major,
// 8 = the tile holds dual texels; w: the tile's highest height
#ifdef ST_NO_STORAGE_BUFFERS
// The web build (WebGL2 has no storage buffers): the list is a texture of LIST_WIDTH entries a row
// (src/gpu/backend.h, ST_GB_LIST_WIDTH).
const uint LIST_WIDTH = 1024u;
layout(set = 1, binding = 0) uniform highp isampler2D tiles;
ivec4 paint_tile(uint i) {
    return texelFetch(tiles, ivec2(int(i % LIST_WIDTH), int(i / LIST_WIDTH)), 0);
}
#else
layout(set = 1, binding = 0, std430) readonly buffer PaintTiles {
    ivec4 tiles[];
};
ivec4 paint_tile(uint i) {
    return tiles[i];
}
#endif

struct PaintBlock {
    ivec2 origin; // first cell (world texels, unwrapped)
    int size;     // cells per side: 2^lod
    int flags;    // the tile's flags
};

// Block `inst` (instance index within its tile range) of the draw whose tiles start at tile_base.
PaintBlock paint_block(uint tile_base, uint lod, uint inst) {
    int side = PAINT_TILE >> lod, shift = 8 - 2 * int(lod);
    ivec4 t = paint_tile(tile_base + (inst >> shift));
    int c = int(inst & ((1u << shift) - 1u));
    int a = c % side, b = c / side; // a: minor, b: major
    int u = (t.z & 4) != 0 ? b : a, v = (t.z & 4) != 0 ? a : b;
    if ((t.z & 1) != 0) u = side - 1 - u;
    if ((t.z & 2) != 0) v = side - 1 - v;
    PaintBlock k;
    k.size = 1 << lod;
    k.origin = t.xy + ivec2(u, v) * k.size;
    k.flags = t.z;
    return k;
}

// The block's column: the highest floor and the slab spanning every slab in it (mid > high: none); present: some
// cell of the block exists (past a bounded level's edge there is nothing).
struct PaintColumn {
    float low, mid, high;
    bool present;
};

PaintColumn paint_column(PaintBlock k) {
    PaintColumn c = PaintColumn(0.0, 256.0, -1.0, false);
    for (int y = 0; y < k.size; y++)
        for (int x = 0; x < k.size; x++) {
            Surface s = surface_at(k.origin + ivec2(x, y));
            if (s.outside) continue;
            c.present = true;
            c.low = max(c.low, s.low);
            if (s.dual) {
                c.mid = min(c.mid, s.mid);
                c.high = max(c.high, s.high);
            }
        }
    return c;
}

// The camera-side neighbours of a one-cell block along x and along y (those columns stand between the eye and the
// block's camera-facing x and y sides).
void paint_neighbours(PaintBlock k, out Surface sx, out Surface sy) {
    sx = surface_at(k.origin + ivec2(g.eye.x >= float(k.origin.x) + 0.5 ? 1 : -1, 0));
    sy = surface_at(k.origin + ivec2(0, g.eye.y >= float(k.origin.y) + 0.5 ? 1 : -1));
}

// paint_bar from the block's column and, with hidden_sides on a one-cell block, its camera-side neighbours.
bool paint_bar_of(PaintBlock k, PaintColumn col, int bar, bool hidden_sides, Surface sx, Surface sy, out vec3 lo,
                  out vec3 hi) {
    lo = vec3(0.0);
    hi = vec3(0.0);
    if (!col.present || (bar == 1 && col.high < 0.0)) return false; // nothing here, or no slab in this block
    float zb = bar == 0 ? 0.0 : col.mid, zt = bar == 0 ? col.low : col.high;
    if (hidden_sides && bar == 0 && k.size == 1) // (a missing neighbour past a bounded edge hides nothing: the side
                                                 // runs down to 0 there)
        zb = min(min(sx.outside ? 0.0 : sx.low, sy.outside ? 0.0 : sy.low), min(col.low, g.eye.z));
    lo = vec3(vec2(k.origin), zb);
    hi = vec3(vec2(k.origin + k.size), zt);
    return true;
}

// Bar `bar` of the block (0 the floor, 1 the slab) as a box [lo, hi]; false when the block has no such bar.
// A merged block's bars are the highest floor and the slab spanning every slab in it (conservative for
// coverage; a block is merged only where it projects under about a pixel). With hidden_sides the floor bar's
// camera-facing sides are covered up to the floors of the camera-side neighbours (those columns stand between
// the eye and the face): the bar starts there, so on terraces, where neighbours are level, the sides collapse
// and their triangles are dropped before rasterising. Never above the eye, so the bar's bottom face stays one
// the eye cannot see.
bool paint_bar(PaintBlock k, int bar, bool hidden_sides, out vec3 lo, out vec3 hi) {
    lo = vec3(0.0);
    hi = vec3(0.0);
    if (bar == 1 && (k.flags & 8) == 0) return false; // no slab in the tile: the terrain is not read
    PaintColumn col = paint_column(k);
    Surface sx = Surface(-1.0, -1.0, -1.0, 0u, 0u, false, true), sy = sx;
    if (hidden_sides && bar == 0 && k.size == 1) paint_neighbours(k, sx, sy);
    return paint_bar_of(k, col, bar, hidden_sides, sx, sy, lo, hi);
}

// Per axis, whether the camera-facing face of the box is its high end (the camera at or past the middle).
bvec3 paint_camera_high(vec3 lo, vec3 hi) {
    return bvec3(g.eye.x >= 0.5 * (lo.x + hi.x), g.eye.y >= 0.5 * (lo.y + hi.y), g.eye.z >= 0.5 * (lo.z + hi.z));
}
