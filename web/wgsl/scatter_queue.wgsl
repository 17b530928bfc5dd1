// WGSL port of the face queue of shaders/common/scatter.glsl (its packed word is scatter.wgsl): the hole-free
// `scatter`'s buffers (group 2) and the exact splat of one face. A face whose pixel rectangle holds more than
// SCATTER_IN_PLACE pixels is queued, its rectangle cut into jobs of SCATTER_TILES_PER_JOB tiles that
// scatter_tiles.wgsl shares out among its workgroups; when a queue is full the rest is splatted in place.
// The queues' capacities are their buffers' lengths (arrayLength), not header words: the seam fills a buffer
// with one word only, so the header is cleared to 0 each frame. Requires globals.wgsl, camera.wgsl,
// scatter.wgsl and face_raster.wgsl.
@group(2) @binding(0) var<storage, read_write> screen: array<atomic<u32>>;
// 8 words per queued face: axis | material << 8, c, u0, u1, v0, v1, x0 | y0 << 16, x1 | y1 << 16
@group(2) @binding(1) var<storage, read_write> faces: array<u32>;
struct QueueHeader {
    groups_x: atomic<u32>, // the native indirect dispatch's group count (kept as the native pass writes it)
    groups_y: u32,
    groups_z: u32,
    offered: atomic<u32>,  // faces queued
    capacity: u32,         // (natively the faces the queue holds; here arrayLength(&faces) / 8)
    job_count: atomic<u32>,
    job_capacity: u32,     // (natively the jobs the queue holds; here arrayLength(&jobs))
    pad: u32,
}
@group(2) @binding(2) var<storage, read_write> queue: QueueHeader;
// A face's pixel rectangle is shared out as jobs of SCATTER_TILES_PER_JOB tiles: (face, first tile).
@group(2) @binding(3) var<storage, read_write> jobs: array<vec2<u32>>;

const SCATTER_TILE: i32 = 8;
const SCATTER_TILES_PER_JOB: u32 = 16u;
const SCATTER_IN_PLACE: i32 = 256; // pixels of a face's rectangle splatted by the invocation that found it

fn face_capacity() -> u32 { return arrayLength(&faces) / 8u; }
fn job_capacity() -> u32 { return arrayLength(&jobs); }

fn splat_pixel(f: Face, px: vec2<i32>) {
    let depth = face_pixel_depth(f, px);
    if (depth > 0.0) { atomicMin(&screen[px.y * i32(g.screen_right.w) + px.x], scatter_pack(depth, f.material)); }
}

fn rect_tiles_x(r: vec4<i32>) -> u32 { return u32(r.z - r.x) / u32(SCATTER_TILE) + 1u; }
fn rect_tiles(r: vec4<i32>) -> u32 { return rect_tiles_x(r) * (u32(r.w - r.y) / u32(SCATTER_TILE) + 1u); }

// The tiles of r from tile0 on, in one invocation.
fn splat_tiles(f: Face, r: vec4<i32>, tile0: u32) {
    let tiles_x = rect_tiles_x(r);
    let tiles = rect_tiles(r);
    for (var k = tile0; k < tiles; k++) {
        let o = r.xy + SCATTER_TILE * vec2<i32>(vec2<u32>(k % tiles_x, k / tiles_x));
        for (var y = o.y; y < o.y + SCATTER_TILE && y <= r.w; y++) {
            for (var x = o.x; x < o.x + SCATTER_TILE && x <= r.z; x++) { splat_pixel(f, vec2<i32>(x, y)); }
        }
    }
}

fn splat_face(f: Face) {
    let r = face_pixel_rect(f);
    if (r.x > r.z || r.y > r.w) { return; }
    // in place up to SCATTER_IN_PLACE pixels; the queue is kept for the faces large on screen
    if ((r.z - r.x + 1) * (r.w - r.y + 1) <= SCATTER_IN_PLACE) {
        splat_tiles(f, r, 0u);
        return;
    }
    let i = atomicAdd(&queue.offered, 1u);
    if (i >= face_capacity()) { // queue full: correct, only slower
        splat_tiles(f, r, 0u);
        return;
    }
    let b = 8u * i;
    faces[b + 0u] = f.axis | (f.material << 8u);
    faces[b + 1u] = bitcast<u32>(f.c);
    faces[b + 2u] = bitcast<u32>(f.ext.x);
    faces[b + 3u] = bitcast<u32>(f.ext.y);
    faces[b + 4u] = bitcast<u32>(f.ext.z);
    faces[b + 5u] = bitcast<u32>(f.ext.w);
    faces[b + 6u] = u32(r.x) | (u32(r.y) << 16u);
    faces[b + 7u] = u32(r.z) | (u32(r.w) << 16u);
    let n = (rect_tiles(r) + SCATTER_TILES_PER_JOB - 1u) / SCATTER_TILES_PER_JOB;
    let j0 = atomicAdd(&queue.job_count, n);
    let cap = job_capacity();
    let fit = select(0u, min(n, cap - j0), j0 < cap);
    for (var j = 0u; j < fit; j++) { jobs[j0 + j] = vec2<u32>(i, j * SCATTER_TILES_PER_JOB); }
    if (fit > 0u) { atomicMax(&queue.groups_x, min(j0 + fit, 65535u)); }
    if (fit < n) { splat_tiles(f, r, fit * SCATTER_TILES_PER_JOB); } // the job queue is full: the rest here
}
