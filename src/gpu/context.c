/* Vulkan instance and device: adapter choice (discrete > integrated > virtual > CPU, or --device N),
 * validation layers with a messenger that counts every warning and error, one graphics+compute queue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

st_result st_gpu_check(VkResult vr, const char *what, st_error *err) {
    if (vr == VK_SUCCESS) return ST_OK;
    const char *why = vr == VK_ERROR_OUT_OF_DEVICE_MEMORY   ? "out of device memory"
                      : vr == VK_ERROR_OUT_OF_HOST_MEMORY   ? "out of host memory"
                      : vr == VK_ERROR_DEVICE_LOST          ? "device lost"
                      : vr == VK_ERROR_INITIALIZATION_FAILED ? "initialization failed"
                      : vr == VK_ERROR_INCOMPATIBLE_DRIVER  ? "no compatible Vulkan driver"
                      : vr == VK_ERROR_LAYER_NOT_PRESENT    ? "layer not present"
                      : vr == VK_ERROR_EXTENSION_NOT_PRESENT ? "extension not present"
                      : vr == VK_ERROR_FEATURE_NOT_PRESENT  ? "feature not present"
                                                            : "error";
    return st_error_set(err, ST_ERR_GPU, "%s failed: %s (VkResult %d)", what, why, (int)vr);
}

const char *st_gpu_type_name(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT type,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)type;
    st_gpu *gpu = user;
    if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
        atomic_fetch_add(&gpu->validation_messages, 1);
        fprintf(stderr, "strata: vulkan validation: %s\n", data->pMessage);
    }
    return VK_FALSE;
}

static bool layer_available(const char *name) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, NULL);
    VkLayerProperties *layers = calloc(n ? n : 1, sizeof *layers);
    if (!layers) return false;
    vkEnumerateInstanceLayerProperties(&n, layers);
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(layers[i].layerName, name);
    free(layers);
    return found;
}

static int device_rank(const VkPhysicalDeviceProperties *p) {
    switch (p->deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

static bool find_queue(VkPhysicalDevice pd, uint32_t *family, uint32_t *timestamp_bits) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties q[32];
    if (n > 32) n = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
    for (uint32_t i = 0; i < n; i++) {
        VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        if ((q[i].queueFlags & need) == need) {
            *family = i;
            *timestamp_bits = q[i].timestampValidBits;
            return true;
        }
    }
    return false;
}

#define MAX_INSTANCE_EXTENSIONS 16

static st_result create_instance(st_gpu *gpu, bool validate, const st_gpu_desc *desc, st_error *err) {
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "strata",
                             .pEngineName = "strata",
                             .apiVersion = VK_API_VERSION_1_3};
    const char *layers[1] = {VALIDATION_LAYER};
    const char *exts[MAX_INSTANCE_EXTENSIONS + 1];
    uint32_t ext_count = 0;
    if (validate) exts[ext_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    /* A window needs the window system's surface extensions (VK_KHR_surface, VK_KHR_xlib_surface, ...). */
    uint32_t extra = desc ? desc->instance_extension_count : 0;
    if (extra > MAX_INSTANCE_EXTENSIONS)
        return st_error_set(err, ST_ERR_INVALID, "%u instance extensions requested (at most %d)", extra,
                            MAX_INSTANCE_EXTENSIONS);
    for (uint32_t i = 0; i < extra; i++) exts[ext_count++] = desc->instance_extensions[i];
    if (validate && !layer_available(VALIDATION_LAYER))
        return st_error_set(err, ST_ERR_UNSUPPORTED,
                            "validation requested but %s is not installed (Debian: vulkan-validationlayers)",
                            VALIDATION_LAYER);
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .pApplicationInfo = &app,
                               .enabledLayerCount = validate ? 1 : 0,
                               .ppEnabledLayerNames = layers,
                               .enabledExtensionCount = ext_count,
                               .ppEnabledExtensionNames = exts};
    VkResult vr = vkCreateInstance(&ci, NULL, &gpu->instance);
    if (vr != VK_SUCCESS) {
        gpu->instance = VK_NULL_HANDLE;
        return st_gpu_check(vr, "creating the Vulkan instance (is a Vulkan driver installed?)", err);
    }
    if (validate) {
        PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(gpu->instance, "vkCreateDebugUtilsMessengerEXT");
        VkDebugUtilsMessengerCreateInfoEXT mi = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
            .pfnUserCallback = on_validation,
            .pUserData = gpu};
        if (!create_messenger || create_messenger(gpu->instance, &mi, NULL, &gpu->messenger) != VK_SUCCESS)
            return st_error_set(err, ST_ERR_GPU, "cannot install the validation message callback");
        gpu->validation = true;
    }
    return ST_OK;
}

static st_result pick_device(st_gpu *gpu, const st_gpu_desc *desc, st_error *err) {
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(gpu->instance, &n, NULL);
    if (n == 0) return st_error_set(err, ST_ERR_GPU, "no Vulkan adapter found (install mesa-vulkan-drivers for lavapipe)");
    VkPhysicalDevice devices[16];
    if (n > 16) n = 16;
    vkEnumeratePhysicalDevices(gpu->instance, &n, devices);
    int best = -1, best_rank = -1;
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devices[i], &p);
        uint32_t fam, bits;
        bool usable = p.apiVersion >= VK_API_VERSION_1_3 && find_queue(devices[i], &fam, &bits);
        if (desc->device_given) {
            if ((int)i == desc->device_index) {
                if (!usable)
                    return st_error_set(err, ST_ERR_UNSUPPORTED, "adapter %u (%s) lacks Vulkan 1.3 graphics+compute", i,
                                        p.deviceName);
                best = (int)i;
            }
            continue;
        }
        if (usable && device_rank(&p) > best_rank) {
            best = (int)i;
            best_rank = device_rank(&p);
        }
    }
    if (best < 0) {
        if (desc->device_given)
            return st_error_set(err, ST_ERR_INVALID, "no adapter %d (%u found; see 'strata devices')", desc->device_index, n);
        return st_error_set(err, ST_ERR_UNSUPPORTED, "no Vulkan 1.3 adapter with a graphics+compute queue");
    }
    gpu->physical = devices[best];
    vkGetPhysicalDeviceProperties(gpu->physical, &gpu->props);
    vkGetPhysicalDeviceMemoryProperties(gpu->physical, &gpu->memory_props);
    VkPhysicalDeviceDriverProperties driver = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver};
    vkGetPhysicalDeviceProperties2(gpu->physical, &p2);
    snprintf(gpu->driver_name, sizeof gpu->driver_name, "%s %s", driver.driverName, driver.driverInfo);
    uint32_t bits = 0;
    find_queue(gpu->physical, &gpu->queue_family, &bits);
    /* On a CPU adapter the GPU is the CPU: lavapipe's timestamps of compute passes come out near zero
     * once any raster work has run on the device, so frame times there are CPU submit-and-wait. */
    gpu->timestamps = bits > 0 && gpu->props.limits.timestampPeriod > 0 &&
                      gpu->props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
    gpu->timestamp_ns = gpu->props.limits.timestampPeriod;
    gpu->transfer_family = UINT32_MAX;
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical, &nq, NULL);
    VkQueueFamilyProperties q[32];
    if (nq > 32) nq = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(gpu->physical, &nq, q);
    for (uint32_t i = 0; i < nq && gpu->transfer_family == UINT32_MAX; i++)
        if ((q[i].queueFlags & VK_QUEUE_TRANSFER_BIT) && !(q[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) &&
            q[i].queueCount > 0) {
            gpu->transfer_family = i;
            gpu->transfer_timestamps = gpu->timestamps && q[i].timestampValidBits > 0;
        }
    return ST_OK;
}

static bool device_extension_available(VkPhysicalDevice pd, const char *name) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
    VkExtensionProperties *props = calloc(n ? n : 1, sizeof *props);
    if (!props) return false;
    vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props);
    bool found = false;
    for (uint32_t i = 0; i < n && !found; i++) found = !strcmp(props[i].extensionName, name);
    free(props);
    return found;
}

static st_result create_device(st_gpu *gpu, bool swapchain, st_error *err) {
    float priority = 1.0f;
    const char *swapchain_ext = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
    if (swapchain && !device_extension_available(gpu->physical, swapchain_ext))
        return st_error_set(err, ST_ERR_UNSUPPORTED, "adapter %s cannot present to a window (no %s)",
                            gpu->props.deviceName, swapchain_ext);
    /* The memory budget query (harness memory report, soak growth) needs its extension enabled. */
    const char *exts[2];
    uint32_t ext_count = 0;
    if (swapchain) exts[ext_count++] = swapchain_ext;
    bool budget = device_extension_available(gpu->physical, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    if (budget) exts[ext_count++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
    VkDeviceQueueCreateInfo qi[2] = {{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                      .queueFamilyIndex = gpu->queue_family,
                                      .queueCount = 1,
                                      .pQueuePriorities = &priority},
                                     {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                      .queueFamilyIndex = gpu->transfer_family,
                                      .queueCount = 1,
                                      .pQueuePriorities = &priority}};
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                            .dynamicRendering = VK_TRUE,
                                            .synchronization2 = VK_TRUE,
                                            .maintenance4 = VK_TRUE};
    /* 64-bit buffer atomics (visibility buffers: depth and id in one atomicMax) are optional: enabled when
     * the adapter has them, and the methods that need them check st_gpu.int64_atomics. */
    VkPhysicalDeviceVulkan12Features have12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have12};
    vkGetPhysicalDeviceFeatures2(gpu->physical, &have);
    bool int64_atomics = have.features.shaderInt64 && have12.shaderBufferInt64Atomics;
    bool non_solid = have.features.fillModeNonSolid; /* the mesh wireframe overlay */
    bool float64 = have.features.shaderFloat64;      /* cdlod's GPU selection: the CPU's double arithmetic */
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            .pNext = &f13,
                                            .hostQueryReset = VK_TRUE,
                                            .timelineSemaphore = VK_TRUE, /* upload batches (tile pool) */
                                            .shaderBufferInt64Atomics = int64_atomics};
    VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
    f.features.shaderInt64 = int64_atomics;
    f.features.fillModeNonSolid = non_solid;
    f.features.shaderFloat64 = float64;
    VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .pNext = &f,
                             .queueCreateInfoCount = gpu->transfer_family == UINT32_MAX ? 1 : 2,
                             .pQueueCreateInfos = qi,
                             .enabledExtensionCount = ext_count,
                             .ppEnabledExtensionNames = exts};
    st_result r = st_gpu_check(vkCreateDevice(gpu->physical, &ci, NULL, &gpu->device), "creating the device", err);
    if (r) {
        gpu->device = VK_NULL_HANDLE;
        return r;
    }
    gpu->swapchain = swapchain;
    gpu->memory_budget = budget;
    gpu->fill_mode_non_solid = non_solid;
    gpu->int64_atomics = int64_atomics;
    gpu->float64 = float64;
    vkGetDeviceQueue(gpu->device, gpu->queue_family, 0, &gpu->queue);
    if (gpu->transfer_family != UINT32_MAX) vkGetDeviceQueue(gpu->device, gpu->transfer_family, 0, &gpu->transfer_queue);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = gpu->queue_family};
    r = st_gpu_check(vkCreateCommandPool(gpu->device, &pi, NULL, &gpu->pool), "creating a command pool", err);
    VkPipelineCacheCreateInfo ci_cache = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    if (!r) r = st_gpu_check(vkCreatePipelineCache(gpu->device, &ci_cache, NULL, &gpu->pipeline_cache),
                             "creating a pipeline cache", err);
    return r;
}

st_result st_gpu_create(const st_gpu_desc *desc, st_gpu **out, st_error *err) {
    *out = NULL;
    st_gpu *gpu = calloc(1, sizeof *gpu);
    if (!gpu) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    atomic_init(&gpu->validation_messages, 0);
    const char *env = getenv("STRATA_VALIDATE");
    bool validate = desc->validate || (env && env[0] == '1');
    st_result r = create_instance(gpu, validate, desc, err);
    if (!r) r = pick_device(gpu, desc, err);
    if (!r) r = create_device(gpu, desc->swapchain, err);
    if (r) {
        st_gpu_destroy(gpu);
        return r;
    }
    *out = gpu;
    return ST_OK;
}

void st_gpu_destroy(st_gpu *gpu) {
    if (!gpu) return;
    if (gpu->device) {
        vkDeviceWaitIdle(gpu->device);
        if (gpu->staging) {
            vkUnmapMemory(gpu->device, gpu->staging_memory);
            vkDestroyBuffer(gpu->device, gpu->staging, NULL);
            vkFreeMemory(gpu->device, gpu->staging_memory, NULL);
        }
        if (gpu->pipeline_cache) vkDestroyPipelineCache(gpu->device, gpu->pipeline_cache, NULL);
        if (gpu->pool) vkDestroyCommandPool(gpu->device, gpu->pool, NULL);
        vkDestroyDevice(gpu->device, NULL);
    }
    if (gpu->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(gpu->instance, "vkDestroyDebugUtilsMessengerEXT");
        if (destroy_messenger) destroy_messenger(gpu->instance, gpu->messenger, NULL);
    }
    if (gpu->instance) vkDestroyInstance(gpu->instance, NULL);
    free(gpu);
}

st_result st_gpu_list(char *buf, size_t cap, st_error *err) {
    st_gpu tmp = {0};
    st_result r = create_instance(&tmp, false, NULL, err);
    if (r) return r;
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(tmp.instance, &n, NULL);
    VkPhysicalDevice devices[16];
    if (n > 16) n = 16;
    vkEnumeratePhysicalDevices(tmp.instance, &n, devices);
    size_t used = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < n && used < cap; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devices[i], &p);
        used += (size_t)snprintf(buf + used, cap - used, "%u: %s (%s, Vulkan %u.%u.%u)\n", i, p.deviceName,
                                 st_gpu_type_name(p.deviceType), VK_API_VERSION_MAJOR(p.apiVersion),
                                 VK_API_VERSION_MINOR(p.apiVersion), VK_API_VERSION_PATCH(p.apiVersion));
    }
    vkDestroyInstance(tmp.instance, NULL);
    return n ? ST_OK : st_error_set(err, ST_ERR_GPU, "no Vulkan adapter found");
}
