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
/* The paper's 12 views on Fostral (spec §4.2). */
st_result st_views_paper(st_viewpoint *out, size_t cap, size_t *count, st_error *err);
/* Finds a view by name in the default catalogue, or parses "name:x,y:yaw:pitch[:height][:under]". */
st_result st_views_find(const st_level *level, const char *name, st_viewpoint *out, st_error *err);
st_camera st_viewpoint_camera(const st_level *level, const st_viewpoint *v);

/* Embedded data files (data/ *.json), by base name; NULL when absent. */
const char *st_data_file(const char *name, size_t *size);

#endif
