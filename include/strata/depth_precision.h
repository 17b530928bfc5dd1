/* The depth-precision experiment (src/render/depth_precision.c): two parallel planes facing the eye a gap apart,
 * swept in distance and drawn into a D32_SFLOAT depth buffer with standard Z (clear 1, LESS, d = f/(f−n)·(1 − n/z))
 * or reverse Z (clear 0, GREATER, d = n·(f − z)/(z·(f − n))), the engine's own convention. The standard-Z switch
 * exists for this experiment only; everything else in strata is reverse Z. */
#ifndef STRATA_DEPTH_PRECISION_H
#define STRATA_DEPTH_PRECISION_H

#include "strata/core.h"

#define ST_DEPTH_MAX_GAPS 8
#define ST_DEPTH_MAX_STEPS 512

typedef struct st_depth_precision_desc {
    double near_m, far_m;          /* 0 = 0.1 m and 10⁹ m */
    const double *gaps_m;          /* NULL = 0.01, 0.1, 1 */
    size_t gap_count;
    double from_m, to_m;           /* the sweep's first and last distance (0 = 1 m and 2·10⁷ m) */
    uint32_t steps_per_decade;     /* 0 = 24, geometric */
    uint32_t size;                 /* image side in pixels (0 = 64) */
    double threshold_pct;          /* the onset: the first distance with more pixels wrong (0 = 1 %) */
    /* the picture (NULL = none): for gap strip_gap, each step's frame's middle column side by side, standard Z
     * above reverse Z — step_count columns by 2·size rows, RGBA, tightly packed; room for ST_DEPTH_MAX_STEPS
     * columns. Green: the near plane, as it should be; red: the far one showing through */
    uint8_t *strip_rgba;
    size_t strip_gap;
    int device_index;
    bool device_given, validate;
} st_depth_precision_desc;

typedef struct st_depth_precision_result {
    char adapter[256], device_type[32];
    double near_m, far_m, threshold_pct;
    size_t gap_count, step_count;
    double gaps_m[ST_DEPTH_MAX_GAPS];
    double distance_m[ST_DEPTH_MAX_STEPS];
    /* pixels not showing the near plane: [gap][0 standard, 1 reverse][step]. The planes face the eye, so a step is
     * all or nothing but for rounding across the image, and past the onset it flickers with where z falls between
     * floats */
    double wrong_pct[ST_DEPTH_MAX_GAPS][2][ST_DEPTH_MAX_STEPS];
    double onset_m[ST_DEPTH_MAX_GAPS][2];                       /* NAN: no onset within the sweep */
    uint32_t validation_messages;
} st_depth_precision_result;

/* Runs the sweep on its own engine: for each gap and mode, the planes at distance z (near, green) and z + gap (far,
 * red; drawn first) at each step, read back, and the share of pixels not green (red, or nothing where both depths
 * rounded onto the cleared value). */
st_result st_depth_precision_run(const st_depth_precision_desc *desc, st_depth_precision_result *out, st_error *err);

#endif
