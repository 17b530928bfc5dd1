/* RayTraced on the seam: the full-screen fragment pass of shaders/methods/ray.frag, and its compute variant
 * (ray.comp; on the web its WGSL port) writing the frame's colour and depth targets, one ray per pixel. The
 * native twins are in src/render/methods/ray.c. */
#include <stdlib.h>

#include "methods/methods.h"

typedef struct ray_state {
    st_gb_program program;
} ray_state;

static st_result ray_create(st_gb *b, const st_level *level, uint32_t knob, void **out, st_error *err) {
    (void)knob;
    (void)level;
    ray_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_gb_program_desc d = {.vertex = "fullscreen.vert", .fragment = "ray.frag", .depth_write = true};
    return b->ops->program_create(b, &d, &s->program, err);
}

static void ray_destroy(st_gb *b, void *state) {
    ray_state *s = state;
    if (s) b->ops->program_destroy(b, s->program);
    free(s);
}

static void ray_record(st_gb *b, void *state, const st_gb_frame *f) {
    (void)f;
    ray_state *s = state;
    b->ops->draw(b, &(st_gb_draw){.program = s->program, .vertex_count = 3});
}

const st_gb_method st_gb_method_ray = {
    .name = "ray",
    .description = "height-field ray march, full-screen fragment pass",
    .create = ray_create,
    .destroy = ray_destroy,
    .record = ray_record,
};

static st_result ray_compute_create(st_gb *b, const st_level *level, uint32_t knob, void **out, st_error *err) {
    (void)knob;
    (void)level;
    if (!b->ops->compute_create)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "ray-compute needs a backend with compute (WebGPU)");
    ray_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    return b->ops->compute_create(b, "ray.comp", &s->program, err);
}

static void ray_compute_record(st_gb *b, void *state, const st_gb_frame *f) {
    (void)f;
    ray_state *s = state;
    b->ops->dispatch(b, s->program, (b->width + 7) / 8, (b->height + 7) / 8, 1); /* ray.comp's 8×8 groups */
}

const st_gb_method st_gb_method_ray_compute = {
    .name = "ray-compute",
    .description = "height-field ray march, compute pass",
    .compute = true,
    .create = ray_compute_create,
    .destroy = ray_destroy,
    .record = ray_compute_record,
};
