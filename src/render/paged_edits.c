/* Edits of a paged world without a level in memory: each edited page's texels held as a tile of their own (the
 * page's truth until written back into the store and dropped), digs and raises applied to a window of those
 * pages, an undo history of the texels each edit replaced, and the write-back that returns pages to the store. */
#include <stdlib.h>
#include <string.h>

#include "render/paged_internal.h"

#define MAX_RADIUS 1024        /* a brush's window stays within 4096² texels (32 MiB of planes) */
#define UNDO_BUDGET (64u << 20) /* bytes of replaced texels kept for undo; the oldest edits go first */

typedef struct paged_undo {
    st_rect rect;    /* world texels, inside the world */
    uint8_t *planes; /* the heights then the metadata the edit replaced, row by row */
} paged_undo;

/* Held pages by key (open addressing: cap a power of two, at most half full). */
typedef struct page_map {
    uint32_t cap, count;
    uint32_t *key;        /* the key + 1; 0 = empty */
    st_tile **tile;
} page_map;

/* A coarse page whose slot misses its held copy (st_paged_far_resend). */
typedef struct far_resend {
    uint32_t k, x, y;
} far_resend;

struct st_paged_edits {
    page_map pages;       /* edited level-0 pages, by page index (a world without a level) */
    page_map far;         /* coarse pages over edited texels, by their table entry (lv[k].offset + y·nx_k + x) */
    far_resend *resend;
    size_t resend_count, resend_cap;
    paged_undo *undo;
    size_t undo_count, undo_cap, undo_bytes;
};

static uint32_t slot_of(uint32_t key, uint32_t cap) { return (key * 2654435761u) & (cap - 1); }

static st_tile *map_find(const page_map *m, uint32_t page) {
    if (!m->cap) return NULL;
    for (uint32_t i = slot_of(page + 1, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->key[i]) return NULL;
        if (m->key[i] == page + 1) return m->tile[i];
    }
}

static bool map_grow(page_map *m) {
    uint32_t cap = m->cap ? 2 * m->cap : 64;
    uint32_t *key = calloc(cap, sizeof *key);
    st_tile **tile = calloc(cap, sizeof *tile);
    if (!key || !tile) {
        free(key);
        free(tile);
        return false;
    }
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->key[i]) continue;
        uint32_t j = slot_of(m->key[i], cap);
        while (key[j]) j = (j + 1) & (cap - 1);
        key[j] = m->key[i];
        tile[j] = m->tile[i];
    }
    free(m->key);
    free(m->tile);
    m->key = key;
    m->tile = tile;
    m->cap = cap;
    return true;
}

static bool map_put(page_map *m, uint32_t page, st_tile *t) {
    if (2 * (m->count + 1) > m->cap && !map_grow(m)) return false;
    uint32_t i = slot_of(page + 1, m->cap);
    while (m->key[i]) i = (i + 1) & (m->cap - 1);
    m->key[i] = page + 1;
    m->tile[i] = t;
    m->count++;
    return true;
}

/* Removes a page and shifts the entries after it back, so that no probe sequence is broken. */
static void map_remove(page_map *m, uint32_t page) {
    uint32_t mask = m->cap - 1, i = slot_of(page + 1, m->cap);
    while (m->key[i] != page + 1) {
        if (!m->key[i]) return;
        i = (i + 1) & mask;
    }
    st_tile_destroy(m->tile[i]);
    m->key[i] = 0;
    m->tile[i] = NULL;
    m->count--;
    for (uint32_t j = (i + 1) & mask; m->key[j]; j = (j + 1) & mask) {
        uint32_t home = slot_of(m->key[j], m->cap);
        /* j's entry may move to the hole i when i lies on its probe path [home, j) */
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (!movable) continue;
        m->key[i] = m->key[j];
        m->tile[i] = m->tile[j];
        m->key[j] = 0;
        m->tile[j] = NULL;
        i = j;
    }
}

static void map_free(page_map *m) {
    for (uint32_t i = 0; i < m->cap; i++) st_tile_destroy(m->tile[i]);
    free(m->key);
    free(m->tile);
}

void st_paged_edits_destroy(st_paged_edits *m) {
    if (!m) return;
    map_free(&m->pages);
    map_free(&m->far);
    for (size_t i = 0; i < m->undo_count; i++) free(m->undo[i].planes);
    free(m->resend);
    free(m->undo);
    free(m);
}

const st_tile *st_paged_edits_page(const st_paged_terrain *p, uint32_t x, uint32_t y) {
    return p->edits ? map_find(&p->edits->pages, y * p->nx + x) : NULL;
}

size_t st_paged_edits_held(const st_paged_terrain *p) { return p->edits ? p->edits->pages.count : 0; }

/* The CPU reader's newer source: an edited page's texels before they are written back. */
static const st_tile *reader_source(void *user, uint32_t tx, uint32_t ty) {
    st_paged_terrain *p = user;
    return tx < p->nx && ty < p->ny ? st_paged_edits_page(p, tx, ty) : NULL;
}

st_result st_paged_edits_create(st_paged_terrain *p, st_error *err) {
    p->edits = calloc(1, sizeof *p->edits);
    if (!p->edits) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (p->reader) st_layer_pages_set_source(p->reader, reader_source, p);
    return ST_OK;
}

/* The page's texels to edit: held already, else a copy of what the residency manager holds (the store's tile,
 * refreshed at every write-back), else read from the store now. */
static st_result page_for_edit(st_paged_terrain *p, uint32_t x, uint32_t y, st_tile **out, st_error *err) {
    uint32_t page = y * p->nx + x;
    *out = map_find(&p->edits->pages, page);
    if (*out) return ST_OK;
    st_tile_key key = {0, x, y};
    const st_tile *held = st_residency_tile(p->residency, key, NULL);
    st_tile *t = NULL;
    st_result r = ST_OK;
    if (held) {
        r = st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, 1u << p->shift, &t, err);
        if (!r) memcpy(t->data, held->data, t->data_bytes);
    } else {
        r = st_store_read_tile(p->store, key, &t, err);
    }
    if (r) return st_error_prefix(err, "reading page (%u, %u) to edit it", x, y);
    t->key = key;
    if (!map_put(&p->edits->pages, page, t)) {
        st_tile_destroy(t);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory for edited pages");
    }
    *out = t;
    return ST_OK;
}

/* Copies the world's rect between the held pages and planes (heights, then metadata, each rect-sized, row by
 * row): to_pages false gathers, true scatters. Every page the rect meets is held first. */
static st_result copy_rect(st_paged_terrain *p, st_rect rect, uint8_t *heights, uint8_t *meta, uint32_t stride,
                           bool to_pages, st_error *err) {
    int32_t n = 1 << p->shift;
    for (int32_t py = rect.y0 / n; py * n < rect.y1; py++)
        for (int32_t px = rect.x0 / n; px * n < rect.x1; px++) {
            st_tile *t = NULL;
            st_result r = page_for_edit(p, (uint32_t)px, (uint32_t)py, &t, err);
            if (r) return r;
            int32_t x0 = px * n > rect.x0 ? px * n : rect.x0, x1 = (px + 1) * n < rect.x1 ? (px + 1) * n : rect.x1;
            int32_t y0 = py * n > rect.y0 ? py * n : rect.y0, y1 = (py + 1) * n < rect.y1 ? (py + 1) * n : rect.y1;
            for (int32_t y = y0; y < y1; y++)
                for (int32_t x = x0; x < x1; x++) {
                    /* the pair layout: (h_even, m_even, h_odd, m_odd) per pair, rows of n/2 pairs */
                    uint8_t *q = (uint8_t *)t->data + ((size_t)(y - py * n) * (size_t)(n / 2) + (size_t)(x - px * n) / 2) * 4 +
                                 (size_t)((x & 1) * 2);
                    size_t at = (size_t)(y - rect.y0) * stride + (size_t)(x - rect.x0);
                    if (to_pages) q[0] = heights[at], q[1] = meta[at];
                    else heights[at] = q[0], meta[at] = q[1];
                }
        }
    return ST_OK;
}

/* ---- the far field follows the edits ------------------------------------------------------------------------
 * A coarse page is made from the pages under it (st_store_open_coarse) as the store has them, so the edits not
 * written back would not reach it, and a coarse page already resident would keep the texels from before. So each
 * edit recomputes the coarse texels over it, level by level, from the texels of the level below as they are now,
 * into coarse pages held on the CPU like edited pages: a coarse texel pair depends on its 4×2 block of the level
 * below alone (st_level_coarsen), so recomputing the blocks an edit met gives exactly the coarse level of the edited
 * world. Invariant: every coarse page over a held (or, with a level, unsaved) page of the level below is held, so a
 * coarse page first held comes from the store's pages, which have every edit under it. */

static st_result read_rect(st_paged_terrain *p, st_rect rect, uint8_t *heights, uint8_t *meta, st_error *err);

static uint32_t far_key(const st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y) {
    return p->lv[k].offset + y * p->lv[k].nx + x;
}

const st_tile *st_paged_far_page(const st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y) {
    if (!p->edits || k == 0 || k >= p->levels || x >= p->lv[k].nx || y >= p->lv[k].ny) return NULL;
    return map_find(&p->edits->far, far_key(p, k, x, y));
}

/* Coarse page (x, y) of level k held: as held, else a copy of the residency manager's, else made from the store. */
static st_result far_for_edit(st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y, st_tile **out, st_error *err) {
    uint32_t key = far_key(p, k, x, y);
    *out = map_find(&p->edits->far, key);
    if (*out) return ST_OK;
    st_tile_key tk = {0, x, y};
    const st_tile *copy = st_residency_tile(p->lv[k].residency, tk, NULL);
    st_tile *t = NULL;
    st_result r = ST_OK;
    if (copy) {
        r = st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, 1u << p->shift, &t, err);
        if (!r) memcpy(t->data, copy->data, t->data_bytes);
    } else {
        r = st_store_read_tile(p->lv[k].store, tk, &t, err);
    }
    if (r) return st_error_prefix(err, "reading coarse page (%u, %u) of level %u to edit it", x, y, k);
    t->key = tk;
    if (!map_put(&p->edits->far, key, t)) {
        st_tile_destroy(t);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory for coarse pages");
    }
    *out = t;
    return ST_OK;
}

/* Between held coarse pages of level k and planes of rect (level-k texels): to_pages false gathers, true scatters. */
static st_result far_copy(st_paged_terrain *p, uint32_t k, st_rect rect, uint8_t *heights, uint8_t *meta,
                          uint32_t stride, bool to_pages, st_error *err) {
    int32_t n = 1 << p->shift;
    for (int32_t py = rect.y0 / n; py * n < rect.y1; py++)
        for (int32_t px = rect.x0 / n; px * n < rect.x1; px++) {
            st_tile *t = NULL;
            st_result r = far_for_edit(p, k, (uint32_t)px, (uint32_t)py, &t, err);
            if (r) return r;
            for (int32_t y = py * n > rect.y0 ? py * n : rect.y0; y < (py + 1) * n && y < rect.y1; y++)
                for (int32_t x = px * n > rect.x0 ? px * n : rect.x0; x < (px + 1) * n && x < rect.x1; x++) {
                    uint8_t *q = (uint8_t *)t->data +
                                 ((size_t)(y - py * n) * (size_t)(n / 2) + (size_t)(x - px * n) / 2) * 4 +
                                 (size_t)((x & 1) * 2);
                    size_t at = (size_t)(y - rect.y0) * stride + (size_t)(x - rect.x0);
                    if (to_pages) q[0] = heights[at], q[1] = meta[at];
                    else heights[at] = q[0], meta[at] = q[1];
                }
        }
    return ST_OK;
}

static void far_resend_add(st_paged_edits *m, uint32_t k, uint32_t x, uint32_t y) {
    for (size_t i = 0; i < m->resend_count; i++)
        if (m->resend[i].k == k && m->resend[i].x == x && m->resend[i].y == y) return;
    if (m->resend_count == m->resend_cap) {
        size_t cap = m->resend_cap ? 2 * m->resend_cap : 16;
        far_resend *grown = realloc(m->resend, cap * sizeof *grown);
        if (!grown) return; /* the page then keeps its slot's older texels until it is uploaded again */
        m->resend = grown;
        m->resend_cap = cap;
    }
    m->resend[m->resend_count++] = (far_resend){k, x, y};
}

st_result st_paged_far_follow(st_paged_terrain *p, st_rect rect, st_rect *told, st_error *err) {
    *told = rect;
    st_paged_edits *m = p->edits;
    st_rect r = rect; /* at level k − 1 */
    r.x0 &= ~1;
    for (uint32_t k = 1; k < p->levels; k++) {
        /* the coarse pairs whose 4×2 blocks meet r, and those blocks */
        st_rect c = {(r.x0 >> 2) << 1, r.y0 >> 1, ((r.x1 + 3) >> 2) << 1, (r.y1 + 1) >> 1};
        st_rect b = {2 * c.x0, 2 * c.y0, 2 * c.x1, 2 * c.y1};
        uint32_t bw = (uint32_t)(b.x1 - b.x0), bh = (uint32_t)(b.y1 - b.y0);
        uint32_t lw = 4, lh = 2;
        while (lw < bw) lw *= 2;
        while (lh < bh) lh *= 2;
        st_level *block = NULL, *coarse = NULL;
        uint8_t *planes = malloc(2 * (size_t)bw * bh);
        st_result res = planes ? st_level_create(lw, lh, &block, err) : st_error_set(err, ST_ERR_NOMEM, "out of memory");
        if (!res) res = k == 1 ? read_rect(p, b, planes, planes + (size_t)bw * bh, err)
                               : far_copy(p, k - 1, b, planes, planes + (size_t)bw * bh, bw, false, err);
        if (!res) {
            /* the palette decides the type bits' layout; no neighbour past the block is read */
            block->terrain_types = p->info->terrain_types;
            block->wrap_x = block->wrap_y = false;
            st_level_write_rect(block, (st_rect){0, 0, (int32_t)bw, (int32_t)bh}, planes, planes + (size_t)bw * bh);
            res = st_level_coarsen(block, &coarse, err);
        }
        if (!res) {
            uint32_t cw = bw / 2, ch = bh / 2;
            st_rect all = {0, 0, (int32_t)cw, (int32_t)ch};
            st_level_read_rect(coarse, all, planes, planes + (size_t)cw * ch);
            res = far_copy(p, k, c, planes, planes + (size_t)cw * ch, cw, true, err);
        }
        st_level_destroy(block);
        st_level_destroy(coarse);
        free(planes);
        if (res) return res;
        int32_t n = 1 << p->shift;
        for (int32_t py = c.y0 / n; py * n < c.y1; py++)
            for (int32_t px = c.x0 / n; px * n < c.x1; px++) far_resend_add(m, k, (uint32_t)px, (uint32_t)py);
        told->x0 = c.x0 << k < told->x0 ? c.x0 << k : told->x0;
        told->y0 = c.y0 << k < told->y0 ? c.y0 << k : told->y0;
        told->x1 = c.x1 << k > told->x1 ? c.x1 << k : told->x1;
        told->y1 = c.y1 << k > told->y1 ? c.y1 << k : told->y1;
        r = c;
    }
    return ST_OK;
}

void st_paged_far_resend(st_paged_terrain *p) {
    st_paged_edits *m = p->edits;
    if (!m) return;
    size_t kept = 0;
    for (size_t i = 0; i < m->resend_count; i++) {
        far_resend f = m->resend[i];
        uint32_t e = p->table_cpu[TABLE_HEADER + far_key(p, f.k, f.x, f.y)] & 0xFFFFFFu;
        const st_tile *held = st_paged_far_page(p, f.k, f.x, f.y);
        uint64_t ticket;
        /* a page without a slot gets its held copy when it is uploaded; one the budget refuses waits a frame */
        if (e && held && !p->pool_uploader.upload(p->pool_uploader.user, e - 1, held, &ticket)) m->resend[kept++] = f;
    }
    m->resend_count = kept;
}

/* Whether any page of level k − 1 under coarse page (x, y) of level k still differs from the store. */
static bool far_pending_below(const st_paged_terrain *p, uint32_t k, uint32_t x, uint32_t y) {
    for (uint32_t j = 0; j < 2; j++)
        for (uint32_t i = 0; i < 2; i++) {
            uint32_t cx = 2 * x + i, cy = 2 * y + j;
            if (k - 1 == 0) {
                if (cx >= p->nx || cy >= p->ny) continue;
                if (p->level ? p->edited[(size_t)cy * p->nx + cx] & PAGE_UNSAVED : st_paged_edits_page(p, cx, cy) != NULL)
                    return true;
            } else if (st_paged_far_page(p, k - 1, cx, cy)) {
                return true;
            }
        }
    return false;
}

void st_paged_far_drop(st_paged_terrain *p) {
    st_paged_edits *m = p->edits;
    if (!m) return;
    /* finest first: a level's pages go once nothing under them is pending */
    for (uint32_t k = 1; k < p->levels; k++)
        for (uint32_t i = 0; i < m->far.cap;) {
            uint32_t key = m->far.key[i];
            uint32_t e = key ? key - 1 : 0;
            if (!key || e < p->lv[k].offset || e >= p->lv[k].offset + p->lv[k].nx * p->lv[k].ny) {
                i++;
                continue;
            }
            uint32_t x = (e - p->lv[k].offset) % p->lv[k].nx, y = (e - p->lv[k].offset) / p->lv[k].nx;
            bool waiting = false;
            for (size_t r = 0; r < m->resend_count && !waiting; r++)
                waiting = m->resend[r].k == k && m->resend[r].x == x && m->resend[r].y == y;
            if (waiting || far_pending_below(p, k, x, y) || !st_residency_refresh(p->lv[k].residency, m->far.tile[i])) {
                i++;
                continue;
            }
            map_remove(&m->far, e); /* may move a later entry into slot i: look at i again */
        }
}

/* The pages under rect changed: flagged for upload and write-back, dropped from the CPU reader's cache, and the
 * renderers told (as st_engine_update_level tells them). */
static st_result changed(st_engine *e, st_rect rect, st_error *err) {
    st_paged_terrain *p = e->paged;
    int32_t n = 1 << p->shift;
    st_paged_terrain_edit(p, rect);
    st_rect told;
    st_result far = st_paged_far_follow(p, rect, &told, err);
    if (far) return far;
    for (int32_t py = rect.y0 / n; py * n < rect.y1; py++)
        for (int32_t px = rect.x0 / n; px * n < rect.x1; px++)
            if (p->reader) st_layer_pages_forget(p->reader, (uint32_t)px, (uint32_t)py);
    st_result r = ST_OK;
    for (int i = 0; i < ST_MAX_RENDERERS && !r; i++) {
        st_renderer *rd = e->renderers[i];
        for (uint32_t k = 0; rd && k < rd->pass_count; k++) {
            const st_frame_pass *fp = &rd->passes[k];
            if (fp->ops && fp->ops->level_updated) fp->ops->level_updated(rd, fp->state, told);
        }
        if (rd && rd->ops->level_updated) r = rd->ops->level_updated(rd, rd->state, told, err);
    }
    return r;
}

static void undo_push(st_paged_edits *m, st_rect rect, uint8_t *planes) {
    size_t bytes = 2 * (size_t)(rect.x1 - rect.x0) * (size_t)(rect.y1 - rect.y0);
    while (m->undo_count && m->undo_bytes + bytes > UNDO_BUDGET) { /* the oldest edits can no longer be undone */
        size_t first = 2 * (size_t)(m->undo[0].rect.x1 - m->undo[0].rect.x0) *
                       (size_t)(m->undo[0].rect.y1 - m->undo[0].rect.y0);
        free(m->undo[0].planes);
        memmove(m->undo, m->undo + 1, (m->undo_count - 1) * sizeof *m->undo);
        m->undo_count--;
        m->undo_bytes -= first;
    }
    if (m->undo_count == m->undo_cap) {
        size_t cap = m->undo_cap ? 2 * m->undo_cap : 64;
        paged_undo *grown = realloc(m->undo, cap * sizeof *grown);
        if (!grown) { /* no room to remember it: the history stops before this edit */
            for (size_t i = 0; i < m->undo_count; i++) free(m->undo[i].planes);
            m->undo_count = 0;
            m->undo_bytes = 0;
            free(planes);
            return;
        }
        m->undo = grown;
        m->undo_cap = cap;
    }
    m->undo[m->undo_count++] = (paged_undo){rect, planes};
    m->undo_bytes += bytes;
}

static uint32_t pow2_at_least(uint32_t v) {
    uint32_t p = 2;
    while (p < v) p *= 2;
    return p;
}

st_result st_engine_paged_edit(st_engine *e, bool raise, int64_t cx, int64_t cy, int radius, int amount,
                               st_rect *dirty, st_error *err) {
    if (dirty) *dirty = (st_rect){0};
    st_paged_terrain *p = e->paged;
    if (!p || p->level)
        return st_error_set(err, ST_ERR_INVALID, "st_engine_paged_edit edits a paged world without a level; a level "
                                                 "is edited in place, then st_engine_update_level");
    uint64_t w = (uint64_t)p->nx << p->shift, h = (uint64_t)p->ny << p->shift;
    if (cx < 0 || cy < 0 || (uint64_t)cx >= w || (uint64_t)cy >= h)
        return st_error_set(err, ST_ERR_INVALID, "edit centre (%lld,%lld) is outside the %llux%llu world",
                            (long long)cx, (long long)cy, (unsigned long long)w, (unsigned long long)h);
    if (radius < 1 || radius > MAX_RADIUS)
        return st_error_set(err, ST_ERR_INVALID, "edit radius %d on a paged world: must be 1..%d", radius, MAX_RADIUS);
    if (amount < 0 || amount > 255) return st_error_set(err, ST_ERR_INVALID, "edit depth %d: must be 0..255", amount);
    /* the brush's box as st_level_dig takes it on the whole level: clipped to the world, x widened to pairs */
    int64_t x0 = cx - radius < 0 ? 0 : (cx - radius) & ~(int64_t)1, y0 = cy - radius < 0 ? 0 : cy - radius;
    int64_t x1 = cx + radius + 1 < (int64_t)w ? cx + radius + 1 : (int64_t)w;
    int64_t y1 = cy + radius + 1 < (int64_t)h ? cy + radius + 1 : (int64_t)h;
    x1 = (x1 + 1) & ~(int64_t)1;
    st_rect box = {(int32_t)x0, (int32_t)y0, (int32_t)x1, (int32_t)y1};
    uint32_t bw = (uint32_t)(x1 - x0), bh = (uint32_t)(y1 - y0);
    /* a window level holding the box (a level's sides are powers of two: what lies past the box is padding the
     * brush may touch and nothing reads back); each texel's change depends on itself and its distance alone */
    st_level *win = NULL;
    st_result r = st_level_create(pow2_at_least(bw), pow2_at_least(bh), &win, err);
    uint8_t *before = r ? NULL : malloc(2 * (size_t)bw * bh);
    if (!r && !before) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    uint8_t *wh = NULL, *wm = NULL;
    if (!r) {
        st_level_planes_mut(win, &wh, &wm);
        r = copy_rect(p, box, before, before + (size_t)bw * bh, bw, false, err);
    }
    if (!r) {
        st_level_write_rect(win, (st_rect){0, 0, (int32_t)bw, (int32_t)bh}, before, before + (size_t)bw * bh);
        st_rect d;
        r = raise ? st_level_raise(win, (int)(cx - x0), (int)(cy - y0), radius, amount, &d, err)
                  : st_level_dig(win, (int)(cx - x0), (int)(cy - y0), radius, amount, &d, err);
    }
    if (!r) r = copy_rect(p, box, wh, wm, win->width, true, err);
    st_level_destroy(win);
    if (r) {
        free(before);
        return r;
    }
    undo_push(p->edits, box, before);
    if (dirty) *dirty = box;
    return changed(e, box, err);
}

st_result st_engine_paged_undo(st_engine *e, bool *undone, st_rect *dirty, st_error *err) {
    if (undone) *undone = false;
    if (dirty) *dirty = (st_rect){0};
    st_paged_terrain *p = e->paged;
    if (!p || p->level) return st_error_set(err, ST_ERR_INVALID, "no paged world without a level to undo an edit of");
    st_paged_edits *m = p->edits;
    if (!m->undo_count) return ST_OK;
    paged_undo *u = &m->undo[m->undo_count - 1];
    uint32_t bw = (uint32_t)(u->rect.x1 - u->rect.x0), bh = (uint32_t)(u->rect.y1 - u->rect.y0);
    /* the replaced texels go back into the pages, wherever those are now (held, resident or in the store) */
    st_result r = copy_rect(p, u->rect, u->planes, u->planes + (size_t)bw * bh, bw, true, err);
    if (r) return r;
    st_rect rect = u->rect;
    free(u->planes);
    m->undo_count--;
    m->undo_bytes -= 2 * (size_t)bw * bh;
    if (undone) *undone = true;
    if (dirty) *dirty = rect;
    return changed(e, rect, err);
}

size_t st_engine_paged_undo_count(const st_engine *e) {
    return e->paged && e->paged->edits ? e->paged->edits->undo_count : 0;
}

/* The world's texels over rect (inside the world), edits included, into planes of the rect's size: the level where
 * there is one, else the held pages and, for the rest, the store through the CPU's reader. */
static st_result read_rect(st_paged_terrain *p, st_rect rect, uint8_t *heights, uint8_t *meta, st_error *err) {
    if (p->level) {
        st_level_read_rect(p->level, rect, heights, meta);
        return ST_OK;
    }
    int32_t n = 1 << p->shift;
    uint32_t stride = (uint32_t)(rect.x1 - rect.x0);
    for (int32_t py = rect.y0 / n; py * n < rect.y1; py++)
        for (int32_t px = rect.x0 / n; px * n < rect.x1; px++) {
            /* a page not held is read as the CPU's reader reads it (the store), without holding it */
            st_level *page = NULL;
            const st_tile *held = st_paged_edits_page(p, (uint32_t)px, (uint32_t)py);
            st_result r = ST_OK;
            if (!held) r = st_layer_pages_window(p->reader, (int64_t)px * n, (int64_t)py * n, (uint32_t)n, (uint32_t)n,
                                                 &page, err);
            if (r) return r;
            for (int32_t y = py * n > rect.y0 ? py * n : rect.y0; y < (py + 1) * n && y < rect.y1; y++)
                for (int32_t x = px * n > rect.x0 ? px * n : rect.x0; x < (px + 1) * n && x < rect.x1; x++) {
                    size_t at = (size_t)(y - rect.y0) * stride + (size_t)(x - rect.x0);
                    if (held) {
                        const uint8_t *q = (const uint8_t *)held->data +
                                           ((size_t)(y - py * n) * (size_t)(n / 2) + (size_t)(x - px * n) / 2) * 4 +
                                           (size_t)((x & 1) * 2);
                        heights[at] = q[0];
                        meta[at] = q[1];
                    } else {
                        heights[at] = st_level_height_row(page, (uint32_t)(y - py * n))[x - px * n];
                        meta[at] = st_level_meta_row(page, (uint32_t)(y - py * n))[x - px * n];
                    }
                }
            st_level_destroy(page);
        }
    return ST_OK;
}

st_result st_engine_paged_read_rect(st_engine *e, st_rect rect, uint8_t *heights, uint8_t *meta, st_error *err) {
    st_paged_terrain *p = e->paged;
    if (!p || p->level) return st_error_set(err, ST_ERR_INVALID, "no paged world without a level to read");
    uint64_t w = (uint64_t)p->nx << p->shift, h = (uint64_t)p->ny << p->shift;
    if (st_rect_empty(rect) || rect.x0 < 0 || rect.y0 < 0 || (uint64_t)rect.x1 > w || (uint64_t)rect.y1 > h)
        return st_error_set(err, ST_ERR_INVALID, "a rectangle outside the %llux%llu world", (unsigned long long)w,
                            (unsigned long long)h);
    return read_rect(p, rect, heights, meta, err);
}

st_result st_paged_edits_write_back(st_paged_terrain *p, uint32_t *written, st_error *err) {
    page_map *m = &p->edits->pages;
    size_t count = 0;
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->key[i] && p->edited[m->key[i] - 1] & PAGE_UNSAVED) count++;
    st_result r = ST_OK;
    if (count) {
        const st_tile **tiles = malloc(count * sizeof *tiles);
        if (!tiles) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
        size_t k = 0;
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->key[i] && p->edited[m->key[i] - 1] & PAGE_UNSAVED) tiles[k++] = m->tile[i];
        r = st_store_write_tiles(p->store, tiles, k, NULL, err);
        free(tiles);
        if (r) return r; /* every page stays held and unsaved */
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->key[i]) p->edited[m->key[i] - 1] &= (uint8_t)~PAGE_UNSAVED;
        if (written) *written = (uint32_t)k;
    }
    /* Saved pages are dropped, their truth the store's from now on: the residency manager's copy takes the
     * page's texels first, so no upload sends an older one; a page being loaded now (what it read may predate the
     * write), or still owing its slot the last edit, stays held until a later write-back. */
    for (uint32_t i = 0; i < m->cap;) {
        uint32_t key = m->key[i];
        if (!key || p->edited[key - 1] & (PAGE_UNSAVED | PAGE_RESEND) || !st_residency_refresh(p->residency, m->tile[i])) {
            i++;
            continue;
        }
        p->edited[key - 1] &= (uint8_t)~PAGE_EDITED;
        map_remove(m, key - 1); /* may move a later entry into slot i: look at i again */
    }
    st_paged_far_drop(p);
    return ST_OK;
}
