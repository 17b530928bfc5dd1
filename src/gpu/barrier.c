/* Pipeline barriers (synchronization2): the one place that fills VkMemoryBarrier2, VkImageMemoryBarrier2 and
 * VkBufferMemoryBarrier2, so a caller states only what it orders — stages and accesses before and after, and
 * for images the layouts. */
#include "gpu/gpu.h"

void st_gpu_cmd_memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                               VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
    VkMemoryBarrier2 b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                          .srcStageMask = src_stage,
                          .srcAccessMask = src_access,
                          .dstStageMask = dst_stage,
                          .dstAccessMask = dst_access};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &di);
}

void st_gpu_cmd_buffer_barrier(VkCommandBuffer cmd, VkBuffer buffer, VkPipelineStageFlags2 src_stage,
                               VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
    VkBufferMemoryBarrier2 b = {.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2,
                                .srcStageMask = src_stage,
                                .srcAccessMask = src_access,
                                .dstStageMask = dst_stage,
                                .dstAccessMask = dst_access,
                                .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                .buffer = buffer,
                                .size = VK_WHOLE_SIZE};
    VkDependencyInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .bufferMemoryBarrierCount = 1, .pBufferMemoryBarriers = &b};
    vkCmdPipelineBarrier2(cmd, &di);
}

VkImageMemoryBarrier2 st_gpu_image_barrier_range(VkImage image, VkImageSubresourceRange range, VkImageLayout old_layout,
                                                 VkImageLayout new_layout, VkPipelineStageFlags2 src_stage,
                                                 VkAccessFlags2 src_access, VkPipelineStageFlags2 dst_stage,
                                                 VkAccessFlags2 dst_access) {
    return (VkImageMemoryBarrier2){.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                                   .srcStageMask = src_stage,
                                   .srcAccessMask = src_access,
                                   .dstStageMask = dst_stage,
                                   .dstAccessMask = dst_access,
                                   .oldLayout = old_layout,
                                   .newLayout = new_layout,
                                   .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                   .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                   .image = image,
                                   .subresourceRange = range};
}

VkImageMemoryBarrier2 st_gpu_image_barrier(VkImage image, VkImageAspectFlags aspect, uint32_t first_layer,
                                           uint32_t layer_count, VkImageLayout old_layout, VkImageLayout new_layout,
                                           VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                                           VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
    return st_gpu_image_barrier_range(image, (VkImageSubresourceRange){aspect, 0, 1, first_layer, layer_count},
                                      old_layout, new_layout, src_stage, src_access, dst_stage, dst_access);
}

void st_gpu_cmd_image_barriers(VkCommandBuffer cmd, const VkImageMemoryBarrier2 *barriers, uint32_t count) {
    VkDependencyInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = count, .pImageMemoryBarriers = barriers};
    vkCmdPipelineBarrier2(cmd, &di);
}

void st_gpu_cmd_image_barrier(VkCommandBuffer cmd, VkImage image, VkImageAspectFlags aspect, VkImageLayout old_layout,
                              VkImageLayout new_layout, VkPipelineStageFlags2 src_stage, VkAccessFlags2 src_access,
                              VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
    VkImageMemoryBarrier2 b =
        st_gpu_image_barrier(image, aspect, 0, 1, old_layout, new_layout, src_stage, src_access, dst_stage, dst_access);
    st_gpu_cmd_image_barriers(cmd, &b, 1);
}
