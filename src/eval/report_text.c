/* Text reports of `strata compare`: results.md (the paper's tables — accuracy and frame time per pitch,
 * means with 95 % intervals, preparation and memory, every row) and frame-time.svg (hand-written SVG bars of
 * frame time per method per pitch). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "strata/eval.h"
#include "strata/image.h"

#define MAX_PITCHES 16

typedef double (*row_value)(const st_compare_row *row);
static double v_see(const st_compare_row *w) { return w->metrics.see_through; }
static double v_coh(const st_compare_row *w) { return w->metrics.coherence; }
static double v_sky(const st_compare_row *w) { return w->metrics.covers_sky; }
static double v_p50(const st_compare_row *w) { return w->metrics.depth_p50; }
static double v_p95(const st_compare_row *w) { return w->metrics.depth_p95; }
static double v_ms(const st_compare_row *w) { return w->avg_ms; }

/* Arithmetic mean over the views of one pitch (non-finite values skipped; NAN if none). */
static double pitch_mean(const st_compare_result *r, size_t m, int pitch, row_value f) {
    double sum = 0;
    size_t n = 0;
    for (size_t v = 0; v < r->view_count; v++) {
        if (lroundf(r->views[v].pitch_deg) != pitch) continue;
        double x = f(&r->rows[m * r->view_count + v]);
        if (isfinite(x)) sum += x, n++;
    }
    return n ? sum / (double)n : NAN;
}

static void fnum(FILE *fp, const char *fmt, double v) {
    if (isfinite(v)) fprintf(fp, fmt, v);
    else fputs("–", fp);
}

static void header(FILE *fp, const st_compare_result *r, const char *first) {
    fprintf(fp, "| %s |", first);
    for (size_t m = 0; m < r->method_count; m++) fprintf(fp, " %s |", r->methods[m].name);
    fprintf(fp, "\n|---|");
    for (size_t m = 0; m < r->method_count; m++) fprintf(fp, "---:|");
    fputc('\n', fp);
}

static bool all_gpu(const st_compare_result *r, size_t m) {
    for (size_t v = 0; v < r->view_count; v++)
        if (!r->rows[m * r->view_count + v].gpu_timing) return false;
    return true;
}

st_result st_compare_write_markdown(const st_compare_result *r, const char *path, st_error *err) {
    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (res) return res;
    FILE *fp = f.fp;
    int pitches[MAX_PITCHES];
    size_t np = st_compare_pitches(r, pitches, MAX_PITCHES);

    fprintf(fp, "# strata compare — %s\n\n", r->adapter);
    fprintf(fp, "- adapter: %s (%s), driver %s, Vulkan %s\n", r->adapter, r->device_type, r->driver, r->api_version);
    fprintf(fp, "- world: %s (%s, %u×%u, crc32 %08x)\n", r->world, r->level_name, r->level_width, r->level_height,
            r->level_crc);
    fprintf(fp, "- protocol: %u×%u, far %.0f, %zu views, %u warm-up + %u timed frames per method and view%s\n",
            r->width, r->height, r->far_dist, r->view_count, r->warmup, r->frames, r->quick ? " (quick)" : "");
    fprintf(fp, "- shadow map: %s\n", r->shadows ? "on (the shared 1024² map is cast every frame and included in the "
                                                    "frame time; its own cost is listed below)"
                                                  : "off (--no-shadows: a method-only diagnostic run)");
    if (r->tuning[0]) fprintf(fp, "- knob settings from %s\n", r->tuning);
    fprintf(fp, "- validation messages: %u\n", r->validation_messages);
    fprintf(fp, "- frame time: GPU timestamps summed over the frame's passes; methods marked * had no timestamps "
                "and use CPU record + submit + wait\n\n");

    fprintf(fp, "## Accuracy per pitch: see-through / coherence (%% of pixels)\n\n");
    header(fp, r, "pitch");
    for (size_t p = 0; p < np; p++) {
        fprintf(fp, "| %d° |", pitches[p]);
        for (size_t m = 0; m < r->method_count; m++) {
            fputc(' ', fp);
            fnum(fp, "%.1f", pitch_mean(r, m, pitches[p], v_see));
            fputs(" / ", fp);
            fnum(fp, "%.1f", pitch_mean(r, m, pitches[p], v_coh));
            fputs(" |", fp);
        }
        fputc('\n', fp);
    }
    fprintf(fp, "\n## Covers-sky (%%) and depth error p50 / p95 (world units) per pitch\n\n");
    header(fp, r, "pitch");
    for (size_t p = 0; p < np; p++) {
        fprintf(fp, "| %d° |", pitches[p]);
        for (size_t m = 0; m < r->method_count; m++) {
            fputc(' ', fp);
            fnum(fp, "%.1f", pitch_mean(r, m, pitches[p], v_sky));
            fputs(" · ", fp);
            fnum(fp, "%.2f", pitch_mean(r, m, pitches[p], v_p50));
            fputs(" / ", fp);
            fnum(fp, "%.1f", pitch_mean(r, m, pitches[p], v_p95));
            fputs(" |", fp);
        }
        fputc('\n', fp);
    }

    fprintf(fp, "\n## Frame time per pitch (ms, mean of the views' means)\n\n");
    fprintf(fp, "| pitch |");
    for (size_t m = 0; m < r->method_count; m++) fprintf(fp, " %s%s |", r->methods[m].name, all_gpu(r, m) ? "" : "*");
    fprintf(fp, "\n|---|");
    for (size_t m = 0; m < r->method_count; m++) fprintf(fp, "---:|");
    fputc('\n', fp);
    for (size_t p = 0; p < np; p++) {
        fprintf(fp, "| %d° |", pitches[p]);
        for (size_t m = 0; m < r->method_count; m++) {
            fputc(' ', fp);
            fnum(fp, "%.3f", pitch_mean(r, m, pitches[p], v_ms));
            fputs(" |", fp);
        }
        fputc('\n', fp);
    }

    fprintf(fp, "\n## Mean over the %zu views with a 95 %% interval (ms)\n\n", r->view_count);
    fprintf(fp, "Interval: mean of the view means ± 1.96·√(Σ s_i²/n_i)/k (s_i the frame-time standard deviation of "
                "view i, n_i its frames, k views): within-session spread, not device-to-device.\n\n");
    fprintf(fp, "The shadow column is the GPU time of the shared shadow pass alone, already included in the mean "
                "(– without timestamps or with --no-shadows).\n\n");
    fprintf(fp, "| method | mean | ± 95 %% | of which shadow |\n|---|---:|---:|---:|\n");
    for (size_t m = 0; m < r->method_count; m++) {
        fprintf(fp, "| %s%s | ", r->methods[m].name, all_gpu(r, m) ? "" : "*");
        fnum(fp, "%.3f", r->methods[m].mean_ms);
        fputs(" | ", fp);
        fnum(fp, "%.3f", r->methods[m].ci95_ms);
        fputs(" | ", fp);
        fnum(fp, "%.3f", r->shadows ? r->methods[m].shadow_ms : NAN);
        fputs(" |\n", fp);
    }

    fprintf(fp, "\n## Preparation (CPU wall, ms)\n\n");
    fprintf(fp, "setup = renderer creation; first frame = the method's very first frame (first view: whatever it "
                "builds lazily); warm-up = the first view's warm-up frames. None of them is in the frame times.\n\n");
    fprintf(fp, "| method | setup | first frame | warm-up |\n|---|---:|---:|---:|\n");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_compare_method *cm = &r->methods[m];
        fprintf(fp, "| %s | %.1f | %.1f | %.1f |\n", cm->name, cm->setup_ms, cm->first_frame_ms, cm->warmup_ms);
    }
    fprintf(fp, "\n## Memory\n\n");
    fprintf(fp, "Persistent method-specific payload (spec §4.8: excludes the shared terrain, palette, shadow map, "
                "targets, pipelines, staging and driver heaps). The device column is the change in the device's "
                "reported usage (VK_EXT_memory_budget) with the method's renderer live after its first frame and "
                "warm-up, so it includes the targets and driver allocations.\n\n");
    fprintf(fp, "| method | GPU MiB | CPU MiB | device usage Δ MiB |\n|---|---:|---:|---:|\n");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_compare_method *cm = &r->methods[m];
        fprintf(fp, "| %s | %.2f | %.2f | ", cm->name, (double)cm->gpu_bytes / 1048576.0,
                (double)cm->cpu_bytes / 1048576.0);
        fnum(fp, "%.2f", cm->device_usage_known ? (double)cm->device_usage_delta / 1048576.0 : NAN);
        fputs(" |\n", fp);
    }
    fprintf(fp, "\n- process peak RSS: %.1f MiB\n", (double)r->peak_rss_bytes / 1048576.0);
    if (r->device_budget_known)
        fprintf(fp, "- device memory at the end: %.1f MiB used of a %.1f MiB budget (device-local heaps)\n",
                (double)r->device_usage_bytes / 1048576.0, (double)r->device_budget_bytes / 1048576.0);
    else
        fprintf(fp, "- device memory: not reported (the adapter has no VK_EXT_memory_budget)\n");

    if (r->edits) st_compare_write_edit_table(r, fp);

    fprintf(fp, "\n## Every method × view\n\n");
    fprintf(fp, "| method | view | pitch | ms | timing | see-through %% | covers-sky %% | depth p50 | depth p95 | "
                "coherence %% |\n|---|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
    for (size_t k = 0; k < r->method_count * r->view_count; k++) {
        const st_compare_row *w = &r->rows[k];
        fprintf(fp, "| %s | %s | %.0f | ", r->methods[w->method].name, r->views[w->view].name,
                r->views[w->view].pitch_deg);
        fnum(fp, "%.3f", w->avg_ms);
        fprintf(fp, " | %s | %.2f | %.2f | ", w->gpu_timing ? "gpu" : "cpu", w->metrics.see_through,
                w->metrics.covers_sky);
        fnum(fp, "%.2f", w->metrics.depth_p50);
        fputs(" | ", fp);
        fnum(fp, "%.2f", w->metrics.depth_p95);
        fprintf(fp, " | %.2f |\n", w->metrics.coherence);
    }

    fprintf(fp, "\n## Images\n\n- `grid.png`: columns are the views (");
    for (size_t v = 0; v < r->view_count; v++) fprintf(fp, "%s%s", v ? ", " : "", r->views[v].name);
    fprintf(fp, "); the first row is the CPU reference as a shaded depth image (faces lit by the sun, fogged by "
                "distance), then one row per method (");
    for (size_t m = 0; m < r->method_count; m++) fprintf(fp, "%s%s", m ? ", " : "", r->methods[m].name);
    fprintf(fp, ").\n- `heatmap-<method>.png`: the views in rows of four; red see-through, blue covers-sky, "
                "magenta counted incoherence, black→yellow→white depth error (log scale, white ≥ 16 units), grey "
                "sky in both.\n- `frame-time.svg`: frame time per method per pitch.\n");
    return st_atomic_commit(&f, err);
}

void st_compare_write_edit_table(const st_compare_result *r, FILE *fp) {
    fprintf(fp, "\n## Edits: the dig protocol\n\n");
    fprintf(fp, "Crater radius %d, depth %d at (%d, %d), dirty rectangle [%d, %d) × [%d, %d); camera at (%.0f, %.0f), "
                "eye %.0f above the original surface, yaw %.0f, pitch %.0f. CPU1/GPU1: median of %u independently "
                "built renderers' first post-edit frame (CPU = the methods' update hooks + record + submit + wait; "
                "the dig itself is not timed). CPU0/GPU0: median of %u frames of a renderer built fresh from the "
                "edited level. match: frames until the edited renderer agrees with the fresh one (hit/miss ≤ %.2f %%, "
                "depth p95 ≤ %.1f); the mismatch, p95 and colour MAE are at that point (or after 16 frames).\n\n",
            r->edit.radius, r->edit.depth, r->edit_cx, r->edit_cy, r->edit_rect.x0, r->edit_rect.x1, r->edit_rect.y0,
            r->edit_rect.y1, r->edit_view.x, r->edit_view.y, r->edit_view.eye_height, r->edit_view.yaw_deg,
            r->edit_view.pitch_deg, r->edit.repeats, r->edit.steady_frames, ST_EDIT_MAX_MISMATCH,
            ST_EDIT_MAX_DEPTH_P95);
    fprintf(fp, "| method | update | CPU0 | CPU1 | ΔC | GPU0 | GPU1 | ΔG | match | hit/miss %% | p95 | colour MAE "
                "|\n|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_edit_row *w = &r->edit_rows[m];
        fprintf(fp, "| %s | %s | ", w->method, st_update_class_name(w->update));
        fnum(fp, "%.2f", w->steady_cpu_ms);
        fputs(" | ", fp);
        fnum(fp, "%.2f", w->first_cpu_median);
        fputs(" | ", fp);
        fnum(fp, "%+.2f", w->overhead_cpu_ms);
        fputs(" | ", fp);
        fnum(fp, "%.2f", w->steady_gpu_ms);
        fputs(" | ", fp);
        fnum(fp, "%.2f", w->first_gpu_median);
        fputs(" | ", fp);
        fnum(fp, "%+.2f", w->overhead_gpu_ms);
        if (w->consistent_after) fprintf(fp, " | %u frame%s", w->consistent_after, w->consistent_after > 1 ? "s" : "");
        else fputs(" | not by 16", fp);
        fprintf(fp, " | %.4f | %.3f | %.2f |\n", w->final.mismatch_pct, w->final.depth_p95, w->final.color_mae);
    }
    fprintf(fp, "\nBefore/after images per method: `edit-<method>-before.png` (the last warm-up frame) and "
                "`edit-<method>-after.png` (the first post-edit frame). Update classes: direct reader (reads the "
                "terrain texture), incremental rebuild (re-bakes the dirty occupancy), refit (refits the dirty mesh "
                "chunks).\n");
}

/* ---- SVG ------------------------------------------------------------------------------------------------------ */

static double nice_step(double max) {
    double raw = max / 5, mag = pow(10, floor(log10(raw)));
    double n = raw / mag;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
}

st_result st_compare_write_svg(const st_compare_result *r, const char *path, st_error *err) {
    static const char *colors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    int pitches[MAX_PITCHES];
    size_t np = st_compare_pitches(r, pitches, MAX_PITCHES);
    double vmax = 0;
    for (size_t m = 0; m < r->method_count; m++)
        for (size_t p = 0; p < np; p++) {
            double v = pitch_mean(r, m, pitches[p], v_ms);
            if (isfinite(v) && v > vmax) vmax = v;
        }
    if (!(vmax > 0)) vmax = 1;
    double step = nice_step(vmax), top = ceil(vmax / step) * step;
    const double W = 860, H = 420, L = 60, R = 180, T = 40, B = 50;
    double pw = W - L - R, ph = H - T - B;
    double gw = pw / (double)np, bw = gw * 0.8 / (double)r->method_count;

    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (res) return res;
    FILE *fp = f.fp;
    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                "font-size=\"12\">\n", W, H);
    fprintf(fp, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(fp, "<text x=\"%.0f\" y=\"22\" font-size=\"15\">Frame time per pitch (ms) — %s, %u×%u</text>\n", L,
            r->adapter, r->width, r->height);
    for (double y = 0; y <= top + step * 0.01; y += step) {
        double py = T + ph - y / top * ph;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, py, L + pw, py);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, py + 4, y);
    }
    for (size_t p = 0; p < np; p++) {
        double gx = L + gw * (double)p + gw * 0.1;
        for (size_t m = 0; m < r->method_count; m++) {
            double v = pitch_mean(r, m, pitches[p], v_ms);
            if (!isfinite(v)) continue;
            double h = v / top * ph;
            fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s %d°: %.3f "
                        "ms</title></rect>\n", gx + bw * (double)m, T + ph - h, bw * 0.9, h, colors[m % 10],
                    r->methods[m].name, pitches[p], v);
        }
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d°</text>\n", L + gw * ((double)p + 0.5),
                T + ph + 18, pitches[p]);
    }
    fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", L, T + ph, L + pw, T + ph);
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">pitch</text>\n", L + pw / 2, H - 12);
    for (size_t m = 0; m < r->method_count; m++) {
        double y = T + 10 + 20 * (double)m;
        fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", L + pw + 20, y,
                colors[m % 10]);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">%s%s</text>\n", L + pw + 38, y + 10, r->methods[m].name,
                all_gpu(r, m) ? "" : " (CPU)");
    }
    fprintf(fp, "</svg>\n");
    return st_atomic_commit(&f, err);
}
