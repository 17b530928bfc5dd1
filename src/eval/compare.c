/* The comparison protocol: every method × every view against the CPU reference. Per method one renderer
 * (its creation is `setup`), per view warm-up frames then timed frames, a readback scored with the metrics,
 * optionally the edit protocol (edits.c) per method, and the reports (results.json, results.md,
 * frame-time.svg, grid.png, heatmap-<method>.png, edit-<method>-before/after.png). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/eval_internal.h"
#include "strata/eval.h"
#include "strata/file.h"
#include "strata/image.h"
#include "eval/paged_reference.h"
#include "strata/paged.h"
#include "strata/render.h"

#define GRID_TILE_MAX_W 320u  /* grid tiles are scaled down to at most this width */
#define HEAT_TILE_MAX_W 640u

/* ---- progress ---------------------------------------------------------------------------------------------- */

/* A bar on a terminal; one plain line per step otherwise (a log shows the run is alive and where it is). */
static void progress_lines(bool on, double start, size_t done, size_t total, const char *what) {
    if (!on) return;
    double el = (st_time_ms() - start) / 1000.0;
    double eta = done ? el / (double)done * (double)(total - done) : 0;
    fprintf(stderr, "compare: %zu/%zu %s (elapsed %.0f s, ETA %.0f s)\n", done, total, what, el, eta);
    fflush(stderr);
}

static void progress(bool on, double start, size_t done, size_t total, const char *what) {
    if (!on) return;
    double el = (st_time_ms() - start) / 1000.0;
    double eta = done ? el / (double)done * (double)(total - done) : 0;
    int bar = total ? (int)(30 * done / total) : 30;
    char b[31];
    for (int i = 0; i < 30; i++) b[i] = i < bar ? '#' : '.';
    b[30] = 0;
    fprintf(stderr, "\r[%s] %zu/%zu  %-28.28s  elapsed %3.0fs  ETA %3.0fs ", b, done, total, what, el, eta);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

/* ---- the run ------------------------------------------------------------------------------------------------- */

typedef struct run_state {
    const st_compare_desc *d;
    st_compare_result *r;
    st_engine *engine;
    st_reference *ref;
    st_layer_pages *pages; /* paged: the reference's windows of the world, read through its pages */
    float **ref_dist;    /* per view */
    uint8_t **ref_rgba;  /* per view: the reference shaded by the shared formula */
    uint8_t **ref_incoherent; /* per view: the reference's own incoherent pixels (the same for every method) */
    uint8_t *rgba;
    float *depth, *dist, *delta_e;
    st_frame_timing *timings; /* a view's timed frames */
    uint8_t *heat, *color_heat; /* the depth and colour heat maps of one view at full size */
    st_mosaic grid, heatmap, colormap;
    uint32_t grid_factor, heat_factor;
    st_run_dir dir;
    double start; /* the run's start, for the progress lines */
} run_state;

static bool cancelled(const run_state *s) { return s->d->run.cancel && *s->d->run.cancel; }

static void run_state_free(run_state *s) {
    for (size_t v = 0; v < s->r->view_count; v++) {
        if (s->ref_dist) free(s->ref_dist[v]);
        if (s->ref_rgba) free(s->ref_rgba[v]);
        if (s->ref_incoherent) free(s->ref_incoherent[v]);
    }
    free(s->ref_dist);
    free(s->ref_rgba);
    free(s->ref_incoherent);
    free(s->rgba);
    free(s->timings);
    free(s->depth);
    free(s->dist);
    free(s->delta_e);
    free(s->heat);
    free(s->color_heat);
    st_mosaic_free(&s->grid);
    st_mosaic_free(&s->heatmap);
    st_mosaic_free(&s->colormap);
    st_run_dir_abort(&s->dir); /* nothing when the run was committed */
    st_reference_destroy(s->ref);
    st_layer_pages_destroy(s->pages);
    st_engine_destroy(s->engine);
}

static st_result draw_timed(st_renderer *rn, const st_camera *cam, double *wall_ms, st_frame_timing *t,
                            st_error *err) {
    double s = st_time_ms();
    st_result res = st_renderer_draw(rn, cam, t, err);
    if (wall_ms) *wall_ms = st_time_ms() - s;
    return res;
}

/* Mean frame time of a method's views so far (for the progress line). */
static double method_mean_ms(const st_compare_result *r, size_t m) {
    double sum = 0;
    size_t n = 0;
    for (size_t v = 0; v < r->view_count; v++) {
        double x = r->rows[m * r->view_count + v].avg_ms;
        if (isfinite(x)) sum += x, n++;
    }
    return n ? sum / (double)n : NAN;
}

/* The timed frames of one view into its row: every frame's GPU and CPU time, the shadow pass's and every named
 * pass's mean, the statistics and avg_ms. *first says the view's first frame is still to come (its shadow pass
 * is then the row's shadow_first_ms); it is false afterwards. */
static st_result time_view(run_state *s, st_renderer *rn, const st_camera *cam, st_compare_row *row, bool *first,
                           st_error *err) {
    st_compare_result *r = s->r;
    st_result res = ST_OK;
    row->frames = r->frames;
    row->gpu_timing = true;
    double shadow = 0;
    for (uint32_t k = 0; k < r->frames && !res; k++) {
        if (cancelled(s)) res = st_error_set(err, ST_ERR_CANCELLED, "interrupted");
        if (!res) res = draw_timed(rn, cam, NULL, &s->timings[k], err);
        if (res) break;
        row->gpu_ms[k] = s->timings[k].gpu_ms;
        row->cpu_ms[k] = s->timings[k].cpu_ms;
        shadow += st_frame_timing_pass_ms(&s->timings[k], "shadow");
        if (!isfinite(s->timings[k].gpu_ms)) row->gpu_timing = false;
        if (*first) row->shadow_first_ms = st_frame_timing_pass_ms(&s->timings[k], "shadow");
        *first = false;
    }
    if (res) return res;
    row->shadow_ms = row->gpu_timing && r->frames ? shadow / (double)r->frames : NAN;
    if (!row->gpu_timing || !r->shadows) row->shadow_first_ms = NAN;
    st_pass_set_mean(s->timings, r->frames, &row->passes);
    row->cpu = st_stats_of(row->cpu_ms, r->frames);
    if (row->gpu_timing) row->gpu = st_stats_of(row->gpu_ms, r->frames);
    else row->gpu = (st_stats){NAN, NAN, NAN, NAN, NAN, 0};
    row->avg_ms = row->gpu_timing ? row->gpu.mean : row->cpu.mean;
    return ST_OK;
}

/* The method's first view timed again after its last (docs/harness.md "The first view"): on the H200 the first
 * view after a renderer's creation can run steady several times slower than the same view does later, differently
 * from run to run, while the later views agree between runs. The row keeps the second pass's frames; its first
 * pass's mean stays in first_pass_ms so the effect is reported, not hidden. Its image was scored on the first
 * pass (the frames draw the same image). */
static st_result retime_first_view(run_state *s, size_t m, st_renderer *rn, st_error *err) {
    st_compare_result *r = s->r;
    st_compare_row *row = &r->rows[m * r->view_count];
    const st_camera *cam = &r->cameras[0];
    double first_pass = row->avg_ms, shadow_first = row->shadow_first_ms, t0 = st_time_ms();
    st_result res = s->d->run.paged ? st_engine_paged_settle(s->engine, cam, 1000000, NULL, err) : ST_OK;
    double warm = 0;
    if (!res) res = st_eval_warm_up(rn, cam, r->warmup, &warm, err);
    bool first = false;
    if (!res) res = time_view(s, rn, cam, row, &first, err);
    row->first_pass_ms = first_pass;
    row->shadow_first_ms = shadow_first; /* the first pass's: where the camera had just arrived */
    r->phases.frames_ms += st_time_ms() - t0;
    return res;
}

static st_result run_method(run_state *s, size_t m, double start, size_t *done, st_error *err) {
    const st_compare_desc *d = s->d;
    st_compare_result *r = s->r;
    st_compare_method *cm = &r->methods[m];
    /* The publication protocol casts the shared shadow map for every method (a complete terrain frame);
     * --no-shadows is the method-only diagnostic. */
    st_render_desc rd = {.method = cm->name, .width = r->width, .height = r->height, .shadows = r->shadows,
                         .shadow_size = r->shadow_size, .knobs = cm->knobs, .shading = r->shading};
    st_renderer *rn = NULL;
    uint64_t usage0 = 0, usage1 = 0;
    bool usage = st_engine_memory_budget(s->engine, NULL, &usage0, NULL) == ST_OK;
    double t0 = st_time_ms();
    st_result res = st_renderer_create(s->engine, &rd, &rn, err);
    cm->setup_ms = st_time_ms() - t0;
    r->phases.frames_ms += cm->setup_ms;
    if (res) return st_error_prefix(err, "method %s", cm->name);
    cm->gpu_bytes = st_renderer_method_gpu_bytes(rn);
    cm->cpu_bytes = st_renderer_method_cpu_bytes(rn);
    for (size_t v = 0; v < r->view_count && !res; v++) {
        st_compare_row *row = &r->rows[m * r->view_count + v];
        const st_camera *cam = &r->cameras[v];
        double t_view = st_time_ms();
        st_frame_timing ft;
        double wall;
        /* the shadow pass of the view's first frame: the camera has just moved here, so the map is cast anew
         * (wholly or mostly), where the timed frames that follow cast nothing */
        row->shadow_first_ms = NAN;
        row->first_pass_ms = NAN;
        bool first = true;
        /* a paged world: the view's pages (and its far field's) resident before any frame counts */
        if (s->d->run.paged) res = st_engine_paged_settle(s->engine, cam, 1000000, NULL, err);
        if (!res && v == 0) { /* the method's very first frame pays for whatever it builds lazily */
            res = draw_timed(rn, cam, &wall, &ft, err);
            cm->first_frame_ms = wall;
            if (!res) row->shadow_first_ms = st_frame_timing_pass_ms(&ft, "shadow");
            first = false;
        }
        row->warmup_ms = 0;
        st_frame_timing warm_first;
        if (!res) res = st_eval_warm_up_first(rn, cam, r->warmup, &row->warmup_ms, &warm_first, err);
        if (!res && first && warm_first.pass_count) {
            row->shadow_first_ms = st_frame_timing_pass_ms(&warm_first, "shadow");
            first = false;
        }
        if (v == 0) {
            cm->warmup_ms = row->warmup_ms;
            /* lazily built data exists now: the device's usage with this renderer live */
            if (!res && usage && st_engine_memory_budget(s->engine, NULL, &usage1, NULL) == ST_OK) {
                cm->device_usage_delta = (int64_t)usage1 - (int64_t)usage0;
                cm->device_usage_known = true;
            }
        }
        res = time_view(s, rn, cam, row, &first, err);
        if (res) break;
        double t_read = st_time_ms();
        r->phases.frames_ms += t_read - t_view;
        res = st_renderer_readback(rn, s->rgba, s->depth, err);
        if (res) break;
        double t_score = st_time_ms();
        r->phases.readback_ms += t_score - t_read;
        /* one pass: the metrics, ΔE and both heat maps' pixels; the reference's incoherence was made once */
        st_view view = st_camera_view(cam, r->width, r->height);
        st_eval_depth_to_distance(&view, s->depth, s->dist);
        st_score_desc sd = {.width = r->width, .height = r->height, .distance = s->dist, .ref_distance = s->ref_dist[v],
                            .ref_incoherent = s->ref_incoherent[v], .rgba = s->rgba, .ref_rgba = s->ref_rgba[v],
                            .heat = s->heat, .color_heat = s->color_heat, .delta_e = s->delta_e};
        res = st_eval_score(&sd, &row->metrics, err);
        if (res) break;
        double t_mosaic = st_time_ms();
        r->phases.scoring_ms += t_mosaic - t_score;
        st_mosaic_put(&s->grid, (uint32_t)v, (uint32_t)(1 + m), s->rgba, r->width, r->height, s->grid_factor, false);
        uint32_t hc = (uint32_t)(v % s->heatmap.cols), hr = (uint32_t)(v / s->heatmap.cols);
        st_mosaic_put(&s->heatmap, hc, hr, s->heat, r->width, r->height, s->heat_factor, true);
        st_mosaic_put_keyed(&s->colormap, hc, hr, s->color_heat, s->delta_e, r->width, r->height, s->heat_factor);
        r->phases.mosaic_ms += st_time_ms() - t_mosaic;
        char what[80];
        snprintf(what, sizeof what, "%s @ %s", cm->name, r->views[v].name);
        progress(d->run.progress, start, ++*done, r->method_count * r->view_count, what);
    }
    if (!res && r->view_count > 1) res = retime_first_view(s, m, rn, err);
    st_renderer_destroy(rn);
    if (res) return res == ST_ERR_CANCELLED ? res : st_error_prefix(err, "method %s", cm->name);
    char what[160];
    snprintf(what, sizeof what, "%s done: %zu views, mean %.3f ms per frame", cm->name, r->view_count,
             method_mean_ms(r, m));
    progress_lines(d->run.progress_lines, start, *done, r->method_count * r->view_count, what);
    double t_caption = st_time_ms();
    /* captions and legends on the heat maps: which view, which method, what the colours mean */
    st_mosaic *maps[2] = {&s->heatmap, &s->colormap};
    const char *kinds[2] = {"depth and coverage error", "colour error"};
    for (int k = 0; k < 2; k++) {
        st_mosaic *hm = maps[k];
        for (size_t v = 0; v < r->view_count; v++) {
            const st_metrics *mt = &r->rows[m * r->view_count + v].metrics;
            char cap[160];
            if (k == 0)
                snprintf(cap, sizeof cap, "%s (%.0f deg)  see-through %.2f%%  p95 %.1f", r->views[v].name,
                         r->views[v].pitch_deg, mt->see_through, mt->depth_p95);
            else
                snprintf(cap, sizeof cap, "%s (%.0f deg)  MAE %.2f  visible %.2f%%", r->views[v].name,
                         r->views[v].pitch_deg, mt->color_mae, mt->color_visible);
            st_mosaic_caption(hm, (uint32_t)(v % hm->cols), (uint32_t)(v / hm->cols), cap);
        }
        char title[200];
        snprintf(title, sizeof title, "%s: %s against the CPU reference, %ux%u", cm->name, kinds[k], r->width,
                 r->height);
        st_mosaic_rect(hm, 0, 0, (int)hm->width, (int)hm->top, (const uint8_t[3]){16, 16, 16});
        st_mosaic_text(hm, 6, 6, title, (const uint8_t[3]){255, 255, 255}, 2);
        st_mosaic_rect(hm, 0, (int)(hm->height - hm->bottom), (int)hm->width, (int)hm->bottom,
                       (const uint8_t[3]){16, 16, 16});
        if (k == 0) st_eval_depth_legend(hm, 6, (int)(hm->height - hm->bottom) + 6);
        else st_eval_color_legend(hm, 6, (int)(hm->height - hm->bottom) + 6);
    }
    double t_png = st_time_ms();
    r->phases.mosaic_ms += t_png - t_caption;
    char path[1400];
    snprintf(path, sizeof path, "%s/heatmap-%s.png", s->dir.work, cm->name);
    res = st_png_write(path, s->heatmap.width, s->heatmap.height, 4, 8, s->heatmap.rgba, err);
    snprintf(path, sizeof path, "%s/heatmap-color-%s.png", s->dir.work, cm->name);
    if (!res) res = st_png_write(path, s->colormap.width, s->colormap.height, 4, 8, s->colormap.rgba, err);
    r->phases.png_ms += st_time_ms() - t_png;
    return res;
}

/* The edit protocol for every method, after the main protocol, on a working copy of the level. */
/* The water row: the first method under the water on every view, warm-up then timed frames with the time
 * running at 60 Hz, the water's GPU time apart from the terrain's. Timed, not scored. */
static st_result run_water(run_state *s, double start, st_error *err) {
    st_compare_result *r = s->r;
    st_compare_water *w = &r->water;
    st_compare_method *cm = &r->methods[0];
    snprintf(w->method, sizeof w->method, "%s", cm->name);
    st_render_desc rd = {.method = cm->name, .width = r->width, .height = r->height, .shadows = r->shadows,
                         .shadow_size = r->shadow_size, .knobs = cm->knobs, .water = {.mode = w->mode},
                         .shading = r->shading};
    st_renderer *rn = NULL;
    st_result res = st_renderer_create(s->engine, &rd, &rn, err);
    if (res) return st_error_prefix(err, "the water row");
    w->gpu_timing = true;
    double sums[3] = {0}, frames = 0;
    for (size_t v = 0; v < r->view_count && !res; v++) {
        double sim = 0, surf = 0, terrain = 0, cpu = 0;
        st_renderer_set_time(rn, 0.0);
        res = st_eval_warm_up(rn, &r->cameras[v], r->warmup, NULL, err); /* as the methods' rows: a warm GPU */
        for (uint32_t k = 0; k < r->frames && !res; k++) {
            if (cancelled(s)) res = st_error_set(err, ST_ERR_CANCELLED, "interrupted");
            st_frame_timing ft;
            st_renderer_set_time(rn, (double)(k + 1) / 60.0);
            if (!res) res = draw_timed(rn, &r->cameras[v], NULL, &ft, err);
            if (res) continue;
            if (!isfinite(ft.gpu_ms)) w->gpu_timing = false;
            double sim_ms = st_frame_timing_pass_ms(&ft, "water-sim"), surf_ms = st_frame_timing_pass_ms(&ft, "water");
            sim += sim_ms;
            surf += surf_ms;
            terrain += ft.gpu_ms - sim_ms - surf_ms;
            cpu += ft.cpu_ms;
        }
        double n = r->frames ? (double)r->frames : 1;
        w->sim_ms[v] = sim / n;
        w->surface_ms[v] = surf / n;
        w->terrain_ms[v] = terrain / n;
        w->cpu_ms[v] = cpu / n;
        sums[0] += w->sim_ms[v], sums[1] += w->surface_ms[v], sums[2] += w->terrain_ms[v], frames++;
        char what[96];
        snprintf(what, sizeof what, "water (%s) over %s @ %s", st_water_mode_name(w->mode), cm->name, r->views[v].name);
        progress_lines(s->d->run.progress_lines, start, v + 1, r->view_count, what);
    }
    st_renderer_destroy(rn);
    if (res) return res == ST_ERR_CANCELLED ? res : st_error_prefix(err, "the water row");
    w->sim_mean = sums[0] / frames;
    w->surface_mean = sums[1] / frames;
    w->terrain_mean = sums[2] / frames;
    if (!w->gpu_timing) {
        for (size_t v = 0; v < r->view_count; v++) w->sim_ms[v] = w->surface_ms[v] = w->terrain_ms[v] = NAN;
        w->sim_mean = w->surface_mean = w->terrain_mean = NAN;
    }
    return ST_OK;
}

static st_result run_edits(run_state *s, double start, st_error *err) {
    const st_compare_desc *d = s->d;
    st_compare_result *r = s->r;
    st_level *work = NULL;
    st_result res = st_level_clone(d->run.level, &work, err);
    if (res) return res;
    for (size_t m = 0; m < r->method_count && !res; m++) {
        st_edit_desc ed = r->edit;
        ed.knobs = r->methods[m].knobs;
        progress(d->run.progress, start, m, r->method_count, r->methods[m].name);
        if (cancelled(s)) res = st_error_set(err, ST_ERR_CANCELLED, "interrupted");
        if (!res) res = st_edit_measure(s->engine, d->run.level, work, r->methods[m].name, &ed, &r->edit_rows[m], err);
        char what[96];
        snprintf(what, sizeof what, "edits: %s done", r->methods[m].name);
        if (!res) progress_lines(d->run.progress_lines, start, m + 1, r->method_count, what);
    }
    progress(d->run.progress && !res, start, r->method_count, r->method_count, "edits done");
    /* the engine keeps a pointer to its level: point it back at the caller's before the copy goes */
    st_error ignored = {0};
    st_result back = st_engine_set_level(s->engine, d->run.level, res ? &ignored : err);
    st_level_destroy(work);
    return res ? res : back;
}

static st_result setup(run_state *s, st_error *err) {
    const st_compare_desc *d = s->d;
    st_compare_result *r = s->r;
    st_engine_desc ed = {.device_index = d->run.device_index, .device_given = d->run.device_given, .validate = d->run.validate};
    st_device_info info = {0};
    st_result res = st_eval_open_run(&ed, d->run.level, d->run.out_dir ? d->run.out_dir : "out/compare", &s->engine, &info,
                                     r->slug, sizeof r->slug, r->out_dir, sizeof r->out_dir, err);
    if (s->engine) {
        snprintf(r->adapter, sizeof r->adapter, "%s", info.name);
        snprintf(r->driver, sizeof r->driver, "%s", info.driver);
        snprintf(r->device_type, sizeof r->device_type, "%s", info.type);
        snprintf(r->api_version, sizeof r->api_version, "%s", info.api_version);
        r->vendor_id = info.vendor_id;
        r->device_id = info.device_id;
    }
    if (!res && d->run.paged) {
        st_paged_desc pd = {.pool_pages = d->run.paged_pool, .far_levels = st_paged_far_levels_for(r->far_dist, 0)};
        res = d->run.paged_level && d->run.level
                  ? st_engine_set_paged_level(s->engine, d->run.level, d->run.paged, &pd, err)
                  : st_engine_set_paged_world(s->engine, d->run.paged, &pd, err);
    }
    if (res) return res;
    const char *tag = r->quick ? "quick" : "compare";
    if ((res = st_run_dir_begin(d->run.out_dir ? d->run.out_dir : "out/compare", r->slug, tag, r->settings, &s->dir,
                                err)))
        return res;
    snprintf(r->run_name, sizeof r->run_name, "%s", s->dir.name);
    snprintf(r->out_dir, sizeof r->out_dir, "%s", s->dir.final);
    if (d->run.paged) { /* each view's reference on its window of the world: memory bounded by the far distance */
        if ((res = st_layer_pages_create(d->run.paged, 0, &s->pages, err))) return res;
    } else {
        if ((res = st_reference_create(d->run.level, &s->ref, err))) return res;
        st_reference_set_shadows(s->ref, r->shadows);
        r->level_crc = st_reference_crc(s->ref);
    }

    size_t n = (size_t)r->width * r->height;
    s->rgba = malloc(n * 4);
    s->heat = malloc(n * 4);
    s->color_heat = malloc(n * 4);
    s->depth = malloc(n * sizeof(float));
    s->dist = malloc(n * sizeof(float));
    s->delta_e = malloc(n * sizeof(float));
    s->ref_dist = calloc(r->view_count, sizeof(float *));
    s->ref_rgba = calloc(r->view_count, sizeof(uint8_t *));
    s->ref_incoherent = calloc(r->view_count, sizeof(uint8_t *));
    s->timings = calloc(r->frames, sizeof *s->timings);
    if (!s->timings || !s->rgba || !s->heat || !s->color_heat || !s->depth || !s->dist || !s->delta_e || !s->ref_dist ||
        !s->ref_rgba || !s->ref_incoherent)
        return st_error_set(err, ST_ERR_NOMEM, "compare: out of memory for %ux%u images", r->width, r->height);
    s->grid_factor = (r->width + GRID_TILE_MAX_W - 1) / GRID_TILE_MAX_W;
    s->heat_factor = (r->width + HEAT_TILE_MAX_W - 1) / HEAT_TILE_MAX_W;
    uint32_t heat_cols = r->view_count < 4 ? (uint32_t)r->view_count : 4;
    uint32_t heat_rows = (uint32_t)((r->view_count + heat_cols - 1) / heat_cols);
    /* the grid: a title, the views' names above the columns, the methods' names left of the rows */
    int label_w = st_mosaic_text_width("reference (CPU)", 2);
    for (size_t m = 0; m < r->method_count; m++) {
        int w = st_mosaic_text_width(r->methods[m].name, 2);
        if (w > label_w) label_w = w;
    }
    st_mosaic_layout gl = {.cols = (uint32_t)r->view_count, .rows = (uint32_t)(1 + r->method_count),
                           .tile_w = r->width / s->grid_factor, .tile_h = r->height / s->grid_factor,
                           .left = (uint32_t)label_w + 12, .top = 52};
    if ((res = st_mosaic_create_framed(&gl, &s->grid, err))) return res;
    st_mosaic_layout hl = {.cols = heat_cols, .rows = heat_rows, .tile_w = r->width / s->heat_factor,
                           .tile_h = r->height / s->heat_factor, .top = 30, .caption = 16, .bottom = 40};
    if ((res = st_mosaic_create_framed(&hl, &s->heatmap, err))) return res;
    if ((res = st_mosaic_create_framed(&hl, &s->colormap, err))) return res;

    /* the reference of every view: the grid's first row is its picture, shaded like the methods */
    const char *cache = d->run.cache_dir ? d->run.cache_dir : "out/cache";
    st_ref_image img;
    double t_ref = st_time_ms();
    if ((res = st_ref_image_create(r->width, r->height, &img, err))) return res;
    for (size_t v = 0; v < r->view_count && !res; v++) {
        bool cached = false;
        double t0 = st_time_ms();
        st_error cache_err = {0};
        res = s->pages ? st_eval_paged_reference(s->pages, st_store_get_info(d->run.paged), r->shadows, &r->cameras[v],
                                                 cache, &img, &cached, NULL, &cache_err, err)
                       : st_reference_cast_cached(s->ref, &r->cameras[v], cache, &img, &cached, &cache_err, err);
        r->reference_ms[v] = cached ? 0 : st_time_ms() - t0;
        if (cache_err.message[0] && !r->cache_note[0])
            snprintf(r->cache_note, sizeof r->cache_note, "%s", cache_err.message);
        if (res) break;
        if (cancelled(s)) {
            res = st_error_set(err, ST_ERR_CANCELLED, "interrupted");
            break;
        }
        s->ref_dist[v] = malloc(n * sizeof(float));
        s->ref_rgba[v] = malloc(n * 4);
        s->ref_incoherent[v] = malloc(n);
        if (!s->ref_dist[v] || !s->ref_rgba[v] || !s->ref_incoherent[v]) {
            res = st_error_set(err, ST_ERR_NOMEM, "compare: out of memory for the reference");
            break;
        }
        memcpy(s->ref_dist[v], img.distance, n * sizeof(float));
        memcpy(s->ref_rgba[v], img.rgba, n * 4);
        st_eval_incoherent(s->ref_dist[v], r->width, r->height, s->ref_incoherent[v]);
        st_mosaic_put(&s->grid, (uint32_t)v, 0, img.rgba, r->width, r->height, s->grid_factor, false);
        char cap[96];
        snprintf(cap, sizeof cap, "%s (%.0f deg)", r->views[v].name, r->views[v].pitch_deg);
        st_mosaic_col_label(&s->grid, (uint32_t)v, cap);
        char what[120];
        snprintf(what, sizeof what, "reference %s %s", r->views[v].name, cached ? "(from the cache)" : "cast");
        progress_lines(d->run.progress_lines, s->start, v + 1, r->view_count, what);
    }
    st_ref_image_free(&img);
    r->phases.reference_ms = st_time_ms() - t_ref;
    if (res) return res;
    st_mosaic_row_label(&s->grid, 0, "reference (CPU)", 2);
    for (size_t m = 0; m < r->method_count; m++) st_mosaic_row_label(&s->grid, (uint32_t)(1 + m), r->methods[m].name, 2);
    char title[300];
    snprintf(title, sizeof title, "strata compare %s: %s, %ux%u, shadow map %s%s", r->quick ? "--quick" : "", r->adapter,
             r->width, r->height, r->shadows ? (r->shadow_size == ST_SHADOW_SIZE_PREVIEW ? "256" : "1024") : "off",
             r->shading == ST_SHADING_TEXTURED ? ", textured" : "");
    st_mosaic_text(&s->grid, 6, 6, title, (const uint8_t[3]){255, 255, 255}, 2);
    return ST_OK;
}

st_result st_compare_run(const st_compare_desc *d, st_compare_result **out, st_error *err) {
    *out = NULL;
    if ((!d->run.level && !d->run.paged) || !d->run.views || d->run.view_count == 0 || d->run.view_count > ST_MAX_VIEWS)
        return st_error_set(err, ST_ERR_INVALID, "compare: a level (or a paged store) and 1..%d views are required",
                            ST_MAX_VIEWS);
    st_compare_result *r = calloc(1, sizeof *r);
    if (!r) return st_error_set(err, ST_ERR_NOMEM, "compare: out of memory");
    r->width = d->run.width ? d->run.width : 1280;
    r->height = d->run.height ? d->run.height : 800;
    r->frames = d->run.frames ? d->run.frames : 40;
    r->warmup = d->run.warmup ? d->run.warmup : 3;
    r->far_dist = d->run.far_dist > 0 ? d->run.far_dist : ST_DEFAULT_FAR;
    r->near_dist = ST_DEFAULT_NEAR;
    r->fovy_deg = ST_DEFAULT_FOVY_DEG;
    r->quick = d->quick;
    r->shadows = !d->run.no_shadows;
    r->shadow_size = d->run.shadow_size ? d->run.shadow_size : ST_SHADOW_SIZE_PUBLICATION;
    r->shading = d->run.shading;
    snprintf(r->tuning, sizeof r->tuning, "%s", d->tuning && d->tuning_path ? d->tuning_path : "");
    snprintf(r->world, sizeof r->world, "%s", d->run.world_name ? d->run.world_name : "default");
    const st_store_info *paged_info = d->run.paged ? st_store_get_info(d->run.paged) : NULL;
    snprintf(r->level_name, sizeof r->level_name, "%s", d->run.level ? d->run.level->name : paged_info->name);
    r->level_width = d->run.level ? d->run.level->width : (uint32_t)paged_info->width;
    r->level_height = d->run.level ? d->run.level->height : (uint32_t)paged_info->height;
    /* methods: the named ones (checked against the registry) or every registered one */
    if (d->run.methods) {
        for (size_t i = 0; i < d->run.method_count; i++) {
            if (!st_method_find(d->run.methods[i])) {
                st_compare_result_free(r);
                return st_error_set(err, ST_ERR_INVALID, "compare: unknown method '%s'", d->run.methods[i]);
            }
            if (r->method_count == ST_COMPARE_MAX_METHODS) break;
            snprintf(r->methods[r->method_count++].name, sizeof r->methods[0].name, "%s", d->run.methods[i]);
        }
    } else {
        for (size_t i = 0; i < st_method_count() && r->method_count < ST_COMPARE_MAX_METHODS; i++)
            snprintf(r->methods[r->method_count++].name, sizeof r->methods[0].name, "%s", st_method_at(i)->name);
    }
    if (!r->method_count) {
        st_compare_result_free(r);
        return st_error_set(err, ST_ERR_INVALID, "compare: no methods to run");
    }
    for (size_t m = 0; m < r->method_count; m++) {
        const st_tuning_choice *choice = NULL;
        r->methods[m].knobs = st_tuning_knobs(d->tuning, r->methods[m].name, &choice);
        if (choice && choice->knob[0]) {
            snprintf(r->methods[m].knob, sizeof r->methods[m].knob, "%s", choice->knob);
            r->methods[m].knob_value = choice->value;
        }
    }
    r->edits = d->edits;
    if (d->edits && d->run.paged)
        return st_error_set(err, ST_ERR_INVALID, "compare: the edit protocol edits a level; a paged world takes no edits");
    if (d->edits) {
        st_result er = st_edit_check(d->run.level, &d->edit, err);
        if (er) {
            st_compare_result_free(r);
            return st_error_prefix(err, "compare --edits");
        }
        r->edit = d->edit;
        r->edit.width = r->width;
        r->edit.height = r->height;
        r->edit.far_dist = r->far_dist;
        r->edit.warmup = r->warmup;
        r->edit.no_shadows = d->run.no_shadows;
        r->edit.shadow_size = r->shadow_size;
        if (!r->edit.radius) r->edit.radius = 48;
        if (!r->edit.depth) r->edit.depth = 90;
        if (!r->edit.repeats) r->edit.repeats = 5;
        if (!r->edit.steady_frames) r->edit.steady_frames = 10;
        st_edit_centre(d->run.level, &d->edit, &r->edit_cx, &r->edit_cy);
        r->edit_view = st_edit_viewpoint(d->run.level, &d->edit);
        r->edit_close_view = st_edit_close_viewpoint(d->run.level, &d->edit);
        r->edit_camera = st_viewpoint_camera(d->run.level, &r->edit_view);
        r->edit_camera.far_dist = r->far_dist;
        /* the dirty rectangle, from a dig on a scratch copy */
        st_level *scratch = NULL;
        er = st_level_clone(d->run.level, &scratch, err);
        if (!er) er = st_level_dig(scratch, r->edit_cx, r->edit_cy, r->edit.radius, r->edit.depth, &r->edit_rect, err);
        st_level_destroy(scratch);
        r->edit_rows = er ? NULL : calloc(r->method_count, sizeof *r->edit_rows);
        if (er || !r->edit_rows) {
            st_compare_result_free(r);
            return er ? er : st_error_set(err, ST_ERR_NOMEM, "compare: out of memory");
        }
    }
    r->view_count = d->run.view_count;
    for (size_t v = 0; v < d->run.view_count; v++) {
        r->views[v] = d->run.views[v];
        if (d->run.level) {
            r->cameras[v] = st_viewpoint_camera(d->run.level, &d->run.views[v]);
        } else { /* a world without a level: the ground under the view read through its pages */
            st_layer_pages *lp = NULL;
            st_texel ground = {.outside = true};
            st_result gr = st_layer_pages_create(d->run.paged, 1, &lp, err);
            if (!gr) gr = st_layer_pages_texel(lp, (int64_t)floorf(d->run.views[v].x), (int64_t)floorf(d->run.views[v].y),
                                               &ground, err);
            st_layer_pages_destroy(lp);
            if (gr) {
                st_compare_result_free(r);
                return gr;
            }
            r->cameras[v] = st_viewpoint_camera_on(ground, &d->run.views[v]);
        }
        r->cameras[v].far_dist = r->far_dist;
    }
    /* what the run folder's digest is of: everything that changes a number in the reports */
    char shadow[16];
    snprintf(shadow, sizeof shadow, "%u", r->shadow_size);
    int len = snprintf(r->settings, sizeof r->settings, "world=%s size=%ux%u frames=%u warmup=%u far=%g shadows=%s "
                       "tuning=%s edits=%d methods=", r->world, r->width, r->height, r->frames, r->warmup, r->far_dist,
                       r->shadows ? shadow : "off", r->tuning[0] ? r->tuning : "none", r->edits);
    for (size_t m = 0; m < r->method_count && len > 0 && (size_t)len < sizeof r->settings; m++)
        len += snprintf(r->settings + len, sizeof r->settings - (size_t)len, "%s%s", m ? "," : "", r->methods[m].name);
    for (size_t v = 0; v < r->view_count && len > 0 && (size_t)len < sizeof r->settings; v++)
        len += snprintf(r->settings + len, sizeof r->settings - (size_t)len, "%s%s", v ? "," : " views=",
                        r->views[v].name);
    r->water.mode = d->water;
    if (r->water.mode != ST_WATER_NONE && len > 0 && (size_t)len < sizeof r->settings)
        len += snprintf(r->settings + len, sizeof r->settings - (size_t)len, " water=%s", st_water_mode_name(r->water.mode));
    /* flat, the protocol's shading, is left out so the digests of earlier runs stay what they were */
    if (r->shading == ST_SHADING_TEXTURED && len > 0 && (size_t)len < sizeof r->settings)
        len += snprintf(r->settings + len, sizeof r->settings - (size_t)len, " shading=textured");
    if (d->run.paged && len > 0 && (size_t)len < sizeof r->settings)
        snprintf(r->settings + len, sizeof r->settings - (size_t)len, " paged=%u%s", d->run.paged_pool,
                 d->run.paged_level && d->run.level ? " paged_level=1" : "");
    r->rows = calloc(r->method_count * r->view_count, sizeof *r->rows);
    bool ok = r->rows != NULL;
    for (size_t k = 0; ok && k < r->method_count * r->view_count; k++) {
        r->rows[k].method = k / r->view_count;
        r->rows[k].view = k % r->view_count;
        r->rows[k].gpu_ms = calloc(r->frames, sizeof(double));
        r->rows[k].cpu_ms = calloc(r->frames, sizeof(double));
        r->rows[k].avg_ms = NAN;
        ok = r->rows[k].gpu_ms && r->rows[k].cpu_ms;
    }
    if (!ok) {
        st_compare_result_free(r);
        return st_error_set(err, ST_ERR_NOMEM, "compare: out of memory");
    }

    double start = st_time_ms();
    run_state s = {.d = d, .r = r, .start = start};
    st_result res = setup(&s, err);
    size_t done = 0;
    progress(d->run.progress && !res, start, 0, r->method_count * r->view_count, "reference done");
    for (size_t m = 0; m < r->method_count && !res; m++) res = run_method(&s, m, start, &done, err);
    if (!res && r->water.mode != ST_WATER_NONE) res = run_water(&s, st_time_ms(), err);
    if (!res && r->edits) {
        r->edit.image_dir = s.dir.work;
        res = run_edits(&s, st_time_ms(), err);
    }
    if (!res) {
        r->validation_messages = st_engine_validation_messages(s.engine);
        r->peak_rss_bytes = st_eval_peak_rss_bytes();
        r->device_budget_known =
            st_engine_memory_budget(s.engine, &r->device_budget_bytes, &r->device_usage_bytes, NULL) == ST_OK;
        st_compare_summarize(r);
        char path[1400];
        snprintf(path, sizeof path, "%s/grid.png", s.dir.work);
        double t_png = st_time_ms();
        res = st_png_write(path, s.grid.width, s.grid.height, 4, 8, s.grid.rgba, err);
        r->phases.png_ms += st_time_ms() - t_png;
        snprintf(path, sizeof path, "%s/results.json", s.dir.work);
        if (!res) res = st_compare_write_json(r, path, err);
        snprintf(path, sizeof path, "%s/results.md", s.dir.work);
        if (!res) res = st_compare_write_markdown(r, path, err);
        snprintf(path, sizeof path, "%s/frame-time.svg", s.dir.work);
        if (!res) res = st_compare_write_svg(r, path, err);
        /* complete: the folder gets its name and `latest` points at it */
        if (!res) res = st_run_dir_commit(&s.dir, err);
    }
    run_state_free(&s);
    if (res) {
        st_compare_result_free(r);
        return res;
    }
    *out = r;
    return ST_OK;
}
