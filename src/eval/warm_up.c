/* Warming a renderer up before it is timed: enough frames, and enough GPU work to bring the clock up. */
#include <math.h>

#include "eval/eval_internal.h"

st_result st_eval_warm_up_first(st_renderer *rn, const st_camera *cam, uint32_t frames, double *wall_ms,
                                st_frame_timing *first, st_error *err) {
    double start = st_time_ms();
    st_result res = ST_OK;
    bool gpu_timed = true; /* until a frame says otherwise: a CPU adapter has no clock to wait for */
    if (first) *first = (st_frame_timing){.gpu_ms = NAN};
    for (uint32_t k = 0; !res; k++) {
        if (k >= frames && (!gpu_timed || st_time_ms() - start >= ST_EVAL_WARM_UP_MS)) break;
        st_frame_timing ft;
        res = st_renderer_draw(rn, cam, &ft, err);
        if (!res && !isfinite(ft.gpu_ms)) gpu_timed = false;
        if (!res && k == 0 && first) *first = ft;
    }
    if (wall_ms) *wall_ms = st_time_ms() - start;
    return res;
}

st_result st_eval_warm_up(st_renderer *rn, const st_camera *cam, uint32_t frames, double *wall_ms, st_error *err) {
    return st_eval_warm_up_first(rn, cam, frames, wall_ms, NULL, err);
}
