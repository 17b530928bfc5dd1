/* The near plane inside solid: a pixel whose ray starts inside solid terrain at the near plane hits there
 * (the rule the CPU reference follows; docs/harness.md argues it). Methods that rasterise surfaces would
 * draw what lies behind, so after the method's passes one shared pass caps those pixels — a full-screen
 * triangle for raster targets, a compute pass for storage targets — with the near depth and the shading of
 * a hit at the near-plane point. A CPU test of the level under the near-plane rectangle skips the pass
 * whenever no texel there can reach it, which is nearly every frame. */
#include <math.h>
#include <stdlib.h>

#include "render/passes/passes.h"

typedef struct near_cap_state {
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorSetLayout set_layout; /* storage targets only: the colour and depth images */
    VkDescriptorSet set;
} near_cap_state;

static void near_cap_destroy(st_renderer *r, void *state) {
    near_cap_state *s = state;
    VkDevice dev = r->engine->gpu->device;
    if (s->pipeline) vkDestroyPipeline(dev, s->pipeline, NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->set_layout) vkDestroyDescriptorSetLayout(dev, s->set_layout, NULL);
    free(s);
}

static st_result near_cap_create(st_renderer *r, void **out, st_error *err) {
    near_cap_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_gpu *gpu = r->engine->gpu;
    if (r->ops->targets == ST_TARGETS_RASTER) {
        st_result res = st_renderer_pipeline_layout(r, NULL, 0, 0, &s->layout, err);
        st_gpu_graphics_desc d = {.vertex = "fullscreen.vert",
                                  .fragment = "near_cap.frag",
                                  .layout = s->layout,
                                  .color_format = r->color.format,
                                  .depth_format = r->depth.format,
                                  .depth_compare = VK_COMPARE_OP_ALWAYS, /* nothing lies nearer */
                                  .depth_write = true};
        if (!res) res = st_gpu_graphics_pipeline(gpu, &d, &s->pipeline, err);
        return res;
    }
    st_result res = st_renderer_storage_targets_layout(r, &s->set_layout, &s->set, err);
    if (!res) res = st_renderer_pipeline_layout(r, &s->set_layout, 1, 0, &s->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "near_cap.comp", s->layout, &s->pipeline, err);
    return res;
}

/* Whether some texel under the near-plane rectangle is solid somewhere in its height range: conservative
 * (the rectangle's bounding box), exact enough that a camera in open air never pays for the pass. */
static bool near_plane_may_meet_solid(const st_renderer *r) {
    const st_view *v = &r->view;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const float px[4][2] = {{0, 0}, {v->width, 0}, {0, v->height}, {v->width, v->height}};
    for (int c = 0; c < 4; c++) {
        float d[3];
        st_view_pixel_dir(v, px[c][0], px[c][1], d);
        for (int k = 0; k < 3; k++) {
            float p = v->eye[k] + d[k] * (v->near_dist / v->focal_px);
            lo[k] = fminf(lo[k], p);
            hi[k] = fmaxf(hi[k], p);
        }
    }
    if (!(lo[2] <= 255.0f)) return false; /* above every solid top (also when the view is not finite) */
    if (lo[2] <= 0.0f) return true;      /* below height 0, all of the level is solid: let the pass decide */
    double x0 = floor(lo[0]), x1 = floor(hi[0]), y0 = floor(lo[1]), y1 = floor(hi[1]);
    if (x1 - x0 > 64 || y1 - y0 > 64) return true; /* a far-off near plane: let the pass decide */
    for (double y = y0; y <= y1; y++)
        for (double x = x0; x <= x1; x++) {
            st_texel t; /* from the level, or through the pages of a world without one */
            if (!st_engine_world_texel(r->engine, (int64_t)x, (int64_t)y, &t)) return true; /* unread: the pass decides */
            if (t.outside) continue; /* past a non-wrapping edge: nothing */
            if (lo[2] <= (float)t.low || (t.dual && lo[2] <= (float)t.high && hi[2] >= (float)t.mid)) return true;
        }
    return false;
}

static void near_cap_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    /* a level's rule: renderers of a tile store have no level to test (their views stay above the ground) */
    if (r->ops->info.world != ST_WORLD_LEVEL || !near_plane_may_meet_solid(r)) return;
    near_cap_state *s = state;
    bool raster = r->ops->targets == ST_TARGETS_RASTER;
    /* the method's writes to the targets come first */
    if (raster) {
        VkPipelineStageFlags2 stages = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
                                       VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT |
                                       VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
        st_gpu_cmd_memory_barrier(
            cmd, stages, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
            stages,
            VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
    } else {
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    st_renderer_pass_begin(r, cmd, "near-cap");
    if (raster) {
        VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                           .imageView = r->color.view,
                                           .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                           .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
                                           .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
        VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                           .imageView = r->depth.view,
                                           .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                           .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
                                           .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
        VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                              .renderArea = {{0, 0}, {r->width, r->height}},
                              .layerCount = 1,
                              .colorAttachmentCount = 1,
                              .pColorAttachments = &color,
                              .pDepthAttachment = &depth};
        vkCmdBeginRendering(cmd, &ri);
        VkViewport vp = {0, 0, (float)r->width, (float)r->height, 0, 1};
        VkRect2D sc = {{0, 0}, {r->width, r->height}};
        vkCmdSetViewport(cmd, 0, 1, &vp);
        vkCmdSetScissor(cmd, 0, 1, &sc);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 1, &r->globals_set, 0, NULL);
        vkCmdDraw(cmd, 3, 1, 0, 0);
        vkCmdEndRendering(cmd);
    } else {
        VkDescriptorSet sets[2] = {r->globals_set, s->set};
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 2, sets, 0, NULL);
        vkCmdDispatch(cmd, (r->width + 7) / 8, (r->height + 7) / 8, 1);
    }
    st_renderer_pass_end(r, cmd);
}

const st_pass_ops st_pass_near_cap = {
    .name = "near-cap",
    .create = near_cap_create,
    .destroy = near_cap_destroy,
    .record = near_cap_record,
};
