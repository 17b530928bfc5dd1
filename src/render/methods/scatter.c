/* Scattered: terrain samples projected forward into a 32-bit-per-pixel screen buffer with atomicMin of
 * (24-bit depth key << 8 | material), then a full-screen resolve that rebuilds each pixel's position from
 * its depth and shades it. `scatter` enumerates ground blocks of a distance quadtree over the visible
 * ground bounds and splats each block's exposed faces exactly (hole-free); `scatter-plain` is the paper's
 * fixed warped grid of point samples. Owns the screen buffer, the near-face queue and their passes. */
#include <math.h>
#include <stdlib.h>

#include "render/methods/methods.h"
#include "render/scatter_levels.h"

#define SCATTER_TOP 256.0f        /* nothing is solid above */
#define SCATTER_FACE_BYTES 32u    /* one queued face: 8 words (scatter.glsl) */
#define SCATTER_PLAIN_DEFAULT 4u  /* the paper's publication density 4,4,4 */
/* Hole-free variant: a merged block may project to at most 1/density pixels. 2 keeps merging (which
 * widens silhouettes by up to a block) to half-pixel blocks; at 1280×800 it starts past 2048 texels. */
#define SCATTER_DEFAULT_DENSITY 2.0f

/* The quality knob: the density, whose default differs between the variants. */
#define SCATTER_KNOB(default_density)                                                                              \
    {                                                                                                              \
        .name = "scatter_density", .label = "density", .kind = ST_KNOB_COUNT,                                      \
        .offset = offsetof(st_method_knobs, scatter_density), .default_value = (default_density), .min = 1,         \
        .max = 64, .sweep_count = 4, .sweep = {1, 2, 3, 4}                                                         \
    }
static const st_method_knob scatter_knobs[] = {SCATTER_KNOB(SCATTER_DEFAULT_DENSITY)};
static const st_method_knob scatter_plain_knobs[] = {SCATTER_KNOB(SCATTER_PLAIN_DEFAULT)};

/* The packed word; shaders/common/scatter.glsl mirrors these two functions. */
uint32_t st_scatter_pack(float depth, uint8_t material) {
    float d = depth < 0.0f ? 0.0f : (depth > 1.0f ? 1.0f : depth);
    uint32_t q = (uint32_t)(d * 16777215.0f + 0.5f);
    if (q > 0xFFFFFFu) q = 0xFFFFFFu;
    return ((0xFFFFFFu - q) << 8) | material;
}

float st_scatter_unpack(uint32_t word, uint8_t *material) {
    if (material) *material = (uint8_t)(word & 0xFFu);
    return (float)(0xFFFFFFu - (word >> 8)) / 16777215.0f;
}

/* Mirrors of the push-constant blocks of scatter.comp and scatter_plain.comp. */
typedef struct scatter_level_push {
    int32_t origin[2];
    int32_t count[2];
    int32_t k;
    int32_t root;
    float lod_dist;
    int32_t pad;
} scatter_level_push;

typedef struct scatter_plain_push {
    float origin[2];
    float heading[2];
    float range_y[2];
    float range_x[2];
    uint32_t layers;
} scatter_plain_push;

typedef struct scatter_state {
    bool plain;
    VkDescriptorSetLayout targets_layout, buffers_layout;
    VkDescriptorSet targets_set, buffers_set;
    VkPipelineLayout layout;
    VkPipeline scatter, tiles, resolve;
    st_gpu_buffer screen; /* one packed word per pixel */
    st_gpu_buffer faces;  /* queued near faces */
    st_gpu_buffer header; /* indirect dispatch (x, y, z), faces queued and their capacity, jobs and theirs */
    st_gpu_buffer jobs;   /* the queued faces' tiles, a few per job */
    uint32_t capacity, job_capacity;
} scatter_state;

static void scatter_destroy(st_renderer *r, void *state) {
    scatter_state *s = state;
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    if (s->scatter) vkDestroyPipeline(dev, s->scatter, NULL);
    if (s->tiles) vkDestroyPipeline(dev, s->tiles, NULL);
    if (s->resolve) vkDestroyPipeline(dev, s->resolve, NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->targets_layout) vkDestroyDescriptorSetLayout(dev, s->targets_layout, NULL);
    if (s->buffers_layout) vkDestroyDescriptorSetLayout(dev, s->buffers_layout, NULL);
    st_gpu_buffer_destroy(gpu, &s->screen);
    st_gpu_buffer_destroy(gpu, &s->faces);
    st_gpu_buffer_destroy(gpu, &s->header);
    st_gpu_buffer_destroy(gpu, &s->jobs);
    free(s);
}

static st_result create_buffers(st_renderer *r, scatter_state *s, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    /* The near-face queue: a face whose box on screen holds more than 256 pixels (SCATTER_IN_PLACE) is queued,
     * and its box cut into jobs of 16 tiles (1024 pixels). Such faces lie within ~focal/16 texels of the eye, so
     * their number grows with the pixels; the boxes of long faces seen at a slant cover the screen many times
     * over (the default world's mesa view: 56 times), so w·h/8 faces and as many jobs. A full queue is still
     * drawn, in place, but one invocation then walks a large face alone: at 3840×2160 the old fixed cap of
     * 65 535 faces (one workgroup each) overflowed in the hangar and mesa views, which made the frame's cost grow
     * faster than its pixels. */
    uint64_t cap = (uint64_t)r->width * r->height / 8u;
    s->capacity = s->plain ? 1u : (uint32_t)(cap < 1024u ? 1024u : cap);
    s->job_capacity = s->capacity;
    VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    st_result res = st_gpu_buffer_create(gpu, (VkDeviceSize)r->width * r->height * 4u, storage, false, &s->screen, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, (VkDeviceSize)s->capacity * SCATTER_FACE_BYTES, storage, false, &s->faces, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, 8u * sizeof(uint32_t),
                                   storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false,
                                   &s->header, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, (VkDeviceSize)s->job_capacity * 2u * sizeof(uint32_t), storage, false, &s->jobs,
                                   err);
    if (res) return res;
    const VkBuffer buffers[4] = {s->screen.buffer, s->faces.buffer, s->header.buffer, s->jobs.buffer};
    st_gpu_binding b[4];
    for (uint32_t i = 0; i < 4; i++)
        b[i] = (st_gpu_binding){
            .type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT, .buffer = buffers[i]};
    return st_renderer_set_create(r, b, 4, &s->buffers_layout, &s->buffers_set, err);
}

static st_result scatter_create_common(st_renderer *r, bool plain, void **out, st_error *err) {
    scatter_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->plain = plain;
    st_gpu *gpu = r->engine->gpu;
    st_result res = st_renderer_storage_targets_layout(r, &s->targets_layout, &s->targets_set, err);
    if (!res) res = create_buffers(r, s, err);
    if (res) return res;
    VkDescriptorSetLayout sets[2] = {s->targets_layout, s->buffers_layout};
    uint32_t push = (uint32_t)(sizeof(scatter_plain_push) > sizeof(scatter_level_push) ? sizeof(scatter_plain_push)
                                                                                       : sizeof(scatter_level_push));
    res = st_renderer_pipeline_layout(r, sets, 2, push, &s->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, plain ? "scatter_plain.comp" : "scatter.comp", s->layout, &s->scatter, err);
    if (!res && !plain) res = st_gpu_compute_pipeline(gpu, "scatter_tiles.comp", s->layout, &s->tiles, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "scatter_resolve.comp", s->layout, &s->resolve, err);
    return res;
}

static st_result scatter_create(st_renderer *r, void **out, st_error *err) {
    return scatter_create_common(r, false, out, err);
}

static st_result scatter_plain_create(st_renderer *r, void **out, st_error *err) {
    return scatter_create_common(r, true, out, err);
}

/* Hole-free enumeration: one dispatch per quadtree level over the part of the ground bounds where that
 * level can hold leaves. A block of size k > 1 is used where its nearest horizontal distance d satisfies
 * d ≥ k·focal·density (it projects to at most 1/density pixels); the shader keeps exactly the leaves. */
static void record_levels(st_renderer *r, scatter_state *s, VkCommandBuffer cmd) {
    st_view v = r->view;
    float b[4];
    if (!st_view_ground_bounds(&v, 0.0f, SCATTER_TOP, b)) return;
    /* along an axis that does not wrap, only the level's own blocks: past its edge there is nothing */
    const st_world_shape *l = &r->engine->shape;
    if (!l->wrap_x) b[0] = fmaxf(b[0], 0.0f), b[2] = fminf(b[2], (float)l->width);
    if (!l->wrap_y) b[1] = fmaxf(b[1], 0.0f), b[3] = fminf(b[3], (float)l->height);
    if (!(b[0] < b[2] && b[1] < b[3])) return;
    float density = (float)st_knob_get(&r->desc.knobs, &scatter_knobs[0]);
    float lod = v.focal_px * density;
    st_scatter_level levels[ST_SCATTER_MAX_LEVELS];
    int n = st_scatter_levels(b, v.eye, lod, levels);
    for (int i = 0; i < n; i++) {
        const st_scatter_level *L = &levels[i];
        scatter_level_push p = {.origin = {L->origin[0], L->origin[1]},
                                .count = {L->count[0], L->count[1]},
                                .k = L->k,
                                .root = L->root,
                                .lod_dist = lod};
        vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof p, &p);
        vkCmdDispatch(cmd, ((uint32_t)p.count[0] + 7u) / 8u, ((uint32_t)p.count[1] + 7u) / 8u, 1);
    }
}

/* The paper's footprint: the near-plane corner rays cut z = 0 and z = top (distances clamped at 0 and at
 * the far plane), expressed in the flat heading frame. Upward rays collapse to the eye, which is why this
 * variant starves at the horizon. */
static void record_plain(st_renderer *r, scatter_state *s, VkCommandBuffer cmd) {
    st_view v = r->view;
    float heading[2] = {v.screen_right[1], -v.screen_right[0]};
    float perp[2] = {heading[1], -heading[0]};
    float pts[8][2];
    for (int c = 0; c < 4; c++) {
        float d[3];
        st_view_pixel_dir(&v, (c & 1) ? v.width : 0.0f, (c & 2) ? v.height : 0.0f, d);
        for (int p = 0; p < 2; p++) {
            float z = p ? SCATTER_TOP : 0.0f, t_max = v.far_dist / v.focal_px;
            float t = fabsf(d[2]) < 1e-6f ? t_max : (z - v.eye[2]) / d[2];
            t = fminf(fmaxf(t, 0.0f), t_max);
            float dx = d[0] * t, dy = d[1] * t;
            pts[c * 2 + p][0] = dx * perp[0] + dy * perp[1];
            pts[c * 2 + p][1] = dx * heading[0] + dy * heading[1];
        }
    }
    float y0 = INFINITY, y1 = -INFINITY;
    for (int i = 0; i < 8; i++) {
        y0 = fminf(y0, pts[i][1]);
        y1 = fmaxf(y1, pts[i][1]);
    }
    float x_near = 0.0f, x_far = 0.0f;
    for (int i = 0; i < 8; i++) {
        x_far = fmaxf(x_far, fabsf(pts[i][0]));
        if (pts[i][1] <= 0.5f * (y0 + y1)) x_near = fmaxf(x_near, fabsf(pts[i][0]));
    }
    uint32_t d = (uint32_t)st_knob_get(&r->desc.knobs, &scatter_plain_knobs[0]);
    scatter_plain_push p = {.origin = {v.eye[0], v.eye[1]},
                            .heading = {heading[0], heading[1]},
                            .range_y = {y0, y1},
                            .range_x = {x_near, x_far},
                            .layers = d};
    vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof p, &p);
    vkCmdDispatch(cmd, (r->width + 15u) / 16u * d, (r->height + 15u) / 16u * d, d);
}

static void scatter_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    scatter_state *s = state;
    VkDescriptorSet sets[3] = {r->globals_set, s->targets_set, s->buffers_set};
    st_renderer_pass_begin(r, cmd, "clear");
    /* The previous frame's passes read and wrote these buffers (and read the header as indirect
     * arguments); the clear below must not overtake them. */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                              VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                                  VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT,
                              VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    vkCmdFillBuffer(cmd, s->screen.buffer, 0, VK_WHOLE_SIZE, 0xFFFFFFFFu);
    uint32_t header[8] = {0, 1, 1, 0, s->capacity, 0, s->job_capacity, 0};
    vkCmdUpdateBuffer(cmd, s->header.buffer, 0, sizeof header, header);
    /* The cleared buffer and the reset queue header are what the scatter pass's atomics start from. */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                              VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    st_renderer_pass_next(r, cmd, "scatter");
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 3, sets, 0, NULL);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->scatter);
    if (s->plain) {
        record_plain(r, s, cmd);
    } else {
        record_levels(r, s, cmd);
        /* The queued faces and the group count the scatter pass wrote feed the indirect tile pass, which
         * also keeps adding to the screen buffer. */
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                  VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                      VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        st_renderer_pass_next(r, cmd, "faces");
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->tiles);
        vkCmdDispatchIndirect(cmd, s->header.buffer, 0);
    }
    /* Every splat has landed before the resolve reads the buffer. */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    st_renderer_pass_next(r, cmd, "resolve");
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->resolve);
    vkCmdDispatch(cmd, (r->width + 7u) / 8u, (r->height + 7u) / 8u, 1);
    st_renderer_pass_end(r, cmd);
}

st_result st_scatter_queue_stats(st_renderer *r, uint32_t counts[4], st_error *err) {
    if (r->ops != &st_method_scatter) return st_error_set(err, ST_ERR_INVALID, "not a scatter renderer");
    const scatter_state *s = r->state;
    st_gpu *gpu = r->engine->gpu;
    uint32_t h[8];
    st_result res = st_gpu_buffer_read(gpu, s->header.buffer, 0, sizeof h, h, err);
    if (res) return res;
    counts[0] = h[3], counts[1] = h[4], counts[2] = h[5], counts[3] = h[6];
    return ST_OK;
}

static uint64_t scatter_gpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const scatter_state *s = state;
    return (uint64_t)(s->screen.size + s->faces.size + s->header.size + s->jobs.size);
}

const st_method_ops st_method_scatter = {
    .info = {.name = "scatter",
             .description = "forward scatter of exposed terrain faces, exact multi-pixel splats, atomicMin",
             .compute = true,
             ST_METHOD_KNOBS(scatter_knobs)},
    .targets = ST_TARGETS_STORAGE,
    .create = scatter_create,
    .destroy = scatter_destroy,
    .record = scatter_record,
    .gpu_bytes = scatter_gpu_bytes,
    .pages_suffice = true,
};

const st_method_ops st_method_scatter_plain = {
    .info = {.name = "scatter-plain",
             .description = "the paper's point scatter over a warped ground grid (leaves gaps)",
             .compute = true,
             ST_METHOD_KNOBS(scatter_plain_knobs)},
    .targets = ST_TARGETS_STORAGE,
    .create = scatter_plain_create,
    .destroy = scatter_destroy,
    .record = scatter_record,
    .gpu_bytes = scatter_gpu_bytes,
};
