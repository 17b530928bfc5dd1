// Scattered: the packed screen-buffer word, the method's buffers (set 2) and the exact splat of one
// axis-aligned terrain face. A face whose pixel rectangle holds more than SCATTER_IN_PLACE pixels is queued, its
// rectangle cut into jobs of SCATTER_TILES_PER_JOB tiles that scatter_tiles.comp shares out among its
// workgroups; when a queue is full the rest is splatted in place.
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
    uint faces[];
};
layout(set = 2, binding = 2, std430) buffer QueueHeader {
    uint groups_x; // the indirect dispatch of scatter_tiles.comp: the jobs, at most 65535 workgroups
    uint groups_y;
    uint groups_z;
    uint offered;  // faces queued
    uint capacity; // faces the queue holds
    uint job_count;
    uint job_capacity;
    uint pad;
} queue;
// A face's pixel rectangle is shared out as jobs of SCATTER_TILES_PER_JOB tiles: (face, first tile).
layout(set = 2, binding = 3, std430) buffer JobQueue {
    uvec2 jobs[];
};

const uint SCATTER_TILES_PER_JOB = 16u;
const int SCATTER_IN_PLACE = 256; // pixels of a face's rectangle splatted by the invocation that found it

void splat_pixel(Face f, ivec2 px) {
    float depth = face_pixel_depth(f, px);
    if (depth > 0.0) atomicMin(screen[px.y * int(g.screen_right.w) + px.x], scatter_pack(depth, f.material));
}

// The tiles of r from tile0 on, in one invocation.
void splat_tiles(Face f, ivec4 r, uint tile0) {
    uint tiles_x = uint(r.z - r.x) / uint(SCATTER_TILE) + 1u;
    uint tiles = tiles_x * (uint(r.w - r.y) / uint(SCATTER_TILE) + 1u);
    for (uint k = tile0; k < tiles; k++) {
        ivec2 o = r.xy + SCATTER_TILE * ivec2(k % tiles_x, k / tiles_x);
        for (int y = o.y; y < o.y + SCATTER_TILE && y <= r.w; y++)
            for (int x = o.x; x < o.x + SCATTER_TILE && x <= r.z; x++) splat_pixel(f, ivec2(x, y));
    }
}

void splat_face(Face f) {
    ivec4 r = face_pixel_rect(f);
    if (r.x > r.z || r.y > r.w) return;
    // in place up to SCATTER_IN_PLACE pixels: a face larger in one direction only (a tall, thin wall far off) is
    // cheap here, and the queue is kept for the faces large on screen
    if ((r.z - r.x + 1) * (r.w - r.y + 1) <= SCATTER_IN_PLACE) {
        splat_tiles(f, r, 0u);
        return;
    }
    uint i = atomicAdd(queue.offered, 1u);
    if (i >= queue.capacity) { // queue full: correct, only slower
        splat_tiles(f, r, 0u);
        return;
    }
    uint b = 8u * i;
    faces[b + 0u] = f.axis | (f.material << 8);
    faces[b + 1u] = floatBitsToUint(f.c);
    faces[b + 2u] = floatBitsToUint(f.ext.x);
    faces[b + 3u] = floatBitsToUint(f.ext.y);
    faces[b + 4u] = floatBitsToUint(f.ext.z);
    faces[b + 5u] = floatBitsToUint(f.ext.w);
    faces[b + 6u] = uint(r.x) | (uint(r.y) << 16);
    faces[b + 7u] = uint(r.z) | (uint(r.w) << 16);
    uint tiles = (uint(r.z - r.x) / uint(SCATTER_TILE) + 1u) * (uint(r.w - r.y) / uint(SCATTER_TILE) + 1u);
    uint n = (tiles + SCATTER_TILES_PER_JOB - 1u) / SCATTER_TILES_PER_JOB;
    uint j0 = atomicAdd(queue.job_count, n);
    uint fit = j0 < queue.job_capacity ? min(n, queue.job_capacity - j0) : 0u;
    for (uint j = 0u; j < fit; j++) jobs[j0 + j] = uvec2(i, j * SCATTER_TILES_PER_JOB);
    if (fit > 0u) atomicMax(queue.groups_x, min(j0 + fit, 65535u));
    if (fit < n) splat_tiles(f, r, fit * SCATTER_TILES_PER_JOB); // the job queue is full: the rest here
}
