/* The shore: the water's depth over its bed on a grid, the normal away from the nearest shore, and for each
 * shoaling wave the phase offset F that shortens it along that normal; and what they make of a wave at a point
 * (its wavenumber ratio, the shoaling coefficient, the surf zone's hold). docs/water.md, "Shoaling". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "water/water_internal.h"

#define FAR 1e20
#define DEEP_MODEL_M 1e4 /* an unknown bed with no shore in reach and no world depth: deep */
#define FEELS_BOTTOM 1e-4 /* k(d)/k_far − 1 under this: the wave no longer feels the bottom */

double st_water_wavenumber(double omega, double depth) {
    if (!(omega > 0)) return 0.0;
    double k0 = omega * omega / ST_WATER_G;
    if (!(depth > 0) || k0 * depth > 20.0) return k0; /* tanh(20) = 1 in double */
    /* Guo (2002)'s explicit fit (under 1 % off), then Newton on g·k·tanh(k·d) − ω² */
    double x = omega * sqrt(depth / ST_WATER_G);
    double k = x * x * pow(1.0 - exp(-pow(x, 2.5)), -0.4) / depth;
    for (int it = 0; it < 3; it++) {
        double th = tanh(k * depth);
        double f = ST_WATER_G * k * th - omega * omega;
        double df = ST_WATER_G * (th + k * depth * (1.0 - th * th));
        k -= f / df;
    }
    return k;
}

void st_shore_free(st_water *w) {
    free(w->shore_bed);
    free(w->shore);
    w->shore_bed = w->shore = NULL;
    w->shore_w = w->shore_h = w->shore_layers = 0;
}

/* One line of Felzenszwalb and Huttenlocher's squared Euclidean distance transform: d[i] = min_j (f[j] + (i−j)²). */
static void edt_line(const double *f, uint32_t n, double *d, int *v, double *z) {
    int k = 0;
    v[0] = 0;
    z[0] = -FAR;
    z[1] = FAR;
    for (int q = 1; q < (int)n; q++) {
        double s;
        for (;;) {
            int p = v[k];
            s = ((f[q] + (double)q * q) - (f[p] + (double)p * p)) / (2.0 * (q - p));
            if (s <= z[k] && k > 0) k--;
            else break;
        }
        if (s <= z[k]) { /* k == 0 and the new parabola is lower everywhere */
            v[0] = q;
            z[1] = FAR;
            continue;
        }
        k++;
        v[k] = q;
        z[k] = s;
        z[k + 1] = FAR;
    }
    k = 0;
    for (int q = 0; q < (int)n; q++) {
        while (z[k + 1] < q) k++;
        double dq = q - v[k];
        d[q] = dq * dq + f[v[k]];
    }
}

/* The distance (in samples) from every sample to the nearest dry one (FAR where there is none). */
static st_result distance_to_dry(const uint8_t *dry, uint32_t W, uint32_t H, double *out, st_error *err) {
    uint32_t n = W > H ? W : H;
    double *f = calloc(n, sizeof *f), *d = calloc(n, sizeof *d), *z = malloc((n + 1) * sizeof *z);
    int *v = malloc(n * sizeof *v);
    if (!f || !d || !z || !v) {
        free(f), free(d), free(z), free(v);
        return st_error_set(err, ST_ERR_NOMEM, "water: out of memory for the shore");
    }
    for (size_t p = 0; p < (size_t)W * H; p++) out[p] = dry[p] ? 0.0 : FAR;
    for (uint32_t x = 0; x < W; x++) {
        for (uint32_t y = 0; y < H; y++) f[y] = out[(size_t)y * W + x];
        edt_line(f, H, d, v, z);
        for (uint32_t y = 0; y < H; y++) out[(size_t)y * W + x] = d[y];
    }
    for (uint32_t y = 0; y < H; y++) {
        memcpy(f, out + (size_t)y * W, W * sizeof *f);
        edt_line(f, W, d, v, z);
        for (uint32_t x = 0; x < W; x++) out[(size_t)y * W + x] = d[x] >= FAR * 0.5 ? FAR : sqrt(d[x]);
    }
    free(f), free(d), free(z), free(v);
    return ST_OK;
}

/* The waves that shoal: each Gerstner wave, or each cascade at its energy-weighted mean frequency with the
 * amplitude √2·σ of its variance (so that a lone sinusoid's is its own). */
static void shoal_waves(st_water *w) {
    double D0 = w->desc.depth_m;
    w->shoal_count = 0;
    for (uint32_t i = 0; i < w->wave_count; i++) {
        w->shoal_omega[i] = w->waves[i].omega;
        w->shoal_amp[i] = w->waves[i].amplitude;
        w->shoal_count++;
    }
    for (uint32_t c = 0; c < w->cascade_count; c++) {
        size_t n = (size_t)w->cascades[c].size * w->cascades[c].size;
        double e = 0, ew = 0;
        for (size_t p = 0; p < n; p++) {
            double a = (double)w->h0[c][2 * p] * w->h0[c][2 * p] + (double)w->h0[c][2 * p + 1] * w->h0[c][2 * p + 1];
            e += a;
            ew += a * w->omega[c][p];
        }
        w->shoal_omega[c] = (float)(e > 0 ? ew / e : 1.0);
        w->shoal_amp[c] = (float)sqrt(2.0 * 2.0 * e); /* σ² = Σ 2|h0|² */
        w->shoal_count++;
    }
    for (uint32_t i = 0; i < w->shoal_count; i++) w->shoal_k[i] = (float)st_water_wavenumber(w->shoal_omega[i], D0);
}

/* k(d)/k_far − 1 of wave i at depth d, never below 0 (a bed deeper than the world's depth lengthens no wave). */
static double excess(const st_water *w, uint32_t i, double d) {
    if (!(d > 0)) return 0.0;
    double r = st_water_wavenumber(w->shoal_omega[i], d) / w->shoal_k[i] - 1.0;
    return r > 0 ? r : 0.0;
}

st_result st_shore_rebuild(st_water *w, st_error *err) {
    if (!w->shore_bed) return ST_OK;
    shoal_waves(w);
    uint32_t W = w->shore_w, H = w->shore_h, layers = 3 + w->shoal_count;
    size_t n = (size_t)W * H;
    float *out = malloc(n * layers * sizeof *out);
    double *dist = malloc(n * sizeof *dist);
    uint8_t *dry = malloc(n), *seed = malloc(n);
    st_result r = ST_OK;
    if (!out || !dist || !dry || !seed) r = st_error_set(err, ST_ERR_NOMEM, "water: out of memory for the shore");
    const st_water_desc *d = &w->desc;
    double mpu = d->metres_per_unit, step_m = w->shore_spacing * mpu;
    for (size_t p = 0; !r && p < n; p++) dry[p] = !isnan(w->shore_bed[p]) && w->shore_bed[p] >= d->level;
    if (!r) r = distance_to_dry(dry, W, H, dist, err);
    if (r) {
        free(out), free(dist), free(dry), free(seed);
        return r;
    }
    float *depth = out, *nx = out + n, *ny = out + 2 * n;
    for (size_t p = 0; p < n; p++) {
        float b = w->shore_bed[p];
        double dm;
        if (dry[p]) dm = 0;
        else if (isnan(b)) {
            dm = dist[p] >= FAR ? DEEP_MODEL_M : d->shore_slope * dist[p] * step_m;
            if (d->depth_m > 0 && dm > d->depth_m) dm = d->depth_m;
            if (dm > DEEP_MODEL_M) dm = DEEP_MODEL_M;
        } else dm = ((double)d->level - b) * mpu;
        depth[p] = (float)dm;
    }
    /* the normal: the distance's gradient (central differences, one-sided at the edges) */
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            size_t p = (size_t)y * W + x;
            nx[p] = ny[p] = 0;
            if (dry[p] || dist[p] >= FAR) continue;
            uint32_t x0 = x ? x - 1 : x, x1 = x + 1 < W ? x + 1 : x, y0 = y ? y - 1 : y, y1 = y + 1 < H ? y + 1 : y;
            double gx = x1 > x0 ? (dist[(size_t)y * W + x1] - dist[(size_t)y * W + x0]) / (x1 - x0) : 0;
            double gy = y1 > y0 ? (dist[(size_t)y1 * W + x] - dist[(size_t)y0 * W + x]) / (y1 - y0) : 0;
            if (fabs(gx) >= FAR * 0.1 || fabs(gy) >= FAR * 0.1) continue;
            double len = sqrt(gx * gx + gy * gy);
            if (len > 1e-6) {
                nx[p] = (float)(gx / len);
                ny[p] = (float)(gy / len);
            }
        }
    /* the ridge where the normal turns over (two shores equally near): F is 0 there, so the phase stays
     * continuous where the normal flips */
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            size_t p = (size_t)y * W + x;
            seed[p] = 0;
            if (dry[p]) continue;
            const int off[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
            for (int k = 0; k < 4; k++) {
                int64_t xx = (int64_t)x + off[k][0], yy = (int64_t)y + off[k][1];
                if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
                size_t q = (size_t)yy * W + (size_t)xx;
                if (!dry[q] && nx[p] * nx[q] + ny[p] * ny[q] < 0) seed[p] = 1;
            }
        }
    /* F of each wave: the least ∫ (k(d)/k_far − 1) ds from the sample to one where the wave no longer feels
     * the bottom (or to the ridge), over wet samples: two chamfer sweeps each way (8 neighbours) */
    double *wgt = dist; /* the distance is no longer needed */
    for (uint32_t i = 0; i < w->shoal_count; i++) {
        float *F = out + (3 + i) * n;
        for (size_t p = 0; p < n; p++) {
            wgt[p] = dry[p] ? 0 : excess(w, i, depth[p]);
            F[p] = (!dry[p] && (seed[p] || wgt[p] < FEELS_BOTTOM)) ? 0.0f : (float)FAR;
        }
        const int fwd[4][2] = {{-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
        for (int round = 0; round < 2; round++)
            for (int dir = 0; dir < 2; dir++)
                for (uint32_t yy = 0; yy < H; yy++) {
                    uint32_t y = dir ? H - 1 - yy : yy;
                    for (uint32_t xx = 0; xx < W; xx++) {
                        uint32_t x = dir ? W - 1 - xx : xx;
                        size_t p = (size_t)y * W + x;
                        if (dry[p]) continue;
                        for (int k = 0; k < 4; k++) {
                            int64_t ax = (int64_t)x + (dir ? -fwd[k][0] : fwd[k][0]);
                            int64_t ay = (int64_t)y + (dir ? -fwd[k][1] : fwd[k][1]);
                            if (ax < 0 || ay < 0 || ax >= W || ay >= H) continue;
                            size_t q = (size_t)ay * W + (size_t)ax;
                            if (dry[q] || F[q] >= (float)FAR) continue;
                            double len = (fwd[k][0] && fwd[k][1]) ? 1.41421356237 : 1.0;
                            double cand = F[q] + 0.5 * (wgt[p] + wgt[q]) * len * step_m;
                            if (cand < F[p]) F[p] = (float)cand;
                        }
                    }
                }
        for (size_t p = 0; p < n; p++)
            if (F[p] >= (float)FAR) F[p] = 0; /* dry, or wet water no deep sample or ridge reaches */
    }
    free(w->shore);
    w->shore = out;
    w->shore_layers = layers;
    free(dist), free(dry), free(seed);
    return ST_OK;
}

st_result st_water_set_bed(st_water *w, const st_water_bed *bed, st_error *err) {
    st_shore_free(w);
    if (!bed) return ST_OK;
    if (!bed->width || !bed->height || !bed->bed || (uint64_t)bed->width * bed->height > (1u << 22))
        return st_error_set(err, ST_ERR_INVALID, "water: a bed of %ux%u samples (1..2^22)", bed->width, bed->height);
    if (!isfinite(bed->spacing) || !(bed->spacing > 0) || !isfinite(bed->origin[0]) || !isfinite(bed->origin[1]))
        return st_error_set(err, ST_ERR_INVALID, "water: a bed's spacing must be finite and positive");
    size_t n = (size_t)bed->width * bed->height;
    for (size_t p = 0; p < n; p++)
        if (isinf(bed->bed[p])) return st_error_set(err, ST_ERR_INVALID, "water: an infinite bed height at sample %zu", p);
    w->shore_bed = malloc(n * sizeof *w->shore_bed);
    if (!w->shore_bed) return st_error_set(err, ST_ERR_NOMEM, "water: out of memory for the bed");
    memcpy(w->shore_bed, bed->bed, n * sizeof *w->shore_bed);
    w->shore_w = bed->width;
    w->shore_h = bed->height;
    w->shore_origin[0] = bed->origin[0];
    w->shore_origin[1] = bed->origin[1];
    w->shore_spacing = bed->spacing;
    st_result r = st_shore_rebuild(w, err);
    if (r) st_shore_free(w);
    return r;
}

st_result st_water_bed_from_level(const st_level *level, float water_level, st_rect rect, uint32_t step,
                                  float **heights, st_water_bed *bed, st_error *err) {
    *heights = NULL;
    if (!step || !st_is_pow2(step)) return st_error_set(err, ST_ERR_INVALID, "water: a bed step of %u", step);
    if (st_rect_empty(rect)) return st_error_set(err, ST_ERR_INVALID, "water: an empty rectangle for the bed");
    uint32_t W = ((uint32_t)(rect.x1 - rect.x0) + step - 1) / step, H = ((uint32_t)(rect.y1 - rect.y0) + step - 1) / step;
    float *h = malloc((size_t)W * H * sizeof *h);
    if (!h) return st_error_set(err, ST_ERR_NOMEM, "water: out of memory for the bed");
    for (uint32_t j = 0; j < H; j++)
        for (uint32_t i = 0; i < W; i++) {
            st_texel t = st_level_texel(level, rect.x0 + (int)(i * step), rect.y0 + (int)(j * step));
            /* the water lies on the upper surface */
            float top = (float)(t.dual ? t.high : t.low);
            uint32_t type = t.dual ? t.high_type : t.low_type;
            bool stand_in = type == 0 && top <= water_level + 0.01f && top >= water_level - 1.0f;
            h[(size_t)j * W + i] = t.outside ? water_level + 1.0f : stand_in ? NAN : top;
        }
    *heights = h;
    *bed = (st_water_bed){.width = W, .height = H, .origin = {rect.x0 + 0.5, rect.y0 + 0.5}, .spacing = step, .bed = h};
    return ST_OK;
}

bool st_water_has_bed(const st_water *w) { return w->shore != NULL; }

const float *st_water_shore_grid(const st_water *w, uint32_t *width, uint32_t *height, uint32_t *layers,
                                 double origin[2], double *spacing) {
    *width = w->shore_w;
    *height = w->shore_h;
    *layers = w->shore_layers;
    origin[0] = w->shore_origin[0];
    origin[1] = w->shore_origin[1];
    *spacing = w->shore_spacing;
    return w->shore;
}

void st_water_shoal_wave(const st_water *w, uint32_t i, float *omega, float *k_far) {
    *omega = i < w->shoal_count ? w->shoal_omega[i] : 0;
    *k_far = i < w->shoal_count ? w->shoal_k[i] : 0;
}

float st_water_shoal_amplitude(const st_water *w, uint32_t i) { return i < w->shoal_count ? w->shoal_amp[i] : 0; }

/* Bilinear between sample centres, clamped at the edges (the GPU's linear filter with CLAMP_TO_EDGE). */
static float sample_layer(const st_water *w, uint32_t layer, double u, double v) {
    uint32_t W = w->shore_w, H = w->shore_h;
    u = fmin(fmax(u, 0.0), W - 1.0);
    v = fmin(fmax(v, 0.0), H - 1.0);
    uint32_t i0 = (uint32_t)u, j0 = (uint32_t)v, i1 = i0 + 1 < W ? i0 + 1 : i0, j1 = j0 + 1 < H ? j0 + 1 : j0;
    double fu = u - i0, fv = v - j0;
    const float *f = w->shore + (size_t)layer * W * H;
    return (float)((1 - fv) * ((1 - fu) * f[(size_t)j0 * W + i0] + fu * f[(size_t)j0 * W + i1]) +
                   fv * ((1 - fu) * f[(size_t)j1 * W + i0] + fu * f[(size_t)j1 * W + i1]));
}

void st_shore_local_at(const st_water *w, double x, double y, st_shore_local *o) {
    memset(o, 0, sizeof *o);
    o->hold = 1;
    for (uint32_t i = 0; i < ST_WATER_MAX_WAVES; i++) o->ratio[i] = o->ks[i] = 1;
    if (!w->shore) return;
    double u = (x - w->shore_origin[0]) / w->shore_spacing, v = (y - w->shore_origin[1]) / w->shore_spacing;
    double d = sample_layer(w, 0, u, v);
    o->depth_m = (float)d;
    o->normal[0] = sample_layer(w, 1, u, v);
    o->normal[1] = sample_layer(w, 2, u, v);
    double D0 = w->desc.depth_m, sum = 0;
    for (uint32_t i = 0; i < w->shoal_count; i++) {
        o->f_m[i] = sample_layer(w, 3 + i, u, v);
        double ka = w->shoal_k[i];
        double kl = d > 0 ? st_water_wavenumber(w->shoal_omega[i], d) : ka;
        if (kl < ka) kl = ka; /* as the F field: deeper than the world's depth lengthens no wave */
        o->ratio[i] = (float)(kl / ka);
        double cg_far = st_water_dispersion_slope(ka, D0), cg = st_water_dispersion_slope(kl, d > 0 ? d : 0);
        o->ks[i] = (float)(d > 0 && cg > 0 ? sqrt(cg_far / cg) : 1.0);
        double a = w->shoal_amp[i] * o->ks[i];
        sum += a * a;
    }
    double Hloc = 2.0 * sqrt(sum), limit = ST_WATER_BREAKING * (d > 0 ? d : 0);
    o->height_m = (float)Hloc;
    o->breaking = (float)(limit > 0 ? Hloc / limit : (Hloc > 0 ? 1e9 : 0));
    o->hold = (float)(Hloc > limit ? (Hloc > 0 ? limit / Hloc : 0) : 1.0);
}

st_water_shore_sample st_water_shore_at(const st_water *w, double x, double y) {
    st_shore_local l;
    st_shore_local_at(w, x, y, &l);
    return (st_water_shore_sample){.depth_m = l.depth_m, .normal = {l.normal[0], l.normal[1]},
                                   .height_m = l.height_m, .breaking = l.breaking};
}
