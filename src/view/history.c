/* The viewer's undo/redo history: each edit keeps the bytes of its rectangle before and after (a dig's or a
 * raise's height and metadata planes, a paint's control texels), so undo and redo are byte copies and never
 * re-run an edit. Edits get increasing ids; the world is "unsaved" when the id of its current state differs
 * from the id last marked saved. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/materials.h"
#include "strata/view.h"

#define DEFAULT_BUDGET ((size_t)256 << 20)

typedef struct edit_entry {
    st_rect rect;
    uint8_t *before; /* a level edit: heights rows then meta rows of rect; a paint: rect's control texels */
    uint8_t *after;
    size_t bytes;    /* of each of before and after */
    uint64_t id;
    bool control;    /* a paint of the control map, else an edit of the level */
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

/* Copies the `unit`-byte cells of `inner` (within `outer`) out of plane `plane` of a snapshot of `outer`,
 * appending them row by row at *dst. */
static uint8_t *crop(const uint8_t *snapshot, st_rect outer, st_rect inner, size_t unit, size_t plane, uint8_t *dst) {
    size_t ow = (size_t)(outer.x1 - outer.x0), oh = (size_t)(outer.y1 - outer.y0);
    size_t w = (size_t)(inner.x1 - inner.x0) * unit;
    for (int32_t y = inner.y0; y < inner.y1; y++, dst += w)
        memcpy(dst, snapshot + (plane * ow * oh + (size_t)(y - outer.y0) * ow + (size_t)(inner.x0 - outer.x0)) * unit,
               w);
    return dst;
}

/* Appends an applied entry (taking its buffers), dropping what could have been redone and trimming to the
 * budget. On failure the entry's buffers are freed and the caller puts the world back. */
static st_result record(st_edit_history *h, edit_entry *e, st_error *err) {
    if (h->count == h->capacity) {
        size_t cap = h->capacity ? 2 * h->capacity : 64;
        edit_entry *grown = realloc(h->entries, cap * sizeof *grown);
        if (!grown) {
            free_entry(e);
            return st_error_set(err, ST_ERR_NOMEM, "out of memory");
        }
        h->entries = grown;
        h->capacity = cap;
    }
    /* a new edit discards what could have been redone */
    for (size_t i = h->applied; i < h->count; i++) {
        h->used -= 2 * h->entries[i].bytes;
        free_entry(&h->entries[i]);
    }
    h->count = h->applied;
    e->id = h->next_id++;
    h->entries[h->count++] = *e;
    h->applied = h->count;
    h->used += 2 * e->bytes;
    trim(h);
    return ST_OK;
}

st_result st_edit_history_apply(st_edit_history *h, st_level *level, st_edit_kind kind, int cx, int cy, int radius,
                                int amount, st_rect *dirty, st_error *err) {
    *dirty = (st_rect){0};
    if (radius < 1) return st_error_set(err, ST_ERR_INVALID, "edit radius %d: must be at least 1", radius);
    if (kind != ST_EDIT_DIG && kind != ST_EDIT_RAISE)
        return st_error_set(err, ST_ERR_INVALID, "a level edit digs or raises (paints: st_edit_history_paint)");
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
    edit_entry e = {.rect = changed, .bytes = (size_t)(changed.x1 - changed.x0) * (size_t)(changed.y1 - changed.y0) * 2};
    e.before = malloc(e.bytes);
    e.after = malloc(e.bytes);
    if (e.before && e.after) {
        uint8_t *dst = crop(snapshot, area, changed, 1, 0, e.before); /* heights, then metadata */
        crop(snapshot, area, changed, 1, 1, dst);
        copy_rect(level, changed, e.after, false);
        r = record(h, &e, err);
    } else {
        free_entry(&e);
        r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    if (r) copy_rect(level, area, snapshot, true);
    free(snapshot);
    if (!r) *dirty = changed;
    return r;
}

st_result st_edit_history_paint(st_edit_history *h, st_control_map *map, float cx, float cy, float radius,
                                uint8_t material, float strength, st_rect *dirty, st_error *err) {
    *dirty = (st_rect){0};
    if (!map) return st_error_set(err, ST_ERR_INVALID, "no control map to paint (textured shading makes one)");
    if (!(radius >= 0.5f && radius <= 4096.0f) || !isfinite(cx) || !isfinite(cy) || fabsf(cx) > 1e7f ||
        fabsf(cy) > 1e7f || !(strength > 0.0f && strength <= 1.0f))
        return st_error_set(err, ST_ERR_INVALID, "paint at (%g, %g) radius %g strength %g: want a finite centre, "
                            "radius 0.5..4096, strength in (0, 1]", (double)cx, (double)cy, (double)radius,
                            (double)strength);
    /* the brush's box as st_control_map_paint bounds it, clipped */
    st_rect area = {(int)floorf(cx - radius), (int)floorf(cy - radius), (int)ceilf(cx + radius) + 1,
                    (int)ceilf(cy + radius) + 1};
    if (area.x0 < 0) area.x0 = 0;
    if (area.y0 < 0) area.y0 = 0;
    if (area.x1 > (int32_t)map->width) area.x1 = (int32_t)map->width;
    if (area.y1 > (int32_t)map->height) area.y1 = (int32_t)map->height;
    if (st_rect_empty(area))
        return st_error_set(err, ST_ERR_INVALID, "paint centre (%.0f,%.0f) is outside the %ux%u control map",
                            (double)cx, (double)cy, map->width, map->height);
    uint8_t *snapshot = malloc((size_t)(area.x1 - area.x0) * (size_t)(area.y1 - area.y0) * 4);
    if (!snapshot) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    st_control_map_read_rect(map, area, snapshot);
    st_rect changed;
    st_control_map_paint(map, cx, cy, radius, material, strength, &changed);
    if (st_rect_empty(changed)) {
        free(snapshot);
        return ST_OK;
    }
    edit_entry e = {.rect = changed, .control = true,
                    .bytes = (size_t)(changed.x1 - changed.x0) * (size_t)(changed.y1 - changed.y0) * 4};
    e.before = malloc(e.bytes);
    e.after = malloc(e.bytes);
    st_result r;
    if (e.before && e.after) {
        crop(snapshot, area, changed, 4, 0, e.before);
        st_control_map_read_rect(map, changed, e.after);
        r = record(h, &e, err);
    } else {
        free_entry(&e);
        r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    if (r) st_control_map_write_rect(map, area, snapshot);
    free(snapshot);
    if (!r) *dirty = changed;
    return r;
}

/* Puts one side of entry e into its target; false (nothing changed) when a paint has no map of its size. */
static bool put(edit_entry *e, st_level *level, st_control_map *control, bool after) {
    if (e->control) {
        if (!control || (uint32_t)e->rect.x1 > control->width || (uint32_t)e->rect.y1 > control->height) return false;
        st_control_map_write_rect(control, e->rect, after ? e->after : e->before);
    } else {
        if (!level) return false;
        copy_rect(level, e->rect, after ? e->after : e->before, true);
    }
    return true;
}

bool st_edit_history_undo(st_edit_history *h, st_level *level, st_control_map *control, st_rect *dirty,
                          bool *of_control) {
    if (!h->applied || !put(&h->entries[h->applied - 1], level, control, false)) return false;
    edit_entry *e = &h->entries[--h->applied];
    *dirty = e->rect;
    if (of_control) *of_control = e->control;
    return true;
}

bool st_edit_history_redo(st_edit_history *h, st_level *level, st_control_map *control, st_rect *dirty,
                          bool *of_control) {
    if (h->applied == h->count || !put(&h->entries[h->applied], level, control, true)) return false;
    edit_entry *e = &h->entries[h->applied++];
    *dirty = e->rect;
    if (of_control) *of_control = e->control;
    return true;
}

size_t st_edit_history_undo_count(const st_edit_history *h) { return h->applied; }
size_t st_edit_history_redo_count(const st_edit_history *h) { return h->count - h->applied; }
bool st_edit_history_unsaved(const st_edit_history *h) { return current_id(h) != h->saved_id; }
void st_edit_history_mark_saved(st_edit_history *h) { h->saved_id = current_id(h); }
