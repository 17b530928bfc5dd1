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
#include "strata/image.h"
#include "strata/render.h"

#define GRID_TILE_MAX_W 320u  /* grid tiles are scaled down to at most this width */
#define HEAT_TILE_MAX_W 640u

st_result st_eval_open_run(const st_engine_desc *ed, const st_level *level, const char *out_root,
                           st_engine **engine, st_device_info *info, char *slug, size_t slug_cap, char *out_dir,
                           size_t out_dir_cap, st_error *err) {
    st_result res = st_engine_create(ed, engine, err);
    if (res) return res;
    *info = st_engine_device(*engine);
    st_eval_slug(info->name, slug, slug_cap);
    snprintf(out_dir, out_dir_cap, "%s/%s", out_root, slug);
    if ((res = st_make_dirs(out_dir, err))) return res;
    return level ? st_engine_set_level(*engine, level, err) : ST_OK;
}

/* ---- progress ---------------------------------------------------------------------------------------------- */

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
    float **ref_dist; /* per view */
    uint8_t *rgba;
    float *depth, *dist;
    uint8_t *heat;
    st_mosaic grid, heatmap;
    uint32_t grid_factor, heat_factor;
} run_state;

static void run_state_free(run_state *s) {
    if (s->ref_dist)
        for (size_t v = 0; v < s->r->view_count; v++) free(s->ref_dist[v]);
    free(s->ref_dist);
    free(s->rgba);
    free(s->depth);
    free(s->dist);
    free(s->heat);
    st_mosaic_free(&s->grid);
    st_mosaic_free(&s->heatmap);
    st_reference_destroy(s->ref);
    st_engine_destroy(s->engine);
}

static st_result draw_timed(st_renderer *rn, const st_camera *cam, double *wall_ms, st_frame_timing *t,
                            st_error *err) {
    double s = st_time_ms();
    st_result res = st_renderer_draw(rn, cam, t, err);
    if (wall_ms) *wall_ms = st_time_ms() - s;
    return res;
}

static st_result run_method(run_state *s, size_t m, double start, size_t *done, st_error *err) {
    const st_compare_desc *d = s->d;
    st_compare_result *r = s->r;
    st_compare_method *cm = &r->methods[m];
    /* The publication protocol casts the shared shadow map for every method (a complete terrain frame);
     * --no-shadows is the method-only diagnostic. */
    st_render_desc rd = {.method = cm->name, .width = r->width, .height = r->height, .shadows = r->shadows,
                         .knobs = cm->knobs};
    st_renderer *rn = NULL;
    uint64_t usage0 = 0, usage1 = 0;
    bool usage = st_engine_memory_budget(s->engine, NULL, &usage0, NULL) == ST_OK;
    double t0 = st_time_ms();
    st_result res = st_renderer_create(s->engine, &rd, &rn, err);
    cm->setup_ms = st_time_ms() - t0;
    if (res) return st_error_prefix(err, "method %s", cm->name);
    cm->gpu_bytes = st_renderer_method_gpu_bytes(rn);
    cm->cpu_bytes = st_renderer_method_cpu_bytes(rn);
    for (size_t v = 0; v < r->view_count && !res; v++) {
        st_compare_row *row = &r->rows[m * r->view_count + v];
        const st_camera *cam = &r->cameras[v];
        st_frame_timing ft;
        double wall;
        if (v == 0) { /* the method's very first frame pays for whatever it builds lazily */
            res = draw_timed(rn, cam, &wall, &ft, err);
            cm->first_frame_ms = wall;
        }
        row->warmup_ms = 0;
        for (uint32_t k = 0; k < r->warmup && !res; k++) {
            res = draw_timed(rn, cam, &wall, &ft, err);
            row->warmup_ms += wall;
        }
        if (v == 0) {
            cm->warmup_ms = row->warmup_ms;
            /* lazily built data exists now: the device's usage with this renderer live */
            if (!res && usage && st_engine_memory_budget(s->engine, NULL, &usage1, NULL) == ST_OK) {
                cm->device_usage_delta = (int64_t)usage1 - (int64_t)usage0;
                cm->device_usage_known = true;
            }
        }
        row->frames = r->frames;
        row->gpu_timing = true;
        double shadow = 0;
        for (uint32_t k = 0; k < r->frames && !res; k++) {
            res = draw_timed(rn, cam, NULL, &ft, err);
            row->gpu_ms[k] = ft.gpu_ms;
            row->cpu_ms[k] = ft.cpu_ms;
            shadow += ft.shadow_gpu_ms;
            if (!isfinite(ft.gpu_ms)) row->gpu_timing = false;
        }
        if (res) break;
        row->shadow_ms = row->gpu_timing && r->frames ? shadow / (double)r->frames : NAN;
        row->cpu = st_stats_of(row->cpu_ms, r->frames);
        if (row->gpu_timing) row->gpu = st_stats_of(row->gpu_ms, r->frames);
        else row->gpu = (st_stats){NAN, NAN, NAN, NAN, NAN, 0};
        row->avg_ms = row->gpu_timing ? row->gpu.mean : row->cpu.mean;
        res = st_renderer_readback(rn, s->rgba, s->depth, err);
        if (res) break;
        st_view view = st_camera_view(cam, r->width, r->height);
        st_eval_depth_to_distance(&view, s->depth, s->dist);
        res = st_metrics_compute(s->dist, s->ref_dist[v], r->width, r->height, &row->metrics, err);
        if (res) break;
        st_mosaic_put(&s->grid, (uint32_t)v, (uint32_t)(1 + m), s->rgba, r->width, r->height, s->grid_factor, false);
        res = st_eval_heatmap(s->dist, s->ref_dist[v], r->width, r->height, s->heat, err);
        if (res) break;
        st_mosaic_put(&s->heatmap, (uint32_t)(v % s->heatmap.cols), (uint32_t)(v / s->heatmap.cols), s->heat,
                      r->width, r->height, s->heat_factor, true);
        char what[80];
        snprintf(what, sizeof what, "%s @ %s", cm->name, r->views[v].name);
        progress(d->run.progress, start, ++*done, r->method_count * r->view_count, what);
    }
    st_renderer_destroy(rn);
    if (res) return st_error_prefix(err, "method %s", cm->name);
    char path[1200];
    snprintf(path, sizeof path, "%s/heatmap-%s.png", r->out_dir, cm->name);
    return st_png_write(path, s->heatmap.width, s->heatmap.height, 4, 8, s->heatmap.rgba, err);
}

/* The edit protocol for every method, after the main protocol, on a working copy of the level. */
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
        res = st_edit_measure(s->engine, d->run.level, work, r->methods[m].name, &ed, &r->edit_rows[m], err);
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
    if (res) return res;
    if ((res = st_reference_create(d->run.level, &s->ref, err))) return res;
    r->level_crc = st_reference_crc(s->ref);

    size_t n = (size_t)r->width * r->height;
    s->rgba = malloc(n * 4);
    s->heat = malloc(n * 4);
    s->depth = malloc(n * sizeof(float));
    s->dist = malloc(n * sizeof(float));
    s->ref_dist = calloc(r->view_count, sizeof(float *));
    if (!s->rgba || !s->heat || !s->depth || !s->dist || !s->ref_dist)
        return st_error_set(err, ST_ERR_NOMEM, "compare: out of memory for %ux%u images", r->width, r->height);
    s->grid_factor = (r->width + GRID_TILE_MAX_W - 1) / GRID_TILE_MAX_W;
    s->heat_factor = (r->width + HEAT_TILE_MAX_W - 1) / HEAT_TILE_MAX_W;
    uint32_t heat_cols = r->view_count < 4 ? (uint32_t)r->view_count : 4;
    uint32_t heat_rows = (uint32_t)((r->view_count + heat_cols - 1) / heat_cols);
    if ((res = st_mosaic_create((uint32_t)r->view_count, (uint32_t)(1 + r->method_count), r->width / s->grid_factor,
                                r->height / s->grid_factor, &s->grid, err)))
        return res;
    if ((res = st_mosaic_create(heat_cols, heat_rows, r->width / s->heat_factor, r->height / s->heat_factor,
                                &s->heatmap, err)))
        return res;

    /* the reference of every view: the grid's first row is its shaded picture */
    const char *cache = d->run.cache_dir ? d->run.cache_dir : "out/cache";
    st_ref_image img;
    if ((res = st_ref_image_create(r->width, r->height, &img, err))) return res;
    for (size_t v = 0; v < r->view_count && !res; v++) {
        bool cached = false;
        double t0 = st_time_ms();
        res = st_reference_cast_cached(s->ref, &r->cameras[v], cache, &img, &cached, err);
        r->reference_ms[v] = cached ? 0 : st_time_ms() - t0;
        if (res) break;
        s->ref_dist[v] = malloc(n * sizeof(float));
        if (!s->ref_dist[v]) {
            res = st_error_set(err, ST_ERR_NOMEM, "compare: out of memory for the reference");
            break;
        }
        memcpy(s->ref_dist[v], img.distance, n * sizeof(float));
        st_ref_image_shade(&img, r->far_dist, s->rgba);
        st_mosaic_put(&s->grid, (uint32_t)v, 0, s->rgba, r->width, r->height, s->grid_factor, false);
    }
    st_ref_image_free(&img);
    return res;
}

st_result st_compare_run(const st_compare_desc *d, st_compare_result **out, st_error *err) {
    *out = NULL;
    if (!d->run.level || !d->run.views || d->run.view_count == 0 || d->run.view_count > ST_MAX_VIEWS)
        return st_error_set(err, ST_ERR_INVALID, "compare: a level and 1..%d views are required", ST_MAX_VIEWS);
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
    snprintf(r->tuning, sizeof r->tuning, "%s", d->tuning && d->tuning_path ? d->tuning_path : "");
    snprintf(r->world, sizeof r->world, "%s", d->run.world_name ? d->run.world_name : "default");
    snprintf(r->level_name, sizeof r->level_name, "%s", d->run.level->name);
    r->level_width = d->run.level->width;
    r->level_height = d->run.level->height;
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
        if (!r->edit.radius) r->edit.radius = 48;
        if (!r->edit.depth) r->edit.depth = 90;
        if (!r->edit.repeats) r->edit.repeats = 5;
        if (!r->edit.steady_frames) r->edit.steady_frames = 10;
        st_edit_centre(d->run.level, &d->edit, &r->edit_cx, &r->edit_cy);
        r->edit_view = st_edit_viewpoint(d->run.level, &d->edit);
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
        r->cameras[v] = st_viewpoint_camera(d->run.level, &d->run.views[v]);
        r->cameras[v].far_dist = r->far_dist;
    }
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

    run_state s = {.d = d, .r = r};
    double start = st_time_ms();
    st_result res = setup(&s, err);
    size_t done = 0;
    progress(d->run.progress && !res, start, 0, r->method_count * r->view_count, "reference done");
    for (size_t m = 0; m < r->method_count && !res; m++) res = run_method(&s, m, start, &done, err);
    if (!res && r->edits) {
        r->edit.image_dir = r->out_dir;
        res = run_edits(&s, st_time_ms(), err);
    }
    if (!res) {
        r->validation_messages = st_engine_validation_messages(s.engine);
        r->peak_rss_bytes = st_eval_peak_rss_bytes();
        r->device_budget_known =
            st_engine_memory_budget(s.engine, &r->device_budget_bytes, &r->device_usage_bytes, NULL) == ST_OK;
        st_compare_summarize(r);
        char path[1200];
        snprintf(path, sizeof path, "%s/grid.png", r->out_dir);
        res = st_png_write(path, s.grid.width, s.grid.height, 4, 8, s.grid.rgba, err);
        snprintf(path, sizeof path, "%s/results.json", r->out_dir);
        if (!res) res = st_compare_write_json(r, path, err);
        snprintf(path, sizeof path, "%s/results.md", r->out_dir);
        if (!res) res = st_compare_write_markdown(r, path, err);
        snprintf(path, sizeof path, "%s/frame-time.svg", r->out_dir);
        if (!res) res = st_compare_write_svg(r, path, err);
    }
    run_state_free(&s);
    if (res) {
        st_compare_result_free(r);
        return res;
    }
    *out = r;
    return ST_OK;
}
