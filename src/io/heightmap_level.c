/* Heightmap → level: the quantisation of an elevation model into a single-layer level with power-of-two sides
 * at its true vertical scale (crop or resample, materials by height bands, flood at sea level). No codec: the
 * web build takes it too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/heightmap.h"

static uint32_t pow2_floor(uint32_t v) {
    uint32_t p = 1;
    while (p * 2 <= v && p < ST_LEVEL_MAX_DIM) p *= 2;
    return p;
}
static uint32_t pow2_nearest(uint32_t v) {
    uint32_t lo = pow2_floor(v);
    if (lo >= ST_LEVEL_MAX_DIM) return lo;
    return (v - lo) * 2 >= lo ? lo * 2 : lo; /* geometric midpoint is 1.41·lo; arithmetic is simpler and fine */
}

/* The largest exaggeration that keeps a relief of `relief_m` within 255 steps of texel/E metres, rounded down
 * to three significant digits so that the figure printed works as given. */
static double max_exaggeration(double texel_m, double relief_m) {
    double e = 255.0 * texel_m / relief_m;
    double p = pow(10.0, floor(log10(e)) - 2);
    return floor(e / p) * p;
}

/* Values of the level's grid in sample units: the cropped window as it is, or the whole heightmap resampled
 * bilinearly (sample centres aligned, edges clamped; wrapped in x for a whole globe). */
static double *level_values(const st_heightmap *hm, uint32_t tw, uint32_t th, const st_heightmap_level_info *inf) {
    double *v = malloc(sizeof(double) * (size_t)tw * th);
    if (!v) return NULL;
    const int32_t *S = hm->samples;
    const size_t W = hm->width;
    for (uint32_t y = 0; y < th; y++)
        for (uint32_t x = 0; x < tw; x++) {
            double s;
            if (!inf->resampled) {
                s = S[(size_t)(y + inf->y0) * W + x + inf->x0];
            } else if (hm->wrap_x) { /* a whole globe: the seam is interpolated across, not clamped */
                double fx = ((double)x + 0.5) * hm->width / tw - 0.5, fy = ((double)y + 0.5) * hm->height / th - 0.5;
                if (fy < 0) fy = 0;
                double bx = floor(fx);
                uint32_t x0 = (uint32_t)(((int64_t)bx % (int64_t)W + (int64_t)W) % (int64_t)W), x1 = (x0 + 1) % (uint32_t)W;
                uint32_t y0 = (uint32_t)fy;
                if (y0 >= hm->height) y0 = hm->height - 1;
                uint32_t y1 = y0 + 1 < hm->height ? y0 + 1 : y0;
                double ax = fx - bx, ay = fy - y0;
                if (ay > 1) ay = 1;
                s = (1 - ay) * ((1 - ax) * S[y0 * W + x0] + ax * S[y0 * W + x1]) +
                    ay * ((1 - ax) * S[y1 * W + x0] + ax * S[y1 * W + x1]);
            } else {
                double fx = ((double)x + 0.5) * hm->width / tw - 0.5, fy = ((double)y + 0.5) * hm->height / th - 0.5;
                if (fx < 0) fx = 0;
                if (fy < 0) fy = 0;
                uint32_t x0 = (uint32_t)fx, y0 = (uint32_t)fy;
                if (x0 >= hm->width) x0 = hm->width - 1;
                if (y0 >= hm->height) y0 = hm->height - 1;
                uint32_t x1 = x0 + 1 < hm->width ? x0 + 1 : x0, y1 = y0 + 1 < hm->height ? y0 + 1 : y0;
                double ax = fx - x0, ay = fy - y0;
                if (ax > 1) ax = 1;
                if (ay > 1) ay = 1;
                s = (1 - ay) * ((1 - ax) * S[y0 * W + x0] + ax * S[y0 * W + x1]) +
                    ay * ((1 - ax) * S[y1 * W + x0] + ax * S[y1 * W + x1]);
            }
            v[(size_t)y * tw + x] = s;
        }
    return v;
}

/* The square-texel level side along y for a texel of t metres: the power of two nearest the extent / t. */
static uint32_t side_for(double extent_m, double t) {
    double n = extent_m / t;
    if (!(n >= 1)) return 1;
    if (n >= ST_LEVEL_MAX_DIM) return ST_LEVEL_MAX_DIM;
    return pow2_nearest((uint32_t)llround(n));
}

st_result st_heightmap_to_level(const st_heightmap *hm, const st_heightmap_level_desc *desc, st_level **out,
                                st_heightmap_level_info *info, st_error *err) {
    *out = NULL;
    st_heightmap_level_desc d = desc ? *desc : (st_heightmap_level_desc){0};
    st_heightmap_level_info inf;
    memset(&inf, 0, sizeof inf);
    if ((unsigned)d.fit > ST_FIT_RESAMPLE) return st_error_set(err, ST_ERR_INVALID, "unknown fit");
    if (!isfinite(d.exaggerate) || d.exaggerate < 0 || d.exaggerate > 1e6)
        return st_error_set(err, ST_ERR_INVALID, "an exaggeration of %g is outside 0..1e6", d.exaggerate);
    if (!isfinite(d.spacing_m) || d.spacing_m < 0 || d.spacing_m > 1e7)
        return st_error_set(err, ST_ERR_INVALID, "a spacing of %g m is outside 0..1e7", d.spacing_m);
    if (d.keep_steps && (d.stretch || d.exaggerate > 0))
        return st_error_set(err, ST_ERR_INVALID, "heights kept as they are cannot also be stretched or exaggerated");
    if (d.keep_steps && (hm->min < 0 || hm->max > 255))
        return st_error_set(err, ST_ERR_INVALID, "samples %d..%d cannot be height steps as they are (0..255)",
                            (int)hm->min, (int)hm->max);
    if (d.keep_steps) d.stretch = true; /* the spacing is not needed, the relief always fits */
    const double E = d.exaggerate > 0 ? d.exaggerate : 1.0, vs = hm->vertical_scale;
    const double sx = d.spacing_m > 0 ? d.spacing_m : hm->metres_per_sample;
    const double sy = d.spacing_m > 0 ? d.spacing_m : hm->metres_per_sample_y > 0 ? hm->metres_per_sample_y : sx;
    if (!d.stretch && !(sx > 0 && isfinite(sx)))
        return st_error_set(err, ST_ERR_INVALID,
                            "the elevation model does not say how far apart its samples are, so its true scale is "
                            "unknown: give --spacing M (metres), or --exaggerate fit to stretch its relief");
    const double relief = (double)(hm->max - hm->min) * vs; /* over the whole model: a bound for any window */
    uint32_t tw, th;
    bool crop;
    if (d.width || d.height) {
        tw = d.width ? d.width : pow2_floor(hm->width);
        th = d.height ? d.height : pow2_floor(hm->height);
        crop = d.fit == ST_FIT_CROP || (d.fit == ST_FIT_AUTO && tw <= hm->width && th <= hm->height);
    } else if (d.fit == ST_FIT_RESAMPLE) {
        crop = false;
        tw = pow2_nearest(hm->width);
        th = d.stretch ? pow2_nearest(hm->height) : side_for(hm->height * sy, hm->width * sx / tw);
    } else {
        crop = true;
        tw = pow2_floor(hm->width);
        th = pow2_floor(hm->height);
        /* Auto: the exact cropped samples when their relief fits at the true scale (the whole model's relief
         * bounds the window's), else the finest powers of two whose texels are wide enough for it. */
        if (d.fit == ST_FIT_AUTO && !d.stretch && relief * E / sx > 255.0) {
            crop = false;
            double t_min = relief * E / 255.0, extent_x = hm->width * sx;
            uint32_t cap = pow2_nearest(hm->width);
            tw = 1;
            while (tw * 2 <= cap && extent_x / (tw * 2) >= t_min) tw *= 2;
            if (tw < 2)
                return st_error_set(err, ST_ERR_INVALID,
                                    "the relief of %.6g m needs texels of at least %.4g m for 256 height steps at "
                                    "the true scale, wider than half the model (%.4g m): use --exaggerate %.3g or "
                                    "less", relief, t_min, extent_x / 2, max_exaggeration(extent_x / 2, relief));
            th = side_for(hm->height * sy, extent_x / tw);
        }
    }
    if (crop) {
        if (tw > hm->width || th > hm->height)
            return st_error_set(err, ST_ERR_INVALID, "cannot crop %ux%u out of a %ux%u heightmap", tw, th, hm->width,
                                hm->height);
        inf.x0 = (hm->width - tw) / 2;
        inf.y0 = (hm->height - th) / 2;
        inf.src_width = tw;
        inf.src_height = th;
        inf.texel_metres = sx;
        inf.texel_metres_y = sy;
    } else {
        inf.src_width = hm->width;
        inf.src_height = hm->height;
        inf.resampled = tw != hm->width || th != hm->height;
        inf.texel_metres = sx * hm->width / tw;
        inf.texel_metres_y = sy * hm->height / th;
    }
    if (!(sx > 0)) inf.texel_metres = inf.texel_metres_y = 0;
    if (tw < 2 || th < 2)
        return st_error_set(err, ST_ERR_INVALID, "a %ux%u heightmap is too small for a level", hm->width, hm->height);
    st_result r = st_level_check_size(tw, th, err);
    if (r) return r;
    double *v = level_values(hm, tw, th, &inf);
    if (!v) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    size_t n = (size_t)tw * th;
    double lo = v[0], hi = v[0];
    for (size_t i = 1; i < n; i++) {
        if (v[i] < lo) lo = v[i];
        if (v[i] > hi) hi = v[i];
    }
    /* step in sample units: one texel's width (over the exaggeration), or the relief over 255 when stretched */
    double step;
    if (d.keep_steps) {
        lo = 0.0; /* sample s is step s; resampling keeps values within 0..255 */
        step = 1.0;
    } else if (d.stretch) {
        step = hi > lo ? (hi - lo) / 255.0 : 1.0;
    } else {
        step = inf.texel_metres / E / vs;
        if ((hi - lo) / step > 255.0 + 1e-9) {
            free(v);
            return st_error_set(err, ST_ERR_INVALID,
                                "the relief of %.6g m needs %.0f height steps of %.4g m (one %.4g m texel%s) but a "
                                "level has 256: use --exaggerate %.3g or less%s", (hi - lo) * vs,
                                ceil((hi - lo) / step) + 1, step * vs, inf.texel_metres,
                                E != 1 ? " over the exaggeration" : "",
                                max_exaggeration(inf.texel_metres, (hi - lo) * vs),
                                crop ? ", or --fit resample" : d.width || d.height ? ", or a smaller --size" : "");
        }
    }
    r = st_level_create(tw, th, out, err);
    if (r) {
        free(v);
        return r;
    }
    st_level *l = *out;
    double max_err = 0;
    uint64_t water = 0;
    long top = 0;
    uint8_t *heights, *meta;
    st_level_planes_mut(l, &heights, &meta);
    for (size_t i = 0; i < n; i++) {
        long q = lround((v[i] - lo) / step);
        if (q < 0) q = 0;
        if (q > 255) q = 255;
        if (q > top) top = q;
        double e = fabs(lo + (double)q * step - v[i]);
        if (e > max_err) max_err = e;
        uint8_t type = v[i] <= 0 ? 0 : (uint8_t)(1 + q * 7 / 256);
        water += type == 0;
        heights[i] = (uint8_t)q;
        meta[i] = (uint8_t)(type << ST_META_TYPE_SHIFT8);
    }
    /* Water surface at sea level when the model reaches it. */
    uint8_t sea = 0;
    if (lo <= 0) {
        long q = lround((0 - lo) / step);
        sea = (uint8_t)(q > 255 ? 255 : q);
    }
    uint32_t sections = th >> l->section_power ? th >> l->section_power : 1;
    memset(l->flood, sea, sections);
    free(v);
    inf.base_metres = lo * vs;
    inf.step_metres = step * vs;
    inf.exaggeration = inf.texel_metres > 0 ? inf.texel_metres / inf.step_metres : 0;
    inf.steps_used = (uint32_t)top + 1;
    inf.max_error_metres = max_err * vs;
    inf.water_texels = water;
    snprintf(l->name, sizeof l->name, "dem");
    /* Past a DEM's edge there is nothing; a whole globe wraps in x when the level keeps its whole width. */
    l->wrap_x = hm->wrap_x && inf.src_width == hm->width;
    l->wrap_y = false;
    if (info) *info = inf;
    return ST_OK;
}
