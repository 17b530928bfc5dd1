// Painted in compute (paint_compute.comp, paint_big.comp, paint_resolve.comp): the method's buffers (set 1, with
// the tile list of paint_bars.glsl at binding 0) and push constants. The bar faces are rasterised exactly (the
// pixel ray meets the face: face_raster.glsl) into a visibility buffer of 64-bit words, reverse-Z depth bits
// over the face's id, by atomicMax: the nearest face wins, and of faces at the same depth the one the raster
// variant draws last (its ids follow the raster variant's draw order). Faces whose box on screen holds more than
// 256 pixels go to a queue of jobs of 16 tiles of 8×8 pixels, which paint_big.comp shares out among its
// workgroups.
// Requires globals.glsl, GL_EXT_shader_explicit_arithmetic_types_int64.

// Mirror of paint_compute_push in src/render/methods/paint.c
layout(push_constant) uniform PaintComputePush {
    uvec4 tile_base; // first tile of each level of detail's range in the tile list
    uvec4 first;     // first instance (block) of each level of detail; w: every instance
    uvec4 misc;      // hidden sides (0/1), invocations per dispatch row, face capacity, job capacity
} pc;

layout(set = 1, binding = 1, std430) buffer PaintVisibility { uint64_t paint_vis[]; };
// words 0..2: the big pass's indirect dispatch (groups x: the jobs, at most 65535), 3: faces queued, 4: jobs
// queued; then the faces (8 words: c, u0, u1, v0, v1, id, x0 | axis << 14 | y0 << 16, x1 | y1 << 16), then the
// jobs (2 words: face, first tile)
layout(set = 1, binding = 2, std430) buffer PaintQueue { uint paint_queue[]; };

const uint PAINT_QUEUE_HEADER = 8u;
const int PAINT_TILE_PX = 8;
const uint PAINT_TILES_PER_JOB = 16u;

uint paint_job_base() { return PAINT_QUEUE_HEADER + 8u * pc.misc.z; }

// The level of detail and the instance within it of frame-wide instance g.
uint paint_lod_of(uint g) { return g >= pc.first.z ? 2u : g >= pc.first.y ? 1u : 0u; }

// The seam tolerance of a face: a few float steps of its coordinates (the bars' faces meet at whole texels, so
// a point on a shared edge is within rounding of both), and no more, so a silhouette grows by no visible amount.
float paint_seam(Face f) {
    float m = max(max(abs(f.ext.x), abs(f.ext.y)), max(abs(f.ext.z), abs(f.ext.w)));
    return 1e-4 + 1.2e-7 * max(m, abs(g.eye.x) + abs(g.eye.y));
}
