/* The thin Vulkan layer: instance and device (with validation hookup), buffers, images, uploads, the
 * staging ring, readback, shader modules and pipelines, timestamp queries. It knows nothing about terrain. */
#ifndef STRATA_GPU_H
#define STRATA_GPU_H

#include <stdatomic.h>
#include <vulkan/vulkan.h>

#include "strata/core.h"

typedef struct st_gpu_desc {
    int device_index;  /* used when device_given */
    bool device_given;
    bool validate;
    /* For a window: instance extensions the window system needs (e.g. from GLFW) and the swapchain device
     * extension. Zero = headless, the default. */
    const char *const *instance_extensions;
    uint32_t instance_extension_count;
    bool swapchain;
} st_gpu_desc;

typedef struct st_gpu {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties memory_props;
    char driver_name[256];
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    /* A queue of a transfer-only family (a copy engine), when the adapter has one; VK_NULL_HANDLE otherwise.
     * Only the bus probe uses it so far: it tells whether a copy engine would upload faster. */
    VkQueue transfer_queue;
    uint32_t transfer_family;
    bool transfer_timestamps; /* its family writes timestamps */
    VkCommandPool pool;
    VkPipelineCache pipeline_cache; /* in memory: renderers rebuilt with the same method compile once */
    bool timestamps;        /* the queue supports timestamps */
    double timestamp_ns;    /* ns per tick */
    atomic_uint validation_messages;
    bool validation;
    bool swapchain; /* VK_KHR_swapchain is enabled on the device */
    bool memory_budget; /* VK_EXT_memory_budget is enabled on the device */
    bool fill_mode_non_solid; /* wireframe pipelines are possible */
    bool int64_atomics; /* shaderInt64 + shaderBufferInt64Atomics are enabled (64-bit atomics on buffers) */
    bool float64;       /* shaderFloat64 is enabled (doubles in shaders) */
    /* a persistent host-visible staging buffer, grown on demand */
    VkBuffer staging;
    VkDeviceMemory staging_memory;
    void *staging_mapped;
    VkDeviceSize staging_size;
} st_gpu;

st_result st_gpu_create(const st_gpu_desc *desc, st_gpu **out, st_error *err);
void st_gpu_destroy(st_gpu *gpu);
st_result st_gpu_list(char *buf, size_t cap, st_error *err);
const char *st_gpu_type_name(VkPhysicalDeviceType type);
st_result st_gpu_check(VkResult vr, const char *what, st_error *err);

/* ---- memory ------------------------------------------------------------------------------------------ */
typedef struct st_gpu_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped; /* host-visible buffers stay mapped */
    VkMemoryPropertyFlags memory_flags; /* of the memory type it lives in */
} st_gpu_buffer;

st_result st_gpu_buffer_create(st_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible,
                               st_gpu_buffer *out, st_error *err);
void st_gpu_buffer_destroy(st_gpu *gpu, st_gpu_buffer *b);

/* Host memory for staging: the CPU writes it, the GPU reads it across the bus. Both kinds are pinned and
 * coherent (no flushes); CACHED goes through the CPU caches (the GPU snoops), UNCACHED is write-combined. */
typedef enum st_gpu_host_memory {
    ST_GPU_HOST_AUTO = 0,  /* CACHED where the adapter offers it, else UNCACHED */
    ST_GPU_HOST_CACHED,
    ST_GPU_HOST_UNCACHED,
    /* device-local memory the CPU writes across the bus (a BAR window) where the adapter has such, else the first
     * host-visible coherent kind: for tables the CPU writes and the GPU reads on a latency-bound path, where each
     * miss of the GPU's caches in host memory is a round trip across the bus (the CPU should not read it back) */
    ST_GPU_HOST_DEVICE_LOCAL,
} st_gpu_host_memory;
/* A persistently mapped, host-visible, coherent buffer of the kind asked for. Memory types that are also
 * device-local (a BAR window into video memory) are taken only when no other type has the flags (or when the kind
 * is ST_GPU_HOST_DEVICE_LOCAL, which asks for one); an adapter
 * without the kind asked for gets the nearest one it has (memory_flags says which). */
st_result st_gpu_buffer_create_host(st_gpu *gpu, VkDeviceSize size, VkBufferUsageFlags usage,
                                    st_gpu_host_memory kind, st_gpu_buffer *out, st_error *err);
/* "host cached coherent", "host coherent", "device-local host coherent", ... for reports. */
const char *st_gpu_memory_name(VkMemoryPropertyFlags flags);

typedef struct st_gpu_image {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
    VkFormat format;
    VkImageAspectFlags aspect;
    uint32_t width, height;
    uint32_t layers; /* array layers (1 for a plain 2D image) */
    uint32_t mips;   /* mip levels (1 but for st_gpu_image_create_mips) */
    uint32_t texel_bytes;
} st_gpu_image;

st_result st_gpu_image_create(st_gpu *gpu, uint32_t width, uint32_t height, VkFormat format,
                              VkImageUsageFlags usage, st_gpu_image *out, st_error *err);
/* A 2D array image of `layers` layers with a 2D_ARRAY view over all of them (also for one layer). */
st_result st_gpu_image_create_array(st_gpu *gpu, uint32_t width, uint32_t height, uint32_t layers, VkFormat format,
                                    VkImageUsageFlags usage, st_gpu_image *out, st_error *err);
/* A 2D array image of `layers` layers and `mips` mip levels (1..full chain) with a 2D_ARRAY view over all of
 * them. Barriers and reads of st_gpu_* touch mip 0 only: the owner handles the other levels. */
st_result st_gpu_image_create_mips(st_gpu *gpu, uint32_t width, uint32_t height, uint32_t layers, uint32_t mips,
                                   VkFormat format, VkImageUsageFlags usage, st_gpu_image *out, st_error *err);
void st_gpu_image_destroy(st_gpu *gpu, st_gpu_image *img);
/* Whether optimally tiled images of format support every feature in `features`. */
bool st_gpu_format_supports(const st_gpu *gpu, VkFormat format, VkFormatFeatureFlags features);

/* One-shot command buffers for uploads and readbacks: begin, record, then submit-and-wait. */
st_result st_gpu_once_begin(st_gpu *gpu, VkCommandBuffer *cmd, st_error *err);
st_result st_gpu_once_submit(st_gpu *gpu, VkCommandBuffer cmd, st_error *err);

/* Ensures the staging buffer holds at least size bytes. */
st_result st_gpu_staging_reserve(st_gpu *gpu, VkDeviceSize size, st_error *err);
/* Records an upload of a sub-rectangle (already written into the staging buffer at offset 0, tightly
 * packed) into img, leaving img in `final_layout` ready for `dst_stage`/`dst_access`. */
void st_gpu_cmd_upload_rect(VkCommandBuffer cmd, st_gpu *gpu, st_gpu_image *img, VkImageLayout old_layout,
                            uint32_t x, uint32_t y, uint32_t w, uint32_t h, VkImageLayout final_layout);
/* Copies the whole image (in `layout`) to host memory (width·height·texel_bytes bytes), leaving it there. */
st_result st_gpu_image_read(st_gpu *gpu, st_gpu_image *img, VkImageLayout layout, void *out, st_error *err);
/* The same for one layer of an array image. Waits for the queue: for tests and tools. */
st_result st_gpu_image_read_layer(st_gpu *gpu, st_gpu_image *img, uint32_t layer, VkImageLayout layout, void *out,
                                  st_error *err);
/* Copies `bytes` of a buffer from `offset` (written by finished or recorded-before work, read by transfer) to host
 * memory at out, through the staging buffer. Waits for the queue: for counters, tests and tools. */
st_result st_gpu_buffer_read(st_gpu *gpu, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes, void *out,
                             st_error *err);

/* ---- the staging ring -------------------------------------------------------------------------------
 * A persistently mapped host buffer handed out front to back and wrapping around. Bytes are handed out with
 * alloc, then a mark says that everything handed out so far is read by GPU work that is done once a timeline
 * value is reached; release(value) gives back the bytes of every mark up to that value. The ring never hands
 * out a byte that an unreleased mark still covers. */
#define ST_GPU_RING_MARKS 64

typedef struct st_gpu_ring {
    st_gpu_buffer buffer;
    uint8_t *mapped;
    VkDeviceSize size;
    uint64_t head, tail; /* offsets counted from the start, never wrapped: [tail, head) is in use */
    uint64_t marked;     /* head at the latest mark */
    uint64_t wraps;      /* times allocation went back to the buffer's start */
    struct {
        uint64_t value, end;
    } marks[ST_GPU_RING_MARKS];
    uint32_t first, count; /* the marks not yet released, oldest first */
} st_gpu_ring;

st_result st_gpu_ring_create(st_gpu *gpu, VkDeviceSize size, st_gpu_host_memory kind, st_gpu_ring *out,
                             st_error *err);
void st_gpu_ring_destroy(st_gpu *gpu, st_gpu_ring *ring);
/* Hands out n bytes at a multiple of align (a power of two), contiguous in the buffer: *offset is their
 * buffer offset (write them at ring->mapped + *offset). False, changing nothing, when the free space cannot
 * hold them (or n > size) or the mark table is full. */
bool st_gpu_ring_alloc(st_gpu_ring *ring, VkDeviceSize n, VkDeviceSize align, VkDeviceSize *offset);
/* Every byte handed out since the last mark is read by work that completes at timeline `value` (values
 * increase from mark to mark). False when the mark table is full (alloc refuses before that happens). */
bool st_gpu_ring_mark(st_gpu_ring *ring, uint64_t value);
/* The work of every mark with value ≤ completed is done: its bytes can be handed out again. */
void st_gpu_ring_release(st_gpu_ring *ring, uint64_t completed);
/* Bytes handed out and not yet released (marked or not). */
static inline uint64_t st_gpu_ring_used(const st_gpu_ring *ring) { return ring->head - ring->tail; }

/* ---- barriers (synchronization2) ---------------------------------------------------------------------
 * Every barrier is recorded through these: a caller names the stages and accesses it orders, nothing else. */
/* A global memory barrier: for buffers touched whole, where a range would say nothing more. */
void st_gpu_cmd_memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                               VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);
/* A barrier on the whole of one buffer. */
void st_gpu_cmd_buffer_barrier(VkCommandBuffer cmd, VkBuffer buffer, VkPipelineStageFlags2 src_stage,
                               VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);
/* An image barrier on mip 0, layers [first_layer, first_layer + layer_count), to record with others in one
 * st_gpu_cmd_image_barriers. */
VkImageMemoryBarrier2 st_gpu_image_barrier(VkImage image, VkImageAspectFlags aspect, uint32_t first_layer,
                                           uint32_t layer_count, VkImageLayout old_layout, VkImageLayout new_layout,
                                           VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                                           VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);
/* The same over any subresource range (mip levels and layers). */
VkImageMemoryBarrier2 st_gpu_image_barrier_range(VkImage image, VkImageSubresourceRange range, VkImageLayout old_layout,
                                                 VkImageLayout new_layout, VkPipelineStageFlags2 src_stage,
                                                 VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                                                 VkAccessFlags2 dst_access);
void st_gpu_cmd_image_barriers(VkCommandBuffer cmd, const VkImageMemoryBarrier2 *barriers, uint32_t count);
/* An image barrier on mip 0, layer 0 (a plain 2D image). */
void st_gpu_cmd_image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect,
                              VkImageLayout old_layout, VkImageLayout new_layout,
                              VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                              VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access);

/* ---- descriptor sets ---------------------------------------------------------------------------------
 * A set is described once as a list of bindings: entry i is binding i, one descriptor each. The list makes the
 * set's layout (type, stages, an immutable sampler) and, with the resources filled in, its writes. */
typedef struct st_gpu_binding {
    VkDescriptorType type;
    VkShaderStageFlags stages;
    const VkSampler *immutable_sampler; /* combined image samplers with a fixed sampler; NULL otherwise */
    /* The resource, for st_gpu_set_write: a buffer from offset 0 (range 0 = the whole buffer), or an image
     * view in `layout` (with `sampler` unless the layout fixes one). */
    VkBuffer buffer;
    VkDeviceSize range;
    VkImageView view;
    VkImageLayout layout;
    VkSampler sampler;
    /* An array of count image descriptors (count > 1): views[0..count), each in `layout` (with `sampler`). */
    uint32_t count;
    const VkImageView *views;
} st_gpu_binding;
/* The layout of a set of count (at most 16) bindings (an array binding holds at most 16 descriptors). */
st_result st_gpu_set_layout(st_gpu *gpu, const st_gpu_binding *bindings, uint32_t count, VkDescriptorSetLayout *out,
                            st_error *err);
/* One set of that layout from pool. */
st_result st_gpu_set_alloc(st_gpu *gpu, VkDescriptorPool pool, VkDescriptorSetLayout layout, VkDescriptorSet *out,
                           st_error *err);
/* Points bindings 0..count-1 of set at the resources the list names. */
void st_gpu_set_write(st_gpu *gpu, VkDescriptorSet set, const st_gpu_binding *bindings, uint32_t count);
/* Points binding `binding` of set alone at the resource b names (a pass filling its part of a shared set). */
void st_gpu_set_write_binding(st_gpu *gpu, VkDescriptorSet set, uint32_t binding, const st_gpu_binding *b);

/* ---- pipelines --------------------------------------------------------------------------------------- */
/* A shader module from the embedded SPIR-V by file name ("ray.frag"). */
st_result st_gpu_shader(st_gpu *gpu, const char *name, VkShaderModule *out, st_error *err);

/* A compute pipeline of the embedded shader (by file name) with the given layout. */
st_result st_gpu_compute_pipeline(st_gpu *gpu, const char *shader, VkPipelineLayout layout, VkPipeline *out,
                                  st_error *err);
/* The same with the shader's specialization constants 0..count−1 set to constants[0..count−1] (32-bit each: a
 * uint, int, float or bool constant_id), which the driver folds into the code: a variant chosen at pipeline
 * creation costs nothing in the shader, where a push-constant switch keeps both paths. At most
 * ST_GPU_MAX_SPEC_CONSTANTS. */
#define ST_GPU_MAX_SPEC_CONSTANTS 8u
st_result st_gpu_compute_pipeline_spec(st_gpu *gpu, const char *shader, VkPipelineLayout layout,
                                       const uint32_t *constants, uint32_t count, VkPipeline *out, st_error *err);

typedef struct st_gpu_graphics_desc {
    const char *vertex, *fragment; /* shader names */
    VkPipelineLayout layout;
    VkFormat color_format, depth_format; /* color_format VK_FORMAT_UNDEFINED: no colour attachment */
    VkFormat color_format2;        /* a second colour attachment (location 1), 0 = none */
    VkPrimitiveTopology topology;  /* 0 = triangle list */
    VkCompareOp depth_compare;     /* 0 = NEVER is not useful: 0 means GREATER_OR_EQUAL (reverse-Z) */
    bool depth_write;
    VkCullModeFlags cull;
    bool wireframe;     /* polygon mode LINE (needs st_gpu.fill_mode_non_solid) */
    float depth_bias;   /* constant depth bias (reverse-Z: positive is toward the eye), 0 = off */
    bool alpha_blend;   /* straight alpha over the target (overlays); colour written as is otherwise */
    const VkPipelineVertexInputStateCreateInfo *vertex_input; /* NULL: vertices come from indices alone */
    /* the fragment shader's specialization constants 0..count−1, as st_gpu_compute_pipeline_spec's (count 0:
     * none; at most ST_GPU_MAX_SPEC_CONSTANTS) */
    const uint32_t *fragment_constants;
    uint32_t fragment_constant_count;
} st_gpu_graphics_desc;
/* depth_format VK_FORMAT_UNDEFINED: no depth attachment and no depth test. */
st_result st_gpu_graphics_pipeline(st_gpu *gpu, const st_gpu_graphics_desc *d, VkPipeline *out, st_error *err);

#endif
