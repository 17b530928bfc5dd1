/* The renderer: one method at one size. Owns the colour and reverse-Z depth targets, the per-frame
 * globals, a command buffer and a timestamp query pool. A frame is a sequence of passes (src/render/passes/:
 * the shadow map, the method's own passes, the near-plane cap, the water), recorded, submitted and waited on
 * (serial latency, not throughput); GPU time is the sum of the frame's named, timestamped passes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_internal.h"
#include "strata/shading.h"

/* A stamp's index, or UINT32_MAX when none is written. A pass's closing stamp at ALL_COMMANDS waits for every
 * earlier command; adapters whose timestamps do not honour that (lavapipe) have timestamps switched off
 * (src/gpu/context.c). */
static uint32_t write_stamp(st_renderer *r, VkCommandBuffer cmd, VkPipelineStageFlags2 stage) {
    if (!r->engine->gpu->timestamps || r->stamps >= ST_MAX_PASS_STAMPS) return UINT32_MAX;
    vkCmdWriteTimestamp2(cmd, stage, r->queries, r->stamps);
    return r->stamps++;
}

void st_renderer_pass_begin(st_renderer *r, VkCommandBuffer cmd, const char *name) {
    if (r->timed_open) st_renderer_pass_end(r, cmd);
    if (r->timed_count >= ST_MAX_FRAME_PASSES) return;
    r->timed[r->timed_count].name = name;
    r->timed[r->timed_count].begin = write_stamp(r, cmd, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT);
    r->timed[r->timed_count].end = UINT32_MAX;
    r->timed_count++;
    r->timed_open = true;
}

void st_renderer_pass_end(st_renderer *r, VkCommandBuffer cmd) {
    if (!r->timed_open) return;
    r->timed[r->timed_count - 1].end = write_stamp(r, cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
    r->timed_open = false;
}

void st_renderer_pass_next(st_renderer *r, VkCommandBuffer cmd, const char *name) {
    if (!r->timed_open || r->timed_count >= ST_MAX_FRAME_PASSES) {
        st_renderer_pass_begin(r, cmd, name);
        return;
    }
    uint32_t shared = write_stamp(r, cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
    r->timed[r->timed_count - 1].end = shared;
    r->timed[r->timed_count].name = name;
    r->timed[r->timed_count].begin = shared;
    r->timed[r->timed_count].end = UINT32_MAX;
    r->timed_count++;
}

double st_frame_timing_pass_ms(const st_frame_timing *t, const char *name) {
    double ms = 0;
    for (uint32_t i = 0; i < t->pass_count && i < ST_MAX_FRAME_PASSES; i++)
        if (t->passes[i].name && strcmp(t->passes[i].name, name) == 0) ms += t->passes[i].gpu_ms;
    return ms;
}

void st_renderer_begin_raster(st_renderer *r, VkCommandBuffer cmd) {
    VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = r->color.view,
                                       .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                       .clearValue.color.float32 = {st_fog_linear[0], st_fog_linear[1], st_fog_linear[2], 1.0f}};
    VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = r->depth.view,
                                       .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                       .clearValue.depthStencil = {0.0f, 0}};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                          .renderArea = {{0, 0}, {r->width, r->height}},
                          .layerCount = 1,
                          .colorAttachmentCount = 1,
                          .pColorAttachments = &color,
                          .pDepthAttachment = &depth};
    vkCmdBeginRendering(cmd, &ri);
    VkViewport vp = {0, 0, (float)r->width, (float)r->height, 0, 1};
    VkRect2D sc = {{0, 0}, {r->width, r->height}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
}

void st_renderer_end_raster(st_renderer *r, VkCommandBuffer cmd) {
    (void)r;
    vkCmdEndRendering(cmd);
}

st_result st_renderer_pipeline_layout(st_renderer *r, const VkDescriptorSetLayout *extra, uint32_t extra_count,
                                      uint32_t push_bytes, VkPipelineLayout *out, st_error *err) {
    VkDescriptorSetLayout sets[4] = {r->engine->globals_layout};
    if (extra_count > 3) return st_error_set(err, ST_ERR_INVALID, "too many descriptor sets");
    for (uint32_t i = 0; i < extra_count; i++) sets[1 + i] = extra[i];
    VkPushConstantRange push = {.stageFlags = VK_SHADER_STAGE_ALL, .offset = 0, .size = push_bytes};
    VkPipelineLayoutCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1 + extra_count,
                                     .pSetLayouts = sets,
                                     .pushConstantRangeCount = push_bytes ? 1 : 0,
                                     .pPushConstantRanges = &push};
    return st_gpu_check(vkCreatePipelineLayout(r->engine->gpu->device, &ci, NULL, out), "pipeline layout", err);
}

st_result st_renderer_alloc_set(st_renderer *r, VkDescriptorSetLayout layout, VkDescriptorSet *out, st_error *err) {
    return st_gpu_set_alloc(r->engine->gpu, r->pool, layout, out, err);
}

st_result st_renderer_set_create(st_renderer *r, const st_gpu_binding *bindings, uint32_t count,
                                 VkDescriptorSetLayout *layout, VkDescriptorSet *set, st_error *err) {
    st_result res = st_gpu_set_layout(r->engine->gpu, bindings, count, layout, err);
    if (!res) res = st_renderer_alloc_set(r, *layout, set, err);
    if (!res) st_gpu_set_write(r->engine->gpu, *set, bindings, count);
    return res;
}

st_result st_renderer_storage_targets_layout(st_renderer *r, VkDescriptorSetLayout *layout, VkDescriptorSet *set,
                                             st_error *err) {
    st_gpu_binding b[2] = {{.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                            .view = r->color.view,
                            .layout = VK_IMAGE_LAYOUT_GENERAL},
                           {.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                            .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                            .view = r->depth.view,
                            .layout = VK_IMAGE_LAYOUT_GENERAL}};
    return st_renderer_set_create(r, b, 2, layout, set, err);
}

static st_result create_targets(st_renderer *r, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    VkImageUsageFlags common = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
    uint32_t order_count = 0;
    const st_pass_ops *const *order = st_frame_order(&order_count);
    for (uint32_t i = 0; i < order_count; i++)
        if (order[i] && order[i]->target_usage) common |= order[i]->target_usage(r); /* what later passes need */
    if (r->ops->target_usage) common |= r->ops->target_usage(r);
    st_result res;
    if (r->ops->targets == ST_TARGETS_RASTER) {
        res = st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_R8G8B8A8_SRGB,
                                  common | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, &r->color, err);
        if (!res)
            res = st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_D32_SFLOAT,
                                      common | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, &r->depth, err);
    } else {
        res = st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_R8G8B8A8_UNORM,
                                  common | VK_IMAGE_USAGE_STORAGE_BIT, &r->color, err);
        if (!res)
            res = st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_R32_SFLOAT,
                                      common | VK_IMAGE_USAGE_STORAGE_BIT, &r->depth, err);
    }
    return res;
}

static void fill_globals(st_renderer *r, const st_camera *cam);

st_result st_renderer_create(st_engine *e, const st_render_desc *desc, st_renderer **out, st_error *err) {
    *out = NULL;
    const char *name = desc && desc->method ? desc->method : "ray";
    const st_method_ops *ops = st_method_ops_find(name);
    if (!ops) return st_error_set(err, ST_ERR_INVALID, "unknown method '%s' (see 'strata render --help')", name);
    /* a method draws one kind of world: asking for the other is one clear error */
    if (ops->info.world == ST_WORLD_STORE && !e->world)
        return st_error_set(err, ST_ERR_INVALID, "method '%s' draws DEM tile stores (a folder, URL or gen:SEED:WxH); "
                            "this world is a level", name);
    if (ops->info.world == ST_WORLD_LEVEL && !e->level && !e->paged)
        return st_error_set(err, ST_ERR_INVALID, e->world ? "method '%s' draws levels; this world is a tile store "
                                                            "(draw it with a store method: cdlod, clipmap, ...)"
                                                          : "no level loaded (method '%s')", name);
    if (ops->info.world == ST_WORLD_LEVEL && !e->level && !ops->pages_suffice) {
        char known[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < st_method_count(); i++) {
            const st_method_ops *m = st_method_ops_find(st_method_at(i)->name);
            if (!m || !m->pages_suffice) continue;
            int k = snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "", m->info.name);
            if (k > 0 && used + (size_t)k < sizeof known) used += (size_t)k;
        }
        return st_error_set(err, ST_ERR_INVALID, "method '%s' needs the whole level in memory; a paged world without one "
                            "draws with %s", name, known);
    }
    int slot = -1;
    for (int i = 0; i < ST_MAX_RENDERERS && slot < 0; i++)
        if (!e->renderers[i]) slot = i;
    if (slot < 0) return st_error_set(err, ST_ERR_INVALID, "too many live renderers");
    st_renderer *r = calloc(1, sizeof *r);
    if (!r) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    r->engine = e;
    r->ops = ops;
    if (desc) r->desc = *desc;
    r->desc.method = ops->info.name;
    r->width = r->desc.width ? r->desc.width : 1280;
    r->height = r->desc.height ? r->desc.height : 800;
    st_gpu *gpu = e->gpu;
    VkDevice dev = gpu->device;
    st_result res = ST_OK;
    if (r->width > 16384 || r->height > 16384)
        res = st_error_set(err, ST_ERR_INVALID, "image size %ux%u is past 16384", r->width, r->height);
    if (!res) res = create_targets(r, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, sizeof(st_globals_gpu), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true, &r->globals, err);
    if (!res) {
        VkDescriptorPoolSize sizes[4] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 32},
                                         {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 32},
                                         {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 32},
                                         {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 32}};
        VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                         .maxSets = 16,
                                         .poolSizeCount = 4,
                                         .pPoolSizes = sizes};
        res = st_gpu_check(vkCreateDescriptorPool(dev, &pi, NULL, &r->pool), "descriptor pool", err);
    }
    if (!res) res = st_renderer_alloc_set(r, e->globals_layout, &r->globals_set, err);
    if (!res) {
        /* a store renderer has no terrain texture: a stand-in keeps set 0 complete */
        VkImageView terrain = ops->info.world == ST_WORLD_STORE ? st_large_world_placeholder_view(e->world)
                                                                : st_terrain_gpu_view(e->terrain);
        st_gpu_binding w[2] = {
            {.type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .buffer = r->globals.buffer, .range = sizeof(st_globals_gpu)},
            {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
             .view = terrain,
             .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL}};
        st_gpu_set_write(gpu, r->globals_set, w, 2);
        /* the page table and page pool: the paged terrain's, or placeholders the decode never reads */
        const st_paged_terrain *pg = ops->info.world == ST_WORLD_LEVEL ? e->paged : NULL;
        st_gpu_binding pages = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                .buffer = pg ? st_paged_terrain_table(pg)->buffer : e->page_placeholder.buffer};
        st_gpu_binding pool = {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                               .view = pg ? st_paged_terrain_pool_view(pg) : e->pool_placeholder.view,
                               .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        st_gpu_set_write_binding(gpu, r->globals_set, 6, &pages);
        st_gpu_set_write_binding(gpu, r->globals_set, 7, &pool);
    }
    /* textured shading: the materials (and the level's control map) on the GPU before the set is bound */
    if (!res && r->desc.shading != ST_SHADING_FLAT) res = st_materials_gpu_enable(e, err);
    if (!res) st_materials_gpu_bind(e, r->globals_set);
    /* The frame's passes, in order; each is created before the method, which may read what they bind (the
     * shadow pass fills set 0's binding 2). */
    uint32_t order_count = 0;
    const st_pass_ops *const *order = st_frame_order(&order_count);
    for (uint32_t i = 0; i < order_count && i < ST_MAX_FRAME_ORDER && !res; i++) {
        r->passes[i].ops = order[i];
        r->pass_count = i + 1;
        if (order[i]) res = order[i]->create(r, &r->passes[i].state, err);
    }
    if (!res) {
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = gpu->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        res = st_gpu_check(vkAllocateCommandBuffers(dev, &ai, &r->cmd), "command buffer", err);
    }
    if (!res) {
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        res = st_gpu_check(vkCreateFence(dev, &fi, NULL, &r->fence), "fence", err);
    }
    if (!res && gpu->timestamps) {
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                    .queryCount = ST_MAX_PASS_STAMPS};
        res = st_gpu_check(vkCreateQueryPool(dev, &qi, NULL, &r->queries), "query pool", err);
    }
    e->renderers[slot] = r;
    /* The globals hold the level's size and types before any frame, for methods that build at create
     * (voxel bakes its pyramid with the shared surface decode); the camera comes with each frame. */
    if (!res) fill_globals(r, &(st_camera){0});
    if (!res) res = ops->create(r, &r->state, err);
    if (res) {
        st_renderer_destroy(r);
        return res;
    }
    *out = r;
    return ST_OK;
}

void st_renderer_destroy(st_renderer *r) {
    if (!r) return;
    st_engine *e = r->engine;
    VkDevice dev = e->gpu->device;
    vkDeviceWaitIdle(dev);
    if (r->state) r->ops->destroy(r, r->state);
    for (int i = 0; i < ST_MAX_RENDERERS; i++)
        if (e->renderers[i] == r) e->renderers[i] = NULL;
    if (r->queries) vkDestroyQueryPool(dev, r->queries, NULL);
    if (r->fence) vkDestroyFence(dev, r->fence, NULL);
    if (r->cmd) vkFreeCommandBuffers(dev, e->gpu->pool, 1, &r->cmd);
    for (uint32_t i = r->pass_count; i-- > 0;)
        if (r->passes[i].ops && r->passes[i].state) r->passes[i].ops->destroy(r, r->passes[i].state);
    if (r->pool) vkDestroyDescriptorPool(dev, r->pool, NULL);
    st_gpu_buffer_destroy(e->gpu, &r->globals);
    st_gpu_image_destroy(e->gpu, &r->color);
    st_gpu_image_destroy(e->gpu, &r->depth);
    free(r);
}

/* Every material's repeat divides this many world units: a store's shaders, which see world − eye, get the eye
 * folded by it, so the textures stay put in the world as the eye moves. */
#define MATERIAL_FOLD 7680.0

static void fill_material_globals(st_renderer *r, st_globals_gpu *g) {
    const st_materials_gpu *m = &r->engine->materials;
    bool textured = r->desc.shading != ST_SHADING_FLAT && m->arrays_ready;
    memset(g->material_info, 0, sizeof g->material_info + sizeof g->material_origin + sizeof g->material_mean);
    /* the level's colour map is its albedo, flat or textured */
    const st_level *l = r->engine->level;
    g->material_info[3] = r->ops->info.world != ST_WORLD_STORE && l && l->colors && m->colors_level == l
                              ? ST_MATERIAL_INFO_COLORS
                              : 0;
    if (!textured) return;
    if (r->desc.shading == ST_SHADING_FETCHES) g->material_info[3] |= ST_MATERIAL_INFO_FETCHES;
    g->material_info[0] = 1;
    g->material_info[1] = m->set->count;
    g->material_info[2] = r->ops->info.world != ST_WORLD_STORE && r->engine->level &&
                          m->control_level == r->engine->level;
    if (r->ops->info.world == ST_WORLD_STORE)
        for (int k = 0; k < 2; k++) g->material_origin[k] = (float)fmod(r->view.origin[k], MATERIAL_FOLD);
    for (uint32_t i = 0; i < m->set->count; i++) {
        for (int k = 0; k < 3; k++) g->material_mean[i][k] = m->set->mean[i][k];
        g->material_mean[i][3] = 1.0f / m->set->period[i];
    }
}

static void fill_globals(st_renderer *r, const st_camera *cam) {
    st_view v = st_camera_view(cam, r->width, r->height);
    bool store = r->ops->info.world == ST_WORLD_STORE;
    if (store) v = st_view_relative(&v); /* camera-relative: shaders see world − eye */
    r->view = v;
    st_globals_gpu *g = r->globals.mapped;
    const st_world_shape *l = store ? NULL : &r->engine->shape;
    st_globals_fill_view(g, &v, r->desc.knobs.ray_steps, r->frame_index);
    if (l) {
        g->level[0] = (float)l->width;
        g->level[1] = (float)l->height;
        g->level[3] = 256.0f;
    } else { /* a store: its extent in metres and its highest point */
        const st_store_info *in = st_store_get_info(st_large_world_store(r->engine->world));
        g->level[0] = (float)((double)(in->width - 1) * in->spacing_x_m);
        g->level[1] = (float)((double)(in->height - 1) * in->spacing_y_m);
        g->level[3] = (float)in->max_m;
    }
    g->knobs[1] = l ? l->terrain_types : 0;
    /* the bounded axes (surface.glsl); a store's DEM ends at its edges */
    g->knobs[3] = l ? (l->wrap_x ? 0u : 1u) | (l->wrap_y ? 0u : 2u) : 3u;
    if (l && r->engine->paged) g->knobs[3] |= 4u; /* the decode reads through the page table (surface.glsl) */
    /* the table's layout as uniforms: a march's every texel read needs it, and a uniform costs it no load */
    memset(g->pages_info, 0, sizeof g->pages_info);
    if (l && r->engine->paged) {
        uint32_t slots, *pi = g->pages_info;
        st_paged_terrain_pages(r->engine->paged, &pi[0], &pi[1], &pi[2], &pi[3], &slots);
    }
    memcpy(g->albedo, r->engine->albedo, sizeof g->albedo);
    if (store) g->fog[3] = st_store_fog_band(v.far_dist);
    fill_material_globals(r, g);
    for (uint32_t i = 0; i < r->pass_count; i++)
        if (r->passes[i].ops && r->passes[i].ops->fill_globals)
            r->passes[i].ops->fill_globals(r, r->passes[i].state, g);
}

void st_renderer_set_camera(st_renderer *r, const st_camera *camera) { fill_globals(r, camera); }

st_result st_renderer_draw(st_renderer *r, const st_camera *cam, st_frame_timing *timing, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    double t0 = st_time_ms();
    fill_globals(r, cam);
    VkCommandBuffer cmd = r->cmd;
    st_result res = st_gpu_check(vkResetCommandBuffer(cmd, 0), "resetting the frame", err);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if (!res) res = st_gpu_check(vkBeginCommandBuffer(cmd, &bi), "beginning the frame", err);
    if (res) return res;
    if (r->queries) vkCmdResetQueryPool(cmd, r->queries, 0, ST_MAX_PASS_STAMPS);
    r->stamps = 0;
    r->timed_count = 0;
    r->timed_open = false;
    /* an edit's rows travel in this frame: timed as their own pass, so the first post-edit frame shows them */
    bool upload = st_terrain_gpu_has_pending(r->engine->terrain);
    if (upload) st_renderer_pass_begin(r, cmd, "upload");
    res = st_terrain_gpu_record_pending(r->engine->terrain, cmd, err);
    if (upload) st_renderer_pass_end(r, cmd);
    if (res) {
        vkEndCommandBuffer(cmd);
        return res;
    }
    /* The targets are fully rewritten every frame: their old content is discarded (UNDEFINED). */
    if (r->ops->targets == ST_TARGETS_RASTER) {
        st_gpu_cmd_image_barrier(cmd, r->color.image, r->color.aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                                 VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                 VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                 VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
        st_gpu_cmd_image_barrier(cmd, r->depth.image, r->depth.aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                 VK_ACCESS_2_NONE,
                                 VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                                 VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                     VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
    } else {
        for (int i = 0; i < 2; i++) {
            st_gpu_image *img = i ? &r->depth : &r->color;
            st_gpu_cmd_image_barrier(cmd, img->image, img->aspect, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL,
                                     VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_NONE,
                                     VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        }
    }
    bool store = r->ops->info.world == ST_WORLD_STORE;
    /* a store renderer drives the residency manager once per frame, before its selection requests tiles */
    if (store) st_large_world_begin_frame(r->engine->world);
    /* so does a renderer of paged terrain, for the pages around the eye: their uploads are submitted at once,
     * ahead of this frame on the queue, and the renderers told of them before the frame is recorded */
    st_paged_terrain *paged = store ? NULL : r->engine->paged;
    if (paged) {
        st_paged_terrain_begin_frame(paged, cam);
        res = st_paged_terrain_end_frame(paged, err);
        if (!res) res = st_paged_terrain_deliver(r->engine, err);
        if (res) {
            vkEndCommandBuffer(cmd);
            return res;
        }
    }
    for (uint32_t i = 0; i < r->pass_count; i++) {
        st_frame_pass *p = &r->passes[i];
        if (p->ops) p->ops->record(r, p->state, cmd);
        else r->ops->record(r, r->state, cmd);
        st_renderer_pass_end(r, cmd); /* a timed pass left open ends with its recorder */
    }
    /* the frame's tile uploads are submitted before the frame that may read them */
    if (store) res = st_large_world_end_frame(r->engine->world, err);
    if (res) {
        vkEndCommandBuffer(cmd);
        return res;
    }
    res = st_gpu_check(vkEndCommandBuffer(cmd), "ending the frame", err);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
    if (!res) res = st_gpu_check(vkQueueSubmit(gpu->queue, 1, &si, r->fence), "submitting the frame", err);
    if (!res) res = st_gpu_check(vkWaitForFences(dev, 1, &r->fence, VK_TRUE, UINT64_MAX), "waiting for the frame", err);
    vkResetFences(dev, 1, &r->fence);
    double t1 = st_time_ms();
    if (res) return res;
    r->drawn = true;
    r->frame_index++;
    if (timing) {
        timing->cpu_ms = t1 - t0;
        timing->gpu_ms = NAN;
        timing->pass_count = r->timed_count;
        uint64_t ticks[ST_MAX_PASS_STAMPS];
        bool have = r->queries && r->stamps >= 2 &&
                    vkGetQueryPoolResults(dev, r->queries, 0, r->stamps, sizeof ticks, ticks, sizeof(uint64_t),
                                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS;
        double sum = 0;
        for (uint32_t i = 0; i < r->timed_count; i++) {
            uint32_t b = r->timed[i].begin, e = r->timed[i].end;
            double ms = have && b < r->stamps && e < r->stamps ? (double)(ticks[e] - ticks[b]) * gpu->timestamp_ns * 1e-6
                                                               : NAN;
            timing->passes[i] = (st_pass_timing){r->timed[i].name, ms};
            if (isfinite(ms)) sum += ms;
        }
        if (have) timing->gpu_ms = sum;
    }
    return ST_OK;
}

st_result st_renderer_readback(st_renderer *r, uint8_t *rgba, float *depth, st_error *err) {
    if (!r->drawn) return st_error_set(err, ST_ERR_INVALID, "readback before any frame was drawn");
    bool raster = r->ops->targets == ST_TARGETS_RASTER;
    st_result res = ST_OK;
    if (rgba)
        res = st_gpu_image_read(r->engine->gpu, &r->color,
                                raster ? VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL, rgba, err);
    if (!res && depth)
        res = st_gpu_image_read(r->engine->gpu, &r->depth,
                                raster ? VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL, depth, err);
    return res;
}

void st_renderer_set_time(st_renderer *r, double seconds) { r->time_s = seconds; }

uint64_t st_renderer_method_gpu_bytes(const st_renderer *r) {
    return r->ops->gpu_bytes ? r->ops->gpu_bytes(r, r->state) : 0;
}

uint64_t st_renderer_method_cpu_bytes(const st_renderer *r) {
    return r->ops->cpu_bytes ? r->ops->cpu_bytes(r, r->state) : 0;
}

const char *st_shading_name(st_shading shading) {
    return shading == ST_SHADING_TEXTURED ? "textured" : shading == ST_SHADING_FETCHES ? "fetches" : "flat";
}

bool st_shading_parse(const char *name, st_shading *out) {
    if (!name) return false;
    if (!strcmp(name, "flat")) *out = ST_SHADING_FLAT;
    else if (!strcmp(name, "textured")) *out = ST_SHADING_TEXTURED;
    else if (!strcmp(name, "fetches")) *out = ST_SHADING_FETCHES;
    else return false;
    return true;
}

st_result st_renderer_probe(st_renderer *r, VkDescriptorSetLayout method_layout, VkDescriptorSet method_set,
                            const char *shader, const void *input, size_t input_bytes, void *out, size_t output_bytes,
                            uint32_t invocations, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    st_gpu_buffer in = {0}, res_buf = {0};
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    VkPipelineLayout playout = VK_NULL_HANDLE;
    VkPipeline pipe = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    st_result res = st_gpu_buffer_create(gpu, input_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, &in, err);
    if (!res) res = st_gpu_buffer_create(gpu, output_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, &res_buf, err);
    if (!res) memcpy(in.mapped, input, input_bytes);
    st_gpu_binding b[2] = {
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT, .buffer = in.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT, .buffer = res_buf.buffer}};
    if (!res) res = st_gpu_set_layout(gpu, b, 2, &layout, err);
    if (!res) {
        VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
        VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                         .poolSizeCount = 1, .pPoolSizes = &ps};
        res = st_gpu_check(vkCreateDescriptorPool(dev, &pi, NULL, &pool), "probe pool", err);
    }
    if (!res) res = st_gpu_set_alloc(gpu, pool, layout, &set, err);
    if (!res) {
        st_gpu_set_write(gpu, set, b, 2);
        VkDescriptorSetLayout sets[2] = {method_layout, layout};
        res = st_renderer_pipeline_layout(r, sets, 2, 0, &playout, err);
    }
    if (!res) res = st_gpu_compute_pipeline(gpu, shader, playout, &pipe, err);
    VkCommandBuffer cmd;
    if (!res) res = st_gpu_once_begin(gpu, &cmd, err);
    if (!res) {
        VkDescriptorSet sets[3] = {r->globals_set, method_set, set};
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, playout, 0, 3, sets, 0, NULL);
        vkCmdDispatch(cmd, (invocations + 63) / 64, 1, 1);
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
        res = st_gpu_once_submit(gpu, cmd, err);
    }
    if (!res) memcpy(out, res_buf.mapped, output_bytes);
    if (pipe) vkDestroyPipeline(dev, pipe, NULL);
    if (playout) vkDestroyPipelineLayout(dev, playout, NULL);
    if (pool) vkDestroyDescriptorPool(dev, pool, NULL);
    if (layout) vkDestroyDescriptorSetLayout(dev, layout, NULL);
    st_gpu_buffer_destroy(gpu, &in);
    st_gpu_buffer_destroy(gpu, &res_buf);
    return res;
}
