/* The plumbing every method that draws a tile store shares (cdlod.c, clipmap.c): the world opened as the
 * quadtree's levels, the world's part of the method's set (the tile pool's slots, the slot and page tables), the
 * tile world's uniforms (CdlodFrame in shaders/common/tile_world.glsl: pages, the anchor's tiles, the spacing and
 * extent, the eye's height, shadows and wireframe), the upload of a shared index buffer, and the compute variants'
 * visibility buffer, big-triangle queue, pipelines and frame (src/render/vis_raster.c). */
#ifndef STRATA_STORE_METHOD_H
#define STRATA_STORE_METHOD_H

#include "render/methods/methods.h"

#define ST_STORE_TILE_LEVELS 24u /* CDLOD_MAX_LEVELS in shaders/common/tile_world.glsl */
#define ST_STORE_BIG_SPLIT 16u   /* workgroups sharing one big triangle (the methods' *_big.comp) */
#define ST_STORE_BIG_CAP 65535u  /* big-triangle queue entries */
#define ST_STORE_WORLD_BINDINGS 3u /* set 1, bindings 0..2: slots, slot table, page table */

/* std140 mirror of CdlodFrame in shaders/common/tile_world.glsl */
typedef struct st_store_frame_gpu {
    float bands[ST_STORE_TILE_LEVELS][4];
    uint32_t pages[ST_STORE_TILE_LEVELS][4];
    float anchor_tile[ST_STORE_TILE_LEVELS][4];
    uint32_t info[4];
    float spacing[4];
    float extent[4];
    float eye_world[4];
    uint32_t counts[4];
    uint32_t instance_base[4];
} st_store_frame_gpu;

/* Mirror of CdlodComputePush (shaders/common/cdlod_tri.glsl) and ClipComputePush (clipmap_tri.glsl). */
typedef struct st_store_compute_push {
    uint32_t tri_total, big_cap, row_threads, pad;
} st_store_compute_push;

/* What a compute variant adds: the visibility buffer, the big-triangle queue, the storage targets' set and the
 * three passes. Zero = nothing made; st_store_compute_destroy frees what was. */
typedef struct st_store_compute {
    st_gpu_buffer vis, big;
    VkDescriptorSetLayout targets_layout;
    VkDescriptorSet targets_set;
    VkPipeline raster, big_pass, resolve;
} st_store_compute;

/* The renderer's store as the quadtree's levels (st_lod_world_of_store with the engine's residency manager and
 * `grid` quads per node, 0 = the default); errors are prefixed with the method's name. */
st_result st_store_method_world(st_renderer *r, uint32_t grid, st_lod_world *out, st_error *err);

/* The world's bindings of a store method's set: b[0] the tile slots (sampled, nearest), b[1] the slot table,
 * b[2] the page table, every stage. The method's own bindings follow from ST_STORE_WORLD_BINDINGS on. */
void st_store_method_world_bindings(const st_renderer *r, st_gpu_binding b[ST_STORE_WORLD_BINDINGS]);

/* Fills the tile world's uniforms for a frame whose anchor (the eye's finest sample) is (ax, ay): cleared, then
 * per level the anchor's tile and its offset in it and the page table's level, the levels, the sample encoding,
 * the tile intervals, the spacing and the eye's offset from the anchor, the world's extent from it, sea level,
 * the highest point, the eye's height, shadows and wireframe. bands, info[1], eye_world[3] and counts are the
 * method's (left 0). */
void st_store_method_tile_frame(const st_renderer *r, const st_lod_world *w, int64_t ax, int64_t ay,
                                st_store_frame_gpu *f);

/* A device-local index buffer of `count` u16 indices in *buf (any old one destroyed first) and *ix pointing at
 * the staging memory to write them into; st_store_method_index_upload then copies them, ordered before index
 * reads, and waits. */
st_result st_store_method_index_begin(st_renderer *r, uint32_t count, st_gpu_buffer *buf, uint16_t **ix,
                                      st_error *err);
st_result st_store_method_index_upload(st_renderer *r, const st_gpu_buffer *buf, st_error *err);

/* Refuses a compute variant on a device without 64-bit buffer atomics, naming the raster method to use instead. */
st_result st_store_compute_check(const st_renderer *r, const char *raster_method, st_error *err);
/* The visibility buffer (8 bytes a pixel) and the big-triangle queue. */
st_result st_store_compute_buffers(st_renderer *r, st_store_compute *c, st_error *err);
/* Their bindings in the method's set (visibility, then the queue), storage, every stage. */
void st_store_compute_bindings(const st_store_compute *c, st_gpu_binding b[2]);
/* The storage targets' set, a pipeline layout of (globals, set_layout, targets) with st_store_compute_push, and
 * the passes `<prefix>_raster.comp`, `<prefix>_big.comp`, `<prefix>_resolve.comp`. */
st_result st_store_compute_pipelines(st_renderer *r, st_store_compute *c, VkDescriptorSetLayout set_layout,
                                     const char *prefix, VkPipelineLayout *layout, st_error *err);
/* The frame of a compute variant: clears the visibility buffer (opening "clear"), binds (globals, set, targets),
 * pushes `triangles` and runs the raster, big and resolve passes. */
void st_store_compute_draw(st_renderer *r, const st_store_compute *c, VkPipelineLayout layout, VkDescriptorSet set,
                           VkCommandBuffer cmd, uint32_t triangles);
void st_store_compute_destroy(st_renderer *r, st_store_compute *c);

#endif
