/* Scattered on the seam: terrain splatted into a packed screen buffer with atomicMin, then the full-screen
 * resolve that shades each pixel's nearest sample (scatter_resolve.comp). `scatter` enumerates ground blocks of
 * a distance quadtree over the visible ground bounds and splats each block's exposed faces exactly (scatter.comp,
 * its large faces queued for scatter_tiles.comp); `scatter-plain` is the paper's fixed warped grid of ground
 * points (scatter_plain.comp). On the web these run as their WGSL ports. The native twin is
 * src/render/methods/scatter.c, whose level walk and footprint this copies until the native methods move onto
 * the seam. */
#include <math.h>
#include <stdlib.h>

#include "methods/methods.h"
#include "render/scatter_levels.h"

#define SCATTER_TOP 256.0f       /* nothing is solid above */
#define SCATTER_PLAIN_DEFAULT 4u /* the paper's publication density 4,4,4 */
#define SCATTER_CLEAR 0xFFFFFFFFu
#define SCATTER_DEFAULT_DENSITY 2u    /* the hole-free variant's native default: blocks of at most half a pixel */
#define SCATTER_FACE_BYTES 32u        /* one queued face: 8 words (scatter.glsl) */
#define SCATTER_MAX_GROUPS 65535u     /* the most workgroups of one dispatch's x */

/* Mirror of the push constants of scatter.comp (its WGSL port's Push). */
typedef struct scatter_level_push {
    int32_t origin[2];
    int32_t count[2];
    int32_t k;
    int32_t root;
    float lod_dist;
    int32_t pad;
} scatter_level_push;

/* Mirror of the push constants of scatter_plain.comp (its WGSL port's Push). */
typedef struct scatter_plain_push {
    float origin[2];
    float heading[2];
    float range_y[2];
    float range_x[2];
    uint32_t layers;
    uint32_t pad[3]; /* a uniform block's size is a multiple of 16 bytes */
} scatter_plain_push;

typedef struct scatter_state {
    st_gb_program scatter, tiles, resolve; /* tiles: the hole-free variant's queued faces */
    st_gb_buffer screen;                   /* one packed word per pixel */
    st_gb_buffer faces, header, jobs;      /* the hole-free variant's face queue (scatter.glsl) */
    uint32_t width, height, job_capacity;
} scatter_state;

static void scatter_destroy(st_gb *b, void *state) {
    scatter_state *s = state;
    if (!s) return;
    b->ops->program_destroy(b, s->scatter);
    if (s->tiles) b->ops->program_destroy(b, s->tiles);
    b->ops->program_destroy(b, s->resolve);
    if (s->screen) b->ops->buffer_destroy(b, s->screen);
    if (s->faces) b->ops->buffer_destroy(b, s->faces);
    if (s->header) b->ops->buffer_destroy(b, s->header);
    if (s->jobs) b->ops->buffer_destroy(b, s->jobs);
    free(s);
}

static st_result scatter_create_common(st_gb *b, bool plain, void **out, st_error *err) {
    if (!b->ops->compute_create || !b->ops->storage_buffer_create)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "%s needs a backend with compute (WebGPU)",
                            plain ? "scatter-plain" : "scatter");
    scatter_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_result r = b->ops->compute_create(b, plain ? "scatter_plain.comp" : "scatter.comp", &s->scatter, err);
    if (!r && !plain) r = b->ops->compute_create(b, "scatter_tiles.comp", &s->tiles, err);
    if (!r) r = b->ops->compute_create(b, "scatter_resolve.comp", &s->resolve, err);
    return r;
}

static st_result scatter_plain_create(st_gb *b, const st_level *level, uint32_t knob, void **out, st_error *err) {
    (void)knob;
    (void)level;
    return scatter_create_common(b, true, out, err);
}

static st_result scatter_faces_create(st_gb *b, const st_level *level, uint32_t knob, void **out, st_error *err) {
    (void)knob;
    (void)level;
    return scatter_create_common(b, false, out, err);
}

/* The paper's footprint (as record_plain natively): the near-plane corner rays cut z = 0 and z = top
 * (distances clamped at 0 and at the far plane), in the flat heading frame. */
static scatter_plain_push plain_push(const st_view *v, uint32_t layers) {
    float heading[2] = {v->screen_right[1], -v->screen_right[0]};
    float perp[2] = {heading[1], -heading[0]};
    float pts[8][2];
    for (int c = 0; c < 4; c++) {
        float d[3];
        st_view_pixel_dir(v, (c & 1) ? v->width : 0.0f, (c & 2) ? v->height : 0.0f, d);
        for (int p = 0; p < 2; p++) {
            float z = p ? SCATTER_TOP : 0.0f, t_max = v->far_dist / v->focal_px;
            float t = fabsf(d[2]) < 1e-6f ? t_max : (z - v->eye[2]) / d[2];
            t = fminf(fmaxf(t, 0.0f), t_max);
            float dx = d[0] * t, dy = d[1] * t;
            pts[c * 2 + p][0] = dx * perp[0] + dy * perp[1];
            pts[c * 2 + p][1] = dx * heading[0] + dy * heading[1];
        }
    }
    float y0 = INFINITY, y1 = -INFINITY;
    for (int i = 0; i < 8; i++) {
        y0 = fminf(y0, pts[i][1]);
        y1 = fmaxf(y1, pts[i][1]);
    }
    float x_near = 0.0f, x_far = 0.0f;
    for (int i = 0; i < 8; i++) {
        x_far = fmaxf(x_far, fabsf(pts[i][0]));
        if (pts[i][1] <= 0.5f * (y0 + y1)) x_near = fmaxf(x_near, fabsf(pts[i][0]));
    }
    return (scatter_plain_push){.origin = {v->eye[0], v->eye[1]},
                                .heading = {heading[0], heading[1]},
                                .range_y = {y0, y1},
                                .range_x = {x_near, x_far},
                                .layers = layers};
}

/* The screen buffer at the frame's size, and for the hole-free variant the face queue sized as natively: w·h/8
 * faces (at least 1024) and as many jobs; its header's capacities are the buffers' lengths (scatter_queue.wgsl).
 * False when a buffer could not be had (the frame is then not drawn). */
static bool scatter_buffers(st_gb *b, scatter_state *s, bool queue) {
    if (s->screen && s->width == b->width && s->height == b->height) return true;
    st_gb_buffer *all[4] = {&s->screen, &s->faces, &s->header, &s->jobs};
    for (int i = 0; i < 4; i++)
        if (*all[i]) b->ops->buffer_destroy(b, *all[i]), *all[i] = 0;
    uint64_t cap = (uint64_t)b->width * b->height / 8u;
    s->job_capacity = (uint32_t)(cap < 1024u ? 1024u : cap);
    st_error err = {0};
    if (b->ops->storage_buffer_create(b, (size_t)b->width * b->height * 4, &s->screen, &err)) return false;
    if (queue && (b->ops->storage_buffer_create(b, (size_t)s->job_capacity * SCATTER_FACE_BYTES, &s->faces, &err) ||
                  b->ops->storage_buffer_create(b, 8u * sizeof(uint32_t), &s->header, &err) ||
                  b->ops->storage_buffer_create(b, (size_t)s->job_capacity * 2u * sizeof(uint32_t), &s->jobs, &err)))
        return false;
    s->width = b->width;
    s->height = b->height;
    return true;
}

static void scatter_plain_record(st_gb *b, void *state, const st_gb_frame *f) {
    scatter_state *s = state;
    if (!scatter_buffers(b, s, false)) return;
    uint32_t d = f->knob ? f->knob : SCATTER_PLAIN_DEFAULT;
    if (d > 64) d = 64; /* the native knob's range */
    scatter_plain_push p = plain_push(&f->view, d);
    b->ops->buffer_fill(b, s->screen, SCATTER_CLEAR);
    b->ops->bind_buffer(b, 2, 0, s->screen);
    b->ops->uniforms(b, ST_GB_PUSH_SET, 0, &p, sizeof p);
    b->ops->dispatch(b, s->scatter, (b->width + 15u) / 16u * d, (b->height + 15u) / 16u * d, d);
    b->ops->dispatch(b, s->resolve, (b->width + 7u) / 8u, (b->height + 7u) / 8u, 1);
}

/* Hole-free enumeration (as record_levels natively): one dispatch per quadtree level over the part of the ground
 * bounds where that level can hold leaves. A block of size k > 1 is used where its nearest horizontal distance d
 * satisfies d >= k·focal·density (it projects to at most 1/density pixels); the shader keeps exactly the leaves.
 * Then the queued faces' tiles: natively an indirect dispatch of the jobs queued; the seam has none, so as many
 * workgroups as the job queue holds, those past the jobs queued doing nothing. */
static void scatter_faces_record(st_gb *b, void *state, const st_gb_frame *f) {
    scatter_state *s = state;
    if (!scatter_buffers(b, s, true)) return;
    b->ops->buffer_fill(b, s->screen, SCATTER_CLEAR);
    b->ops->buffer_fill(b, s->header, 0);
    b->ops->bind_buffer(b, 2, 0, s->screen);
    b->ops->bind_buffer(b, 2, 1, s->faces);
    b->ops->bind_buffer(b, 2, 2, s->header);
    b->ops->bind_buffer(b, 2, 3, s->jobs);
    st_view v = f->view;
    const st_level *l = f->level;
    float bd[4];
    bool any = st_view_ground_bounds(&v, 0.0f, SCATTER_TOP, bd);
    /* along an axis that does not wrap, only the level's own blocks: past its edge there is nothing */
    if (!l->wrap_x) bd[0] = fmaxf(bd[0], 0.0f), bd[2] = fminf(bd[2], (float)l->width);
    if (!l->wrap_y) bd[1] = fmaxf(bd[1], 0.0f), bd[3] = fminf(bd[3], (float)l->height);
    if (any && bd[0] < bd[2] && bd[1] < bd[3]) {
        uint32_t density = f->knob ? f->knob : SCATTER_DEFAULT_DENSITY;
        if (density > 64) density = 64; /* the native knob's range */
        float lod = v.focal_px * (float)density;
        st_scatter_level levels[ST_SCATTER_MAX_LEVELS];
        int n = st_scatter_levels(bd, v.eye, lod, levels);
        for (int i = 0; i < n; i++) {
            const st_scatter_level *L = &levels[i];
            scatter_level_push p = {.origin = {L->origin[0], L->origin[1]},
                                    .count = {L->count[0], L->count[1]},
                                    .k = L->k,
                                    .root = L->root,
                                    .lod_dist = lod};
            b->ops->uniforms(b, ST_GB_PUSH_SET, 0, &p, sizeof p);
            b->ops->dispatch(b, s->scatter, ((uint32_t)p.count[0] + 7u) / 8u, ((uint32_t)p.count[1] + 7u) / 8u, 1);
        }
        uint32_t groups = s->job_capacity < SCATTER_MAX_GROUPS ? s->job_capacity : SCATTER_MAX_GROUPS;
        b->ops->dispatch(b, s->tiles, groups, 1, 1);
    }
    b->ops->dispatch(b, s->resolve, (b->width + 7u) / 8u, (b->height + 7u) / 8u, 1);
}

const st_gb_method st_gb_method_scatter = {
    .name = "scatter",
    .description = "forward scatter of exposed terrain faces, exact multi-pixel splats, atomicMin",
    .compute = true,
    .create = scatter_faces_create,
    .destroy = scatter_destroy,
    .record = scatter_faces_record,
};

const st_gb_method st_gb_method_scatter_plain = {
    .name = "scatter-plain",
    .description = "the paper's point scatter over a warped ground grid (leaves gaps)",
    .compute = true,
    .create = scatter_plain_create,
    .destroy = scatter_destroy,
    .record = scatter_plain_record,
};
