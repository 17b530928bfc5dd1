/* The engine: the device, the list of live renderers and the resources every method shares — the terrain on
 * the GPU (terrain_gpu.c), the material albedo table and the nearest sampler. Edits arrive as dirty
 * rectangles: the terrain queues their rows for the next frame and every live renderer is told. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "strata/water.h"

/* Set 0's page table and page pool for renderers whose terrain is one texture: a table of zeros and one zeroed
 * page (never read: the decode takes the texture unless the globals say the terrain is paged). */
static st_result create_page_placeholders(st_engine *e, st_error *err) {
    st_result r = st_gpu_buffer_create(e->gpu, 32, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, &e->page_placeholder, err);
    if (!r) memset(e->page_placeholder.mapped, 0, 32);
    if (!r) r = st_gpu_image_create_array(e->gpu, 1, 1, 1, VK_FORMAT_R8G8B8A8_UINT,
                                          VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                          &e->pool_placeholder, err);
    VkCommandBuffer cmd;
    if (!r) r = st_gpu_once_begin(e->gpu, &cmd, err);
    if (r) return r;
    st_gpu_image *img = &e->pool_placeholder;
    st_gpu_cmd_image_barrier(cmd, img->image, img->aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE,
                             VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkClearColorValue zero = {{0}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, img->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &range);
    st_gpu_cmd_image_barrier(cmd, img->image, img->aspect, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                             VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                             VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    return st_gpu_once_submit(e->gpu, cmd, err);
}

st_result st_engine_create(const st_engine_desc *desc, st_engine **out, st_error *err) {
    *out = NULL;
    st_engine_desc defaults = {0};
    if (!desc) desc = &defaults;
    st_engine *e = calloc(1, sizeof *e);
    if (!e) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    st_gpu_desc gd = {.device_index = desc->device_index,
                      .device_given = desc->device_given,
                      .validate = desc->validate,
                      .instance_extensions = desc->instance_extensions,
                      .instance_extension_count = desc->instance_extension_count,
                      .swapchain = desc->present};
    st_result r = st_gpu_create(&gd, &e->gpu, err);
    if (r) {
        free(e);
        return r;
    }
    VkDevice dev = e->gpu->device;
    VkSamplerCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                              .magFilter = VK_FILTER_NEAREST,
                              .minFilter = VK_FILTER_NEAREST,
                              .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
                              .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
                              .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT};
    r = st_terrain_gpu_create(e->gpu, &e->terrain, err);
    if (!r) r = st_gpu_check(vkCreateSampler(dev, &si, NULL, &e->nearest), "creating a sampler", err);
    if (!r) r = st_materials_gpu_create(e, err);
    /* set 0 of every pipeline: the globals, the terrain texture, the shadow map, the materials (albedo + height,
     * normals: trilinear), the control map, the page table and page pool of paged terrain (placeholders
     * where the terrain is one texture), and the level's colour map */
    st_gpu_binding b[9] = {{.type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .stages = VK_SHADER_STAGE_ALL},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .immutable_sampler = &e->nearest},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .immutable_sampler = &e->nearest},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .immutable_sampler = &e->materials.trilinear},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .immutable_sampler = &e->materials.trilinear},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .immutable_sampler = &e->nearest},
                           {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_ALL},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .immutable_sampler = &e->nearest},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .immutable_sampler = &e->nearest}};
    if (!r) r = st_gpu_set_layout(e->gpu, b, 9, &e->globals_layout, err);
    if (!r) r = create_page_placeholders(e, err);
    if (r) {
        st_engine_destroy(e);
        return r;
    }
    *out = e;
    return ST_OK;
}

void st_engine_destroy(st_engine *e) {
    if (!e) return;
    for (int i = 0; i < ST_MAX_RENDERERS; i++)
        if (e->renderers[i]) st_renderer_destroy(e->renderers[i]);
    if (e->gpu && e->gpu->device) {
        vkDeviceWaitIdle(e->gpu->device);
        st_large_world_destroy(e->world);
        st_paged_terrain_destroy(e->paged);
        st_terrain_gpu_destroy(e->terrain);
        st_materials_gpu_destroy(e);
        st_gpu_buffer_destroy(e->gpu, &e->page_placeholder);
        st_gpu_image_destroy(e->gpu, &e->pool_placeholder);
        if (e->globals_layout) vkDestroyDescriptorSetLayout(e->gpu->device, e->globals_layout, NULL);
        if (e->nearest) vkDestroySampler(e->gpu->device, e->nearest, NULL);
    }
    st_gpu_destroy(e->gpu);
    free(e);
}

st_device_info st_engine_device(const st_engine *e) {
    st_device_info info = {0};
    const VkPhysicalDeviceProperties *p = &e->gpu->props;
    snprintf(info.name, sizeof info.name, "%s", p->deviceName);
    snprintf(info.driver, sizeof info.driver, "%s", e->gpu->driver_name);
    snprintf(info.type, sizeof info.type, "%s", st_gpu_type_name(p->deviceType));
    snprintf(info.api_version, sizeof info.api_version, "%u.%u.%u", VK_API_VERSION_MAJOR(p->apiVersion),
             VK_API_VERSION_MINOR(p->apiVersion), VK_API_VERSION_PATCH(p->apiVersion));
    info.vendor_id = p->vendorID;
    info.device_id = p->deviceID;
    return info;
}

uint32_t st_engine_validation_messages(const st_engine *e) {
    return atomic_load(&((st_engine *)e)->gpu->validation_messages);
}

bool st_engine_has_gpu_timestamps(const st_engine *e) { return e->gpu->timestamps; }

st_result st_engine_list_devices(char *buf, size_t cap, st_error *err) { return st_gpu_list(buf, cap, err); }

st_result st_engine_set_level(st_engine *e, const st_level *level, st_error *err) {
    for (int i = 0; i < ST_MAX_RENDERERS; i++)
        if (e->renderers[i])
            return st_error_set(err, ST_ERR_INVALID, "set_level with live renderers: destroy them first");
    e->level = level;
    st_engine_shape_from_level(e, level);
    st_materials_gpu_level_changed(e);
    st_paged_terrain_destroy(e->paged); /* a level set alone is one texture; st_engine_set_paged_level pages it */
    e->paged = NULL;
    st_result r = st_terrain_gpu_set_level(e->terrain, level, err);
    if (!r) r = st_materials_gpu_set_colors(e, err);
    for (uint32_t t = 0; t < 16; t++) {
        st_level_type_albedo(level, t, e->albedo[t]);
        e->albedo[t][3] = 1.0f;
    }
    return r;
}

void st_engine_shape_from_level(st_engine *e, const st_level *level) {
    e->shape = (st_world_shape){.width = level->width,
                                .height = level->height,
                                .terrain_types = level->terrain_types,
                                .wrap_x = level->wrap_x,
                                .wrap_y = level->wrap_y,
                                .water_level = st_water_default_level(level)};
}

bool st_engine_world_texel(st_engine *e, int64_t x, int64_t y, st_texel *out) {
    if (e->level) {
        if (!st_level_contains(e->level, x, y)) *out = (st_texel){.outside = true};
        else *out = st_level_texel(e->level, (int)(x & (e->level->width - 1)), (int)(y & (e->level->height - 1)));
        return true;
    }
    return e->paged && st_paged_terrain_texel(e->paged, x, y, out);
}

st_result st_engine_update_level(st_engine *e, st_rect rect, st_error *err) {
    if (!e->level && e->paged)
        return st_error_set(err, ST_ERR_INVALID, "a paged world without its level in memory is edited through st_engine_paged_edit");
    if (!e->level) return st_error_set(err, ST_ERR_INVALID, "no level loaded");
    if (e->paged) { /* its pages take the edit (paged_terrain.c); there is no texture of the whole level */
        if (rect.x0 < 0) rect.x0 = 0;
        if (rect.y0 < 0) rect.y0 = 0;
        if (rect.x1 > (int32_t)e->level->width) rect.x1 = (int32_t)e->level->width;
        if (rect.y1 > (int32_t)e->level->height) rect.y1 = (int32_t)e->level->height;
        if (st_rect_empty(rect)) return ST_OK;
        st_paged_terrain_edit(e->paged, rect);
    } else {
        rect = st_terrain_gpu_queue(e->terrain, rect);
        if (st_rect_empty(rect)) return ST_OK;
    }
    st_result r = ST_OK;
    for (int i = 0; i < ST_MAX_RENDERERS && !r; i++) {
        st_renderer *rd = e->renderers[i];
        for (uint32_t k = 0; rd && k < rd->pass_count; k++) {
            const st_frame_pass *p = &rd->passes[k];
            if (p->ops && p->ops->level_updated) p->ops->level_updated(rd, p->state, rect);
        }
        if (rd && rd->ops->level_updated) r = rd->ops->level_updated(rd, rd->state, rect, err);
    }
    /* a slope changes one texel beyond the edit: its neighbours' rules see it */
    st_rect grown = {rect.x0 - 1, rect.y0 - 1, rect.x1 + 1, rect.y1 + 1};
    return r ? r : st_materials_gpu_refill(e, grown, err);
}
