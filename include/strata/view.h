/* The interactive viewer's library part: the HUD's text and quads, camera controllers and scripted camera
 * paths, picking the terrain under a pixel, and the undo/redo history of edits. Presenting to the window is the
 * renderer's (strata/present.h); the window itself (GLFW) lives in apps/cmd_view.c. */
#ifndef STRATA_VIEW_H
#define STRATA_VIEW_H

#include "strata/camera.h"
#include "strata/large_world.h"
#include "strata/level.h"
#include "strata/render.h"

/* ---- HUD: text (stb_easy_font) and filled rectangles in window pixels, top-left origin ------------- */
typedef struct st_hud st_hud;

/* The HUD's triangles are what the presenter draws over the frame (strata/render.h). */
typedef st_overlay_vertex st_hud_vertex;

/* An empty HUD with room for a fixed number of vertices (ST_ERR_NOMEM). */
st_result st_hud_create(st_hud **out, st_error *err);
void st_hud_destroy(st_hud *hud);
/* Drops every triangle: a frame's HUD starts empty. */
void st_hud_clear(st_hud *hud);
/* Text with its top-left corner at (x, y), glyphs scaled by `scale` (1 = 7-pixel capitals); '\n' starts a
 * new line. Returns the width of the widest line in pixels. Geometry past the HUD's capacity is dropped. */
float st_hud_text(st_hud *hud, float x, float y, float scale, const uint8_t rgba[4], const char *text);
/* Size of text in pixels without drawing it. */
void st_hud_measure(const char *text, float scale, float *width, float *height);
/* A filled w×h rectangle with its top-left corner at (x, y) (two triangles). */
void st_hud_rect(st_hud *hud, float x, float y, float w, float h, const uint8_t rgba[4]);
/* The triangles so far (three vertices each). */
const st_hud_vertex *st_hud_vertices(const st_hud *hud, size_t *count);
/* The full scale of a frame-time graph of these times: 33.3 ms, or the next of 66.7, 100, 200, 500, 1000, 2000,
 * ... ms that holds the largest finite time, so a slow adapter's frames show as bars, not a full red box. */
double st_hud_graph_scale_ms(const double *ms, size_t count);

/* ---- picking ------------------------------------------------------------------------------------------- */
/* The first solid point along the ray through pixel position (px, py) of a width×height image (pixel
 * centres at +0.5, y down) between the near and far planes: a fine march with st_level_solid refined by
 * bisection. False when nothing solid is hit. */
bool st_viewer_pick(const st_level *level, const st_camera *camera, uint32_t width, uint32_t height, float px,
                    float py, float hit[3]);

/* ---- camera controllers ---------------------------------------------------------------------------------- */
typedef enum st_cam_mode {
    ST_CAM_FLY,     /* free flight: WASD along the view, Q/E down/up, mouse look */
    ST_CAM_ORBIT,   /* the game's camera: looks down at a target that follows the ground */
    ST_CAM_TOPDOWN, /* the orbit camera pinned straight down */
} st_cam_mode;

typedef struct st_cam_input {
    float move[3];  /* right, forward, up, each in −1..1 */
    float look[2];  /* pointer motion in pixels while looking: x right, y down */
    float scroll;   /* wheel steps, positive away from the user */
    bool fast;      /* ×4 speed */
    float dt;       /* seconds since the last update */
} st_cam_input;

typedef struct st_cam_control {
    st_cam_mode mode;
    st_camera camera;      /* the camera the controller produces */
    float speed;           /* fly: units per second */
    float target[3];       /* orbit: the point looked at */
    float distance;        /* orbit: from the eye to the target */
    float look_deg_per_px; /* mouse sensitivity */
} st_cam_control;

/* A fly controller at camera with the default speed, sensitivity and orbit distance. */
void st_cam_control_init(st_cam_control *c, const st_camera *camera);
/* Jumps to a camera (a named view), in fly mode. */
void st_cam_control_set(st_cam_control *c, const st_camera *camera);
/* Switches mode. Entering orbit or top-down aims at `target` (e.g. the point under the screen centre);
 * NULL aims at a point 200 units ahead. */
void st_cam_control_mode(st_cam_control *c, st_cam_mode mode, const float *target);
/* Applies one frame of input. level (may be NULL) lets the orbit target follow the ground. */
void st_cam_control_update(st_cam_control *c, const st_cam_input *in, const st_level *level);
/* "fly", "orbit", ... for the HUD. */
const char *st_cam_mode_name(st_cam_mode mode);

/* ---- scripted camera paths ----------------------------------------------------------------------------- */
/* A text file, one keyframe per line: `t x y z yaw pitch` (seconds, texels, heights, degrees); '#' starts a
 * comment, blank lines are skipped, t must increase. Between keyframes every value is interpolated
 * linearly, yaw along the shorter arc; before the first and after the last the end keyframe holds. */
typedef struct st_cam_key {
    float t, x, y, z, yaw, pitch;
} st_cam_key;

typedef struct st_cam_path {
    st_cam_key *keys;
    size_t count;
} st_cam_path;

#define ST_CAM_PATH_MAX_SECONDS 3600.0f /* keyframe times run 0..1 hour */

/* Parses a path: six finite numbers a line, t in 0..ST_CAM_PATH_MAX_SECONDS and increasing, positions and
 * yaw within st_camera_parse's range, pitch -90..90; at most 100000 keyframes. */
st_result st_cam_path_parse(const char *text, st_cam_path *out, st_error *err);
/* The same from a file (a regular file of at most 16 MiB); st_cam_path_free releases either. */
st_result st_cam_path_load(const char *file, st_cam_path *out, st_error *err);
void st_cam_path_free(st_cam_path *path);
/* The time of the last keyframe (0 for an empty path). */
float st_cam_path_duration(const st_cam_path *path);
/* The camera at time t; field of view and near/far planes come from `base` (may be NULL: defaults). */
st_camera st_cam_path_at(const st_cam_path *path, float t, const st_camera *base);

/* ---- edit history ---------------------------------------------------------------------------------------- */
/* Every edit keeps the bytes of its rectangle before and after (a dig's or raise's height and metadata planes,
 * a paint's control-map texels), so undo and redo are exact byte copies, in one order for both kinds. The
 * oldest edits are forgotten when the history passes its byte budget. */
typedef struct st_edit_history st_edit_history;

typedef enum st_edit_kind { ST_EDIT_DIG, ST_EDIT_RAISE } st_edit_kind;

/* byte_budget 0 = 256 MiB. */
st_result st_edit_history_create(size_t byte_budget, st_edit_history **out, st_error *err);
void st_edit_history_destroy(st_edit_history *h);
/* Applies st_level_dig (amount = depth) or st_level_raise (amount = height) and records it. *dirty receives
 * the changed rectangle (empty when nothing changed) for st_engine_update_level. */
st_result st_edit_history_apply(st_edit_history *h, st_level *level, st_edit_kind kind, int cx, int cy, int radius,
                                int amount, st_rect *dirty, st_error *err);
/* Paints map with st_control_map_paint and records it. *dirty receives the changed texels' rectangle (empty when
 * nothing changed) for st_engine_update_control. ST_ERR_INVALID for no map, a centre off the map, a non-finite
 * value, a radius outside 0.5..4096 or a strength outside (0, 1]; the map is then untouched. */
st_result st_edit_history_paint(st_edit_history *h, st_control_map *map, float cx, float cy, float radius,
                                uint8_t material, float strength, st_rect *dirty, st_error *err);
/* Undoes the last applied edit (its rectangle's bytes from before) into level or, for a paint, into control;
 * *of_control (may be NULL) says which. False, changing nothing, when there is none or its target is missing
 * (NULL, or a control map too small for it). */
bool st_edit_history_undo(st_edit_history *h, st_level *level, st_control_map *control, st_rect *dirty,
                          bool *of_control);
/* Redoes the last undone edit, as undo does; false when there is none (a new edit drops what could be redone). */
bool st_edit_history_redo(st_edit_history *h, st_level *level, st_control_map *control, st_rect *dirty,
                          bool *of_control);
/* How many edits can be undone now. */
size_t st_edit_history_undo_count(const st_edit_history *h);
/* How many can be redone. */
size_t st_edit_history_redo_count(const st_edit_history *h);
/* True when the level differs from the state last marked saved (initially: as loaded). */
bool st_edit_history_unsaved(const st_edit_history *h);
/* The level as it is now is saved (after a successful save). */
void st_edit_history_mark_saved(st_edit_history *h);

/* ---- the viewer of tile stores (src/view/store_view.c) -------------------------------------------------- */

/* What the keys of `strata view --world STORE` switch. */
typedef struct st_store_view_state {
    float tau_px;    /* the screen-space error threshold (0 = 1) */
    bool freeze;     /* freeze the level of detail and culling at the current camera, to fly through its rings */
    bool wireframe;  /* triangle edges coloured by level */
    bool skirts, shadows, hud;
} st_store_view_state;

typedef enum st_store_view_key {
    ST_STORE_KEY_TAU_UP,    /* τ × 2 (coarser), at most ST_STORE_VIEW_MAX_TAU */
    ST_STORE_KEY_TAU_DOWN,  /* τ / 2 (finer), at least ST_STORE_VIEW_MIN_TAU */
    ST_STORE_KEY_FREEZE,
    ST_STORE_KEY_WIREFRAME,
    ST_STORE_KEY_SKIRTS,
    ST_STORE_KEY_SHADOWS,
    ST_STORE_KEY_HUD,
} st_store_view_key;

#define ST_STORE_VIEW_MIN_TAU 0.125f
#define ST_STORE_VIEW_MAX_TAU 64.0f

/* Applies a key; returns true when the renderer must be made again (everything but the HUD). */
bool st_store_view_apply(st_store_view_state *s, st_store_view_key key);
/* The key of a character of a headless key script (`strata view --keys`): ']' τ up, '[' τ down, 'f' freeze,
 * 'x' wireframe, 'k' skirts, 'h' shadows, 'i' HUD; false for anything else. */
bool st_store_view_key_of(char c, st_store_view_key *key);
/* The HUD's text: the method and the switches, frame and selection times, the level of detail (nodes, triangles,
 * per-level quadrants, fallbacks, holes) and the residency (resident, queued, loading, evictable, evictions, the
 * upload time of the frame), and the eye. Always NUL-terminated. */
void st_store_view_hud_text(const st_store_view_state *s, const char *method, const st_lod_frame_stats *lod,
                            const st_world_stats *ws, const double eye[3], float yaw, float pitch, double frame_ms,
                            char *out, size_t cap);

#endif
