/* The comparison of the large-world methods on a DEM store: every method at every τ and view, settled to full
 * detail, timed, scored against the full-resolution reference with the image metrics and the image-space error in
 * pixels, the level-of-detail figures and the residency; results.json, results.md and the frames as PNGs in a run
 * folder of their own. docs/harness.md defines the image-space error. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "strata/image.h"
#include "strata/reference.h"
#include "strata/tiles.h"

#define DEFAULT_FRAMES 20u
#define DEFAULT_WARMUP 3u
#define DEFAULT_SETTLE 4000u

typedef struct ise_job {
    st_dem_reference *ref;
    const st_view *v;
    const float *distance;
    float *err_px;
    uint32_t w;
    pthread_mutex_t lock;
    st_result failed;
    st_error err;
} ise_job;

/* One row: the drawn points' true surface heights in one call (its tiles locked once), then their screen offsets. */
static void ise_rows(void *user, size_t begin, size_t end) {
    ise_job *job = user;
    const st_view *v = job->v;
    const uint32_t w = job->w;
    double *xy = malloc(2 * w * sizeof *xy), *height = malloc(w * sizeof *height), (*p)[3] = malloc(w * sizeof *p);
    uint32_t *at = malloc(w * sizeof *at);
    st_result res = xy && height && p && at ? ST_OK : ST_ERR_NOMEM;
    st_error e = {0};
    if (res) st_error_set(&e, res, "image-space error: out of memory");
    for (size_t j = begin; j < end && !res && !job->failed; j++) {
        size_t n = 0;
        for (uint32_t i = 0; i < w; i++) {
            size_t k = j * w + i;
            job->err_px[k] = NAN;
            float d = job->distance[k];
            if (!isfinite(d)) continue;
            float dir[3];
            st_view_pixel_ray(v, i, (uint32_t)j, dir, NULL, NULL);
            /* the drawn point P relative to the eye, and the true surface point Q at its x, y */
            p[n][0] = dir[0] * (double)d, p[n][1] = dir[1] * (double)d, p[n][2] = dir[2] * (double)d;
            xy[2 * n] = v->origin[0] + p[n][0], xy[2 * n + 1] = v->origin[1] + p[n][1];
            at[n++] = i;
        }
        res = st_dem_reference_heights(job->ref, xy, n, height, &e);
        for (size_t q = 0; q < n && !res; q++) {
            const double *pp = p[q];
            double qq[3] = {pp[0], pp[1], height[q] - v->origin[2]};
            double zp = pp[0] * v->forward[0] + pp[1] * v->forward[1] + pp[2] * v->forward[2];
            double zq = qq[0] * v->forward[0] + qq[1] * v->forward[1] + qq[2] * v->forward[2];
            if (!(zq > v->near_dist)) continue; /* the true point is behind the near plane: no screen position */
            double sp[2], sq[2];
            for (int a = 0; a < 2; a++) {
                const float *axis = a ? v->screen_up : v->screen_right;
                sp[a] = v->focal_px * (pp[0] * axis[0] + pp[1] * axis[1] + pp[2] * axis[2]) / zp;
                sq[a] = v->focal_px * (qq[0] * axis[0] + qq[1] * axis[1] + qq[2] * axis[2]) / zq;
            }
            job->err_px[j * w + at[q]] = (float)hypot(sp[0] - sq[0], sp[1] - sq[1]);
        }
    }
    if (res) {
        pthread_mutex_lock(&job->lock);
        if (!job->failed) job->failed = res, job->err = e;
        pthread_mutex_unlock(&job->lock);
    }
    free(xy);
    free(height);
    free(p);
    free(at);
}

st_result st_eval_image_space_error(st_dem_reference *ref, const st_view *v, const float *distance, uint32_t w,
                                    uint32_t h, float *err_px, st_error *err) {
    ise_job job = {.ref = ref, .v = v, .distance = distance, .err_px = err_px, .w = w};
    pthread_mutex_init(&job.lock, NULL);
    st_parallel_for(h, 4, ise_rows, &job);
    pthread_mutex_destroy(&job.lock);
    if (job.failed && err) *err = job.err;
    return job.failed;
}

/* ---- the run ---------------------------------------------------------------------------------------------------- */

void st_compare_store_result_free(st_compare_store_result *r) {
    if (!r) return;
    free(r->rows);
    free(r);
}

static const char *default_views_note = "the store's 12 default views";

static st_result write_json(const st_compare_store_result *r, const char *path, st_error *err) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "kind", "compare-world");
    st_eval_json_adapter(root, r->adapter, r->device_type);
    cJSON_AddStringToObject(root, "world", r->world);
    cJSON_AddNumberToObject(root, "width", r->width);
    cJSON_AddNumberToObject(root, "height", r->height);
    cJSON_AddNumberToObject(root, "frames", r->frames);
    cJSON_AddNumberToObject(root, "warmup", r->warmup);
    cJSON_AddNumberToObject(root, "far_m", r->far_m);
    cJSON_AddBoolToObject(root, "skirts", r->skirts);
    cJSON_AddStringToObject(root, "lod_error", r->lod_error_bound ? "bound" : "measured");
    cJSON_AddStringToObject(root, "lod_select", r->lod_select_gpu ? "gpu" : "cpu");
    cJSON_AddBoolToObject(root, "shadows", r->shadows);
    cJSON_AddStringToObject(root, "shading", st_shading_name(r->shading));
    cJSON_AddNumberToObject(root, "peak_rss_bytes", (double)r->peak_rss_bytes);
    cJSON_AddNumberToObject(root, "gpu_tile_bytes", (double)r->gpu_tile_bytes);
    cJSON_AddNumberToObject(root, "validation_messages", r->validation_messages);
    cJSON *views = cJSON_AddArrayToObject(root, "views");
    for (size_t v = 0; v < r->view_count; v++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", r->views[v].name);
        cJSON_AddNumberToObject(o, "x", r->views[v].x);
        cJSON_AddNumberToObject(o, "y", r->views[v].y);
        cJSON_AddNumberToObject(o, "yaw", r->views[v].yaw_deg);
        cJSON_AddNumberToObject(o, "pitch", r->views[v].pitch_deg);
        cJSON_AddNumberToObject(o, "eye_height", r->views[v].eye_height);
        st_eval_json_number(o, "reference_ms", r->reference_ms[v]);
        cJSON_AddItemToArray(views, o);
    }
    cJSON *rows = cJSON_AddArrayToObject(root, "rows");
    for (size_t m = 0; m < r->method_count; m++)
        for (size_t t = 0; t < r->tau_count; t++)
            for (size_t v = 0; v < r->view_count; v++) {
                const st_compare_store_row *row = &r->rows[(m * r->tau_count + t) * r->view_count + v];
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "method", r->methods[m]);
                cJSON_AddNumberToObject(o, "tau_px", r->taus[t]);
                cJSON_AddStringToObject(o, "view", r->views[v].name);
                cJSON_AddStringToObject(o, "timing", row->gpu_timing ? "gpu" : "cpu");
                st_eval_json_number(o, "median_ms", row->ms.median);
                st_eval_json_number(o, "mean_ms", row->ms.mean);
                st_eval_json_number(o, "p99_ms", row->p99_ms);
                st_eval_json_number(o, "see_through_pct", row->metrics.see_through);
                st_eval_json_number(o, "seam_see_through_pct", row->seam_see_through);
                st_eval_json_number(o, "covers_sky_pct", row->metrics.covers_sky);
                st_eval_json_number(o, "depth_p50_m", row->metrics.depth_p50);
                st_eval_json_number(o, "depth_p95_m", row->metrics.depth_p95);
                st_eval_json_number(o, "coherence_pct", row->metrics.coherence);
                st_eval_json_number(o, "color_mae", row->metrics.color_mae);
                st_eval_json_number(o, "color_visible_pct", row->metrics.color_visible);
                st_eval_json_number(o, "image_error_p50_px", row->ise_p50);
                st_eval_json_number(o, "image_error_p95_px", row->ise_p95);
                st_eval_json_number(o, "image_error_max_px", row->ise_max);
                cJSON_AddNumberToObject(o, "nodes", row->lod.nodes);
                cJSON_AddNumberToObject(o, "quadrants", row->lod.quadrants);
                cJSON_AddNumberToObject(o, "triangles", (double)row->lod.triangles);
                cJSON_AddNumberToObject(o, "skirt_triangles", (double)row->lod.skirt_triangles);
                cJSON_AddNumberToObject(o, "one_level_violations", row->lod.one_level_violations);
                st_eval_json_number(o, "select_ms", row->lod.select_ms);
                cJSON *pl = cJSON_AddArrayToObject(o, "quadrants_per_level");
                for (uint32_t l = 0; l < row->lod.levels; l++) cJSON_AddItemToArray(pl, cJSON_CreateNumber(row->lod.per_level[l]));
                cJSON_AddNumberToObject(o, "settle_frames", row->settle_frames);
                cJSON_AddBoolToObject(o, "settled", row->settled);
                cJSON_AddItemToArray(rows, o);
            }
    cJSON *sum = cJSON_AddArrayToObject(root, "summary");
    for (size_t m = 0; m < r->method_count; m++)
        for (size_t t = 0; t < r->tau_count; t++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "method", r->methods[m]);
            cJSON_AddNumberToObject(o, "tau_px", r->taus[t]);
            st_eval_json_number(o, "mean_ms", r->mean_ms[m][t]);
            st_eval_json_number(o, "image_error_p95_px", r->ise_p95[m][t]);
            st_eval_json_number(o, "image_error_max_px", r->ise_max[m][t]);
            st_eval_json_number(o, "see_through_pct", r->see_through[m][t]);
            st_eval_json_number(o, "triangles", r->triangles[m][t]);
            st_eval_json_number(o, "select_ms", r->select_ms[m][t]);
            cJSON *pp = cJSON_AddArrayToObject(o, "see_through_per_pitch");
            for (size_t k = 0; k < r->pitch_count; k++) {
                cJSON *e = cJSON_CreateObject();
                cJSON_AddNumberToObject(e, "pitch_deg", r->pitches[k]);
                st_eval_json_number(e, "see_through_pct", r->see_through_pitch[m][t][k]);
                st_eval_json_number(e, "seam_see_through_pct", r->seam_pitch[m][t][k]);
                cJSON_AddItemToArray(pp, e);
            }
            cJSON_AddItemToArray(sum, o);
        }
    return st_eval_json_write(root, path, err);
}

/* The see-through per pitch: the views grouped by their pitch rounded to a degree. */
static void see_through_per_pitch(st_compare_store_result *r) {
    int group[ST_MAX_VIEWS];
    r->pitch_count = 0;
    for (size_t v = 0; v < r->view_count; v++) {
        double p = round(r->views[v].pitch_deg);
        group[v] = -1;
        for (size_t k = 0; k < r->pitch_count; k++)
            if (r->pitches[k] == p) group[v] = (int)k;
        if (group[v] < 0 && r->pitch_count < ST_COMPARE_STORE_MAX_PITCHES) {
            group[v] = (int)r->pitch_count;
            r->pitches[r->pitch_count++] = p;
        }
    }
    for (size_t m = 0; m < r->method_count; m++)
        for (size_t t = 0; t < r->tau_count; t++)
            for (size_t k = 0; k < r->pitch_count; k++) {
                double sum = 0, seam = 0;
                uint32_t n = 0;
                for (size_t v = 0; v < r->view_count; v++) {
                    const st_compare_store_row *row = &r->rows[(m * r->tau_count + t) * r->view_count + v];
                    if (group[v] == (int)k) sum += row->metrics.see_through, seam += row->seam_see_through, n++;
                }
                r->see_through_pitch[m][t][k] = n ? sum / n : NAN;
                r->seam_pitch[m][t][k] = n ? seam / n : NAN;
            }
}

static st_result write_markdown(const st_compare_store_result *r, const char *path, st_error *err) {
    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (res) return res;
    FILE *fp = f.fp;
    bool gpu = r->rows[0].gpu_timing;
    fprintf(fp, "# Large-world methods on %s\n\n", r->world);
    fprintf(fp, "%s (%s), %ux%u, far %.0f m, %u timed + %u warm-up frames per view once every tile the view wants is "
                "on the GPU, skirts %s, sun shadows %s, %s shading; %zu views (%s). Frame time: %s.\n\n",
            r->adapter, r->device_type, r->width, r->height, r->far_m, r->frames, r->warmup, r->skirts ? "on" : "off",
            r->shadows ? "on" : "off", st_shading_name(r->shading), r->view_count, default_views_note,
            gpu ? "GPU timestamps" : "CPU submit-and-wait (no GPU timestamps on this adapter)");
    fprintf(fp, "| method | τ px | mean ms | image error p95 px | max px | see-through %% | triangles | selection ms |\n");
    fprintf(fp, "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t m = 0; m < r->method_count; m++)
        for (size_t t = 0; t < r->tau_count; t++)
            fprintf(fp, "| %s | %g | %.3f | %.2f | %.2f | %.3f | %.0f | %.3f |\n", r->methods[m], r->taus[t],
                    r->mean_ms[m][t], r->ise_p95[m][t], r->ise_max[m][t], r->see_through[m][t], r->triangles[m][t],
                    r->select_ms[m][t]);
    fprintf(fp, "\nSee-through per pitch (%% of pixels, the mean over the pitch's views; the seams' target is 0 at every "
                "pitch):\n\n| method | τ px |");
    for (size_t k = 0; k < r->pitch_count; k++) fprintf(fp, " %.0f° |", r->pitches[k]);
    fprintf(fp, "\n|---|---:|");
    for (size_t k = 0; k < r->pitch_count; k++) fprintf(fp, "---:|");
    fprintf(fp, "\n");
    for (size_t m = 0; m < r->method_count; m++)
        for (size_t t = 0; t < r->tau_count; t++) {
            fprintf(fp, "| %s | %g |", r->methods[m], r->taus[t]);
            for (size_t k = 0; k < r->pitch_count; k++)
                fprintf(fp, " %.3f (seams %.4f) |", r->see_through_pitch[m][t][k], r->seam_pitch[m][t][k]);
            fprintf(fp, "\n");
        }
    fprintf(fp, "\nSeams: the see-through pixels under the method's own terrain in their column (holes, not a skyline "
                "drawn a pixel low; st_eval_seam_holes).\n");
    fprintf(fp, "\nImage error: pooled over every drawn pixel of every view (docs/harness.md). Per view:\n\n");
    fprintf(fp, "| method | τ | view | median ms | p99 ms | see-thr %% | covers-sky %% | depth p95 m | colour MAE | "
                "image err p50 / p95 px | triangles | nodes |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t m = 0; m < r->method_count; m++)
        for (size_t t = 0; t < r->tau_count; t++)
            for (size_t v = 0; v < r->view_count; v++) {
                const st_compare_store_row *row = &r->rows[(m * r->tau_count + t) * r->view_count + v];
                fprintf(fp, "| %s | %g | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f / %.2f | %llu | %u |\n",
                        r->methods[m], r->taus[t], r->views[v].name, row->ms.median, row->p99_ms,
                        row->metrics.see_through, row->metrics.covers_sky, row->metrics.depth_p95, row->metrics.color_mae,
                        row->ise_p50, row->ise_p95, (unsigned long long)row->lod.triangles, row->lod.nodes);
            }
    fprintf(fp, "\nPeak RSS %.0f MiB, tile slots on the GPU %.0f MiB, %u validation messages.\n",
            (double)r->peak_rss_bytes / 1048576.0, (double)r->gpu_tile_bytes / 1048576.0, r->validation_messages);
    return st_atomic_commit(&f, err);
}

uint64_t st_eval_seam_holes(const float *distance, const float *ref_distance, uint32_t width, uint32_t height,
                            size_t *first_index) {
    uint64_t n = 0;
    if (first_index) *first_index = SIZE_MAX;
    for (uint32_t x = 0; x < width; x++) {
        bool under = false; /* the method has drawn terrain above, in this column */
        for (uint32_t y = 0; y < height; y++) {
            size_t k = (size_t)y * width + x;
            bool m = isfinite(distance[k]);
            if (!m && under && isfinite(ref_distance[k])) {
                if (first_index && (n == 0 || k < *first_index)) *first_index = k;
                n++;
            }
            under = under || m;
        }
    }
    return n;
}

static double percentile_of(float *v, size_t n, double p) { return n ? st_eval_percentile(v, n, p) : NAN; }

st_result st_compare_store_run(const st_compare_store_desc *d, st_compare_store_result **out, st_error *err) {
    *out = NULL;
    if (!d || !d->store) return st_error_set(err, ST_ERR_INVALID, "compare: no store");
    st_compare_store_result *r = calloc(1, sizeof *r);
    if (!r) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = r;
    snprintf(r->world, sizeof r->world, "%s", d->world_name ? d->world_name : "store");
    r->width = d->width ? d->width : 1280;
    r->height = d->height ? d->height : 800;
    r->frames = d->frames ? d->frames : DEFAULT_FRAMES;
    r->warmup = d->warmup ? d->warmup : DEFAULT_WARMUP;
    r->far_m = d->far_m > 0 ? d->far_m : st_store_far(d->store);
    r->skirts = d->skirts;
    r->lod_error_bound = d->lod_error_bound;
    r->lod_select_gpu = d->lod_select_gpu;
    r->shadows = !d->no_shadows;
    r->shading = d->shading;
    uint32_t settle = d->settle_frames ? d->settle_frames : DEFAULT_SETTLE;
    st_result res = ST_OK;
    /* methods */
    size_t nm = d->methods ? d->method_count : st_store_method_count();
    if (!nm || nm > ST_COMPARE_MAX_METHODS) return st_error_set(err, ST_ERR_INVALID, "compare: %zu methods", nm);
    for (size_t m = 0; m < nm; m++) {
        const char *name = d->methods ? d->methods[m] : st_store_method_at(m)->name;
        const st_method_info *info = st_method_find(name);
        if (!info) return st_error_set(err, ST_ERR_INVALID, "compare: unknown method '%s'", name);
        if (info->world != ST_WORLD_STORE)
            return st_error_set(err, ST_ERR_INVALID, "compare: method '%s' draws levels, not tile stores", name);
        snprintf(r->methods[m], sizeof r->methods[m], "%s", name);
    }
    r->method_count = nm;
    /* τ */
    r->tau_count = d->taus ? d->tau_count : 1;
    if (!r->tau_count || r->tau_count > ST_COMPARE_STORE_MAX_TAUS)
        return st_error_set(err, ST_ERR_INVALID, "compare: %zu values of τ (1..%d)", r->tau_count, ST_COMPARE_STORE_MAX_TAUS);
    for (size_t t = 0; t < r->tau_count; t++) {
        r->taus[t] = d->taus ? d->taus[t] : 1.0;
        if (!(r->taus[t] > 0 && r->taus[t] <= 1000)) return st_error_set(err, ST_ERR_INVALID, "compare: τ %g", r->taus[t]);
    }
    /* views */
    if (d->views) {
        if (!d->view_count || d->view_count > ST_MAX_VIEWS) return st_error_set(err, ST_ERR_INVALID, "compare: no views");
        memcpy(r->views, d->views, d->view_count * sizeof *r->views);
        r->view_count = d->view_count;
    } else if ((res = st_store_views_default(d->store, r->views, ST_MAX_VIEWS, &r->view_count, err))) {
        return res;
    }
    size_t nrows = r->method_count * r->tau_count * r->view_count;
    r->rows = calloc(nrows, sizeof *r->rows);
    if (!r->rows) return st_error_set(err, ST_ERR_NOMEM, "out of memory");

    st_engine *engine = NULL;
    st_dem_reference *ref = NULL;
    st_run_dir dir = {0};
    size_t px = (size_t)r->width * r->height;
    float *dist = malloc(px * sizeof *dist), *ise = malloc(px * sizeof *ise), *pool = NULL;
    uint8_t *rgba = malloc(px * 4);
    float **ref_dist = calloc(r->view_count, sizeof *ref_dist);
    uint8_t **ref_rgba = calloc(r->view_count, sizeof *ref_rgba);
    st_camera *cams = calloc(r->view_count, sizeof *cams);
    double *ms = malloc((r->frames ? r->frames : 1) * sizeof *ms);
    pool = malloc(px * r->view_count * sizeof *pool);
    if (!dist || !ise || !rgba || !ref_dist || !ref_rgba || !cams || !ms || !pool)
        res = st_error_set(err, ST_ERR_NOMEM, "out of memory for %ux%u frames", r->width, r->height);
    st_engine_desc ed = {.device_index = d->device_index, .device_given = d->device_given, .validate = d->validate};
    st_device_info info;
    char root[1200];
    const char *out_root = d->out_dir ? d->out_dir : "out/compare-world";
    if (!res) res = st_eval_open_run(&ed, NULL, out_root, &engine, &info, r->slug, sizeof r->slug, root, sizeof root, err);
    if (engine) {
        snprintf(r->adapter, sizeof r->adapter, "%s", info.name);
        snprintf(r->device_type, sizeof r->device_type, "%s", info.type);
    }
    st_world_desc wd = {.gpu_slots = d->gpu_slots};
    if (!res) res = st_engine_set_store(engine, d->store, &wd, err);
    char settings[1024];
    snprintf(settings, sizeof settings, "world=%s size=%ux%u frames=%u warmup=%u far=%g skirts=%d shadows=%d grid=%u "
             "lod_error=%s", r->world, r->width, r->height, r->frames, r->warmup, r->far_m, r->skirts, r->shadows,
             d->lod_grid, r->lod_error_bound ? "bound" : "measured");
    if (r->lod_select_gpu) /* CPU-selected runs keep the digests they had before the selection was a setting */
        snprintf(settings + strlen(settings), sizeof settings - strlen(settings), " lod_select=gpu");
    if (r->shading == ST_SHADING_TEXTURED) /* flat runs keep the digests they had before shading was a setting */
        snprintf(settings + strlen(settings), sizeof settings - strlen(settings), " shading=textured");
    if (!res) res = st_run_dir_begin(out_root, r->slug, "world", settings, &dir, err);
    if (!res) res = st_dem_reference_create(d->store, 0, &ref, err);
    if (!res) st_dem_reference_set_shadows(ref, r->shadows);
    double started = st_time_ms();
    /* the reference of every view, once */
    for (size_t v = 0; v < r->view_count && !res; v++) {
        if (d->cancel && *d->cancel) res = st_error_set(err, ST_ERR_CANCELLED, "interrupted");
        if (!res) res = st_store_view_camera(d->store, &r->views[v], &cams[v], err);
        if (res) break;
        cams[v].far_dist = (float)r->far_m;
        st_ref_image img = {0};
        double t0 = st_time_ms();
        res = st_ref_image_create(r->width, r->height, &img, err);
        if (!res) res = st_dem_reference_cast(ref, &cams[v], &img, err);
        r->reference_ms[v] = st_time_ms() - t0;
        if (!res) {
            ref_dist[v] = img.distance;
            ref_rgba[v] = img.rgba;
            img.distance = NULL;
            img.rgba = NULL;
            char file[1400];
            snprintf(file, sizeof file, "%s/reference-%s.png", dir.work, r->views[v].name);
            res = st_png_write(file, r->width, r->height, 4, 8, ref_rgba[v], err);
        }
        st_ref_image_free(&img);
        if (d->progress_lines)
            fprintf(stderr, "compare: reference of %s in %.0f ms (%zu/%zu)\n", r->views[v].name, r->reference_ms[v],
                    v + 1, r->view_count);
    }
    for (size_t m = 0; m < r->method_count && !res; m++)
        for (size_t t = 0; t < r->tau_count && !res; t++) {
            st_render_desc rd = {.method = r->methods[m], .width = r->width, .height = r->height, .shadows = r->shadows,
                                 .shading = r->shading};
            rd.knobs.tau_px = (float)r->taus[t];
            rd.knobs.skirts = d->skirts;
            rd.knobs.lod_grid = d->lod_grid;
            rd.knobs.lod_error_bound = d->lod_error_bound;
            rd.knobs.lod_select_gpu = d->lod_select_gpu && !strcmp(r->methods[m], "cdlod");
            rd.knobs.clip_n = d->clip_n;
            st_renderer *rend = NULL;
            res = st_renderer_create(engine, &rd, &rend, err);
            size_t pooled = 0;
            double mean_sum = 0, see_sum = 0, tri_sum = 0, sel_sum = 0, ise_max = 0;
            for (size_t v = 0; v < r->view_count && !res; v++) {
                st_compare_store_row *row = &r->rows[(m * r->tau_count + t) * r->view_count + v];
                row->method = m, row->tau = t, row->view = v;
                if (d->cancel && *d->cancel) {
                    res = st_error_set(err, ST_ERR_CANCELLED, "interrupted");
                    break;
                }
                res = st_renderer_settle(rend, &cams[v], settle, &row->settle_frames, err);
                st_lod_frame_stats lod;
                if (!res) {
                    st_renderer_lod_stats(rend, &lod);
                    row->settled = lod.settled;
                }
                if (!res) res = st_eval_warm_up(rend, &cams[v], r->warmup, NULL, err);
                bool gpu = st_engine_has_gpu_timestamps(engine);
                for (uint32_t i = 0; i < r->frames && !res; i++) {
                    st_frame_timing tm;
                    res = st_renderer_draw(rend, &cams[v], &tm, err);
                    ms[i] = gpu && isfinite(tm.gpu_ms) ? tm.gpu_ms : tm.cpu_ms;
                    gpu = gpu && isfinite(tm.gpu_ms);
                }
                if (res) break;
                row->gpu_timing = gpu;
                row->ms = st_stats_of(ms, r->frames);
                float *msf = malloc(r->frames * sizeof *msf);
                if (msf) {
                    for (uint32_t i = 0; i < r->frames; i++) msf[i] = (float)ms[i];
                    row->p99_ms = st_eval_percentile(msf, r->frames, 99);
                    free(msf);
                }
                st_renderer_lod_stats(rend, &row->lod);
                res = st_renderer_readback(rend, rgba, dist, err);
                if (res) break;
                st_view view = st_camera_view(&cams[v], r->width, r->height);
                st_eval_depth_to_distance(&view, dist, dist);
                st_score_desc sd = {.width = r->width, .height = r->height, .distance = dist, .ref_distance = ref_dist[v],
                                    .rgba = rgba, .ref_rgba = ref_rgba[v]};
                res = st_eval_score(&sd, &row->metrics, err);
                size_t first_hole;
                uint64_t holes = st_eval_seam_holes(dist, ref_dist[v], r->width, r->height, &first_hole);
                row->seam_see_through = 100.0 * (double)holes / (double)px;
                if (holes && d->progress_lines)
                    fprintf(stderr, "compare: %s τ %g %s: %llu see-through pixels under its own terrain (seams), the "
                            "first at (%zu, %zu)\n", r->methods[m], r->taus[t], r->views[v].name,
                            (unsigned long long)holes, first_hole % r->width, first_hole / r->width);
                if (!res) res = st_eval_image_space_error(ref, &view, dist, r->width, r->height, ise, err);
                if (res) break;
                size_t n = 0;
                for (size_t k = 0; k < px; k++) {
                    float e = ise[k];
                    if (isfinite(e)) ise[n++] = e, pool[pooled++] = e; /* this view's errors, and every view's */
                }
                row->ise_pixels = n;
                row->ise_max = 0;
                for (size_t k = 0; k < n; k++) row->ise_max = fmax(row->ise_max, ise[k]);
                row->ise_p50 = percentile_of(ise, n, 50);
                row->ise_p95 = percentile_of(ise, n, 95);
                ise_max = fmax(ise_max, row->ise_max);
                mean_sum += row->ms.mean;
                see_sum += row->metrics.see_through;
                tri_sum += (double)row->lod.triangles;
                sel_sum += row->lod.select_ms;
                if (t == 0 || r->tau_count == 1) {
                    char file[1400];
                    snprintf(file, sizeof file, "%s/%s-tau%g-%s.png", dir.work, r->methods[m], r->taus[t],
                             r->views[v].name);
                    res = st_png_write(file, r->width, r->height, 4, 8, rgba, err);
                }
                if (d->progress_lines)
                    fprintf(stderr, "compare: %s τ %g %s: %.2f ms, image error p95 %.2f px, %llu triangles (%.0f s)\n",
                            r->methods[m], r->taus[t], r->views[v].name, row->ms.median, row->ise_p95,
                            (unsigned long long)row->lod.triangles, (st_time_ms() - started) / 1000);
            }
            st_renderer_destroy(rend);
            double nv = (double)r->view_count;
            r->mean_ms[m][t] = mean_sum / nv;
            r->see_through[m][t] = see_sum / nv;
            r->triangles[m][t] = tri_sum / nv;
            r->select_ms[m][t] = sel_sum / nv;
            r->ise_max[m][t] = ise_max;
            r->ise_p95[m][t] = percentile_of(pool, pooled, 95);
        }
    if (!res) {
        st_world_stats ws;
        if (!st_engine_world_stats(engine, &ws, NULL)) r->gpu_tile_bytes = ws.gpu_bytes;
        r->validation_messages = st_engine_validation_messages(engine);
        r->peak_rss_bytes = st_eval_peak_rss_bytes();
        see_through_per_pitch(r);
        char file[1400];
        snprintf(file, sizeof file, "%s/results.json", dir.work);
        res = write_json(r, file, err);
        snprintf(file, sizeof file, "%s/results.md", dir.work);
        if (!res) res = write_markdown(r, file, err);
    }
    if (!res) res = st_run_dir_commit(&dir, err);
    if (!res) snprintf(r->out_dir, sizeof r->out_dir, "%s", dir.final);
    else st_run_dir_abort(&dir);
    for (size_t v = 0; v < r->view_count; v++) {
        free(ref_dist ? ref_dist[v] : NULL);
        free(ref_rgba ? ref_rgba[v] : NULL);
    }
    free(ref_dist);
    free(ref_rgba);
    free(cams);
    free(ms);
    free(pool);
    free(dist);
    free(ise);
    free(rgba);
    st_dem_reference_destroy(ref);
    st_engine_destroy(engine);
    return res;
}
