/* Painted on the seam: camera-facing bar faces per ground cell (shaders/methods/paint.vert, paint.frag), the
 * CPU listing the frustum's 16×16-texel tiles nearest first and merging far cells into 2×2 or 4×4 blocks;
 * `paint-plain` draws every tile of the ground bounds whole. The CPU side is the native method's
 * (src/render/methods/paint.c); the tile list is a list texture (ST_GB_LIST_WIDTH a row) where the native
 * method has a storage buffer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "methods/methods.h"

#define PAINT_TILE 16u
#define PAINT_MAX_LOD 2u
#define PAINT_TOP 256.0f
#define PAINT_MAX_TILES (1u << 22) /* rows of the list texture stay within 4096 */
/* Instances a draw takes as a run of vertices (the shaders are built with ST_NO_INSTANCING: SwiftShader, the
 * browser's CPU rasteriser, makes each instance of an instanced draw a draw of its own, and paint-plain has a
 * million). 4096 instances of 16 vertices: the largest run 16-bit indices number. */
#define PAINT_RUN 4096u

typedef struct paint_push { /* std140 mirror of PaintPush */
    uint32_t tile_base, lod, hidden_sides, run_base;
} paint_push;

typedef struct paint_tile {
    int32_t x0, y0, flags, pad;
} paint_tile;

typedef struct paint_state {
    bool plain;
    st_gb_program program;
    st_gb_buffer indices;
    st_gb_texture list;        /* the frame's tiles */
    uint32_t list_rows;        /* rows of the list texture */
    paint_tile *upload;        /* the frame's tiles, whole rows */
    uint8_t *tile_hi, *tile_dual;
    uint32_t tiles_x, tiles_y;
    paint_tile *lists[PAINT_MAX_LOD + 1];
    uint32_t list_capacity;
    uint32_t counts[PAINT_MAX_LOD + 1];
} paint_state;

/* Brings the height tiles under rect up to date. */
static void paint_tiles_update(void *state, const st_level *l, st_rect rect) {
    paint_state *s = state;
    if (st_rect_empty(rect)) return;
    uint32_t tw = l->width / s->tiles_x, th = l->height / s->tiles_y;
    for (uint32_t ty = (uint32_t)rect.y0 / th; ty <= (uint32_t)(rect.y1 - 1) / th; ty++)
        for (uint32_t tx = (uint32_t)rect.x0 / tw; tx <= (uint32_t)(rect.x1 - 1) / tw; tx++) {
            uint8_t hi = 0, dual = 0;
            for (uint32_t y = ty * th; y < (ty + 1) * th; y++) {
                const uint8_t *row = st_level_height_row(l, y) + tx * tw;
                const uint8_t *meta = st_level_meta_row(l, y) + tx * tw;
                for (uint32_t x = 0; x < tw; x++) hi = row[x] > hi ? row[x] : hi;
                for (uint32_t x = 0; x < tw; x += 2) dual |= meta[x] & ST_META_DUAL;
            }
            s->tile_hi[ty * s->tiles_x + tx] = hi;
            s->tile_dual[ty * s->tiles_x + tx] = dual ? 1 : 0;
        }
}

static st_result paint_level_updated(st_gb *b, void *state, const st_level *l, st_rect rect, st_error *err) {
    (void)b, (void)err;
    paint_tiles_update(state, l, rect);
    return ST_OK;
}

static void paint_destroy(st_gb *b, void *state) {
    paint_state *s = state;
    if (!s) return;
    b->ops->program_destroy(b, s->program);
    b->ops->buffer_destroy(b, s->indices);
    b->ops->texture_destroy(b, s->list);
    for (uint32_t k = 0; k <= PAINT_MAX_LOD; k++) free(s->lists[k]);
    free(s->upload);
    free(s->tile_hi);
    free(s->tile_dual);
    free(s);
}

/* Makes the lists and the list texture hold at least n tiles. */
static st_result ensure_tiles(st_gb *b, paint_state *s, uint32_t n, st_error *err) {
    if (n <= s->list_capacity) return ST_OK;
    uint32_t cap = s->list_capacity ? s->list_capacity : ST_GB_LIST_WIDTH;
    while (cap < n) cap *= 2;
    for (uint32_t k = 0; k <= PAINT_MAX_LOD; k++) {
        paint_tile *p = realloc(s->lists[k], (size_t)cap * sizeof *p);
        if (!p) return st_error_set(err, ST_ERR_NOMEM, "out of memory (paint tile lists)");
        s->lists[k] = p;
    }
    paint_tile *u = realloc(s->upload, (size_t)cap * sizeof *u);
    if (!u) return st_error_set(err, ST_ERR_NOMEM, "out of memory (paint tile lists)");
    s->upload = u;
    b->ops->texture_destroy(b, s->list);
    s->list = 0;
    s->list_rows = cap / ST_GB_LIST_WIDTH;
    st_gb_texture_desc d = {.width = ST_GB_LIST_WIDTH, .height = s->list_rows, .format = ST_GB_RGBA32_SINT};
    st_result r = b->ops->texture_create(b, &d, &s->list, err);
    if (!r) s->list_capacity = cap;
    return r;
}

static st_result create_common(st_gb *b, const st_level *l, void **out, bool plain, st_error *err) {
    paint_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->plain = plain;
    s->tiles_x = l->width < PAINT_TILE ? 1 : l->width / PAINT_TILE;
    s->tiles_y = l->height < PAINT_TILE ? 1 : l->height / PAINT_TILE;
    s->tile_hi = malloc((size_t)s->tiles_x * s->tiles_y);
    s->tile_dual = malloc((size_t)s->tiles_x * s->tiles_y);
    if (!s->tile_hi || !s->tile_dual) return st_error_set(err, ST_ERR_NOMEM, "out of memory (paint height tiles)");
    paint_tiles_update(s, l, (st_rect){0, 0, (int32_t)l->width, (int32_t)l->height});
    /* corner bit k: 0 = the camera side of axis k; the three faces through corner 0, for both bars */
    static const uint16_t faces[18] = {0, 2, 6, 0, 6, 4, 0, 1, 5, 0, 5, 4, 0, 1, 3, 0, 3, 2};
    uint16_t *idx = malloc(PAINT_RUN * 36 * sizeof *idx);
    if (!idx) return st_error_set(err, ST_ERR_NOMEM, "out of memory (paint indices)");
    for (uint32_t n = 0; n < PAINT_RUN; n++) /* instance n of a run: vertices n * 16 .. n * 16 + 15 */
        for (int i = 0; i < 18; i++) {
            idx[n * 36 + (uint32_t)i] = (uint16_t)(n * 16 + faces[i]);
            idx[n * 36 + 18 + (uint32_t)i] = (uint16_t)(n * 16 + faces[i] + 8);
        }
    st_result r = b->ops->index_buffer_create(b, idx, PAINT_RUN * 36, &s->indices, err);
    free(idx);
    if (!r) r = ensure_tiles(b, s, ST_GB_LIST_WIDTH, err);
    if (r) return r;
    st_gb_program_desc d = {.vertex = "paint.vert", .fragment = "paint.frag", .depth_write = true};
    return b->ops->program_create(b, &d, &s->program, err);
}

static st_result paint_create(st_gb *b, const st_level *l, uint32_t knob, void **out, st_error *err) {
    (void)knob;
    return create_common(b, l, out, false, err);
}
static st_result paint_plain_create(st_gb *b, const st_level *l, uint32_t knob, void **out, st_error *err) {
    (void)knob;
    return create_common(b, l, out, true, err);
}

static uint32_t tile_lod(const st_view *v, const float lo[3], const float hi[3]) {
    float d2 = 0;
    for (int a = 0; a < 3; a++) {
        float e = v->eye[a] < lo[a] ? lo[a] - v->eye[a] : v->eye[a] > hi[a] ? v->eye[a] - hi[a] : 0.0f;
        d2 += e * e;
    }
    float cells_per_px = sqrtf(d2) / v->focal_px;
    uint32_t k = 0;
    while (k < PAINT_MAX_LOD && (float)(2u << k) <= cells_per_px) k++;
    return k;
}

static void paint_record(st_gb *b, void *state, const st_gb_frame *fr) {
    paint_state *s = state;
    st_view v = fr->view;
    const st_level *l = fr->level;
    float bb[4];
    bool any = st_view_ground_bounds(&v, 0.0f, PAINT_TOP, bb);
    memset(s->counts, 0, sizeof s->counts);
    if (any) {
        const float T = (float)PAINT_TILE;
        int64_t tx0 = (int64_t)floorf(bb[0] / T), tx1 = (int64_t)floorf(bb[2] / T);
        int64_t ty0 = (int64_t)floorf(bb[1] / T), ty1 = (int64_t)floorf(bb[3] / T);
        if (!l->wrap_x) tx0 = tx0 < 0 ? 0 : tx0, tx1 = tx1 >= (int64_t)s->tiles_x ? (int64_t)s->tiles_x - 1 : tx1;
        if (!l->wrap_y) ty0 = ty0 < 0 ? 0 : ty0, ty1 = ty1 >= (int64_t)s->tiles_y ? (int64_t)s->tiles_y - 1 : ty1;
        if (tx1 < tx0 || ty1 < ty0) any = false, tx1 = tx0 - 1, ty1 = ty0 - 1;
        uint64_t total = (uint64_t)(tx1 - tx0 + 1) * (uint64_t)(ty1 - ty0 + 1);
        st_error err = {0};
        if (total > PAINT_MAX_TILES || ensure_tiles(b, s, (uint32_t)total, &err)) any = false; /* nothing, not a part */
        st_frustum f = st_view_frustum(&v);
        int64_t cx = (int64_t)floorf(v.eye[0] / T), cy = (int64_t)floorf(v.eye[1] / T);
        cx = cx < tx0 ? tx0 : cx > tx1 ? tx1 : cx;
        cy = cy < ty0 ? ty0 : cy > ty1 ? ty1 : cy;
        int64_t rings = 0;
        int64_t ext[4] = {cx - tx0, tx1 - cx, cy - ty0, ty1 - cy};
        for (int k = 0; k < 4; k++) rings = ext[k] > rings ? ext[k] : rings;
        for (int64_t ring = 0; any && ring <= rings; ring++)
            for (int64_t ty = cy - ring; ty <= cy + ring; ty++) {
                if (ty < ty0 || ty > ty1) continue;
                bool edge_row = ty == cy - ring || ty == cy + ring;
                for (int64_t tx = cx - ring; tx <= cx + ring; tx += edge_row ? 1 : 2 * ring) {
                    if (tx >= tx0 && tx <= tx1) {
                        uint32_t wx = (uint32_t)(((tx % s->tiles_x) + s->tiles_x) % s->tiles_x);
                        uint32_t wy = (uint32_t)(((ty % s->tiles_y) + s->tiles_y) % s->tiles_y);
                        float lo[3] = {(float)tx * T, (float)ty * T, 0.0f};
                        float hi[3] = {lo[0] + T, lo[1] + T, (float)s->tile_hi[wy * s->tiles_x + wx]};
                        if (s->plain || st_frustum_meets_box(&f, lo, hi)) {
                            uint32_t k = s->plain ? 0 : tile_lod(&v, lo, hi);
                            float dx = v.eye[0] - (lo[0] + 0.5f * T), dy = v.eye[1] - (lo[1] + 0.5f * T);
                            int32_t flags = (dx > 0 ? 1 : 0) | (dy > 0 ? 2 : 0) | (fabsf(dx) > fabsf(dy) ? 4 : 0) |
                                            (s->tile_dual[wy * s->tiles_x + wx] ? 8 : 0);
                            s->lists[k][s->counts[k]++] = (paint_tile){(int32_t)(tx * (int64_t)PAINT_TILE),
                                                                       (int32_t)(ty * (int64_t)PAINT_TILE), flags, 0};
                        }
                    }
                    if (ring == 0) break;
                }
            }
    }
    uint32_t base[PAINT_MAX_LOD + 1], n = 0;
    for (uint32_t k = 0; k <= PAINT_MAX_LOD; k++) {
        base[k] = n;
        if (s->counts[k]) memcpy(s->upload + n, s->lists[k], s->counts[k] * sizeof(paint_tile));
        n += s->counts[k];
    }
    if (!n) return;
    uint32_t rows = (n + ST_GB_LIST_WIDTH - 1) / ST_GB_LIST_WIDTH;
    memset(s->upload + n, 0, ((size_t)rows * ST_GB_LIST_WIDTH - n) * sizeof(paint_tile)); /* whole rows */
    b->ops->texture_write(b, s->list, 0, 0, 0, ST_GB_LIST_WIDTH, rows, s->upload);
    b->ops->bind_texture(b, 1, 0, s->list);
    for (uint32_t k = 0; k <= PAINT_MAX_LOD; k++) {
        if (!s->counts[k]) continue;
        uint32_t blocks = (PAINT_TILE >> k) * (PAINT_TILE >> k), instances = s->counts[k] * blocks;
        for (uint32_t run = 0; run < instances; run += PAINT_RUN) {
            uint32_t count = instances - run < PAINT_RUN ? instances - run : PAINT_RUN;
            paint_push pc = {.tile_base = base[k], .lod = k, .hidden_sides = !s->plain, .run_base = run};
            b->ops->uniforms(b, ST_GB_PUSH_SET, 0, &pc, sizeof pc);
            b->ops->draw(b, &(st_gb_draw){.program = s->program, .vertex_count = 36 * count, .instance_count = 1,
                                          .indices = s->indices});
        }
    }
}

const st_gb_method st_gb_method_paint = {
    .name = "paint",
    .description = "camera-facing bar faces per ground cell, frustum-culled tiles, merged far cells",
    .create = paint_create,
    .destroy = paint_destroy,
    .record = paint_record,
    .level_updated = paint_level_updated,
};

const st_gb_method st_gb_method_paint_plain = {
    .name = "paint-plain",
    .description = "the paper's Painted footprint: every cell of the ground bounds, nearest first",
    .create = paint_plain_create,
    .destroy = paint_destroy,
    .record = paint_record,
    .level_updated = paint_level_updated,
};
