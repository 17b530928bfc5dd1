/* RayTraced: the height-field ray march (uniform steps, then 4 bisection steps) in two variants that share
 * shaders/common/ray_march.glsl — a full-screen fragment pass (`ray`) and a compute pass writing colour and
 * depth images (`ray-compute`). Raster throughput is tiny on some GPUs, so both are measured. */
#include <stdlib.h>

#include "render/methods/methods.h"

/* The quality knob of both variants: uniform steps before the bisection (the renderer's globals carry it). */
static const st_method_knob ray_knobs[] = {{.name = "ray_steps",
                                            .label = "ray steps",
                                            .kind = ST_KNOB_COUNT,
                                            .offset = offsetof(st_method_knobs, ray_steps),
                                            .default_value = ST_RAY_STEPS_DEFAULT,
                                            .min = 4,
                                            .max = 4096,
                                            .sweep_count = 5,
                                            .sweep = {16, 32, 64, 128, 256}}};

typedef struct ray_state {
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorSetLayout targets_layout; /* compute only */
    VkDescriptorSet targets_set;
} ray_state;

static void ray_destroy(st_renderer *r, void *state) {
    ray_state *s = state;
    VkDevice dev = r->engine->gpu->device;
    if (s->pipeline) vkDestroyPipeline(dev, s->pipeline, NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->targets_layout) vkDestroyDescriptorSetLayout(dev, s->targets_layout, NULL);
    free(s);
}

static st_result ray_create(st_renderer *r, void **out, st_error *err) {
    ray_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_result res = st_renderer_pipeline_layout(r, NULL, 0, 0, &s->layout, err);
    if (res) return res;
    st_gpu_graphics_desc d = {.vertex = "fullscreen.vert",
                              .fragment = "ray.frag",
                              .layout = s->layout,
                              .color_format = r->color.format,
                              .depth_format = r->depth.format,
                              .depth_write = true};
    return st_gpu_graphics_pipeline(r->engine->gpu, &d, &s->pipeline, err);
}

static void ray_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    ray_state *s = state;
    st_renderer_pass_begin(r, cmd, "march");
    st_renderer_begin_raster(r, cmd);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 1, &r->globals_set, 0, NULL);
    vkCmdDraw(cmd, 3, 1, 0, 0);
    st_renderer_end_raster(r, cmd);
    st_renderer_pass_end(r, cmd);
}

static st_result ray_compute_create(st_renderer *r, void **out, st_error *err) {
    ray_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_result res = st_renderer_storage_targets_layout(r, &s->targets_layout, &s->targets_set, err);
    if (!res) res = st_renderer_pipeline_layout(r, &s->targets_layout, 1, 0, &s->layout, err);
    if (!res) res = st_gpu_compute_pipeline(r->engine->gpu, "ray.comp", s->layout, &s->pipeline, err);
    return res;
}

static void ray_compute_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    ray_state *s = state;
    VkDescriptorSet sets[2] = {r->globals_set, s->targets_set};
    st_renderer_pass_begin(r, cmd, "march");
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 2, sets, 0, NULL);
    vkCmdDispatch(cmd, (r->width + 7) / 8, (r->height + 7) / 8, 1);
    st_renderer_pass_end(r, cmd);
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
    .pages_suffice = true,
};

const st_method_ops st_method_ray_compute = {
    .info = {.name = "ray-compute",
             .description = "height-field ray march, compute pass",
             .compute = true,
             ST_METHOD_KNOBS(ray_knobs)},
    .targets = ST_TARGETS_STORAGE,
    .create = ray_compute_create,
    .destroy = ray_destroy,
    .record = ray_compute_record,
    .pages_suffice = true,
};
