/* Geometry clipmaps over a tile store (Losasso & Hoppe; the GPU form of Asirvatham & Hoppe), drawn two ways that
 * share the levels' height windows, the footprints and the vertex function (shaders/common/clipmap_vertex.glsl):
 * `clipmap` rasterises one instanced draw per footprint shape, `clipmap-compute` rasterises the same triangles in
 * compute into a 64-bit visibility buffer (src/render/vis_raster.c). Each level's window is updated toroidally on
 * the GPU from the tile slots the residency manager keeps: only the samples it newly covers, and those whose tile
 * has just arrived. The layout is src/tiles/clipmap.c; docs/clipmap.md describes the method. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/store_method.h"
#include "strata/clipmap.h"

#define CLIP_FALLBACK_CAP 64u
#define CLIP_MAX_PIECES (32u * ST_CLIPMAP_MAX_LEVELS)

/* std140 mirror of ClipFrame in shaders/common/clipmap_vertex.glsl */
typedef struct clip_frame_gpu {
    int32_t window[ST_CLIPMAP_MAX_LEVELS][4];
    float eye_level[ST_CLIPMAP_MAX_LEVELS][4];
    int32_t level_last[ST_CLIPMAP_MAX_LEVELS][4];
    uint32_t shape[ST_CLIP_SHAPES][4];
    uint32_t shape_tris[ST_CLIP_SHAPES][4];
    int32_t anchor[4];
    int32_t world_last[4];
    uint32_t info[4];
} clip_frame_gpu;

/* std430 mirror of ClipFill in shaders/methods/clipmap_update.comp */
typedef struct clip_fill_gpu {
    int32_t rect[4]; /* x0, y0 (absolute level samples), width, first invocation */
    int32_t src[4];  /* slot or −1, the tile's sample (0, 0) in its level's samples, unused */
} clip_fill_gpu;

/* Mirror of ClipFillPush */
typedef struct clip_fill_push {
    uint32_t level, first, count, texels;
} clip_fill_push;

/* What the GPU holds of one level (committed when a frame's update is recorded). */
typedef struct clip_level {
    bool have;            /* the heights hold the window at origin */
    int64_t origin[2];    /* absolute level samples */
    st_tile_key fallback[CLIP_FALLBACK_CAP]; /* tiles whose part of the window came from the coarser level */
    uint32_t fallback_count;
} clip_level;

typedef struct clip_fill_level {
    uint32_t first, count, texels;
} clip_fill_level;

typedef struct clipmap_state {
    bool compute;
    bool ready;                 /* geometry and buffers made (at the first frame: n and the levels need the view) */
    float made_far, made_focal; /* the view they were made for */
    st_clipmap_geom geom;
    uint32_t N;                 /* texture side n + 1 */
    st_lod_world world;         /* the store's levels, spacing, δ and tile bounds */
    clip_level lv[ST_CLIPMAP_MAX_LEVELS];
    bool warned;
    /* this frame */
    int64_t origin[ST_CLIPMAP_MAX_LEVELS][2];
    uint32_t finest;
    st_clipmap_piece pieces[CLIP_MAX_PIECES];
    uint32_t piece_count, shape_first[ST_CLIP_SHAPES], shape_count[ST_CLIP_SHAPES];
    uint64_t triangles;
    clip_fill_gpu *fills;
    uint32_t fill_count, fill_cap;
    clip_fill_level fill_level[ST_CLIPMAP_MAX_LEVELS];
    uint64_t texels_updated;
    st_lod_frame_stats stats;
    st_view frozen;             /* freeze_culling: the view the layout stays at (the first frame's) */
    bool have_frozen;
    /* GPU */
    st_gpu_buffer heights, piece_buf, clip_ubo, tile_ubo, fill_buf, index;
    uint32_t index_first[ST_CLIP_SHAPES], index_count[ST_CLIP_SHAPES];
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
    VkPipelineLayout layout, fill_layout;
    VkPipeline patch_pipeline, edge_pipeline, fill_pipeline;
    /* raster, textured shading: the pieces write their points into the G-buffer, one resolve shades them */
    bool deferred;
    st_deferred gbuffer;
    st_store_compute cs; /* clipmap-compute */
} clipmap_state;

static void clipmap_destroy(st_renderer *r, void *state) {
    clipmap_state *s = state;
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    VkPipeline pipes[] = {s->patch_pipeline, s->edge_pipeline, s->fill_pipeline};
    for (size_t i = 0; i < sizeof pipes / sizeof pipes[0]; i++)
        if (pipes[i]) vkDestroyPipeline(dev, pipes[i], NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->fill_layout) vkDestroyPipelineLayout(dev, s->fill_layout, NULL);
    if (s->set_layout) vkDestroyDescriptorSetLayout(dev, s->set_layout, NULL);
    st_store_compute_destroy(r, &s->cs);
    st_deferred_destroy(r, &s->gbuffer);
    st_gpu_buffer *bufs[] = {&s->heights, &s->piece_buf, &s->clip_ubo, &s->tile_ubo, &s->fill_buf, &s->index};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) st_gpu_buffer_destroy(gpu, bufs[i]);
    free(s->fills);
    free(s);
}

/* The method's set: the tile pool's slots, the slot and page tables, the tile world's and the clipmap's
 * uniforms, the heights, the footprints, the fill rectangles; the compute variant adds the visibility buffer
 * and the big-triangle queue. Returns the binding count. */
static uint32_t set_bindings(const st_renderer *r, const clipmap_state *s, st_gpu_binding b[10]) {
    st_store_method_world_bindings(r, b);
    const VkBuffer buffers[5] = {s->tile_ubo.buffer, s->clip_ubo.buffer, s->heights.buffer, s->piece_buf.buffer,
                                 s->fill_buf.buffer};
    for (uint32_t i = 0; i < 5; i++)
        b[3 + i] = (st_gpu_binding){.type = i < 2 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                    .stages = VK_SHADER_STAGE_ALL,
                                    .buffer = buffers[i]};
    if (!s->compute) return 8;
    st_store_compute_bindings(&s->cs, b + 8);
    return 10;
}

/* The index buffer: every shape's triangles, counter-clockwise seen from above in the map's frame like cdlod's
 * (quad (a, b, c, d) as (a, b, c) and (a, c, d): every diagonal runs from low x, low y to high x, high y, so a
 * finer level's triangles lie inside the coarser level's); the edge strips as (v_2k, v_2k+1, v_2k+2). */
static st_result create_index_buffer(st_renderer *r, clipmap_state *s, st_error *err) {
    const st_clipmap_geom *g = &s->geom;
    uint32_t total = 0;
    for (uint32_t k = 0; k < ST_CLIP_SHAPES; k++) {
        s->index_first[k] = total;
        s->index_count[k] = 3 * st_clipmap_shape_triangles(g, (st_clipmap_shape)k);
        total += s->index_count[k];
    }
    uint16_t *ix;
    st_result res = st_store_method_index_begin(r, total, &s->index, &ix, err);
    if (res) return res;
    uint32_t k = 0;
    for (uint32_t sh = 0; sh < ST_CLIP_SHAPES; sh++) {
        uint32_t w, h;
        st_clipmap_shape_size(g, (st_clipmap_shape)sh, &w, &h);
        if (sh == ST_CLIP_EDGE_H || sh == ST_CLIP_EDGE_V) {
            for (uint32_t t = 0; t < (g->n - 1) / 2; t++)
                ix[k++] = (uint16_t)(2 * t), ix[k++] = (uint16_t)(2 * t + 1), ix[k++] = (uint16_t)(2 * t + 2);
            continue;
        }
        for (uint32_t j = 0; j + 1 < h; j++)
            for (uint32_t i = 0; i + 1 < w; i++) {
                uint16_t a = (uint16_t)(j * w + i), b = (uint16_t)(a + 1), c = (uint16_t)(a + w + 1), d = (uint16_t)(a + w);
                ix[k++] = a, ix[k++] = b, ix[k++] = c;
                ix[k++] = a, ix[k++] = c, ix[k++] = d;
            }
    }
    return st_store_method_index_upload(r, &s->index, err);
}

static st_result create_common(st_renderer *r, clipmap_state *s, st_error *err) {
    st_engine *e = r->engine;
    st_gpu *gpu = e->gpu;
    uint32_t n = r->desc.knobs.clip_n;
    if (n && (n < ST_CLIPMAP_MIN_N || n > ST_CLIPMAP_MAX_N))
        return st_error_set(err, ST_ERR_INVALID, "%s: a grid of %u vertices (4m − 1, %u..%u)", r->ops->info.name, n,
                            ST_CLIPMAP_MIN_N, ST_CLIPMAP_MAX_N);
    st_result res = st_store_method_world(r, 0, &s->world, err);
    if (res) return res;
    res = st_gpu_buffer_create(gpu, sizeof(clip_frame_gpu), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true, &s->clip_ubo, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, sizeof(st_store_frame_gpu), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true, &s->tile_ubo, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, CLIP_MAX_PIECES * 8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, &s->piece_buf, err);
    s->fill_cap = 256;
    s->fills = malloc(s->fill_cap * sizeof *s->fills);
    if (!res && !s->fills) res = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (!res)
        res = st_gpu_buffer_create(gpu, s->fill_cap * sizeof(clip_fill_gpu), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true,
                                   &s->fill_buf, err);
    /* a stand-in until the first frame sizes the heights */
    if (!res)
        res = st_gpu_buffer_create(gpu, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false,
                                   &s->heights, err);
    if (!res && s->compute) res = st_store_compute_buffers(r, &s->cs, err);
    if (res) return res;
    st_gpu_binding b[10];
    uint32_t count = set_bindings(r, s, b);
    res = st_gpu_set_layout(gpu, b, count, &s->set_layout, err);
    if (!res) res = st_renderer_alloc_set(r, s->set_layout, &s->set, err);
    if (!res) st_gpu_set_write(gpu, s->set, b, count);
    VkDescriptorSetLayout sets[2] = {s->set_layout, VK_NULL_HANDLE};
    if (!res) res = st_renderer_pipeline_layout(r, sets, 1, sizeof(clip_fill_push), &s->fill_layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "clipmap_update.comp", s->fill_layout, &s->fill_pipeline, err);
    return res;
}

/* Whether the raster variant defers its textured shading (st_deferred_wanted): not with the wireframe overlay, which
 * the fragment shader draws from the grid's screen derivatives. */
static bool clipmap_defers(const st_renderer *r) { return st_deferred_wanted(r) && !r->desc.wireframe; }

static VkImageUsageFlags clipmap_target_usage(const st_renderer *r) {
    return clipmap_defers(r) ? st_deferred_target_usage(r) : 0;
}

static st_result clipmap_create(st_renderer *r, void **out, st_error *err) {
    clipmap_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_result res = create_common(r, s, err);
    s->deferred = clipmap_defers(r);
    st_deferred_desc dd = {.resolve = "clipmap_deferred.comp", .method_layout = s->set_layout, .method_set = s->set};
    if (!res && s->deferred) res = st_deferred_create(r, &dd, &s->gbuffer, err);
    if (!res) res = st_renderer_pipeline_layout(r, &s->set_layout, 1, 0, &s->layout, err);
    if (res) return res;
    /* single-sided like cdlod's patches (FRONT in the map's frame); the zero-area edge strips have no side */
    st_gpu_graphics_desc d = {.vertex = "clipmap.vert",
                              .fragment = s->deferred ? "clipmap_gbuffer.frag" : "clipmap.frag",
                              .layout = s->layout,
                              .color_format = s->deferred ? s->gbuffer.point.format : r->color.format,
                              .depth_format = r->depth.format,
                              .depth_write = true,
                              .cull = VK_CULL_MODE_FRONT_BIT};
    res = st_gpu_graphics_pipeline(r->engine->gpu, &d, &s->patch_pipeline, err);
    if (!res) {
        d.cull = VK_CULL_MODE_NONE;
        res = st_gpu_graphics_pipeline(r->engine->gpu, &d, &s->edge_pipeline, err);
    }
    return res;
}

static st_result clipmap_compute_create(st_renderer *r, void **out, st_error *err) {
    st_result res = st_store_compute_check(r, "clipmap", err);
    if (res) return res;
    clipmap_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->compute = true;
    res = create_common(r, s, err);
    if (!res) res = st_store_compute_pipelines(r, &s->cs, s->set_layout, "clipmap", &s->layout, err);
    return res;
}

/* ---- the geometry, made at the first frame (n from τ needs the focal length, the levels the far distance) ---- */

static st_result make_geometry(st_renderer *r, clipmap_state *s, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    const st_lod_world *w = &s->world;
    const st_view *v = &r->view;
    uint32_t n = r->desc.knobs.clip_n;
    if (n) n = (n + 1 + ST_CLIPMAP_N_STEP - 1) / ST_CLIPMAP_N_STEP * ST_CLIPMAP_N_STEP - 1; /* a knob doubled or halved (510): the next 4m − 1 */
    if (!n) {
        double tau = r->desc.knobs.tau_px > 0 ? r->desc.knobs.tau_px : 1.0;
        bool capped = false;
        n = st_clipmap_n_for_tau(w->delta, w->levels, fmin(w->spacing_x, w->spacing_y), v->focal_px, tau,
                                 v->far_dist, &capped);
        if (capped && !s->warned) {
            ST_WARN("%s: τ = %g px asks for a grid finer than n = %u; drawing with n = %u (its error exceeds τ)",
                    r->ops->info.name, tau, ST_CLIPMAP_MAX_N, ST_CLIPMAP_MAX_N);
            s->warned = true;
        }
    }
    st_result res = st_clipmap_geom_init(&s->geom, w->width, w->height, w->spacing_x, w->spacing_y, w->tile_intervals,
                                         w->levels, n, v->far_dist, err);
    if (res) return st_error_prefix(err, "%s", r->ops->info.name);
    s->N = n + 1;
    vkDeviceWaitIdle(gpu->device); /* nothing may read the old buffers any more */
    st_gpu_buffer_destroy(gpu, &s->heights);
    VkDeviceSize bytes = (VkDeviceSize)s->geom.levels * s->N * s->N * 8;
    res = st_gpu_buffer_create(gpu, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false,
                               &s->heights, err);
    if (!res) res = create_index_buffer(r, s, err);
    if (res) return res;
    st_gpu_binding b[10];
    uint32_t count = set_bindings(r, s, b);
    st_gpu_set_write(gpu, s->set, b, count);
    for (uint32_t l = 0; l < ST_CLIPMAP_MAX_LEVELS; l++) s->lv[l].have = false, s->lv[l].fallback_count = 0;
    s->made_far = v->far_dist;
    s->made_focal = v->focal_px;
    s->ready = true;
    return ST_OK;
}

/* ---- the frame ---------------------------------------------------------------------------------------------- */

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Level l's store level and how many times that level is decimated further (levels past the store's coarsest). */
static uint32_t store_level(const clipmap_state *s, uint32_t l, uint32_t *shift) {
    uint32_t top = s->world.levels - 1, sl = l < top ? l : top;
    *shift = l - sl;
    return sl;
}

/* Level l's last sample per axis: past it the level repeats its edge. */
static void level_last(const clipmap_state *s, uint32_t l, int64_t last[2]) {
    int64_t span = (int64_t)1 << l;
    last[0] = ((int64_t)s->world.width - 1 + span - 1) / span;
    last[1] = ((int64_t)s->world.height - 1 + span - 1) / span;
}

/* The tiles of level l's store level under the level-l sample rectangle r (clamped to the level), as a range
 * of tile indices [tx0, tx1] × [ty0, ty1]. */
static void rect_tiles(const clipmap_state *s, uint32_t l, st_clip_rect r, uint32_t t[4]) {
    uint32_t shift, sl = store_level(s, l, &shift);
    int64_t last[2];
    level_last(s, l, last);
    uint32_t nx, ny;
    st_store_level_tiles(s->world.store, sl, &nx, &ny);
    int64_t per = (int64_t)(s->world.tile_intervals >> shift); /* level-l samples per tile */
    if (per < 1) per = 1;
    int64_t x0 = clamp64(r.x0, 0, last[0]), x1 = clamp64(r.x1 - 1, 0, last[0]);
    int64_t y0 = clamp64(r.y0, 0, last[1]), y1 = clamp64(r.y1 - 1, 0, last[1]);
    t[0] = (uint32_t)clamp64(x0 / per, 0, nx - 1), t[1] = (uint32_t)clamp64(x1 / per, 0, nx - 1);
    t[2] = (uint32_t)clamp64(y0 / per, 0, ny - 1), t[3] = (uint32_t)clamp64(y1 / per, 0, ny - 1);
}

static bool tile_slot(const clipmap_state *s, st_tile_key k, uint32_t *slot) {
    *slot = ST_TILE_NO_SLOT;
    return st_residency_tile(s->world.residency, k, slot) && *slot != ST_TILE_NO_SLOT;
}

static st_clip_rect intersect(st_clip_rect a, st_clip_rect b) {
    st_clip_rect c = {a.x0 > b.x0 ? a.x0 : b.x0, a.y0 > b.y0 ? a.y0 : b.y0, a.x1 < b.x1 ? a.x1 : b.x1,
                      a.y1 < b.y1 ? a.y1 : b.y1};
    return c;
}

static bool rect_empty(st_clip_rect r) { return r.x0 >= r.x1 || r.y0 >= r.y1; }

/* The level-l samples a tile of its store level covers (whole tiles: they share their edge samples). */
static st_clip_rect tile_rect(const clipmap_state *s, uint32_t l, uint32_t tx, uint32_t ty) {
    uint32_t shift;
    store_level(s, l, &shift);
    int64_t per = (int64_t)(s->world.tile_intervals >> shift);
    if (per < 1) per = 1;
    st_clip_rect r = {(int64_t)tx * per, (int64_t)ty * per, ((int64_t)tx + 1) * per + 1, ((int64_t)ty + 1) * per + 1};
    /* the last tile of each axis also holds everything past the world's edge (the level repeats its edge there) */
    uint32_t nx, ny, sl = store_level(s, l, &shift);
    st_store_level_tiles(s->world.store, sl, &nx, &ny);
    if (tx + 1 == nx) r.x1 = INT64_MAX / 4;
    if (ty + 1 == ny) r.y1 = INT64_MAX / 4;
    if (tx == 0) r.x0 = -INT64_MAX / 4;
    if (ty == 0) r.y0 = -INT64_MAX / 4;
    return r;
}

static bool push_fill(clipmap_state *s, const clip_fill_gpu *f) {
    if (s->fill_count == s->fill_cap) {
        clip_fill_gpu *g = realloc(s->fills, 2 * s->fill_cap * sizeof *g);
        if (!g) return false;
        s->fills = g;
        s->fill_cap *= 2;
    }
    s->fills[s->fill_count++] = *f;
    return true;
}

static void add_fallback(clip_level *lv, st_tile_key k) {
    for (uint32_t i = 0; i < lv->fallback_count; i++)
        if (st_tile_key_equal(lv->fallback[i], k)) return;
    if (lv->fallback_count < CLIP_FALLBACK_CAP) lv->fallback[lv->fallback_count++] = k;
    else lv->have = false; /* too many to track: the whole level is filled again next frame */
}

/* The end (exclusive) of the run of level-l samples from x on that fall in the same tile of its store level as x
 * (a sample on a tile edge goes to the later tile; everything past the world's edges to the edge tiles). */
static int64_t tile_run_end(int64_t x, int64_t end, int64_t per, int64_t last, uint32_t tiles, uint32_t *tile) {
    int64_t c = clamp64(x, 0, last);
    uint32_t t = (uint32_t)clamp64(c / per, 0, (int64_t)tiles - 1);
    *tile = t;
    if (t + 1 == tiles) return end;
    int64_t next = ((int64_t)t + 1) * per;
    return next < end ? next : end;
}

/* Queues the fill of level-l rectangle r (within the window), split at tile edges: each piece is read from its
 * tile, or from the coarser level where the tile is not on the GPU (then remembered, to be filled again once it
 * is). Returns the texels queued. */
static uint64_t queue_fill(clipmap_state *s, uint32_t l, st_clip_rect r, clip_level *lv) {
    uint32_t shift, sl = store_level(s, l, &shift), nx, ny;
    st_store_level_tiles(s->world.store, sl, &nx, &ny);
    int64_t per = (int64_t)(s->world.tile_intervals >> shift), last[2];
    if (per < 1) per = 1;
    level_last(s, l, last);
    uint64_t texels = 0, si = s->world.tile_intervals;
    for (int64_t y0 = r.y0, y1; y0 < r.y1; y0 = y1) {
        uint32_t ty, tx;
        y1 = tile_run_end(y0, r.y1, per, last[1], ny, &ty);
        for (int64_t x0 = r.x0, x1; x0 < r.x1; x0 = x1) {
            x1 = tile_run_end(x0, r.x1, per, last[0], nx, &tx);
            st_tile_key key = {sl, tx, ty};
            uint32_t slot;
            bool own = tile_slot(s, key, &slot);
            if (!own) add_fallback(lv, key);
            uint64_t area = (uint64_t)(x1 - x0) * (uint64_t)(y1 - y0);
            clip_fill_gpu f = {.rect = {(int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0), (int32_t)s->fill_level[l].texels},
                               .src = {own ? (int32_t)slot : -1, (int32_t)(tx * si), (int32_t)(ty * si), 0}};
            if (!push_fill(s, &f)) continue;
            s->fill_level[l].count++;
            s->fill_level[l].texels += (uint32_t)area;
            texels += area;
        }
    }
    return texels;
}

/* The ground height under the eye from the finest tile the residency manager holds there; the store's lowest
 * point when none is held yet. */
static double ground_under(const clipmap_state *s, const double eye[3]) {
    const st_lod_world *w = &s->world;
    double u = eye[0] / w->spacing_x, v = eye[1] / w->spacing_y;
    u = fmin(fmax(u, 0), (double)(w->width - 1)), v = fmin(fmax(v, 0), (double)(w->height - 1));
    uint32_t si = w->tile_intervals;
    for (uint32_t l = 0; l < w->levels; l++) {
        double span = ldexp(si, (int)l);
        uint32_t nx, ny;
        st_store_level_tiles(w->store, l, &nx, &ny);
        uint32_t tx = (uint32_t)fmin(floor(u / span), nx - 1), ty = (uint32_t)fmin(floor(v / span), ny - 1);
        uint32_t slot;
        const st_tile *t = st_residency_tile(w->residency, (st_tile_key){l, tx, ty}, &slot);
        if (!t) continue;
        double a = (u - tx * span) / ldexp(1, (int)l), b = (v - ty * span) / ldexp(1, (int)l);
        uint32_t i = (uint32_t)fmin(floor(a), si - 1), j = (uint32_t)fmin(floor(b), si - 1);
        double fa = a - i, fb = b - j;
        return (st_tile_height(t, i, j) * (1 - fa) + st_tile_height(t, i + 1, j) * fa) * (1 - fb) +
               (st_tile_height(t, i, j + 1) * (1 - fa) + st_tile_height(t, i + 1, j + 1) * fa) * fb;
    }
    return st_store_get_info(w->store)->min_m;
}

/* The bounds of the finest data under the level-l sample rectangle r (grown by one sample: z_c reads the coarser
 * level's neighbours), from the tiles' index records. */
static void rect_bounds(const clipmap_state *s, uint32_t l, st_clip_rect r, double *lo, double *hi) {
    r.x0--, r.y0--, r.x1++, r.y1++;
    uint32_t t[4], shift, sl = store_level(s, l, &shift);
    rect_tiles(s, l, r, t);
    const st_store_info *in = st_store_get_info(s->world.store);
    *lo = INFINITY, *hi = -INFINITY;
    for (uint32_t ty = t[2]; ty <= t[3]; ty++)
        for (uint32_t tx = t[0]; tx <= t[1]; tx++) {
            float a, b;
            if (!s->world.tile_bounds || !s->world.tile_bounds(&s->world, (st_tile_key){sl, tx, ty}, &a, &b))
                a = (float)in->min_m, b = (float)in->max_m;
            *lo = fmin(*lo, a), *hi = fmax(*hi, b);
        }
}

/* Whether a box (relative to the eye) lies wholly outside one plane of the view's frustum. */
static bool box_outside(const st_view *v, const double lo[3], const double hi[3]) {
    double f[3] = {v->forward[0], v->forward[1], v->forward[2]}, rt[3] = {v->screen_right[0], v->screen_right[1], v->screen_right[2]},
           up[3] = {v->screen_up[0], v->screen_up[1], v->screen_up[2]};
    double hx = 0.5 * v->width / v->focal_px, hy = 0.5 * v->height / v->focal_px;
    /* plane normals pointing out: p outside when dot(p, n) > d */
    double planes[6][4];
    for (int k = 0; k < 3; k++) {
        planes[0][k] = -f[k];              /* near: dot(p, f) < near */
        planes[1][k] = f[k];               /* far */
        planes[2][k] = rt[k] - hx * f[k];  /* right: x > hx·z */
        planes[3][k] = -rt[k] - hx * f[k]; /* left */
        planes[4][k] = up[k] - hy * f[k];  /* top */
        planes[5][k] = -up[k] - hy * f[k]; /* bottom */
    }
    planes[0][3] = -v->near_dist, planes[1][3] = v->far_dist;
    for (int p = 2; p < 6; p++) planes[p][3] = 0;
    for (int p = 0; p < 6; p++) {
        /* the box's corner least outside */
        double c[3];
        for (int k = 0; k < 3; k++) c[k] = planes[p][k] > 0 ? lo[k] : hi[k];
        double d = c[0] * planes[p][0] + c[1] * planes[p][1] + c[2] * planes[p][2];
        if (d > planes[p][3] + 1e-3 * (fabs(planes[p][3]) + 1)) return true;
    }
    return false;
}

/* Selects the frame: windows, active levels, requests, settled; with `record`, the fills against what the GPU
 * holds (then committed), the footprints and the uniforms. */
static void prepare(st_renderer *r, clipmap_state *s, bool record) {
    const st_lod_world *w = &s->world;
    double t0 = st_time_ms();
    memset(&s->stats, 0, sizeof s->stats);
    s->piece_count = 0;
    s->fill_count = 0;
    s->triangles = 0;
    memset(s->fill_level, 0, sizeof s->fill_level);
    if (!s->ready || s->made_far != r->view.far_dist || s->made_focal != r->view.focal_px) {
        st_error err = {0};
        if (make_geometry(r, s, &err)) {
            if (!s->warned) ST_WARN("%s", err.message);
            s->warned = true;
            s->ready = false;
            return;
        }
    }
    const st_clipmap_geom *g = &s->geom;
    /* The layout (active levels, windows, the blend's centre, culling) follows `lay`: the eye's view, or with
     * freeze_culling the first frame's, so the viewer can fly out and look at the rings; positions stay relative
     * to the real eye (the anchor below). */
    st_view lay = r->view;
    if (r->desc.freeze_culling) {
        if (!s->have_frozen) s->frozen = lay, s->have_frozen = true;
        lay = s->frozen;
    }
    const double *eye = lay.origin;
    double eye_idx[2] = {eye[0] / w->spacing_x, eye[1] / w->spacing_y};
    s->finest = st_clipmap_finest_active(g, eye[2] - ground_under(s, eye));
    if (!r->desc.knobs.clip_n) { /* n from τ: so is the finest level (LH04's rule from the eye's height is the least) */
        double clearance[ST_CLIPMAP_MAX_LEVELS] = {0}, tau = r->desc.knobs.tau_px > 0 ? r->desc.knobs.tau_px : 1.0;
        for (uint32_t l = 1; l < g->levels && l < w->levels; l++) {
            int64_t o[2];
            st_clipmap_window(g, l, eye_idx, o);
            double zlo, zhi;
            rect_bounds(s, l, (st_clip_rect){o[0], o[1], o[0] + g->n, o[1] + g->n}, &zlo, &zhi);
            clearance[l] = eye[2] - zhi;
            if (!(clearance[l] > 0)) break;
        }
        uint32_t f = st_clipmap_finest_for_tau(g, w->delta, w->levels, clearance, r->view.focal_px, tau);
        if (f > s->finest) s->finest = f;
    }
    for (uint32_t l = 0; l < g->levels; l++) st_clipmap_window(g, l, eye_idx, s->origin[l]);
    /* requests: every active level's tiles (coarse first), and those a quarter window further as a prefetch */
    bool settled = true;
    uint32_t fallback = 0, missing = 0;
    int64_t n = g->n;
    for (uint32_t l = g->levels; l-- > s->finest;) {
        uint32_t shift, sl = store_level(s, l, &shift), t[4];
        st_clip_rect win = {s->origin[l][0], s->origin[l][1], s->origin[l][0] + n, s->origin[l][1] + n};
        st_clip_rect far = {win.x0 - n / 4, win.y0 - n / 4, win.x1 + n / 4, win.y1 + n / 4};
        rect_tiles(s, l, far, t);
        uint32_t in[4];
        rect_tiles(s, l, win, in);
        for (uint32_t ty = t[2]; ty <= t[3]; ty++)
            for (uint32_t tx = t[0]; tx <= t[1]; tx++) {
                bool needed = tx >= in[0] && tx <= in[1] && ty >= in[2] && ty <= in[3];
                st_tile_key k = {sl, tx, ty};
                st_residency_request(w->residency, k, needed ? (float)(sl + 1) + 0.5f : 0.25f);
                uint32_t slot;
                if (needed && !tile_slot(s, k, &slot)) {
                    settled = false;
                    if (l + 1 == g->levels) missing++;
                    else fallback++;
                }
            }
    }
    s->stats.settled = settled;
    s->stats.fallback = fallback;
    s->stats.missing = missing;
    s->stats.levels = g->levels;
    s->stats.grid = g->n;
    s->stats.finest = s->finest;
    s->stats.tau_px = r->desc.knobs.tau_px > 0 ? r->desc.knobs.tau_px : 1.0;
    if (!record) {
        s->stats.select_ms = st_time_ms() - t0;
        return;
    }
    /* the fills, coarsest level first; what a level fills again (a tile that arrived) is filled again in the finer
     * levels over it too, their z_c (and fallback heights) being read from it */
    st_clip_rect again[2 * CLIP_FALLBACK_CAP + 4];
    uint32_t again_count = 0; /* in finest samples */
    s->texels_updated = 0;
    for (uint32_t l = g->levels; l-- > 0;) {
        clip_level *lv = &s->lv[l];
        s->fill_level[l].first = s->fill_count;
        if (l < s->finest) { /* not drawn: filled afresh when it is again */
            lv->have = false;
            lv->fallback_count = 0;
            again_count = 0;
            continue;
        }
        st_clip_rect win = {s->origin[l][0], s->origin[l][1], s->origin[l][0] + n, s->origin[l][1] + n};
        st_clip_rect rects[2 * CLIP_FALLBACK_CAP + 8];
        uint32_t rc = 0;
        if (!lv->have) {
            rects[rc++] = win;
        } else {
            rc = st_clipmap_exposed(g, lv->origin, s->origin[l], rects);
            /* tiles that came from the coarser level and are on the GPU now */
            uint32_t keep = 0;
            for (uint32_t i = 0; i < lv->fallback_count; i++) {
                st_tile_key k = lv->fallback[i];
                st_clip_rect tr = intersect(tile_rect(s, l, k.x, k.y), win);
                uint32_t slot;
                if (rect_empty(tr)) continue;
                if (tile_slot(s, k, &slot)) rects[rc++] = tr;
                else lv->fallback[keep++] = k;
            }
            lv->fallback_count = keep;
            for (uint32_t i = 0; i < again_count && rc < sizeof rects / sizeof rects[0]; i++) {
                int64_t span = (int64_t)1 << l;
                st_clip_rect a = {again[i].x0 / span - 1, again[i].y0 / span - 1, again[i].x1 / span + 2,
                                  again[i].y1 / span + 2};
                a = intersect(a, win);
                if (!rect_empty(a)) rects[rc++] = a;
            }
        }
        if (!lv->have) lv->fallback_count = 0;
        lv->have = true;
        again_count = 0;
        for (uint32_t i = 0; i < rc; i++) {
            s->texels_updated += queue_fill(s, l, rects[i], lv);
            int64_t span = (int64_t)1 << l;
            if (again_count < sizeof again / sizeof again[0])
                again[again_count++] = (st_clip_rect){rects[i].x0 * span, rects[i].y0 * span, rects[i].x1 * span,
                                                      rects[i].y1 * span};
        }
        lv->origin[0] = s->origin[l][0], lv->origin[1] = s->origin[l][1];
    }
    /* the footprints, culled by their boxes, sorted by shape */
    st_clipmap_piece all[CLIP_MAX_PIECES];
    uint32_t total = 0;
    int64_t ax = (int64_t)floor(r->view.origin[0] / w->spacing_x), ay = (int64_t)floor(r->view.origin[1] / w->spacing_y);
    const st_view *v = &lay;
    memset(s->shape_count, 0, sizeof s->shape_count);
    for (uint32_t l = s->finest; l < g->levels; l++) {
        st_clipmap_piece p[32];
        uint32_t k = st_clipmap_pieces(g, l, s->finest, s->origin[l], l ? s->origin[l - 1] : s->origin[l], p);
        for (uint32_t i = 0; i < k; i++) {
            uint32_t pw, ph;
            st_clipmap_shape_size(g, (st_clipmap_shape)p[i].shape, &pw, &ph);
            st_clip_rect pr = {s->origin[l][0] + p[i].x, s->origin[l][1] + p[i].y, s->origin[l][0] + p[i].x + pw,
                               s->origin[l][1] + p[i].y + ph};
            double span = ldexp(1, (int)l), zlo, zhi;
            rect_bounds(s, l, pr, &zlo, &zhi);
            double lo[3] = {fmax(fmin((double)pr.x0 * span, (double)w->width - 1), 0) * w->spacing_x - eye[0],
                            fmax(fmin((double)pr.y0 * span, (double)w->height - 1), 0) * w->spacing_y - eye[1],
                            zlo - eye[2]};
            double hi[3] = {fmax(fmin((double)(pr.x1 - 1) * span, (double)w->width - 1), 0) * w->spacing_x - eye[0],
                            fmax(fmin((double)(pr.y1 - 1) * span, (double)w->height - 1), 0) * w->spacing_y - eye[1],
                            zhi - eye[2]};
            if (!r->desc.knobs.lod_no_cull && box_outside(v, lo, hi)) {
                s->stats.culled++;
                continue;
            }
            all[total++] = p[i];
            s->shape_count[p[i].shape]++;
            if (l < ST_LOD_MAX_LEVELS) s->stats.per_level[l]++;
        }
    }
    uint32_t at = 0;
    for (uint32_t k = 0; k < ST_CLIP_SHAPES; k++) {
        s->shape_first[k] = at;
        at += s->shape_count[k];
    }
    uint32_t fill_at[ST_CLIP_SHAPES];
    memcpy(fill_at, s->shape_first, sizeof fill_at);
    for (uint32_t i = 0; i < total; i++) s->pieces[fill_at[all[i].shape]++] = all[i];
    s->piece_count = total;
    uint32_t *pb = s->piece_buf.mapped;
    for (uint32_t i = 0; i < total; i++) {
        pb[2 * i] = (uint32_t)s->pieces[i].shape | (uint32_t)s->pieces[i].level << 8;
        pb[2 * i + 1] = (uint32_t)s->pieces[i].x | (uint32_t)s->pieces[i].y << 16;
    }
    /* the fill records */
    if (s->fill_count * sizeof(clip_fill_gpu) > s->fill_buf.size) {
        st_error err = {0};
        vkDeviceWaitIdle(r->engine->gpu->device);
        st_gpu_buffer_destroy(r->engine->gpu, &s->fill_buf);
        if (st_gpu_buffer_create(r->engine->gpu, s->fill_cap * sizeof(clip_fill_gpu), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                 true, &s->fill_buf, &err)) {
            ST_WARN("%s: %s", r->ops->info.name, err.message);
            s->fill_count = 0;
            memset(s->fill_level, 0, sizeof s->fill_level);
            for (uint32_t l = 0; l < ST_CLIPMAP_MAX_LEVELS; l++) s->lv[l].have = false;
        }
        st_gpu_binding b[10];
        uint32_t count = set_bindings(r, s, b);
        st_gpu_set_write(r->engine->gpu, s->set, b, count);
    }
    if (s->fill_count) memcpy(s->fill_buf.mapped, s->fills, s->fill_count * sizeof(clip_fill_gpu));
    /* the tile world's uniforms */
    st_store_method_tile_frame(r, w, ax, ay, s->tile_ubo.mapped);
    /* the clipmap's */
    clip_frame_gpu *cf = s->clip_ubo.mapped;
    memset(cf, 0, sizeof *cf);
    double alpha_at = (g->n - 1) / 2.0 - g->blend_w - 2;
    for (uint32_t l = 0; l < g->levels; l++) {
        double span = ldexp(1, (int)l);
        cf->window[l][0] = (int32_t)s->origin[l][0];
        cf->window[l][1] = (int32_t)s->origin[l][1];
        cf->window[l][3] = l >= s->finest;
        cf->eye_level[l][0] = (float)(eye_idx[0] / span - (double)s->origin[l][0]);
        cf->eye_level[l][1] = (float)(eye_idx[1] / span - (double)s->origin[l][1]);
        cf->eye_level[l][2] = (float)alpha_at;
        cf->eye_level[l][3] = l + 1 < g->levels ? (float)(1.0 / g->blend_w) : 0.0f;
        int64_t last[2];
        level_last(s, l, last);
        uint32_t shift, sl = store_level(s, l, &shift);
        cf->level_last[l][0] = (int32_t)last[0];
        cf->level_last[l][1] = (int32_t)last[1];
        cf->level_last[l][2] = (int32_t)sl;
        cf->level_last[l][3] = (int32_t)shift;
    }
    uint32_t tri = 0;
    for (uint32_t k = 0; k < ST_CLIP_SHAPES; k++) {
        uint32_t sw, sh;
        st_clipmap_shape_size(g, (st_clipmap_shape)k, &sw, &sh);
        uint32_t per = st_clipmap_shape_triangles(g, (st_clipmap_shape)k);
        cf->shape[k][0] = sw, cf->shape[k][1] = sh;
        cf->shape[k][2] = s->shape_first[k], cf->shape[k][3] = s->shape_count[k];
        cf->shape_tris[k][0] = per;
        cf->shape_tris[k][1] = s->shape_count[k] ? tri : UINT32_MAX;
        cf->shape_tris[k][2] = (k == ST_CLIP_EDGE_H || k == ST_CLIP_EDGE_V) ? 1u : 0u;
        tri += per * s->shape_count[k];
    }
    s->triangles = tri;
    cf->anchor[0] = (int32_t)ax, cf->anchor[1] = (int32_t)ay;
    cf->anchor[2] = (int32_t)s->N, cf->anchor[3] = (int32_t)g->levels;
    cf->world_last[0] = (int32_t)(w->width - 1), cf->world_last[1] = (int32_t)(w->height - 1);
    cf->info[0] = g->n, cf->info[1] = s->finest, cf->info[2] = tri, cf->info[3] = r->desc.wireframe ? 1u : 0u;
    /* the figures */
    st_lod_frame_stats *st = &s->stats;
    st->nodes = total;
    st->quadrants = total;
    st->triangles = tri;
    st->samples_updated = s->texels_updated;
    st->update_rects = s->fill_count;
    st->select_ms = st_time_ms() - t0;
    if (missing) st->hole_px = (uint64_t)r->width * r->height; /* the coarsest level lacks a tile: a bound */
}

/* The update pass: each level's fills, coarsest first (a level's z_c reads the coarser level's heights of this
 * frame), each ordered before the next and before anything draws. */
static void record_fills(st_renderer *r, clipmap_state *s, VkCommandBuffer cmd) {
    if (!s->fill_count) return;
    VkDescriptorSet sets[2] = {r->globals_set, s->set};
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->fill_pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->fill_layout, 0, 2, sets, 0, NULL);
    for (uint32_t l = s->geom.levels; l-- > 0;) {
        const clip_fill_level *fl = &s->fill_level[l];
        if (!fl->count || !fl->texels) continue;
        clip_fill_push push = {.level = l, .first = fl->first, .count = fl->count, .texels = fl->texels};
        vkCmdPushConstants(cmd, s->fill_layout, VK_SHADER_STAGE_ALL, 0, sizeof push, &push);
        vkCmdDispatch(cmd, (fl->texels + 63) / 64, 1, 1);
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                      VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                  VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
}

static void clipmap_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    clipmap_state *s = state;
    prepare(r, s, true);
    st_renderer_pass_begin(r, cmd, "update");
    if (s->ready) record_fills(r, s, cmd);
    st_renderer_pass_next(r, cmd, "draw");
    if (s->deferred) st_deferred_begin(r, &s->gbuffer, cmd);
    else st_renderer_begin_raster(r, cmd);
    VkDescriptorSet sets[2] = {r->globals_set, s->set};
    if (s->ready && s->piece_count) {
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 2, sets, 0, NULL);
        vkCmdBindIndexBuffer(cmd, s->index.buffer, 0, VK_INDEX_TYPE_UINT16);
        for (int pass = 0; pass < 2; pass++) {
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pass ? s->edge_pipeline : s->patch_pipeline);
            for (uint32_t k = 0; k < ST_CLIP_SHAPES; k++) {
                bool edge = k == ST_CLIP_EDGE_H || k == ST_CLIP_EDGE_V;
                if (edge != (pass == 1) || !s->shape_count[k]) continue;
                vkCmdDrawIndexed(cmd, s->index_count[k], s->shape_count[k], s->index_first[k], 0, s->shape_first[k]);
            }
        }
    }
    if (s->deferred) {
        st_deferred_resolve(r, &s->gbuffer, cmd); /* closes "draw" */
        return;
    }
    st_renderer_end_raster(r, cmd);
    st_renderer_pass_end(r, cmd);
}

static void clipmap_compute_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    clipmap_state *s = state;
    prepare(r, s, true);
    uint32_t total = s->ready ? (uint32_t)s->triangles : 0;
    st_renderer_pass_begin(r, cmd, "update");
    if (s->ready) record_fills(r, s, cmd);
    st_store_compute_draw(r, &s->cs, s->layout, s->set, cmd, total); /* its "clear" closes "update" */
}

static uint64_t clipmap_gpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const clipmap_state *s = state;
    return (uint64_t)s->heights.size + s->piece_buf.size + s->clip_ubo.size + s->tile_ubo.size + s->fill_buf.size +
           s->index.size + s->cs.vis.size + s->cs.big.size + st_deferred_gpu_bytes(&s->gbuffer);
}

static uint64_t clipmap_cpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const clipmap_state *s = state;
    return sizeof *s + (uint64_t)s->fill_cap * sizeof(clip_fill_gpu);
}

static void clipmap_select(st_renderer *r, void *state) { prepare(r, state, false); }

static void clipmap_lod_stats(const st_renderer *r, const void *state, st_lod_frame_stats *out) {
    (void)r;
    *out = ((const clipmap_state *)state)->stats;
}

/* ---- for tests ---------------------------------------------------------------------------------------------- */

st_result st_clipmap_last_frame(const st_renderer *r, st_clipmap_frame_info *out, st_error *err) {
    if (r->ops != &st_method_clipmap && r->ops != &st_method_clipmap_compute)
        return st_error_set(err, ST_ERR_INVALID, "not a clipmap renderer");
    const clipmap_state *s = r->state;
    if (!s->ready) return st_error_set(err, ST_ERR_INVALID, "no frame drawn yet");
    memset(out, 0, sizeof *out);
    out->geom = s->geom;
    out->finest = s->finest;
    out->texels_updated = s->texels_updated;
    out->fills = s->fill_count;
    for (uint32_t l = 0; l < s->geom.levels; l++) {
        out->origin[l][0] = s->origin[l][0];
        out->origin[l][1] = s->origin[l][1];
    }
    return ST_OK;
}

st_result st_clipmap_read_heights(st_renderer *r, uint32_t level, float *out, st_error *err) {
    if (r->ops != &st_method_clipmap && r->ops != &st_method_clipmap_compute)
        return st_error_set(err, ST_ERR_INVALID, "not a clipmap renderer");
    clipmap_state *s = r->state;
    if (!s->ready || level >= s->geom.levels) return st_error_set(err, ST_ERR_INVALID, "no level %u", level);
    st_gpu *gpu = r->engine->gpu;
    VkDeviceSize bytes = (VkDeviceSize)s->N * s->N * 8;
    st_gpu_buffer host = {0};
    st_result res = st_gpu_buffer_create(gpu, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, &host, err);
    VkCommandBuffer cmd;
    if (!res) res = st_gpu_once_begin(gpu, &cmd, err);
    if (!res) {
        VkBufferCopy region = {.srcOffset = level * bytes, .size = bytes};
        vkCmdCopyBuffer(cmd, s->heights.buffer, host.buffer, 1, &region);
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
        res = st_gpu_once_submit(gpu, cmd, err);
    }
    if (!res) memcpy(out, host.mapped, bytes);
    st_gpu_buffer_destroy(gpu, &host);
    return res;
}

st_result st_clipmap_probe(st_renderer *r, const int32_t *points, uint32_t count, float *out, st_error *err) {
    if (r->ops != &st_method_clipmap && r->ops != &st_method_clipmap_compute)
        return st_error_set(err, ST_ERR_INVALID, "probe: not a clipmap renderer");
    clipmap_state *s = r->state;
    if (!r->drawn || !s->ready) return st_error_set(err, ST_ERR_INVALID, "probe: no frame drawn yet");
    size_t in_bytes = 16 + (size_t)count * 16;
    uint32_t *in = malloc(in_bytes);
    if (!in) return st_error_set(err, ST_ERR_NOMEM, "probe: out of memory");
    in[0] = count, in[1] = in[2] = in[3] = 0;
    for (uint32_t i = 0; i < count; i++) {
        int32_t *q = (int32_t *)(in + 4 + 4 * i);
        q[0] = points[3 * i], q[1] = points[3 * i + 1], q[2] = points[3 * i + 2], q[3] = 0;
    }
    st_result res = st_renderer_probe(r, s->set_layout, s->set, "clipmap_probe.comp", in, in_bytes, out,
                                      (size_t)count * 32, count, err);
    free(in);
    return res;
}

static const st_method_knob clipmap_knobs[] = {
    {.name = "clip_n",
     .label = "clipmap grid n",
     .kind = ST_KNOB_COUNT,
     .offset = offsetof(st_method_knobs, clip_n),
     .default_value = 255,
     .min = ST_CLIPMAP_MIN_N,
     .max = ST_CLIPMAP_MAX_N,
     .sweep_count = 5,
     .sweep = {63, 127, 255, 511, 1023}},
};

const st_method_ops st_method_clipmap = {
    .info = {.name = "clipmap",
             .description = "geometry clipmaps over a tile store: nested rings updated toroidally, rasterised",
             .compute = false,
             .world = ST_WORLD_STORE,
             ST_METHOD_KNOBS(clipmap_knobs)},
    .targets = ST_TARGETS_RASTER,
    .create = clipmap_create,
    .target_usage = clipmap_target_usage,
    .destroy = clipmap_destroy,
    .record = clipmap_record,
    .gpu_bytes = clipmap_gpu_bytes,
    .cpu_bytes = clipmap_cpu_bytes,
    .lod_stats = clipmap_lod_stats,
    .select = clipmap_select,
};

const st_method_ops st_method_clipmap_compute = {
    .info = {.name = "clipmap-compute",
             .description = "geometry clipmaps' triangles rasterised in compute into a 64-bit visibility buffer",
             .compute = true,
             .world = ST_WORLD_STORE,
             ST_METHOD_KNOBS(clipmap_knobs)},
    .targets = ST_TARGETS_STORAGE,
    .create = clipmap_compute_create,
    .destroy = clipmap_destroy,
    .record = clipmap_compute_record,
    .gpu_bytes = clipmap_gpu_bytes,
    .cpu_bytes = clipmap_cpu_bytes,
    .lod_stats = clipmap_lod_stats,
    .select = clipmap_select,
};
