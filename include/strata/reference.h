/* The CPU reference ray cast: the ground truth every GPU method is scored against. An exact cell-by-cell
 * traversal of the texel columns (a 2-D DDA accelerated by a max-height pyramid), the one camera
 * (st_view_pixel_ray) and the one SOLID predicate; results are cached on disk keyed by level and camera. */
#ifndef STRATA_REFERENCE_H
#define STRATA_REFERENCE_H

#include "strata/camera.h"
#include "strata/level.h"

/* Bumped whenever the cast's output could change: it is part of the cache key. */
#define ST_REFERENCE_VERSION 2u
/* Stated accuracy of a hit distance against the analytic answer, in world units (tested). The cast is
 * exact up to float rounding of the ray: the tolerance is the rounding at 1,000 units, not a step size. */
#define ST_REFERENCE_TOLERANCE 1e-3f
/* The shadow-map resolution whose offsets the reference's exact shadow rays use: the publication's. */
#define ST_SHADOW_SIZE_REFERENCE 1024u

/* Which face of a texel column a ray entered: the reference's own cheap normal, for the shaded image. */
typedef enum st_ref_face {
    ST_REF_SKY = 0,
    ST_REF_FACE_TOP,    /* a horizontal surface seen from above (a floor or a slab top) */
    ST_REF_FACE_BOTTOM, /* a cave ceiling seen from below */
    ST_REF_FACE_WEST,   /* a vertical wall facing −x */
    ST_REF_FACE_EAST,   /* facing +x */
    ST_REF_FACE_SOUTH,  /* facing −y */
    ST_REF_FACE_NORTH,  /* facing +y */
    ST_REF_FACE_INSIDE, /* the ray started inside solid terrain (at the near plane) */
} st_ref_face;

/* One reference image. distance[j·w + i] is the distance along pixel (i, j)'s normalised ray, NAN for
 * sky (nothing solid between the near and far planes); face and type say what was hit; rgba is the hit shaded
 * by the shared formula (strata/shading.h) with an exact shadow ray, sRGB-encoded like a method's readback. */
typedef struct st_ref_image {
    uint32_t width, height;
    float *distance;
    uint8_t *face;
    uint8_t *type;
    uint8_t *rgba;
} st_ref_image;

/* A reference caster for one level: owns the max-height pyramid built from it. The level must outlive it
 * and must not change while it is alive (after an edit, create a new one). */
typedef struct st_reference st_reference;

/* Builds the caster and its pyramid (ST_ERR_INVALID for a level under 2×2 or with a side that is no power of
 * two, ST_ERR_NOMEM); shadow rays are on. */
st_result st_reference_create(const st_level *level, st_reference **out, st_error *err);
void st_reference_destroy(st_reference *ref);
/* Whether the colour casts shadow rays (default on); off matches a method drawn with --no-shadows. Part of the
 * cache key. Set before casting, not while a cast runs. */
void st_reference_set_shadows(st_reference *ref, bool on);

/* The first hit of one ray from origin along the normalised dir with distance in [t_min, t_max]; false on
 * a miss. face/type may be NULL. Exposed for tests and tools. */
bool st_reference_ray(const st_reference *ref, const float origin[3], const float dir[3], float t_min, float t_max,
                      float *t_hit, uint8_t *face, uint8_t *type);

/* An image of width×height pixels for st_reference_cast to fill; st_ref_image_free releases it. */
st_result st_ref_image_create(uint32_t width, uint32_t height, st_ref_image *out, st_error *err);
void st_ref_image_free(st_ref_image *img);
/* Casts every pixel of the camera at the image's size (rows in parallel on the job system). */
st_result st_reference_cast(const st_reference *ref, const st_camera *camera, st_ref_image *img, st_error *err);

/* The same through a disk cache: cache_dir/ref-<key>.bin, keyed by the level's CRC-32, the camera, the
 * size and ST_REFERENCE_VERSION; written atomically, validated (header, key and payload CRC) on load, a
 * bad file is recomputed and replaced. cache_dir NULL = no cache. *from_cache may be NULL. A cache that cannot
 * be written is no failure: the reason goes to cache_err (may be NULL; its code stays ST_OK otherwise). */
st_result st_reference_cast_cached(const st_reference *ref, const st_camera *camera, const char *cache_dir,
                                   st_ref_image *img, bool *from_cache, st_error *cache_err, st_error *err);

/* ---- DEM tile stores (src/reference/dem_reference.c) ------------------------------------------------------------
 * The ground truth of a store: rays cast against its full-resolution DEM — the finest tiles' bilinear surface, in
 * double precision — by a descent of the tile quadtree on the index's bounds, then blocks of 16×16 cells by their
 * highest sample, then the exact intersection with each cell's bilinear patch. Hits are shaded by the DEM ground's
 * shared formula (strata/shading.h) with the normal of the patch and an exact shadow ray toward the sun. Decoded
 * finest tiles are kept in a bounded cache shared by the casting threads. */
typedef struct st_store st_store;
typedef struct st_dem_reference st_dem_reference;

/* The accuracy of a hit distance against the exact surface: double-precision rounding at 100 km. */
#define ST_DEM_REFERENCE_TOLERANCE 1e-4

/* cache_tiles: decoded finest tiles kept (0 = 1024). The store must outlive the reference. */
st_result st_dem_reference_create(st_store *store, uint32_t cache_tiles, st_dem_reference **out, st_error *err);
void st_dem_reference_destroy(st_dem_reference *ref);
/* Whether hits cast shadow rays (default on); off matches a method drawn with --no-shadows. */
void st_dem_reference_set_shadows(st_dem_reference *ref, bool on);
/* The plain walk (default off): tiles by their bounds, then blocks of 16×16 cells and cells by 2-D DDAs, without
 * the finest tiles' max pyramid. The same hits within ST_DEM_REFERENCE_TOLERANCE, slower: for tests and benchmarks
 * of the accelerated walk. */
void st_dem_reference_set_plain(st_dem_reference *ref, bool plain);
/* Whether a cast asks the store's index (behind the store's lock) for a tile's bounds at every node of every ray,
 * as the walk once did, instead of once per tile and block of pixels (default off). The same images: for measuring
 * what the lock costs on many cores. */
void st_dem_reference_set_index_every_node(st_dem_reference *ref, bool on);
/* The first hit of a ray (world metres, unit direction) with distance in [t_min, t_max]; false on a miss. A ray
 * that starts below the ground hits at t_min. A tile that cannot be read is an error. */
st_result st_dem_reference_ray(st_dem_reference *ref, const double origin[3], const double dir[3], double t_min,
                               double t_max, bool *hit, double *t_hit, st_error *err);
/* The finest surface at (x, y) metres (clamped to the world), and its slope (metres per metre) when grad is given. */
st_result st_dem_reference_height(st_dem_reference *ref, double x, double y, double *height, double grad[2],
                                  st_error *err);
/* The same for n points (x, y pairs) at once, each tile locked once for all of them: thread-safe, for many points. */
st_result st_dem_reference_heights(st_dem_reference *ref, const double *xy, size_t n, double *height, st_error *err);
/* Casts every pixel of the camera (its eye in double precision) at the image's size, rows in parallel. distance is
 * along each pixel's ray (NAN for sky), face TOP or SKY, type 0, rgba the shaded hit or the fog colour. */
st_result st_dem_reference_cast(st_dem_reference *ref, const st_camera *camera, st_ref_image *img, st_error *err);
/* Finest tiles decoded so far (for reports). */
uint64_t st_dem_reference_tiles_read(const st_dem_reference *ref);

/* CRC-32 (zlib) of the level's height and metadata planes, the key the cache and reports use: the one of the
 * caster's level, */
uint32_t st_reference_crc(const st_reference *ref);
/* and the same of any level (the height plane, then the metadata plane, then the colour map where it has one). */
uint32_t st_reference_level_crc32(const st_level *level);

#endif
