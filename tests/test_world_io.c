/* Whole worlds on disk: st_world_save then st_world_load returns the same level (.vmc Huffman, .vmc
 * identity, .vmp), the palette survives its 6-bit quantisation exactly, failures leave no files behind. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strata/vangers.h"
#include "strata/world.h"
#include "support.h"

static st_level *make_level(void) {
    st_level *l = test_flat_level(128, 256, 20);
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 128; x += 2) {
            if ((x / 8 + y / 8) % 5 == 0) st_level_set_dual(l, x, y, 30, 70, 140, 3, 6);
            else {
                st_level_set_single(l, x, y, (uint8_t)(y / 2), (uint8_t)(x / 16));
                st_level_set_single(l, x + 1, y, (uint8_t)(y / 2 + (x & 2)), (uint8_t)(x / 16));
            }
        }
    l->flood[0] = 12;
    l->flood[1] = 34;
    /* A palette already on the 6-bit grid (v<<2 | v>>4) so it must come back bit for bit. */
    for (int i = 0; i < 256; i++) {
        uint8_t v = (uint8_t)(i & 63);
        l->palette[i] = (st_rgb8){(uint8_t)(v << 2 | v >> 4), (uint8_t)((63 - v) << 2 | (63 - v) >> 4), 0};
    }
    l->begin_color[2] = 40;
    l->end_color[2] = 50;
    return l;
}

static void check_same(const st_level *a, const st_level *b) {
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    size_t n = (size_t)a->width * a->height;
    assert_memory_equal(a->heights, b->heights, n);
    assert_memory_equal(a->meta, b->meta, n);
    assert_int_equal(st_crc32(a->heights, n), st_crc32(b->heights, n));
    assert_int_equal(a->terrain_types, b->terrain_types);
    assert_memory_equal(a->palette, b->palette, sizeof a->palette);
    assert_memory_equal(a->begin_color, b->begin_color, a->terrain_types);
    assert_memory_equal(a->end_color, b->end_color, a->terrain_types);
    assert_int_equal(a->section_power, b->section_power);
    assert_memory_equal(a->flood, b->flood, a->height >> a->section_power);
}

static int count_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static void test_roundtrip_variants(void **state) {
    (void)state;
    st_level *l = make_level();
    const char *base = test_temp_dir("worldio");
    char dir[512];
    for (int v = 0; v < 3; v++) {
        snprintf(dir, sizeof dir, "%s/nested/w%d", base, v); /* parents are created */
        st_world_save_desc d = {.vmp = v == 2, .identity = v == 1};
        st_vmc_encode_info info;
        assert_st_ok(st_world_save_ex(l, dir, &d, &info, err));
        assert_int_equal(count_files(dir), 4); /* no temporaries left */
        st_level *back = NULL;
        assert_st_ok(st_world_load(dir, &back, err));
        check_same(l, back);
        assert_string_equal(back->name, dir + strlen(dir) - 2);
        st_level_destroy(back);
        if (v == 0) assert_true(info.bytes < info.identity_bytes);
        /* The world.ini path itself loads too. */
        char ini[600];
        snprintf(ini, sizeof ini, "%s/world.ini", dir);
        assert_st_ok(st_world_load(ini, &back, err));
        check_same(l, back);
        st_level_destroy(back);
    }
    /* 16 material types survive. */
    l->terrain_types = 16;
    for (int i = 0; i < 16; i++) {
        l->begin_color[i] = (uint8_t)(i * 16);
        l->end_color[i] = (uint8_t)(i * 16 + 15);
    }
    snprintf(dir, sizeof dir, "%s/t16", base);
    assert_st_ok(st_world_save(l, dir, err));
    st_level *back = NULL;
    assert_st_ok(st_world_load(dir, &back, err));
    check_same(l, back);
    st_level_destroy(back);
    st_level_destroy(l);
}

static void write_file(const char *path, const void *data, size_t n) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
}

static void test_load_errors(void **state) {
    (void)state;
    st_level *l = make_level();
    const char *base = test_temp_dir("worldbad");
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/w", base);
    assert_st_ok(st_world_save(l, dir, err));
    st_level *back = NULL;
    st_error e = {0};

    /* A missing .vpr means zero flood levels. */
    snprintf(path, sizeof path, "%s/output.vpr", dir);
    remove(path);
    assert_st_ok(st_world_load(dir, &back, err));
    assert_int_equal(back->flood[0], 0);
    st_level_destroy(back);
    /* A wrong-sized one is an error naming the file. */
    write_file(path, "abc", 3);
    assert_int_equal(st_world_load(dir, &back, &e), ST_ERR_FORMAT);
    assert_null(back);
    assert_non_null(strstr(e.message, "output.vpr"));
    remove(path);

    /* A truncated .vmc. */
    snprintf(path, sizeof path, "%s/output.vmc", dir);
    write_file(path, "0123456789", 10);
    assert_int_equal(st_world_load(dir, &back, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "output.vmc"));

    /* Absurd dimensions are refused before anything is allocated. */
    snprintf(path, sizeof path, "%s/world.ini", dir);
    const char *huge = "[Global Parameters]\nMap Power X = 16\nMap Power Y = 16\nSection Size Power = 7\n"
                       "[Storage]\nVersion = 1.4\nFile Name = output\nPalette File = harmony.pal\n";
    write_file(path, huge, strlen(huge));
    assert_int_not_equal(st_world_load(dir, &back, &e), ST_OK);
    assert_non_null(strstr(e.message, "world.ini"));

    /* A directory without world.ini, and a missing path. */
    assert_int_equal(st_world_load(base, &back, &e), ST_ERR_IO);
    assert_non_null(strstr(e.message, "world.ini"));
    snprintf(path, sizeof path, "%s/nothing-here", base);
    assert_int_equal(st_world_load(path, &back, &e), ST_ERR_IO);

    /* Saving over a file that is not a directory fails and writes nothing. */
    snprintf(path, sizeof path, "%s/plainfile", base);
    write_file(path, "x", 1);
    assert_int_equal(st_world_save(l, path, &e), ST_ERR_IO);
    st_level_destroy(l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_variants),
        cmocka_unit_test(test_load_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
