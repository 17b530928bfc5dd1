/* The procedural world region by region: a rectangle is generated with the margin the opening of the slab
 * scores needs (wrapping around the world like the whole-world passes), so it comes out exactly as the same
 * rectangle of the whole world; the dual threshold every region shares is computed once, on first use. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terrain/gen_internal.h"

/* The opening reads 3×3 pairs twice: two pairs (four texels) either side, two rows above and below. */
#define MARGIN_X 4u
#define MARGIN_Y 2u
#define THRESHOLD_ROWS 32u /* rows of the world per job when the threshold is made from all of it */

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
    uint64_t *hist;
    pthread_mutex_t lock;
    st_error err;
    bool failed;
} threshold_job;

/* The opened scores of blocks of rows of the whole world, counted into the shared histogram. */
static void count_rows(void *user, size_t begin, size_t end) {
    threshold_job *j = user;
    const gen_ctx *g = j->g;
    uint64_t *local = calloc(65536, sizeof *local);
    st_error err = {0};
    st_result r = local ? ST_OK : st_error_set(&err, ST_ERR_NOMEM, "out of memory for the dual threshold");
    for (size_t b = begin; b < end && !r; b++) {
        uint32_t y0 = (uint32_t)b * THRESHOLD_ROWS, rows = g->h - y0 < THRESHOLD_ROWS ? g->h - y0 : THRESHOLD_ROWS;
        region_work k;
        if ((r = region_open(g, 0, y0, g->w, rows, &k, &err))) break;
        for (uint32_t y = MARGIN_Y; y < MARGIN_Y + rows; y++)
            for (uint32_t i = MARGIN_X / 2; i < MARGIN_X / 2 + g->w / 2; i++) local[k.p.score[(size_t)y * k.pw + i]]++;
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

/* The threshold of st_gen_world: the exact quantile of every pair's opened score. */
static st_result make_threshold(st_gen_source *s, st_error *err) {
    const gen_ctx *g = &s->g;
    threshold_job j = {.g = g, .hist = calloc(65536, sizeof(uint64_t))};
    if (!j.hist) return st_error_set(err, ST_ERR_NOMEM, "out of memory for the dual threshold");
    pthread_mutex_init(&j.lock, NULL);
    st_parallel_for((g->h + THRESHOLD_ROWS - 1) / THRESHOLD_ROWS, 1, count_rows, &j);
    pthread_mutex_destroy(&j.lock);
    st_result r = ST_OK;
    if (j.failed) {
        *err = j.err;
        r = err->code;
    } else {
        double pairs = (double)(g->w / 2) * (double)g->h;
        s->threshold = gen_pick_threshold(j.hist, (double)g->d.dual_percent / 100.0 * pairs);
        s->have_threshold = true;
    }
    free(j.hist);
    return r;
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
