/* The paged terrain's state, shared by its frame loop (paged_terrain.c) and its edits of a world without a level
 * (paged_edits.c): the levels of pages, the pool and table, the per-page edit flags. */
#ifndef STRATA_RENDER_PAGED_INTERNAL_H
#define STRATA_RENDER_PAGED_INTERNAL_H

#include "render/render_internal.h"

#define DEFAULT_POOL_PAGES 256u

#define DEFAULT_FULL_RADIUS 1024.0f
/* u32s before the entries: page shift, level-0 pages along x and y, levels, then each level's first entry
 * (TerrainPages in shaders/common/surface.glsl) */
#define TABLE_HEADER (4u + ST_PAGED_MAX_LEVELS)
#define PAGE_EDITED 1u
#define PAGE_RESEND 2u
#define PAGE_UNSAVED 4u

/* One level of the pages: 0 the world's own, k ≥ 1 the k-th coarser level (st_store_open_coarse), each with its
 * residency manager and its own range of the pool's slots. */
typedef struct paged_level {
    st_paged_terrain *p;
    uint32_t k;
    st_store *store;         /* k = 0: the world's; k ≥ 1: a coarse store owned here */
    st_residency *residency;
    uint32_t nx, ny, offset; /* pages along x and y; the first entry of this level in the table */
    uint32_t slot_base, slots;
} paged_level;

struct st_paged_terrain {
    st_engine *engine;
    paged_level lv[ST_PAGED_MAX_LEVELS];
    uint32_t levels;         /* 1 + the coarser levels of the far field */
    float full_radius;       /* with coarser levels: texels around the eye wanted at full resolution */
    const st_level *level;   /* NULL: a world with no level in memory, its CPU reads through `reader` */
    st_layer_pages *reader;  /* such a world's texels on the CPU (the near-plane test) */
    bool wrap_x, wrap_y;
    st_store *store;
    const st_store_info *info;
    st_residency *residency; /* level 0's */
    st_tile_pool *pool;
    st_tile_uploader pool_uploader;
    uint32_t slots, shift, nx, ny; /* slots of every level; level 0's pages along x and y */
    uint64_t *slot_key;      /* per slot: the packed key (its level the page's) it holds, UINT64_MAX for none */
    st_gpu_buffer table;     /* header + per page: (slot + 1) | floor << 24; slot + 1 = 0: not resident */
    uint32_t *table_cpu;     /* the table as the CPU reads and writes it; what changed reaches `table` before
                                each frame (GPU memory may be slow, or uncached, for the CPU to read) */
    size_t table_words;
    /* the entries written since the last send: listed while few, else as the range [lo, hi) covering them */
    uint32_t dirty[256];
    uint32_t dirty_count;
    size_t dirty_lo, dirty_hi;
    float margin, lookahead;
    uint8_t *edited;         /* per page: PAGE_EDITED once edited (the level, not the store, is its truth on the
                                GPU from then on), PAGE_RESEND while its slot misses an edit, PAGE_UNSAVED while
                                the store misses one */
    struct st_paged_edits *edits; /* a world without a level: its edited pages and undo history (paged_edits.c) */
    st_tile *scratch;        /* a page packed from the level, for uploads of edited pages */
    st_rect *arrived;        /* pages mapped since the renderers were last told (st_paged_terrain_deliver) */
    uint32_t arrived_count, arrived_cap;
    uint32_t upload_pages;   /* arrivals a frame may map (0 = no bound) */
    uint32_t frame_arrivals; /* pages mapped by this frame's update so far, all levels */
    bool arrived_all;        /* more arrived than could be listed: the whole level counts as changed */
    uint32_t resend_count;   /* pages flagged PAGE_RESEND */
    double last_eye[2];
    double last_frame_ms;    /* st_time_ms at the last begin_frame: the eye's speed in wall time */
    bool have_eye;
    double ahead;            /* the last frame's prefetch distance in texels (0: none; st_paged_stats.ahead) */
    uint32_t wanted, missing, holes;
};

typedef struct st_paged_edits st_paged_edits;
/* The edits of a world without a level (paged_edits.c): made with the terrain, the CPU reader reading through
 * them; freed with it. */
st_result st_paged_edits_create(st_paged_terrain *p, st_error *err);
void st_paged_edits_destroy(st_paged_edits *m);
/* An edited page's texels held on the CPU (its truth until written back), or NULL. */
const st_tile *st_paged_edits_page(const st_paged_terrain *p, uint32_t x, uint32_t y);
/* How many edited pages are held. */
size_t st_paged_edits_held(const st_paged_terrain *p);
/* Writes every unsaved held page into the store (journalled) and drops the saved ones that no load or pending
 * upload may still hold older texels of; *written (may be NULL) gets how many were written. */
st_result st_paged_edits_write_back(st_paged_terrain *p, uint32_t *written, st_error *err);

/* The far field follows an edit of rect (level-0 texels, inside the world): the coarse texels over it recomputed
 * from the level below as it is now, into coarse pages held on the CPU (uploaded in place of the store's, resent
 * where they hold a slot); *told gets rect grown to every coarse texel that changed, in level-0 texels. */
st_result st_paged_far_follow(st_paged_terrain *p, st_rect rect, st_rect *told, st_error *err);
/* A held coarse page (k ≥ 1), or NULL. */
const st_tile *st_paged_far_page(const st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y);
/* Uploads the held coarse pages that changed into the slots they hold (within the frame's budget). */
void st_paged_far_resend(st_paged_terrain *p);
/* Drops the held coarse pages that nothing under them keeps apart from the store any more (after a write-back),
 * the residency manager's copy taking their texels first. */
void st_paged_far_drop(st_paged_terrain *p);

#endif
