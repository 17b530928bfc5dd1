/* Internals shared by the renderer and its methods: the engine (device + shared terrain resources),
 * the renderer (targets, per-frame globals, timing) and the interface every method implements. */
#ifndef STRATA_RENDER_INTERNAL_H
#define STRATA_RENDER_INTERNAL_H

#include "gpu/gpu.h"
#include "render/globals.h"
#include "strata/large_world.h"
#include "strata/materials.h"
#include "strata/paged.h"
#include "strata/render.h"
#include "strata/tile_pool.h"

#define ST_MAX_RENDERERS 64
/* Uniform ray-march steps when st_method_knobs.ray_steps is 0 and the far distance is at most 2000 (beyond it the
 * default grows with the far distance: st_globals_ray_steps): the globals carry them to every shader that marches
 * (the ray methods' knob, and the refinement of others). */
#define ST_RAY_STEPS_DEFAULT 128u
#define ST_MAX_PASS_STAMPS 64


/* The terrain on the GPU (terrain_gpu.c): the level's texel pairs as one RGBA8_UINT (W/2)×H texture of
 * (h_even, m_even, h_odd, m_odd), in SHADER_READ_ONLY_OPTIMAL between frames. */
typedef struct st_terrain_gpu st_terrain_gpu;
st_result st_terrain_gpu_create(st_gpu *gpu, st_terrain_gpu **out, st_error *err);
void st_terrain_gpu_destroy(st_terrain_gpu *t);
/* Recreates the texture for level and uploads all of it (waits for the device first: nothing may be reading
 * the old texture). The level must outlive the terrain or the next set_level. */
st_result st_terrain_gpu_set_level(st_terrain_gpu *t, const st_level *level, st_error *err);
/* Queues the texels of rect (clipped to the level) for the next frame's upload; returns the clipped rect
 * (empty when nothing is left or no level is set). */
st_rect st_terrain_gpu_queue(st_terrain_gpu *t, st_rect rect);
/* Whether an upload is queued for the next frame. */
bool st_terrain_gpu_has_pending(const st_terrain_gpu *t);
/* Records the queued upload (if any) into a frame's command buffer, before any pass reads the texture. */
st_result st_terrain_gpu_record_pending(st_terrain_gpu *t, VkCommandBuffer cmd, st_error *err);
VkImageView st_terrain_gpu_view(const st_terrain_gpu *t);
/* A 1×1 zeroed texture in place of the level's (set 0 stays complete; paged terrain reads its pages instead). */
st_result st_terrain_gpu_set_empty(st_terrain_gpu *t, st_error *err);

/* For methods that read a tile pool (tile_pool.c): its slots as one 2D_ARRAY view, every slot in
 * ST_TILE_POOL_LAYOUT between batches (the layout the terrain texture keeps too). The image also has the
 * storage usage where st_tile_pool_storage says so: a pass that binds it as a storage image moves it to GENERAL
 * and back within its frame. */
#define ST_TILE_POOL_LAYOUT VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
VkImageView st_tile_pool_view(const st_tile_pool *pool);
bool st_tile_pool_storage(const st_tile_pool *pool);

/* The engine's large world (large_world.c): a DEM store, its residency manager and tile pool, the slot table
 * (what each slot holds) and the page table (which slot holds each tile) the shaders read. */
typedef struct st_large_world st_large_world;

/* std430 mirror of CdlodSlot in shaders/common/tile_world.glsl: what a slot holds. */
typedef struct st_slot_gpu {
    float scale, offset; /* metres = offset + scale · v (v the sample: u16 integer, or the f32 itself) */
    float min_m, max_m;  /* the tile's bounds (its index record) */
    uint32_t level, x, y, valid;
} st_slot_gpu;

/* One level of the page table: entries offset .. offset + nx·ny − 1 hold slot + 1 (0: not on the GPU). */
typedef struct st_page_level {
    uint32_t offset, nx, ny, present;
} st_page_level;

st_result st_large_world_create(st_engine *e, st_store *store, const st_world_desc *desc, st_large_world **out,
                                st_error *err);
void st_large_world_destroy(st_large_world *w);
/* Once per frame of a store renderer, before its selection: the residency manager's update (finished loads,
 * uploads into the pool, evictions). */
void st_large_world_begin_frame(st_large_world *w);
/* After the selection's requests and before the frame is submitted: the frame's tile uploads go to the GPU. */
st_result st_large_world_end_frame(st_large_world *w, st_error *err);
st_store *st_large_world_store(const st_large_world *w);
st_residency *st_large_world_residency(const st_large_world *w);
bool st_large_world_u16(const st_large_world *w); /* slots hold u16 samples (R16_UNORM) rather than f32 */
VkImageView st_large_world_slots_view(const st_large_world *w);
const st_gpu_buffer *st_large_world_slot_table(const st_large_world *w);
const st_gpu_buffer *st_large_world_page_table(const st_large_world *w);
/* The page table's levels (count = the store's levels; levels left out have present = 0). */
void st_large_world_page_levels(const st_large_world *w, st_page_level levels[ST_LOD_MAX_LEVELS]);
/* A 1×1 stand-in for the terrain texture (set 0, binding 1) of renderers of a store. */
VkImageView st_large_world_placeholder_view(const st_large_world *w);
void st_large_world_stats(const st_large_world *w, st_world_stats *out);

/* The materials on the GPU (materials_gpu.c): set 0 bindings 3 (albedo + height array), 4 (normal array), 5
 * (the control map), 1×1 stand-ins until a textured renderer enables them, and 8 (the level's colour map, a
 * stand-in where it has none). */
typedef struct st_materials_gpu {
    st_gpu_image surface, normal, control, colors;
    const st_level *colors_level;   /* the level whose colour map `colors` holds (NULL: the stand-in) */
    VkSampler trilinear;
    st_material_set *set;
    st_control_map *map;            /* the CPU control map of control_level */
    const st_level *control_level;  /* the level the GPU control map holds (NULL: none yet) */
    bool arrays_ready;
    st_rect uploaded; /* the control map's texels the last upload sent */
} st_materials_gpu;
st_result st_materials_gpu_create(st_engine *e, st_error *err);
void st_materials_gpu_destroy(st_engine *e);
/* Points set 0's bindings 3..5 and 8 of `set` at the engine's current material images. */
void st_materials_gpu_bind(st_engine *e, VkDescriptorSet set);
/* Synthesises and uploads the materials and the level's control map where not done yet; rebinds live renderers. */
st_result st_materials_gpu_enable(st_engine *e, st_error *err);
/* The engine's level was replaced: its control map is dropped. */
void st_materials_gpu_level_changed(st_engine *e);
/* Uploads the engine's level's colour map (st_level.colors) to binding 8, or a stand-in where it has none; called
 * when the level is set (flat shading uses it too). */
st_result st_materials_gpu_set_colors(st_engine *e, st_error *err);
/* The level changed inside rect: the control map's texels there are filled again and uploaded. */
st_result st_materials_gpu_refill(st_engine *e, st_rect rect, st_error *err);
/* The paged terrain (paged_terrain.c, strata/paged.h): a level's texels as pages of a layer store in a pool of
 * resident slots plus a page table (set 0, bindings 6 and 7), driven once per frame of every level renderer. */
typedef struct st_paged_terrain st_paged_terrain;
st_result st_paged_terrain_create(st_engine *e, const st_level *level, st_store *store, const st_paged_desc *desc,
                                  st_paged_terrain **out, st_error *err);
void st_paged_terrain_destroy(st_paged_terrain *p);
/* Before the frame is recorded: requests the pages around the camera and ahead of its motion, then updates. */
void st_paged_terrain_begin_frame(st_paged_terrain *p, const st_camera *cam);
/* An edit of the level inside rect: its pages take their texels from the level from now on, get them again in
 * the next frame where they hold a slot, and are written back by st_engine_paged_write_back. */
void st_paged_terrain_edit(st_paged_terrain *p, st_rect rect);
/* Before the frame is submitted: submits the frame's page uploads. */
st_result st_paged_terrain_end_frame(st_paged_terrain *p, st_error *err);
/* Tells every live level renderer of the pages mapped since the last call (level_updated with each page's
 * rectangle), so what they derive from the terrain on the GPU follows; after end_frame, before recording. */
st_result st_paged_terrain_deliver(st_engine *e, st_error *err);
VkImageView st_paged_terrain_pool_view(const st_paged_terrain *p);
const st_gpu_buffer *st_paged_terrain_table(const st_paged_terrain *p);
/* The pages: their side's log2 (*shift, every level's), how many full-resolution ones along x and y (level k has
 * those >> k), the levels (1 + the far field's coarser ones) and the pool's slots, all levels together. */
void st_paged_terrain_pages(const st_paged_terrain *p, uint32_t *shift, uint32_t *nx, uint32_t *ny, uint32_t *levels,
                            uint32_t *slots);

/* What the CPU side needs of the engine's world besides its texels — set from the level, or from the layer store
 * of a paged world that has no level in memory (st_engine_set_paged_world). */
typedef struct st_world_shape {
    uint32_t width, height, terrain_types;
    bool wrap_x, wrap_y;
    float water_level; /* the default water surface: st_water_default_level of the level or the store's floods */
} st_world_shape;

/* The shape of a level (st_engine_set_level and st_engine_set_paged_level). */
void st_engine_shape_from_level(st_engine *e, const st_level *level);
/* Texel (x, y) of the engine's world as st_level_texel decodes it, from the level or, for a paged world without
 * one, through the pages (read on the CPU, maybe made on demand); false when it cannot be read. */
bool st_engine_world_texel(st_engine *e, int64_t x, int64_t y, st_texel *out);
/* Texel (x, y) through the paged terrain's CPU reader (a world without a level); false on a failed read. */
bool st_paged_terrain_texel(st_paged_terrain *p, int64_t x, int64_t y, st_texel *out);

struct st_engine {
    st_gpu *gpu;
    const st_level *level;           /* the CPU's world; NULL for a paged world read through its pages alone */
    st_world_shape shape;            /* the world's size, wrap, types and water, level or not */
    st_large_world *world;
    st_terrain_gpu *terrain;
    st_paged_terrain *paged;         /* set by st_engine_set_paged_level: the terrain is read through pages */
    st_gpu_buffer page_placeholder;  /* set 0 binding 6 of renderers whose terrain is not paged */
    st_gpu_image pool_placeholder;   /* set 0 binding 7 of those */
    VkSampler nearest;
    VkDescriptorSetLayout globals_layout; /* set 0: globals UBO, terrain, shadow map, page table, page pool */
    float albedo[16][4];
    st_materials_gpu materials;
    st_renderer *renderers[ST_MAX_RENDERERS];
};

typedef enum st_target_kind {
    ST_TARGETS_RASTER,  /* colour RGBA8_SRGB attachment + D32_SFLOAT depth attachment */
    ST_TARGETS_STORAGE, /* colour RGBA8_UNORM (sRGB-encoded by the shader) + R32_SFLOAT, storage images */
} st_target_kind;

typedef struct st_method_ops {
    st_method_info info;
    st_target_kind targets;
    st_result (*create)(st_renderer *r, void **state, st_error *err);
    void (*destroy)(st_renderer *r, void *state);
    /* Records the frame's passes, each a named timed pass (st_renderer_pass_begin/next/end). */
    void (*record)(st_renderer *r, void *state, VkCommandBuffer cmd);
    /* Optional: the level changed inside rect (already uploaded to the terrain texture). */
    st_result (*level_updated)(st_renderer *r, void *state, st_rect rect, st_error *err);
    uint64_t (*gpu_bytes)(const st_renderer *r, const void *state);
    uint64_t (*cpu_bytes)(const st_renderer *r, const void *state);
    /* Optional: usage flags the method needs on the colour and depth targets beyond its kind's, asked before
     * they are created (r->desc is set). */
    VkImageUsageFlags (*target_usage)(const st_renderer *r);
    /* Optional: what a level-of-detail method drew in its last frame. */
    void (*lod_stats)(const st_renderer *r, const void *state, st_lod_frame_stats *out);
    /* Optional: the CPU side of a frame alone (selection and requests, no GPU work): settling a view to full
     * detail without drawing the frames in between. */
    void (*select)(st_renderer *r, void *state);
    /* Reads the terrain only through surface_at and the world's shape, never the level's texels on the CPU nor
     * data of the whole level: it draws a paged world that has no level in memory. */
    bool pages_suffice;
} st_method_ops;

/* A pass of the frame (src/render/passes/): work the renderer records around the method's own passes and that
 * knows no method — the shadow map before it, the near-plane cap after it. A pass is added to the frame's list
 * in passes/registry.c; no method changes. */
typedef struct st_pass_ops {
    const char *name;
    /* Optional: usage flags the pass needs on the colour and depth targets, asked before they are created. */
    VkImageUsageFlags (*target_usage)(const st_renderer *r);
    /* With the renderer, before the method's create (a method may read what a pass binds in set 0). */
    st_result (*create)(st_renderer *r, void **state, st_error *err);
    void (*destroy)(st_renderer *r, void *state);
    /* Optional: the pass's share of the frame's globals, after the camera's (r->view is the frame's view). */
    void (*fill_globals)(st_renderer *r, void *state, st_globals_gpu *g);
    /* Records the pass into the frame (maybe nothing); GPU work as named timed passes
     * (st_renderer_pass_begin/next/end), which st_frame_timing.passes reports. */
    void (*record)(st_renderer *r, void *state, VkCommandBuffer cmd);
    /* Optional: the level changed inside rect (already queued for the next frame's upload). */
    void (*level_updated)(st_renderer *r, void *state, st_rect rect);
} st_pass_ops;

#define ST_MAX_FRAME_ORDER 8

typedef struct st_frame_pass {
    const st_pass_ops *ops; /* NULL: the method's own passes (st_method_ops.record) */
    void *state;
} st_frame_pass;

/* The frame's order: the passes and, as a NULL entry, the method (src/render/passes/registry.c). */
const st_pass_ops *const *st_frame_order(uint32_t *count);

struct st_renderer {
    st_engine *engine;
    const st_method_ops *ops;
    void *state;
    st_render_desc desc;
    uint32_t width, height;
    st_gpu_image color, depth;
    st_gpu_buffer globals;
    VkDescriptorPool pool;
    VkDescriptorSet globals_set;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;
    uint32_t stamps;       /* timestamps written this frame */
    /* this frame's timed passes: a name and the stamps that open and close it (UINT32_MAX: none written) */
    struct {
        const char *name;
        uint32_t begin, end;
    } timed[ST_MAX_FRAME_PASSES];
    uint32_t timed_count;
    bool timed_open;
    uint32_t frame_index;
    st_view view; /* the frame's camera, as the shaders see it (a store renderer's is camera-relative: eye 0,
                     view.origin the eye in double) */
    bool drawn;
    double time_s; /* st_renderer_set_time */
    /* the frame: the shared passes and the method's, in order (src/render/passes/registry.c) */
    st_frame_pass passes[ST_MAX_FRAME_ORDER];
    uint32_t pass_count;
};

const st_method_ops *st_method_ops_find(const char *name);

/* The frame's camera into the globals and r->view, as st_renderer_draw does first. */
void st_renderer_set_camera(st_renderer *r, const st_camera *camera);

/* Timed passes. A frame's GPU time is the sum of its passes, each reported by name (st_frame_timing.passes),
 * so a cost can be traced to the pass that spends it. `name` must be a static string. Begin opens a pass with
 * a stamp at TOP_OF_PIPE; end closes it with one at ALL_COMMANDS (after every earlier command); next closes
 * the open pass and opens `name` at that same stamp, so back-to-back passes cost one stamp between them.
 * Beyond ST_MAX_FRAME_PASSES passes or ST_MAX_PASS_STAMPS stamps a frame's later passes go untimed. */
void st_renderer_pass_begin(st_renderer *r, VkCommandBuffer cmd, const char *name);
void st_renderer_pass_next(st_renderer *r, VkCommandBuffer cmd, const char *name);
void st_renderer_pass_end(st_renderer *r, VkCommandBuffer cmd);

/* A test probe of a method's shader code on the GPU: runs `shader` once over `invocations` (64-wide groups)
 * with sets {globals, method_set, a set of two storage buffers: the input (input_bytes copied from input) and
 * the output (output_bytes)} and copies the output to out. Blocks until done; for tests, never in a frame. */
st_result st_renderer_probe(st_renderer *r, VkDescriptorSetLayout method_layout, VkDescriptorSet method_set,
                            const char *shader, const void *input, size_t input_bytes, void *out, size_t output_bytes,
                            uint32_t invocations, st_error *err);
/* Helpers for methods. */
/* Begins dynamic rendering into the raster targets, cleared to the fog colour and far depth (0). */
void st_renderer_begin_raster(st_renderer *r, VkCommandBuffer cmd);
void st_renderer_end_raster(st_renderer *r, VkCommandBuffer cmd);
/* A pipeline layout of set 0 (globals) plus the method's own set layouts. */
st_result st_renderer_pipeline_layout(st_renderer *r, const VkDescriptorSetLayout *extra, uint32_t extra_count,
                                      uint32_t push_bytes, VkPipelineLayout *out, st_error *err);
st_result st_renderer_alloc_set(st_renderer *r, VkDescriptorSetLayout layout, VkDescriptorSet *out, st_error *err);
/* A method's own set from its bindings (src/gpu/gpu.h): the layout, one set from the renderer's pool, and the
 * writes of the resources the bindings name. */
st_result st_renderer_set_create(st_renderer *r, const st_gpu_binding *bindings, uint32_t count,
                                 VkDescriptorSetLayout *layout, VkDescriptorSet *set, st_error *err);
/* Descriptor set layout of storage images for the colour and depth targets (compute writers). */
st_result st_renderer_storage_targets_layout(st_renderer *r, VkDescriptorSetLayout *layout, VkDescriptorSet *set,
                                             st_error *err);

/* Deferred shading of the raster methods' textured frames (src/render/passes/deferred.c; the G-buffer's layout in
 * shaders/common/gbuffer.glsl): the method's raster pass writes each pixel's surface point — and with `normals`
 * its geometric normal, location 1 — instead of a colour, and one compute pass shades every pixel once. */
typedef struct st_deferred_desc {
    bool normals; /* the method writes a geometric normal at location 1 */
    /* The resolve: NULL = deferred_shade.comp, sets {globals, the G-buffer}; else the method's own compute shader,
     * sets {globals, method_set (of method_layout), the G-buffer} (gbuffer.glsl's GBUFFER_SET 2), for a method whose
     * shading reads its own set (the tile-store methods' nodes and levels). */
    const char *resolve;
    VkDescriptorSetLayout method_layout;
    VkDescriptorSet method_set;
} st_deferred_desc;
typedef struct st_deferred {
    bool normals;
    VkDescriptorSet method_set; /* bound at set 1 when the resolve is the method's own */
    st_gpu_image point;  /* RGBA32F: the surface point, w what it is (gbuffer.glsl; −1: nothing) */
    st_gpu_image normal; /* RGBA32F: the geometric normal facing the eye (normals; else a 1×1 stand-in) */
    st_gpu_image shaded; /* RGBA8 (sRGB-encoded by the shader), copied onto the colour target */
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline pipeline;
} st_deferred;
/* Whether a raster method's frames defer their shading: textured shading (and its fetch count) unless the
 * renderer asks for shading per fragment (st_render_desc.shade_forward). Flat frames never do. */
bool st_deferred_wanted(const st_renderer *r);
/* The colour target's usage a deferring method needs (the copy onto it): a method's target_usage. */
VkImageUsageFlags st_deferred_target_usage(const st_renderer *r);
/* The G-buffer at the renderer's size, the resolve's set and pipeline. The method's G-buffer pipeline writes
 * d->point.format at location 0 and, with desc->normals, d->normal.format at location 1, with the renderer's depth. */
st_result st_deferred_create(st_renderer *r, const st_deferred_desc *desc, st_deferred *d, st_error *err);
/* Releases what st_deferred_create made (also after it failed part-way; a zeroed d holds nothing). */
void st_deferred_destroy(st_renderer *r, st_deferred *d);
/* In place of st_renderer_begin_raster, inside the method's open timed pass: begins dynamic rendering into the
 * G-buffer, cleared to nothing, and the depth target, cleared far (0), with the viewport and scissor set. */
void st_deferred_begin(st_renderer *r, st_deferred *d, VkCommandBuffer cmd);
/* In place of st_renderer_end_raster: ends the rendering, closes the method's timed pass and opens "resolve",
 * which shades every pixel and copies the result onto the colour target, left a colour attachment as the
 * forward pass leaves it; the pass is closed on return. */
void st_deferred_resolve(st_renderer *r, st_deferred *d, VkCommandBuffer cmd);
/* GPU memory of the G-buffer and the shaded image. */
uint64_t st_deferred_gpu_bytes(const st_deferred *d);

/* The compute rasteriser's frame (src/render/vis_raster.c), shared by mesh-compute, cdlod-compute and
 * paint-compute: a 64-bit visibility buffer (depth bits | primitive id) filled by atomics from one invocation per
 * primitive, primitives too large for one invocation queued and shared out by an indirect pass, then a resolve
 * pass per pixel. */
typedef struct st_vis_raster {
    VkPipeline raster, big, resolve;
    VkBuffer vis;       /* the visibility buffer, cleared to 0 (nothing) every frame */
    VkBuffer big_queue; /* the indirect dispatch header {groups_x, split, 1, offered} and the queued ids */
    uint32_t big_split; /* workgroups per queued triangle: the header's groups_y */
    /* words of the queue's header cleared each frame: {0, big_split, 1, 0} then zeros (0 = 4; at most 16) */
    uint32_t header_words;
    const char *raster_name; /* the first pass's timed name (NULL = "raster") */
    bool untimed; /* inside a pass the caller times (the water's): no timed passes of its own */
} st_vis_raster;
/* The dispatch grid for `triangles` invocations in 64-wide groups: gx × gy groups, gx ≤ 65535; the shaders
 * get gx · 64 as their row width. */
void st_vis_raster_grid(uint32_t triangles, uint32_t *gx, uint32_t *gy);
/* Opens the timed pass "clear" (none when v->untimed, as for every pass below) and clears the visibility buffer and the big queue's header, ordered before the
 * passes that follow. */
void st_vis_raster_clear(st_renderer *r, const st_vis_raster *v, VkCommandBuffer cmd);
/* The three passes after the caller bound its sets and pushed its constants, timed as "raster" (raster_name),
 * "big" and
 * "resolve" (the open "clear" ends at the first): the gx × gy grid of triangles (none when gx is 0), the queued
 * big triangles, the resolve over the renderer's pixels. The last pass is closed on return. */
void st_vis_raster_dispatch(st_renderer *r, const st_vis_raster *v, VkCommandBuffer cmd, uint32_t gx, uint32_t gy);

#endif
