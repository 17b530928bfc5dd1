/* The Gerstner wave set: a few trochoidal waves around the wind, from the spectrum's peak wavelength down by
 * the golden ratio, each with a steepness Q, amplitude A = Q/k and ω² = g·k·tanh(k·h) (deep water: g·k); the
 * choppiness is capped so the summed λ·Q stays under the fold at 1. shaders/water/gerstner.glsl is the GPU twin. */
#include <math.h>

#include "water/water_internal.h"

#define PI 3.14159265358979323846

static const float WAVE_TURN_DEG[ST_WATER_MAX_WAVES] = {0, 27, -33, 51, -62, 14, -45, 70};
static const float WAVE_STEEPNESS[ST_WATER_MAX_WAVES] = {0.16f, 0.14f, 0.12f, 0.10f, 0.08f, 0.07f, 0.06f, 0.05f};
#define FOLD_GUARD 0.9f

static uint32_t hash32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

/* The k whose ω is `omega` over water `depth` deep: g·k·tanh(k·h) grows with k, so bisection between the deep
 * water's k (tanh < 1: the answer is no smaller) and a bound doubled until it is past. */
static double wavenumber_of(double omega, double depth) {
    double lo = omega * omega / ST_WATER_G, hi = 2.0 * lo + omega / sqrt(ST_WATER_G * depth);
    while (st_water_dispersion(hi, depth) < omega) hi *= 2.0;
    for (int it = 0; it < 100; it++) {
        double mid = 0.5 * (lo + hi);
        if (st_water_dispersion(mid, depth) < omega) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

void st_water_build_waves(st_water *w) {
    const st_water_desc *d = &w->desc;
    double kp;
    if (d->spectrum == ST_SPECTRUM_PHILLIPS) {
        double L = d->wind_speed * d->wind_speed / ST_WATER_G;
        kp = 1.0 / (L * sqrt(2.0)); /* the maximum of exp(−1/(kL)²)/k⁴·k (per |k|) */
    } else {
        double wp = st_water_peak_omega(d->wind_speed, d->fetch_km * 1000.0);
        kp = wp * wp / ST_WATER_G;
        if (d->depth_m > 0) kp = wavenumber_of(wp, d->depth_m); /* over shallow water a shorter wave */
    }
    w->wave_count = d->mode == ST_WATER_GERSTNER ? d->gerstner_waves : 0;
    double qsum = 0;
    for (uint32_t i = 0; i < w->wave_count; i++) {
        st_gerstner_wave *v = &w->waves[i];
        double th = (d->wind_dir_deg + WAVE_TURN_DEG[i]) * PI / 180.0;
        v->dir[0] = (float)sin(th);
        v->dir[1] = (float)cos(th);
        double k = kp * pow(1.6180339887, (double)i);
        double q = round(st_water_dispersion(k, d->depth_m) * ST_WATER_LOOP_S / (2.0 * PI));
        v->k = (float)k;
        v->omega = (float)((q < 1 ? 1 : q) * 2.0 * PI / ST_WATER_LOOP_S);
        v->steepness = WAVE_STEEPNESS[i];
        v->amplitude = (float)(WAVE_STEEPNESS[i] / k);
        v->phase = (float)(2.0 * PI * (hash32(d->seed * 0x9e3779b9u + i) & 0xFFFFu) / 65536.0);
        qsum += WAVE_STEEPNESS[i];
    }
    double lambda = d->choppiness > 0 ? d->choppiness : 0;
    if (qsum > 0 && lambda * qsum > FOLD_GUARD) lambda = FOLD_GUARD / qsum;
    w->chop = (float)lambda;
}

void st_gerstner_displace(const st_water *w, double t, double x, double y, double out[3]) {
    double tm = st_water_loop_time(t), mpu = w->desc.metres_per_unit;
    st_shore_local sh;
    st_shore_local_at(w, x / mpu, y / mpu, &sh);
    out[0] = out[1] = out[2] = 0;
    /* over the shore: each wave's phase taken at x − F·m̂ along its own direction, shorter and turned toward the
     * shore normal, its amplitude shoaled and held to the surf zone, the choppiness kept under the fold there */
    double dir[ST_WATER_MAX_WAVES][2], amp[ST_WATER_MAX_WAVES], qsum = 0;
    for (uint32_t i = 0; i < w->wave_count; i++) {
        const st_gerstner_wave *v = &w->waves[i];
        double dm = v->dir[0] * sh.normal[0] + v->dir[1] * sh.normal[1], r1 = sh.ratio[i] - 1.0;
        double kx = v->dir[0] + r1 * dm * sh.normal[0], ky = v->dir[1] + r1 * dm * sh.normal[1];
        double len = sqrt(kx * kx + ky * ky);
        dir[i][0] = kx / len;
        dir[i][1] = ky / len;
        amp[i] = v->amplitude * sh.ks[i] * sh.hold;
        qsum += v->k * len * amp[i];
    }
    double lambda = w->chop;
    if (qsum > 0 && lambda * qsum > FOLD_GUARD) lambda = FOLD_GUARD / qsum;
    for (uint32_t i = 0; i < w->wave_count; i++) {
        const st_gerstner_wave *v = &w->waves[i];
        double px = x - sh.f_m[i] * sh.normal[0], py = y - sh.f_m[i] * sh.normal[1];
        double th = (double)v->k * ((double)v->dir[0] * px + (double)v->dir[1] * py) - (double)v->omega * tm + v->phase;
        double c = cos(th), s = sin(th), a = amp[i];
        out[0] += lambda * a * dir[i][0] * c;
        out[1] += lambda * a * dir[i][1] * c;
        out[2] += a * s;
    }
}
