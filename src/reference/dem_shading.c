/* The shading of DEM ground (tile stores) in C, line for line the twin of shaders/common/dem_shading.glsl: a
 * hypsometric albedo by height, the shared sun and ambient terms, fog over the last tenth of the far distance.
 * Single precision like the GPU. */
#include <math.h>

#include "strata/shading.h"

/* The stops of the preview's tint (src/tiles/preview.c), by height above the sea over the highest point, as
 * sRGB-encoded colours; the albedo is their linear value. */
static const float STOPS[6][4] = {{0.00f, 0.36f, 0.55f, 0.30f}, {0.15f, 0.55f, 0.65f, 0.35f},
                                  {0.35f, 0.72f, 0.66f, 0.42f}, {0.60f, 0.58f, 0.47f, 0.36f},
                                  {0.85f, 0.80f, 0.78f, 0.76f}, {1.00f, 0.98f, 0.98f, 0.98f}};
static const float SEA[3] = {0.02f, 0.06f, 0.12f};

static float to_linear(float c) { return c * c; } /* γ 2 (the GLSL twin squares too) */

void st_dem_albedo(float h, float sea_m, float max_m, float rgb[3]) {
    if (h <= sea_m) {
        for (int k = 0; k < 3; k++) rgb[k] = SEA[k];
        return;
    }
    float top = max_m > sea_m ? max_m - sea_m : 1.0f;
    float t = (h - sea_m) / top;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    int i = 1;
    while (i < 5 && t > STOPS[i][0]) i++;
    float f = (t - STOPS[i - 1][0]) / (STOPS[i][0] - STOPS[i - 1][0]);
    for (int k = 0; k < 3; k++) {
        float c = STOPS[i - 1][k + 1] + f * (STOPS[i][k + 1] - STOPS[i - 1][k + 1]);
        rgb[k] = to_linear(c);
    }
}

static float smoothstep(float e0, float e1, float x) {
    float t = (x - e0) / (e1 - e0);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return t * t * (3.0f - 2.0f * t);
}

void st_dem_shade(const float p[3], float h, const float n[3], float visibility, float sea_m, float max_m,
                  float far_dist, float rgb[3]) {
    float albedo[3];
    st_dem_albedo(h, sea_m, max_m, albedo);
    float s = 1.0f / sqrtf(ST_SUN_X * ST_SUN_X + ST_SUN_Y * ST_SUN_Y + ST_SUN_Z * ST_SUN_Z);
    float l = (n[0] * ST_SUN_X + n[1] * ST_SUN_Y + n[2] * ST_SUN_Z) * s;
    float light = ST_AMBIENT + (1.0f - ST_AMBIENT) * visibility * (l > 0 ? l : 0);
    float band = st_store_fog_band(far_dist);
    float f = smoothstep(far_dist - band, far_dist, sqrtf(p[0] * p[0] + p[1] * p[1]));
    const float fog[3] = {ST_FOG_R, ST_FOG_G, ST_FOG_B};
    for (int k = 0; k < 3; k++) {
        float c = albedo[k] * light;
        rgb[k] = c + (fog[k] - c) * f;
    }
}
