/* What the GPU tests of the store methods (cdlod, clipmap and their compute twins) share: a renderer of a store,
 * a frame settled and read back as distances along each pixel's ray, the sum-of-sines scene with its CPU
 * reference, a loader with one broken tile, and the rule for pixels on the world's edge. Header-only, over
 * tests/analytic_store.h. */
#ifndef STRATA_TEST_STORE_FRAMES_H
#define STRATA_TEST_STORE_FRAMES_H

#include "analytic_store.h"
#include "strata/image.h"
#include "strata/reference.h"

typedef struct frame {
    float *dist; /* along each pixel's ray, NAN = nothing drawn */
    uint8_t *rgba;
    st_lod_frame_stats lod;
} frame;

static inline void frame_free(frame *f) {
    free(f->dist);
    free(f->rgba);
}

/* The depth read back from r's last frame turned into distances along cam's pixel rays (NAN = nothing drawn). */
static inline void frame_distances(const st_camera *cam, uint32_t w, uint32_t h, float *depth) {
    st_view v = st_camera_view(cam, w, h);
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) depth[j * w + i] = st_view_distance_from_depth(&v, i, j, depth[j * w + i]);
}

/* Settles r on cam (every wanted tile drawn at its own level: fails naming what is still missing otherwise) and
 * reads the frame back. */
static inline frame store_frame(st_engine *e, st_renderer *r, st_camera cam, uint32_t w, uint32_t h) {
    frame f = {.dist = malloc((size_t)w * h * sizeof(float)), .rgba = malloc((size_t)w * h * 4)};
    assert_non_null(f.dist);
    assert_non_null(f.rgba);
    uint32_t frames = 0;
    assert_st_ok(st_renderer_settle(r, &cam, 400, &frames, err));
    assert_true(st_renderer_lod_stats(r, &f.lod));
    if (!f.lod.settled) {
        st_world_stats ws;
        assert_st_ok(st_engine_world_stats(e, &ws, err));
        fail_msg("not settled after %u frames: %u nodes, %u from an ancestor, %u missing; tiles %u queued, %u loading, "
                 "%u resident, %u failed", frames, f.lod.nodes, f.lod.fallback, f.lod.missing, ws.residency.queued,
                 ws.residency.loading, ws.residency.resident, ws.residency.failed);
    }
    assert_int_equal(f.lod.hole_px, 0); /* settled: nothing is missing */
    assert_st_ok(st_renderer_readback(r, f.rgba, f.dist, err));
    frame_distances(&cam, w, h, f.dist);
    return f;
}

/* The last frame's distances only (no settling), for frames that are not meant to settle. */
static inline float *store_frame_distances(st_renderer *r, const st_camera *cam, uint32_t w, uint32_t h) {
    float *d = malloc((size_t)w * h * sizeof *d);
    assert_non_null(d);
    assert_st_ok(st_renderer_readback(r, NULL, d, err));
    frame_distances(cam, w, h, d);
    return d;
}

/* A renderer of e's store by `method` at w×h with knobs k (NULL = defaults). */
static inline st_renderer *store_renderer(st_engine *e, const char *method, uint32_t w, uint32_t h,
                                          const st_method_knobs *k) {
    st_renderer *r = NULL;
    st_render_desc d = {.method = method, .width = w, .height = h};
    if (k) d.knobs = *k;
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    return r;
}

/* Writes the frame to $STRATA_TEST_IMAGES/name.png when that is set (to look at a failure). */
static inline void frame_write(const char *name, const frame *f, uint32_t w, uint32_t h) {
    const char *dir = getenv("STRATA_TEST_IMAGES");
    if (!dir) return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    st_error e = {0};
    st_png_write(path, w, h, 4, 8, f->rgba, &e);
}

/* Whether pixel (i, j)'s ray, `at` metres along, meets the ground within a tenth of a pixel of the world's edge
 * (0..ext each way), where it may fall either side of it. */
static inline bool near_world_edge(const st_view *v, uint32_t i, uint32_t j, double at, double ext) {
    if (isnan(at)) return false;
    float dir[3];
    st_view_pixel_ray(v, i, j, dir, NULL, NULL);
    double hx = v->origin[0] + dir[0] * at, hy = v->origin[1] + dir[1] * at;
    double near_edge = 0.1 * at / v->focal_px + 1e-3;
    return fabs(hx) < near_edge || fabs(ext - hx) < near_edge || fabs(hy) < near_edge || fabs(ext - hy) < near_edge;
}

/* ---- the sum-of-sines scene ------------------------------------------------------------------------------------ */

typedef struct scene {
    analytic a;
    st_store *store;
    st_engine *engine;
    st_dem_reference *ref;
} scene;

/* 513² samples 2 m apart of sines of wavelength `wave`, in an engine (wd NULL: 512 GPU slots), with its
 * reference. */
static inline scene sine_scene(double wave, const char *tag, const st_world_desc *wd) {
    scene sc = {.a = {.shape = SHAPE_SINE, .size = 513, .spacing = 2, .base = 60, .amp = 25, .wave = wave}};
    sc.store = analytic_store(&sc.a, 33, tag);
    sc.engine = store_engine(sc.store, wd ? wd : &(st_world_desc){.gpu_slots = 512});
    assert_st_ok(st_dem_reference_create(sc.store, 0, &sc.ref, err));
    return sc;
}

static inline void scene_free(scene *sc) {
    st_dem_reference_destroy(sc->ref);
    test_engine_finish(sc->engine, NULL);
    st_store_close(sc->store);
}

/* The reference's distances along cam's pixel rays (and its colours into rgba when not NULL). */
static inline float *reference_distances(scene *sc, st_camera cam, uint32_t w, uint32_t h, bool shadows,
                                         uint8_t *rgba) {
    st_ref_image img = {0};
    assert_st_ok(st_ref_image_create(w, h, &img, err));
    st_dem_reference_set_shadows(sc->ref, shadows);
    assert_st_ok(st_dem_reference_cast(sc->ref, &cam, &img, err));
    float *d = malloc((size_t)w * h * sizeof *d);
    assert_non_null(d);
    memcpy(d, img.distance, (size_t)w * h * sizeof *d);
    if (rgba) memcpy(rgba, img.rgba, (size_t)w * h * 4);
    st_ref_image_free(&img);
    return d;
}

/* ---- a tile that does not load ---------------------------------------------------------------------------------- */

typedef struct broken_loader {
    st_store *store;
    st_tile_key broken;
} broken_loader;

/* A st_world_desc loader: every tile from the store except `broken`, which fails. */
static inline st_result broken_load(void *user, st_tile_key key, st_tile **out, st_error *e) {
    const broken_loader *b = user;
    if (st_tile_key_equal(key, b->broken))
        return st_error_set(e, ST_ERR_IO, "tile %u/%u/%u is broken", key.level, key.x, key.y);
    return st_store_read_tile(b->store, key, out, e);
}

#endif
