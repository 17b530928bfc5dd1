/* Presenting to a window: the surface and swapchain, and one overlay pass per frame that draws the renderer's
 * colour target over the whole swapchain image and the overlay's triangles (the viewer's HUD) on top. The frame
 * is sampled in a shader rather than blitted because a compute method's target holds sRGB-encoded bytes in a
 * UNORM image while a raster method's is an sRGB image: a blit converts by format and would encode one of
 * them twice; the shader decodes each kind correctly for either kind of swapchain. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "strata/present.h"

#define MAX_IMAGES 8
#define OVERLAY_VERTICES (3u * 65536u)

typedef struct overlay_push {
    float viewport[2];
    uint32_t mode;  /* 0 HUD, 1 frame */
    uint32_t flags; /* bit 0: the swapchain encodes sRGB; bit 1: the frame holds sRGB bytes in UNORM */
} overlay_push;

struct st_presenter {
    st_engine *engine;
    st_gpu *gpu;
    VkSurfaceKHR surface;
    VkSwapchainKHR swapchain;
    VkSurfaceFormatKHR format;
    bool srgb;
    VkPresentModeKHR mode;
    uint32_t width, height;
    uint32_t image_count;
    VkImage images[MAX_IMAGES];
    VkImageView views[MAX_IMAGES];
    VkSemaphore rendered[MAX_IMAGES]; /* one per image: a present may still wait on the previous one */
    VkSemaphore acquired;
    VkCommandBuffer cmd;
    VkFence fence;
    bool submitted; /* the fence will be signalled by work in flight */
    VkQueryPool queries;
    bool stamped;
    double gpu_ms;
    VkSampler sampler;
    VkDescriptorSetLayout set_layout;
    VkDescriptorPool pool;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkFormat pipeline_format;
    st_gpu_buffer vertices;
};

static bool is_srgb(VkFormat f) { return f == VK_FORMAT_B8G8R8A8_SRGB || f == VK_FORMAT_R8G8B8A8_SRGB; }

static st_result choose_format(st_presenter *p, st_error *err) {
    VkPhysicalDevice pd = p->gpu->physical;
    VkSurfaceFormatKHR formats[64];
    uint32_t n = 64; /* VK_INCOMPLETE past 64 formats is fine: the common ones come first */
    VkResult vr = vkGetPhysicalDeviceSurfaceFormatsKHR(pd, p->surface, &n, formats);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE) return st_gpu_check(vr, "listing the surface formats", err);
    /* an sRGB format lets blending run in linear light; 8-bit UNORM is the fallback */
    int best = -1, best_rank = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (formats[i].colorSpace != VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) continue;
        VkFormat f = formats[i].format;
        int rank = is_srgb(f) ? 2 : (f == VK_FORMAT_B8G8R8A8_UNORM || f == VK_FORMAT_R8G8B8A8_UNORM) ? 1 : -1;
        if (rank > best_rank) {
            best = (int)i;
            best_rank = rank;
        }
    }
    if (best < 0) return st_error_set(err, ST_ERR_UNSUPPORTED, "the window surface offers no 8-bit sRGB format");
    p->format = formats[best];
    p->srgb = is_srgb(p->format.format);
    return ST_OK;
}

static VkPresentModeKHR choose_mode(st_presenter *p, bool vsync) {
    if (vsync) return VK_PRESENT_MODE_FIFO_KHR; /* always supported */
    VkPresentModeKHR modes[16];
    uint32_t n = 16;
    if (vkGetPhysicalDeviceSurfacePresentModesKHR(p->gpu->physical, p->surface, &n, modes) < 0) n = 0;
    bool mailbox = false, immediate = false;
    for (uint32_t i = 0; i < n; i++) {
        mailbox |= modes[i] == VK_PRESENT_MODE_MAILBOX_KHR;
        immediate |= modes[i] == VK_PRESENT_MODE_IMMEDIATE_KHR;
    }
    return mailbox ? VK_PRESENT_MODE_MAILBOX_KHR : immediate ? VK_PRESENT_MODE_IMMEDIATE_KHR : VK_PRESENT_MODE_FIFO_KHR;
}

static void destroy_swapchain_images(st_presenter *p) {
    VkDevice dev = p->gpu->device;
    for (uint32_t i = 0; i < MAX_IMAGES; i++) {
        if (p->views[i]) vkDestroyImageView(dev, p->views[i], NULL);
        if (p->rendered[i]) vkDestroySemaphore(dev, p->rendered[i], NULL);
        p->views[i] = VK_NULL_HANDLE;
        p->rendered[i] = VK_NULL_HANDLE;
        p->images[i] = VK_NULL_HANDLE;
    }
    p->image_count = 0;
}

static st_result create_pipeline(st_presenter *p, st_error *err) {
    VkDevice dev = p->gpu->device;
    if (p->pipeline && p->pipeline_format == p->format.format) return ST_OK;
    if (p->pipeline) vkDestroyPipeline(dev, p->pipeline, NULL);
    p->pipeline = VK_NULL_HANDLE;
    VkVertexInputBindingDescription binding = {.binding = 0, .stride = sizeof(st_overlay_vertex),
                                               .inputRate = VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription attrs[2] = {
        {.location = 0, .binding = 0, .format = VK_FORMAT_R32G32_SFLOAT, .offset = offsetof(st_overlay_vertex, x)},
        {.location = 1, .binding = 0, .format = VK_FORMAT_R8G8B8A8_UNORM, .offset = offsetof(st_overlay_vertex, rgba)}};
    VkPipelineVertexInputStateCreateInfo vertex_input = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
                                                         .vertexBindingDescriptionCount = 1,
                                                         .pVertexBindingDescriptions = &binding,
                                                         .vertexAttributeDescriptionCount = 2,
                                                         .pVertexAttributeDescriptions = attrs};
    /* straight alpha over the frame; the frame itself is drawn with alpha 1; no depth */
    st_gpu_graphics_desc d = {.vertex = "hud.vert",
                              .fragment = "hud.frag",
                              .layout = p->layout,
                              .color_format = p->format.format,
                              .depth_format = VK_FORMAT_UNDEFINED,
                              .cull = VK_CULL_MODE_NONE,
                              .alpha_blend = true,
                              .vertex_input = &vertex_input};
    st_result r = st_gpu_graphics_pipeline(p->gpu, &d, &p->pipeline, err);
    if (!r) p->pipeline_format = p->format.format;
    else p->pipeline = VK_NULL_HANDLE;
    return r;
}

static st_result create_swapchain(st_presenter *p, uint32_t width, uint32_t height, bool vsync, st_error *err) {
    VkDevice dev = p->gpu->device;
    if (!width || !height) return st_error_set(err, ST_ERR_INVALID, "a %ux%u window cannot be presented to", width, height);
    VkSurfaceCapabilitiesKHR caps;
    st_result r = st_gpu_check(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(p->gpu->physical, p->surface, &caps),
                               "surface capabilities", err);
    if (!r) r = choose_format(p, err);
    if (r) return r;
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == UINT32_MAX) { /* the surface takes the swapchain's size */
        extent.width = width < caps.minImageExtent.width ? caps.minImageExtent.width
                       : width > caps.maxImageExtent.width ? caps.maxImageExtent.width : width;
        extent.height = height < caps.minImageExtent.height ? caps.minImageExtent.height
                        : height > caps.maxImageExtent.height ? caps.maxImageExtent.height : height;
    }
    if (!extent.width || !extent.height) return st_error_set(err, ST_ERR_INVALID, "the window has no area (minimised)");
    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount) count = caps.maxImageCount;
    if (count > MAX_IMAGES) count = MAX_IMAGES;
    VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    if (!(caps.supportedCompositeAlpha & alpha)) {
        for (uint32_t bit = 1; bit; bit <<= 1)
            if (caps.supportedCompositeAlpha & bit) {
                alpha = (VkCompositeAlphaFlagBitsKHR)bit;
                break;
            }
    }
    p->mode = choose_mode(p, vsync);
    VkSwapchainKHR old = p->swapchain;
    VkSwapchainCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
                                   .surface = p->surface,
                                   .minImageCount = count,
                                   .imageFormat = p->format.format,
                                   .imageColorSpace = p->format.colorSpace,
                                   .imageExtent = extent,
                                   .imageArrayLayers = 1,
                                   .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                   .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
                                   .preTransform = caps.currentTransform,
                                   .compositeAlpha = alpha,
                                   .presentMode = p->mode,
                                   .clipped = VK_TRUE,
                                   .oldSwapchain = old};
    VkSwapchainKHR created = VK_NULL_HANDLE;
    r = st_gpu_check(vkCreateSwapchainKHR(dev, &ci, NULL, &created), "creating the swapchain", err);
    /* the old swapchain is retired either way; nothing of it is in flight (callers wait for idle) */
    destroy_swapchain_images(p);
    if (old) vkDestroySwapchainKHR(dev, old, NULL);
    p->swapchain = created;
    if (r) return r;
    p->width = extent.width;
    p->height = extent.height;
    uint32_t n = 0;
    vkGetSwapchainImagesKHR(dev, p->swapchain, &n, NULL);
    if (n > MAX_IMAGES) return st_error_set(err, ST_ERR_UNSUPPORTED, "the swapchain has %u images (at most %d)", n, MAX_IMAGES);
    r = st_gpu_check(vkGetSwapchainImagesKHR(dev, p->swapchain, &n, p->images), "swapchain images", err);
    p->image_count = n;
    for (uint32_t i = 0; i < n && !r; i++) {
        VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                    .image = p->images[i],
                                    .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                    .format = p->format.format,
                                    .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
        r = st_gpu_check(vkCreateImageView(dev, &vi, NULL, &p->views[i]), "swapchain image view", err);
        VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        if (!r) r = st_gpu_check(vkCreateSemaphore(dev, &si, NULL, &p->rendered[i]), "semaphore", err);
    }
    if (!r) r = create_pipeline(p, err);
    return r;
}

st_result st_presenter_create(st_engine *engine, const st_presenter_desc *desc, st_presenter **out, st_error *err) {
    *out = NULL;
    if (!engine->gpu->swapchain)
        return st_error_set(err, ST_ERR_INVALID, "the engine was created without .present: it cannot show a window");
    if (!desc->create_surface) return st_error_set(err, ST_ERR_INVALID, "no surface callback");
    st_presenter *p = calloc(1, sizeof *p);
    if (!p) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    p->engine = engine;
    p->gpu = engine->gpu;
    p->gpu_ms = NAN;
    st_gpu *gpu = p->gpu;
    VkDevice dev = gpu->device;
    st_result r = st_gpu_check(desc->create_surface(gpu->instance, desc->user, &p->surface), "creating the window surface",
                               err);
    if (r) p->surface = VK_NULL_HANDLE;
    if (!r) {
        VkBool32 supported = VK_FALSE;
        r = st_gpu_check(vkGetPhysicalDeviceSurfaceSupportKHR(gpu->physical, gpu->queue_family, p->surface, &supported),
                         "surface support", err);
        if (!r && !supported)
            r = st_error_set(err, ST_ERR_UNSUPPORTED, "adapter %s cannot present to this window from its queue",
                             gpu->props.deviceName);
    }
    if (!r) {
        VkSamplerCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                                  .magFilter = VK_FILTER_NEAREST,
                                  .minFilter = VK_FILTER_NEAREST,
                                  .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                  .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                  .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE};
        r = st_gpu_check(vkCreateSampler(dev, &si, NULL, &p->sampler), "sampler", err);
    }
    st_gpu_binding frame = {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = VK_SHADER_STAGE_FRAGMENT_BIT,
                            .immutable_sampler = &p->sampler};
    if (!r) r = st_gpu_set_layout(gpu, &frame, 1, &p->set_layout, err);
    if (!r) {
        VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
        VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                         .maxSets = 1,
                                         .poolSizeCount = 1,
                                         .pPoolSizes = &size};
        r = st_gpu_check(vkCreateDescriptorPool(dev, &pi, NULL, &p->pool), "descriptor pool", err);
    }
    if (!r) r = st_gpu_set_alloc(gpu, p->pool, p->set_layout, &p->set, err);
    if (!r) {
        VkPushConstantRange push = {.stageFlags = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                                    .size = sizeof(overlay_push)};
        VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                         .setLayoutCount = 1,
                                         .pSetLayouts = &p->set_layout,
                                         .pushConstantRangeCount = 1,
                                         .pPushConstantRanges = &push};
        r = st_gpu_check(vkCreatePipelineLayout(dev, &li, NULL, &p->layout), "pipeline layout", err);
    }
    if (!r)
        r = st_gpu_buffer_create(gpu, OVERLAY_VERTICES * sizeof(st_overlay_vertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true,
                                 &p->vertices, err);
    if (!r) {
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = gpu->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        r = st_gpu_check(vkAllocateCommandBuffers(dev, &ai, &p->cmd), "command buffer", err);
    }
    if (!r) {
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        r = st_gpu_check(vkCreateFence(dev, &fi, NULL, &p->fence), "fence", err);
    }
    if (!r) {
        VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        r = st_gpu_check(vkCreateSemaphore(dev, &si, NULL, &p->acquired), "semaphore", err);
    }
    if (!r && gpu->timestamps) {
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                    .queryCount = 2};
        r = st_gpu_check(vkCreateQueryPool(dev, &qi, NULL, &p->queries), "query pool", err);
    }
    if (!r) r = create_swapchain(p, desc->width, desc->height, desc->vsync, err);
    if (r) {
        st_presenter_destroy(p);
        return r;
    }
    *out = p;
    return ST_OK;
}

void st_presenter_destroy(st_presenter *p) {
    if (!p) return;
    VkDevice dev = p->gpu->device;
    vkDeviceWaitIdle(dev);
    destroy_swapchain_images(p);
    if (p->swapchain) vkDestroySwapchainKHR(dev, p->swapchain, NULL);
    if (p->pipeline) vkDestroyPipeline(dev, p->pipeline, NULL);
    if (p->layout) vkDestroyPipelineLayout(dev, p->layout, NULL);
    if (p->pool) vkDestroyDescriptorPool(dev, p->pool, NULL);
    if (p->set_layout) vkDestroyDescriptorSetLayout(dev, p->set_layout, NULL);
    if (p->sampler) vkDestroySampler(dev, p->sampler, NULL);
    if (p->queries) vkDestroyQueryPool(dev, p->queries, NULL);
    if (p->acquired) vkDestroySemaphore(dev, p->acquired, NULL);
    if (p->fence) vkDestroyFence(dev, p->fence, NULL);
    if (p->cmd) vkFreeCommandBuffers(dev, p->gpu->pool, 1, &p->cmd);
    st_gpu_buffer_destroy(p->gpu, &p->vertices);
    if (p->surface) vkDestroySurfaceKHR(p->gpu->instance, p->surface, NULL);
    free(p);
}

st_result st_presenter_resize(st_presenter *p, uint32_t width, uint32_t height, bool vsync, st_error *err) {
    /* nothing may still use the swapchain images or their semaphores while they are replaced */
    vkDeviceWaitIdle(p->gpu->device);
    return create_swapchain(p, width, height, vsync, err);
}

void st_presenter_size(const st_presenter *p, uint32_t *width, uint32_t *height) {
    *width = p->width;
    *height = p->height;
}

const char *st_presenter_mode(const st_presenter *p) {
    switch (p->mode) {
    case VK_PRESENT_MODE_MAILBOX_KHR: return "mailbox";
    case VK_PRESENT_MODE_IMMEDIATE_KHR: return "immediate";
    case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "fifo-relaxed";
    default: return "fifo";
    }
}

double st_presenter_gpu_ms(const st_presenter *p) { return p->gpu_ms; }

/* Waits for the previous overlay pass (its command buffer, descriptor set and vertices are reused) and
 * reads its timestamps. */
static st_result wait_previous(st_presenter *p, st_error *err) {
    if (!p->submitted) return ST_OK;
    VkDevice dev = p->gpu->device;
    st_result r = st_gpu_check(vkWaitForFences(dev, 1, &p->fence, VK_TRUE, UINT64_MAX), "waiting for the present", err);
    if (r) return r;
    vkResetFences(dev, 1, &p->fence);
    p->submitted = false;
    if (p->stamped) {
        uint64_t ticks[2];
        if (vkGetQueryPoolResults(dev, p->queries, 0, 2, sizeof ticks, ticks, sizeof(uint64_t),
                                  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS)
            p->gpu_ms = (double)(ticks[1] - ticks[0]) * p->gpu->timestamp_ns * 1e-6;
        p->stamped = false;
    }
    return ST_OK;
}

static void record(st_presenter *p, st_renderer *rd, uint32_t index, uint32_t vertex_count) {
    VkCommandBuffer cmd = p->cmd;
    bool raster = rd->ops->targets == ST_TARGETS_RASTER;
    if (p->queries) {
        vkCmdResetQueryPool(cmd, p->queries, 0, 2);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, p->queries, 0);
    }
    /* The method wrote its colour target in an earlier submission (as an attachment or from compute; over a storage
     * target the water pass draws as an attachment); the overlay samples it in the fragment shader. */
    if (raster)
        st_gpu_cmd_image_barrier(cmd, rd->color.image, rd->color.aspect, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                 VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                 VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    else
        st_gpu_cmd_image_barrier(cmd, rd->color.image, rd->color.aspect, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                                 VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                 VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                                 VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    /* The swapchain image's old content is not needed. The source stage is the one the acquire semaphore
     * is waited at, so the layout change happens after the presentation engine has let go of the image. */
    st_gpu_cmd_image_barrier(cmd, p->images[index], VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                             VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                             VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = p->views[index],
                                       .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE, /* the frame covers every pixel */
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                          .renderArea = {{0, 0}, {p->width, p->height}},
                          .layerCount = 1,
                          .colorAttachmentCount = 1,
                          .pColorAttachments = &color};
    vkCmdBeginRendering(cmd, &ri);
    VkViewport vp = {0, 0, (float)p->width, (float)p->height, 0, 1};
    VkRect2D sc = {{0, 0}, {p->width, p->height}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p->layout, 0, 1, &p->set, 0, NULL);
    VkDeviceSize offset = 0;
    vkCmdBindVertexBuffers(cmd, 0, 1, &p->vertices.buffer, &offset);
    overlay_push push = {.viewport = {(float)p->width, (float)p->height},
                         .mode = 1,
                         .flags = (p->srgb ? 1u : 0u) | (raster ? 0u : 2u)};
    VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    vkCmdPushConstants(cmd, p->layout, stages, 0, sizeof push, &push);
    vkCmdDraw(cmd, 3, 1, 0, 0);
    if (vertex_count) {
        push.mode = 0;
        vkCmdPushConstants(cmd, p->layout, stages, 0, sizeof push, &push);
        vkCmdDraw(cmd, vertex_count, 1, 0, 0);
    }
    vkCmdEndRendering(cmd);
    /* Presentation reads the image after the submission's semaphore signal, which waits for all of it. */
    st_gpu_cmd_image_barrier(cmd, p->images[index], VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                             VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                             VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
    /* Back to the layout the method and st_renderer_readback expect. Reads before a later write need only
     * the execution dependency; whoever writes next brings its own barrier. */
    if (raster)
        st_gpu_cmd_image_barrier(cmd, rd->color.image, rd->color.aspect, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                 VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                 VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_NONE);
    if (p->queries) {
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, p->queries, 1);
        p->stamped = true;
    }
}

st_result st_presenter_present(st_presenter *p, st_renderer *rd, const st_overlay_vertex *overlay, size_t overlay_count,
                               bool *stale, st_error *err) {
    *stale = false;
    if (!rd->drawn) return st_error_set(err, ST_ERR_INVALID, "present before the renderer drew a frame");
    VkDevice dev = p->gpu->device;
    st_result r = wait_previous(p, err);
    if (r) return r;
    uint32_t index = 0;
    VkResult vr = vkAcquireNextImageKHR(dev, p->swapchain, UINT64_MAX, p->acquired, VK_NULL_HANDLE, &index);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR) {
        *stale = true; /* nothing was acquired: the semaphore stays unsignalled */
        return ST_OK;
    }
    if (vr == VK_SUBOPTIMAL_KHR) *stale = true;
    else if ((r = st_gpu_check(vr, "acquiring a swapchain image", err))) return r;
    /* the set is not in use: the previous pass completed above */
    st_gpu_binding frame = {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .view = rd->color.view,
                            .layout = rd->ops->targets == ST_TARGETS_RASTER ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
                                                                            : VK_IMAGE_LAYOUT_GENERAL};
    st_gpu_set_write(p->gpu, p->set, &frame, 1);
    size_t count = overlay ? overlay_count : 0;
    if (count > OVERLAY_VERTICES) count = OVERLAY_VERTICES;
    count -= count % 3;
    if (count) memcpy(p->vertices.mapped, overlay, count * sizeof *overlay);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    r = st_gpu_check(vkResetCommandBuffer(p->cmd, 0), "resetting the present", err);
    if (!r) r = st_gpu_check(vkBeginCommandBuffer(p->cmd, &bi), "beginning the present", err);
    if (r) return r;
    record(p, rd, index, (uint32_t)count);
    r = st_gpu_check(vkEndCommandBuffer(p->cmd), "ending the present", err);
    if (r) return r;
    VkSemaphoreSubmitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                  .semaphore = p->acquired,
                                  .stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT};
    VkSemaphoreSubmitInfo signal = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                    .semaphore = p->rendered[index],
                                    .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkCommandBufferSubmitInfo cb = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = p->cmd};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                        .waitSemaphoreInfoCount = 1,
                        .pWaitSemaphoreInfos = &wait,
                        .commandBufferInfoCount = 1,
                        .pCommandBufferInfos = &cb,
                        .signalSemaphoreInfoCount = 1,
                        .pSignalSemaphoreInfos = &signal};
    r = st_gpu_check(vkQueueSubmit2(p->gpu->queue, 1, &si, p->fence), "submitting the present", err);
    if (r) return r;
    p->submitted = true;
    VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
                           .waitSemaphoreCount = 1,
                           .pWaitSemaphores = &p->rendered[index],
                           .swapchainCount = 1,
                           .pSwapchains = &p->swapchain,
                           .pImageIndices = &index};
    vr = vkQueuePresentKHR(p->gpu->queue, &pi);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR || vr == VK_SUBOPTIMAL_KHR) {
        *stale = true;
        return ST_OK;
    }
    return st_gpu_check(vr, "presenting", err);
}
