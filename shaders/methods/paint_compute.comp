#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
// Painted in compute, pass 1: one invocation per block (the raster variant's instance). It builds the block's
// bars as the raster variant's vertex shader does (paint_bars.glsl) and rasterises their camera-facing faces
// exactly into the visibility buffer; faces whose box holds more than 256 pixels are queued for paint_big.comp.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "face_raster.glsl"
#include "paint_bars.glsl"
#include "paint_compute.glsl"

layout(local_size_x = 64) in;

void splat(Face f, ivec2 px) {
    float depth = face_pixel_depth_eps(f, px, paint_seam(f));
    if (depth <= 0.0) return;
    uint i = uint(px.y * int(g.screen_right.w) + px.x);
    uint64_t v = (uint64_t(floatBitsToUint(depth)) << 32) | uint64_t(f.material);
    if (paint_vis[i] >= v) return; // a nearer face is there already (the word only grows)
    atomicMax(paint_vis[i], v);
}

void splat_tiles(Face f, ivec4 r, uint tile0) {
    uint tiles_x = uint(r.z - r.x) / 8u + 1u, tiles = tiles_x * (uint(r.w - r.y) / 8u + 1u);
    for (uint k = tile0; k < tiles; k++) {
        ivec2 o = r.xy + PAINT_TILE_PX * ivec2(k % tiles_x, k / tiles_x);
        for (int y = o.y; y < o.y + PAINT_TILE_PX && y <= r.w; y++)
            for (int x = o.x; x < o.x + PAINT_TILE_PX && x <= r.z; x++) splat(f, ivec2(x, y));
    }
}

void face(Face f) {
    if (!(f.ext.x < f.ext.y && f.ext.z < f.ext.w)) return; // collapsed: no fragment in the raster variant either
    ivec4 r = face_pixel_rect(f);
    if (r.x > r.z || r.y > r.w) return;
    if ((r.z - r.x + 1) * (r.w - r.y + 1) <= 256) { // small, or thin (a tall wall far off): here
        splat_tiles(f, r, 0u);
        return;
    }
    uint tiles = (uint(r.z - r.x) / 8u + 1u) * (uint(r.w - r.y) / 8u + 1u);
    uint jobs = (tiles + PAINT_TILES_PER_JOB - 1u) / PAINT_TILES_PER_JOB;
    uint fi = atomicAdd(paint_queue[3], 1u);
    if (fi >= pc.misc.z) { // the face queue is full: correct, only slower
        splat_tiles(f, r, 0u);
        return;
    }
    uint b = PAINT_QUEUE_HEADER + 8u * fi;
    paint_queue[b + 0u] = floatBitsToUint(f.c);
    paint_queue[b + 1u] = floatBitsToUint(f.ext.x);
    paint_queue[b + 2u] = floatBitsToUint(f.ext.y);
    paint_queue[b + 3u] = floatBitsToUint(f.ext.z);
    paint_queue[b + 4u] = floatBitsToUint(f.ext.w);
    paint_queue[b + 5u] = f.material;
    paint_queue[b + 6u] = uint(r.x) | (f.axis << 14) | (uint(r.y) << 16);
    paint_queue[b + 7u] = uint(r.z) | (uint(r.w) << 16);
    uint j0 = atomicAdd(paint_queue[4], jobs);
    uint fit = j0 < pc.misc.w ? min(jobs, pc.misc.w - j0) : 0u;
    for (uint j = 0u; j < fit; j++) {
        paint_queue[paint_job_base() + 2u * (j0 + j)] = fi;
        paint_queue[paint_job_base() + 2u * (j0 + j) + 1u] = j * PAINT_TILES_PER_JOB;
    }
    if (fit > 0u) atomicMax(paint_queue[0], min(j0 + fit, 65535u));
    if (fit < jobs) splat_tiles(f, r, fit * PAINT_TILES_PER_JOB); // the job queue is full: the rest here
}

void main() {
    uint gi = gl_GlobalInvocationID.y * pc.misc.y + gl_GlobalInvocationID.x;
    if (gi >= pc.first.w) return;
    uint lod = paint_lod_of(gi);
    PaintBlock k = paint_block(pc.tile_base[lod], lod, gi - pc.first[lod]);
    for (int bar = 0; bar < 2; bar++) {
        vec3 lo, hi;
        if (!paint_bar(k, bar, pc.misc.x != 0u, lo, hi)) continue;
        bvec3 cam = paint_camera_high(lo, hi);
        vec3 c = mix(lo, hi, cam); // the camera-facing side of each axis
        uint id = gi * 6u + uint(bar) * 3u; // the raster variant's draw order: x, y, z face of the floor, then the slab
        face(Face(1u, c.x, vec4(lo.y, hi.y, lo.z, hi.z), id));
        face(Face(2u, c.y, vec4(lo.x, hi.x, lo.z, hi.z), id + 1u));
        face(Face(0u, c.z, vec4(lo.x, hi.x, lo.y, hi.y), id + 2u));
    }
}
