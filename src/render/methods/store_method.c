/* The plumbing shared by the methods that draw a tile store (cdlod.c, clipmap.c): opening the world, the world's
 * bindings and uniforms, the shared index buffer's upload, and the compute variants' buffers, passes and frame.
 * The contract of each function is in store_method.h. */
#include <stdio.h>
#include <string.h>

#include "render/methods/store_method.h"

st_result st_store_method_world(st_renderer *r, uint32_t grid, st_lod_world *out, st_error *err) {
    st_engine *e = r->engine;
    st_result res = st_lod_world_of_store(st_large_world_store(e->world), st_large_world_residency(e->world), grid,
                                          out, err);
    return res ? st_error_prefix(err, "%s", r->ops->info.name) : ST_OK;
}

void st_store_method_world_bindings(const st_renderer *r, st_gpu_binding b[ST_STORE_WORLD_BINDINGS]) {
    st_large_world *w = r->engine->world;
    b[0] = (st_gpu_binding){.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .view = st_large_world_slots_view(w),
                            .layout = ST_TILE_POOL_LAYOUT,
                            .sampler = r->engine->nearest};
    b[1] = (st_gpu_binding){.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .buffer = st_large_world_slot_table(w)->buffer};
    b[2] = (st_gpu_binding){.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                            .stages = VK_SHADER_STAGE_ALL,
                            .buffer = st_large_world_page_table(w)->buffer};
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

void st_store_method_tile_frame(const st_renderer *r, const st_lod_world *w, int64_t ax, int64_t ay,
                                st_store_frame_gpu *f) {
    st_large_world *lw = r->engine->world;
    const double *eye = r->view.origin;
    uint32_t sint = w->tile_intervals, levels = w->levels < ST_STORE_TILE_LEVELS ? w->levels : ST_STORE_TILE_LEVELS;
    memset(f, 0, sizeof *f);
    for (uint32_t l = 0; l < levels; l++) {
        int64_t span = (int64_t)sint << l;
        int64_t atx = floor_div(ax, span), aty = floor_div(ay, span);
        f->anchor_tile[l][0] = (float)atx;
        f->anchor_tile[l][1] = (float)aty;
        f->anchor_tile[l][2] = (float)(ax - atx * span) / (float)(1 << l);
        f->anchor_tile[l][3] = (float)(ay - aty * span) / (float)(1 << l);
    }
    st_page_level pages[ST_LOD_MAX_LEVELS];
    st_large_world_page_levels(lw, pages);
    for (uint32_t l = 0; l < levels; l++) {
        f->pages[l][0] = pages[l].offset;
        f->pages[l][1] = pages[l].nx;
        f->pages[l][2] = pages[l].ny;
        f->pages[l][3] = pages[l].present;
    }
    const st_store_info *in = st_store_get_info(st_large_world_store(lw));
    f->info[0] = w->levels;
    f->info[2] = st_large_world_u16(lw) ? 1u : 0u;
    f->info[3] = sint;
    f->spacing[0] = (float)w->spacing_x;
    f->spacing[1] = (float)w->spacing_y;
    f->spacing[2] = (float)(eye[0] - (double)ax * w->spacing_x);
    f->spacing[3] = (float)(eye[1] - (double)ay * w->spacing_y);
    f->extent[0] = (float)((int64_t)w->width - 1 - ax);
    f->extent[1] = (float)((int64_t)w->height - 1 - ay);
    f->extent[2] = (float)in->sea_level_m;
    f->extent[3] = (float)in->max_m;
    f->eye_world[0] = (float)eye[2];
    f->eye_world[1] = r->desc.shadows ? 1.0f : 0.0f;
    f->eye_world[2] = r->desc.wireframe ? 1.0f : 0.0f;
}

st_result st_store_method_index_begin(st_renderer *r, uint32_t count, st_gpu_buffer *buf, uint16_t **ix,
                                      st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    VkDeviceSize bytes = (VkDeviceSize)count * sizeof(uint16_t);
    st_gpu_buffer_destroy(gpu, buf);
    st_result res = st_gpu_buffer_create(gpu, bytes, VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                         false, buf, err);
    if (!res) res = st_gpu_staging_reserve(gpu, bytes, err);
    *ix = res ? NULL : gpu->staging_mapped;
    return res;
}

st_result st_store_method_index_upload(st_renderer *r, const st_gpu_buffer *buf, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    VkCommandBuffer cmd;
    st_result res = st_gpu_once_begin(gpu, &cmd, err);
    if (res) return res;
    VkBufferCopy region = {.size = buf->size};
    vkCmdCopyBuffer(cmd, gpu->staging, buf->buffer, 1, &region);
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT, VK_ACCESS_2_INDEX_READ_BIT);
    return st_gpu_once_submit(gpu, cmd, err);
}

st_result st_store_compute_check(const st_renderer *r, const char *raster_method, st_error *err) {
    const st_gpu *gpu = r->engine->gpu;
    if (gpu->int64_atomics) return ST_OK;
    return st_error_set(err, ST_ERR_UNSUPPORTED,
                        "%s needs 64-bit buffer atomics (shaderInt64 + shaderBufferInt64Atomics), which %s lacks; "
                        "use --method %s",
                        r->ops->info.name, gpu->props.deviceName, raster_method);
}

st_result st_store_compute_buffers(st_renderer *r, st_store_compute *c, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    st_result res = st_gpu_buffer_create(gpu, (VkDeviceSize)r->width * r->height * 8,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false,
                                         &c->vis, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, 16 + (VkDeviceSize)ST_STORE_BIG_CAP * 4,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                                   false, &c->big, err);
    return res;
}

void st_store_compute_bindings(const st_store_compute *c, st_gpu_binding b[2]) {
    b[0] = (st_gpu_binding){.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_ALL, .buffer = c->vis.buffer};
    b[1] = (st_gpu_binding){.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_ALL, .buffer = c->big.buffer};
}

st_result st_store_compute_pipelines(st_renderer *r, st_store_compute *c, VkDescriptorSetLayout set_layout,
                                     const char *prefix, VkPipelineLayout *layout, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    st_result res = st_renderer_storage_targets_layout(r, &c->targets_layout, &c->targets_set, err);
    VkDescriptorSetLayout sets[2] = {set_layout, c->targets_layout};
    if (!res) res = st_renderer_pipeline_layout(r, sets, 2, sizeof(st_store_compute_push), layout, err);
    const char *passes[3] = {"raster", "big", "resolve"};
    VkPipeline *out[3] = {&c->raster, &c->big_pass, &c->resolve};
    for (int i = 0; i < 3 && !res; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s_%s.comp", prefix, passes[i]);
        res = st_gpu_compute_pipeline(gpu, name, *layout, out[i], err);
    }
    return res;
}

void st_store_compute_draw(st_renderer *r, const st_store_compute *c, VkPipelineLayout layout, VkDescriptorSet set,
                           VkCommandBuffer cmd, uint32_t triangles) {
    st_vis_raster v = {.raster = c->raster, .big = c->big_pass, .resolve = c->resolve, .vis = c->vis.buffer,
                       .big_queue = c->big.buffer, .big_split = ST_STORE_BIG_SPLIT};
    st_vis_raster_clear(r, &v, cmd);
    VkDescriptorSet sets[3] = {r->globals_set, set, c->targets_set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 3, sets, 0, NULL);
    uint32_t gx, gy;
    st_vis_raster_grid(triangles, &gx, &gy);
    st_store_compute_push push = {.tri_total = triangles, .big_cap = ST_STORE_BIG_CAP, .row_threads = gx * 64};
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_ALL, 0, sizeof push, &push);
    st_vis_raster_dispatch(r, &v, cmd, gx, gy);
}

void st_store_compute_destroy(st_renderer *r, st_store_compute *c) {
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    VkPipeline pipes[3] = {c->raster, c->big_pass, c->resolve};
    for (int i = 0; i < 3; i++)
        if (pipes[i]) vkDestroyPipeline(dev, pipes[i], NULL);
    if (c->targets_layout) vkDestroyDescriptorSetLayout(dev, c->targets_layout, NULL);
    st_gpu_buffer_destroy(gpu, &c->vis);
    st_gpu_buffer_destroy(gpu, &c->big);
    memset(c, 0, sizeof *c);
}
