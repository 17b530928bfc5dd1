/* DEM sources: full-resolution elevation samples in metres, read in windows, so that a raster of any size is
 * never held whole. The readers of real rasters (8/16-bit PNG, SRTM .hgt mosaics, raw grids, GeoTIFF and every
 * raster GDAL reads, Terrarium and Terrain-RGB tile folders) live in src/io/; the procedural generator and the
 * amplifier in src/terrain/. The tile store builder (strata/tiles.h) reads any of them through this one
 * interface. */
#ifndef STRATA_DEM_H
#define STRATA_DEM_H

#include "strata/heightmap.h"

#define ST_DEM_MAX_SIDE (1ull << 24)      /* samples per axis: a 1″ planet is 1.3 M × 0.65 M */
#define ST_DEM_MAX_WINDOW (1u << 26)      /* samples of one read */

typedef struct st_dem_info {
    uint64_t width, height;          /* samples */
    double spacing_x_m, spacing_y_m; /* metres between samples; 0 when the source cannot tell (see --spacing) */
    double unit_m;                   /* > 0: every sample is an integer multiple of unit_m metres (exact u16) */
    double min_m, max_m;             /* a bound on every sample the source returns (may be conservative) */
    double sea_level_m;              /* the elevation of the sea surface, 0 for every source we read */
    bool wrap_x;                     /* periodic in x: a whole-globe grid (ETOPO), so x wraps instead of clamping */
    bool has_voids;                  /* the raster has nodata samples, which the source fills */
    char description[256];           /* one line: "ps_height_1k.png: 16-bit grey PNG, 1025x1025" */
    bool georeferenced;              /* geotransform and crs are known */
    double geotransform[6];          /* GDAL's: X = g0 + col·g1 + row·g2, Y = g3 + col·g4 + row·g5 */
    char crs[128];                   /* the coordinate system's name ("WGS 84", "NAD83 / UTM zone 10N") */
} st_dem_info;

typedef struct st_dem_source st_dem_source;

typedef struct st_dem_source_ops {
    /* Fills out[w·h] (row-major) with samples [x0, x0 + w) × [y0, y0 + h), in metres. Coordinates outside the
     * raster clamp to its edge (x wraps instead when wrap_x). Voids come back filled, by a rule that depends
     * only on the sample's own neighbourhood, so windows that overlap agree. Thread-safe: the builder reads
     * from every worker at once. */
    st_result (*read)(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err);
    /* Optional: a bound in metres on how far the bilinear surface through the samples at stride 2^level departs
     * from the finest samples anywhere (the generator knows its spectrum); NULL = unknown, measure it. */
    double (*level_error)(void *state, uint32_t level);
    /* Optional: samples (x0 + i·stride, y0 + j·stride) for i < w, j < h, as read() would return them; lets a
     * generated store make a coarse tile without evaluating its full-resolution footprint. NULL = stride 1 only. */
    st_result (*read_stride)(void *state, int64_t x0, int64_t y0, uint32_t stride, uint32_t w, uint32_t h,
                             float *out, st_error *err);
    void (*destroy)(void *state);
    /* Optional: how many void samples the reads so far have filled, and how many of those found no valid
     * sample within the fill radius and took the sea level (a sample read twice counts twice). */
    void (*void_counts)(void *state, uint64_t *filled, uint64_t *sea_level);
} st_dem_source_ops;

/* Wraps a reader (ops + state, state owned from now on) into a source. On failure ops->destroy(state) has
 * run. info is copied. */
st_result st_dem_source_create(const st_dem_source_ops *ops, void *state, const st_dem_info *info,
                               st_dem_source **out, st_error *err);
/* Destroys the source and its reader; NULL is fine. */
void st_dem_source_destroy(st_dem_source *src);
/* The source's description (valid while it lives). */
const st_dem_info *st_dem_source_info(const st_dem_source *src);
/* Reads a window as st_dem_source_ops.read says; w·h must be in 1..ST_DEM_MAX_WINDOW. */
st_result st_dem_source_read(st_dem_source *src, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out,
                             st_error *err);
/* Samples at a stride (see read_stride); sources without read_stride answer only stride 1. */
st_result st_dem_source_read_stride(st_dem_source *src, int64_t x0, int64_t y0, uint32_t stride, uint32_t w,
                                    uint32_t h, float *out, st_error *err);
/* The source's bound for a level (see level_error), or a negative value when it has none. */
double st_dem_source_level_error(const st_dem_source *src, uint32_t level);
/* The source's void counts (see void_counts); both 0 when it keeps none. */
void st_dem_source_void_counts(const st_dem_source *src, uint64_t *filled, uint64_t *sea_level);

/* ---- real rasters (src/io/) ---------------------------------------------------------------------------- */

typedef enum st_dem_rgb {
    ST_DEM_RGB_NONE = 0,
    ST_DEM_RGB_TERRARIUM = 1, /* h = 256·R + G + B/256 − 32768 m */
    ST_DEM_RGB_MAPBOX = 2,    /* Terrain-RGB: h = −10000 + (65536·R + 256·G + B)·0.1 m */
} st_dem_rgb;

typedef struct st_dem_open_desc {
    uint32_t raw_width, raw_height; /* non-zero: a raw grid of this size, no header, whatever the name */
    st_dem_raw_type raw_type;       /* s16 (default), u16 (.r16, Terrain3D's format) or f32 */
    st_endian endian;               /* raw byte order, little-endian by default */
    double units_m;                 /* metres per sample unit where the format carries none (PNG, raw); 0 = 1 */
    double spacing_m;               /* metres between samples where the format carries none; 0 = unknown */
    st_dem_rgb rgb;                 /* a z/x/y folder of Terrarium or Terrain-RGB PNG tiles */
    uint32_t zoom;                  /* the zoom level of that folder to read (0 = the deepest one present) */
    bool wrap_x;                    /* the raster is a whole globe east-west (st_dem_info.wrap_x): for raw grids,
                                     * PNGs and GDAL rasters, whose files may carry no georeferencing to say so
                                     * (a geographic GDAL raster spanning 360° is found to wrap anyway); refused
                                     * for .hgt tiles and z/x/y folders */
} st_dem_open_desc;

/* Opens a raster: one file, several SRTM .hgt tiles joined by their names (N50E009.hgt + N50E010.hgt …, a gap
 * or mismatched sizes is an error), or a z/x/y folder of RGB-encoded tiles (desc->rgb). The reader is picked
 * by content and name: .png (8/16-bit grey), .hgt, raw (desc->raw_width; a .r16 file is u16 and, without a
 * size, square), else GDAL (GeoTIFF and the rest, with georeferencing, nodata read as voids, windowed reads).
 * Only headers are read here (a grey PNG, being bounded, is decoded whole). A missing file says "No such file
 * or directory"; anything but a regular file (a named pipe, a device) is refused without being read; a file
 * no reader takes names the readers that refused it. Voids are filled by one rule everywhere: the
 * inverse-distance-squared mean of the valid samples on the nearest ring (and the next) within
 * ST_DEM_VOID_RADIUS, else the sea level (docs/formats.md). desc may be NULL. */
st_result st_dem_open(const char *const *paths, size_t count, const st_dem_open_desc *desc, st_dem_source **out,
                      st_error *err);

#define ST_DEM_VOID_RADIUS 64 /* samples: the farthest a void looks for valid neighbours */

/* Reads a whole source into a heightmap (src/io/dem_heightmap.c): integers in the source's own unit when it
 * has one (unit_m > 0), else millimetres; the spacing and the void counts carried over. A source larger than
 * ST_HEIGHTMAP_MAX_SAMPLES is an error that says so. */
st_result st_dem_read_heightmap(st_dem_source *src, st_heightmap **out, st_error *err);

/* ---- procedural sources (src/terrain/) ----------------------------------------------------------------- */

typedef struct st_dem_gen_desc {
    uint64_t seed;
    uint64_t width, height; /* samples; any size up to ST_DEM_MAX_SIDE */
    double spacing_m;       /* 0 = 10 m */
    double relief_m;        /* 0 = 2500 m: the highest peaks; the sea covers what falls below 0 */
} st_dem_gen_desc;

/* Parses "gen:SEED:WxH[:SPACING]" (SPACING in metres) into a descriptor; one clear error otherwise. */
st_result st_dem_gen_parse(const char *spec, st_dem_gen_desc *out, st_error *err);
/* A deterministic procedural DEM (ridged and fBm noise with erosion-like damping, after the book): any
 * window on demand, nothing held in memory, so a 65,536² world needs no disk. Knows its level_error. */
st_result st_dem_generator(const st_dem_gen_desc *desc, st_dem_source **out, st_error *err);

typedef struct st_dem_amplify_desc {
    uint32_t factor; /* N: the result has (W − 1)·N + 1 samples per row, N× finer; 2..64 */
    uint64_t seed;
    double detail;   /* the detail's amplitude relative to the local relief; 0 = 1 */
} st_dem_amplify_desc;

/* Procedural detail below the base's resolution: the base interpolated (Catmull-Rom, which passes through
 * its samples) plus noise scaled by the local relief, with the noise's own interpolant removed so that the
 * result equals the base exactly at every base sample. Takes ownership of base (destroyed with the result,
 * or at once on failure). */
st_result st_dem_amplify(st_dem_source *base, const st_dem_amplify_desc *desc, st_dem_source **out, st_error *err);

#endif
