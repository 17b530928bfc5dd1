/* libFuzzer target: the write journal of a layer store, replayed when the store is opened. A 32x16 store of 8x8
 * tiles is built once in a fresh folder under the current one; each input becomes its journal.bin and the store is
 * opened (fuzz_journal_store). Input: one byte of flags, then the journal; flag bit 0 appends the journal's CRC-32 (so mutations reach
 * the records rather than stopping at the checksum). A refused journal must be ST_ERR_FORMAT and leave the store
 * as it was; an accepted one must leave a store whose every tile reads, and is then built again. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "strata/tiles.h"
#include "tiles/tiles_internal.h"

static char dir[64];

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_dir(void) {
    if (dir[0]) nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void build_store(void) {
    st_error err = {0};
    if (fuzz_journal_store(dir, &err)) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "fuzz-journal-XXXXXX");
        if (!mkdtemp(dir)) __builtin_trap();
        atexit(remove_dir);
        build_store();
    }
    if (size < 1) return 0;
    bool add_crc = data[0] & 1;
    size_t n = size - 1 + (add_crc ? 4 : 0);
    uint8_t *j = malloc(n ? n : 1);
    memcpy(j, data + 1, size - 1);
    if (add_crc) st_le_put32(j + size - 1, st_crc32(data + 1, size - 1));
    char path[128];
    snprintf(path, sizeof path, "%s/journal.bin", dir);
    FILE *fp = fopen(path, "wb"); /* plain writes: a synced one per input would cost most of the time */
    if (!fp || fwrite(j, 1, n, fp) != n || fclose(fp)) __builtin_trap();
    free(j);
    st_error err = {0};
    st_store *s = NULL;
    st_result r = st_store_open(dir, &s, &err);
    if (r) {
        if (r != ST_ERR_FORMAT) __builtin_trap();
        remove(path);
        return 0;
    }
    if (!access(path, F_OK)) __builtin_trap(); /* an applied journal is removed */
    const st_store_info *in = st_store_get_info(s);
    for (uint32_t y = 0; y < 2; y++)
        for (uint32_t x = 0; x < 4; x++) {
            st_tile *t = NULL;
            if (st_store_read_tile(s, (st_tile_key){0, x, y}, &t, &err) || t->size != in->tile_size) __builtin_trap();
            st_tile_destroy(t);
        }
    st_store_close(s);
    remove_dir(); /* the next input starts from the store as built */
    build_store();
    return 0;
}
