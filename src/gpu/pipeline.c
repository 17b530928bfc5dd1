/* Shader modules from the embedded SPIR-V table, compute pipelines and dynamic-rendering graphics
 * pipelines (no render pass objects: Vulkan 1.3 dynamic rendering). */
#include <string.h>

#include "gpu/gpu.h"

typedef struct { const char *name; const uint32_t *code; size_t size; } st_embedded_shader;
extern const st_embedded_shader st_embedded_shaders[];

st_result st_gpu_shader(st_gpu *gpu, const char *name, VkShaderModule *out, st_error *err) {
    for (const st_embedded_shader *s = st_embedded_shaders; s->name; s++) {
        if (strcmp(s->name, name)) continue;
        VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                       .codeSize = s->size,
                                       .pCode = s->code};
        return st_gpu_check(vkCreateShaderModule(gpu->device, &ci, NULL, out), name, err);
    }
    return st_error_set(err, ST_ERR_UNSUPPORTED, "shader %s is not embedded in this build", name);
}

st_result st_gpu_compute_pipeline(st_gpu *gpu, const char *shader, VkPipelineLayout layout, VkPipeline *out,
                                  st_error *err) {
    return st_gpu_compute_pipeline_spec(gpu, shader, layout, NULL, 0, out, err);
}

st_result st_gpu_compute_pipeline_spec(st_gpu *gpu, const char *shader, VkPipelineLayout layout,
                                       const uint32_t *constants, uint32_t count, VkPipeline *out, st_error *err) {
    if (count > ST_GPU_MAX_SPEC_CONSTANTS)
        return st_error_set(err, ST_ERR_INVALID, "%s: %u specialization constants (at most %u)", shader, count,
                            ST_GPU_MAX_SPEC_CONSTANTS);
    VkShaderModule module;
    st_result r = st_gpu_shader(gpu, shader, &module, err);
    if (r) return r;
    VkSpecializationMapEntry entries[ST_GPU_MAX_SPEC_CONSTANTS];
    for (uint32_t i = 0; i < count; i++)
        entries[i] = (VkSpecializationMapEntry){.constantID = i, .offset = 4 * i, .size = 4};
    VkSpecializationInfo spec = {.mapEntryCount = count, .pMapEntries = entries, .dataSize = 4 * count,
                                 .pData = constants};
    VkComputePipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                      .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                                                .module = module,
                                                .pName = "main",
                                                .pSpecializationInfo = count ? &spec : NULL},
                                      .layout = layout};
    r = st_gpu_check(vkCreateComputePipelines(gpu->device, gpu->pipeline_cache, 1, &ci, NULL, out), shader, err);
    vkDestroyShaderModule(gpu->device, module, NULL);
    return r;
}

st_result st_gpu_graphics_pipeline(st_gpu *gpu, const st_gpu_graphics_desc *d, VkPipeline *out, st_error *err) {
    uint32_t count = d->fragment_constant_count;
    if (count > ST_GPU_MAX_SPEC_CONSTANTS)
        return st_error_set(err, ST_ERR_INVALID, "%s: %u specialization constants (at most %u)", d->fragment, count,
                            ST_GPU_MAX_SPEC_CONSTANTS);
    VkSpecializationMapEntry entries[ST_GPU_MAX_SPEC_CONSTANTS];
    for (uint32_t i = 0; i < count; i++)
        entries[i] = (VkSpecializationMapEntry){.constantID = i, .offset = 4 * i, .size = 4};
    VkSpecializationInfo spec = {.mapEntryCount = count, .pMapEntries = entries, .dataSize = 4 * count,
                                 .pData = d->fragment_constants};
    VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
    st_result r = st_gpu_shader(gpu, d->vertex, &vs, err);
    if (!r) r = st_gpu_shader(gpu, d->fragment, &fs, err);
    if (r) {
        if (vs) vkDestroyShaderModule(gpu->device, vs, NULL);
        return r;
    }
    VkPipelineShaderStageCreateInfo stages[2] = {
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
         .module = vs, .pName = "main"},
        {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
         .module = fs, .pName = "main", .pSpecializationInfo = count ? &spec : NULL}};
    VkPipelineVertexInputStateCreateInfo vertex_input = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo assembly = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
        .topology = d->topology ? d->topology : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
    VkPipelineViewportStateCreateInfo viewport = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
                                                  .viewportCount = 1,
                                                  .scissorCount = 1};
    VkPipelineRasterizationStateCreateInfo raster = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
                                                     .polygonMode = d->wireframe ? VK_POLYGON_MODE_LINE
                                                                                 : VK_POLYGON_MODE_FILL,
                                                     .cullMode = d->cull,
                                                     .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
                                                     .depthBiasEnable = d->depth_bias != 0.0f,
                                                     .depthBiasConstantFactor = d->depth_bias,
                                                     .lineWidth = 1.0f};
    VkPipelineMultisampleStateCreateInfo multisample = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
                                                        .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
    bool has_depth = d->depth_format != VK_FORMAT_UNDEFINED;
    VkPipelineDepthStencilStateCreateInfo depth = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = has_depth,
        .depthWriteEnable = has_depth && d->depth_write,
        .depthCompareOp = d->depth_compare ? d->depth_compare : VK_COMPARE_OP_GREATER_OR_EQUAL};
    VkFormat color_formats[2] = {d->color_format, d->color_format2};
    uint32_t color_count = d->color_format == VK_FORMAT_UNDEFINED ? 0 : d->color_format2 ? 2 : 1;
    VkPipelineColorBlendAttachmentState blend_attachment = {.colorWriteMask = 0xF};
    if (d->alpha_blend)
        blend_attachment = (VkPipelineColorBlendAttachmentState){.blendEnable = VK_TRUE,
                                                                 .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
                                                                 .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
                                                                 .colorBlendOp = VK_BLEND_OP_ADD,
                                                                 .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
                                                                 .dstAlphaBlendFactor = VK_BLEND_FACTOR_ZERO,
                                                                 .alphaBlendOp = VK_BLEND_OP_ADD,
                                                                 .colorWriteMask = 0xF};
    VkPipelineColorBlendAttachmentState blend_attachments[2] = {blend_attachment, {.colorWriteMask = 0xF}};
    VkPipelineColorBlendStateCreateInfo blend = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
                                                 .attachmentCount = color_count,
                                                 .pAttachments = blend_attachments};
    VkDynamicState dyn[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dynamic = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
                                                .dynamicStateCount = 2,
                                                .pDynamicStates = dyn};
    VkPipelineRenderingCreateInfo rendering = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
                                               .colorAttachmentCount = color_count,
                                               .pColorAttachmentFormats = color_formats,
                                               .depthAttachmentFormat = d->depth_format};
    VkGraphicsPipelineCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
                                       .pNext = &rendering,
                                       .stageCount = 2,
                                       .pStages = stages,
                                       .pVertexInputState = d->vertex_input ? d->vertex_input : &vertex_input,
                                       .pInputAssemblyState = &assembly,
                                       .pViewportState = &viewport,
                                       .pRasterizationState = &raster,
                                       .pMultisampleState = &multisample,
                                       .pDepthStencilState = &depth,
                                       .pColorBlendState = &blend,
                                       .pDynamicState = &dynamic,
                                       .layout = d->layout};
    r = st_gpu_check(vkCreateGraphicsPipelines(gpu->device, gpu->pipeline_cache, 1, &ci, NULL, out), d->fragment, err);
    vkDestroyShaderModule(gpu->device, vs, NULL);
    vkDestroyShaderModule(gpu->device, fs, NULL);
    return r;
}
