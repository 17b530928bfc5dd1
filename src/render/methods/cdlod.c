/* CDLOD over a tile store, drawn two ways that share the CPU selection (src/tiles/lod.c), the node and instance
 * buffers and the vertex function (shaders/common/cdlod_vertex.glsl): `cdlod` rasterises one instanced draw of
 * the shared quarter grid per frame (plus one of skirt strips), `cdlod-compute` rasterises the same triangles in
 * compute into a 64-bit visibility buffer and resolves it like mesh-compute. Heights come from the engine's tile
 * slots; everything is drawn relative to the eye. docs/large-world.md describes the method. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/cdlod_select.h"
#include "render/methods/store_method.h"

#define CDLOD_MAX_LEVELS ST_STORE_TILE_LEVELS

/* std430 mirror of CdlodNode in shaders/common/cdlod_vertex.glsl */
typedef struct cdlod_node_gpu {
    int32_t corner[2], tex_origin[2];
    uint32_t level, tile_level, slot;
    float skirt;
} cdlod_node_gpu;

typedef struct cdlod_state {
    bool compute;
    st_lod_world world;
    st_lod_params params;
    st_lod_selection sel;
    st_lod_frame_stats stats;
    bool warned;               /* the one-level warning is given once per renderer */
    st_view frozen;            /* freeze_culling: the first frame's view */
    bool have_frozen;
    uint32_t node_cap, inst_cap;
    uint32_t patches, skirts;  /* this frame's instances */
    uint32_t *drawn_from;      /* per GPU node: its index in the selection */
    uint32_t drawn_cap, drawn;
    st_gpu_buffer nodes, instances, frame, index;
    uint32_t grid_indices, strip_first, strip_indices;
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline patch_pipeline, skirt_pipeline;
    /* raster, textured shading: the patches and skirts write their points into the G-buffer, one resolve shades them */
    bool deferred;
    st_deferred gbuffer;
    st_store_compute cs; /* cdlod-compute */
    st_cdlod_select *gpu_select; /* --lod-select gpu: the selection's compute pass */
    bool gpu_fresh;              /* the last frame's figures are the GPU pass's (a frame ran it since a CPU select) */
} cdlod_state;

static void cdlod_destroy(st_renderer *r, void *state) {
    cdlod_state *s = state;
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    VkPipeline pipes[] = {s->patch_pipeline, s->skirt_pipeline};
    for (size_t i = 0; i < sizeof pipes / sizeof pipes[0]; i++)
        if (pipes[i]) vkDestroyPipeline(dev, pipes[i], NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->set_layout) vkDestroyDescriptorSetLayout(dev, s->set_layout, NULL);
    st_store_compute_destroy(r, &s->cs);
    st_deferred_destroy(r, &s->gbuffer);
    st_cdlod_select_destroy(r, s->gpu_select);
    st_gpu_buffer *bufs[] = {&s->nodes, &s->instances, &s->frame, &s->index};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) st_gpu_buffer_destroy(gpu, bufs[i]);
    st_lod_selection_free(&s->sel);
    free(s->drawn_from);
    free(s);
}

/* The shared index buffer: the quarter grid's (N/2)² quads, then one skirt strip of N/2 quads. Both wind
 * counter-clockwise seen from above in the map's (x, y, z) frame, like the mesh method's outward faces. */
static st_result create_index_buffer(st_renderer *r, cdlod_state *s, st_error *err) {
    uint32_t h = s->world.grid / 2, row = h + 1;
    s->grid_indices = 6 * h * h;
    s->strip_first = s->grid_indices;
    s->strip_indices = 6 * h;
    uint16_t *ix;
    st_result res = st_store_method_index_begin(r, s->grid_indices + s->strip_indices, &s->index, &ix, err);
    if (res) return res;
    uint32_t k = 0;
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < h; i++) {
            uint16_t a = (uint16_t)(j * row + i), b = (uint16_t)(a + 1), c = (uint16_t)(a + row + 1),
                     d = (uint16_t)(a + row);
            ix[k++] = a, ix[k++] = b, ix[k++] = c;
            ix[k++] = a, ix[k++] = c, ix[k++] = d;
        }
    for (uint32_t t = 0; t < h; t++) { /* even vertices are the strip's top, odd ones its bottom */
        uint16_t top0 = (uint16_t)(2 * t), bot0 = (uint16_t)(top0 + 1), top1 = (uint16_t)(top0 + 2),
                 bot1 = (uint16_t)(top0 + 3);
        ix[k++] = top0, ix[k++] = top1, ix[k++] = bot1;
        ix[k++] = top0, ix[k++] = bot1, ix[k++] = bot0;
    }
    return st_store_method_index_upload(r, &s->index, err);
}

/* The method's set: the tile pool's slots, the slot and page tables, the frame's uniforms, the selected nodes
 * and their instances; the compute variant adds the visibility buffer and the big-triangle queue. Returns the
 * binding count. */
static uint32_t set_bindings(const st_renderer *r, const cdlod_state *s, st_gpu_binding b[8]) {
    st_store_method_world_bindings(r, b);
    /* the GPU selection writes the nodes and instances itself, into buffers of its own */
    const VkBuffer buffers[3] = {s->frame.buffer,
                                 s->gpu_select ? st_cdlod_select_nodes(s->gpu_select) : s->nodes.buffer,
                                 s->gpu_select ? st_cdlod_select_instances(s->gpu_select) : s->instances.buffer};
    for (uint32_t i = 0; i < 3; i++)
        b[3 + i] = (st_gpu_binding){.type = i == 0 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .stages = VK_SHADER_STAGE_ALL,
                                    .buffer = buffers[i]};
    if (!s->compute) return 6;
    st_store_compute_bindings(&s->cs, b + 6);
    return 8;
}

static void write_set(st_renderer *r, cdlod_state *s) {
    st_gpu_binding b[8];
    uint32_t n = set_bindings(r, s, b);
    st_gpu_set_write(r->engine->gpu, s->set, b, n);
}

/* Grows the host-visible node and instance buffers to hold this frame's selection (frames are waited on, so
 * nothing reads the old ones any more) and points the descriptor set at the new ones. */
static st_result reserve(st_renderer *r, cdlod_state *s, uint32_t nodes, uint32_t instances, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    if (s->gpu_select) return ST_OK; /* its buffers are fixed */
    bool changed = false;
    st_result res = ST_OK;
    if (nodes > s->node_cap || !s->nodes.buffer) {
        uint32_t cap = s->node_cap ? s->node_cap : 1024;
        while (cap < nodes) cap *= 2;
        st_gpu_buffer_destroy(gpu, &s->nodes);
        res = st_gpu_buffer_create(gpu, (VkDeviceSize)cap * sizeof(cdlod_node_gpu), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                   true, &s->nodes, err);
        s->node_cap = res ? 0 : cap;
        changed = true;
    }
    if (!res && (instances > s->inst_cap || !s->instances.buffer)) {
        uint32_t cap = s->inst_cap ? s->inst_cap : 4096;
        while (cap < instances) cap *= 2;
        st_gpu_buffer_destroy(gpu, &s->instances);
        res = st_gpu_buffer_create(gpu, (VkDeviceSize)cap * sizeof(uint32_t), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true,
                                   &s->instances, err);
        s->inst_cap = res ? 0 : cap;
        changed = true;
    }
    if (!res && changed) write_set(r, s);
    return res;
}

static st_result create_common(st_renderer *r, cdlod_state *s, st_error *err) {
    st_engine *e = r->engine;
    st_gpu *gpu = e->gpu;
    const st_method_knobs *kn = &r->desc.knobs;
    s->params = (st_lod_params){.tau_px = kn->tau_px,
                                .lod_ratio = kn->lod_ratio,
                                .morph_ratio = kn->morph_ratio,
                                .skirts = kn->skirts,
                                .no_cull = kn->lod_no_cull};
    st_result res = st_store_method_world(r, kn->lod_grid, &s->world, err);
    if (res) return res;
    if (kn->lod_error_bound) st_lod_world_use_bound(&s->world);
    res = st_lod_check(&s->world, &s->params, err);
    if (!res && s->world.levels > CDLOD_MAX_LEVELS)
        res = st_error_set(err, ST_ERR_UNSUPPORTED, "cdlod: %u levels (the shaders hold %u)", s->world.levels,
                           CDLOD_MAX_LEVELS);
    if (!res && s->world.grid > 256)
        res = st_error_set(err, ST_ERR_INVALID, "cdlod: a grid of %u quads per node (at most 256: u16 indices)",
                           s->world.grid);
    if (res) return st_error_prefix(err, "%s", r->ops->info.name);
    if (kn->lod_select_gpu && s->compute)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "%s: --lod-select gpu draws with cdlod (the compute rasteriser "
                            "sizes its dispatch on the CPU); use --lod-select cpu", r->ops->info.name);
    /* STORAGE: the GPU selection writes its chosen morph bands in */
    VkBufferUsageFlags frame_usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
    if (kn->lod_select_gpu) frame_usage |= VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    res = st_gpu_buffer_create(gpu, sizeof(st_store_frame_gpu), frame_usage, true, &s->frame, err);
    if (!res && kn->lod_select_gpu)
        res = st_cdlod_select_create(r, &s->world, kn->lod_select_threads, kn->lod_select_cpu_levels, s->frame.buffer,
                                     &s->gpu_select, err);
    if (!res) res = create_index_buffer(r, s, err);
    if (!res && s->compute) res = st_store_compute_buffers(r, &s->cs, err);
    if (res) return res;
    st_gpu_binding b[8];
    uint32_t bindings = set_bindings(r, s, b);
    res = st_gpu_set_layout(gpu, b, bindings, &s->set_layout, err);
    if (!res) res = st_renderer_alloc_set(r, s->set_layout, &s->set, err);
    if (!res && s->gpu_select) write_set(r, s); /* its buffers exist already */
    if (!res) res = reserve(r, s, 1, 1, err);
    return res;
}

/* Whether the raster variant defers its textured shading (st_deferred_wanted): not with the wireframe overlay, which
 * the fragment shader draws from the grid's screen derivatives. */
static bool cdlod_defers(const st_renderer *r) { return st_deferred_wanted(r) && !r->desc.wireframe; }

static VkImageUsageFlags cdlod_target_usage(const st_renderer *r) {
    return cdlod_defers(r) ? st_deferred_target_usage(r) : 0;
}

static st_result cdlod_create(st_renderer *r, void **out, st_error *err) {
    cdlod_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_result res = create_common(r, s, err);
    s->deferred = cdlod_defers(r);
    st_deferred_desc dd = {.resolve = "cdlod_deferred.comp", .method_layout = s->set_layout, .method_set = s->set};
    if (!res && s->deferred) res = st_deferred_create(r, &dd, &s->gbuffer, err);
    if (!res) res = st_renderer_pipeline_layout(r, &s->set_layout, 1, 0, &s->layout, err);
    if (res) return res;
    /* the patches are single-sided (culling FRONT drops the map frame's back faces, as in the mesh method);
     * skirts hang on every side of a crack, so they are drawn from both sides */
    st_gpu_graphics_desc d = {.vertex = "cdlod.vert",
                              .fragment = s->deferred ? "cdlod_gbuffer.frag" : "cdlod.frag",
                              .layout = s->layout,
                              .color_format = s->deferred ? s->gbuffer.point.format : r->color.format,
                              .depth_format = r->depth.format,
                              .depth_write = true,
                              .cull = VK_CULL_MODE_FRONT_BIT};
    res = st_gpu_graphics_pipeline(r->engine->gpu, &d, &s->patch_pipeline, err);
    if (!res) {
        d.vertex = "cdlod_skirt.vert";
        d.cull = VK_CULL_MODE_NONE;
        res = st_gpu_graphics_pipeline(r->engine->gpu, &d, &s->skirt_pipeline, err);
    }
    return res;
}

static st_result cdlod_compute_create(st_renderer *r, void **out, st_error *err) {
    st_result res = st_store_compute_check(r, "cdlod", err);
    if (res) return res;
    cdlod_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->compute = true;
    res = create_common(r, s, err);
    if (!res) res = st_store_compute_pipelines(r, &s->cs, s->set_layout, "cdlod", &s->layout, err);
    return res;
}

/* ---- the frame ---------------------------------------------------------------------------------------------- */

/* Selects the nodes and fills the node, instance and frame buffers. Returns false when nothing is drawn. */
static void prepare(st_renderer *r, cdlod_state *s) {
    st_large_world *lw = r->engine->world;
    const st_lod_world *w = &s->world;
    st_view v = r->view;
    if (r->desc.freeze_culling) {
        if (!s->have_frozen) s->frozen = v, s->have_frozen = true;
        v = s->frozen;
    }
    st_lod_view lv = st_lod_view_of(&v);
    double t0 = st_time_ms();
    st_error err = {0};
    s->patches = s->skirts = 0;
    memset(&s->stats, 0, sizeof s->stats);
    st_result res = st_lod_select(w, &s->params, &lv, &s->sel, &err);
    s->stats.select_ms = st_time_ms() - t0;
    if (res) {
        /* a view that visits too many nodes: nothing drawn this frame, said once */
        if (!s->warned) ST_WARN("%s: %s", r->ops->info.name, err.message);
        s->warned = true;
        s->sel.count = 0;
    }
    const st_lod_selection *sel = &s->sel;
    if (sel->one_level_violations && !s->warned) {
        ST_WARN("%s: %u node%s break the one-level rule (by up to %.1f m): their view range is short for this world's "
                "relief, and a neighbour two levels coarser may crack; raise the LOD ratio",
                r->ops->info.name, sel->one_level_violations, sel->one_level_violations > 1 ? "s" : "",
                sel->worst_violation_m);
        s->warned = true;
    }
    uint32_t instances = 0;
    for (uint32_t i = 0; i < sel->count; i++)
        instances += (uint32_t)__builtin_popcount(sel->nodes[i].quadrants) +
                     (uint32_t)__builtin_popcount(sel->nodes[i].skirts);
    if (reserve(r, s, sel->count, instances, &err)) {
        if (!s->warned) ST_WARN("%s: %s", r->ops->info.name, err.message);
        s->warned = true;
        return;
    }
    /* The anchor: the eye's finest sample. Node corners and tile origins are integers from it, so every node
     * computes a shared vertex from the same numbers; the eye's offset from it is a fraction of a spacing. */
    const double *eye = r->view.origin;
    int64_t ax = (int64_t)floor(eye[0] / w->spacing_x), ay = (int64_t)floor(eye[1] / w->spacing_y);
    uint32_t N = w->grid, sint = w->tile_intervals;
    cdlod_node_gpu *nodes = s->nodes.mapped;
    uint32_t *inst = s->instances.mapped;
    st_residency *res_mgr = st_large_world_residency(lw);
    uint32_t drawn = 0;
    if (sel->count > s->drawn_cap) {
        uint32_t *d = realloc(s->drawn_from, sel->count * sizeof *d);
        if (d) s->drawn_from = d, s->drawn_cap = sel->count;
    }
    for (uint32_t i = 0; i < sel->count; i++) {
        const st_lod_node *n = &sel->nodes[i];
        uint32_t slot = ST_TILE_NO_SLOT;
        if (!st_residency_tile(res_mgr, n->tile, &slot) || slot == ST_TILE_NO_SLOT) continue;
        if (drawn < s->drawn_cap) s->drawn_from[drawn] = i;
        int64_t cx = (int64_t)n->x * N << n->level, cy = (int64_t)n->y * N << n->level;
        int64_t tx = (int64_t)n->tile.x * sint << n->tile.level, ty = (int64_t)n->tile.y * sint << n->tile.level;
        nodes[drawn] = (cdlod_node_gpu){.corner = {(int32_t)(cx - ax), (int32_t)(cy - ay)},
                                        .tex_origin = {(int32_t)(tx - ax), (int32_t)(ty - ay)},
                                        .level = n->level,
                                        .tile_level = n->tile.level,
                                        .slot = slot,
                                        .skirt = (float)st_lod_skirt_depth(w, n->level)};
        for (uint32_t q = 0; q < ST_LOD_QUADRANTS; q++)
            if (n->quadrants & (1u << q)) inst[s->patches++] = drawn << 4 | q;
        drawn++;
    }
    s->drawn = drawn;
    /* skirt instances after the patches (the skirt draw starts at firstInstance = patches) */
    drawn = 0;
    for (uint32_t i = 0; i < sel->count; i++) {
        const st_lod_node *n = &sel->nodes[i];
        uint32_t slot = ST_TILE_NO_SLOT;
        if (!st_residency_tile(res_mgr, n->tile, &slot) || slot == ST_TILE_NO_SLOT) continue;
        for (uint32_t b = 0; b < 16; b++)
            if (n->skirts & (1u << b)) inst[s->patches + s->skirts++] = drawn << 4 | b;
        drawn++;
    }
    st_store_frame_gpu *f = s->frame.mapped;
    st_store_method_tile_frame(r, w, ax, ay, f);
    for (uint32_t l = 0; l < w->levels; l++) {
        const st_lod_band *b = &sel->bands[l];
        bool morph = isfinite(b->morph_start) && b->morph_end > b->morph_start;
        f->bands[l][0] = morph ? (float)b->morph_start : FLT_MAX;
        f->bands[l][1] = morph ? (float)b->morph_end : FLT_MAX;
        f->bands[l][2] = morph ? (float)(1.0 / (b->morph_end - b->morph_start)) : 0.0f;
    }
    f->info[1] = N;
    f->instance_base[0] = s->patches;
    f->counts[0] = s->patches;
    f->counts[1] = s->skirts;
    f->counts[2] = 2 * (N / 2) * (N / 2);
    f->counts[3] = N;
    /* the figures of the frame */
    st_lod_frame_stats *st = &s->stats;
    st->tau_px = s->params.tau_px > 0 ? s->params.tau_px : 1.0;
    st->nodes = drawn;
    st->quadrants = s->patches;
    st->fallback = sel->fallback;
    st->missing = sel->missing;
    st->culled = sel->culled;
    st->one_level_violations = sel->one_level_violations;
    st->widened = sel->widened;
    st->triangles = (uint64_t)s->patches * f->counts[2] + (uint64_t)s->skirts * N;
    st->skirt_triangles = (uint64_t)s->skirts * N;
    memcpy(st->per_level, sel->per_level, sizeof st->per_level);
    st->levels = w->levels;
    st->grid = N;
    /* the selection does not depend on residency, only the fallbacks do: with none, the frame is final */
    st->settled = !sel->fallback && !sel->missing && !res;
    st->select_ms = st_time_ms() - t0;
    /* Holes: nodes not drawn for want of a tile (no drawable ancestor, or a tile that lost its slot this frame),
     * as the pixels their boxes may cover in this frame's image; none in a settled view. */
    uint32_t undrawn = sel->count - s->drawn;
    st->undrawn = undrawn;
    st->settled = st->settled && !undrawn;
    if (sel->missing_kept || undrawn) {
        st_lod_box *boxes = malloc(((size_t)sel->missing_kept + undrawn) * sizeof *boxes);
        uint32_t k = 0;
        if (boxes) {
            memcpy(boxes, sel->missing_boxes, (size_t)sel->missing_kept * sizeof *boxes);
            k = sel->missing_kept;
            for (uint32_t i = 0; i < sel->count; i++) {
                const st_lod_node *n = &sel->nodes[i];
                uint32_t slot = ST_TILE_NO_SLOT;
                if (st_residency_tile(res_mgr, n->tile, &slot) && slot != ST_TILE_NO_SLOT) continue;
                memcpy(boxes[k].lo, n->lo, sizeof n->lo);
                memcpy(boxes[k].hi, n->hi, sizeof n->hi);
                k++;
            }
            st_lod_view here = st_lod_view_of(&r->view);
            if (st_lod_hole_pixels(boxes, k, &here, &st->hole_px, &err)) st->hole_px = UINT64_MAX;
            free(boxes);
        } else {
            st->hole_px = UINT64_MAX;
        }
    }
}

/* The GPU selection's frame: the last pass's requests go to the residency manager (one frame late), a generated
 * store's bounds are refreshed, the frame's uniforms are written (the morph bands come from the pass), and the
 * pass is recorded; its figures are read back after the frame (cdlod_lod_stats). */
static void prepare_gpu(st_renderer *r, cdlod_state *s, VkCommandBuffer cmd) {
    st_large_world *lw = r->engine->world;
    const st_lod_world *w = &s->world;
    double t0 = st_time_ms();
    st_residency *res_mgr = st_large_world_residency(lw);
    st_cdlod_select_issue_requests(s->gpu_select, res_mgr);
    st_cdlod_select_refresh_bounds(s->gpu_select, w, st_residency_get_stats(res_mgr).loads_done);
    st_view v = r->view;
    if (r->desc.freeze_culling) {
        if (!s->have_frozen) s->frozen = v, s->have_frozen = true;
        v = s->frozen;
    }
    st_lod_view lv = st_lod_view_of(&v);
    const double *eye = r->view.origin;
    int64_t ax = (int64_t)floor(eye[0] / w->spacing_x), ay = (int64_t)floor(eye[1] / w->spacing_y);
    uint32_t N = w->grid;
    st_store_frame_gpu *f = s->frame.mapped;
    st_store_method_tile_frame(r, w, ax, ay, f);
    f->info[1] = N;
    f->instance_base[0] = ST_CDLOD_SKIRT_BASE;
    f->counts[2] = 2 * (N / 2) * (N / 2);
    f->counts[3] = N;
    const uint32_t draw[3] = {s->grid_indices, s->strip_indices, s->strip_first};
    st_cdlod_select_record(r, s->gpu_select, w, &s->params, &lv, ax, ay, draw, cmd);
    s->gpu_fresh = true;
    s->stats.select_ms = st_time_ms() - t0;
}

/* The figures of the GPU pass's last frame, as prepare gives the CPU's. */
static void gpu_stats(const st_renderer *r, const cdlod_state *s, st_lod_frame_stats *st) {
    st_cdlod_select_result g;
    double select_ms = s->stats.select_ms;
    memset(st, 0, sizeof *st);
    st->select_ms = select_ms;
    if (!st_cdlod_select_read(s->gpu_select, &g)) return;
    st->coarse_ms = g.coarse_ms;
    st->cpu_levels = g.cpu_levels;
    uint32_t N = s->world.grid;
    st->tau_px = s->params.tau_px > 0 ? s->params.tau_px : 1.0;
    st->nodes = g.nodes;
    st->quadrants = g.patches;
    st->fallback = g.fallback;
    st->missing = g.missing;
    st->culled = g.culled;
    st->one_level_violations = g.violations;
    st->widened = g.widened;
    st->skirt_triangles = (uint64_t)g.skirts * N;
    st->triangles = (uint64_t)g.patches * 2 * (N / 2) * (N / 2) + st->skirt_triangles;
    memcpy(st->per_level, g.per_level, sizeof st->per_level);
    st->levels = s->world.levels;
    st->grid = N;
    st->settled = !g.fallback && !g.missing && !g.overflow;
    if (g.missing_kept) {
        st_lod_box *boxes = malloc((size_t)g.missing_kept * sizeof *boxes);
        st_error err = {0};
        st_lod_view here = st_lod_view_of(&r->view);
        uint32_t k = boxes ? st_cdlod_select_missing_read(s->gpu_select, boxes, g.missing_kept) : 0;
        if (!boxes || st_lod_hole_pixels(boxes, k, &here, &st->hole_px, &err)) st->hole_px = UINT64_MAX;
        free(boxes);
    }
}

/* Ends the raster pass "draw": the forward frame's rendering, or the deferred frame's G-buffer and its resolve. */
static void end_draw(st_renderer *r, cdlod_state *s, VkCommandBuffer cmd) {
    if (s->deferred) {
        st_deferred_resolve(r, &s->gbuffer, cmd);
        return;
    }
    st_renderer_end_raster(r, cmd);
    st_renderer_pass_end(r, cmd);
}

static void cdlod_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    cdlod_state *s = state;
    if (s->gpu_select) {
        prepare_gpu(r, s, cmd);
        VkDeviceSize patch_at, skirt_at;
        VkBuffer draws = st_cdlod_select_draws(s->gpu_select, &patch_at, &skirt_at);
        st_renderer_pass_begin(r, cmd, "draw");
        if (s->deferred) st_deferred_begin(r, &s->gbuffer, cmd);
        else st_renderer_begin_raster(r, cmd);
        VkDescriptorSet sets[2] = {r->globals_set, s->set};
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->patch_pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 2, sets, 0, NULL);
        vkCmdBindIndexBuffer(cmd, s->index.buffer, 0, VK_INDEX_TYPE_UINT16);
        vkCmdDrawIndexedIndirect(cmd, draws, patch_at, 1, 0);
        if (s->params.skirts) {
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->skirt_pipeline);
            vkCmdDrawIndexedIndirect(cmd, draws, skirt_at, 1, 0);
        }
        end_draw(r, s, cmd);
        return;
    }
    prepare(r, s);
    st_renderer_pass_begin(r, cmd, "draw");
    if (s->deferred) st_deferred_begin(r, &s->gbuffer, cmd);
    else st_renderer_begin_raster(r, cmd);
    VkDescriptorSet sets[2] = {r->globals_set, s->set};
    if (s->patches) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->patch_pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 2, sets, 0, NULL);
        vkCmdBindIndexBuffer(cmd, s->index.buffer, 0, VK_INDEX_TYPE_UINT16);
        vkCmdDrawIndexed(cmd, s->grid_indices, s->patches, 0, 0, 0);
        if (s->skirts) {
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->skirt_pipeline);
            vkCmdDrawIndexed(cmd, s->strip_indices, s->skirts, s->strip_first, 0, 0);
        }
    }
    end_draw(r, s, cmd);
}

static void cdlod_compute_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    cdlod_state *s = state;
    prepare(r, s);
    uint64_t total64 = (uint64_t)s->patches * (2 * (s->world.grid / 2) * (s->world.grid / 2)) +
                       (uint64_t)s->skirts * s->world.grid;
    uint32_t total = total64 > UINT32_MAX - 64 ? UINT32_MAX - 64 : (uint32_t)total64;
    st_store_compute_draw(r, &s->cs, s->layout, s->set, cmd, total);
}

static uint64_t cdlod_gpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const cdlod_state *s = state;
    return (uint64_t)s->nodes.size + s->instances.size + s->frame.size + s->index.size + s->cs.vis.size + s->cs.big.size +
           st_deferred_gpu_bytes(&s->gbuffer);
}

static uint64_t cdlod_cpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const cdlod_state *s = state;
    return sizeof *s + (uint64_t)s->sel.cap * sizeof(st_lod_node);
}

/* The CPU side of a frame without recording one (settling): with the GPU selection, the CPU's selection makes
 * the requests and says whether the view is settled; the buffers the GPU pass writes are left alone. */
static void cdlod_select(st_renderer *r, void *state) {
    cdlod_state *s = state;
    if (!s->gpu_select) {
        prepare(r, s);
        return;
    }
    st_lod_view lv = st_lod_view_of(&r->view);
    st_error err = {0};
    double t0 = st_time_ms();
    st_result res = st_lod_select(&s->world, &s->params, &lv, &s->sel, &err);
    memset(&s->stats, 0, sizeof s->stats);
    s->stats.select_ms = st_time_ms() - t0;
    s->stats.nodes = res ? 0 : s->sel.count;
    s->stats.fallback = s->sel.fallback;
    s->stats.missing = s->sel.missing;
    s->stats.settled = !res && !s->sel.fallback && !s->sel.missing;
    s->gpu_fresh = false;
}

static void cdlod_lod_stats(const st_renderer *r, const void *state, st_lod_frame_stats *out) {
    const cdlod_state *s = state;
    if (s->gpu_select && s->gpu_fresh) gpu_stats(r, s, out);
    else *out = s->stats;
}

/* ---- the GPU selection (tests, bench lod) ------------------------------------------------------------------------ */

st_result st_cdlod_gpu_selection(const st_renderer *r, st_lod_node **nodes, uint32_t *count, st_error *err) {
    *nodes = NULL;
    *count = 0;
    if (r->ops != &st_method_cdlod) return st_error_set(err, ST_ERR_INVALID, "not a cdlod renderer");
    const cdlod_state *s = r->state;
    st_cdlod_select_result g;
    if (!s->gpu_select || !st_cdlod_select_read(s->gpu_select, &g))
        return st_error_set(err, ST_ERR_INVALID, "cdlod: no GPU selection has run (--lod-select gpu, then a frame)");
    if (g.overflow) return st_error_set(err, ST_ERR_INVALID, "cdlod: the GPU selection's lists overflowed");
    *nodes = calloc(g.nodes ? g.nodes : 1, sizeof **nodes);
    if (!*nodes) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *count = st_cdlod_select_nodes_read(s->gpu_select, &s->world, *nodes, g.nodes);
    return ST_OK;
}

void st_cdlod_set_cpu_levels(st_renderer *r, int32_t cpu_levels) {
    if (r->ops != &st_method_cdlod) return;
    cdlod_state *s = r->state;
    if (s->gpu_select) st_cdlod_select_set_cpu_levels(s->gpu_select, cpu_levels);
}

/* ---- the probe (tests) ------------------------------------------------------------------------------------------ */

const st_lod_selection *st_cdlod_last_frame(const st_renderer *r, const uint32_t **drawn_from, uint32_t *drawn) {
    if (r->ops != &st_method_cdlod && r->ops != &st_method_cdlod_compute) return NULL;
    const cdlod_state *s = r->state;
    *drawn_from = s->drawn_from;
    *drawn = s->drawn < s->drawn_cap ? s->drawn : s->drawn_cap;
    return &s->sel;
}

st_result st_cdlod_probe(st_renderer *r, uint32_t node, const float *grid, uint32_t count, float *out, st_error *err) {
    if (r->ops != &st_method_cdlod && r->ops != &st_method_cdlod_compute)
        return st_error_set(err, ST_ERR_INVALID, "probe: not a cdlod renderer");
    cdlod_state *s = r->state;
    if (!r->drawn || node >= s->drawn) return st_error_set(err, ST_ERR_INVALID, "probe: node %u of %u", node, s->drawn);
    size_t in_bytes = 16 + (size_t)count * 8;
    uint32_t *in = malloc(in_bytes);
    if (!in) return st_error_set(err, ST_ERR_NOMEM, "probe: out of memory");
    in[0] = node, in[1] = count, in[2] = in[3] = 0;
    memcpy(in + 4, grid, (size_t)count * 8);
    st_result res = st_renderer_probe(r, s->set_layout, s->set, "cdlod_probe.comp", in, in_bytes, out,
                                      (size_t)count * 16, count, err);
    free(in);
    return res;
}

st_result st_cdlod_tri_probe(st_renderer *r, const uint32_t *tris, uint32_t count, float *out, st_error *err) {
    if (r->ops != &st_method_cdlod_compute) return st_error_set(err, ST_ERR_INVALID, "probe: not a cdlod-compute renderer");
    cdlod_state *s = r->state;
    if (!r->drawn) return st_error_set(err, ST_ERR_INVALID, "probe: no frame drawn yet");
    size_t in_bytes = 16 + (size_t)count * 4;
    uint32_t *in = malloc(in_bytes);
    if (!in) return st_error_set(err, ST_ERR_NOMEM, "probe: out of memory");
    in[0] = count, in[1] = in[2] = in[3] = 0;
    memcpy(in + 4, tris, (size_t)count * 4);
    st_result res = st_renderer_probe(r, s->set_layout, s->set, "cdlod_tri_probe.comp", in, in_bytes, out,
                                      (size_t)count * 80, count, err);
    free(in);
    return res;
}

const st_method_ops st_method_cdlod = {
    .info = {.name = "cdlod",
             .description = "CDLOD quadtree over a tile store, morphing patches instanced and rasterised",
             .compute = false,
             .world = ST_WORLD_STORE},
    .targets = ST_TARGETS_RASTER,
    .create = cdlod_create,
    .target_usage = cdlod_target_usage,
    .destroy = cdlod_destroy,
    .record = cdlod_record,
    .gpu_bytes = cdlod_gpu_bytes,
    .cpu_bytes = cdlod_cpu_bytes,
    .lod_stats = cdlod_lod_stats,
    .select = cdlod_select,
};

const st_method_ops st_method_cdlod_compute = {
    .info = {.name = "cdlod-compute",
             .description = "CDLOD's triangles rasterised in compute into a 64-bit visibility buffer",
             .compute = true,
             .world = ST_WORLD_STORE},
    .targets = ST_TARGETS_STORAGE,
    .create = cdlod_compute_create,
    .destroy = cdlod_destroy,
    .record = cdlod_compute_record,
    .gpu_bytes = cdlod_gpu_bytes,
    .cpu_bytes = cdlod_cpu_bytes,
    .lod_stats = cdlod_lod_stats,
    .select = cdlod_select,
};
