/* Helpers shared by the tests: analytic levels, a GPU engine with validation on, one-frame renders read
 * back as depth or distances, the CPU reference's distances, the checks every method must pass on the
 * analytic scenes, temp directories, JSON reports read back. */
#ifndef STRATA_TEST_SUPPORT_H
#define STRATA_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "strata/camera.h"
#include "strata/level.h"
#include "strata/render.h"

/* ---- levels ----------------------------------------------------------------------------------------- */

/* A level of the given size, flat at `floor` height with material 1. Fails the test on error. */
st_level *test_flat_level(uint32_t w, uint32_t h, uint8_t floor);
/* 256², floor at 10; a slab over x, y in [96, 160) with ceiling (mid) 90 and top (high) 100. */
st_level *test_slab_level(void);
/* test_slab_level plus a cliff wall of height 150 at x in [160, 168): the back wall of the cave. */
st_level *test_slab_cave_level(void);
/* w×h (w even) of random texel pairs after srand(seed): a third duals with mid on its 8-step grid, so
 * boundary heights fall on voxel planes often, the rest two random singles. */
st_level *test_random_level(uint32_t w, uint32_t h, unsigned seed);

/* ---- engine and frames ------------------------------------------------------------------------------- */

/* An engine with validation on, holding `level`. Fails the test on error. */
st_engine *test_engine(const st_level *level);
/* Asserts the engine saw no validation messages, destroys it, then destroys `level` when given. */
void test_engine_finish(st_engine *engine, st_level *level);
/* A renderer of `method` at w×h; knobs NULL = the defaults. */
st_renderer *test_renderer(st_engine *e, const char *method, uint32_t w, uint32_t h, const st_method_knobs *knobs);
/* Draws one frame with `r` and reads back its reverse-Z depth (w·h floats, 0 = miss); the caller frees it. */
float *test_draw_depth(st_renderer *r, st_camera cam, uint32_t w, uint32_t h);
/* Draws one frame with `r`: the distance along the centre pixel's ray; NAN on a miss. */
float test_draw_centre_distance(st_renderer *r, st_camera cam, uint32_t w, uint32_t h);
/* One frame of `method` on a renderer of its own: the reverse-Z depth (w·h floats, 0 = miss); caller frees. */
float *test_render_depth(st_engine *e, const char *method, st_camera cam, uint32_t w, uint32_t h,
                         const st_method_knobs *knobs);
/* The same frame as distances along each pixel's ray (NAN = nothing drawn); rgba (w·h·4 bytes) optional. */
float *test_render_distances(st_engine *e, const char *method, st_camera cam, uint32_t w, uint32_t h,
                             const st_method_knobs *knobs, uint8_t *rgba);
/* Distance along pixel (i, j)'s ray in a depth image of v's size, and the world point hit; NAN on a miss. */
float test_pixel_hit(const st_view *v, const float *depth, uint32_t i, uint32_t j, float hit[3]);
/* One frame of `method` (colour read back too): the centre pixel's distance and hit point; NAN on a miss. */
float test_centre_hit(st_engine *e, const char *method, st_camera cam, uint32_t w, uint32_t h,
                      const st_method_knobs *knobs, float hit[3]);

/* The CPU reference's distances for the same frame (NAN = sky); the caller frees them. */
float *test_reference_distances(const st_level *level, st_camera cam, uint32_t w, uint32_t h);

/* The top-down camera over (128, 128) from z = 200 that watches the crater of test_dig_crater. */
st_camera test_crater_camera(void);
/* Draws test_crater_camera's w×h frame with `r`, digs a crater (radius 20, depth 60) at (128, 128) into
 * `level` and the engine (no dig when `level` is NULL), draws again: the centre distances before and after. */
void test_dig_crater(st_engine *e, st_renderer *r, uint32_t w, uint32_t h, st_level *level, float *before,
                     float *after);

/* ---- the analytic scenes every method must get right (failures name `label`, NULL = the method) ----- */

/* On test_flat_level(…, 40): top-down from z = 100 the centre distance is within `tol` of the analytic
 * one, and a ray looking 10° above the horizon hits nothing. */
void test_expect_flat_floor(st_engine *e, const char *method, uint32_t w, uint32_t h, const st_method_knobs *knobs,
                            const char *label, float tol);
/* On test_slab_cave_level: into the opening at eye level the back wall at x = 160 (within wall_tol), and
 * within `tol` in z the ceiling at 90 and the cave floor at 10 from inside, the slab top at 100 from above. */
void test_expect_slab_cave(st_engine *e, const char *method, uint32_t w, uint32_t h, const st_method_knobs *knobs,
                           const char *label, float tol, float wall_tol);

/* ---- files ------------------------------------------------------------------------------------------- */

/* A fresh empty directory under $TMPDIR (removed by the OS, not the test). */
const char *test_temp_dir(const char *tag);
/* A JSON file parsed (the caller deletes it); fails the test when it is missing or not JSON. */
cJSON *test_read_json(const char *path);
/* Member `name` of o; fails the test when it is missing. */
const cJSON *test_json_field(const cJSON *o, const char *name);
/* Member `name` of o as a number or a string; fails the test when it is missing or of another type. */
double test_json_number(const cJSON *o, const char *name);
const char *test_json_string(const cJSON *o, const char *name);

/* ---- DEM voids ----------------------------------------------------------------------------------------- */

/* The DEM readers' void fill written out the slow, obvious way, to check the fast one against: for the void
 * at (x, y) of a w×h grid of raw values (NAN = void), the nearest Chebyshev ring r ≤ radius holding a valid
 * sample, then the inverse-distance-squared mean of the valid samples on rings r and r + 1 (≤ radius),
 * rounded when integral; *sea and sea_raw when there is none. */
float test_dem_reference_fill(const float *raw, uint32_t w, uint32_t h, uint32_t x, uint32_t y, int radius,
                              bool integral, float sea_raw, bool *sea);

/* Asserts a call returned ST_OK and prints its message otherwise. */
#define assert_st_ok(expr)                                                                             \
    do {                                                                                               \
        st_error err_ = {0};                                                                           \
        st_error *err = &err_;                                                                         \
        (void)err;                                                                                     \
        st_result r_ = (expr);                                                                         \
        if (r_ != ST_OK) fail_msg("%s failed: %s", #expr, err_.message);                               \
    } while (0)

#endif
