/* Picking: the terrain point under a pixel, found on the CPU with the one camera (st_view_pixel_dir) and
 * the one SOLID predicate, so it agrees with every method without reading anything back from the GPU. */
#include <math.h>

#include "strata/view.h"

/* Half a texel: a ray cannot cross a whole texel column between two samples unseen, except at a corner. */
#define PICK_STEP 0.5f
#define PICK_BISECTIONS 16

bool st_viewer_pick(const st_level *level, const st_camera *camera, uint32_t width, uint32_t height, float px,
                    float py, float hit[3]) {
    if (!level || !width || !height) return false;
    st_view v = st_camera_view(camera, width, height);
    float d[3];
    st_view_pixel_dir(&v, px, py, d);
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > 0)) return false;
    float cos_axis = v.focal_px / len;
    for (int k = 0; k < 3; k++) d[k] /= len;
    float t0 = v.near_dist / cos_axis, t1 = v.far_dist / cos_axis;
#define AT(t, k) (v.eye[k] + (t) * d[k])
#define SOLID_AT(t) st_level_solid(level, AT(t, 0), AT(t, 1), AT(t, 2))
    if (SOLID_AT(t0)) {
        for (int k = 0; k < 3; k++) hit[k] = AT(t0, k);
        return true;
    }
    float prev = t0;
    for (float t = t0 + PICK_STEP; prev < t1; prev = t, t += PICK_STEP) {
        if (t > t1) t = t1;
        if (!SOLID_AT(t)) continue;
        float lo = prev, hi = t; /* lo is empty, hi is solid */
        for (int i = 0; i < PICK_BISECTIONS; i++) {
            float mid = 0.5f * (lo + hi);
            if (SOLID_AT(mid)) hi = mid;
            else lo = mid;
        }
        for (int k = 0; k < 3; k++) hit[k] = AT(hi, k);
        return true;
    }
#undef SOLID_AT
#undef AT
    return false;
}
