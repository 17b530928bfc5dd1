/* The shared shadow map: size² texels (1024 by default) of the light plane, each the depth along the sun's
 * rays of the first solid point, found by an exact cell-by-cell march of both solid intervals so slabs shade
 * the floor beneath. Every method reads it through shade_point (shaders/common/shadow.glsl).
 *
 * The map is a window onto a fixed grid of the light plane, fitted around the view (a ±600 square 300 ahead of
 * the camera, z 0..256) and snapped to whole texels; it is stored toroidally (the texel of absolute grid index
 * (i, j) lives at (i mod size, j mod size)) and holds absolute depths. A texel's value therefore depends on its
 * grid index and the terrain only, never on where the window stands, and the map stays valid across frames:
 * a frame casts only the texels the window newly covers and those whose rays cross an edit since the last
 * frame — nothing at all while the camera stands still. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/passes/passes.h"
#include "strata/shading.h"

#define SHADOW_DEFAULT_SIZE 1024u
#define SHADOW_BOX_HALF ST_SHADOW_BOX_HALF
#define SHADOW_BOX_AHEAD ST_SHADOW_BOX_AHEAD
#define SHADOW_TOP 256.0 /* nothing is solid above */
#define SHADOW_MAX_CASTS 64  /* rectangles cast in one frame; more become one full cast */
#define SHADOW_MAX_COPIES 16 /* wrapped level copies per axis an edit is looked for in; more: a full cast */

/* Mirror of ShadowCastPush in shadow_cast.comp */
typedef struct shadow_cast_push {
    int32_t rect[4];  /* logical texels: x0, y0, width, height */
    int32_t base[4];  /* absolute grid index of logical texel (0, 0), size */
    int32_t wrap[4];  /* where logical texel (0, 0) is stored: base mod size */
    float axis_u[4];  /* unit light-plane axis; w = texel size along it */
    float axis_v[4];
    float dir[4];     /* unit, down the sun's rays */
} shadow_cast_push;

typedef struct shadow_rect {
    int32_t x0, y0, x1, y1; /* logical texels, half-open */
} shadow_rect;

/* What the map holds and what the next frame must cast. */
typedef struct shadow_cache {
    double lx[3], ly[3], d[3]; /* the light basis: plane axes and the direction down the sun's rays */
    double texel[2];           /* world size of a texel along lx and ly (fixed: the box's extent / size) */
    int64_t frame_base[2];     /* this frame's window: absolute index of logical texel (0, 0) */
    bool have_frame;
    int64_t base[2];           /* the window the map holds */
    bool valid;                /* every texel of that window is cast */
    st_rect_list edits; /* edits since the last frame, kept apart (ST_RECT_LIST_MAX, then merged) */
    uint64_t last_cast; /* texels the last frame cast (tests and docs) */
} shadow_cache;

typedef struct shadow_state {
    st_gpu_image map;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
    bool cached; /* shadows are on: the cache below is in use */
    shadow_cache cache;
} shadow_state;

/* Stores cast their own sun shadows at their scale (docs/large-world.md): the map is the levels'. */
static bool shadows_on(const st_renderer *r) { return r->desc.shadows && r->ops->info.world == ST_WORLD_LEVEL; }

static uint32_t shadow_size(const st_renderer *r) {
    if (!shadows_on(r)) return 1;
    return r->desc.shadow_size ? r->desc.shadow_size : SHADOW_DEFAULT_SIZE;
}

static double dot3d(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* The light basis and the texel size: the extent of the box (2·half × 2·half × top) along each plane axis, over
 * the map's size. The extent does not depend on where the box stands, so neither does the texel grid. */
static void init_cache(st_renderer *r, shadow_cache *c) {
    double s21 = 1.0 / sqrt(21.0), s5 = 1.0 / sqrt(5.0), s105 = 1.0 / sqrt(105.0);
    double D[3] = {-1 * s21, -2 * s21, -4 * s21}, lx[3] = {2 * s5, -1 * s5, 0}, ly[3] = {4 * s105, 8 * s105, -5 * s105};
    memcpy(c->d, D, sizeof D);
    memcpy(c->lx, lx, sizeof lx);
    memcpy(c->ly, ly, sizeof ly);
    const double *axes[2] = {c->lx, c->ly};
    for (int k = 0; k < 2; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < 8; i++) {
            double p[3] = {(i & 1) ? SHADOW_BOX_HALF : -SHADOW_BOX_HALF, (i & 2) ? SHADOW_BOX_HALF : -SHADOW_BOX_HALF,
                           (i & 4) ? SHADOW_TOP : 0.0};
            double q = dot3d(p, axes[k]);
            lo = fmin(lo, q);
            hi = fmax(hi, q);
        }
        c->texel[k] = (hi - lo) / (double)shadow_size(r);
    }
}

static void shadow_destroy(st_renderer *r, void *state) {
    shadow_state *s = state;
    VkDevice dev = r->engine->gpu->device;
    if (s->pipeline) vkDestroyPipeline(dev, s->pipeline, NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->set_layout) vkDestroyDescriptorSetLayout(dev, s->set_layout, NULL);
    st_gpu_image_destroy(r->engine->gpu, &s->map);
    free(s);
}

/* The map (a 1×1 stand-in when shadows are off) is set 0's binding 2 for every shader. */
static st_result shadow_create(st_renderer *r, void **out, st_error *err) {
    shadow_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_gpu *gpu = r->engine->gpu;
    uint32_t n = shadow_size(r);
    st_result res = st_gpu_image_create(gpu, n, n, VK_FORMAT_R32_SFLOAT,
                                        VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                            VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                        &s->map, err);
    if (res) return res;
    st_gpu_binding map = {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                          .view = s->map.view,
                          .layout = VK_IMAGE_LAYOUT_GENERAL};
    st_gpu_set_write_binding(gpu, r->globals_set, 2, &map);
    /* The map lives in GENERAL: written as storage by the cast, read by texelFetch in shading. */
    VkCommandBuffer cmd;
    res = st_gpu_once_begin(gpu, &cmd, err);
    if (res) return res;
    st_gpu_cmd_image_barrier(cmd, s->map.image, s->map.aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                             VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE,
                             VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkClearColorValue zero = {{0}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, s->map.image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &range);
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                              VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT);
    res = st_gpu_once_submit(gpu, cmd, err);
    if (res || !shadows_on(r)) return res;

    s->cached = true;
    init_cache(r, &s->cache);
    st_gpu_binding b = {.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                        .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                        .view = s->map.view,
                        .layout = VK_IMAGE_LAYOUT_GENERAL};
    res = st_renderer_set_create(r, &b, 1, &s->set_layout, &s->set, err);
    if (!res) res = st_renderer_pipeline_layout(r, &s->set_layout, 1, sizeof(shadow_cast_push), &s->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "shadow_cast.comp", s->layout, &s->pipeline, err);
    return res;
}

/* Positive remainder. */
static int64_t wrap_mod(int64_t a, int64_t n) {
    int64_t m = a % n;
    return m < 0 ? m + n : m;
}

static void shadow_fill_globals(st_renderer *r, void *state, st_globals_gpu *g) {
    shadow_state *s = state;
    const st_view *v = &r->view;
    shadow_cache *c = &s->cache;
    if (!shadows_on(r) || !s->cached) {
        for (int k = 0; k < 4; k++) g->shadow_u[k] = g->shadow_v[k] = g->shadow_d[k] = g->shadow_wrap[k] = 0;
        g->shadow_info[0] = 1;
        g->shadow_info[1] = 0;
        g->shadow_info[2] = 0;
        g->shadow_info[3] = 0;
        return;
    }
    uint32_t n = shadow_size(r);
    float hx = v->forward[0], hy = v->forward[1], hl = sqrtf(hx * hx + hy * hy);
    if (hl < 1e-6f) { /* straight down: the screen's up is the heading */
        hx = v->screen_up[0];
        hy = v->screen_up[1];
        hl = sqrtf(hx * hx + hy * hy);
    }
    double cx = v->eye[0] + SHADOW_BOX_AHEAD * hx / hl, cy = v->eye[1] + SHADOW_BOX_AHEAD * hy / hl;
    /* the window: the box's lowest light-plane coordinate on each axis, snapped down to the texel grid */
    const double *axes[2] = {c->lx, c->ly};
    for (int k = 0; k < 2; k++) {
        double lo = INFINITY;
        for (int i = 0; i < 8; i++) {
            double p[3] = {cx + ((i & 1) ? SHADOW_BOX_HALF : -SHADOW_BOX_HALF),
                           cy + ((i & 2) ? SHADOW_BOX_HALF : -SHADOW_BOX_HALF), (i & 4) ? SHADOW_TOP : 0.0};
            lo = fmin(lo, dot3d(p, axes[k]));
        }
        c->frame_base[k] = (int64_t)floor(lo / c->texel[k]);
    }
    c->have_frame = true;
    /* map coordinates: u = dot(p, lx)/(size·texel) − base/size ∈ [0, 1) over the window; depth is absolute */
    for (int k = 0; k < 3; k++) {
        g->shadow_u[k] = (float)(c->lx[k] / ((double)n * c->texel[0]));
        g->shadow_v[k] = (float)(c->ly[k] / ((double)n * c->texel[1]));
        g->shadow_d[k] = (float)c->d[k];
    }
    g->shadow_u[3] = (float)(-(double)c->frame_base[0] / (double)n);
    g->shadow_v[3] = (float)(-(double)c->frame_base[1] / (double)n);
    g->shadow_d[3] = 0;
    /* where logical texel (0, 0) is stored */
    g->shadow_wrap[0] = (float)wrap_mod(c->frame_base[0], n);
    g->shadow_wrap[1] = (float)wrap_mod(c->frame_base[1], n);
    g->shadow_wrap[2] = g->shadow_wrap[3] = 0;
    /* Bias and normal offset scale with the world size of a shadow texel (1.57 units at 1024²,
     * st_shadow_texel_world): a lit flat floor varies by about that much in light depth across one texel. */
    float texel = (float)fmax(c->texel[0], c->texel[1]);
    g->shadow_info[0] = (float)n;
    g->shadow_info[1] = 1;
    g->shadow_info[2] = ST_SHADOW_OFFSET_TEXELS * texel; /* depth bias, world units */
    g->shadow_info[3] = ST_SHADOW_OFFSET_TEXELS * texel; /* normal offset, world units */
}

static void shadow_level_updated(st_renderer *r, void *state, st_rect rect) {
    (void)r;
    shadow_state *s = state;
    shadow_cache *c = &s->cache;
    if (!s->cached || !c->valid) return;
    st_rect_list_add(&c->edits, rect); /* merged when full: a larger re-cast, never a missed one */
}

/* Adds a rectangle to cast, clipped to the window; false when there are too many (the caller casts all). */
static bool add_cast(shadow_rect *list, uint32_t *count, int64_t x0, int64_t y0, int64_t x1, int64_t y1, int64_t n) {
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > n ? n : x1;
    y1 = y1 > n ? n : y1;
    if (x0 >= x1 || y0 >= y1) return true;
    if (*count == SHADOW_MAX_CASTS) return false;
    list[(*count)++] = (shadow_rect){(int32_t)x0, (int32_t)y0, (int32_t)x1, (int32_t)y1};
    return true;
}

/* The light-plane point (u, v) moved along the sun's rays to height z. */
static void plane_point_at(const shadow_cache *c, double u, double v, double z, double out[3]) {
    double p[3];
    for (int k = 0; k < 3; k++) p[k] = c->lx[k] * u + c->ly[k] * v;
    double s = (z - p[2]) / c->d[2];
    for (int k = 0; k < 3; k++) out[k] = p[k] + c->d[k] * s;
}

/* The texels whose rays cross the columns of an edited rectangle (in the level's coordinates; the level wraps,
 * so every copy of it the window can see), as cast rectangles. False: cast everything instead. */
static bool add_edit_casts(const st_renderer *r, const shadow_cache *c, st_rect e, shadow_rect *list,
                           uint32_t *count) {
    int64_t n = shadow_size(r);
    double W = r->engine->shape.width, H = r->engine->shape.height;
    /* the window's ground footprint: its four corners at z = 0 and z = top */
    double wx0 = INFINITY, wx1 = -INFINITY, wy0 = INFINITY, wy1 = -INFINITY;
    for (int i = 0; i < 8; i++) {
        double u = (double)(c->base[0] + ((i & 1) ? n : 0)) * c->texel[0];
        double v = (double)(c->base[1] + ((i & 2) ? n : 0)) * c->texel[1];
        double p[3];
        plane_point_at(c, u, v, (i & 4) ? SHADOW_TOP : 0.0, p);
        wx0 = fmin(wx0, p[0]), wx1 = fmax(wx1, p[0]);
        wy0 = fmin(wy0, p[1]), wy1 = fmax(wy1, p[1]);
    }
    /* one texel of margin around the edit's columns for the walk's rounding near a cell edge */
    double ex0 = e.x0 - 1.0, ex1 = e.x1 + 1.0, ey0 = e.y0 - 1.0, ey1 = e.y1 + 1.0;
    int64_t i0 = (int64_t)floor((wx0 - ex1) / W), i1 = (int64_t)ceil((wx1 - ex0) / W);
    int64_t j0 = (int64_t)floor((wy0 - ey1) / H), j1 = (int64_t)ceil((wy1 - ey0) / H);
    /* along an axis that does not wrap there is one copy: the level's own */
    if (!r->engine->shape.wrap_x) i0 = i1 = 0;
    if (!r->engine->shape.wrap_y) j0 = j1 = 0;
    if (i1 - i0 > SHADOW_MAX_COPIES || j1 - j0 > SHADOW_MAX_COPIES) return false;
    for (int64_t j = j0; j <= j1; j++)
        for (int64_t i = i0; i <= i1; i++) {
            double ulo = INFINITY, uhi = -INFINITY, vlo = INFINITY, vhi = -INFINITY;
            for (int k = 0; k < 8; k++) {
                double p[3] = {((k & 1) ? ex1 : ex0) + (double)i * W, ((k & 2) ? ey1 : ey0) + (double)j * H,
                               (k & 4) ? SHADOW_TOP : 0.0};
                double u = dot3d(p, c->lx), v = dot3d(p, c->ly);
                ulo = fmin(ulo, u), uhi = fmax(uhi, u);
                vlo = fmin(vlo, v), vhi = fmax(vhi, v);
            }
            /* texel x's ray lies at u = (base + x + 0.5)·texel: those within [ulo, uhi], plus one texel */
            int64_t x0 = (int64_t)floor(ulo / c->texel[0] - 0.5) - c->base[0] - 1;
            int64_t x1 = (int64_t)ceil(uhi / c->texel[0] - 0.5) - c->base[0] + 2;
            int64_t y0 = (int64_t)floor(vlo / c->texel[1] - 0.5) - c->base[1] - 1;
            int64_t y1 = (int64_t)ceil(vhi / c->texel[1] - 0.5) - c->base[1] + 2;
            if (!add_cast(list, count, x0, y0, x1, y1, n)) return false;
        }
    return true;
}

/* This frame's rectangles: the part of the window the map does not hold yet, and the texels edits changed. */
static uint32_t plan_casts(st_renderer *r, shadow_cache *c, shadow_rect *list) {
    int64_t n = shadow_size(r);
    uint32_t count = 0;
    int64_t du = c->frame_base[0] - c->base[0], dv = c->frame_base[1] - c->base[1];
    bool full = !c->valid || du >= n || du <= -n || dv >= n || dv <= -n;
    c->base[0] = c->frame_base[0];
    c->base[1] = c->frame_base[1];
    if (!full) {
        /* the columns the window moved onto, then the rows of the rest */
        int64_t kx0 = 0, kx1 = n; /* the columns both windows share, in new logical coordinates */
        if (du > 0) add_cast(list, &count, n - du, 0, n, n, n), kx1 = n - du;
        if (du < 0) add_cast(list, &count, 0, 0, -du, n, n), kx0 = -du;
        if (dv > 0) add_cast(list, &count, kx0, n - dv, kx1, n, n);
        if (dv < 0) add_cast(list, &count, kx0, 0, kx1, -dv, n);
        for (uint32_t i = 0; i < c->edits.count && !full; i++)
            full = !add_edit_casts(r, c, c->edits.rect[i], list, &count);
    }
    c->edits.count = 0;
    c->valid = true;
    if (full) {
        list[0] = (shadow_rect){0, 0, (int32_t)n, (int32_t)n};
        count = 1;
    }
    return count;
}

static void shadow_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    shadow_state *s = state;
    shadow_cache *c = &s->cache;
    if (!shadows_on(r) || !s->cached || !c->have_frame) return;
    shadow_rect list[SHADOW_MAX_CASTS];
    uint32_t count = plan_casts(r, c, list);
    c->last_cast = 0;
    st_renderer_pass_begin(r, cmd, "shadow");
    if (count) {
        /* Earlier frames' reads of the map must finish before this frame overwrites texels of it. */
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT,
                                  VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        VkDescriptorSet sets[2] = {r->globals_set, s->set};
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 2, sets, 0, NULL);
        int64_t n = shadow_size(r);
        shadow_cast_push pc = {.base = {(int32_t)c->base[0], (int32_t)c->base[1], (int32_t)n, 0},
                               .wrap = {(int32_t)wrap_mod(c->base[0], n), (int32_t)wrap_mod(c->base[1], n), 0, 0},
                               .axis_u = {(float)c->lx[0], (float)c->lx[1], (float)c->lx[2], (float)c->texel[0]},
                               .axis_v = {(float)c->ly[0], (float)c->ly[1], (float)c->ly[2], (float)c->texel[1]},
                               .dir = {(float)c->d[0], (float)c->d[1], (float)c->d[2], 0}};
        /* Rectangles of one frame may overlap: both write the same value into a texel, so their order and
         * overlap do not matter and no barrier is needed between them. */
        for (uint32_t i = 0; i < count; i++) {
            const shadow_rect *q = &list[i];
            pc.rect[0] = q->x0, pc.rect[1] = q->y0, pc.rect[2] = q->x1 - q->x0, pc.rect[3] = q->y1 - q->y0;
            vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof pc, &pc);
            vkCmdDispatch(cmd, ((uint32_t)pc.rect[2] + 7) / 8, ((uint32_t)pc.rect[3] + 7) / 8, 1);
            c->last_cast += (uint64_t)pc.rect[2] * (uint64_t)pc.rect[3];
        }
        /* The method's shading reads the map in fragment or compute shaders. */
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT);
    }
    st_renderer_pass_end(r, cmd);
}

const st_pass_ops st_pass_shadow = {
    .name = "shadow",
    .create = shadow_create,
    .destroy = shadow_destroy,
    .fill_globals = shadow_fill_globals,
    .record = shadow_record,
    .level_updated = shadow_level_updated,
};

static shadow_state *find_shadow(const st_renderer *r) {
    for (uint32_t i = 0; i < r->pass_count; i++)
        if (r->passes[i].ops == &st_pass_shadow) return r->passes[i].state;
    return NULL;
}

uint64_t st_shadow_last_cast_texels(const st_renderer *r) {
    const shadow_state *s = find_shadow(r);
    return s && s->cached ? s->cache.last_cast : 0;
}

st_result st_shadow_read(const st_renderer *r, float *out, st_error *err) {
    shadow_state *s = find_shadow(r);
    if (!s) return st_error_set(err, ST_ERR_INVALID, "the renderer has no shadow pass");
    return st_gpu_image_read(r->engine->gpu, &s->map, VK_IMAGE_LAYOUT_GENERAL, out, err);
}
