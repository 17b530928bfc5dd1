/* The procedural DEM: a pure function of (seed, x, y) — continents from low octaves, ridged mountain ranges where
 * the continent is high, and fBm detail that is rougher on the heights than in the lowlands (after the book's
 * terrain chapter) — so any window, at any stride, of a world of any size comes out the same, and nothing is
 * held in memory. Its bilinear error at each level has an analytic bound from the noise's derivative bounds.
 * Octaves are rotated against each other (unrotated value-noise ridges line up with the lattice axes); each keeps
 * its last lattice cell, so neighbouring samples share the hashes. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "strata/dem.h"
#include "terrain/noise.h"

#define GEN_BASE_OCTAVES 3
#define GEN_RIDGE_OCTAVES 4
#define GEN_MAX_OCTAVES 32

/* Value noise with a quintic fade on a unit lattice: values in [−1, 1]. Its derivative bounds in lattice units
 * (used by the error bound): |∂n/∂x| ≤ 1.875·2 (the fade's slope times the largest lattice step), and
 * |∂²n/∂x²| + |∂²n/∂x∂y| ≤ 5.774·2 + 1.875²·4 — rotation mixes the second derivatives, so both count. */
#define NOISE_SLOPE 3.75
#define NOISE_CURVE (11.548 + 14.0625)


static inline double lattice(int64_t x, int64_t y, uint32_t seed) {
    return (double)(st_noise_hash((uint32_t)x, (uint32_t)y, seed) >> 8) * (2.0 / 16777216.0) - 1.0;
}

/* floor without a libm call (x86-64's baseline has no rounding instruction); exact for |v| < 2^62. */
static inline int64_t floor_i64(double v) {
    int64_t i = (int64_t)v;
    return i - (v < (double)i);
}

static inline double fade(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }

static double value_noise(double x, double y, uint32_t seed) {
    int64_t ix = floor_i64(x), iy = floor_i64(y);
    double fx = (double)ix, fy = (double)iy;
    double u = fade(x - fx), v = fade(y - fy);
    double a = lattice(ix, iy, seed), b = lattice(ix + 1, iy, seed);
    double c = lattice(ix, iy + 1, seed), d = lattice(ix + 1, iy + 1, seed);
    double ab = a + (b - a) * u, cd = c + (d - c) * u;
    return ab + (cd - ab) * v;
}

typedef struct octave {
    double inv_lambda;   /* lattice cells per metre */
    double cos_r, sin_r; /* the octave's own rotation, so lattices of different octaves never line up */
    double amp;          /* metres (for the base: of the [−1, 1] continent field) */
    uint32_t seed;
} octave;

typedef struct dem_gen {
    st_dem_gen_desc d;
    octave base[GEN_BASE_OCTAVES], ridge[GEN_RIDGE_OCTAVES], detail[GEN_MAX_OCTAVES];
    uint32_t detail_count;
    double base_norm, ridge_norm;
    double sea_bias;     /* continent field offset: how much of the world is under the sea */
    double lambda0;
} dem_gen;

static octave make_octave(double lambda, double amp, uint32_t seed, uint32_t k) {
    double r = 0.7 + 1.1 * k; /* radians */
    return (octave){1.0 / lambda, cos(r), sin(r), amp, seed};
}

static inline double oct_noise(const octave *o, double x, double y) {
    double u = (x * o->cos_r - y * o->sin_r) * o->inv_lambda, v = (x * o->sin_r + y * o->cos_r) * o->inv_lambda;
    return value_noise(u + 1000.5, v + 1000.5, o->seed);
}

/* An octave's last lattice cell and its four corner values: consecutive samples of a row mostly fall in the
 * same cell of every octave coarser than the sample spacing, so they share its four hashes. */
typedef struct octave_memo {
    int64_t iu, iv;
    double a, b, c, d;
    bool valid;
} octave_memo;

static inline double oct_noise_memo(const octave *o, octave_memo *m, double x, double y) {
    double u = (x * o->cos_r - y * o->sin_r) * o->inv_lambda + 1000.5, v = (x * o->sin_r + y * o->cos_r) * o->inv_lambda + 1000.5;
    int64_t iu = floor_i64(u), iv = floor_i64(v);
    double fu = (double)iu, fv = (double)iv;
    if (!m->valid || iu != m->iu || iv != m->iv) {
        m->a = lattice(iu, iv, o->seed), m->b = lattice(iu + 1, iv, o->seed);
        m->c = lattice(iu, iv + 1, o->seed), m->d = lattice(iu + 1, iv + 1, o->seed);
        m->iu = iu, m->iv = iv, m->valid = true;
    }
    double s = fade(u - fu), t = fade(v - fv);
    double ab = m->a + (m->b - m->a) * s, cd = m->c + (m->d - m->c) * s;
    return ab + (cd - ab) * t;
}

static inline double smoothstep(double e0, double e1, double v) {
    double t = (v - e0) / (e1 - e0);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return t * t * (3 - 2 * t);
}

/* Elevation in metres at (x, y) metres; memo holds each octave's last cell (base, ridge, detail in order). */
static double gen_height(const dem_gen *g, octave_memo *memo, double x, double y) {
    double e = 0;
    for (int k = 0; k < GEN_BASE_OCTAVES; k++) e += g->base[k].amp * oct_noise_memo(&g->base[k], &memo[k], x, y);
    e = e * g->base_norm + g->sea_bias; /* roughly [−1, 1] */
    double m = smoothstep(0.05, 0.6, e); /* mountains grow where the continent is high */
    double ridges = 0;
    octave_memo *rm = memo + GEN_BASE_OCTAVES, *dm = rm + GEN_RIDGE_OCTAVES;
    for (int k = 0; k < GEN_RIDGE_OCTAVES; k++) {
        double r = 1.0 - fabs(oct_noise_memo(&g->ridge[k], &rm[k], x, y));
        ridges += g->ridge[k].amp * r * r;
    }
    ridges *= g->ridge_norm; /* [0, 1] */
    double rough = 0.25 + 0.75 * m; /* lowlands smoother than the heights, as erosion leaves them */
    double detail = 0;
    for (uint32_t k = 0; k < g->detail_count; k++) detail += g->detail[k].amp * oct_noise_memo(&g->detail[k], &dm[k], x, y);
    double relief = g->d.relief_m;
    return relief * (0.35 * e + 0.65 * m * ridges) + rough * detail;
}

static st_result gen_read_stride(void *state, int64_t x0, int64_t y0, uint32_t stride, uint32_t w, uint32_t h,
                                 float *out, st_error *err) {
    (void)err;
    const dem_gen *g = state;
    int64_t wmax = (int64_t)g->d.width - 1, hmax = (int64_t)g->d.height - 1;
    octave_memo memo[GEN_BASE_OCTAVES + GEN_RIDGE_OCTAVES + GEN_MAX_OCTAVES] = {{0}};
    for (uint32_t j = 0; j < h; j++) {
        int64_t y = y0 + (int64_t)j * stride;
        y = y < 0 ? 0 : y > hmax ? hmax : y;
        for (uint32_t i = 0; i < w; i++) {
            int64_t x = x0 + (int64_t)i * stride;
            x = x < 0 ? 0 : x > wmax ? wmax : x;
            out[(size_t)j * w + i] = (float)gen_height(g, memo, (double)x * g->d.spacing_m, (double)y * g->d.spacing_m);
        }
    }
    return ST_OK;
}

static st_result gen_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err) {
    return gen_read_stride(state, x0, y0, 1, w, h, out, err);
}

/* Bounds on |f − bilinear(f)| over cells of c metres for one noise term of amplitude a and wavelength λ: the
 * smaller of its full swing 2a, the Lipschitz bound (slope · c/√2: the interpolant is a convex mix of corners at
 * most c/√2 away) and, for smooth terms, the curvature bound (c²/8)·(|f_xx| + |f_yy|). */
static double term_error(double a, double inv_lambda, double c, bool smooth, double extra_slope) {
    double slope = a * NOISE_SLOPE * inv_lambda + extra_slope;
    double e = 2.0 * a;
    double lip = slope * c * 0.70710678;
    if (lip < e) e = lip;
    if (smooth) {
        double curve = (c * c / 8.0) * 2.0 * a * NOISE_CURVE * inv_lambda * inv_lambda;
        if (curve < e) e = curve;
    }
    return e;
}

static double gen_level_error(void *state, uint32_t level) {
    const dem_gen *g = state;
    if (!level) return 0.0;
    double c = ldexp(g->d.spacing_m, (int)level), relief = g->d.relief_m;
    /* the continent: a sum of smooth octaves */
    double e = 0, base_slope = 0;
    for (int k = 0; k < GEN_BASE_OCTAVES; k++) {
        double a = relief * 0.35 * g->base_norm * g->base[k].amp;
        e += term_error(a, g->base[k].inv_lambda, c, true, 0);
        base_slope += g->base_norm * g->base[k].amp * NOISE_SLOPE * g->base[k].inv_lambda;
    }
    double m_slope = base_slope * 1.5 / 0.55; /* smoothstep(0.05, 0.6): slope ≤ 1.5/0.55 of its argument's */
    /* the ridges, m · Σ a r²: Lipschitz (creases), the product rule with |m| ≤ 1 and |Σ a r²| ≤ 1 */
    for (int k = 0; k < GEN_RIDGE_OCTAVES; k++) {
        double a = relief * 0.65 * g->ridge_norm * g->ridge[k].amp;
        e += term_error(a, g->ridge[k].inv_lambda, c, false, a * m_slope) * 2.0; /* d(r²) = 2r·dr, r ≤ 1 */
    }
    /* the detail, (0.25 + 0.75 m) · Σ a n */
    double detail_sum = 0;
    for (uint32_t k = 0; k < g->detail_count; k++) detail_sum += g->detail[k].amp;
    for (uint32_t k = 0; k < g->detail_count; k++)
        e += term_error(g->detail[k].amp, g->detail[k].inv_lambda, c, false, 0);
    e += 0.75 * m_slope * detail_sum * c * 0.70710678 < 2 * 0.75 * detail_sum
             ? 0.75 * m_slope * detail_sum * c * 0.70710678
             : 2 * 0.75 * detail_sum;
    return e;
}

st_result st_dem_generator(const st_dem_gen_desc *desc, st_dem_source **out, st_error *err) {
    *out = NULL;
    if (!desc || !desc->width || !desc->height || desc->width > ST_DEM_MAX_SIDE || desc->height > ST_DEM_MAX_SIDE)
        return st_error_set(err, ST_ERR_INVALID, "a generated DEM needs a size in 1..%llu a side",
                            (unsigned long long)ST_DEM_MAX_SIDE);
    if (desc->spacing_m < 0 || !isfinite(desc->spacing_m) || desc->spacing_m > 1e5 || desc->relief_m < 0 ||
        !isfinite(desc->relief_m) || desc->relief_m > 2e4)
        return st_error_set(err, ST_ERR_INVALID, "a generated DEM needs a spacing in (0, 100 km] and a relief in (0, 20 km]");
    dem_gen *g = calloc(1, sizeof *g);
    if (!g) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    g->d = *desc;
    if (!g->d.spacing_m) g->d.spacing_m = 10.0;
    if (!g->d.relief_m) g->d.relief_m = 2500.0;
    uint32_t s = (uint32_t)(desc->seed ^ (desc->seed >> 32)) * 0x9e3779b9u + 17u;
    double extent = (double)(desc->width > desc->height ? desc->width : desc->height) * g->d.spacing_m;
    double l0 = extent / 3.0;
    l0 = l0 < 4000 ? 4000 : l0 > 120000 ? 120000 : l0;
    g->lambda0 = l0;
    double norm = 0;
    for (int k = 0; k < GEN_BASE_OCTAVES; k++) {
        g->base[k] = make_octave(l0 / (1 << k), 1.0 / (1 << k), s + 101u * (uint32_t)k, (uint32_t)k);
        norm += g->base[k].amp;
    }
    g->base_norm = 1.0 / norm;
    g->sea_bias = 0.1;
    norm = 0;
    for (int k = 0; k < GEN_RIDGE_OCTAVES; k++) {
        double amp = pow(0.5, k);
        g->ridge[k] = make_octave(l0 / (8 << k), amp, s + 7001u + 13u * (uint32_t)k, (uint32_t)k + 3);
        norm += amp;
    }
    g->ridge_norm = 1.0 / norm;
    /* detail from a 64th of the continent's wavelength down to two samples, amplitude halving with wavelength */
    double lambda = l0 / 64.0, amp = g->d.relief_m * 0.04;
    while (g->detail_count < GEN_MAX_OCTAVES && lambda >= 2.0 * g->d.spacing_m) {
        g->detail[g->detail_count] = make_octave(lambda, amp, s + 40009u + 31u * g->detail_count, g->detail_count + 9);
        g->detail_count++;
        lambda *= 0.5;
        amp *= 0.5;
    }
    double detail_sum = 0;
    for (uint32_t k = 0; k < g->detail_count; k++) detail_sum += g->detail[k].amp;
    st_dem_info info = {.width = desc->width,
                        .height = desc->height,
                        .spacing_x_m = g->d.spacing_m,
                        .spacing_y_m = g->d.spacing_m,
                        .min_m = -g->d.relief_m * 0.35 * 1.1 - detail_sum,
                        .max_m = g->d.relief_m * (0.35 * 1.1 + 0.65) + detail_sum};
    snprintf(info.description, sizeof info.description, "procedural DEM seed %llu, %llux%llu samples at %g m",
             (unsigned long long)desc->seed, (unsigned long long)desc->width, (unsigned long long)desc->height,
             g->d.spacing_m);
    static const st_dem_source_ops ops = {
        .read = gen_read, .read_stride = gen_read_stride, .level_error = gen_level_error, .destroy = free};
    return st_dem_source_create(&ops, g, &info, out, err);
}

st_result st_dem_gen_parse(const char *spec, st_dem_gen_desc *out, st_error *err) {
    *out = (st_dem_gen_desc){0};
    uint64_t seed = 0, w = 0, h = 0;
    int used = 0;
    if (!spec || sscanf(spec, "gen:%" SCNu64 ":%" SCNu64 "x%" SCNu64 "%n", &seed, &w, &h, &used) != 3 ||
        spec[4] == '-' || spec[4] == '+')
        return st_error_set(err, ST_ERR_INVALID,
                            "'%s': a generated world is gen:SEED:WxH[:SPACING] (a DEM) or gen:multi:SEED:WxH[:DUAL]",
                            spec ? spec : "");
    double spacing = 0;
    if (spec[used] == ':') {
        char *end;
        spacing = strtod(spec + used + 1, &end);
        if (*end || !(spacing > 0 && spacing <= 1e5))
            return st_error_set(err, ST_ERR_INVALID, "'%s': the spacing must be metres in (0, 100000]", spec);
    } else if (spec[used]) {
        return st_error_set(err, ST_ERR_INVALID, "'%s': unexpected '%.32s' (gen:SEED:WxH[:SPACING])", spec, spec + used);
    }
    if (w < 2 || h < 2 || w > ST_DEM_MAX_SIDE || h > ST_DEM_MAX_SIDE)
        return st_error_set(err, ST_ERR_INVALID, "'%s': the size must be 2..%llu samples a side", spec,
                            (unsigned long long)ST_DEM_MAX_SIDE);
    *out = (st_dem_gen_desc){.seed = seed, .width = w, .height = h, .spacing_m = spacing};
    return ST_OK;
}
