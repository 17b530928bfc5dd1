/* The lab's table of the large-world methods (strata/lab.h): triangles against τ with the fitted exponent and the
 * skirts' overhead from the CDLOD selection at the store's default views (CPU), resident tiles at cruise against
 * the derived bound and the hitch with slow loads from two flights (GPU), and the depth-precision experiment. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "strata/depth_precision.h"
#include "strata/image.h"
#include "strata/lab.h"
#include "strata/lod.h"

#define DEFAULT_SLOW_MS 50.0

static const double DEFAULT_TAUS[] = {0.5, 1, 2, 4, 8};

void st_lod_lab_result_free(st_lod_lab_result *r) {
    if (!r) return;
    st_fly_result_free(r->plain);
    st_fly_result_free(r->slow);
    free(r);
}

/* ---- the residency bound -------------------------------------------------------------------------------------- */

/* The horizontal spread of the view: twice the largest angle between the view's heading and a corner ray's
 * horizontal direction (2π when a corner ray points behind or straight down). */
static double view_spread(const st_lod_view *v) {
    double hx = v->forward[0], hy = v->forward[1], hn = hypot(hx, hy);
    if (hn < 1e-9) return 2 * M_PI; /* straight down: every direction */
    hx /= hn, hy /= hn;
    double worst = 0;
    for (int c = 0; c < 4; c++) {
        double sx = (c & 1 ? 0.5 : -0.5) * v->width_px, sy = (c & 2 ? 0.5 : -0.5) * v->height_px, d[3];
        for (int a = 0; a < 3; a++) d[a] = v->focal_px * v->forward[a] + sx * v->right[a] + sy * v->up[a];
        double dn = hypot(d[0], d[1]);
        if (dn < 1e-9) return 2 * M_PI;
        double along = (d[0] * hx + d[1] * hy) / dn, across = (d[0] * -hy + d[1] * hx) / dn;
        worst = fmax(worst, fabs(atan2(across, along)));
    }
    return fmin(2 * worst, 2 * M_PI);
}

double st_lod_lab_residency_bound(const st_lod_world *w, const st_lod_band *bands, const st_lod_view *v,
                                  double speed_mps, double latency_ms, st_lod_lab_level *levels) {
    double theta = view_spread(v), total = 0;
    double extent = hypot((double)(w->width - 1) * w->spacing_x, (double)(w->height - 1) * w->spacing_y);
    for (uint32_t l = 0; l < w->levels; l++) {
        st_lod_lab_level *o = &levels[l];
        memset(o, 0, sizeof *o);
        double S = ldexp((double)w->tile_intervals * fmax(w->spacing_x, w->spacing_y), (int)l);
        double next_diag = l + 1 < w->levels ? M_SQRT2 * ldexp((double)w->grid * fmax(w->spacing_x, w->spacing_y),
                                                                (int)(l + 1))
                                             : 0;
        double R = fmin(1.5 * bands[l].range + next_diag, extent);
        uint64_t per = (uint64_t)1 << l, span = (uint64_t)w->tile_intervals * per;
        uint64_t tx = (w->width - 1 + span - 1) / span, ty = (w->height - 1 + span - 1) / span;
        o->tiles = tx * ty;
        o->range_m = bands[l].range;
        o->radius_m = R;
        o->tile_m = S;
        o->visible = (theta * R * R / 2 + (2 * R + theta * R) * S / M_SQRT2 + M_PI * S * S / 2) / (S * S);
        double rows = ceil(speed_mps * latency_ms * 1e-3 / S);
        o->margin = rows * (ceil(2 * R * sin(fmin(theta, M_PI) / 2) / S) + 1);
        o->bound = fmin(ceil(o->visible + o->margin), (double)o->tiles);
        total += o->bound;
    }
    return total;
}

/* ---- triangles against τ, skirts -------------------------------------------------------------------------------- */

static const float PITCHES[4] = {0, -30, -60, -90};

/* The least-squares slope of log y on log x and its r² (NAN when x does not vary). */
static double fit_exponent(const double *x, const double *y, size_t n, double *r2) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double a = log(x[i]), b = log(y[i] > 0 ? y[i] : 1);
        sx += a, sy += b, sxx += a * a, sxy += a * b, syy += b * b;
    }
    double m = (double)n, vx = sxx - sx * sx / m, vy = syy - sy * sy / m, cxy = sxy - sx * sy / m;
    if (r2) *r2 = vx > 0 && vy > 0 ? cxy * cxy / (vx * vy) : NAN;
    return vx > 0 ? cxy / vx : NAN;
}

static st_result selection_rows(const st_lod_lab_desc *d, st_lod_lab_result *r, const st_viewpoint *views,
                                size_t nv, st_error *err) {
    st_lod_world w;
    st_result res = st_lod_world_of_store(d->store, NULL, d->lod_grid, &w, err);
    if (res) return res;
    r->grid = w.grid;
    r->levels = w.levels;
    /* δ's growth per level: where the far plane cuts the rings, the cut ring's cells set T, and T ∝ τ^(−2·ln 2/ln g) */
    uint32_t first = 0, last = 0;
    for (uint32_t l = 0; l < w.levels; l++) {
        r->delta_m[l] = w.delta[l];
        r->delta_bound_m[l] = w.delta_bound[l];
        if (w.delta[l] > 0 && !first) first = l ? l : 1;
        if (w.delta[l] > 0) last = l;
    }
    r->delta_growth = first && last > first ? pow(w.delta[last] / w.delta[first], 1.0 / (last - first)) : NAN;
    r->exponent_from_delta = r->delta_growth > 1 ? -2 * log(2.0) / log(r->delta_growth) : NAN;
    st_lod_world wb = w; /* the index's bound, for the column beside */
    st_lod_world_use_bound(&wb);
    st_lod_selection sel = {0};
    for (size_t t = 0; t < r->tau_count && !res; t++) {
        st_lod_params p = {.tau_px = r->taus[t]};
        double sum = 0, sum_bound = 0, psum[4] = {0};
        uint32_t pn[4] = {0};
        for (size_t i = 0; i < nv && !res; i++) {
            st_camera cam;
            res = st_store_view_camera(d->store, &views[i], &cam, err);
            if (res) break;
            cam.far_dist = (float)r->far_m;
            st_view view = st_camera_view(&cam, r->width, r->height);
            st_lod_view lv = st_lod_view_of(&view);
            r->focal_px = lv.focal_px;
            res = st_lod_select(&w, &p, &lv, &sel, err);
            sum += (double)sel.triangles;
            if (res) break;
            res = st_lod_select(&wb, &p, &lv, &sel, err);
            sum_bound += (double)sel.triangles;
            if (res) break;
            res = st_lod_select(&w, &p, &lv, &sel, err); /* the pitch columns are the measured δ's */
            for (int k = 0; k < 4; k++)
                if (fabsf(views[i].pitch_deg - PITCHES[k]) < 0.5f) psum[k] += (double)sel.triangles, pn[k]++;
        }
        r->triangles[t] = sum / (double)nv;
        r->triangles_bound[t] = sum_bound / (double)nv;
        for (int k = 0; k < 4; k++) r->pitch_triangles[k][t] = pn[k] ? psum[k] / pn[k] : NAN;
        /* how many of the ranges τ decides (the others are the LOD ratio's or the one-level rule's minimum) */
        st_lod_band bands[ST_LOD_MAX_LEVELS];
        st_lod_bands(&w, &p, r->focal_px, r->far_m, bands);
        uint32_t decided = 0;
        for (uint32_t l = 0; l + 1 < w.levels; l++) {
            double need = r->focal_px * w.delta[l + 1] / r->taus[t];
            if (need > 0 && fabs(bands[l].range - need) <= 1e-9 * need) decided++;
        }
        r->tau_decided[t] = decided;
    }
    r->exponent = fit_exponent(r->taus, r->triangles, r->tau_count, &r->exponent_r2);
    r->exponent_bound = fit_exponent(r->taus, r->triangles_bound, r->tau_count, NULL);
    for (int k = 0; k < 4; k++)
        r->pitch_exponent[k] = isfinite(r->pitch_triangles[k][0])
                                   ? fit_exponent(r->taus, r->pitch_triangles[k], r->tau_count, NULL)
                                   : NAN;
    /* skirts at τ = 1: their triangles against the patches' */
    st_lod_params ps = {.tau_px = 1, .skirts = true};
    r->skirt_ratio_mean = 0, r->skirt_ratio_min = INFINITY, r->skirt_ratio_max = 0;
    for (size_t i = 0; i < nv && !res; i++) {
        st_camera cam;
        res = st_store_view_camera(d->store, &views[i], &cam, err);
        if (res) break;
        cam.far_dist = (float)r->far_m;
        st_view view = st_camera_view(&cam, r->width, r->height);
        st_lod_view lv = st_lod_view_of(&view);
        res = st_lod_select(&w, &ps, &lv, &sel, err);
        if (res) break;
        double patch = (double)(sel.triangles - sel.skirt_triangles);
        double ratio = patch > 0 ? (double)sel.skirt_triangles / patch : 0;
        r->skirt_ratio_mean += ratio / (double)nv;
        r->skirt_ratio_min = fmin(r->skirt_ratio_min, ratio);
        r->skirt_ratio_max = fmax(r->skirt_ratio_max, ratio);
    }
    r->skirt_predicted = 4.0 / w.grid;
    st_lod_selection_free(&sel);
    return res;
}

/* ---- the flights ---------------------------------------------------------------------------------------------- */

static st_result fly_once(const st_lod_lab_desc *d, const st_lod_lab_result *r, double slow_ms, st_fly_result **out,
                          st_error *err) {
    st_fly_desc fd = {.store = d->store,
                      .world_name = r->world,
                      .flight_name = d->cruise_name,
                      .flight = d->cruise,
                      .method = d->method,
                      .width = r->width,
                      .height = r->height,
                      .far_m = r->far_m,
                      .knobs = {.tau_px = 1, .lod_grid = d->lod_grid},
                      .world = {.gpu_slots = d->gpu_slots, .slow_load_ms = slow_ms},
                      .out_dir = "",
                      .device_index = d->device_index,
                      .device_given = d->device_given,
                      .validate = d->validate,
                      .progress_lines = d->progress_lines,
                      .cancel = d->cancel};
    if (d->progress_lines) fprintf(stderr, "lab: flight %s, slow-load %g ms\n", d->cruise_name, slow_ms);
    return st_fly_run(&fd, out, err);
}

static st_result flight_rows(const st_lod_lab_desc *d, st_lod_lab_result *r, st_error *err) {
    r->flights = true;
    snprintf(r->cruise, sizeof r->cruise, "%s", d->cruise_name ? d->cruise_name : "flight");
    r->slow_load_ms = d->slow_load_ms > 0 ? d->slow_load_ms : DEFAULT_SLOW_MS;
    for (size_t i = 0; i < d->cruise->leg_count; i++)
        r->cruise_speed_mps = fmax(r->cruise_speed_mps, d->cruise->legs[i].speed_mps);
    st_result res = fly_once(d, r, 0, &r->plain, err);
    if (!res) res = fly_once(d, r, r->slow_load_ms, &r->slow, err);
    if (res) return res;
    snprintf(r->adapter, sizeof r->adapter, "%s", r->plain->adapter);
    snprintf(r->device_type, sizeof r->device_type, "%s", r->plain->device_type);
    r->validation_messages = r->plain->validation_messages + r->slow->validation_messages;
    /* cruise: the second half of the plain flight */
    const st_fly_result *p = r->plain;
    uint32_t from = p->frame_count / 2, n = p->frame_count - from;
    float *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    r->resident_max = 0;
    r->wanted_max = 0;
    for (uint32_t i = 0; i < n; i++) {
        const st_fly_frame *f = &p->frames[from + i];
        v[i] = (float)f->resident;
        if (f->resident > r->resident_max) r->resident_max = f->resident;
        r->wanted_max = fmax(r->wanted_max, (double)f->resident + f->queued + f->loading);
    }
    r->resident_median = n ? st_eval_percentile(v, n, 50) : NAN;
    free(v);
    /* the bound at the middle of the cruise, with the measured load time plus a frame as the latency */
    st_lod_world w;
    res = st_lod_world_of_store(d->store, NULL, d->lod_grid, &w, err);
    if (res) return res;
    st_camera cams_mid;
    uint32_t frames = st_flight_frames(d->cruise);
    st_camera *cams = malloc(frames * sizeof *cams);
    if (!cams) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    res = st_flight_cameras(d->cruise, d->store, r->far_m, cams, err);
    cams_mid = cams[frames * 3 / 4];
    free(cams);
    if (res) return res;
    st_view view = st_camera_view(&cams_mid, r->width, r->height);
    st_lod_view lv = st_lod_view_of(&view);
    st_lod_band bands[ST_LOD_MAX_LEVELS];
    st_lod_bands(&w, &(st_lod_params){.tau_px = 1}, lv.focal_px, r->far_m, bands);
    double frame_ms = 1000.0 / d->cruise->fps;
    r->latency_ms = (isfinite(p->load_ms_median) ? p->load_ms_median : 0) + frame_ms;
    r->bound = st_lod_lab_residency_bound(&w, bands, &lv, r->cruise_speed_mps, r->latency_ms, r->bound_levels);
    st_lod_lab_level scratch[ST_LOD_MAX_LEVELS];
    double slow_latency = (isfinite(r->slow->load_ms_median) ? r->slow->load_ms_median : r->slow_load_ms) + frame_ms;
    r->bound_slow = st_lod_lab_residency_bound(&w, bands, &lv, r->cruise_speed_mps, slow_latency, scratch);
    return ST_OK;
}

/* ---- the run ----------------------------------------------------------------------------------------------------- */

st_result st_lod_lab_run(const st_lod_lab_desc *d, st_lod_lab_result **out, st_error *err) {
    *out = NULL;
    if (!d->store) return st_error_set(err, ST_ERR_INVALID, "lab: needs a store");
    if (st_store_get_info(d->store)->kind != ST_TILE_DEM)
        return st_error_set(err, ST_ERR_INVALID, "lab: a layer store has no DEM");
    st_lod_lab_result *r = calloc(1, sizeof *r);
    if (!r) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = r;
    snprintf(r->world, sizeof r->world, "%s", d->world_name ? d->world_name : "store");
    r->width = d->width ? d->width : 1920;
    r->height = d->height ? d->height : 1080;
    r->far_m = st_store_far(d->store);
    r->tau_count = d->taus ? d->tau_count : sizeof DEFAULT_TAUS / sizeof DEFAULT_TAUS[0];
    if (r->tau_count < 2 || r->tau_count > ST_LAB_MAX_TAUS)
        return st_error_set(err, ST_ERR_INVALID, "lab: %zu values of τ (2..%d)", r->tau_count, ST_LAB_MAX_TAUS);
    for (size_t t = 0; t < r->tau_count; t++) {
        r->taus[t] = d->taus ? d->taus[t] : DEFAULT_TAUS[t];
        if (!(r->taus[t] > 0 && r->taus[t] <= 1000)) return st_error_set(err, ST_ERR_INVALID, "lab: τ %g", r->taus[t]);
    }
    snprintf(r->adapter, sizeof r->adapter, "CPU only");
    st_viewpoint views[ST_MAX_VIEWS];
    size_t nv = 0;
    st_result res = st_store_views_default(d->store, views, ST_MAX_VIEWS, &nv, err);
    r->view_count = nv;
    if (!res && !nv) res = st_error_set(err, ST_ERR_INVALID, "lab: the store has no default views");
    if (!res) res = selection_rows(d, r, views, nv, err);
    if (!res && d->cruise) res = flight_rows(d, r, err);
    if (!res && d->depth) {
        /* the default sweep: 1 m to 2·10⁷ m at 24 steps a decade; the picture is s = 0.1 m's */
        st_depth_precision_desc dd = {.device_index = d->device_index, .device_given = d->device_given,
                                      .validate = d->validate, .strip_gap = 1};
        const uint32_t side = 64, widen = 3; /* the default frame side; columns widened to be seen */
        uint8_t *strip = d->zfight_png ? malloc((size_t)ST_DEPTH_MAX_STEPS * 2 * side * 4) : NULL;
        if (d->zfight_png && !strip) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
        dd.strip_rgba = strip;
        st_depth_precision_result dr;
        res = st_depth_precision_run(&dd, &dr, err);
        if (!res && strip) {
            size_t w = dr.step_count * widen, h = 2 * side + 4; /* a grey band between the two modes */
            uint8_t *img = malloc(w * h * 4);
            if (!img) res = st_error_set(err, ST_ERR_NOMEM, "out of memory");
            for (size_t y = 0; y < h && !res; y++)
                for (size_t x = 0; x < w; x++) {
                    uint8_t *o = img + (y * w + x) * 4;
                    size_t row = y < side ? y : y >= side + 4 ? y - 4 : SIZE_MAX;
                    bool decade = x % (widen * 24u) < widen; /* white marks in the band at 1 m, 10 m, ... */
                    if (row == SIZE_MAX) o[0] = o[1] = o[2] = decade ? 255 : 128, o[3] = 255;
                    else memcpy(o, strip + (row * dr.step_count + x / widen) * 4, 4), o[3] = 255;
                }
            if (!res) res = st_png_write(d->zfight_png, (uint32_t)w, (uint32_t)h, 4, 8, img, err);
            free(img);
        }
        free(strip);
        if (!res) {
            r->depth = true;
            r->depth_near_m = dr.near_m;
            r->depth_far_m = dr.far_m;
            r->depth_gap_count = dr.gap_count;
            for (size_t g = 0; g < dr.gap_count; g++) {
                r->depth_gaps[g] = dr.gaps_m[g];
                r->onset_m[g][0] = dr.onset_m[g][0];
                r->onset_m[g][1] = dr.onset_m[g][1];
            }
            r->validation_messages += dr.validation_messages;
            if (!r->flights) {
                snprintf(r->adapter, sizeof r->adapter, "%s", dr.adapter);
                snprintf(r->device_type, sizeof r->device_type, "%s", dr.device_type);
            }
        }
    }
    return res;
}

/* ---- the reports ----------------------------------------------------------------------------------------------- */

static void md_hitch(FILE *fp, const char *name, const st_fly_result *f) {
    const st_fly_series *s = &f->frame;
    fprintf(fp, "| %s | %.3f | %.3f | %.2f | %.3f | %u | %llu | ", name, s->median, s->p99, s->p99 / s->median,
            s->max - s->median, s->over_2ms, (unsigned long long)f->hole_px_total);
    if (f->gpu_timing) fprintf(fp, "%.3f / %.3f |\n", f->gpu.median, f->gpu.p99);
    else fprintf(fp, "n/a |\n");
}

st_result st_lod_lab_write_markdown(const st_lod_lab_result *r, const char *path, st_error *err) {
    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (res) return res;
    FILE *fp = f.fp;
    fprintf(fp, "# The lab's table: %s\n\n", r->world);
    fprintf(fp, "Written by `strata bench lod --table` on %s (%s). %ux%u (focal length %.0f px), far %.0f m, grid N = "
            "%u, %u levels; %zu default views. docs/large-world.md derives every prediction.\n\n",
            r->adapter, r->device_type[0] ? r->device_type : "no GPU", r->width, r->height, r->focal_px, r->far_m,
            r->grid, r->levels, r->view_count);
    fprintf(fp, "## Triangles against τ\n\nThe CDLOD selection at every default view, every tile drawable; the mean "
            "over the views, with δ per level measured (the error 99 %% of the finest samples stay within, "
            "docs/large-world.md) and, beside it, with the index's bound.\n\n| τ (px) | triangles | exponent from the "
            "previous τ | ranges decided by τ | T·τ² (relative to τ = %g) | triangles with the bound |\n"
            "|---:|---:|---:|---:|---:|---:|\n", r->taus[0]);
    for (size_t t = 0; t < r->tau_count; t++) {
        fprintf(fp, "| %g | %.0f | ", r->taus[t], r->triangles[t]);
        if (t && r->triangles[t] > 0 && r->triangles[t - 1] > 0)
            fprintf(fp, "%.3f", log(r->triangles[t] / r->triangles[t - 1]) / log(r->taus[t] / r->taus[t - 1]));
        else fprintf(fp, "–");
        fprintf(fp, " | %u of %u | %.3f | %.0f |\n", r->tau_decided[t], r->levels ? r->levels - 1 : 0,
                r->triangles[t] * r->taus[t] * r->taus[t] / (r->triangles[0] * r->taus[0] * r->taus[0]),
                r->triangles_bound[t]);
    }
    fprintf(fp, "\nFitted exponent T ∝ τ^b: **b = %.3f** (r² %.3f), with the bound %.3f; predicted −2.\n\n",
            r->exponent, r->exponent_r2, r->exponent_bound);
    fprintf(fp, "δ per level (m), the index's bound:");
    for (uint32_t l = 0; l < r->levels; l++) fprintf(fp, " %.3g", r->delta_bound_m[l]);
    fprintf(fp, "; measured:");
    for (uint32_t l = 0; l < r->levels; l++) fprintf(fp, " %.3g", r->delta_m[l]);
    fprintf(fp, "; mean growth per level g = %.2f. Where the far plane cuts the rings and the cut ring holds most "
            "triangles, T ∝ τ^(−2·ln 2 / ln g) = τ^**%.3f**; the lab's −2 is the case g = 2 (δ doubling per level).\n\n",
            r->delta_growth, r->exponent_from_delta);
    fprintf(fp, "By pitch (the mean triangles of the views at each pitch):\n\n| pitch |");
    for (size_t t = 0; t < r->tau_count; t++) fprintf(fp, " τ %g |", r->taus[t]);
    fprintf(fp, " b |\n|---:|");
    for (size_t t = 0; t <= r->tau_count; t++) fprintf(fp, "---:|");
    fprintf(fp, "\n");
    for (int k = 0; k < 4; k++) {
        if (!isfinite(r->pitch_exponent[k])) continue;
        fprintf(fp, "| %g° |", (double)PITCHES[k]);
        for (size_t t = 0; t < r->tau_count; t++) fprintf(fp, " %.0f |", r->pitch_triangles[k][t]);
        fprintf(fp, " %.3f |\n", r->pitch_exponent[k]);
    }
    fprintf(fp, "\n");
    fprintf(fp, "## Skirts\n\nAt τ = 1, skirt triangles over patch triangles: mean **%.2f %%** (%.2f–%.2f %% over the "
            "views); predicted 4/N = %.2f %% for whole nodes (a lone quadrant has up to 8/N).\n\n",
            100 * r->skirt_ratio_mean, 100 * r->skirt_ratio_min, 100 * r->skirt_ratio_max, 100 * r->skirt_predicted);
    if (r->flights) {
        fprintf(fp, "## Resident tiles at cruise\n\nFlight `%s` at %.0f m/s, τ 1; the second half of the flight without "
                "slow loads.\n\n| measured | median | max | wanted (resident + queued + loading) max | bound "
                "(latency %.1f ms) | bound with slow loads |\n|---|---:|---:|---:|---:|---:|\n",
                r->cruise, r->cruise_speed_mps, r->latency_ms);
        fprintf(fp, "| tiles | %.0f | %u | %.0f | %.0f | %.0f |\n\n", r->resident_median, r->resident_max,
                r->wanted_max, r->bound, r->bound_slow);
        fprintf(fp, "| level | range (m) | reach R (m) | tile (m) | visible sector | margin | bound | tiles in store |\n"
                "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (uint32_t l = 0; l < r->levels; l++) {
            const st_lod_lab_level *b = &r->bound_levels[l];
            fprintf(fp, "| %u | %.0f | %.0f | %.0f | %.1f | %.0f | %.0f | %llu |\n", l, b->range_m, b->radius_m,
                    b->tile_m, b->visible, b->margin, b->bound, (unsigned long long)b->tiles);
        }
        fprintf(fp, "\n## Hitch with slow loads\n\nThe whole frame on the CPU (residency, selection, uploads, record, "
                "submit, wait), ms.\n\n| flight | median | p99 | p99 / median | max − median | frames over median + 2 "
                "ms | hole pixels | GPU median / p99 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        md_hitch(fp, "no slow loads", r->plain);
        char name[64];
        snprintf(name, sizeof name, "--slow-load %g", r->slow_load_ms);
        md_hitch(fp, name, r->slow);
        fprintf(fp, "\nPredicted: no hitch (p99 ≤ 1.1 × median, no frame over median + 2 ms) and no holes; only the "
                "time to full detail grows.\n");
    }
    if (r->depth) {
        fprintf(fp, "\n## Depth precision\n\nTwo parallel planes a gap s apart, swept in distance (near %g m, far %g m, "
                "D32_SFLOAT, the farther plane drawn first, strict depth tests); the onset is the first distance where "
                "more than 1 %% of the pixels do not show the nearer plane.\n\n| s (m) | standard Z onset (m) | predicted √(s·n·2²⁴) | reverse Z onset (m) | predicted s·2²³ |\n"
                "|---:|---:|---:|---:|---:|\n", r->depth_near_m, r->depth_far_m);
        for (size_t g = 0; g < r->depth_gap_count; g++) {
            double s = r->depth_gaps[g];
            fprintf(fp, "| %g | %.4g | %.4g | %.4g | %.4g |\n", s, r->onset_m[g][0], sqrt(s * r->depth_near_m * 16777216.0),
                    r->onset_m[g][1], s * 8388608.0);
        }
    }
    if (r->validation_messages) fprintf(fp, "\nValidation messages: %u\n", r->validation_messages);
    return st_atomic_commit(&f, err);
}

st_result st_lod_lab_write_json(const st_lod_lab_result *r, const char *path, st_error *err) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "kind", "lod-lab");
    st_eval_json_adapter(root, r->adapter, r->device_type);
    cJSON_AddStringToObject(root, "world", r->world);
    cJSON_AddNumberToObject(root, "width", r->width);
    cJSON_AddNumberToObject(root, "height", r->height);
    cJSON_AddNumberToObject(root, "grid", r->grid);
    cJSON_AddNumberToObject(root, "levels", r->levels);
    cJSON_AddNumberToObject(root, "far_m", r->far_m);
    cJSON *taus = cJSON_AddArrayToObject(root, "triangles_vs_tau");
    for (size_t t = 0; t < r->tau_count; t++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "tau_px", r->taus[t]);
        cJSON_AddNumberToObject(o, "triangles", r->triangles[t]);
        cJSON_AddNumberToObject(o, "triangles_with_bound", r->triangles_bound[t]);
        cJSON_AddNumberToObject(o, "ranges_decided_by_tau", r->tau_decided[t]);
        cJSON_AddItemToArray(taus, o);
    }
    st_eval_json_number(root, "exponent", r->exponent);
    st_eval_json_number(root, "exponent_r2", r->exponent_r2);
    st_eval_json_number(root, "exponent_with_bound", r->exponent_bound);
    cJSON *dl = cJSON_AddArrayToObject(root, "delta_m");
    for (uint32_t l = 0; l < r->levels; l++) cJSON_AddItemToArray(dl, cJSON_CreateNumber(r->delta_m[l]));
    cJSON *db = cJSON_AddArrayToObject(root, "delta_bound_m");
    for (uint32_t l = 0; l < r->levels; l++) cJSON_AddItemToArray(db, cJSON_CreateNumber(r->delta_bound_m[l]));
    st_eval_json_number(root, "delta_growth", r->delta_growth);
    st_eval_json_number(root, "exponent_from_delta", r->exponent_from_delta);
    cJSON *bp = cJSON_AddArrayToObject(root, "exponent_by_pitch");
    for (int k = 0; k < 4; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "pitch_deg", PITCHES[k]);
        st_eval_json_number(o, "exponent", r->pitch_exponent[k]);
        cJSON *tr = cJSON_AddArrayToObject(o, "triangles");
        for (size_t t = 0; t < r->tau_count; t++) {
            double v = r->pitch_triangles[k][t];
            cJSON_AddItemToArray(tr, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
        }
        cJSON_AddItemToArray(bp, o);
    }
    cJSON *sk = cJSON_AddObjectToObject(root, "skirts");
    cJSON_AddNumberToObject(sk, "ratio_mean", r->skirt_ratio_mean);
    st_eval_json_number(sk, "ratio_min", r->skirt_ratio_min);
    cJSON_AddNumberToObject(sk, "ratio_max", r->skirt_ratio_max);
    cJSON_AddNumberToObject(sk, "predicted", r->skirt_predicted);
    if (r->flights) {
        cJSON *c = cJSON_AddObjectToObject(root, "cruise");
        cJSON_AddStringToObject(c, "flight", r->cruise);
        cJSON_AddNumberToObject(c, "speed_mps", r->cruise_speed_mps);
        st_eval_json_number(c, "resident_median", r->resident_median);
        cJSON_AddNumberToObject(c, "resident_max", r->resident_max);
        cJSON_AddNumberToObject(c, "wanted_max", r->wanted_max);
        cJSON_AddNumberToObject(c, "latency_ms", r->latency_ms);
        cJSON_AddNumberToObject(c, "bound", r->bound);
        cJSON_AddNumberToObject(c, "bound_slow", r->bound_slow);
        cJSON *h = cJSON_AddArrayToObject(root, "hitch");
        const st_fly_result *fl[2] = {r->plain, r->slow};
        for (int k = 0; k < 2; k++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "slow_load_ms", k ? r->slow_load_ms : 0);
            st_eval_json_number(o, "frame_median_ms", fl[k]->frame.median);
            st_eval_json_number(o, "frame_p99_ms", fl[k]->frame.p99);
            st_eval_json_number(o, "frame_max_ms", fl[k]->frame.max);
            cJSON_AddNumberToObject(o, "frames_over_median_plus_2ms", fl[k]->frame.over_2ms);
            st_eval_json_number(o, "gpu_median_ms", fl[k]->gpu.median);
            st_eval_json_number(o, "gpu_p99_ms", fl[k]->gpu.p99);
            cJSON_AddNumberToObject(o, "hole_px", (double)fl[k]->hole_px_total);
            cJSON_AddItemToArray(h, o);
        }
    }
    if (r->depth) {
        cJSON *dp = cJSON_AddObjectToObject(root, "depth_precision");
        cJSON_AddNumberToObject(dp, "near_m", r->depth_near_m);
        cJSON_AddNumberToObject(dp, "far_m", r->depth_far_m);
        cJSON *rows = cJSON_AddArrayToObject(dp, "onsets");
        for (size_t g = 0; g < r->depth_gap_count; g++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "gap_m", r->depth_gaps[g]);
            st_eval_json_number(o, "standard_onset_m", r->onset_m[g][0]);
            st_eval_json_number(o, "reverse_onset_m", r->onset_m[g][1]);
            cJSON_AddItemToArray(rows, o);
        }
    }
    cJSON_AddNumberToObject(root, "validation_messages", r->validation_messages);
    return st_eval_json_write(root, path, err);
}
