/* The GPU tile pool: a fixed array of tile slots in one 2D-array image (a layer per slot), filled from a
 * persistently mapped staging ring within a per-frame byte budget. A frame's uploads become one transfer
 * batch that signals a timeline semaphore; tickets are the batch's value, so completion is a counter compare,
 * and ring bytes come back only when the batch that reads them has signalled. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"

#define MAX_BATCHES 16          /* transfer batches in flight at once */
#define NO_COPY UINT32_MAX
#define DEFAULT_BUDGET (64ull << 20)
#define WAIT_TIMEOUT_NS 60000000000ull /* st_tile_pool_wait gives up after a minute: a hung device */

typedef struct layer_run {
    uint32_t first, count;
} layer_run;

typedef struct batch {
    VkCommandBuffer cmd;
    uint64_t value; /* the timeline value it signals when done; 0 = free */
    uint64_t bytes; /* tile bytes it copies */
} batch;

struct st_tile_pool {
    st_gpu *gpu;
    st_tile_encoding encoding;
    uint32_t tile_size, slots;
    uint32_t width, height; /* texels of a slot */
    uint64_t tile_bytes, budget;
    VkDeviceSize align;     /* ring offset of every tile */
    VkFormat format;
    bool storage;           /* slots can also be bound as storage images */
    st_gpu_image image;
    st_gpu_ring ring;
    VkCommandPool cmd_pool;
    VkSemaphore timeline;
    uint64_t submitted, completed; /* timeline values: last submitted, last seen signalled */
    batch batches[MAX_BATCHES];
    VkQueryPool queries; /* two timestamps per batch (batch i: 2i, 2i + 1); none on CPU adapters */
    /* this frame's batch, recorded at flush */
    VkBufferImageCopy *copies;
    uint32_t copy_count, copy_cap;
    uint32_t *slot_copy; /* per slot: its entry in copies, or NO_COPY */
    layer_run *runs;     /* flush's scratch: the batch's slots as runs of layers, and a barrier per run */
    VkImageMemoryBarrier2 *barriers;
    uint64_t frame_bytes;
    st_tile_pool_stats stats;
};

static const char *format_name(VkFormat f) {
    switch (f) {
    case VK_FORMAT_R16_UNORM: return "R16_UNORM";
    case VK_FORMAT_R16_UINT: return "R16_UINT";
    case VK_FORMAT_R32_SFLOAT: return "R32_SFLOAT";
    case VK_FORMAT_R8G8B8A8_UINT: return "RGBA8_UINT";
    default: return "?";
    }
}

uint64_t st_tile_pool_tile_bytes(const st_tile_pool *p) { return p->tile_bytes; }

VkImageView st_tile_pool_view(const st_tile_pool *p) { return p->image.view; }

bool st_tile_pool_storage(const st_tile_pool *p) { return p->storage; }

bool st_tile_pool_accepts(const st_tile_pool *p, const st_tile *t, st_error *err) {
    if (!t || !t->data) {
        st_error_set(err, ST_ERR_INVALID, "tile pool: a tile without data");
        return false;
    }
    if (t->encoding != p->encoding || t->size != p->tile_size) {
        st_error_set(err, ST_ERR_INVALID, "tile pool: tile %u/%u/%u (encoding %d, %u a side) in a pool of encoding %d, "
                     "%u a side", t->key.level, t->key.x, t->key.y, (int)t->encoding, t->size, (int)p->encoding,
                     p->tile_size);
        return false;
    }
    if (t->data_bytes != p->tile_bytes) {
        st_error_set(err, ST_ERR_INVALID, "tile pool: tile %u/%u/%u holds %zu bytes, a slot %llu", t->key.level,
                     t->key.x, t->key.y, t->data_bytes, (unsigned long long)p->tile_bytes);
        return false;
    }
    return true;
}

/* ---- creation ---------------------------------------------------------------------------------------- */

/* A barrier on layers [first, first + count) of the slot image. */
static VkImageMemoryBarrier2 layers_barrier(const st_tile_pool *p, uint32_t first, uint32_t count, VkImageLayout from,
                                            VkImageLayout to, VkPipelineStageFlags2 src_stage,
                                            VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                                            VkAccessFlags2 dst_access) {
    return st_gpu_image_barrier(p->image.image, VK_IMAGE_ASPECT_COLOR_BIT, first, count, from, to, src_stage,
                                src_access, dst_stage, dst_access);
}

/* Every slot zeroed and left in ST_TILE_POOL_LAYOUT, the layout every slot is in between batches. */
static st_result clear_slots(st_tile_pool *p, st_error *err) {
    VkCommandBuffer cmd;
    st_result r = st_gpu_once_begin(p->gpu, &cmd, err);
    if (r) return r;
    VkImageMemoryBarrier2 b = layers_barrier(p, 0, p->slots, VK_IMAGE_LAYOUT_UNDEFINED,
                                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_NONE,
                                             VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                                             VK_ACCESS_2_TRANSFER_WRITE_BIT);
    st_gpu_cmd_image_barriers(cmd, &b, 1);
    VkClearColorValue zero = {{0}};
    VkImageSubresourceRange all = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, p->slots};
    vkCmdClearColorImage(cmd, p->image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &all);
    /* The zeros visible to any reader; later batches order themselves after this (their first barrier). */
    b = layers_barrier(p, 0, p->slots, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, ST_TILE_POOL_LAYOUT,
                       VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT);
    st_gpu_cmd_image_barriers(cmd, &b, 1);
    return st_gpu_once_submit(p->gpu, cmd, err);
}

static st_result check_desc(const st_tile_pool_desc *d, st_error *err) {
    if (!d) return st_error_set(err, ST_ERR_INVALID, "tile pool: no description");
    if (d->encoding != ST_TILE_U16 && d->encoding != ST_TILE_F32 && d->encoding != ST_TILE_PAIRS)
        return st_error_set(err, ST_ERR_INVALID, "tile pool: unknown tile encoding %d", (int)d->encoding);
    bool pairs = d->encoding == ST_TILE_PAIRS;
    if (d->tile_size < (pairs ? 2u : 1u) || d->tile_size > ST_TILE_MAX_SIZE || (pairs && d->tile_size % 2))
        return st_error_set(err, ST_ERR_INVALID, "tile pool: tile size %u (want 1 to %u%s)", d->tile_size,
                            ST_TILE_MAX_SIZE, pairs ? ", even for texel pairs" : "");
    if (d->slots < 1) return st_error_set(err, ST_ERR_INVALID, "tile pool: no slots");
    if (d->memory != ST_STAGING_AUTO && d->memory != ST_STAGING_CACHED && d->memory != ST_STAGING_UNCACHED)
        return st_error_set(err, ST_ERR_INVALID, "tile pool: unknown staging memory %d", (int)d->memory);
    return ST_OK;
}

st_result st_tile_pool_create(st_engine *e, const st_tile_pool_desc *d, st_tile_pool **out, st_error *err) {
    *out = NULL;
    st_result r = check_desc(d, err);
    if (r) return r;
    st_tile_pool *p = calloc(1, sizeof *p);
    if (!p) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    p->gpu = e->gpu;
    p->encoding = d->encoding;
    p->tile_size = d->tile_size;
    p->slots = d->slots;
    uint32_t texel = d->encoding == ST_TILE_U16 ? 2 : 4;
    p->format = d->encoding == ST_TILE_U16 ? (d->u16_uint ? VK_FORMAT_R16_UINT : VK_FORMAT_R16_UNORM)
                : d->encoding == ST_TILE_F32 ? VK_FORMAT_R32_SFLOAT
                                             : VK_FORMAT_R8G8B8A8_UINT;
    p->width = d->encoding == ST_TILE_PAIRS ? d->tile_size / 2 : d->tile_size; /* a texel per pair */
    p->height = d->tile_size;
    p->tile_bytes = (uint64_t)p->width * p->height * texel;
    p->budget = d->frame_budget_bytes ? d->frame_budget_bytes : DEFAULT_BUDGET;
    uint64_t ring_bytes = d->ring_bytes ? d->ring_bytes : 3 * p->budget;
    /* Copy offsets: the texel size (required), 16 bytes at least, and the adapter's preferred alignment. */
    VkDeviceSize align = p->gpu->props.limits.optimalBufferCopyOffsetAlignment;
    p->align = 16;
    while (p->align < align && p->align < 4096) p->align *= 2;
    p->stats.format = format_name(p->format);
    p->stats.last_batch_gpu_ms = NAN;
    p->stats.gpu_timestamps = p->gpu->timestamps;
    if (p->budget < p->tile_bytes)
        r = st_error_set(err, ST_ERR_INVALID, "tile pool: a frame budget of %llu bytes is less than one tile (%llu)",
                         (unsigned long long)p->budget, (unsigned long long)p->tile_bytes);
    else if (ring_bytes < p->tile_bytes + p->align)
        r = st_error_set(err, ST_ERR_INVALID, "tile pool: a ring of %llu bytes cannot hold one tile (%llu)",
                         (unsigned long long)ring_bytes, (unsigned long long)p->tile_bytes);
    VkFormatFeatureFlags need = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT |
                                VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
    if (!r && !st_gpu_format_supports(p->gpu, p->format, need))
        r = st_error_set(err, ST_ERR_UNSUPPORTED, "tile pool: this adapter cannot sample %s images", p->stats.format);
    p->storage = st_gpu_format_supports(p->gpu, p->format, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT);
    VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                              VK_IMAGE_USAGE_TRANSFER_SRC_BIT | (p->storage ? VK_IMAGE_USAGE_STORAGE_BIT : 0);
    if (!r) r = st_gpu_image_create_array(p->gpu, p->width, p->height, p->slots, p->format, usage, &p->image, err);
    if (!r) r = clear_slots(p, err);
    if (!r) {
        st_gpu_host_memory kind = d->memory == ST_STAGING_CACHED     ? ST_GPU_HOST_CACHED
                                  : d->memory == ST_STAGING_UNCACHED ? ST_GPU_HOST_UNCACHED
                                                                     : ST_GPU_HOST_AUTO;
        r = st_gpu_ring_create(p->gpu, ring_bytes, kind, &p->ring, err);
    }
    VkDevice dev = p->gpu->device;
    if (!r) {
        VkCommandPoolCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                      .queueFamilyIndex = p->gpu->queue_family};
        r = st_gpu_check(vkCreateCommandPool(dev, &ci, NULL, &p->cmd_pool), "tile pool: command pool", err);
    }
    for (uint32_t i = 0; i < MAX_BATCHES && !r; i++) {
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = p->cmd_pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        r = st_gpu_check(vkAllocateCommandBuffers(dev, &ai, &p->batches[i].cmd), "tile pool: command buffer", err);
    }
    if (!r) {
        VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                        .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
        VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
        r = st_gpu_check(vkCreateSemaphore(dev, &si, NULL, &p->timeline), "tile pool: timeline semaphore", err);
    }
    if (!r && p->gpu->timestamps) {
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                    .queryCount = 2 * MAX_BATCHES};
        r = st_gpu_check(vkCreateQueryPool(dev, &qi, NULL, &p->queries), "tile pool: query pool", err);
    }
    if (!r) {
        p->slot_copy = malloc(p->slots * sizeof *p->slot_copy);
        p->runs = malloc(p->slots * sizeof *p->runs);
        p->barriers = malloc(p->slots * sizeof *p->barriers);
        if (!p->slot_copy || !p->runs || !p->barriers) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
        else
            for (uint32_t i = 0; i < p->slots; i++) p->slot_copy[i] = NO_COPY;
    }
    if (r) {
        st_tile_pool_destroy(p);
        return r;
    }
    p->stats.ring_bytes = p->ring.size;
    p->stats.memory = st_gpu_memory_name(p->ring.buffer.memory_flags);
    *out = p;
    return ST_OK;
}

static st_result wait_value(st_tile_pool *p, uint64_t value, st_error *err);

void st_tile_pool_destroy(st_tile_pool *p) {
    if (!p) return;
    VkDevice dev = p->gpu->device;
    /* Nothing may be freed while a batch still reads the ring or writes the slots. */
    if (p->timeline && p->submitted > p->completed && wait_value(p, p->submitted, NULL)) vkDeviceWaitIdle(dev);
    if (p->queries) vkDestroyQueryPool(dev, p->queries, NULL);
    if (p->timeline) vkDestroySemaphore(dev, p->timeline, NULL);
    if (p->cmd_pool) vkDestroyCommandPool(dev, p->cmd_pool, NULL); /* frees the batches' command buffers */
    st_gpu_ring_destroy(p->gpu, &p->ring);
    st_gpu_image_destroy(p->gpu, &p->image);
    free(p->copies);
    free(p->slot_copy);
    free(p->runs);
    free(p->barriers);
    free(p);
}

/* ---- completion -------------------------------------------------------------------------------------- */

/* Takes in the batches the GPU has finished: their timestamps, their batch slots and their ring bytes. */
static void retire(st_tile_pool *p) {
    uint64_t latest = 0;
    for (uint32_t i = 0; i < MAX_BATCHES; i++) {
        batch *b = &p->batches[i];
        if (!b->value || b->value > p->completed) continue;
        double ms = NAN;
        if (p->queries) {
            uint64_t t[2];
            /* The batch has signalled, so its timestamps are written: no wait flag. */
            if (vkGetQueryPoolResults(p->gpu->device, p->queries, 2 * i, 2, sizeof t, t, sizeof t[0],
                                      VK_QUERY_RESULT_64_BIT) == VK_SUCCESS)
                ms = (double)(t[1] - t[0]) * p->gpu->timestamp_ns * 1e-6;
        }
        if (!isnan(ms)) {
            p->stats.gpu_ms_total += ms;
            p->stats.gpu_bytes_total += b->bytes;
        }
        if (b->value > latest) {
            latest = b->value;
            p->stats.last_batch_gpu_ms = ms;
            p->stats.last_batch_bytes = b->bytes;
        }
        p->stats.batches_done++;
        b->value = 0;
    }
    st_gpu_ring_release(&p->ring, p->completed);
}

static void poll(st_tile_pool *p) {
    uint64_t v = 0;
    if (p->completed < p->submitted && vkGetSemaphoreCounterValue(p->gpu->device, p->timeline, &v) == VK_SUCCESS &&
        v > p->completed) {
        p->completed = v;
        retire(p);
    }
}

bool st_tile_pool_complete(st_tile_pool *p, uint64_t ticket) {
    if (ticket <= p->completed) return true;
    if (ticket > p->submitted) return false; /* this frame's batch: not even submitted */
    poll(p);
    return ticket <= p->completed;
}

static st_result wait_value(st_tile_pool *p, uint64_t value, st_error *err) {
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                              .semaphoreCount = 1,
                              .pSemaphores = &p->timeline,
                              .pValues = &value};
    VkResult vr = vkWaitSemaphores(p->gpu->device, &wi, WAIT_TIMEOUT_NS);
    if (vr == VK_TIMEOUT) return st_error_set(err, ST_ERR_GPU, "tile pool: an upload batch did not finish in a minute");
    st_result r = st_gpu_check(vr, "tile pool: waiting for an upload batch", err);
    if (!r) poll(p);
    return r;
}

st_result st_tile_pool_wait(st_tile_pool *p, uint64_t ticket, st_error *err) {
    if (ticket > p->submitted + 1 || (ticket == p->submitted + 1 && !p->copy_count))
        return st_error_set(err, ST_ERR_INVALID, "tile pool: no upload has ticket %llu", (unsigned long long)ticket);
    st_result r = ticket > p->submitted ? st_tile_pool_flush(p, err) : ST_OK;
    if (!r && ticket > p->completed) r = wait_value(p, ticket, err);
    return r;
}

/* ---- uploads ----------------------------------------------------------------------------------------- */

static batch *free_batch(st_tile_pool *p) {
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < MAX_BATCHES; i++)
            if (!p->batches[i].value) return &p->batches[i];
        if (!pass) poll(p);
    }
    return NULL;
}

bool st_tile_pool_upload(st_tile_pool *p, uint32_t slot, const st_tile *tile, uint64_t *ticket) {
    if (slot >= p->slots || !st_tile_pool_accepts(p, tile, NULL)) {
        p->stats.rejected++;
        return false;
    }
    if (p->frame_bytes + p->tile_bytes > p->budget) {
        p->stats.refused_budget++;
        return false;
    }
    /* This frame's batch will need a free batch at flush; make sure of it before taking anything. */
    if (!p->copy_count && !free_batch(p)) {
        p->stats.refused_ring++;
        return false;
    }
    if (p->copy_count == p->copy_cap) {
        uint32_t cap = p->copy_cap ? 2 * p->copy_cap : 64;
        VkBufferImageCopy *c = realloc(p->copies, cap * sizeof *c);
        if (!c) {
            p->stats.refused_ring++;
            return false;
        }
        p->copies = c;
        p->copy_cap = cap;
    }
    VkDeviceSize at;
    if (!st_gpu_ring_alloc(&p->ring, p->tile_bytes, p->align, &at)) {
        poll(p); /* finished batches may have given bytes back */
        if (!st_gpu_ring_alloc(&p->ring, p->tile_bytes, p->align, &at)) {
            p->stats.refused_ring++;
            return false;
        }
    }
    /* Coherent memory: the submit at flush makes these host writes visible to the copy (no flush needed). */
    memcpy(p->ring.mapped + at, tile->data, (size_t)p->tile_bytes);
    VkBufferImageCopy region = {.bufferOffset = at,
                                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, slot, 1},
                                .imageExtent = {p->width, p->height, 1}};
    /* Two copies into one slot in a batch would race (write after write, no barrier between them): the later
     * tile replaces the earlier copy; the earlier bytes stay in the ring until the batch is done. */
    if (p->slot_copy[slot] != NO_COPY) {
        p->copies[p->slot_copy[slot]] = region;
    } else {
        p->slot_copy[slot] = p->copy_count;
        p->copies[p->copy_count++] = region;
    }
    p->frame_bytes += p->tile_bytes;
    p->stats.uploads++;
    p->stats.bytes_uploaded += p->tile_bytes;
    if (ticket) *ticket = p->submitted + 1;
    return true;
}

st_result st_tile_pool_flush(st_tile_pool *p, st_error *err) {
    p->frame_bytes = 0;
    if (!p->copy_count) return ST_OK;
    batch *b = free_batch(p); /* upload made sure there is one */
    if (!b) return st_error_set(err, ST_ERR_GPU, "tile pool: no free transfer batch");
    uint32_t bi = (uint32_t)(b - p->batches);
    VkCommandBuffer cmd = b->cmd;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    st_result r = st_gpu_check(vkResetCommandBuffer(cmd, 0), "tile pool: resetting a batch", err);
    if (!r) r = st_gpu_check(vkBeginCommandBuffer(cmd, &begin), "tile pool: beginning a batch", err);
    if (!r) {
        if (p->queries) {
            vkCmdResetQueryPool(cmd, p->queries, 2 * bi, 2);
            vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, p->queries, 2 * bi);
        }
        /* The batch's slots as runs of consecutive layers: one barrier per run, not per slot. */
        uint32_t runs = 0;
        for (uint32_t s = 0; s < p->slots; s++) {
            if (p->slot_copy[s] == NO_COPY) continue;
            if (runs && p->runs[runs - 1].first + p->runs[runs - 1].count == s) p->runs[runs - 1].count++;
            else p->runs[runs++] = (layer_run){s, 1};
        }
        /* Before the copies: earlier reads of these slots — shaders of earlier frames, read-backs — must be done
         * (write after read: an execution dependency, no access to make available). Each copy overwrites its
         * whole slot, so the old contents may be discarded (UNDEFINED), sparing a layout conversion. The ring's
         * bytes need no barrier: host writes made before the submit are visible to it. */
        for (uint32_t i = 0; i < runs; i++)
            p->barriers[i] = layers_barrier(p, p->runs[i].first, p->runs[i].count, VK_IMAGE_LAYOUT_UNDEFINED,
                                            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                            VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT,
                                            VK_ACCESS_2_TRANSFER_WRITE_BIT);
        st_gpu_cmd_image_barriers(cmd, p->barriers, runs);
        /* One call: every region is a different layer (slots dedupe in upload), so none overlap. */
        vkCmdCopyBufferToImage(cmd, p->ring.buffer.buffer, p->image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               p->copy_count, p->copies);
        if (p->queries) vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, p->queries, 2 * bi + 1);
        /* After: the new texels, back in the pool's layout, visible to every later reader on the queue (shaders
         * of later frames, read-backs) and ordered before the next batch's writes to the same slots. */
        for (uint32_t i = 0; i < runs; i++)
            p->barriers[i] = layers_barrier(p, p->runs[i].first, p->runs[i].count, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                            ST_TILE_POOL_LAYOUT, VK_PIPELINE_STAGE_2_COPY_BIT,
                                            VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                            VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                                VK_ACCESS_2_TRANSFER_READ_BIT);
        st_gpu_cmd_image_barriers(cmd, p->barriers, runs);
        r = st_gpu_check(vkEndCommandBuffer(cmd), "tile pool: ending a batch", err);
    }
    uint64_t value = p->submitted + 1;
    if (!r) {
        VkCommandBufferSubmitInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
        VkSemaphoreSubmitInfo done = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                      .semaphore = p->timeline,
                                      .value = value,
                                      .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
        VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                            .commandBufferInfoCount = 1,
                            .pCommandBufferInfos = &ci,
                            .signalSemaphoreInfoCount = 1,
                            .pSignalSemaphoreInfos = &done};
        r = st_gpu_check(vkQueueSubmit2(p->gpu->queue, 1, &si, VK_NULL_HANDLE), "tile pool: submitting a batch", err);
    }
    if (!r) {
        p->submitted = value;
        b->value = value;
        b->bytes = (uint64_t)p->copy_count * p->tile_bytes;
        p->stats.batches_submitted++;
    }
    /* Failed or not, the frame's ring bytes go with the latest submitted value: nothing reads them past it. */
    st_gpu_ring_mark(&p->ring, p->submitted);
    for (uint32_t i = 0; i < p->copy_count; i++) p->slot_copy[p->copies[i].imageSubresource.baseArrayLayer] = NO_COPY;
    p->copy_count = 0;
    return r;
}

st_result st_tile_pool_read_slot(st_tile_pool *p, uint32_t slot, void *out, size_t bytes, st_error *err) {
    if (slot >= p->slots)
        return st_error_set(err, ST_ERR_INVALID, "tile pool: slot %u of %u", slot, p->slots);
    if (bytes != p->tile_bytes)
        return st_error_set(err, ST_ERR_INVALID, "tile pool: reading %zu bytes of a %llu-byte slot", bytes,
                            (unsigned long long)p->tile_bytes);
    st_result r = st_gpu_image_read_layer(p->gpu, &p->image, slot, ST_TILE_POOL_LAYOUT, out, err);
    poll(p); /* the read waited for the queue: every submitted batch is done */
    return r;
}

st_tile_pool_stats st_tile_pool_get_stats(const st_tile_pool *p) {
    st_tile_pool_stats s = p->stats;
    s.ring_used = st_gpu_ring_used(&p->ring);
    s.ring_wraps = p->ring.wraps;
    return s;
}

static bool uploader_upload(void *user, uint32_t slot, const st_tile *tile, uint64_t *ticket) {
    return st_tile_pool_upload(user, slot, tile, ticket);
}

static bool uploader_complete(void *user, uint64_t ticket) { return st_tile_pool_complete(user, ticket); }

st_tile_uploader st_tile_pool_uploader(st_tile_pool *p) {
    return (st_tile_uploader){.user = p, .upload = uploader_upload, .complete = uploader_complete};
}
