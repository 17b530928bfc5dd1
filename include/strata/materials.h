/* Terrain materials: the set of repeating surface textures the textured shading samples (albedo, height and
 * normal per material, tileable, with mips), synthesised from noise or read from a world's own PNGs, and the
 * control map that says which material lies where (base, overlay, blend per texel), filled by rules or from a
 * level's material types, painted, saved and loaded. Knows no GPU. */
#ifndef STRATA_MATERIALS_H
#define STRATA_MATERIALS_H

#include "strata/level.h"

#define ST_MATERIAL_MAX 32    /* layers of a material set (control ids beyond the set's count clamp to it) */
#define ST_MATERIAL_SIZE 256  /* texels a side of mip 0 of a synthesised material */
#define ST_MATERIAL_NAME 24

/* The synthesised materials, in layer order. The first eight are the generator's material types (a level's
 * type t shows material t); the rest are what rules put on DEMs. */
typedef enum st_material_id {
    ST_MAT_SILT,      /* a river bed's wet mud */
    ST_MAT_SAND,      /* rippled fine sand */
    ST_MAT_GRASS,     /* grass with dry patches */
    ST_MAT_ROCK,      /* cracked grey rock */
    ST_MAT_CLAY,      /* dried, cracked clay */
    ST_MAT_BASALT,    /* dark jointed basalt columns */
    ST_MAT_CHALK,     /* streaked white chalk */
    ST_MAT_METAL,     /* riveted plates */
    ST_MAT_DIRT,      /* brown soil with small stones */
    ST_MAT_SNOW,      /* wind-packed snow */
    ST_MAT_GRAVEL,    /* rounded pebbles */
    ST_MAT_SANDSTONE, /* layered sedimentary rock */
    ST_MAT_SYNTH_COUNT
} st_material_id;

/* A material set: `count` layers of size² texels at mip 0 and `mips` levels down to 1×1, each layer's mips in
 * order from mip 0. albedo_height: RGBA8, rgb the sRGB-encoded albedo, a the height (0..255 = 0..1, the
 * material's relief for height blending); normal: RGBA8, rgb the tangent-space normal ·0.5 + 0.5 (z up), a 255. */
typedef struct st_material_set {
    uint32_t count, size, mips;
    char names[ST_MATERIAL_MAX][ST_MATERIAL_NAME];
    float mean[ST_MATERIAL_MAX][3]; /* the linear mean albedo of each layer (the tint's reference) */
    float period[ST_MATERIAL_MAX];  /* world units (texels, or metres on a DEM) one repeat covers */
    uint8_t *albedo_height;
    uint8_t *normal;
    size_t layer_bytes; /* bytes of one layer's mips in either array */
} st_material_set;

/* Synthesises the ST_MAT_SYNTH_COUNT materials (deterministic: the same bytes every run, on any machine),
 * on the job system. */
st_result st_material_set_synthesize(st_material_set **out, st_error *err);
void st_material_set_destroy(st_material_set *set);
/* Byte offset of mip `mip` within a layer (either array). */
size_t st_material_mip_offset(const st_material_set *set, uint32_t mip);
/* Replaces or adds materials from a world's folder (docs/materials.md): for every NAME_albedo.png in dir,
 * NAME_height.png and NAME_normal.png are optional; a name of the set replaces that layer, a new one is added
 * (at most ST_MATERIAL_MAX). Every PNG must be size × size (the set's); a missing folder adds nothing
 * (*added = 0). Bad files are ST_ERR_FORMAT / ST_ERR_INVALID naming the file. */
st_result st_material_set_load_folder(st_material_set *set, const char *dir, uint32_t *added, st_error *err);
/* The layer of that name, or −1. */
int st_material_find(const st_material_set *set, const char *name);

/* The height blend of two materials (the GLSL twin is surface_color's in shaders/common/materials.glsl):
 * h_i = height_i + weight_i, top = max h_i − 0.2, b_i = max(h_i − top, 0), normalised. blend is the overlay's
 * weight (0..1, the base's is 1 − blend); out[0] the base's share, out[1] the overlay's; they sum to 1. */
void st_material_height_blend(float base_height, float overlay_height, float blend, float out[2]);

/* ---- the control map ----------------------------------------------------------------------------------
 * One texel per level texel, 4 bytes: base material, overlay material, the overlay's weight (0..255) and flags.
 * It describes the top surface of a column; a floor under a slab shows its own type's material. */
#define ST_CONTROL_TINT 0x01u /* colour the materials by the level type's flat colour (Vangers and generated worlds) */

typedef struct st_control_map {
    uint32_t width, height;
    uint8_t *texels; /* width·height·4, row-major */
} st_control_map;

/* How a control map is filled from a level. */
typedef enum st_control_rule {
    ST_CONTROL_AUTO,  /* FROM_TYPES for a level that wraps (Vangers worlds, the generator), else BY_RULES (DEMs) */
    ST_CONTROL_FROM_TYPES, /* base = the top layer's type, overlay = rock where steep; tinted */
    ST_CONTROL_BY_RULES,   /* slope, height, curvature and water distance choose grass, dirt, rock, sand, snow */
} st_control_rule;

/* A zeroed map (every texel base 0, no overlay) of a level's size: ST_ERR_INVALID for a size
 * st_level_check_size refuses, ST_ERR_NOMEM when out of memory. */
st_result st_control_map_create(uint32_t width, uint32_t height, st_control_map **out, st_error *err);
void st_control_map_destroy(st_control_map *map);
/* Fills the texels of rect (clipped to the map; the level must have the map's size) from level by rule. */
void st_control_map_fill(st_control_map *map, const st_level *level, st_rect rect, st_control_rule rule);
/* The map's file in memory (docs/materials.md): magic, width, height, the texels' CRC, the deflated size and the
 * deflated texels. *bytes (size bytes) is the caller's to free; ST_ERR_NOMEM when out of memory. */
st_result st_control_map_encode(const st_control_map *map, uint8_t **bytes, size_t *size, st_error *err);
/* Writes the map to path atomically (st_control_map_encode's bytes). */
st_result st_control_map_save(const st_control_map *map, const char *path, st_error *err);
/* Decodes bytes made by st_control_map_encode (name labels the messages); truncated, corrupt or oversized
 * bytes are ST_ERR_FORMAT, *out NULL. */
st_result st_control_map_decode(const uint8_t *data, size_t size, const char *name, st_control_map **out,
                                st_error *err);
/* Reads a map saved by st_control_map_save (st_control_map_decode of the file's bytes). */
st_result st_control_map_load(const char *path, st_control_map **out, st_error *err);

/* A round brush stroke: texels within radius of (cx, cy) get `material` as their overlay, its weight raised
 * toward 255 by strength (0..1) with a soft edge; where the overlay already differs, the old overlay becomes the
 * base first. *dirty (may be NULL) receives the rectangle of texels that changed (empty if none). */
void st_control_map_paint(st_control_map *map, float cx, float cy, float radius, uint8_t material, float strength,
                          st_rect *dirty);
/* Copies the texels of rect (clipped to the map) out of the map: the clipped rect's w·h·4 bytes, row-major. */
void st_control_map_read_rect(const st_control_map *map, st_rect rect, uint8_t *out);
/* Copies them back in (undo): the inverse of st_control_map_read_rect. */
void st_control_map_write_rect(st_control_map *map, st_rect rect, const uint8_t *in);

#endif
