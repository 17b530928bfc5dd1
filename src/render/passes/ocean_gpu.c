/* The FFT ocean on the GPU: the cascades' h0 and ω in a storage buffer, a work buffer of four packed complex
 * transforms per texel, and two mipmapped 2D-array images (one layer per cascade) that the water's shaders
 * sample. A step is four compute dispatches — rows (the spectrum advanced to t, packed, transformed along x),
 * columns (transformed along y, in place), the resolve (sign, fields, slopes, foam, mips 1–4 per 16² tile) and
 * the remaining mips — with a barrier between each. The FFT is ours (radix-2 in shared memory,
 * shaders/water/ocean_fft.glsl). Everything stays in GENERAL: written as storage, sampled as textures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/passes/ocean_gpu.h"

#define MAX_MIPS 10u /* 512² */

/* mirror of shaders/water/ocean_common.glsl's push constants */
typedef struct ocean_push {
    float dk[4];
    uint32_t size, log2_size, cascades, packing;
    float lambda, time, fade;
    uint32_t src_mip;
    float foam_weight[4];
} ocean_push;

struct st_ocean_gpu {
    st_gpu *gpu;
    uint32_t size, log2_size, cascades, mips, packing;
    float dk[4];
    float foam_weight[4];
    st_gpu_buffer spectrum, work;
    st_gpu_image disp, surf;
    VkImageView disp_mip[MAX_MIPS], surf_mip[MAX_MIPS];
    VkDescriptorPool pool;
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline rows, columns, resolve, mip_pass;
    VkQueryPool stamps; /* the benchmark's per-pass timestamps, when set */
    uint32_t first_stamp;
};

static void stamp(st_ocean_gpu *o, VkCommandBuffer cmd, uint32_t i) {
    if (o->stamps)
        vkCmdWriteTimestamp2(cmd, i ? VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT : VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT,
                             o->stamps, o->first_stamp + i);
}

void st_ocean_gpu_set_timestamps(st_ocean_gpu *o, VkQueryPool pool, uint32_t first) {
    o->stamps = pool;
    o->first_stamp = first;
}

void st_ocean_gpu_destroy(st_ocean_gpu *o) {
    if (!o) return;
    VkDevice dev = o->gpu->device;
    vkDeviceWaitIdle(dev);
    VkPipeline p[4] = {o->rows, o->columns, o->resolve, o->mip_pass};
    for (int i = 0; i < 4; i++)
        if (p[i]) vkDestroyPipeline(dev, p[i], NULL);
    if (o->layout) vkDestroyPipelineLayout(dev, o->layout, NULL);
    if (o->set_layout) vkDestroyDescriptorSetLayout(dev, o->set_layout, NULL);
    if (o->pool) vkDestroyDescriptorPool(dev, o->pool, NULL);
    for (uint32_t m = 0; m < MAX_MIPS; m++) {
        if (o->disp_mip[m]) vkDestroyImageView(dev, o->disp_mip[m], NULL);
        if (o->surf_mip[m]) vkDestroyImageView(dev, o->surf_mip[m], NULL);
    }
    st_gpu_image_destroy(o->gpu, &o->disp);
    st_gpu_image_destroy(o->gpu, &o->surf);
    st_gpu_buffer_destroy(o->gpu, &o->spectrum);
    st_gpu_buffer_destroy(o->gpu, &o->work);
    free(o);
}

st_result st_ocean_gpu_upload(st_ocean_gpu *o, const st_water *water, st_error *err) {
    if (st_water_cascade_count(water) != o->cascades || st_water_cascade_at(water, 0).size != o->size)
        return st_error_set(err, ST_ERR_INVALID, "ocean: the water's cascades changed shape");
    size_t n2 = (size_t)o->size * o->size;
    VkDeviceSize bytes = (VkDeviceSize)o->cascades * n2 * 16;
    st_result r = st_gpu_staging_reserve(o->gpu, bytes, err);
    if (r) return r;
    vkDeviceWaitIdle(o->gpu->device); /* the staging buffer and the spectrum may be in use */
    float *dst = o->gpu->staging_mapped;
    for (uint32_t c = 0; c < o->cascades; c++) {
        const float *h0 = st_water_h0(water, c), *om = st_water_omega(water, c);
        for (size_t p = 0; p < n2; p++) {
            float *q = dst + 4 * (c * n2 + p);
            q[0] = h0[2 * p];
            q[1] = h0[2 * p + 1];
            q[2] = om[p];
            q[3] = 0;
        }
        st_water_cascade cs = st_water_cascade_at(water, c);
        o->dk[c] = (float)(2.0 * 3.14159265358979323846 / cs.patch_m);
        /* whitecaps come from waves of metres: a band whose longest waves are under 2 m adds less foam (none
         * under 0.5 m) */
        double longest = cs.k_lo > 0 ? 2.0 * 3.14159265358979323846 / cs.k_lo : INFINITY;
        o->foam_weight[c] = (float)fmin(fmax((longest - 0.5) / 1.5, 0.0), 1.0);
    }
    VkCommandBuffer cmd;
    r = st_gpu_once_begin(o->gpu, &cmd, err);
    if (r) return r;
    VkBufferCopy region = {.size = bytes};
    vkCmdCopyBuffer(cmd, o->gpu->staging, o->spectrum.buffer, 1, &region);
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    return st_gpu_once_submit(o->gpu, cmd, err);
}

/* Every level and layer of img: UNDEFINED → GENERAL, cleared to zero (the foam starts from none). */
static void init_image(VkCommandBuffer cmd, st_gpu_image *img) {
    VkImageSubresourceRange all = {VK_IMAGE_ASPECT_COLOR_BIT, 0, img->mips, 0, img->layers};
    VkImageMemoryBarrier2 b = st_gpu_image_barrier_range(
        img->image, all, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE,
        VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    st_gpu_cmd_image_barriers(cmd, &b, 1);
    VkClearColorValue zero = {{0}};
    vkCmdClearColorImage(cmd, img->image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &all);
}

st_result st_ocean_gpu_create(st_gpu *gpu, const st_water *water, st_ocean_gpu **out, st_error *err) {
    *out = NULL;
    if (!st_water_cascade_count(water)) return st_error_set(err, ST_ERR_INVALID, "ocean: the water has no cascades");
    st_ocean_gpu *o = calloc(1, sizeof *o);
    if (!o) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    o->gpu = gpu;
    o->cascades = st_water_cascade_count(water);
    o->size = st_water_cascade_at(water, 0).size;
    while ((1u << o->log2_size) < o->size) o->log2_size++;
    o->mips = o->log2_size + 1;
    VkDevice dev = gpu->device;
    size_t n2 = (size_t)o->size * o->size;
    st_result r = ST_OK;
    if (o->size > 512 || o->mips > MAX_MIPS) r = st_error_set(err, ST_ERR_INVALID, "ocean: FFT size %u is past 512", o->size);
    if (!r && gpu->props.limits.maxComputeSharedMemorySize < 16384)
        r = st_error_set(err, ST_ERR_UNSUPPORTED, "ocean: the FFT needs 16 KiB of shared memory");
    if (!r)
        r = st_gpu_buffer_create(gpu, (VkDeviceSize)o->cascades * n2 * 16,
                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false,
                                 &o->spectrum, err);
    if (!r)
        r = st_gpu_buffer_create(gpu, (VkDeviceSize)o->cascades * n2 * 32,
                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false, &o->work,
                                 err);
    VkImageUsageFlags usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                              VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    if (!r)
        r = st_gpu_image_create_mips(gpu, o->size, o->size, o->cascades, o->mips, VK_FORMAT_R32G32B32A32_SFLOAT, usage,
                                     &o->disp, err);
    if (!r)
        r = st_gpu_image_create_mips(gpu, o->size, o->size, o->cascades, o->mips, VK_FORMAT_R16G16B16A16_SFLOAT, usage,
                                     &o->surf, err);
    for (uint32_t m = 0; m < o->mips && !r; m++) {
        st_gpu_image *imgs[2] = {&o->disp, &o->surf};
        VkImageView *views[2] = {&o->disp_mip[m], &o->surf_mip[m]};
        for (int i = 0; i < 2 && !r; i++) {
            VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                        .image = imgs[i]->image,
                                        .viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY,
                                        .format = imgs[i]->format,
                                        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, m, 1, 0, o->cascades}};
            r = st_gpu_check(vkCreateImageView(dev, &vi, NULL, views[i]), "ocean mip view", err);
        }
    }
    /* every element of the arrays must be valid: levels past the chain repeat its last one (never written) */
    VkImageView disp_views[MAX_MIPS], surf_views[MAX_MIPS];
    for (uint32_t m = 0; m < MAX_MIPS; m++) {
        uint32_t l = m < o->mips ? m : (o->mips ? o->mips - 1 : 0);
        disp_views[m] = o->disp_mip[l];
        surf_views[m] = o->surf_mip[l];
    }
    st_gpu_binding b[4] = {
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
         .stages = VK_SHADER_STAGE_COMPUTE_BIT,
         .buffer = o->spectrum.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT, .buffer = o->work.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
         .stages = VK_SHADER_STAGE_COMPUTE_BIT,
         .layout = VK_IMAGE_LAYOUT_GENERAL,
         .count = MAX_MIPS,
         .views = disp_views},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
         .stages = VK_SHADER_STAGE_COMPUTE_BIT,
         .layout = VK_IMAGE_LAYOUT_GENERAL,
         .count = MAX_MIPS,
         .views = surf_views}};
    if (!r) r = st_gpu_set_layout(gpu, b, 4, &o->set_layout, err);
    if (!r) {
        VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2},
                                         {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2 * MAX_MIPS}};
        VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                         .poolSizeCount = 2, .pPoolSizes = sizes};
        r = st_gpu_check(vkCreateDescriptorPool(dev, &pi, NULL, &o->pool), "ocean descriptor pool", err);
    }
    if (!r) r = st_gpu_set_alloc(gpu, o->pool, o->set_layout, &o->set, err);
    if (!r) {
        st_gpu_set_write(gpu, o->set, b, 4);
        VkPushConstantRange push = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = sizeof(ocean_push)};
        VkPipelineLayoutCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                         .pSetLayouts = &o->set_layout, .pushConstantRangeCount = 1,
                                         .pPushConstantRanges = &push};
        r = st_gpu_check(vkCreatePipelineLayout(dev, &ci, NULL, &o->layout), "ocean pipeline layout", err);
    }
    if (!r) r = st_gpu_compute_pipeline(gpu, "ocean_rows.comp", o->layout, &o->rows, err);
    if (!r) r = st_gpu_compute_pipeline(gpu, "ocean_columns.comp", o->layout, &o->columns, err);
    if (!r) r = st_gpu_compute_pipeline(gpu, "ocean_resolve.comp", o->layout, &o->resolve, err);
    if (!r) r = st_gpu_compute_pipeline(gpu, "ocean_mips.comp", o->layout, &o->mip_pass, err);
    if (!r) {
        VkCommandBuffer cmd;
        r = st_gpu_once_begin(gpu, &cmd, err);
        if (!r) {
            init_image(cmd, &o->disp);
            init_image(cmd, &o->surf);
            st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                      VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                      VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT);
            r = st_gpu_once_submit(gpu, cmd, err);
        }
    }
    if (!r) r = st_ocean_gpu_upload(o, water, err);
    if (r) {
        st_ocean_gpu_destroy(o);
        return r;
    }
    *out = o;
    return ST_OK;
}

static void compute_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 dst_stage, VkAccessFlags2 dst_access) {
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              dst_stage, dst_access);
}

void st_ocean_gpu_record(st_ocean_gpu *o, VkCommandBuffer cmd, double t, double dt, float choppiness, float decay_s,
                         bool fresh) {
    ocean_push pc = {.size = o->size,
                     .log2_size = o->log2_size,
                     .cascades = o->cascades,
                     .packing = o->packing,
                     .lambda = choppiness,
                     .time = (float)st_water_loop_time(t),
                     .fade = fresh ? 0.0f : (float)exp(-(dt > 0 ? dt : 0) / decay_s),
                     .src_mip = 4};
    memcpy(pc.dk, o->dk, sizeof pc.dk);
    memcpy(pc.foam_weight, o->foam_weight, sizeof pc.foam_weight);
    /* the last step's readers (the water's shaders, tests' copies) are done before this one rewrites */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_NONE,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->layout, 0, 1, &o->set, 0, NULL);
    vkCmdPushConstants(cmd, o->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    VkAccessFlags2 rw = VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
    stamp(o, cmd, 0);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->rows);
    vkCmdDispatch(cmd, o->size, o->cascades, 1);
    stamp(o, cmd, 1);
    compute_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, rw);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->columns);
    vkCmdDispatch(cmd, o->size, o->cascades, 1);
    stamp(o, cmd, 2);
    compute_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, rw);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->resolve);
    vkCmdDispatch(cmd, (o->size + 15) / 16, (o->size + 15) / 16, o->cascades);
    stamp(o, cmd, 3);
    if (o->mips > 5) { /* past the tiles' four levels */
        compute_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, rw);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o->mip_pass);
        vkCmdDispatch(cmd, 1, 1, o->cascades);
    }
    stamp(o, cmd, 4);
    compute_barrier(cmd,
                    VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
                    VK_ACCESS_2_SHADER_SAMPLED_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                        VK_ACCESS_2_TRANSFER_READ_BIT);
}

VkImageView st_ocean_gpu_disp_view(const st_ocean_gpu *o) { return o->disp.view; }
VkImageView st_ocean_gpu_surf_view(const st_ocean_gpu *o) { return o->surf.view; }
st_gpu_image *st_ocean_gpu_disp(st_ocean_gpu *o) { return &o->disp; }
st_gpu_image *st_ocean_gpu_surf(st_ocean_gpu *o) { return &o->surf; }
void st_ocean_gpu_set_test_packing(st_ocean_gpu *o, uint32_t mode) { o->packing = mode; }

st_result st_ocean_gpu_read_transform(st_ocean_gpu *o, uint32_t c, float *out, st_error *err) {
    if (c >= o->cascades) return st_error_set(err, ST_ERR_INVALID, "ocean: no cascade %u", c);
    VkDeviceSize bytes = (VkDeviceSize)o->size * o->size * 32;
    return st_gpu_buffer_read(o->gpu, o->work.buffer, c * bytes, bytes, out, err);
}
