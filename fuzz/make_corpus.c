/* Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/: valid inputs made by the library's
 * own writers (a Huffman .vmc, an identity .vmc, .vmp, .vpr, .pal, world.ini, raw, PNG, a PNG set and whole
 * worlds of 512x256, a control map, a layer store's write journals). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

#include "strata/file.h"
#include "strata/heightmap.h"
#include "strata/image.h"
#include "strata/materials.h"
#include "strata/tiles.h"
#include "strata/vangers.h"
#include "tiles/tiles_internal.h"

static const char *root;

/* An 8-bit grey w×h PNG's bytes, through the image writer and a temporary file under dir. */
static int png_bytes(const char *dir, uint32_t w, uint32_t h, const uint8_t *plane, uint8_t **out, size_t *n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/plane.png.tmpseed", dir);
    st_error err = {0};
    if (st_png_write(path, w, h, 1, 8, plane, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    int r = st_file_read_all(path, 1u << 26, out, n, &err) != ST_OK;
    remove(path);
    return r;
}

static void put(const char *target, const char *name, const uint8_t *prefix, size_t np, const void *data,
                size_t n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, target);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", root, target, name);
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        exit(1);
    }
    fwrite(prefix, 1, np, fp);
    fwrite(data, 1, n, fp);
    fclose(fp);
}

/* The journal of a write of two tiles into fuzz_journal_store's store, copied while it is durable (before any
 * tile is written). */
typedef struct journal_copy {
    char path[1100];
    uint8_t *bytes;
    size_t size;
} journal_copy;

static void copy_journal(void *user) {
    journal_copy *c = user;
    st_error err = {0};
    if (st_file_read_all(c->path, 1u << 20, &c->bytes, &c->size, &err)) fprintf(stderr, "%s\n", err.message), exit(1);
}

static void journal_seeds(void) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/journal-store.tmpseed", root);
    st_error err = {0};
    st_store *s = NULL;
    journal_copy c = {0};
    snprintf(c.path, sizeof c.path, "%s/journal.bin", dir);
    if (fuzz_journal_store(dir, &err) || st_store_open(dir, &s, &err)) fprintf(stderr, "%s\n", err.message), exit(1);
    st_tile *t[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        if (st_store_read_tile(s, (st_tile_key){0, (uint32_t)(1 + 2 * k), (uint32_t)k}, &t[k], &err))
            fprintf(stderr, "%s\n", err.message), exit(1);
        uint8_t *q = t[k]->data;
        for (size_t i = 0; i < t[k]->data_bytes; i += 4) q[i] = q[i + 2] = (uint8_t)(50 + 100 * k);
    }
    st_store_write_desc wd = {.after_journal = copy_journal, .user = &c};
    if (st_store_write_tiles(s, (const st_tile *const *)t, 2, &wd, &err)) fprintf(stderr, "%s\n", err.message), exit(1);
    st_tile_destroy(t[0]);
    st_tile_destroy(t[1]);
    st_store_close(s);
    /* flags 0: the journal as written; flags 1: without its CRC, which the target appends */
    uint8_t flags = 0;
    put("journal", "two-tiles.bin", &flags, 1, c.bytes, c.size);
    flags = 1;
    put("journal", "two-tiles-crc.bin", &flags, 1, c.bytes, c.size - 4);
    free(c.bytes);
    /* the scratch store goes; only its journal was wanted */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -r '%s'", dir);
    if (system(cmd)) exit(1);
}

static void control_seed(void) {
    st_control_map *m = NULL;
    st_error err = {0};
    if (st_control_map_create(16, 8, &m, &err)) fprintf(stderr, "%s\n", err.message), exit(1);
    for (size_t i = 0; i < 16 * 8; i++) {
        m->texels[4 * i] = (uint8_t)(i % 5);
        m->texels[4 * i + 1] = (uint8_t)(i % 3);
        m->texels[4 * i + 2] = (uint8_t)(i * 37);
        m->texels[4 * i + 3] = (uint8_t)(i & 1);
    }
    uint8_t *f = NULL;
    size_t n = 0;
    if (st_control_map_encode(m, &f, &n, &err)) fprintf(stderr, "%s\n", err.message), exit(1);
    put("control", "16x8.ctl", NULL, 0, f, n);
    free(f);
    st_control_map_destroy(m);
}

int main(int argc, char **argv) {
    root = argc > 1 ? argv[1] : "fuzz/corpus";
    mkdir(root, 0777);
    st_error err = {0};
    /* A 32×8 level with terraces and a dual pair: W = 2 << 4, H = 1 << 3. */
    const uint32_t w = 32, h = 8;
    uint8_t hh[256], mm[256];
    for (uint32_t i = 0; i < w * h; i++) {
        hh[i] = (uint8_t)((i % w) / 4 * 16 + i / w);
        mm[i] = (uint8_t)(((i % w) / 8) << 3);
    }
    hh[10] = 5, hh[11] = 200, mm[10] = 0x41, mm[11] = 0x42;
    uint8_t size_prefix[2] = {4, 3};
    for (int identity = 0; identity < 2; identity++) {
        uint8_t *f = NULL;
        size_t n = 0;
        st_vmc_encode_desc d = {.identity = identity};
        if (st_vmc_encode(hh, mm, w, h, &d, &f, &n, NULL, &err)) return fprintf(stderr, "%s\n", err.message), 1;
        put("vmc", identity ? "identity.vmc" : "huffman.vmc", size_prefix, 2, f, n);
        free(f);
    }
    uint8_t *f = NULL;
    size_t n = 0;
    st_vmp_encode(hh, mm, w, h, &f, &n, &err);
    put("vmp", "small.vmp", size_prefix, 2, f, n);
    free(f);
    uint8_t flood[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    st_vpr_encode(w, h, 1, 0, flood, &f, &n, &err); /* geonet 1, section 0 → mode byte 1 */
    uint8_t vpr_prefix[3] = {4, 3, 1};
    put("vpr", "small.vpr", vpr_prefix, 3, f, n);
    free(f);
    uint8_t pal[ST_PAL_SIZE];
    for (int i = 0; i < ST_PAL_SIZE; i++) pal[i] = (uint8_t)((i * 7) % 64);
    put("pal", "ramp.pal", NULL, 0, pal, sizeof pal);
    st_world_ini ini = {.map_power_x = 11, .map_power_y = 14, .geonet_power = 5, .section_power = 7,
                        .minimal_square_power = 4, .compressed = true, .terrain_max = 8, .has_colors = true,
                        .begin_color = {1, 32, 64, 72, 88, 104, 112, 120}, .end_color = {31, 63, 71, 87, 103, 111, 119, 127}};
    strcpy(ini.file_name, "output");
    strcpy(ini.palette_file, "harmony.pal");
    char *text = NULL;
    st_world_ini_format(&ini, &text, &n, &err);
    put("world_ini", "fostral.ini", NULL, 0, text, n);
    free(text);
    int16_t raw[64];
    for (int i = 0; i < 64; i++) raw[i] = (int16_t)(i * 97 - 2000);
    uint8_t raw_prefix[3] = {0, 2, 3}; /* raw little-endian, crop; W = 8, H = 8 */
    put("dem", "small-le.raw", raw_prefix, 3, raw, sizeof raw);
    raw_prefix[0] = 6; /* big-endian bytes read as such, resample */
    put("dem", "small-be.raw", raw_prefix, 3, raw, sizeof raw);
    raw_prefix[0] = 8 | 32; /* the same bytes as u16, stretched */
    put("dem", "small-u16.raw", raw_prefix, 3, raw, sizeof raw);
    float f32[64];
    for (int i = 0; i < 64; i++) f32[i] = (float)(i * 9.75 - 100);
    f32[9] = f32[10] = f32[17] = 0.0f / 0.0f; /* voids: a pair and a diagonal neighbour */
    f32[40] = 3e38f;
    uint8_t f32_prefix[3] = {16 | 64, 1, 3}; /* f32 little-endian, auto fit; W = 4, H = 8 (only 32 samples) */
    put("dem", "voids-f32.raw", f32_prefix, 3, f32, 4 * 32);
    /* PNG seeds through the image writer, read back as bytes. */
    char path[1024];
    uint16_t px16[64];
    for (int i = 0; i < 64; i++) px16[i] = (uint16_t)(i * 1000);
    snprintf(path, sizeof path, "%s/seed16.png.tmpseed", root);
    for (int depth = 8; depth <= 16; depth += 8) {
        if (st_png_write(path, 8, 8, 1, depth, depth == 16 ? (const void *)px16 : (const void *)hh, &err))
            return fprintf(stderr, "%s\n", err.message), 1;
        FILE *fp = fopen(path, "rb");
        uint8_t buf[4096];
        size_t got = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        remove(path);
        put("png_heightmap", depth == 16 ? "grey16.png" : "grey8.png", NULL, 0, buf, got);
    }
    /* tiles: a small u16 DEM tile raw and compressed, an f32 one, a layer tile */
    const st_tile_encoding encs[3] = {ST_TILE_U16, ST_TILE_F32, ST_TILE_PAIRS};
    const char *tile_names[3][2] = {{"u16.tile", "u16-zstd.tile"}, {"f32.tile", "f32-zstd.tile"},
                                    {"pairs.tile", "pairs-zstd.tile"}};
    for (int e = 0; e < 3; e++) {
        st_tile *t = NULL;
        if (st_tile_create(e == 2 ? ST_TILE_LAYERS : ST_TILE_DEM, encs[e], e == 2 ? 8 : 9, &t, &err))
            return fprintf(stderr, "%s\n", err.message), 1;
        for (size_t i = 0; i < t->data_bytes; i++) ((uint8_t *)t->data)[i] = (uint8_t)(i * 13 % 61);
        if (encs[e] == ST_TILE_F32)
            for (size_t i = 0; i < 81; i++) ((float *)t->data)[i] = (float)i * 1.5f - 20.0f;
        t->key = (st_tile_key){1, 2, 3};
        t->scale = 0.1;
        t->max_m = 10;
        t->delta_m = 0.5f;
        for (int c = 0; c < 2; c++) {
            if (st_tile_encode(t, c ? ST_TILE_ZSTD : ST_TILE_RAW, &f, &n, &err))
                return fprintf(stderr, "%s\n", err.message), 1;
            put("tile", tile_names[e][c], NULL, 0, f, n);
            free(f);
        }
        st_tile_destroy(t);
    }
    /* a manifest (first byte odd) and a 2x2 index (first byte even, then the geometry bytes 1, 1) */
    st_store_info si = {.kind = ST_TILE_DEM, .encoding = ST_TILE_U16, .compression = ST_TILE_ZSTD, .tile_size = 257,
                        .levels = 2, .width = 300, .height = 200, .spacing_x_m = 10, .spacing_y_m = 10, .scale = 0.1,
                        .max_m = 100, .tiles = 3, .bytes = 999};
    snprintf(si.source, sizeof si.source, "seed");
    if (st_manifest_format(&si, &text, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    uint8_t odd = 1;
    put("store_meta", "store.json", &odd, 1, text, strlen(text));
    free(text);
    st_tile_meta rec[4] = {{0, 1, 0, 7, 100}, {0, 2, 0, 8, 120}, {1, 3, 0.5f, 9, 0}, {-1, 4, 0, 10, 90}};
    if (st_index_encode(0, 2, 2, rec, &f, &n, &err)) return fprintf(stderr, "%s\n", err.message), 1;
    uint8_t idx_prefix[3] = {0, 1, 1};
    put("store_meta", "2x2.idx", idx_prefix, 3, f, n);
    free(f);
    /* The PNG set and whole worlds at sizes that reach the size-driven paths: a 512x256 level (terraces,
     * slabs) as PNG planes, and as a world with a Huffman .vmc, with a .vmp, and without a .vpr. */
    {
        const uint32_t bw = 512, bh = 256;
        st_level *big = NULL;
        if (st_level_create(bw, bh, &big, &err)) return fprintf(stderr, "%s\n", err.message), 1;
        for (uint32_t y = 0; y < bh; y++)
            for (uint32_t x = 0; x < bw; x += 2) {
                if ((x / 32 + y / 32) % 3 == 0) st_level_set_dual(big, (int)x, (int)y, 20, 60, 90, 2, 5);
                else {
                    st_level_set_single(big, (int)x, (int)y, (uint8_t)((x / 64) * 24 + y / 16), (uint8_t)(x / 80));
                    st_level_set_single(big, (int)x + 1, (int)y, (uint8_t)((x / 64) * 24 + y / 16), (uint8_t)(x / 80));
                }
            }
        const uint8_t *heights, *meta;
        st_level_planes(big, &heights, &meta);
        uint8_t *hp = NULL, *mp = NULL;
        size_t hn = 0, mn = 0;
        if (png_bytes(root, bw, bh, heights, &hp, &hn) || png_bytes(root, bw, bh, meta, &mp, &mn))
            return fprintf(stderr, "PNG seeds failed\n"), 1;
        uint8_t len[4] = {(uint8_t)hn, (uint8_t)(hn >> 8), (uint8_t)(hn >> 16), (uint8_t)(hn >> 24)};
        uint8_t *set = malloc(4 + hn + mn);
        memcpy(set, len, 4);
        memcpy(set + 4, hp, hn);
        memcpy(set + 4 + hn, mp, mn);
        put("png_set", "terraces-512x256.bin", NULL, 0, set, 4 + hn + mn);
        free(set);
        free(hp);
        free(mp);
        for (int variant = 0; variant < 3; variant++) {
            st_world_ini wi;
            st_world_ini_from_level(big, variant != 1, &wi);
            uint8_t *map = NULL, *vpr = NULL, palette[ST_PAL_SIZE];
            size_t map_n = 0, vpr_n = 0, ini_n = 0;
            if (variant == 1) st_vmp_encode(heights, meta, bw, bh, &map, &map_n, &err);
            else st_vmc_encode(heights, meta, bw, bh, NULL, &map, &map_n, NULL, &err);
            wi.has_map_crc = variant != 2;
            wi.map_crc = st_crc32(map, map_n);
            st_pal_encode(big->palette, palette);
            st_vpr_encode(bw, bh, wi.geonet_power, wi.section_power, big->flood, &vpr, &vpr_n, &err);
            char *ini_text = NULL;
            st_world_ini_format(&wi, &ini_text, &ini_n, &err);
            size_t total = 8 + ini_n + ST_PAL_SIZE + (variant == 2 ? 0 : vpr_n) + map_n;
            uint8_t *world = malloc(total), *p = world;
            uint32_t vl = variant == 2 ? 0xFFFFFFFFu : (uint32_t)vpr_n;
            uint8_t head[8] = {(uint8_t)ini_n, (uint8_t)(ini_n >> 8), ST_PAL_SIZE & 255, ST_PAL_SIZE >> 8,
                               (uint8_t)vl, (uint8_t)(vl >> 8), (uint8_t)(vl >> 16), (uint8_t)(vl >> 24)};
            memcpy(p, head, 8), p += 8;
            memcpy(p, ini_text, ini_n), p += ini_n;
            memcpy(p, palette, ST_PAL_SIZE), p += ST_PAL_SIZE;
            if (variant != 2) memcpy(p, vpr, vpr_n), p += vpr_n;
            memcpy(p, map, map_n);
            static const char *const names[3] = {"vmc-512x256.bin", "vmp-512x256.bin", "vmc-no-vpr-no-crc.bin"};
            put("world", names[variant], NULL, 0, world, total);
            free(world);
            free(map);
            free(vpr);
            free(ini_text);
        }
        st_level_destroy(big);
    }
    control_seed();
    journal_seeds();
    printf("seed corpora written under %s\n", root);
    return 0;
}
