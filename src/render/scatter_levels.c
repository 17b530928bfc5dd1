/* Scattered's quadtree levels for one frame (scatter_levels.h). */
#include <math.h>

#include "render/scatter_levels.h"

int st_scatter_levels(const float b[4], const float eye[2], float lod, st_scatter_level out[ST_SCATTER_MAX_LEVELS]) {
    float rmax = 0.0f;
    for (int c = 0; c < 4; c++) {
        float dx = b[(c & 1) ? 2 : 0] - eye[0], dy = b[(c & 2) ? 3 : 1] - eye[1];
        rmax = fmaxf(rmax, sqrtf(dx * dx + dy * dy));
    }
    int root = 1;
    while (root < ST_SCATTER_MAX_BLOCK && 2.0f * (float)root * lod <= rmax) root *= 2;
    int n = 0;
    for (int k = 1; k <= root; k *= 2) {
        /* leaves of level k < root have a parent nearer than 2k·lod, so they lie within this radius */
        float reach = k == root ? INFINITY : 2.0f * (float)k * (lod + 1.5f);
        double x0 = fmax(b[0], eye[0] - reach), x1 = fmin(b[2], eye[0] + reach);
        double y0 = fmax(b[1], eye[1] - reach), y1 = fmin(b[3], eye[1] + reach);
        if (x1 < x0 || y1 < y0) continue;
        int32_t ix0 = (int32_t)floor(x0 / k) * k, iy0 = (int32_t)floor(y0 / k) * k;
        int32_t ix1 = (int32_t)floor(x1 / k) * k + k, iy1 = (int32_t)floor(y1 / k) * k + k;
        out[n++] = (st_scatter_level){.origin = {ix0, iy0},
                                      .count = {(ix1 - ix0) / k, (iy1 - iy0) / k},
                                      .k = k,
                                      .root = k == root};
    }
    return n;
}
