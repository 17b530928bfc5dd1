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

/* A rectangle's cells wrap into at most two ranges per axis: four boxes a table. */
#define AIR_MAX_BOXES (4 * ST_RECT_LIST_MAX)

/* Appends table `level`'s cells [x0, x1] × [y0, y1] (inclusive, unwrapped: a range past an edge wraps, as the
 * tables do, into at most two per axis) to boxes, as half-open rectangles of cells inside the table. */
static void wrap_cells(const st_world_shape *l, int level, int64_t x0, int64_t x1, int64_t y0, int64_t y1,
                       st_rect *boxes, uint32_t *n) {
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
        for (int i = 0; i < count[0]; i++)
            boxes[(*n)++] = (st_rect){(int32_t)ranges[0][i][0], (int32_t)ranges[1][j][0],
                                      (int32_t)ranges[0][i][1] + 1, (int32_t)ranges[1][j][1] + 1};
}

/* Rebuilds the tables over the texels of rects[0, count) (count at most ST_RECT_LIST_MAX): the cells whose texels,
 * grown by one, meet them — table 0 from the terrain, then tables 1 and 2 above them, each table over every
 * rectangle before the next table. A table's boxes are made disjoint first (the cells of nearby rectangles meet in
 * the coarser tables), so no cell is written twice and the dispatches of one table need no barrier between them.
 * The previous frame's readers of these words are done (frames are waited on, and the first barrier orders it
 * anyway). */
static void rebuild(st_renderer *r, st_air_tables *t, VkCommandBuffer cmd, const st_rect *rects, uint32_t count) {
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
                              VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    VkDescriptorSet sets[2] = {r->globals_set, t->set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->layout, 0, 2, sets, 0, NULL);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->pipeline);
    /* per rectangle its cells (inclusive, unwrapped) in the table being rebuilt: table 0's cell c covers texels
     * [4c − 1, 4c + 5) — of whole texel pairs, so one texel more to the left: those meeting [x0, x1) */
    int64_t cells[ST_RECT_LIST_MAX][4];
    for (uint32_t i = 0; i < count; i++) {
        st_rect e = rects[i];
        cells[i][0] = floor_div((int64_t)e.x0 - 2, 4), cells[i][1] = floor_div((int64_t)e.x1 + 1, 4);
        cells[i][2] = floor_div((int64_t)e.y0 - 1, 4), cells[i][3] = floor_div((int64_t)e.y1, 4);
    }
    for (int level = 0; level < 3; level++) {
        if (level) { /* the cells over them, reading what the level below just wrote */
            int64_t ratio = AIR_CELL[level] / AIR_CELL[level - 1];
            for (uint32_t i = 0; i < count; i++)
                for (int k = 0; k < 4; k++) cells[i][k] = floor_div(cells[i][k], ratio);
            st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                      VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
        }
        st_rect boxes[AIR_MAX_BOXES];
        uint32_t n = 0;
        for (uint32_t i = 0; i < count; i++)
            wrap_cells(&r->engine->shape, level, cells[i][0], cells[i][1], cells[i][2], cells[i][3], boxes, &n);
        n = st_rects_disjoint(boxes, n);
        for (uint32_t k = 0; k < n; k++) {
            air_push pc = {.region = {boxes[k].x0, boxes[k].y0, boxes[k].x1 - boxes[k].x0, boxes[k].y1 - boxes[k].y0},
                           .level = {level, 0, 0, 0}};
            vkCmdPushConstants(cmd, t->layout, VK_SHADER_STAGE_ALL, 0, sizeof pc, &pc);
            vkCmdDispatch(cmd, ((uint32_t)pc.region[2] + 7) / 8, ((uint32_t)pc.region[3] + 7) / 8, 1);
            t->last_cells += (uint64_t)pc.region[2] * (uint64_t)pc.region[3];
        }
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
    /* transfer source: the tests read the tables back */
    st_result res = st_gpu_buffer_create(gpu, words * 4,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false,
                                         &t->buffer, err);
    if (res) return res;
    st_gpu_binding b = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                        .buffer = t->buffer.buffer};
    res = st_renderer_set_create(r, &b, 1, &t->set_layout, &t->set, err);
    if (!res) res = st_renderer_pipeline_layout(r, &t->set_layout, 1, sizeof(air_push), &t->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "air_max.comp", t->layout, &t->pipeline, err);
    VkCommandBuffer cmd;
    if (!res) res = st_gpu_once_begin(gpu, &cmd, err);
    if (!res) {
        rebuild(r, t, cmd, &(st_rect){0, 0, (int32_t)l->width, (int32_t)l->height}, 1);
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

void st_air_tables_mark(st_air_tables *t, st_rect rect) { st_rect_list_add(&t->dirty, rect); }

void st_air_tables_record(st_renderer *r, st_air_tables *t, VkCommandBuffer cmd) {
    t->last_cells = 0;
    if (!t->dirty.count) return;
    st_renderer_pass_begin(r, cmd, "max");
    rebuild(r, t, cmd, t->dirty.rect, t->dirty.count);
    ST_DEBUG("air tables: %u rectangles, %llu cells rebuilt", t->dirty.count, (unsigned long long)t->last_cells);
    t->dirty.count = 0;
}

uint64_t st_air_tables_words(const st_renderer *r) { return table_bytes(&r->engine->shape) / 4; }

st_result st_air_tables_read(st_renderer *r, const st_air_tables *t, uint32_t *words, st_error *err) {
    return st_gpu_buffer_read(r->engine->gpu, t->buffer.buffer, 0, table_bytes(&r->engine->shape), words, err);
}
