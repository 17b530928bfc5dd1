/* results.json of `strata compare` (schema in docs/harness.md, "schema_version" = ST_COMPARE_SCHEMA_VERSION).
 * Non-finite numbers are written as null; every timing sample is kept so intervals can be recomputed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "strata/eval.h"
#include "strata/image.h"
#include "strata/render.h"

static void add_num(cJSON *o, const char *name, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, name, v);
    else cJSON_AddNullToObject(o, name);
}

static cJSON *num_array(const double *v, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(a, isfinite(v[i]) ? cJSON_CreateNumber(v[i]) : cJSON_CreateNull());
    return a;
}

static cJSON *stats_object(const st_stats *s, bool valid) {
    if (!valid) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    add_num(o, "mean", s->mean);
    add_num(o, "median", s->median);
    add_num(o, "min", s->min);
    add_num(o, "max", s->max);
    add_num(o, "stddev", s->stddev);
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
        add_num(o, "mean_ms", cm->mean_ms);
        add_num(o, "ci95_ms", cm->ci95_ms);
        add_num(o, "setup_ms", cm->setup_ms);
        add_num(o, "first_frame_ms", cm->first_frame_ms);
        add_num(o, "warmup_ms", cm->warmup_ms);
        cJSON_AddNumberToObject(o, "method_gpu_bytes", (double)cm->gpu_bytes);
        cJSON_AddNumberToObject(o, "method_cpu_bytes", (double)cm->cpu_bytes);
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
        add_num(o, "avg_ms", row->avg_ms);
        cJSON_AddItemToObject(o, "gpu", stats_object(&row->gpu, row->gpu_timing));
        cJSON_AddItemToObject(o, "cpu", stats_object(&row->cpu, row->frames > 0));
        cJSON_AddItemToObject(o, "gpu_ms", num_array(row->gpu_ms, row->frames));
        cJSON_AddItemToObject(o, "cpu_ms", num_array(row->cpu_ms, row->frames));
        add_num(o, "warmup_ms", row->warmup_ms);
        add_num(o, "see_through", row->metrics.see_through);
        add_num(o, "covers_sky", row->metrics.covers_sky);
        add_num(o, "depth_p50", row->metrics.depth_p50);
        add_num(o, "depth_p95", row->metrics.depth_p95);
        add_num(o, "coherence", row->metrics.coherence);
        cJSON_AddNumberToObject(o, "both_solid_pixels", (double)row->metrics.both_solid);
        cJSON_AddItemToArray(rows, o);
    }

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
