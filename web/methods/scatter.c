/* Scattered, the paper's variant (`scatter-plain`) on the seam: a fixed warped grid of ground points splatted
 * into a packed screen buffer with atomicMin (shaders/methods/scatter_plain.comp; on the web its WGSL port),
 * then the full-screen resolve that shades each pixel's nearest sample (scatter_resolve.comp). The native twin
 * is src/render/methods/scatter.c, whose footprint this copies until the native methods move onto the seam. */
#include <math.h>
#include <stdlib.h>

#include "methods/methods.h"

#define SCATTER_TOP 256.0f       /* nothing is solid above */
#define SCATTER_PLAIN_DEFAULT 4u /* the paper's publication density 4,4,4 */
#define SCATTER_CLEAR 0xFFFFFFFFu

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
    st_gb_program scatter, resolve;
    st_gb_buffer screen; /* one packed word per pixel */
    uint32_t width, height;
} scatter_state;

static void scatter_destroy(st_gb *b, void *state) {
    scatter_state *s = state;
    if (!s) return;
    b->ops->program_destroy(b, s->scatter);
    b->ops->program_destroy(b, s->resolve);
    if (s->screen) b->ops->buffer_destroy(b, s->screen);
    free(s);
}

static st_result scatter_plain_create(st_gb *b, const st_level *level, void **out, st_error *err) {
    (void)level;
    if (!b->ops->compute_create || !b->ops->storage_buffer_create)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "scatter-plain needs a backend with compute (WebGPU)");
    scatter_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_result r = b->ops->compute_create(b, "scatter_plain.comp", &s->scatter, err);
    if (!r) r = b->ops->compute_create(b, "scatter_resolve.comp", &s->resolve, err);
    return r;
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

static void scatter_plain_record(st_gb *b, void *state, const st_gb_frame *f) {
    scatter_state *s = state;
    if (!s->screen || s->width != b->width || s->height != b->height) {
        if (s->screen) b->ops->buffer_destroy(b, s->screen);
        s->screen = 0;
        st_error err = {0};
        if (b->ops->storage_buffer_create(b, (size_t)b->width * b->height * 4, &s->screen, &err)) return;
        s->width = b->width;
        s->height = b->height;
    }
    uint32_t d = f->knob ? f->knob : SCATTER_PLAIN_DEFAULT;
    if (d > 64) d = 64; /* the native knob's range */
    scatter_plain_push p = plain_push(&f->view, d);
    b->ops->buffer_fill(b, s->screen, SCATTER_CLEAR);
    b->ops->bind_buffer(b, 2, 0, s->screen);
    b->ops->uniforms(b, ST_GB_PUSH_SET, 0, &p, sizeof p);
    b->ops->dispatch(b, s->scatter, (b->width + 15u) / 16u * d, (b->height + 15u) / 16u * d, d);
    b->ops->dispatch(b, s->resolve, (b->width + 7u) / 8u, (b->height + 7u) / 8u, 1);
}

const st_gb_method st_gb_method_scatter_plain = {
    .name = "scatter-plain",
    .description = "the paper's point scatter over a warped ground grid (leaves gaps)",
    .compute = true,
    .create = scatter_plain_create,
    .destroy = scatter_destroy,
    .record = scatter_plain_record,
};
