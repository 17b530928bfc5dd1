/* RayVoxel: a conservative occupancy pyramid (1 bit per voxel, Morton-ordered 8×8×8 tiles, each level the OR
 * of its children) baked on the GPU and kept up to date in place after edits, and a hierarchical-DDA ray
 * traversal that tests the source height field in occupied leaves. Two variants share the pyramid code and
 * shaders/common/voxel_traverse.glsl: a full-screen fragment pass (`voxel`) and a compute pass
 * (`voxel-compute`). Layout, bake and traversal: docs/voxel.md. On a paged world the levels a page holds whole
 * cells of live per page, in slots parallel to the pool's, and the levels above for the whole world (docs/voxel.md,
 * "Paged worlds"): nothing of the size of the world but those small levels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/methods.h"
#include "render/methods/voxel.h"

/* One leaf dispatch bakes at most this many texels: a whole 2048×16384 world is two dispatches. The split
 * only keeps each dispatch far below a driver watchdog on slow GPUs; all of them go in one command buffer. */
#define BAKE_TEXELS_PER_DISPATCH (16u << 20)
#define DEFAULT_BUDGET 100u

/* The knobs of both variants: the traversal budgets (the quality knob), and the leaf voxel size, which is
 * set (tests, tuning files) but not swept. */
static const st_method_knob voxel_knobs[] = {{.name = "voxel_steps",
                                              .label = "voxel steps",
                                              .kind = ST_KNOB_COUNT,
                                              .offset = offsetof(st_method_knobs, voxel_steps),
                                              .default_value = DEFAULT_BUDGET,
                                              .min = 10,
                                              .max = 6400,
                                              .sweep_count = 4,
                                              .sweep = {40, 100, 200, 400}},
                                             {.name = "voxel_grid",
                                              .label = "voxel grid",
                                              .kind = ST_KNOB_COUNT,
                                              .offset = offsetof(st_method_knobs, voxel_grid),
                                              .default_value = 0,
                                              .min = 0,
                                              .max = 1}};

/* Pages of one level of the page table (0: full resolution, k: the far field's k-th coarser level). */
typedef struct page_rect {
    st_rect r;
    uint32_t level;
} page_rect;

typedef struct voxel_state {
    st_voxel_layout layout; /* the whole world's (paged: its levels from paged.top up are what `grid` holds) */
    bool compute;
    bool paged;             /* the terrain is paged: the levels below paged.top live per page, in `pages` */
    st_voxel_paged paged_layout;
    uint32_t page_shift, pages_x, pages_y, levels, slots; /* paged: level 0's pages, the levels, the pool's slots */
    st_gpu_buffer pages;    /* set 1 binding 1: header + a slot per pool slot (paged), else a placeholder */
    VkPipeline mip_pages, top; /* paged: the slots' levels, the top level held whole */
    uint32_t budget;     /* outer and inner steps */
    uint32_t show_steps; /* diagnostic colouring (STRATA_VOXEL_STEPS=1) */
    st_gpu_buffer grid;  /* header + words */
    VkDescriptorSetLayout grid_layout;
    VkDescriptorSet grid_set;
    VkPipelineLayout bake_layout; /* set 0 (globals, terrain) + set 1 (grid) + push */
    VkPipeline bake, mip;
    VkDescriptorSetLayout targets_layout; /* compute variant */
    VkDescriptorSet targets_set;
    VkPipelineLayout draw_layout;
    VkPipeline draw;
    /* fragment variant, textured shading: the traversal writes its hits into the G-buffer, one resolve shades them */
    bool deferred;
    st_deferred gbuffer;
    st_rect_list dirty; /* texels edited since the last frame, kept apart (ST_RECT_LIST_MAX, then merged) */
    double bake_gpu_ms, bake_cpu_ms;
    uint64_t last_leaf_columns, last_columns; /* what the last frame's bake wrote (st_voxel_last_bake) */
} voxel_state;


static void voxel_destroy(st_renderer *r, void *state) {
    voxel_state *s = state;
    VkDevice dev = r->engine->gpu->device;
    if (s->draw) vkDestroyPipeline(dev, s->draw, NULL);
    if (s->bake) vkDestroyPipeline(dev, s->bake, NULL);
    if (s->mip) vkDestroyPipeline(dev, s->mip, NULL);
    if (s->mip_pages) vkDestroyPipeline(dev, s->mip_pages, NULL);
    if (s->top) vkDestroyPipeline(dev, s->top, NULL);
    if (s->draw_layout) vkDestroyPipelineLayout(dev, s->draw_layout, NULL);
    if (s->bake_layout) vkDestroyPipelineLayout(dev, s->bake_layout, NULL);
    if (s->targets_layout) vkDestroyDescriptorSetLayout(dev, s->targets_layout, NULL);
    if (s->grid_layout) vkDestroyDescriptorSetLayout(dev, s->grid_layout, NULL);
    st_gpu_buffer_destroy(r->engine->gpu, &s->grid);
    st_deferred_destroy(r, &s->gbuffer);
    st_gpu_buffer_destroy(r->engine->gpu, &s->pages);
    free(s);
}

/* The stages that read the pyramid when drawing. */
static VkPipelineStageFlags2 draw_stage(const voxel_state *s) {
    return s->compute ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT : VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
}

/* Records the levels `from` .. top of the buffer `grid` over the tiles of level from − 1 in box[0, n) (rectangles of
 * tiles, disjoint), each level over every rectangle before the next, and the barrier that gives the draw pass what
 * they wrote. The caller has written level from − 1 there; a level's rectangles are made disjoint first (those
 * of nearby edits meet in the coarser levels), so no tile is written twice and one level's dispatches need no
 * barrier between them. */
static void record_mips(voxel_state *s, VkCommandBuffer cmd, st_rect *box, uint32_t n, uint32_t from) {
    const st_voxel_layout *L = &s->layout;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->mip);
    for (uint32_t l = from; l < L->lods; l++) {
        /* Level l reads the words level l-1 just wrote. */
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
        /* A parent tile covers 2×2 child tiles in x, y. */
        for (uint32_t k = 0; k < n; k++)
            box[k] = (st_rect){box[k].x0 >> 1, box[k].y0 >> 1, ((box[k].x1 - 1) >> 1) + 1, ((box[k].y1 - 1) >> 1) + 1};
        n = st_rects_disjoint(box, n);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t tx0 = (uint32_t)box[k].x0, ty0 = (uint32_t)box[k].y0, tx1 = (uint32_t)box[k].x1,
                     ty1 = (uint32_t)box[k].y1;
            uint32_t push[4] = {l, tx0, ty0, tx1 - tx0};
            vkCmdPushConstants(cmd, s->bake_layout, VK_SHADER_STAGE_ALL, 0, sizeof push, push);
            vkCmdDispatch(cmd, (tx1 - tx0 + 3) / 4, ty1 - ty0, L->tiles[l][2]);
            s->last_columns += (uint64_t)(tx1 - tx0) * (ty1 - ty0);
        }
    }
    /* The draw pass reads what the bake wrote. */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              draw_stage(s), VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
}

/* Records the bake of the leaf tiles of tiles[0, count) (rectangles of tiles, half-open, whole tile columns in z;
 * count at most ST_RECT_LIST_MAX) and of their ancestors on every coarser level, ending with the pyramid ready
 * for the draw pass. The caller has ordered earlier accesses of the buffer before the first leaf write. */
static void record_bake(st_renderer *r, voxel_state *s, VkCommandBuffer cmd, const st_rect *tiles, uint32_t count) {
    const st_voxel_layout *L = &s->layout;
    st_rect box[ST_RECT_LIST_MAX];
    memcpy(box, tiles, count * sizeof *box);
    uint32_t n = st_rects_disjoint(box, count);
    VkDescriptorSet sets[2] = {r->globals_set, s->grid_set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->bake_layout, 0, 2, sets, 0, NULL);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->bake);
    uint32_t max_groups = r->engine->gpu->props.limits.maxComputeWorkGroupCount[1];
    /* Leaf dispatches write disjoint tiles: no barrier between them. */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t tx0 = (uint32_t)box[k].x0, ty0 = (uint32_t)box[k].y0, tx1 = (uint32_t)box[k].x1,
                 ty1 = (uint32_t)box[k].y1;
        uint64_t row_texels = (uint64_t)(tx1 - tx0) * 8 * L->voxel[0] * 8 * L->voxel[1];
        uint32_t rows = (uint32_t)(BAKE_TEXELS_PER_DISPATCH / row_texels);
        if (rows < 1) rows = 1;
        if (rows > max_groups) rows = max_groups;
        for (uint32_t y = ty0; y < ty1; y += rows) {
            uint32_t h = ty1 - y < rows ? ty1 - y : rows;
            uint32_t push[4] = {tx0, y, 0, 0};
            vkCmdPushConstants(cmd, s->bake_layout, VK_SHADER_STAGE_ALL, 0, sizeof push, push);
            vkCmdDispatch(cmd, tx1 - tx0, h, 1);
        }
        s->last_leaf_columns += (uint64_t)(tx1 - tx0) * (ty1 - ty0);
    }
    s->last_columns += s->last_leaf_columns;
    record_mips(s, cmd, box, n, 1);
}

/* A paged world's bake (docs/voxel.md, "Paged worlds"): the pages of bake[0, nb) (rectangles of pages of a level,
 * disjoint within each level) in their slots — the leaf level and each level below the top one, pages not resident
 * left alone — then the top level held whole over the full-resolution pages of top[0, nt) (made again from what each
 * page reads now: its slot, a coarser page's slot or its floor), then every level above it over those, ending with
 * the pyramid ready for the draw pass. nt at most ST_RECT_LIST_MAX. The caller has ordered earlier accesses before
 * the first write. */
static void record_bake_paged(st_renderer *r, voxel_state *s, VkCommandBuffer cmd, const page_rect *bake, uint32_t nb,
                              const st_rect *top, uint32_t nt) {
    const st_voxel_paged *P = &s->paged_layout;
    VkDescriptorSet sets[2] = {r->globals_set, s->grid_set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->bake_layout, 0, 2, sets, 0, NULL);
    /* The leaf level: each page its own tile columns; pages are disjoint, so no barrier between dispatches. */
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->bake);
    for (uint32_t k = 0; k < nb; k++) {
        const st_rect *b = &bake[k].r;
        uint32_t w = (uint32_t)(b->x1 - b->x0), h = (uint32_t)(b->y1 - b->y0);
        uint32_t push[4] = {(uint32_t)b->x0, (uint32_t)b->y0, bake[k].level, 0};
        vkCmdPushConstants(cmd, s->bake_layout, VK_SHADER_STAGE_ALL, 0, sizeof push, push);
        vkCmdDispatch(cmd, w * P->page.tiles[0][0], h * P->page.tiles[0][1], 1);
        s->last_leaf_columns += (uint64_t)w * h * P->page.tiles[0][0] * P->page.tiles[0][1];
    }
    s->last_columns += s->last_leaf_columns;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->mip_pages);
    for (uint32_t l = 1; l < P->top; l++) {
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
        for (uint32_t k = 0; k < nb; k++) {
            const st_rect *b = &bake[k].r;
            uint32_t w = (uint32_t)(b->x1 - b->x0), h = (uint32_t)(b->y1 - b->y0);
            uint32_t tiles_x = w * P->page.tiles[l][0];
            uint32_t push[5] = {l, (uint32_t)b->x0, (uint32_t)b->y0, tiles_x, bake[k].level};
            vkCmdPushConstants(cmd, s->bake_layout, VK_SHADER_STAGE_ALL, 0, sizeof push, push);
            vkCmdDispatch(cmd, (tiles_x + 3) / 4, h * P->page.tiles[l][1], P->page.tiles[l][2]);
            s->last_columns += (uint64_t)tiles_x * h * P->page.tiles[l][1];
        }
    }
    /* The top level reads the slots' level top − 1. Each rectangle's tiles are written whole, keeping the cells of
     * pages outside it: rectangles that share a tile follow one another. */
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->top);
    st_rect box[ST_RECT_LIST_MAX];
    uint32_t cx = P->page.dims[P->top][0], cy = P->page.dims[P->top][1]; /* a page's cells of the top level */
    const uint32_t *tiles = s->layout.tiles[P->top];
    for (uint32_t k = 0; k < nt; k++) {
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                  VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                  VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        uint32_t tx0 = (uint32_t)top[k].x0 * cx / 8, ty0 = (uint32_t)top[k].y0 * cy / 8;
        uint32_t tx1 = ((uint32_t)top[k].x1 * cx + 7) / 8, ty1 = ((uint32_t)top[k].y1 * cy + 7) / 8;
        if (tx1 > tiles[0]) tx1 = tiles[0];
        if (ty1 > tiles[1]) ty1 = tiles[1];
        uint32_t push[8] = {tx0, ty0, 0, 0, (uint32_t)top[k].x0, (uint32_t)top[k].y0, (uint32_t)top[k].x1,
                            (uint32_t)top[k].y1};
        vkCmdPushConstants(cmd, s->bake_layout, VK_SHADER_STAGE_ALL, 0, sizeof push, push);
        vkCmdDispatch(cmd, tx1 - tx0, ty1 - ty0, 1);
        box[k] = (st_rect){(int32_t)tx0, (int32_t)ty0, (int32_t)tx1, (int32_t)ty1};
        s->last_columns += (uint64_t)(tx1 - tx0) * (ty1 - ty0);
    }
    record_mips(s, cmd, box, st_rects_disjoint(box, nt), P->top + 1);
}

/* The whole world at create: header, every leaf tile and every level in one command buffer, timed. */
static st_result full_bake(st_renderer *r, voxel_state *s, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    const st_voxel_layout *L = &s->layout;
    /* The bake decodes texels with the shared surface_at: the renderer filled the globals at create. */
    uint32_t header[ST_VOXEL_HEADER_BYTES / 4] = {L->lods, L->voxel[0], L->voxel[1], L->voxel[2]};
    const st_voxel_paged *P = &s->paged_layout;
    for (uint32_t l = 0; l < L->lods; l++) {
        for (uint32_t a = 0; a < 3; a++) header[4 + 4 * l + a] = L->dims[l][a];
        /* paged: the buffer holds the levels from the top one up, counted from its first word */
        header[4 + 4 * l + 3] = !s->paged ? (uint32_t)L->offset[l] : l < P->top ? 0 : (uint32_t)(L->offset[l] - P->world_first);
    }
    /* paged: the top level, a slot's words, and each page level's cells (log2 in x and y) and first word in a slot */
    uint32_t page_header[ST_VOXEL_HEADER_BYTES / 4] = {P->top, (uint32_t)P->slot_words};
    for (uint32_t l = 0; s->paged && l <= P->top; l++) {
        page_header[4 + 4 * l] = (uint32_t)__builtin_ctz(P->page.dims[l][0]);
        page_header[4 + 4 * l + 1] = (uint32_t)__builtin_ctz(P->page.dims[l][1]);
        page_header[4 + 4 * l + 2] = P->page.dims[l][2];
        page_header[4 + 4 * l + 3] = (uint32_t)P->page.offset[l];
    }
    /* paged: every page resident now, of every level, one rectangle each (the slots fill as pages arrive, told by
     * level_updated) */
    page_rect *resident = NULL;
    uint32_t resident_count = 0;
    if (s->paged) {
        resident = malloc((size_t)s->slots * sizeof *resident);
        if (!resident) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
        for (uint32_t k = 0; k < s->levels; k++)
            for (uint32_t y = 0; y < s->pages_y >> k; y++)
                for (uint32_t x = 0; x < s->pages_x >> k && resident_count < s->slots; x++)
                    if (st_engine_paged_level_mapped(r->engine, k, x, y))
                        resident[resident_count++] =
                            (page_rect){{(int32_t)x, (int32_t)y, (int32_t)x + 1, (int32_t)y + 1}, k};
    }
    double t0 = st_time_ms();
    VkCommandBuffer cmd;
    st_result res = st_gpu_once_begin(gpu, &cmd, err);
    if (res) {
        free(resident);
        return res;
    }
    bool stamps = r->queries != VK_NULL_HANDLE;
    if (stamps) {
        vkCmdResetQueryPool(cmd, r->queries, 0, 2);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, r->queries, 0);
    }
    vkCmdUpdateBuffer(cmd, s->grid.buffer, 0, sizeof header, header);
    if (s->paged) vkCmdUpdateBuffer(cmd, s->pages.buffer, 0, sizeof page_header, page_header);
    /* The shaders read the header the update wrote. */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | draw_stage(s),
                              VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    if (s->paged)
        record_bake_paged(r, s, cmd, resident, resident_count,
                          &(st_rect){0, 0, (int32_t)s->pages_x, (int32_t)s->pages_y}, 1);
    else
        record_bake(r, s, cmd, &(st_rect){0, 0, (int32_t)L->tiles[0][0], (int32_t)L->tiles[0][1]}, 1);
    free(resident);
    if (stamps) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, r->queries, 1);
    res = st_gpu_once_submit(gpu, cmd, err);
    if (res) return st_error_prefix(err, "baking the voxel pyramid");
    s->bake_cpu_ms = st_time_ms() - t0;
    s->bake_gpu_ms = NAN;
    uint64_t ticks[2];
    if (stamps && vkGetQueryPoolResults(gpu->device, r->queries, 0, 2, sizeof ticks, ticks, sizeof ticks[0],
                                        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS)
        s->bake_gpu_ms = (double)(ticks[1] - ticks[0]) * gpu->timestamp_ns * 1e-6;
    ST_DEBUG("voxel: baked %ux%u (%u levels, %.2f MiB%s) in %.1f ms GPU, %.1f ms CPU", r->engine->shape.width,
             r->engine->shape.height, L->lods, (double)(s->grid.size + (s->paged ? s->pages.size : 0)) / (1 << 20),
             s->paged ? ", paged" : "", s->bake_gpu_ms, s->bake_cpu_ms);
    return ST_OK;
}

static st_result voxel_create_common(st_renderer *r, void **out, bool compute, st_error *err) {
    voxel_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->compute = compute;
    s->budget = (uint32_t)st_knob_get(&r->desc.knobs, &voxel_knobs[0]);
    const char *env = getenv("STRATA_VOXEL_STEPS");
    s->show_steps = env && *env == '1';
    st_gpu *gpu = r->engine->gpu;
    const st_world_shape *shape = &r->engine->shape; /* a level's, or a paged world's without one */
    st_result res = st_voxel_layout_of(shape->width, shape->height, r->desc.knobs.voxel_grid, &s->layout, err);
    if (res) return res;
    /* A paged world keeps the levels below the top one per page, in slots parallel to the pool's: what grows with
     * the world is only the levels held whole (for 65,536² in 256² pages, 85 KiB), whatever its size. */
    s->paged = r->engine->paged != NULL;
    uint64_t grid_bytes = s->layout.bytes, pages_bytes = ST_VOXEL_HEADER_BYTES; /* unpaged: a placeholder */
    if (s->paged) {
        st_paged_terrain_pages(r->engine->paged, &s->page_shift, &s->pages_x, &s->pages_y, &s->levels, &s->slots);
        res = st_voxel_paged_of(shape->width, shape->height, 1u << s->page_shift, r->desc.knobs.voxel_grid,
                                &s->paged_layout, err);
        if (res) return res;
        grid_bytes = ST_VOXEL_HEADER_BYTES + 4 * (s->layout.words - s->paged_layout.world_first);
        pages_bytes = ST_VOXEL_HEADER_BYTES + 4 * s->paged_layout.slot_words * s->slots;
    }
    uint64_t largest = grid_bytes > pages_bytes ? grid_bytes : pages_bytes;
    if (largest > gpu->props.limits.maxStorageBufferRange)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "the voxel pyramid needs %.1f MiB; the device binds at most %.1f MiB",
                            (double)largest / (1 << 20), (double)gpu->props.limits.maxStorageBufferRange / (1 << 20));
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    res = st_gpu_buffer_create(gpu, grid_bytes, usage, false, &s->grid, err);
    if (!res) res = st_gpu_buffer_create(gpu, pages_bytes, usage, false, &s->pages, err);
    if (res) return st_error_prefix(err, "voxel pyramid");
    VkShaderStageFlags stages = VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    st_gpu_binding b[2] = {{.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = stages, .buffer = s->grid.buffer},
                           {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = stages, .buffer = s->pages.buffer}};
    res = st_renderer_set_create(r, b, 2, &s->grid_layout, &s->grid_set, err);
    /* the bake's pipelines take 32 bytes of push constants (voxel_top.comp's rectangle of pages) */
    if (!res) res = st_renderer_pipeline_layout(r, &s->grid_layout, 1, 32, &s->bake_layout, err);
    uint32_t paged = s->paged; /* VOXEL_PAGED (voxel_grid.glsl) */
    if (!res) res = st_gpu_compute_pipeline_spec(gpu, "voxel_bake.comp", s->bake_layout, &paged, 1, &s->bake, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "voxel_mip.comp", s->bake_layout, &s->mip, err);
    if (!res && s->paged)
        res = st_gpu_compute_pipeline_spec(gpu, "voxel_mip.comp", s->bake_layout, &paged, 1, &s->mip_pages, err);
    if (!res && s->paged)
        res = st_gpu_compute_pipeline_spec(gpu, "voxel_top.comp", s->bake_layout, &paged, 1, &s->top, err);
    if (res) return res;
    if (compute) {
        res = st_renderer_storage_targets_layout(r, &s->targets_layout, &s->targets_set, err);
        VkDescriptorSetLayout extra[2] = {s->grid_layout, s->targets_layout};
        if (!res) res = st_renderer_pipeline_layout(r, extra, 2, 16, &s->draw_layout, err);
        if (!res) res = st_gpu_compute_pipeline_spec(gpu, "voxel.comp", s->draw_layout, &paged, 1, &s->draw, err);
    } else {
        s->deferred = st_deferred_wanted(r) && !s->show_steps; /* the diagnostic colours are the fragment's */
        if (s->deferred) res = st_deferred_create(r, &(st_deferred_desc){0}, &s->gbuffer, err);
        if (!res) res = st_renderer_pipeline_layout(r, &s->grid_layout, 1, 16, &s->draw_layout, err);
        st_gpu_graphics_desc d = {.vertex = "fullscreen.vert",
                                  .fragment = s->deferred ? "voxel_gbuffer.frag" : "voxel.frag",
                                  .layout = s->draw_layout,
                                  .color_format = s->deferred ? s->gbuffer.point.format : r->color.format,
                                  .depth_format = r->depth.format,
                                  .depth_write = true,
                                  .fragment_constants = &paged,
                                  .fragment_constant_count = 1};
        if (!res) res = st_gpu_graphics_pipeline(gpu, &d, &s->draw, err);
    }
    if (!res) res = full_bake(r, s, err);
    return res;
}

static st_result voxel_create(st_renderer *r, void **out, st_error *err) { return voxel_create_common(r, out, false, err); }

static st_result voxel_compute_create(st_renderer *r, void **out, st_error *err) {
    return voxel_create_common(r, out, true, err);
}

static st_result voxel_level_updated(st_renderer *r, void *state, st_rect rect, st_error *err) {
    (void)r;
    (void)err;
    voxel_state *s = state;
    st_rect_list_add(&s->dirty, rect);
    return ST_OK;
}

static void voxel_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    voxel_state *s = state;
    const st_voxel_layout *L = &s->layout;
    s->last_leaf_columns = s->last_columns = 0;
    if (s->dirty.count) {
        /* Each edited rectangle's leaf cells, widened to whole tiles (a tile column is the bake's unit); paged,
         * its pages. */
        st_rect tiles[ST_RECT_LIST_MAX];
        page_rect bake[ST_PAGED_MAX_LEVELS * ST_RECT_LIST_MAX];
        uint32_t nb = 0;
        for (uint32_t k = 0; k < s->levels && s->paged; k++) {
            /* the pages of level k under each rectangle (a coarse page stands for 2^k pages each way) */
            uint32_t shift = s->page_shift + k;
            for (uint32_t i = 0; i < s->dirty.count; i++) {
                st_rect d = s->dirty.rect[i];
                int32_t n = (int32_t)(s->pages_x >> k), m = (int32_t)(s->pages_y >> k);
                int32_t x0 = d.x0 >> shift, y0 = d.y0 >> shift;
                int32_t x1 = ((d.x1 - 1) >> shift) + 1, y1 = ((d.y1 - 1) >> shift) + 1;
                tiles[i] = (st_rect){x0 < 0 ? 0 : x0, y0 < 0 ? 0 : y0, x1 > n ? n : x1, y1 > m ? m : y1};
            }
            uint32_t n = st_rects_disjoint(tiles, s->dirty.count); /* no page baked twice */
            for (uint32_t i = 0; i < n; i++) bake[nb++] = (page_rect){tiles[i], k};
        }
        for (uint32_t i = 0; i < s->dirty.count && !s->paged; i++) {
            st_rect d = s->dirty.rect[i];
            uint32_t tx0 = (uint32_t)d.x0 / L->voxel[0] / 8, ty0 = (uint32_t)d.y0 / L->voxel[1] / 8;
            uint32_t tx1 = ((uint32_t)d.x1 + 8 * L->voxel[0] - 1) / (8 * L->voxel[0]);
            uint32_t ty1 = ((uint32_t)d.y1 + 8 * L->voxel[1] - 1) / (8 * L->voxel[1]);
            if (tx1 > L->tiles[0][0]) tx1 = L->tiles[0][0];
            if (ty1 > L->tiles[0][1]) ty1 = L->tiles[0][1];
            tiles[i] = (st_rect){(int32_t)tx0, (int32_t)ty0, (int32_t)tx1, (int32_t)ty1};
        }
        st_renderer_pass_begin(r, cmd, "bake");
        /* The previous frame's draw read the words this bake overwrites (write-after-read: an execution
         * dependency suffices). The terrain rows of the edit were uploaded earlier in this command buffer,
         * behind the engine's copy → shader-read barrier. */
        st_gpu_cmd_memory_barrier(cmd, draw_stage(s), VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                  VK_ACCESS_2_NONE);
        if (s->paged) {
            uint32_t n = 0; /* the full-resolution ones: level 0's come first */
            while (n < nb && bake[n].level == 0) {
                tiles[n] = bake[n].r;
                n++;
            }
            record_bake_paged(r, s, cmd, bake, nb, tiles, n);
        } else {
            record_bake(r, s, cmd, tiles, s->dirty.count);
        }
        ST_DEBUG("voxel: %u rectangles, %llu leaf tile columns baked (%llu over every level)", s->dirty.count,
                 (unsigned long long)s->last_leaf_columns, (unsigned long long)s->last_columns);
        st_renderer_pass_end(r, cmd);
        s->dirty.count = 0;
    }
    uint32_t push[4] = {s->budget, s->budget, s->show_steps, 0};
    st_renderer_pass_begin(r, cmd, "march");
    if (s->compute) {
        VkDescriptorSet sets[3] = {r->globals_set, s->grid_set, s->targets_set};
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->draw);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->draw_layout, 0, 3, sets, 0, NULL);
        vkCmdPushConstants(cmd, s->draw_layout, VK_SHADER_STAGE_ALL, 0, sizeof push, push);
        vkCmdDispatch(cmd, (r->width + 7) / 8, (r->height + 7) / 8, 1);
    } else {
        VkDescriptorSet sets[2] = {r->globals_set, s->grid_set};
        if (s->deferred) st_deferred_begin(r, &s->gbuffer, cmd);
        else st_renderer_begin_raster(r, cmd);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->draw);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->draw_layout, 0, 2, sets, 0, NULL);
        vkCmdPushConstants(cmd, s->draw_layout, VK_SHADER_STAGE_ALL, 0, sizeof push, push);
        vkCmdDraw(cmd, 3, 1, 0, 0);
        if (s->deferred) {
            st_deferred_resolve(r, &s->gbuffer, cmd); /* closes "march" */
            return;
        }
        st_renderer_end_raster(r, cmd);
    }
    st_renderer_pass_end(r, cmd);
}

/* The pyramid's buffers: the whole world's (paged: its levels from the top one up) and, paged, the slots. */
static uint64_t voxel_gpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const voxel_state *s = state;
    return s->grid.size + (s->paged ? s->pages.size : 0) + st_deferred_gpu_bytes(&s->gbuffer);
}

/* The CPU keeps a mirror of the header: 16 bytes of info and 16 per level. */
static uint64_t voxel_cpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    return 16ull * (1 + ((const voxel_state *)state)->layout.lods);
}

const st_method_ops st_method_voxel = {
    .info = {.name = "voxel",
             .description = "occupancy-pyramid ray traversal, full-screen fragment pass",
             .compute = false,
             ST_METHOD_KNOBS(voxel_knobs)},
    .targets = ST_TARGETS_RASTER,
    .create = voxel_create,
    .destroy = voxel_destroy,
    .record = voxel_record,
    .level_updated = voxel_level_updated,
    .pages_suffice = true, /* baked through surface_at from the pages, per page as they arrive */
    .gpu_bytes = voxel_gpu_bytes,
    .cpu_bytes = voxel_cpu_bytes,
    .target_usage = st_deferred_target_usage,
};

const st_method_ops st_method_voxel_compute = {
    .info = {.name = "voxel-compute",
             .description = "occupancy-pyramid ray traversal, compute pass",
             .compute = true,
             ST_METHOD_KNOBS(voxel_knobs)},
    .targets = ST_TARGETS_STORAGE,
    .create = voxel_compute_create,
    .destroy = voxel_destroy,
    .record = voxel_record,
    .level_updated = voxel_level_updated,
    .pages_suffice = true, /* baked through surface_at from the pages, per page as they arrive */
    .gpu_bytes = voxel_gpu_bytes,
    .cpu_bytes = voxel_cpu_bytes,
};

static voxel_state *voxel_of(const st_renderer *r) {
    return r && (r->ops == &st_method_voxel || r->ops == &st_method_voxel_compute) ? r->state : NULL;
}

const st_voxel_layout *st_voxel_renderer_layout(const st_renderer *r) {
    voxel_state *s = voxel_of(r);
    return s ? &s->layout : NULL;
}

void st_voxel_bake_time(const st_renderer *r, double *gpu_ms, double *cpu_ms) {
    voxel_state *s = voxel_of(r);
    if (gpu_ms) *gpu_ms = s ? s->bake_gpu_ms : NAN;
    if (cpu_ms) *cpu_ms = s ? s->bake_cpu_ms : NAN;
}

const st_voxel_paged *st_voxel_renderer_paged(const st_renderer *r) {
    voxel_state *s = voxel_of(r);
    return s && s->paged ? &s->paged_layout : NULL;
}

uint64_t st_voxel_words(const st_renderer *r) {
    voxel_state *s = voxel_of(r);
    return !s ? 0 : s->paged ? s->layout.words - s->paged_layout.world_first : s->layout.words;
}

st_result st_voxel_read(st_renderer *r, uint32_t *words, st_error *err) {
    voxel_state *s = voxel_of(r);
    if (!s) return st_error_set(err, ST_ERR_INVALID, "not a voxel renderer");
    st_gpu *gpu = r->engine->gpu;
    /* what the last bake wrote */
    return st_gpu_buffer_read(gpu, s->grid.buffer, ST_VOXEL_HEADER_BYTES, st_voxel_words(r) * 4, words, err);
}

st_result st_voxel_read_page(st_renderer *r, uint32_t px, uint32_t py, uint32_t *words, bool *resident, st_error *err) {
    voxel_state *s = voxel_of(r);
    *resident = false;
    if (!s || !s->paged) return st_error_set(err, ST_ERR_INVALID, "not a voxel renderer of a paged world");
    uint32_t slot;
    if (!st_engine_paged_page(r->engine, px, py, &slot, NULL, 0)) return ST_OK;
    *resident = true;
    VkDeviceSize bytes = s->paged_layout.slot_words * 4;
    return st_gpu_buffer_read(r->engine->gpu, s->pages.buffer, ST_VOXEL_HEADER_BYTES + slot * bytes, bytes, words, err);
}

void st_voxel_last_bake(const st_renderer *r, uint64_t *leaf_columns, uint64_t *columns) {
    voxel_state *s = voxel_of(r);
    if (leaf_columns) *leaf_columns = s ? s->last_leaf_columns : 0;
    if (columns) *columns = s ? s->last_columns : 0;
}
