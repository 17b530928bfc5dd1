/* The water's front end: descriptor defaults and checks, the world's water level, and the one query of the
 * displaced surface over both modes (Gerstner and the FFT ocean) in world units. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "water/water_internal.h"

static const float DEFAULT_PATCH_M[ST_WATER_MAX_CASCADES] = {250.0f, 37.3f, 5.7f, 1.07f};

st_water_desc st_water_desc_resolve(const st_water_desc *in) {
    st_water_desc d = in ? *in : (st_water_desc){0};
    if (d.wind_speed == 0) d.wind_speed = 5.0f;
    if (d.fetch_km == 0) d.fetch_km = 10.0f;
    if (d.choppiness == 0) d.choppiness = 1.0f; /* negative stays: none */
    if (d.cascades == 0) d.cascades = 3;
    if (d.fft_size == 0) d.fft_size = 256;
    for (uint32_t c = 0; c < ST_WATER_MAX_CASCADES; c++)
        if (d.patch_m[c] == 0) d.patch_m[c] = DEFAULT_PATCH_M[c];
    if (d.band_split == 0) d.band_split = 8.0f;
    if (d.gerstner_waves == 0) d.gerstner_waves = 5;
    if (d.metres_per_unit == 0) d.metres_per_unit = 1.0f;
    if (d.foam_decay_s == 0) d.foam_decay_s = 2.5f;
    if (d.shore_slope == 0) d.shore_slope = 0.1f;
    if (d.seed == 0) d.seed = 1;
    return d;
}

static bool in_range(float v, float lo, float hi) { return isfinite(v) && v >= lo && v <= hi; }

st_result st_water_desc_check(const st_water_desc *desc, st_error *err) {
    st_water_desc d = st_water_desc_resolve(desc);
    if (d.mode > ST_WATER_OCEAN) return st_error_set(err, ST_ERR_INVALID, "water: unknown mode %d", (int)d.mode);
    if (d.draw > ST_WATER_DRAW_RASTER) return st_error_set(err, ST_ERR_INVALID, "water: unknown way of drawing %d", (int)d.draw);
    if (d.spectrum > ST_SPECTRUM_PHILLIPS)
        return st_error_set(err, ST_ERR_INVALID, "water: unknown spectrum %d", (int)d.spectrum);
    if (!in_range(d.wind_speed, 0.1f, 60.0f))
        return st_error_set(err, ST_ERR_INVALID, "water: wind speed %g m/s is outside 0.1..60", d.wind_speed);
    if (!in_range(d.wind_dir_deg, -360.0f, 360.0f))
        return st_error_set(err, ST_ERR_INVALID, "water: wind direction %g is outside -360..360", d.wind_dir_deg);
    if (!in_range(d.fetch_km, 0.1f, 10000.0f))
        return st_error_set(err, ST_ERR_INVALID, "water: fetch %g km is outside 0.1..10000", d.fetch_km);
    if (!in_range(d.choppiness, -1e6f, 4.0f))
        return st_error_set(err, ST_ERR_INVALID, "water: choppiness %g is past 4 (or not a number)", d.choppiness);
    if (d.cascades < 1 || d.cascades > ST_WATER_MAX_CASCADES)
        return st_error_set(err, ST_ERR_INVALID, "water: %u cascades (1..%u)", d.cascades, ST_WATER_MAX_CASCADES);
    if (!st_is_pow2(d.fft_size) || d.fft_size < 16 || d.fft_size > 512)
        return st_error_set(err, ST_ERR_INVALID, "water: FFT size %u is not a power of two in 16..512", d.fft_size);
    for (uint32_t c = 0; c < d.cascades; c++) {
        if (!in_range(d.patch_m[c], 0.1f, 100000.0f))
            return st_error_set(err, ST_ERR_INVALID, "water: patch %u of %g m is outside 0.1..100000", c, d.patch_m[c]);
        if (c && !(d.patch_m[c] < d.patch_m[c - 1]))
            return st_error_set(err, ST_ERR_INVALID, "water: patch sizes must decrease (%g after %g)", d.patch_m[c],
                                d.patch_m[c - 1]);
    }
    if (!in_range(d.band_split, -1e6f, 64.0f))
        return st_error_set(err, ST_ERR_INVALID, "water: band split %g is past 64", d.band_split);
    if (d.gerstner_waves > ST_WATER_MAX_WAVES)
        return st_error_set(err, ST_ERR_INVALID, "water: %u Gerstner waves (1..%u)", d.gerstner_waves, ST_WATER_MAX_WAVES);
    if (!in_range(d.level, -1e6f, 1e6f)) return st_error_set(err, ST_ERR_INVALID, "water: level %g is past 1e6", d.level);
    if (!in_range(d.metres_per_unit, 1e-3f, 1e4f))
        return st_error_set(err, ST_ERR_INVALID, "water: %g metres per unit is outside 0.001..10000", d.metres_per_unit);
    if (!in_range(d.foam_decay_s, 0.01f, 600.0f))
        return st_error_set(err, ST_ERR_INVALID, "water: foam decay %g s is outside 0.01..600", d.foam_decay_s);
    if (!in_range(d.depth_m, 0.0f, 1e5f))
        return st_error_set(err, ST_ERR_INVALID, "water: depth %g m is outside 0..100000", d.depth_m);
    if (!in_range(d.shore_slope, 1e-4f, 10.0f))
        return st_error_set(err, ST_ERR_INVALID, "water: shore slope %g is outside 0.0001..10", d.shore_slope);
    return ST_OK;
}

double st_water_dispersion(double k, double depth_m) {
    if (!(k > 0)) return 0.0;
    return depth_m > 0 ? sqrt(ST_WATER_G * k * tanh(k * depth_m)) : sqrt(ST_WATER_G * k);
}

double st_water_dispersion_slope(double k, double depth_m) {
    double w = st_water_dispersion(k, depth_m);
    if (!(w > 0)) return 0.0;
    if (!(depth_m > 0)) return ST_WATER_G / (2.0 * w);
    double th = tanh(k * depth_m);
    return ST_WATER_G * (th + k * depth_m * (1.0 - th * th)) / (2.0 * w);
}

const char *st_water_mode_name(st_water_mode mode) {
    switch (mode) {
    case ST_WATER_NONE: return "none";
    case ST_WATER_GERSTNER: return "gerstner";
    case ST_WATER_OCEAN: return "ocean";
    }
    return "?";
}

bool st_water_mode_parse(const char *name, st_water_mode *mode) {
    for (int m = ST_WATER_NONE; m <= ST_WATER_OCEAN; m++)
        if (!strcmp(name, st_water_mode_name((st_water_mode)m))) {
            *mode = (st_water_mode)m;
            return true;
        }
    return false;
}

const char *st_water_draw_name(st_water_draw draw) {
    switch (draw) {
    case ST_WATER_DRAW_COMPUTE: return "compute";
    case ST_WATER_DRAW_RASTER: return "raster";
    }
    return "?";
}

bool st_water_draw_parse(const char *name, st_water_draw *draw) {
    for (int m = ST_WATER_DRAW_COMPUTE; m <= ST_WATER_DRAW_RASTER; m++)
        if (!strcmp(name, st_water_draw_name((st_water_draw)m))) {
            *draw = (st_water_draw)m;
            return true;
        }
    return false;
}

float st_water_default_level(const st_level *level) {
    uint32_t sections = level->height >> level->section_power;
    if (!sections) sections = 1;
    uint32_t count[256] = {0};
    for (uint32_t s = 0; s < sections; s++) count[level->flood[s]]++;
    uint32_t best = 0;
    for (uint32_t v = 1; v < 256; v++)
        if (count[v] > count[best]) best = v;
    return (float)best + 0.5f;
}

bool st_water_world_has_water(const st_level *level) {
    float z = st_water_default_level(level);
    for (uint32_t y = 0; y < level->height; y++) {
        const uint8_t *h = st_level_height_row(level, y), *m = st_level_meta_row(level, y);
        for (uint32_t x = 0; x < level->width; x++)
            if ((float)h[x] <= z && st_meta_type(level, m[x]) == 0) return true;
    }
    return false;
}

st_result st_water_create(const st_water_desc *desc, st_water **out, st_error *err) {
    *out = NULL;
    st_result r = st_water_desc_check(desc, err);
    if (r) return r;
    st_water *w = calloc(1, sizeof *w);
    if (!w) return st_error_set(err, ST_ERR_NOMEM, "water: out of memory");
    w->desc = st_water_desc_resolve(desc);
    st_water_build_waves(w); /* also the choppiness applied */
    r = st_water_build_spectra(w, err);
    if (r) {
        st_water_destroy(w);
        return r;
    }
    *out = w;
    return ST_OK;
}

void st_water_destroy(st_water *w) {
    if (!w) return;
    for (uint32_t c = 0; c < ST_WATER_MAX_CASCADES; c++) {
        free(w->h0[c]);
        free(w->omega[c]);
        free(w->fields[c]);
    }
    st_shore_free(w);
    free(w->scratch);
    free(w);
}

const st_water_desc *st_water_get_desc(const st_water *w) { return &w->desc; }

st_result st_water_set_weather(st_water *w, float wind_speed, float wind_dir_deg, float choppiness, st_error *err) {
    st_water_desc d = w->desc;
    d.wind_speed = wind_speed;
    d.wind_dir_deg = wind_dir_deg;
    d.choppiness = choppiness;
    st_result r = st_water_desc_check(&d, err);
    if (r) return r;
    w->desc = st_water_desc_resolve(&d);
    st_water_build_waves(w);
    r = st_water_build_spectra(w, err);
    return r ? r : st_shore_rebuild(w, err); /* the waves' F follow their new frequencies */
}

uint32_t st_water_cascade_count(const st_water *w) { return w->cascade_count; }
st_water_cascade st_water_cascade_at(const st_water *w, uint32_t c) {
    return c < w->cascade_count ? w->cascades[c] : (st_water_cascade){0};
}
const float *st_water_h0(const st_water *w, uint32_t c) { return c < w->cascade_count ? w->h0[c] : NULL; }
const float *st_water_omega(const st_water *w, uint32_t c) { return c < w->cascade_count ? w->omega[c] : NULL; }
uint32_t st_water_wave_count(const st_water *w) { return w->wave_count; }
const st_gerstner_wave *st_water_waves(const st_water *w) { return w->waves; }
float st_water_choppiness(const st_water *w) { return w->chop; }

st_result st_water_fields(st_water *w, double t, uint32_t c, const float **fields, st_error *err) {
    st_result r = st_ocean_cpu_fields(w, t, c, err);
    *fields = r ? NULL : w->fields[c];
    return r;
}

/* displacement in world units of the rest point (x, y) world units */
static st_result displace_units(st_water *w, double t, double x, double y, double d[3], st_error *err) {
    if (!isfinite(t) || !isfinite(x) || !isfinite(y))
        return st_error_set(err, ST_ERR_INVALID, "water: query at a point or time that is not finite");
    double mpu = w->desc.metres_per_unit;
    d[0] = d[1] = d[2] = 0;
    st_result r = ST_OK;
    if (w->desc.mode == ST_WATER_GERSTNER) st_gerstner_displace(w, t, x * mpu, y * mpu, d);
    else if (w->desc.mode == ST_WATER_OCEAN) r = st_ocean_displace(w, t, x * mpu, y * mpu, d, err);
    for (int k = 0; k < 3; k++) d[k] /= mpu;
    return r;
}

st_result st_water_displace(st_water *w, double t, double x, double y, float out[3], st_error *err) {
    double d[3];
    st_result r = displace_units(w, t, x, y, d, err);
    if (r) return r;
    out[0] = (float)(x + d[0]);
    out[1] = (float)(y + d[1]);
    out[2] = (float)(w->desc.level + d[2]);
    return ST_OK;
}

st_result st_water_height(st_water *w, double t, double x, double y, float *z, st_error *err) {
    /* x0 ← (x, y) − D(x0): a contraction while the horizontal map is far from folding */
    double x0 = x, y0 = y, d[3] = {0, 0, 0};
    for (int it = 0; it < 16; it++) {
        st_result r = displace_units(w, t, x0, y0, d, err);
        if (r) return r;
        double nx = x - d[0], ny = y - d[1];
        bool done = fabs(nx - x0) < 1e-6 && fabs(ny - y0) < 1e-6;
        x0 = nx;
        y0 = ny;
        if (done) break;
    }
    st_result r = displace_units(w, t, x0, y0, d, err);
    if (r) return r;
    *z = (float)(w->desc.level + d[2]);
    return ST_OK;
}
