/* Water: a few Gerstner waves (the cheap mode, for lakes and rivers) and a Tessendorf FFT ocean (Phillips or
 * JONSWAP spectrum, 1–4 cascades of non-commensurate patch sizes with disjoint wave bands, choppy sideways
 * displacement, the Jacobian). The CPU evaluates the displaced surface exactly as the GPU pass does (the same
 * spectrum, the same transforms, the same bilinear reconstruction), so a point of it can be queried for
 * buoyancy, tools and tests without reading anything back. Physics in metres and seconds (g = 9.81); the world
 * is in texels and height steps, related by metres_per_unit. */
#ifndef STRATA_WATER_H
#define STRATA_WATER_H

#include <math.h>

#include "strata/level.h"

#define ST_WATER_G 9.81
#define ST_WATER_MAX_CASCADES 4u
#define ST_WATER_MAX_WAVES 8u

typedef enum st_water_mode {
    ST_WATER_NONE = 0, /* no water pass: the frame is the terrain alone */
    ST_WATER_GERSTNER, /* a few analytic Gerstner waves, no simulation */
    ST_WATER_OCEAN,    /* the FFT ocean */
} st_water_mode;

typedef enum st_water_spectrum {
    ST_SPECTRUM_JONSWAP = 0, /* fetch-limited (Hasselmann et al. 1973), cos² spreading about the wind */
    ST_SPECTRUM_PHILLIPS,    /* Tessendorf's Phillips spectrum, |k̂·ŵ|² spreading, 0.07 against the wind */
} st_water_spectrum;

/* How a renderer draws the surface (docs/water.md). */
typedef enum st_water_draw {
    ST_WATER_DRAW_COMPUTE = 0, /* the ring grid rasterised in compute, every pixel shaded in compute (the default:
                                  it needs no raster units) */
    ST_WATER_DRAW_RASTER,      /* the hardware rasteriser with vertex and fragment shaders */
} st_water_draw;

typedef struct st_water_desc {
    st_water_mode mode;
    st_water_draw draw;    /* the renderer's way of drawing the surface; the CPU evaluator ignores it */
    st_water_spectrum spectrum;
    float wind_speed;      /* m/s at 10 m above the sea; 0 = 5 */
    float wind_dir_deg;    /* where the wind blows toward, measured like yaw: 0 = +y, 90 = +x */
    float fetch_km;        /* JONSWAP fetch; 0 = 10 */
    float choppiness;      /* λ of the sideways displacement; 0 = 1, negative = none (plain heights) */
    uint32_t cascades;     /* ocean: 0 = 3, at most ST_WATER_MAX_CASCADES */
    uint32_t fft_size;     /* ocean: samples per cascade side, a power of two 16..512; 0 = 256 */
    float patch_m[ST_WATER_MAX_CASCADES]; /* ocean: patch sizes, largest first; 0 = 250, 37.3, 5.7, 1.07 m (ratios 6.7, 6.5, 5.3) */
    /* Ocean: cascade c + 1 takes the waves from this many times its own fundamental 2π/L upward and cascade c
     * those below, so no wave is in two cascades and no cascade holds its own patch period; 0 = 8. Negative:
     * every cascade keeps its whole grid (the bands overlap) — for measuring what disjoint bands buy. */
    float band_split;
    uint32_t gerstner_waves; /* Gerstner: 0 = 5, at most ST_WATER_MAX_WAVES */
    /* Mean surface height in height units. The renderer replaces 0 by its world's st_water_default_level;
     * st_water itself takes the number as given. */
    float level;
    float metres_per_unit; /* metres per texel and per height step; 0 = 1 */
    float foam_decay_s;    /* time constant of the foam's fading; 0 = 2.5 s */
    /* The water's depth (m) in the dispersion relation ω² = g·k·tanh(k·h): waves longer than about twice it slow
     * down to √(g·h); 0 = deep water (ω² = g·k). One depth for the whole surface (the FFT's waves share it). */
    float depth_m;
    /* The bed's slope modelled where the bed is unknown (a texel that only stands for the water's surface): its
     * depth is this times its distance to the shore, up to depth_m when that is set; 0 = 0.1 (1 in 10). Only used once a
     * bed is set (st_water_set_bed). */
    float shore_slope;
    uint32_t seed;         /* the spectrum's random phases; 0 = 1 */
} st_water_desc;

/* The descriptor with every zero replaced by its default (mode and spectrum kept). */
st_water_desc st_water_desc_resolve(const st_water_desc *desc);
/* Checks a descriptor's numbers (finite, in range); ST_ERR_INVALID naming the first bad field. */
st_result st_water_desc_check(const st_water_desc *desc, st_error *err);
/* "none", "gerstner", "ocean". */
const char *st_water_mode_name(st_water_mode mode);
/* And back: false for an unknown name. */
bool st_water_mode_parse(const char *name, st_water_mode *mode);
/* "compute", "raster". */
const char *st_water_draw_name(st_water_draw draw);
/* And back: false for an unknown name. */
bool st_water_draw_parse(const char *name, st_water_draw *draw);

/* The world's water level: the most common per-section flood level plus half a height step, so the surface
 * lies just above the texels that stand for water (material 0 at the flood level) and below the first dry
 * step. */
float st_water_default_level(const st_level *level);
/* Whether the world has water: a texel of material 0 at or below the default level. */
bool st_water_world_has_water(const st_level *level);

/* The dispersion relation: ω of wavenumber k (rad/m) over water depth_m deep — √(g·k·tanh(k·h)), or √(g·k)
 * for depth_m ≤ 0 (deep water); 0 for k ≤ 0. */
double st_water_dispersion(double k, double depth_m);
/* Its derivative dω/dk (the group velocity) at k over depth_m: g/(2ω) in deep water; 0 for k ≤ 0. */
double st_water_dispersion_slope(double k, double depth_m);

/* The ocean loops with this period: every ω is rounded to a multiple of 2π/ST_WATER_LOOP_S (0.15 % at the
 * slowest wave of a 250 m patch), so time can reach the GPU as t mod the loop, in float, without its phases
 * drifting over a long run. */
#define ST_WATER_LOOP_S 8192.0
/* t taken into [0, ST_WATER_LOOP_S): the time the GPU is given. */
static inline double st_water_loop_time(double t) {
    double m = fmod(t, ST_WATER_LOOP_S);
    return m < 0 ? m + ST_WATER_LOOP_S : m;
}

/* ---- the ocean's cascades --------------------------------------------------------------------------- */
typedef struct st_water_cascade {
    float patch_m;      /* side of the periodic patch */
    uint32_t size;      /* samples per side */
    float k_lo, k_hi;   /* its band of wavenumbers |k| in rad/m: [k_lo, k_hi) */
} st_water_cascade;

/* ---- Gerstner waves --------------------------------------------------------------------------------- */
typedef struct st_gerstner_wave {
    float dir[2];      /* unit direction of travel */
    float k;           /* wavenumber 2π/λ, rad/m */
    float omega;       /* √(g·k) */
    float amplitude;   /* A = Q/k, m */
    float steepness;   /* Q = k·A (before choppiness) */
    float phase;       /* rad */
} st_gerstner_wave;

/* ---- the water: one evaluator for both modes ---------------------------------------------------------- */
typedef struct st_water st_water;

/* Builds the water of desc (resolved): the Gerstner wave set, or the ocean's cascades and their h0 spectra
 * (generated once, on the CPU; the GPU pass uploads them). ST_ERR_INVALID for a bad descriptor; mode NONE is
 * allowed (a flat surface at the level). */
st_result st_water_create(const st_water_desc *desc, st_water **out, st_error *err);
void st_water_destroy(st_water *water);
/* The resolved descriptor the water was built with (and the weather set since). */
const st_water_desc *st_water_get_desc(const st_water *water);

/* Changes the wind, fetch and choppiness (the viewer's keys); the ocean regenerates its spectra. */
st_result st_water_set_weather(st_water *water, float wind_speed, float wind_dir_deg, float choppiness,
                               st_error *err);

/* The ocean's cascades (none for the Gerstner mode): how many, */
uint32_t st_water_cascade_count(const st_water *water);
/* and cascade c's patch, size and band. */
st_water_cascade st_water_cascade_at(const st_water *water, uint32_t c);
/* Cascade c's initial spectrum h0 as size² complex numbers (re, im), row-major, wave vector index
 * n + size/2 along each axis (n ∈ [−size/2, size/2)), zero outside the cascade's band and on the Nyquist row
 * and column; and ω(k) = st_water_dispersion(|k|, depth_m) for each entry, rounded to the loop (ST_WATER_LOOP_S). */
const float *st_water_h0(const st_water *water, uint32_t c);
/* The ω of each entry of cascade c, as above. */
const float *st_water_omega(const st_water *water, uint32_t c);
/* The Gerstner mode's waves (none for the ocean): how many, */
uint32_t st_water_wave_count(const st_water *water);
/* and the waves themselves. */
const st_gerstner_wave *st_water_waves(const st_water *water);
/* The choppiness actually applied: λ for the ocean, the Gerstner set's factor after the fold guard (the sum of
 * every wave's λ·Q is kept ≤ 0.9, under the fold at 1). */
float st_water_choppiness(const st_water *water);

/* The displaced surface at time t (s). The water point that rests at world (x, y) moves to out = (x', y', z),
 * world units (z is the mean level plus the elevation). Ocean: the sum over cascades of the bilinear
 * reconstruction of the fields on their grids, as the GPU samples them at full resolution. The first query at a
 * new time transforms every cascade on the CPU (four 2-D inverse FFTs of size² each); later queries at that time
 * are a bilinear lookup per cascade. An st_water is not to be queried from two threads at once (that cache). */
st_result st_water_displace(st_water *water, double t, double x, double y, float out[3], st_error *err);
/* The surface height at world (x, y) at time t: the rest point whose displaced position lands on (x, y) is
 * found by fixed-point iteration (converges while the surface does not fold), then its z. */
st_result st_water_height(st_water *water, double t, double x, double y, float *z, st_error *err);

/* The ocean's fields at time t (what the GPU computes), cascade c: size² texels of 8 floats — height h,
 * displacements Dx and Dy (before choppiness), slopes ∂h/∂x and ∂h/∂y, and ∂Dx/∂x, ∂Dy/∂y, ∂Dx/∂y, all in
 * metres of the spectrum (x along +x, y along +y); texel (i, j) rests at (i, j)·patch/size. Valid until the next
 * call with another time. */
st_result st_water_fields(st_water *water, double t, uint32_t c, const float **fields, st_error *err);
/* The Jacobian of the horizontal map x → x + λD from the fields' derivatives (1 = unchanged, < 0 = folded). */
static inline float st_water_jacobian(float lambda, float dxdx, float dydy, float dxdy) {
    return (1.0f + lambda * dxdx) * (1.0f + lambda * dydy) - lambda * lambda * dxdy * dxdy;
}

/* ---- the shore: shoaling over the bed ------------------------------------------------------------------
 * With a bed set, every wave (each Gerstner wave, each cascade at its energy-weighted mean wavenumber) keeps its
 * frequency ω as it meets shallower water: its wavenumber becomes the k of ω² = g·k·tanh(k·d) at the local
 * depth d, its amplitude grows by the shoaling coefficient Ks = √(c_g(far)/c_g(d)) (energy flux kept), and its
 * phase is taken at x − F·m̂, m̂ the unit normal pointing away from the nearest shore and F = ∫ (k(d)/k_far − 1)
 * ds from x out to where the wave no longer feels the bottom: along the normal the wave's crests are then
 * k(d)/k_far closer, across it they keep their spacing (Snell: the waves turn toward the shore normal). Where
 * the local wave height H = 2·√(Σ (A·Ks)²) passes ST_WATER_BREAKING × d the waves break: the amplitudes are
 * held at that height (the surf zone) and the surface makes foam. docs/water.md says how far this goes. */
#define ST_WATER_BREAKING 0.78
typedef struct st_water_bed {
    uint32_t width, height; /* samples, row-major */
    double origin[2];       /* world position (units) of sample (0, 0) */
    double spacing;         /* world units between neighbouring samples */
    /* Per sample the bed's height (units); NAN where the bed is unknown (the sample stands for the water's
     * surface: its depth is modelled from its distance to the shore, st_water_desc.shore_slope); a bed at or
     * above the water's level is dry. */
    const float *bed;
} st_water_bed;

/* Sets the bed the waves shoal over (NULL: none, one depth everywhere); copies what it needs. ST_ERR_INVALID
 * for an empty grid, a spacing that is not finite and positive, or a bed height that is infinite; ST_ERR_NOMEM. */
st_result st_water_set_bed(st_water *water, const st_water_bed *bed, st_error *err);
/* The bed of a level under a water level (units) over the texels of `rect` (it may reach past a wrapping
 * level's edges): one sample per `step` texels (a power of two) at texel centres; a texel of material 0 whose
 * top is at most a unit under the level stands for the water (NAN), as the renderer's stand-ins do; a texel off a
 * level that does not wrap is dry. *heights (freed by the caller) and *bed filled. ST_ERR_INVALID for an empty
 * rect or a bad step. */
st_result st_water_bed_from_level(const st_level *level, float water_level, st_rect rect, uint32_t step,
                                  float **heights, st_water_bed *bed, st_error *err);

/* What the shore holds at a world point (bilinear between samples; all zero without a bed): */
typedef struct st_water_shore_sample {
    float depth_m;    /* the water's depth (0: dry) */
    float normal[2];  /* unit normal away from the nearest shore (0 where there is no shore) */
    float height_m;   /* the local wave height H before the surf zone holds it */
    float breaking;   /* H / (ST_WATER_BREAKING · d): the waves break where it passes 1 */
} st_water_shore_sample;
/* The shore at world (x, y) units: the sampled depth and normal, the local wave height H and its ratio to the
 * breaking height. */
st_water_shore_sample st_water_shore_at(const st_water *water, double x, double y);
/* Whether the water has a bed set. */
bool st_water_has_bed(const st_water *water);
/* The shore's grid for the GPU: samples, origin and spacing (units), and its layers: 0 the depth (m), 1 and 2
 * the normal, then F (m) of each wave (Gerstner) or cascade (ocean); NULL without a bed. */
const float *st_water_shore_grid(const st_water *water, uint32_t *width, uint32_t *height, uint32_t *layers,
                                 double origin[2], double *spacing);
/* Per wave (Gerstner) or cascade (ocean) i: its ω and its far wavenumber (rad/m) the shoaling starts from. */
void st_water_shoal_wave(const st_water *water, uint32_t i, float *omega, float *k_far);
/* And its far amplitude (m): a Gerstner wave's own, a cascade's √2·σ (a lone sinusoid's amplitude). */
float st_water_shoal_amplitude(const st_water *water, uint32_t i);
/* The wavenumber (rad/m) of angular frequency omega over depth_m of water (depth ≤ 0: deep), the inverse of
 * st_water_dispersion. */
double st_water_wavenumber(double omega, double depth_m);

/* ---- spectra and transforms (exposed for tests and tools) --------------------------------------------- */
/* The directional wavenumber spectrum F(kx, ky) in m⁴ (∫F dk² = the variance of the elevation) of desc
 * (resolved) at wave vector (kx, ky) rad/m. */
double st_water_spectrum_density(const st_water_desc *desc, double kx, double ky);
/* In-place inverse discrete Fourier transform of n complex doubles (re, im interleaved), unnormalised:
 * out[m] = Σ in[j]·e^{+2πi·jm/n}; n a power of two. The 2-D form transforms rows then columns of an n×n grid. */
void st_water_ifft(double *data, uint32_t n);
/* The 2-D form on an n×n grid (n² complex doubles). */
void st_water_ifft2(double *data, uint32_t n);

#endif
