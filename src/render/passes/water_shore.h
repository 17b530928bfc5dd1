/* The water pass's shore on the GPU (water_shore.c): the bed of a level set on the water's CPU evaluator and
 * its shoaling fields uploaded for the shaders (shaders/water/water_common.glsl, water_shore_at). */
#ifndef STRATA_WATER_SHORE_GPU_H
#define STRATA_WATER_SHORE_GPU_H

#include "gpu/gpu.h"
#include "strata/water.h"

/* The shore's fields on the GPU over a window of the level around the eye (the whole level when it is small). */
typedef struct st_water_shore_gpu {
    st_gpu_image image; /* R32F 2D array, SHADER_READ_ONLY_OPTIMAL; one size for the renderer's life */
    st_rect rect;       /* the texels the fields cover */
    bool whole;         /* the window is the whole level: it never moves */
} st_water_shore_gpu;

/* Keeps the window around the eye (world texels): on the first call, and once the eye is more than a quarter
 * of the window from its centre, sets the bed of `level` under the water's level over the new window on `water`
 * (one sample a texel) and uploads its fields (waits for the device). *moved says whether it did. */
st_result st_water_shore_gpu_update(st_gpu *gpu, const st_level *level, st_water *water, const double eye[2],
                                    st_water_shore_gpu *shore, bool *moved, st_error *err);
/* Uploads the water's shore fields again (after a change of weather: the waves' offsets follow their
 * frequencies); waits for the device. */
st_result st_water_shore_gpu_upload(st_gpu *gpu, const st_water *water, st_gpu_image *img, st_error *err);
void st_water_shore_gpu_destroy(st_gpu *gpu, st_water_shore_gpu *shore);

#endif
