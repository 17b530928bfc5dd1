/* The ops table of each method (one file per method under src/render/methods/). */
#ifndef STRATA_METHODS_H
#define STRATA_METHODS_H

#include <stddef.h>

#include "render/methods/air_tables.h"
#include "render/render_internal.h"
#include "strata/clipmap.h"

/* In an ops table's info: the method's knobs, a static array of st_method_knob (its quality knob first). */
#define ST_METHOD_KNOBS(array) .knobs = (array), .knob_count = sizeof(array) / sizeof((array)[0])

extern const st_method_ops st_method_ray;         /* ray.c: height-field ray march, fragment pass */
extern const st_method_ops st_method_ray_compute; /* ray.c: the same march in a compute pass */
/* ray.c, for tests and the bench: one frame of camera drawn by ray-compute with its work counted — pixels, uniform
 * samples fetched, chunks of the tiles' frusta passed in the air (summed over the tiles) and air-table words read —
 * with the tile test as the frames do it (tile_test) or every pixel marching from the near plane (the image is the
 * same). tile_test in *out: whether it did test (no tables with paged terrain, or with the knob ray_tile 1). Waits
 * for the device. */
typedef struct st_ray_work {
    uint32_t pixels, samples, chunks, words;
    bool tile_test;
} st_ray_work;
st_result st_ray_compute_work(st_renderer *r, const st_camera *camera, bool tile_test, st_ray_work *out,
                              st_error *err);
/* ray.c, for tests: ray-compute's air tables (NULL for another method, or when it has none). */
const st_air_tables *st_ray_compute_air(const st_renderer *r);
/* slice.c, for tests and the bench: one frame of camera drawn by slice-compute with its work counted — pixels,
 * band samples fetched, bands sampled, walks of the air tables, cells they looked at and texels they fetched —
 * with the walk looking down to texels (walk_texels) or stopping at the 4×4 cells, and the bands passing the samples
 * the walk found in the air as the frames do (band_skip) or fetching them all (the image is the same every way).
 * Waits for the device. */
typedef struct st_slice_work {
    uint32_t pixels, samples, bands, walks, cells, texels;
} st_slice_work;
st_result st_slice_compute_work(st_renderer *r, const st_camera *camera, bool walk_texels, bool band_skip,
                                st_slice_work *out, st_error *err);
/* slice.c, for tests: slice-compute's air tables (NULL for another method). */
const st_air_tables *st_slice_compute_air(const st_renderer *r);
extern const st_method_ops st_method_slice;       /* slice.c: refined slices (default Sliced) */
extern const st_method_ops st_method_slice_plain; /* slice.c: the paper's fixed slices */
extern const st_method_ops st_method_slice_compute; /* slice.c: slice's planes rasterised in compute */
extern const st_method_ops st_method_paint;       /* paint.c: camera-facing bars per ground cell */
extern const st_method_ops st_method_paint_plain; /* paint.c: the paper's footprint, for comparison */
extern const st_method_ops st_method_paint_compute; /* paint.c: paint's faces rasterised in compute */

extern const st_method_ops st_method_voxel;         /* voxel.c: occupancy pyramid + hierarchical DDA, fragment */
extern const st_method_ops st_method_voxel_compute; /* voxel.c: the same traversal in a compute pass */

extern const st_method_ops st_method_scatter;       /* scatter.c: hole-free face scatter + resolve */
extern const st_method_ops st_method_scatter_plain; /* scatter.c: the paper's point scatter */
extern const st_method_ops st_method_voxelspace;    /* voxelspace.c: Comanche column march (baseline) */
extern const st_method_ops st_method_voxelspace_serial; /* voxelspace.c: the same, one invocation per column */
extern const st_method_ops st_method_mesh;         /* mesh.c: fitted TIN chunks, indexed draws */
extern const st_method_ops st_method_mesh_compute; /* mesh.c: the same triangles rasterised in compute */
extern const st_method_ops st_method_cdlod;         /* cdlod.c: CDLOD over a tile store, instanced patches */
extern const st_method_ops st_method_cdlod_compute; /* cdlod.c: the same triangles rasterised in compute */
/* cdlod.c, for tests: the last frame's selection and, per node drawn on the GPU, its index in it */
const st_lod_selection *st_cdlod_last_frame(const st_renderer *r, const uint32_t **drawn_from, uint32_t *drawn);
/* cdlod.c, for tests and benches: the nodes the last GPU selection (--lod-select gpu) chose, as st_lod_select gives
 * them (level, x, y, quadrants, skirts, fallback, tile; no boxes or distances), malloc'd into *nodes.
 * ST_ERR_INVALID when no GPU selection ran or its lists overflowed. */
st_result st_cdlod_gpu_selection(const st_renderer *r, st_lod_node **nodes, uint32_t *count, st_error *err);
/* cdlod.c, for tests: the coarse levels the GPU selection walks on the CPU from the next frame on (the knob
 * lod_select_cpu_levels; nothing for other methods or the CPU selection) */
void st_cdlod_set_cpu_levels(st_renderer *r, int32_t cpu_levels);
/* cdlod.c, for tests: the GLSL vertex function on `count` grid coordinates (x, y pairs) of drawn node `node` of
 * the last frame: out gets x, y, z relative to the eye and the morph factor k per coordinate (4 floats each). */
st_result st_cdlod_probe(st_renderer *r, uint32_t node, const float *grid, uint32_t count, float *out, st_error *err);
/* cdlod.c, for tests: cdlod-compute's triangle fetch on `count` patch triangle ids of the last frame (as the
 * rasteriser numbers them): out gets per triangle its three corners relative to the eye, each followed by its
 * drawn node's index, then the corners' grid coordinates (x, y each) and two zeros (20 floats a triangle). */
st_result st_cdlod_tri_probe(st_renderer *r, const uint32_t *tris, uint32_t count, float *out, st_error *err);
extern const st_method_ops st_method_clipmap;         /* clipmap.c: geometry clipmaps over a tile store */
extern const st_method_ops st_method_clipmap_compute; /* clipmap.c: the same triangles rasterised in compute */
/* clipmap.c, for tests: the last frame's layout (the geometry, each level's window, the finest level drawn) and how
 * many samples its update wrote. */
typedef struct st_clipmap_frame_info {
    st_clipmap_geom geom;
    int64_t origin[ST_CLIPMAP_MAX_LEVELS][2];
    uint32_t finest;
    uint64_t texels_updated;
    uint32_t fills;
} st_clipmap_frame_info;
st_result st_clipmap_last_frame(const st_renderer *r, st_clipmap_frame_info *out, st_error *err);
/* clipmap.c, for tests: level `level`'s heights as the GPU holds them, (n + 1)² (z_f, z_c) pairs, sample (i, j) at
 * (i mod (n + 1), j mod (n + 1)). */
st_result st_clipmap_read_heights(st_renderer *r, uint32_t level, float *out, st_error *err);
/* clipmap.c, for tests: the shaders' vertex function and normal at `count` grid points (level, x, y triples) of the
 * last frame: out gets per point the vertex relative to the eye and its α (−1 for an unknown height), then the
 * blended normal and 0 (8 floats each). */
st_result st_clipmap_probe(st_renderer *r, const int32_t *points, uint32_t count, float *out, st_error *err);
uint32_t st_scatter_pack(float depth, uint8_t material); /* scatter.c: the screen-buffer word (C twin) */
float st_scatter_unpack(uint32_t word, uint8_t *material); /* scatter.c: its depth (0 = miss) */
/* scatter.c, for tests: the last frame's near-face queue — faces queued, their capacity, jobs queued, theirs
 * (queued counts may exceed the capacities: the rest was splatted in place). Waits for the device. */
st_result st_scatter_queue_stats(st_renderer *r, uint32_t counts[4], st_error *err);
/* paint.c, for tests and the bench: the last frame's work in paint-compute's bars pass — the most pixels one
 * invocation tested, the faces sent to the big pass, their jobs (may exceed the capacity) and the capacity, and the
 * jobs drawn in place for want of room; with st_paint_compute_count on for that frame (`counted`), also the blocks
 * built, the workgroups' tiles and the faces (or big faces' jobs) skipped as hidden, the faces with pixels on screen,
 * the pixels tested by the bars and the big pass and the 64-bit atomics issued. Waits for the device. */
typedef struct st_paint_work {
    uint32_t most_pixels_per_invocation;
    uint32_t big_faces, jobs, job_capacity, jobs_in_place;
    bool counted;
    uint32_t blocks, tiles_hidden, faces, faces_hidden, tested, big_tested, atomics;
} st_paint_work;
st_result st_paint_compute_work(st_renderer *r, st_paint_work *out, st_error *err);
/* paint.c, for tests and the bench: whether paint-compute's next frames count their work (a few atomics per
 * invocation: off for timing). */
st_result st_paint_compute_count(st_renderer *r, bool on, st_error *err);

#endif
