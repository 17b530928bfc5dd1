/* The Vangers world formats, parsed from and written to memory buffers: world.ini, .vmc (Huffman-coded
 * rows), .vmp (raw rows), .vpr (only its flood levels are kept) and .pal (6-bit VGA palette).
 * Every decoder takes (data, size) so it can be fuzzed without touching the filesystem. */
#ifndef STRATA_VANGERS_H
#define STRATA_VANGERS_H

#include "strata/level.h"

/* ---- world.ini ------------------------------------------------------------------------------------- */
typedef struct st_world_ini {
    uint32_t map_power_x, map_power_y; /* W = 2^x, H = 2^y */
    uint32_t geonet_power;             /* sizes the .vpr tables */
    uint32_t section_power;            /* flood sections of 2^p rows */
    uint32_t minimal_square_power;     /* unused, kept for writing */
    bool compressed;                   /* Compressed Format Using: true → .vmc, false → .vmp */
    char file_name[128];               /* map file name without extension, relative to the ini */
    char palette_file[128];            /* relative to the ini */
    uint32_t terrain_max;              /* 8 or 16 */
    bool has_colors;                   /* Begin Colors and End Colors were present */
    uint8_t begin_color[16], end_color[16];
    /* [Strata] Map CRC32: the CRC-32 of the whole map file, written by strata (the original game reads
     * world.ini by section and key, so it ignores the section); checked on load when present. */
    bool has_map_crc;
    uint32_t map_crc;
    bool wrap_x, wrap_y;               /* [Strata] Wrap X / Wrap Y: the map repeats along that axis (default) */
    /* [Strata] Color Map: the level's colour map (st_level.colors), an 8-bit RGB PNG of the map's size beside
     * the ini, read by st_world_load_colors; "" = none. A plain file name. */
    char color_file[128];
} st_world_ini;

/* Parses the text of a world.ini. `name` only labels error messages. Missing optional keys get the
 * Fostral defaults (Terrain Max 8, the standard colour ramps, wrapping in x and y); missing required keys are
 * errors. The [Strata] section (Wrap X, Wrap Y: 0 or 1) is strata's own; the original game ignores it. */
st_result st_world_ini_parse(const char *text, size_t size, const char *name, st_world_ini *out, st_error *err);
/* Fills an ini describing level (file name "output", palette "harmony.pal", GeoNet Power 5 or less, its wrap
 * flags). */
void st_world_ini_from_level(const st_level *level, bool compressed, st_world_ini *out);
/* Formats ini as text into a malloc'd NUL-terminated string; a [Strata] section only when an axis does not
 * wrap, so a wrapping world's ini is the stock layout. */
st_result st_world_ini_format(const st_world_ini *ini, char **text, size_t *size, st_error *err);
/* An existing world.ini's text with the keys strata writes set to ini's values (map and GeoNet powers,
 * section power, File Name, Palette File, Compressed Format Using, Version, Terrain Max, Begin/End Colors,
 * [Strata] Map CRC32), every other line (Shadow Offsets, Height Shifts, Dynamic Palette, comments, ...) kept
 * as it was; keys it lacks are added to their section. *text is malloc'd. */
st_result st_world_ini_update(const char *old_text, size_t old_size, const st_world_ini *ini, char **text,
                              size_t *size, st_error *err);

/* ---- .vmc ------------------------------------------------------------------------------------------- */
#define ST_VMC_TREE_SIZE 512
#define ST_VMC_MAX_ROW_BYTES 32767 /* the row size is an i16 */

/* Checks a 512-entry decode tree: entries reachable from node 1 are node links (1..255) or leaves (≤ 0);
 * a link out of range or a cycle is rejected. */
st_result st_vmc_tree_check(const int32_t tree[ST_VMC_TREE_SIZE], const char *name, st_error *err);
/* Checks a .vmc's header against a W×H level without decoding: the row table and trees fit, every row lies
 * inside the file and is long enough for its symbols. Cheap (one pass over H table entries), so a loader can
 * run it before it allocates the level. */
st_result st_vmc_check(const uint8_t *data, size_t size, uint32_t width, uint32_t height, const char *name,
                       st_error *err);
/* Decodes a whole .vmc of a W×H level into heights and meta (each W*H bytes), rows in parallel (after
 * st_vmc_check). */
st_result st_vmc_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint8_t *heights,
                        uint8_t *meta, const char *name, st_error *err);

typedef struct st_vmc_encode_desc {
    bool identity;        /* the trivial 8-bit code instead of Huffman codes */
    uint32_t max_code_len; /* 0 = 15; the writer lowers it further if a row would not fit */
} st_vmc_encode_desc;

typedef struct st_vmc_encode_info {
    uint64_t bytes;          /* the file's size */
    uint64_t identity_bytes; /* what the identity code takes: 6H + 4096 + 2WH */
    uint32_t code_len_limit; /* the code length limit that made every row fit */
    uint32_t max_len_height, max_len_meta;
    uint32_t symbols_height, symbols_meta; /* distinct symbols of each stream */
} st_vmc_encode_info;

/* Encodes the planes as a .vmc with one Huffman code per stream (heights by wrapping delta, meta by xor),
 * in the original 512-entry tree layout; *data is malloc'd. info may be NULL. */
st_result st_vmc_encode(const uint8_t *heights, const uint8_t *meta, uint32_t width, uint32_t height,
                        const st_vmc_encode_desc *desc, uint8_t **data, size_t *size, st_vmc_encode_info *info,
                        st_error *err);

/* ---- .vmp: per row W height bytes then W meta bytes -------------------------------------------------- */
st_result st_vmp_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint8_t *heights,
                        uint8_t *meta, const char *name, st_error *err);
/* The planes as a .vmp (2·W·H bytes); *data is malloc'd. */
st_result st_vmp_encode(const uint8_t *heights, const uint8_t *meta, uint32_t width, uint32_t height,
                        uint8_t **data, size_t *size, st_error *err);

/* ---- .vpr: only the per-section flood levels (the last S u32s) are kept -------------------------------- */
/* 8 + 36 + 2N + 8P + 8SP + 4S with N = (W*H) >> 2P, S = H >> section_power; 0 when the sizes overflow. */
uint64_t st_vpr_size(uint32_t width, uint32_t height, uint32_t geonet_power, uint32_t section_power);
/* flood receives S = H >> section_power bytes (the low byte of each level). */
st_result st_vpr_decode(const uint8_t *data, size_t size, uint32_t width, uint32_t height, uint32_t geonet_power,
                        uint32_t section_power, uint8_t *flood, const char *name, st_error *err);
/* Writes zeroed GeoNet tables and the flood levels; *data is malloc'd. */
st_result st_vpr_encode(uint32_t width, uint32_t height, uint32_t geonet_power, uint32_t section_power,
                        const uint8_t *flood, uint8_t **data, size_t *size, st_error *err);

/* ---- .pal: 256 × RGB, 6-bit components ------------------------------------------------------------- */
#define ST_PAL_SIZE 768
/* Exactly ST_PAL_SIZE bytes, every component ≤ 63 (ST_ERR_FORMAT otherwise, name labelling the message), widened
 * to 8 bits by replicating the top bits (63 → 255). */
st_result st_pal_decode(const uint8_t *data, size_t size, st_rgb8 palette[256], const char *name, st_error *err);
/* The 6-bit components (v >> 2): the inverse of st_pal_decode, byte for byte. */
void st_pal_encode(const st_rgb8 palette[256], uint8_t out[ST_PAL_SIZE]);

/* ---- whole worlds ----------------------------------------------------------------------------------- */
typedef struct st_world_save_desc {
    bool vmp;         /* write the uncompressed .vmp instead of .vmc */
    bool identity;    /* .vmc with the identity code */
    /* Called after each durable step of the save (tests stop a save there); NULL = none. Steps: each data
     * file written as NAME.new, the journal world.ini.new written (the commit point), each rename. */
    void (*on_step)(void *user, int step, const char *what);
    void *step_user;
} st_world_save_desc;

/* The bytes of a world's files, for st_world_decode; vpr may be NULL (absent: flood levels 0). The names label
 * messages (NULL: generic ones). */
typedef struct st_world_files {
    const uint8_t *ini, *map, *pal, *vpr;
    size_t ini_size, map_size, pal_size, vpr_size;
    const char *ini_name, *map_name, *pal_name, *vpr_name;
} st_world_files;

/* A level from a world's files in memory: world.ini parsed, then every size checked against it (map header,
 * palette, .vpr) and the map's CRC-32 against [Strata] Map CRC32 (a warning when world.ini has none) before
 * the level is allocated. */
st_result st_world_decode(const st_world_files *files, st_level **out, st_error *err);

/* st_world_save with options; info (may be NULL) reports the .vmc coding. */
st_result st_world_save_ex(const st_level *level, const char *dir, const st_world_save_desc *desc,
                           st_vmc_encode_info *info, st_error *err);

#endif
