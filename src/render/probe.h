/* GPU probes of the shaders' shared functions (for tests): SOLID, the surface decode and the shading. */
#ifndef STRATA_PROBE_H
#define STRATA_PROBE_H

#include "render/render_internal.h"

typedef struct st_probe_result {
    bool solid, dual, outside;
    uint8_t low, mid, high, low_type, high_type;
} st_probe_result;

st_result st_engine_probe_solid(st_engine *e, const float (*points)[3], uint32_t count, st_probe_result *out,
                                st_error *err);

/* The shading probe (shaders/shade_probe.comp): per input a surface point p, the sun's visibility and a normal
 * (length 0 = the gradient normal); the probe renderer's globals have shadows off, the eye at the origin and far
 * 600. Mirrors of the std430 structs. */
typedef struct st_shade_probe_in {
    float p[3], visibility;
    float normal[3], pad;
} st_shade_probe_in;
typedef struct st_shade_probe_out {
    float lit[4];      /* shade_lit(p, surface_at(⌊p⌋), n, visibility), linear */
    float point[4];    /* shade_point(p, surface, normal) with the probe's shadows off (visibility 1) */
    float gradient[4]; /* gradient_normal(p, upper of the column at p.z) */
    float srgb[4];     /* linear_to_srgb(lit) */
} st_shade_probe_out;
st_result st_engine_probe_shade(st_engine *e, const st_shade_probe_in *in, uint32_t count, st_shade_probe_out *out,
                                st_error *err);

#endif
