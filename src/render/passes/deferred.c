/* Deferred shading of the raster methods' textured frames: the method's raster pass writes each pixel's surface
 * point (and, for a fitted mesh, its geometric normal) into a G-buffer instead of a colour (shaders/common/
 * gbuffer.glsl), and one compute pass shades every pixel once with the shared shading and copies the result onto
 * the colour target. The fragment stage runs on few units of some GPUs and the materials' shading is long; the
 * compute pass runs on all of them and shades no pixel twice, whatever the overdraw. Flat frames keep their
 * fragment shaders (the paper's protocol). */
#include <stdlib.h>

#include "render/render_internal.h"

bool st_deferred_wanted(const st_renderer *r) { return r->desc.shading != ST_SHADING_FLAT && !r->desc.shade_forward; }

VkImageUsageFlags st_deferred_target_usage(const st_renderer *r) {
    return st_deferred_wanted(r) ? VK_IMAGE_USAGE_TRANSFER_DST_BIT : 0;
}

void st_deferred_destroy(st_renderer *r, st_deferred *d) {
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    if (d->pipeline) vkDestroyPipeline(dev, d->pipeline, NULL);
    if (d->layout) vkDestroyPipelineLayout(dev, d->layout, NULL);
    if (d->set_layout) vkDestroyDescriptorSetLayout(dev, d->set_layout, NULL);
    st_gpu_image_destroy(gpu, &d->point);
    st_gpu_image_destroy(gpu, &d->normal);
    st_gpu_image_destroy(gpu, &d->shaded);
    *d = (st_deferred){0};
}

st_result st_deferred_create(st_renderer *r, const st_deferred_desc *desc, st_deferred *d, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    bool normals = desc->normals;
    *d = (st_deferred){.normals = normals, .method_set = desc->resolve ? desc->method_set : VK_NULL_HANDLE};
    VkImageUsageFlags gb = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
    st_result res = st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_R32G32B32A32_SFLOAT, gb, &d->point, err);
    /* without normals the resolve's binding 1 is a 1×1 image it never reads (a column point needs none) */
    if (!res)
        res = normals ? st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_R32G32B32A32_SFLOAT, gb, &d->normal, err)
                      : st_gpu_image_create(gpu, 1, 1, VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_USAGE_STORAGE_BIT,
                                            &d->normal, err);
    if (!res)
        res = st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_R8G8B8A8_UNORM,
                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, &d->shaded, err);
    if (res) return st_error_prefix(err, "deferred shading");
    st_gpu_binding b[3];
    const st_gpu_image *images[3] = {&d->point, &d->normal, &d->shaded};
    for (int i = 0; i < 3; i++)
        b[i] = (st_gpu_binding){.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                                .view = images[i]->view,
                                .layout = VK_IMAGE_LAYOUT_GENERAL};
    res = st_renderer_set_create(r, b, 3, &d->set_layout, &d->set, err);
    VkDescriptorSetLayout sets[2] = {desc->method_layout, d->set_layout};
    if (!res && desc->resolve) res = st_renderer_pipeline_layout(r, sets, 2, 0, &d->layout, err);
    else if (!res) res = st_renderer_pipeline_layout(r, &d->set_layout, 1, 0, &d->layout, err);
    if (!res)
        res = st_gpu_compute_pipeline(gpu, desc->resolve ? desc->resolve : "deferred_shade.comp", d->layout,
                                      &d->pipeline, err);
    return res;
}

void st_deferred_begin(st_renderer *r, st_deferred *d, VkCommandBuffer cmd) {
    const st_gpu_image *gb[2] = {&d->point, &d->normal};
    uint32_t n = d->normals ? 2 : 1;
    /* the previous frame's resolve read them: its contents are not kept */
    for (uint32_t i = 0; i < n; i++)
        st_gpu_cmd_image_barrier(cmd, gb[i]->image, gb[i]->aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                                 VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                 VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                 VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    VkRenderingAttachmentInfo color[2];
    for (uint32_t i = 0; i < n; i++)
        color[i] = (VkRenderingAttachmentInfo){.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                               .imageView = gb[i]->view,
                                               .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                               .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                               .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                               .clearValue.color.float32 = {0.0f, 0.0f, 0.0f, -1.0f}}; /* GBUFFER_NONE */
    VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = r->depth.view,
                                       .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                       .clearValue.depthStencil = {0.0f, 0}};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                          .renderArea = {{0, 0}, {r->width, r->height}},
                          .layerCount = 1,
                          .colorAttachmentCount = n,
                          .pColorAttachments = color,
                          .pDepthAttachment = &depth};
    vkCmdBeginRendering(cmd, &ri);
    VkViewport vp = {0, 0, (float)r->width, (float)r->height, 0, 1};
    VkRect2D sc = {{0, 0}, {r->width, r->height}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
}

void st_deferred_resolve(st_renderer *r, st_deferred *d, VkCommandBuffer cmd) {
    vkCmdEndRendering(cmd);
    st_renderer_pass_next(r, cmd, "resolve");
    VkImageMemoryBarrier2 to_read[3];
    to_read[0] = st_gpu_image_barrier(d->point.image, d->point.aspect, 0, 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                      VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                      VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                      VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    /* the 1×1 stand-in holds nothing: only its layout must be the binding's */
    to_read[1] = d->normals ? st_gpu_image_barrier(d->normal.image, d->normal.aspect, 0, 1,
                                                   VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL,
                                                   VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                                   VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                                                   VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                                   VK_ACCESS_2_SHADER_STORAGE_READ_BIT)
                            : st_gpu_image_barrier(d->normal.image, d->normal.aspect, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                                                   VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                                   VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                                   VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    /* the previous frame's copy read the shaded image */
    to_read[2] = st_gpu_image_barrier(d->shaded.image, d->shaded.aspect, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                                      VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE,
                                      VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    st_gpu_cmd_image_barriers(cmd, to_read, 3);
    VkDescriptorSet sets[3] = {r->globals_set, d->method_set, d->set};
    if (!d->method_set) sets[1] = d->set;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, 0, d->method_set ? 3 : 2, sets, 0, NULL);
    vkCmdDispatch(cmd, (r->width + 7) / 8, (r->height + 7) / 8, 1);
    VkImageMemoryBarrier2 to_copy[2] = {
        st_gpu_image_barrier(d->shaded.image, d->shaded.aspect, 0, 1, VK_IMAGE_LAYOUT_GENERAL,
                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                             VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                             VK_ACCESS_2_TRANSFER_READ_BIT),
        st_gpu_image_barrier(r->color.image, r->color.aspect, 0, 1, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                             VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT)};
    st_gpu_cmd_image_barriers(cmd, to_copy, 2);
    VkImageCopy region = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                          .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                          .extent = {r->width, r->height, 1}};
    /* UNORM to SRGB, bytes as they are: the shader encoded them */
    vkCmdCopyImage(cmd, d->shaded.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->color.image,
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    /* left as the forward pass leaves it, for the passes after the method */
    st_gpu_cmd_image_barrier(cmd, r->color.image, r->color.aspect, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
                             VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                             VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
    st_renderer_pass_end(r, cmd);
}

uint64_t st_deferred_gpu_bytes(const st_deferred *d) {
    const st_gpu_image *images[3] = {&d->point, &d->normal, &d->shaded};
    uint64_t bytes = 0;
    for (int i = 0; i < 3; i++) bytes += (uint64_t)images[i]->width * images[i]->height * images[i]->texel_bytes;
    return bytes;
}
