/* Writing edited tiles back into a layer store: the store reads back the edit; a writer killed (by its own PID)
 * between its journal and its tiles, or at random moments of a run of writes, leaves a store that opens, holds
 * no corrupt tile and has lost no completed write; a damaged journal is refused; stores that are not local layer
 * folders and tiles of another store are refused. A generated world's overlay store keeps its edited tiles
 * alone, reads them before the generator, reopens on its own as the world, and survives a killed writer too. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "strata/file.h"
#include "strata/tiles.h"
#include "support.h"

#define W 512u
#define H 256u
#define TS 128u

static const char *make_store(const char *tag, st_level **out) {
    const char *dir = test_temp_dir(tag);
    st_level *l = test_random_level(W, H, 5);
    st_store_build_desc d = {.tile_size = TS};
    st_store_build_stats st;
    assert_st_ok(st_store_build_level(l, dir, &d, &st, err));
    *out = l;
    return dir;
}

/* Tile (x, y) of the store with every texel pair set to `v` (a single floor at v; v ≤ 255). */
static st_tile *filled(uint32_t x, uint32_t y, uint8_t v) {
    st_tile *t = NULL;
    assert_st_ok(st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, TS, &t, err));
    t->key = (st_tile_key){0, x, y};
    uint8_t *q = t->data;
    for (size_t i = 0; i < t->data_bytes; i += 4) q[i] = v, q[i + 1] = 8, q[i + 2] = v, q[i + 3] = 8;
    return t;
}

/* The value every texel of tile (x, y) holds in the store, or -1 when they differ. */
static int tile_value(st_store *s, uint32_t x, uint32_t y) {
    st_tile *t = NULL;
    assert_st_ok(st_store_read_tile(s, (st_tile_key){0, x, y}, &t, err));
    const uint8_t *q = t->data;
    int v = q[0];
    for (size_t i = 0; i < t->data_bytes; i += 4)
        if (q[i] != v || q[i + 2] != v) v = -1;
    st_tile_destroy(t);
    return v;
}

static void test_write_back(void **state) {
    (void)state;
    st_level *l = NULL;
    const char *dir = make_store("journal-write", &l);
    st_store *s = NULL;
    assert_st_ok(st_store_open(dir, &s, err));
    st_tile *a = filled(1, 0, 77), *b = filled(3, 1, 200);
    const st_tile *tiles[2] = {a, b};
    assert_st_ok(st_store_write_tiles(s, tiles, 2, NULL, err));
    assert_int_equal(tile_value(s, 1, 0), 77); /* the open store reads the new tiles */
    st_tile_meta m;
    assert_true(st_store_tile_meta(s, (st_tile_key){0, 3, 1}, &m));
    assert_true(m.min_m == 200 && m.max_m == 200); /* bounds recomputed */
    st_store_close(s);
    assert_st_ok(st_store_open(dir, &s, err)); /* and so does the store reopened */
    assert_int_equal(tile_value(s, 1, 0), 77);
    assert_int_equal(tile_value(s, 3, 1), 200);
    st_level *back = NULL;
    assert_st_ok(st_store_read_level(s, &back, err));
    /* every other texel is the original's */
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            bool edited = (x / TS == 1 && y / TS == 0) || (x / TS == 3 && y / TS == 1);
            if (!edited) assert_int_equal(st_level_height_row(back, y)[x], st_level_height_row(l, y)[x]);
        }
    st_level_destroy(back);
    /* refused: a tile of another size, a key outside, a generated store */
    st_error e = {0};
    st_tile *big = NULL;
    assert_st_ok(st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, 2 * TS, &big, err));
    const st_tile *one[1] = {big};
    assert_int_equal(st_store_write_tiles(s, one, 1, NULL, &e), ST_ERR_INVALID);
    st_tile *out = filled(9, 0, 1);
    one[0] = out;
    assert_int_equal(st_store_write_tiles(s, one, 1, NULL, &e), ST_ERR_INVALID);
    st_store *gen = NULL;
    assert_st_ok(st_store_open("gen:multi:3:256x256", &gen, err));
    one[0] = a;
    assert_int_equal(st_store_write_tiles(gen, one, 1, NULL, &e), ST_ERR_INVALID);
    st_store_close(gen);
    st_tile_destroy(big);
    st_tile_destroy(out);
    st_tile_destroy(a);
    st_tile_destroy(b);
    st_store_close(s);
    st_level_destroy(l);
}

static int ready_fd = -1;
static void signal_and_wait(void *user) {
    (void)user;
    char c = 'j';
    if (write(ready_fd, &c, 1) != 1) _exit(3);
    for (;;) pause(); /* killed here, between the journal and the tiles */
}

static void test_killed_between_journal_and_tiles(void **state) {
    (void)state;
    st_level *l = NULL;
    const char *dir = make_store("journal-kill", &l);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* the writer */
        close(fds[0]);
        ready_fd = fds[1];
        st_error e = {0};
        st_store *s = NULL;
        if (st_store_open(dir, &s, &e)) _exit(2);
        st_tile *a = filled(0, 0, 5), *b = filled(2, 1, 99);
        const st_tile *tiles[2] = {a, b};
        st_store_write_desc d = {.after_journal = signal_and_wait};
        st_store_write_tiles(s, tiles, 2, &d, &e);
        _exit(4); /* never reached */
    }
    close(fds[1]);
    char c = 0;
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    st_store *s = NULL;
    assert_st_ok(st_store_open(dir, &s, err)); /* the journal completes the write */
    assert_int_equal(tile_value(s, 0, 0), 5);
    assert_int_equal(tile_value(s, 2, 1), 99);
    st_level *back = NULL;
    assert_st_ok(st_store_read_level(s, &back, err)); /* every tile reads: none corrupt */
    st_level_destroy(back);
    st_store_close(s);
    char jp[1200];
    snprintf(jp, sizeof jp, "%s/journal.bin", dir);
    assert_int_not_equal(access(jp, F_OK), 0); /* and the journal is gone */
    st_level_destroy(l);
}

/* A writer that writes batch after batch (batch b sets every tile to b) and reports each one done, killed at a
 * random moment, again and again: the store always opens, every tile holds one batch's value, all the same (a
 * write lands whole), and never one older than the last batch reported done. */
static void test_killed_at_random(void **state) {
    (void)state;
    st_level *l = NULL;
    const char *dir = make_store("journal-random", &l);
    srand(11);
    int last_done = -1, first = 1; /* the store's texels start random: no batch yet */
    for (int round = 0; round < 6; round++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            st_error e = {0};
            st_store *s = NULL;
            if (st_store_open(dir, &s, &e)) _exit(2);
            for (int b = first;; b++) {
                st_tile *t[8];
                const st_tile *tiles[8];
                for (int k = 0; k < 8; k++) t[k] = filled((uint32_t)k % 4, (uint32_t)k / 4, (uint8_t)(b % 250)), tiles[k] = t[k];
                if (st_store_write_tiles(s, tiles, 8, NULL, &e)) _exit(5);
                for (int k = 0; k < 8; k++) st_tile_destroy(t[k]);
                unsigned char done = (unsigned char)(b % 250);
                if (write(fds[1], &done, 1) != 1) _exit(3);
            }
        }
        close(fds[1]);
        struct timespec nap = {0, (long)(rand() % 40 + 5) * 1000000L};
        nanosleep(&nap, NULL);
        assert_int_equal(kill(pid, SIGKILL), 0);
        int status = 0;
        waitpid(pid, &status, 0);
        unsigned char done;
        while (read(fds[0], &done, 1) == 1) last_done = done;
        close(fds[0]);
        st_store *s = NULL;
        assert_st_ok(st_store_open(dir, &s, err));
        int v = tile_value(s, 0, 0);
        if (v < 0) { /* no batch reached its journal yet: the store as built, whole */
            assert_int_equal(last_done, -1);
            st_level *back = NULL;
            assert_st_ok(st_store_read_level(s, &back, err));
            for (uint32_t y = 0; y < H; y++) assert_memory_equal(st_level_height_row(back, y), st_level_height_row(l, y), W);
            st_level_destroy(back);
            st_store_close(s);
            continue;
        }
        for (uint32_t k = 1; k < 8; k++) assert_int_equal(tile_value(s, k % 4, k / 4), v);
        if (last_done >= 0) assert_true(v == last_done || v == (last_done + 1) % 250);
        st_store_close(s);
        last_done = v; /* the next writer goes on from what the store holds */
        first = v + 1;
    }
    st_level_destroy(l);
}

static void test_damaged_journal(void **state) {
    (void)state;
    st_level *l = NULL;
    const char *dir = make_store("journal-damaged", &l);
    char jp[1200];
    snprintf(jp, sizeof jp, "%s/journal.bin", dir);
    FILE *f = fopen(jp, "wb");
    assert_non_null(f);
    fputs("STRAJRN1 not a journal at all", f);
    fclose(f);
    st_store *s = NULL;
    st_error e = {0};
    assert_int_equal(st_store_open(dir, &s, &e), ST_ERR_FORMAT);
    assert_null(s);
    st_level_destroy(l);
}

/* A tile of the generated world `spec` at (x, y) with every pair a single floor at v, n texels a side. */
static st_tile *filled_n(uint32_t n, uint32_t x, uint32_t y, uint8_t v) {
    st_tile *t = NULL;
    assert_st_ok(st_tile_create(ST_TILE_LAYERS, ST_TILE_PAIRS, n, &t, err));
    t->key = (st_tile_key){0, x, y};
    uint8_t *q = t->data;
    for (size_t i = 0; i < t->data_bytes; i += 4) q[i] = v, q[i + 1] = 8, q[i + 2] = v, q[i + 3] = 8;
    return t;
}

static bool same_tile(st_store *a, st_store *b, uint32_t x, uint32_t y) {
    st_tile *ta = NULL, *tb = NULL;
    assert_st_ok(st_store_read_tile(a, (st_tile_key){0, x, y}, &ta, err));
    assert_st_ok(st_store_read_tile(b, (st_tile_key){0, x, y}, &tb, err));
    bool same = ta->data_bytes == tb->data_bytes && !memcmp(ta->data, tb->data, ta->data_bytes);
    st_tile_destroy(ta);
    st_tile_destroy(tb);
    return same;
}

#define OVERLAY_SPEC "gen:multi:3:512x512"

static void test_overlay_round_trip(void **state) {
    (void)state;
    char dir[300]; /* test_temp_dir's buffer is reused by the next call */
    snprintf(dir, sizeof dir, "%s", test_temp_dir("overlay-trip"));
    st_store *gen = NULL, *s = NULL;
    assert_st_ok(st_store_open(OVERLAY_SPEC, &gen, err));
    st_error e = {0};
    assert_int_equal(st_store_write_tiles(gen, NULL, 0, NULL, &e), ST_ERR_INVALID); /* no overlay: nowhere to write */
    assert_st_ok(st_store_open_overlay(OVERLAY_SPEC, dir, &s, err));
    const st_store_info *in = st_store_get_info(s);
    assert_string_equal(in->overlay_of, OVERLAY_SPEC);
    assert_int_equal(in->width, 512);
    uint32_t n = in->tile_size;
    assert_true(same_tile(s, gen, 1, 0)); /* nothing edited: the generator's */
    st_tile *t = filled_n(n, 1, 0, 77);
    const st_tile *tiles[1] = {t};
    assert_st_ok(st_store_write_tiles(s, tiles, 1, NULL, err));
    st_tile_destroy(t);
    assert_int_equal(tile_value(s, 1, 0), 77);
    assert_true(same_tile(s, gen, 0, 0));
    st_tile_meta m;
    assert_true(st_store_tile_meta(s, (st_tile_key){0, 1, 0}, &m));
    assert_true(m.min_m == 77 && m.max_m == 77); /* the edited tile's own bounds */
    st_store_close(s);
    /* the folder on its own is the world with its edits; it holds the one edited tile */
    assert_st_ok(st_store_open(dir, &s, err));
    assert_string_equal(st_store_get_info(s)->overlay_of, OVERLAY_SPEC);
    assert_int_equal(tile_value(s, 1, 0), 77);
    assert_true(same_tile(s, gen, 1, 1));
    st_store_close(s);
    st_store *edits = NULL;
    assert_st_ok(st_store_open_overlay(OVERLAY_SPEC, dir, &edits, err)); /* reopened, not made anew */
    assert_int_equal(tile_value(edits, 1, 0), 77);
    st_store_close(edits);
    char path[1200];
    snprintf(path, sizeof path, "%s/tiles/0/0/1.tile", dir);
    assert_int_equal(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/tiles/0/0/0.tile", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    /* another world's overlay, a spec that is no multi-layer world, and a manifest naming one are refused */
    assert_int_equal(st_store_open_overlay("gen:multi:4:512x512", dir, &s, &e), ST_ERR_INVALID);
    assert_null(s);
    assert_int_equal(st_store_open_overlay("gen:3:512x512", test_temp_dir("overlay-dem"), &s, &e), ST_ERR_INVALID);
    st_level *l = NULL;
    const char *plain = make_store("overlay-plain", &l);
    assert_int_equal(st_store_open_overlay(OVERLAY_SPEC, plain, &s, &e), ST_ERR_INVALID);
    st_level_destroy(l);
    snprintf(path, sizeof path, "%s/store.json", dir);
    uint8_t *raw = NULL;
    size_t size = 0;
    assert_st_ok(st_file_read_all(path, 1 << 20, &raw, &size, err));
    char *text = realloc(raw, size + 1);
    assert_non_null(text);
    text[size] = 0;
    char *at = strstr(text, "\"gen:multi:3:512x512\"");
    assert_non_null(at);
    memcpy(at + 1, "gen:abcde", 9); /* "gen:abcde:3:512x512": not a multi-layer world */
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(text, 1, size, f);
    fclose(f);
    free(text);
    assert_int_equal(st_store_open(dir, &s, &e), ST_ERR_FORMAT);
    assert_null(s);
    st_store_close(gen);
}

/* The overlay's writer killed by its PID between its journal and its tiles: reopened, the overlay holds the
 * write, the other tiles are the generator's, the journal is gone. */
static void test_overlay_killed_between_journal_and_tiles(void **state) {
    (void)state;
    const char *dir = test_temp_dir("overlay-kill");
    st_store *s = NULL;
    assert_st_ok(st_store_open_overlay(OVERLAY_SPEC, dir, &s, err)); /* made empty here */
    uint32_t n = st_store_get_info(s)->tile_size;
    st_store_close(s);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        ready_fd = fds[1];
        st_error e = {0};
        st_store *w = NULL;
        if (st_store_open_overlay(OVERLAY_SPEC, dir, &w, &e)) _exit(2);
        st_tile *a = filled_n(n, 0, 1, 31), *b = filled_n(n, 1, 1, 200);
        const st_tile *tiles[2] = {a, b};
        st_store_write_desc d = {.after_journal = signal_and_wait};
        st_store_write_tiles(w, tiles, 2, &d, &e);
        _exit(4);
    }
    close(fds[1]);
    char c = 0;
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    char jp[1200];
    snprintf(jp, sizeof jp, "%s/journal.bin", dir);
    assert_int_equal(access(jp, F_OK), 0); /* killed with its journal down and its tiles not */
    assert_st_ok(st_store_open(dir, &s, err));
    assert_int_equal(tile_value(s, 0, 1), 31);
    assert_int_equal(tile_value(s, 1, 1), 200);
    st_store *gen = NULL;
    assert_st_ok(st_store_open(OVERLAY_SPEC, &gen, err));
    assert_true(same_tile(s, gen, 0, 0));
    st_store_close(gen);
    st_store_close(s);
    assert_int_not_equal(access(jp, F_OK), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_back),
        cmocka_unit_test(test_killed_between_journal_and_tiles),
        cmocka_unit_test(test_killed_at_random),
        cmocka_unit_test(test_damaged_journal),
        cmocka_unit_test(test_overlay_round_trip),
        cmocka_unit_test(test_overlay_killed_between_journal_and_tiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
