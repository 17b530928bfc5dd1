/* The procedural world whole, in memory: the terrain pass in blocks of rows on the job system into the level and
 * whole-world work planes, the opening of the scores (wrapping around the world), the dual threshold (from the
 * planes, or from the sample for a world above exact_share_texels) and the slabs. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "terrain/gen_internal.h"

#define GEN_ROWS_PER_JOB 32

typedef struct world_job {
    const gen_ctx *g;
    gen_planes planes;
    uint16_t *eroded;
    uint32_t threshold;
    _Atomic bool failed;
} world_job;

static void pass_terrain(void *user, size_t begin, size_t end) {
    world_job *j = user;
    uint32_t w = j->g->w, h = j->g->h;
    for (size_t b = begin; b < end; b++) {
        uint32_t y0 = (uint32_t)b * GEN_ROWS_PER_JOB, rows = h - y0 < GEN_ROWS_PER_JOB ? h - y0 : GEN_ROWS_PER_JOB;
        gen_planes o = gen_planes_at(&j->planes, 0, y0);
        if (!gen_terrain_rect(j->g, 0, y0, w, rows, &o)) j->failed = true;
    }
}

static void pass_erode(void *user, size_t begin, size_t end) {
    world_job *j = user;
    gen_erode(j->planes.score, j->eroded, j->g->w / 2, j->g->h, true, begin, end, 0, j->g->w / 2);
}

/* The dilation reads the eroded plane only, so writing the scores in place is safe. */
static void pass_dilate(void *user, size_t begin, size_t end) {
    world_job *j = user;
    gen_dilate(j->planes.score, j->eroded, j->g->w / 2, j->g->h, true, begin, end, 0, j->g->w / 2);
}

static void pass_dual(void *user, size_t begin, size_t end) {
    world_job *j = user;
    gen_apply_dual(&j->planes, begin, end, 0, j->g->w / 2, j->threshold);
}

st_result st_gen_world(const st_gen_desc *desc, st_level **out, st_error *err) {
    *out = NULL;
    st_gen_desc d = desc ? *desc : (st_gen_desc){0};
    if (!d.width) d.width = ST_GEN_DEFAULT_WIDTH;
    if (!d.height) d.height = ST_GEN_DEFAULT_HEIGHT;
    st_result res = st_level_check_size(d.width, d.height, err);
    if (res) return res;
    bool is_default;
    if ((res = gen_resolve(&d, ST_LEVEL_MAX_DIM, &d, &is_default, err))) return res;
    gen_ctx *g = malloc(sizeof *g);
    if (!g) return st_error_set(err, ST_ERR_NOMEM, "cannot allocate the generator");
    gen_ctx_init(g, &d);
    st_level *level = NULL;
    res = st_level_create(d.width, d.height, &level, err);
    size_t pairs = (size_t)(d.width / 2) * d.height;
    world_job j = {.g = g};
    uint64_t *hist = NULL;
    if (!res) {
        j.planes = (gen_planes){level->heights, level->meta, malloc(pairs * sizeof(uint16_t)),
                                malloc(pairs * sizeof(uint32_t)), d.width};
        if (d.dual_percent > 0.0f) {
            j.eroded = malloc(pairs * sizeof(uint16_t));
            if (gen_share_exact(g)) hist = calloc(65536, sizeof *hist);
        }
        bool slabs_ok = d.dual_percent <= 0.0f || (j.eroded && (hist || !gen_share_exact(g)));
        if (!j.planes.score || !j.planes.cand || !slabs_ok)
            res = st_error_set(err, ST_ERR_NOMEM, "cannot allocate the generator's %zu-pair work planes", pairs);
    }
    double t0 = st_time_ms(), t1 = t0;
    if (!res) {
        st_parallel_for((d.height + GEN_ROWS_PER_JOB - 1) / GEN_ROWS_PER_JOB, 1, pass_terrain, &j);
        if (j.failed) res = st_error_set(err, ST_ERR_NOMEM, "out of memory generating the terrain");
        t1 = st_time_ms();
    }
    if (!res && d.dual_percent > 0.0f) {
        st_parallel_for(d.height, 64, pass_erode, &j);
        st_parallel_for(d.height, 64, pass_dilate, &j);
        if (hist) {
            for (size_t i = 0; i < pairs; i++) hist[j.planes.score[i]]++;
            j.threshold = gen_pick_threshold(hist, (double)d.dual_percent / 100.0 * (double)pairs);
        } else {
            res = gen_sampled_threshold(g, &j.threshold, err);
        }
        if (!res) st_parallel_for(d.height, 64, pass_dual, &j);
    }
    ST_DEBUG("gen: terrain %.0f ms, slabs %.0f ms", t1 - t0, st_time_ms() - t1);
    free(hist);
    free(j.eroded);
    free(j.planes.score);
    free(j.planes.cand);
    free(g);
    if (res) {
        st_level_destroy(level);
        return res;
    }
    if (is_default) snprintf(level->name, sizeof level->name, "default");
    else
        snprintf(level->name, sizeof level->name, "gen-%llu-%ux%u", (unsigned long long)d.seed, d.width, d.height);
    *out = level;
    return ST_OK;
}
