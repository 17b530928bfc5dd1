/* Buffers (device-local, and host staging memory of a chosen kind), images and array images, one-shot command
 * buffers, the staging path for uploads and image readback. */
#include <string.h>

#include "gpu/gpu.h"

static bool find_memory(const st_gpu *gpu, uint32_t type_bits, VkMemoryPropertyFlags want, uint32_t *index) {
    for (uint32_t i = 0; i < gpu->memory_props.memoryTypeCount; i++) {
        if ((type_bits & (1u << i)) && (gpu->memory_props.memoryTypes[i].propertyFlags & want) == want) {
            *index = i;
            return true;
        }
    }
    return false;
}

/* Host staging memory: coherent and mapped; host memory before a device-local BAR window, then the kind asked
 * for (cached or write-combined). */
static bool find_host_memory(const st_gpu *gpu, uint32_t type_bits, st_gpu_host_memory kind, uint32_t *index) {
    const VkMemoryPropertyFlags base = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    bool want_cached = kind != ST_GPU_HOST_UNCACHED;
    int best = -1;
    for (uint32_t i = 0; i < gpu->memory_props.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = gpu->memory_props.memoryTypes[i].propertyFlags;
        if (!(type_bits & (1u << i)) || (f & base) != base) continue;
        int score = (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT ? 0 : 4) +
                    (!!(f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) == want_cached ? 2 : 0);
        if (score > best) {
            best = score;
            *index = i;
        }
    }
    return best >= 0;
}

const char *st_gpu_memory_name(VkMemoryPropertyFlags f) {
    bool local = f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, cached = f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    if (!(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) return "device-local";
    if (!(f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) return local ? "device-local host non-coherent" : "host non-coherent";
    if (local) return cached ? "device-local host cached coherent" : "device-local host coherent";
    return cached ? "host cached coherent" : "host coherent (write-combined)";
}

static st_result allocate_type(st_gpu *gpu, VkMemoryRequirements req, uint32_t type, VkDeviceMemory *out,
                               st_error *err) {
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = type};
    VkResult vr = vkAllocateMemory(gpu->device, &ai, NULL, out);
    if (vr != VK_SUCCESS) *out = VK_NULL_HANDLE;
    return st_gpu_check(vr, "allocating device memory", err);
}

static st_result allocate(st_gpu *gpu, VkMemoryRequirements req, VkMemoryPropertyFlags want, VkDeviceMemory *out,
                          st_error *err) {
    uint32_t type;
    if (!find_memory(gpu, req.memoryTypeBits, want, &type))
        return st_error_set(err, ST_ERR_UNSUPPORTED, "no suitable device memory type");
    return allocate_type(gpu, req, type, out, err);
}

/* Device-local memory the CPU can write: the first such type; false when the adapter has none. */
static bool find_device_local_host(const st_gpu *gpu, uint32_t type_bits, uint32_t *index) {
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    return find_memory(gpu, type_bits, want, index);
}

/* kind < 0: the first type with the flags (device-local, or host-visible coherent); else host memory of that
 * kind. */
static st_result buffer_create(st_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible, int kind,
                               st_gpu_buffer *out, st_error *err) {
    memset(out, 0, sizeof *out);
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = usage,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    st_result r = st_gpu_check(vkCreateBuffer(gpu->device, &bi, NULL, &out->buffer), "creating a buffer", err);
    if (r) return r;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(gpu->device, out->buffer, &req);
    VkMemoryPropertyFlags want = host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                              : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    uint32_t type = 0;
    bool found = kind < 0 ? find_memory(gpu, req.memoryTypeBits, want, &type)
                 : kind == ST_GPU_HOST_DEVICE_LOCAL
                     ? find_device_local_host(gpu, req.memoryTypeBits, &type) ||
                           find_memory(gpu, req.memoryTypeBits, want, &type)
                     : find_host_memory(gpu, req.memoryTypeBits, (st_gpu_host_memory)kind, &type);
    r = found ? allocate_type(gpu, req, type, &out->memory, err)
              : st_error_set(err, ST_ERR_UNSUPPORTED, "no suitable device memory type");
    if (!r) out->memory_flags = gpu->memory_props.memoryTypes[type].propertyFlags;
    if (!r) r = st_gpu_check(vkBindBufferMemory(gpu->device, out->buffer, out->memory, 0), "binding buffer memory", err);
    if (!r && host_visible)
        r = st_gpu_check(vkMapMemory(gpu->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped), "mapping memory", err);
    if (r) {
        st_gpu_buffer_destroy(gpu, out);
        return r;
    }
    out->size = size;
    return ST_OK;
}

st_result st_gpu_buffer_create(st_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible,
                               st_gpu_buffer *out, st_error *err) {
    return buffer_create(gpu, size, usage, host_visible, -1, out, err);
}

st_result st_gpu_buffer_create_host(st_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage,
                                    st_gpu_host_memory kind, st_gpu_buffer *out, st_error *err) {
    return buffer_create(gpu, size, usage, true, (int)kind, out, err);
}

void st_gpu_buffer_destroy(st_gpu *gpu, st_gpu_buffer *b) {
    if (b->mapped) vkUnmapMemory(gpu->device, b->memory);
    if (b->buffer) vkDestroyBuffer(gpu->device, b->buffer, NULL);
    if (b->memory) vkFreeMemory(gpu->device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

static uint32_t format_bytes(VkFormat f) {
    switch (f) {
    case VK_FORMAT_R8_UNORM:
    case VK_FORMAT_R8_UINT: return 1;
    case VK_FORMAT_R16_UINT:
    case VK_FORMAT_R16_UNORM: return 2;
    case VK_FORMAT_R32G32_UINT:
    case VK_FORMAT_R16G16B16A16_SFLOAT: return 8;
    case VK_FORMAT_R32G32B32A32_SFLOAT: return 16;
    default: return 4; /* RGBA8, R32, D32 */
    }
}

bool st_gpu_format_supports(const st_gpu *gpu, VkFormat format, VkFormatFeatureFlags features) {
    VkFormatProperties p;
    vkGetPhysicalDeviceFormatProperties(gpu->physical, format, &p);
    return (p.optimalTilingFeatures & features) == features;
}

static st_result image_create(st_gpu *gpu, uint32_t width, uint32_t height, uint32_t layers, uint32_t mips,
                              VkImageViewType view, VkFormat format, VkImageUsageFlags usage, st_gpu_image *out,
                              st_error *err) {
    memset(out, 0, sizeof *out);
    uint32_t max_dim = gpu->props.limits.maxImageDimension2D;
    if (width > max_dim || height > max_dim)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "a %ux%u image is past this adapter's %u limit", width, height,
                            max_dim);
    if (layers < 1 || layers > gpu->props.limits.maxImageArrayLayers)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "%u array layers: this adapter has 1 to %u", layers,
                            gpu->props.limits.maxImageArrayLayers);
    bool depth = format == VK_FORMAT_D32_SFLOAT;
    VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                            .imageType = VK_IMAGE_TYPE_2D,
                            .format = format,
                            .extent = {width, height, 1},
                            .mipLevels = mips,
                            .arrayLayers = layers,
                            .samples = VK_SAMPLE_COUNT_1_BIT,
                            .tiling = VK_IMAGE_TILING_OPTIMAL,
                            .usage = usage,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
                            .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    st_result r = st_gpu_check(vkCreateImage(gpu->device, &ii, NULL, &out->image), "creating an image", err);
    if (r) return r;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(gpu->device, out->image, &req);
    r = allocate(gpu, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &out->memory, err);
    if (!r) r = st_gpu_check(vkBindImageMemory(gpu->device, out->image, out->memory, 0), "binding image memory", err);
    out->aspect = depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT;
    if (!r) {
        VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                    .image = out->image,
                                    .viewType = view,
                                    .format = format,
                                    .subresourceRange = {out->aspect, 0, mips, 0, layers}};
        r = st_gpu_check(vkCreateImageView(gpu->device, &vi, NULL, &out->view), "creating an image view", err);
    }
    if (r) {
        st_gpu_image_destroy(gpu, out);
        return r;
    }
    out->format = format;
    out->width = width;
    out->height = height;
    out->layers = layers;
    out->mips = mips;
    out->texel_bytes = format_bytes(format);
    return ST_OK;
}

st_result st_gpu_image_create(st_gpu *gpu, uint32_t width, uint32_t height, VkFormat format,
                              VkImageUsageFlags usage, st_gpu_image *out, st_error *err) {
    return image_create(gpu, width, height, 1, 1, VK_IMAGE_VIEW_TYPE_2D, format, usage, out, err);
}

st_result st_gpu_image_create_array(st_gpu *gpu, uint32_t width, uint32_t height, uint32_t layers, VkFormat format,
                                    VkImageUsageFlags usage, st_gpu_image *out, st_error *err) {
    return image_create(gpu, width, height, layers, 1, VK_IMAGE_VIEW_TYPE_2D_ARRAY, format, usage, out, err);
}

st_result st_gpu_image_create_mips(st_gpu *gpu, uint32_t width, uint32_t height, uint32_t layers, uint32_t mips,
                                   VkFormat format, VkImageUsageFlags usage, st_gpu_image *out, st_error *err) {
    uint32_t full = 1;
    while ((width >> full) || (height >> full)) full++;
    if (mips < 1 || mips > full)
        return st_error_set(err, ST_ERR_INVALID, "%u mip levels for a %ux%u image (1..%u)", mips, width, height, full);
    return image_create(gpu, width, height, layers, mips, VK_IMAGE_VIEW_TYPE_2D_ARRAY, format, usage, out, err);
}

void st_gpu_image_destroy(st_gpu *gpu, st_gpu_image *img) {
    if (img->view) vkDestroyImageView(gpu->device, img->view, NULL);
    if (img->image) vkDestroyImage(gpu->device, img->image, NULL);
    if (img->memory) vkFreeMemory(gpu->device, img->memory, NULL);
    memset(img, 0, sizeof *img);
}

st_result st_gpu_once_begin(st_gpu *gpu, VkCommandBuffer *cmd, st_error *err) {
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = gpu->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    st_result r = st_gpu_check(vkAllocateCommandBuffers(gpu->device, &ai, cmd), "allocating a command buffer", err);
    if (r) return r;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    return st_gpu_check(vkBeginCommandBuffer(*cmd, &bi), "beginning a command buffer", err);
}

st_result st_gpu_once_submit(st_gpu *gpu, VkCommandBuffer cmd, st_error *err) {
    st_result r = st_gpu_check(vkEndCommandBuffer(cmd), "ending a command buffer", err);
    if (!r) {
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
        r = st_gpu_check(vkQueueSubmit(gpu->queue, 1, &si, VK_NULL_HANDLE), "submitting work", err);
        if (!r) r = st_gpu_check(vkQueueWaitIdle(gpu->queue), "waiting for the GPU", err);
    }
    vkFreeCommandBuffers(gpu->device, gpu->pool, 1, &cmd);
    return r;
}

st_result st_gpu_staging_reserve(st_gpu *gpu, VkDeviceSize size, st_error *err) {
    if (gpu->staging_size >= size) return ST_OK;
    if (gpu->staging) {
        vkUnmapMemory(gpu->device, gpu->staging_memory);
        vkDestroyBuffer(gpu->device, gpu->staging, NULL);
        vkFreeMemory(gpu->device, gpu->staging_memory, NULL);
        gpu->staging = VK_NULL_HANDLE;
        gpu->staging_size = 0;
    }
    st_gpu_buffer b;
    st_result r = st_gpu_buffer_create(gpu, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       true, &b, err);
    if (r) return r;
    gpu->staging = b.buffer;
    gpu->staging_memory = b.memory;
    gpu->staging_mapped = b.mapped;
    gpu->staging_size = size;
    return ST_OK;
}

void st_gpu_cmd_upload_rect(VkCommandBuffer cmd, st_gpu *gpu, st_gpu_image *img, VkImageLayout old_layout,
                            uint32_t x, uint32_t y, uint32_t w, uint32_t h, VkImageLayout final_layout) {
    /* Earlier shader reads of the image must finish before the copy overwrites it. */
    st_gpu_cmd_image_barrier(cmd, img->image, img->aspect, old_layout, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT,
                             VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferImageCopy region = {.bufferOffset = 0,
                                .bufferRowLength = w,
                                .bufferImageHeight = h,
                                .imageSubresource = {img->aspect, 0, 0, 1},
                                .imageOffset = {(int32_t)x, (int32_t)y, 0},
                                .imageExtent = {w, h, 1}};
    vkCmdCopyBufferToImage(cmd, gpu->staging, img->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    st_gpu_cmd_image_barrier(cmd, img->image, img->aspect, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, final_layout,
                             VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                             VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT);
}

st_result st_gpu_image_read_layer(st_gpu *gpu, st_gpu_image *img, uint32_t layer, VkImageLayout layout, void *out,
                                  st_error *err) {
    if (layer >= img->layers)
        return st_error_set(err, ST_ERR_INVALID, "reading layer %u of an image of %u", layer, img->layers);
    VkDeviceSize size = (VkDeviceSize)img->width * img->height * img->texel_bytes;
    st_result r = st_gpu_staging_reserve(gpu, size, err);
    if (r) return r;
    VkCommandBuffer cmd;
    r = st_gpu_once_begin(gpu, &cmd, err);
    if (r) return r;
    /* Whatever wrote the image last: a pass (attachment, storage) or a copy (uploads). */
    VkPipelineStageFlags2 writers = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
                                    VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT |
                                    VK_PIPELINE_STAGE_2_COPY_BIT;
    VkAccessFlags2 writes = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                            VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT;
    VkImageMemoryBarrier2 to_copy =
        st_gpu_image_barrier(img->image, img->aspect, layer, 1, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, writers,
                             writes, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    st_gpu_cmd_image_barriers(cmd, &to_copy, 1);
    VkBufferImageCopy region = {.imageSubresource = {img->aspect, 0, layer, 1},
                                .imageExtent = {img->width, img->height, 1}};
    vkCmdCopyImageToBuffer(cmd, img->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, gpu->staging, 1, &region);
    VkImageMemoryBarrier2 back = st_gpu_image_barrier(
        img->image, img->aspect, layer, 1, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, layout, VK_PIPELINE_STAGE_2_COPY_BIT,
        VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_NONE);
    st_gpu_cmd_image_barriers(cmd, &back, 1);
    st_gpu_cmd_buffer_barrier(cmd, gpu->staging, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    r = st_gpu_once_submit(gpu, cmd, err);
    if (r) return r;
    memcpy(out, gpu->staging_mapped, (size_t)size);
    return ST_OK;
}

st_result st_gpu_image_read(st_gpu *gpu, st_gpu_image *img, VkImageLayout layout, void *out, st_error *err) {
    return st_gpu_image_read_layer(gpu, img, 0, layout, out, err);
}

st_result st_gpu_buffer_read(st_gpu *gpu, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes, void *out,
                             st_error *err) {
    st_result r = st_gpu_staging_reserve(gpu, bytes, err);
    VkCommandBuffer cmd;
    if (!r) r = st_gpu_once_begin(gpu, &cmd, err);
    if (r) return r;
    /* The copy reads what compute work wrote last. */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    VkBufferCopy region = {.srcOffset = offset, .size = bytes};
    vkCmdCopyBuffer(cmd, buffer, gpu->staging, 1, &region);
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    r = st_gpu_once_submit(gpu, cmd, err);
    if (!r) memcpy(out, gpu->staging_mapped, (size_t)bytes);
    return r;
}
