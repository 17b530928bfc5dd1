/* The comparison result as data: slugs, pitch grouping, the quick protocol's view pick, the per-method
 * 12-scene means with their 95 % intervals, and freeing. No GPU here, so tests use it on made-up rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/eval.h"

void st_eval_slug(const char *name, char *slug, size_t cap) {
    size_t n = 0;
    bool dash = false;
    for (const char *p = name; *p && n + 1 < cap; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (alnum) {
            if (dash && n > 0 && n + 2 < cap) slug[n++] = '-';
            slug[n++] = c;
            dash = false;
        } else {
            dash = true;
        }
    }
    slug[n] = 0;
    if (!n) snprintf(slug, cap, "unknown");
}

size_t st_compare_pitches(const st_compare_result *r, int *pitches, size_t cap) {
    size_t n = 0;
    for (size_t v = 0; v < r->view_count; v++) {
        int p = (int)lroundf(r->views[v].pitch_deg);
        bool seen = false;
        for (size_t k = 0; k < n; k++) seen |= pitches[k] == p;
        if (!seen && n < cap) pitches[n++] = p;
    }
    return n;
}

size_t st_compare_pick_per_pitch(const st_viewpoint *in, size_t n, st_viewpoint *out, size_t cap) {
    size_t m = 0;
    for (size_t i = 0; i < n && m < cap; i++) {
        bool seen = false;
        for (size_t k = 0; k < m; k++) seen |= lroundf(out[k].pitch_deg) == lroundf(in[i].pitch_deg);
        if (!seen) out[m++] = in[i];
    }
    return m;
}

void st_compare_summarize(st_compare_result *r) {
    for (size_t m = 0; m < r->method_count; m++) {
        double sum = 0, var = 0;
        size_t k = 0;
        bool one_frame = false; /* a standard deviation needs two frames: no interval from one */
        for (size_t v = 0; v < r->view_count; v++) {
            const st_compare_row *row = &r->rows[m * r->view_count + v];
            if (!row->frames || !isfinite(row->avg_ms)) continue;
            if (row->frames < 2) one_frame = true;
            double s = row->gpu_timing ? row->gpu.stddev : row->cpu.stddev;
            sum += row->avg_ms;
            var += s * s / (double)row->frames;
            k++;
        }
        double shadow = 0;
        size_t ks = 0;
        for (size_t v = 0; v < r->view_count; v++) {
            double x = r->rows[m * r->view_count + v].shadow_ms;
            if (isfinite(x)) shadow += x, ks++;
        }
        r->methods[m].shadow_ms = ks ? shadow / (double)ks : NAN;
        double first = 0;
        size_t kf = 0;
        for (size_t v = 0; v < r->view_count; v++) {
            double x = r->rows[m * r->view_count + v].shadow_first_ms;
            if (isfinite(x)) first += x, kf++;
        }
        r->methods[m].shadow_first_ms = kf ? first / (double)kf : NAN;
        /* per pass: the mean over the timed views, each pass's names in the order the views first show them */
        st_pass_set *ps = &r->methods[m].passes;
        memset(ps, 0, sizeof *ps);
        for (size_t v = 0; v < r->view_count; v++) {
            const st_pass_set *rp = &r->rows[m * r->view_count + v].passes;
            for (uint32_t i = 0; i < rp->count; i++) {
                uint32_t j = 0;
                while (j < ps->count && strcmp(ps->passes[j].name, rp->passes[i].name) != 0) j++;
                if (j == ps->count && ps->count < ST_MAX_FRAME_PASSES) {
                    ps->passes[j] = (st_pass_stat){.ms = 0};
                    snprintf(ps->passes[j].name, sizeof ps->passes[j].name, "%s", rp->passes[i].name);
                    ps->count++;
                }
            }
        }
        for (uint32_t j = 0; j < ps->count; j++) {
            double total = 0;
            for (size_t v = 0; v < r->view_count; v++) {
                const st_compare_row *row = &r->rows[m * r->view_count + v];
                if (row->frames && isfinite(row->avg_ms)) total += st_pass_set_ms(&row->passes, ps->passes[j].name);
            }
            ps->passes[j].ms = k ? total / (double)k : NAN;
        }
        r->methods[m].mean_ms = k ? sum / (double)k : NAN;
        r->methods[m].ci95_ms = k && !one_frame ? 1.96 * sqrt(var) / (double)k : NAN;
    }
}

void st_compare_result_free(st_compare_result *r) {
    if (!r) return;
    if (r->rows)
        for (size_t k = 0; k < r->method_count * r->view_count; k++) {
            free(r->rows[k].gpu_ms);
            free(r->rows[k].cpu_ms);
        }
    free(r->rows);
    free(r->edit_rows);
    free(r);
}
