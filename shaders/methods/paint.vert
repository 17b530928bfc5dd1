#version 460
#extension GL_GOOGLE_include_directive : require
// Painted: one instance per ground cell (or per 2^lod × 2^lod block of cells far away), no vertex stream.
// The CPU lists the visible 16×16-texel tiles nearest first; an instance is one block of one tile, its
// cells enumerated from the camera outward. Vertices 0..7 are the corners of the floor bar [0, low],
// 8..15 those of the slab bar [mid, high]; corner bit k picks the camera side (0) or the far side (1) of
// axis k, and the index buffer draws the three faces through the all-camera-side corner.
#include "globals.glsl"
#include "surface.glsl"

layout(push_constant) uniform PaintPush {
    uint tile_base; // first tile of this draw in the list
    uint lod;       // blocks of 2^lod × 2^lod cells
    uint hidden_sides; // 1: start floor-bar sides at the camera-side neighbours' floors (0: the paper's bars)
    uint pad;
} pc;

// x0, y0 (world texels, unwrapped), flags: 1 = x from the far end, 2 = y from the far end, 4 = x major,
// 8 = the tile holds dual texels
#ifdef ST_NO_STORAGE_BUFFERS
// The web build (WebGL2 has no storage buffers): the list is a texture of LIST_WIDTH entries a row
// (src/gpu/backend.h, ST_GB_LIST_WIDTH).
const uint LIST_WIDTH = 1024u;
layout(set = 1, binding = 0) uniform highp isampler2D tiles;
ivec4 tile_at(uint i) {
    return texelFetch(tiles, ivec2(int(i % LIST_WIDTH), int(i / LIST_WIDTH)), 0);
}
#else
layout(set = 1, binding = 0, std430) readonly buffer Tiles {
    ivec4 tiles[];
};
ivec4 tile_at(uint i) {
    return tiles[i];
}
#endif

layout(location = 0) out vec3 world;
layout(location = 1) flat out ivec4 block; // x0, y0, size, bar

void main() {
    const int TILE = 16;
    int side = TILE >> pc.lod, shift = 8 - 2 * int(pc.lod);
    uint inst = uint(gl_InstanceIndex);
    ivec4 t = tile_at(pc.tile_base + (inst >> shift));
    int c = int(inst & ((1u << shift) - 1u));
    int a = c % side, b = c / side; // a: minor, b: major
    int u = (t.z & 4) != 0 ? b : a, v = (t.z & 4) != 0 ? a : b;
    if ((t.z & 1) != 0) u = side - 1 - u;
    if ((t.z & 2) != 0) v = side - 1 - v;
    int size = 1 << pc.lod;
    ivec2 origin = t.xy + ivec2(u, v) * size;

    int bar = gl_VertexIndex >> 3, corner = gl_VertexIndex & 7;
    if (bar == 1 && (t.z & 8) == 0) { // no slab in the tile: a point outside the clip volume, every
        world = vec3(0.0);            // triangle of the bar vanishes
        block = ivec4(0);
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }

    // The bars of the block: the highest floor, and the slab spanning every slab in it (conservative for
    // coverage; a block is merged only where it projects under about a pixel).
    float low = 0.0, mid = 256.0, high = -1.0;
    bool present = false; // some cell of the block exists (past a bounded level's edge there is nothing)
    for (int y = 0; y < size; y++)
        for (int x = 0; x < size; x++) {
            Surface s = surface_at(origin + ivec2(x, y));
            if (s.outside) continue;
            present = true;
            low = max(low, s.low);
            if (s.dual) {
                mid = min(mid, s.mid);
                high = max(high, s.high);
            }
        }
    block = ivec4(origin, size, bar);
    if (!present || (bar == 1 && high < 0.0)) { // nothing here, or no slab in this block
        world = vec3(0.0);
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    float zb = bar == 0 ? 0.0 : mid, zt = bar == 0 ? low : high;
    if (pc.hidden_sides != 0u && bar == 0 && size == 1) {
        // The floor bar's camera-facing sides are covered up to the floors of the camera-side neighbours
        // (those columns stand between the eye and the face): start the bar there, so on terraces, where
        // neighbours are level, the sides collapse and their triangles are dropped before rasterising. Never
        // above the eye, so the bar's bottom face stays one the eye cannot see.
        ivec2 nx = origin + ivec2(g.eye.x >= float(origin.x) + 0.5 ? 1 : -1, 0);
        ivec2 ny = origin + ivec2(0, g.eye.y >= float(origin.y) + 0.5 ? 1 : -1);
        // (a missing neighbour past a bounded edge hides nothing: the side runs down to 0 there)
        Surface sx = surface_at(nx), sy = surface_at(ny);
        zb = min(min(sx.outside ? 0.0 : sx.low, sy.outside ? 0.0 : sy.low), min(low, g.eye.z));
    }
    vec3 lo = vec3(vec2(origin), zb), hi = vec3(vec2(origin + size), zt);
    bvec3 camera_high = bvec3(g.eye.x >= 0.5 * (lo.x + hi.x), g.eye.y >= 0.5 * (lo.y + hi.y),
                              g.eye.z >= 0.5 * (lo.z + hi.z));
    bvec3 far_side = bvec3((corner & 1) != 0, (corner & 2) != 0, (corner & 4) != 0);
    // high end of an axis when the camera is there xor this corner is on the far side
    world = mix(lo, hi, notEqual(camera_high, far_side));
    gl_Position = g.view_proj * vec4(world, 1.0);
}
