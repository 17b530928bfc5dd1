/* Per-pass GPU times gathered over frames: each frame's named passes (st_frame_timing.passes) grouped by
 * name, as a mean or a median per pass, for the harness's reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/eval.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The names of every frame's passes, in the order they first appear. */
static void collect_names(const st_frame_timing *frames, size_t n, st_pass_set *out) {
    memset(out, 0, sizeof *out);
    for (size_t f = 0; f < n; f++)
        for (uint32_t i = 0; i < frames[f].pass_count && i < ST_MAX_FRAME_PASSES; i++) {
            const char *name = frames[f].passes[i].name ? frames[f].passes[i].name : "";
            bool seen = false;
            for (uint32_t k = 0; k < out->count && !seen; k++) seen = strcmp(out->passes[k].name, name) == 0;
            if (!seen && out->count < ST_MAX_FRAME_PASSES) {
                snprintf(out->passes[out->count].name, sizeof out->passes[0].name, "%s", name);
                out->count++;
            }
        }
}

/* The frame's time in the pass `name` (a name seen twice in one frame is summed); 0 when absent. */
static double frame_pass_ms(const st_frame_timing *t, const char *name) {
    double ms = 0;
    for (uint32_t i = 0; i < t->pass_count && i < ST_MAX_FRAME_PASSES; i++)
        if (strcmp(t->passes[i].name ? t->passes[i].name : "", name) == 0) ms += t->passes[i].gpu_ms;
    return ms;
}

void st_pass_set_mean(const st_frame_timing *frames, size_t n, st_pass_set *out) {
    collect_names(frames, n, out);
    for (uint32_t k = 0; k < out->count; k++) {
        double sum = 0;
        for (size_t f = 0; f < n; f++) sum += frame_pass_ms(&frames[f], out->passes[k].name);
        out->passes[k].ms = n ? sum / (double)n : NAN;
    }
}

void st_pass_set_median(const st_frame_timing *frames, size_t n, st_pass_set *out) {
    collect_names(frames, n, out);
    double *v = n ? malloc(n * sizeof *v) : NULL;
    for (uint32_t k = 0; k < out->count; k++) {
        if (!v) {
            out->passes[k].ms = NAN;
            continue;
        }
        bool finite = true;
        for (size_t f = 0; f < n; f++) {
            v[f] = frame_pass_ms(&frames[f], out->passes[k].name);
            finite = finite && isfinite(v[f]);
        }
        if (!finite) {
            out->passes[k].ms = NAN;
            continue;
        }
        qsort(v, n, sizeof *v, cmp_double);
        out->passes[k].ms = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    }
    free(v);
}

double st_pass_set_ms(const st_pass_set *set, const char *name) {
    for (uint32_t k = 0; k < set->count; k++)
        if (strcmp(set->passes[k].name, name) == 0) return set->passes[k].ms;
    return 0;
}
