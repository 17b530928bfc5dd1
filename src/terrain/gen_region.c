/* The procedural world region by region: a rectangle is generated with the margin the opening of the slab
 * scores needs (wrapping around the world like the whole-world passes), so it comes out exactly as the same
 * rectangle of the whole world; the dual threshold every region shares is computed once, on first use, from the
 * whole world in blocks of rows or, above exact_share_texels, from a fixed sample of windows. */
#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrain/gen_internal.h"
#include "terrain/noise.h"

/* The opening reads 3×3 pairs twice: two pairs (four texels) either side, two rows above and below. */
#define MARGIN_X 4u
#define MARGIN_Y 2u
#define THRESHOLD_ROWS 32u /* rows of the world per job when the threshold is made from all of it */
/* The sample: the world cut into up to SAMPLE_GRID × SAMPLE_GRID cells, one window of SAMPLE_WINDOW² texels at a
 * seeded place in each (about a million texels). Many small windows rather than fewer large ones: the slab
 * scores are correlated over hundreds of texels, so the share's error falls with the windows' count (measured:
 * within 0.6 of a point of the target on worlds made whole, where 32² windows of 32² missed by up to 1.2). */
#define SAMPLE_GRID 64u
#define SAMPLE_WINDOW 16u

struct st_gen_source {
    gen_ctx g;
    char name[64];
    pthread_mutex_t lock; /* guards the threshold */
    bool have_threshold;
    uint32_t threshold;
};

/* A region's work planes, margin included: ew × eh texels, pw = ew / 2 pairs a row. */
typedef struct region_work {
    uint32_t ew, eh, pw;
    gen_planes p;
    uint16_t *eroded;
} region_work;

static void work_free(region_work *k) {
    free(k->p.heights);
    free(k->p.meta);
    free(k->p.score);
    free(k->p.cand);
    free(k->eroded);
}

/* Generates the region [x0, x0 + w) × [y0, y0 + h) with its margin into k, up to the opened scores (when the world
 * has slabs): every texel of the margin from the terrain pass, in pieces that do not cross the world's edges. */
static st_result region_open(const gen_ctx *g, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, region_work *k,
                             st_error *err) {
    memset(k, 0, sizeof *k);
    k->ew = w + 2 * MARGIN_X;
    k->eh = h + 2 * MARGIN_Y;
    k->pw = k->ew / 2;
    size_t texels = (size_t)k->ew * k->eh, pairs = texels / 2;
    bool slabs = g->d.dual_percent > 0.0f;
    k->p = (gen_planes){malloc(texels), malloc(texels), malloc(pairs * sizeof(uint16_t)), malloc(pairs * sizeof(uint32_t)),
                        k->ew};
    if (slabs) k->eroded = malloc(pairs * sizeof(uint16_t));
    bool ok = k->p.heights && k->p.meta && k->p.score && k->p.cand && (!slabs || k->eroded);
    for (uint32_t ly = 0; ok && ly < k->eh;) {
        uint32_t ay = (uint32_t)(((uint64_t)y0 + g->h - MARGIN_Y + ly) % g->h), ry = g->h - ay;
        if (ry > k->eh - ly) ry = k->eh - ly;
        for (uint32_t lx = 0; ok && lx < k->ew;) {
            uint32_t ax = (uint32_t)(((uint64_t)x0 + g->w - MARGIN_X + lx) % g->w), rx = g->w - ax;
            if (rx > k->ew - lx) rx = k->ew - lx;
            gen_planes at = gen_planes_at(&k->p, lx, ly);
            ok = gen_terrain_rect(g, ax, ay, rx, ry, &at);
            lx += rx;
        }
        ly += ry;
    }
    if (!ok) {
        work_free(k);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory generating a %ux%u region", w, h);
    }
    if (slabs) {
        gen_erode(k->p.score, k->eroded, k->pw, k->eh, false, 1, k->eh - 1, 1, k->pw - 1);
        gen_dilate(k->p.score, k->eroded, k->pw, k->eh, false, 2, k->eh - 2, 2, k->pw - 2);
    }
    return ST_OK;
}

/* ---- the dual threshold ---------------------------------------------------------------------------------- */

typedef struct threshold_job {
    const gen_ctx *g;
    uint32_t gx, gy; /* the sample's grid */
    uint64_t *hist;
    pthread_mutex_t lock;
    st_error err;
    bool failed;
} threshold_job;

/* Where window i of the sample lies: the cell of the grid it belongs to, at a seeded even offset inside it. */
static void sample_window(const threshold_job *j, size_t i, uint32_t *x0, uint32_t *y0, uint32_t *w, uint32_t *h) {
    const gen_ctx *g = j->g;
    uint32_t cw = g->w / j->gx, ch = g->h / j->gy, cx = (uint32_t)(i % j->gx), cy = (uint32_t)(i / j->gx);
    *w = cw < SAMPLE_WINDOW ? cw : SAMPLE_WINDOW;
    *h = ch < SAMPLE_WINDOW ? ch : SAMPLE_WINDOW;
    uint32_t hash = st_noise_hash(cx, cy, g->seed ^ 0x3a1d5e27u);
    *x0 = cx * cw + 2 * ((hash & 0xFFFFu) % ((cw - *w) / 2 + 1));
    *y0 = cy * ch + (hash >> 16) % (ch - *h + 1);
}

/* The opened scores of the regions begin..end (blocks of rows of the whole world, or the sample's windows),
 * counted into the shared histogram. */
static void count_regions(threshold_job *j, size_t begin, size_t end, bool sample) {
    const gen_ctx *g = j->g;
    uint64_t *local = calloc(65536, sizeof *local);
    st_error err = {0};
    st_result r = local ? ST_OK : st_error_set(&err, ST_ERR_NOMEM, "out of memory for the dual threshold");
    for (size_t b = begin; b < end && !r; b++) {
        uint32_t x0 = 0, y0 = (uint32_t)b * THRESHOLD_ROWS, w = g->w;
        uint32_t h = g->h - y0 < THRESHOLD_ROWS ? g->h - y0 : THRESHOLD_ROWS;
        if (sample) sample_window(j, b, &x0, &y0, &w, &h);
        region_work k;
        if ((r = region_open(g, x0, y0, w, h, &k, &err))) break;
        for (uint32_t y = MARGIN_Y; y < MARGIN_Y + h; y++)
            for (uint32_t i = MARGIN_X / 2; i < MARGIN_X / 2 + w / 2; i++) local[k.p.score[(size_t)y * k.pw + i]]++;
        work_free(&k);
    }
    pthread_mutex_lock(&j->lock);
    if (r && !j->failed) {
        j->failed = true;
        j->err = err;
    }
    if (local)
        for (uint32_t i = 0; i < 65536; i++) j->hist[i] += local[i];
    pthread_mutex_unlock(&j->lock);
    free(local);
}

static void count_rows(void *user, size_t begin, size_t end) { count_regions(user, begin, end, false); }
static void count_windows(void *user, size_t begin, size_t end) { count_regions(user, begin, end, true); }

/* The threshold from the opened scores of every block of rows (sample false) or every window of the sample. */
static st_result threshold_from(const gen_ctx *g, bool sample, uint32_t *threshold, st_error *err) {
    threshold_job j = {.g = g, .hist = calloc(65536, sizeof(uint64_t))};
    if (!j.hist) return st_error_set(err, ST_ERR_NOMEM, "out of memory for the dual threshold");
    j.gx = g->w / SAMPLE_WINDOW < SAMPLE_GRID ? g->w / SAMPLE_WINDOW : SAMPLE_GRID;
    j.gy = g->h / SAMPLE_WINDOW < SAMPLE_GRID ? g->h / SAMPLE_WINDOW : SAMPLE_GRID;
    pthread_mutex_init(&j.lock, NULL);
    if (sample) st_parallel_for((size_t)j.gx * j.gy, 1, count_windows, &j);
    else st_parallel_for((g->h + THRESHOLD_ROWS - 1) / THRESHOLD_ROWS, 1, count_rows, &j);
    pthread_mutex_destroy(&j.lock);
    st_result r = ST_OK;
    if (j.failed) {
        *err = j.err;
        r = err->code;
    } else {
        uint64_t pairs = 0;
        for (uint32_t i = 0; i < 65536; i++) pairs += j.hist[i];
        *threshold = gen_pick_threshold(j.hist, (double)g->d.dual_percent / 100.0 * (double)pairs);
    }
    free(j.hist);
    return r;
}

st_result gen_sampled_threshold(const gen_ctx *g, uint32_t *threshold, st_error *err) {
    return threshold_from(g, true, threshold, err);
}

/* The threshold of st_gen_world: the exact quantile of every pair's opened score, or the sample's. */
static st_result make_threshold(st_gen_source *s, st_error *err) {
    st_result r = threshold_from(&s->g, !gen_share_exact(&s->g), &s->threshold, err);
    s->have_threshold = !r;
    return r;
}

/* ---- the spelling: gen:multi:SEED:WxH[:DUAL] ---------------------------------------------------------- */

/* Decimal digits at *p up to the first non-digit: false for none, a sign or more than fits. */
static bool parse_digits(const char **p, uint64_t max, uint64_t *out) {
    const char *s = *p;
    if (*s < '0' || *s > '9') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE || v > max) return false;
    *out = v;
    *p = end;
    return true;
}

st_result st_gen_parse(const char *spec, st_gen_desc *out, st_error *err) {
    *out = (st_gen_desc){0};
    static const char prefix[] = "gen:multi:";
    const char *form = "gen:multi:SEED:WxH[:DUAL]";
    if (!spec || strncmp(spec, prefix, sizeof prefix - 1))
        return st_error_set(err, ST_ERR_INVALID, "'%.64s': a generated multi-layer world is %s", spec ? spec : "",
                            form);
    const char *p = spec + sizeof prefix - 1;
    uint64_t seed = 0, w = 0, h = 0;
    if (!parse_digits(&p, UINT64_MAX, &seed) || *p != ':' || !seed)
        return st_error_set(err, ST_ERR_INVALID, "'%.64s': the seed must be an integer from 1 to 2^64-1 (%s)", spec,
                            form);
    p++;
    if (!parse_digits(&p, UINT32_MAX, &w) || *p != 'x' || (p++, !parse_digits(&p, UINT32_MAX, &h)) ||
        (*p && *p != ':'))
        return st_error_set(err, ST_ERR_INVALID, "'%.64s': the size must be WxH, like 65536x65536 (%s)", spec, form);
    if (w < 256 || h < 256 || w > ST_GEN_MAX_SIDE || h > ST_GEN_MAX_SIDE || !st_is_pow2((uint32_t)w) ||
        !st_is_pow2((uint32_t)h))
        return st_error_set(err, ST_ERR_INVALID, "'%.64s': each side must be a power of two from 256 to %u", spec,
                            ST_GEN_MAX_SIDE);
    float dual = ST_GEN_DEFAULT_DUAL_PERCENT;
    if (*p == ':') {
        p++;
        char *end = NULL;
        double v = (*p >= '0' && *p <= '9') || *p == '.' ? strtod(p, &end) : NAN;
        if (!strcmp(p, "none")) dual = -1.0f;
        else if (end && !*end && v > 0 && v <= GEN_MAX_DUAL_PERCENT) dual = (float)v;
        else
            return st_error_set(err, ST_ERR_INVALID,
                                "'%.64s': the dual share must be a percentage above 0, at most %g, or 'none' (%s)",
                                spec, (double)GEN_MAX_DUAL_PERCENT, form);
    }
    *out = (st_gen_desc){.seed = seed, .width = (uint32_t)w, .height = (uint32_t)h, .dual_percent = dual};
    return ST_OK;
}

/* ---- the source ------------------------------------------------------------------------------------------ */

st_result st_gen_source_create(const st_gen_desc *desc, st_gen_source **out, st_error *err) {
    *out = NULL;
    st_gen_desc d;
    bool is_default;
    st_result r = gen_resolve(desc, ST_GEN_MAX_SIDE, &d, &is_default, err);
    if (r) return r;
    st_gen_source *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    gen_ctx_init(&s->g, &d);
    pthread_mutex_init(&s->lock, NULL);
    if (is_default) snprintf(s->name, sizeof s->name, "default");
    else snprintf(s->name, sizeof s->name, "gen-%llu-%ux%u", (unsigned long long)d.seed, d.width, d.height);
    *out = s;
    return ST_OK;
}

void st_gen_source_destroy(st_gen_source *src) {
    if (!src) return;
    pthread_mutex_destroy(&src->lock);
    free(src);
}

const st_gen_desc *st_gen_source_desc(const st_gen_source *src) { return &src->g.d; }
const char *st_gen_source_name(const st_gen_source *src) { return src->name; }

st_result st_gen_source_read(st_gen_source *src, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, uint8_t *heights,
                             uint8_t *meta, st_error *err) {
    const gen_ctx *g = &src->g;
    if (!w || !h || (x0 | w) & 1u || (uint64_t)x0 + w > g->w || (uint64_t)y0 + h > g->h ||
        (uint64_t)w * h > ST_GEN_MAX_REGION)
        return st_error_set(err, ST_ERR_INVALID,
                            "region %ux%u at (%u, %u) of %s: must lie inside its %ux%u texels, start and span an even "
                            "number of columns and hold at most %u texels",
                            w, h, x0, y0, src->name, g->w, g->h, ST_GEN_MAX_REGION);
    bool slabs = g->d.dual_percent > 0.0f;
    if (slabs) {
        pthread_mutex_lock(&src->lock);
        st_result r = src->have_threshold ? ST_OK : make_threshold(src, err);
        pthread_mutex_unlock(&src->lock);
        if (r) return r;
    }
    region_work k;
    st_result r = region_open(g, x0, y0, w, h, &k, err);
    if (r) return r;
    if (slabs)
        gen_apply_dual(&k.p, MARGIN_Y, MARGIN_Y + h, MARGIN_X / 2, MARGIN_X / 2 + w / 2, src->threshold);
    for (uint32_t j = 0; j < h; j++) {
        size_t from = (size_t)(MARGIN_Y + j) * k.ew + MARGIN_X;
        memcpy(heights + (size_t)j * w, k.p.heights + from, w);
        memcpy(meta + (size_t)j * w, k.p.meta + from, w);
    }
    work_free(&k);
    return ST_OK;
}
