/* The edit protocol (spec §4.7, paper §4.4): a dig crater applied to a live renderer, the first post-edit
 * frame timed over independently built renderers, and the image after 1, 2, 4, 8, 16 frames compared with a
 * renderer built fresh from the edited level. Also the image-to-image agreement used by the soak. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "strata/eval.h"
#include "strata/image.h"

#define EDIT_DEFAULT_RADIUS 48
#define EDIT_DEFAULT_DEPTH 90
#define EDIT_MAX_RADIUS 4096

/* The update classes of the registered methods. A method not named here reads the terrain texture directly
 * (no level_updated hook, or one that only refreshes small CPU bounds), which is what a new method is unless
 * it says otherwise. */
static const struct {
    const char *method;
    st_update_class update;
} update_classes[] = {
    {"voxel", ST_UPDATE_REBUILD},
    {"voxel-compute", ST_UPDATE_REBUILD},
    {"slice-compute", ST_UPDATE_REBUILD}, /* the air tables of the dirty cells, re-built in the next frame */
    {"mesh", ST_UPDATE_REFIT},
    {"mesh-compute", ST_UPDATE_REFIT},
};

st_update_class st_method_update_class(const char *method) {
    for (size_t i = 0; i < sizeof update_classes / sizeof update_classes[0]; i++)
        if (!strcmp(update_classes[i].method, method)) return update_classes[i].update;
    return ST_UPDATE_DIRECT;
}

const char *st_update_class_name(st_update_class c) {
    switch (c) {
    case ST_UPDATE_REBUILD: return "incremental rebuild";
    case ST_UPDATE_REFIT: return "refit";
    default: return "direct reader";
    }
}

st_result st_image_diff_compute(const float *a, const uint8_t *rgba_a, const float *b, const uint8_t *rgba_b,
                                uint32_t w, uint32_t h, st_image_diff *out, st_error *err) {
    size_t n = (size_t)w * h, both = 0, mismatch = 0;
    float *diff = malloc((n ? n : 1) * sizeof(float));
    if (!diff) return st_error_set(err, ST_ERR_NOMEM, "image diff: out of memory");
    for (size_t i = 0; i < n; i++) {
        bool ha = isfinite(a[i]), hb = isfinite(b[i]);
        if (ha != hb) mismatch++;
        else if (ha) diff[both++] = fabsf(a[i] - b[i]);
    }
    out->mismatch_pct = n ? 100.0 * (double)mismatch / (double)n : 0;
    /* No pixel hit in both: nothing disagrees in depth (the hit/miss test carries the difference). */
    out->depth_p50 = both ? st_eval_percentile(diff, both, 50) : 0;
    out->depth_p95 = both ? st_eval_percentile(diff, both, 95) : 0;
    free(diff);
    out->color_mae = rgba_a && rgba_b ? st_eval_color_mae(rgba_a, rgba_b, w, h, NULL) : NAN;
    out->consistent = out->mismatch_pct <= ST_EDIT_MAX_MISMATCH && out->depth_p95 <= ST_EDIT_MAX_DEPTH_P95;
    return ST_OK;
}

void st_edit_centre(const st_level *level, const st_edit_desc *d, int *cx, int *cy) {
    *cx = d->centre_given ? d->cx : (int)(level->width / 2);
    *cy = d->centre_given ? d->cy : (int)(level->height / 2);
}

st_result st_edit_check(const st_level *level, const st_edit_desc *d, st_error *err) {
    int cx, cy;
    st_edit_centre(level, d, &cx, &cy);
    int radius = d->radius ? d->radius : EDIT_DEFAULT_RADIUS, depth = d->depth ? d->depth : EDIT_DEFAULT_DEPTH;
    if (cx < 0 || cy < 0 || (uint32_t)cx >= level->width || (uint32_t)cy >= level->height)
        return st_error_set(err, ST_ERR_INVALID, "dig centre (%d,%d) is outside the %ux%u level", cx, cy,
                            level->width, level->height);
    if (radius < 1 || radius > EDIT_MAX_RADIUS)
        return st_error_set(err, ST_ERR_INVALID, "dig radius %d: must be 1..%d", radius, EDIT_MAX_RADIUS);
    if (depth < 0 || depth > 255) return st_error_set(err, ST_ERR_INVALID, "dig depth %d: must be 0..255", depth);
    if (d->repeats > ST_EDIT_MAX_REPEATS)
        return st_error_set(err, ST_ERR_INVALID, "edit repeats %u: at most %d", d->repeats, ST_EDIT_MAX_REPEATS);
    return ST_OK;
}

st_viewpoint st_edit_viewpoint(const st_level *level, const st_edit_desc *d) {
    int cx, cy;
    st_edit_centre(level, d, &cx, &cy);
    float y = (float)cy + ST_EDIT_CAMERA_BACK;
    st_viewpoint v = {.x = (float)cx,
                      /* south of the crater, wrapped where the map wraps (else past its edge, looking in) */
                      .y = level->wrap_y ? fmodf(y, (float)level->height) : y,
                      .yaw_deg = 180.0f,
                      .pitch_deg = -30.0f,
                      .eye_height = ST_EDIT_EYE_HEIGHT};
    snprintf(v.name, sizeof v.name, "edit");
    return v;
}

st_viewpoint st_edit_close_viewpoint(const st_level *level, const st_edit_desc *d) {
    st_viewpoint v = st_edit_viewpoint(level, d);
    v.y = v.y - ST_EDIT_CAMERA_BACK + ST_EDIT_CLOSE_BACK;
    if (level->wrap_y) v.y = fmodf(v.y + (float)level->height, (float)level->height);
    v.pitch_deg = ST_EDIT_CLOSE_PITCH;
    v.eye_height = ST_EDIT_CLOSE_EYE_HEIGHT;
    snprintf(v.name, sizeof v.name, "edit-close");
    return v;
}

double st_image_changed_pct(const float *a, const float *b, uint32_t w, uint32_t h) {
    size_t n = (size_t)w * h, changed = 0;
    for (size_t i = 0; i < n; i++) {
        bool ha = isfinite(a[i]), hb = isfinite(b[i]);
        if (ha != hb || (ha && fabsf(a[i] - b[i]) > ST_EDIT_MAX_DEPTH_P95)) changed++;
    }
    return n ? 100.0 * (double)changed / (double)n : 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The harness's percentile (linear between order statistics, docs/harness.md) over the finite values, in
 * double: timings keep their precision. */
static double percentile_of(const double *v, size_t n, double p) {
    double f[64];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 64; i++)
        if (isfinite(v[i])) f[k++] = v[i];
    if (!k) return NAN;
    qsort(f, k, sizeof f[0], cmp_double);
    double rank = p / 100.0 * (double)(k - 1);
    size_t lo = (size_t)rank;
    return lo + 1 < k ? f[lo] + (rank - (double)lo) * (f[lo + 1] - f[lo]) : f[lo];
}

static double median_of(const double *v, size_t n) { return percentile_of(v, n, 50); }

typedef struct edit_buffers {
    uint8_t *rgba_a, *rgba_b;
    float *depth, *dist_a, *dist_b;
    float *before, *close_before; /* the unedited level from the timing and the close camera */
} edit_buffers;

static st_result readback(st_renderer *rn, const st_view *view, uint8_t *rgba, float *depth, float *dist,
                          st_error *err) {
    st_result res = st_renderer_readback(rn, rgba, depth, err);
    if (!res) st_eval_depth_to_distance(view, depth, dist);
    return res;
}

static st_result save_png(const st_edit_desc *d, const char *method, const char *what, uint32_t w, uint32_t h,
                          const uint8_t *rgba, st_error *err) {
    if (!d->image_dir) return ST_OK;
    char path[1400];
    snprintf(path, sizeof path, "%s/edit-%s-%s.png", d->image_dir, method, what);
    return st_png_write(path, w, h, 4, 8, rgba, err);
}

static void restore(st_level *work, const st_level *original) {
    st_level_copy_texels(work, original); /* same size: st_edit_measure checks it */
}

/* The first repeat also carries the consistency checks: after the timed first frame it builds the fresh
 * renderer of the edited level (its steady frames are the edited frame time and its last image the target),
 * then keeps drawing the edited renderer to 2, 4, 8, 16 frames, comparing each time, until they agree. */
static st_result consistency(st_engine *engine, st_renderer *inc, const st_render_desc *rd, const st_edit_desc *d,
                             uint32_t warmup, uint32_t steady, const st_camera *cam, const st_view *view,
                             const st_camera *close_cam, const st_view *close_view, edit_buffers *b, st_edit_row *row,
                             st_error *err) {
    uint32_t w = rd->width, h = rd->height;
    st_result res = readback(inc, view, b->rgba_a, b->depth, b->dist_a, err);
    if (!res) res = save_png(d, row->method, "after", w, h, b->rgba_a, err);
    if (res) return res;
    st_renderer *fresh = NULL;
    res = st_renderer_create(engine, rd, &fresh, err);
    if (res) return st_error_prefix(err, "fresh renderer of the edited level");
    if (!res) res = st_eval_warm_up(fresh, cam, warmup, NULL, err);
    double cpu[64], gpu[64];
    st_frame_timing *frames = calloc(steady ? steady : 1, sizeof *frames);
    if (!frames) res = st_error_set(err, ST_ERR_NOMEM, "edit: out of memory");
    for (uint32_t k = 0; k < steady && !res; k++) {
        res = st_renderer_draw(fresh, cam, &frames[k], err);
        cpu[k] = frames[k].cpu_ms;
        gpu[k] = frames[k].gpu_ms;
    }
    if (!res) st_pass_set_median(frames, steady, &row->steady_passes);
    free(frames);
    if (!res) res = readback(fresh, view, b->rgba_b, b->depth, b->dist_b, err);
    if (!res) row->changed_pct = st_image_changed_pct(b->before, b->dist_b, w, h);
    /* the close camera's target, from the same fresh renderer (a second fit of the edited mesh is not needed) */
    size_t n = (size_t)w * h;
    float *close_dist = malloc(n * sizeof(float));
    uint8_t *close_rgba = malloc(n * 4);
    if (!res && (!close_dist || !close_rgba)) res = st_error_set(err, ST_ERR_NOMEM, "edit: out of memory");
    for (uint32_t k = 0; k < warmup && !res; k++) res = st_renderer_draw(fresh, close_cam, NULL, err);
    if (!res) res = readback(fresh, close_view, close_rgba, b->depth, close_dist, err);
    st_renderer_destroy(fresh);
    if (!res) row->close_changed_pct = st_image_changed_pct(b->close_before, close_dist, w, h);
    if (res) {
        free(close_dist);
        free(close_rgba);
        return res;
    }
    row->steady_cpu_ms = median_of(cpu, steady);
    row->steady_cpu_p25 = percentile_of(cpu, steady, 25);
    row->steady_cpu_p75 = percentile_of(cpu, steady, 75);
    row->steady_gpu_ms = median_of(gpu, steady);
    row->gpu_bytes = st_renderer_method_gpu_bytes(inc);
    row->cpu_bytes = st_renderer_method_cpu_bytes(inc);
    uint32_t drawn = 1;
    for (int c = 0; c < ST_EDIT_CHECKS && !res; c++) {
        uint32_t target = 1u << c;
        for (; drawn < target && !res; drawn++) res = st_renderer_draw(inc, cam, NULL, err);
        if (!res && c > 0) res = readback(inc, view, b->rgba_a, b->depth, b->dist_a, err);
        if (res) break;
        row->check_frames[c] = target;
        res = st_image_diff_compute(b->dist_a, b->rgba_a, b->dist_b, b->rgba_b, w, h, &row->checks[c], err);
        if (!res && row->checks[c].consistent) {
            /* "runs of 1, 2, 4, 8, 16 frames until consistent": the first agreeing count ends the checks */
            row->consistent_after = target;
            row->final = row->checks[c];
            break;
        }
    }
    if (!res && !row->consistent_after) row->final = row->checks[ST_EDIT_CHECKS - 1];
    /* then the close camera, one frame on the edited renderer */
    if (!res) res = st_renderer_draw(inc, close_cam, NULL, err);
    if (!res) res = readback(inc, close_view, b->rgba_a, b->depth, b->dist_a, err);
    if (!res) res = st_image_diff_compute(b->dist_a, b->rgba_a, close_dist, close_rgba, w, h, &row->close, err);
    free(close_dist);
    free(close_rgba);
    return res;
}

st_result st_edit_measure(st_engine *engine, const st_level *original, st_level *work, const char *method,
                          const st_edit_desc *d, st_edit_row *row, st_error *err) {
    memset(row, 0, sizeof *row);
    snprintf(row->method, sizeof row->method, "%s", method);
    row->update = st_method_update_class(method);
    if (!st_method_find(method)) return st_error_set(err, ST_ERR_INVALID, "edit: unknown method '%s'", method);
    if (work->width != original->width || work->height != original->height)
        return st_error_set(err, ST_ERR_INVALID, "edit: the working level differs in size from the original");
    st_result res = st_edit_check(original, d, err);
    if (res) return res;
    uint32_t w = d->width ? d->width : 1280, h = d->height ? d->height : 800;
    uint32_t warmup = d->warmup ? d->warmup : 3, repeats = d->repeats ? d->repeats : 5;
    uint32_t steady = d->steady_frames ? d->steady_frames : 10;
    if (steady > 64) steady = 64;
    int cx, cy;
    st_edit_centre(original, d, &cx, &cy);
    int radius = d->radius ? d->radius : EDIT_DEFAULT_RADIUS, depth = d->depth ? d->depth : EDIT_DEFAULT_DEPTH;
    st_viewpoint vp = st_edit_viewpoint(original, d), cvp = st_edit_close_viewpoint(original, d);
    st_camera cam = st_viewpoint_camera(original, &vp), close_cam = st_viewpoint_camera(original, &cvp);
    cam.far_dist = close_cam.far_dist = d->far_dist > 0 ? d->far_dist : ST_DEFAULT_FAR;
    st_view view = st_camera_view(&cam, w, h), close_view = st_camera_view(&close_cam, w, h);

    size_t n = (size_t)w * h;
    edit_buffers b = {malloc(n * 4), malloc(n * 4), malloc(n * sizeof(float)), malloc(n * sizeof(float)),
                      malloc(n * sizeof(float)), malloc(n * sizeof(float)), malloc(n * sizeof(float))};
    if (!b.rgba_a || !b.rgba_b || !b.depth || !b.dist_a || !b.dist_b || !b.before || !b.close_before)
        res = st_error_set(err, ST_ERR_NOMEM, "edit: out of memory for %ux%u images", w, h);
    st_render_desc rd = {.method = method, .width = w, .height = h, .knobs = d->knobs, .shadows = !d->no_shadows,
                         .shadow_size = d->shadow_size};
    row->repeats = repeats;
    row->gpu_timing = true;
    double update_ms[ST_EDIT_MAX_REPEATS];
    st_frame_timing first[ST_EDIT_MAX_REPEATS];
    for (uint32_t rep = 0; rep < repeats && !res; rep++) {
        /* every repeat starts from the unedited level with a renderer built on it */
        restore(work, original);
        res = st_engine_set_level(engine, work, err);
        st_renderer *rn = NULL;
        if (!res) res = st_renderer_create(engine, &rd, &rn, err);
        st_frame_timing ft;
        /* the unedited level from the close camera first, so the timing camera's warm-up comes last */
        if (!res && rep == 0) res = st_renderer_draw(rn, &close_cam, &ft, err);
        if (!res && rep == 0) res = readback(rn, &close_view, b.rgba_a, b.depth, b.close_before, err);
        if (!res) res = st_eval_warm_up(rn, &cam, warmup, NULL, err);
        if (!res && rep == 0) {
            res = readback(rn, &view, b.rgba_a, b.depth, b.before, err);
            if (!res) res = save_png(d, method, "before", w, h, b.rgba_a, err);
        }
        st_rect rect;
        if (!res) res = st_level_dig(work, cx, cy, radius, depth, &rect, err);
        /* The dig itself is CPU-side level work before the frame (spec §4.5); what the methods do when told
         * (a refit, a bounds update) is timed with the frame. */
        double t0 = st_time_ms();
        if (!res) res = st_engine_update_level(engine, rect, err);
        update_ms[rep] = st_time_ms() - t0;
        if (!res) res = st_renderer_draw(rn, &cam, &ft, err);
        if (!res) {
            first[rep] = ft;
            row->first_cpu_ms[rep] = update_ms[rep] + ft.cpu_ms;
            row->first_gpu_ms[rep] = ft.gpu_ms;
            if (!isfinite(ft.gpu_ms)) row->gpu_timing = false;
        }
        if (!res && rep == 0)
            res = consistency(engine, rn, &rd, d, warmup, steady, &cam, &view, &close_cam, &close_view, &b, row, err);
        st_renderer_destroy(rn);
    }
    free(b.rgba_a);
    free(b.rgba_b);
    free(b.depth);
    free(b.dist_a);
    free(b.dist_b);
    free(b.before);
    free(b.close_before);
    /* leave the engine on the unedited planes, whatever happened */
    restore(work, original);
    st_error ignored = {0};
    st_result back = st_engine_set_level(engine, work, res ? &ignored : err);
    if (res) return st_error_prefix(err, "edit protocol, method %s", method);
    if (back) return back;
    row->first_cpu_median = median_of(row->first_cpu_ms, repeats);
    row->first_gpu_median = row->gpu_timing ? median_of(row->first_gpu_ms, repeats) : NAN;
    st_pass_set_median(first, repeats, &row->first_passes);
    row->first_cpu_p25 = percentile_of(row->first_cpu_ms, repeats, 25);
    row->first_cpu_p75 = percentile_of(row->first_cpu_ms, repeats, 75);
    row->update_cpu_median = median_of(update_ms, repeats);
    if (!row->gpu_timing) row->steady_gpu_ms = NAN;
    row->overhead_cpu_ms = row->first_cpu_median - row->steady_cpu_ms;
    row->overhead_gpu_ms = row->first_gpu_median - row->steady_gpu_ms;
    /* An edit cannot make a frame cheaper: a negative or small difference is the frames' own spread. */
    double spread = fmax(row->first_cpu_p75 - row->first_cpu_p25, row->steady_cpu_p75 - row->steady_cpu_p25);
    row->overhead_cpu_noise = !(row->overhead_cpu_ms > spread);
    return ST_OK;
}
