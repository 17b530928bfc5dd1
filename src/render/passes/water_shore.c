/* The water pass's shore: the bed of the level under the water's level, over a window around the eye, set on the
 * CPU evaluator (so queries shoal as the picture does) and its fields uploaded as an R32F 2D array the shaders
 * filter linearly — the depth, the normal away from the shore, each wave's phase offset (src/water/shore.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/passes/water_shore.h"

#define SHORE_WINDOW 1024 /* texels per side of the window the fields cover (one sample a texel) */

static int32_t window_start(double eye, uint32_t size, bool wrap) {
    int32_t start = (int32_t)floor(eye / 64.0) * 64 - SHORE_WINDOW / 2; /* snapped: the same window nearby */
    if (!wrap) {
        if (start + SHORE_WINDOW > (int32_t)size) start = (int32_t)size - SHORE_WINDOW;
        if (start < 0) start = 0;
    }
    return start;
}

st_result st_water_shore_gpu_update(st_gpu *gpu, const st_level *level, st_water *water, const double eye[2],
                                    st_water_shore_gpu *s, bool *moved, st_error *err) {
    *moved = false;
    if (s->image.image) {
        if (s->whole) return ST_OK;
        double cx = 0.5 * (s->rect.x0 + s->rect.x1), cy = 0.5 * (s->rect.y0 + s->rect.y1);
        if (fabs(eye[0] - cx) <= SHORE_WINDOW / 4 && fabs(eye[1] - cy) <= SHORE_WINDOW / 4) return ST_OK;
    }
    st_rect rect;
    bool whole_x = level->width <= SHORE_WINDOW, whole_y = level->height <= SHORE_WINDOW;
    rect.x0 = whole_x ? 0 : window_start(eye[0], level->width, level->wrap_x);
    rect.y0 = whole_y ? 0 : window_start(eye[1], level->height, level->wrap_y);
    rect.x1 = rect.x0 + (int32_t)(whole_x ? level->width : SHORE_WINDOW);
    rect.y1 = rect.y0 + (int32_t)(whole_y ? level->height : SHORE_WINDOW);
    if (s->image.image && !memcmp(&rect, &s->rect, sizeof rect)) return ST_OK;
    float *heights = NULL;
    st_water_bed bed;
    st_result res = st_water_bed_from_level(level, st_water_get_desc(water)->level, rect, 1, &heights, &bed, err);
    if (!res) res = st_water_set_bed(water, &bed, err);
    free(heights);
    if (!res) res = st_water_shore_gpu_upload(gpu, water, &s->image, err);
    if (res) return res;
    s->rect = rect;
    s->whole = whole_x && whole_y;
    *moved = true;
    return ST_OK;
}

void st_water_shore_gpu_destroy(st_gpu *gpu, st_water_shore_gpu *s) {
    st_gpu_image_destroy(gpu, &s->image);
    memset(s, 0, sizeof *s);
}

st_result st_water_shore_gpu_upload(st_gpu *gpu, const st_water *water, st_gpu_image *img, st_error *err) {
    uint32_t w, h, layers;
    double origin[2], spacing;
    const float *data = st_water_shore_grid(water, &w, &h, &layers, origin, &spacing);
    if (!data) return st_error_set(err, ST_ERR_INVALID, "water: no shore to upload");
    st_result res = ST_OK;
    if (img->image && (img->layers != layers || img->width != w || img->height != h))
        return st_error_set(err, ST_ERR_INVALID, "water: the shore's grid changed size");
    if (!img->image)
        res = st_gpu_image_create_array(gpu, w, h, layers, VK_FORMAT_R32_SFLOAT,
                                        VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, img, err);
    VkDeviceSize bytes = (VkDeviceSize)w * h * layers * sizeof(float);
    st_gpu_buffer staging = {0};
    if (!res) res = st_gpu_buffer_create(gpu, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, &staging, err);
    VkCommandBuffer cmd;
    if (!res) {
        memcpy(staging.mapped, data, bytes);
        res = st_gpu_once_begin(gpu, &cmd, err);
    }
    if (!res) {
        VkImageMemoryBarrier2 to_dst = st_gpu_image_barrier(
            img->image, VK_IMAGE_ASPECT_COLOR_BIT, 0, layers, VK_IMAGE_LAYOUT_UNDEFINED,
            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_NONE,
            VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        st_gpu_cmd_image_barriers(cmd, &to_dst, 1);
        VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, layers},
                                    .imageExtent = {w, h, 1}};
        vkCmdCopyBufferToImage(cmd, staging.buffer, img->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
        VkImageMemoryBarrier2 to_read = st_gpu_image_barrier(
            img->image, VK_IMAGE_ASPECT_COLOR_BIT, 0, layers, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
        st_gpu_cmd_image_barriers(cmd, &to_read, 1);
        res = st_gpu_once_submit(gpu, cmd, err);
    }
    st_gpu_buffer_destroy(gpu, &staging);
    return res;
}
