/* The procedural default world's terrain: hash-based periodic noise shaped into terraces with vertical cliffs,
 * rivers and basins at height 0, overhanging slab candidates over caves, and a fixed layout of landmarks
 * (hangar, slab hall, tunnel, ledge, mesa, bridges, gorge, lake, lookout, outpost); the generator's context.
 * Every texel is a pure function of its coordinates, so any rectangle of the world comes out alone. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrain/gen_internal.h"
#include "terrain/noise.h"

/* Materials (the default palette's ramps). */
enum { M_WATER, M_SAND, M_GRASS, M_ROCK, M_CLAY, M_BASALT, M_CHALK, M_METAL };

#define GEN_STRIDE 4      /* spacing of the coarse grid that carries the smooth fields */
#define GEN_BLOCK 32      /* rows whose coarse fields are evaluated together */
#define GEN_MAX_HEIGHT 250
#define SCORE_FORCED GEN_SCORE_FORCED
#define SCORE_MAX_GENERIC 65000.0f

/* ---- noise: integer hash of lattice coordinates, so every texel is a pure function of (x, y, seed) -- */


/* A uniform value in [-1, 1) from a hash. */
static inline float hash_signed(uint32_t h) { return (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f; }

static const float grad_x[8] = {1.0f, -1.0f, 1.0f, -1.0f, 1.4142f, -1.4142f, 0.0f, 0.0f};
static const float grad_y[8] = {1.0f, 1.0f, -1.0f, -1.0f, 0.0f, 0.0f, 1.4142f, -1.4142f};

typedef gen_noise noise2;

static noise2 noise_make(uint32_t cell, uint32_t w, uint32_t h, float fs, uint32_t seed) {
    uint32_t c = (uint32_t)((float)cell * fs + 0.5f), limit = w < h ? w : h;
    if (c < 2) c = 2;
    if (c > limit) c = limit;
    uint32_t p = 1; /* round to a power of two */
    while (p < c) p <<= 1;
    c = p > limit ? limit : p;
    noise2 n;
    n.shift = 0;
    while ((1u << n.shift) < c) n.shift++;
    n.cell_mask = c - 1;
    n.px_mask = (w >> n.shift) - 1;
    n.py_mask = (h >> n.shift) - 1;
    n.seed = seed;
    n.inv_cell = 1.0f / (float)c;
    return n;
}


/* x, y are texel coordinates inside the level. Roughly [-1, 1]. */
static inline float noise_at(const noise2 *n, uint32_t x, uint32_t y) {
    uint32_t ix = x >> n->shift, iy = y >> n->shift;
    float fx = ((float)(x & n->cell_mask) + 0.5f) * n->inv_cell, fy = ((float)(y & n->cell_mask) + 0.5f) * n->inv_cell;
    uint32_t x0 = ix & n->px_mask, x1 = (ix + 1) & n->px_mask, y0 = iy & n->py_mask, y1 = (iy + 1) & n->py_mask;
    uint32_t h00 = st_noise_hash(x0, y0, n->seed) & 7, h10 = st_noise_hash(x1, y0, n->seed) & 7;
    uint32_t h01 = st_noise_hash(x0, y1, n->seed) & 7, h11 = st_noise_hash(x1, y1, n->seed) & 7;
    float v00 = grad_x[h00] * fx + grad_y[h00] * fy, v10 = grad_x[h10] * (fx - 1.0f) + grad_y[h10] * fy;
    float v01 = grad_x[h01] * fx + grad_y[h01] * (fy - 1.0f);
    float v11 = grad_x[h11] * (fx - 1.0f) + grad_y[h11] * (fy - 1.0f);
    float u = st_noise_fade(fx), v = st_noise_fade(fy);
    float a = v00 + (v10 - v00) * u, b = v01 + (v11 - v01) * u;
    return a + (b - a) * v;
}

/* A noise along one row of texels visited left to right (the coarse grid's points): the lattice gradients of the
 * cell last met are kept (with their y parts' products, which are the same all along the cell), so a point hashes
 * only where it enters a new lattice column (every 16 points or more for most of the coarse noises, instead of four
 * hashes a point). Every product and sum is noise_at's, so the values are exactly its. */
typedef struct noise_cursor {
    const noise2 *n;
    uint32_t y0, y1, ix;
    float fy, v;
    /* the cell's corners: gradients' x parts, and their y parts times the offset from each lattice row */
    float gx00, gx10, gx01, gx11, py00, py10, py01, py11;
    bool valid;
} noise_cursor;

static void noise_cursor_row(noise_cursor *c, const noise2 *n, uint32_t y) {
    uint32_t iy = y >> n->shift;
    c->n = n;
    c->y0 = iy & n->py_mask;
    c->y1 = (iy + 1) & n->py_mask;
    c->fy = ((float)(y & n->cell_mask) + 0.5f) * n->inv_cell;
    c->v = st_noise_fade(c->fy);
    c->valid = false;
}

static inline float noise_cursor_at(noise_cursor *c, uint32_t x) {
    const noise2 *n = c->n;
    uint32_t ix = x >> n->shift;
    if (!c->valid || ix != c->ix) {
        uint32_t x0 = ix & n->px_mask, x1 = (ix + 1) & n->px_mask;
        uint32_t h00 = st_noise_hash(x0, c->y0, n->seed) & 7, h10 = st_noise_hash(x1, c->y0, n->seed) & 7;
        uint32_t h01 = st_noise_hash(x0, c->y1, n->seed) & 7, h11 = st_noise_hash(x1, c->y1, n->seed) & 7;
        float fy = c->fy, fy1 = fy - 1.0f;
        c->gx00 = grad_x[h00], c->py00 = grad_y[h00] * fy, c->gx10 = grad_x[h10], c->py10 = grad_y[h10] * fy;
        c->gx01 = grad_x[h01], c->py01 = grad_y[h01] * fy1, c->gx11 = grad_x[h11], c->py11 = grad_y[h11] * fy1;
        c->ix = ix;
        c->valid = true;
    }
    float fx = ((float)(x & n->cell_mask) + 0.5f) * n->inv_cell, fx1 = fx - 1.0f;
    float v00 = c->gx00 * fx + c->py00, v10 = c->gx10 * fx1 + c->py10;
    float v01 = c->gx01 * fx + c->py01, v11 = c->gx11 * fx1 + c->py11;
    float u = st_noise_fade(fx);
    float a = v00 + (v10 - v00) * u, b = v01 + (v11 - v01) * u;
    return a + (b - a) * c->v;
}

/* One row of a fine noise, texels [x0, x0 + width) of row y, into out: per lattice column of the two lattice rows
 * around y its gradient's x part and its y part's product with the row's offset (hashed once per lattice column
 * instead of four times per texel), and per texel of a cell the offset and fade (the same for every cell), so a
 * texel costs the interpolation alone. Every product and sum is noise_at's, so the values are exactly its.
 * lat: scratch of 4 × (lattice columns + 2) floats. */
#define FINE_MAX_CELL 16u /* the fine noises' cells: 16 and 8 texels at most (fs ≤ 1) */
static void noise_row_fill(const noise2 *n, uint32_t y, uint32_t x0, uint32_t width, float *lat, float *out) {
    uint32_t iy = y >> n->shift, base = x0 >> n->shift, last = (x0 + width - 1) >> n->shift;
    uint32_t y0 = iy & n->py_mask, y1 = (iy + 1) & n->py_mask, cols = last + 2 - base;
    float fy = ((float)(y & n->cell_mask) + 0.5f) * n->inv_cell, fy1 = fy - 1.0f, v = st_noise_fade(fy);
    if (n->cell_mask + 1 > FINE_MAX_CELL) { /* not a fine noise's cell: texel by texel */
        for (uint32_t i = 0; i < width; i++) out[i] = noise_at(n, x0 + i, y);
        return;
    }
    float *gx0 = lat, *py0 = lat + cols, *gx1 = lat + 2 * cols, *py1 = lat + 3 * cols;
    for (uint32_t i = 0; i < cols; i++) {
        uint32_t xi = (base + i) & n->px_mask;
        uint32_t h0 = st_noise_hash(xi, y0, n->seed) & 7, h1 = st_noise_hash(xi, y1, n->seed) & 7;
        gx0[i] = grad_x[h0], py0[i] = grad_y[h0] * fy;
        gx1[i] = grad_x[h1], py1[i] = grad_y[h1] * fy1;
    }
    float fxs[FINE_MAX_CELL], fx1s[FINE_MAX_CELL], us[FINE_MAX_CELL];
    for (uint32_t m = 0; m <= n->cell_mask; m++) {
        fxs[m] = ((float)m + 0.5f) * n->inv_cell;
        fx1s[m] = fxs[m] - 1.0f;
        us[m] = st_noise_fade(fxs[m]);
    }
    for (uint32_t i = 0; i < width; i++) {
        uint32_t x = x0 + i, c = (x >> n->shift) - base, m = x & n->cell_mask;
        float fx = fxs[m], fx1 = fx1s[m], u = us[m];
        float v00 = gx0[c] * fx + py0[c], v10 = gx0[c + 1] * fx1 + py0[c + 1];
        float v01 = gx1[c] * fx + py1[c], v11 = gx1[c + 1] * fx1 + py1[c + 1];
        float a = v00 + (v10 - v00) * u, b = v01 + (v11 - v01) * u;
        out[i] = a + (b - a) * v;
    }
}

/* lrintf(v) without the call (wasm and x86-64 without SSE4.1 have no inline rounding to nearest): for |v| < 2^22,
 * adding and taking away 1.5 · 2^23 rounds v to an integer as the default rounding mode does (to nearest, ties to
 * even), exactly lrintf's result; anything larger, and NaN, goes to lrintf. */
static inline int round_to_int(float v) {
#if FLT_EVAL_METHOD == 0
    if (fabsf(v) < 4194304.0f) return (int)((v + 12582912.0f) - 12582912.0f);
#endif
    return (int)lrintf(v);
}

static inline float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline float smoothstep(float e0, float e1, float v) {
    float t = clampf((v - e0) / (e1 - e0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}
static inline float wrap_delta(float d, float size) { /* nearest image on the torus */
    if (d > 0.5f * size) d -= size;
    if (d < -0.5f * size) d += size;
    return d;
}

/* ---- landmarks: the authored layout, in default-world coordinates --------------------------------------
 * A world up to the default size scales the layout with itself. A larger one repeats it in cells of the default
 * size, each column of cells mirrored in x and shifted in y by eighths of a cell as the seed decides (the shift
 * moves the river's authored points with the landmarks, so bridges stay on it and the river runs on from cell
 * to cell down a column). */

typedef enum lm_kind {
    LM_BRIDGE, LM_HANGAR, LM_SLAB, LM_REACH, LM_TUNNEL, LM_GORGE, LM_MESA, LM_LEDGE, LM_LAKE, LM_LOOKOUT,
    LM_OUTPOST
} lm_kind;

typedef struct lm_def {
    lm_kind kind;
    float x, y;     /* default-world texels; bridges, gorge and reach sit on the main river */
    float reach_y;  /* half extent in y (default units) for row culling */
    float clear;    /* no tributary within this radius (default units) */
} lm_def;

/* Must agree with data/default_world.json (tests/test_views.c checks the geometry at those positions). */
static const lm_def landmark_table[] = {
    {LM_BRIDGE, 900, 2048, 100, 100},  {LM_HANGAR, 1500, 4100, 220, 220},  {LM_SLAB, 300, 5600, 240, 240},
    {LM_REACH, 820, 6144, 0, 0},       {LM_TUNNEL, 1600, 7000, 280, 280},  {LM_GORGE, 1100, 8192, 760, 0},
    {LM_MESA, 300, 9000, 220, 220},    {LM_BRIDGE, 900, 10240, 100, 100}, {LM_LEDGE, 1500, 12800, 260, 260},
    {LM_LAKE, 1150, 14900, 330, 0},    {LM_LOOKOUT, 1560, 14500, 260, 160}, {LM_OUTPOST, 400, 15400, 200, 200},
};
#define LANDMARK_COUNT (sizeof landmark_table / sizeof landmark_table[0])

/* The main river runs the length of a cell through these points (x at y = i·H/8), wrapping in y. */
static const float river_ctl_x[8] = {700, 900, 640, 820, 1100, 900, 600, 760};

/* One landmark placed in the world (a table entry in one cell of the layout). */
typedef struct landmark {
    lm_kind kind;
    float cx, cy, ry, clear; /* level texels */
    bool modifies_elevation;
} landmark;

/* ---- the generator's per-row state ---------------------------------------------------------------- */

enum { F_E, F_BIOME, F_STEP, F_CAVE, F_TRIB, F_TS, F_COUNT };

#define NEAR_COLUMNS 3 /* a texel's own column of cells and the two beside it */
#define NEAR_LANDMARKS (LANDMARK_COUNT * NEAR_COLUMNS * 3)

/* The landmarks that can reach a block of rows of one column of cells: those of the columns beside it and of the
 * cells above and below. Every texel of the column sees the same list, in the same order. */
typedef struct block_layout {
    uint32_t ncols, col[NEAR_COLUMNS]; /* the column itself first */
    landmark inst[NEAR_LANDMARKS];
    uint8_t inst_col[NEAR_LANDMARKS];  /* index into col: the river the landmark sits by */
    uint32_t n;
} block_layout;

typedef struct row_ctx {
    uint32_t y, x0;
    const float *n16, *n8; /* the fine noises along the row from x0 */
    uint32_t nriv;
    float xr[NEAR_COLUMNS], rw[NEAR_COLUMNS]; /* the near columns' main rivers: centre and half width on this row */
    const landmark *lms[NEAR_LANDMARKS];
    uint8_t lm_river[NEAR_LANDMARKS];
    uint32_t nlm;
} row_ctx;

/* One texel of the single-layer terrain with what the slab logic needs. */
typedef struct texel_info {
    float H, S; /* continuous height before terracing; terrace step */
    int k;      /* terrace index */
    float fr;   /* position inside the terrace, 0 at its lip, 1 at the foot of the next cliff */
    float biome, cave;
    uint8_t h, type;
    bool water;
} texel_info;

/* The pair being written: two single texels and the dual candidate. */
typedef struct pair_out {
    uint8_t h[2], type[2];
    uint8_t low, mid, high, low_type, high_type;
    uint16_t score;
} pair_out;

/* A column of cells' variant: bit 0 mirrors its layout in x, bits 1..3 shift it down by eighths of a cell. The
 * first column keeps the authored layout, so the default world's views find their landmarks in its cells. */
static uint32_t column_variant(const gen_ctx *g, uint32_t col) {
    return col == 0 ? 0u : st_noise_hash(col, 0x9e37u, g->seed ^ 0x6c8e9cf5u) & 15u;
}

static inline float river_ctl(uint32_t variant, int i) {
    float x = river_ctl_x[(uint32_t)(i - (int)(variant >> 1)) & 7u];
    return variant & 1u ? (float)ST_GEN_DEFAULT_WIDTH - x : x;
}

/* The main river of column col on row y: its centre in world texels and its half width. */
static float river_x(const gen_ctx *g, uint32_t col, uint32_t y, float *rw) {
    float seg_len = (float)g->cell_h / 8.0f;
    float fy = (float)y / seg_len;
    int s = (int)fy;
    float t = fy - (float)s;
    uint32_t v = column_variant(g, col), ox = col * g->cell_w;
    float p0 = river_ctl(v, s + 7), p1 = river_ctl(v, s), p2 = river_ctl(v, s + 1), p3 = river_ctl(v, s + 2);
    /* Catmull-Rom through the authored points (so bridges land on the river), then a seeded meander that
     * vanishes at the points themselves. */
    float t2 = t * t, t3 = t2 * t;
    float x = 0.5f * (2.0f * p1 + (-p0 + p2) * t + (2.0f * p0 - 5.0f * p1 + 4.0f * p2 - p3) * t2 +
                      (-p0 + 3.0f * p1 - 3.0f * p2 + p3) * t3);
    x *= g->sx;
    x += 60.0f * g->fs * noise_at(&g->meander, ox, y) * sinf(3.14159265f * t);
    *rw = fmaxf(1.5f, g->fs * (11.0f + 6.0f * noise_at(&g->rwidth, ox, y)));
    x += (float)ox;
    x = fmodf(x, (float)g->w);
    return x < 0 ? x + (float)g->w : x;
}

/* The coarse fields' noises, in the order of the cursors of a coarse row. */
enum { C_BASE = 0, C_RIDGE = 6, C_MMASK = 10, C_BIOME, C_BIOME2, C_BIOME3, C_BUTTE, C_STEP, C_CAVE, C_TRIB0, C_TRIB1,
       C_TSTR, C_COUNT };

/* The cursors of coarse row y (a multiple of GEN_STRIDE, wrapped into the world). */
static void coarse_row(const gen_ctx *g, uint32_t y, noise_cursor *c) {
    y &= g->h - 1;
    for (int i = 0; i < 6; i++) noise_cursor_row(&c[C_BASE + i], &g->base[i], y);
    for (int i = 0; i < 4; i++) noise_cursor_row(&c[C_RIDGE + i], &g->ridge[i], y);
    noise_cursor_row(&c[C_MMASK], &g->mmask, y);
    noise_cursor_row(&c[C_BIOME], &g->biome, y);
    noise_cursor_row(&c[C_BIOME2], &g->biome2, y);
    noise_cursor_row(&c[C_BIOME3], &g->biome3, y);
    noise_cursor_row(&c[C_BUTTE], &g->butte, y);
    noise_cursor_row(&c[C_STEP], &g->step, y);
    noise_cursor_row(&c[C_CAVE], &g->cave, y);
    noise_cursor_row(&c[C_TRIB0], &g->trib[0], y);
    noise_cursor_row(&c[C_TRIB1], &g->trib[1], y);
    noise_cursor_row(&c[C_TSTR], &g->tstr, y);
}

/* The smooth fields at the coarse grid point x of the cursors' row (points taken left to right). */
static void coarse_eval(const gen_ctx *g, noise_cursor *c, uint32_t x, float *f) {
    x &= g->w - 1;
    float fbm = 0.0f, amp = 1.0f;
    for (int i = 0; i < 6; i++, amp *= 0.5f) fbm += amp * noise_cursor_at(&c[C_BASE + i], x);
    float b01 = clampf(0.5f + 0.62f * fbm, 0.0f, 1.0f);
    float ridge = 0.0f;
    amp = 1.0f;
    for (int i = 0; i < 4; i++, amp *= 0.5f) {
        float r = 1.0f - fabsf(noise_cursor_at(&c[C_RIDGE + i], x));
        ridge += amp * r * r;
    }
    ridge /= 1.875f;
    float mm = smoothstep(-0.15f, 0.45f, noise_cursor_at(&c[C_MMASK], x));
    float biome = (noise_cursor_at(&c[C_BIOME], x) + 0.45f * noise_cursor_at(&c[C_BIOME2], x) +
                   0.2f * noise_cursor_at(&c[C_BIOME3], x)) * 1.4f;
    float e = 0.9f * b01 - 0.12f + 0.75f * mm * ridge * ridge * (0.3f + b01);
    /* buttes: flat-topped towers in the dry country */
    float dry = smoothstep(0.05f, 0.45f, -biome);
    e += 0.22f * dry * smoothstep(0.30f, 0.36f, noise_cursor_at(&c[C_BUTTE], x));
    f[F_E] = e;
    f[F_BIOME] = biome;
    f[F_STEP] = 26.0f + 18.0f * clampf(noise_cursor_at(&c[C_STEP], x) * 1.5f + 0.5f, 0.0f, 1.0f);
    f[F_CAVE] = smoothstep(-0.25f, 0.25f, noise_cursor_at(&c[C_CAVE], x));
    f[F_TRIB] = noise_cursor_at(&c[C_TRIB0], x) + 0.25f * noise_cursor_at(&c[C_TRIB1], x);
    f[F_TS] = 0.8f + 0.2f * smoothstep(-0.3f, 0.3f, noise_cursor_at(&c[C_TSTR], x));
}

/* ---- materials ------------------------------------------------------------------------------------ */

static uint8_t material_for(const texel_info *t, uint32_t x, uint32_t y, uint32_t seed) {
    if (t->water) return M_WATER;
    float dither = hash_signed(st_noise_hash(x, y, seed ^ 0x51ed27u)) * 6.0f;
    if (t->H < 7.0f + dither * 0.5f) return M_SAND; /* beaches and banks */
    if (t->k >= 1 && t->fr < 0.07f) return t->biome > 0.75f ? M_BASALT : M_ROCK; /* cliff lips */
    float hgt = (float)t->h + dither;
    if (t->biome < -0.25f) { /* dry country: banded clay and sand, salt pans in the lowland */
        if (t->k == 0 && t->H < 40.0f) return M_CHALK;
        static const uint8_t bands[4] = {M_CLAY, M_SAND, M_CLAY, M_ROCK};
        return bands[(unsigned)t->k & 3u];
    }
    if (t->biome > 0.75f) /* volcanic: basalt fields with clay */
        return hgt > 150.0f ? M_ROCK : ((t->k & 1) ? M_CLAY : M_BASALT);
    /* temperate: one material per terrace so each shelf reads as a shape */
    if (hgt > 218.0f || t->k >= 7) return M_CHALK;
    if (t->k >= 4) return M_ROCK;
    if (t->k == 3 && t->fr > 0.8f) return M_ROCK;
    return M_GRASS;
}

/* ---- landmark geometry ---------------------------------------------------------------------------- */

static void set_forced_dual(pair_out *p, int low, int mid, int high, uint8_t lt, uint8_t ht) {
    if (low < 0) low = 0;
    if (high > 255) high = 255;
    int d = (mid - low) / 8;
    if (d > 15) d = 15;
    if (d < 1 || low + 8 * d >= high) { /* no room for a cave: a solid column */
        p->score = 0;
        p->h[0] = p->h[1] = (uint8_t)high;
        p->type[0] = p->type[1] = ht;
        return;
    }
    p->low = (uint8_t)low;
    p->mid = (uint8_t)(low + 8 * d);
    p->high = (uint8_t)high;
    p->low_type = lt;
    p->high_type = ht;
    p->score = SCORE_FORCED;
    /* without a second layer (dual_percent < 0) the pair falls back to the cave floor */
    p->h[0] = p->h[1] = (uint8_t)low;
    p->type[0] = p->type[1] = lt;
}

/* A forced single texel. The pair's even texel decides whether it is dual, so the odd texel cancels only
 * a generic slab there, never a landmark's (its single value is then unused). */
static inline void set_single(pair_out *p, int k, int h, uint8_t type) {
    p->h[k] = (uint8_t)(h < 0 ? 0 : h > 255 ? 255 : h);
    p->type[k] = type;
    if (k == 0 || p->score != SCORE_FORCED) p->score = 0;
}

static inline int grain(uint32_t x, uint32_t y, uint32_t seed) {
    return (int)(st_noise_hash(x, y, seed ^ 0x2c1b3c6du) % 3u) - 1;
}

/* Elevation changes applied before terracing (so they are terraced like everything else). */
static float lm_elevation(const gen_ctx *g, const landmark *l, uint32_t x, uint32_t y, float H, float dxr,
                          float rw) {
    float fs = g->fs;
    float dx = wrap_delta((float)x - l->cx, (float)g->w), dy = wrap_delta((float)y - l->cy, (float)g->h);
    float r = sqrtf(dx * dx + dy * dy);
    switch (l->kind) {
    case LM_LAKE: /* a shoreline with bays rather than a circle */
        r *= 1.0f + 0.35f * noise_at(&g->butte, x, y);
        return H * smoothstep(150.0f * fs, 300.0f * fs, r);
    case LM_LOOKOUT: return fmaxf(H, 238.0f - fmaxf(0.0f, r - 60.0f * fs) * 1.2f / fs);
    case LM_GORGE: {
        float taper = 1.0f - smoothstep(560.0f * fs, 740.0f * fs, fabsf(dy));
        float wall = 200.0f * smoothstep(rw + 3.0f * fs, rw + 50.0f * fs, dxr) *
                     (1.0f - smoothstep(rw + 110.0f * fs, rw + 190.0f * fs, dxr));
        return fmaxf(H, wall * taper);
    }
    default: return H;
    }
}

/* Overrides applied to the pair at (x, y) (x even). e[k] is the natural texel. */
static void lm_apply(const gen_ctx *g, const landmark *l, float xr, float rw, uint32_t x, uint32_t y,
                     const texel_info e[2], pair_out *p) {
    float fs = g->fs;
    uint32_t s = g->seed;
    float dyf = wrap_delta((float)y - l->cy, (float)g->h);
    for (int k = 0; k < 2; k++) {
        uint32_t xk = x + (uint32_t)k;
        /* Shapes are decided per pair (from the even texel), as the dual encoding is: both texels of a
         * pair always fall on the same side of a landmark's outline. The candidate is set once, at k == 0. */
        float dx = wrap_delta((float)x - l->cx, (float)g->w), dy = dyf;
        bool even = k == 0;
        int gr = grain(xk, y, s);
        switch (l->kind) {
        case LM_HANGAR: { /* opening at dx = 0 facing −x, the hall runs to +x */
            float depth = 2.0f * floorf(48.0f * fs), hw = 48.0f * fs, wt = fmaxf(1.0f, 8.0f * fs);
            const int F = 44;
            if (dx >= 0 && dx < depth && fabsf(dy) < hw) {
                if (even) set_forced_dual(p, F, F + 72, F + 88, M_BASALT, M_METAL);
            } else if (dx >= 0 && dx < depth + wt && fabsf(dy) < hw + wt) {
                set_single(p, k, F + 88, M_ROCK); /* rock walls under the metal roof's lip */
            } else if (dx >= -176.0f * fs && dx < 0 && fabsf(dy) < 72.0f * fs) {
                set_single(p, k, F, fabsf(dy) < hw ? M_METAL : M_SAND);
            }
            break;
        }
        case LM_SLAB: { /* a wide slab on pillars over a hall open on every side */
            float ax = 112.0f * fs, ay = 80.0f * fs, ring = 40.0f * fs, pitch = 48.0f * fs,
                  ps = fmaxf(1.0f, 3.0f * fs);
            const int G = 40;
            if (fabsf(dx) < ax && fabsf(dy) < ay) {
                float qx = dx - roundf(dx / pitch) * pitch, qy = dy - roundf(dy / pitch) * pitch;
                if (fabsf(qx) < ps && fabsf(qy) < ps) set_single(p, k, G + 72, M_ROCK);
                else if (even) set_forced_dual(p, G, G + 56, G + 72 + gr, M_BASALT, M_GRASS);
            } else if (fabsf(dx) < ax + ring && fabsf(dy) < ay + ring) {
                set_single(p, k, G + gr, M_SAND);
            }
            break;
        }
        case LM_TUNNEL: { /* a rock ridge along x, a road along y through it */
            const int G = 48, R = 160;
            bool ridge = fabsf(dy) < 24.0f * fs && fabsf(dx) < 200.0f * fs;
            bool road = fabsf(dx) < 10.0f * fs && fabsf(dy) < 220.0f * fs;
            if (ridge && road) {
                if (even) set_forced_dual(p, G, G + 48, R + gr, M_METAL, M_ROCK);
            } else if (ridge) {
                set_single(p, k, R + gr, M_ROCK);
            } else if (fabsf(dx) < 36.0f * fs && fabsf(dy) < 220.0f * fs) {
                set_single(p, k, G, road ? M_METAL : M_SAND);
            }
            break;
        }
        case LM_LEDGE: { /* a terrace whose lip overhangs the lower one */
            if (fabsf(dx) >= 192.0f * fs) break;
            const int L = 72, U = 136;
            float y0 = -24.0f * fs + 8.0f * fs * sinf(dx * 0.05f / fs), y1 = 16.0f * fs;
            if (dy >= -170.0f * fs && dy < y0) set_single(p, k, L + gr, M_CLAY);
            else if (dy >= y0 && dy < y1) {
                if (even) set_forced_dual(p, L + gr, U - 16, U + gr, M_BASALT, M_GRASS);
            } else if (dy >= y1 && dy < 100.0f * fs) {
                set_single(p, k, U + gr, dy < y1 + 3.0f * fs ? M_ROCK : M_GRASS);
            }
            break;
        }
        case LM_MESA: { /* a round table mountain with a cave entering from +y */
            float R = 96.0f * fs, rr = sqrtf(dx * dx + dy * dy);
            const int G = 56, T = 176;
            if (rr < R) {
                if (fabsf(dx) < 28.0f * fs && dy > -16.0f * fs) {
                    if (even) set_forced_dual(p, G, G + 64, T + gr, M_BASALT, M_CLAY);
                } else {
                    set_single(p, k, T + gr, rr > R - 4.0f * fs ? M_ROCK : M_CLAY);
                }
            } else if (rr < 1.5f * R) {
                set_single(p, k, G + gr, M_SAND);
            }
            break;
        }
        case LM_BRIDGE: { /* a stone arch over the main river */
            if (fabsf(dy) >= 12.0f * fs) break;
            float dxr = wrap_delta((float)x - xr, (float)g->w);
            float span = rw + 24.0f * fs;
            const int D = 60;
            if (fabsf(dxr) < span) {
                if (even) {
                    float q = dxr / span;
                    int mid = D - 12 - (int)(22.0f * q * q);
                    set_forced_dual(p, e[0].h, mid, D + gr, e[0].type, M_ROCK);
                }
            } else if (fabsf(dxr) < span + 48.0f * fs) {
                float ramp = (float)D - (fabsf(dxr) - span) * 1.2f / fs;
                set_single(p, k, (int)fmaxf((float)e[k].h, ramp), M_ROCK);
            }
            break;
        }
        case LM_LOOKOUT: {
            if (sqrtf(dx * dx + dy * dy) < 60.0f * fs) set_single(p, k, 236 + gr, dx > 0 ? M_CHALK : M_ROCK);
            break;
        }
        case LM_OUTPOST: { /* a walled yard of rust-metal sheds */
            float half = 96.0f * fs, cell = 32.0f * fs;
            if (fabsf(dx) >= half || fabsf(dy) >= half) break;
            const int G = 64;
            float fx = (dx + half) / cell, fy = (dy + half) / cell;
            uint32_t cx = (uint32_t)fx, cy = (uint32_t)fy;
            float lx = (fx - (float)cx - 0.5f) * 32.0f, ly = (fy - (float)cy - 0.5f) * 32.0f; /* default units */
            uint32_t hh = st_noise_hash(cx, cy, s ^ 0x0b57u);
            float bx = 5.0f + (float)(hh & 7u), by = 5.0f + (float)((hh >> 3) & 7u);
            int bh = 10 + (int)((hh >> 6) % 31u);
            if (fabsf(dx) > half - 4.0f * fs || fabsf(dy) > half - 4.0f * fs) set_single(p, k, G + 24, M_METAL);
            else if ((hh >> 12) % 5u != 0 && fabsf(lx) < bx && fabsf(ly) < by) set_single(p, k, G + bh, M_METAL);
            else set_single(p, k, G + gr, M_SAND);
            break;
        }
        default: break;
        }
    }
}

/* ---- the texel ------------------------------------------------------------------------------------ */

static void eval_texel(const gen_ctx *g, const row_ctx *r, const float *cf, uint32_t x, texel_info *t) {
    uint32_t y = r->y;
    float n16 = r->n16[x - r->x0], n8 = r->n8[x - r->x0];
    uint32_t near = 0; /* the nearest main river */
    float dxr = fabsf(wrap_delta((float)x - r->xr[0], (float)g->w));
    for (uint32_t i = 1; i < r->nriv; i++) {
        float d = fabsf(wrap_delta((float)x - r->xr[i], (float)g->w));
        if (d < dxr) dxr = d, near = i;
    }
    float rw = r->rw[near];
    float trib = fabsf(cf[F_TRIB]);
    const float tw = 0.014f;
    for (uint32_t i = 0; i < r->nlm; i++) { /* keep tributaries out of the landmarks' grounds */
        const landmark *l = r->lms[i];
        if (l->clear <= 0.0f) continue;
        float dx = wrap_delta((float)x - l->cx, (float)g->w), dy = wrap_delta((float)y - l->cy, (float)g->h);
        float d2 = dx * dx + dy * dy;
        if (d2 < l->clear * l->clear) trib = fmaxf(trib, tw * 8.0f * (1.0f - sqrtf(d2) / l->clear) + trib);
    }
    /* valleys: the land sinks toward the main river and the tributaries */
    float v = smoothstep(rw, rw + 170.0f * g->fs, dxr) * (0.3f + 0.7f * smoothstep(tw, tw * 8.0f, trib));
    float H = cf[F_E] * 255.0f * (0.05f + 0.95f * v);
    for (uint32_t i = 0; i < r->nlm; i++)
        if (r->lms[i]->modifies_elevation) { /* measured from the landmark's own river */
            uint32_t k = r->lm_river[i];
            H = lm_elevation(g, r->lms[i], x, y, H, fabsf(wrap_delta((float)x - r->xr[k], (float)g->w)), r->rw[k]);
        }
    H = clampf(H, 0.0f, (float)GEN_MAX_HEIGHT);
    t->H = H;
    t->biome = cf[F_BIOME];
    t->cave = cf[F_CAVE];
    float S = cf[F_STEP];
    t->S = S;
    /* a tributary stops where a landmark raised the ground (the gorge walls) */
    t->water = dxr < rw || (trib < tw * (1.0f + 0.3f * n16) && H < 24.0f) || H < 2.0f;
    /* terraces with wandering edges: the jitter moves the cliff lines, not the terrace tops */
    float hj = H + (0.32f * n16 + 0.06f * n8) * S;
    float q = hj / S;
    int k = (int)floorf(q);
    if (k < 0) k = 0;
    float fr = clampf(q - (float)k, 0.0f, 0.9999f);
    t->k = k;
    t->fr = fr;
    if (t->water) {
        t->h = 0;
        t->type = M_WATER;
        return;
    }
    float ts = cf[F_TS];
    float hv = (float)k * S + fr * S * (1.0f - ts) + 1.2f * n8 + 0.3f * hash_signed(st_noise_hash(x, y, g->seed));
    int hi = round_to_int(hv);
    if (hi < 1) hi = 1;
    if (hi > GEN_MAX_HEIGHT) hi = GEN_MAX_HEIGHT;
    t->h = (uint8_t)hi;
    t->type = material_for(t, x, y, g->seed);
}

/* The generic slab: the upper terrace continues over the band below its cliff, leaving a cave. */
static void overhang_candidate(const gen_ctx *g, uint32_t x, uint32_t y, const texel_info *t, pair_out *p) {
    p->score = 0;
    if (t->water || t->H < 14.0f || t->cave <= 0.0f) return;
    int high = round_to_int((float)(t->k + 1) * t->S);
    if (high > GEN_MAX_HEIGHT) return;
    int low = t->h;
    uint32_t hh = st_noise_hash(x >> 3, y >> 3, g->seed ^ 0x7a3du);
    int thick = 7 + (int)(hh % 7u);
    int d = (high - thick - low) / 8;
    if (d > 15) d = 15;
    if (d < 1) return;
    float sc = t->fr * t->cave;
    if (sc <= 0.0f) return;
    texel_info up = *t;
    up.k = t->k + 1;
    up.fr = 0.5f;
    up.h = (uint8_t)high;
    up.H = (float)high;
    p->low = (uint8_t)low;
    p->mid = (uint8_t)(low + 8 * d);
    p->high = (uint8_t)high;
    p->low_type = t->biome > 0.75f ? M_BASALT : (t->biome < -0.25f ? M_CLAY : M_BASALT);
    p->high_type = material_for(&up, x, y, g->seed);
    p->score = (uint16_t)(1.0f + sc * SCORE_MAX_GENERIC);
}

/* ---- the terrain pass ----------------------------------------------------------------------------- */

/* Landmark i of the cell at column col, row crow of the layout. */
static void place_landmark(const gen_ctx *g, uint32_t i, uint32_t col, uint32_t crow, landmark *l) {
    const lm_def *ld = &landmark_table[i];
    uint32_t v = column_variant(g, col);
    float lx = v & 1u ? (float)ST_GEN_DEFAULT_WIDTH - ld->x : ld->x;
    float ly = fmodf(ld->y + (float)(v >> 1) * (float)(ST_GEN_DEFAULT_HEIGHT / 8), (float)ST_GEN_DEFAULT_HEIGHT);
    float fs = g->fs;
    l->kind = ld->kind;
    l->cx = floorf(lx * g->sx * 0.5f) * 2.0f + (float)(col * g->cell_w); /* even: pairs line up with features */
    l->cy = floorf(ly * g->sy) + (float)(crow * g->cell_h);
    l->ry = ld->reach_y * fs + 2.0f;
    l->clear = ld->clear * fs;
    l->modifies_elevation = ld->kind == LM_LAKE || ld->kind == LM_LOOKOUT || ld->kind == LM_GORGE;
    if (ld->kind == LM_REACH) l->ry = -1.0f; /* a named place only */
}

/* Adds v to the first n entries of list unless it is there; returns the new count. */
static uint32_t add_distinct(uint32_t *list, uint32_t n, uint32_t v) {
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == v) return n;
    list[n] = v;
    return n + 1;
}

/* The landmarks near rows from y of column col: a landmark reaches less than a cell's width from its column and
 * less than a cell's height from its cell. */
static void block_layout_setup(const gen_ctx *g, uint32_t col, uint32_t y, block_layout *b) {
    b->ncols = add_distinct(b->col, 0, col);
    b->ncols = add_distinct(b->col, b->ncols, (col + g->cols - 1) % g->cols);
    b->ncols = add_distinct(b->col, b->ncols, (col + 1) % g->cols);
    uint32_t crow = y / g->cell_h, crows[3], nrows = add_distinct(crows, 0, crow);
    nrows = add_distinct(crows, nrows, (crow + g->rows - 1) % g->rows);
    nrows = add_distinct(crows, nrows, (crow + 1) % g->rows);
    b->n = 0;
    for (uint32_t i = 0; i < LANDMARK_COUNT; i++)
        for (uint32_t c = 0; c < b->ncols; c++)
            for (uint32_t k = 0; k < nrows; k++) {
                place_landmark(g, i, b->col[c], crows[k], &b->inst[b->n]);
                b->inst_col[b->n++] = (uint8_t)c;
            }
}

static void row_setup(const gen_ctx *g, const block_layout *b, uint32_t y, row_ctx *r) {
    r->y = y;
    r->nriv = b->ncols;
    for (uint32_t c = 0; c < b->ncols; c++) r->xr[c] = river_x(g, b->col[c], y, &r->rw[c]);
    r->nlm = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        const landmark *l = &b->inst[i];
        if (fabsf(wrap_delta((float)y - l->cy, (float)g->h)) <= l->ry) {
            r->lm_river[r->nlm] = b->inst_col[i];
            r->lms[r->nlm++] = l;
        }
    }
}

/* Rows [y0, y0 + h) of the rectangle, h ≤ GEN_BLOCK, inside one column of cells: the coarse fields of the rows
 * around them once, then each texel from the two coarse rows and columns around it. A coarse point sits at the
 * same world position whatever rectangle asks for it, so the interpolated fields (and so every texel) do not
 * depend on the rectangle. */
typedef struct block_scratch {
    float *coarse; /* the coarse rows of a block: ch × cw points of F_COUNT fields */
    float *rowf;   /* the fields interpolated to the row: cw points */
    float *lat;    /* noise_row_fill's lattice columns */
    float *n16, *n8;
} block_scratch;

static void terrain_block(const gen_ctx *g, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const gen_planes *out,
                          const block_scratch *sc, row_ctx *r, block_layout *layout) {
    float *coarse = sc->coarse, *rowf = sc->rowf;
    uint32_t cx0 = x0 / GEN_STRIDE, cw = (x0 + w - 1) / GEN_STRIDE + 2 - cx0;
    uint32_t cy0 = y0 / GEN_STRIDE, ch = (y0 + h - 1) / GEN_STRIDE + 2 - cy0;
    for (uint32_t j = 0; j < ch; j++) {
        noise_cursor c[C_COUNT];
        coarse_row(g, (cy0 + j) * GEN_STRIDE, c);
        for (uint32_t i = 0; i < cw; i++) coarse_eval(g, c, (cx0 + i) * GEN_STRIDE, coarse + (size_t)(j * cw + i) * F_COUNT);
    }
    size_t half = out->stride / 2;
    block_layout_setup(g, x0 / g->cell_w, y0, layout);
    for (uint32_t yy = 0; yy < h; yy++) {
        uint32_t y = y0 + yy;
        row_setup(g, layout, y, r);
        noise_row_fill(&g->fine16, y, x0, w, sc->lat, sc->n16);
        noise_row_fill(&g->fine8, y, x0, w, sc->lat, sc->n8);
        r->x0 = x0;
        r->n16 = sc->n16;
        r->n8 = sc->n8;
        const float *c0 = coarse + (size_t)(y / GEN_STRIDE - cy0) * cw * F_COUNT, *c1 = c0 + cw * F_COUNT;
        float vy = (float)(y % GEN_STRIDE) / GEN_STRIDE;
        for (uint32_t i = 0; i < cw * F_COUNT; i++) rowf[i] = c0[i] + (c1[i] - c0[i]) * vy;
        uint8_t *hrow = out->heights + (size_t)yy * out->stride, *mrow = out->meta + (size_t)yy * out->stride;
        uint16_t *srow = out->score + (size_t)yy * half;
        uint32_t *crow = out->cand + (size_t)yy * half;
        for (uint32_t x = x0; x < x0 + w; x += 2) {
            texel_info e[2];
            for (int k = 0; k < 2; k++) {
                uint32_t xk = x + (uint32_t)k;
                const float *a = rowf + (size_t)(xk / GEN_STRIDE - cx0) * F_COUNT, *bb = a + F_COUNT;
                float vx = (float)(xk % GEN_STRIDE) / GEN_STRIDE, cf[F_COUNT];
                for (int f = 0; f < F_COUNT; f++) cf[f] = a[f] + (bb[f] - a[f]) * vx;
                eval_texel(g, r, cf, xk, &e[k]);
            }
            pair_out p = {0};
            p.h[0] = e[0].h;
            p.h[1] = e[1].h;
            p.type[0] = e[0].type;
            p.type[1] = e[1].type;
            overhang_candidate(g, x, y, &e[0], &p);
            for (uint32_t i = 0; i < r->nlm; i++) {
                uint32_t k = r->lm_river[i];
                lm_apply(g, r->lms[i], r->xr[k], r->rw[k], x, y, e, &p);
            }
            uint32_t lx = x - x0;
            for (int k = 0; k < 2; k++) {
                hrow[lx + (uint32_t)k] = p.h[k];
                mrow[lx + (uint32_t)k] = (uint8_t)(p.type[k] << ST_META_TYPE_SHIFT8);
            }
            srow[lx / 2] = p.score;
            crow[lx / 2] = p.score ? (uint32_t)p.low | (uint32_t)((p.mid - p.low) >> 3) << 8 | (uint32_t)p.high << 12 |
                                         (uint32_t)p.low_type << 20 | (uint32_t)p.high_type << 23
                                   : 0u;
        }
    }
}

bool gen_terrain_rect(const gen_ctx *g, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const gen_planes *out) {
    uint32_t cw = w / GEN_STRIDE + 2, crows = GEN_BLOCK / GEN_STRIDE + 2;
    block_scratch sc = {.coarse = malloc(sizeof(float) * F_COUNT * cw * crows),
                        .rowf = malloc(sizeof(float) * F_COUNT * (size_t)cw),
                        .lat = malloc(sizeof(float) * 4 * ((size_t)w + 2)),
                        .n16 = malloc(sizeof(float) * 2 * (size_t)w)};
    sc.n8 = sc.n16 ? sc.n16 + w : NULL;
    block_layout *layout = malloc(sizeof *layout);
    bool ok = sc.coarse && sc.rowf && sc.lat && sc.n16 && layout;
    row_ctx r;
    /* blocks aligned to GEN_BLOCK rows of the world, so a rectangle evaluates each coarse row about once, and
     * split where columns of cells meet */
    for (uint32_t y = y0; ok && y < y0 + h;) {
        uint32_t end = (y / GEN_BLOCK + 1) * GEN_BLOCK;
        if (end > y0 + h) end = y0 + h;
        for (uint32_t x = x0; x < x0 + w;) {
            uint32_t xe = (x / g->cell_w + 1) * g->cell_w;
            if (xe > x0 + w) xe = x0 + w;
            gen_planes o = gen_planes_at(out, x - x0, y - y0);
            terrain_block(g, x, y, xe - x, end - y, &o, &sc, &r, layout);
            x = xe;
        }
        y = end;
    }
    free(layout);
    free(sc.coarse);
    free(sc.rowf);
    free(sc.lat);
    free(sc.n16);
    return ok;
}

/* ---- the context ------------------------------------------------------------------------------------ */

st_result gen_resolve(const st_gen_desc *desc, uint32_t max_side, st_gen_desc *out, bool *is_default,
                      st_error *err) {
    st_gen_desc d = desc ? *desc : (st_gen_desc){0};
    if (!d.seed) d.seed = ST_GEN_DEFAULT_SEED;
    if (!d.width) d.width = ST_GEN_DEFAULT_WIDTH;
    if (!d.height) d.height = ST_GEN_DEFAULT_HEIGHT;
    if (d.dual_percent == 0.0f) d.dual_percent = ST_GEN_DEFAULT_DUAL_PERCENT;
    uint64_t default_texels = (uint64_t)ST_GEN_DEFAULT_WIDTH * ST_GEN_DEFAULT_HEIGHT;
    if (!d.exact_share_texels) d.exact_share_texels = default_texels;
    *is_default = d.seed == ST_GEN_DEFAULT_SEED && d.width == ST_GEN_DEFAULT_WIDTH &&
                  d.height == ST_GEN_DEFAULT_HEIGHT && d.dual_percent == ST_GEN_DEFAULT_DUAL_PERCENT &&
                  d.exact_share_texels >= default_texels;
    if (!st_is_pow2(d.width) || !st_is_pow2(d.height) || d.width < 256 || d.height < 256 || d.width > max_side ||
        d.height > max_side)
        return st_error_set(err, ST_ERR_INVALID, "generated world %ux%u: each side must be a power of two from 256 to %u",
                            d.width, d.height, max_side);
    if (!(d.dual_percent <= GEN_MAX_DUAL_PERCENT)) /* also rejects NaN */
        return st_error_set(err, ST_ERR_INVALID, "dual share %g%%: must be at most %g%% (negative for none)",
                            (double)d.dual_percent, (double)GEN_MAX_DUAL_PERCENT);
    *out = d;
    return ST_OK;
}

void gen_ctx_init(gen_ctx *g, const st_gen_desc *d) {
    memset(g, 0, sizeof *g);
    g->d = *d;
    uint32_t w = d->width, h = d->height;
    g->w = w;
    g->h = h;
    g->seed = (uint32_t)(d->seed ^ (d->seed >> 32));
    /* one cell of the layout up to the default size on each axis; beyond it, cells of the default size */
    g->cols = w > ST_GEN_DEFAULT_WIDTH ? w / ST_GEN_DEFAULT_WIDTH : 1;
    g->rows = h > ST_GEN_DEFAULT_HEIGHT ? h / ST_GEN_DEFAULT_HEIGHT : 1;
    g->cell_w = w / g->cols;
    g->cell_h = h / g->rows;
    g->sx = (float)g->cell_w / (float)ST_GEN_DEFAULT_WIDTH;
    g->sy = (float)g->cell_h / (float)ST_GEN_DEFAULT_HEIGHT;
    float fs = (float)w / (float)ST_GEN_DEFAULT_WIDTH, fsy = (float)h / (float)ST_GEN_DEFAULT_HEIGHT;
    if (fsy > fs) fs = fsy;
    g->fs = fs = clampf(fs, 0.125f, 1.0f);
    uint32_t s = g->seed;
    for (int i = 0; i < 6; i++) g->base[i] = noise_make(1024u >> i, w, h, fs, s * 31u + 1u + (uint32_t)i);
    for (int i = 0; i < 4; i++) g->ridge[i] = noise_make(256u >> i, w, h, fs, s * 31u + 11u + (uint32_t)i);
    g->mmask = noise_make(2048, w, h, fs, s * 31u + 21u);
    g->biome = noise_make(1024, w, h, fs, s * 31u + 22u);
    g->step = noise_make(1024, w, h, fs, s * 31u + 23u);
    g->cave = noise_make(512, w, h, fs, s * 31u + 24u);
    g->trib[0] = noise_make(1024, w, h, fs, s * 31u + 25u);
    g->trib[1] = noise_make(256, w, h, fs, s * 31u + 26u);
    g->biome2 = noise_make(256, w, h, fs, s * 31u + 33u);
    g->biome3 = noise_make(64, w, h, fs, s * 31u + 34u);
    g->butte = noise_make(128, w, h, fs, s * 31u + 27u);
    g->tstr = noise_make(512, w, h, fs, s * 31u + 28u);
    g->fine16 = noise_make(16, w, h, fs, s * 31u + 29u);
    g->fine8 = noise_make(8, w, h, fs, s * 31u + 30u);
    g->meander = noise_make(256, w, h, fs, s * 31u + 31u);
    g->rwidth = noise_make(512, w, h, fs, s * 31u + 32u);
}
