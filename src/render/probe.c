/* GPU probes: evaluate the shaders' shared functions (SOLID, surface decode, the shading formula) at given
 * inputs, so the GLSL twins can be held to the C definitions. Used by tests and diagnostics. */
#include <stdlib.h>
#include <string.h>

#include "render/probe.h"

/* Runs a probe shader over `count` items: binding 0 holds in_stride bytes per item (input), binding 1
 * out_stride bytes per item (output), push constant = count. Set 0 comes from a tiny renderer of its own
 * (its globals: level size and types, shadows off, camera at the origin with far 600). */
static st_result run_probe(st_engine *e, const char *shader, const void *input, size_t in_stride, uint32_t count,
                           void *output, size_t out_stride, st_error *err) {
    if (!e->level && !e->paged) return st_error_set(err, ST_ERR_INVALID, "no level loaded");
    st_gpu *gpu = e->gpu;
    VkDevice dev = gpu->device;
    st_render_desc rd = {.method = "ray-compute", .width = 8, .height = 8};
    st_renderer *r = NULL;
    st_result res = st_renderer_create(e, &rd, &r, err);
    if (res) return res;
    /* its globals (level size, terrain types) were filled at create: no frame is needed */
    st_gpu_buffer in = {0}, outb = {0};
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    VkPipelineLayout playout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    res = st_gpu_buffer_create(gpu, (VkDeviceSize)count * in_stride, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, &in, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, (VkDeviceSize)count * out_stride, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true,
                                   &outb, err);
    if (!res) memcpy(in.mapped, input, (size_t)count * in_stride);
    st_gpu_binding b[2] = {
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT, .buffer = in.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT, .buffer = outb.buffer}};
    VkDescriptorSet set = VK_NULL_HANDLE;
    if (!res) res = st_renderer_set_create(r, b, 2, &layout, &set, err);
    if (!res) res = st_renderer_pipeline_layout(r, &layout, 1, 4, &playout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, shader, playout, &pipeline, err);
    if (!res) {
        VkCommandBuffer cmd;
        res = st_gpu_once_begin(gpu, &cmd, err);
        if (!res) {
            VkDescriptorSet sets[2] = {r->globals_set, set};
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, playout, 0, 2, sets, 0, NULL);
            vkCmdPushConstants(cmd, playout, VK_SHADER_STAGE_ALL, 0, 4, &count);
            vkCmdDispatch(cmd, (count + 63) / 64, 1, 1);
            st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                      VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
            res = st_gpu_once_submit(gpu, cmd, err);
        }
    }
    if (!res) memcpy(output, outb.mapped, (size_t)count * out_stride);
    vkDeviceWaitIdle(dev);
    if (pipeline) vkDestroyPipeline(dev, pipeline, NULL);
    if (playout) vkDestroyPipelineLayout(dev, playout, NULL);
    if (layout) vkDestroyDescriptorSetLayout(dev, layout, NULL);
    st_gpu_buffer_destroy(gpu, &in);
    st_gpu_buffer_destroy(gpu, &outb);
    st_renderer_destroy(r);
    return res;
}

st_result st_engine_probe_solid(st_engine *e, const float (*points)[3], uint32_t count, st_probe_result *out,
                                st_error *err) {
    float *in = malloc((size_t)count * 16);
    uint32_t *q = malloc((size_t)count * 16);
    st_result res = in && q ? ST_OK : st_error_set(err, ST_ERR_NOMEM, "probe: out of memory");
    if (!res) {
        for (uint32_t i = 0; i < count; i++) {
            memcpy(in + 4 * i, points[i], 3 * sizeof(float));
            in[4 * i + 3] = 0;
        }
        res = run_probe(e, "solid_probe.comp", in, 16, count, q, 16, err);
    }
    if (!res)
        for (uint32_t i = 0; i < count; i++) {
            out[i].solid = q[4 * i] != 0;
            out[i].low = (uint8_t)(q[4 * i + 1] & 0xFF);
            out[i].mid = (uint8_t)((q[4 * i + 1] >> 8) & 0xFF);
            out[i].high = (uint8_t)((q[4 * i + 1] >> 16) & 0xFF);
            out[i].dual = (q[4 * i + 1] >> 24) & 1;
            out[i].low_type = (uint8_t)(q[4 * i + 2] & 0xFF);
            out[i].high_type = (uint8_t)((q[4 * i + 2] >> 8) & 0xFF);
            out[i].outside = q[4 * i + 3] != 0;
        }
    free(in);
    free(q);
    return res;
}

st_result st_engine_probe_shade(st_engine *e, const st_shade_probe_in *in, uint32_t count, st_shade_probe_out *out,
                                st_error *err) {
    _Static_assert(sizeof(st_shade_probe_in) == 32 && sizeof(st_shade_probe_out) == 64, "std430 layout");
    return run_probe(e, "shade_probe.comp", in, sizeof *in, count, out, sizeof *out, err);
}
