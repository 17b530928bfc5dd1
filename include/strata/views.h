/* Viewpoints: named camera records (position on the map, yaw, pitch, eye height above the surface).
 * The default world's landmarks and its 12 default views live in data/default_world.json (embedded). */
#ifndef STRATA_VIEWS_H
#define STRATA_VIEWS_H

#include "strata/camera.h"
#include "strata/level.h"

typedef struct st_viewpoint {
    char name[32];
    float x, y;          /* texel coordinates on the map */
    float yaw_deg, pitch_deg;
    float eye_height;    /* above the surface under (x, y): high, or low when `under` */
    bool under;          /* stand on the floor under a slab (inside a cave) */
} st_viewpoint;

#define ST_MAX_VIEWS 64

/* The 12 default views of the embedded world (3 per pitch at 0, −30, −60, −90), scaled to the level's
 * size when it is not the default 2048×16384. */
st_result st_views_default(const st_level *level, st_viewpoint *out, size_t cap, size_t *count, st_error *err);
/* The same for a world of width × height texels held by no level (a paged world); 0 × 0 = unscaled. */
st_result st_views_default_sized(uint32_t width, uint32_t height, st_viewpoint *out, size_t cap, size_t *count,
                                 st_error *err);
/* The paper's 12 views on Fostral (spec §4.2). */
st_result st_views_paper(st_viewpoint *out, size_t cap, size_t *count, st_error *err);
/* Finds a view by name in the default catalogue, or parses "name:x,y:yaw:pitch[:height][:under]". */
st_result st_views_find(const st_level *level, const char *name, st_viewpoint *out, st_error *err);
/* The same for a world of width × height texels held by no level (0 × 0: no size known, positions unchecked). */
st_result st_views_find_sized(uint32_t width, uint32_t height, const char *name, st_viewpoint *out, st_error *err);
/* The camera of a viewpoint: the eye at (x, y), eye_height above the surface there (the slab top, or the floor
 * for an `under` view; above 0 without a level), the default field of view, near and far. */
st_camera st_viewpoint_camera(const st_level *level, const st_viewpoint *v);
/* The same where the world is held by no level: `ground` is the texel under (x, y), however it was read. */
st_camera st_viewpoint_camera_on(st_texel ground, const st_viewpoint *v);

/* ---- tile stores (src/eval/views_store.c): metres instead of texels ------------------------------------------
 * Every DEM store has 12 default views of its own, placed from its relief (docs/harness.md): three targets picked
 * on its coarsest level — the roughest spot, the highest point and a spot of middling relief, apart from each other
 * and off the world's edge — each seen at pitch 0, −30, −60 and −90 from a height that follows its relief. Their
 * x, y are metres, eye_height metres above the ground there (under is unused). */
typedef struct st_store st_store;
typedef struct st_tile st_tile;

/* The far distance that suits a store: half its larger extent, at most 100 km, at least 100 sample spacings. */
double st_store_far(const st_store *store);
/* The ground at (x, y) metres: the bilinear surface of the store's finest samples there (reads one tile). */
st_result st_store_ground(st_store *store, double x, double y, double *height, st_error *err);
/* The same keeping the tile read in *cache (NULL at first; st_tile_destroy it after the last call): a run of
 * nearby points reads each tile once. */
st_result st_store_ground_cached(st_store *store, st_tile **cache, double x, double y, double *height,
                                 st_error *err);
/* The 12 default views (horizon-1..3, pitch30-1..3, pitch60-1..3, top-1..3). */
st_result st_store_views_default(st_store *store, st_viewpoint *out, size_t cap, size_t *count, st_error *err);
/* A default view by name, or a spec "name:x,y:yaw:pitch[:height]" in metres. */
st_result st_store_views_find(st_store *store, const char *name, st_viewpoint *out, st_error *err);
/* The camera of a view: the eye in double precision (origin) at the ground + eye_height, the store's far. */
st_result st_store_view_camera(st_store *store, const st_viewpoint *v, st_camera *out, st_error *err);

/* Embedded data files (data/ *.json), by base name; NULL when absent. */
const char *st_data_file(const char *name, size_t *size);

#endif
