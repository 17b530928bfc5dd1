/* The air tables (shaders/common/air_tables.glsl): per cell of 4×4, 16×16 and 64×64 texels of the level, grown by
 * one texel, the highest top, the highest floor and the lowest cave ceiling — what lets a ray pass stretches in
 * the air without sampling them. Kept on the GPU for the renderer's life, rebuilt where an edit lands; shared by
 * slice-compute and ray-compute. */
#ifndef STRATA_AIR_TABLES_H
#define STRATA_AIR_TABLES_H

#include "render/render_internal.h"

/* The largest tables made for paged terrain: they span the whole world (one word a 4×4 cell, 4 bytes per 16
 * texels), so a paged world past about 8192×16384 texels has none. */
#define AIR_TABLES_PAGED_MAX_BYTES (64u << 20)

typedef struct st_air_tables {
    st_gpu_buffer buffer; /* the three tables, one word a cell (air_tables.glsl says the packing) */
    VkPipelineLayout layout;
    VkPipeline pipeline; /* air_max.comp */
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
    st_rect_list dirty; /* texels whose cells the next record rebuilds, kept apart (ST_RECT_LIST_MAX, then merged) */
    uint64_t last_cells; /* cells the last record rebuilt, the three tables together (tests and docs) */
} st_air_tables;

/* Makes r's world's tables (the buffer, the pass that fills them) and fills them for the whole world before
 * returning: a level's, or paged terrain's through its pages (ST_ERR_INVALID past AIR_TABLES_PAGED_MAX_BYTES). *t is zeroed first; on an error what was
 * made stays in it for st_air_tables_destroy. */
st_result st_air_tables_create(st_renderer *r, st_air_tables *t, st_error *err);
/* Whether r's world can have tables: a level, or paged terrain whose tables stay within AIR_TABLES_PAGED_MAX_BYTES
 * (a method that can march without them skips them where this is false). */
bool st_air_tables_fit(const st_renderer *r);
/* Frees what create made (a zeroed *t is fine). */
void st_air_tables_destroy(st_renderer *r, st_air_tables *t);
/* The level changed inside rect: the next st_air_tables_record rebuilds the cells over it (over each rectangle
 * marked since the last record, not over the box around them). */
void st_air_tables_mark(st_air_tables *t, st_rect rect);
/* Records the rebuild of the marked cells as the timed pass "max" (nothing when none is marked), then a barrier
 * before the compute shaders that read the tables. The terrain rows of an edit must be uploaded before it in the
 * command buffer. Leaves the compute pipeline and sets bound to its own: the caller binds its own after. */
void st_air_tables_record(st_renderer *r, st_air_tables *t, VkCommandBuffer cmd);
/* The words of r's world's three tables (table 0's, then 1's, then 2's; air_tables.glsl says the packing). */
uint64_t st_air_tables_words(const st_renderer *r);
/* Reads the tables back into words (st_air_tables_words of them), for tests: what the last submitted rebuild
 * wrote. Waits for the device. */
st_result st_air_tables_read(st_renderer *r, const st_air_tables *t, uint32_t *words, st_error *err);

#endif
