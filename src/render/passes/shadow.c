/* The shared shadow map: 1024² from the sun, fitted around the view (a square ±600 around a point 300
 * ahead of the camera, z from 0 to 256, bounded in light space), cast every frame in compute by an exact
 * cell-by-cell march of both solid intervals, so slabs shade the floor beneath. Every method reads it
 * through shade_point (shaders/common/shadow.glsl). */
#include <math.h>
#include <stdlib.h>

#include "render/passes/passes.h"
#include "strata/shading.h"

#define SHADOW_DEFAULT_SIZE 1024u
#define SHADOW_BOX_HALF ST_SHADOW_BOX_HALF
#define SHADOW_BOX_AHEAD ST_SHADOW_BOX_AHEAD

typedef struct shadow_state {
    st_gpu_image map;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
} shadow_state;

/* Stores cast their own sun shadows at their scale (docs/large-world.md): the map is the levels'. */
static bool shadows_on(const st_renderer *r) { return r->desc.shadows && r->ops->info.world == ST_WORLD_LEVEL; }

static uint32_t shadow_size(const st_renderer *r) {
    if (!shadows_on(r)) return 1;
    return r->desc.shadow_size ? r->desc.shadow_size : SHADOW_DEFAULT_SIZE;
}

static void shadow_destroy(st_renderer *r, void *state) {
    shadow_state *s = state;
    VkDevice dev = r->engine->gpu->device;
    if (s->pipeline) vkDestroyPipeline(dev, s->pipeline, NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->set_layout) vkDestroyDescriptorSetLayout(dev, s->set_layout, NULL);
    st_gpu_image_destroy(r->engine->gpu, &s->map);
    free(s);
}

/* The map (a 1×1 stand-in when shadows are off) is set 0's binding 2 for every shader. */
static st_result shadow_create(st_renderer *r, void **out, st_error *err) {
    shadow_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_gpu *gpu = r->engine->gpu;
    uint32_t n = shadow_size(r);
    st_result res = st_gpu_image_create(gpu, n, n, VK_FORMAT_R32_SFLOAT,
                                        VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                            VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                        &s->map, err);
    if (res) return res;
    st_gpu_binding map = {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                          .view = s->map.view,
                          .layout = VK_IMAGE_LAYOUT_GENERAL};
    st_gpu_set_write_binding(gpu, r->globals_set, 2, &map);
    /* The map lives in GENERAL: written as storage by the cast, read by texelFetch in shading. */
    VkCommandBuffer cmd;
    res = st_gpu_once_begin(gpu, &cmd, err);
    if (res) return res;
    st_gpu_cmd_image_barrier(cmd, s->map.image, s->map.aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE,
                             VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkClearColorValue zero = {{0}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, s->map.image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &range);
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                              VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT);
    res = st_gpu_once_submit(gpu, cmd, err);
    if (res || !shadows_on(r)) return res;

    st_gpu_binding b = {.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                        .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                        .view = s->map.view,
                        .layout = VK_IMAGE_LAYOUT_GENERAL};
    res = st_renderer_set_create(r, &b, 1, &s->set_layout, &s->set, err);
    if (!res) res = st_renderer_pipeline_layout(r, &s->set_layout, 1, 0, &s->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "shadow_cast.comp", s->layout, &s->pipeline, err);
    return res;
}

static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void shadow_fill_globals(st_renderer *r, void *state, st_globals_gpu *g) {
    (void)state;
    const st_view *v = &r->view;
    if (!shadows_on(r)) {
        for (int k = 0; k < 4; k++) g->shadow_u[k] = g->shadow_v[k] = g->shadow_d[k] = 0;
        g->shadow_info[0] = 1;
        g->shadow_info[1] = 0;
        g->shadow_info[2] = 0;
        g->shadow_info[3] = 0;
        return;
    }
    /* Light basis: D along the sun's rays (toward the ground), lx and ly spanning the light plane. */
    float s21 = 1.0f / sqrtf(21.0f), s5 = 1.0f / sqrtf(5.0f), s105 = 1.0f / sqrtf(105.0f);
    float D[3] = {-1 * s21, -2 * s21, -4 * s21};
    float lx[3] = {2 * s5, -1 * s5, 0};
    float ly[3] = {4 * s105, 8 * s105, -5 * s105};
    float hx = v->forward[0], hy = v->forward[1], hl = sqrtf(hx * hx + hy * hy);
    if (hl < 1e-6f) { /* straight down: the screen's up is the heading */
        hx = v->screen_up[0];
        hy = v->screen_up[1];
        hl = sqrtf(hx * hx + hy * hy);
    }
    float cx = v->eye[0] + SHADOW_BOX_AHEAD * hx / hl, cy = v->eye[1] + SHADOW_BOX_AHEAD * hy / hl;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int c = 0; c < 8; c++) {
        float p[3] = {cx + ((c & 1) ? SHADOW_BOX_HALF : -SHADOW_BOX_HALF),
                      cy + ((c & 2) ? SHADOW_BOX_HALF : -SHADOW_BOX_HALF), (c & 4) ? 256.0f : 0.0f};
        float q[3] = {dot3(p, lx), dot3(p, ly), dot3(p, D)};
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], q[k]);
            hi[k] = fmaxf(hi[k], q[k]);
        }
    }
    for (int k = 0; k < 3; k++) {
        g->shadow_u[k] = lx[k] / (hi[0] - lo[0]);
        g->shadow_v[k] = ly[k] / (hi[1] - lo[1]);
        g->shadow_d[k] = D[k];
    }
    g->shadow_u[3] = -lo[0] / (hi[0] - lo[0]);
    g->shadow_v[3] = -lo[1] / (hi[1] - lo[1]);
    g->shadow_d[3] = -lo[2];
    /* Bias and normal offset scale with the world size of a shadow texel (1.57 units at 1024², st_shadow_texel_world): a lit
     * flat floor varies by about that much in light depth across one texel. */
    float texel = fmaxf(hi[0] - lo[0], hi[1] - lo[1]) / (float)shadow_size(r);
    g->shadow_info[0] = (float)shadow_size(r);
    g->shadow_info[1] = 1;
    g->shadow_info[2] = ST_SHADOW_OFFSET_TEXELS * texel; /* depth bias, world units */
    g->shadow_info[3] = ST_SHADOW_OFFSET_TEXELS * texel; /* normal offset, world units */
}

static void shadow_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    if (!shadows_on(r)) return;
    shadow_state *s = state;
    /* Earlier frames' reads of the map must finish before this frame overwrites it. */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    uint32_t n = shadow_size(r);
    VkDescriptorSet sets[2] = {r->globals_set, s->set};
    st_renderer_pass_begin(r, cmd, "shadow");
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 2, sets, 0, NULL);
    vkCmdDispatch(cmd, (n + 7) / 8, (n + 7) / 8, 1);
    st_renderer_pass_end(r, cmd);
    /* The method's shading reads the map in fragment or compute shaders. */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT);
}

const st_pass_ops st_pass_shadow = {
    .name = "shadow",
    .create = shadow_create,
    .destroy = shadow_destroy,
    .fill_globals = shadow_fill_globals,
    .record = shadow_record,
};
