/* The terrain materials and the control map (no GPU): synthesis is deterministic, tiles seamlessly and its
 * mips average; the height blend's weights sum to 1 and favour the higher material; a control map round-trips
 * through save and load and refuses damaged files; a paint reports exactly the texels it changed; the rules put
 * rock on a steep slope, snow high and flat, sand beside water. */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

#include "strata/file.h"
#include "strata/image.h"
#include "strata/materials.h"
#include "support.h"

static double cpu_ms(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static st_material_set *synth(void) {
    st_material_set *s = NULL;
    st_error e = {0};
    st_job_threads(); /* the pool's start is not the synthesis's */
    double t0 = st_time_ms(), c0 = cpu_ms();
    assert_int_equal(st_material_set_synthesize(&s, &e), ST_OK);
    printf("synthesis of %u materials of %u² with mips: %.1f ms wall, %.1f ms CPU on %u threads\n", s->count, s->size,
           st_time_ms() - t0, cpu_ms() - c0, st_job_threads());
    return s;
}

static void test_synthesis_deterministic(void **state) {
    (void)state;
    st_material_set *a = synth(), *b = synth();
    assert_int_equal(a->count, ST_MAT_SYNTH_COUNT);
    assert_int_equal(a->mips, 9); /* 256 .. 1 */
    assert_memory_equal(a->albedo_height, b->albedo_height, a->layer_bytes * a->count);
    assert_memory_equal(a->normal, b->normal, a->layer_bytes * a->count);
    assert_int_equal(st_material_find(a, "rock"), ST_MAT_ROCK);
    assert_int_equal(st_material_find(a, "nope"), -1);
    st_material_set_destroy(a);
    st_material_set_destroy(b);
}

/* The mean absolute step of one channel between texel columns x and x + 1 (wrapping), down the whole tile. */
static double column_step(const uint8_t *a, uint32_t n, uint32_t x, int c) {
    double sum = 0;
    for (uint32_t y = 0; y < n; y++)
        sum += fabs((double)a[(y * n + x) * 4 + (uint32_t)c] - a[(y * n + (x + 1) % n) * 4 + (uint32_t)c]);
    return sum / n;
}
static double row_step(const uint8_t *a, uint32_t n, uint32_t y, int c) {
    double sum = 0;
    for (uint32_t x = 0; x < n; x++)
        sum += fabs((double)a[(y * n + x) * 4 + (uint32_t)c] - a[(((y + 1) % n) * n + x) * 4 + (uint32_t)c]);
    return sum / n;
}

/* Across the wrap (column n−1 to 0, row n−1 to 0) a tile steps no more than between any two of its own
 * neighbouring columns or rows: a seam would stand out above all of them. With STRATA_DUMP_MATERIALS=DIR the
 * layers are written there tiled 2×2 to look at. */
static void test_synthesis_tiles(void **state) {
    (void)state;
    st_material_set *s = synth();
    uint32_t n = s->size;
    const char *dump = getenv("STRATA_DUMP_MATERIALS");
    for (uint32_t l = 0; l < s->count; l++) {
        const uint8_t *a = s->albedo_height + l * s->layer_bytes;
        for (int c = 0; c < 4; c++) {
            double worst_col = 0, worst_row = 0;
            for (uint32_t x = 0; x + 1 < n; x++) {
                worst_col = fmax(worst_col, column_step(a, n, x, c));
                worst_row = fmax(worst_row, row_step(a, n, x, c));
            }
            double ec = column_step(a, n, n - 1, c), er = row_step(a, n, n - 1, c);
            if (ec > 1.1 * worst_col + 0.5 || er > 1.1 * worst_row + 0.5)
                fail_msg("%s channel %d: a seam at the wrap (steps %.2f, %.2f against at most %.2f, %.2f inside)",
                         s->names[l], c, ec, er, worst_col, worst_row);
        }
        if (dump) {
            uint8_t *img = malloc((size_t)3 * n * 2 * n * 3);
            for (uint32_t y = 0; y < 2 * n; y++)
                for (uint32_t x = 0; x < 2 * n; x++)
                    memcpy(img + ((size_t)y * 3 * n + x) * 3, a + ((size_t)(y % n) * n + x % n) * 4, 3);
            /* the third column: the normal map of one tile, its height below */
            for (uint32_t y = 0; y < n; y++)
                for (uint32_t x = 0; x < n; x++) {
                    const uint8_t *nm = s->normal + l * s->layer_bytes + ((size_t)y * n + x) * 4;
                    memcpy(img + ((size_t)y * 3 * n + 2 * n + x) * 3, nm, 3);
                    uint8_t h = a[((size_t)y * n + x) * 4 + 3];
                    uint8_t *o = img + ((size_t)(y + n) * 3 * n + 2 * n + x) * 3;
                    o[0] = o[1] = o[2] = h;
                }
            char path[1024];
            snprintf(path, sizeof path, "%s/%s.png", dump, s->names[l]);
            st_error e = {0};
            st_png_write(path, 3 * n, 2 * n, 3, 8, img, &e);
            free(img);
        }
        /* every material has relief and contrast: not a flat colour */
        double sum = 0, sq = 0;
        for (uint32_t i = 0; i < n * n; i++) {
            double h = a[i * 4 + 3];
            sum += h, sq += h * h;
        }
        double var = sq / (n * n) - (sum / (n * n)) * (sum / (n * n));
        if (var < 4.0) fail_msg("%s: its height barely varies (variance %.2f)", s->names[l], var);
        /* the last mip is the whole layer's average height (within rounding of each halving) */
        const uint8_t *top = a + st_material_mip_offset(s, s->mips - 1);
        assert_true(fabs(top[3] - sum / (n * n)) <= 6.0);
    }
    st_material_set_destroy(s);
}

static void test_height_blend(void **state) {
    (void)state;
    float w[2];
    for (int i = 0; i <= 20; i++)
        for (int j = 0; j <= 20; j++)
            for (int k = 0; k <= 10; k++) {
                st_material_height_blend((float)i / 20, (float)j / 20, (float)k / 10, w);
                assert_true(fabsf(w[0] + w[1] - 1.0f) < 1e-6f);
                assert_true(w[0] >= 0 && w[1] >= 0);
            }
    /* equal weights: the higher material wins outright when the heights differ by more than the band */
    st_material_height_blend(0.9f, 0.3f, 0.5f, w);
    assert_true(w[0] == 1.0f && w[1] == 0.0f);
    st_material_height_blend(0.2f, 0.7f, 0.5f, w);
    assert_true(w[1] == 1.0f && w[0] == 0.0f);
    /* close heights share the pixel, the higher taking more */
    st_material_height_blend(0.55f, 0.5f, 0.5f, w);
    assert_true(w[0] > w[1] && w[1] > 0.0f);
    /* no overlay: the base alone, whatever the heights */
    st_material_height_blend(0.0f, 1.0f, 0.0f, w);
    assert_true(w[0] >= w[1]);
}

static st_level *slope_level(void) {
    st_level *l = NULL;
    st_error e = {0};
    assert_int_equal(st_level_create(64, 64, &l, &e), ST_OK);
    l->wrap_x = l->wrap_y = false; /* a DEM: the rules */
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) {
            uint8_t h;
            if (x < 8) h = 0;                                     /* water (type 0 at height 0) */
            else if (x < 24) h = (uint8_t)(2 + (x - 8) / 8);       /* a beach, then gentle ground */
            else if (x < 40) h = (uint8_t)(10 + (x - 24) * 10);    /* a cliff: 10 per texel */
            else h = 240;                                         /* a high plateau */
            st_level_set_single(l, x, y, h, h == 0 ? 0 : 1);
        }
    return l;
}

static void test_control_rules(void **state) {
    (void)state;
    st_level *l = slope_level();
    st_control_map *m = NULL;
    st_error e = {0};
    assert_int_equal(st_control_map_create(64, 64, &m, &e), ST_OK);
    st_control_map_fill(m, l, (st_rect){0, 0, 64, 64}, ST_CONTROL_AUTO);
    const uint8_t *t;
#define AT(x, y) (m->texels + ((size_t)(y) * 64 + (x)) * 4)
    t = AT(32, 32);
    assert_int_equal(t[0], ST_MAT_ROCK);
    t = AT(56, 32);
    assert_int_equal(t[0], ST_MAT_SNOW);
    t = AT(9, 32);
    assert_int_equal(t[0], ST_MAT_SAND);
    t = AT(3, 32);
    assert_int_equal(t[0], ST_MAT_SILT);
    t = AT(20, 32);
    assert_true(t[0] == ST_MAT_GRASS || t[0] == ST_MAT_DIRT);
    assert_int_equal(t[3] & ST_CONTROL_TINT, 0);
    /* a wrapping level (a Vangers world or the generator): its types, tinted */
    l->wrap_x = l->wrap_y = true;
    st_control_map_fill(m, l, (st_rect){0, 0, 64, 64}, ST_CONTROL_AUTO);
    t = AT(56, 32);
    assert_int_equal(t[0], 1);
    assert_int_equal(t[3] & ST_CONTROL_TINT, ST_CONTROL_TINT);
#undef AT
    st_control_map_destroy(m);
    st_level_destroy(l);
}

static void test_control_save_load(void **state) {
    (void)state;
    const char *dir = test_temp_dir("control");
    char path[600];
    snprintf(path, sizeof path, "%s/world.ctl", dir);
    st_control_map *m = NULL, *back = NULL;
    st_error e = {0};
    assert_int_equal(st_control_map_create(128, 64, &m, &e), ST_OK);
    for (size_t i = 0; i < 128 * 64 * 4; i++) m->texels[i] = (uint8_t)((i * 2654435761u) >> 13);
    assert_int_equal(st_control_map_save(m, path, &e), ST_OK);
    assert_int_equal(st_control_map_load(path, &back, &e), ST_OK);
    assert_int_equal(back->width, 128);
    assert_int_equal(back->height, 64);
    assert_memory_equal(back->texels, m->texels, 128 * 64 * 4);
    st_control_map_destroy(back);
    /* damaged files: one flipped payload byte, a truncation, a wrong magic, a hostile size */
    uint8_t *data = NULL;
    size_t size = 0;
    assert_int_equal(st_file_read_all(path, 1 << 26, &data, &size, &e), ST_OK);
    char bad[620];
    snprintf(bad, sizeof bad, "%s/bad.ctl", dir);
    uint8_t *copy = malloc(size);
    memcpy(copy, data, size);
    copy[24 + (size - 24) / 2] ^= 0x40; /* a byte of the deflated texels */
    assert_int_equal(st_file_write_atomic(bad, copy, size, &e), ST_OK);
    assert_int_equal(st_control_map_load(bad, &back, &e), ST_ERR_FORMAT);
    assert_int_equal(st_file_write_atomic(bad, data, size - 9, &e), ST_OK);
    assert_int_equal(st_control_map_load(bad, &back, &e), ST_ERR_FORMAT);
    memcpy(copy, data, size);
    copy[0] = 'X';
    assert_int_equal(st_file_write_atomic(bad, copy, size, &e), ST_OK);
    assert_int_equal(st_control_map_load(bad, &back, &e), ST_ERR_FORMAT);
    memcpy(copy, data, size);
    copy[8] = 0xff, copy[9] = 0xff, copy[10] = 0xff, copy[11] = 0x7f; /* width 2³¹ − 1 */
    assert_int_equal(st_file_write_atomic(bad, copy, size, &e), ST_OK);
    assert_int_not_equal(st_control_map_load(bad, &back, &e), ST_OK);
    assert_null(back);
    free(copy);
    free(data);
    st_control_map_destroy(m);
}

/* A header claiming far more texels than its deflated bytes can hold is refused before the map is allocated (a
 * 40-byte file claiming 16384x16384 texels took a gigabyte). */
static void test_control_decode_claimed_size(void **state) {
    (void)state;
    st_control_map *m = NULL;
    st_error e = {0};
    uint8_t *file = NULL;
    size_t size = 0;
    assert_int_equal(st_control_map_create(16, 8, &m, &e), ST_OK);
    assert_int_equal(st_control_map_encode(m, &file, &size, &e), ST_OK);
    st_control_map_destroy(m);
    assert_true(size < 64);
    for (int b = 0; b < 4; b++) file[8 + b] = file[12 + b] = (uint8_t)(16384u >> (8 * b)); /* width, height */
    m = NULL;
    assert_int_equal(st_control_map_decode(file, size, "big.ctl", &m, &e), ST_ERR_FORMAT);
    assert_null(m);
    assert_non_null(strstr(e.message, "cannot come from"));
    free(file);
}

static void test_control_paint(void **state) {
    (void)state;
    st_control_map *m = NULL;
    st_error e = {0};
    assert_int_equal(st_control_map_create(64, 64, &m, &e), ST_OK);
    uint8_t *before = malloc(64 * 64 * 4);
    memcpy(before, m->texels, 64 * 64 * 4);
    st_rect dirty;
    st_control_map_paint(m, 20.0f, 30.0f, 5.0f, ST_MAT_SNOW, 1.0f, &dirty);
    assert_false(st_rect_empty(dirty));
    /* every changed texel lies in the rectangle, and each of its edges holds a changed texel */
    bool edge[4] = {false, false, false, false};
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            bool changed = memcmp(before + ((size_t)y * 64 + (size_t)x) * 4, m->texels + ((size_t)y * 64 + (size_t)x) * 4, 4);
            bool inside = x >= dirty.x0 && x < dirty.x1 && y >= dirty.y0 && y < dirty.y1;
            if (changed && !inside) fail_msg("texel (%d, %d) changed outside the dirty rectangle", x, y);
            if (changed) {
                edge[0] |= x == dirty.x0, edge[1] |= x == dirty.x1 - 1, edge[2] |= y == dirty.y0;
                edge[3] |= y == dirty.y1 - 1;
            }
        }
    assert_true(edge[0] && edge[1] && edge[2] && edge[3]);
    assert_true(dirty.x0 >= 15 && dirty.x1 <= 26 && dirty.y0 >= 25 && dirty.y1 <= 36);
    const uint8_t *c = m->texels + ((size_t)30 * 64 + 20) * 4;
    assert_int_equal(c[1], ST_MAT_SNOW);
    assert_int_equal(c[2], 255);
    /* undo: the rectangle as it was before the stroke, written back, restores the map */
    uint8_t *saved = malloc((size_t)(dirty.x1 - dirty.x0) * (size_t)(dirty.y1 - dirty.y0) * 4);
    st_control_map *fresh = NULL;
    assert_int_equal(st_control_map_create(64, 64, &fresh, &e), ST_OK);
    memcpy(fresh->texels, before, 64 * 64 * 4);
    st_control_map_read_rect(fresh, dirty, saved);
    st_control_map_write_rect(m, dirty, saved);
    assert_memory_equal(m->texels, before, 64 * 64 * 4);
    /* a stroke off the map, or with no strength, changes nothing */
    st_control_map_paint(m, -100.0f, -100.0f, 5.0f, ST_MAT_SNOW, 1.0f, &dirty);
    assert_true(st_rect_empty(dirty));
    st_control_map_paint(m, 20.0f, 30.0f, 5.0f, ST_MAT_SNOW, 0.0f, &dirty);
    assert_true(st_rect_empty(dirty));
    st_control_map_paint(m, NAN, 30.0f, 5.0f, ST_MAT_SNOW, 1.0f, &dirty);
    assert_true(st_rect_empty(dirty));
    free(saved);
    free(before);
    st_control_map_destroy(fresh);
    st_control_map_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthesis_deterministic), cmocka_unit_test(test_synthesis_tiles),
        cmocka_unit_test(test_height_blend),           cmocka_unit_test(test_control_rules),
        cmocka_unit_test(test_control_save_load),
        cmocka_unit_test(test_control_decode_claimed_size),      cmocka_unit_test(test_control_paint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
