/* The device's memory budget and current usage through VK_EXT_memory_budget, for the harness's memory report
 * and the soak's growth check. Optional: adapters without the extension answer ST_ERR_UNSUPPORTED. */
#include "render/render_internal.h"

st_result st_engine_memory_budget(const st_engine *e, uint64_t *budget, uint64_t *usage, st_error *err) {
    VkPhysicalDevice pd = e->gpu->physical;
    if (!e->gpu->memory_budget)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "%s has no %s", e->gpu->props.deviceName,
                            VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    VkPhysicalDeviceMemoryBudgetPropertiesEXT mb = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 mp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &mb};
    vkGetPhysicalDeviceMemoryProperties2(pd, &mp);
    /* Device-local heaps are what a method's payload competes for; on a CPU adapter every heap is "device
     * local", which is then the process's own memory. */
    uint64_t b = 0, u = 0;
    for (uint32_t i = 0; i < mp.memoryProperties.memoryHeapCount; i++) {
        if (!(mp.memoryProperties.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
        b += mb.heapBudget[i];
        u += mb.heapUsage[i];
    }
    if (budget) *budget = b;
    if (usage) *usage = u;
    return ST_OK;
}
