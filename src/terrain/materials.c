/* The synthesised terrain materials: each a tileable albedo and height made from noise (gradient fBm, ridged
 * noise, cellular F1/F2 for pebbles, joints and cracks, warped bands for strata and ripples), its normal from the
 * height, and the mip chain; a world's own PNGs replace or add layers. Every lattice wraps with the tile, so
 * every material repeats seamlessly. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strata/file.h"
#include "strata/image.h"
#include "strata/materials.h"
#include "terrain/noise.h"

#define PI_F 3.14159265f
#define MATERIAL_PNG_MAX_BYTES ((size_t)1 << 26) /* far more than an 8-bit RGBA PNG of a layer needs */
#define MATERIAL_LIST_MAX_BYTES 65536 /* materials.txt: far more than ST_MATERIAL_MAX * 2 names take */

/* ---- tileable noise: every lattice coordinate is taken modulo the period --------------------------------- */

/* 256 unit gradients, evenly around the circle (filled once by set_alloc). */
static float GRAD[256][2];

/* Gradient noise of period `period` lattice cells at lattice position (x, y); about [-1, 1]. */
static float gnoise(float x, float y, int period, uint32_t seed) {
    int ix = (int)floorf(x), iy = (int)floorf(y);
    float fx = x - (float)ix, fy = y - (float)iy;
    /* the corners' lattice coordinates wrapped once per axis (st_wrap divides twice: sixteen divisions a call
     * when each corner wrapped its own) */
    int wx[2], wy[2];
    wx[0] = st_wrap(ix, period), wy[0] = st_wrap(iy, period);
    wx[1] = wx[0] + 1 == period ? 0 : wx[0] + 1, wy[1] = wy[0] + 1 == period ? 0 : wy[0] + 1;
    float d[4];
    for (int k = 0; k < 4; k++) {
        const float *gr = GRAD[st_noise_hash((uint32_t)wx[k & 1], (uint32_t)wy[k >> 1], seed) & 255u];
        d[k] = gr[0] * (fx - (float)(k & 1)) + gr[1] * (fy - (float)(k >> 1));
    }
    float u = st_noise_fade(fx), v = st_noise_fade(fy);
    float a = d[0] + (d[1] - d[0]) * u, b = d[2] + (d[3] - d[2]) * u;
    return 1.4f * (a + (b - a) * v);
}

/* fBm over a tile (u, v in [0, 1)): octaves of gnoise from `base` cells a side, lacunarity 2, gain 0.5. */
static float fbm(float u, float v, int base, int octaves, uint32_t seed) {
    float sum = 0, amp = 1, norm = 0;
    int period = base;
    for (int o = 0; o < octaves; o++) {
        sum += amp * gnoise(u * (float)period, v * (float)period, period, seed + (uint32_t)o * 977u);
        norm += amp;
        amp *= 0.5f;
        period *= 2;
    }
    return sum / norm;
}

/* Ridged fBm: 1 − |n| per octave, squared, each octave weighted by the last (sharp crests, smooth valleys). */
static float ridged(float u, float v, int base, int octaves, uint32_t seed) {
    float sum = 0, amp = 1, norm = 0, weight = 1;
    int period = base;
    for (int o = 0; o < octaves; o++) {
        float n = 1.0f - fabsf(gnoise(u * (float)period, v * (float)period, period, seed + (uint32_t)o * 733u));
        n *= n * weight;
        weight = fminf(1.0f, n * 2.0f);
        sum += amp * n;
        norm += amp;
        amp *= 0.5f;
        period *= 2;
    }
    return sum / norm;
}

typedef struct cell_hit {
    float f1, f2; /* distances to the nearest and second nearest feature point, in cells */
    uint32_t id;  /* hash of the nearest point's cell */
} cell_hit;

/* Cellular noise: one jittered feature point per cell of an n × n tile. */
static cell_hit cellular(float u, float v, int n, uint32_t seed) {
    float x = u * (float)n, y = v * (float)n;
    int ix = (int)floorf(x), iy = (int)floorf(y);
    cell_hit h = {81.0f, 81.0f, 0};
    int wx[3], wy[3]; /* the neighbouring cells wrapped once per axis, as in gnoise */
    wx[1] = st_wrap(ix, n), wy[1] = st_wrap(iy, n);
    wx[0] = wx[1] == 0 ? n - 1 : wx[1] - 1, wy[0] = wy[1] == 0 ? n - 1 : wy[1] - 1;
    wx[2] = wx[1] + 1 == n ? 0 : wx[1] + 1, wy[2] = wy[1] + 1 == n ? 0 : wy[1] + 1;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            uint32_t c = st_noise_hash((uint32_t)wx[dx + 1], (uint32_t)wy[dy + 1], seed);
            float px = (float)(ix + dx) + 0.1f + 0.8f * (float)(c & 0xffffu) / 65535.0f;
            float py = (float)(iy + dy) + 0.1f + 0.8f * (float)(c >> 16) / 65535.0f;
            float d = (px - x) * (px - x) + (py - y) * (py - y); /* squared until the end */
            if (d < h.f1) {
                h.f2 = h.f1;
                h.f1 = d;
                h.id = c;
            } else if (d < h.f2) {
                h.f2 = d;
            }
        }
    h.f1 = sqrtf(h.f1);
    h.f2 = sqrtf(h.f2);
    return h;
}

static float unit_hash(uint32_t h) { return (float)(h & 0xffffffu) / 16777215.0f; }
static float clamp01(float x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
static float smooth(float e0, float e1, float x) {
    float t = clamp01((x - e0) / (e1 - e0));
    return t * t * (3.0f - 2.0f * t);
}
static void mix3(float out[3], const float a[3], const float b[3], float t) {
    for (int k = 0; k < 3; k++) out[k] = a[k] + (b[k] - a[k]) * t;
}
static void scale3(float c[3], float s) {
    for (int k = 0; k < 3; k++) c[k] *= s;
}

/* ---- the materials: albedo (linear) and height (0..1) at tile position (u, v) ------------------------------ */

typedef void (*material_fn)(float u, float v, float rgb[3], float *height);

static void silt(float u, float v, float rgb[3], float *h) {
    float n = fbm(u, v, 3, 5, 11), fine = fbm(u, v, 32, 2, 12);
    const float dark[3] = {0.055f, 0.050f, 0.040f}, light[3] = {0.12f, 0.105f, 0.075f};
    mix3(rgb, dark, light, clamp01(0.5f + 0.7f * n));
    scale3(rgb, 0.92f + 0.16f * fine);
    *h = clamp01(0.5f + 0.25f * n + 0.05f * fine);
}

static void sand(float u, float v, float rgb[3], float *h) {
    float warp = fbm(u, v, 2, 3, 21);
    float ripple = sinf(2.0f * PI_F * (v * 10.0f + u * 2.0f + 0.9f * warp));
    float grain = fbm(u, v, 64, 2, 22), patch = fbm(u, v, 3, 3, 23);
    const float a[3] = {0.42f, 0.32f, 0.19f}, b[3] = {0.56f, 0.45f, 0.29f};
    mix3(rgb, a, b, clamp01(0.55f + 0.5f * patch));
    scale3(rgb, 0.9f + 0.06f * ripple + 0.12f * grain);
    *h = clamp01(0.5f + 0.22f * ripple + 0.08f * grain + 0.1f * patch);
}

static void grass(float u, float v, float rgb[3], float *h) {
    float patch = fbm(u, v, 3, 4, 31), blades = fbm(u, v, 96, 2, 32), clump = fbm(u, v, 16, 3, 33);
    float tuft = ridged(u, v, 24, 2, 34);
    const float dark[3] = {0.028f, 0.055f, 0.012f}, mid[3] = {0.085f, 0.150f, 0.030f};
    const float dry[3] = {0.20f, 0.17f, 0.065f};
    float base[3];
    mix3(base, dark, mid, clamp01(0.5f + 0.9f * blades + 0.35f * clump + 0.2f * tuft - 0.1f));
    mix3(rgb, base, dry, 0.7f * smooth(0.05f, 0.55f, patch) * (0.6f + 0.4f * (0.5f + blades)));
    *h = clamp01(0.45f + 0.3f * blades + 0.2f * clump + 0.1f * tuft);
}

static void rock(float u, float v, float rgb[3], float *h) {
    float big = fbm(u, v, 2, 6, 41), grain = fbm(u, v, 32, 2, 42), streak = ridged(u, v, 3, 4, 45);
    /* the cracks follow a warped lattice, so they wander like joints in rock rather than tile like cobbles */
    float wu = u + 0.06f * fbm(u, v, 4, 3, 46), wv = v + 0.06f * fbm(u, v, 4, 3, 47);
    cell_hit c = cellular(wu, wv, 4, 43);
    cell_hit f = cellular(wu, wv, 11, 44);
    float crack = (1.0f - smooth(0.0f, 0.035f, c.f2 - c.f1)) * smooth(-0.2f, 0.2f, fbm(u, v, 3, 2, 48));
    float fine_crack = 1.0f - smooth(0.0f, 0.03f, f.f2 - f.f1);
    float tone = 0.9f + 0.2f * unit_hash(c.id);
    const float grey[3] = {0.20f, 0.19f, 0.175f}, warm[3] = {0.25f, 0.21f, 0.17f};
    mix3(rgb, grey, warm, clamp01(0.5f + big));
    scale3(rgb, tone * (0.75f + 0.3f * big + 0.12f * grain + 0.15f * streak) * (1.0f - 0.45f * crack) *
                    (1.0f - 0.15f * fine_crack));
    *h = clamp01(0.5f + 0.3f * big + 0.08f * grain + 0.1f * streak - 0.35f * crack - 0.08f * fine_crack);
}

static void clay(float u, float v, float rgb[3], float *h) {
    cell_hit c = cellular(u, v, 7, 51);
    float n = fbm(u, v, 4, 4, 52), grain = fbm(u, v, 48, 2, 53);
    float edge = c.f2 - c.f1;
    float crack = 1.0f - smooth(0.01f, 0.045f, edge);
    const float a[3] = {0.26f, 0.13f, 0.07f}, b[3] = {0.36f, 0.21f, 0.12f};
    mix3(rgb, a, b, clamp01(0.5f + 0.6f * n + 0.3f * (unit_hash(c.id) - 0.5f)));
    scale3(rgb, (0.9f + 0.12f * grain) * (1.0f - 0.65f * crack));
    /* the plates curl up toward their rims */
    *h = clamp01(0.55f + 0.1f * n + 0.15f * smooth(0.3f, 0.05f, edge) - 0.55f * crack);
}

static void basalt(float u, float v, float rgb[3], float *h) {
    cell_hit c = cellular(u, v, 6, 61);
    float n = fbm(u, v, 8, 3, 62);
    float joint = 1.0f - smooth(0.0f, 0.07f, c.f2 - c.f1);
    float top = 0.6f + 0.3f * unit_hash(c.id);
    const float a[3] = {0.045f, 0.045f, 0.05f};
    float s = (0.8f + 0.4f * unit_hash(c.id * 7u + 1u)) * (0.85f + 0.2f * n) * (1.0f - 0.7f * joint);
    for (int k = 0; k < 3; k++) rgb[k] = a[k] * s;
    *h = clamp01(top * (1.0f - joint) + 0.05f * n);
}

static void chalk(float u, float v, float rgb[3], float *h) {
    float warp = fbm(u, v, 2, 4, 71), n = fbm(u, v, 4, 5, 72);
    float streak = 0.5f + 0.5f * sinf(2.0f * PI_F * (v * 6.0f + 1.2f * warp));
    cell_hit flint = cellular(u, v, 9, 73);
    float nodule = (unit_hash(flint.id) > 0.8f) ? 1.0f - smooth(0.12f, 0.2f, flint.f1) : 0.0f;
    const float white[3] = {0.70f, 0.69f, 0.63f}, cream[3] = {0.58f, 0.55f, 0.46f}, grey[3] = {0.08f, 0.08f, 0.09f};
    float base[3];
    mix3(base, white, cream, clamp01(0.3f * streak + 0.5f * (0.5f + 0.5f * n)));
    mix3(rgb, base, grey, nodule);
    *h = clamp01(0.5f + 0.25f * n + 0.1f * streak + 0.2f * nodule);
}

static void metal(float u, float v, float rgb[3], float *h) {
    float gu = u * 4.0f - floorf(u * 4.0f), gv = v * 4.0f - floorf(v * 4.0f);
    float edge = fminf(fminf(gu, 1.0f - gu), fminf(gv, 1.0f - gv));
    float seam = 1.0f - smooth(0.0f, 0.025f, edge);
    float ru = fminf(gu, 1.0f - gu) - 0.07f, rv = fminf(gv, 1.0f - gv) - 0.07f;
    float rivet = 1.0f - smooth(0.015f, 0.03f, sqrtf(ru * ru + rv * rv));
    float n = fbm(u, v, 8, 4, 81), rust = smooth(0.15f, 0.5f, fbm(u, v, 3, 4, 82));
    int panel = (int)(u * 4.0f) + 4 * (int)(v * 4.0f);
    float tone = 0.85f + 0.3f * unit_hash(st_noise_hash((uint32_t)panel, 0, 83));
    const float steel[3] = {0.22f, 0.22f, 0.23f}, rusty[3] = {0.22f, 0.09f, 0.04f};
    mix3(rgb, steel, rusty, rust * 0.8f);
    scale3(rgb, tone * (0.9f + 0.12f * n) * (1.0f - 0.6f * seam) * (1.0f + 0.4f * rivet));
    *h = clamp01(0.6f + 0.05f * n - 0.5f * seam + 0.3f * rivet);
}

static void dirt(float u, float v, float rgb[3], float *h) {
    float n = fbm(u, v, 4, 5, 91), grain = fbm(u, v, 48, 2, 92), clod = fbm(u, v, 16, 3, 94);
    cell_hit s = cellular(u, v + 0.05f * clod, 16, 93);
    float radius = 0.1f + 0.25f * unit_hash(s.id >> 5);
    float stone = unit_hash(s.id) > 0.72f ? 1.0f - smooth(radius * 0.7f, radius, s.f1) : 0.0f;
    const float a[3] = {0.075f, 0.048f, 0.028f}, b[3] = {0.16f, 0.105f, 0.065f};
    const float pebble[3] = {0.15f, 0.13f, 0.11f};
    float soil[3];
    mix3(soil, a, b, clamp01(0.5f + 0.6f * n + 0.3f * clod));
    scale3(soil, (0.85f + 0.25f * grain) * (1.0f - 0.25f * smooth(0.1f, 0.4f, -clod)));
    float tone = 0.55f + 0.6f * unit_hash(s.id >> 3);
    float p[3] = {pebble[0] * tone, pebble[1] * tone, pebble[2] * tone * 0.95f};
    mix3(rgb, soil, p, stone);
    *h = clamp01(0.4f + 0.2f * n + 0.1f * clod + 0.06f * grain +
                 0.35f * stone * sqrtf(clamp01(1.0f - s.f1 / fmaxf(radius, 1e-3f))));
}

static void snow(float u, float v, float rgb[3], float *h) {
    float n = fbm(u, v, 2, 5, 101), drift = sinf(2.0f * PI_F * (u * 3.0f + v * 1.0f + 0.7f * fbm(u, v, 2, 3, 102)));
    float fine = fbm(u, v, 40, 2, 103);
    const float a[3] = {0.70f, 0.74f, 0.80f}, b[3] = {0.86f, 0.88f, 0.90f};
    mix3(rgb, a, b, clamp01(0.6f + 0.6f * n));
    scale3(rgb, 0.96f + 0.04f * fine);
    *h = clamp01(0.5f + 0.25f * n + 0.12f * drift + 0.03f * fine);
}

static void gravel(float u, float v, float rgb[3], float *h) {
    cell_hit c = cellular(u, v, 12, 111);
    float edge = c.f2 - c.f1;
    float pebble = smooth(0.0f, 0.2f, edge);
    float t = unit_hash(c.id), grain = fbm(u, v, 64, 2, 112);
    const float grey[3] = {0.17f, 0.165f, 0.16f}, brown[3] = {0.19f, 0.14f, 0.09f}, gap[3] = {0.03f, 0.025f, 0.02f};
    float stone[3];
    mix3(stone, grey, brown, t);
    scale3(stone, (0.7f + 0.6f * unit_hash(c.id >> 8)) * (0.92f + 0.12f * grain));
    mix3(rgb, gap, stone, pebble);
    *h = clamp01(pebble * (0.55f + 0.4f * unit_hash(c.id >> 16)) + 0.03f * grain);
}

static void sandstone(float u, float v, float rgb[3], float *h) {
    float warp = fbm(u, v, 2, 4, 121), grain = fbm(u, v, 48, 2, 122), n = fbm(u, v, 4, 4, 123);
    float t = v * 9.0f + 0.6f * warp;
    int layer = (int)floorf(t);
    float f = t - (float)layer;
    uint32_t lh = st_noise_hash((uint32_t)st_wrap(layer, 9), 0, 124);
    const float tan_[3] = {0.40f, 0.25f, 0.13f}, red[3] = {0.33f, 0.14f, 0.07f}, pale[3] = {0.52f, 0.41f, 0.26f};
    float a[3];
    mix3(a, tan_, unit_hash(lh) > 0.5f ? red : pale, unit_hash(lh >> 8));
    /* each layer's lower lip is worn back: a dark groove under a proud band */
    float lip = smooth(0.0f, 0.12f, f) * (1.0f - smooth(0.85f, 1.0f, f));
    for (int k = 0; k < 3; k++) rgb[k] = a[k] * (0.6f + 0.4f * lip) * (0.88f + 0.2f * grain + 0.1f * n);
    *h = clamp01(0.3f + 0.45f * lip + 0.1f * n + 0.05f * grain + 0.1f * unit_hash(lh >> 16));
}

typedef struct material_def {
    const char *name;
    material_fn fn;
    float period; /* world units per repeat */
    float relief; /* the normal's strength: height units per texel step */
} material_def;

static const material_def MATERIALS[ST_MAT_SYNTH_COUNT] = {
    {"silt", silt, 8.0f, 2.0f},       {"sand", sand, 6.0f, 2.5f},     {"grass", grass, 4.0f, 3.0f},
    {"rock", rock, 12.0f, 6.0f},      {"clay", clay, 8.0f, 5.0f},     {"basalt", basalt, 10.0f, 6.0f},
    {"chalk", chalk, 12.0f, 3.0f},    {"metal", metal, 8.0f, 4.0f},   {"dirt", dirt, 6.0f, 4.0f},
    {"snow", snow, 8.0f, 1.5f},       {"gravel", gravel, 3.0f, 5.0f}, {"sandstone", sandstone, 16.0f, 6.0f},
};

/* ---- colour encoding -------------------------------------------------------------------------------- */

static float srgb_to_linear(float c) { return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f); }
static uint8_t linear_to_srgb8_exact(float c) {
    c = clamp01(c);
    float s = c <= 0.0031308f ? 12.92f * c : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
    return (uint8_t)lrintf(s * 255.0f);
}

/* SRGB_STEP[k]: the least linear value that linear_to_srgb8_exact takes to k or more (k = 1..255), found once by
 * bisecting the floats; the encoding is then a search of this table, the same byte for every input as the
 * exact form (which is monotonic) without a powf per channel (7 % of the synthesis). */
static float SRGB_STEP[256];
static void fill_srgb_steps(void) {
    for (int k = 1; k < 256; k++) {
        uint32_t lo = 0, hi = 0x3f800000u; /* the bit patterns of 0 and 1: ordered as the floats they are */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            float c;
            memcpy(&c, &mid, sizeof c);
            if (linear_to_srgb8_exact(c) >= k) hi = mid;
            else lo = mid + 1;
        }
        memcpy(&SRGB_STEP[k], &lo, sizeof lo);
    }
}
static uint8_t linear_to_srgb8(float c) {
    c = clamp01(c);
    int k = 0;
    for (int step = 128; step > 0; step >>= 1)
        if (k + step < 256 && c >= SRGB_STEP[k + step]) k += step;
    return (uint8_t)k;
}

size_t st_material_mip_offset(const st_material_set *set, uint32_t mip) {
    size_t off = 0;
    for (uint32_t m = 0; m < mip; m++) {
        size_t s = set->size >> m;
        off += s * s * 4;
    }
    return off;
}

/* ---- synthesis ---------------------------------------------------------------------------------------- */

typedef struct synth_job {
    st_material_set *set;
    float *height; /* count · size² heights of mip 0 */
} synth_job;

/* Rows of mip 0 (index = layer · size + row): albedo and height. */
static void synth_rows(void *user, size_t begin, size_t end) {
    synth_job *j = user;
    uint32_t n = j->set->size;
    for (size_t i = begin; i < end; i++) {
        uint32_t layer = (uint32_t)(i / n), y = (uint32_t)(i % n);
        const material_def *d = &MATERIALS[layer];
        uint8_t *row = j->set->albedo_height + layer * j->set->layer_bytes + (size_t)y * n * 4;
        float *hrow = j->height + ((size_t)layer * n + y) * n;
        for (uint32_t x = 0; x < n; x++) {
            float rgb[3], h;
            d->fn(((float)x + 0.5f) / (float)n, ((float)y + 0.5f) / (float)n, rgb, &h);
            for (int k = 0; k < 3; k++) row[x * 4 + (uint32_t)k] = linear_to_srgb8(rgb[k]);
            row[x * 4 + 3] = (uint8_t)lrintf(clamp01(h) * 255.0f);
            hrow[x] = h;
        }
    }
}

/* The normal of mip 0 from the height's central differences (wrapping), scaled by the material's relief. */
static void normal_rows(void *user, size_t begin, size_t end) {
    synth_job *j = user;
    uint32_t n = j->set->size;
    for (size_t i = begin; i < end; i++) {
        uint32_t layer = (uint32_t)(i / n), y = (uint32_t)(i % n);
        const float *hl = j->height + (size_t)layer * n * n;
        float k = MATERIALS[layer].relief;
        uint8_t *row = j->set->normal + layer * j->set->layer_bytes + (size_t)y * n * 4;
        for (uint32_t x = 0; x < n; x++) {
            float gx = hl[y * n + (x + 1) % n] - hl[y * n + (x + n - 1) % n];
            float gy = hl[((y + 1) % n) * n + x] - hl[((y + n - 1) % n) * n + x];
            float v[3] = {-0.5f * k * gx, -0.5f * k * gy, 1.0f};
            float inv = 1.0f / sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            for (int c = 0; c < 3; c++) row[x * 4 + (uint32_t)c] = (uint8_t)lrintf((v[c] * inv * 0.5f + 0.5f) * 255.0f);
            row[x * 4 + 3] = 255;
        }
    }
}

static float SRGB_LINEAR[256];

/* Mips 1.. of layers [begin, end): 2×2 boxes, albedo averaged in linear light, normals renormalised. */
static void mip_layers(void *user, size_t begin, size_t end) {
    st_material_set *set = user;
    for (uint32_t layer = (uint32_t)begin; layer < (uint32_t)end; layer++)
        for (uint32_t m = 1; m < set->mips; m++) {
            uint32_t s = set->size >> m;
            const uint8_t *sa = set->albedo_height + layer * set->layer_bytes + st_material_mip_offset(set, m - 1);
            const uint8_t *sn = set->normal + layer * set->layer_bytes + st_material_mip_offset(set, m - 1);
            uint8_t *da = set->albedo_height + layer * set->layer_bytes + st_material_mip_offset(set, m);
            uint8_t *dn = set->normal + layer * set->layer_bytes + st_material_mip_offset(set, m);
            uint32_t ps = s * 2;
            for (uint32_t y = 0; y < s; y++)
                for (uint32_t x = 0; x < s; x++) {
                    size_t t[4] = {((size_t)(2 * y) * ps + 2 * x) * 4, ((size_t)(2 * y) * ps + 2 * x + 1) * 4,
                                   ((size_t)(2 * y + 1) * ps + 2 * x) * 4, ((size_t)(2 * y + 1) * ps + 2 * x + 1) * 4};
                    size_t o = ((size_t)y * s + x) * 4;
                    for (int c = 0; c < 3; c++) {
                        float l = 0;
                        for (int k = 0; k < 4; k++) l += SRGB_LINEAR[sa[t[k] + (size_t)c]];
                        da[o + (size_t)c] = linear_to_srgb8(l * 0.25f);
                    }
                    da[o + 3] = (uint8_t)((sa[t[0] + 3] + sa[t[1] + 3] + sa[t[2] + 3] + sa[t[3] + 3] + 2) / 4);
                    float v[3] = {0, 0, 0};
                    for (int c = 0; c < 3; c++)
                        for (int k = 0; k < 4; k++) v[c] += (float)sn[t[k] + (size_t)c] / 127.5f - 1.0f;
                    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                    if (len < 1e-6f) v[0] = v[1] = 0, v[2] = len = 1;
                    for (int c = 0; c < 3; c++) dn[o + (size_t)c] = (uint8_t)lrintf((v[c] / len * 0.5f + 0.5f) * 255.0f);
                    dn[o + 3] = 255;
                }
        }
}

static void layer_mean(st_material_set *set, uint32_t layer);

static void mean_layers(void *user, size_t begin, size_t end) {
    for (size_t l = begin; l < end; l++) layer_mean(user, (uint32_t)l);
}

/* The mips and means of layers first_layer.. (every layer: on the job system). */
static void build_mips(st_material_set *set, uint32_t first_layer) {
    if (first_layer == 0) {
        st_parallel_for(set->count, 1, mip_layers, set);
        st_parallel_for(set->count, 1, mean_layers, set);
        return;
    }
    mip_layers(set, first_layer, set->count);
    mean_layers(set, first_layer, set->count);
}

static void layer_mean(st_material_set *set, uint32_t layer) {
    const uint8_t *a = set->albedo_height + layer * set->layer_bytes;
    double sum[3] = {0, 0, 0};
    size_t n = (size_t)set->size * set->size;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) sum[c] += SRGB_LINEAR[a[i * 4 + (size_t)c]];
    for (int c = 0; c < 3; c++) set->mean[layer][c] = (float)(sum[c] / (double)n);
}

/* The lookup tables, filled once per process and read-only after. */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static void fill_tables(void) {
    fill_srgb_steps();
    for (int i = 0; i < 256; i++) {
        SRGB_LINEAR[i] = srgb_to_linear((float)i / 255.0f);
        GRAD[i][0] = cosf((float)i * (2.0f * PI_F / 256.0f));
        GRAD[i][1] = sinf((float)i * (2.0f * PI_F / 256.0f));
    }
}

static st_result set_alloc(uint32_t count_cap, st_material_set **out, st_error *err) {
    st_material_set *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    s->size = ST_MATERIAL_SIZE;
    s->mips = 1;
    while ((s->size >> s->mips) > 0) s->mips++;
    s->layer_bytes = st_material_mip_offset(s, s->mips);
    s->albedo_height = calloc(count_cap, s->layer_bytes);
    s->normal = calloc(count_cap, s->layer_bytes);
    if (!s->albedo_height || !s->normal) {
        st_material_set_destroy(s);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory for the materials");
    }
    pthread_once(&tables_once, fill_tables);
    *out = s;
    return ST_OK;
}

st_result st_material_set_synthesize(st_material_set **out, st_error *err) {
    *out = NULL;
    st_material_set *s = NULL;
    st_result r = set_alloc(ST_MATERIAL_MAX, &s, err);
    if (r) return r;
    s->count = ST_MAT_SYNTH_COUNT;
    synth_job j = {.set = s, .height = malloc(sizeof(float) * s->count * s->size * s->size)};
    if (!j.height) {
        st_material_set_destroy(s);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory for the materials");
    }
    st_parallel_for((size_t)s->count * s->size, 8, synth_rows, &j);
    st_parallel_for((size_t)s->count * s->size, 16, normal_rows, &j);
    free(j.height);
    build_mips(s, 0);
    for (uint32_t i = 0; i < s->count; i++) {
        snprintf(s->names[i], sizeof s->names[i], "%s", MATERIALS[i].name);
        s->period[i] = MATERIALS[i].period;
    }
    *out = s;
    return ST_OK;
}

void st_material_set_destroy(st_material_set *set) {
    if (!set) return;
    free(set->albedo_height);
    free(set->normal);
    free(set);
}

int st_material_find(const st_material_set *set, const char *name) {
    for (uint32_t i = 0; i < set->count; i++)
        if (!strcmp(set->names[i], name)) return (int)i;
    return -1;
}

void st_material_height_blend(float base_height, float overlay_height, float blend, float out[2]) {
    float w = clamp01(blend);
    float h0 = base_height + (1.0f - w), h1 = overlay_height + w;
    float top = fmaxf(h0, h1) - 0.2f;
    float b0 = fmaxf(h0 - top, 0.0f), b1 = fmaxf(h1 - top, 0.0f);
    float sum = b0 + b1; /* ≥ 0.2: the larger is exactly 0.2 */
    out[0] = b0 / sum;
    out[1] = b1 / sum;
}

/* ---- a world's own materials ------------------------------------------------------------------------ */

/* Reads one size × size PNG of a world's material into 8-bit channels (grey, grey+alpha, RGB or RGBA), judged by
 * its header before a pixel is decoded (a small file may claim 2^30 pixels). */
static st_result read_plane(const char *path, uint32_t size, int *channels, uint8_t **pixels, st_error *err) {
    uint8_t *data = NULL;
    size_t bytes = 0;
    st_png_info info;
    st_result r = st_file_read_all(path, MATERIAL_PNG_MAX_BYTES, &data, &bytes, err);
    if (!r) r = st_png_probe(data, bytes, path, &info, err);
    if (!r && (info.width != size || info.height != size || info.bit_depth != 8))
        r = st_error_set(err, ST_ERR_INVALID, "%s: a material's PNG must be %ux%u at 8 bits (this one is %ux%u, %d)",
                         path, size, size, info.width, info.height, info.bit_depth);
    void *px = NULL;
    if (!r) r = st_png_decode(data, bytes, path, (uint64_t)size * size, &info, &px, err);
    free(data);
    if (r) return r;
    *channels = info.channels;
    *pixels = px;
    return ST_OK;
}

/* Whether anything is at path: never by opening it, which waits forever on a named pipe (its reader then refuses
 * what is not a regular file, in one message). */
static bool file_exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* The layer `layer` from NAME_albedo/height/normal.png in dir (height and normal optional: flat 0.5, z up). */
static st_result load_layer(st_material_set *set, const char *dir, const char *name, uint32_t layer, st_error *err) {
    char path[1024];
    uint32_t n = set->size;
    uint8_t *a = set->albedo_height + layer * set->layer_bytes, *nm = set->normal + layer * set->layer_bytes;
    uint8_t *px = NULL;
    int ch = 0;
    snprintf(path, sizeof path, "%s/%s_albedo.png", dir, name);
    st_result r = read_plane(path, n, &ch, &px, err);
    if (r) return r;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        for (int c = 0; c < 3; c++) a[i * 4 + (size_t)c] = ch >= 3 ? px[i * (size_t)ch + (size_t)c] : px[i * (size_t)ch];
        a[i * 4 + 3] = 128;
    }
    free(px);
    snprintf(path, sizeof path, "%s/%s_height.png", dir, name);
    if (file_exists(path)) {
        r = read_plane(path, n, &ch, &px, err);
        if (r) return r;
        for (size_t i = 0; i < (size_t)n * n; i++) a[i * 4 + 3] = px[i * (size_t)ch];
        free(px);
    }
    snprintf(path, sizeof path, "%s/%s_normal.png", dir, name);
    if (file_exists(path)) {
        r = read_plane(path, n, &ch, &px, err);
        if (r) return r;
        if (ch < 3) {
            free(px);
            return st_error_set(err, ST_ERR_INVALID, "%s: a normal map must be RGB", path);
        }
        for (size_t i = 0; i < (size_t)n * n; i++) {
            for (int c = 0; c < 3; c++) nm[i * 4 + (size_t)c] = px[i * (size_t)ch + (size_t)c];
            nm[i * 4 + 3] = 255;
        }
        free(px);
    } else {
        for (size_t i = 0; i < (size_t)n * n; i++) nm[i * 4] = nm[i * 4 + 1] = 128, nm[i * 4 + 2] = nm[i * 4 + 3] = 255;
    }
    return ST_OK;
}

st_result st_material_set_load_folder(st_material_set *set, const char *dir, uint32_t *added, st_error *err) {
    *added = 0;
    /* the names tried: the set's own, then new ones listed in dir/materials.txt (one name a line) */
    char names[ST_MATERIAL_MAX * 2][ST_MATERIAL_NAME];
    uint32_t count = 0;
    for (uint32_t i = 0; i < set->count; i++) snprintf(names[count++], ST_MATERIAL_NAME, "%s", set->names[i]);
    char list[1024];
    snprintf(list, sizeof list, "%s/materials.txt", dir);
    if (file_exists(list)) {
        uint8_t *text = NULL;
        size_t size = 0;
        /* the file reader refuses a named pipe or a device, and a list longer than any set of names */
        st_result r = st_file_read_all(list, MATERIAL_LIST_MAX_BYTES, &text, &size, err);
        if (r) return r;
        for (size_t at = 0; at < size && count < ST_MATERIAL_MAX * 2;) {
            const char *line = (const char *)text + at;
            size_t len = 0;
            while (at + len < size && line[len] != '\n') len++;
            at += len + 1;
            if (len && line[len - 1] == '\r') len--;
            if (!len) continue;
            bool ok = len < ST_MATERIAL_NAME;
            for (size_t k = 0; k < len && ok; k++)
                ok = (line[k] >= 'a' && line[k] <= 'z') || (line[k] >= '0' && line[k] <= '9') || line[k] == '_';
            if (!ok) {
                int shown = len < 40 ? (int)len : 40;
                r = st_error_set(err, ST_ERR_FORMAT, "%s: bad material name '%.*s' (a-z, 0-9, _; under %d)", list,
                                 shown, line, ST_MATERIAL_NAME);
                free(text);
                return r;
            }
            snprintf(names[count++], ST_MATERIAL_NAME, "%.*s", (int)len, line);
        }
        free(text);
    }
    for (uint32_t i = 0; i < count; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s_albedo.png", dir, names[i]);
        if (!file_exists(path)) continue;
        int layer = st_material_find(set, names[i]);
        if (layer < 0) {
            if (set->count >= ST_MATERIAL_MAX)
                return st_error_set(err, ST_ERR_INVALID, "%s: more than %d materials", dir, ST_MATERIAL_MAX);
            layer = (int)set->count++;
            snprintf(set->names[layer], ST_MATERIAL_NAME, "%s", names[i]);
            set->period[layer] = 8.0f;
        }
        st_result r = load_layer(set, dir, names[i], (uint32_t)layer, err);
        if (r) return r;
        (*added)++;
        /* a replaced layer's mips are rebuilt below with the new ones */
        uint32_t save = set->count;
        set->count = (uint32_t)layer + 1;
        build_mips(set, (uint32_t)layer);
        set->count = save;
    }
    return ST_OK;
}
