/* The paper's remaining measurements: the tuning rule on made-up sweeps and the tuning file round trip (no GPU);
 * the image agreement test at its thresholds; the edit protocol inside `strata compare` on a small world with
 * ray and ray-compute (consistent on the first frame, the edit visible, the JSON fields present); bad digs
 * rejected before anything is drawn; a 20-frame soak with validation on; a huge renderer that works or fails
 * cleanly. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/eval.h"
#include "strata/gen.h"
#include "strata/image.h"
#include "strata/render.h"
#include "support.h"

/* ---- tuning rule ------------------------------------------------------------------------------------------- */

static void test_tune_rule(void **state) {
    (void)state;
    /* best 2.8 at 8 ms; 3.5 at 2 ms is within one point and cheaper; 10 at 1 ms is not */
    double ms1[] = {1, 2, 4, 8}, e1[] = {10, 3.5, 3.0, 2.8};
    assert_int_equal(st_tune_choose(ms1, e1, 4, 1.0), 1);
    /* non-monotonic error (the slicer's kind): 1.6 is 1.1 above the best 0.5 */
    double ms2[] = {1, 2, 3}, e2[] = {5, 0.5, 1.6};
    assert_int_equal(st_tune_choose(ms2, e2, 3, 1.0), 1);
    /* exactly one point above the best still counts */
    double ms3[] = {1, 2}, e3[] = {1.5, 0.5};
    assert_int_equal(st_tune_choose(ms3, e3, 2, 1.0), 0);
    /* equal cost: the smaller error */
    double ms4[] = {3, 3, 5}, e4[] = {2.0, 1.2, 1.0};
    assert_int_equal(st_tune_choose(ms4, e4, 3, 1.0), 1);
    /* rows without a number are ignored; nothing left is SIZE_MAX */
    double ms5[] = {NAN, 4, 2}, e5[] = {0.0, 1.0, NAN};
    assert_int_equal(st_tune_choose(ms5, e5, 3, 1.0), 1);
    assert_int_equal(st_tune_choose(ms5, e5, 0, 1.0), SIZE_MAX);
    /* the knobs the methods declare */
    const st_method_knob *k = st_method_quality_knob("ray");
    assert_non_null(k);
    assert_string_equal(k->name, "ray_steps");
    assert_int_equal(k->sweep_count, 5);
    assert_true(k->sweep[0] == 16 && k->sweep[4] == 256);
    const st_method_knob *kc = st_method_quality_knob("ray-compute"); /* the variants share one: field and sweep */
    assert_non_null(kc);
    assert_string_equal(kc->name, k->name);
    assert_int_equal(kc->offset, k->offset);
    assert_int_equal(kc->sweep_count, k->sweep_count);
    assert_null(st_method_quality_knob("paint"));
    assert_null(st_method_quality_knob("no-such-method"));
    st_method_knobs kn = {0};
    const st_method_knob *q = st_knob_find("mesh_quality");
    assert_non_null(q);
    assert_true(q->cost_falls);
    assert_true(st_knob_get(&kn, q) == 0.5); /* 0 in the field: the default */
    st_knob_set(&kn, q, 0);
    assert_true(kn.mesh_quality < 0); /* q = 0 itself, not "the default" */
    assert_true(st_knob_get(&kn, q) == 0);
    st_knob_set(&kn, k, 63.6);
    assert_int_equal(kn.ray_steps, 64);
    assert_true(st_knob_get(&kn, st_method_quality_knob("scatter")) == 2);
    assert_true(st_knob_get(&kn, st_method_quality_knob("scatter-plain")) == 4);
    assert_non_null(st_knob_find("voxel_grid")); /* set, not swept */
    assert_int_equal(st_knob_find("voxel_grid")->sweep_count, 0);
    assert_null(st_knob_find("no_such_knob"));
    /* every swept knob has its sweep within the tuning table's room, and a HUD label */
    for (size_t i = 0; i < st_method_count(); i++) {
        const st_method_info *m = st_method_at(i);
        for (size_t j = 0; j < m->knob_count; j++) {
            assert_true(m->knobs[j].sweep_count <= ST_TUNE_MAX_SETTINGS);
            assert_non_null(m->knobs[j].label);
            assert_true(m->knobs[j].min <= m->knobs[j].default_value && m->knobs[j].default_value <= m->knobs[j].max);
        }
    }
}

static void test_tuning_file(void **state) {
    (void)state;
    st_tune_result *r = calloc(1, sizeof *r);
    snprintf(r->adapter, sizeof r->adapter, "test");
    r->method_count = 2;
    snprintf(r->methods[0].name, 32, "ray");
    snprintf(r->methods[0].knob, 32, "ray_steps");
    r->methods[0].count = 3;
    double ms[] = {1, 2, 4}, err_pts[] = {9, 2.5, 2.0};
    for (int j = 0; j < 3; j++) {
        r->methods[0].settings[j] = (st_tune_setting){.value = 32 << j, .ms = ms[j], .error = err_pts[j]};
    }
    r->methods[0].chosen = st_tune_choose(ms, err_pts, 3, ST_TUNE_TOLERANCE);
    assert_int_equal(r->methods[0].chosen, 1);
    r->methods[0].settings[1].chosen = true;
    snprintf(r->methods[1].name, 32, "paint");
    r->methods[1].count = 1;
    r->methods[1].chosen = 0;
    const char *dir = test_temp_dir("tuning");
    char path[600];
    snprintf(path, sizeof path, "%s/tuning.json", dir);
    assert_st_ok(st_tune_write_json(r, path, err));
    snprintf(path, sizeof path, "%s/tuning.md", dir);
    assert_st_ok(st_tune_write_markdown(r, path, err));
    snprintf(path, sizeof path, "%s/tuning.svg", dir);
    assert_st_ok(st_tune_write_svg(r, path, err));
    snprintf(path, sizeof path, "%s/tuning.json", dir);
    st_tuning t;
    assert_st_ok(st_tuning_read(path, &t, err));
    assert_int_equal(t.count, 2);
    const st_tuning_choice *c = NULL;
    st_method_knobs k = st_tuning_knobs(&t, "ray", &c);
    assert_int_equal(k.ray_steps, 64);
    assert_non_null(c);
    k = st_tuning_knobs(&t, "paint", &c);
    assert_non_null(c);
    assert_string_equal(c->knob, "");
    k = st_tuning_knobs(&t, "voxel", &c);
    assert_null(c);
    assert_int_equal(k.voxel_steps, 0);
    /* a results.json is not a tuning file */
    FILE *fp = fopen(path, "w");
    fputs("{\"schema\": \"strata-compare\", \"methods\": []}", fp);
    fclose(fp);
    st_error e = {0};
    assert_int_equal(st_tuning_read(path, &t, &e), ST_ERR_FORMAT);
    free(r);
}

/* ---- image agreement ----------------------------------------------------------------------------------------- */

static void test_image_diff(void **state) {
    (void)state;
    enum { W = 100, H = 100, N = W * H };
    float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float));
    uint8_t *ca = calloc(N, 4), *cb = calloc(N, 4);
    for (int i = 0; i < N; i++) a[i] = b[i] = 10.0f + (float)(i % 7);
    st_image_diff d;
    assert_st_ok(st_image_diff_compute(a, ca, b, cb, W, H, &d, err));
    assert_true(d.consistent && d.mismatch_pct == 0 && d.depth_p95 == 0 && d.color_mae == 0);
    b[5] = NAN; /* one pixel of 10 000 = 0.01 %: still consistent */
    assert_st_ok(st_image_diff_compute(a, ca, b, cb, W, H, &d, err));
    assert_float_equal(d.mismatch_pct, 0.01, 1e-9);
    assert_true(d.consistent);
    a[6] = NAN; /* two: not */
    assert_st_ok(st_image_diff_compute(a, ca, b, cb, W, H, &d, err));
    assert_false(d.consistent);
    a[6] = b[6];
    /* depth: 6 % of the pixels 0.5 off → p95 above 0.1 */
    for (int i = 100; i < 100 + N * 6 / 100; i++) b[i] += 0.5f;
    assert_st_ok(st_image_diff_compute(a, ca, b, cb, W, H, &d, err));
    assert_true(d.depth_p95 > 0.1 && !d.consistent);
    cb[0] = 255; /* one channel of one pixel: 255 / 3 / N levels */
    assert_st_ok(st_image_diff_compute(a, ca, b, cb, W, H, &d, err));
    assert_float_equal(d.color_mae, 255.0 / 3.0 / N, 1e-9);
    free(a);
    free(b);
    free(ca);
    free(cb);
}

/* ---- the edit protocol ---------------------------------------------------------------------------------------- */

static st_level *small_world(void) {
    st_gen_desc gd = {.width = 512, .height = 512};
    st_level *level = NULL;
    assert_st_ok(st_gen_world(&gd, &level, err));
    return level;
}

static uint8_t *read_png(const char *dir, const char *name, uint32_t *w, uint32_t *h) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int ch, bd;
    void *px = NULL;
    assert_st_ok(st_png_read(path, w, h, &ch, &bd, &px, err));
    assert_int_equal(ch, 4);
    return px;
}

/* A crater centre whose floor the timing camera sees over open ground, on ground high enough for the dig to
 * change it: the line from the eye to a point just above the surface crosses no solid texel. */
static st_edit_desc visible_dig(const st_level *level) {
    for (int y = 64; y < (int)level->height - 64; y += 16)
        for (int x = 64; x < (int)level->width - 64; x += 16) {
            st_edit_desc d = {.centre_given = true, .cx = x, .cy = y};
            st_texel t = st_level_texel(level, x, y);
            if (t.dual || t.high < 40) continue;
            st_viewpoint vp = st_edit_viewpoint(level, &d);
            st_camera cam = st_viewpoint_camera(level, &vp);
            float target[3] = {(float)x + 0.5f, (float)y + 0.5f, (float)t.high + 1.5f};
            bool clear = true;
            for (int k = 1; k < 400 && clear; k++) {
                float f = (float)k / 400.0f, p[3];
                for (int c = 0; c < 3; c++) p[c] = cam.position[c] + f * (target[c] - cam.position[c]);
                clear = !st_level_solid(level, p[0], p[1], p[2]);
            }
            if (clear) return d;
        }
    fail_msg("no visible crater site on the test world");
    return (st_edit_desc){0};
}

static void test_edit_protocol(void **state) {
    (void)state;
    st_level *level = small_world();
    st_edit_desc site = visible_dig(level);
    site.repeats = 2;
    site.steady_frames = 2;
    st_viewpoint all[ST_MAX_VIEWS];
    size_t n_all = 0;
    assert_st_ok(st_views_default(level, all, ST_MAX_VIEWS, &n_all, err));
    const char *methods[] = {"ray", "ray-compute"};
    const char *dir = test_temp_dir("edits");
    st_compare_desc d = {.run.level = level, .run.world_name = "gen 512", .run.methods = methods,
                         .run.method_count = 2, .run.views = all, .run.view_count = 1, .run.width = 160,
                         .run.height = 100, .run.frames = 1, .run.warmup = 1, .quick = true, .run.out_dir = dir,
                         .run.cache_dir = "", .run.device_index = -1, .run.validate = true, .edits = true,
                         .edit = site};
    st_compare_result *r = NULL;
    assert_st_ok(st_compare_run(&d, &r, err));
    assert_int_equal(r->validation_messages, 0);
    assert_true(r->shadows);
    assert_int_equal(r->edit_cx, site.cx);
    assert_int_equal(r->edit_cy, site.cy);
    printf("  crater at (%d, %d)\n", site.cx, site.cy);
    for (size_t m = 0; m < 2; m++) {
        const st_edit_row *e = &r->edit_rows[m];
        printf("  %-12s first %.1f ms (update %.2f), steady %.1f ms, consistent after %u, hit/miss %.4f %%, "
               "p95 %.3f, MAE %.2f\n", e->method, e->first_cpu_median, e->update_cpu_median, e->steady_cpu_ms,
               e->consistent_after, e->final.mismatch_pct, e->final.depth_p95, e->final.color_mae);
        assert_int_equal(e->consistent_after, 1); /* a direct reader matches on the first updated frame */
        /* the close camera sees the crater fill a real share of its frame, far more than the timing camera */
        printf("  %-12s changed: timing camera %.2f %%, close camera %.2f %% (consistent %d)\n", e->method,
               e->changed_pct, e->close_changed_pct, e->close.consistent);
        assert_true(e->changed_pct > 0);
        assert_true(e->close_changed_pct > 10.0 && e->close_changed_pct > 3 * e->changed_pct);
        assert_true(e->close.consistent);
        assert_int_equal(e->update, ST_UPDATE_DIRECT);
        assert_int_equal(e->repeats, 2);
        assert_true(e->first_cpu_median > 0 && e->steady_cpu_ms > 0);
        /* the crater is in view: the first post-edit frame differs from the last frame before it */
        char name[128];
        uint32_t w, h, w2, h2;
        snprintf(name, sizeof name, "edit-%s-before.png", e->method);
        uint8_t *before = read_png(r->out_dir, name, &w, &h);
        snprintf(name, sizeof name, "edit-%s-after.png", e->method);
        uint8_t *after = read_png(r->out_dir, name, &w2, &h2);
        assert_true(w == 160 && h == 100 && w2 == 160 && h2 == 100);
        double mae = st_eval_color_mae(before, after, w, h, NULL);
        printf("  %-12s before/after colour MAE %.2f\n", e->method, mae);
        assert_true(mae > 0.5);
        free(before);
        free(after);
    }
    assert_int_equal(st_method_update_class("voxel"), ST_UPDATE_REBUILD);
    assert_int_equal(st_method_update_class("mesh"), ST_UPDATE_REFIT);

    char path[1400];
    snprintf(path, sizeof path, "%s/results.json", r->out_dir);
    cJSON *doc = test_read_json(path);
    const cJSON *pr = test_json_field(doc, "protocol");
    assert_true(cJSON_IsTrue(test_json_field(pr, "shadows")));
    const cJSON *mem = test_json_field(doc, "memory");
    assert_true(test_json_number(mem, "peak_rss_bytes") > 0);
    test_json_field(mem, "device_budget_bytes");
    test_json_field(mem, "device_usage_bytes");
    const cJSON *ep = test_json_field(doc, "edit_protocol");
    assert_int_equal((int)test_json_number(ep, "radius"), 48);
    assert_int_equal((int)test_json_number(ep, "depth"), 90);
    assert_int_equal(cJSON_GetArraySize(test_json_field(ep, "tested_frame_counts")), 5);
    assert_int_equal((int)test_json_number(ep, "timing_repeats"), 2);
    const cJSON *view = test_json_field(ep, "view");
    assert_float_equal(test_json_number(view, "y"), fmod(site.cy + 158, 512), 1e-6);
    assert_float_equal(test_json_number(view, "yaw"), 180, 1e-6);
    assert_float_equal(test_json_number(view, "pitch"), -30, 1e-6);
    const cJSON *rows = test_json_field(doc, "edit_rows");
    assert_int_equal(cJSON_GetArraySize(rows), 2);
    const cJSON *row;
    cJSON_ArrayForEach(row, rows) {
        static const char *nums[] = {"steady_edited_cpu_ms", "first_post_edit_cpu_ms", "edit_overhead_cpu_ms",
                                     "first_post_edit_cpu_p25_ms", "first_post_edit_cpu_p75_ms", "update_cpu_ms",
                                     "class_mismatch_pct", "depth_p50", "depth_p95", "color_mae_8bit",
                                     "method_gpu_bytes", "method_cpu_bytes"};
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) test_json_number(row, nums[k]);
        test_json_field(row, "steady_edited_gpu_ms");
        test_json_field(row, "first_post_edit_gpu_ms");
        assert_int_equal((int)test_json_number(row, "consistent_after_frames"), 1);
        assert_true(cJSON_IsTrue(test_json_field(row, "consistent")));
        assert_int_equal(cJSON_GetArraySize(test_json_field(row, "first_post_edit_cpu_samples")), 2);
        assert_int_equal(cJSON_GetArraySize(test_json_field(row, "checks")), 1); /* consistent at the first count */
        assert_string_equal(test_json_field(row, "update_class")->valuestring, "direct reader");
        assert_true(test_json_number(row, "changed_pct") > 0);
        const cJSON *close = test_json_field(row, "close");
        assert_true(test_json_number(close, "changed_pct") > 10.0);
        assert_true(cJSON_IsTrue(test_json_field(close, "consistent")));
        /* the first post-edit frame carries the edit's terrain rows as a pass of their own; a steady frame not */
        const cJSON *first = test_json_field(row, "first_post_edit_passes"), *pass;
        bool upload = false, shadow = false;
        cJSON_ArrayForEach(pass, first) {
            upload |= !strcmp(test_json_string(pass, "name"), "upload");
            shadow |= !strcmp(test_json_string(pass, "name"), "shadow");
        }
        assert_true(upload && shadow);
        cJSON_ArrayForEach(pass, test_json_field(row, "steady_edited_passes"))
            assert_string_not_equal(test_json_string(pass, "name"), "upload");
    }
    const cJSON *mo;
    cJSON_ArrayForEach(mo, test_json_field(doc, "methods")) {
        test_json_field(mo, "shadow_ms");
        test_json_field(mo, "device_usage_delta_bytes");
    }
    cJSON_ArrayForEach(mo, test_json_field(doc, "rows")) test_json_field(mo, "shadow_gpu_ms");
    cJSON_Delete(doc);
    /* the Markdown carries the paper's edit table */
    snprintf(path, sizeof path, "%s/results.md", r->out_dir);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char buf[1 << 16];
    size_t got = fread(buf, 1, sizeof buf - 1, fp);
    buf[got] = 0;
    fclose(fp);
    assert_non_null(strstr(buf, "| method | update | CPU0 | CPU1 | ΔC | GPU0 | GPU1 | ΔG | match |"));
    assert_non_null(strstr(buf, "of which shadow"));
    assert_non_null(strstr(buf, "## GPU time per pass"));
    assert_non_null(strstr(buf, "GPU time per pass of the first post-edit frame"));
    assert_non_null(strstr(buf, "## Memory"));
    st_compare_result_free(r);
    st_level_destroy(level);
}

/* Bad digs are refused before anything is drawn and the level is left as it was. */
static void test_bad_dig_rejected(void **state) {
    (void)state;
    st_level *level = test_flat_level(256, 256, 40);
    st_level *work = NULL;
    assert_st_ok(st_level_clone(level, &work, err));
    struct {
        st_edit_desc d;
    } bad[] = {
        {{.centre_given = true, .cx = 256, .cy = 10}},
        {{.centre_given = true, .cx = -1, .cy = 10}},
        {{.radius = 5000}},
        {{.radius = -3}},
        {{.depth = 300}},
        {{.repeats = ST_EDIT_MAX_REPEATS + 1}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        st_error e = {0};
        assert_int_equal(st_edit_check(level, &bad[i].d, &e), ST_ERR_INVALID);
        assert_true(strlen(e.message) > 0);
        st_edit_row row;
        /* no engine needed: the check comes first */
        assert_int_equal(st_edit_measure(NULL, level, work, "ray", &bad[i].d, &row, &e), ST_ERR_INVALID);
    }
    assert_memory_equal(work->heights, level->heights, 256 * 256);
    /* the default crater is the paper's: the level centre, radius 48, depth 90 */
    int cx, cy;
    st_edit_centre(level, &(st_edit_desc){0}, &cx, &cy);
    assert_true(cx == 128 && cy == 128);
    st_viewpoint vp = st_edit_viewpoint(level, &(st_edit_desc){0});
    assert_float_equal(vp.y, 30, 1e-6); /* 128 + 158, wrapped on the 256-texel map */
    st_edit_desc ok = {.centre_given = true, .cx = 0, .cy = 255, .radius = 8, .depth = 10};
    assert_st_ok(st_edit_check(level, &ok, err));
    st_level_destroy(work);
    st_level_destroy(level);
}

/* ---- soak and faults ------------------------------------------------------------------------------------------ */

static void test_soak(void **state) {
    (void)state;
    st_level *level = small_world();
    uint32_t crc_before = 0;
    for (size_t i = 0; i < 512 * 512; i++) crc_before = crc_before * 31u + level->heights[i];
    const char *dir = test_temp_dir("soak");
    st_soak_desc d = {.level = level, .frames = 20, .check_every = 10, .width = 160, .height = 100,
                      .out_dir = dir, .device_index = -1, .validate = true};
    st_soak_result *r = NULL;
    assert_st_ok(st_soak_run(&d, &r, err));
    assert_int_equal(r->method_count, 1);
    const st_soak_method *m = &r->methods[0];
    printf("  soak %s: %u frames, %u checks, %u inconsistent, worst hit/miss %.4f %%, RSS %+.1f MiB\n", m->name,
           m->frames, m->checks, m->inconsistent, m->worst_mismatch_pct, (m->rss_last - m->rss_first) / 1048576.0);
    assert_string_equal(m->name, "ray");
    assert_int_equal(m->frames, 20);
    assert_int_equal(m->checks, 2);
    assert_int_equal(m->inconsistent, 0);
    assert_int_equal(m->validation_messages, 0);
    assert_int_equal(r->validation_messages, 0);
    assert_true(m->rss_first > 0);
    char path[1400];
    snprintf(path, sizeof path, "%s/soak.json", r->out_dir);
    cJSON *doc = test_read_json(path);
    assert_int_equal((int)test_json_number(doc, "frames"), 20);
    const cJSON *row = cJSON_GetArrayItem(test_json_field(doc, "methods"), 0);
    assert_int_equal((int)test_json_number(row, "inconsistent"), 0);
    test_json_number(row, "rss_growth_bytes");
    test_json_field(row, "device_usage_growth_bytes");
    cJSON_Delete(doc);
    st_soak_result_free(r);
    /* the caller's level is never edited */
    uint32_t crc_after = 0;
    for (size_t i = 0; i < 512 * 512; i++) crc_after = crc_after * 31u + level->heights[i];
    assert_int_equal(crc_before, crc_after);
    st_level_destroy(level);
}

/* A 16384² renderer either works or fails with an st_error — never a validation message or a crash. */
static void test_huge_renderer(void **state) {
    (void)state;
    st_engine_desc ed = {.device_index = -1, .validate = true};
    st_engine *engine = NULL;
    assert_st_ok(st_engine_create(&ed, &engine, err));
    st_level *level = test_flat_level(256, 256, 40);
    assert_st_ok(st_engine_set_level(engine, level, err));
    st_render_desc rd = {.method = "ray", .width = 16384, .height = 16384};
    st_renderer *rn = NULL;
    st_error e = {0};
    st_result res = st_renderer_create(engine, &rd, &rn, &e);
    printf("  16384x16384 renderer: %s%s\n", res ? "failed: " : "created", res ? e.message : "");
    if (res) {
        assert_null(rn);
        assert_true(strlen(e.message) > 0);
    } else {
        st_renderer_destroy(rn);
    }
    uint64_t budget = 0, usage = 0;
    res = st_engine_memory_budget(engine, &budget, &usage, &e);
    assert_true(res == ST_OK || res == ST_ERR_UNSUPPORTED);
    if (!res) assert_true(budget > 0);
    assert_int_equal(st_engine_validation_messages(engine), 0);
    st_engine_destroy(engine);
    st_level_destroy(level);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tune_rule),     cmocka_unit_test(test_tuning_file),
        cmocka_unit_test(test_image_diff),    cmocka_unit_test(test_bad_dig_rejected),
        cmocka_unit_test(test_edit_protocol), cmocka_unit_test(test_soak),
        cmocka_unit_test(test_huge_renderer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
