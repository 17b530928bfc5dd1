/* The soak: a random dig every frame on a live renderer, the frame checked every K frames against a renderer
 * built fresh from the edited level, the process RSS and the device's memory usage sampled every frame so that
 * growth over the run shows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/eval_internal.h"
#include "strata/eval.h"
#include "strata/image.h"

/* splitmix64: a small, seedable generator so a soak can be replayed exactly */
static uint64_t next_random(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t random_in(uint64_t *s, uint32_t lo, uint32_t hi) {
    return lo + (uint32_t)(next_random(s) % (uint64_t)(hi - lo + 1));
}

/* Mean of the first and of the last 10 % of n samples (at least one each). */
static void ends(const double *v, size_t n, double *first, double *last) {
    size_t k = n / 10 ? n / 10 : 1;
    double a = 0, b = 0;
    for (size_t i = 0; i < k; i++) a += v[i], b += v[n - k + i];
    *first = n ? a / (double)k : NAN;
    *last = n ? b / (double)k : NAN;
}

typedef struct soak_buffers {
    uint8_t *rgba_a, *rgba_b;
    float *depth, *dist_a, *dist_b;
    double *cpu, *rss, *dev;
} soak_buffers;

/* Draws the fresh renderer of the current (edited) level and compares it with the soaked one's last frame. */
static st_result check_frame(st_engine *engine, st_renderer *rn, const st_render_desc *rd, const st_camera *cam,
                             soak_buffers *b, st_soak_method *sm, st_error *err) {
    st_view view = st_camera_view(cam, rd->width, rd->height);
    st_result res = st_renderer_readback(rn, b->rgba_a, b->depth, err);
    if (res) return res;
    st_eval_depth_to_distance(&view, b->depth, b->dist_a);
    st_renderer *fresh = NULL;
    res = st_renderer_create(engine, rd, &fresh, err);
    if (res) return st_error_prefix(err, "fresh renderer");
    /* one warm-up frame, as the protocol's warm-up: a method may build lazily on its first frame */
    for (int k = 0; k < 2 && !res; k++) res = st_renderer_draw(fresh, cam, NULL, err);
    if (!res) res = st_renderer_readback(fresh, b->rgba_b, b->depth, err);
    st_renderer_destroy(fresh);
    if (res) return res;
    st_eval_depth_to_distance(&view, b->depth, b->dist_b);
    st_image_diff diff;
    res = st_image_diff_compute(b->dist_a, b->rgba_a, b->dist_b, b->rgba_b, rd->width, rd->height, &diff, err);
    if (res) return res;
    sm->checks++;
    if (!diff.consistent) sm->inconsistent++;
    if (diff.mismatch_pct > sm->worst_mismatch_pct) sm->worst_mismatch_pct = diff.mismatch_pct;
    if (diff.depth_p95 > sm->worst_depth_p95) sm->worst_depth_p95 = diff.depth_p95;
    if (diff.color_mae > sm->worst_color_mae) sm->worst_color_mae = diff.color_mae;
    return ST_OK;
}

static st_result soak_method(const st_soak_desc *d, st_soak_result *r, st_engine *engine, st_level *work,
                             st_soak_method *sm, soak_buffers *b, st_error *err) {
    if (!st_level_copy_texels(work, d->level))
        return st_error_set(err, ST_ERR_INVALID, "soak: the working level differs in size from the original");
    st_result res = st_engine_set_level(engine, work, err);
    if (res) return res;
    uint32_t v0 = st_engine_validation_messages(engine);
    st_render_desc rd = {.method = sm->name, .width = r->width, .height = r->height, .shadows = !d->no_shadows,
                         .knobs = st_tuning_knobs(d->tuning, sm->name, NULL)};
    st_renderer *rn = NULL;
    res = st_renderer_create(engine, &rd, &rn, err);
    if (res) return res;
    uint64_t rng = r->seed;
    bool dev_known = true;
    double start = st_time_ms();
    for (uint32_t f = 0; f < r->frames && !res; f++) {
        int cx = (int)random_in(&rng, 0, work->width - 1), cy = (int)random_in(&rng, 0, work->height - 1);
        int radius = (int)random_in(&rng, 4, 64), depth = (int)random_in(&rng, 10, 90);
        st_rect rect;
        res = st_level_dig(work, cx, cy, radius, depth, &rect, err);
        if (!res) res = st_engine_update_level(engine, rect, err);
        /* the camera follows the dig, so every edit is in view */
        st_viewpoint vp = {.x = (float)cx, .y = fmodf((float)cy + ST_EDIT_CAMERA_BACK, (float)work->height),
                           .yaw_deg = 180, .pitch_deg = -30, .eye_height = ST_EDIT_EYE_HEIGHT};
        st_camera cam = st_viewpoint_camera(work, &vp);
        st_frame_timing ft;
        if (!res) res = st_renderer_draw(rn, &cam, &ft, err);
        if (res) {
            st_error_prefix(err, "frame %u", f);
            break;
        }
        b->cpu[f] = ft.cpu_ms;
        b->rss[f] = (double)st_eval_current_rss_bytes();
        uint64_t usage = 0;
        if (dev_known && st_engine_memory_budget(engine, NULL, &usage, NULL) == ST_OK) b->dev[f] = (double)usage;
        else dev_known = false;
        sm->frames = f + 1;
        if ((f + 1) % r->check_every == 0 || f + 1 == r->frames) {
            res = check_frame(engine, rn, &rd, &cam, b, sm, err);
            if (res) st_error_prefix(err, "check at frame %u", f);
        }
        if (d->progress && (f % 16 == 0 || f + 1 == r->frames)) {
            double el = (st_time_ms() - start) / 1000.0;
            fprintf(stderr, "\r%-14s frame %u/%u  checks %u (%u inconsistent)  elapsed %4.0fs ETA %4.0fs ", sm->name,
                    f + 1, r->frames, sm->checks, sm->inconsistent, el, el / (f + 1) * (r->frames - f - 1));
            fflush(stderr);
        }
    }
    if (d->progress) fputc('\n', stderr);
    st_renderer_destroy(rn);
    if (sm->frames) {
        sm->cpu_ms_median = st_stats_of(b->cpu, sm->frames).median;
        ends(b->rss, sm->frames, &sm->rss_first, &sm->rss_last);
        sm->device_usage_known = dev_known;
        if (dev_known) ends(b->dev, sm->frames, &sm->device_first, &sm->device_last);
    }
    sm->validation_messages = st_engine_validation_messages(engine) - v0;
    return res;
}

static st_result write_json(const st_soak_result *r, const char *path, st_error *err) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "strata-soak");
    cJSON_AddNumberToObject(root, "schema_version", 1);
    st_eval_json_adapter(root, r->adapter, r->device_type);
    cJSON_AddNumberToObject(root, "frames", r->frames);
    cJSON_AddNumberToObject(root, "check_every", r->check_every);
    cJSON_AddNumberToObject(root, "width", r->width);
    cJSON_AddNumberToObject(root, "height", r->height);
    cJSON_AddNumberToObject(root, "seed", (double)r->seed);
    cJSON_AddNumberToObject(root, "validation_messages", r->validation_messages);
    cJSON_AddNumberToObject(root, "peak_rss_bytes", (double)r->peak_rss_bytes);
    cJSON *ms = cJSON_AddArrayToObject(root, "methods");
    for (size_t m = 0; m < r->method_count; m++) {
        const st_soak_method *sm = &r->methods[m];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "method", sm->name);
        cJSON_AddNumberToObject(o, "frames", sm->frames);
        cJSON_AddNumberToObject(o, "checks", sm->checks);
        cJSON_AddNumberToObject(o, "inconsistent", sm->inconsistent);
        cJSON_AddNumberToObject(o, "worst_mismatch_pct", sm->worst_mismatch_pct);
        cJSON_AddNumberToObject(o, "worst_depth_p95", sm->worst_depth_p95);
        cJSON_AddNumberToObject(o, "worst_color_mae", sm->worst_color_mae);
        st_eval_json_number(o, "cpu_ms_median", sm->cpu_ms_median);
        bool any = sm->frames > 0;
        if (any) {
            cJSON_AddNumberToObject(o, "rss_first_bytes", sm->rss_first);
            cJSON_AddNumberToObject(o, "rss_last_bytes", sm->rss_last);
            cJSON_AddNumberToObject(o, "rss_growth_bytes", sm->rss_last - sm->rss_first);
        }
        if (any && sm->device_usage_known) {
            cJSON_AddNumberToObject(o, "device_usage_first_bytes", sm->device_first);
            cJSON_AddNumberToObject(o, "device_usage_last_bytes", sm->device_last);
            cJSON_AddNumberToObject(o, "device_usage_growth_bytes", sm->device_last - sm->device_first);
        } else {
            cJSON_AddNullToObject(o, "device_usage_growth_bytes");
        }
        cJSON_AddNumberToObject(o, "validation_messages", sm->validation_messages);
        if (sm->error[0]) cJSON_AddStringToObject(o, "error", sm->error);
        else cJSON_AddNullToObject(o, "error");
        cJSON_AddItemToArray(ms, o);
    }
    return st_eval_json_write(root, path, err);
}

st_result st_soak_run(const st_soak_desc *d, st_soak_result **out, st_error *err) {
    *out = NULL;
    if (!d->level) return st_error_set(err, ST_ERR_INVALID, "soak: a level is required");
    st_soak_result *r = calloc(1, sizeof *r);
    if (!r) return st_error_set(err, ST_ERR_NOMEM, "soak: out of memory");
    r->frames = d->frames ? d->frames : 10000;
    r->width = d->width ? d->width : 320;
    r->height = d->height ? d->height : 200;
    r->seed = d->seed ? d->seed : 1;
    size_t want = d->methods ? d->method_count : 1;
    for (size_t i = 0; i < want && r->method_count < sizeof r->methods / sizeof r->methods[0]; i++) {
        const char *name = d->methods ? d->methods[i] : "ray";
        if (!st_method_find(name)) {
            free(r);
            return st_error_set(err, ST_ERR_INVALID, "soak: unknown method '%s'", name);
        }
        snprintf(r->methods[r->method_count++].name, sizeof r->methods[0].name, "%s", name);
    }
    st_engine *engine = NULL;
    st_level *work = NULL;
    soak_buffers b = {0};
    st_engine_desc ed = {.device_index = d->device_index, .device_given = d->device_given, .validate = d->validate};
    st_device_info info = {0};
    /* no level yet: every method sets its own working copy */
    st_result res = st_eval_open_run(&ed, NULL, d->out_dir ? d->out_dir : "out/soak", &engine, &info, r->slug,
                                     sizeof r->slug, r->out_dir, sizeof r->out_dir, err);
    if (engine) {
        snprintf(r->adapter, sizeof r->adapter, "%s", info.name);
        snprintf(r->device_type, sizeof r->device_type, "%s", info.type);
        /* A fresh renderer every frame is affordable on a GPU; on a CPU adapter (lavapipe, 0.2–2 s a frame)
         * every 100th frame keeps a 10,000-frame soak within hours. */
        r->check_every = d->check_every ? d->check_every : strcmp(info.type, "cpu") ? 1 : 100;
    }
    if (!res) res = st_level_clone(d->level, &work, err);
    if (!res) {
        size_t n = (size_t)r->width * r->height;
        b = (soak_buffers){malloc(n * 4), malloc(n * 4), malloc(n * sizeof(float)), malloc(n * sizeof(float)),
                           malloc(n * sizeof(float)), malloc(r->frames * sizeof(double)),
                           malloc(r->frames * sizeof(double)), malloc(r->frames * sizeof(double))};
        if (!b.rgba_a || !b.rgba_b || !b.depth || !b.dist_a || !b.dist_b || !b.cpu || !b.rss || !b.dev)
            res = st_error_set(err, ST_ERR_NOMEM, "soak: out of memory");
    }
    bool ran = false;
    for (size_t m = 0; m < r->method_count && !res; m++) {
        ran = true;
        res = soak_method(d, r, engine, work, &r->methods[m], &b, err);
        if (res) {
            st_error_prefix(err, "soak %s", r->methods[m].name);
            snprintf(r->methods[m].error, sizeof r->methods[m].error, "%s", err->message);
        }
    }
    if (engine) r->validation_messages = st_engine_validation_messages(engine);
    r->peak_rss_bytes = st_eval_peak_rss_bytes();
    /* The level the caller owns was never touched; the engine goes before the copy it points at. */
    st_engine_destroy(engine);
    st_level_destroy(work);
    free(b.rgba_a);
    free(b.rgba_b);
    free(b.depth);
    free(b.dist_a);
    free(b.dist_b);
    free(b.cpu);
    free(b.rss);
    free(b.dev);
    if (ran) {
        char path[1200];
        snprintf(path, sizeof path, "%s/soak.json", r->out_dir);
        st_error werr = {0};
        st_result wr = write_json(r, path, res ? &werr : err);
        if (!res) res = wr;
    }
    if (res && !ran) {
        free(r);
        return res;
    }
    *out = r;
    return res;
}

void st_soak_result_free(st_soak_result *r) { free(r); }
