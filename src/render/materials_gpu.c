/* The materials on the GPU, shared by every renderer (set 0, bindings 3..5 and 8): the material set's albedo+height
 * and normal arrays with their mips (trilinear, repeating), the control map (RGBA8_UINT, one texel per level
 * texel) and the level's colour map (RGBA8_SRGB, one texel per level texel). Until a textured renderer asks for
 * the first three they are 1×1 stand-ins, so flat shading costs nothing; a paint or an edit uploads only its
 * dirty rectangle of the control map. The colour map is uploaded with the level: flat shading shows it too. */
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"

static st_result upload_once(st_gpu *gpu, st_gpu_image *img, VkImageLayout old, uint32_t x, uint32_t y, uint32_t w,
                             uint32_t h, st_error *err) {
    VkCommandBuffer cmd;
    st_result r = st_gpu_once_begin(gpu, &cmd, err);
    if (r) return r;
    st_gpu_cmd_upload_rect(cmd, gpu, img, old, x, y, w, h, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    return st_gpu_once_submit(gpu, cmd, err);
}

/* Every layer and mip of an array from `bytes` (layers × layer_bytes, each layer's mips in order). */
static st_result upload_array(st_gpu *gpu, st_gpu_image *img, const st_material_set *set, const uint8_t *bytes,
                              st_error *err) {
    VkDeviceSize total = (VkDeviceSize)set->layer_bytes * set->count;
    st_result r = st_gpu_staging_reserve(gpu, total, err);
    if (r) return r;
    memcpy(gpu->staging_mapped, bytes, (size_t)total);
    VkCommandBuffer cmd;
    r = st_gpu_once_begin(gpu, &cmd, err);
    if (r) return r;
    VkImageSubresourceRange all = {VK_IMAGE_ASPECT_COLOR_BIT, 0, set->mips, 0, set->count};
    VkImageMemoryBarrier2 b = st_gpu_image_barrier_range(img->image, all, VK_IMAGE_LAYOUT_UNDEFINED,
                                                         VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_NONE,
                                                         0, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    st_gpu_cmd_image_barriers(cmd, &b, 1);
    VkBufferImageCopy regions[ST_MATERIAL_MAX * 16];
    uint32_t n = 0;
    for (uint32_t l = 0; l < set->count; l++)
        for (uint32_t m = 0; m < set->mips && m < 16; m++) {
            uint32_t s = set->size >> m;
            regions[n++] = (VkBufferImageCopy){.bufferOffset = l * set->layer_bytes + st_material_mip_offset(set, m),
                                               .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, m, l, 1},
                                               .imageExtent = {s, s, 1}};
        }
    vkCmdCopyBufferToImage(cmd, gpu->staging, img->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, n, regions);
    b = st_gpu_image_barrier_range(img->image, all, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                   VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
                                   VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                   VK_ACCESS_2_SHADER_READ_BIT);
    st_gpu_cmd_image_barriers(cmd, &b, 1);
    return st_gpu_once_submit(gpu, cmd, err);
}

static void release(st_engine *e) {
    st_gpu_image_destroy(e->gpu, &e->materials.surface);
    st_gpu_image_destroy(e->gpu, &e->materials.normal);
    st_gpu_image_destroy(e->gpu, &e->materials.control);
    st_gpu_image_destroy(e->gpu, &e->materials.colors);
}

/* 1×1 stand-ins (a single-layer, single-mip array and a one-texel control map). */
static st_result stand_ins(st_engine *e, st_error *err) {
    st_gpu *gpu = e->gpu;
    VkImageUsageFlags use = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    st_result r = st_gpu_image_create_array(gpu, 1, 1, 1, VK_FORMAT_R8G8B8A8_SRGB, use, &e->materials.surface, err);
    if (!r) r = st_gpu_image_create_array(gpu, 1, 1, 1, VK_FORMAT_R8G8B8A8_UNORM, use, &e->materials.normal, err);
    if (!r) r = st_gpu_image_create(gpu, 1, 1, VK_FORMAT_R8G8B8A8_UINT, use, &e->materials.control, err);
    if (!r) r = st_gpu_image_create(gpu, 1, 1, VK_FORMAT_R8G8B8A8_SRGB, use, &e->materials.colors, err);
    if (!r) r = st_gpu_staging_reserve(gpu, 4, err);
    st_gpu_image *imgs[4] = {&e->materials.surface, &e->materials.normal, &e->materials.control,
                             &e->materials.colors};
    for (int i = 0; i < 4 && !r; i++) {
        memcpy(gpu->staging_mapped, (uint8_t[4]){128, 128, 255, 255}, 4);
        r = upload_once(gpu, imgs[i], VK_IMAGE_LAYOUT_UNDEFINED, 0, 0, 1, 1, err);
    }
    return r;
}

st_result st_materials_gpu_create(st_engine *e, st_error *err) {
    VkSamplerCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                              .magFilter = VK_FILTER_LINEAR,
                              .minFilter = VK_FILTER_LINEAR,
                              .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
                              .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
                              .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
                              .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
                              .maxLod = VK_LOD_CLAMP_NONE};
    st_result r = st_gpu_check(vkCreateSampler(e->gpu->device, &si, NULL, &e->materials.trilinear), "a sampler", err);
    return r ? r : stand_ins(e, err);
}

void st_materials_gpu_destroy(st_engine *e) {
    release(e);
    if (e->materials.trilinear) vkDestroySampler(e->gpu->device, e->materials.trilinear, NULL);
    st_material_set_destroy(e->materials.set);
    st_control_map_destroy(e->materials.map);
    e->materials = (st_materials_gpu){0};
}

void st_materials_gpu_bind(st_engine *e, VkDescriptorSet set) {
    st_gpu_binding b[3] = {{.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .view = e->materials.surface.view,
                            .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .view = e->materials.normal.view,
                            .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .view = e->materials.control.view,
                            .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL}};
    for (uint32_t i = 0; i < 3; i++) st_gpu_set_write_binding(e->gpu, set, 3 + i, &b[i]);
    st_gpu_binding colors = {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                             .view = e->materials.colors.view,
                             .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    st_gpu_set_write_binding(e->gpu, set, 8, &colors);
}

/* Uploads rect of the CPU control map (clipped) in bands through the staging buffer. */
static st_result upload_control(st_engine *e, st_rect rect, VkImageLayout old, st_error *err) {
    st_control_map *m = e->materials.map;
    if (rect.x0 < 0) rect.x0 = 0;
    if (rect.y0 < 0) rect.y0 = 0;
    if (rect.x1 > (int)m->width) rect.x1 = (int)m->width;
    if (rect.y1 > (int)m->height) rect.y1 = (int)m->height;
    if (st_rect_empty(rect)) return ST_OK;
    uint32_t w = (uint32_t)(rect.x1 - rect.x0);
    uint32_t band = (uint32_t)((16u << 20) / ((size_t)w * 4));
    if (band < 1) band = 1;
    st_result r = ST_OK;
    for (int y = rect.y0; y < rect.y1 && !r; y += (int)band) {
        int y1 = y + (int)band < rect.y1 ? y + (int)band : rect.y1;
        st_rect b = {rect.x0, y, rect.x1, y1};
        r = st_gpu_staging_reserve(e->gpu, (VkDeviceSize)w * (uint32_t)(y1 - y) * 4, err);
        if (r) break;
        st_control_map_read_rect(m, b, e->gpu->staging_mapped);
        r = upload_once(e->gpu, &e->materials.control, y == rect.y0 ? old : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                        (uint32_t)rect.x0, (uint32_t)y, w, (uint32_t)(y1 - y), err);
    }
    e->materials.uploaded = rect;
    return r;
}

/* Points every live renderer's set 0 at the current images (the device is idle: frames are waited for). */
static void rebind_all(st_engine *e) {
    for (int i = 0; i < ST_MAX_RENDERERS; i++)
        if (e->renderers[i]) st_materials_gpu_bind(e, e->renderers[i]->globals_set);
}

/* The control map on the GPU for the engine's level (made now from the level when there is none). */
static st_result make_control(st_engine *e, st_error *err) {
    const st_level *l = e->level;
    if (!e->materials.map) {
        st_result r = st_control_map_create(l->width, l->height, &e->materials.map, err);
        if (r) return r;
        st_control_map_fill(e->materials.map, l, (st_rect){0, 0, (int)l->width, (int)l->height}, ST_CONTROL_AUTO);
    }
    vkDeviceWaitIdle(e->gpu->device);
    st_gpu_image_destroy(e->gpu, &e->materials.control);
    st_result r = st_gpu_image_create(e->gpu, l->width, l->height, VK_FORMAT_R8G8B8A8_UINT,
                                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                          VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                      &e->materials.control, err);
    if (!r) r = upload_control(e, (st_rect){0, 0, (int)l->width, (int)l->height}, VK_IMAGE_LAYOUT_UNDEFINED, err);
    e->materials.control_level = r ? NULL : l;
    return r;
}

st_result st_materials_gpu_enable(st_engine *e, st_error *err) {
    st_result r = ST_OK;
    if (!e->materials.set) {
        r = st_material_set_synthesize(&e->materials.set, err);
        if (r) return r;
    }
    if (!e->materials.arrays_ready) {
        st_material_set *s = e->materials.set;
        vkDeviceWaitIdle(e->gpu->device);
        st_gpu_image_destroy(e->gpu, &e->materials.surface);
        st_gpu_image_destroy(e->gpu, &e->materials.normal);
        VkImageUsageFlags use = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
        r = st_gpu_image_create_mips(e->gpu, s->size, s->size, s->count, s->mips, VK_FORMAT_R8G8B8A8_SRGB, use,
                                     &e->materials.surface, err);
        if (!r)
            r = st_gpu_image_create_mips(e->gpu, s->size, s->size, s->count, s->mips, VK_FORMAT_R8G8B8A8_UNORM, use,
                                         &e->materials.normal, err);
        if (!r) r = upload_array(e->gpu, &e->materials.surface, s, s->albedo_height, err);
        if (!r) r = upload_array(e->gpu, &e->materials.normal, s, s->normal, err);
        if (r) return st_error_prefix(err, "materials");
        e->materials.arrays_ready = true;
    }
    if (e->level && e->materials.control_level != e->level) r = make_control(e, err);
    if (!r) rebind_all(e);
    return r;
}

st_result st_materials_gpu_set_colors(st_engine *e, st_error *err) {
    const st_level *l = e->level;
    bool want = l && l->colors;
    if (want ? e->materials.colors_level == l : !e->materials.colors_level) return ST_OK; /* in place already */
    vkDeviceWaitIdle(e->gpu->device);
    st_gpu_image_destroy(e->gpu, &e->materials.colors);
    e->materials.colors_level = NULL;
    uint32_t w = want ? l->width : 1, h = want ? l->height : 1;
    VkImageUsageFlags use = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    st_result r = st_gpu_image_create(e->gpu, w, h, VK_FORMAT_R8G8B8A8_SRGB, use, &e->materials.colors, err);
    /* RGB rows widened to RGBA in bands of the staging buffer (three-byte sRGB formats are rarely sampled) */
    uint32_t band = (uint32_t)((16u << 20) / ((size_t)w * 4));
    if (band < 1) band = 1;
    for (uint32_t y = 0; y < h && !r; y += band) {
        uint32_t rows = y + band < h ? band : h - y;
        r = st_gpu_staging_reserve(e->gpu, (VkDeviceSize)w * rows * 4, err);
        if (r) break;
        uint8_t *o = e->gpu->staging_mapped;
        for (size_t i = 0; i < (size_t)w * rows; i++) {
            const uint8_t *c = want ? l->colors + ((size_t)y * w + i) * 3 : (const uint8_t[3]){255, 255, 255};
            o[i * 4] = c[0], o[i * 4 + 1] = c[1], o[i * 4 + 2] = c[2], o[i * 4 + 3] = 255;
        }
        r = upload_once(e->gpu, &e->materials.colors,
                        y == 0 ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0, y, w, rows,
                        err);
    }
    if (r) return st_error_prefix(err, "the colour map");
    e->materials.colors_level = want ? l : NULL;
    rebind_all(e);
    return ST_OK;
}

void st_materials_gpu_level_changed(st_engine *e) {
    /* a new level: its control map is made when a textured renderer next asks */
    st_control_map_destroy(e->materials.map);
    e->materials.map = NULL;
    e->materials.control_level = NULL;
}

st_result st_materials_gpu_refill(st_engine *e, st_rect rect, st_error *err) {
    if (!e->materials.map || e->materials.control_level != e->level) return ST_OK;
    st_control_map_fill(e->materials.map, e->level, rect, ST_CONTROL_AUTO);
    return upload_control(e, rect, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, err);
}

/* ---- public --------------------------------------------------------------------------------------------- */

st_control_map *st_engine_control_map(st_engine *e) {
    return e->materials.control_level == e->level ? e->materials.map : NULL;
}

st_result st_engine_update_control(st_engine *e, st_rect rect, st_error *err) {
    if (!st_engine_control_map(e) || !e->materials.map) return st_error_set(err, ST_ERR_INVALID, "no control map yet");
    return upload_control(e, rect, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, err);
}

st_result st_engine_set_control_map(st_engine *e, const st_control_map *map, st_error *err) {
    if (!e->level) return st_error_set(err, ST_ERR_INVALID, "no level loaded");
    if (map->width != e->level->width || map->height != e->level->height)
        return st_error_set(err, ST_ERR_INVALID, "a %ux%u control map for a %ux%u level", map->width, map->height,
                            e->level->width, e->level->height);
    st_control_map *copy;
    st_result r = st_control_map_create(map->width, map->height, &copy, err);
    if (r) return r;
    memcpy(copy->texels, map->texels, (size_t)map->width * map->height * 4);
    st_control_map_destroy(e->materials.map);
    e->materials.map = copy;
    e->materials.control_level = NULL;
    return st_materials_gpu_enable(e, err);
}

st_result st_engine_add_materials(st_engine *e, const char *dir, uint32_t *added, st_error *err) {
    *added = 0;
    if (!e->materials.set) {
        st_result r = st_material_set_synthesize(&e->materials.set, err);
        if (r) return r;
    }
    st_result r = st_material_set_load_folder(e->materials.set, dir, added, err);
    if (!r && *added) e->materials.arrays_ready = false; /* the next textured renderer uploads them */
    if (!r && *added && e->materials.control_level) r = st_materials_gpu_enable(e, err);
    return r;
}

const st_material_set *st_engine_material_set(const st_engine *e) { return e->materials.set; }

st_rect st_engine_control_last_upload(const st_engine *e) { return e->materials.uploaded; }
