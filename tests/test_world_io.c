/* Whole worlds on disk: st_world_save then st_world_load returns the same level (.vmc Huffman, .vmc
 * identity, .vmp), the palette survives its 6-bit quantisation exactly, failures leave no files behind; a save
 * stopped by SIGKILL at any step leaves the old or the new world, a second writer is refused, leftovers of dead
 * saves are removed, a save in place keeps world.ini's other keys and file names, the map's CRC-32 is checked. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strata/file.h"
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

/* The directory's entries (but . and ..), sorted, space-separated. */
static void list_names(const char *dir, char *out, size_t cap) {
    char names[64][256];
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) && n < 64)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) snprintf(names[n++], 256, "%s", e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    out[0] = 0;
    for (int i = 0; i < n; i++) snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? " " : "", names[i]);
}

static const char *const plain_world = "harmony.pal output.vmc output.vpr world.ini";

static void kill_at(void *user, int step, const char *what) {
    (void)what;
    if (step == *(const int *)user) raise(SIGKILL);
}

/* A dead process's PID: a child that has exited and been reaped. */
static long dead_pid(void) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(0);
    waitpid(pid, NULL, 0);
    return (long)pid;
}

/* A save of a different size is killed after each of its steps in turn; every time the world loads as the
 * old one (before the journal is written, step 3) or the new one (after it), and the next save cleans up. */
static void test_save_killed_at_every_step(void **state) {
    (void)state;
    st_level *a = make_level(), *b = test_flat_level(256, 128, 77);
    memcpy(b->palette, a->palette, sizeof a->palette); /* on the 6-bit grid, so it comes back exactly */
    char dir[512], names[2048];
    snprintf(dir, sizeof dir, "%s/w", test_temp_dir("worldkill"));
    for (int step = 0; step <= 8; step++) {
        assert_st_ok(st_world_save(a, dir, err));
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            st_world_save_desc d = {.on_step = kill_at, .step_user = &step};
            _exit(st_world_save_ex(b, dir, &d, NULL, NULL) == ST_OK ? 0 : 1);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (step < 8) assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        else assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        st_level *back = NULL;
        assert_st_ok(st_world_load(dir, &back, err));
        check_same(step < 3 ? a : b, back);
        st_level_destroy(back);
        /* the next save finishes or discards what the killed one left, and leaves only the world */
        assert_st_ok(st_world_save(a, dir, err));
        list_names(dir, names, sizeof names);
        assert_string_equal(names, plain_world);
        assert_st_ok(st_world_load(dir, &back, err));
        check_same(a, back);
        st_level_destroy(back);
    }
    st_level_destroy(a);
    st_level_destroy(b);
}

/* A writer holding world.lock makes a second one fail without writing; a lock file left by a dead process is
 * taken over. */
static void test_one_writer(void **state) {
    (void)state;
    st_level *l = make_level();
    char dir[512], lock[600], names[2048];
    snprintf(dir, sizeof dir, "%s/w", test_temp_dir("worldlock"));
    assert_st_ok(st_world_save(l, dir, err));
    snprintf(lock, sizeof lock, "%s/world.lock", dir);
    int fd = open(lock, O_RDWR | O_CREAT, 0666);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX), 0);
    dprintf(fd, "%ld\n", (long)getpid());
    st_level *other = test_flat_level(256, 128, 5);
    st_error e = {0};
    assert_int_equal(st_world_save(other, dir, &e), ST_ERR_IO);
    char want[64];
    snprintf(want, sizeof want, "being saved by process %ld", (long)getpid());
    assert_non_null(strstr(e.message, want));
    close(fd); /* the holder is gone */
    st_level *back = NULL;
    assert_st_ok(st_world_load(dir, &back, err));
    check_same(l, back);
    st_level_destroy(back);
    /* a stale lock file: a dead PID, no lock held */
    FILE *fp = fopen(lock, "w");
    fprintf(fp, "%ld\n", dead_pid());
    fclose(fp);
    assert_st_ok(st_world_save(other, dir, err));
    list_names(dir, names, sizeof names);
    assert_string_equal(names, plain_world);
    st_level_destroy(other);
    st_level_destroy(l);
}

static void touch(const char *dir, const char *name) {
    char path[800];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_file(path, "x", 1);
}

/* Temporaries of dead processes and uncommitted .new files go; a live process's temporary and the user's own
 * files stay. */
static void test_leftovers_removed(void **state) {
    (void)state;
    st_level *l = make_level();
    char dir[512], names[2048], name[128];
    snprintf(dir, sizeof dir, "%s/w", test_temp_dir("worldleft"));
    assert_st_ok(st_world_save(l, dir, err));
    long gone = dead_pid();
    snprintf(name, sizeof name, "output.vmc.tmp%ld", gone);
    touch(dir, name);
    snprintf(name, sizeof name, "world.ini.tmp%ld", gone);
    touch(dir, name);
    snprintf(name, sizeof name, "screenshot-0000.png.tmp%ld", gone);
    touch(dir, name);
    snprintf(name, sizeof name, "live.png.tmp%ld", (long)getppid());
    touch(dir, name);
    touch(dir, "output.vmc.new"); /* no journal: never committed */
    touch(dir, "notes.txt");
    assert_st_ok(st_world_save(l, dir, err));
    list_names(dir, names, sizeof names);
    char want[2048];
    snprintf(want, sizeof want, "harmony.pal %s notes.txt output.vmc output.vpr world.ini", name);
    assert_string_equal(names, want);
    st_level_destroy(l);
}

static char *read_text(const char *path) {
    uint8_t *d = NULL;
    size_t n = 0;
    assert_st_ok(st_file_read_all(path, 1u << 20, &d, &n, err));
    char *t = realloc(d, n + 1);
    t[n] = 0;
    return t;
}

/* Saving over a world keeps what strata does not write: other keys, comments, the file names, the .vpr's
 * path tables; a change of map format removes the old map. */
static void test_save_in_place_keeps_the_rest(void **state) {
    (void)state;
    st_level *l = make_level();
    char dir[512], path[700], names[2048];
    snprintf(dir, sizeof dir, "%s/fostral", test_temp_dir("worldkeep"));
    assert_st_ok(st_world_save(l, dir, err));
    /* a hand-made world.ini with the original's extra keys and its own file names */
    const char *ini =
        "; a world made by hand\r\n"
        "[Global Parameters]\r\nMap Power X = 7\r\nMap Power Y = 8\r\nGeoNet Power = 5\r\nSection Size Power = 7\r\n"
        "Minimal Square Power = 4\r\n\r\n"
        "[Storage]\r\nFile Name = fostral\r\nPalette File = fostral.pal\r\nCompressed Format Using = 1\r\n"
        "Version = 1.4\r\n\r\n"
        "[Rendering Parameters]\r\nTerrain Max = 8\r\n"
        "Begin Colors = 1 32 40 72 88 104 112 120\r\nEnd Colors = 31 63 50 87 103 111 119 127\r\n"
        "Shadow Offsets = 1 2 3 4 5 6 7 8\r\nHeight Shifts = 8 7 6 5 4 3 2 1\r\n\r\n"
        "[Dynamic Palette]\r\nWave Terrain = 3\r\nTerrain Offset = 17\r\n\r\n"
        "[Creation Parameters]\r\nNoise Level = 42  ; kept\r\n";
    snprintf(path, sizeof path, "%s/world.ini", dir);
    write_file(path, ini, strlen(ini));
    char from[700], to[700];
    const char *moves[3][2] = {{"output.vmc", "fostral.vmc"}, {"harmony.pal", "fostral.pal"}, {"output.vpr", "fostral.vpr"}};
    for (int i = 0; i < 3; i++) {
        snprintf(from, sizeof from, "%s/%s", dir, moves[i][0]);
        snprintf(to, sizeof to, "%s/%s", dir, moves[i][1]);
        assert_int_equal(rename(from, to), 0);
    }
    /* GeoNet tables the writer would zero: mark them */
    snprintf(path, sizeof path, "%s/fostral.vpr", dir);
    uint8_t *vpr = NULL;
    size_t vpr_size = 0;
    assert_st_ok(st_file_read_all(path, 1u << 20, &vpr, &vpr_size, err));
    memset(vpr + 44, 0x5a, 64);
    write_file(path, vpr, vpr_size);
    free(vpr);
    st_level *w = NULL;
    assert_st_ok(st_world_load(dir, &w, err));
    st_rect dirty;
    assert_st_ok(st_level_dig(w, 64, 128, 10, 10, &dirty, err));
    w->flood[1] = 99;
    assert_st_ok(st_world_save(w, dir, err));

    list_names(dir, names, sizeof names);
    assert_string_equal(names, "fostral.pal fostral.vmc fostral.vpr world.ini");
    snprintf(path, sizeof path, "%s/world.ini", dir);
    char *text = read_text(path);
    static const char *const kept[] = {
        "; a world made by hand\r\n", "GeoNet Power = 5\r\n", "File Name = fostral\r\n",
        "Palette File = fostral.pal\r\n", "Shadow Offsets = 1 2 3 4 5 6 7 8\r\n",
        "Height Shifts = 8 7 6 5 4 3 2 1\r\n", "[Dynamic Palette]\r\nWave Terrain = 3\r\nTerrain Offset = 17\r\n",
        "Noise Level = 42  ; kept\r\n", "Begin Colors = 1 32 40 72", "[Strata]\r\nMap CRC32 = 0x"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        if (!strstr(text, kept[i])) fail_msg("world.ini lost '%s':\n%s", kept[i], text);
    free(text);
    snprintf(path, sizeof path, "%s/fostral.vpr", dir);
    assert_st_ok(st_file_read_all(path, 1u << 20, &vpr, &vpr_size, err));
    for (int i = 0; i < 64; i++) assert_int_equal(vpr[44 + i], 0x5a);
    free(vpr);
    st_level *back = NULL;
    assert_st_ok(st_world_load(dir, &back, err));
    check_same(w, back);
    st_level_destroy(back);

    /* as .vmp: the .vmc is no longer named, so it goes */
    st_world_save_desc vmp = {.vmp = true};
    assert_st_ok(st_world_save_ex(w, dir, &vmp, NULL, err));
    list_names(dir, names, sizeof names);
    assert_string_equal(names, "fostral.pal fostral.vmp fostral.vpr world.ini");
    snprintf(path, sizeof path, "%s/world.ini", dir);
    text = read_text(path);
    assert_non_null(strstr(text, "Compressed Format Using = 0\r\n"));
    assert_non_null(strstr(text, "Wave Terrain = 3\r\n"));
    free(text);
    assert_st_ok(st_world_load(dir, &back, err));
    check_same(w, back);
    st_level_destroy(back);
    st_level_destroy(w);
    st_level_destroy(l);
}

/* The map's CRC-32 in world.ini catches a flipped bit that would decode to another valid map. */
static void test_map_checksum(void **state) {
    (void)state;
    st_level *l = make_level();
    char dir[512], path[700];
    snprintf(dir, sizeof dir, "%s/w", test_temp_dir("worldcrc"));
    st_world_save_desc identity = {.identity = true}; /* every byte of an identity-coded row is a symbol */
    assert_st_ok(st_world_save_ex(l, dir, &identity, NULL, err));
    snprintf(path, sizeof path, "%s/output.vmc", dir);
    uint8_t *map = NULL;
    size_t n = 0;
    assert_st_ok(st_file_read_all(path, 1u << 24, &map, &n, err));
    map[n - 100] ^= 0x10;
    write_file(path, map, n);
    st_level *back = NULL;
    st_error e = {0};
    assert_int_equal(st_world_load(dir, &back, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "CRC-32"));
    assert_non_null(strstr(e.message, "output.vmc"));
    /* without the record the same bytes load (with a warning): the flip is not detectable then */
    snprintf(path, sizeof path, "%s/world.ini", dir);
    char *text = read_text(path);
    *strstr(text, "[Strata]") = 0;
    write_file(path, text, strlen(text));
    free(text);
    assert_st_ok(st_world_load(dir, &back, err));
    st_level_destroy(back);
    free(map);
    st_level_destroy(l);
}

/* The wrap flags through world.ini's [Strata] section: every combination comes back; a wrapping world's ini
 * has no wrap keys (its section holds the map's checksum alone); a save in place adds and removes them; a bad
 * value is one clear error. */
static void test_wrap_flags_roundtrip(void **state) {
    (void)state;
    st_level *l = make_level();
    const char *base = test_temp_dir("worldwrap");
    char dir[512], path[600];
    for (int c = 0; c < 8; c++) {
        /* c 0..3: a fresh folder each; c 4..7: the same folder saved over in place, wrap flags changing */
        l->wrap_x = (c & 1) != 0;
        l->wrap_y = (c & 2) != 0;
        if (c < 4) snprintf(dir, sizeof dir, "%s/w%d", base, c);
        else snprintf(dir, sizeof dir, "%s/in_place", base);
        assert_st_ok(st_world_save(l, dir, err));
        snprintf(path, sizeof path, "%s/world.ini", dir);
        char *ini = read_text(path);
        bool keys = strstr(ini, "Wrap X") != NULL, keys_y = strstr(ini, "Wrap Y") != NULL;
        bool want = !(l->wrap_x && l->wrap_y);
        if (keys != want || keys_y != want)
            fail_msg("wrap %d/%d (save %d): wrap keys %s", l->wrap_x, l->wrap_y, c, keys ? "written" : "missing");
        if (!strstr(ini, "Map CRC32")) fail_msg("save %d: no map checksum", c);
        free(ini);
        st_level *back = NULL;
        assert_st_ok(st_world_load(dir, &back, err));
        check_same(l, back);
        if (back->wrap_x != l->wrap_x || back->wrap_y != l->wrap_y)
            fail_msg("wrap %d/%d came back as %d/%d", l->wrap_x, l->wrap_y, back->wrap_x, back->wrap_y);
        st_level_destroy(back);
    }
    /* What a world.ini without the keys means (every stock world): wrapping in x and y. */
    st_world_ini ini;
    const char *stock = "[Global Parameters]\nMap Power X = 7\nMap Power Y = 8\nSection Size Power = 7\n"
                        "[Storage]\nVersion = 1.4\nFile Name = output\nPalette File = harmony.pal\n";
    assert_st_ok(st_world_ini_parse(stock, strlen(stock), NULL, &ini, err));
    assert_true(ini.wrap_x && ini.wrap_y);
    char text[1024];
    snprintf(text, sizeof text, "%s[strata]\nwrap x = 0 ; a comment\n", stock);
    assert_st_ok(st_world_ini_parse(text, strlen(text), NULL, &ini, err));
    assert_true(!ini.wrap_x && ini.wrap_y);
    snprintf(text, sizeof text, "%s[Strata]\nWrap Y = 2\n", stock);
    st_error e = {0};
    assert_int_equal(st_world_ini_parse(text, strlen(text), "w.ini", &ini, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "Wrap Y"));
    st_level_destroy(l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_variants),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_save_killed_at_every_step),
        cmocka_unit_test(test_one_writer),
        cmocka_unit_test(test_leftovers_removed),
        cmocka_unit_test(test_save_in_place_keeps_the_rest),
        cmocka_unit_test(test_map_checksum),
        cmocka_unit_test(test_wrap_flags_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
