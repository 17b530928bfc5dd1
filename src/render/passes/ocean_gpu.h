/* The FFT ocean on the GPU (ocean_gpu.c, shaders/water/ocean_*.comp): the cascades' h0 and ω uploaded once
 * (again after a change of weather), then per frame the spectrum advanced to t, the 2-D inverse FFTs (rows then
 * columns, in shared memory, four complex transforms carrying the eight real fields), and the resolve into the
 * displacement, slope and foam textures with their mips. Used by the water pass, the tests and the benchmark. */
#ifndef STRATA_OCEAN_GPU_H
#define STRATA_OCEAN_GPU_H

#include "gpu/gpu.h"
#include "strata/water.h"

typedef struct st_ocean_gpu st_ocean_gpu;

/* Resources for the ocean of `water` (mode OCEAN) and its spectra uploaded. */
st_result st_ocean_gpu_create(st_gpu *gpu, const st_water *water, st_ocean_gpu **out, st_error *err);
void st_ocean_gpu_destroy(st_ocean_gpu *ocean);
/* Uploads the spectra again (after st_water_set_weather); waits for the device. */
st_result st_ocean_gpu_upload(st_ocean_gpu *ocean, const st_water *water, st_error *err);
/* Records one step of the simulation at time t (s): dt is the time since the last step, for the foam's decay
 * with time constant decay_s; fresh restarts the foam from this step's folds alone. The textures are ready for
 * vertex and fragment shaders afterwards. */
void st_ocean_gpu_record(st_ocean_gpu *ocean, VkCommandBuffer cmd, double t, double dt, float choppiness,
                         float decay_s, bool fresh);
/* The textures, 2D arrays of one layer per cascade in GENERAL layout: (λDx, λDy, h, J) in metres, RGBA32F,
 * and (slope x, slope y, slope², foam), RGBA16F; both with their whole mip chains. */
VkImageView st_ocean_gpu_disp_view(const st_ocean_gpu *ocean);
VkImageView st_ocean_gpu_surf_view(const st_ocean_gpu *ocean);
st_gpu_image *st_ocean_gpu_disp(st_ocean_gpu *ocean);
st_gpu_image *st_ocean_gpu_surf(st_ocean_gpu *ocean);
/* For the benchmark: from now on each step also writes 5 timestamps into pool from `first` on — before the rows,
 * after the rows, the columns, the resolve and the mips (the pool's reset is the caller's); VK_NULL_HANDLE stops. */
void st_ocean_gpu_set_timestamps(st_ocean_gpu *ocean, VkQueryPool pool, uint32_t first);
/* For tests: 1 packs h alone into its transform (its partner field zero), so the imaginary part of that
 * transform's output is the height's own (it must vanish: the spectrum is Hermitian); 0 is the normal packing. */
void st_ocean_gpu_set_test_packing(st_ocean_gpu *ocean, uint32_t mode);
/* For tests: reads back the raw transform of cascade c after the last step — size² texels of 4 complex
 * values (the four packed transforms, before the (−1)^(x+y) sign), waits for the device. */
st_result st_ocean_gpu_read_transform(st_ocean_gpu *ocean, uint32_t c, float *out, st_error *err);

#endif
