/* Painted: every ground cell of the view becomes its camera-facing bar faces ([0, low] and, where dual,
 * [mid, high]) drawn from instance and vertex indices alone. The CPU lists the 16×16-texel tiles whose
 * boxes meet the frustum, nearest first, and merges cells of far tiles into 2×2 or 4×4 blocks where a
 * block projects under about a pixel, so the cost follows what is visible rather than the ground area.
 * `paint-plain` draws every tile of the ground bounds at full resolution with whole bars, for comparison;
 * `paint-compute` rasterises `paint`'s faces in compute into a 64-bit visibility buffer (depth | face id) and
 * resolves it, because raster throughput is tiny on some GPUs; it draws the nearest rings of tiles first, in a few
 * passes, and each later pass skips the tiles and faces the earlier ones hide (per 8 × 8 pixels, the farthest depth
 * drawn so far), which at a low camera is most of the far terrain: compute has no early depth test to do it. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/methods.h"

#define PAINT_TILE 16u    /* texels per side of a tile (the shader's TILE) */
#define PAINT_MAX_LOD 2u  /* blocks of up to 4×4 cells */
#define PAINT_TOP 256.0f

typedef struct paint_push {
    uint32_t tile_base, lod;
    uint32_t hidden_sides; /* 1: floor-bar sides start at the camera-side neighbours' floors */
    uint32_t pad;
} paint_push;

typedef struct paint_tile { /* mirror of the shader's ivec4 */
    int32_t x0, y0, flags, top; /* top: the tile's highest height (the occlusion test's box is [0, top]) */
} paint_tile;

/* Mirror of PaintComputePush in shaders/common/paint_compute.glsl */
typedef struct paint_compute_push {
    uint32_t tile_base[4]; /* first tile of each level of detail */
    uint32_t first[4];     /* first instance of each level of detail; [3]: every instance */
    uint32_t misc[4];      /* hidden sides, invocations per dispatch row, job capacity, unused */
    uint32_t phase[4];     /* this pass's instances [0], [1]; [2]: the occlusion cells hold the earlier passes;
                              [3]: the splat order (knob paint_splat − 1) */
} paint_compute_push;

#define PAINT_QUEUE_HEADER 16u /* words before the queued jobs (paint_compute.glsl) */
#define PAINT_CELL 8u          /* pixels per side of an occlusion cell (paint_compute.glsl) */
#define PAINT_MAX_PASSES 4u
#define PAINT_DEFAULT_PASSES 1u

/* paint-compute's knobs. The passes the blocks are drawn in, nearest tiles first, each after the first skipping what
 * the earlier ones hid (1: one pass, no occlusion test). The same image whatever the value; fewer pixels tested with
 * more passes, but slower on the H200 (12 default views at 1280×800: 0.569, 0.715, 1.001 and 1.062 ms for 1 to 4
 * passes, `strata tune --methods paint-compute --size 1280x800`), so one by default. */
static const st_method_knob paint_compute_knobs[] = {
    {.name = "paint_passes", .label = "paint passes", .kind = ST_KNOB_COUNT,
     .offset = offsetof(st_method_knobs, paint_passes), .default_value = PAINT_DEFAULT_PASSES, .min = 1,
     .max = PAINT_MAX_PASSES, .sweep_count = 4, .sweep = {1, 2, 3, 4}, .cost_falls = true},
    /* how a face's pixels reach the visibility buffer (the same image): 1 four reads side by side, then the atomics
     * of those nearer; 2 one pixel at a time (read, wait, atomic); 3 the atomics without a read, the default: on the
     * H200 0.569, 0.576 and 0.459 ms (one pass, `strata compare` with a tuning file setting it) */
    {.name = "paint_splat", .label = "paint splat", .kind = ST_KNOB_COUNT,
     .offset = offsetof(st_method_knobs, paint_splat), .default_value = 3, .min = 1, .max = 3},
};

typedef struct paint_state {
    bool plain; /* the paper's footprint: every cell of the ground bounds, no culling, no merging */
    bool compute;
    /* raster, textured shading: the bars write their shading points into the G-buffer, one resolve shades them */
    bool deferred;
    st_deferred gbuffer;
    /* compute */
    VkPipeline big_pipeline, resolve_pipeline;
    VkDescriptorSetLayout targets_layout;
    VkDescriptorSet targets_set;
    st_gpu_buffer vis;   /* per pixel: reverse-Z depth bits | face id */
    st_gpu_buffer queue; /* the big faces: header, faces, jobs */
    uint32_t job_cap;
    VkPipeline occlusion_pipeline;
    st_gpu_buffer cells;  /* the occlusion cells: per 8 × 8 pixels, the farthest depth bits drawn so far */
    bool counting;        /* the shaders count the frame's work (st_paint_compute_count) */
    VkPipeline count_pipeline, count_big_pipeline; /* the bars and big passes that count it (made by
                                                      st_paint_compute_count): pipelines of their own, so the
                                                      frames' passes carry no counters */
    /* this frame's level-0 tiles within each pass's ring (the later passes' boundaries in the tile list) */
    uint32_t pass_tiles[PAINT_MAX_PASSES];
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    st_gpu_buffer indices; /* the 36 corner indices of the two bars' camera-facing faces */
    st_gpu_buffer tiles;   /* this frame's tile list, host-visible (frames are serial) */
    uint32_t tile_capacity;
    /* per level tile: the highest top (the frustum test's box is [0, that]) and whether any pair is dual
     * (else the shader skips the slab bar's corners without reading the terrain) */
    uint8_t *tile_hi, *tile_dual;
    uint32_t tiles_x, tiles_y;
    /* CPU scratch: the frame's tiles by level of detail, nearest first */
    paint_tile *lists[PAINT_MAX_LOD + 1];
    uint32_t list_capacity;
    uint32_t counts[PAINT_MAX_LOD + 1]; /* this frame's tiles per level */
} paint_state;

/* ---- per-tile heights ------------------------------------------------------------------------------- */
static st_result paint_level_updated(st_renderer *r, void *state, st_rect rect, st_error *err) {
    (void)err;
    paint_state *s = state;
    const st_level *l = r->engine->level;
    if (st_rect_empty(rect)) return ST_OK;
    uint32_t tw = l->width / s->tiles_x, th = l->height / s->tiles_y;
    for (uint32_t ty = (uint32_t)rect.y0 / th; ty <= (uint32_t)(rect.y1 - 1) / th; ty++)
        for (uint32_t tx = (uint32_t)rect.x0 / tw; tx <= (uint32_t)(rect.x1 - 1) / tw; tx++) {
            uint8_t hi = 0, dual = 0; /* max of every height byte: a floor, a single column or a slab top */
            for (uint32_t y = ty * th; y < (ty + 1) * th; y++) {
                const uint8_t *row = st_level_height_row(l, y) + tx * tw;
                const uint8_t *meta = st_level_meta_row(l, y) + tx * tw;
                for (uint32_t x = 0; x < tw; x++) hi = row[x] > hi ? row[x] : hi;
                for (uint32_t x = 0; x < tw; x += 2) dual |= meta[x] & ST_META_DUAL; /* the even texel decides */
            }
            s->tile_hi[ty * s->tiles_x + tx] = hi;
            s->tile_dual[ty * s->tiles_x + tx] = dual ? 1 : 0;
        }
    return ST_OK;
}

/* ---- creation ---------------------------------------------------------------------------------------- */
static void paint_destroy(st_renderer *r, void *state) {
    paint_state *s = state;
    st_gpu *gpu = r->engine->gpu;
    if (s->pipeline) vkDestroyPipeline(gpu->device, s->pipeline, NULL);
    if (s->big_pipeline) vkDestroyPipeline(gpu->device, s->big_pipeline, NULL);
    if (s->resolve_pipeline) vkDestroyPipeline(gpu->device, s->resolve_pipeline, NULL);
    if (s->occlusion_pipeline) vkDestroyPipeline(gpu->device, s->occlusion_pipeline, NULL);
    if (s->count_pipeline) vkDestroyPipeline(gpu->device, s->count_pipeline, NULL);
    if (s->count_big_pipeline) vkDestroyPipeline(gpu->device, s->count_big_pipeline, NULL);
    if (s->layout) vkDestroyPipelineLayout(gpu->device, s->layout, NULL);
    if (s->set_layout) vkDestroyDescriptorSetLayout(gpu->device, s->set_layout, NULL);
    if (s->targets_layout) vkDestroyDescriptorSetLayout(gpu->device, s->targets_layout, NULL);
    st_gpu_buffer_destroy(gpu, &s->vis);
    st_gpu_buffer_destroy(gpu, &s->queue);
    st_gpu_buffer_destroy(gpu, &s->cells);
    st_gpu_buffer_destroy(gpu, &s->indices);
    st_gpu_buffer_destroy(gpu, &s->tiles);
    for (uint32_t k = 0; k <= PAINT_MAX_LOD; k++) free(s->lists[k]);
    free(s->tile_hi);
    free(s->tile_dual);
    st_deferred_destroy(r, &s->gbuffer);
    free(s);
}

/* Binding 0 of the method's set: the frame's tile list, read by the vertex shader (compute: the splat passes). */
static st_gpu_binding tiles_binding(const paint_state *s) {
    return (st_gpu_binding){.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                            .stages = s->compute ? VK_SHADER_STAGE_COMPUTE_BIT : VK_SHADER_STAGE_VERTEX_BIT,
                            .buffer = s->tiles.buffer};
}

/* Makes the tile buffer hold at least n tiles. Safe inside record: the previous frame has completed
 * (st_renderer_draw waits for it) and the set is not yet bound in this one. */
static st_result ensure_tiles(st_renderer *r, paint_state *s, uint32_t n, st_error *err) {
    if (n <= s->tile_capacity && n <= s->list_capacity) return ST_OK;
    uint32_t cap = s->tile_capacity ? s->tile_capacity : 1024;
    while (cap < n) cap *= 2;
    st_gpu *gpu = r->engine->gpu;
    st_gpu_buffer_destroy(gpu, &s->tiles);
    s->tile_capacity = 0;
    st_result res = st_gpu_buffer_create(gpu, (VkDeviceSize)cap * sizeof(paint_tile), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                         true, &s->tiles, err);
    if (res) return res;
    for (uint32_t k = 0; k <= PAINT_MAX_LOD; k++) {
        paint_tile *p = realloc(s->lists[k], (size_t)cap * sizeof *p);
        if (!p) return st_error_set(err, ST_ERR_NOMEM, "out of memory (paint tile lists)");
        s->lists[k] = p;
    }
    s->tile_capacity = s->list_capacity = cap;
    st_gpu_binding b = tiles_binding(s);
    st_gpu_set_write(gpu, s->set, &b, 1);
    return ST_OK;
}

static st_result create_common(st_renderer *r, void **out, bool plain, bool compute, st_error *err) {
    paint_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->plain = plain;
    s->compute = compute;
    st_gpu *gpu = r->engine->gpu;
    const st_level *l = r->engine->level;
    s->tiles_x = l->width < PAINT_TILE ? 1 : l->width / PAINT_TILE;
    s->tiles_y = l->height < PAINT_TILE ? 1 : l->height / PAINT_TILE;
    s->tile_hi = malloc((size_t)s->tiles_x * s->tiles_y);
    s->tile_dual = malloc((size_t)s->tiles_x * s->tiles_y);
    if (!s->tile_hi || !s->tile_dual) return st_error_set(err, ST_ERR_NOMEM, "out of memory (paint height tiles)");
    st_result res = paint_level_updated(r, s, (st_rect){0, 0, (int32_t)l->width, (int32_t)l->height}, err);
    if (res) return res;

    /* corner bit k: 0 = the camera side of axis k. The three faces through corner 0, two triangles each,
     * for the floor bar (corners 0..7) and the slab bar (8..15). */
    static const uint16_t faces[18] = {0, 2, 6, 0, 6, 4,  /* x face: y, z vary */
                                       0, 1, 5, 0, 5, 4,  /* y face */
                                       0, 1, 3, 0, 3, 2}; /* z face */
    res = st_gpu_buffer_create(gpu, 36 * sizeof(uint16_t), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, true, &s->indices, err);
    if (res) return res;
    uint16_t *idx = s->indices.mapped;
    for (int i = 0; i < 18; i++) {
        idx[i] = faces[i];
        idx[18 + i] = (uint16_t)(faces[i] + 8);
    }

    /* set 1: the tile list (raster: for the vertex shader); compute also the visibility buffer and the queue,
     * bound once the compute variant has made them */
    st_gpu_binding b[4] = {tiles_binding(s), tiles_binding(s), tiles_binding(s), tiles_binding(s)};
    res = st_gpu_set_layout(gpu, b, compute ? 4 : 1, &s->set_layout, err);
    if (!res) res = st_renderer_alloc_set(r, s->set_layout, &s->set, err);
    if (!res) res = ensure_tiles(r, s, 1024, err);
    if (res || compute) return res; /* the compute variant makes its own pipelines */
    s->deferred = st_deferred_wanted(r);
    if (s->deferred) res = st_deferred_create(r, &(st_deferred_desc){0}, &s->gbuffer, err);
    if (!res) res = st_renderer_pipeline_layout(r, &s->set_layout, 1, sizeof(paint_push), &s->layout, err);
    if (res) return res;
    st_gpu_graphics_desc d = {.vertex = "paint.vert",
                              .fragment = s->deferred ? "paint_gbuffer.frag" : "paint.frag",
                              .layout = s->layout,
                              .color_format = s->deferred ? s->gbuffer.point.format : r->color.format,
                              .depth_format = r->depth.format,
                              .depth_write = true};
    return st_gpu_graphics_pipeline(gpu, &d, &s->pipeline, err);
}

static st_result paint_create(st_renderer *r, void **out, st_error *err) {
    return create_common(r, out, false, false, err);
}
static st_result paint_plain_create(st_renderer *r, void **out, st_error *err) {
    return create_common(r, out, true, false, err);
}

static st_result paint_compute_create(st_renderer *r, void **out, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    if (!gpu->int64_atomics)
        return st_error_set(err, ST_ERR_UNSUPPORTED,
                            "paint-compute needs 64-bit buffer atomics (shaderInt64 + shaderBufferInt64Atomics), "
                            "which %s lacks; use --method paint",
                            gpu->props.deviceName);
    st_result res = create_common(r, out, false, true, err);
    if (res) return res;
    paint_state *s = *out;
    /* The big faces' jobs (up to 64 × 256 pixels of a face's box): every face over about 256 pixels has at least
     * one, and near the eye (a floor seen from 12 units up, the ground under a slab) the hidden faces behind the
     * visible ones are as large, so they number about a quarter of the pixels at 1280×800 (more at larger sizes:
     * faces grow with the image); one job per two pixels holds them with room (16 bytes each: as much memory as the
     * visibility buffer), and an overflow is still drawn, in place, and counted (st_paint_compute_work). */
    uint64_t cap = (uint64_t)r->width * r->height / 2u;
    s->job_cap = (uint32_t)(cap < 4096u ? 4096u : cap);
    VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    res = st_gpu_buffer_create(gpu, (VkDeviceSize)r->width * r->height * 8, storage, false, &s->vis, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, ((VkDeviceSize)PAINT_QUEUE_HEADER + 4u * s->job_cap) * 4,
                                   storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false,
                                   &s->queue, err);
    VkDeviceSize cells =
        (VkDeviceSize)((r->width + PAINT_CELL - 1) / PAINT_CELL) * ((r->height + PAINT_CELL - 1) / PAINT_CELL);
    if (!res) res = st_gpu_buffer_create(gpu, cells * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false, &s->cells, err);
    if (res) return res;
    st_gpu_binding b[4] = {tiles_binding(s), tiles_binding(s), tiles_binding(s), tiles_binding(s)};
    b[1].buffer = s->vis.buffer;
    b[2].buffer = s->queue.buffer;
    b[3].buffer = s->cells.buffer;
    st_gpu_set_write(gpu, s->set, b, 4);
    res = st_renderer_storage_targets_layout(r, &s->targets_layout, &s->targets_set, err);
    VkDescriptorSetLayout sets[2] = {s->set_layout, s->targets_layout};
    if (!res) res = st_renderer_pipeline_layout(r, sets, 2, sizeof(paint_compute_push), &s->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "paint_compute.comp", s->layout, &s->pipeline, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "paint_big.comp", s->layout, &s->big_pipeline, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "paint_resolve.comp", s->layout, &s->resolve_pipeline, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "paint_occlusion.comp", s->layout, &s->occlusion_pipeline, err);
    return res;
}

/* ---- the frame's tiles ------------------------------------------------------------------------------- */
static uint32_t tile_lod(const st_view *v, const float lo[3], const float hi[3]) {
    /* a block of 2^k cells projects to about 2^k·focal/d pixels at distance d (nearest point of the box) */
    float d2 = 0;
    for (int a = 0; a < 3; a++) {
        float e = v->eye[a] < lo[a] ? lo[a] - v->eye[a] : v->eye[a] > hi[a] ? v->eye[a] - hi[a] : 0.0f;
        d2 += e * e;
    }
    float cells_per_px = sqrtf(d2) / v->focal_px;
    uint32_t k = 0;
    while (k < PAINT_MAX_LOD && (float)(2u << k) <= cells_per_px) k++;
    return k;
}

/* The rings of tiles around the camera's the first passes of paint-compute draw: within 2, 8 and 32 tiles (32 to
 * 512 texels), each pass's tiles hiding most of the next's at a low camera. */
static int64_t pass_ring(uint32_t p) { return (int64_t)2 << (2 * p); }

/* The frame's tiles, nearest first, into s->lists by level of detail (s->counts) and then into the GPU tile
 * list, level 0 first; base[k]: where level k's tiles start there. Returns how many tiles in all. */
static uint32_t list_tiles(st_renderer *r, paint_state *s, uint32_t base[PAINT_MAX_LOD + 1]) {
    st_view v = r->view;
    float b[4];
    bool any = st_view_ground_bounds(&v, 0.0f, PAINT_TOP, b);
    memset(s->counts, 0, sizeof s->counts);
    memset(s->pass_tiles, 0, sizeof s->pass_tiles);
    if (any) {
        const float T = (float)PAINT_TILE;
        int64_t tx0 = (int64_t)floorf(b[0] / T), tx1 = (int64_t)floorf(b[2] / T);
        int64_t ty0 = (int64_t)floorf(b[1] / T), ty1 = (int64_t)floorf(b[3] / T);
        /* along an axis that does not wrap, only the level's own tiles: past its edge there is nothing */
        const st_level *l = r->engine->level;
        if (!l->wrap_x) tx0 = tx0 < 0 ? 0 : tx0, tx1 = tx1 >= (int64_t)s->tiles_x ? (int64_t)s->tiles_x - 1 : tx1;
        if (!l->wrap_y) ty0 = ty0 < 0 ? 0 : ty0, ty1 = ty1 >= (int64_t)s->tiles_y ? (int64_t)s->tiles_y - 1 : ty1;
        if (tx1 < tx0 || ty1 < ty0) any = false, tx1 = tx0 - 1, ty1 = ty0 - 1; /* the view misses the level */
        uint64_t total = (uint64_t)(tx1 - tx0 + 1) * (uint64_t)(ty1 - ty0 + 1);
        st_error err = {0};
        if (total > (1u << 26) || ensure_tiles(r, s, (uint32_t)total, &err)) {
            /* nothing is drawn rather than a part: the method cannot report errors from a frame */
            ST_WARN("paint: no room for %llu tiles: %s", (unsigned long long)total, err.message);
            any = false;
        }
        st_frustum f = st_view_frustum(&v);
        int64_t cx = (int64_t)floorf(v.eye[0] / T), cy = (int64_t)floorf(v.eye[1] / T);
        cx = cx < tx0 ? tx0 : cx > tx1 ? tx1 : cx;
        cy = cy < ty0 ? ty0 : cy > ty1 ? ty1 : cy;
        int64_t rings = 0;
        int64_t ext[4] = {cx - tx0, tx1 - cx, cy - ty0, ty1 - cy};
        for (int k = 0; k < 4; k++) rings = ext[k] > rings ? ext[k] : rings;
        /* Chebyshev rings around the camera's tile: nearest first, so early depth tests reject what the
         * near tiles cover */
        for (int64_t ring = 0; any && ring <= rings; ring++) {
            for (int64_t ty = cy - ring; ty <= cy + ring; ty++) {
                if (ty < ty0 || ty > ty1) continue;
                bool edge_row = ty == cy - ring || ty == cy + ring;
                for (int64_t tx = cx - ring; tx <= cx + ring; tx += edge_row ? 1 : 2 * ring) {
                    if (tx >= tx0 && tx <= tx1) {
                        uint32_t wx = (uint32_t)(((tx % s->tiles_x) + s->tiles_x) % s->tiles_x);
                        uint32_t wy = (uint32_t)(((ty % s->tiles_y) + s->tiles_y) % s->tiles_y);
                        float lo[3] = {(float)tx * T, (float)ty * T, 0.0f};
                        float hi[3] = {lo[0] + T, lo[1] + T, (float)s->tile_hi[wy * s->tiles_x + wx]};
                        if (s->plain || st_frustum_meets_box(&f, lo, hi)) {
                            uint32_t k = s->plain ? 0 : tile_lod(&v, lo, hi);
                            float dx = v.eye[0] - (lo[0] + 0.5f * T), dy = v.eye[1] - (lo[1] + 0.5f * T);
                            /* cells from the camera outward: start at the camera's end of each axis and
                             * walk rows along the axis the camera is more off */
                            int32_t flags = (dx > 0 ? 1 : 0) | (dy > 0 ? 2 : 0) | (fabsf(dx) > fabsf(dy) ? 4 : 0) |
                                            (s->tile_dual[wy * s->tiles_x + wx] ? 8 : 0);
                            s->lists[k][s->counts[k]++] = (paint_tile){
                                (int32_t)(tx * (int64_t)PAINT_TILE), (int32_t)(ty * (int64_t)PAINT_TILE), flags,
                                s->tile_hi[wy * s->tiles_x + wx]};
                        }
                    }
                    if (ring == 0) break;
                }
            }
            /* the level-0 tiles within ring pass_ring(p) end pass p */
            for (uint32_t p = 0; p + 1 < PAINT_MAX_PASSES; p++)
                if (ring <= pass_ring(p)) s->pass_tiles[p] = s->counts[0];
        }
    }
    /* the lists go to the GPU nearest level first; host writes to the mapped buffer before the submit
     * are visible to the frame without a barrier (queue submission orders host writes) */
    uint32_t n = 0;
    paint_tile *gpu_tiles = s->tiles.mapped;
    for (uint32_t k = 0; k <= PAINT_MAX_LOD; k++) {
        base[k] = n;
        if (s->counts[k]) memcpy(gpu_tiles + n, s->lists[k], s->counts[k] * sizeof(paint_tile));
        n += s->counts[k];
    }
    return n;
}

static void paint_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    paint_state *s = state;
    uint32_t base[PAINT_MAX_LOD + 1];
    uint32_t n = list_tiles(r, s, base);
    st_renderer_pass_begin(r, cmd, "bars");
    if (s->deferred) st_deferred_begin(r, &s->gbuffer, cmd);
    else st_renderer_begin_raster(r, cmd);
    if (n) {
        VkDescriptorSet sets[2] = {r->globals_set, s->set};
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 2, sets, 0, NULL);
        vkCmdBindIndexBuffer(cmd, s->indices.buffer, 0, VK_INDEX_TYPE_UINT16);
        for (uint32_t k = 0; k <= PAINT_MAX_LOD; k++) {
            if (!s->counts[k]) continue;
            paint_push pc = {.tile_base = base[k], .lod = k, .hidden_sides = !s->plain};
            uint32_t blocks = (PAINT_TILE >> k) * (PAINT_TILE >> k);
            vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof pc, &pc);
            vkCmdDrawIndexed(cmd, 36, s->counts[k] * blocks, 0, 0, 0);
        }
    }
    if (s->deferred) {
        st_deferred_resolve(r, &s->gbuffer, cmd); /* closes "bars" */
        return;
    }
    st_renderer_end_raster(r, cmd);
    st_renderer_pass_end(r, cmd);
}

/* Every barrier between paint-compute's passes: the earlier pass's storage writes (atomics, the queue, the cells)
 * before the next one's reads, writes and indirect dispatch. */
static void compute_barrier(VkCommandBuffer cmd) {
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                              VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                                  VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
}

static void paint_compute_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    paint_state *s = state;
    uint32_t base[PAINT_MAX_LOD + 1];
    list_tiles(r, s, base);
    /* the instances (blocks) of every level of detail, in the raster variant's draw order */
    paint_compute_push pc = {.misc = {1, 0, s->job_cap, 0}};
    uint64_t total = 0;
    for (uint32_t k = 0; k <= PAINT_MAX_LOD; k++) {
        pc.tile_base[k] = base[k];
        pc.first[k] = (uint32_t)total;
        total += (uint64_t)s->counts[k] * (PAINT_TILE >> k) * (PAINT_TILE >> k);
    }
    if (total * 6 > UINT32_MAX) { /* the face ids would not fit 32 bits: nothing rather than a part */
        ST_WARN("paint-compute: %llu blocks exceed the face ids", (unsigned long long)total);
        total = 0;
    }
    pc.first[3] = (uint32_t)total;
    pc.phase[3] = (uint32_t)st_knob_get(&r->desc.knobs, &paint_compute_knobs[1]) - 1;
    pc.phase[3] = pc.phase[3] > 2 ? 0 : pc.phase[3];
    /* the passes' ends: the level-0 tiles of the first rings, then the rest; empty passes are left out */
    uint32_t passes = (uint32_t)st_knob_get(&r->desc.knobs, &paint_compute_knobs[0]);
    passes = passes < 1 ? 1 : passes > PAINT_MAX_PASSES ? PAINT_MAX_PASSES : passes;
    uint32_t ends[PAINT_MAX_PASSES], n = 0;
    for (uint32_t p = 0; p + 1 < passes; p++) {
        uint32_t e = s->pass_tiles[p] * PAINT_TILE * PAINT_TILE;
        if (e > (n ? ends[n - 1] : 0) && e < total) ends[n++] = e;
    }
    ends[n++] = (uint32_t)total;
    st_vis_raster v = {.vis = s->vis.buffer, .big_queue = s->queue.buffer, .big_split = 1,
                       .header_words = PAINT_QUEUE_HEADER};
    st_vis_raster_clear(r, &v, cmd);
    VkDescriptorSet sets[3] = {r->globals_set, s->set, s->targets_set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 3, sets, 0, NULL);
    for (uint32_t p = 0, from = 0; total && p < n; from = ends[p++]) {
        pc.phase[0] = from;
        pc.phase[1] = ends[p];
        pc.phase[2] = p > 0;
        uint32_t gx, gy;
        st_vis_raster_grid(ends[p] - from, &gx, &gy);
        pc.misc[1] = gx * 64;
        vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof pc, &pc);
        st_renderer_pass_next(r, cmd, "bars");
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->counting ? s->count_pipeline : s->pipeline);
        vkCmdDispatch(cmd, gx, gy, 1);
        compute_barrier(cmd);
        st_renderer_pass_next(r, cmd, "big");
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->counting ? s->count_big_pipeline : s->big_pipeline);
        vkCmdDispatchIndirect(cmd, s->queue.buffer, 0);
        compute_barrier(cmd);
        if (p + 1 < n) { /* the cells the next pass tests against, and its jobs after this one's */
            st_renderer_pass_next(r, cmd, "occlusion");
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->occlusion_pipeline);
            vkCmdDispatch(cmd, (r->width + PAINT_CELL * 8 - 1) / (PAINT_CELL * 8),
                          (r->height + PAINT_CELL * 8 - 1) / (PAINT_CELL * 8), 1);
            compute_barrier(cmd);
        }
    }
    st_renderer_pass_next(r, cmd, "resolve");
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->resolve_pipeline);
    vkCmdDispatch(cmd, (r->width + 7) / 8, (r->height + 7) / 8, 1);
    st_renderer_pass_end(r, cmd);
}

st_result st_paint_compute_work(st_renderer *r, st_paint_work *out, st_error *err) {
    if (r->ops != &st_method_paint_compute) return st_error_set(err, ST_ERR_INVALID, "not a paint-compute renderer");
    const paint_state *s = r->state;
    st_gpu *gpu = r->engine->gpu;
    uint32_t h[PAINT_QUEUE_HEADER]; /* the header's layout: paint_compute.glsl */
    st_result res = st_gpu_buffer_read(gpu, s->queue.buffer, 0, sizeof h, h, err);
    if (res) return res;
    *out = (st_paint_work){.most_pixels_per_invocation = h[5],
                           .big_faces = h[4],
                           .jobs = h[3],
                           .job_capacity = s->job_cap,
                           .jobs_in_place = h[6],
                           .counted = s->counting,
                           .blocks = h[8],
                           .tiles_hidden = h[9],
                           .faces = h[10],
                           .faces_hidden = h[11],
                           .tested = h[12],
                           .big_tested = h[13],
                           .atomics = h[14]};
    return ST_OK;
}

st_result st_paint_compute_count(st_renderer *r, bool on, st_error *err) {
    if (r->ops != &st_method_paint_compute) return st_error_set(err, ST_ERR_INVALID, "not a paint-compute renderer");
    paint_state *s = r->state;
    /* made on first use: the frames never need them */
    const uint32_t count_on = 1;
    st_gpu *gpu = r->engine->gpu;
    st_result res = ST_OK;
    if (on && !s->count_pipeline)
        res = st_gpu_compute_pipeline_spec(gpu, "paint_compute.comp", s->layout, &count_on, 1, &s->count_pipeline, err);
    if (on && !res && !s->count_big_pipeline)
        res = st_gpu_compute_pipeline_spec(gpu, "paint_big.comp", s->layout, &count_on, 1, &s->count_big_pipeline, err);
    if (!res) s->counting = on;
    return res;
}

static uint64_t paint_gpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const paint_state *s = state;
    return s->indices.size + s->tiles.size + s->vis.size + s->queue.size + s->cells.size +
           st_deferred_gpu_bytes(&s->gbuffer);
}

static uint64_t paint_cpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const paint_state *s = state;
    return 2ull * s->tiles_x * s->tiles_y + (uint64_t)(PAINT_MAX_LOD + 1) * s->list_capacity * sizeof(paint_tile);
}

const st_method_ops st_method_paint = {
    .info = {.name = "paint",
             .description = "camera-facing bar faces per ground cell, frustum-culled tiles, merged far cells",
             .compute = false},
    .targets = ST_TARGETS_RASTER,
    .create = paint_create,
    .destroy = paint_destroy,
    .record = paint_record,
    .level_updated = paint_level_updated,
    .gpu_bytes = paint_gpu_bytes,
    .cpu_bytes = paint_cpu_bytes,
    .target_usage = st_deferred_target_usage,
};

const st_method_ops st_method_paint_plain = {
    .info = {.name = "paint-plain",
             .description = "the paper's Painted footprint: every cell of the ground bounds, nearest first",
             .compute = false},
    .targets = ST_TARGETS_RASTER,
    .create = paint_plain_create,
    .destroy = paint_destroy,
    .record = paint_record,
    .level_updated = paint_level_updated,
    .gpu_bytes = paint_gpu_bytes,
    .cpu_bytes = paint_cpu_bytes,
    .target_usage = st_deferred_target_usage,
};

const st_method_ops st_method_paint_compute = {
    .info = {.name = "paint-compute",
             .description = "paint's bar faces rasterised in compute into a 64-bit visibility buffer",
             .compute = true,
             ST_METHOD_KNOBS(paint_compute_knobs)},
    .targets = ST_TARGETS_STORAGE,
    .create = paint_compute_create,
    .destroy = paint_destroy,
    .record = paint_compute_record,
    .level_updated = paint_level_updated,
    .gpu_bytes = paint_gpu_bytes,
    .cpu_bytes = paint_cpu_bytes,
};
