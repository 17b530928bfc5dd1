/* The engine's large world: a DEM tile store with its residency manager and GPU tile pool, driven once per frame
 * of a store renderer. Uploads go through a wrapper of the pool's uploader that also keeps the slot table (what
 * each slot holds: its tile's key, metre scale and bounds) and the page table (which slot holds each tile), two
 * host-visible buffers the shaders read to find the finest tile on the GPU at any point (shadows, normals). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/render_internal.h"

#define DEFAULT_SLOTS 1024u
#define PAGE_MAX_TILES (1u << 20) /* a level with more tiles than this is left out of the page table */

struct st_large_world {
    st_engine *engine;
    st_store *store;
    const st_store_info *info;
    st_residency *residency;
    st_tile_pool *pool;
    st_tile_uploader pool_uploader; /* the pool's own; the residency manager gets the wrapper */
    uint32_t slots;
    uint64_t *slot_key;             /* per slot: st_tile_key_pack of its tile, UINT64_MAX for none */
    st_gpu_buffer slot_table;       /* st_slot_gpu per slot */
    st_gpu_buffer page_table;       /* u32 per tile of the levels kept: slot + 1, 0 = none */
    uint32_t *page_cpu;             /* the CPU's copy, which it reads (the GPU's may lie where reads cross the bus) */
    st_page_level pages[ST_LOD_MAX_LEVELS];
    st_gpu_image placeholder;
};

/* The entry of tile k in the page table (its index), false for a tile outside the levels kept. */
static bool page_entry(const st_large_world *w, st_tile_key k, size_t *at) {
    const st_page_level *p = &w->pages[k.level];
    if (k.level >= w->info->levels || !p->present || k.x >= p->nx || k.y >= p->ny) return false;
    *at = p->offset + (size_t)k.y * p->nx + k.x;
    return true;
}

static void page_set(st_large_world *w, size_t at, uint32_t v) {
    w->page_cpu[at] = v;
    ((uint32_t *)w->page_table.mapped)[at] = v;
}

/* The residency manager's uploads: the pool's, plus the two tables. The host-visible tables are written
 * between frames (every frame of a renderer is waited on), and an upload accepted now is copied in the batch
 * submitted before the next frame, so from that frame on the slot holds the tile the tables name. A slot
 * evicted without being reused still holds its old tile's samples, so its entries stay true until then. */
static bool world_upload(void *user, uint32_t slot, const st_tile *tile, uint64_t *ticket) {
    st_large_world *w = user;
    if (slot >= w->slots || !w->pool_uploader.upload(w->pool_uploader.user, slot, tile, ticket)) return false;
    size_t at;
    if (w->slot_key[slot] != UINT64_MAX && page_entry(w, st_tile_key_unpack(w->slot_key[slot]), &at) &&
        w->page_cpu[at] == slot + 1)
        page_set(w, at, 0);
    w->slot_key[slot] = st_tile_key_pack(tile->key);
    if (page_entry(w, tile->key, &at)) page_set(w, at, slot + 1);
    st_slot_gpu *s = (st_slot_gpu *)w->slot_table.mapped + slot;
    bool u16 = tile->encoding == ST_TILE_U16;
    *s = (st_slot_gpu){.scale = u16 ? (float)tile->scale : 1.0f,
                       .offset = u16 ? (float)tile->offset : 0.0f,
                       .min_m = tile->min_m,
                       .max_m = tile->max_m,
                       .level = tile->key.level,
                       .x = tile->key.x,
                       .y = tile->key.y,
                       .valid = 1};
    return true;
}

static bool world_complete(void *user, uint64_t ticket) {
    st_large_world *w = user;
    return w->pool_uploader.complete(w->pool_uploader.user, ticket);
}

void st_large_world_destroy(st_large_world *w) {
    if (!w) return;
    st_residency_destroy(w->residency); /* waits for running loads; uploads then stop */
    st_tile_pool_destroy(w->pool);
    st_gpu *gpu = w->engine->gpu;
    st_gpu_buffer_destroy(gpu, &w->slot_table);
    st_gpu_buffer_destroy(gpu, &w->page_table);
    st_gpu_image_destroy(gpu, &w->placeholder);
    free(w->slot_key);
    free(w->page_cpu);
    free(w);
}

static st_result create_placeholder(st_large_world *w, st_error *err) {
    st_gpu *gpu = w->engine->gpu;
    st_result r = st_gpu_image_create(gpu, 1, 1, VK_FORMAT_R8G8B8A8_UINT,
                                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, &w->placeholder, err);
    if (r) return r;
    VkCommandBuffer cmd;
    r = st_gpu_once_begin(gpu, &cmd, err);
    if (r) return r;
    st_gpu_cmd_image_barrier(cmd, w->placeholder.image, w->placeholder.aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE,
                             VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkClearColorValue zero = {{0}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, w->placeholder.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &zero, 1, &range);
    st_gpu_cmd_image_barrier(cmd, w->placeholder.image, w->placeholder.aspect, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                             VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                             VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    return st_gpu_once_submit(gpu, cmd, err);
}

st_result st_large_world_create(st_engine *e, st_store *store, const st_world_desc *desc, st_large_world **out,
                                st_error *err) {
    *out = NULL;
    st_world_desc none = {0};
    if (!desc) desc = &none;
    const st_store_info *in = st_store_get_info(store);
    if (in->kind != ST_TILE_DEM)
        return st_error_set(err, ST_ERR_INVALID, "a large world is a DEM store: this one holds layers (st_levels)");
    if (in->encoding != ST_TILE_U16 && in->encoding != ST_TILE_F32)
        return st_error_set(err, ST_ERR_INVALID, "a DEM store of encoding %d", (int)in->encoding);
    if (in->levels > ST_LOD_MAX_LEVELS || in->tile_size < 5 || !st_is_pow2(in->tile_size - 1))
        return st_error_set(err, ST_ERR_INVALID, "a store of %u levels in tiles of %u samples", in->levels,
                            in->tile_size);
    st_large_world *w = calloc(1, sizeof *w);
    if (!w) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    w->engine = e;
    w->store = store;
    w->info = in;
    uint32_t max_layers = e->gpu->props.limits.maxImageArrayLayers;
    w->slots = desc->gpu_slots ? desc->gpu_slots : DEFAULT_SLOTS;
    st_result r = ST_OK;
    if (w->slots > max_layers) {
        if (desc->gpu_slots)
            r = st_error_set(err, ST_ERR_UNSUPPORTED, "%u tile slots: this adapter has at most %u array layers",
                             w->slots, max_layers);
        w->slots = max_layers;
    }
    w->slot_key = malloc((size_t)w->slots * sizeof *w->slot_key);
    if (!r && !w->slot_key) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (!r) {
        for (uint32_t i = 0; i < w->slots; i++) w->slot_key[i] = UINT64_MAX;
        st_tile_pool_desc pd = {.encoding = in->encoding,
                                .tile_size = in->tile_size,
                                .slots = w->slots,
                                .frame_budget_bytes = desc->upload_budget_bytes};
        r = st_tile_pool_create(e, &pd, &w->pool, err);
    }
    if (!r) r = st_gpu_buffer_create(e->gpu, (VkDeviceSize)w->slots * sizeof(st_slot_gpu),
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, &w->slot_table, err);
    if (!r) {
        memset(w->slot_table.mapped, 0, (size_t)w->slots * sizeof(st_slot_gpu));
        uint64_t entries = 0;
        for (uint32_t l = 0; l < in->levels; l++) {
            uint32_t nx, ny;
            st_store_level_tiles(store, l, &nx, &ny);
            bool keep = (uint64_t)nx * ny <= PAGE_MAX_TILES;
            w->pages[l] = (st_page_level){(uint32_t)entries, nx, ny, keep};
            if (keep) entries += (uint64_t)nx * ny;
        }
        /* near the GPU where it can be (the GPU selection loads an entry per node on its chain of dependent loads) */
        r = st_gpu_buffer_create_host(e->gpu, (entries ? entries : 1) * sizeof(uint32_t),
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, ST_GPU_HOST_DEVICE_LOCAL, &w->page_table, err);
        if (!r) memset(w->page_table.mapped, 0, (size_t)(entries ? entries : 1) * sizeof(uint32_t));
        if (!r && !(w->page_cpu = calloc(entries ? entries : 1, sizeof(uint32_t))))
            r = st_error_set(err, ST_ERR_NOMEM, "out of memory for the page table");
    }
    if (!r) r = create_placeholder(w, err);
    if (!r) {
        w->pool_uploader = st_tile_pool_uploader(w->pool);
        st_tile_uploader up = {.user = w, .upload = world_upload, .complete = world_complete};
        st_residency_desc rd = {.store = store,
                                .load = desc->load,
                                .load_user = desc->load_user,
                                .cpu_tiles = desc->cpu_tiles ? desc->cpu_tiles : w->slots + 256,
                                .gpu_slots = w->slots,
                                .uploader = &up,
                                .upload_budget_bytes = desc->upload_budget_bytes,
                                .max_loads = desc->max_loads,
                                .slow_load_ms = desc->slow_load_ms};
        r = st_residency_create(&rd, &w->residency, err);
    }
    if (r) {
        st_large_world_destroy(w);
        return r;
    }
    *out = w;
    return ST_OK;
}

void st_large_world_begin_frame(st_large_world *w) { st_residency_update(w->residency); }

st_result st_large_world_end_frame(st_large_world *w, st_error *err) {
    st_result r = st_tile_pool_flush(w->pool, err);
    return r ? st_error_prefix(err, "uploading tiles") : ST_OK;
}

st_store *st_large_world_store(const st_large_world *w) { return w->store; }
st_residency *st_large_world_residency(const st_large_world *w) { return w->residency; }
bool st_large_world_u16(const st_large_world *w) { return w->info->encoding == ST_TILE_U16; }
VkImageView st_large_world_slots_view(const st_large_world *w) { return st_tile_pool_view(w->pool); }
const st_gpu_buffer *st_large_world_slot_table(const st_large_world *w) { return &w->slot_table; }
const st_gpu_buffer *st_large_world_page_table(const st_large_world *w) { return &w->page_table; }
VkImageView st_large_world_placeholder_view(const st_large_world *w) { return w->placeholder.view; }

void st_large_world_page_levels(const st_large_world *w, st_page_level levels[ST_LOD_MAX_LEVELS]) {
    memcpy(levels, w->pages, sizeof w->pages);
}

void st_large_world_stats(const st_large_world *w, st_world_stats *out) {
    memset(out, 0, sizeof *out);
    out->residency = st_residency_get_stats(w->residency);
    out->pool = st_tile_pool_get_stats(w->pool);
    out->gpu_slots = w->slots;
    out->gpu_bytes = (uint64_t)w->slots * st_tile_pool_tile_bytes(w->pool) + w->slot_table.size + w->page_table.size;
    for (uint32_t l = 0; l < w->info->levels; l++) out->page_levels += w->pages[l].present;
}

/* ---- the engine's side --------------------------------------------------------------------------------------- */

st_result st_engine_set_store(st_engine *e, st_store *store, const st_world_desc *desc, st_error *err) {
    for (int i = 0; i < ST_MAX_RENDERERS; i++)
        if (e->renderers[i])
            return st_error_set(err, ST_ERR_INVALID, "set_store with live renderers: destroy them first");
    if (!store) return st_error_set(err, ST_ERR_INVALID, "no store given");
    st_large_world *w = NULL;
    st_result r = st_large_world_create(e, store, desc, &w, err);
    if (r) return r;
    st_large_world_destroy(e->world);
    e->world = w;
    return ST_OK;
}

st_store *st_engine_store(const st_engine *e) { return e->world ? e->world->store : NULL; }

st_result st_engine_world_stats(const st_engine *e, st_world_stats *out, st_error *err) {
    if (!e->world) return st_error_set(err, ST_ERR_INVALID, "the engine holds no tile store");
    st_large_world_stats(e->world, out);
    return ST_OK;
}

bool st_renderer_lod_stats(const st_renderer *r, st_lod_frame_stats *out) {
    memset(out, 0, sizeof *out);
    if (!r->ops->lod_stats) return false;
    r->ops->lod_stats(r, r->state, out);
    return true;
}

st_result st_renderer_settle(st_renderer *r, const st_camera *camera, uint32_t max_frames, uint32_t *frames,
                             st_error *err) {
    if (frames) *frames = 0;
    if (!r->ops->lod_stats || !r->engine->world)
        return st_error_set(err, ST_ERR_INVALID, "method '%s' has no levels of detail to settle", r->ops->info.name);
    /* the CPU side of frames (residency, selection, uploads) until the view is at full detail, then one frame */
    for (uint32_t i = 0; i < max_frames && r->ops->select; i++) {
        st_renderer_set_camera(r, camera);
        st_large_world_begin_frame(r->engine->world);
        r->ops->select(r, r->state);
        st_result res = st_large_world_end_frame(r->engine->world, err);
        if (res) return res;
        if (frames) *frames = i + 1;
        st_lod_frame_stats s;
        r->ops->lod_stats(r, r->state, &s);
        if (s.settled) break;
        struct timespec nap = {0, 1000000}; /* loads run on the job system: give them the millisecond */
        nanosleep(&nap, NULL);
    }
    return st_renderer_draw(r, camera, NULL, err);
}
