/* Tuning (paper §5.6): each method swept over its own quality knob on the horizon views, scored against the CPU
 * reference, and given the cheapest setting within one percentage point of its own best error (error =
 * see-through + coherence). Writes tuning.md, tuning.json (read back by `strata compare --tuning`) and an SVG
 * of error against frame time. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_internal.h"
#include "strata/eval.h"
#include "strata/file.h"
#include "strata/image.h"

/* Whether a larger value of the method's quality knob is less work (false without a knob). */
static bool knob_cost_falls(const char *method) {
    const st_method_knob *k = st_method_quality_knob(method);
    return k && k->cost_falls;
}

size_t st_tune_choose(const double *ms, const double *error, size_t n, double tolerance) {
    double best = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(ms[i]) && isfinite(error[i]) && error[i] < best) best = error[i];
    size_t pick = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(ms[i]) || !isfinite(error[i]) || error[i] > best + tolerance) continue;
        if (pick == SIZE_MAX || ms[i] < ms[pick] || (ms[i] == ms[pick] && error[i] < error[pick])) pick = i;
    }
    return pick;
}

size_t st_tune_choose_by_order(const double *error, size_t n, double tolerance, bool cost_falls) {
    double best = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(error[i]) && error[i] < best) best = error[i];
    for (size_t k = 0; k < n; k++) {
        size_t i = cost_falls ? n - 1 - k : k;
        if (isfinite(error[i]) && error[i] <= best + tolerance) return i;
    }
    return SIZE_MAX;
}

/* ---- the sweep --------------------------------------------------------------------------------------------- */

typedef struct tune_state {
    const st_tune_desc *d;
    st_tune_result *r;
    st_engine *engine;
    st_camera cameras[ST_MAX_VIEWS];
    float *ref[ST_MAX_VIEWS];
    uint8_t *ref_rgba[ST_MAX_VIEWS];
    uint8_t *rgba;
    float *depth, *dist;
    double *gpu, *cpu;
} tune_state;

/* One setting of one method: a renderer, per view warm-up + timed frames and the metrics. */
static st_result run_setting(tune_state *s, const char *method, const st_method_knobs *knobs, st_tune_setting *out,
                             st_error *err) {
    st_tune_result *r = s->r;
    st_render_desc rd = {.method = method, .width = r->width, .height = r->height, .knobs = *knobs,
                         .shadows = r->shadows, .shadow_size = r->shadow_size};
    st_renderer *rn = NULL;
    st_result res = st_renderer_create(s->engine, &rd, &rn, err);
    if (res) return res;
    double ms = 0, see = 0, coh = 0, dw = 0, cv = 0;
    out->gpu_timing = true;
    for (size_t v = 0; v < r->view_count && !res; v++) {
        st_frame_timing ft;
        if (!res) res = st_eval_warm_up(rn, &s->cameras[v], r->warmup, NULL, err);
        bool gpu = true;
        for (uint32_t k = 0; k < r->frames && !res; k++) {
            res = st_renderer_draw(rn, &s->cameras[v], &ft, err);
            s->gpu[k] = ft.gpu_ms;
            s->cpu[k] = ft.cpu_ms;
            if (!isfinite(ft.gpu_ms)) gpu = false;
        }
        if (!res) res = st_renderer_readback(rn, s->rgba, s->depth, err);
        if (res) break;
        if (!gpu) out->gpu_timing = false;
        ms += st_stats_of(gpu ? s->gpu : s->cpu, r->frames).mean;
        st_view view = st_camera_view(&s->cameras[v], r->width, r->height);
        st_eval_depth_to_distance(&view, s->depth, s->dist);
        st_metrics m;
        res = st_metrics_compute(s->dist, s->ref[v], r->width, r->height, &m, err);
        st_metrics_color(&m, s->rgba, s->ref_rgba[v], r->width, r->height);
        see += m.see_through;
        coh += m.coherence;
        dw += m.depth_wrong;
        cv += m.color_visible;
    }
    st_renderer_destroy(rn);
    if (res) return res;
    double k = (double)r->view_count;
    out->ms = ms / k;
    out->see_through = see / k;
    out->coherence = coh / k;
    out->depth_wrong = dw / k;
    out->color_visible = cv / k;
    out->error = out->see_through + out->coherence + out->depth_wrong + out->color_visible;
    return ST_OK;
}

static void tune_state_free(tune_state *s) {
    for (size_t v = 0; v < ST_MAX_VIEWS; v++) free(s->ref[v]), free(s->ref_rgba[v]);
    free(s->rgba);
    free(s->depth);
    free(s->dist);
    free(s->gpu);
    free(s->cpu);
    st_engine_destroy(s->engine);
}

static st_result setup(tune_state *s, st_error *err) {
    const st_tune_desc *d = s->d;
    st_tune_result *r = s->r;
    st_engine_desc ed = {.device_index = d->run.device_index, .device_given = d->run.device_given, .validate = d->run.validate};
    st_device_info info = {0};
    st_result res = st_eval_open_run(&ed, d->run.level, d->run.out_dir ? d->run.out_dir : "out/tune", &s->engine, &info, r->slug,
                                     sizeof r->slug, r->out_dir, sizeof r->out_dir, err);
    if (s->engine) {
        snprintf(r->adapter, sizeof r->adapter, "%s", info.name);
        snprintf(r->device_type, sizeof r->device_type, "%s", info.type);
    }
    if (res) return res;
    size_t n = (size_t)r->width * r->height;
    s->depth = malloc(n * sizeof(float));
    s->dist = malloc(n * sizeof(float));
    s->rgba = malloc(n * 4);
    s->gpu = malloc(r->frames * sizeof(double));
    s->cpu = malloc(r->frames * sizeof(double));
    if (!s->depth || !s->dist || !s->rgba || !s->gpu || !s->cpu) return st_error_set(err, ST_ERR_NOMEM, "tune: out of memory");
    st_reference *ref = NULL;
    if ((res = st_reference_create(d->run.level, &ref, err))) return res;
    st_reference_set_shadows(ref, r->shadows);
    st_ref_image img;
    res = st_ref_image_create(r->width, r->height, &img, err);
    const char *cache = d->run.cache_dir ? d->run.cache_dir : "out/cache";
    bool have_img = !res;
    for (size_t v = 0; v < r->view_count && !res; v++) {
        bool cached;
        res = st_reference_cast_cached(ref, &s->cameras[v], cache, &img, &cached, NULL, err);
        if (!res && (!(s->ref[v] = malloc(n * sizeof(float))) || !(s->ref_rgba[v] = malloc(n * 4))))
            res = st_error_set(err, ST_ERR_NOMEM, "tune: out of memory for the reference");
        if (!res) memcpy(s->ref[v], img.distance, n * sizeof(float)), memcpy(s->ref_rgba[v], img.rgba, n * 4);
    }
    if (have_img) st_ref_image_free(&img);
    st_reference_destroy(ref);
    return res;
}

st_result st_tune_run(const st_tune_desc *d, st_tune_result **out, st_error *err) {
    *out = NULL;
    if (!d->run.level || !d->run.views || !d->run.view_count || d->run.view_count > ST_MAX_VIEWS)
        return st_error_set(err, ST_ERR_INVALID, "tune: a level and 1..%d views are required", ST_MAX_VIEWS);
    st_tune_result *r = calloc(1, sizeof *r);
    if (!r) return st_error_set(err, ST_ERR_NOMEM, "tune: out of memory");
    r->width = d->run.width ? d->run.width : 400;
    r->height = d->run.height ? d->run.height : 260;
    r->frames = d->run.frames ? d->run.frames : 10;
    r->warmup = d->run.warmup ? d->run.warmup : 3;
    r->shadows = !d->run.no_shadows;
    r->shadow_size = d->run.shadow_size ? d->run.shadow_size : ST_SHADOW_SIZE_PUBLICATION;
    snprintf(r->world, sizeof r->world, "%s", d->run.world_name ? d->run.world_name : "default");
    size_t want = d->run.methods ? d->run.method_count : st_method_count();
    for (size_t i = 0; i < want && r->method_count < sizeof r->methods / sizeof r->methods[0]; i++) {
        const char *name = d->run.methods ? d->run.methods[i] : st_method_at(i)->name;
        if (!st_method_find(name)) {
            free(r);
            return st_error_set(err, ST_ERR_INVALID, "tune: unknown method '%s'", name);
        }
        st_tune_method *tm = &r->methods[r->method_count++];
        snprintf(tm->name, sizeof tm->name, "%s", name);
        const st_method_knob *k = st_method_quality_knob(name);
        if (k && k->sweep_count) {
            snprintf(tm->knob, sizeof tm->knob, "%s", k->name);
            tm->count = k->sweep_count;
            for (size_t j = 0; j < k->sweep_count; j++) tm->settings[j].value = k->sweep[j];
        } else {
            tm->count = 1; /* the defaults, so the method's error is still on the table */
        }
    }
    r->view_count = d->run.view_count;
    memcpy(r->views, d->run.views, d->run.view_count * sizeof *d->run.views);
    tune_state s = {.d = d, .r = r};
    float far_dist = d->run.far_dist > 0 ? d->run.far_dist : ST_DEFAULT_FAR;
    for (size_t v = 0; v < r->view_count; v++) {
        s.cameras[v] = st_viewpoint_camera(d->run.level, &d->run.views[v]);
        s.cameras[v].far_dist = far_dist;
    }
    st_result res = setup(&s, err);
    size_t total = 0, done = 0;
    for (size_t m = 0; m < r->method_count; m++) total += r->methods[m].count;
    double start = st_time_ms();
    for (size_t m = 0; m < r->method_count && !res; m++) {
        st_tune_method *tm = &r->methods[m];
        double ms[ST_TUNE_MAX_SETTINGS], error[ST_TUNE_MAX_SETTINGS];
        for (size_t j = 0; j < tm->count && !res; j++) {
            st_method_knobs knobs = {0};
            if (tm->knob[0]) st_knob_set(&knobs, st_method_quality_knob(tm->name), tm->settings[j].value);
            res = run_setting(&s, tm->name, &knobs, &tm->settings[j], err);
            if (res) {
                st_error_prefix(err, "tune %s %s=%g", tm->name, tm->knob, tm->settings[j].value);
                break;
            }
            ms[j] = tm->settings[j].ms;
            error[j] = tm->settings[j].error;
            done++;
            if (d->run.progress) {
                double el = (st_time_ms() - start) / 1000.0;
                fprintf(stderr, "\r[%zu/%zu] %-14s %-16s elapsed %4.0fs ETA %4.0fs ", done, total, tm->name,
                        tm->knob, el, el / (double)done * (double)(total - done));
                fflush(stderr);
            }
        }
        if (res) break;
        /* CPU submit-and-wait on a shared CPU ranks by noise (256 ray steps "won" against 32 once): without GPU
         * timestamps the knob's own cost order decides */
        tm->by_time = true;
        for (size_t j = 0; j < tm->count; j++) tm->by_time &= tm->settings[j].gpu_timing;
        tm->chosen = tm->by_time ? st_tune_choose(ms, error, tm->count, ST_TUNE_TOLERANCE)
                                 : st_tune_choose_by_order(error, tm->count, ST_TUNE_TOLERANCE,
                                                           knob_cost_falls(tm->name));
        if (tm->chosen < tm->count) tm->settings[tm->chosen].chosen = true;
    }
    if (d->run.progress && !res) fputc('\n', stderr);
    if (!res) {
        r->validation_messages = st_engine_validation_messages(s.engine);
        char path[1200];
        snprintf(path, sizeof path, "%s/tuning.json", r->out_dir);
        res = st_tune_write_json(r, path, err);
        snprintf(path, sizeof path, "%s/tuning.md", r->out_dir);
        if (!res) res = st_tune_write_markdown(r, path, err);
        snprintf(path, sizeof path, "%s/tuning.svg", r->out_dir);
        if (!res) res = st_tune_write_svg(r, path, err);
    }
    tune_state_free(&s);
    if (res) {
        free(r);
        return res;
    }
    *out = r;
    return ST_OK;
}

void st_tune_result_free(st_tune_result *r) { free(r); }

/* ---- reports ----------------------------------------------------------------------------------------------- */

st_result st_tune_write_json(const st_tune_result *r, const char *path, st_error *err) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "strata-tune");
    cJSON_AddNumberToObject(root, "schema_version", 1);
    st_eval_json_adapter(root, r->adapter, r->device_type);
    cJSON_AddStringToObject(root, "world", r->world);
    cJSON *pr = cJSON_AddObjectToObject(root, "protocol");
    cJSON_AddNumberToObject(pr, "width", r->width);
    cJSON_AddNumberToObject(pr, "height", r->height);
    cJSON_AddNumberToObject(pr, "frames", r->frames);
    cJSON_AddNumberToObject(pr, "warmup", r->warmup);
    cJSON_AddBoolToObject(pr, "shadows", r->shadows);
    cJSON_AddNumberToObject(pr, "shadow_size", r->shadows ? r->shadow_size : 0);
    cJSON_AddNumberToObject(pr, "tolerance_points", ST_TUNE_TOLERANCE);
    cJSON_AddStringToObject(pr, "error", "see_through + coherence + depth_wrong + color_visible");
    cJSON *views = cJSON_AddArrayToObject(pr, "views");
    for (size_t v = 0; v < r->view_count; v++) cJSON_AddItemToArray(views, cJSON_CreateString(r->views[v].name));
    cJSON_AddNumberToObject(root, "validation_messages", r->validation_messages);
    cJSON *ms = cJSON_AddArrayToObject(root, "methods");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_tune_method *tm = &r->methods[m];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", tm->name);
        bool has = tm->knob[0] != 0, chosen = tm->chosen < tm->count;
        if (has) cJSON_AddStringToObject(o, "knob", tm->knob);
        else cJSON_AddNullToObject(o, "knob");
        if (has && chosen) cJSON_AddNumberToObject(o, "chosen_value", tm->settings[tm->chosen].value);
        else cJSON_AddNullToObject(o, "chosen_value");
        cJSON_AddStringToObject(o, "ranked_by", tm->by_time ? "gpu time" : "knob cost order");
        cJSON *rows = cJSON_AddArrayToObject(o, "settings");
        for (size_t j = 0; j < tm->count; j++) {
            const st_tune_setting *t = &tm->settings[j];
            cJSON *x = cJSON_CreateObject();
            if (has) cJSON_AddNumberToObject(x, "value", t->value);
            else cJSON_AddNullToObject(x, "value");
            st_eval_json_number(x, "ms", t->ms);
            cJSON_AddStringToObject(x, "timing", t->gpu_timing ? "gpu" : "cpu");
            st_eval_json_number(x, "see_through", t->see_through);
            st_eval_json_number(x, "coherence", t->coherence);
            st_eval_json_number(x, "depth_wrong", t->depth_wrong);
            st_eval_json_number(x, "color_visible", t->color_visible);
            st_eval_json_number(x, "error", t->error);
            cJSON_AddBoolToObject(x, "chosen", t->chosen);
            cJSON_AddItemToArray(rows, x);
        }
        cJSON_AddItemToArray(ms, o);
    }
    return st_eval_json_write(root, path, err);
}

st_result st_tune_write_markdown(const st_tune_result *r, const char *path, st_error *err) {
    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (res) return res;
    FILE *fp = f.fp;
    fprintf(fp, "# strata tune — %s\n\n", r->adapter);
    fprintf(fp, "- world: %s; %u×%u; views:", r->world, r->width, r->height);
    for (size_t v = 0; v < r->view_count; v++) fprintf(fp, "%s %s", v ? "," : "", r->views[v].name);
    fprintf(fp, "\n- %u warm-up + %u timed frames per setting and view; shadow map %s; validation messages: %u\n",
            r->warmup, r->frames, r->shadows ? "on" : "off", r->validation_messages);
    fprintf(fp, "- error = see-through + coherence + depth-wrong + colour-visible (%% of pixels, mean over the views; "
                "docs/harness.md); ms = mean over the views (GPU timestamps, * = CPU submit-and-wait)\n");
    fprintf(fp, "- rule: the cheapest setting whose error is within %.0f percentage point of the method's best; "
                "cheapest by GPU time, or — without GPU timestamps, where CPU times on a shared CPU are noise — by "
                "the knob's cost order (fewer steps, slices, density, or a coarser mesh q is less work)\n",
            ST_TUNE_TOLERANCE);
    fprintf(fp, "- shadow map: %s\n\n", r->shadows ? (r->shadow_size == 1024 ? "1024²" : "custom size") : "off");
    fprintf(fp, "## Summary\n\n| method | knob | swept | chosen | error %% | ms |\n|---|---|---|---:|---:|---:|\n");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_tune_method *tm = &r->methods[m];
        bool ok = tm->chosen < tm->count;
        const st_tune_setting *c = ok ? &tm->settings[tm->chosen] : NULL;
        if (tm->knob[0])
            fprintf(fp, "| %s | %s | %g–%g | %g | ", tm->name, tm->knob, tm->settings[0].value,
                    tm->settings[tm->count - 1].value, ok ? c->value : NAN);
        else
            fprintf(fp, "| %s | — (no knob) | — | — | ", tm->name);
        if (c) fprintf(fp, "%.2f | %.3f%s |\n", c->error, c->ms, c->gpu_timing ? "" : "*");
        else fprintf(fp, "– | – |\n");
    }
    for (size_t m = 0; m < r->method_count; m++) {
        const st_tune_method *tm = &r->methods[m];
        fprintf(fp, "\n## %s%s%s\n\n", tm->name, tm->knob[0] ? " — " : " — no knob (defaults)",
                tm->knob[0] ? tm->knob : "");
        fprintf(fp, "Ranked by %s.\n\n", tm->by_time ? "GPU time" : "the knob's cost order (no GPU timestamps)");
        fprintf(fp, "| setting | ms | see-through %% | coherence %% | depth-wrong %% | colour-visible %% | error %% | "
                    "chosen |\n|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (size_t j = 0; j < tm->count; j++) {
            const st_tune_setting *t = &tm->settings[j];
            if (tm->knob[0]) fprintf(fp, "| %g | ", t->value);
            else fprintf(fp, "| default | ");
            fprintf(fp, "%.3f%s | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", t->ms, t->gpu_timing ? "" : "*",
                    t->see_through, t->coherence, t->depth_wrong, t->color_visible, t->error,
                    t->chosen ? "**chosen**" : "");
        }
    }
    fprintf(fp, "\n`tuning.svg`: error against frame time, one line per method, the chosen setting ringed.\n");
    return st_atomic_commit(&f, err);
}

/* Error against frame time, one line per method with its own colour and marker, every point labelled with its
 * knob value, the chosen one ringed; nice ticks, a log time axis when the times span more than a factor of ten. */
st_result st_tune_write_svg(const st_tune_result *r, const char *path, st_error *err) {
    double xmin = INFINITY, xmax = 0, ymax = 0;
    for (size_t m = 0; m < r->method_count; m++)
        for (size_t j = 0; j < r->methods[m].count; j++) {
            const st_tune_setting *t = &r->methods[m].settings[j];
            if (isfinite(t->ms) && t->ms > 0) xmin = fmin(xmin, t->ms), xmax = fmax(xmax, t->ms);
            if (isfinite(t->error) && t->error > ymax) ymax = t->error;
        }
    if (!(xmax > 0)) xmin = 0.1, xmax = 1;
    if (!(ymax > 0)) ymax = 1;
    st_svg_axis ax = st_svg_axis_make(xmin, xmax, true), ay = st_svg_axis_make(0, ymax, false);
    const double W = 940, H = 520, L = 64, R = 250, T = 62, B = 50, pw = W - L - R, ph = H - T - B;
    bool by_time = true;
    for (size_t m = 0; m < r->method_count; m++) by_time &= r->methods[m].by_time || !r->methods[m].knob[0];
    st_atomic_file f;
    st_result res = st_atomic_open(&f, path, err);
    if (res) return res;
    FILE *fp = f.fp;
    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    fprintf(fp, "<text x=\"%.0f\" y=\"20\" font-size=\"15\">Error against frame time — %s, %u×%u</text>\n", L,
            r->adapter, r->width, r->height);
    fprintf(fp, "<text x=\"%.0f\" y=\"36\" fill=\"#555\">error = see-through + coherence + depth-wrong + "
                "colour-visible (%% of pixels); labels: knob values</text>\n", L);
    fprintf(fp, "<text x=\"%.0f\" y=\"52\" fill=\"#555\">ringed: the chosen setting, %s</text>\n", L,
            by_time ? "the cheapest by GPU time within 1 point of the best"
                    : "the first in the knob's cost order within 1 point of the best (no GPU timestamps: times are noise)");
    for (size_t k = 0; k < ay.count; k++) {
        double y = T + ph - st_svg_axis_pos(&ay, ay.ticks[k]) * ph;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", L, y, L + pw, y);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, y + 4, ay.ticks[k]);
    }
    for (size_t k = 0; k < ax.count; k++) {
        double x = L + st_svg_axis_pos(&ax, ax.ticks[k]) * pw;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n", x, T, x, T + ph);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x, T + ph + 16, ax.ticks[k]);
    }
    fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n", L, T, pw,
            ph);
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">frame time (ms%s%s)</text>\n", L + pw / 2, H - 12,
            ax.log ? ", log" : "", r->methods[0].settings[0].gpu_timing ? "" : ", CPU submit-and-wait");
    fprintf(fp, "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">error (%%)</text>\n",
            T + ph / 2);
    for (size_t m = 0; m < r->method_count; m++) {
        const st_tune_method *tm = &r->methods[m];
        const char *c = st_svg_color(m);
        fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", c);
        for (size_t j = 0; j < tm->count; j++) {
            const st_tune_setting *t = &tm->settings[j];
            if (isfinite(t->ms) && t->ms > 0 && isfinite(t->error))
                fprintf(fp, "%.1f,%.1f ", L + st_svg_axis_pos(&ax, t->ms) * pw, T + ph - st_svg_axis_pos(&ay, t->error) * ph);
        }
        fprintf(fp, "\"/>\n");
        for (size_t j = 0; j < tm->count; j++) {
            const st_tune_setting *t = &tm->settings[j];
            if (!(isfinite(t->ms) && t->ms > 0) || !isfinite(t->error)) continue;
            double x = L + st_svg_axis_pos(&ax, t->ms) * pw, y = T + ph - st_svg_axis_pos(&ay, t->error) * ph;
            char title[160];
            snprintf(title, sizeof title, "%s %s=%g: %.3f ms, %.2f %%", tm->name, tm->knob[0] ? tm->knob : "default",
                     t->value, t->ms, t->error);
            st_svg_marker(fp, m, x, y, 4, title);
            if (t->chosen)
                fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", x,
                        y, c);
            if (tm->knob[0])
                fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">%g</text>\n", x + 6, y - 6, c,
                        t->value);
        }
        double ly = T + 8 + 18 * (double)m;
        st_svg_marker(fp, m, L + pw + 22, ly, 4, NULL);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">%s%s%s</text>\n", L + pw + 34, ly + 4, tm->name,
                tm->knob[0] ? " · " : " (no knob)", tm->knob[0] ? tm->knob : "");
    }
    fprintf(fp, "</svg>\n");
    return st_atomic_commit(&f, err);
}
