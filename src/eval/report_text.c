/* Text reports of `strata compare`: results.md (the paper's tables — accuracy and frame time per pitch,
 * means with 95 % intervals, preparation and memory, every row) and frame-time.svg (hand-written SVG bars of
 * frame time per method per pitch). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "strata/eval.h"
#include "strata/file.h"
#include "strata/image.h"

#define MAX_PITCHES 16

typedef double (*row_value)(const st_compare_row *row);
static double v_see(const st_compare_row *w) { return w->metrics.see_through; }
static double v_coh(const st_compare_row *w) { return w->metrics.coherence; }
static double v_sky(const st_compare_row *w) { return w->metrics.covers_sky; }
static double v_p50(const st_compare_row *w) { return w->metrics.depth_p50; }
static double v_p95(const st_compare_row *w) { return w->metrics.depth_p95; }
static double v_ms(const st_compare_row *w) { return w->avg_ms; }
static double v_cmae(const st_compare_row *w) { return w->metrics.color_mae; }
static double v_cvis(const st_compare_row *w) { return w->metrics.color_visible; }

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

/* "name ms · name ms" */
static void write_passes(FILE *fp, const st_pass_set *set) {
    if (!set->count) fputs("–", fp);
    for (uint32_t i = 0; i < set->count; i++) {
        fprintf(fp, "%s%s ", i ? " · " : "", set->passes[i].name);
        fnum(fp, "%.3f", set->passes[i].ms);
    }
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
    if (r->shadows)
        fprintf(fp, "- shadow map: %u² (the shared map is cast every frame and included in the frame time; its own "
                    "cost is listed below); the reference shades with an exact shadow ray per hit\n", r->shadow_size);
    else
        fprintf(fp, "- shadow map: off (--no-shadows: a method-only diagnostic run; the reference is unshadowed too)\n");
    if (r->shading == ST_SHADING_TEXTURED)
        fprintf(fp, "- shading: textured (the materials; the reference keeps the protocol's flat colours, so the colour "
                    "columns measure the textures as well as the method)\n");
    fprintf(fp, "- run: %s (settings: %s)\n", r->run_name, r->settings);
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

    fprintf(fp, "\n## Colour error per pitch: MAE (8-bit sRGB levels) / visibly wrong (%% of pixels, ΔE*ab > %g)\n\n",
            ST_COLOR_VISIBLE_DE);
    fprintf(fp, "Against the reference shaded by the same formula (strata/shading.h) with exact shadows; all pixels "
                "count, sky included.\n\n");
    header(fp, r, "pitch");
    for (size_t p = 0; p < np; p++) {
        fprintf(fp, "| %d° |", pitches[p]);
        for (size_t m = 0; m < r->method_count; m++) {
            fputc(' ', fp);
            fnum(fp, "%.2f", pitch_mean(r, m, pitches[p], v_cmae));
            fputs(" / ", fp);
            fnum(fp, "%.1f", pitch_mean(r, m, pitches[p], v_cvis));
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
                "(– without timestamps or with --no-shadows). The map is kept across frames and cast only where the "
                "view's window moved or an edit landed, so a steady frame casts nothing; the last column is the pass "
                "on each view's first frame, where the camera has just arrived and the map is cast anew (a warm-up "
                "frame, not in the mean).\n\n");
    fprintf(fp, "| method | mean | ± 95 %% | of which shadow | shadow, a view's first frame |\n"
                "|---|---:|---:|---:|---:|\n");
    for (size_t m = 0; m < r->method_count; m++) {
        fprintf(fp, "| %s%s | ", r->methods[m].name, all_gpu(r, m) ? "" : "*");
        fnum(fp, "%.3f", r->methods[m].mean_ms);
        fputs(" | ", fp);
        fnum(fp, "%.3f", r->methods[m].ci95_ms);
        fputs(" | ", fp);
        fnum(fp, "%.3f", r->shadows ? r->methods[m].shadow_ms : NAN);
        fputs(" | ", fp);
        fnum(fp, "%.3f", r->shadows ? r->methods[m].shadow_first_ms : NAN);
        fputs(" |\n", fp);
    }

    if (r->view_count > 1) {
        fprintf(fp, "\n## The first view, timed twice (ms)\n\n");
        fprintf(fp, "A method's first view (%s) is timed again after its last view and the row keeps the second "
                    "pass: right after a renderer's creation the first view can run steady several times slower "
                    "than it does later, by a different amount in each run (docs/harness.md \"The first view\"). "
                    "The first pass, not in the mean:\n\n",
                r->views[0].name);
        fprintf(fp, "| method | first pass | second pass (in the mean) |\n|---|---:|---:|\n");
        for (size_t m = 0; m < r->method_count; m++) {
            const st_compare_row *row = &r->rows[m * r->view_count];
            fprintf(fp, "| %s | ", r->methods[m].name);
            fnum(fp, "%.3f", row->first_pass_ms);
            fputs(" | ", fp);
            fnum(fp, "%.3f", row->avg_ms);
            fputs(" |\n", fp);
        }
    }

    fprintf(fp, "\n## GPU time per pass (ms, mean over the views)\n\n");
    fprintf(fp, "Each frame's timestamped passes, by name, in recording order; they sum to the mean above. shadow = "
                "the shared shadow map, upload = an edit's terrain rows, near-cap = the near plane inside solid, the "
                "rest the method's own (– without timestamps).\n\n");
    fprintf(fp, "| method | passes |\n|---|---|\n");
    for (size_t m = 0; m < r->method_count; m++) {
        fprintf(fp, "| %s | ", r->methods[m].name);
        write_passes(fp, &r->methods[m].passes);
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
    fprintf(fp, "- the harness's own time (wall, %u threads): reference %.0f ms, frames %.0f ms, readback %.0f ms, "
                "scoring %.0f ms, mosaics %.0f ms, PNG %.0f ms\n", st_job_threads(), r->phases.reference_ms,
            r->phases.frames_ms, r->phases.readback_ms, r->phases.scoring_ms, r->phases.mosaic_ms, r->phases.png_ms);
    if (r->device_budget_known)
        fprintf(fp, "- device memory at the end: %.1f MiB used of a %.1f MiB budget (device-local heaps)\n",
                (double)r->device_usage_bytes / 1048576.0, (double)r->device_budget_bytes / 1048576.0);
    else
        fprintf(fp, "- device memory: not reported (the adapter has no VK_EXT_memory_budget)\n");

    if (r->edits) st_compare_write_edit_table(r, fp);

    if (r->water.mode != ST_WATER_NONE) {
        const st_compare_water *w = &r->water;
        fprintf(fp, "\n## Water (timed, not scored)\n\n");
        fprintf(fp, "%s with the water on (%s, `docs/water.md`), warmed up as the methods' rows, then %u timed frames "
                    "per view with the water's time at 60 Hz; GPU ms, means over the timed frames. Every method's rows "
                    "above are the terrain alone: the water changes no score.\n\n",
                w->method, st_water_mode_name(w->mode), r->frames);
        fprintf(fp, "| view | simulation | surface pass | terrain (method, shadow, cap) | CPU ms (frame) |\n"
                    "|---|---:|---:|---:|---:|\n");
        for (size_t v = 0; v < r->view_count; v++) {
            fprintf(fp, "| %s | ", r->views[v].name);
            fnum(fp, "%.3f", w->sim_ms[v]);
            fputs(" | ", fp);
            fnum(fp, "%.3f", w->surface_ms[v]);
            fputs(" | ", fp);
            fnum(fp, "%.3f", w->terrain_ms[v]);
            fprintf(fp, " | %.2f |\n", w->cpu_ms[v]);
        }
        fputs("| mean | ", fp);
        fnum(fp, "%.3f", w->sim_mean);
        fputs(" | ", fp);
        fnum(fp, "%.3f", w->surface_mean);
        fputs(" | ", fp);
        fnum(fp, "%.3f", w->terrain_mean);
        fputs(" | |\n", fp);
    }

    fprintf(fp, "\n## Every method × view\n\n");
    fprintf(fp, "| method | view | pitch | ms | timing | see-through %% | covers-sky %% | depth p50 | depth p95 | "
                "coherence %% | colour MAE | colour visible %% |\n|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
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
        fprintf(fp, " | %.2f | ", w->metrics.coherence);
        fnum(fp, "%.2f", w->metrics.color_mae);
        fputs(" | ", fp);
        fnum(fp, "%.2f", w->metrics.color_visible);
        fputs(" |\n", fp);
    }

    fprintf(fp, "\n## Images\n\n- `grid.png`: columns are the views (");
    for (size_t v = 0; v < r->view_count; v++) fprintf(fp, "%s%s", v ? ", " : "", r->views[v].name);
    fprintf(fp, "); the first row is the CPU reference shaded by the shared formula with exact shadows, then one "
                "row per method (");
    for (size_t m = 0; m < r->method_count; m++) fprintf(fp, "%s%s", m ? ", " : "", r->methods[m].name);
    fprintf(fp, ").\n- `heatmap-<method>.png`: the views in rows of four; red see-through, blue covers-sky, "
                "magenta counted incoherence, black→yellow→white depth error (log scale, white ≥ 16 units), grey "
                "sky in both.\n- `heatmap-color-<method>.png`: the colour error; pixels within ΔE*ab %g show the "
                "reference dimmed, visibly wrong ones yellow (at the threshold) → red (20) → white (≥ 40).\n"
                "- `frame-time.svg`: frame time per method per pitch.\n", ST_COLOR_VISIBLE_DE);
    return st_atomic_commit(&f, err);
}

void st_compare_write_edit_table(const st_compare_result *r, FILE *fp) {
    fprintf(fp, "\n## Edits: the dig protocol\n\n");
    fprintf(fp, "Crater radius %d, depth %d at (%d, %d), dirty rectangle [%d, %d) × [%d, %d); camera at (%.0f, %.0f), "
                "eye %.0f above the original surface, yaw %.0f, pitch %.0f. CPU1/GPU1: median of %u independently "
                "built renderers' first post-edit frame (CPU = the methods' update hooks + record + submit + wait; "
                "the dig itself is not timed). CPU0/GPU0: median of %u frames of a renderer built fresh from the "
                "edited level. match: frames until the edited renderer agrees with the fresh one (hit/miss ≤ %.2f %%, "
                "depth p95 ≤ %.1f); the mismatch, p95 and colour MAE are at that point (or after 16 frames). changed: the share of the "
                "frame the dig changed (against the image before it), the part of the frame the match is judged on. "
                "close: the same check from a second camera, (%.0f, %.0f) eye %.0f pitch %.0f, where the crater fills "
                "the frame, one frame after the timing camera's checks.\n\n",
            r->edit.radius, r->edit.depth, r->edit_cx, r->edit_cy, r->edit_rect.x0, r->edit_rect.x1, r->edit_rect.y0,
            r->edit_rect.y1, r->edit_view.x, r->edit_view.y, r->edit_view.eye_height, r->edit_view.yaw_deg,
            r->edit_view.pitch_deg, r->edit.repeats, r->edit.steady_frames, ST_EDIT_MAX_MISMATCH,
            ST_EDIT_MAX_DEPTH_P95, r->edit_close_view.x, r->edit_close_view.y, r->edit_close_view.eye_height,
            r->edit_close_view.pitch_deg);
    fprintf(fp, "| method | update | CPU0 | CPU1 | ΔC | GPU0 | GPU1 | ΔG | match | hit/miss %% | p95 | colour MAE "
                "| changed %% | close: consistent | close hit/miss %% | close p95 | close changed %% |\n"
                "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|\n");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_edit_row *w = &r->edit_rows[m];
        fprintf(fp, "| %s | %s | ", w->method, st_update_class_name(w->update));
        fnum(fp, "%.2f", w->steady_cpu_ms);
        fputs(" | ", fp);
        fnum(fp, "%.2f", w->first_cpu_median);
        fputs(" | ", fp);
        fnum(fp, "%+.2f", w->overhead_cpu_ms);
        if (w->overhead_cpu_noise) fputs(" (within noise)", fp);
        fputs(" | ", fp);
        fnum(fp, "%.2f", w->steady_gpu_ms);
        fputs(" | ", fp);
        fnum(fp, "%.2f", w->first_gpu_median);
        fputs(" | ", fp);
        fnum(fp, "%+.2f", w->overhead_gpu_ms);
        if (w->consistent_after) fprintf(fp, " | %u frame%s", w->consistent_after, w->consistent_after > 1 ? "s" : "");
        else fputs(" | not by 16", fp);
        fprintf(fp, " | %.4f | %.3f | %.2f | %.2f | %s | %.4f | %.3f | %.2f |\n", w->final.mismatch_pct,
                w->final.depth_p95, w->final.color_mae, w->changed_pct, w->close.consistent ? "yes" : "**no**",
                w->close.mismatch_pct, w->close.depth_p95, w->close_changed_pct);
    }
    fprintf(fp, "\nGPU time per pass of the first post-edit frame (GPU1) and of the steady edited frames (GPU0), "
                "medians, ms:\n\n| method | first post-edit | steady |\n|---|---|---|\n");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_edit_row *w = &r->edit_rows[m];
        fprintf(fp, "| %s | ", w->method);
        write_passes(fp, &w->first_passes);
        fputs(" | ", fp);
        write_passes(fp, &w->steady_passes);
        fputs(" |\n", fp);
    }
    fprintf(fp, "\nBefore/after images per method: `edit-<method>-before.png` (the last warm-up frame) and "
                "`edit-<method>-after.png` (the first post-edit frame). Update classes: direct reader (reads the "
                "terrain texture), incremental rebuild (re-bakes the dirty occupancy), refit (refits the dirty mesh "
                "chunks).\n");
}

/* ---- SVG ------------------------------------------------------------------------------------------------------ */

/* Frame time per method per pitch: one column per pitch, each method a line of its own colour and marker across
 * the columns, on a log axis when the times span more than a factor of ten (they do: 13 methods from a few to
 * hundreds of ms). */
st_result st_compare_write_svg(const st_compare_result *r, const char *path, st_error *err) {
    int pitches[MAX_PITCHES];
    size_t np = st_compare_pitches(r, pitches, MAX_PITCHES);
    double vmin = INFINITY, vmax = 0;
    for (size_t m = 0; m < r->method_count; m++)
        for (size_t p = 0; p < np; p++) {
            double v = pitch_mean(r, m, pitches[p], v_ms);
            if (isfinite(v) && v > 0) vmin = fmin(vmin, v), vmax = fmax(vmax, v);
        }
    if (!(vmax > 0)) vmin = 0.1, vmax = 1;
    st_svg_axis ax = st_svg_axis_make(vmin, vmax, true);
    const double W = 900, H = 460, L = 70, R = 230, T = 44, B = 50;
    double pw = W - L - R, ph = H - T - B, gw = pw / (double)(np ? np : 1);
    bool gpu = true;
    for (size_t m = 0; m < r->method_count; m++) gpu &= all_gpu(r, m);

    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (res) return res;
    FILE *fp = f.fp;
    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    fprintf(fp, "<text x=\"%.0f\" y=\"20\" font-size=\"15\">Frame time per pitch (ms, mean of the views; %s axis) — %s, "
                "%u×%u</text>\n", L, ax.log ? "log" : "linear", r->adapter, r->width, r->height);
    fprintf(fp, "<text x=\"%.0f\" y=\"36\" fill=\"#555\">%s; shadow map %s, included</text>\n", L,
            gpu ? "GPU timestamps" : "CPU submit-and-wait (no GPU timestamps)",
            r->shadows ? (r->shadow_size == ST_SHADOW_SIZE_PUBLICATION ? "1024²" : "256² (preview)") : "off");
    for (size_t k = 0; k < ax.count; k++) {
        double py = T + ph - st_svg_axis_pos(&ax, ax.ticks[k]) * ph;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", L, py, L + pw, py);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, py + 4, ax.ticks[k]);
    }
    fprintf(fp, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">ms per frame</text>\n",
            T + ph / 2);
    for (size_t p = 0; p < np; p++)
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d°</text>\n", L + gw * ((double)p + 0.5),
                T + ph + 18, pitches[p]);
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">pitch</text>\n", L + pw / 2, H - 10);
    fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n", L, T, pw,
            ph);
    for (size_t m = 0; m < r->method_count; m++) {
        /* a small offset per method inside each column keeps equal times from hiding each other */
        double off = gw * 0.5 * ((double)m / (double)(r->method_count > 1 ? r->method_count - 1 : 1) - 0.5);
        fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" stroke-opacity=\"0.6\" points=\"",
                st_svg_color(m));
        for (size_t p = 0; p < np; p++) {
            double v = pitch_mean(r, m, pitches[p], v_ms);
            if (isfinite(v) && v > 0)
                fprintf(fp, "%.1f,%.1f ", L + gw * ((double)p + 0.5) + off, T + ph - st_svg_axis_pos(&ax, v) * ph);
        }
        fprintf(fp, "\"/>\n");
        for (size_t p = 0; p < np; p++) {
            double v = pitch_mean(r, m, pitches[p], v_ms);
            if (!(isfinite(v) && v > 0)) continue;
            char title[96];
            snprintf(title, sizeof title, "%s %d°: %.3f ms", r->methods[m].name, pitches[p], v);
            st_svg_marker(fp, m, L + gw * ((double)p + 0.5) + off, T + ph - st_svg_axis_pos(&ax, v) * ph, 4.5, title);
        }
        double ly = T + 8 + 18 * (double)m;
        st_svg_marker(fp, m, L + pw + 26, ly, 4.5, NULL);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">%s%s</text>\n", L + pw + 38, ly + 4, r->methods[m].name,
                all_gpu(r, m) ? "" : " (CPU)");
    }
    fprintf(fp, "</svg>\n");
    return st_atomic_commit(&f, err);
}
