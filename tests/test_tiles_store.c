/* The tile store: the tile file round trip (every encoding, raw and zstd) and its refusal of damaged files; a DEM
 * store built from an analytic source (exact samples, δ monotone and bounding the true error, bounds holding the
 * finest data, shared tile edges), resumed after an interruption, built in shards; layer stores; generated stores
 * (the DEM, and the multi-layer world: its tiles the generated level's bytes, built to disk and resumed, bad
 * spellings refused); amplification keeping its source's samples; reading over HTTP from a loopback server; damaged
 * stores. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strata/gen.h"
#include "strata/tiles.h"
#include "strata/vangers.h"
#include "eval/paged_reference.h"
#include "support.h"
#include "tiles/tiles_internal.h"

/* ---- an analytic source: heights on a 0.25 m grid, with cliffs, so bilinear errors are real ------------- */

typedef struct analytic {
    uint64_t w, h;
} analytic;

static float analytic_height(uint64_t x, uint64_t y) {
    double v = 120.0 + 80.0 * sin((double)x * 0.031) * cos((double)y * 0.017) + 25.0 * sin((double)(x + 2 * y) * 0.23);
    if ((x / 37 + y / 53) % 5 == 0) v += 40.0; /* terraces with vertical steps */
    return (float)(nearbyint(v * 4.0) / 4.0);
}

static st_result analytic_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err) {
    (void)err;
    const analytic *a = state;
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++) {
            int64_t x = x0 + i, y = y0 + j;
            x = x < 0 ? 0 : x >= (int64_t)a->w ? (int64_t)a->w - 1 : x;
            y = y < 0 ? 0 : y >= (int64_t)a->h ? (int64_t)a->h - 1 : y;
            out[(size_t)j * w + i] = analytic_height((uint64_t)x, (uint64_t)y);
        }
    return ST_OK;
}

static st_dem_source *analytic_source(uint64_t w, uint64_t h) {
    analytic *a = malloc(sizeof *a);
    a->w = w;
    a->h = h;
    st_dem_info info = {.width = w, .height = h, .spacing_x_m = 2, .spacing_y_m = 3, .unit_m = 0.25,
                        .min_m = -10, .max_m = 300};
    snprintf(info.description, sizeof info.description, "analytic %llux%llu", (unsigned long long)w,
             (unsigned long long)h);
    static const st_dem_source_ops ops = {.read = analytic_read, .destroy = free};
    st_dem_source *s = NULL;
    assert_st_ok(st_dem_source_create(&ops, a, &info, &s, err));
    return s;
}

/* ---- tiles ------------------------------------------------------------------------------------------------ */

static st_tile *sample_tile(st_tile_encoding enc, uint32_t n, unsigned seed) {
    st_tile *t = NULL;
    st_tile_kind kind = enc == ST_TILE_PAIRS ? ST_TILE_LAYERS : ST_TILE_DEM;
    assert_st_ok(st_tile_create(kind, enc, n, &t, err));
    t->key = (st_tile_key){3, 17, 5};
    srand(seed);
    if (enc == ST_TILE_U16) {
        uint16_t *v = t->data;
        for (size_t i = 0; i < (size_t)n * n; i++) v[i] = (uint16_t)(30000 + 100 * sin((double)i * 0.01) + rand() % 7);
        t->scale = 0.1;
        t->offset = -5;
    } else if (enc == ST_TILE_F32) {
        float *v = t->data;
        for (size_t i = 0; i < (size_t)n * n; i++) v[i] = (float)(rand() % 100000) * 0.013f - 300.0f;
    } else {
        uint8_t *v = t->data;
        for (size_t i = 0; i < t->data_bytes; i++) v[i] = (uint8_t)rand();
    }
    t->min_m = -1;
    t->max_m = 2;
    t->delta_m = 0.5f;
    return t;
}

static void test_tile_round_trip(void **state) {
    (void)state;
    const st_tile_encoding encs[3] = {ST_TILE_U16, ST_TILE_F32, ST_TILE_PAIRS};
    const uint32_t sizes[3] = {65, 257, 64};
    for (int e = 0; e < 3; e++)
        for (int c = 0; c < 2; c++) {
            st_tile *t = sample_tile(encs[e], e == 2 ? sizes[2] : sizes[e], 7u + (unsigned)e);
            uint8_t *data = NULL;
            size_t size = 0;
            assert_st_ok(st_tile_encode(t, c ? ST_TILE_ZSTD : ST_TILE_RAW, &data, &size, err));
            st_tile *back = NULL;
            assert_st_ok(st_tile_decode(data, size, "t", &t->key, &back, err));
            assert_int_equal(back->size, t->size);
            assert_int_equal(back->encoding, t->encoding);
            assert_memory_equal(back->data, t->data, t->data_bytes);
            assert_true(back->scale == t->scale && back->offset == t->offset);
            assert_true(back->min_m == t->min_m && back->max_m == t->max_m && back->delta_m == t->delta_m);
            st_tile_destroy(back);
            /* every truncation is refused; a single-bit flip is refused or (inside zstd's own redundancy) decodes to
             * exactly the tile written: it is never misread */
            st_error er = {0};
            for (size_t cut = 0; cut < size; cut += (size > 4000 ? 97 : 1))
                assert_int_not_equal(st_tile_decode(data, cut, "t", NULL, &back, &er), ST_OK);
            for (size_t bit = 0; bit < size * 8; bit += (size > 4000 ? 331 : 7)) {
                data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                st_result r = st_tile_decode(data, size, "t", NULL, &back, &er);
                if (r == ST_OK) {
                    if (c == 0 || memcmp(back->data, t->data, t->data_bytes))
                        fail_msg("encoding %d, compression %d: bit %zu flipped and the tile decoded", e, c, bit);
                    st_tile_destroy(back);
                }
                data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            }
            st_tile_key other = {3, 17, 6};
            assert_int_equal(st_tile_decode(data, size, "t", &other, &back, &er), ST_ERR_FORMAT);
            assert_non_null(strstr(er.message, "not 3/17/6"));
            free(data);
            st_tile_destroy(t);
        }
}

/* ---- building and reading a DEM store ------------------------------------------------------------------------ */

static st_store *build_and_open(st_dem_source *src, const char *dir, uint32_t tile, st_store_build_stats *stats) {
    st_store_build_desc d = {.tile_size = tile};
    assert_st_ok(st_store_build_dem(src, dir, &d, stats, err));
    st_store *s = NULL;
    assert_st_ok(st_store_open(dir, &s, err));
    return s;
}

/* Bilinear value of a tile's surface at fractional sample coordinates. */
static double tile_bilinear(const st_tile *t, double u, double v) {
    uint32_t n = t->size;
    uint32_t i = (uint32_t)u, j = (uint32_t)v;
    if (i >= n - 1) i = n - 2;
    if (j >= n - 1) j = n - 2;
    double fu = u - i, fv = v - j;
    double a = st_tile_height(t, i, j), b = st_tile_height(t, i + 1, j);
    double c = st_tile_height(t, i, j + 1), d = st_tile_height(t, i + 1, j + 1);
    return (a * (1 - fu) + b * fu) * (1 - fv) + (c * (1 - fu) + d * fu) * fv;
}

/* Checks every tile of a store against finest data f(x, y): level 0 exact, δ ≥ the true error, min/max hold the
 * finest samples of the footprint, a parent's δ ≥ its children's, shared edges equal. */
static void check_dem_store(st_store *s, float (*f)(uint64_t, uint64_t), bool built) {
    const st_store_info *in = st_store_get_info(s);
    uint32_t span = in->tile_size - 1;
    for (uint32_t l = 0; l < in->levels; l++) {
        uint32_t nx, ny;
        st_store_level_tiles(s, l, &nx, &ny);
        for (uint32_t ty = 0; ty < ny; ty++)
            for (uint32_t tx = 0; tx < nx; tx++) {
                st_tile_key k = {l, tx, ty};
                st_tile *t = NULL;
                assert_st_ok(st_store_read_tile(s, k, &t, err));
                st_tile_meta m;
                assert_true(st_store_tile_meta(s, k, &m));
                assert_true(m.delta_m == t->delta_m);
                if (l + 1 < in->levels) {
                    st_tile_meta pm;
                    assert_true(st_store_tile_meta(s, st_tile_key_parent(k), &pm));
                    assert_true(pm.delta_m >= m.delta_m);
                    if (built) assert_true(pm.min_m <= m.min_m && pm.max_m >= m.max_m); /* the union of its children */
                }
                uint64_t stride = 1ull << l, x0 = (uint64_t)tx * span * stride, y0 = (uint64_t)ty * span * stride;
                double worst = 0;
                for (uint64_t y = y0; y <= y0 + span * stride && y < in->height; y++)
                    for (uint64_t x = x0; x <= x0 + span * stride && x < in->width; x++) {
                        double truth = f(x, y);
                        assert_true(truth >= t->min_m - 1e-3 && truth <= t->max_m + 1e-3);
                        double e = fabs(tile_bilinear(t, (double)(x - x0) / stride, (double)(y - y0) / stride) - truth);
                        worst = e > worst ? e : worst;
                        if (l == 0 && built) assert_true(st_tile_height(t, (uint32_t)(x - x0), (uint32_t)(y - y0)) == (float)truth);
                    }
                if (worst > t->delta_m + 1e-3)
                    fail_msg("tile %u/%u/%u: true error %.4f above its delta %.4f", l, tx, ty, worst, t->delta_m);
                /* the right neighbour shares this tile's last column */
                if (tx + 1 < nx) {
                    st_tile *r = NULL;
                    assert_st_ok(st_store_read_tile(s, (st_tile_key){l, tx + 1, ty}, &r, err));
                    for (uint32_t j = 0; j < t->size; j++)
                        assert_true(st_tile_height(t, span, j) == st_tile_height(r, 0, j));
                    st_tile_destroy(r);
                }
                st_tile_destroy(t);
            }
    }
}

static void test_dem_store(void **state) {
    (void)state;
    const char *dir = test_temp_dir("store");
    st_dem_source *src = analytic_source(300, 211); /* ragged: neither side a multiple of the tile */
    st_store_build_stats st;
    st_store *s = build_and_open(src, dir, 65, &st);
    const st_store_info *in = st_store_get_info(s);
    assert_int_equal(in->encoding, ST_TILE_U16); /* a 0.25 m grid: exact in 16 bits */
    assert_true(in->scale == 0.25);
    assert_int_equal(in->levels, 4);            /* 5x4 tiles, 3x2, 2x1, 1 */
    assert_int_equal(in->tiles, 20 + 6 + 2 + 1);
    assert_int_equal(st.tiles_written, 29);
    assert_int_equal(st.samples, 300u * 211u);
    assert_true(st.complete);
    assert_true(in->spacing_x_m == 2 && in->spacing_y_m == 3);
    check_dem_store(s, analytic_height, true);
    /* outside the store: an error, never a crash */
    st_tile *t = NULL;
    st_error e = {0};
    assert_int_equal(st_store_read_tile(s, (st_tile_key){0, 1000000, 1000000}, &t, &e), ST_ERR_INVALID);
    assert_false(st_store_tile_meta(s, (st_tile_key){9, 0, 0}, &(st_tile_meta){0}));
    st_store_close(s);
    st_dem_source_destroy(src);
}

static void file_crc_of(const char *dir, const char *rel, uint32_t *crc) {
    uint8_t *d = NULL;
    size_t n = 0;
    assert_st_ok(st_fetch(dir, rel, 1u << 26, &d, &n, err));
    *crc = st_crc32(d, n);
    free(d);
}

static void test_resume_and_shards(void **state) {
    (void)state;
    char *a = strdup(test_temp_dir("full")), *b = strdup(test_temp_dir("resume")), *c = strdup(test_temp_dir("shards"));
    st_dem_source *src = analytic_source(520, 390);
    st_store_build_desc d = {.tile_size = 33};
    st_store_build_stats st;
    assert_st_ok(st_store_build_dem(src, a, &d, &st, err));
    uint64_t all = st.tiles_written;
    /* an interrupted build: some tiles and the manifest missing, a stale temporary of a dead process */
    assert_st_ok(st_store_build_dem(src, b, &d, &st, err));
    char p[1200];
    snprintf(p, sizeof p, "%s/store.json", b);
    unlink(p);
    snprintf(p, sizeof p, "%s/tiles/0/3/4.tile", b);
    unlink(p);
    snprintf(p, sizeof p, "%s/tiles/1/1/1.tile", b);
    unlink(p);
    snprintf(p, sizeof p, "%s/tiles/0/0/0.tile.tmp999999", b);
    FILE *fp = fopen(p, "w");
    fputs("half", fp);
    fclose(fp);
    st_store *s = NULL;
    st_error e = {0};
    assert_int_equal(st_store_open(b, &s, &e), ST_ERR_IO);
    assert_non_null(strstr(e.message, "not a tile store"));
    assert_st_ok(st_store_build_dem(src, b, &d, &st, err));
    assert_true(st.tiles_written <= 3 && st.tiles_kept > 0 && st.tiles_written + st.tiles_kept <= all);
    assert_int_equal(access(p, F_OK), -1); /* the stale temporary is gone */
    /* shards: three runs into one folder; only the last completes the store */
    for (uint32_t i = 0; i < 3; i++) {
        st_store_build_desc ds = d;
        ds.shard_index = (i + 1) % 3; /* any order */
        ds.shard_count = 3;
        assert_st_ok(st_store_build_dem(src, c, &ds, &st, err));
        assert_true(st.complete == (i == 2));
    }
    /* all three stores are byte-identical */
    const char *rels[] = {"store.json", "index/0.idx", "index/1.idx", "index/4.idx", "tiles/0/3/4.tile"};
    for (size_t i = 0; i < sizeof rels / sizeof rels[0]; i++) {
        uint32_t x, y, z;
        file_crc_of(a, rels[i], &x);
        file_crc_of(b, rels[i], &y);
        file_crc_of(c, rels[i], &z);
        if (x != y || x != z) fail_msg("%s differs between the full, resumed and sharded builds", rels[i]);
    }
    assert_st_ok(st_store_open(c, &s, err));
    check_dem_store(s, analytic_height, true);
    st_store_close(s);
    st_dem_source_destroy(src);
    free(a);
    free(b);
    free(c);
}

/* ---- damaged stores ------------------------------------------------------------------------------------------ */

static void write_file(const char *dir, const char *rel, const void *data, size_t n) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    if (n) assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
}

static void test_damaged_store(void **state) {
    (void)state;
    const char *dir = test_temp_dir("damaged");
    st_dem_source *src = analytic_source(100, 100);
    st_store *s = build_and_open(src, dir, 33, NULL);
    st_store_close(s);
    uint8_t *tile = NULL, *manifest = NULL, *index = NULL;
    size_t tn = 0, mn = 0, in = 0;
    assert_st_ok(st_fetch(dir, "tiles/0/1/2.tile", 1u << 20, &tile, &tn, err));
    assert_st_ok(st_fetch(dir, "store.json", 1u << 20, &manifest, &mn, err));
    assert_st_ok(st_fetch(dir, "index/0.idx", 1u << 20, &index, &in, err));
    st_error e = {0};
    st_tile *t = NULL;
    /* a truncated tile */
    write_file(dir, "tiles/0/1/2.tile", tile, tn - 5);
    assert_st_ok(st_store_open(dir, &s, err));
    assert_int_equal(st_store_read_tile(s, (st_tile_key){0, 2, 1}, &t, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "2.tile"));
    /* a flipped byte: the CRC (the index's and the tile's own) refuses it */
    tile[tn / 2] ^= 0x40;
    write_file(dir, "tiles/0/1/2.tile", tile, tn);
    assert_int_not_equal(st_store_read_tile(s, (st_tile_key){0, 2, 1}, &t, &e), ST_OK);
    tile[tn / 2] ^= 0x40;
    /* a tile from another place in the store */
    uint8_t *other = NULL;
    size_t on = 0;
    assert_st_ok(st_fetch(dir, "tiles/0/1/1.tile", 1u << 20, &other, &on, err));
    write_file(dir, "tiles/0/1/2.tile", other, on);
    assert_int_equal(st_store_read_tile(s, (st_tile_key){0, 2, 1}, &t, &e), ST_ERR_FORMAT);
    free(other);
    write_file(dir, "tiles/0/1/2.tile", tile, tn);
    assert_st_ok(st_store_read_tile(s, (st_tile_key){0, 2, 1}, &t, err));
    st_tile_destroy(t);
    /* a named pipe in place of a tile is refused at once, not waited on */
    char p[1200];
    snprintf(p, sizeof p, "%s/tiles/0/1/2.tile", dir);
    unlink(p);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(st_store_read_tile(s, (st_tile_key){0, 2, 1}, &t, &e), ST_ERR_IO);
    assert_non_null(strstr(e.message, "not a regular file"));
    unlink(p);
    write_file(dir, "tiles/0/1/2.tile", tile, tn);
    st_store_close(s);
    /* a wrong version, a manifest that is not JSON, an index of another size, an index record past the file */
    char *text = malloc(mn + 1);
    memcpy(text, manifest, mn);
    text[mn] = 0;
    char *v = strstr(text, "\"version\":");
    assert_non_null(v);
    v[11] = '7';
    write_file(dir, "store.json", text, mn);
    assert_int_equal(st_store_open(dir, &s, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "version"));
    write_file(dir, "store.json", "{", 1);
    assert_int_equal(st_store_open(dir, &s, &e), ST_ERR_FORMAT);
    write_file(dir, "store.json", manifest, mn);
    write_file(dir, "index/0.idx", index, in - 20);
    assert_int_equal(st_store_open(dir, &s, &e), ST_ERR_FORMAT);
    index[ST_INDEX_HEADER_BYTES + 16] ^= 1; /* the first record's size */
    write_file(dir, "index/0.idx", index, in);
    assert_int_equal(st_store_open(dir, &s, &e), ST_ERR_FORMAT); /* the index's own CRC */
    free(text);
    free(tile);
    free(manifest);
    free(index);
    st_dem_source_destroy(src);
}

/* ---- layer stores ------------------------------------------------------------------------------------------- */

static void test_layer_store(void **state) {
    (void)state;
    const char *dir = test_temp_dir("layers");
    st_level *l = test_random_level(512, 256, 3);
    l->palette[7] = (st_rgb8){1, 2, 3};
    l->end_color[2] = 77;
    snprintf(l->name, sizeof l->name, "random");
    l->wrap_x = false; /* the rest of the level comes back too: wrap flags, sections and flood levels */
    l->wrap_y = true;
    l->section_power = 5;
    free(l->flood);
    l->flood = malloc(256 >> 5);
    for (uint32_t i = 0; i < (256 >> 5); i++) l->flood[i] = (uint8_t)(40 + 7 * i);
    st_store_build_desc d = {.tile_size = 128};
    st_store_build_stats st;
    assert_st_ok(st_store_build_level(l, dir, &d, &st, err));
    assert_int_equal(st.tiles_written, 8);
    st_store *s = NULL;
    assert_st_ok(st_store_open(dir, &s, err));
    const st_store_info *in = st_store_get_info(s);
    assert_int_equal(in->kind, ST_TILE_LAYERS);
    assert_int_equal(in->levels, 1);
    st_level *back = NULL;
    assert_st_ok(st_store_read_level(s, &back, err));
    assert_int_equal(back->width, 512);
    assert_memory_equal(back->heights, l->heights, 512 * 256);
    assert_memory_equal(back->meta, l->meta, 512 * 256);
    assert_memory_equal(back->palette, l->palette, sizeof l->palette);
    assert_int_equal(back->end_color[2], 77);
    assert_string_equal(back->name, "random");
    assert_false(back->wrap_x);
    assert_true(back->wrap_y);
    assert_int_equal(back->section_power, 5);
    assert_memory_equal(back->flood, l->flood, 256 >> 5);
    st_tile_meta m;
    assert_true(st_store_tile_meta(s, (st_tile_key){0, 3, 1}, &m));
    assert_true(m.min_m >= 0 && m.max_m <= 255 && m.min_m <= m.max_m);
    st_level_destroy(back);
    st_store_close(s);
    st_level_destroy(l);
    /* a flood table that is no hex, or of the wrong length, is a damaged manifest */
    uint8_t *manifest = NULL;
    size_t mn = 0;
    assert_st_ok(st_fetch(dir, "store.json", 1u << 20, &manifest, &mn, err));
    char *text = calloc(mn + 1, 1);
    memcpy(text, manifest, mn);
    char *fl = strstr(text, "\"flood\"");
    assert_non_null(fl);
    char *hex = strchr(fl + 7, '"') + 1;
    hex[0] = 'z';
    write_file(dir, "store.json", text, mn);
    st_error e = {0};
    assert_int_equal(st_store_open(dir, &s, &e), ST_ERR_FORMAT);
    hex[0] = '2'; /* valid JSON, one hex digit where two a section are due */
    char *close = strchr(hex, '"');
    hex[1] = '"';
    for (char *c = hex + 2; c <= close; c++) *c = ' ';
    write_file(dir, "store.json", text, mn);
    assert_int_equal(st_store_open(dir, &s, &e), ST_ERR_FORMAT);
    free(text);
    free(manifest);
}

/* ---- generated stores and amplification --------------------------------------------------------------------- */

static st_dem_source *gen_for_truth;
static float gen_truth(uint64_t x, uint64_t y) {
    float v;
    st_error e;
    if (st_dem_source_read(gen_for_truth, (int64_t)x, (int64_t)y, 1, 1, &v, &e)) return NAN;
    return v;
}

static void test_generated_store(void **state) {
    (void)state;
    st_store *s = NULL;
    assert_st_ok(st_store_open("gen:5:1025x769:30", &s, err));
    const st_store_info *in = st_store_get_info(s);
    assert_true(in->generated);
    assert_int_equal(in->levels, 3); /* 4x3 tiles, 2x2, 1 */
    assert_true(in->spacing_x_m == 30);
    st_dem_gen_desc gd = {.seed = 5, .width = 1025, .height = 769, .spacing_m = 30};
    assert_st_ok(st_dem_generator(&gd, &gen_for_truth, err));
    check_dem_store(s, gen_truth, false);
    /* deterministic: the same tile twice, and from a second store */
    st_store *s2 = NULL;
    assert_st_ok(st_store_open("gen:5:1025x769:30", &s2, err));
    st_tile *a = NULL, *b = NULL;
    assert_st_ok(st_store_read_tile(s, (st_tile_key){1, 1, 0}, &a, err));
    assert_st_ok(st_store_read_tile(s2, (st_tile_key){1, 1, 0}, &b, err));
    assert_memory_equal(a->data, b->data, a->data_bytes);
    st_tile_destroy(a);
    st_tile_destroy(b);
    /* a big world costs nothing until a tile is asked for */
    st_store *big = NULL;
    assert_st_ok(st_store_open("gen:1:65536x65536", &big, err));
    assert_int_equal(st_store_get_info(big)->levels, 9);
    assert_st_ok(st_store_read_tile(big, (st_tile_key){8, 0, 0}, &a, err));
    st_tile_destroy(a);
    st_store_close(big);
    st_error e = {0};
    assert_int_equal(st_store_open("gen:1:0x5", &big, &e), ST_ERR_INVALID);
    assert_int_equal(st_store_open("gen:1:100x100:nope", &big, &e), ST_ERR_INVALID);
    assert_int_equal(st_store_open("gen:1:99999999999x5", &big, &e), ST_ERR_INVALID);
    st_store_close(s2);
    st_store_close(s);
    st_dem_source_destroy(gen_for_truth);
}

/* The procedural multi-layer world as a store: its tiles pack the bytes st_gen_world makes, with their bounds learnt;
 * a copy on disk holds the same and a re-run keeps every tile; a 65,536² world costs nothing until asked. */
static void test_generated_layer_store(void **state) {
    (void)state;
    st_gen_desc gd = {.seed = 9, .width = 512, .height = 1024, .dual_percent = 15.0f};
    st_level *whole = NULL;
    assert_st_ok(st_gen_world(&gd, &whole, err));
    st_store *s = NULL;
    assert_st_ok(st_store_open("gen:multi:9:512x1024:15", &s, err));
    const st_store_info *in = st_store_get_info(s);
    assert_int_equal(in->kind, ST_TILE_LAYERS);
    assert_int_equal(in->encoding, ST_TILE_PAIRS);
    assert_true(in->generated);
    assert_int_equal(in->levels, 1);
    assert_int_equal(in->tile_size, 256);
    assert_int_equal(in->tiles, 8);
    assert_int_equal(in->bytes, 0);
    assert_int_equal(in->width, 512);
    assert_string_equal(in->name, whole->name);
    assert_memory_equal(in->palette, whole->palette, sizeof in->palette);
    st_tile_meta m;
    assert_true(st_store_tile_meta(s, (st_tile_key){0, 1, 2}, &m));
    assert_true(m.min_m == 0 && m.max_m == 255); /* the bound before the tile is made */
    st_level *back = NULL;
    assert_st_ok(st_store_read_level(s, &back, err));
    assert_memory_equal(back->heights, whole->heights, 512 * 1024);
    assert_memory_equal(back->meta, whole->meta, 512 * 1024);
    assert_true(back->wrap_x == whole->wrap_x && back->wrap_y == whole->wrap_y);
    assert_int_equal(back->section_power, whole->section_power);
    assert_true(st_store_tile_meta(s, (st_tile_key){0, 1, 2}, &m));
    float lo = 255, hi = 0;
    for (uint32_t y = 512; y < 768; y++)
        for (uint32_t x = 256; x < 512; x++) {
            st_texel t = st_level_texel(whole, (int)x, (int)y);
            lo = fminf(lo, t.low);
            hi = fmaxf(hi, t.high);
        }
    assert_true(m.min_m == lo && m.max_m == hi); /* learnt from the tile */
    st_tile *t = NULL;
    st_error e = {0};
    assert_int_equal(st_store_read_tile(s, (st_tile_key){0, 2, 0}, &t, &e), ST_ERR_INVALID);
    assert_int_equal(st_store_read_tile(s, (st_tile_key){1, 0, 0}, &t, &e), ST_ERR_INVALID);
    assert_null(t);
    /* on disk, then again: every tile kept */
    const char *dir = test_temp_dir("genlayers");
    st_store_build_stats st;
    assert_st_ok(st_store_build_layers(s, dir, NULL, &st, err));
    assert_int_equal(st.tiles_written, 8);
    assert_true(st.complete);
    assert_st_ok(st_store_build_layers(s, dir, NULL, &st, err));
    assert_int_equal(st.tiles_written, 0);
    assert_int_equal(st.tiles_kept, 8);
    assert_int_equal(st_store_build_layers(s, dir, &(st_store_build_desc){.tile_size = 128}, &st, &e), ST_ERR_INVALID);
    st_store *disk = NULL;
    assert_st_ok(st_store_open(dir, &disk, err));
    assert_false(st_store_get_info(disk)->generated);
    st_level_destroy(back);
    assert_st_ok(st_store_read_level(disk, &back, err));
    assert_memory_equal(back->heights, whole->heights, 512 * 1024);
    assert_memory_equal(back->meta, whole->meta, 512 * 1024);
    assert_string_equal(back->name, whole->name);
    st_store_close(disk);
    st_level_destroy(back);
    st_store_close(s);
    st_level_destroy(whole);
    /* a world larger than memory: nothing happens until a tile is asked for, then only that tile */
    assert_st_ok(st_store_open("gen:multi:2:65536x65536", &s, err));
    assert_int_equal(st_store_get_info(s)->tiles, 65536);
    assert_st_ok(st_store_read_tile(s, (st_tile_key){0, 255, 255}, &t, err));
    assert_int_equal(t->kind, ST_TILE_LAYERS);
    assert_true(t->min_m <= t->max_m && t->max_m <= 250);
    st_tile_destroy(t);
    assert_int_equal(st_store_read_tile(s, (st_tile_key){0, 256, 0}, &t, &e), ST_ERR_INVALID);
    st_store_close(s);
    const char *bad[] = {"gen:multi:0:256x256", "gen:multi:1:300x256", "gen:multi:1:0x0", "gen:multi:1:4194304x256",
                         "gen:multi:1:256x256:50", "gen:multi:1:256x256 ", "gen:multi:junk", "gen:multi:"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = NULL;
        assert_int_equal(st_store_open(bad[i], &s, &e), ST_ERR_INVALID);
        assert_null(s);
    }
}

static void test_amplify_keeps_source(void **state) {
    (void)state;
    st_dem_source *amp = NULL;
    st_dem_amplify_desc ad = {.factor = 8, .seed = 3};
    assert_st_ok(st_dem_amplify(analytic_source(40, 30), &ad, &amp, err));
    const st_dem_info *in = st_dem_source_info(amp);
    assert_int_equal(in->width, 39 * 8 + 1);
    assert_int_equal(in->height, 29 * 8 + 1);
    assert_true(in->spacing_x_m == 0.25 && in->unit_m == 0.25);
    float *v = malloc(sizeof(float) * in->width * in->height);
    assert_st_ok(st_dem_source_read(amp, 0, 0, (uint32_t)in->width, (uint32_t)in->height, v, err));
    size_t differ = 0;
    for (uint64_t y = 0; y < in->height; y++)
        for (uint64_t x = 0; x < in->width; x++) {
            float h = v[y * in->width + x];
            assert_true(h >= in->min_m && h <= in->max_m);
            assert_true(fmodf(h * 4.0f, 1.0f) == 0.0f); /* on the source's 0.25 m grid */
            if (x % 8 == 0 && y % 8 == 0) assert_true(h == analytic_height(x / 8, y / 8));
            else differ += h != analytic_height(x / 8, y / 8);
        }
    assert_true(differ > in->width * in->height / 2); /* detail really was added */
    /* a window read alone equals the same samples read in the whole */
    float w[15 * 9];
    assert_st_ok(st_dem_source_read(amp, 101, 37, 15, 9, w, err));
    for (int j = 0; j < 9; j++)
        for (int i = 0; i < 15; i++) assert_true(w[j * 15 + i] == v[(size_t)(37 + j) * in->width + 101 + (size_t)i]);
    free(v);
    st_dem_source_destroy(amp);
}

/* ---- HTTP ------------------------------------------------------------------------------------------------------- */

/* Starts `python3 -m http.server` on a free loopback port serving dir; returns its PID and port. */
static pid_t start_http(const char *dir, int *port) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        if (chdir(dir)) _exit(127);
        execlp("python3", "python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *fp = fdopen(fds[0], "r");
    char line[512];
    *port = 0;
    while (fgets(line, sizeof line, fp)) {
        const char *p = strstr(line, " port ");
        if (p) {
            *port = atoi(p + 6);
            break;
        }
    }
    if (!*port) fail_msg("python3 -m http.server did not start (python3 is installed by scripts/setup.sh)");
    /* keep draining its log so it never blocks on a full pipe */
    if (fork() == 0) {
        while (fgets(line, sizeof line, fp)) {
        }
        _exit(0);
    }
    fclose(fp);
    return pid;
}

static void test_http_store(void **state) {
    (void)state;
    const char *dir = test_temp_dir("http");
    char store[1200];
    snprintf(store, sizeof store, "%s/store", dir);
    st_dem_source *src = analytic_source(200, 150);
    st_store *disk = build_and_open(src, store, 65, NULL);
    int port = 0;
    pid_t pid = start_http(dir, &port);
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/store", port);
    st_store *net = NULL;
    assert_st_ok(st_store_open(url, &net, err));
    assert_int_equal(st_store_get_info(net)->tiles, st_store_get_info(disk)->tiles);
    uint32_t nx, ny;
    st_store_level_tiles(net, 0, &nx, &ny);
    for (uint32_t y = 0; y < ny; y++)
        for (uint32_t x = 0; x < nx; x++) {
            st_tile *a = NULL, *b = NULL;
            assert_st_ok(st_store_read_tile(disk, (st_tile_key){0, x, y}, &a, err));
            assert_st_ok(st_store_read_tile(net, (st_tile_key){0, x, y}, &b, err));
            assert_memory_equal(a->data, b->data, a->data_bytes);
            st_tile_destroy(a);
            st_tile_destroy(b);
        }
    /* a tile the server does not have: a clear error */
    char p[1300];
    snprintf(p, sizeof p, "%s/tiles/0/1/1.tile", store);
    unlink(p);
    st_tile *t = NULL;
    st_error e = {0};
    assert_int_equal(st_store_read_tile(net, (st_tile_key){0, 1, 1}, &t, &e), ST_ERR_IO);
    assert_non_null(strstr(e.message, "404"));
    st_store *none = NULL;
    snprintf(url, sizeof url, "http://127.0.0.1:%d/nothing", port);
    assert_int_equal(st_store_open(url, &none, &e), ST_ERR_IO);
    assert_non_null(strstr(e.message, "not a tile store"));
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    st_store_close(net);
    st_store_close(disk);
    st_dem_source_destroy(src);
}

/* The CPU's reads of a layer store (st_layer_pages): windows anywhere on a wrapping generated world — across its
 * edges, at negative coordinates, larger than a page — hold exactly the texels of the world made whole, and point
 * reads decode as st_level_texel does; a bounded world refuses a window past its edge and reads nothing there. */
static void test_layer_pages(void **state) {
    (void)state;
    const char *spec = "gen:multi:7:512x256";
    st_gen_desc gd;
    assert_st_ok(st_gen_parse(spec, &gd, err));
    st_level *whole = NULL;
    assert_st_ok(st_gen_world(&gd, &whole, err));
    st_store *s = NULL;
    assert_st_ok(st_store_open(spec, &s, err));
    st_layer_pages *p = NULL;
    assert_st_ok(st_layer_pages_create(s, 3, &p, err));
    const int64_t at[][2] = {{0, 0}, {-6, -130}, {500, 250}, {130, 7}, {-1024, 512}};
    const uint32_t size[][2] = {{64, 32}, {16, 256}, {32, 16}, {512, 256}, {2, 2}};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        st_level *w = NULL;
        assert_st_ok(st_layer_pages_window(p, at[k][0], at[k][1], size[k][0], size[k][1], &w, err));
        assert_false(w->wrap_x || w->wrap_y);
        assert_int_equal(w->terrain_types, whole->terrain_types);
        assert_memory_equal(w->palette, whole->palette, sizeof w->palette);
        for (uint32_t j = 0; j < w->height; j++)
            for (uint32_t i = 0; i < w->width; i++) {
                uint32_t x = (uint32_t)((at[k][0] + i) & (whole->width - 1)),
                         y = (uint32_t)((at[k][1] + j) & (whole->height - 1));
                if (st_level_height_row(w, j)[i] != st_level_height_row(whole, y)[x] ||
                    st_level_meta_row(w, j)[i] != st_level_meta_row(whole, y)[x])
                    fail_msg("window %zu: texel (%u, %u) is not the world's (%u, %u)", k, i, j, x, y);
            }
        st_level_destroy(w);
    }
    uint64_t rng = 99;
    for (int n = 0; n < 4000; n++) { /* point reads over more pages than the cache holds */
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        int64_t x = (int64_t)(rng >> 40) % 2048 - 1024, y = (int64_t)(rng >> 20 & 0xFFFFF) % 1024 - 512;
        st_texel t, want = st_level_texel(whole, (int)(x & 511), (int)(y & 255));
        assert_st_ok(st_layer_pages_texel(p, x, y, &t, err));
        if (memcmp(&t, &want, sizeof t)) fail_msg("texel (%lld, %lld) decodes apart from the level's", (long long)x, (long long)y);
    }
    st_level *w = NULL;
    st_error e2 = {0};
    assert_int_equal(st_layer_pages_window(p, 1, 0, 4, 4, &w, &e2), ST_ERR_INVALID); /* an odd x splits a pair */
    assert_int_equal(st_layer_pages_window(p, 0, 0, 6, 4, &w, &e2), ST_ERR_INVALID);
    assert_null(w);
    st_layer_pages_destroy(p);
    st_store_close(s);

    /* a bounded world: a layer store of a level that does not wrap */
    whole->wrap_x = whole->wrap_y = false;
    const char *dir = test_temp_dir("layer-pages");
    st_store_build_desc bd = {.tile_size = 64};
    st_store_build_stats bs;
    assert_st_ok(st_store_build_level(whole, dir, &bd, &bs, err));
    assert_st_ok(st_store_open(dir, &s, err));
    assert_st_ok(st_layer_pages_create(s, 0, &p, err));
    assert_int_equal(st_layer_pages_window(p, -2, 0, 4, 4, &w, &e2), ST_ERR_INVALID);
    assert_int_equal(st_layer_pages_window(p, 0, 254, 4, 4, &w, &e2), ST_ERR_INVALID);
    st_texel t;
    assert_st_ok(st_layer_pages_texel(p, 512, 3, &t, err));
    assert_true(t.outside);
    assert_st_ok(st_layer_pages_texel(p, 511, 255, &t, err));
    st_texel want = st_level_texel(whole, 511, 255);
    assert_memory_equal(&t, &want, sizeof t);
    st_layer_pages_destroy(p);
    st_store_close(s);
    st_level_destroy(whole);
}

/* The coarser levels of a layer store (st_store_open_coarse): every tile of two levels up equals the same texels
 * of st_level_coarsen applied to the whole world twice (the coarsening is local to each 2×2 block of texels, so
 * tile by tile it is the whole level's), and the index learns the tiles' bounds. */
static void test_coarse_store(void **state) {
    (void)state;
    const char *spec = "gen:multi:4:1024x1024";
    st_gen_desc gd;
    assert_st_ok(st_gen_parse(spec, &gd, err));
    st_level *whole = NULL, *c1 = NULL, *c2 = NULL;
    assert_st_ok(st_gen_world(&gd, &whole, err));
    assert_st_ok(st_level_coarsen(whole, &c1, err));
    assert_st_ok(st_level_coarsen(c1, &c2, err));
    st_store *s = NULL, *s1 = NULL, *s2 = NULL, *s3 = NULL;
    assert_st_ok(st_store_open(spec, &s, err));
    assert_st_ok(st_store_open_coarse(s, &s1, err));
    assert_st_ok(st_store_open_coarse(s1, &s2, err));
    const st_store_info *in = st_store_get_info(s2);
    assert_int_equal(in->width, 256);
    assert_int_equal(in->height, 256);
    assert_true(in->wrap_x && in->wrap_y && in->generated);
    st_error e2 = {0};
    assert_int_equal(st_store_open_coarse(s2, &s3, &e2), ST_ERR_INVALID); /* 256² in 256² tiles: none coarser */
    st_level *levels[2] = {c1, c2};
    st_store *stores[2] = {s1, s2};
    for (int k = 0; k < 2; k++) {
        uint32_t nx, ny;
        st_store_level_tiles(stores[k], 0, &nx, &ny);
        uint32_t n = st_store_get_info(stores[k])->tile_size;
        uint8_t *want = malloc((size_t)n * n * 2);
        assert_non_null(want);
        for (uint32_t ty = 0; ty < ny; ty++)
            for (uint32_t tx = 0; tx < nx; tx++) {
                st_tile *t = NULL;
                assert_st_ok(st_store_read_tile(stores[k], (st_tile_key){0, tx, ty}, &t, err));
                size_t bytes = st_level_pack_pairs(levels[k], (st_rect){(int32_t)(tx * n), (int32_t)(ty * n),
                                                                        (int32_t)((tx + 1) * n), (int32_t)((ty + 1) * n)},
                                                   want);
                assert_int_equal(bytes, t->data_bytes);
                if (memcmp(t->data, want, bytes)) fail_msg("coarse level %d, tile %u,%u differs from st_level_coarsen", k + 1, tx, ty);
                st_tile_meta m;
                assert_true(st_store_tile_meta(stores[k], (st_tile_key){0, tx, ty}, &m));
                assert_true(m.min_m == t->min_m && m.max_m == t->max_m);
                st_tile_destroy(t);
            }
        free(want);
    }
    st_store_close(s2);
    st_store_close(s1);
    st_store_close(s);
    st_level_destroy(c2);
    st_level_destroy(c1);
    st_level_destroy(whole);
}

/* The reference of a view cast on its window of a generated world (read through the pages, the camera moved by
 * the window's offset) against the reference cast on the whole level: near views whose windows are a part of the
 * world (one across its wrapping corner), and a far one whose window is the whole world along an axis. */
static void test_paged_reference_windows(void **state) {
    (void)state;
    const char *spec = "gen:multi:5:4096x1024";
    st_gen_desc gd;
    assert_st_ok(st_gen_parse(spec, &gd, err));
    st_level *level = NULL;
    assert_st_ok(st_gen_world(&gd, &level, err));
    st_store *s = NULL;
    assert_st_ok(st_store_open(spec, &s, err));
    st_layer_pages *pages = NULL;
    assert_st_ok(st_layer_pages_create(s, 0, &pages, err));
    st_reference *whole = NULL;
    assert_st_ok(st_reference_create(level, &whole, err));
    enum { W = 48, H = 30 };
    const struct {
        float x, y, z, yaw, pitch, far;
    } views[] = {{700, 300, 120, 40, -20, 200}, {10, 1015, 90, 225, -5, 180}, {1500, 600, 200, 90, -3, 1400}};
    st_ref_image a, b;
    assert_st_ok(st_ref_image_create(W, H, &a, err));
    assert_st_ok(st_ref_image_create(W, H, &b, err));
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
        st_camera c = {.position = {views[v].x, views[v].y, views[v].z}, .yaw_deg = views[v].yaw,
                       .pitch_deg = views[v].pitch, .fovy_deg = 60, .near_dist = 0.5f, .far_dist = views[v].far};
        assert_st_ok(st_reference_cast(whole, &c, &a, err));
        uint64_t texels = 0;
        bool cached = true;
        st_error cache_err = {0};
        assert_st_ok(st_eval_paged_reference(pages, st_store_get_info(s), true, &c, NULL, &b, &cached, &texels,
                                             &cache_err, err));
        assert_false(cached);
        if (v < 2) assert_true(texels < (uint64_t)level->width * level->height / 2); /* a part of the world */
        size_t hits = 0;
        for (size_t i = 0; i < (size_t)W * H; i++) {
            bool ha = !isnan(a.distance[i]), hb = !isnan(b.distance[i]);
            if (ha != hb) fail_msg("view %zu, pixel %zu: the window's reference %s where the whole level's %s", v, i,
                                   hb ? "hits" : "misses", ha ? "hits" : "misses");
            if (!ha) continue;
            hits++;
            if (fabsf(a.distance[i] - b.distance[i]) > 1e-3f * fmaxf(1.0f, a.distance[i]))
                fail_msg("view %zu, pixel %zu: distance %.6f on the window, %.6f on the level", v, i, b.distance[i],
                         a.distance[i]);
            assert_int_equal(a.face[i], b.face[i]);
            assert_int_equal(a.type[i], b.type[i]);
            for (int k = 0; k < 4; k++)
                if (abs((int)a.rgba[4 * i + k] - (int)b.rgba[4 * i + k]) > 1)
                    fail_msg("view %zu, pixel %zu: colour %d on the window, %d on the level", v, i, b.rgba[4 * i + k],
                             a.rgba[4 * i + k]);
        }
        assert_true(hits > (size_t)W * H / 4); /* views that see terrain */
    }
    st_ref_image_free(&a);
    st_ref_image_free(&b);
    st_reference_destroy(whole);
    st_layer_pages_destroy(pages);
    st_store_close(s);
    st_level_destroy(level);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tile_round_trip),   cmocka_unit_test(test_dem_store),
        cmocka_unit_test(test_resume_and_shards), cmocka_unit_test(test_damaged_store),
        cmocka_unit_test(test_layer_store),       cmocka_unit_test(test_generated_store),
        cmocka_unit_test(test_generated_layer_store),
        cmocka_unit_test(test_layer_pages),
        cmocka_unit_test(test_coarse_store),
        cmocka_unit_test(test_paged_reference_windows),
        cmocka_unit_test(test_amplify_keeps_source), cmocka_unit_test(test_http_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
