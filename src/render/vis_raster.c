/* The compute rasteriser's frame: clearing the visibility buffer and the big-triangle queue, the triangle grid,
 * the queued big triangles and the resolve, with the barriers between them, each a timed pass by name. */
#include "render/render_internal.h"

/* The next of the rasteriser's timed passes, unless the caller times them all as one of its own. */
static void next_pass(st_renderer *r, const st_vis_raster *v, VkCommandBuffer cmd, const char *name) {
    if (!v->untimed) st_renderer_pass_next(r, cmd, name);
}

void st_vis_raster_grid(uint32_t triangles, uint32_t *gx, uint32_t *gy) {
    uint32_t groups = (triangles + 63) / 64;
    *gx = groups < 65535 ? groups : 65535;
    *gy = *gx ? (groups + *gx - 1) / *gx : 0;
}

void st_vis_raster_clear(st_renderer *r, const st_vis_raster *v, VkCommandBuffer cmd) {
    if (!v->untimed) st_renderer_pass_begin(r, cmd, "clear");
    /* 0 = nothing drawn; the queue holds 0 triangles × big_split × 1. The previous frame's readers finished
     * before this submit began (frames are waited on), and the barrier orders these writes before this frame's
     * atomics. */
    vkCmdFillBuffer(cmd, v->vis, 0, VK_WHOLE_SIZE, 0);
    uint32_t header[16] = {0, v->big_split, 1, 0};
    uint32_t words = v->header_words ? v->header_words : 4;
    words = words > 16 ? 16 : words;
    vkCmdUpdateBuffer(cmd, v->big_queue, 0, words * sizeof header[0], header);
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_CLEAR_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
                              VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                              VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                                  VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
}

void st_vis_raster_dispatch(st_renderer *r, const st_vis_raster *v, VkCommandBuffer cmd, uint32_t gx, uint32_t gy) {
    if (gx) {
        next_pass(r, v, cmd, v->raster_name ? v->raster_name : "raster");
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, v->raster);
        vkCmdDispatch(cmd, gx, gy, 1);
        /* pass 1's atomics and queue writes before pass 2 reads the queue (also as its dispatch size) and adds
         * its own atomics */
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                                  VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT |
                                      VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
        next_pass(r, v, cmd, "big");
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, v->big);
        vkCmdDispatchIndirect(cmd, v->big_queue, 0);
        /* every atomic before the resolve reads the visibility buffer */
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    }
    next_pass(r, v, cmd, "resolve");
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, v->resolve);
    vkCmdDispatch(cmd, (r->width + 7) / 8, (r->height + 7) / 8, 1);
    if (!v->untimed) st_renderer_pass_end(r, cmd);
}
