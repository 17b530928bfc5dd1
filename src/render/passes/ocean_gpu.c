/* The FFT ocean on the GPU: not in this build yet; the water pass refuses the ocean mode. */
#include "render/passes/ocean_gpu.h"

st_result st_ocean_gpu_create(st_gpu *gpu, const st_water *water, st_ocean_gpu **out, st_error *err) {
    (void)gpu;
    (void)water;
    *out = NULL;
    return st_error_set(err, ST_ERR_UNSUPPORTED, "the FFT ocean is not built yet: use --water gerstner");
}
void st_ocean_gpu_destroy(st_ocean_gpu *ocean) { (void)ocean; }
st_result st_ocean_gpu_upload(st_ocean_gpu *ocean, const st_water *water, st_error *err) {
    (void)ocean;
    (void)water;
    return st_error_set(err, ST_ERR_UNSUPPORTED, "no FFT ocean");
}
void st_ocean_gpu_record(st_ocean_gpu *ocean, VkCommandBuffer cmd, double t, double dt, float choppiness,
                         float decay_s, bool fresh) {
    (void)ocean, (void)cmd, (void)t, (void)dt, (void)choppiness, (void)decay_s, (void)fresh;
}
VkImageView st_ocean_gpu_disp_view(const st_ocean_gpu *ocean) {
    (void)ocean;
    return VK_NULL_HANDLE;
}
VkImageView st_ocean_gpu_surf_view(const st_ocean_gpu *ocean) {
    (void)ocean;
    return VK_NULL_HANDLE;
}
