/* Sliced: N horizontal quads drawn as one instanced draw over the visible ground bounds; a fragment keeps
 * the terrain where its plane is SOLID. `slice` (default) places the planes per view over the heights
 * actually present in the bounds, nearest to the eye first, and refines each sample to the true surface
 * along the pixel's ray; `slice-plain` is the paper's variant (fixed planes over [0, 256], top first);
 * `slice-compute` rasterises `slice`'s planes in compute — each pixel walks its planes nearest first into a
 * visibility buffer, which a resolve shades — because raster throughput is tiny on some GPUs. */
#include <math.h>
#include <stdlib.h>

#include "render/methods/air_tables.h"
#include "render/methods/methods.h"

#define SLICE_TOP 256.0f /* nothing is solid above */
#define SLICE_TILE 64u   /* texels per side of the min/max height tiles */
#define SLICE_MAX_STEPS 64u /* refined: samples per band at most (each about a texel apart) */
/* compute: the finest look of the walk along a pixel's ray, as the slice_walk knob counts it (1 the texels, 2, 3, 4
 * the air tables' 4×4, 16×16 and 64×64 cells); the image is the same at each, the fetches are not
 * (st_slice_compute_work counts them); the 16×16 cells measured fastest on the H200 (0.501 ms against 0.559 at
 * the 4×4, 0.948 at texels, 0.740 at 64×64: `strata compare --edits --methods slice-compute --frames 20`) */
#define SLICE_WALK 3u

/* The quality knob of both variants: the number of slices. */
static const st_method_knob slice_knobs[] = {{.name = "slices",
                                              .label = "slices",
                                              .kind = ST_KNOB_COUNT,
                                              .offset = offsetof(st_method_knobs, slices),
                                              .default_value = 512,
                                              .min = 16,
                                              .max = 8192,
                                              .sweep_count = 5,
                                              .sweep = {32, 64, 128, 256, 512}}};
/* slice-compute's: the slices, and the finest look of the air walk (kept for measuring: which one is cheapest
 * depends on the GPU's balance of fetches and branches) */
static const st_method_knob slice_compute_knobs[] = {slice_knobs[0],
                                                     {.name = "slice_walk",
                                                      .label = "slice air walk",
                                                      .kind = ST_KNOB_COUNT,
                                                      .offset = offsetof(st_method_knobs, slice_walk),
                                                      .default_value = SLICE_WALK,
                                                      .min = 1,
                                                      .max = 4}};

/* std430/push-constant mirror of SlicePush in slice.vert / slice.frag */
typedef struct slice_push {
    float bounds[4];
    float z_below, z_above, dz, pad0;
    uint32_t n_below, n_above, max_steps, pad;
} slice_push;

/* Mirror of SliceComputePush in shaders/common/slice_compute.glsl */
typedef struct slice_compute_push {
    slice_push planes;
    uint32_t flags; /* bit 2: bands fetch their samples in the air too; bits 3..4: the walk's finest look (0 texels,
                       1..3 the tables' cells) */
    uint32_t pad[3];
} slice_compute_push;

#define SLICE_WORK_WORDS 6u /* pixels, band samples, bands, walks, cells, texels (slice_compute.comp) */

typedef struct slice_state {
    bool plain, compute;
    VkPipelineLayout layout;
    VkPipeline pipeline; /* raster: the planes; compute: the per-pixel plane walk */
    /* raster, textured shading: the planes write their points into the G-buffer, one resolve shades them */
    bool deferred;
    st_deferred gbuffer;
    /* compute */
    VkPipeline resolve_pipeline;
    VkPipeline count_pipeline; /* compute: the walk that counts its work (st_slice_compute_work, which makes it), a
                                  pipeline of its own so the frames' walk carries no counters */
    VkDescriptorSetLayout buffers_layout, targets_layout;
    VkDescriptorSet buffers_set, targets_set;
    st_gpu_buffer vis; /* per pixel: the hit along the ray and the plane's height when on a plane */
    st_air_tables air; /* what lets a pixel's walk pass the planes whose bands lie in the air */
    bool walk_texels;  /* the next frame's walk looks down to texels whatever the knob (for tests) */
    bool count;        /* the next frame counts its work into `work` */
    bool band_full;    /* the next frame's bands fetch even the samples the walk found in the air (for tests) */
    st_gpu_buffer work; /* SLICE_WORK_WORDS counters */
    /* Per tile of SLICE_TILE² texels: the lowest floor and the highest top (conservative: min and max of
     * the pair's two height bytes), so a view's planes span only the heights its bounds hold. */
    uint8_t *tile_lo, *tile_hi;
    uint32_t tile_w, tile_h, tiles_x, tiles_y;
} slice_state;

static void tile_stats(slice_state *s, const st_level *l, uint32_t tx, uint32_t ty) {
    uint8_t lo = 255, hi = 0;
    for (uint32_t y = ty * s->tile_h; y < (ty + 1) * s->tile_h; y++) {
        const uint8_t *row = st_level_height_row(l, y);
        for (uint32_t x = tx * s->tile_w; x < (tx + 1) * s->tile_w; x++) {
            uint8_t h = row[x];
            lo = h < lo ? h : lo;
            hi = h > hi ? h : hi;
        }
    }
    s->tile_lo[ty * s->tiles_x + tx] = lo;
    s->tile_hi[ty * s->tiles_x + tx] = hi;
}

static st_result slice_level_updated(st_renderer *r, void *state, st_rect rect, st_error *err) {
    (void)err;
    slice_state *s = state;
    if (s->compute) st_air_tables_mark(&s->air, rect);
    if (!s->tile_lo || st_rect_empty(rect)) return ST_OK;
    for (uint32_t ty = (uint32_t)rect.y0 / s->tile_h; ty <= (uint32_t)(rect.y1 - 1) / s->tile_h; ty++)
        for (uint32_t tx = (uint32_t)rect.x0 / s->tile_w; tx <= (uint32_t)(rect.x1 - 1) / s->tile_w; tx++)
            tile_stats(s, r->engine->level, tx, ty);
    return ST_OK;
}

static void slice_destroy(st_renderer *r, void *state) {
    slice_state *s = state;
    VkDevice dev = r->engine->gpu->device;
    if (s->pipeline) vkDestroyPipeline(dev, s->pipeline, NULL);
    if (s->resolve_pipeline) vkDestroyPipeline(dev, s->resolve_pipeline, NULL);
    if (s->count_pipeline) vkDestroyPipeline(dev, s->count_pipeline, NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->buffers_layout) vkDestroyDescriptorSetLayout(dev, s->buffers_layout, NULL);
    if (s->targets_layout) vkDestroyDescriptorSetLayout(dev, s->targets_layout, NULL);
    st_gpu_buffer_destroy(r->engine->gpu, &s->vis);
    st_air_tables_destroy(r, &s->air);
    st_gpu_buffer_destroy(r->engine->gpu, &s->work);
    st_deferred_destroy(r, &s->gbuffer);
    free(s->tile_lo);
    free(s->tile_hi);
    free(s);
}

static st_result create_common(st_renderer *r, void **out, bool plain, bool compute, st_error *err) {
    slice_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->plain = plain;
    const st_level *l = r->engine->level;
    s->tile_w = l->width < SLICE_TILE ? l->width : SLICE_TILE;
    s->tile_h = l->height < SLICE_TILE ? l->height : SLICE_TILE;
    s->tiles_x = l->width / s->tile_w;
    s->tiles_y = l->height / s->tile_h;
    size_t n = (size_t)s->tiles_x * s->tiles_y;
    st_result res = ST_OK;
    if (!plain) { /* the paper's variant spans [0, 256] whatever the view holds */
        s->tile_lo = malloc(n);
        s->tile_hi = malloc(n);
        if (!s->tile_lo || !s->tile_hi) return st_error_set(err, ST_ERR_NOMEM, "out of memory (slice height tiles)");
        res = slice_level_updated(r, s, (st_rect){0, 0, (int32_t)l->width, (int32_t)l->height}, err);
    }
    if (res || compute) return res; /* the compute variant makes its own pipelines */
    s->deferred = st_deferred_wanted(r);
    if (s->deferred) res = st_deferred_create(r, &(st_deferred_desc){0}, &s->gbuffer, err);
    if (!res) res = st_renderer_pipeline_layout(r, NULL, 0, sizeof(slice_push), &s->layout, err);
    if (res) return res;
    const char *frag = plain ? (s->deferred ? "slice_plain_gbuffer.frag" : "slice_plain.frag")
                             : (s->deferred ? "slice_gbuffer.frag" : "slice.frag");
    st_gpu_graphics_desc d = {.vertex = "slice.vert",
                              .fragment = frag,
                              .layout = s->layout,
                              .color_format = s->deferred ? s->gbuffer.point.format : r->color.format,
                              .depth_format = r->depth.format,
                              /* the paper's Less; refined samples may tie across planes, either wins */
                              .depth_compare = plain ? VK_COMPARE_OP_GREATER : VK_COMPARE_OP_GREATER_OR_EQUAL,
                              .depth_write = true};
    return st_gpu_graphics_pipeline(r->engine->gpu, &d, &s->pipeline, err);
}

static st_result slice_compute_create(st_renderer *r, void **out, st_error *err) {
    st_result res = create_common(r, out, false, true, err);
    if (res) return res;
    slice_state *s = *out;
    st_gpu *gpu = r->engine->gpu;
    s->compute = true;
    res = st_gpu_buffer_create(gpu, (VkDeviceSize)r->width * r->height * 8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false,
                               &s->vis, err);
    if (!res) res = st_air_tables_create(r, &s->air, err); /* the whole level's, before the first frame */
    if (!res)
        res = st_gpu_buffer_create(gpu, SLICE_WORK_WORDS * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false, &s->work, err);
    if (res) return res;
    /* set 1: the visibility buffer, the air tables and the work counters */
    st_gpu_binding b[3] = {
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT, .buffer = s->vis.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT,
         .buffer = s->air.buffer.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT, .buffer = s->work.buffer}};
    res = st_renderer_set_create(r, b, 3, &s->buffers_layout, &s->buffers_set, err);
    if (res) return res;
    res = st_renderer_storage_targets_layout(r, &s->targets_layout, &s->targets_set, err);
    VkDescriptorSetLayout sets[2] = {s->buffers_layout, s->targets_layout};
    if (!res) res = st_renderer_pipeline_layout(r, sets, 2, sizeof(slice_compute_push), &s->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "slice_compute.comp", s->layout, &s->pipeline, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "slice_resolve.comp", s->layout, &s->resolve_pipeline, err);
    return res;
}

static st_result slice_create(st_renderer *r, void **out, st_error *err) {
    return create_common(r, out, false, false, err);
}
static st_result slice_plain_create(st_renderer *r, void **out, st_error *err) {
    return create_common(r, out, true, false, err);
}

/* Lowest floor and highest top over the tiles that meet the bounds (wrapping where the level does; along an
 * axis that does not, the bounds are already cut to the level). */
static void height_range(const slice_state *s, const st_level *level, const float b[4], float *lo, float *hi) {
    int64_t tx0 = (int64_t)floorf(b[0] / (float)s->tile_w), tx1 = (int64_t)floorf(b[2] / (float)s->tile_w);
    int64_t ty0 = (int64_t)floorf(b[1] / (float)s->tile_h), ty1 = (int64_t)floorf(b[3] / (float)s->tile_h);
    if (!level->wrap_x && tx1 >= (int64_t)s->tiles_x) tx1 = s->tiles_x - 1; /* the bounds' far edge is W */
    if (!level->wrap_y && ty1 >= (int64_t)s->tiles_y) ty1 = s->tiles_y - 1;
    /* a view wider than the level meets every tile: no need to visit any twice */
    if (tx1 - tx0 >= (int64_t)s->tiles_x) tx0 = 0, tx1 = s->tiles_x - 1;
    if (ty1 - ty0 >= (int64_t)s->tiles_y) ty0 = 0, ty1 = s->tiles_y - 1;
    uint8_t l = 255, h = 0;
    for (int64_t ty = ty0; ty <= ty1; ty++) {
        uint32_t row = (uint32_t)(((ty % s->tiles_y) + s->tiles_y) % s->tiles_y) * s->tiles_x;
        for (int64_t tx = tx0; tx <= tx1; tx++) {
            uint32_t i = row + (uint32_t)(((tx % s->tiles_x) + s->tiles_x) % s->tiles_x);
            l = s->tile_lo[i] < l ? s->tile_lo[i] : l;
            h = s->tile_hi[i] > h ? s->tile_hi[i] : h;
        }
    }
    *lo = (float)l;
    *hi = (float)h;
}

/* The bounds cut to the level along its axes that do not wrap (past the edge there is nothing to draw);
 * false when nothing is left. */
static bool clip_to_level(const st_level *l, float b[4]) {
    if (!l->wrap_x) b[0] = fmaxf(b[0], 0.0f), b[2] = fminf(b[2], (float)l->width);
    if (!l->wrap_y) b[1] = fmaxf(b[1], 0.0f), b[3] = fminf(b[3], (float)l->height);
    return b[0] < b[2] && b[1] < b[3];
}

/* The frame's planes (false when the view holds none). */
static bool slice_planes(st_renderer *r, const slice_state *s, slice_push *out) {
    st_view v = r->view;
    const st_level *l = r->engine->level;
    uint32_t n = (uint32_t)st_knob_get(&r->desc.knobs, &slice_knobs[0]);
    slice_push pc = {.max_steps = SLICE_MAX_STEPS};
    bool any = st_view_ground_bounds(&v, 0.0f, SLICE_TOP, pc.bounds) && clip_to_level(l, pc.bounds);
    if (any && s->plain) {
        /* z = Z − (k+1)·Z/N, k = 0..N−1, top first */
        pc.dz = SLICE_TOP / (float)n;
        pc.z_below = SLICE_TOP - pc.dz;
        pc.n_below = n;
    } else if (any) {
        float lo, hi;
        height_range(s, l, pc.bounds, &lo, &hi);
        any = st_view_ground_bounds(&v, lo, hi, pc.bounds) && clip_to_level(l, pc.bounds);
        pc.dz = fmaxf(hi - lo, 1.0f) / (float)n;
        /* Planes run away from the eye's height in both directions; the first sits just off the eye, where
         * it is seen edge-on and its band starts at once, so no stretch of a ray goes unsampled. */
        float eps = 0.01f * pc.dz, ez = v.eye[2];
        pc.z_below = fminf(ez - eps, hi);
        pc.z_above = fmaxf(ez + eps, lo);
        if (pc.z_below >= lo) pc.n_below = (uint32_t)floorf((pc.z_below - lo) / pc.dz) + 1;
        if (pc.z_above <= hi) pc.n_above = (uint32_t)floorf((hi - pc.z_above) / pc.dz) + 1;
    }
    *out = pc;
    return any && pc.n_below + pc.n_above > 0;
}

static void slice_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    slice_state *s = state;
    slice_push pc;
    bool any = slice_planes(r, s, &pc);
    st_renderer_pass_begin(r, cmd, "slices");
    if (s->deferred) st_deferred_begin(r, &s->gbuffer, cmd);
    else st_renderer_begin_raster(r, cmd);
    if (any) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 1, &r->globals_set, 0, NULL);
        vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof pc, &pc);
        vkCmdDraw(cmd, 6, pc.n_below + pc.n_above, 0, 0);
    }
    if (s->deferred) {
        st_deferred_resolve(r, &s->gbuffer, cmd); /* closes "slices" */
        return;
    }
    st_renderer_end_raster(r, cmd);
    st_renderer_pass_end(r, cmd);
}

static void slice_compute_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    slice_state *s = state;
    slice_compute_push pc = {0};
    bool any = slice_planes(r, s, &pc.planes);
    if (!any) pc.planes.n_below = pc.planes.n_above = 0; /* every pixel walks no plane: all sky */
    st_air_tables_record(r, &s->air, cmd);
    double walk = st_knob_get(&r->desc.knobs, &slice_compute_knobs[1]);
    uint32_t finest = s->walk_texels ? 0u : (uint32_t)fmin(fmax(walk, 1.0), 4.0) - 1u;
    pc.flags = (s->band_full ? 4u : 0u) | (finest << 3);
    st_renderer_pass_begin(r, cmd, "slices");
    if (s->count) { /* only when asked: the counters are a test's, not the frame's */
        vkCmdFillBuffer(cmd, s->work.buffer, 0, VK_WHOLE_SIZE, 0);
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                  VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    VkDescriptorSet sets[3] = {r->globals_set, s->buffers_set, s->targets_set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 3, sets, 0, NULL);
    vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof pc, &pc);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->count ? s->count_pipeline : s->pipeline);
    vkCmdDispatch(cmd, (r->width + 7) / 8, (r->height + 7) / 8, 1);
    /* every pixel's hit before the resolve reads it (and the previous frame's resolve read the buffer before
     * this walk wrote it: frames are waited on) */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                   VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    st_renderer_pass_next(r, cmd, "resolve");
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->resolve_pipeline);
    vkCmdDispatch(cmd, (r->width + 7) / 8, (r->height + 7) / 8, 1);
    st_renderer_pass_end(r, cmd);
}

st_result st_slice_compute_work(st_renderer *r, const st_camera *camera, bool walk_texels, bool band_skip,
                                st_slice_work *out, st_error *err) {
    if (r->ops != &st_method_slice_compute) return st_error_set(err, ST_ERR_INVALID, "not a slice-compute renderer");
    slice_state *s = r->state;
    /* made on first use: the frames never need it */
    const uint32_t count_on = 1;
    if (!s->count_pipeline) {
        st_result made = st_gpu_compute_pipeline_spec(r->engine->gpu, "slice_compute.comp", s->layout, &count_on, 1,
                                                      &s->count_pipeline, err);
        if (made) return made;
    }
    bool had = s->walk_texels;
    s->walk_texels = walk_texels;
    s->band_full = !band_skip;
    s->count = true;
    st_result res = st_renderer_draw(r, camera, NULL, err);
    s->count = s->band_full = false;
    s->walk_texels = had;
    st_gpu *gpu = r->engine->gpu;
    uint32_t w[SLICE_WORK_WORDS];
    if (!res) res = st_gpu_buffer_read(gpu, s->work.buffer, 0, sizeof w, w, err);
    if (res) return res;
    *out = (st_slice_work){.pixels = w[0], .samples = w[1], .bands = w[2], .walks = w[3], .cells = w[4], .texels = w[5]};
    return ST_OK;
}

static uint64_t slice_cpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const slice_state *s = state;
    return s->tile_lo ? 2ull * s->tiles_x * s->tiles_y : 0;
}

static uint64_t slice_gpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const slice_state *s = state;
    /* raster: the G-buffer of textured frames, the quads come from the vertex and instance indices; compute: the
     * visibility buffer and the max tables */
    return (uint64_t)s->vis.size + s->air.buffer.size + st_deferred_gpu_bytes(&s->gbuffer);
}

const st_method_ops st_method_slice = {
    .info = {.name = "slice",
             .description = "horizontal slices over the view's height range, refined to the surface along each ray",
             .compute = false,
             ST_METHOD_KNOBS(slice_knobs)},
    .targets = ST_TARGETS_RASTER,
    .create = slice_create,
    .destroy = slice_destroy,
    .record = slice_record,
    .level_updated = slice_level_updated,
    .gpu_bytes = slice_gpu_bytes,
    .cpu_bytes = slice_cpu_bytes,
    .target_usage = st_deferred_target_usage,
};

const st_method_ops st_method_slice_plain = {
    .info = {.name = "slice-plain",
             .description = "the paper's Sliced: N fixed slices over [0, 256], top first",
             .compute = false,
             ST_METHOD_KNOBS(slice_knobs)},
    .targets = ST_TARGETS_RASTER,
    .create = slice_plain_create,
    .destroy = slice_destroy,
    .record = slice_record,
    .level_updated = slice_level_updated,
    .gpu_bytes = slice_gpu_bytes,
    .cpu_bytes = slice_cpu_bytes,
    .target_usage = st_deferred_target_usage,
};

const st_method_ops st_method_slice_compute = {
    .info = {.name = "slice-compute",
             .description = "slice's planes rasterised in compute: each pixel walks its planes nearest first",
             .compute = true,
             ST_METHOD_KNOBS(slice_compute_knobs)},
    .targets = ST_TARGETS_STORAGE,
    .create = slice_compute_create,
    .destroy = slice_destroy,
    .record = slice_compute_record,
    .level_updated = slice_level_updated,
    .gpu_bytes = slice_gpu_bytes,
    .cpu_bytes = slice_cpu_bytes,
};

const st_air_tables *st_slice_compute_air(const st_renderer *r) {
    if (r->ops != &st_method_slice_compute) return NULL;
    return &((const slice_state *)r->state)->air;
}
