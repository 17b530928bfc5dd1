/* A scripted flight rendered frame by frame (strata/fly.h): the engine with the store as its world, the first
 * camera settled to full detail and the GPU warmed up, then every frame of the flight drawn and recorded — GPU, CPU and whole-frame
 * time, the level of detail, the residency and the holes — and the reports written into a run folder. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "eval/fly_internal.h"
#include "strata/fly.h"

#define DEFAULT_SETTLE 4000u

void st_fly_result_free(st_fly_result *r) {
    if (!r) return;
    free(r->frames);
    free(r->passes.ms);
    free(r);
}

/* Where x belongs in the sorted w[0..k): the first index whose value is not below x. */
static uint32_t sorted_place(const double *w, uint32_t k, double x) {
    uint32_t lo = 0, hi = k;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (w[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

void st_fly_local(const double *v, uint32_t n, uint32_t half, double *p99, double *p999, double *max) {
    *p99 = *p999 = *max = NAN;
    uint64_t cap = 2ull * half + 1;
    double *w = malloc((cap < n ? cap : n ? n : 1) * sizeof *w); /* the window's finite values, sorted */
    float *ratio = malloc((n ? n : 1) * sizeof *ratio);
    if (!w || !ratio) {
        free(w);
        free(ratio);
        return;
    }
    /* the window slides one frame at a time: frame i's is [i − half, i + half] clipped, kept sorted by removing the
     * value that leaves and inserting the one that enters (a few hundred bytes moved a frame) */
    uint32_t k = 0, count = 0, end = 0; /* values in w; ratios; the frames [.., end) have entered */
    double hi = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t want = (uint64_t)i + half + 1 < n ? (uint64_t)i + half + 1 : n;
        if (i > half && isfinite(v[i - half - 1])) { /* frame i − half − 1 leaves (first: w holds 2·half + 1) */
            uint32_t at = sorted_place(w, k, v[i - half - 1]);
            memmove(w + at, w + at + 1, (k - at - 1) * sizeof *w);
            k--;
        }
        for (; end < want; end++) {
            if (!isfinite(v[end])) continue;
            uint32_t at = sorted_place(w, k, v[end]);
            memmove(w + at + 1, w + at, (k - at) * sizeof *w);
            w[at] = v[end];
            k++;
        }
        if (!isfinite(v[i]) || !k) continue;
        double median = k % 2 ? w[k / 2] : 0.5 * (w[k / 2 - 1] + w[k / 2]); /* as st_eval_percentile's 50th */
        if (!(median > 0)) continue;
        double r = v[i] / median;
        ratio[count++] = (float)r;
        hi = fmax(hi, r);
    }
    if (count) {
        *max = hi;
        *p99 = st_eval_percentile(ratio, count, 99);
        *p999 = st_eval_percentile(ratio, count, 99.9);
    }
    free(w);
    free(ratio);
}

/* Median, p99, max, mean, the frames over median + 2 ms and the local figures of n values, one a frame (NAN where
 * missing). */
static st_fly_series series_of_values(const double *all, uint32_t n) {
    st_fly_series s = {NAN, NAN, NAN, NAN, 0, NAN, NAN, NAN};
    float *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return s;
    uint32_t k = 0;
    double sum = 0, mx = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        double x = all[i];
        if (!isfinite(x)) continue;
        v[k++] = (float)x;
        sum += x;
        mx = fmax(mx, x);
    }
    st_fly_local(all, n, ST_FLY_LOCAL_HALF, &s.local_p99, &s.local_p999, &s.local_max);
    if (k) {
        s.mean = sum / k;
        s.max = mx;
        s.median = st_eval_percentile(v, k, 50);
        s.p99 = st_eval_percentile(v, k, 99);
        for (uint32_t i = 0; i < n; i++)
            if (isfinite(all[i]) && all[i] > s.median + 2.0) s.over_2ms++;
    }
    free(v);
    return s;
}

void st_fly_record_passes(st_fly_result *r, uint32_t i, const st_frame_timing *tm) {
    st_fly_passes *p = &r->passes;
    if (!p->ms || i >= r->frame_count) return;
    double *row = &p->ms[(size_t)i * ST_FLY_MAX_PASSES];
    for (uint32_t j = 0; j < tm->pass_count; j++) {
        const char *name = tm->passes[j].name ? tm->passes[j].name : "";
        uint32_t k = 0;
        while (k < p->count && strcmp(p->names[k], name) != 0) k++;
        if (k == p->count) {
            if (k == ST_FLY_MAX_PASSES) continue;
            snprintf(p->names[k], sizeof p->names[k], "%s", name);
            /* earlier frames had none of it: 0 there, NAN where they had no timestamps at all */
            for (uint32_t f = 0; f < i; f++) p->ms[(size_t)f * ST_FLY_MAX_PASSES + k] = isfinite(r->frames[f].gpu_ms) ? 0 : NAN;
            p->count++;
        }
        row[k] = (isfinite(row[k]) ? row[k] : 0) + tm->passes[j].gpu_ms;
    }
    for (uint32_t k = 0; k < p->count; k++)
        if (!isfinite(tm->gpu_ms)) row[k] = NAN;
}

/* series_of_values of one figure of every frame, the double at `offset` in st_fly_frame. */
static st_fly_series series_of(const st_fly_frame *f, uint32_t n, size_t offset) {
    double *all = calloc(n ? n : 1, sizeof *all);
    if (!all) return (st_fly_series){NAN, NAN, NAN, NAN, 0, NAN, NAN, NAN};
    for (uint32_t i = 0; i < n; i++) all[i] = *(const double *)((const char *)&f[i] + offset);
    st_fly_series s = series_of_values(all, n);
    free(all);
    return s;
}

static double median_u64(const st_fly_frame *f, uint32_t n, int which) {
    float *v = malloc((n ? n : 1) * sizeof *v);
    if (!v || !n) {
        free(v);
        return NAN;
    }
    for (uint32_t i = 0; i < n; i++) v[i] = which ? (float)f[i].resident : (float)f[i].triangles;
    double m = st_eval_percentile(v, n, 50);
    free(v);
    return m;
}

static void summarise(st_fly_result *r) {
    uint32_t n = r->frame_count;
    r->gpu = series_of(r->frames, n, offsetof(st_fly_frame, gpu_ms));
    r->cpu = series_of(r->frames, n, offsetof(st_fly_frame, cpu_ms));
    r->frame = series_of(r->frames, n, offsetof(st_fly_frame, frame_ms));
    double *col = r->passes.ms ? malloc((n ? n : 1) * sizeof *col) : NULL;
    for (uint32_t k = 0; col && k < r->passes.count; k++) {
        for (uint32_t i = 0; i < n; i++) col[i] = r->passes.ms[(size_t)i * ST_FLY_MAX_PASSES + k];
        r->passes.series[k] = series_of_values(col, n);
    }
    free(col);
    r->hole_px_total = 0;
    r->frames_with_holes = 0;
    r->resident_max = 0;
    r->uploads_total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const st_fly_frame *f = &r->frames[i];
        if (f->hole_px) r->frames_with_holes++;
        r->hole_px_total += f->hole_px == UINT64_MAX ? 0 : f->hole_px;
        if (f->resident > r->resident_max) r->resident_max = f->resident;
        r->uploads_total += f->uploads;
    }
    r->triangles_median = median_u64(r->frames, n, 0);
    r->resident_median = median_u64(r->frames, n, 1);
}

st_result st_fly_run(const st_fly_desc *d, st_fly_result **out, st_error *err) {
    *out = NULL;
    if (!d->store || !d->flight || !d->flight->leg_count)
        return st_error_set(err, ST_ERR_INVALID, "fly: needs a store and a flight");
    const st_store_info *in = st_store_get_info(d->store);
    bool layers = in->kind == ST_TILE_LAYERS; /* flown as a paged world by a level method */
    const char *method = d->method ? d->method : layers ? "ray-compute" : "cdlod";
    const st_method_info *mi = st_method_find(method);
    if (!mi) return st_error_set(err, ST_ERR_INVALID, "fly: unknown method '%s'", method);
    if (!layers && mi->world != ST_WORLD_STORE)
        return st_error_set(err, ST_ERR_INVALID, "fly: method '%s' draws levels, not tile stores", method);
    if (layers && mi->world != ST_WORLD_LEVEL)
        return st_error_set(err, ST_ERR_INVALID, "fly: method '%s' draws DEM stores; a layer store is flown by a level "
                                                 "method that reads its pages (ray, ray-compute, scatter)", method);
    if (layers && d->dig_every && in->generated && !in->overlay_of[0])
        return st_error_set(err, ST_ERR_INVALID, "fly: digs on a generated world are written into an overlay store "
                                                 "(st_store_open_overlay; strata fly --overlay DIR)");
    st_fly_result *r = calloc(1, sizeof *r);
    if (!r) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = r;
    snprintf(r->method, sizeof r->method, "%s", method);
    snprintf(r->world, sizeof r->world, "%s", d->world_name ? d->world_name : "store");
    snprintf(r->flight, sizeof r->flight, "%s", d->flight_name ? d->flight_name : "flight");
    r->width = d->width ? d->width : 1920;
    r->height = d->height ? d->height : 1080;
    r->far_m = d->far_m > 0 ? d->far_m : st_store_far(d->store);
    r->tau_px = d->knobs.tau_px > 0 ? d->knobs.tau_px : 1.0;
    r->skirts = d->knobs.skirts;
    r->lod_select_gpu = d->knobs.lod_select_gpu;
    r->fps = d->flight->fps;
    r->duration_s = st_flight_duration(d->flight);
    r->slow_load_ms = d->world.slow_load_ms;
    for (size_t i = 0; i < d->flight->leg_count; i++) r->max_speed_mps = fmax(r->max_speed_mps, d->flight->legs[i].speed_mps);
    uint32_t n = st_flight_frames(d->flight);
    r->frame_count = n;
    r->frames = calloc(n, sizeof *r->frames);
    r->passes.ms = calloc((size_t)n * ST_FLY_MAX_PASSES, sizeof *r->passes.ms);
    st_camera *cams = malloc(n * sizeof *cams);
    st_result res = r->frames && r->passes.ms && cams ? ST_OK : st_error_set(err, ST_ERR_NOMEM, "out of memory for %u frames", n);
    if (!res) res = st_flight_cameras(d->flight, d->store, r->far_m, cams, err);

    bool reports = !(d->out_dir && !d->out_dir[0]);
    const char *out_root = d->out_dir ? d->out_dir : "out/fly";
    st_engine *engine = NULL;
    st_renderer *rend = NULL;
    st_run_dir dir = {0};
    st_engine_desc ed = {.device_index = d->device_index, .device_given = d->device_given, .validate = d->validate};
    st_device_info info;
    char root[1200];
    if (!res && reports)
        res = st_eval_open_run(&ed, NULL, out_root, &engine, &info, r->slug, sizeof r->slug, root, sizeof root, err);
    else if (!res) {
        res = st_engine_create(&ed, &engine, err);
        if (!res) info = st_engine_device(engine), st_eval_slug(info.name, r->slug, sizeof r->slug);
    }
    if (engine) {
        snprintf(r->adapter, sizeof r->adapter, "%s", info.name);
        snprintf(r->device_type, sizeof r->device_type, "%s", info.type);
    }
    if (!res && !layers) res = st_engine_set_store(engine, d->store, &d->world, err);
    char settings[1400];
    snprintf(settings, sizeof settings,
             "world=%s flight=%s method=%s size=%ux%u far=%g tau=%g skirts=%d grid=%u shadows=%d slow=%g slots=%u "
             "pool=%u dig=%u writeback=%u seed=%llu",
             r->world, r->flight, method, r->width, r->height, r->far_m, r->tau_px, r->skirts, d->knobs.lod_grid,
             !d->no_shadows, r->slow_load_ms, d->world.gpu_slots, d->pool_pages, d->dig_every, d->write_back_every,
             (unsigned long long)d->seed);
    if (d->upload_pages) /* flights without the bound keep the digests they had before it was a setting */
        snprintf(settings + strlen(settings), sizeof settings - strlen(settings), " upload=%u", d->upload_pages);
    if (r->lod_select_gpu) /* CPU-selected flights keep the digests they had before the selection was a setting */
        snprintf(settings + strlen(settings), sizeof settings - strlen(settings), " lod_select=gpu");
    if (!res && reports) res = st_run_dir_begin(out_root, r->slug, "fly", settings, &dir, err);
    st_world_stats ws = {0};
    if (layers) {
        if (!res) res = st_fly_paged(d, r, engine, cams, err);
        if (!res) {
            summarise(r);
            for (uint32_t i = 0; i < n; i++) {
                r->hole_pages_total += r->frames[i].hole_pages;
                if (r->frames[i].hole_pages) r->frames_with_holes++;
            }
            r->gpu_timing = engine && st_engine_has_gpu_timestamps(engine);
            r->validation_messages = st_engine_validation_messages(engine);
            r->peak_rss_bytes = st_eval_peak_rss_bytes();
        }
        goto reports;
    }
    st_render_desc rd = {.method = method, .width = r->width, .height = r->height, .shadows = !d->no_shadows,
                         .knobs = d->knobs};
    if (!res) res = st_renderer_create(engine, &rd, &rend, err);
    /* full detail at the start, so the flight measures streaming while moving, not the first load */
    st_lod_frame_stats lod;
    if (!res) res = st_renderer_settle(rend, &cams[0], d->settle_frames ? d->settle_frames : DEFAULT_SETTLE,
                                       &r->settle_frames, err);
    if (!res && st_renderer_lod_stats(rend, &lod)) r->settled = lod.settled;
    /* and a warm GPU: one left idle while the view settled would time the first frames at a low clock */
    if (!res) res = st_eval_warm_up(rend, &cams[0], 3, NULL, err);
    uint64_t uploads_before = 0;
    if (!res && !st_engine_world_stats(engine, &ws, err)) uploads_before = ws.residency.uploads;
    bool gpu = engine && st_engine_has_gpu_timestamps(engine);
    double started = st_time_ms();
    for (uint32_t i = 0; i < n && !res; i++) {
        if (d->cancel && *d->cancel) {
            res = st_error_set(err, ST_ERR_CANCELLED, "interrupted");
            break;
        }
        st_fly_frame *f = &r->frames[i];
        st_frame_timing tm;
        double t0 = st_time_ms();
        res = st_renderer_draw(rend, &cams[i], &tm, err);
        f->frame_ms = st_time_ms() - t0;
        if (res) break;
        f->t_s = i / r->fps;
        f->gpu_ms = gpu ? tm.gpu_ms : NAN;
        f->cpu_ms = tm.cpu_ms;
        if (!gpu) tm.gpu_ms = NAN;
        st_fly_record_passes(r, (uint32_t)i, &tm);
        st_camera_eye(&cams[i], f->eye);
        if (st_renderer_lod_stats(rend, &lod)) {
            f->select_ms = lod.select_ms;
            f->triangles = lod.triangles;
            f->nodes = lod.nodes;
            f->fallback = lod.fallback;
            f->missing = lod.missing;
            f->undrawn = lod.undrawn;
            f->hole_px = lod.hole_px;
        }
        res = st_engine_world_stats(engine, &ws, err);
        if (res) break;
        f->upload_ms = ws.residency.upload_ms_frame;
        f->resident = ws.residency.resident;
        f->queued = ws.residency.queued;
        f->loading = ws.residency.loading;
        f->evictable = ws.residency.evictable;
        f->uploads = (uint32_t)(ws.residency.uploads - uploads_before);
        uploads_before = ws.residency.uploads;
        if (d->progress_lines && (i + 1) % 600 == 0)
            fprintf(stderr, "fly: %u/%u frames (%.0f s)\n", i + 1, n, (st_time_ms() - started) / 1000);
    }
    st_renderer_destroy(rend);
    if (!res) {
        r->gpu_timing = gpu;
        summarise(r);
        r->load_ms_median = ws.residency.load_ms_median;
        r->gpu_tile_bytes = ws.gpu_bytes;
        r->validation_messages = st_engine_validation_messages(engine);
        r->peak_rss_bytes = st_eval_peak_rss_bytes();
    }
reports:
    if (!res && reports) {
        char file[1400];
        snprintf(file, sizeof file, "%s/fly.json", dir.work);
        res = st_fly_write_json(r, file, err);
        snprintf(file, sizeof file, "%s/fly.md", dir.work);
        if (!res) res = st_fly_write_markdown(r, file, err);
        snprintf(file, sizeof file, "%s/fly.svg", dir.work);
        if (!res) res = st_fly_write_svg(r, file, err);
        if (!res) res = st_run_dir_commit(&dir, err);
        if (!res) snprintf(r->out_dir, sizeof r->out_dir, "%s", dir.final);
    }
    if (res) st_run_dir_abort(&dir);
    free(cams);
    st_engine_destroy(engine);
    return res;
}
