/* Vangers format codecs from memory buffers: a hand-built .vmc with non-trivial trees decoding to known
 * planes, Huffman round trips checked by an independent bit-by-bit decoder, and every corruption case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/vangers.h"
#include "support.h"

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A 4×2 map coded with two hand-written trees:
 *   heights: 0 → "0", 1 → "10", 255 → "11"      metadata: 0x40 → "1", 0 → "00", 0x08 → "01"
 * row 0 heights 0 1 2 1 (deltas 0 1 1 255: 0 10 10 11 = 0x56), meta 40 40 48 48 (xors 40 0 08 0: 1 00 01 00 = 0x88)
 * row 1 heights 255 255 0 0 (deltas 255 0 1 0: 11 0 10 0 = 0xD0), meta 0 0 0 0 (00 00 00 00 = 0x00) */
static const uint8_t hand_heights[8] = {0, 1, 2, 1, 255, 255, 0, 0};
static const uint8_t hand_meta[8] = {0x40, 0x40, 0x48, 0x48, 0, 0, 0, 0};
#define HAND_SIZE (12 + 4096 + 4)

static void build_hand_vmc(uint8_t *f) {
    memset(f, 0, HAND_SIZE);
    put32(f + 0, 4108);
    f[4] = 2;
    put32(f + 6, 4110);
    f[10] = 2;
    int32_t a[512] = {0}, b[512] = {0};
    a[2] = 0;    /* node 1, bit 0: symbol 0 */
    a[3] = 2;    /* node 1, bit 1: node 2 */
    a[4] = -1;   /* node 2, bit 0: symbol 1 */
    a[5] = -255; /* node 2, bit 1: symbol 255 */
    b[2] = 2;
    b[3] = -0x40;
    b[4] = 0;
    b[5] = -0x08;
    for (int i = 0; i < 512; i++) {
        put32(f + 12 + 4 * i, (uint32_t)a[i]);
        put32(f + 12 + 2048 + 4 * i, (uint32_t)b[i]);
    }
    f[4108] = 0x56;
    f[4109] = 0x88;
    f[4110] = 0xD0;
    f[4111] = 0x00;
}

static void test_hand_vmc(void **state) {
    (void)state;
    uint8_t f[HAND_SIZE], h[8], m[8];
    build_hand_vmc(f);
    assert_st_ok(st_vmc_decode(f, sizeof f, 4, 2, h, m, "hand.vmc", err));
    assert_memory_equal(h, hand_heights, 8);
    assert_memory_equal(m, hand_meta, 8);
}

static void expect_format_error(const uint8_t *f, size_t size, uint32_t w, uint32_t hgt, const char *needle) {
    uint8_t *h = malloc((size_t)w * hgt), *m = malloc((size_t)w * hgt);
    st_error err = {0};
    st_result r = st_vmc_decode(f, size, w, hgt, h, m, "bad.vmc", &err);
    if (r != ST_ERR_FORMAT) fail_msg("expected a format error about '%s', got %s: %s", needle, st_result_name(r), err.message);
    if (!strstr(err.message, "bad.vmc") || !strstr(err.message, needle))
        fail_msg("message '%s' lacks the file name or '%s'", err.message, needle);
    free(h);
    free(m);
}

static void test_vmc_errors(void **state) {
    (void)state;
    uint8_t f[HAND_SIZE];
    build_hand_vmc(f);
    expect_format_error(f, 100, 4, 2, "too short");
    expect_format_error(f, HAND_SIZE - 1, 4, 2, "outside"); /* the last row runs past the end */
    build_hand_vmc(f);
    put32(f + 6, 9000); /* offset past the end */
    expect_format_error(f, sizeof f, 4, 2, "outside");
    build_hand_vmc(f);
    put32(f + 0, 4); /* offset inside the header */
    expect_format_error(f, sizeof f, 4, 2, "outside");
    build_hand_vmc(f);
    f[4] = 0xFF;
    f[5] = 0xFF; /* size −1 */
    expect_format_error(f, sizeof f, 4, 2, "size -1");
    build_hand_vmc(f);
    put32(f + 12 + 4 * 5, 1); /* node 2 links back to the root: a cycle */
    expect_format_error(f, sizeof f, 4, 2, "cycle");
    build_hand_vmc(f);
    put32(f + 12 + 2048 + 4 * 2, 300); /* link out of range */
    expect_format_error(f, sizeof f, 4, 2, "links to node 300");
    build_hand_vmc(f);
    put32(f + 12 + 4 * 4, (uint32_t)-1000); /* symbol out of range */
    expect_format_error(f, sizeof f, 4, 2, "symbol");
    build_hand_vmc(f);
    put32(f + 12 + 4 * 4, 0x80000000u); /* INT32_MIN: found by fuzzing (the message negated it) */
    expect_format_error(f, sizeof f, 4, 2, "symbol 2147483648");
    build_hand_vmc(f);
    f[4] = 1; /* row 0 claims one byte: too short for its symbols */
    expect_format_error(f, sizeof f, 4, 2, "size 1");
    /* Row 1 needs 2 bytes; give it 2 where the height stream needs more: 0xFF = 11 11 11 11 is four
     * symbols, fine, but 0xAA.. = 10 10 10 10 too; make the height stream run past: all-ones meta bits
     * are 1-bit symbols, so corrupt the heights to need 9+ bits via 10 10 10 10 | 10... */
    build_hand_vmc(f);
    f[4111] = 0x00;
    f[4110] = 0xAA; /* heights 10 10 10 10: four 2-bit symbols = 1 byte, then meta 00 00 00 00: fits */
    {
        uint8_t h[8], m[8];
        assert_st_ok(st_vmc_decode(f, sizeof f, 4, 2, h, m, "ok.vmc", err));
        assert_int_equal(h[4], 1);
        assert_int_equal(h[7], 4);
    }
    /* Too few symbols coded: a row with a byte left over after both streams. */
    {
        uint8_t g[HAND_SIZE + 1];
        build_hand_vmc(g);
        g[HAND_SIZE] = 0;
        g[10] = 3; /* row 1 claims 3 bytes but its streams end after 2 */
        expect_format_error(g, sizeof g, 4, 2, "left over");
    }
    /* Too many symbols needed: the metadata stream cannot finish inside the row. */
    build_hand_vmc(f);
    put32(f + 0, 4110);
    f[4] = 2;
    put32(f + 6, 4108 + 3);
    f[10] = 1; /* below the minimum */
    expect_format_error(f, sizeof f, 4, 2, "size 1");
    build_hand_vmc(f);
    f[4109] = 0x00; /* meta 00 00 00 00 fits one byte... */
    f[4108] = 0xFF; /* heights 11 11 11 11: fits */
    {
        uint8_t h[8], m[8];
        assert_st_ok(st_vmc_decode(f, sizeof f, 4, 2, h, m, "ok.vmc", err));
    }
    /* Width 8 in a 2-byte row: heights 11×8 take both bytes, leaving nothing for the metadata. */
    {
        uint8_t g[6 + 4096 + 2];
        build_hand_vmc(f);
        memset(g, 0, sizeof g);
        put32(g, 6 + 4096);
        g[4] = 2;
        memcpy(g + 6, f + 12, 4096);
        g[4102] = 0xFF;
        g[4103] = 0xFF;
        expect_format_error(g, sizeof g, 8, 1, "needs more than");
    }
}

/* An independent decoder: walks the tree bit by bit, exactly as the original reads it. */
static int slow_decode(const uint8_t *f, size_t size, uint32_t w, uint32_t hgt, uint8_t *h, uint8_t *m) {
    const uint8_t *trees = f + 6 * hgt;
    for (uint32_t y = 0; y < hgt; y++) {
        const uint8_t *e = f + 6 * y;
        uint32_t off = (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
        uint32_t len = (uint32_t)(e[4] | e[5] << 8);
        if (off + len > size) return -1;
        size_t bit = (size_t)off * 8;
        for (int t = 0; t < 2; t++) {
            uint8_t acc = 0;
            for (uint32_t x = 0; x < w; x++) {
                int32_t node = 1;
                for (;;) {
                    if (bit >= (size_t)(off + len) * 8) return -2;
                    int b = (f[bit / 8] >> (7 - bit % 8)) & 1;
                    bit++;
                    const uint8_t *p = trees + t * 2048 + 4 * (2 * node + b);
                    int32_t v = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                          (uint32_t)p[3] << 24);
                    if (v > 0) {
                        node = v;
                        continue;
                    }
                    uint8_t s = (uint8_t)(-v);
                    acc = t ? (uint8_t)(acc ^ s) : (uint8_t)(acc + s);
                    break;
                }
                (t ? m : h)[(size_t)y * w + x] = acc;
            }
            bit = (bit + 7) / 8 * 8;
        }
        if (bit != (size_t)(off + len) * 8) return -3;
    }
    return 0;
}

/* Terraces with cliffs, some slabs and a noisy strip: the statistics of a real level, small. */
static st_level *make_level(uint32_t w, uint32_t h, uint32_t seed) {
    st_level *l = test_flat_level(w, h, 10);
    uint32_t s = seed * 2654435761u + 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x += 2) {
            s = s * 1664525u + 1013904223u;
            uint8_t base = (uint8_t)(((x / 16 + y / 8) % 6) * 24);
            if ((s >> 24) < 20 && base < 100) {
                st_level_set_dual(l, (int)x, (int)y, base, (uint8_t)(base + 40), (uint8_t)(base + 90), 2, 5);
            } else {
                st_level_set_single(l, (int)x, (int)y, base, (uint8_t)((x / 32) & 7));
                st_level_set_single(l, (int)x + 1, (int)y, (uint8_t)(base + ((s >> 20) & 1)), (uint8_t)((x / 32) & 7));
            }
        }
    return l;
}

static void test_vmc_roundtrip(void **state) {
    (void)state;
    const uint32_t w = 256, h = 64;
    st_level *l = make_level(w, h, 7);
    for (int identity = 0; identity < 2; identity++) {
        uint8_t *f = NULL;
        size_t size = 0;
        st_vmc_encode_info info;
        st_vmc_encode_desc d = {.identity = identity};
        assert_st_ok(st_vmc_encode(l->heights, l->meta, w, h, &d, &f, &size, &info, err));
        assert_int_equal(info.bytes, size);
        assert_int_equal(info.identity_bytes, 6 * h + 4096 + 2 * w * h);
        if (identity) assert_int_equal(size, info.identity_bytes);
        else assert_true(size < info.identity_bytes / 2); /* terraces compress well */
        uint8_t *hh = malloc(w * h), *mm = malloc(w * h);
        assert_st_ok(st_vmc_decode(f, size, w, h, hh, mm, "rt.vmc", err));
        assert_memory_equal(hh, l->heights, w * h);
        assert_memory_equal(mm, l->meta, w * h);
        memset(hh, 0, w * h);
        memset(mm, 0, w * h);
        assert_int_equal(slow_decode(f, size, w, h, hh, mm), 0);
        assert_memory_equal(hh, l->heights, w * h);
        assert_memory_equal(mm, l->meta, w * h);
        free(hh);
        free(mm);
        free(f);
    }
    st_level_destroy(l);
}

/* One noisy row among flat ones: its rare symbols get long codes, so the writer must flatten the code
 * until that row fits in 2·W bytes. */
static void test_vmc_row_fit(void **state) {
    (void)state;
    const uint32_t w = 64, h = 256;
    uint8_t *hh = calloc(w * h, 1), *mm = calloc(w * h, 1);
    /* Symbol k (1..13) appears 2^(13-k) times in rows 1.., zeros elsewhere: geometric frequencies give
     * symbol 13 a code of about 14 bits. Row 0 is all symbol 13: 64 × 14 bits per stream > 2·W bytes. */
    uint8_t *sym = calloc(w * h, 1);
    size_t at = w;
    for (int k = 1; k <= 13; k++)
        for (int c = 0; c < (1 << (13 - k)); c++) sym[at++] = (uint8_t)k;
    for (uint32_t x = 0; x < w; x++) sym[x] = 13;
    for (uint32_t y = 0; y < h; y++) {
        uint8_t ph = 0, pm = 0;
        for (uint32_t x = 0; x < w; x++) {
            ph = (uint8_t)(ph + sym[y * w + x]);
            pm = (uint8_t)(pm ^ sym[y * w + x]);
            hh[y * w + x] = ph;
            mm[y * w + x] = pm;
        }
    }
    free(sym);
    uint8_t *f = NULL;
    size_t size = 0;
    st_vmc_encode_info info;
    assert_st_ok(st_vmc_encode(hh, mm, w, h, NULL, &f, &size, &info, err));
    assert_true(info.code_len_limit < 15);
    for (uint32_t y = 0; y < h; y++) assert_true((uint32_t)(f[6 * y + 4] | f[6 * y + 5] << 8) <= 2 * w);
    uint8_t *h2 = malloc(w * h), *m2 = malloc(w * h);
    assert_st_ok(st_vmc_decode(f, size, w, h, h2, m2, "fit.vmc", err));
    assert_memory_equal(h2, hh, w * h);
    assert_memory_equal(m2, mm, w * h);
    free(f);
    free(h2);
    free(m2);
    free(hh);
    free(mm);
}

/* Codes longer than the 11-bit table: a degenerate (comb) tree whose deepest symbols take 40 bits. */
static void test_vmc_long_codes(void **state) {
    (void)state;
    int32_t tree[512] = {0};
    /* node k (1..40): bit 0 → symbol k, bit 1 → node k+1; node 41: bit 0 → symbol 200, bit 1 → symbol 201 */
    for (int k = 1; k <= 40; k++) {
        tree[2 * k] = -k;
        tree[2 * k + 1] = k + 1;
    }
    tree[82] = -200;
    tree[83] = -201;
    assert_st_ok(st_vmc_tree_check(tree, "comb", err));
    /* Row: heights deltas 201, 0-coded? Encode 4 symbols: 201 (41 bits: forty 1s then 1), 3 (1 1 0), 201, 1 (0). */
    const uint32_t w = 4;
    uint8_t row[32] = {0};
    size_t bit = 0;
#define PUT(b) (row[bit / 8] |= (uint8_t)((b) << (7 - bit % 8)), bit++)
    int seq[4] = {201, 3, 201, 1};
    for (int i = 0; i < 4; i++) {
        int sym = seq[i];
        int depth = sym >= 200 ? 40 : sym - 1; /* ones before the final bit */
        for (int k = 0; k < depth; k++) PUT(1);
        PUT(sym == 201 ? 1 : 0);
    }
    size_t hbytes = (bit + 7) / 8;
    bit = hbytes * 8;
    for (int i = 0; i < 4; i++) PUT(0); /* metadata: symbol 1 four times */
    size_t rbytes = (bit + 7) / 8;
#undef PUT
    size_t size = 6 + 4096 + rbytes;
    uint8_t *f = calloc(size, 1);
    put32(f, 6 + 4096);
    f[4] = (uint8_t)rbytes;
    for (int i = 0; i < 512; i++) {
        put32(f + 6 + 4 * i, (uint32_t)tree[i]);
        put32(f + 6 + 2048 + 4 * i, (uint32_t)tree[i]);
    }
    memcpy(f + 6 + 4096, row, rbytes);
    uint8_t h[4], m[4];
    assert_st_ok(st_vmc_decode(f, size, w, 1, h, m, "comb.vmc", err));
    uint8_t eh[4] = {201, 204, 149, 150}, em[4] = {1, 0, 1, 0};
    assert_memory_equal(h, eh, 4);
    assert_memory_equal(m, em, 4);
    free(f);
}

static void test_vmp_vpr_pal(void **state) {
    (void)state;
    uint8_t hh[8] = {1, 2, 3, 4, 5, 6, 7, 8}, mm[8] = {9, 10, 11, 12, 13, 14, 15, 16};
    uint8_t *f = NULL;
    size_t size = 0;
    assert_st_ok(st_vmp_encode(hh, mm, 4, 2, &f, &size, err));
    assert_int_equal(size, 16);
    uint8_t want[16] = {1, 2, 3, 4, 9, 10, 11, 12, 5, 6, 7, 8, 13, 14, 15, 16};
    assert_memory_equal(f, want, 16);
    uint8_t h2[8], m2[8];
    assert_st_ok(st_vmp_decode(f, size, 4, 2, h2, m2, "x.vmp", err));
    assert_memory_equal(h2, hh, 8);
    assert_memory_equal(m2, mm, 8);
    st_error e = {0};
    assert_int_equal(st_vmp_decode(f, size - 1, 4, 2, h2, m2, "x.vmp", &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "x.vmp"));
    free(f);

    /* Fostral's .vpr: 2048×16384, GeoNet 5, sections of 128 rows → 71,252 bytes (the shipped file's size). */
    assert_int_equal(st_vpr_size(2048, 16384, 5, 7), 71252);
    uint8_t flood[4] = {0, 17, 200, 3}, got[4];
    assert_st_ok(st_vpr_encode(64, 32, 2, 3, flood, &f, &size, err));
    assert_int_equal(size, st_vpr_size(64, 32, 2, 3));
    assert_int_equal(f[size - 4 * 4 + 4], 17);
    assert_st_ok(st_vpr_decode(f, size, 64, 32, 2, 3, got, "x.vpr", err));
    assert_memory_equal(got, flood, 4);
    assert_int_equal(st_vpr_decode(f, size - 4, 64, 32, 2, 3, got, "x.vpr", &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "x.vpr"));
    free(f);

    uint8_t pal[ST_PAL_SIZE], back[ST_PAL_SIZE];
    for (int i = 0; i < ST_PAL_SIZE; i++) pal[i] = (uint8_t)(i % 64);
    st_rgb8 p[256];
    assert_st_ok(st_pal_decode(pal, sizeof pal, p, "x.pal", err));
    assert_int_equal(p[21].r, 255); /* entry 21 red = 63 */
    assert_int_equal(p[0].g, 4);    /* 1 → 4 */
    assert_int_equal(p[10].b, (32 << 2) | (32 >> 4)); /* 32 → 130 */
    st_pal_encode(p, back);
    assert_memory_equal(back, pal, sizeof pal);
    assert_int_equal(st_pal_decode(pal, 767, p, "x.pal", &e), ST_ERR_FORMAT);
    pal[5] = 64;
    assert_int_equal(st_pal_decode(pal, sizeof pal, p, "x.pal", &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "6-bit"));
}

static const char fostral_ini[] = "[Global Parameters]\r\n"
                                  "Map Power X = 11\r\n"
                                  "Map Power Y = 14\r\n"
                                  "GeoNet Power = 5\r\n"
                                  "Section Size Power = 7\r\n"
                                  "Minimal Square Power = 4\r\n"
                                  "\r\n[Storage]\r\n"
                                  "File Name = output\r\n"
                                  "Palette File = harmony.pal\r\n"
                                  "Compressed Format Using = 1\r\n"
                                  "Version = 1.4\r\n"
                                  "\r\n[Rendering Parameters]\r\n"
                                  "Begin Colors = 1 32 64 72 88 104 112 120\r\n"
                                  "End Colors = 31 63 71 87 103 111 119 127\r\n"
                                  "Shadow Offsets = 0 0 0 0 0 0 0 0\r\n"
                                  "\r\n[Dynamic Palette]\r\nWave Terrain = 0\r\n";

static void expect_ini_error(const char *text, const char *needle) {
    st_world_ini ini;
    st_error e = {0};
    st_result r = st_world_ini_parse(text, strlen(text), "w.ini", &ini, &e);
    if (r != ST_ERR_FORMAT || !strstr(e.message, needle) || !strstr(e.message, "w.ini"))
        fail_msg("ini error: got %s '%s', wanted '%s'", st_result_name(r), e.message, needle);
}

static void test_world_ini(void **state) {
    (void)state;
    st_world_ini ini;
    assert_st_ok(st_world_ini_parse(fostral_ini, strlen(fostral_ini), "world.ini", &ini, err));
    assert_int_equal(ini.map_power_x, 11);
    assert_int_equal(ini.map_power_y, 14);
    assert_int_equal(ini.geonet_power, 5);
    assert_int_equal(ini.section_power, 7);
    assert_true(ini.compressed);
    assert_string_equal(ini.file_name, "output");
    assert_string_equal(ini.palette_file, "harmony.pal");
    assert_int_equal(ini.terrain_max, 8);
    assert_int_equal(ini.begin_color[3], 72);
    assert_int_equal(ini.end_color[7], 127);

    /* Writer → parser is the identity on the fields. */
    char *text = NULL;
    size_t n = 0;
    ini.terrain_max = 16;
    for (int i = 0; i < 16; i++) {
        ini.begin_color[i] = (uint8_t)(i * 16);
        ini.end_color[i] = (uint8_t)(i * 16 + 15);
    }
    assert_st_ok(st_world_ini_format(&ini, &text, &n, err));
    st_world_ini back;
    assert_st_ok(st_world_ini_parse(text, n, "w.ini", &back, err));
    assert_int_equal(back.terrain_max, 16);
    assert_memory_equal(back.begin_color, ini.begin_color, 16);
    assert_memory_equal(back.end_color, ini.end_color, 16);
    free(text);

    char buf[2048];
    snprintf(buf, sizeof buf, "%s", fostral_ini);
    memcpy(strstr(buf, "1.4"), "1.5", 3);
    expect_ini_error(buf, "Version");
    snprintf(buf, sizeof buf, "%s", fostral_ini);
    memcpy(strstr(buf, "Map Power Y"), "Map Powxr Y", 11);
    expect_ini_error(buf, "Map Power Y");
    snprintf(buf, sizeof buf, "%s", fostral_ini);
    memcpy(strstr(buf, "= 14"), "= 99", 4);
    expect_ini_error(buf, "Map Power Y");
    snprintf(buf, sizeof buf, "%s", fostral_ini);
    memcpy(strstr(buf, "= output"), "= ../xx", 7);
    expect_ini_error(buf, "File Name");
    snprintf(buf, sizeof buf, "%s", fostral_ini);
    memcpy(strstr(buf, " 127"), "    ", 4);
    expect_ini_error(buf, "End Colors");
    expect_ini_error("[Global Parameters\n", "section");
    expect_ini_error("[Storage]\njunk\n", "key = value");
}

static void test_crc32(void **state) {
    (void)state;
    assert_int_equal(st_crc32("123456789", 9), 0xCBF43926u); /* the standard check value */
    assert_int_equal(st_crc32("", 0), 0);
    /* continued over pieces: the CRC of the whole */
    assert_int_equal(st_crc32_update(st_crc32("1234", 4), "56789", 5), 0xCBF43926u);
    assert_int_equal(st_crc32_update(0, "123456789", 9), 0xCBF43926u);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_vmc),     cmocka_unit_test(test_vmc_errors),  cmocka_unit_test(test_vmc_roundtrip),
        cmocka_unit_test(test_vmc_row_fit),  cmocka_unit_test(test_vmc_long_codes), cmocka_unit_test(test_vmp_vpr_pal),
        cmocka_unit_test(test_world_ini),    cmocka_unit_test(test_crc32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
