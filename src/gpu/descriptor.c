/* Descriptor sets: a set is described once as a list of bindings (entry i is binding i, one descriptor each);
 * the same list makes its layout and, with the resources filled in, its writes. */
#include "gpu/gpu.h"

#define MAX_BINDINGS 16

st_result st_gpu_set_layout(st_gpu *gpu, const st_gpu_binding *bindings, uint32_t count, VkDescriptorSetLayout *out,
                            st_error *err) {
    if (count > MAX_BINDINGS) return st_error_set(err, ST_ERR_INVALID, "%u bindings in one set", count);
    for (uint32_t i = 0; i < count; i++)
        if (bindings[i].count > MAX_BINDINGS)
            return st_error_set(err, ST_ERR_INVALID, "%u descriptors in one binding", bindings[i].count);
    VkDescriptorSetLayoutBinding b[MAX_BINDINGS];
    for (uint32_t i = 0; i < count; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = i,
                                              .descriptorType = bindings[i].type,
                                              .descriptorCount = bindings[i].count > 1 ? bindings[i].count : 1,
                                              .stageFlags = bindings[i].stages,
                                              .pImmutableSamplers = bindings[i].immutable_sampler};
    VkDescriptorSetLayoutCreateInfo li = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = count, .pBindings = b};
    return st_gpu_check(vkCreateDescriptorSetLayout(gpu->device, &li, NULL, out), "descriptor set layout", err);
}

st_result st_gpu_set_alloc(st_gpu *gpu, VkDescriptorPool pool, VkDescriptorSetLayout layout, VkDescriptorSet *out,
                           st_error *err) {
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &layout};
    return st_gpu_check(vkAllocateDescriptorSets(gpu->device, &ai, out), "descriptor set", err);
}

static bool is_buffer(VkDescriptorType type) {
    return type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
           type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC || type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
}

static void write_from(st_gpu *gpu, VkDescriptorSet set, uint32_t first, const st_gpu_binding *bindings,
                       uint32_t count) {
    VkDescriptorBufferInfo buffers[MAX_BINDINGS];
    VkDescriptorImageInfo images[MAX_BINDINGS][MAX_BINDINGS];
    VkWriteDescriptorSet w[MAX_BINDINGS];
    if (count > MAX_BINDINGS) count = MAX_BINDINGS; /* st_gpu_set_layout refused such a set */
    for (uint32_t i = 0; i < count; i++) {
        const st_gpu_binding *b = &bindings[i];
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = set,
                                      .dstBinding = first + i,
                                      .descriptorCount = 1,
                                      .descriptorType = b->type};
        if (is_buffer(b->type)) {
            buffers[i] = (VkDescriptorBufferInfo){.buffer = b->buffer, .range = b->range ? b->range : VK_WHOLE_SIZE};
            w[i].pBufferInfo = &buffers[i];
        } else {
            uint32_t n = b->count > 1 && b->views ? (b->count < MAX_BINDINGS ? b->count : MAX_BINDINGS) : 1;
            for (uint32_t k = 0; k < n; k++)
                images[i][k] = (VkDescriptorImageInfo){
                    .sampler = b->sampler, .imageView = n > 1 ? b->views[k] : b->view, .imageLayout = b->layout};
            w[i].descriptorCount = n;
            w[i].pImageInfo = images[i];
        }
    }
    vkUpdateDescriptorSets(gpu->device, count, w, 0, NULL);
}

void st_gpu_set_write(st_gpu *gpu, VkDescriptorSet set, const st_gpu_binding *bindings, uint32_t count) {
    write_from(gpu, set, 0, bindings, count);
}

void st_gpu_set_write_binding(st_gpu *gpu, VkDescriptorSet set, uint32_t binding, const st_gpu_binding *b) {
    write_from(gpu, set, binding, b, 1);
}
