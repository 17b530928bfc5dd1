/* Voxel Space: the Comanche (1992) column renderer as one compute pass — per screen column, a front-to-back
 * march over the ground with a y-buffer, drawing the upper surface only (shaders/common/voxelspace.glsl).
 * It is the historic baseline: the original Vangers engine also painted the map line by line, and like it
 * this method cannot show a cave under a slab. No memory of its own. `voxelspace` gives each column a
 * workgroup that solves 64 samples of the march at a time (shaders/methods/voxelspace.comp);
 * `voxelspace-serial` is one invocation per column (voxelspace_serial.comp), the reference it matches bit for
 * bit. */
#include <stdlib.h>

#include "render/methods/methods.h"

typedef struct voxelspace_state {
    bool serial;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorSetLayout targets_layout;
    VkDescriptorSet targets_set;
} voxelspace_state;

static void voxelspace_destroy(st_renderer *r, void *state) {
    voxelspace_state *s = state;
    VkDevice dev = r->engine->gpu->device;
    if (s->pipeline) vkDestroyPipeline(dev, s->pipeline, NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->targets_layout) vkDestroyDescriptorSetLayout(dev, s->targets_layout, NULL);
    free(s);
}

static st_result create_common(st_renderer *r, void **out, bool serial, st_error *err) {
    voxelspace_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->serial = serial;
    st_result res = st_renderer_storage_targets_layout(r, &s->targets_layout, &s->targets_set, err);
    if (!res) res = st_renderer_pipeline_layout(r, &s->targets_layout, 1, 0, &s->layout, err);
    if (!res)
        res = st_gpu_compute_pipeline(r->engine->gpu, serial ? "voxelspace_serial.comp" : "voxelspace.comp", s->layout,
                                      &s->pipeline, err);
    return res;
}

static st_result voxelspace_create(st_renderer *r, void **out, st_error *err) { return create_common(r, out, false, err); }
static st_result voxelspace_serial_create(st_renderer *r, void **out, st_error *err) {
    return create_common(r, out, true, err);
}

static void voxelspace_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    voxelspace_state *s = state;
    VkDescriptorSet sets[2] = {r->globals_set, s->targets_set};
    st_renderer_pass_begin(r, cmd, "columns");
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 2, sets, 0, NULL);
    if (s->serial) vkCmdDispatch(cmd, (r->width + 63) / 64, 1, 1); /* one invocation per column */
    else vkCmdDispatch(cmd, r->width, 1, 1);                         /* one workgroup per column */
    st_renderer_pass_end(r, cmd);
}

const st_method_ops st_method_voxelspace = {
    .info = {.name = "voxelspace",
             .description = "Comanche-style column march with a y-buffer, upper surface only (historic baseline)",
             .compute = true},
    .targets = ST_TARGETS_STORAGE,
    .create = voxelspace_create,
    .destroy = voxelspace_destroy,
    .record = voxelspace_record,
};

const st_method_ops st_method_voxelspace_serial = {
    .info = {.name = "voxelspace-serial",
             .description = "Voxel Space with one invocation per column (the reference of the parallel variant)",
             .compute = true},
    .targets = ST_TARGETS_STORAGE,
    .create = voxelspace_serial_create,
    .destroy = voxelspace_destroy,
    .record = voxelspace_record,
};
