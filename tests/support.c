/* Shared test helpers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include "strata/reference.h"

st_level *test_flat_level(uint32_t w, uint32_t h, uint8_t floor) {
    st_level *l = NULL;
    st_error err = {0};
    if (st_level_create(w, h, &l, &err) != ST_OK) fail_msg("level: %s", err.message);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) st_level_set_single(l, (int)x, (int)y, floor, 1);
    return l;
}

st_level *test_slab_level(void) {
    st_level *l = test_flat_level(256, 256, 10);
    for (int y = 96; y < 160; y++)
        for (int x = 96; x < 160; x += 2) st_level_set_dual(l, x, y, 10, 90, 100, 2, 3);
    return l;
}

st_level *test_slab_cave_level(void) {
    st_level *l = test_slab_level();
    for (int y = 0; y < 256; y++)
        for (int x = 160; x < 168; x++) st_level_set_single(l, x, y, 150, 5);
    return l;
}

st_level *test_random_level(uint32_t w, uint32_t h, unsigned seed) {
    st_level *l = test_flat_level(w, h, 0);
    srand(seed);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x += 2) {
            if (rand() % 3 == 0) {
                uint8_t low = (uint8_t)(rand() % 120), mid = (uint8_t)(low + 8 * (rand() % 16));
                uint8_t high = (uint8_t)(mid + rand() % 100);
                st_level_set_dual(l, (int)x, (int)y, low, mid, high, (uint8_t)(rand() % 8), (uint8_t)(rand() % 8));
            } else {
                st_level_set_single(l, (int)x, (int)y, (uint8_t)(rand() % 256), (uint8_t)(rand() % 8));
                st_level_set_single(l, (int)x + 1, (int)y, (uint8_t)(rand() % 256), (uint8_t)(rand() % 8));
            }
        }
    return l;
}

st_engine *test_engine(const st_level *level) {
    st_engine *e = NULL;
    st_engine_desc d = {.validate = true};
    assert_st_ok(st_engine_create(&d, &e, err));
    assert_st_ok(st_engine_set_level(e, level, err));
    return e;
}

void test_engine_finish(st_engine *engine, st_level *level) {
    assert_int_equal(st_engine_validation_messages(engine), 0);
    st_engine_destroy(engine);
    if (level) st_level_destroy(level);
}

st_renderer *test_renderer(st_engine *e, const char *method, uint32_t w, uint32_t h, const st_method_knobs *knobs) {
    st_renderer *r = NULL;
    st_render_desc d = {.method = method, .width = w, .height = h};
    if (knobs) d.knobs = *knobs;
    assert_st_ok(st_renderer_create(e, &d, &r, err));
    return r;
}

/* Draws one frame with `r` and reads back its reverse-Z depth, and the colour when rgba is given. */
static float *draw_frame(st_renderer *r, st_camera cam, uint32_t w, uint32_t h, uint8_t *rgba) {
    float *depth = malloc((size_t)w * h * sizeof *depth);
    assert_non_null(depth);
    assert_st_ok(st_renderer_draw(r, &cam, NULL, err));
    assert_st_ok(st_renderer_readback(r, rgba, depth, err));
    return depth;
}

float *test_draw_depth(st_renderer *r, st_camera cam, uint32_t w, uint32_t h) {
    return draw_frame(r, cam, w, h, NULL);
}

float test_draw_centre_distance(st_renderer *r, st_camera cam, uint32_t w, uint32_t h) {
    float *depth = test_draw_depth(r, cam, w, h);
    st_view v = st_camera_view(&cam, w, h);
    float d = st_view_distance_from_depth(&v, w / 2, h / 2, depth[(size_t)(h / 2) * w + w / 2]);
    free(depth);
    return d;
}

/* One frame of `method` on a renderer of its own: the reverse-Z depth, and the colour when rgba is given. */
static float *render_frame(st_engine *e, const char *method, st_camera cam, uint32_t w, uint32_t h,
                           const st_method_knobs *knobs, uint8_t *rgba) {
    st_renderer *r = test_renderer(e, method, w, h, knobs);
    float *depth = draw_frame(r, cam, w, h, rgba);
    st_renderer_destroy(r);
    return depth;
}

float *test_render_depth(st_engine *e, const char *method, st_camera cam, uint32_t w, uint32_t h,
                         const st_method_knobs *knobs) {
    return render_frame(e, method, cam, w, h, knobs, NULL);
}

float *test_render_distances(st_engine *e, const char *method, st_camera cam, uint32_t w, uint32_t h,
                             const st_method_knobs *knobs, uint8_t *rgba) {
    float *dist = render_frame(e, method, cam, w, h, knobs, rgba);
    st_view v = st_camera_view(&cam, w, h);
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) {
            float *d = &dist[(size_t)j * w + i];
            *d = st_view_distance_from_depth(&v, i, j, *d);
        }
    return dist;
}

float test_pixel_hit(const st_view *v, const float *depth, uint32_t i, uint32_t j, float hit[3]) {
    float dist = st_view_distance_from_depth(v, i, j, depth[(size_t)j * (uint32_t)v->width + i]);
    float dir[3];
    st_view_pixel_ray(v, i, j, dir, NULL, NULL);
    for (int k = 0; k < 3; k++) hit[k] = v->eye[k] + dir[k] * dist;
    return dist;
}

float test_centre_hit(st_engine *e, const char *method, st_camera cam, uint32_t w, uint32_t h,
                      const st_method_knobs *knobs, float hit[3]) {
    uint8_t *rgba = malloc((size_t)w * h * 4);
    assert_non_null(rgba);
    float *depth = render_frame(e, method, cam, w, h, knobs, rgba);
    st_view v = st_camera_view(&cam, w, h);
    float d = test_pixel_hit(&v, depth, w / 2, h / 2, hit);
    free(depth);
    free(rgba);
    return d;
}

float *test_reference_distances(const st_level *level, st_camera cam, uint32_t w, uint32_t h) {
    st_reference *ref = NULL;
    st_ref_image img;
    assert_st_ok(st_reference_create(level, &ref, err));
    assert_st_ok(st_ref_image_create(w, h, &img, err));
    assert_st_ok(st_reference_cast(ref, &cam, &img, err));
    float *d = malloc((size_t)w * h * sizeof *d);
    assert_non_null(d);
    memcpy(d, img.distance, (size_t)w * h * sizeof *d);
    st_ref_image_free(&img);
    st_reference_destroy(ref);
    return d;
}

st_camera test_crater_camera(void) {
    return (st_camera){.position = {128, 128, 200}, .yaw_deg = 0, .pitch_deg = -90};
}

void test_dig_crater(st_engine *e, st_renderer *r, uint32_t w, uint32_t h, st_level *level, float *before,
                     float *after) {
    st_camera cam = test_crater_camera();
    *before = test_draw_centre_distance(r, cam, w, h);
    if (level) {
        st_rect dirty;
        assert_st_ok(st_level_dig(level, 128, 128, 20, 60, &dirty, err));
        assert_st_ok(st_engine_update_level(e, dirty, err));
    }
    *after = test_draw_centre_distance(r, cam, w, h);
}

void test_expect_flat_floor(st_engine *e, const char *method, uint32_t w, uint32_t h, const st_method_knobs *knobs,
                            const char *label, float tol) {
    const char *name = label ? label : method;
    float hit[3];
    st_camera cam = {.position = {128, 128, 100}, .yaw_deg = 30, .pitch_deg = -90};
    float d = test_centre_hit(e, method, cam, w, h, knobs, hit);
    st_view v = st_camera_view(&cam, w, h);
    float dir[3];
    st_view_pixel_ray(&v, w / 2, h / 2, dir, NULL, NULL);
    float expected = (100.0f - 40.0f) / -dir[2];
    if (!(fabsf(d - expected) < tol)) fail_msg("%s: floor distance %.3f, expected %.3f", name, d, expected);
    /* looking above the horizon over a flat floor far below the far plane: nothing is drawn */
    st_camera up = {.position = {128, 128, 100}, .yaw_deg = 0, .pitch_deg = 10};
    d = test_centre_hit(e, method, up, w, h, knobs, hit);
    if (!isnan(d)) fail_msg("%s: an upward ray hit something at %.3f", name, d);
}

void test_expect_slab_cave(st_engine *e, const char *method, uint32_t w, uint32_t h, const st_method_knobs *knobs,
                           const char *label, float tol, float wall_tol) {
    const char *name = label ? label : method;
    float hit[3];
    /* into the opening at eye level: under the slab to the back wall at x = 160 */
    st_camera into = {.position = {60, 128, 40}, .yaw_deg = 90, .pitch_deg = 0};
    float d = test_centre_hit(e, method, into, w, h, knobs, hit);
    if (!(fabsf(hit[0] - 160.0f) < wall_tol)) fail_msg("%s: back wall hit at x=%.3f (d=%.3f)", name, hit[0], d);
    /* inside the cave looking up: the ceiling at mid = 90 */
    st_camera up = {.position = {128, 128, 50}, .yaw_deg = 0, .pitch_deg = 90};
    d = test_centre_hit(e, method, up, w, h, knobs, hit);
    if (!(fabsf(hit[2] - 90.0f) < tol)) fail_msg("%s: ceiling hit at z=%.3f (d=%.3f)", name, hit[2], d);
    /* from above: the slab top at high = 100 */
    st_camera down = {.position = {128, 128, 200}, .yaw_deg = 0, .pitch_deg = -90};
    d = test_centre_hit(e, method, down, w, h, knobs, hit);
    if (!(fabsf(hit[2] - 100.0f) < tol)) fail_msg("%s: slab top hit at z=%.3f (d=%.3f)", name, hit[2], d);
    /* inside the cave looking down: the cave floor at low = 10 */
    st_camera floor = {.position = {128, 128, 50}, .yaw_deg = 0, .pitch_deg = -90};
    d = test_centre_hit(e, method, floor, w, h, knobs, hit);
    if (!(fabsf(hit[2] - 10.0f) < tol)) fail_msg("%s: cave floor hit at z=%.3f (d=%.3f)", name, hit[2], d);
}

const char *test_temp_dir(const char *tag) {
    static char path[256];
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(path, sizeof path, "%s/strata-test-%s-XXXXXX", base, tag);
    if (!mkdtemp(path)) fail_msg("mkdtemp failed");
    return path;
}

cJSON *test_read_json(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) fail_msg("%s missing", path);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    assert_int_equal(fread(text, 1, (size_t)n, fp), (size_t)n);
    text[n] = 0;
    fclose(fp);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!doc) fail_msg("%s is not valid JSON", path);
    return doc;
}

const cJSON *test_json_field(const cJSON *o, const char *name) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!x) fail_msg("field '%s' missing", name);
    return x;
}

double test_json_number(const cJSON *o, const char *name) {
    const cJSON *x = test_json_field(o, name);
    if (!cJSON_IsNumber(x)) fail_msg("field '%s' is not a number", name);
    return x->valuedouble;
}

const char *test_json_string(const cJSON *o, const char *name) {
    const cJSON *x = test_json_field(o, name);
    if (!cJSON_IsString(x)) fail_msg("field '%s' is not a string", name);
    return x->valuestring;
}

float test_dem_reference_fill(const float *raw, uint32_t w, uint32_t h, uint32_t x, uint32_t y, int radius,
                              bool integral, float sea_raw, bool *sea) {
    for (int r = 1; r <= radius; r++) {
        bool found = false;
        for (int dy = -r; dy <= r && !found; dy++)
            for (int dx = -r; dx <= r && !found; dx++) {
                if (abs(dx) != r && abs(dy) != r) continue;
                int64_t xx = (int64_t)x + dx, yy = (int64_t)y + dy;
                if (xx >= 0 && yy >= 0 && xx < w && yy < h && !isnan(raw[yy * w + xx])) found = true;
            }
        if (!found) continue;
        double sw = 0, s = 0;
        int last = r < radius ? r + 1 : r;
        for (int dy = -last; dy <= last; dy++)
            for (int dx = -last; dx <= last; dx++) {
                int ring = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
                int64_t xx = (int64_t)x + dx, yy = (int64_t)y + dy;
                if (ring < r || xx < 0 || yy < 0 || xx >= w || yy >= h || isnan(raw[yy * w + xx])) continue;
                double wgt = 1.0 / (dx * dx + dy * dy);
                sw += wgt;
                s += wgt * raw[yy * w + xx];
            }
        *sea = false;
        double v = s / sw;
        return (float)(integral ? floor(v + 0.5) : v);
    }
    *sea = true;
    return sea_raw;
}
