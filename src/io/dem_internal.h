/* Shared by the DEM readers (src/io/dem_*.c): the void-filled windowed read every reader is built on, files
 * opened without ever blocking on a pipe, and each reader's open function, among which dem_open.c picks. */
#ifndef STRATA_IO_DEM_INTERNAL_H
#define STRATA_IO_DEM_INTERNAL_H

#include <stdatomic.h>
#include <sys/types.h>

#include "strata/dem.h"

#define ST_DEM_ABSURD_M 1e5   /* |metres| beyond this is no elevation on any planet: read as a void */
#define ST_DEM_FILL_BLOCK 512 /* voids are filled block by block, each block with its own padded window */

/* Reads the raw values of the in-raster rectangle [x0, x0 + w) × [y0, y0 + h) into raw (row j at raw + j ·
 * stride); NAN marks a void. Must be thread-safe: reads come from every worker at once. */
typedef st_result (*st_dem_fetch_fn)(void *state, uint64_t x0, uint64_t y0, uint32_t w, uint32_t h, float *raw,
                                     size_t stride, st_error *err);

/* A raster as its reader describes it to the shared read. */
typedef struct st_dem_grid {
    uint64_t width, height;
    bool wrap_x;
    double scale, offset; /* metres = offset + scale · raw */
    bool integral;        /* raw values are integers: a filled void is rounded to one */
    const char *name;     /* for messages (owned by the reader) */
    st_dem_fetch_fn fetch;
    void *state;
    atomic_uint_fast64_t filled, sea_level;
} st_dem_grid;

/* The read behind every reader's ops.read (dem.h's contract): clamps (or wraps) the window onto the raster,
 * fetches it, reads non-finite and absurd values as voids, fills voids by the rule of dem.h from windows
 * padded by ST_DEM_VOID_RADIUS, converts to metres. Thread-safe when fetch is. */
st_result st_dem_grid_read(st_dem_grid *g, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out,
                           st_error *err);
/* st_dem_info's bound on what a source returns, from the range of its valid values in metres: clipped to
 * ±ST_DEM_ABSURD_M (values beyond are voids), and holding the sea level when voids may occur or values were
 * clipped, since a void with no valid neighbour near enough reads as the sea level. */
void st_dem_bound(double lo_m, double hi_m, bool voids, st_dem_info *info);
/* The grid's void counts so far (ops.void_counts). */
void st_dem_grid_counts(st_dem_grid *g, uint64_t *filled, uint64_t *sea_level);
/* Fills the voids (NAN) of a whole w×h grid of raw values in place by the same rule (no wrap), for the
 * in-memory decoders of heightmap.h; sea_raw is the sea level in raw units. Adds to *filled and *sea_level. */
st_result st_dem_fill_voids(float *raw, uint32_t w, uint32_t h, bool integral, double sea_raw, uint64_t *filled,
                            uint64_t *sea_level, const char *name, st_error *err);

/* ---- files ----------------------------------------------------------------------------------------------- */

/* Opens path read-only without blocking (O_NONBLOCK) and refuses anything but a regular file before a byte is
 * read, so a named pipe never hangs. *size is the file's size. A missing file says "No such file or
 * directory". */
st_result st_dem_file_open(const char *path, int *fd, uint64_t *size, st_error *err);
/* pread of exactly n bytes at off, retried on EINTR and short reads; a file that ends early is an error. */
st_result st_dem_file_pread(int fd, void *buf, size_t n, uint64_t off, const char *name, st_error *err);
/* The whole of an open file of `size` bytes (at most max) into *data (malloc'd). */
st_result st_dem_file_read_all(int fd, uint64_t size, uint64_t max, const char *name, uint8_t **data,
                               st_error *err);
/* True when the name ends with suffix, ignoring case. */
bool st_dem_name_ends(const char *name, const char *suffix);
/* The part of a path after its last '/'. */
const char *st_dem_base_name(const char *path);

/* Metres per degree at latitude lat_deg on an ellipsoid (a = semi-major axis in metres, f = flattening):
 * east-west (N·cos φ) and north-south (the meridian radius M), both times π/180. */
void st_dem_metres_per_degree(double lat_deg, double a, double f, double *east_west, double *north_south);
#define ST_WGS84_A 6378137.0
#define ST_WGS84_F (1.0 / 298.257223563)

/* ---- the readers (dem_open.c picks one) -------------------------------------------------------------------- */

/* Raw grid of desc's size and type. fd is taken over (closed on failure too). */
st_result st_dem_open_raw(const char *path, int fd, uint64_t size, const st_dem_open_desc *desc,
                          st_dem_source **out, st_error *err);
/* One SRTM .hgt or several joined by their names. */
st_result st_dem_open_hgt(const char *const *paths, size_t count, st_dem_source **out, st_error *err);
/* 8/16-bit grey PNG, decoded whole (it is bounded). fd is taken over. */
st_result st_dem_open_png(const char *path, int fd, uint64_t size, const st_dem_open_desc *desc,
                          st_dem_source **out, st_error *err);
/* Anything GDAL reads. */
st_result st_dem_open_gdal(const char *path, const st_dem_open_desc *desc, st_dem_source **out, st_error *err);
/* A z/x/y folder of Terrarium or Terrain-RGB tiles. */
st_result st_dem_open_xyz(const char *dir, const st_dem_open_desc *desc, st_dem_source **out, st_error *err);

/* Parses an SRTM tile name (N50E009, s12w077…, case-insensitive, any suffix) into the latitude and longitude
 * of its south-west corner; false when the base name is no such name. */
bool st_dem_hgt_name(const char *path, int *lat, int *lon);

#endif
