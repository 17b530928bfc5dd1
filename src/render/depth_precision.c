/* The depth-precision experiment (strata/depth_precision.h): two planes a gap apart drawn at a sweep of distances
 * with standard and with reverse Z into a D32_SFLOAT buffer; where the depth buffer can no longer tell them apart
 * the farther plane, drawn first, survives the strict depth test and shows. Its own engine, targets and pipelines:
 * nothing else in strata draws with standard Z. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "strata/depth_precision.h"

typedef struct planes_push {
    float near_z, far_z, a, b;
} planes_push;

static const double DEFAULT_GAPS[] = {0.01, 0.1, 1.0};

/* One frame: the planes at z and z + gap in mode `reverse`; returns the share of pixels that do not show the near
 * one. */
static st_result draw_planes(st_gpu *gpu, st_gpu_image *color, st_gpu_image *depth, VkPipeline pipe,
                             VkPipelineLayout layout, bool reverse, const planes_push *push, uint8_t *pixels,
                             double *wrong_pct, st_error *err) {
    VkCommandBuffer cmd;
    st_result res = st_gpu_once_begin(gpu, &cmd, err);
    if (res) return res;
    st_gpu_cmd_image_barrier(cmd, color->image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                             VK_ACCESS_2_MEMORY_READ_BIT, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                             VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    st_gpu_cmd_image_barrier(cmd, depth->image, VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                             VK_ACCESS_2_MEMORY_READ_BIT,
                             VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                             VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
    VkRenderingAttachmentInfo ca = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                    .imageView = color->view,
                                    .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                    .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                    .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                    .clearValue.color.float32 = {0, 0, 0, 1}};
    VkRenderingAttachmentInfo da = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                    .imageView = depth->view,
                                    .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                    .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                    .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                    .clearValue.depthStencil = {reverse ? 0.0f : 1.0f, 0}};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                          .renderArea = {{0, 0}, {color->width, color->height}},
                          .layerCount = 1,
                          .colorAttachmentCount = 1,
                          .pColorAttachments = &ca,
                          .pDepthAttachment = &da};
    vkCmdBeginRendering(cmd, &ri);
    VkViewport vp = {0, 0, (float)color->width, (float)color->height, 0, 1};
    VkRect2D sc = {{0, 0}, {color->width, color->height}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_ALL, 0, sizeof *push, push);
    vkCmdDraw(cmd, 12, 1, 0, 0);
    vkCmdEndRendering(cmd);
    st_gpu_cmd_image_barrier(cmd, color->image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                             VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                             VK_ACCESS_2_TRANSFER_READ_BIT);
    res = st_gpu_once_submit(gpu, cmd, err);
    if (!res) res = st_gpu_image_read(gpu, color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels, err);
    if (res) return res;
    /* wrong: anything but the near plane (the far one, or nothing where both depths rounded onto the clear value) */
    size_t n = (size_t)color->width * color->height, wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += !(pixels[4 * i + 1] > 127 && pixels[4 * i] <= 127);
    *wrong_pct = 100.0 * (double)wrong / (double)n;
    return ST_OK;
}

st_result st_depth_precision_run(const st_depth_precision_desc *d, st_depth_precision_result *out, st_error *err) {
    memset(out, 0, sizeof *out);
    double n = d->near_m > 0 ? d->near_m : 0.1, f = d->far_m > 0 ? d->far_m : 1e9;
    double from = d->from_m > 0 ? d->from_m : 1, to = d->to_m > 0 ? d->to_m : 2e7;
    uint32_t per = d->steps_per_decade ? d->steps_per_decade : 24, size = d->size ? d->size : 64;
    out->threshold_pct = d->threshold_pct > 0 ? d->threshold_pct : 1.0;
    out->gap_count = d->gaps_m ? d->gap_count : sizeof DEFAULT_GAPS / sizeof DEFAULT_GAPS[0];
    if (!(n > 0 && f > 2 * n && isfinite(f) && from >= n && to > from && isfinite(to) && to < f))
        return st_error_set(err, ST_ERR_INVALID, "depth precision: near %g, far %g, sweep %g..%g m", n, f, from, to);
    if (!out->gap_count || out->gap_count > ST_DEPTH_MAX_GAPS || size < 4 || size > 4096)
        return st_error_set(err, ST_ERR_INVALID, "depth precision: %zu gaps (1..%d), %u pixels", out->gap_count,
                            ST_DEPTH_MAX_GAPS, size);
    for (size_t g = 0; g < out->gap_count; g++) {
        out->gaps_m[g] = d->gaps_m ? d->gaps_m[g] : DEFAULT_GAPS[g];
        if (!(out->gaps_m[g] > 0 && isfinite(out->gaps_m[g])))
            return st_error_set(err, ST_ERR_INVALID, "depth precision: a gap of %g m", out->gaps_m[g]);
    }
    out->near_m = n, out->far_m = f;
    size_t steps = (size_t)floor(log10(to / from) * per + 1e-9) + 1;
    if (steps > ST_DEPTH_MAX_STEPS) return st_error_set(err, ST_ERR_INVALID, "depth precision: %zu steps", steps);
    out->step_count = steps;
    for (size_t i = 0; i < steps; i++) out->distance_m[i] = from * pow(10.0, (double)i / per);

    st_engine *engine = NULL;
    st_engine_desc ed = {.device_index = d->device_index, .device_given = d->device_given, .validate = d->validate};
    st_result res = st_engine_create(&ed, &engine, err);
    if (res) return res;
    st_device_info info = st_engine_device(engine);
    snprintf(out->adapter, sizeof out->adapter, "%s", info.name);
    snprintf(out->device_type, sizeof out->device_type, "%s", info.type);
    st_gpu *gpu = engine->gpu;
    st_gpu_image color = {0}, depth = {0};
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipes[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
    uint8_t *pixels = malloc((size_t)size * size * 4);
    if (!pixels) res = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (!res)
        res = st_gpu_image_create(gpu, size, size, VK_FORMAT_R8G8B8A8_UNORM,
                                  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, &color, err);
    if (!res)
        res = st_gpu_image_create(gpu, size, size, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                  &depth, err);
    if (!res) {
        VkPushConstantRange push = {.stageFlags = VK_SHADER_STAGE_ALL, .size = sizeof(planes_push)};
        VkPipelineLayoutCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                         .pushConstantRangeCount = 1,
                                         .pPushConstantRanges = &push};
        res = st_gpu_check(vkCreatePipelineLayout(gpu->device, &ci, NULL, &layout), "depth planes layout", err);
    }
    for (int m = 0; m < 2 && !res; m++) {
        /* strict tests: where the two depths round to one value the first plane drawn, the far one, stays */
        st_gpu_graphics_desc gd = {.vertex = "depth_planes.vert",
                                   .fragment = "depth_planes.frag",
                                   .layout = layout,
                                   .color_format = VK_FORMAT_R8G8B8A8_UNORM,
                                   .depth_format = VK_FORMAT_D32_SFLOAT,
                                   .depth_compare = m ? VK_COMPARE_OP_GREATER : VK_COMPARE_OP_LESS,
                                   .depth_write = true,
                                   .cull = VK_CULL_MODE_NONE};
        res = st_gpu_graphics_pipeline(gpu, &gd, &pipes[m], err);
    }
    for (size_t g = 0; g < out->gap_count && !res; g++)
        for (int m = 0; m < 2 && !res; m++) {
            /* clip z = A·z + B: standard d = f/(f−n)·(1 − n/z); reverse d = n·(f − z)/(z·(f − n)); A and B in double */
            double A = m ? -n / (f - n) : f / (f - n), B = m ? n * f / (f - n) : -f * n / (f - n);
            out->onset_m[g][m] = NAN;
            for (size_t i = 0; i < steps && !res; i++) {
                double z = out->distance_m[i];
                planes_push p = {(float)z, (float)(z + out->gaps_m[g]), (float)A, (float)B};
                res = draw_planes(gpu, &color, &depth, pipes[m], layout, m == 1, &p, pixels, &out->wrong_pct[g][m][i],
                                  err);
                if (!res && d->strip_rgba && g == d->strip_gap)
                    for (uint32_t y = 0; y < size; y++)
                        memcpy(d->strip_rgba + (((size_t)m * size + y) * steps + i) * 4,
                               pixels + ((size_t)y * size + size / 2) * 4, 4);
                if (!res && isnan(out->onset_m[g][m]) && out->wrong_pct[g][m][i] > out->threshold_pct)
                    out->onset_m[g][m] = z;
            }
        }
    if (!res) out->validation_messages = st_engine_validation_messages(engine);
    if (gpu) vkDeviceWaitIdle(gpu->device);
    for (int m = 0; m < 2; m++)
        if (pipes[m]) vkDestroyPipeline(gpu->device, pipes[m], NULL);
    if (layout) vkDestroyPipelineLayout(gpu->device, layout, NULL);
    st_gpu_image_destroy(gpu, &color);
    st_gpu_image_destroy(gpu, &depth);
    free(pixels);
    st_engine_destroy(engine);
    return res;
}
