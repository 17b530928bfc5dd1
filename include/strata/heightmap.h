/* Elevation models (DEMs) and raster images of levels: import of 8/16-bit greyscale PNG, SRTM .hgt, raw
 * s16/u16/f32 grids and (through strata/dem.h) every raster GDAL reads into st_heightmap; quantisation of a
 * heightmap into a single-layer st_level with power-of-two sides at its true vertical scale; a level as a PNG
 * set (height.png, meta.png, preview.png) and back. */
#ifndef STRATA_HEIGHTMAP_H
#define STRATA_HEIGHTMAP_H

#include "strata/level.h"

#define ST_HEIGHTMAP_MAX_SAMPLES (1u << 27) /* 128 Mi samples: 512 MiB of int32 */
#define ST_HGT_VOID (-32768)

/* Samples are integers: a sample is vertical_scale metres per unit. Sources whose samples are integers (PNG,
 * .hgt, s16/u16 raw, integral GDAL bands, Terrarium, Terrain-RGB) keep their own unit, so nothing is rounded;
 * float sources (f32 raw, float GDAL bands) are held in millimetres of their unit (vertical_scale = 0.001 ×
 * the unit), which covers ±2,147 km exactly to 1 mm. */
typedef struct st_heightmap {
    uint32_t width, height;
    int32_t *samples;           /* row-major, first row = north/top */
    double metres_per_sample;   /* horizontal spacing (east-west), 0 when the format does not say */
    double metres_per_sample_y; /* north-south spacing where it differs (geographic grids); 0 = the same */
    double vertical_scale;      /* metres per sample unit */
    int32_t min, max;           /* over all samples after void filling */
    uint64_t voids_filled;      /* void (nodata) samples filled from their neighbours */
    uint64_t voids_sea_level;   /* of those, the ones with no valid sample near enough: set to the sea level */
    bool wrap_x;                /* a whole globe east-west: the samples repeat along x (st_dem_info.wrap_x) */
} st_heightmap;

typedef enum st_endian { ST_ENDIAN_LITTLE = 0, ST_ENDIAN_BIG = 1 } st_endian;
/* The sample type of a raw grid. */
typedef enum st_dem_raw_type { ST_DEM_RAW_S16 = 0, ST_DEM_RAW_U16 = 1, ST_DEM_RAW_F32 = 2 } st_dem_raw_type;

/* Greyscale PNG, 8- or 16-bit (grey+alpha accepted, alpha ignored; colour is refused). */
st_result st_heightmap_decode_png(const uint8_t *data, size_t size, const char *name, st_heightmap **out,
                                  st_error *err);
/* SRTM .hgt: big-endian int16, 1201² (3″) or 3601² (1″); voids (−32768) filled by the DEM readers' rule
 * (docs/formats.md: the inverse-distance-squared mean of the nearest valid samples, each from its own
 * neighbourhood only). A tile that is all voids is an error. */
st_result st_heightmap_decode_hgt(const uint8_t *data, size_t size, const char *name, st_heightmap **out,
                                  st_error *err);
/* Raw rows, no header: size must be exactly W·H samples of the type (2 bytes for s16/u16, 4 for f32). s16 and
 * u16 samples are kept as they are (vertical_scale 1); f32 ones in millimetres (vertical_scale 0.001), with
 * non-finite samples and samples beyond ±100 km read as voids and filled as .hgt voids are. */
st_result st_heightmap_decode_raw(const uint8_t *data, size_t size, uint32_t width, uint32_t height,
                                  st_dem_raw_type type, st_endian endian, const char *name, st_heightmap **out,
                                  st_error *err);
void st_heightmap_destroy(st_heightmap *hm);

typedef struct st_heightmap_read_desc {
    uint32_t raw_width, raw_height; /* non-zero: read as a raw grid of this size, whatever the extension */
    st_dem_raw_type raw_type;       /* for raw: s16 (default), u16 or f32 */
    st_endian endian;               /* for raw */
    double units_m;                 /* metres per sample unit where the format carries none (PNG, raw); 0 = 1 */
    double spacing_m;               /* metres between samples where the format carries none; 0 = unknown */
} st_heightmap_read_desc;
/* Reads one file of any format st_dem_open takes (PNG, .hgt, raw, .r16, GeoTIFF and every raster GDAL
 * reads) whole into a heightmap; more than ST_HEIGHTMAP_MAX_SAMPLES samples is an error. A missing file says
 * "No such file or directory". desc may be NULL. */
st_result st_heightmap_read(const char *path, const st_heightmap_read_desc *desc, st_heightmap **out,
                            st_error *err);

typedef enum st_fit {
    ST_FIT_AUTO = 0,     /* crop when the cropped window keeps its true scale in 256 steps, else resample to
                            the finest powers of two that do */
    ST_FIT_CROP = 1,     /* centred window of the largest powers of two that fit (exact samples) */
    ST_FIT_RESAMPLE = 2, /* bilinear to the nearest powers of two (keeps the whole extent) */
} st_fit;

typedef struct st_heightmap_level_desc {
    st_fit fit;
    uint32_t width, height; /* 0 = chosen as the fit says */
    double spacing_m;       /* metres between samples; 0 = the heightmap's (an error when it has none either) */
    double exaggerate;      /* vertical exaggeration; 0 = 1, the true scale */
    bool stretch;           /* ignore the scale: heights 0..255 span the window's min..max (no spacing needed) */
    bool keep_steps;        /* each sample is its height step as it is (no shift, no scale; no spacing needed):
                               an 8-bit height map kept 1:1, as Comanche-style maps are. Samples must lie in 0..255 */
} st_heightmap_level_desc;

typedef struct st_heightmap_level_info {
    uint32_t x0, y0, src_width, src_height; /* the source window used */
    bool resampled;
    double base_metres;      /* elevation of height step 0 */
    double step_metres;      /* metres per height step */
    double texel_metres;     /* metres per texel east-west (0 when stretched without a spacing) */
    double texel_metres_y;   /* and north-south: differs from texel_metres when the samples are not square */
    double exaggeration;     /* texel_metres / step_metres: 1 at the true scale */
    uint32_t steps_used;     /* highest height step in use + 1 */
    double max_error_metres; /* largest |quantised − source| over the (resampled) grid */
    uint64_t water_texels;   /* elevation ≤ 0: material 0 */
} st_heightmap_level_info;

/* A single-layer level at the true vertical scale: one height step is one texel's width in metres, divided
 * by desc->exaggerate (desc->stretch instead spans the window's min..max over heights 0..255). Step 0 is the
 * window's lowest elevation. Material 0 at or below sea level (elevation ≤ 0) and 1..7 by height bands
 * above; flood levels at the sea-level step. The level wraps in x only when the heightmap does (a whole globe)
 * and the level keeps its whole width (resampled across the seam); it never wraps in y: past a DEM's edge
 * there is nothing. When the relief needs more than 256 steps at the chosen size
 * the error names the largest --exaggerate that fits. desc->keep_steps with desc->stretch or an exaggeration is
 * ST_ERR_INVALID, and so is a sample outside 0..255 with keep_steps. */
st_result st_heightmap_to_level(const st_heightmap *hm, const st_heightmap_level_desc *desc, st_level **out,
                                st_heightmap_level_info *info, st_error *err);

/* The PNG set of a level: dir/height.png and dir/meta.png (8-bit grey planes) and dir/preview.png (top-down
 * colour through the palette: each texel's visible material ramp at its height). Each file is atomic. A level
 * that does not wrap along an axis says so in height.png's tEXt chunk "Strata Wrap" ("x", "y" or "none"). */
st_result st_level_write_pngs(const st_level *level, const char *dir, st_error *err);
/* Reads dir/height.png and dir/meta.png (8-bit grey, equal power-of-two sizes) into a level with the
 * default palette and 8 material types, wrapping as height.png's "Strata Wrap" says (in x and y without it;
 * st_level_decode_pngs of the two files). */
st_result st_level_read_pngs(const char *dir, st_level **out, st_error *err);
/* The same from memory: both headers are checked (layout, equal sizes, st_level_check_size) before either
 * plane is decoded; the wrap flags come from height.png's "Strata Wrap" chunk. The names label messages (NULL: height.png, meta.png). */
st_result st_level_decode_pngs(const uint8_t *height_png, size_t height_size, const uint8_t *meta_png,
                               size_t meta_size, const char *height_name, const char *meta_name, st_level **out,
                               st_error *err);
/* ---- Comanche-style worlds: a height map and its colour map (docs/formats.md, "Height and colour maps") ---- */
/* A level from an 8-bit height map (grey, or palette/RGB whose pixels are grey) whose samples are the height
 * steps as they are, and a colour map of the same size (8- or 16-bit grey, RGB, RGBA or palette; alpha ignored)
 * that becomes level->colors, the albedo of every column's top. Sides that are not powers of two are cropped to
 * the largest that fit, the same centred window of both. Material types by height bands (height 0: type 0);
 * the level wraps as the height map's "Strata Wrap" text chunk says, in neither axis without one. color_png
 * NULL: the height map alone, no colour map. Both headers are judged before anything is decoded: sizes that
 * differ, a height map that is not 8-bit, bytes that are no PNG are ST_ERR_FORMAT naming the file. */
st_result st_level_decode_color_pair(const uint8_t *height_png, size_t height_size, const uint8_t *color_png,
                                     size_t color_size, const char *height_name, const char *color_name,
                                     st_level **out, st_error *err);
/* Reads the two files (color_path NULL: the height map alone; a named pipe or a device is refused, not waited
 * on) and decodes them; the level is named after the pair's folder when the height map is its height.png, else
 * after the height map. */
st_result st_level_load_color_pair(const char *height_path, const char *color_path, st_level **out, st_error *err);

/* A world given as a pair: a folder holding height.png and color.png but no world.ini (the pair), or a .png
 * file (a height map alone). *taken says whether path was one of them (then the result is the load's); for any
 * other path nothing is done (ST_OK, *taken false), and st_world_load reads it. Kept apart from st_world_load,
 * which the web build takes without the PNG readers. */
st_result st_level_load_world_pair(const char *path, bool *taken, st_level **out, st_error *err);
/* The colour map of a saved world (st_world_save writes a level's st_level.colors as the PNG its world.ini names,
 * [Strata] Color Map) into level->colors, which it replaces: path is the world's folder or its world.ini, as
 * st_world_load takes it, and level what st_world_load read from it (an interrupted save's journal is followed
 * alike). A world.ini naming none leaves level as it is; a missing, damaged or mis-sized colour map is
 * ST_ERR_IO / ST_ERR_FORMAT naming the file. */
st_result st_world_load_colors(const char *path, st_level *level, st_error *err);
/* Reads the colour-map PNG at path (8- or 16-bit grey/RGB(A), of level's size) into level->colors as 8-bit RGB,
 * replacing it; a missing, damaged or mis-sized file is an error naming it, level unchanged. */
st_result st_level_read_color_map(const char *path, st_level *level, st_error *err);

/* The preview colours (W×H RGB) used by st_level_write_pngs; *rgb is malloc'd. */
st_result st_level_preview(const st_level *level, uint8_t **rgb, st_error *err);

#endif
