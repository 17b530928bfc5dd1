/* The viewer's undo/redo history: each edit keeps the height and metadata bytes of its rectangle before
 * and after, so undo and redo are byte copies and never re-run an edit. Edits get increasing ids; the level
 * is "unsaved" when the id of its current state differs from the id last marked saved. */
#include <stdlib.h>
#include <string.h>

#include "strata/view.h"

#define DEFAULT_BUDGET ((size_t)256 << 20)

typedef struct edit_entry {
    st_rect rect;
    uint8_t *before; /* heights rows then meta rows of rect */
    uint8_t *after;
    size_t bytes;    /* of each of before and after */
    uint64_t id;
} edit_entry;

struct st_edit_history {
    edit_entry *entries;
    size_t count;    /* recorded */
    size_t applied;  /* entries[0, applied) are in the level; the rest can be redone */
    size_t capacity;
    size_t budget, used;
    uint64_t next_id;
    uint64_t base_id;  /* id of the state below entries[0] (0 = as loaded) */
    uint64_t saved_id; /* id of the state last saved */
};

st_result st_edit_history_create(size_t byte_budget, st_edit_history **out, st_error *err) {
    *out = NULL;
    st_edit_history *h = calloc(1, sizeof *h);
    if (!h) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    h->budget = byte_budget ? byte_budget : DEFAULT_BUDGET;
    h->next_id = 1;
    *out = h;
    return ST_OK;
}

static void free_entry(edit_entry *e) {
    free(e->before);
    free(e->after);
    memset(e, 0, sizeof *e);
}

void st_edit_history_destroy(st_edit_history *h) {
    if (!h) return;
    for (size_t i = 0; i < h->count; i++) free_entry(&h->entries[i]);
    free(h->entries);
    free(h);
}

/* Copies rect's heights then metadata rows out of the level (to_level false) or into it (true). */
static void copy_rect(st_level *level, st_rect r, uint8_t *bytes, bool to_level) {
    size_t plane = (size_t)(r.x1 - r.x0) * (size_t)(r.y1 - r.y0);
    if (to_level) st_level_write_rect(level, r, bytes, bytes + plane);
    else st_level_read_rect(level, r, bytes, bytes + plane);
}

static uint64_t current_id(const st_edit_history *h) {
    return h->applied ? h->entries[h->applied - 1].id : h->base_id;
}

/* Forgets the oldest edits until the history fits its budget; the newest applied edit always stays. */
static void trim(st_edit_history *h) {
    while (h->used > h->budget && h->applied > 1) {
        h->base_id = h->entries[0].id;
        h->used -= 2 * h->entries[0].bytes;
        free_entry(&h->entries[0]);
        memmove(h->entries, h->entries + 1, (h->count - 1) * sizeof *h->entries);
        h->count--;
        h->applied--;
    }
}

st_result st_edit_history_apply(st_edit_history *h, st_level *level, st_edit_kind kind, int cx, int cy, int radius,
                                int amount, st_rect *dirty, st_error *err) {
    *dirty = (st_rect){0};
    if (radius < 1) return st_error_set(err, ST_ERR_INVALID, "edit radius %d: must be at least 1", radius);
    /* The brush touches at most the box [c-r, c+r] widened to whole pairs (src/terrain/edit.c); snapshot it
     * before the edit, then keep only the part the edit reports as changed. */
    st_rect area = {(cx - radius) & ~1, cy - radius, cx + radius + 3, cy + radius + 1};
    if (area.x0 < 0) area.x0 = 0;
    if (area.y0 < 0) area.y0 = 0;
    if (area.x1 > (int32_t)level->width) area.x1 = (int32_t)level->width;
    if (area.y1 > (int32_t)level->height) area.y1 = (int32_t)level->height;
    if (st_rect_empty(area))
        return st_error_set(err, ST_ERR_INVALID, "edit centre (%d,%d) is outside the %ux%u level", cx, cy,
                            level->width, level->height);
    size_t area_bytes = (size_t)(area.x1 - area.x0) * (size_t)(area.y1 - area.y0) * 2;
    uint8_t *snapshot = malloc(area_bytes);
    if (!snapshot) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    copy_rect(level, area, snapshot, false);
    st_rect changed;
    st_result r = kind == ST_EDIT_DIG ? st_level_dig(level, cx, cy, radius, amount, &changed, err)
                                      : st_level_raise(level, cx, cy, radius, amount, &changed, err);
    if (r || st_rect_empty(changed)) {
        free(snapshot);
        return r;
    }
    if (changed.x0 < area.x0 || changed.y0 < area.y0 || changed.x1 > area.x1 || changed.y1 > area.y1) {
        copy_rect(level, area, snapshot, true); /* cannot be undone exactly: refuse rather than corrupt */
        free(snapshot);
        return st_error_set(err, ST_ERR_INVALID, "edit changed texels outside its brush box");
    }
    if (h->count == h->capacity) {
        size_t cap = h->capacity ? 2 * h->capacity : 64;
        edit_entry *grown = realloc(h->entries, cap * sizeof *grown);
        if (!grown) {
            copy_rect(level, area, snapshot, true);
            free(snapshot);
            return st_error_set(err, ST_ERR_NOMEM, "out of memory");
        }
        h->entries = grown;
        h->capacity = cap;
    }
    edit_entry e = {.rect = changed, .bytes = (size_t)(changed.x1 - changed.x0) * (size_t)(changed.y1 - changed.y0) * 2};
    e.before = malloc(e.bytes);
    e.after = malloc(e.bytes);
    if (!e.before || !e.after) {
        copy_rect(level, area, snapshot, true);
        free(snapshot);
        free_entry(&e);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    /* crop the snapshot to the changed rectangle: plane by plane, row by row */
    size_t aw = (size_t)(area.x1 - area.x0), ah = (size_t)(area.y1 - area.y0), w = (size_t)(changed.x1 - changed.x0);
    uint8_t *dst = e.before;
    for (size_t plane = 0; plane < 2; plane++)
        for (int32_t y = changed.y0; y < changed.y1; y++, dst += w)
            memcpy(dst, snapshot + plane * aw * ah + (size_t)(y - area.y0) * aw + (size_t)(changed.x0 - area.x0), w);
    free(snapshot);
    copy_rect(level, changed, e.after, false);
    /* a new edit discards what could have been redone */
    for (size_t i = h->applied; i < h->count; i++) {
        h->used -= 2 * h->entries[i].bytes;
        free_entry(&h->entries[i]);
    }
    h->count = h->applied;
    e.id = h->next_id++;
    h->entries[h->count++] = e;
    h->applied = h->count;
    h->used += 2 * e.bytes;
    trim(h);
    *dirty = changed;
    return ST_OK;
}

bool st_edit_history_undo(st_edit_history *h, st_level *level, st_rect *dirty) {
    if (!h->applied) return false;
    edit_entry *e = &h->entries[--h->applied];
    copy_rect(level, e->rect, e->before, true);
    *dirty = e->rect;
    return true;
}

bool st_edit_history_redo(st_edit_history *h, st_level *level, st_rect *dirty) {
    if (h->applied == h->count) return false;
    edit_entry *e = &h->entries[h->applied++];
    copy_rect(level, e->rect, e->after, true);
    *dirty = e->rect;
    return true;
}

size_t st_edit_history_undo_count(const st_edit_history *h) { return h->applied; }
size_t st_edit_history_redo_count(const st_edit_history *h) { return h->count - h->applied; }
bool st_edit_history_unsaved(const st_edit_history *h) { return current_id(h) != h->saved_id; }
void st_edit_history_mark_saved(st_edit_history *h) { h->saved_id = current_id(h); }
