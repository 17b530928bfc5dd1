/* The reports of a flight (strata/fly.h): fly.json with the settings, the summary (the local figures too: each
 * frame over the median of the 121 around it) and every frame as columns, fly.md with the summary, and fly.svg with
 * five panels against flight time (frame times, triangles, tiles, uploads, holes), so a hitch, a streaming burst or
 * a hole can be found by eye and then in the numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "strata/fly.h"
#include "strata/image.h"

static void add_series(cJSON *o, const char *name, const st_fly_series *s) {
    cJSON *x = cJSON_AddObjectToObject(o, name);
    st_eval_json_number(x, "median", s->median);
    st_eval_json_number(x, "p99", s->p99);
    st_eval_json_number(x, "max", s->max);
    st_eval_json_number(x, "mean", s->mean);
    cJSON_AddNumberToObject(x, "frames_over_median_plus_2ms", s->over_2ms);
    /* each frame over the median of the frames within ±window_half of it (the flight's ends clipped) */
    cJSON *l = cJSON_AddObjectToObject(x, "local");
    cJSON_AddNumberToObject(l, "window_half", ST_FLY_LOCAL_HALF);
    st_eval_json_number(l, "p99", s->local_p99);
    st_eval_json_number(l, "p99_9", s->local_p999);
    st_eval_json_number(l, "max", s->local_max);
}

/* One column of every frame's figure, null where it is not finite. */
static void add_column(cJSON *frames, const char *name, const st_fly_result *r, double (*get)(const st_fly_frame *)) {
    cJSON *a = cJSON_AddArrayToObject(frames, name);
    for (uint32_t i = 0; i < r->frame_count; i++) {
        double v = get(&r->frames[i]);
        cJSON_AddItemToArray(a, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
    }
}

static double f_t(const st_fly_frame *f) { return f->t_s; }
static double f_gpu(const st_fly_frame *f) { return f->gpu_ms; }
static double f_cpu(const st_fly_frame *f) { return f->cpu_ms; }
static double f_frame(const st_fly_frame *f) { return f->frame_ms; }
static double f_select(const st_fly_frame *f) { return f->select_ms; }
static double f_upload_ms(const st_fly_frame *f) { return f->upload_ms; }
static double f_tris(const st_fly_frame *f) { return (double)f->triangles; }
static double f_nodes(const st_fly_frame *f) { return f->nodes; }
static double f_fallback(const st_fly_frame *f) { return f->fallback; }
static double f_missing(const st_fly_frame *f) { return f->missing + f->undrawn; }
static double f_holes(const st_fly_frame *f) { return f->hole_px == UINT64_MAX ? NAN : (double)f->hole_px; }
static double f_resident(const st_fly_frame *f) { return f->resident; }
static double f_queued(const st_fly_frame *f) { return f->queued; }
static double f_loading(const st_fly_frame *f) { return f->loading; }
static double f_evictable(const st_fly_frame *f) { return f->evictable; }
static double f_uploads(const st_fly_frame *f) { return f->uploads; }
static double f_edit(const st_fly_frame *f) { return f->edit_ms; }
static double f_hole_pages(const st_fly_frame *f) { return f->hole_pages; }
static double f_x(const st_fly_frame *f) { return f->eye[0]; }
static double f_y(const st_fly_frame *f) { return f->eye[1]; }
static double f_z(const st_fly_frame *f) { return f->eye[2]; }

st_result st_fly_write_json(const st_fly_result *r, const char *path, st_error *err) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "kind", "fly");
    st_eval_json_adapter(root, r->adapter, r->device_type);
    cJSON_AddStringToObject(root, "world", r->world);
    cJSON_AddStringToObject(root, "flight", r->flight);
    cJSON_AddStringToObject(root, "method", r->method);
    cJSON_AddNumberToObject(root, "width", r->width);
    cJSON_AddNumberToObject(root, "height", r->height);
    cJSON_AddNumberToObject(root, "far_m", r->far_m);
    cJSON_AddNumberToObject(root, "tau_px", r->tau_px);
    cJSON_AddBoolToObject(root, "skirts", r->skirts);
    cJSON_AddStringToObject(root, "lod_select", r->lod_select_gpu ? "gpu" : "cpu");
    cJSON_AddNumberToObject(root, "fps", r->fps);
    cJSON_AddNumberToObject(root, "duration_s", r->duration_s);
    cJSON_AddNumberToObject(root, "max_speed_mps", r->max_speed_mps);
    cJSON_AddNumberToObject(root, "slow_load_ms", r->slow_load_ms);
    cJSON_AddNumberToObject(root, "frames", r->frame_count);
    cJSON_AddNumberToObject(root, "settle_frames", r->settle_frames);
    cJSON_AddBoolToObject(root, "settled", r->settled);
    cJSON_AddStringToObject(root, "gpu_timing", r->gpu_timing ? "timestamps" : "none (the adapter has none)");
    cJSON *sum = cJSON_AddObjectToObject(root, "summary");
    add_series(sum, "gpu_ms", &r->gpu);
    add_series(sum, "cpu_ms", &r->cpu);
    add_series(sum, "frame_ms", &r->frame);
    /* each pass's GPU time over the flight: where a hitch happened */
    cJSON *passes = cJSON_AddObjectToObject(sum, "passes_gpu_ms");
    for (uint32_t k = 0; k < r->passes.count; k++) add_series(passes, r->passes.names[k], &r->passes.series[k]);
    cJSON_AddNumberToObject(sum, "hole_px_total", (double)r->hole_px_total);
    cJSON_AddNumberToObject(sum, "frames_with_holes", r->frames_with_holes);
    st_eval_json_number(sum, "triangles_median", r->triangles_median);
    st_eval_json_number(sum, "resident_median", r->resident_median);
    cJSON_AddNumberToObject(sum, "resident_max", r->resident_max);
    cJSON_AddNumberToObject(sum, "uploads_total", (double)r->uploads_total);
    st_eval_json_number(sum, "load_ms_median", r->load_ms_median);
    cJSON_AddNumberToObject(sum, "peak_rss_bytes", (double)r->peak_rss_bytes);
    cJSON_AddNumberToObject(sum, "gpu_tile_bytes", (double)r->gpu_tile_bytes);
    cJSON_AddNumberToObject(sum, "validation_messages", r->validation_messages);
    if (r->paged) { /* a layer store flown as a paged world: its digs, write-backs, reload checks and holes */
        cJSON *pg = cJSON_AddObjectToObject(root, "paged");
        cJSON_AddNumberToObject(pg, "pool_pages", r->pool_pages);
        cJSON_AddNumberToObject(pg, "far_levels", r->far_levels);
        cJSON_AddNumberToObject(pg, "upload_pages", r->upload_pages);
        cJSON_AddNumberToObject(pg, "uploads_max", r->uploads_max);
        cJSON_AddNumberToObject(pg, "missing_pages_median", r->missing_median);
        cJSON_AddNumberToObject(pg, "hole_pages_total", (double)r->hole_pages_total);
        cJSON_AddNumberToObject(pg, "frames_with_holes", r->frames_with_holes);
        cJSON_AddNumberToObject(pg, "digs", r->digs);
        cJSON_AddNumberToObject(pg, "dug_pages", r->dug_pages);
        st_eval_json_number(pg, "edit_ms_median", r->edit_ms_median);
        cJSON_AddNumberToObject(pg, "write_backs", r->write_backs);
        cJSON_AddNumberToObject(pg, "pages_written", (double)r->pages_written);
        st_eval_json_number(pg, "write_back_ms_median", r->write_back_ms_median);
        st_eval_json_number(pg, "write_back_ms_max", r->write_back_ms_max);
        cJSON_AddBoolToObject(pg, "edits_checked", r->edits_checked);
        cJSON_AddNumberToObject(pg, "reloads_checked", r->reloads_checked);
        cJSON_AddNumberToObject(pg, "lost_edits", r->lost_edits);
        st_eval_json_number(pg, "frame_p99_over_median", r->frame.p99 / r->frame.median);
    }
    cJSON *fr = cJSON_AddObjectToObject(root, "per_frame");
    add_column(fr, "t_s", r, f_t);
    add_column(fr, "gpu_ms", r, f_gpu);
    add_column(fr, "cpu_ms", r, f_cpu);
    add_column(fr, "frame_ms", r, f_frame);
    add_column(fr, "select_ms", r, f_select);
    add_column(fr, "upload_ms", r, f_upload_ms);
    add_column(fr, "triangles", r, f_tris);
    add_column(fr, "nodes", r, f_nodes);
    add_column(fr, "fallback_nodes", r, f_fallback);
    add_column(fr, "missing_nodes", r, f_missing);
    add_column(fr, "hole_px", r, f_holes);
    add_column(fr, "resident", r, f_resident);
    add_column(fr, "queued", r, f_queued);
    add_column(fr, "loading", r, f_loading);
    add_column(fr, "evictable", r, f_evictable);
    add_column(fr, "uploads", r, f_uploads);
    if (r->paged) {
        add_column(fr, "edit_ms", r, f_edit);
        add_column(fr, "hole_pages", r, f_hole_pages);
    }
    cJSON *pass_ms = cJSON_AddObjectToObject(fr, "pass_gpu_ms");
    for (uint32_t k = 0; r->passes.ms && k < r->passes.count; k++) {
        cJSON *a = cJSON_AddArrayToObject(pass_ms, r->passes.names[k]);
        for (uint32_t i = 0; i < r->frame_count; i++) {
            double v = r->passes.ms[(size_t)i * ST_FLY_MAX_PASSES + k];
            cJSON_AddItemToArray(a, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
        }
    }
    add_column(fr, "eye_x_m", r, f_x);
    add_column(fr, "eye_y_m", r, f_y);
    add_column(fr, "eye_z_m", r, f_z);
    return st_eval_json_write(root, path, err);
}

static void md_series(FILE *fp, const char *name, const st_fly_series *s) {
    if (!isfinite(s->median)) {
        fprintf(fp, "| %s | n/a | n/a | n/a | n/a | n/a |\n", name);
        return;
    }
    fprintf(fp, "| %s | %.3f | %.3f (%.2f× median) | %.3f | %u | %.2f× / %.2f× / %.2f× |\n", name, s->median, s->p99,
            s->p99 / s->median, s->max, s->over_2ms, s->local_p99, s->local_p999, s->local_max);
}

st_result st_fly_write_markdown(const st_fly_result *r, const char *path, st_error *err) {
    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (res) return res;
    FILE *fp = f.fp;
    fprintf(fp, "# Flight %s over %s\n\n", r->flight, r->world);
    fprintf(fp, "%s on %s (%s), %ux%u, τ %g px, skirts %s, selection on the %s, far %.0f m; %u frames at %g fps (%.1f s, "
            "up to %.0f m/s); slow-load %g ms; %s after %u settling frames.\n\n",
            r->method, r->adapter, r->device_type, r->width, r->height, r->tau_px, r->skirts ? "on" : "off",
            r->lod_select_gpu ? "GPU" : "CPU", r->far_m,
            r->frame_count, r->fps, r->duration_s, r->max_speed_mps, r->slow_load_ms,
            r->settled ? "full detail at the start" : "NOT at full detail at the start", r->settle_frames);
    fprintf(fp, "| ms | median | p99 | max | frames over median + 2 ms | local p99 / p99.9 / max |\n"
            "|---|---|---|---|---|---|\n");
    md_series(fp, "GPU (timestamps)", &r->gpu);
    md_series(fp, "CPU record + submit + wait", &r->cpu);
    md_series(fp, "whole frame (CPU)", &r->frame);
    for (uint32_t k = 0; k < r->passes.count; k++) {
        char name[64];
        snprintf(name, sizeof name, "GPU pass `%s`", r->passes.names[k]);
        md_series(fp, name, &r->passes.series[k]);
    }
    fprintf(fp, "\nLocal: each frame's time over the median of the %u frames around it (±%u, fewer at the flight's ends), "
            "the hitch a player sees; a slower stretch of the scene moves the median with it.\n",
            2 * ST_FLY_LOCAL_HALF + 1, ST_FLY_LOCAL_HALF);
    if (r->paged) {
        fprintf(fp, "\n- a paged world: pool of %u full-resolution pages, %u coarser levels; wanted pages missing: median "
                "%u a frame (drawn from a coarser level where one has them)\n",
                r->pool_pages, r->far_levels, r->missing_median);
        if (r->upload_pages)
            fprintf(fp, "- uploads: at most %u pages a frame (all levels), the most in one frame %u\n", r->upload_pages,
                    r->uploads_max);
        else
            fprintf(fp, "- uploads: no bound a frame, the most in one frame %u (all levels)\n", r->uploads_max);
        fprintf(fp, "- holes: %llu page-frames over %u frames (full-resolution pages missing with no coarser level over "
                "them: drawn as their floors)\n", (unsigned long long)r->hole_pages_total, r->frames_with_holes);
        if (r->digs)
            fprintf(fp, "- digs: %u (median %.3f ms each, before the frame's draw, not in its time) over %u pages; %u "
                    "write-backs of %llu pages between frames (median %.1f ms, max %.1f ms)\n- lost edits: %u of %u dug "
                    "pages checked after eviction and reload%s\n",
                    r->digs, r->edit_ms_median, r->dug_pages, r->write_backs, (unsigned long long)r->pages_written,
                    r->write_back_ms_median, r->write_back_ms_max, r->lost_edits, r->reloads_checked,
                    r->edits_checked ? " (each page's GPU texels against the generator's page with every dig replayed)"
                                     : " (not checked: only a generated world's digs are)");
    } else {
        fprintf(fp, "\n- holes: %llu pixels over %u frames (an upper bound: the screen rectangles of nodes without a tile)\n",
                (unsigned long long)r->hole_px_total, r->frames_with_holes);
    }
    fprintf(fp, "- triangles: median %.0f\n", r->triangles_median);
    fprintf(fp, "- tiles resident: median %.0f, max %u; %llu uploads; load + decode median %.2f ms\n", r->resident_median,
            r->resident_max, (unsigned long long)r->uploads_total, r->load_ms_median);
    fprintf(fp, "- peak RSS %.0f MiB, GPU tile memory %.0f MiB, validation messages %u\n",
            (double)r->peak_rss_bytes / 1048576.0, (double)r->gpu_tile_bytes / 1048576.0, r->validation_messages);
    return st_atomic_commit(&f, err);
}

/* ---- the plots ------------------------------------------------------------------------------------------------ */

#define SVG_W 960.0
#define PANEL_H 150.0
#define LEFT 80.0
#define RIGHT 170.0
#define TOP 60.0
#define GAP 40.0
#define MAX_POINTS 2000u

/* Text for an SVG element: the characters XML gives meaning to, escaped. */
static void svg_text(FILE *fp, const char *s) {
    for (; *s; s++) {
        if (*s == '&') fputs("&amp;", fp);
        else if (*s == '<') fputs("&lt;", fp);
        else if (*s == '>') fputs("&gt;", fp);
        else fputc(*s, fp);
    }
}

typedef struct line_def {
    const char *name;
    double (*get)(const st_fly_frame *);
} line_def;

/* One panel: its lines against time on a shared linear axis from 0, a polyline each (gaps where not finite). */
static void panel(FILE *fp, const st_fly_result *r, int index, const char *title, const line_def *lines, size_t n) {
    double y0 = TOP + index * (PANEL_H + GAP), x1 = SVG_W - RIGHT, w = x1 - LEFT;
    double hi = 0;
    for (size_t l = 0; l < n; l++)
        for (uint32_t i = 0; i < r->frame_count; i++) {
            double v = lines[l].get(&r->frames[i]);
            if (isfinite(v)) hi = fmax(hi, v);
        }
    st_svg_axis ya = st_svg_axis_make(0, hi > 0 ? hi : 1, false);
    double tmax = r->frame_count > 1 ? r->frames[r->frame_count - 1].t_s : 1;
    if (!(tmax > 0)) tmax = 1;
    st_svg_axis xa = st_svg_axis_make(0, tmax, false);
    fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", LEFT, y0 - 8, title);
    fprintf(fp, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>\n", LEFT,
            y0, w, PANEL_H);
    for (size_t k = 0; k < ya.count; k++) {
        double y = y0 + PANEL_H * (1 - st_svg_axis_pos(&ya, ya.ticks[k]));
        fprintf(fp, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#eee\"/>", LEFT, y, x1, y);
        fprintf(fp, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%g</text>\n", LEFT - 4, y + 4,
                ya.ticks[k]);
    }
    for (size_t k = 0; k < xa.count; k++) {
        double x = LEFT + w * st_svg_axis_pos(&xa, xa.ticks[k]);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"11\">%g s</text>\n", x,
                y0 + PANEL_H + 14, xa.ticks[k]);
    }
    for (size_t l = 0; l < n; l++) {
        const char *c = st_svg_color(l);
        bool open = false;
        /* long flights: the largest value of each run of `stride` frames, so a single slow frame still shows */
        uint32_t stride = r->frame_count > MAX_POINTS ? (r->frame_count + MAX_POINTS - 1) / MAX_POINTS : 1;
        for (uint32_t i = 0; i < r->frame_count; i += stride) {
            double v = NAN;
            for (uint32_t j = i; j < i + stride && j < r->frame_count; j++) {
                double u = lines[l].get(&r->frames[j]);
                if (isfinite(u) && !(v >= u)) v = u;
            }
            if (!isfinite(v)) {
                if (open) fprintf(fp, "\"/>\n");
                open = false;
                continue;
            }
            double x = LEFT + w * st_svg_axis_pos(&xa, r->frames[i].t_s);
            double y = y0 + PANEL_H * (1 - st_svg_axis_pos(&ya, v));
            if (!open) fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"", c);
            fprintf(fp, "%.1f,%.1f ", x, y);
            open = true;
        }
        if (open) fprintf(fp, "\"/>\n");
        fprintf(fp, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"3\" fill=\"%s\"/>", x1 + 12, y0 + 12 + 18.0 * l,
                c);
        fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">%s</text>\n", x1 + 30, y0 + 16 + 18.0 * l,
                lines[l].name);
    }
}

st_result st_fly_write_svg(const st_fly_result *r, const char *path, st_error *err) {
    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (res) return res;
    FILE *fp = f.fp;
    double h = TOP + 5 * (PANEL_H + GAP);
    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
            "font-size=\"13\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", SVG_W, h);
    fprintf(fp, "<text x=\"%.0f\" y=\"20\" font-size=\"15\">", LEFT);
    svg_text(fp, r->flight);
    fputs(" over ", fp);
    svg_text(fp, r->world);
    fprintf(fp, ": %s, %ux%u, τ %g px, slow-load %g ms</text>\n", r->method, r->width, r->height, r->tau_px,
            r->slow_load_ms);
    const line_def times[] = {{"GPU ms", f_gpu}, {"CPU ms", f_cpu}, {"frame ms", f_frame}};
    const line_def tris[] = {{"triangles", f_tris}};
    const line_def tiles[] = {{"resident", f_resident}, {"queued", f_queued}, {"loading", f_loading}};
    const line_def ups[] = {{"uploads", f_uploads}};
    const line_def holes[] = {{"hole px", f_holes}, {"nodes w/o tile", f_missing}, {"from ancestor", f_fallback}};
    panel(fp, r, 0, "frame time (ms)", times, 3);
    panel(fp, r, 1, "triangles", tris, 1);
    panel(fp, r, 2, "tiles", tiles, 3);
    panel(fp, r, 3, "tile uploads per frame", ups, 1);
    panel(fp, r, 4, "holes (pixels, upper bound) and nodes", holes, 3);
    fprintf(fp, "</svg>\n");
    return st_atomic_commit(&f, err);
}
