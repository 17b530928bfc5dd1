/* Tiny DEM tile stores of analytic surfaces for the tests of the large world: a plane, a tilted plane and a sum
 * of sines, sampled exactly (f32 tiles) into a store built in a temporary folder; their exact surface for
 * oracles; and an engine with validation on holding one. Header-only: included by the tests that need it. */
#ifndef STRATA_TEST_ANALYTIC_STORE_H
#define STRATA_TEST_ANALYTIC_STORE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/dem.h"
#include "strata/large_world.h"
#include "strata/tiles.h"
#include "support.h"

typedef enum analytic_shape { SHAPE_PLANE, SHAPE_TILT, SHAPE_SINE } analytic_shape;

typedef struct analytic {
    analytic_shape shape;
    uint64_t size;         /* samples per side */
    double spacing;        /* metres */
    double base;           /* plane: height; tilt: height at (0, 0); sine: mean */
    double slope_x, slope_y; /* tilt: metres per metre */
    double amp, wave;      /* sine: amplitude and wavelength in metres */
} analytic;

/* The surface at world metres (x, y) (the samples are this, exactly, at x = i·spacing). */
static inline double analytic_at(const analytic *a, double x, double y) {
    switch (a->shape) {
    case SHAPE_PLANE: return a->base;
    case SHAPE_TILT: return a->base + a->slope_x * x + a->slope_y * y;
    default:
        return a->base + a->amp * sin(2 * M_PI * x / a->wave) * cos(2 * M_PI * y / (1.3 * a->wave)) +
               0.25 * a->amp * sin(2 * M_PI * (x - 0.7 * y) / (0.31 * a->wave));
    }
}

static inline double analytic_sample(const analytic *a, int64_t i, int64_t j) {
    int64_t last = (int64_t)a->size - 1;
    i = i < 0 ? 0 : i > last ? last : i;
    j = j < 0 ? 0 : j > last ? last : j;
    return (float)analytic_at(a, (double)i * a->spacing, (double)j * a->spacing); /* as the f32 tiles hold it */
}

/* The store's finest surface: bilinear between samples (what the reference casts against). */
static inline double analytic_bilinear(const analytic *a, double x, double y) {
    double u = x / a->spacing, v = y / a->spacing, fu = floor(u), fv = floor(v), tu = u - fu, tv = v - fv;
    int64_t i = (int64_t)fu, j = (int64_t)fv;
    return (analytic_sample(a, i, j) * (1 - tu) + analytic_sample(a, i + 1, j) * tu) * (1 - tv) +
           (analytic_sample(a, i, j + 1) * (1 - tu) + analytic_sample(a, i + 1, j + 1) * tu) * tv;
}

static st_result analytic_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out,
                               st_error *err) {
    (void)err;
    const analytic *a = state;
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) out[(size_t)j * w + i] = (float)analytic_sample(a, x0 + i, y0 + j);
    return ST_OK;
}

static void analytic_destroy(void *state) { free(state); }

/* Builds the store into folder dir (tiles of tile_size samples, f32, uncompressed) and opens it. */
static inline st_store *analytic_store_in(const analytic *a, uint32_t tile_size, const char *dir) {
    analytic *copy = malloc(sizeof *copy);
    assert_non_null(copy);
    *copy = *a;
    double lo = INFINITY, hi = -INFINITY;
    for (uint64_t j = 0; j < a->size; j += 1)
        for (uint64_t i = 0; i < a->size; i += 1) {
            double h = analytic_sample(a, (int64_t)i, (int64_t)j);
            lo = fmin(lo, h), hi = fmax(hi, h);
        }
    st_dem_info info = {.width = a->size, .height = a->size, .spacing_x_m = a->spacing, .spacing_y_m = a->spacing,
                        .min_m = lo, .max_m = hi};
    snprintf(info.description, sizeof info.description, "analytic surface %d", (int)a->shape);
    static const st_dem_source_ops ops = {.read = analytic_read, .destroy = analytic_destroy};
    st_dem_source *src = NULL;
    assert_st_ok(st_dem_source_create(&ops, copy, &info, &src, err));
    st_store_build_desc bd = {.tile_size = tile_size, .encoding = ST_TILE_F32, .raw = true,
                              .compression = ST_TILE_RAW, .source_label = "test"};
    st_store_build_stats stats;
    assert_st_ok(st_store_build_dem(src, dir, &bd, &stats, err));
    st_dem_source_destroy(src);
    st_store *s = NULL;
    assert_st_ok(st_store_open(dir, &s, err));
    return s;
}

/* The same in a fresh temporary folder. */
static inline st_store *analytic_store(const analytic *a, uint32_t tile_size, const char *tag) {
    return analytic_store_in(a, tile_size, test_temp_dir(tag));
}

/* An engine with validation on holding `store` as its large world (desc may be NULL). */
static inline st_engine *store_engine(st_store *store, const st_world_desc *desc) {
    st_engine *e = NULL;
    st_engine_desc d = {.validate = true};
    assert_st_ok(st_engine_create(&d, &e, err));
    assert_st_ok(st_engine_set_store(e, store, desc, err));
    return e;
}

/* A camera at world metres (x, y, z) looking along yaw/pitch, with a far distance. */
static inline st_camera store_camera(double x, double y, double z, float yaw, float pitch, float far) {
    st_camera c = {.yaw_deg = yaw, .pitch_deg = pitch, .far_dist = far};
    double eye[3] = {x, y, z};
    st_camera_set_eye(&c, eye);
    return c;
}

/* The distance along pixel (i, j)'s ray to the analytic surface (bisection after a fine march), NAN for none
 * inside the world and the far plane: the oracle of what any method should draw there. */
static inline double analytic_ray(const analytic *a, const st_view *v, uint32_t i, uint32_t j) {
    float dir[3], tn, tf;
    st_view_pixel_ray(v, i, j, dir, &tn, &tf);
    double ext = (double)(a->size - 1) * a->spacing, step = 0.25 * a->spacing, prev = tn;
    if (a->shape != SHAPE_SINE) { /* planes: exactly */
        double sx = a->shape == SHAPE_TILT ? a->slope_x : 0, sy = a->shape == SHAPE_TILT ? a->slope_y : 0;
        double den = dir[2] - sx * dir[0] - sy * dir[1];
        double t = (a->base + sx * v->origin[0] + sy * v->origin[1] - v->origin[2]) / den;
        double x = v->origin[0] + dir[0] * t, y = v->origin[1] + dir[1] * t;
        if (!(t >= tn && t <= tf) || x < 0 || y < 0 || x > ext || y > ext) return NAN;
        return t;
    }
    bool above_prev = true;
    for (double t = tn; t <= tf; t += step) {
        double p[3] = {v->origin[0] + dir[0] * t, v->origin[1] + dir[1] * t, v->origin[2] + dir[2] * t};
        bool inside = p[0] >= 0 && p[1] >= 0 && p[0] <= ext && p[1] <= ext;
        bool above = !inside || p[2] > analytic_bilinear(a, p[0], p[1]);
        if (!above && above_prev && t > tn) {
            double lo = prev, hi = t;
            for (int k = 0; k < 60; k++) {
                double m = 0.5 * (lo + hi);
                double q[3] = {v->origin[0] + dir[0] * m, v->origin[1] + dir[1] * m, v->origin[2] + dir[2] * m};
                bool qin = q[0] >= 0 && q[1] >= 0 && q[0] <= ext && q[1] <= ext;
                if (!qin || q[2] > analytic_bilinear(a, q[0], q[1])) lo = m;
                else hi = m;
            }
            return 0.5 * (lo + hi);
        }
        if (!above && t == tn) return t; /* the near plane inside the ground */
        above_prev = above;
        prev = t;
    }
    return NAN;
}

#endif
