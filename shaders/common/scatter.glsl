// Scattered: the packed screen-buffer word, the method's buffers (set 2) and the exact splat of one
// axis-aligned terrain face. A face whose pixel rectangle is larger than SCATTER_TILE² is queued for
// scatter_tiles.comp (one workgroup per face); when the queue is full it is splatted in place.
// The word is (24-bit depth key << 8) | 8-bit material; the key is 0xFFFFFF − round(depth·0xFFFFFF) of the
// reverse-Z depth, so atomicMin keeps the nearest sample and the cleared 0xFFFFFFFF reads as a miss.
// C twin: st_scatter_pack / st_scatter_unpack (src/render/methods/scatter.c), tested against each other.
// Requires globals.glsl and camera.glsl.

#include "face_raster.glsl"

const uint SCATTER_CLEAR = 0xFFFFFFFFu;
const uint SCATTER_KEY_MISS = 0xFFFFFFu;

// Material byte: type (bits 0..3), upper layer (bit 4), face (bits 5..7: SCATTER_FACE_*).
const uint SCATTER_FACE_TOP = 0u;     // horizontal, seen from above
const uint SCATTER_FACE_BOTTOM = 1u;  // horizontal, seen from below (a cave ceiling)
const uint SCATTER_FACE_XNEG = 2u;    // wall on the column's −x side (its cell lies toward +x)
const uint SCATTER_FACE_XPOS = 3u;
const uint SCATTER_FACE_YNEG = 4u;
const uint SCATTER_FACE_YPOS = 5u;

uint scatter_material(uint type, bool upper, uint face) {
    return (type & 15u) | (upper ? 16u : 0u) | (face << 5);
}

uint scatter_pack(float depth, uint material) {
    uint q = uint(clamp(depth, 0.0, 1.0) * 16777215.0 + 0.5);
    return ((SCATTER_KEY_MISS - min(q, SCATTER_KEY_MISS)) << 8) | (material & 255u);
}

// Reverse-Z depth of a packed word (0 = miss).
float scatter_unpack_depth(uint word) {
    return float(SCATTER_KEY_MISS - (word >> 8)) / 16777215.0;
}

const int SCATTER_TILE = 8;

layout(set = 2, binding = 0, std430) buffer ScreenBuffer {
    uint screen[];
};
// 8 words per queued face: axis | material << 8, c, u0, u1, v0, v1, x0 | y0 << 16, x1 | y1 << 16
layout(set = 2, binding = 1, std430) buffer FaceQueue {
    uint jobs[];
};
// (groups x, y, z) of the indirect dispatch of scatter_tiles.comp, then the number of faces offered
layout(set = 2, binding = 2, std430) buffer QueueHeader {
    uint groups_x;
    uint groups_y;
    uint groups_z;
    uint offered;
    uint capacity;
} queue;

void splat_pixel(Face f, ivec2 px) {
    float depth = face_pixel_depth(f, px);
    if (depth > 0.0) atomicMin(screen[px.y * int(g.screen_right.w) + px.x], scatter_pack(depth, f.material));
}

void splat_rect(Face f, ivec4 r) {
    for (int y = r.y; y <= r.w; y++)
        for (int x = r.x; x <= r.z; x++) splat_pixel(f, ivec2(x, y));
}

void splat_face(Face f) {
    ivec4 r = face_pixel_rect(f);
    if (r.x > r.z || r.y > r.w) return;
    if (r.z - r.x < SCATTER_TILE && r.w - r.y < SCATTER_TILE) {
        splat_rect(f, r);
        return;
    }
    uint i = atomicAdd(queue.offered, 1u);
    if (i >= queue.capacity) { // queue full: correct, only slower
        splat_rect(f, r);
        return;
    }
    uint b = 8u * i;
    jobs[b + 0u] = f.axis | (f.material << 8);
    jobs[b + 1u] = floatBitsToUint(f.c);
    jobs[b + 2u] = floatBitsToUint(f.ext.x);
    jobs[b + 3u] = floatBitsToUint(f.ext.y);
    jobs[b + 4u] = floatBitsToUint(f.ext.z);
    jobs[b + 5u] = floatBitsToUint(f.ext.w);
    jobs[b + 6u] = uint(r.x) | (uint(r.y) << 16);
    jobs[b + 7u] = uint(r.z) | (uint(r.w) << 16);
    atomicAdd(queue.groups_x, 1u);
}
