/* A flight over a layer store drawn as a paged world with no level: a random dig ahead of the eye every N
 * frames, the edits written back into the store every M frames (between frames), and every dug page that was
 * evicted and mapped again read back from the GPU and checked against the world with every dig made so far — the
 * generator's page with the digs replayed on it by st_level_dig — so lost edits are counted, not assumed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/fly_internal.h"
#include "strata/fly.h"
#include "strata/paged.h"

#define DUG 1u       /* a dig met the page */
#define AWAY 2u      /* not mapped at some frame since it was last checked or dug */
#define DIG_MAX_R 12 /* dig radii 2..12 texels, depths 8..60 */

typedef struct fly_dig {
    int64_t cx, cy;
    int radius, depth;
} fly_dig;

typedef struct fly_paged {
    const st_fly_desc *d;
    st_fly_result *r;
    st_engine *engine;
    uint32_t shift, nx, ny;
    uint8_t *page_state;   /* per page: DUG | AWAY */
    uint32_t *dug, dug_count, dug_cap; /* the pages digs met, once each */
    fly_dig *digs;
    uint32_t dig_count, dig_cap;
    st_store *original;    /* the world as generated (no overlay): the expected pages start from it */
    st_layer_pages *original_pages;
    uint8_t *got, *want;   /* a page's texel pairs: read back, expected */
    uint64_t rng;
} fly_paged;

static uint64_t next_random(uint64_t *s) { /* splitmix64: seeded, so a run is replayed exactly */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *s) { return (double)(next_random(s) >> 11) * (1.0 / 9007199254740992.0); }

/* The page's texels as the world holds them with every dig so far: a window of the generated world around the
 * page, the digs that meet the page replayed on it in order, the page's part packed as pairs. */
static st_result expected_page(fly_paged *f, uint32_t px, uint32_t py, st_error *err) {
    int64_t n = (int64_t)1 << f->shift, margin = DIG_MAX_R + 2;
    int64_t x0 = (int64_t)px * n - margin, y0 = (int64_t)py * n - margin;
    uint32_t side = 2;
    while (side < (uint32_t)(n + 2 * margin)) side *= 2;
    st_level *win = NULL;
    st_result res = st_layer_pages_window(f->original_pages, x0, y0, side, side, &win, err);
    if (res) return res;
    for (uint32_t i = 0; i < f->dig_count && !res; i++) {
        const fly_dig *g = &f->digs[i];
        /* the dig's box as the paged edit clips it (to the world, never wrapped) against the page */
        if (g->cx + g->radius + 1 <= (int64_t)px * n || g->cx - g->radius - 1 >= (int64_t)(px + 1) * n ||
            g->cy + g->radius + 1 <= (int64_t)py * n || g->cy - g->radius - 1 >= (int64_t)(py + 1) * n)
            continue;
        res = st_level_dig(win, (int)(g->cx - x0), (int)(g->cy - y0), g->radius, g->depth, NULL, err);
    }
    if (!res)
        st_level_pack_pairs(win, (st_rect){(int32_t)margin, (int32_t)margin, (int32_t)(margin + n), (int32_t)(margin + n)},
                            f->want);
    st_level_destroy(win);
    return res;
}

/* A random dig 8..200 texels ahead of the eye (within 45° of its heading), inside the world. */
static st_result dig_ahead(fly_paged *f, const st_camera *cam, st_fly_frame *fr, st_error *err) {
    double eye[3];
    st_camera_eye(cam, eye);
    double yaw = (cam->yaw_deg + (uniform(&f->rng) - 0.5) * 90.0) * (M_PI / 180.0);
    double dist = 8.0 + uniform(&f->rng) * 192.0;
    int64_t w = (int64_t)f->nx << f->shift, h = (int64_t)f->ny << f->shift;
    int64_t cx = (int64_t)floor(eye[0] + sin(yaw) * dist), cy = (int64_t)floor(eye[1] + cos(yaw) * dist);
    cx = ((cx % w) + w) % w;
    cy = ((cy % h) + h) % h;
    fly_dig g = {cx, cy, 2 + (int)(next_random(&f->rng) % (DIG_MAX_R - 1)), 8 + (int)(next_random(&f->rng) % 53)};
    st_rect box;
    double t0 = st_time_ms();
    st_result res = st_engine_paged_edit(f->engine, false, g.cx, g.cy, g.radius, g.depth, &box, err);
    fr->edit_ms = st_time_ms() - t0;
    if (res) return res;
    if (f->dig_count == f->dig_cap) {
        uint32_t cap = f->dig_cap ? 2 * f->dig_cap : 1024;
        fly_dig *grown = realloc(f->digs, cap * sizeof *grown);
        if (!grown) return st_error_set(err, ST_ERR_NOMEM, "out of memory for the digs");
        f->digs = grown;
        f->dig_cap = cap;
    }
    f->digs[f->dig_count++] = g;
    int32_t n = 1 << f->shift;
    for (int32_t py = box.y0 / n; py * n < box.y1; py++)
        for (int32_t px = box.x0 / n; px * n < box.x1; px++) {
            uint32_t page = (uint32_t)py * f->nx + (uint32_t)px;
            f->page_state[page] &= (uint8_t)~AWAY; /* checked from its next eviction on */
            if (f->page_state[page] & DUG) continue;
            f->page_state[page] |= DUG;
            if (f->dug_count == f->dug_cap) {
                uint32_t cap = f->dug_cap ? 2 * f->dug_cap : 1024;
                uint32_t *grown = realloc(f->dug, cap * sizeof *grown);
                if (!grown) return st_error_set(err, ST_ERR_NOMEM, "out of memory for the dug pages");
                f->dug = grown;
                f->dug_cap = cap;
            }
            f->dug[f->dug_count++] = page;
        }
    return ST_OK;
}

/* After a frame: every dug page not mapped now is marked away; one mapped again after being away is read back
 * from its slot and compared with the expected texels. */
static st_result check_reloads(fly_paged *f, st_error *err) {
    size_t bytes = ((size_t)1 << f->shift) / 2 * ((size_t)1 << f->shift) * 4;
    for (uint32_t i = 0; i < f->dug_count; i++) {
        uint32_t page = f->dug[i], px = page % f->nx, py = page / f->nx;
        uint32_t slot;
        if (!st_engine_paged_page(f->engine, px, py, &slot, NULL, 0)) {
            f->page_state[page] |= AWAY;
            continue;
        }
        if (!(f->page_state[page] & AWAY) || !f->original_pages) continue;
        f->page_state[page] &= (uint8_t)~AWAY;
        if (!st_engine_paged_page(f->engine, px, py, &slot, f->got, bytes))
            return st_error_set(err, ST_ERR_GPU, "reading back page (%u, %u) from the GPU", px, py);
        st_result res = expected_page(f, px, py, err);
        if (res) return res;
        f->r->reloads_checked++;
        if (memcmp(f->got, f->want, bytes)) f->r->lost_edits++;
    }
    return ST_OK;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

st_result st_fly_paged(const st_fly_desc *d, st_fly_result *r, st_engine *engine, const st_camera *cams, st_error *err) {
    fly_paged f = {.d = d, .r = r, .engine = engine, .rng = d->seed ? d->seed : 1};
    const st_store_info *in = st_store_get_info(d->store);
    r->paged = true;
    r->pool_pages = d->pool_pages ? d->pool_pages : 256;
    /* at least one coarser level: where full resolution reaches the far distance it is a backstop, so that a page
     * still loading is drawn coarse rather than as its floor */
    r->far_levels = st_paged_far_levels_for((float)r->far_m, 0);
    if (!r->far_levels) r->far_levels = 1;
    r->upload_pages = d->upload_pages;
    st_paged_desc pd = {.pool_pages = d->pool_pages,
                        .slow_load_ms = d->world.slow_load_ms,
                        .far_levels = r->far_levels,
                        .upload_pages = d->upload_pages};
    st_result res = st_engine_set_paged_world(engine, d->store, &pd, err);
    f.shift = (uint32_t)__builtin_ctz(in->tile_size);
    f.nx = (uint32_t)(in->width >> f.shift);
    f.ny = (uint32_t)(in->height >> f.shift);
    size_t page_bytes = (size_t)in->tile_size / 2 * in->tile_size * 4;
    if (!res) {
        f.page_state = calloc((size_t)f.nx * f.ny, 1);
        f.got = malloc(page_bytes);
        f.want = malloc(page_bytes);
        if (!f.page_state || !f.got || !f.want) res = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    /* the expected pages start from the world as generated: an overlay's generator, opened apart (a folder's
     * pages are overwritten by the write-backs: its digs are made and written, not checked) */
    if (!res && d->dig_every && in->overlay_of[0]) {
        res = st_store_open(in->overlay_of, &f.original, err);
        if (!res) res = st_layer_pages_create(f.original, 16, &f.original_pages, err);
        r->edits_checked = !res;
    }
    st_render_desc rd = {.method = r->method, .width = r->width, .height = r->height, .shadows = !d->no_shadows,
                         .knobs = d->knobs};
    st_renderer *rend = NULL;
    if (!res) res = st_renderer_create(engine, &rd, &rend, err);
    uint32_t settle = d->settle_frames ? d->settle_frames : 4000;
    if (!res) res = st_engine_paged_settle(engine, &cams[0], settle, &r->settle_frames, err);
    st_paged_stats ps;
    if (!res) res = st_engine_paged_stats(engine, &ps, err);
    if (!res) r->settled = ps.missing == 0;
    if (!res) res = st_eval_warm_up(rend, &cams[0], 3, NULL, err);
    uint32_t every = d->write_back_every ? d->write_back_every : 30;
    double *wb_ms = calloc(r->frame_count / every + 2, sizeof *wb_ms);
    if (!res && !wb_ms) res = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    bool gpu = st_engine_has_gpu_timestamps(engine);
    double started = st_time_ms();
    for (uint32_t i = 0; i < r->frame_count && !res; i++) {
        if (d->cancel && *d->cancel) {
            res = st_error_set(err, ST_ERR_CANCELLED, "interrupted");
            break;
        }
        st_fly_frame *fr = &r->frames[i];
        fr->edit_ms = NAN;
        if (d->dig_every && i % d->dig_every == 0) {
            res = dig_ahead(&f, &cams[i], fr, err);
            if (res) break;
            r->digs++;
        }
        st_frame_timing tm;
        double t0 = st_time_ms();
        res = st_renderer_draw(rend, &cams[i], &tm, err);
        fr->frame_ms = st_time_ms() - t0;
        if (res) break;
        fr->t_s = i / r->fps;
        fr->gpu_ms = gpu ? tm.gpu_ms : NAN;
        if (!gpu) tm.gpu_ms = NAN;
        st_fly_record_passes(r, (uint32_t)i, &tm);
        fr->cpu_ms = tm.cpu_ms;
        fr->select_ms = fr->upload_ms = NAN;
        fr->hole_px = 0;
        st_camera_eye(&cams[i], fr->eye);
        res = st_engine_paged_stats(engine, &ps, err);
        if (res) break;
        fr->missing = ps.missing;
        fr->hole_pages = ps.holes;
        fr->upload_ms = ps.residency.upload_ms_frame;
        fr->resident = ps.residency.resident;
        fr->queued = ps.residency.queued;
        fr->loading = ps.residency.loading;
        fr->evictable = ps.residency.evictable;
        fr->uploads = ps.arrivals; /* every level's, as the bound counts them */
        if (fr->uploads > r->uploads_max) r->uploads_max = fr->uploads;
        /* between frames, untimed: the reload checks and the write-back */
        if (d->dig_every) res = check_reloads(&f, err);
        if (!res && d->dig_every && (i + 1) % every == 0) {
            uint32_t written = 0;
            double w0 = st_time_ms();
            res = st_engine_paged_write_back(engine, &written, err);
            wb_ms[r->write_backs++] = st_time_ms() - w0;
            r->pages_written += written;
        }
        if (d->progress_lines && (i + 1) % 600 == 0)
            fprintf(stderr, "fly: %u/%u frames (%.0f s), %u digs, %u reloads checked, %u lost\n", i + 1,
                    r->frame_count, (st_time_ms() - started) / 1000, r->digs, r->reloads_checked, r->lost_edits);
    }
    st_renderer_destroy(rend);
    if (!res) {
        r->dug_pages = f.dug_count;
        r->gpu_tile_bytes = ps.gpu_bytes;
        r->load_ms_median = ps.residency.load_ms_median;
        if (r->write_backs) {
            qsort(wb_ms, r->write_backs, sizeof *wb_ms, cmp_double);
            r->write_back_ms_median = wb_ms[r->write_backs / 2];
            r->write_back_ms_max = wb_ms[r->write_backs - 1];
        } else {
            r->write_back_ms_median = r->write_back_ms_max = NAN;
        }
        float *v = malloc((r->frame_count ? r->frame_count : 1) * sizeof *v);
        uint32_t k = 0;
        for (uint32_t i = 0; v && i < r->frame_count; i++)
            if (isfinite(r->frames[i].edit_ms)) v[k++] = (float)r->frames[i].edit_ms;
        r->edit_ms_median = v && k ? st_eval_percentile(v, k, 50) : NAN;
        for (uint32_t i = 0; v && i < r->frame_count; i++) v[i] = (float)r->frames[i].missing;
        r->missing_median = v && r->frame_count ? (uint32_t)st_eval_percentile(v, r->frame_count, 50) : 0;
        free(v);
    }
    free(wb_ms);
    free(f.page_state);
    free(f.dug);
    free(f.digs);
    free(f.got);
    free(f.want);
    st_layer_pages_destroy(f.original_pages);
    st_store_close(f.original);
    return res;
}
