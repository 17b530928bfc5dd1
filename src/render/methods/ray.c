/* RayTraced: the height-field ray march (uniform steps, then 4 bisection steps) in two variants that share
 * shaders/common/ray_march.glsl — a full-screen fragment pass (`ray`) and a compute pass writing colour and
 * depth images (`ray-compute`). Raster throughput is tiny on some GPUs, so both are measured. The compute
 * variant tests the rays of each 8×8 tile together against the air tables first and starts every pixel's march
 * where its tile may first meet the terrain: the samples passed are air, so the image is the full march's, and
 * the pixels of a tile step together (per-pixel skipping made the H200 slower: its lanes diverged). */
#include <stdlib.h>

#include "render/methods/air_tables.h"
#include "render/methods/methods.h"

/* The quality knob of both variants: uniform steps before the bisection (the renderer's globals carry it). Its
 * default_value, 128, is the default up to far 2000; beyond, 0 marches max(128, ceil(128·far/2000)) steps
 * (st_globals_ray_steps), so the samples stay as close as at far 2000. */
#define RAY_STEPS_KNOB                                                                                            \
    {.name = "ray_steps", .label = "ray steps", .kind = ST_KNOB_COUNT, .offset = offsetof(st_method_knobs, ray_steps), \
     .default_value = ST_RAY_STEPS_DEFAULT, .min = 4, .max = 4096, .sweep_count = 5, .sweep = {16, 32, 64, 128, 256}}
static const st_method_knob ray_knobs[] = {RAY_STEPS_KNOB};

/* ray-compute's knobs: the steps, and whether the tiles' rays are tested together first (8, the tile's side in
 * pixels) or every pixel marches from the near plane (1; any value under 8) — an alternative kept for measuring. */
#define RAY_TILE 8u
static const st_method_knob ray_compute_knobs[] = {RAY_STEPS_KNOB,
                                                   {.name = "ray_tile",
                                                    .label = "ray tile test",
                                                    .kind = ST_KNOB_COUNT,
                                                    .offset = offsetof(st_method_knobs, ray_tile),
                                                    .default_value = RAY_TILE,
                                                    .min = 1,
                                                    .max = RAY_TILE}};

/* Mirror of RayPush in shaders/methods/ray.comp */
typedef struct ray_push {
    uint32_t flags; /* bit 0: the tile test */
} ray_push;

#define RAY_WORK_WORDS 4u /* pixels, samples, chunks passed, table words read (ray.comp) */

typedef struct ray_state {
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkPipeline count_pipeline; /* compute: the march that counts its work (st_ray_compute_work, which makes it), a
                                  pipeline of its own so the frames' march carries no counters */
    /* compute only */
    VkDescriptorSetLayout targets_layout, buffers_layout;
    VkDescriptorSet targets_set, buffers_set;
    st_air_tables air;  /* none with paged terrain (no whole level on the GPU): every pixel marches from the near plane */
    bool air_on;        /* the tables are there */
    bool tile_test;     /* the frames test the tiles (the tables are there and the knob asks for it) */
    bool count;         /* the next frame counts its work into `work` */
    st_gpu_buffer work; /* RAY_WORK_WORDS counters */
    st_gpu_buffer none; /* bound in place of the tables when there are none */
    /* fragment variant, textured shading: the march writes its hits into the G-buffer, one resolve shades them */
    bool deferred;
    st_deferred gbuffer;
} ray_state;

static void ray_destroy(st_renderer *r, void *state) {
    ray_state *s = state;
    VkDevice dev = r->engine->gpu->device;
    if (s->pipeline) vkDestroyPipeline(dev, s->pipeline, NULL);
    if (s->count_pipeline) vkDestroyPipeline(dev, s->count_pipeline, NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->targets_layout) vkDestroyDescriptorSetLayout(dev, s->targets_layout, NULL);
    if (s->buffers_layout) vkDestroyDescriptorSetLayout(dev, s->buffers_layout, NULL);
    st_air_tables_destroy(r, &s->air);
    st_gpu_buffer_destroy(r->engine->gpu, &s->work);
    st_gpu_buffer_destroy(r->engine->gpu, &s->none);
    st_deferred_destroy(r, &s->gbuffer);
    free(s);
}

static st_result ray_create(st_renderer *r, void **out, st_error *err) {
    ray_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->deferred = st_deferred_wanted(r);
    st_result res = s->deferred ? st_deferred_create(r, &(st_deferred_desc){0}, &s->gbuffer, err) : ST_OK;
    if (!res) res = st_renderer_pipeline_layout(r, NULL, 0, 0, &s->layout, err);
    if (res) return res;
    st_gpu_graphics_desc d = {.vertex = "fullscreen.vert",
                              .fragment = s->deferred ? "ray_gbuffer.frag" : "ray.frag",
                              .layout = s->layout,
                              .color_format = s->deferred ? s->gbuffer.point.format : r->color.format,
                              .depth_format = r->depth.format,
                              .depth_write = true};
    return st_gpu_graphics_pipeline(r->engine->gpu, &d, &s->pipeline, err);
}

static void ray_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    ray_state *s = state;
    st_renderer_pass_begin(r, cmd, "march");
    if (s->deferred) st_deferred_begin(r, &s->gbuffer, cmd);
    else st_renderer_begin_raster(r, cmd);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 1, &r->globals_set, 0, NULL);
    vkCmdDraw(cmd, 3, 1, 0, 0);
    if (s->deferred) {
        st_deferred_resolve(r, &s->gbuffer, cmd);
        return;
    }
    st_renderer_end_raster(r, cmd);
    st_renderer_pass_end(r, cmd);
}

static uint64_t ray_gpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    return st_deferred_gpu_bytes(&((const ray_state *)state)->gbuffer);
}

static st_result ray_compute_create(st_renderer *r, void **out, st_error *err) {
    ray_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_gpu *gpu = r->engine->gpu;
    /* paged terrain has tables too, built through its pages, while they stay small (st_air_tables_fit) */
    bool want = st_knob_get(&r->desc.knobs, &ray_compute_knobs[1]) >= RAY_TILE;
    s->air_on = want && st_air_tables_fit(r);
    s->tile_test = s->air_on;
    st_result res = s->air_on ? st_air_tables_create(r, &s->air, err)
                              : st_gpu_buffer_create(gpu, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false, &s->none, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, RAY_WORK_WORDS * 4,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                   false, &s->work, err);
    if (res) return res;
    /* set 2: the air tables and the work counters */
    st_gpu_binding b[2] = {{.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                            .buffer = s->air_on ? s->air.buffer.buffer : s->none.buffer},
                           {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                            .buffer = s->work.buffer}};
    res = st_renderer_storage_targets_layout(r, &s->targets_layout, &s->targets_set, err);
    if (!res) res = st_renderer_set_create(r, b, 2, &s->buffers_layout, &s->buffers_set, err);
    VkDescriptorSetLayout sets[2] = {s->targets_layout, s->buffers_layout};
    if (!res) res = st_renderer_pipeline_layout(r, sets, 2, sizeof(ray_push), &s->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "ray.comp", s->layout, &s->pipeline, err);
    return res;
}

static st_result ray_compute_level_updated(st_renderer *r, void *state, st_rect rect, st_error *err) {
    (void)r, (void)err;
    ray_state *s = state;
    if (s->air_on) st_air_tables_mark(&s->air, rect);
    return ST_OK;
}

static void ray_compute_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    ray_state *s = state;
    if (s->air_on) st_air_tables_record(r, &s->air, cmd);
    ray_push pc = {.flags = s->tile_test ? 1u : 0u};
    st_renderer_pass_begin(r, cmd, "march");
    if (s->count) { /* only when asked: the counters are a test's, not the frame's */
        vkCmdFillBuffer(cmd, s->work.buffer, 0, VK_WHOLE_SIZE, 0);
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                  VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    VkDescriptorSet sets[3] = {r->globals_set, s->targets_set, s->buffers_set};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->count ? s->count_pipeline : s->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 3, sets, 0, NULL);
    vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof pc, &pc);
    vkCmdDispatch(cmd, (r->width + 7) / 8, (r->height + 7) / 8, 1);
    st_renderer_pass_end(r, cmd);
}

static uint64_t ray_compute_gpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const ray_state *s = state;
    return (uint64_t)s->air.buffer.size;
}

st_result st_ray_compute_work(st_renderer *r, const st_camera *camera, bool tile_test, st_ray_work *out,
                              st_error *err) {
    if (r->ops != &st_method_ray_compute) return st_error_set(err, ST_ERR_INVALID, "not a ray-compute renderer");
    ray_state *s = r->state;
    /* made on first use: the frames never need it */
    const uint32_t count_on = 1;
    if (!s->count_pipeline) {
        st_result made = st_gpu_compute_pipeline_spec(r->engine->gpu, "ray.comp", s->layout, &count_on, 1,
                                                      &s->count_pipeline, err);
        if (made) return made;
    }
    bool had = s->tile_test;
    s->tile_test = tile_test && s->air_on;
    s->count = true;
    st_result res = st_renderer_draw(r, camera, NULL, err);
    s->count = false;
    bool tested = s->tile_test;
    s->tile_test = had;
    st_gpu *gpu = r->engine->gpu;
    uint32_t w[RAY_WORK_WORDS];
    if (!res) res = st_gpu_buffer_read(gpu, s->work.buffer, 0, sizeof w, w, err);
    if (res) return res;
    *out = (st_ray_work){.pixels = w[0], .samples = w[1], .chunks = w[2], .words = w[3], .tile_test = tested};
    return ST_OK;
}

const st_air_tables *st_ray_compute_air(const st_renderer *r) {
    if (r->ops != &st_method_ray_compute) return NULL;
    const ray_state *s = r->state;
    return s->air_on ? &s->air : NULL;
}

const st_method_ops st_method_ray = {
    .info = {.name = "ray",
             .description = "height-field ray march, full-screen fragment pass",
             .compute = false,
             ST_METHOD_KNOBS(ray_knobs)},
    .targets = ST_TARGETS_RASTER,
    .create = ray_create,
    .destroy = ray_destroy,
    .record = ray_record,
    .gpu_bytes = ray_gpu_bytes,
    .target_usage = st_deferred_target_usage,
    .pages_suffice = true,
};

const st_method_ops st_method_ray_compute = {
    .info = {.name = "ray-compute",
             .description = "height-field ray march, compute pass",
             .compute = true,
             ST_METHOD_KNOBS(ray_compute_knobs)},
    .targets = ST_TARGETS_STORAGE,
    .create = ray_compute_create,
    .destroy = ray_destroy,
    .record = ray_compute_record,
    .level_updated = ray_compute_level_updated,
    .gpu_bytes = ray_compute_gpu_bytes,
    .pages_suffice = true,
};
