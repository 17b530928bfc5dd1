/* CDLOD's selection as a compute pass (cdlod --lod-select gpu, shaders/methods/cdlod_select.comp): the inputs
 * (the view's planes and bands, the store's bounds table), the node and instance buffers it writes, the two
 * indirect draws, and the read-back of what it selected (keys, counts, requests, missing boxes). */
#ifndef STRATA_CDLOD_SELECT_H
#define STRATA_CDLOD_SELECT_H

#include "render/methods/store_method.h"

#define ST_CDLOD_GPU_NODES 32768u     /* nodes one GPU selection may write */
#define ST_CDLOD_GPU_REQUESTS 65536u  /* tile requests it may write */
#define ST_CDLOD_GPU_MISSING 4096u    /* boxes of missing nodes it keeps */
#define ST_CDLOD_GPU_WORK 65536u      /* candidates and recursing nodes per level */
#define ST_CDLOD_SKIRT_BASE (4u * ST_CDLOD_GPU_NODES) /* first skirt instance */
#define ST_CDLOD_GPU_HANDOVER 16384u  /* nodes the CPU's walk of the coarse levels may hand over */

typedef struct st_cdlod_select st_cdlod_select;

/* What the last GPU selection wrote, read back after its frame. */
typedef struct st_cdlod_select_result {
    uint32_t nodes, patches, skirts, missing, fallback, culled, visits, violations, widened, requests, missing_kept;
    uint32_t cpu_levels;              /* the coarse levels the CPU walked (0: the pass walked from the roots) */
    double coarse_ms;                 /* the CPU time of that walk */
    float worst_violation_m;
    bool overflow;                    /* a list was full: some nodes are not drawn */
    uint32_t per_level[ST_LOD_MAX_LEVELS];
} st_cdlod_select_result;

/* The pass over w for renderer r: its pipeline, set and buffers (the nodes and instances are device-local: the
 * pass writes them and the draws read them), with `threads` invocations (0: 256), the CPU walking `cpu_levels`
 * coarse levels first (st_cdlod_select_set_cpu_levels). `frame` is the method's frame
 * uniforms (st_store_frame_gpu, made with storage usage): the pass writes their morph bands. ST_ERR_UNSUPPORTED on
 * a device without shaderFloat64 or subgroup ballot, vote and arithmetic in compute, or a world of more than 24
 * levels, naming --lod-select cpu. */
st_result st_cdlod_select_create(st_renderer *r, const st_lod_world *w, uint32_t threads, int32_t cpu_levels,
                                 VkBuffer frame, st_cdlod_select **out, st_error *err);
/* The levels from the roots the CPU walks before each pass (st_lod_select_coarse; the pass starts from the
 * frontier): 0 = ST_LOD_SELECT_CPU_LEVELS, < 0 = none (the pass walks from the roots); at most the world's levels − 1. A
 * widening of the one-level rule walks again from the roots in the pass. */
void st_cdlod_select_set_cpu_levels(st_cdlod_select *g, int32_t cpu_levels);
void st_cdlod_select_destroy(st_renderer *r, st_cdlod_select *g);
/* The node and instance buffers the pass writes (the method's bindings 4 and 5). */
VkBuffer st_cdlod_select_nodes(const st_cdlod_select *g);
VkBuffer st_cdlod_select_instances(const st_cdlod_select *g);
/* Walks the coarse levels on the CPU (making their requests), writes the pass's inputs for world w, view v (the eye
 * in double), params p, the frame's anchor (ax, ay) and the draws' index counts (draw: patch indices, strip indices,
 * the strip's first index) and records the timed pass
 * "select" (one workgroup), which also writes the chosen attempt's morph bands into the frame's uniforms (the
 * buffer given at creation), ordered before the draws. The draws' indirect commands follow with
 * st_cdlod_select_draws. */
void st_cdlod_select_record(st_renderer *r, st_cdlod_select *g, const st_lod_world *w, const st_lod_params *p,
                            const st_lod_view *v, int64_t ax, int64_t ay, const uint32_t draw[3], VkCommandBuffer cmd);
/* The buffer and offsets of the patch and skirt VkDrawIndexedIndirectCommands. */
VkBuffer st_cdlod_select_draws(const st_cdlod_select *g, VkDeviceSize *patch_offset, VkDeviceSize *skirt_offset);
/* After the frame that ran the pass: its counts into *out; false before any pass ran. */
bool st_cdlod_select_read(const st_cdlod_select *g, st_cdlod_select_result *out);
/* The selected nodes as the CPU selection gives them (level, x, y, quadrants, skirts, fallback, tile; no boxes):
 * up to `cap` into nodes; returns how many the pass wrote. */
uint32_t st_cdlod_select_nodes_read(const st_cdlod_select *g, const st_lod_world *w, st_lod_node *nodes, uint32_t cap);
/* Hands the pass's tile requests to the residency manager (the walk's requests, one frame late). */
void st_cdlod_select_issue_requests(const st_cdlod_select *g, st_residency *res);
/* The missing nodes' boxes it kept: up to `cap` into boxes; returns how many. */
uint32_t st_cdlod_select_missing_read(const st_cdlod_select *g, st_lod_box *boxes, uint32_t cap);
/* A generated store's bounds change as tiles are made: re-reads the bounds table when `loads_done` moved. */
void st_cdlod_select_refresh_bounds(st_cdlod_select *g, const st_lod_world *w, uint64_t loads_done);

#endif
