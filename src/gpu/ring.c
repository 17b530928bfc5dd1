/* The staging ring: one persistently mapped host buffer handed out front to back, wrapping around, whose bytes
 * come back only when the GPU work that reads them is known to be done (marks against a timeline value). */
#include "gpu/gpu.h"

#define RING_GRANULE 4096u /* sizes are rounded to it, so offsets aligned in the count stay aligned in the buffer */

st_result st_gpu_ring_create(st_gpu *gpu, VkDeviceSize size, st_gpu_host_memory kind, st_gpu_ring *out,
                             st_error *err) {
    *out = (st_gpu_ring){0};
    if (size == 0) return st_error_set(err, ST_ERR_INVALID, "a staging ring of 0 bytes");
    size = (size + RING_GRANULE - 1) / RING_GRANULE * RING_GRANULE;
    st_result r = st_gpu_buffer_create_host(gpu, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, kind, &out->buffer, err);
    if (r) return st_error_prefix(err, "staging ring of %llu bytes", (unsigned long long)size);
    out->mapped = out->buffer.mapped;
    out->size = size;
    return ST_OK;
}

void st_gpu_ring_destroy(st_gpu *gpu, st_gpu_ring *ring) {
    st_gpu_buffer_destroy(gpu, &ring->buffer);
    *ring = (st_gpu_ring){0};
}

bool st_gpu_ring_alloc(st_gpu_ring *ring, VkDeviceSize n, VkDeviceSize align, VkDeviceSize *offset) {
    if (n == 0 || n > ring->size || !align || (align & (align - 1)) || align > RING_GRANULE) return false;
    /* A full mark table would leave these bytes without a mark to release them. */
    if (ring->count == ST_GPU_RING_MARKS) return false;
    uint64_t pos = (ring->head + align - 1) & ~(uint64_t)(align - 1);
    uint64_t at = pos % ring->size;
    bool wrap = at + n > ring->size;
    if (wrap) { /* not contiguous before the end: skip the tail of the buffer */
        pos += ring->size - at;
        at = 0;
    }
    if (pos + n - ring->tail > ring->size) return false; /* would reach bytes not yet released */
    ring->head = pos + n;
    ring->wraps += wrap;
    *offset = at;
    return true;
}

bool st_gpu_ring_mark(st_gpu_ring *ring, uint64_t value) {
    if (ring->head == ring->marked) return true; /* nothing handed out since the last mark */
    if (ring->count == ST_GPU_RING_MARKS) return false;
    uint32_t i = (ring->first + ring->count) % ST_GPU_RING_MARKS;
    ring->marks[i].value = value;
    ring->marks[i].end = ring->head;
    ring->count++;
    ring->marked = ring->head;
    return true;
}

void st_gpu_ring_release(st_gpu_ring *ring, uint64_t completed) {
    while (ring->count && ring->marks[ring->first].value <= completed) {
        ring->tail = ring->marks[ring->first].end;
        ring->first = (ring->first + 1) % ST_GPU_RING_MARKS;
        ring->count--;
    }
}
