/* Internals of the water module: the evaluator's state, shared by the spectrum (spectrum.c), the Gerstner set
 * (gerstner.c), the CPU ocean (ocean.c) and the query front end (water.c). */
#ifndef STRATA_WATER_INTERNAL_H
#define STRATA_WATER_INTERNAL_H

#include "strata/water.h"

struct st_water {
    st_water_desc desc; /* resolved */
    float chop;         /* the choppiness applied (after the Gerstner fold guard) */
    uint32_t cascade_count;
    st_water_cascade cascades[ST_WATER_MAX_CASCADES];
    float *h0[ST_WATER_MAX_CASCADES];    /* size² complex */
    float *omega[ST_WATER_MAX_CASCADES]; /* size² */
    uint32_t wave_count;
    st_gerstner_wave waves[ST_WATER_MAX_WAVES];
    /* the CPU fields of the last time asked for, per cascade (8 floats a texel) */
    double fields_t[ST_WATER_MAX_CASCADES];
    bool fields_valid[ST_WATER_MAX_CASCADES];
    float *fields[ST_WATER_MAX_CASCADES];
    double *scratch; /* 4 complex channels of size² */
    /* the shore (shore.c), NULL without a bed: the bed as set, and the fields built over it */
    uint32_t shore_w, shore_h, shore_layers;
    double shore_origin[2], shore_spacing;
    float *shore_bed;   /* units, NAN = unknown */
    float *shore;       /* shore_layers × w × h: depth (m), normal x, normal y, then F (m) per shoaling wave */
    uint32_t shoal_count; /* the Gerstner waves, or the cascades */
    float shoal_omega[ST_WATER_MAX_WAVES], shoal_k[ST_WATER_MAX_WAVES], shoal_amp[ST_WATER_MAX_WAVES];
};

/* What the shore makes of the waves at a rest point (shore.c): per shoaling wave the wavenumber ratio
 * k(d)/k_far, the shoaling coefficient, F (m) and the normal; `hold` scales every amplitude down to the surf
 * zone's height. Without a bed: ratio 1, Ks 1, F 0, hold 1. */
typedef struct st_shore_local {
    float depth_m, normal[2], height_m, breaking, hold;
    float ratio[ST_WATER_MAX_WAVES], ks[ST_WATER_MAX_WAVES], f_m[ST_WATER_MAX_WAVES];
} st_shore_local;
void st_shore_local_at(const st_water *w, double x_units, double y_units, st_shore_local *out);
/* Rebuilds the shore's fields for the current waves (after a change of weather); ST_OK without a bed. */
st_result st_shore_rebuild(st_water *w, st_error *err);
void st_shore_free(st_water *w);

/* spectrum.c: the cascades and their h0 and ω for w->desc (allocated on first call, rewritten after). */
st_result st_water_build_spectra(st_water *w, st_error *err);
/* The JONSWAP peak angular frequency for wind U (m/s) and fetch F (m). */
double st_water_peak_omega(double wind, double fetch_m);
/* gerstner.c: the wave set for w->desc and the choppiness after the fold guard. */
void st_water_build_waves(st_water *w);
/* The displacement (metres) of the rest point (x, y) metres at time t, λ applied: dx, dy, height. */
void st_gerstner_displace(const st_water *w, double t, double x, double y, double out[3]);
/* ocean.c: the fields of cascade c at time t into w->fields[c]. */
st_result st_ocean_cpu_fields(st_water *w, double t, uint32_t c, st_error *err);
/* The summed displacement (metres, λ applied) of the rest point (x, y) metres from the fields at time t. */
st_result st_ocean_displace(st_water *w, double t, double x, double y, double out[3], st_error *err);

#endif
