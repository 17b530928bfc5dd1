/* The paged terrain: a level's texels on the GPU as the tiles of a layer store in a fixed pool of resident pages
 * (the tile pool's slots, RGBA8_UINT texel pairs) and a page table (one u32 per page, host-visible), set 0's
 * bindings 6 and 7. Once per frame the pages around the eye and along its motion are requested, the residency
 * manager updates (never waiting for a load) and the frame's uploads are submitted before the frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/paged_internal.h"

static size_t entry_index(const st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y) {
    return TABLE_HEADER + p->lv[k].offset + (size_t)y * p->lv[k].nx + x;
}
static uint32_t level_entry(const st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y) {
    return p->table_cpu[entry_index(p, k, x, y)];
}
static void set_level_entry(st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y, uint32_t value) {
    size_t i = entry_index(p, k, x, y);
    p->table_cpu[i] = value;
    if (p->dirty_lo < p->dirty_hi) { /* a range already */
        if (i < p->dirty_lo) p->dirty_lo = i;
        if (i >= p->dirty_hi) p->dirty_hi = i + 1;
    } else if (p->dirty_count < sizeof p->dirty / sizeof p->dirty[0]) {
        p->dirty[p->dirty_count++] = (uint32_t)i;
    } else { /* too many to list: the range over them all */
        p->dirty_lo = p->dirty_hi = i;
        for (uint32_t j = 0; j < p->dirty_count; j++) {
            if (p->dirty[j] < p->dirty_lo) p->dirty_lo = p->dirty[j];
            if (p->dirty[j] > p->dirty_hi) p->dirty_hi = p->dirty[j];
        }
        p->dirty_hi++;
        p->dirty_count = 0;
    }
}
static uint32_t entry(const st_paged_terrain *p, uint32_t x, uint32_t y) { return level_entry(p, 0, x, y); }

/* Sends the entries written since the last send to the GPU's table (host-visible, coherent: no flush). Every
 * frame is waited on, so no frame reads the table while it changes. */
static void send_table(st_paged_terrain *p) {
    uint32_t *gpu = p->table.mapped;
    for (uint32_t j = 0; j < p->dirty_count; j++) gpu[p->dirty[j]] = p->table_cpu[p->dirty[j]];
    p->dirty_count = 0;
    if (p->dirty_lo >= p->dirty_hi) return;
    memcpy(gpu + p->dirty_lo, p->table_cpu + p->dirty_lo, (p->dirty_hi - p->dirty_lo) * sizeof(uint32_t));
    p->dirty_lo = p->dirty_hi = 0;
}

/* A missing page reads as a floor at the lowest low of its tile (the index's bound; 0 before a generated tile
 * is made): nothing above the real floor is invented, so rays pass where slabs are still loading. */
static uint32_t floor_of(st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y) {
    const st_tile *held = k == 0 && !p->level ? st_paged_edits_page(p, x, y) : NULL;
    if (held) { /* an edit not written back yet may have dug below the store's bound */
        const uint8_t *q = held->data;
        uint32_t low = 255;
        for (size_t i = 0; i < held->data_bytes; i += 4) {
            uint32_t a = q[i] < q[i + 2] ? q[i] : q[i + 2];
            low = a < low ? a : low;
        }
        return low;
    }
    st_tile_meta m;
    if (!st_store_tile_meta(p->lv[k].store, (st_tile_key){0, x, y}, &m) || !(m.min_m >= 0)) return 0;
    return m.min_m > 255 ? 255u : (uint32_t)m.min_m;
}

/* The residency manager's uploads: the pool's, plus the table. The table is host-visible and written between
 * frames (every frame is waited on); an upload accepted now is copied in the batch submitted before the next
 * frame on the same queue, so from that frame on the slot holds the page the table names. A slot given to
 * another page clears its old page's entry first. */
/* Page (x, y) as edited: packed from the level into the scratch tile, or, on a world without a level, the held
 * copy of the page. */
static const st_tile *pack_page(st_paged_terrain *p, uint32_t x, uint32_t y) {
    if (!p->level) return st_paged_edits_page(p, x, y);
    int32_t n = 1 << p->shift;
    st_rect rect = {(int32_t)x * n, (int32_t)y * n, (int32_t)(x + 1) * n, (int32_t)(y + 1) * n};
    st_level_pack_pairs(p->level, rect, p->scratch->data);
    p->scratch->key = (st_tile_key){0, x, y};
    return p->scratch;
}

/* Page (x, y) of level k reads otherwise from the next frame on (it arrived, or lost its slot): the renderers'
 * data derived from the terrain (the voxel pyramid, the air tables) and the frame's passes (the shadow map) learn
 * of its rectangle as of an edit (st_paged_terrain_deliver). */
static void changed_page(st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y) {
    if (p->arrived_all) return;
    if (p->arrived_count == p->arrived_cap) {
        uint32_t cap = p->arrived_cap ? 2 * p->arrived_cap : 64;
        st_rect *grown = realloc(p->arrived, cap * sizeof *grown);
        if (!grown) { /* told nothing, the renderers keep what they derived before: redo everything */
            p->arrived_count = 0;
            p->arrived_all = true;
            return;
        }
        p->arrived = grown;
        p->arrived_cap = cap;
    }
    int32_t n = 1 << (p->shift + k); /* a coarse page stands for 2^k times the texels each way */
    p->arrived[p->arrived_count++] = (st_rect){(int32_t)x * n, (int32_t)y * n, (int32_t)(x + 1) * n, (int32_t)(y + 1) * n};
}

/* room() of each level's uploader: the frame's arrivals, shared by all levels, are not spent yet */
static bool paged_room(void *user) {
    const st_paged_terrain *p = ((const paged_level *)user)->p;
    return !p->upload_pages || p->frame_arrivals < p->upload_pages;
}

static bool paged_upload(void *user, uint32_t local, const st_tile *tile, uint64_t *ticket) {
    paged_level *lv = user;
    st_paged_terrain *p = lv->p;
    uint32_t k = lv->k, slot = lv->slot_base + local;
    if (local >= lv->slots || tile->key.level != 0 || tile->key.x >= lv->nx || tile->key.y >= lv->ny) return false;
    /* the frame's arrivals are spent: the residency manager keeps the page Loading and offers it next frame */
    if (!paged_room(user)) return false;
    /* an edited page's texels come from the level: the tile loaded from the store (or kept on the CPU since)
     * may predate the edit (coarser levels follow the store alone) */
    uint8_t *ed = k == 0 ? &p->edited[(size_t)tile->key.y * p->nx + tile->key.x] : NULL;
    const st_tile *send = ed && *ed & PAGE_EDITED ? pack_page(p, tile->key.x, tile->key.y) : tile;
    if (!send) send = tile; /* (never: a page flagged edited on a world without a level is held) */
    const st_tile *far = k ? st_paged_far_page(p, k, tile->key.x, tile->key.y) : NULL;
    if (far) send = far; /* a coarse page over edited texels: the edits' coarse texels, not the store's */
    if (!p->pool_uploader.upload(p->pool_uploader.user, slot, send, ticket)) return false;
    if (ed) {
        if (*ed & PAGE_RESEND) p->resend_count--;
        *ed &= (uint8_t)~PAGE_RESEND;
    }
    if (p->slot_key[slot] != UINT64_MAX) { /* the slot's page before, of this level (each level has its slots) */
        st_tile_key old = st_tile_key_unpack(p->slot_key[slot]);
        if ((level_entry(p, k, old.x, old.y) & 0xFFFFFFu) == slot + 1) {
            set_level_entry(p, k, old.x, old.y, floor_of(p, k, old.x, old.y) << 24);
            changed_page(p, k, old.x, old.y); /* read from a coarser level (or its floor) from now on */
        }
    }
    p->frame_arrivals++;
    p->slot_key[slot] = st_tile_key_pack((st_tile_key){k, tile->key.x, tile->key.y});
    set_level_entry(p, k, tile->key.x, tile->key.y, (slot + 1) | (floor_of(p, k, tile->key.x, tile->key.y) << 24));
    changed_page(p, k, tile->key.x, tile->key.y);
    return true;
}

static bool paged_complete(void *user, uint64_t ticket) {
    paged_level *lv = user;
    return lv->p->pool_uploader.complete(lv->p->pool_uploader.user, ticket);
}

void st_paged_terrain_destroy(st_paged_terrain *p) {
    if (!p) return;
    for (uint32_t k = 0; k < ST_PAGED_MAX_LEVELS; k++)
        st_residency_destroy(p->lv[k].residency); /* waits for running loads; uploads then stop */
    for (uint32_t k = ST_PAGED_MAX_LEVELS; k-- > 1;) st_store_close(p->lv[k].store); /* coarsest first */
    st_tile_pool_destroy(p->pool);
    st_gpu_buffer_destroy(p->engine->gpu, &p->table);
    free(p->table_cpu);
    free(p->slot_key);
    free(p->arrived);
    free(p->edited);
    st_paged_edits_destroy(p->edits);
    st_tile_destroy(p->scratch);
    st_layer_pages_destroy(p->reader);
    free(p);
}

/* The GPU's page table: host-visible and coherent (the CPU writes what changed before each frame), in device-local
 * memory where the adapter has such (read by every texel fetch of every method: across the bus, each miss of the
 * GPU's caches costs a round trip; measured on the H200, docs/paged-terrain.md), else the adapter's first
 * host-visible kind. */
static st_result table_create(st_gpu *gpu, VkDeviceSize size, st_gpu_buffer *out, st_error *err) {
    return st_gpu_buffer_create_host(gpu, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, ST_GPU_HOST_DEVICE_LOCAL, out, err);
}

static bool same_palette(const st_level *l, const st_store_info *in) {
    return l->terrain_types == in->terrain_types && !memcmp(l->palette, in->palette, sizeof l->palette) &&
           !memcmp(l->begin_color, in->begin_color, 16) && !memcmp(l->end_color, in->end_color, 16);
}

st_result st_paged_terrain_create(st_engine *e, const st_level *level, st_store *store, const st_paged_desc *desc,
                                  st_paged_terrain **out, st_error *err) {
    *out = NULL;
    st_paged_desc none = {0};
    if (!desc) desc = &none;
    const st_store_info *in = st_store_get_info(store);
    if (in->kind != ST_TILE_LAYERS)
        return st_error_set(err, ST_ERR_INVALID, "paged terrain comes from a layer store; this one holds a DEM");
    if (level && (in->width != level->width || in->height != level->height || !same_palette(level, in)))
        return st_error_set(err, ST_ERR_INVALID, "the layer store (%llux%llu) is not the level's (%ux%u, '%s')",
                            (unsigned long long)in->width, (unsigned long long)in->height, level->width,
                            level->height, level->name);
    if (in->tile_size < 16 || !st_is_pow2(in->tile_size) || in->tile_size > in->width || in->tile_size > in->height)
        return st_error_set(err, ST_ERR_INVALID, "pages of %u texels: a power of two from 16 to the world's side",
                            in->tile_size);
    if (in->width > ST_LEVEL_MAX_DIM || in->height > ST_LEVEL_MAX_DIM || !st_is_pow2((uint32_t)in->width) ||
        !st_is_pow2((uint32_t)in->height))
        return st_error_set(err, ST_ERR_INVALID, "a paged world of %llux%llu: powers of two up to %u a side",
                            (unsigned long long)in->width, (unsigned long long)in->height, ST_LEVEL_MAX_DIM);
    if (desc->far_levels >= ST_PAGED_MAX_LEVELS)
        return st_error_set(err, ST_ERR_INVALID, "%u coarser levels: at most %u", desc->far_levels,
                            ST_PAGED_MAX_LEVELS - 1);
    /* a coarser level of whole pages needs the world at least two pages a side at the level below */
    uint32_t levels = 1;
    while (levels <= desc->far_levels && (in->width >> levels) >= in->tile_size && (in->height >> levels) >= in->tile_size)
        levels++;
    uint32_t max_layers = e->gpu->props.limits.maxImageArrayLayers;
    uint32_t slots0 = desc->pool_pages ? desc->pool_pages : DEFAULT_POOL_PAGES;
    /* a coarser level wants the pages of a disc of full_radius/page + 1 of its own pages around the eye: by default
     * as many slots as the square around such a disc holds, so that it can always settle */
    float full = desc->full_radius > 0 ? desc->full_radius : DEFAULT_FULL_RADIUS;
    uint32_t reach = (uint32_t)ceilf(full / (float)in->tile_size) + 1;
    uint32_t far_pages = desc->far_pages ? desc->far_pages : (2 * reach + 1) * (2 * reach + 1);
    uint64_t all = slots0 + (uint64_t)(levels - 1) * far_pages;
    if (all > max_layers) {
        if (desc->pool_pages || levels > 1)
            return st_error_set(err, ST_ERR_INVALID, "a pool of %llu pages: this adapter has at most %u array layers",
                                (unsigned long long)all, max_layers);
        slots0 = max_layers;
        all = slots0;
    }
    uint32_t slots = (uint32_t)all;
    st_paged_terrain *p = calloc(1, sizeof *p);
    if (!p) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    p->engine = e;
    p->level = level;
    p->store = store;
    p->info = in;
    p->slots = slots;
    p->shift = (uint32_t)__builtin_ctz(in->tile_size);
    p->nx = (uint32_t)(in->width >> p->shift);
    p->ny = (uint32_t)(in->height >> p->shift);
    p->wrap_x = level ? level->wrap_x : in->wrap_x;
    p->wrap_y = level ? level->wrap_y : in->wrap_y;
    p->margin = desc->margin > 0 ? desc->margin : (float)in->tile_size;
    p->levels = levels;
    p->full_radius = desc->full_radius > 0 ? desc->full_radius : DEFAULT_FULL_RADIUS;
    p->lookahead = desc->lookahead_frames > 0 ? desc->lookahead_frames : 30.0f;
    p->upload_pages = desc->upload_pages;
    st_result r = ST_OK;
    p->slot_key = malloc((size_t)slots * sizeof *p->slot_key);
    if (!p->slot_key) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    p->edited = calloc((size_t)p->nx * p->ny, 1);
    if (!r && !p->edited) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (!r) r = st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, in->tile_size, &p->scratch, err);
    if (!r && !level) r = st_layer_pages_create(store, 0, &p->reader, err);
    if (!r) r = st_paged_edits_create(p, err); /* with a level, it holds the coarse pages that follow the edits */
    size_t words = TABLE_HEADER;
    for (uint32_t k = 0; k < levels && !r; k++) {
        paged_level *lv = &p->lv[k];
        lv->p = p;
        lv->k = k;
        lv->store = store;
        if (k) r = st_store_open_coarse(p->lv[k - 1].store, &lv->store, err);
        lv->nx = p->nx >> k;
        lv->ny = p->ny >> k;
        lv->offset = (uint32_t)(words - TABLE_HEADER);
        lv->slot_base = k ? slots0 + (k - 1) * far_pages : 0;
        lv->slots = k ? far_pages : slots0;
        words += (size_t)lv->nx * lv->ny;
    }
    if (!r) {
        for (uint32_t i = 0; i < slots; i++) p->slot_key[i] = UINT64_MAX;
        st_tile_pool_desc pd = {.encoding = ST_TILE_PAIRS,
                                .tile_size = in->tile_size,
                                .slots = slots,
                                .frame_budget_bytes = desc->upload_budget_bytes};
        r = st_tile_pool_create(e, &pd, &p->pool, err);
    }
    if (!r) {
        p->table_words = words;
        p->table_cpu = calloc(words, sizeof *p->table_cpu);
        if (!p->table_cpu) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    if (!r) r = table_create(e->gpu, words * sizeof(uint32_t), &p->table, err);
    if (!r) {
        uint32_t *t = p->table_cpu;
        t[0] = p->shift;
        t[1] = p->nx;
        t[2] = p->ny;
        t[3] = levels;
        for (uint32_t k = 0; k < ST_PAGED_MAX_LEVELS; k++) t[TABLE_HEADER - ST_PAGED_MAX_LEVELS + k] = k < levels ? p->lv[k].offset : 0;
        for (uint32_t k = 0; k < levels; k++)
            for (uint32_t y = 0; y < p->lv[k].ny; y++)
                for (uint32_t x = 0; x < p->lv[k].nx; x++) t[entry_index(p, k, x, y)] = floor_of(p, k, x, y) << 24;
        p->dirty_lo = 0;
        p->dirty_hi = words;
        send_table(p);
        p->pool_uploader = st_tile_pool_uploader(p->pool);
    }
    for (uint32_t k = 0; k < levels && !r; k++) {
        st_tile_uploader up = {.user = &p->lv[k], .upload = paged_upload, .complete = paged_complete,
                               .room = paged_room};
        uint32_t cpu = k ? p->lv[k].slots : desc->cpu_tiles ? desc->cpu_tiles : p->lv[k].slots;
        st_residency_desc rd = {.store = p->lv[k].store,
                                .cpu_tiles = cpu,
                                .gpu_slots = p->lv[k].slots,
                                .uploader = &up,
                                .upload_budget_bytes = desc->upload_budget_bytes,
                                .slow_load_ms = desc->slow_load_ms,
                                .pin_none = true};
        r = st_residency_create(&rd, &p->lv[k].residency, err);
    }
    if (!r) p->residency = p->lv[0].residency;
    if (r) {
        st_paged_terrain_destroy(p);
        return r;
    }
    *out = p;
    return ST_OK;
}

/* Requests the pages of level k whose squares meet the disk of radius `radius` (level-0 texels) around (cx, cy),
 * nearest first at priorities in (base, base + 1]; wraps along the world's wrapping axes, stops at the edges of
 * bounded ones. */
static uint32_t request_disk(st_paged_terrain *p, uint32_t k, double cx, double cy, double radius, float base,
                             bool count) {
    const paged_level *lv = &p->lv[k];
    double page = (double)(1u << (p->shift + k)); /* a page of level k, in level-0 texels */
    int64_t nx = lv->nx, ny = lv->ny;
    int64_t x0 = (int64_t)floor((cx - radius) / page), x1 = (int64_t)floor((cx + radius) / page);
    int64_t y0 = (int64_t)floor((cy - radius) / page), y1 = (int64_t)floor((cy + radius) / page);
    /* a disk wider than the world asks for each page once */
    if (x1 - x0 + 1 > nx) x0 = 0, x1 = nx - 1;
    if (y1 - y0 + 1 > ny) y0 = 0, y1 = ny - 1;
    uint32_t n = 0;
    for (int64_t ty = y0; ty <= y1; ty++) {
        if (!p->wrap_y && (ty < 0 || ty >= ny)) continue;
        double dy = fmax(0.0, fmax((double)ty * page - cy, cy - (double)(ty + 1) * page));
        for (int64_t tx = x0; tx <= x1; tx++) {
            if (!p->wrap_x && (tx < 0 || tx >= nx)) continue;
            double dx = fmax(0.0, fmax((double)tx * page - cx, cx - (double)(tx + 1) * page));
            double d = sqrt(dx * dx + dy * dy);
            if (d > radius) continue;
            uint32_t px = (uint32_t)(((tx % nx) + nx) % nx);
            uint32_t py = (uint32_t)(((ty % ny) + ny) % ny);
            st_residency_request(lv->residency, (st_tile_key){0, px, py}, base + (float)(1.0 / (1.0 + d / page)));
            if (count) {
                n++;
                if ((level_entry(p, k, px, py) & 0xFFFFFFu) == 0) {
                    p->missing++;
                    /* a hole: a full-resolution page missing with no coarser level mapped over it either */
                    bool covered = false;
                    for (uint32_t c = k + 1; c < p->levels && !covered; c++)
                        covered = (level_entry(p, c, px >> (c - k), py >> (c - k)) & 0xFFFFFFu) != 0;
                    if (k == 0 && !covered) p->holes++;
                }
            }
        }
    }
    return n;
}

/* How far ahead of the eye (texels) to ask for pages, for a frame that moved it `step` texels in `frame_ms` of wall
 * time: the lookahead frames of its motion, and at least the distance it covers, at that wall-clock speed, while a
 * page takes to become resident (the 90th percentile of the recent ones at any level, with half again as margin).
 * The second holds at any frame rate: a flight drawn many times faster than real time outruns a fixed number of
 * frames when loads are slow. */
static double prefetch_distance(const st_paged_terrain *p, double step, double frame_ms) {
    double ahead = step * (double)p->lookahead;
    double ready_ms = 0;
    for (uint32_t k = 0; k < p->levels; k++)
        ready_ms = fmax(ready_ms, st_residency_ready_ms(p->lv[k].residency));
    if (frame_ms > 0 && ready_ms > 0) ahead = fmax(ahead, step / frame_ms * 1.5 * ready_ms + step);
    return ahead;
}

void st_paged_terrain_begin_frame(st_paged_terrain *p, const st_camera *cam) {
    double eye3[3];
    st_camera_eye(cam, eye3); /* origin + position: a flight's cameras keep the eye in the origin */
    double eye[2] = {eye3[0], eye3[1]};
    double far = (double)(cam->far_dist > 0 ? cam->far_dist : ST_DEFAULT_FAR);
    /* with coarser levels, full resolution within full_radius only; level k covers 2^k times that (and at least
     * the far distance at the coarsest), each with a margin of one of its own pages */
    double radius = (p->levels > 1 ? fmin(far, (double)p->full_radius) : far) + p->margin;
    p->missing = p->holes = 0;
    p->wanted = request_disk(p, 0, eye[0], eye[1], radius, 1.0f, true);
    /* level k within full_radius·2^k (the coarsest to the far distance); a level past the one that reaches far
     * already is a backstop over the far disc, drawing what a missing finer page would leave to its floor */
    double reach_k[ST_PAGED_MAX_LEVELS] = {radius};
    bool backstop[ST_PAGED_MAX_LEVELS] = {true};
    for (uint32_t k = 1; k < p->levels; k++) {
        double reach = k + 1 == p->levels ? far : fmin(far, (double)p->full_radius * (double)(1u << k));
        reach_k[k] = reach + p->margin * (double)(1u << k);
        backstop[k] = fmin(far, (double)p->full_radius * (double)(1u << (k - 1))) >= far;
        p->wanted += request_disk(p, k, eye[0], eye[1], reach_k[k], 1.0f, true);
    }
    double now = st_time_ms();
    p->ahead = 0;
    if (p->have_eye) { /* prefetch where the eye is heading, below everything it needs now (level 0 and backstops) */
        double vx = eye[0] - p->last_eye[0], vy = eye[1] - p->last_eye[1];
        double ahead = prefetch_distance(p, hypot(vx, vy), now - p->last_frame_ms);
        ahead = fmin(ahead, 2.0 * radius);
        p->ahead = ahead >= 1.0 ? ahead : 0;
        if (ahead >= 1.0) {
            double s = ahead / hypot(vx, vy);
            for (uint32_t k = 0; k < p->levels; k++)
                if (backstop[k]) request_disk(p, k, eye[0] + vx * s, eye[1] + vy * s, reach_k[k], 0.0f, false);
        }
    }
    /* one budget of arrivals for all levels, the coarser first: they are what a missing finer page is drawn from */
    p->frame_arrivals = 0;
    for (uint32_t k = 1; k < p->levels; k++) st_residency_update(p->lv[k].residency);
    p->last_eye[0] = eye[0];
    p->last_eye[1] = eye[1];
    p->last_frame_ms = now;
    p->have_eye = true;
    st_residency_update(p->residency);
    /* edited pages that hold a slot get the edit in this frame's batch (a page without one gets it on upload) */
    for (uint32_t i = 0; i < p->slots && p->resend_count; i++) {
        if (p->slot_key[i] == UINT64_MAX) continue;
        st_tile_key k = st_tile_key_unpack(p->slot_key[i]);
        if (k.level) continue; /* a coarser level's page: edits do not reach it */
        uint8_t *ed = &p->edited[(size_t)k.y * p->nx + k.x];
        if (!(*ed & PAGE_RESEND)) continue;
        uint64_t ticket;
        const st_tile *page = pack_page(p, k.x, k.y);
        if (page && !p->pool_uploader.upload(p->pool_uploader.user, i, page, &ticket)) break; /* budget */
        *ed &= (uint8_t)~PAGE_RESEND; /* the renderers were told of the edit itself by st_engine_update_level */
        p->resend_count--;
    }
    st_paged_far_resend(p);
}

uint32_t st_paged_far_levels_for(float far_dist, float full_radius) {
    double r = full_radius > 0 ? (double)full_radius : (double)DEFAULT_FULL_RADIUS;
    uint32_t k = 0;
    while (k + 1 < ST_PAGED_MAX_LEVELS && r * (double)(1u << k) < (double)far_dist) k++;
    return k;
}

void st_paged_terrain_edit(st_paged_terrain *p, st_rect rect) {
    if (p->level && p->levels > 1) { /* (a world without a level follows its edits in paged_edits.c) */
        st_rect told;
        st_error err = {0};
        /* on failure the coarse pages keep their texels from before the edit until they are made again */
        (void)st_paged_far_follow(p, rect, &told, &err);
    }
    uint32_t n = 1u << p->shift;
    for (uint32_t y = (uint32_t)rect.y0 / n; y < ((uint32_t)rect.y1 + n - 1) / n && y < p->ny; y++)
        for (uint32_t x = (uint32_t)rect.x0 / n; x < ((uint32_t)rect.x1 + n - 1) / n && x < p->nx; x++) {
            uint8_t *ed = &p->edited[(size_t)y * p->nx + x];
            if (!(*ed & PAGE_RESEND)) p->resend_count++;
            *ed |= PAGE_EDITED | PAGE_RESEND | PAGE_UNSAVED;
        }
}

st_result st_paged_terrain_end_frame(st_paged_terrain *p, st_error *err) {
    send_table(p);
    st_result r = st_tile_pool_flush(p->pool, err);
    return r ? st_error_prefix(err, "uploading pages") : ST_OK;
}

st_result st_paged_terrain_deliver(st_engine *e, st_error *err) {
    st_paged_terrain *p = e->paged;
    if (p->arrived_all) {
        p->arrived_all = false;
        p->arrived_count = 1;
        if (!p->arrived_cap) return ST_OK; /* nothing could be listed, nor can this: the next page retries */
        p->arrived[0] = (st_rect){0, 0, (int32_t)(p->nx << p->shift), (int32_t)(p->ny << p->shift)};
    }
    st_result r = ST_OK;
    for (int i = 0; i < ST_MAX_RENDERERS && !r; i++) {
        st_renderer *rd = e->renderers[i];
        if (!rd || rd->ops->info.world != ST_WORLD_LEVEL) continue;
        /* the frame's passes too: a shadow map cast over a page's floor (or its coarse stand-in) is cast again
         * where the page arrives, as where an edit lands */
        for (uint32_t j = 0; j < rd->pass_count; j++) {
            const st_frame_pass *fp = &rd->passes[j];
            if (!fp->ops || !fp->ops->level_updated) continue;
            for (uint32_t k = 0; k < p->arrived_count; k++) fp->ops->level_updated(rd, fp->state, p->arrived[k]);
        }
        if (!rd->ops->level_updated) continue;
        for (uint32_t k = 0; k < p->arrived_count && !r; k++) r = rd->ops->level_updated(rd, rd->state, p->arrived[k], err);
    }
    p->arrived_count = 0;
    return r;
}

bool st_paged_terrain_texel(st_paged_terrain *p, int64_t x, int64_t y, st_texel *out) {
    if (!p->reader) return false;
    st_error err = {0};
    return st_layer_pages_texel(p->reader, x, y, out, &err) == ST_OK;
}

VkImageView st_paged_terrain_pool_view(const st_paged_terrain *p) { return st_tile_pool_view(p->pool); }
const st_gpu_buffer *st_paged_terrain_table(const st_paged_terrain *p) { return &p->table; }

/* ---- the engine's side --------------------------------------------------------------------------------------- */

st_result st_engine_set_paged_level(st_engine *e, const st_level *level, st_store *store, const st_paged_desc *desc,
                                    st_error *err) {
    for (int i = 0; i < ST_MAX_RENDERERS; i++)
        if (e->renderers[i])
            return st_error_set(err, ST_ERR_INVALID, "set_paged_level with live renderers: destroy them first");
    if (!level || !store) return st_error_set(err, ST_ERR_INVALID, "a paged level needs its level and its store");
    st_paged_terrain *p = NULL;
    st_result r = st_paged_terrain_create(e, level, store, desc, &p, err);
    if (!r) r = st_terrain_gpu_set_empty(e->terrain, err); /* no texture of the whole level: the pages are it */
    if (r) {
        st_paged_terrain_destroy(p);
        return r;
    }
    st_paged_terrain_destroy(e->paged);
    e->paged = p;
    e->level = level; /* the CPU's world, and its albedo as st_engine_set_level takes it */
    st_engine_shape_from_level(e, level);
    st_materials_gpu_level_changed(e);
    for (uint32_t t = 0; t < 16; t++) {
        st_level_type_albedo(level, t, e->albedo[t]);
        e->albedo[t][3] = 1.0f;
    }
    return ST_OK;
}

/* The most common flood level of a store's sections, as st_water_default_level finds it in a level's. */
static float store_water_level(const st_store_info *in) {
    uint32_t count[256] = {0};
    if (!in->flood_sections) return 0.5f; /* no flood levels kept: all zero */
    for (uint32_t s = 0; s < in->flood_sections; s++) count[in->flood[s]]++;
    uint32_t best = 0;
    for (uint32_t v = 1; v < 256; v++)
        if (count[v] > count[best]) best = v;
    return (float)best + 0.5f;
}

st_result st_engine_set_paged_world(st_engine *e, st_store *store, const st_paged_desc *desc, st_error *err) {
    for (int i = 0; i < ST_MAX_RENDERERS; i++)
        if (e->renderers[i])
            return st_error_set(err, ST_ERR_INVALID, "set_paged_world with live renderers: destroy them first");
    if (!store) return st_error_set(err, ST_ERR_INVALID, "a paged world needs its store");
    st_paged_terrain *p = NULL;
    st_result r = st_paged_terrain_create(e, NULL, store, desc, &p, err);
    if (!r) r = st_terrain_gpu_set_empty(e->terrain, err);
    if (r) {
        st_paged_terrain_destroy(p);
        return r;
    }
    st_paged_terrain_destroy(e->paged);
    e->paged = p;
    e->level = NULL; /* nothing of the whole world on the CPU: its texels come through the pages */
    st_materials_gpu_level_changed(e);
    const st_store_info *in = st_store_get_info(store);
    e->shape = (st_world_shape){.width = (uint32_t)in->width,
                                .height = (uint32_t)in->height,
                                .terrain_types = in->terrain_types,
                                .wrap_x = in->wrap_x,
                                .wrap_y = in->wrap_y,
                                .water_level = store_water_level(in)};
    /* the albedo of each type from the store's palette, as a level of it would give */
    st_level pal = {.terrain_types = in->terrain_types};
    memcpy(pal.begin_color, in->begin_color, 16);
    memcpy(pal.end_color, in->end_color, 16);
    memcpy(pal.palette, in->palette, sizeof pal.palette);
    for (uint32_t t = 0; t < 16; t++) {
        st_level_type_albedo(&pal, t, e->albedo[t]);
        e->albedo[t][3] = 1.0f;
    }
    return ST_OK;
}

st_result st_engine_paged_write_back(st_engine *e, uint32_t *written, st_error *err) {
    if (written) *written = 0;
    st_paged_terrain *p = e->paged;
    if (!p) return st_error_set(err, ST_ERR_INVALID, "the engine's terrain is not paged");
    if (!p->level) return st_paged_edits_write_back(p, written, err);
    size_t count = 0, pages = (size_t)p->nx * p->ny;
    for (size_t i = 0; i < pages; i++) count += (p->edited[i] & PAGE_UNSAVED) != 0;
    if (!count) return ST_OK;
    st_tile **tiles = calloc(count, sizeof *tiles);
    st_result r = tiles ? ST_OK : st_error_set(err, ST_ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < pages && !r; i++) {
        if (!(p->edited[i] & PAGE_UNSAVED)) continue;
        r = st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, 1u << p->shift, &tiles[k], err);
        if (r) break;
        const st_tile *t = pack_page(p, (uint32_t)(i % p->nx), (uint32_t)(i / p->nx));
        memcpy(tiles[k]->data, t->data, t->data_bytes);
        tiles[k]->key = t->key;
        k++;
    }
    /* no load may read these tiles while their files change: wait for the running ones by asking for none */
    if (!r) r = st_store_write_tiles(p->store, (const st_tile *const *)tiles, k, NULL, err);
    if (!r) {
        for (size_t i = 0; i < pages; i++) p->edited[i] &= (uint8_t)~PAGE_UNSAVED;
        if (written) *written = (uint32_t)k;
        st_paged_far_drop(p);
    }
    for (size_t i = 0; tiles && i < k; i++) st_tile_destroy(tiles[i]);
    free(tiles);
    return r;
}

st_result st_engine_paged_stats(const st_engine *e, st_paged_stats *out, st_error *err) {
    memset(out, 0, sizeof *out);
    const st_paged_terrain *p = e->paged;
    if (!p) return st_error_set(err, ST_ERR_INVALID, "the engine's terrain is not paged");
    out->residency = st_residency_get_stats(p->residency);
    out->pool = st_tile_pool_get_stats(p->pool);
    out->pool_pages = p->slots;
    out->levels = p->levels;
    for (uint32_t i = 0; i < p->slots; i++)
        if (p->slot_key[i] != UINT64_MAX && st_tile_key_unpack(p->slot_key[i]).level) out->far_mapped++;
    for (uint32_t i = 0; i < p->slots; i++) out->mapped += p->slot_key[i] != UINT64_MAX;
    out->arrivals = p->frame_arrivals;
    out->wanted = p->wanted;
    out->missing = p->missing;
    out->holes = p->holes;
    out->gpu_bytes = (uint64_t)p->slots * st_tile_pool_tile_bytes(p->pool) + p->table.size;
    out->edits_held = (uint32_t)st_paged_edits_held(p);
    out->ahead = p->ahead;
    return ST_OK;
}

st_result st_engine_paged_settle(st_engine *e, const st_camera *camera, uint32_t max_frames, uint32_t *frames,
                                 st_error *err) {
    if (frames) *frames = 0;
    st_paged_terrain *p = e->paged;
    if (!p) return st_error_set(err, ST_ERR_INVALID, "the engine's terrain is not paged");
    for (uint32_t i = 0; i < max_frames; i++) {
        st_paged_terrain_begin_frame(p, camera);
        st_result r = st_paged_terrain_end_frame(p, err);
        if (!r) r = st_paged_terrain_deliver(e, err);
        if (r) return r;
        if (frames) *frames = i + 1;
        if (!p->missing) return ST_OK; /* counted before this update: every wanted page was already mapped */
        struct timespec nap = {0, 1000000}; /* loads run on the job system: give them the millisecond */
        nanosleep(&nap, NULL);
    }
    return ST_OK;
}

void st_paged_terrain_pages(const st_paged_terrain *p, uint32_t *shift, uint32_t *nx, uint32_t *ny, uint32_t *levels,
                            uint32_t *slots) {
    *shift = p->shift;
    *nx = p->nx;
    *ny = p->ny;
    *levels = p->levels;
    *slots = p->slots;
}

bool st_engine_paged_page(st_engine *e, uint32_t px, uint32_t py, uint32_t *slot, void *out, size_t bytes) {
    st_paged_terrain *p = e->paged;
    if (!p || px >= p->nx || py >= p->ny) return false;
    uint32_t s = entry(p, px, py) & 0xFFFFFFu;
    if (!s) return false;
    if (slot) *slot = s - 1;
    st_error err = {0};
    return !out || st_tile_pool_read_slot(p->pool, s - 1, out, bytes, &err) == ST_OK;
}

bool st_engine_paged_level_mapped(const st_engine *e, uint32_t k, uint32_t px, uint32_t py) {
    st_paged_terrain *p = e->paged;
    if (!p || k >= p->levels || px >= p->lv[k].nx || py >= p->lv[k].ny) return false;
    return (level_entry(p, k, px, py) & 0xFFFFFFu) != 0;
}
