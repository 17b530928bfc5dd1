/* The air tables of slice-compute and ray-compute: the buffer, the pass that rebuilds a region of it
 * (shaders/methods/air_max.comp) and the bookkeeping of what an edit dirtied. The layout of the words and the walk
 * that reads them are in shaders/common/air_tables.glsl. */
#include <stdlib.h>

#include "render/methods/air_tables.h"

static const uint32_t AIR_CELL[3] = {4, 16, 64}; /* texels per side of a table's cell (air_tables.glsl) */

/* Mirror of AirPush in shaders/methods/air_max.comp */
typedef struct air_push {
    int32_t region[4]; /* the cells to rebuild (x0, y0, width, height) */
    int32_t level[4];  /* .x: the table */
} air_push;

static uint32_t table_cells(uint32_t texels, int level) {
    uint32_t n = texels / AIR_CELL[level];
    return n ? n : 1;
}

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Dispatches table `level`'s cells [x0, x1] × [y0, y1] (inclusive, unwrapped: a range past an edge wraps, as the
 * tables do, into at most two per axis). */
static void dispatch_cells(st_renderer *r, st_air_tables *t, VkCommandBuffer cmd, int level, int64_t x0, int64_t x1,
                           int64_t y0, int64_t y1) {
    const st_world_shape *l = &r->engine->shape;
    int64_t size[2] = {table_cells(l->width, level), table_cells(l->height, level)};
    int64_t lo[2] = {x0, y0}, hi[2] = {x1, y1};
    int64_t ranges[2][2][2];
    int count[2];
    for (int a = 0; a < 2; a++) {
        if (hi[a] - lo[a] + 1 >= size[a]) {
            count[a] = 1, ranges[a][0][0] = 0, ranges[a][0][1] = size[a] - 1;
            continue;
        }
        int64_t b0 = ((lo[a] % size[a]) + size[a]) % size[a], b1 = b0 + (hi[a] - lo[a]);
        if (b1 < size[a]) count[a] = 1, ranges[a][0][0] = b0, ranges[a][0][1] = b1;
        else count[a] = 2, ranges[a][0][0] = b0, ranges[a][0][1] = size[a] - 1, ranges[a][1][0] = 0,
        ranges[a][1][1] = b1 - size[a];
    }
    for (int j = 0; j < count[1]; j++)
        for (int i = 0; i < count[0]; i++) {
            int64_t cx0 = ranges[0][i][0], cx1 = ranges[0][i][1], cy0 = ranges[1][j][0], cy1 = ranges[1][j][1];
            air_push pc = {.region = {(int32_t)cx0, (int32_t)cy0, (int32_t)(cx1 - cx0 + 1), (int32_t)(cy1 - cy0 + 1)},
                           .level = {level, 0, 0, 0}};
            vkCmdPushConstants(cmd, t->layout, VK_SHADER_STAGE_ALL, 0, sizeof pc, &pc);
            vkCmdDispatch(cmd, ((uint32_t)pc.region[2] + 7) / 8, ((uint32_t)pc.region[3] + 7) / 8, 1);
        }
}

/* Rebuilds the tables over the texels of rect: the cells whose texels, grown by one, meet it — table 0 from the
 * terrain, then tables 1 and 2 above them. The previous frame's readers of these words are done (frames are
 * waited on, and the first barrier orders it anyway). */
static void rebuild(st_renderer *r, st_air_tables *t, VkCommandBuffer cmd, st_rect rect) {
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    VkDescriptorSet sets[2] = {r->globals_set, t->set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->layout, 0, 2, sets, 0, NULL);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->pipeline);
    /* table 0's cell c covers texels [4c − 1, 4c + 5) — of whole texel pairs, so one texel more to the left:
     * those meeting [x0, x1) */
    int64_t x0 = floor_div((int64_t)rect.x0 - 2, 4), x1 = floor_div((int64_t)rect.x1 + 1, 4);
    int64_t y0 = floor_div((int64_t)rect.y0 - 1, 4), y1 = floor_div((int64_t)rect.y1, 4);
    for (int level = 0; level < 3; level++) {
        if (level) { /* the cells over them, reading what the level below just wrote */
            int64_t ratio = AIR_CELL[level] / AIR_CELL[level - 1];
            x0 = floor_div(x0, ratio), x1 = floor_div(x1, ratio), y0 = floor_div(y0, ratio), y1 = floor_div(y1, ratio);
            st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                      VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
        }
        dispatch_cells(r, t, cmd, level, x0, x1, y0, y1);
    }
    /* the readers read the tables */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
}

static VkDeviceSize table_bytes(const st_world_shape *l) {
    VkDeviceSize words = 0;
    for (int level = 0; level < 3; level++)
        words += (VkDeviceSize)table_cells(l->width, level) * table_cells(l->height, level);
    return 4 * words;
}

bool st_air_tables_fit(const st_renderer *r) {
    if (r->engine->level && !r->engine->paged) return true;
    return r->engine->paged && table_bytes(&r->engine->shape) <= AIR_TABLES_PAGED_MAX_BYTES;
}

st_result st_air_tables_create(st_renderer *r, st_air_tables *t, st_error *err) {
    *t = (st_air_tables){0};
    st_gpu *gpu = r->engine->gpu;
    /* the world's shape: a level's, or a paged world's, whose tables are built through its pages (air_max.comp
     * reads terrain_pair) and rebuilt where pages arrive or leave, as where an edit lands */
    const st_world_shape *l = &r->engine->shape;
    if (!r->engine->level && !r->engine->paged) return st_error_set(err, ST_ERR_INVALID, "the air tables need a level");
    VkDeviceSize words = table_bytes(l) / 4;
    if (!st_air_tables_fit(r))
        return st_error_set(err, ST_ERR_INVALID, "the air tables of a %ux%u paged world would take %.0f MiB (at most %u)",
                            l->width, l->height, (double)(words * 4) / (1 << 20), AIR_TABLES_PAGED_MAX_BYTES >> 20);
    st_result res = st_gpu_buffer_create(gpu, words * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false, &t->buffer, err);
    if (res) return res;
    st_gpu_binding b = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                        .buffer = t->buffer.buffer};
    res = st_renderer_set_create(r, &b, 1, &t->set_layout, &t->set, err);
    if (!res) res = st_renderer_pipeline_layout(r, &t->set_layout, 1, sizeof(air_push), &t->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "air_max.comp", t->layout, &t->pipeline, err);
    VkCommandBuffer cmd;
    if (!res) res = st_gpu_once_begin(gpu, &cmd, err);
    if (!res) {
        rebuild(r, t, cmd, (st_rect){0, 0, (int32_t)l->width, (int32_t)l->height});
        res = st_gpu_once_submit(gpu, cmd, err);
    }
    return res;
}

void st_air_tables_destroy(st_renderer *r, st_air_tables *t) {
    VkDevice dev = r->engine->gpu->device;
    if (t->pipeline) vkDestroyPipeline(dev, t->pipeline, NULL);
    if (t->layout) vkDestroyPipelineLayout(dev, t->layout, NULL);
    if (t->set_layout) vkDestroyDescriptorSetLayout(dev, t->set_layout, NULL);
    st_gpu_buffer_destroy(r->engine->gpu, &t->buffer);
    *t = (st_air_tables){0};
}

void st_air_tables_mark(st_air_tables *t, st_rect rect) { t->dirty = st_rect_union(t->dirty, rect); }

void st_air_tables_record(st_renderer *r, st_air_tables *t, VkCommandBuffer cmd) {
    if (st_rect_empty(t->dirty)) return;
    st_renderer_pass_begin(r, cmd, "max");
    rebuild(r, t, cmd, t->dirty);
    t->dirty = (st_rect){0};
}
