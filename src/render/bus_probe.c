/* The bus probe: plain host→device copies from a staging buffer (into a buffer, or into an array image of
 * 257² u16 slots as the tile pool copies them) on the engine's queue or on a transfer-only queue, timed by
 * GPU timestamps and by the wall clock. Gives the tile pool's figures their context. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"

#define PROBE_TILE 257u
#define MAX_REPEAT 1000u

typedef struct probe {
    st_gpu *gpu;
    VkQueue queue;
    uint32_t family;
    bool stamps;
    st_gpu_buffer host, device;
    st_gpu_image tiles;
    VkBufferImageCopy *regions;
    uint32_t region_count;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;
} probe;

static void probe_free(probe *p) {
    VkDevice dev = p->gpu->device;
    if (p->queries) vkDestroyQueryPool(dev, p->queries, NULL);
    if (p->fence) vkDestroyFence(dev, p->fence, NULL);
    if (p->pool) vkDestroyCommandPool(dev, p->pool, NULL);
    st_gpu_buffer_destroy(p->gpu, &p->host);
    st_gpu_buffer_destroy(p->gpu, &p->device);
    st_gpu_image_destroy(p->gpu, &p->tiles);
    free(p->regions);
}

/* One timed copy: records, submits, waits; *gpu_ms is NAN without timestamps. */
static st_result copy_once(probe *p, uint64_t bytes, double *gpu_ms, double *wall_ms, st_error *err) {
    VkDevice dev = p->gpu->device;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    st_result r = st_gpu_check(vkResetCommandBuffer(p->cmd, 0), "bus probe: resetting", err);
    if (!r) r = st_gpu_check(vkBeginCommandBuffer(p->cmd, &bi), "bus probe: recording", err);
    if (r) return r;
    /* Reset from the host (hostQueryReset): a transfer-only queue cannot reset queries itself. */
    if (p->queries) {
        vkResetQueryPool(dev, p->queries, 0, 2);
        vkCmdWriteTimestamp2(p->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, p->queries, 0);
    }
    if (p->tiles.image) {
        /* The previous copy's writes are waited on with the fence; discard the old texels (UNDEFINED). */
        VkImageMemoryBarrier2 b = st_gpu_image_barrier(p->tiles.image, VK_IMAGE_ASPECT_COLOR_BIT, 0, p->tiles.layers,
                                                       VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                                       VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                                       VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        st_gpu_cmd_image_barriers(p->cmd, &b, 1);
        vkCmdCopyBufferToImage(p->cmd, p->host.buffer, p->tiles.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               p->region_count, p->regions);
    } else {
        VkBufferCopy region = {.size = bytes};
        vkCmdCopyBuffer(p->cmd, p->host.buffer, p->device.buffer, 1, &region);
    }
    if (p->queries) vkCmdWriteTimestamp2(p->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, p->queries, 1);
    r = st_gpu_check(vkEndCommandBuffer(p->cmd), "bus probe: recording", err);
    if (r) return r;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &p->cmd};
    double t0 = st_time_ms();
    r = st_gpu_check(vkQueueSubmit(p->queue, 1, &si, p->fence), "bus probe: submitting", err);
    if (!r) r = st_gpu_check(vkWaitForFences(dev, 1, &p->fence, VK_TRUE, UINT64_MAX), "bus probe: waiting", err);
    *wall_ms = st_time_ms() - t0;
    vkResetFences(dev, 1, &p->fence);
    *gpu_ms = NAN;
    uint64_t t[2];
    if (!r && p->queries &&
        vkGetQueryPoolResults(dev, p->queries, 0, 2, sizeof t, t, sizeof t[0], VK_QUERY_RESULT_64_BIT) == VK_SUCCESS)
        *gpu_ms = (double)(t[1] - t[0]) * p->gpu->timestamp_ns * 1e-6;
    return r;
}

static st_result probe_setup(probe *p, const st_bus_probe_desc *d, uint64_t *bytes, st_error *err) {
    st_gpu *gpu = p->gpu;
    VkDevice dev = gpu->device;
    st_gpu_host_memory kind = d->memory == ST_STAGING_CACHED     ? ST_GPU_HOST_CACHED
                              : d->memory == ST_STAGING_UNCACHED ? ST_GPU_HOST_UNCACHED
                                                                 : ST_GPU_HOST_AUTO;
    st_result r = ST_OK;
    if (d->into_tiles) {
        uint64_t tile = (uint64_t)PROBE_TILE * PROBE_TILE * 2, pitch = (tile + 255) / 256 * 256;
        uint64_t n = *bytes / pitch;
        if (n < 1) n = 1;
        if (n > gpu->props.limits.maxImageArrayLayers) n = gpu->props.limits.maxImageArrayLayers;
        p->region_count = (uint32_t)n;
        *bytes = n * tile;
        p->regions = calloc(n, sizeof *p->regions);
        if (!p->regions) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            p->regions[i] = (VkBufferImageCopy){.bufferOffset = i * pitch,
                                                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, i, 1},
                                                .imageExtent = {PROBE_TILE, PROBE_TILE, 1}};
        r = st_gpu_buffer_create_host(gpu, n * pitch, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, kind, &p->host, err);
        if (!r)
            r = st_gpu_image_create_array(gpu, PROBE_TILE, PROBE_TILE, (uint32_t)n, VK_FORMAT_R16_UNORM,
                                          VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, &p->tiles, err);
    } else {
        r = st_gpu_buffer_create_host(gpu, *bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, kind, &p->host, err);
        if (!r) r = st_gpu_buffer_create(gpu, *bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, false, &p->device, err);
    }
    if (r) return r;
    /* Bytes the CPU has written (the pages are the driver's, pinned, but write them as an upload would). */
    uint8_t *h = p->host.mapped;
    for (uint64_t i = 0; i < p->host.size; i++) h[i] = (uint8_t)(i * 2654435761u >> 24);
    VkCommandPoolCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = p->family};
    r = st_gpu_check(vkCreateCommandPool(dev, &ci, NULL, &p->pool), "bus probe: command pool", err);
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = p->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    if (!r) r = st_gpu_check(vkAllocateCommandBuffers(dev, &ai, &p->cmd), "bus probe: command buffer", err);
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (!r) r = st_gpu_check(vkCreateFence(dev, &fi, NULL, &p->fence), "bus probe: fence", err);
    if (!r && p->stamps) {
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                    .queryCount = 2};
        r = st_gpu_check(vkCreateQueryPool(dev, &qi, NULL, &p->queries), "bus probe: query pool", err);
    }
    return r;
}

st_result st_tile_pool_measure_bus(st_engine *e, const st_bus_probe_desc *d, st_bus_probe *out, st_error *err) {
    *out = (st_bus_probe){.gpu_gibs = NAN, .wall_gibs = NAN};
    st_bus_probe_desc defaults = {0};
    if (!d) d = &defaults;
    uint32_t repeat = d->repeat ? d->repeat : 9;
    if (repeat > MAX_REPEAT) return st_error_set(err, ST_ERR_INVALID, "bus probe: %u repeats (at most %u)", repeat, MAX_REPEAT);
    if (d->bytes > (16ull << 30)) return st_error_set(err, ST_ERR_INVALID, "bus probe: copies of more than 16 GiB");
    probe p = {.gpu = e->gpu, .queue = e->gpu->queue, .family = e->gpu->queue_family, .stamps = e->gpu->timestamps};
    if (d->transfer_queue) {
        if (!p.gpu->transfer_queue) return ST_OK; /* not available */
        p.queue = p.gpu->transfer_queue;
        p.family = p.gpu->transfer_family;
        p.stamps = p.gpu->transfer_timestamps;
    }
    uint64_t bytes = d->bytes ? d->bytes : 64ull << 20;
    st_result r = probe_setup(&p, d, &bytes, err);
    double *gpu_ms = malloc(repeat * sizeof *gpu_ms), *wall_ms = malloc(repeat * sizeof *wall_ms);
    if (!r && (!gpu_ms || !wall_ms)) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i <= repeat && !r; i++) { /* copy 0 warms up */
        double g, w;
        r = copy_once(&p, bytes, &g, &w, err);
        if (!r && i) {
            gpu_ms[i - 1] = g;
            wall_ms[i - 1] = w;
        }
    }
    if (!r) {
        double gib = (double)bytes / (double)(1ull << 30);
        double g = st_stats_of(gpu_ms, repeat).median, w = st_stats_of(wall_ms, repeat).median;
        *out = (st_bus_probe){.available = true,
                              .queue_family = p.family,
                              .bytes = bytes,
                              .gpu_gibs = p.queries && g > 0 ? gib / (g * 1e-3) : NAN,
                              .wall_gibs = w > 0 ? gib / (w * 1e-3) : NAN,
                              .memory = st_gpu_memory_name(p.host.memory_flags)};
    }
    free(gpu_ms);
    free(wall_ms);
    vkDeviceWaitIdle(p.gpu->device);
    probe_free(&p);
    return r;
}
