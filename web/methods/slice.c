/* Sliced on the seam: N horizontal quads in one instanced draw (shaders/methods/slice.vert, slice.frag or
 * slice_plain.frag). The CPU side is the native method's (src/render/methods/slice.c): per-view planes over the
 * heights the ground bounds hold, from min/max height tiles; `slice-plain` spans [0, 256], top first. Until
 * the native method moves onto the seam (docs/web.md) the two share the shaders and this logic is its twin. */
#include <math.h>
#include <stdlib.h>

#include "methods/methods.h"

#define SLICE_TOP 256.0f
#define SLICE_TILE 64u
#define SLICE_MAX_STEPS 64u
#define SLICE_DEFAULT 512u

/* std140 mirror of SlicePush in slice.vert / slice.frag */
typedef struct slice_push {
    float bounds[4];
    float z_below, z_above, dz, pad0;
    uint32_t n_below, n_above, max_steps, pad;
} slice_push;

typedef struct slice_state {
    bool plain;
    st_gb_program program;
    uint8_t *tile_lo, *tile_hi;
    uint32_t tile_w, tile_h, tiles_x, tiles_y;
} slice_state;

static void tile_stats(slice_state *s, const st_level *l, uint32_t tx, uint32_t ty) {
    uint8_t lo = 255, hi = 0;
    for (uint32_t y = ty * s->tile_h; y < (ty + 1) * s->tile_h; y++) {
        const uint8_t *row = st_level_height_row(l, y);
        for (uint32_t x = tx * s->tile_w; x < (tx + 1) * s->tile_w; x++) {
            lo = row[x] < lo ? row[x] : lo;
            hi = row[x] > hi ? row[x] : hi;
        }
    }
    s->tile_lo[ty * s->tiles_x + tx] = lo;
    s->tile_hi[ty * s->tiles_x + tx] = hi;
}

/* Brings the height tiles under rect up to date. */
static void slice_tiles_update(void *state, const st_level *l, st_rect rect) {
    slice_state *s = state;
    if (!s->tile_lo || st_rect_empty(rect)) return;
    for (uint32_t ty = (uint32_t)rect.y0 / s->tile_h; ty <= (uint32_t)(rect.y1 - 1) / s->tile_h; ty++)
        for (uint32_t tx = (uint32_t)rect.x0 / s->tile_w; tx <= (uint32_t)(rect.x1 - 1) / s->tile_w; tx++)
            tile_stats(s, l, tx, ty);
}

static st_result slice_level_updated(st_gb *b, void *state, const st_level *l, st_rect rect, st_error *err) {
    (void)b, (void)err;
    slice_tiles_update(state, l, rect);
    return ST_OK;
}

static void slice_destroy(st_gb *b, void *state) {
    slice_state *s = state;
    if (!s) return;
    b->ops->program_destroy(b, s->program);
    free(s->tile_lo);
    free(s->tile_hi);
    free(s);
}

static st_result create_common(st_gb *b, const st_level *l, void **out, bool plain, st_error *err) {
    slice_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->plain = plain;
    s->tile_w = l->width < SLICE_TILE ? l->width : SLICE_TILE;
    s->tile_h = l->height < SLICE_TILE ? l->height : SLICE_TILE;
    s->tiles_x = l->width / s->tile_w;
    s->tiles_y = l->height / s->tile_h;
    if (!plain) {
        size_t n = (size_t)s->tiles_x * s->tiles_y;
        s->tile_lo = malloc(n);
        s->tile_hi = malloc(n);
        if (!s->tile_lo || !s->tile_hi) return st_error_set(err, ST_ERR_NOMEM, "out of memory (slice height tiles)");
        slice_tiles_update(s, l, (st_rect){0, 0, (int32_t)l->width, (int32_t)l->height});
    }
    st_gb_program_desc d = {.vertex = "slice.vert",
                            .fragment = plain ? "slice_plain.frag" : "slice.frag",
                            .depth_compare = plain ? ST_GB_GREATER : ST_GB_GREATER_OR_EQUAL,
                            .depth_write = true};
    return b->ops->program_create(b, &d, &s->program, err);
}

static st_result slice_create(st_gb *b, const st_level *l, uint32_t knob, void **out, st_error *err) {
    (void)knob;
    return create_common(b, l, out, false, err);
}
static st_result slice_plain_create(st_gb *b, const st_level *l, uint32_t knob, void **out, st_error *err) {
    (void)knob;
    return create_common(b, l, out, true, err);
}

static void height_range(const slice_state *s, const st_level *level, const float b[4], float *lo, float *hi) {
    int64_t tx0 = (int64_t)floorf(b[0] / (float)s->tile_w), tx1 = (int64_t)floorf(b[2] / (float)s->tile_w);
    int64_t ty0 = (int64_t)floorf(b[1] / (float)s->tile_h), ty1 = (int64_t)floorf(b[3] / (float)s->tile_h);
    if (!level->wrap_x && tx1 >= (int64_t)s->tiles_x) tx1 = s->tiles_x - 1;
    if (!level->wrap_y && ty1 >= (int64_t)s->tiles_y) ty1 = s->tiles_y - 1;
    if (tx1 - tx0 >= (int64_t)s->tiles_x) tx0 = 0, tx1 = s->tiles_x - 1;
    if (ty1 - ty0 >= (int64_t)s->tiles_y) ty0 = 0, ty1 = s->tiles_y - 1;
    uint8_t l = 255, h = 0;
    for (int64_t ty = ty0; ty <= ty1; ty++) {
        uint32_t row = (uint32_t)(((ty % s->tiles_y) + s->tiles_y) % s->tiles_y) * s->tiles_x;
        for (int64_t tx = tx0; tx <= tx1; tx++) {
            uint32_t i = row + (uint32_t)(((tx % s->tiles_x) + s->tiles_x) % s->tiles_x);
            l = s->tile_lo[i] < l ? s->tile_lo[i] : l;
            h = s->tile_hi[i] > h ? s->tile_hi[i] : h;
        }
    }
    *lo = (float)l;
    *hi = (float)h;
}

static bool clip_to_level(const st_level *l, float b[4]) {
    if (!l->wrap_x) b[0] = fmaxf(b[0], 0.0f), b[2] = fminf(b[2], (float)l->width);
    if (!l->wrap_y) b[1] = fmaxf(b[1], 0.0f), b[3] = fminf(b[3], (float)l->height);
    return b[0] < b[2] && b[1] < b[3];
}

static void slice_record(st_gb *b, void *state, const st_gb_frame *f) {
    slice_state *s = state;
    st_view v = f->view;
    const st_level *l = f->level;
    uint32_t n = f->knob ? f->knob : SLICE_DEFAULT;
    slice_push pc = {.max_steps = SLICE_MAX_STEPS};
    bool any = st_view_ground_bounds(&v, 0.0f, SLICE_TOP, pc.bounds) && clip_to_level(l, pc.bounds);
    if (any && s->plain) {
        pc.dz = SLICE_TOP / (float)n;
        pc.z_below = SLICE_TOP - pc.dz;
        pc.n_below = n;
    } else if (any) {
        float lo, hi;
        height_range(s, l, pc.bounds, &lo, &hi);
        any = st_view_ground_bounds(&v, lo, hi, pc.bounds) && clip_to_level(l, pc.bounds);
        pc.dz = fmaxf(hi - lo, 1.0f) / (float)n;
        float eps = 0.01f * pc.dz, ez = v.eye[2];
        pc.z_below = fminf(ez - eps, hi);
        pc.z_above = fmaxf(ez + eps, lo);
        if (pc.z_below >= lo) pc.n_below = (uint32_t)floorf((pc.z_below - lo) / pc.dz) + 1;
        if (pc.z_above <= hi) pc.n_above = (uint32_t)floorf((hi - pc.z_above) / pc.dz) + 1;
    }
    if (any && pc.n_below + pc.n_above > 0) {
        b->ops->uniforms(b, ST_GB_PUSH_SET, 0, &pc, sizeof pc);
        b->ops->draw(b, &(st_gb_draw){.program = s->program, .vertex_count = 6, .instance_count = pc.n_below + pc.n_above});
    }
}

const st_gb_method st_gb_method_slice = {
    .name = "slice",
    .description = "horizontal slices over the view's height range, refined to the surface along each ray",
    .create = slice_create,
    .destroy = slice_destroy,
    .record = slice_record,
    .level_updated = slice_level_updated,
};

const st_gb_method st_gb_method_slice_plain = {
    .name = "slice-plain",
    .description = "the paper's Sliced: N fixed slices over [0, 256], top first",
    .create = slice_plain_create,
    .destroy = slice_destroy,
    .record = slice_record,
    .level_updated = slice_level_updated,
};
