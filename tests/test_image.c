/* PNG reading under hostile input: chunk lengths that claim gigabytes are not allocated, the PNG-set reader
 * checks both headers (layout, equal sizes, the level size limit) before it decodes anything, and sizes past
 * the limits are ST_ERR_INVALID. Inputs are built byte by byte here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "strata/heightmap.h"
#include "strata/image.h"
#include "support.h"

typedef struct bytes {
    uint8_t data[4096];
    size_t n;
} bytes;

static void put32(bytes *b, uint32_t v) {
    uint8_t be[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    memcpy(b->data + b->n, be, 4);
    b->n += 4;
}

/* A chunk whose length field says `claimed` while only `n` bytes of data follow (a truncated file). */
static void chunk(bytes *b, const char *type, const void *data, size_t n, uint32_t claimed) {
    put32(b, claimed);
    size_t at = b->n;
    memcpy(b->data + b->n, type, 4);
    memcpy(b->data + b->n + 4, data, n);
    b->n += 4 + n;
    put32(b, (uint32_t)crc32(0, b->data + at, (uInt)(4 + n)));
}

/* Signature and IHDR of a w×h image of the given bit depth and colour type. */
static bytes png_head(uint32_t w, uint32_t h, uint8_t depth, uint8_t ctype) {
    bytes b = {.n = 0};
    memcpy(b.data, "\x89PNG\r\n\x1a\n", 8);
    b.n = 8;
    uint8_t ihdr[13] = {(uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w,
                        (uint8_t)(h >> 24), (uint8_t)(h >> 16), (uint8_t)(h >> 8), (uint8_t)h,
                        depth, ctype, 0, 0, 0};
    chunk(&b, "IHDR", ihdr, sizeof ihdr, sizeof ihdr);
    return b;
}

/* A header followed by the start of an image: a few compressed rows, then the file ends. */
static bytes png_truncated(uint32_t w, uint32_t h, uint8_t depth, uint8_t ctype) {
    bytes b = png_head(w, h, depth, ctype);
    uint8_t rows[512] = {0}, z[1024];
    uLongf zn = sizeof z;
    compress(z, &zn, rows, sizeof rows);
    chunk(&b, "IDAT", z, zn, (uint32_t)zn);
    return b;
}

static void write_bytes(const char *path, const bytes *b) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(b->data, 1, b->n, fp), b->n);
    fclose(fp);
}

/* Peak resident memory in KiB since the last reset_peak (Linux: VmHWM, reset through clear_refs). */
static void reset_peak(void) {
    FILE *fp = fopen("/proc/self/clear_refs", "w");
    if (fp) {
        fputs("5", fp);
        fclose(fp);
    }
}
static long peak_kib(void) {
    FILE *fp = fopen("/proc/self/status", "r");
    assert_non_null(fp);
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, fp))
        if (!strncmp(line, "VmHWM:", 6)) kib = strtol(line + 6, NULL, 10);
    fclose(fp);
    assert_true(kib > 0);
    return kib;
}

/* 141 bytes whose text chunk claims 2 GiB: libpng used to allocate and clear the claimed length. */
static void test_chunk_length_is_not_allocated(void **state) {
    (void)state;
    static const char *const types[] = {"tEXt", "zTXt", "iTXt", "iCCP", "sPLT", "prVt"};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        bytes b = png_head(2, 2, 8, 0);
        chunk(&b, types[t], "Comment\0hello", 13, 0x7fffffffu);
        while (b.n < 141) b.data[b.n++] = 0;
        long before = (reset_peak(), peak_kib());
        st_heightmap *hm = NULL;
        st_error e = {0};
        assert_int_not_equal(st_heightmap_decode_png(b.data, b.n, "claims.png", &hm, &e), ST_OK);
        assert_null(hm);
        st_png_info info;
        void *px = NULL;
        assert_int_not_equal(st_png_decode(b.data, b.n, "claims.png", 0, &info, &px, &e), ST_OK);
        assert_null(px);
        /* through the file reader too */
        const char *dir = test_temp_dir("pngchunk");
        char path[512];
        snprintf(path, sizeof path, "%s/claims.png", dir);
        write_bytes(path, &b);
        uint32_t w, h;
        int ch, bd;
        assert_int_not_equal(st_png_read(path, &w, &h, &ch, &bd, &px, &e), ST_OK);
        assert_null(px);
        long grown = peak_kib() - before;
        if (grown > 64 * 1024) fail_msg("a %s chunk claiming 2 GiB raised the peak memory by %ld MiB", types[t], grown / 1024);
    }
}

/* Writes dir/height.png and dir/meta.png. */
static const char *png_set(const bytes *height, const bytes *meta) {
    static char dir[512];
    snprintf(dir, sizeof dir, "%s", test_temp_dir("pngsethdr"));
    char path[600];
    snprintf(path, sizeof path, "%s/height.png", dir);
    write_bytes(path, height);
    snprintf(path, sizeof path, "%s/meta.png", dir);
    write_bytes(path, meta);
    return dir;
}

static void expect_set_error(const bytes *height, const bytes *meta, st_result code, const char *needle) {
    st_level *l = NULL;
    st_error e = {0};
    st_result r = st_level_read_pngs(png_set(height, meta), &l, &e);
    assert_null(l);
    if (r != code || !strstr(e.message, needle))
        fail_msg("want error %d naming '%s', got %d: %s", code, needle, r, e.message);
    r = st_level_decode_pngs(height->data, height->n, meta->data, meta->n, NULL, NULL, &l, &e);
    if (r != code || !strstr(e.message, needle))
        fail_msg("from memory: want error %d naming '%s', got %d: %s", code, needle, r, e.message);
}

/* The set is judged by its headers: an impossible size or a wrong layout is refused before any decoding
 * (the truncated image data behind these headers is never reached). */
static void test_png_set_headers_first(void **state) {
    (void)state;
    bytes huge = png_truncated(65536, 32768, 8, 0), grey = png_truncated(64, 64, 8, 0);
    expect_set_error(&huge, &huge, ST_ERR_INVALID, "texel limit");
    bytes rgba16 = png_truncated(64, 64, 16, 6);
    expect_set_error(&rgba16, &grey, ST_ERR_FORMAT, "8-bit greyscale");
    expect_set_error(&grey, &rgba16, ST_ERR_FORMAT, "8-bit greyscale");
    bytes other = png_truncated(128, 64, 8, 0);
    expect_set_error(&grey, &other, ST_ERR_FORMAT, "is 64x64 but");
    bytes not_pow2 = png_truncated(100, 64, 8, 0);
    expect_set_error(&not_pow2, &not_pow2, ST_ERR_INVALID, "power of two");
    /* headers that pass, then data that ends: the decoder's own error */
    expect_set_error(&grey, &grey, ST_ERR_FORMAT, "corrupt or truncated");
}

/* The pixel bound comes from the header, before anything is allocated. */
static void test_decode_bound(void **state) {
    (void)state;
    bytes big = png_truncated(4096, 4096, 8, 0);
    st_png_info info;
    void *px = NULL;
    st_error e = {0};
    assert_int_equal(st_png_decode(big.data, big.n, "big.png", 1u << 20, &info, &px, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "4096x4096"));
    assert_st_ok(st_png_probe(big.data, big.n, "big.png", &info, err));
    assert_int_equal(info.width, 4096);
    assert_int_equal(info.channels, 1);
    bytes too_wide = png_truncated(70000, 2, 8, 0); /* past libpng's user limit of 65536 a side */
    assert_int_equal(st_png_probe(too_wide.data, too_wide.n, "wide.png", &info, &e), ST_ERR_FORMAT);
    st_heightmap *hm = NULL;
    bytes dem = png_truncated(65536, 4096, 16, 0); /* 2^28 samples: past the height-map bound */
    assert_int_equal(st_heightmap_decode_png(dem.data, dem.n, "dem.png", &hm, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "65536x4096"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunk_length_is_not_allocated),
        cmocka_unit_test(test_png_set_headers_first),
        cmocka_unit_test(test_decode_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
