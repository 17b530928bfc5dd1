/* results.json of `strata compare` (schema in docs/harness.md, "schema_version" = ST_COMPARE_SCHEMA_VERSION).
 * Non-finite numbers are written as null; every timing sample is kept so intervals can be recomputed. Also the
 * JSON pieces the tune and soak reports share with it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "eval/eval_internal.h"
#include "strata/eval.h"
#include "strata/file.h"
#include "strata/image.h"
#include "strata/render.h"

void st_eval_json_number(cJSON *o, const char *name, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, name, v);
    else cJSON_AddNullToObject(o, name);
}

/* [{ "name", "ms" }] of a pass set, ms null without timestamps. */
static cJSON *pass_array(const st_pass_set *set) {
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; i < set->count; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", set->passes[i].name);
        st_eval_json_number(o, "ms", set->passes[i].ms);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

void st_eval_json_adapter(cJSON *root, const char *name, const char *device_type) {
    cJSON *ad = cJSON_AddObjectToObject(root, "adapter");
    cJSON_AddStringToObject(ad, "name", name);
    cJSON_AddStringToObject(ad, "device_type", device_type);
}

st_result st_eval_json_write(cJSON *root, const char *path, st_error *err) {
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", path);
    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (!res) {
        fputs(text, f.fp);
        fputc('\n', f.fp);
        res = st_atomic_commit(&f, err);
    }
    free(text);
    return res;
}

static cJSON *num_array(const double *v, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(a, isfinite(v[i]) ? cJSON_CreateNumber(v[i]) : cJSON_CreateNull());
    return a;
}

static cJSON *stats_object(const st_stats *s, bool valid) {
    if (!valid) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    st_eval_json_number(o, "mean", s->mean);
    st_eval_json_number(o, "median", s->median);
    st_eval_json_number(o, "min", s->min);
    st_eval_json_number(o, "max", s->max);
    st_eval_json_number(o, "stddev", s->stddev);
    return o;
}

static const char *method_timing(const st_compare_result *r, size_t m) {
    bool gpu = false, cpu = false;
    for (size_t v = 0; v < r->view_count; v++) {
        if (r->rows[m * r->view_count + v].gpu_timing) gpu = true;
        else cpu = true;
    }
    return gpu && cpu ? "mixed" : gpu ? "gpu" : "cpu";
}

static cJSON *diff_object(const st_image_diff *d, uint32_t frames) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "frames", frames);
    st_eval_json_number(o, "class_mismatch_pct", d->mismatch_pct);
    st_eval_json_number(o, "depth_p50", d->depth_p50);
    st_eval_json_number(o, "depth_p95", d->depth_p95);
    st_eval_json_number(o, "color_mae_8bit", d->color_mae);
    cJSON_AddBoolToObject(o, "consistent", d->consistent);
    return o;
}

/* "edit_protocol" and "edit_rows" (spec §4.7 field names). */
static void add_edits(cJSON *root, const st_compare_result *r) {
    const st_edit_desc *e = &r->edit;
    cJSON *ep = cJSON_AddObjectToObject(root, "edit_protocol");
    double centre[2] = {r->edit_cx, r->edit_cy};
    cJSON_AddItemToObject(ep, "center", num_array(centre, 2));
    cJSON_AddNumberToObject(ep, "radius", e->radius);
    cJSON_AddNumberToObject(ep, "depth", e->depth);
    double rect[4] = {r->edit_rect.x0, r->edit_rect.y0, r->edit_rect.x1, r->edit_rect.y1};
    cJSON_AddItemToObject(ep, "dirty_rect", num_array(rect, 4));
    cJSON *v = cJSON_AddObjectToObject(ep, "view");
    cJSON_AddNumberToObject(v, "x", r->edit_view.x);
    cJSON_AddNumberToObject(v, "y", r->edit_view.y);
    cJSON_AddNumberToObject(v, "yaw", r->edit_view.yaw_deg);
    cJSON_AddNumberToObject(v, "pitch", r->edit_view.pitch_deg);
    cJSON_AddNumberToObject(v, "eye_height", r->edit_view.eye_height);
    const float *p = r->edit_camera.position;
    double eye[3] = {p[0], p[1], p[2]};
    cJSON_AddItemToObject(v, "eye", num_array(eye, 3));
    cJSON_AddNumberToObject(ep, "pitch", r->edit_view.pitch_deg);
    cJSON *cv = cJSON_AddObjectToObject(ep, "close_view");
    cJSON_AddNumberToObject(cv, "x", r->edit_close_view.x);
    cJSON_AddNumberToObject(cv, "y", r->edit_close_view.y);
    cJSON_AddNumberToObject(cv, "yaw", r->edit_close_view.yaw_deg);
    cJSON_AddNumberToObject(cv, "pitch", r->edit_close_view.pitch_deg);
    cJSON_AddNumberToObject(cv, "eye_height", r->edit_close_view.eye_height);
    double counts[ST_EDIT_CHECKS];
    for (int c = 0; c < ST_EDIT_CHECKS; c++) counts[c] = (double)(1u << c);
    cJSON_AddItemToObject(ep, "tested_frame_counts", num_array(counts, ST_EDIT_CHECKS));
    cJSON_AddNumberToObject(ep, "timing_repeats", e->repeats);
    cJSON_AddNumberToObject(ep, "steady_frames", e->steady_frames);
    cJSON_AddNumberToObject(ep, "warmup", e->warmup);
    cJSON_AddNumberToObject(ep, "max_mismatch_pct", ST_EDIT_MAX_MISMATCH);
    cJSON_AddNumberToObject(ep, "max_depth_p95", ST_EDIT_MAX_DEPTH_P95);

    cJSON *rows = cJSON_AddArrayToObject(root, "edit_rows");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_edit_row *w = &r->edit_rows[m];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "method", w->method);
        cJSON_AddStringToObject(o, "update_class", st_update_class_name(w->update));
        cJSON_AddStringToObject(o, "timing", w->gpu_timing ? "gpu" : "cpu");
        st_eval_json_number(o, "steady_edited_cpu_ms", w->steady_cpu_ms);
        st_eval_json_number(o, "steady_edited_gpu_ms", w->steady_gpu_ms);
        st_eval_json_number(o, "first_post_edit_cpu_ms", w->first_cpu_median);
        st_eval_json_number(o, "first_post_edit_gpu_ms", w->first_gpu_median);
        cJSON_AddItemToObject(o, "first_post_edit_cpu_samples", num_array(w->first_cpu_ms, w->repeats));
        cJSON_AddItemToObject(o, "first_post_edit_gpu_samples", num_array(w->first_gpu_ms, w->repeats));
        st_eval_json_number(o, "first_post_edit_cpu_p25_ms", w->first_cpu_p25);
        st_eval_json_number(o, "first_post_edit_cpu_p75_ms", w->first_cpu_p75);
        st_eval_json_number(o, "update_cpu_ms", w->update_cpu_median);
        st_eval_json_number(o, "edit_overhead_cpu_ms", w->overhead_cpu_ms);
        st_eval_json_number(o, "edit_overhead_gpu_ms", w->overhead_gpu_ms);
        cJSON_AddItemToObject(o, "first_post_edit_passes", pass_array(&w->first_passes));
        cJSON_AddItemToObject(o, "steady_edited_passes", pass_array(&w->steady_passes));
        if (w->consistent_after) cJSON_AddNumberToObject(o, "consistent_after_frames", w->consistent_after);
        else cJSON_AddNullToObject(o, "consistent_after_frames");
        st_eval_json_number(o, "class_mismatch_pct", w->final.mismatch_pct);
        st_eval_json_number(o, "depth_p50", w->final.depth_p50);
        st_eval_json_number(o, "depth_p95", w->final.depth_p95);
        st_eval_json_number(o, "color_mae_8bit", w->final.color_mae);
        cJSON_AddBoolToObject(o, "consistent", w->consistent_after != 0);
        st_eval_json_number(o, "changed_pct", w->changed_pct);
        cJSON *cl = diff_object(&w->close, w->consistent_after ? w->consistent_after + 1 : 17);
        st_eval_json_number(cl, "changed_pct", w->close_changed_pct);
        cJSON_AddItemToObject(o, "close", cl);
        cJSON *checks = cJSON_AddArrayToObject(o, "checks");
        for (int c = 0; c < ST_EDIT_CHECKS; c++)
            if (w->check_frames[c]) cJSON_AddItemToArray(checks, diff_object(&w->checks[c], w->check_frames[c]));
        cJSON_AddNumberToObject(o, "method_gpu_bytes", (double)w->gpu_bytes);
        cJSON_AddNumberToObject(o, "method_cpu_bytes", (double)w->cpu_bytes);
        char name[160];
        snprintf(name, sizeof name, "edit-%s-before.png", w->method);
        cJSON_AddStringToObject(o, "image_before", name);
        snprintf(name, sizeof name, "edit-%s-after.png", w->method);
        cJSON_AddStringToObject(o, "image_after", name);
        cJSON_AddItemToArray(rows, o);
    }
}

/* The water row: timed, never scored (the methods' rows are the terrain alone). */
static void add_water(cJSON *root, const st_compare_result *r) {
    const st_compare_water *w = &r->water;
    if (w->mode == ST_WATER_NONE) {
        cJSON_AddNullToObject(root, "water");
        return;
    }
    cJSON *o = cJSON_AddObjectToObject(root, "water");
    cJSON_AddStringToObject(o, "mode", st_water_mode_name(w->mode));
    cJSON_AddStringToObject(o, "method", w->method);
    cJSON_AddBoolToObject(o, "gpu_timing", w->gpu_timing);
    st_eval_json_number(o, "simulation_gpu_ms", w->sim_mean);
    st_eval_json_number(o, "surface_gpu_ms", w->surface_mean);
    st_eval_json_number(o, "terrain_gpu_ms", w->terrain_mean);
    cJSON_AddItemToObject(o, "simulation_gpu_ms_per_view", num_array(w->sim_ms, r->view_count));
    cJSON_AddItemToObject(o, "surface_gpu_ms_per_view", num_array(w->surface_ms, r->view_count));
    cJSON_AddItemToObject(o, "terrain_gpu_ms_per_view", num_array(w->terrain_ms, r->view_count));
    cJSON_AddItemToObject(o, "cpu_ms_per_view", num_array(w->cpu_ms, r->view_count));
}

st_result st_compare_write_json(const st_compare_result *r, const char *path, st_error *err) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "strata-compare");
    cJSON_AddNumberToObject(root, "schema_version", ST_COMPARE_SCHEMA_VERSION);
    char when[32];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    cJSON_AddStringToObject(root, "created_utc", when);

    cJSON *ad = cJSON_AddObjectToObject(root, "adapter");
    cJSON_AddStringToObject(ad, "name", r->adapter);
    cJSON_AddStringToObject(ad, "slug", r->slug);
    cJSON_AddStringToObject(ad, "driver", r->driver);
    cJSON_AddStringToObject(ad, "api_version", r->api_version);
    cJSON_AddStringToObject(ad, "device_type", r->device_type);
    cJSON_AddNumberToObject(ad, "vendor_id", r->vendor_id);
    cJSON_AddNumberToObject(ad, "device_id", r->device_id);
    cJSON_AddNumberToObject(root, "validation_messages", r->validation_messages);
    cJSON_AddStringToObject(root, "run", r->run_name);

    cJSON *lv = cJSON_AddObjectToObject(root, "level");
    cJSON_AddStringToObject(lv, "world", r->world);
    cJSON_AddStringToObject(lv, "name", r->level_name);
    cJSON_AddNumberToObject(lv, "width", r->level_width);
    cJSON_AddNumberToObject(lv, "height", r->level_height);
    char crc[16];
    snprintf(crc, sizeof crc, "%08x", r->level_crc);
    cJSON_AddStringToObject(lv, "crc32", crc);

    cJSON *pr = cJSON_AddObjectToObject(root, "protocol");
    cJSON_AddNumberToObject(pr, "width", r->width);
    cJSON_AddNumberToObject(pr, "height", r->height);
    cJSON_AddNumberToObject(pr, "near", r->near_dist);
    cJSON_AddNumberToObject(pr, "far", r->far_dist);
    cJSON_AddNumberToObject(pr, "fovy_deg", r->fovy_deg);
    cJSON_AddNumberToObject(pr, "frames", r->frames);
    cJSON_AddNumberToObject(pr, "warmup", r->warmup);
    cJSON_AddBoolToObject(pr, "quick", r->quick);
    cJSON_AddBoolToObject(pr, "shadows", r->shadows);
    cJSON_AddNumberToObject(pr, "shadow_size", r->shadows ? r->shadow_size : 0);
    cJSON_AddStringToObject(pr, "shading", st_shading_name(r->shading));
    cJSON_AddNumberToObject(pr, "color_visible_delta_e", ST_COLOR_VISIBLE_DE);
    cJSON_AddStringToObject(pr, "settings", r->settings);
    if (r->tuning[0]) cJSON_AddStringToObject(pr, "tuning", r->tuning);
    else cJSON_AddNullToObject(pr, "tuning");
    cJSON *pm = cJSON_AddArrayToObject(pr, "methods");
    for (size_t m = 0; m < r->method_count; m++) cJSON_AddItemToArray(pm, cJSON_CreateString(r->methods[m].name));
    cJSON *pv = cJSON_AddArrayToObject(pr, "views");
    for (size_t v = 0; v < r->view_count; v++) {
        const st_viewpoint *vp = &r->views[v];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", vp->name);
        cJSON_AddNumberToObject(o, "x", vp->x);
        cJSON_AddNumberToObject(o, "y", vp->y);
        cJSON_AddNumberToObject(o, "yaw", vp->yaw_deg);
        cJSON_AddNumberToObject(o, "pitch", vp->pitch_deg);
        cJSON_AddNumberToObject(o, "eye_height", vp->eye_height);
        cJSON_AddBoolToObject(o, "under", vp->under);
        const float *p = r->cameras[v].position;
        double pos[3] = {p[0], p[1], p[2]};
        cJSON_AddItemToObject(o, "eye", num_array(pos, 3));
        cJSON_AddItemToArray(pv, o);
    }

    cJSON *rf = cJSON_AddObjectToObject(root, "reference");
    cJSON_AddNumberToObject(rf, "version", ST_REFERENCE_VERSION);
    cJSON_AddNumberToObject(rf, "tolerance", ST_REFERENCE_TOLERANCE);
    cJSON_AddStringToObject(rf, "shadows", r->shadows ? "exact shadow ray per hit" : "off");
    cJSON *cast = cJSON_AddArrayToObject(rf, "cast_ms");
    for (size_t v = 0; v < r->view_count; v++)
        cJSON_AddItemToArray(cast, r->reference_ms[v] > 0 ? cJSON_CreateNumber(r->reference_ms[v]) : cJSON_CreateNull());

    cJSON *ms = cJSON_AddArrayToObject(root, "methods");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_compare_method *cm = &r->methods[m];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", cm->name);
        const st_method_info *info = st_method_find(cm->name);
        cJSON_AddStringToObject(o, "description", info && info->description ? info->description : "");
        cJSON_AddStringToObject(o, "timing", method_timing(r, m));
        st_eval_json_number(o, "mean_ms", cm->mean_ms);
        st_eval_json_number(o, "ci95_ms", cm->ci95_ms);
        st_eval_json_number(o, "setup_ms", cm->setup_ms);
        st_eval_json_number(o, "first_frame_ms", cm->first_frame_ms);
        st_eval_json_number(o, "warmup_ms", cm->warmup_ms);
        cJSON_AddNumberToObject(o, "method_gpu_bytes", (double)cm->gpu_bytes);
        cJSON_AddNumberToObject(o, "method_cpu_bytes", (double)cm->cpu_bytes);
        st_eval_json_number(o, "shadow_ms", cm->shadow_ms);
        st_eval_json_number(o, "shadow_first_frame_ms", cm->shadow_first_ms);
        cJSON_AddItemToObject(o, "passes", pass_array(&cm->passes));
        if (cm->device_usage_known) cJSON_AddNumberToObject(o, "device_usage_delta_bytes", (double)cm->device_usage_delta);
        else cJSON_AddNullToObject(o, "device_usage_delta_bytes");
        if (cm->knob[0]) {
            cJSON *k = cJSON_AddObjectToObject(o, "knob");
            cJSON_AddStringToObject(k, "name", cm->knob);
            cJSON_AddNumberToObject(k, "value", cm->knob_value);
        } else {
            cJSON_AddNullToObject(o, "knob");
        }
        cJSON_AddItemToArray(ms, o);
    }

    cJSON *rows = cJSON_AddArrayToObject(root, "rows");
    for (size_t k = 0; k < r->method_count * r->view_count; k++) {
        const st_compare_row *row = &r->rows[k];
        const st_viewpoint *vp = &r->views[row->view];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "method", r->methods[row->method].name);
        cJSON_AddStringToObject(o, "view", vp->name);
        cJSON_AddNumberToObject(o, "pitch", vp->pitch_deg);
        cJSON_AddStringToObject(o, "timing", row->gpu_timing ? "gpu" : "cpu");
        st_eval_json_number(o, "avg_ms", row->avg_ms);
        cJSON_AddItemToObject(o, "gpu", stats_object(&row->gpu, row->gpu_timing));
        cJSON_AddItemToObject(o, "cpu", stats_object(&row->cpu, row->frames > 0));
        cJSON_AddItemToObject(o, "gpu_ms", num_array(row->gpu_ms, row->frames));
        cJSON_AddItemToObject(o, "cpu_ms", num_array(row->cpu_ms, row->frames));
        st_eval_json_number(o, "warmup_ms", row->warmup_ms);
        st_eval_json_number(o, "shadow_gpu_ms", row->shadow_ms);
        st_eval_json_number(o, "shadow_first_frame_ms", row->shadow_first_ms);
        st_eval_json_number(o, "first_pass_ms", row->first_pass_ms);
        cJSON_AddItemToObject(o, "passes", pass_array(&row->passes));
        st_eval_json_number(o, "see_through", row->metrics.see_through);
        st_eval_json_number(o, "covers_sky", row->metrics.covers_sky);
        st_eval_json_number(o, "depth_p50", row->metrics.depth_p50);
        st_eval_json_number(o, "depth_p95", row->metrics.depth_p95);
        st_eval_json_number(o, "coherence", row->metrics.coherence);
        st_eval_json_number(o, "depth_wrong_pct", row->metrics.depth_wrong);
        st_eval_json_number(o, "color_mae_8bit", row->metrics.color_mae);
        st_eval_json_number(o, "color_visible_pct", row->metrics.color_visible);
        cJSON_AddNumberToObject(o, "both_solid_pixels", (double)row->metrics.both_solid);
        cJSON_AddItemToArray(rows, o);
    }

    cJSON *mem = cJSON_AddObjectToObject(root, "memory");
    cJSON_AddNumberToObject(mem, "peak_rss_bytes", (double)r->peak_rss_bytes);
    cJSON_AddStringToObject(mem, "device_query", r->device_budget_known ? "VK_EXT_memory_budget" : "unsupported");
    if (r->device_budget_known) {
        cJSON_AddNumberToObject(mem, "device_budget_bytes", (double)r->device_budget_bytes);
        cJSON_AddNumberToObject(mem, "device_usage_bytes", (double)r->device_usage_bytes);
    } else {
        cJSON_AddNullToObject(mem, "device_budget_bytes");
        cJSON_AddNullToObject(mem, "device_usage_bytes");
    }

    /* where the harness's own time went (wall ms over the run): the GPU frames against everything around them */
    cJSON *ph = cJSON_AddObjectToObject(root, "harness_ms");
    cJSON_AddNumberToObject(ph, "reference", r->phases.reference_ms);
    cJSON_AddNumberToObject(ph, "frames", r->phases.frames_ms);
    cJSON_AddNumberToObject(ph, "readback", r->phases.readback_ms);
    cJSON_AddNumberToObject(ph, "scoring", r->phases.scoring_ms);
    cJSON_AddNumberToObject(ph, "mosaics", r->phases.mosaic_ms);
    cJSON_AddNumberToObject(ph, "png", r->phases.png_ms);
    cJSON_AddNumberToObject(ph, "threads", st_job_threads());

    if (r->edits) add_edits(root, r);
    add_water(root, r);

    return st_eval_json_write(root, path, err);
}
