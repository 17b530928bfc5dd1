/* The terrain on the GPU: the level's texel pairs in one RGBA8_UINT texture of (W/2)×H texels, each holding
 * (h_even, m_even, h_odd, m_odd). Owns its upload: the whole level at set_level (in bands through the staging
 * buffer), then the dirty rectangles of edits, recorded into the next frame's command buffer. */
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"

struct st_terrain_gpu {
    st_gpu *gpu;
    const st_level *level;
    st_gpu_image image;
    st_rect pending; /* dirty texels not yet uploaded */
};

st_result st_terrain_gpu_create(st_gpu *gpu, st_terrain_gpu **out, st_error *err) {
    *out = calloc(1, sizeof **out);
    if (!*out) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    (*out)->gpu = gpu;
    return ST_OK;
}

void st_terrain_gpu_destroy(st_terrain_gpu *t) {
    if (!t) return;
    st_gpu_image_destroy(t->gpu, &t->image);
    free(t);
}

VkImageView st_terrain_gpu_view(const st_terrain_gpu *t) { return t->image.view; }

static st_result upload_rect(st_terrain_gpu *t, st_rect rect, bool first, st_error *err) {
    uint32_t px0 = (uint32_t)rect.x0 / 2, px1 = ((uint32_t)rect.x1 + 1) / 2; /* widened to whole pairs */
    uint32_t y0 = (uint32_t)rect.y0, y1 = (uint32_t)rect.y1;
    VkDeviceSize bytes = (VkDeviceSize)(px1 - px0) * (y1 - y0) * 4;
    st_result r = st_gpu_staging_reserve(t->gpu, bytes, err);
    if (r) return r;
    st_level_pack_pairs(t->level, rect, t->gpu->staging_mapped);
    VkCommandBuffer cmd;
    r = st_gpu_once_begin(t->gpu, &cmd, err);
    if (r) return r;
    st_gpu_cmd_upload_rect(cmd, t->gpu, &t->image,
                           first ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, px0, y0,
                           px1 - px0, y1 - y0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    return st_gpu_once_submit(t->gpu, cmd, err);
}

st_result st_terrain_gpu_set_level(st_terrain_gpu *t, const st_level *level, st_error *err) {
    vkDeviceWaitIdle(t->gpu->device);
    st_gpu_image_destroy(t->gpu, &t->image);
    t->level = level;
    t->pending = (st_rect){0};
    st_result r = st_gpu_image_create(t->gpu, level->width / 2, level->height, VK_FORMAT_R8G8B8A8_UINT,
                                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                          VK_IMAGE_USAGE_STORAGE_BIT,
                                      &t->image, err);
    if (r) return st_error_prefix(err, "terrain texture");
    /* Upload in bands so the staging buffer stays small for huge levels. */
    uint32_t band = (uint32_t)((16u << 20) / (level->width * 2));
    if (band < 1) band = 1;
    for (uint32_t y = 0; y < level->height && !r; y += band) {
        uint32_t y1 = y + band < level->height ? y + band : level->height;
        r = upload_rect(t, (st_rect){0, (int32_t)y, (int32_t)level->width, (int32_t)y1}, y == 0, err);
    }
    return r;
}

st_rect st_terrain_gpu_queue(st_terrain_gpu *t, st_rect rect) {
    if (!t->level) return (st_rect){0};
    if (rect.x0 < 0) rect.x0 = 0;
    if (rect.y0 < 0) rect.y0 = 0;
    if (rect.x1 > (int32_t)t->level->width) rect.x1 = (int32_t)t->level->width;
    if (rect.y1 > (int32_t)t->level->height) rect.y1 = (int32_t)t->level->height;
    if (st_rect_empty(rect)) return (st_rect){0};
    /* The rows travel with the next frame's command buffer, so the first post-edit frame pays for them. */
    t->pending = st_rect_union(t->pending, rect);
    return rect;
}

bool st_terrain_gpu_has_pending(const st_terrain_gpu *t) { return !st_rect_empty(t->pending); }

st_result st_terrain_gpu_record_pending(st_terrain_gpu *t, VkCommandBuffer cmd, st_error *err) {
    if (st_rect_empty(t->pending)) return ST_OK;
    st_rect rect = t->pending;
    uint32_t px0 = (uint32_t)rect.x0 / 2, px1 = ((uint32_t)rect.x1 + 1) / 2;
    uint32_t y0 = (uint32_t)rect.y0, y1 = (uint32_t)rect.y1;
    st_result r = st_gpu_staging_reserve(t->gpu, (VkDeviceSize)(px1 - px0) * (y1 - y0) * 4, err);
    if (r) return r;
    st_level_pack_pairs(t->level, rect, t->gpu->staging_mapped);
    st_gpu_cmd_upload_rect(cmd, t->gpu, &t->image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, px0, y0, px1 - px0,
                           y1 - y0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    t->pending = (st_rect){0};
    return ST_OK;
}

st_result st_terrain_gpu_set_empty(st_terrain_gpu *t, st_error *err) {
    vkDeviceWaitIdle(t->gpu->device);
    st_gpu_image_destroy(t->gpu, &t->image);
    t->level = NULL; /* edits queue nothing here */
    t->pending = (st_rect){0};
    st_result r = st_gpu_image_create(t->gpu, 1, 1, VK_FORMAT_R8G8B8A8_UINT,
                                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, &t->image, err);
    if (r) return st_error_prefix(err, "terrain texture");
    r = st_gpu_staging_reserve(t->gpu, 4, err);
    if (r) return r;
    memset(t->gpu->staging_mapped, 0, 4);
    VkCommandBuffer cmd;
    r = st_gpu_once_begin(t->gpu, &cmd, err);
    if (r) return r;
    st_gpu_cmd_upload_rect(cmd, t->gpu, &t->image, VK_IMAGE_LAYOUT_UNDEFINED, 0, 0, 1, 1,
                           VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    return st_gpu_once_submit(t->gpu, cmd, err);
}
