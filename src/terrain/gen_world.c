/* The procedural world whole, in memory: the terrain pass in blocks of rows (on the job system, or shared out by
 * the caller of gen_world_terrain) into the level and whole-world work planes, the opening of the scores
 * (wrapping around the world), the dual threshold (from the planes, or from the sample for a world above
 * exact_share_texels) and the slabs. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "terrain/gen_internal.h"

static void pass_terrain(void *user, size_t begin, size_t end) {
    gen_world *j = user;
    uint32_t h = j->g.h, y0 = (uint32_t)begin * GEN_WORLD_ROWS, y1 = (uint32_t)end * GEN_WORLD_ROWS;
    if (!gen_world_terrain(j, y0, y1 < h ? y1 : h)) j->failed = true;
}

static void pass_erode(void *user, size_t begin, size_t end) {
    gen_world *j = user;
    gen_erode(j->planes.score, j->eroded, j->g.w / 2, j->g.h, true, begin, end, 0, j->g.w / 2);
}

/* The dilation reads the eroded plane only, so writing the scores in place is safe. */
static void pass_dilate(void *user, size_t begin, size_t end) {
    gen_world *j = user;
    gen_dilate(j->planes.score, j->eroded, j->g.w / 2, j->g.h, true, begin, end, 0, j->g.w / 2);
}

static void pass_dual(void *user, size_t begin, size_t end) {
    gen_world *j = user;
    gen_apply_dual(&j->planes, begin, end, 0, j->g.w / 2, j->threshold);
}

void gen_world_abort(gen_world *j) {
    if (!j) return;
    free(j->hist);
    free(j->eroded);
    free(j->planes.score);
    free(j->planes.cand);
    st_level_destroy(j->level);
    free(j);
}

st_result gen_world_begin(const st_gen_desc *desc, gen_world **out, st_error *err) {
    *out = NULL;
    st_gen_desc d = desc ? *desc : (st_gen_desc){0};
    if (!d.width) d.width = ST_GEN_DEFAULT_WIDTH;
    if (!d.height) d.height = ST_GEN_DEFAULT_HEIGHT;
    st_result res = st_level_check_size(d.width, d.height, err);
    if (res) return res;
    bool is_default;
    if ((res = gen_resolve(&d, ST_LEVEL_MAX_DIM, &d, &is_default, err))) return res;
    gen_world *j = calloc(1, sizeof *j);
    if (!j) return st_error_set(err, ST_ERR_NOMEM, "cannot allocate the generator");
    gen_ctx_init(&j->g, &d);
    j->is_default = is_default;
    if ((res = st_level_create(d.width, d.height, &j->level, err))) {
        gen_world_abort(j);
        return res;
    }
    size_t pairs = (size_t)(d.width / 2) * d.height;
    j->planes = (gen_planes){j->level->heights, j->level->meta, malloc(pairs * sizeof(uint16_t)),
                             malloc(pairs * sizeof(uint32_t)), d.width};
    if (d.dual_percent > 0.0f) {
        j->eroded = malloc(pairs * sizeof(uint16_t));
        if (gen_share_exact(&j->g)) j->hist = calloc(65536, sizeof *j->hist);
    }
    bool slabs_ok = d.dual_percent <= 0.0f || (j->eroded && (j->hist || !gen_share_exact(&j->g)));
    if (!j->planes.score || !j->planes.cand || !slabs_ok) {
        gen_world_abort(j);
        return st_error_set(err, ST_ERR_NOMEM, "cannot allocate the generator's %zu-pair work planes", pairs);
    }
    *out = j;
    return ST_OK;
}

/* A call a block of rows: a wasm engine optimises a function between calls, never within one, so the terrain
 * pass must not be one long call. */
bool gen_world_terrain(gen_world *j, uint32_t y0, uint32_t y1) {
    for (uint32_t y = y0; y < y1; y += GEN_WORLD_ROWS) {
        uint32_t rows = y1 - y < GEN_WORLD_ROWS ? y1 - y : GEN_WORLD_ROWS;
        gen_planes o = gen_planes_at(&j->planes, 0, y);
        if (!gen_terrain_rect(&j->g, 0, y, j->g.w, rows, &o)) return false;
    }
    return true;
}

st_result gen_world_finish(gen_world *j, st_level **out, st_error *err) {
    *out = NULL;
    const st_gen_desc *d = &j->g.d;
    size_t pairs = (size_t)(d->width / 2) * d->height;
    st_result res = ST_OK;
    if (j->failed) res = st_error_set(err, ST_ERR_NOMEM, "out of memory generating the terrain");
    if (!res && d->dual_percent > 0.0f) {
        st_parallel_for(d->height, 64, pass_erode, j);
        st_parallel_for(d->height, 64, pass_dilate, j);
        if (j->hist) {
            for (size_t i = 0; i < pairs; i++) j->hist[j->planes.score[i]]++;
            j->threshold = gen_pick_threshold(j->hist, (double)d->dual_percent / 100.0 * (double)pairs);
        } else {
            res = gen_sampled_threshold(&j->g, &j->threshold, err);
        }
        if (!res) st_parallel_for(d->height, 64, pass_dual, j);
    }
    if (res) {
        gen_world_abort(j);
        return res;
    }
    st_level *level = j->level;
    j->level = NULL;
    if (j->is_default) snprintf(level->name, sizeof level->name, "default");
    else
        snprintf(level->name, sizeof level->name, "gen-%llu-%ux%u", (unsigned long long)d->seed, d->width, d->height);
    gen_world_abort(j);
    *out = level;
    return ST_OK;
}

st_result st_gen_world(const st_gen_desc *desc, st_level **out, st_error *err) {
    gen_world *j;
    st_result res = gen_world_begin(desc, &j, err);
    if (res) {
        *out = NULL;
        return res;
    }
    double t0 = st_time_ms();
    st_parallel_for((j->g.h + GEN_WORLD_ROWS - 1) / GEN_WORLD_ROWS, 1, pass_terrain, j);
    double t1 = st_time_ms();
    res = gen_world_finish(j, out, err);
    ST_DEBUG("gen: terrain %.0f ms, slabs %.0f ms", t1 - t0, st_time_ms() - t1);
    return res;
}
