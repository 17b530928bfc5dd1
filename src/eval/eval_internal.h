/* Internals shared by the measurement runs (compare, tune, soak) and their JSON reports. */
#ifndef STRATA_EVAL_INTERNAL_H
#define STRATA_EVAL_INTERNAL_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "strata/eval.h"
#include "strata/render.h"

/* The start of a measurement run (run.c): the engine (device choice and validation from `ed`), the adapter's folder
 * out_root/<adapter-slug> named into out_dir and created, and `level` set on the engine when one is given.
 * *engine is set as soon as it exists: the caller destroys it whatever the result. */
st_result st_eval_open_run(const st_engine_desc *ed, const st_level *level, const char *out_root,
                           st_engine **engine, st_device_info *info, char *slug, size_t slug_cap, char *out_dir,
                           size_t out_dir_cap, st_error *err);

/* Untimed frames before a timed series: at least `frames` of them, and on an adapter with GPU timestamps
 * for at least ST_EVAL_WARM_UP_MS of wall time. A GPU left idle while the harness scored the last view or
 * cast its reference drops to a low clock and needs tens of milliseconds of work to leave it; a few frames
 * of a fast method are far less, so they would time the slowed GPU (on the H200, 6x: the shared shadow pass
 * at 1.5 ms instead of 0.26). *wall_ms (may be NULL) gets the CPU wall time spent. */
#define ST_EVAL_WARM_UP_MS 200.0
st_result st_eval_warm_up(st_renderer *rn, const st_camera *cam, uint32_t frames, double *wall_ms, st_error *err);
/* The same, keeping the timing of its first frame (the camera's first: the shadow map is cast anew there) in
 * *first when it draws any (first->pass_count = 0 and gpu_ms NAN otherwise). */
st_result st_eval_warm_up_first(st_renderer *rn, const st_camera *cam, uint32_t frames, double *wall_ms,
                                st_frame_timing *first, st_error *err);

/* One results folder per run (run_dir.c): files go to `work` while the run lasts; commit renames it to
 * `final` = root/<UTC time>-<tag>-<digest of settings> and points root/latest at it; abort removes it. */
typedef struct st_run_dir {
    char root[1024];  /* OUT/<adapter-slug> */
    char name[160];
    char work[1200];  /* root/.partial-<name> */
    char final[1200]; /* root/<name> */
    bool open;
} st_run_dir;
st_result st_run_dir_begin(const char *out_root, const char *slug, const char *tag, const char *settings,
                           st_run_dir *d, st_error *err);
st_result st_run_dir_commit(st_run_dir *d, st_error *err);
void st_run_dir_abort(st_run_dir *d);
/* FNV-1a of a text (the settings digest in a run folder's name). */
uint64_t st_eval_digest(const char *text);

/* SVG chart pieces (report_svg.c). Series i gets its own colour and marker (7 shapes, filled then hollow). */
const char *st_svg_color(size_t i);
void st_svg_marker(FILE *fp, size_t i, double x, double y, double r, const char *title);
#define ST_SVG_MAX_TICKS 32
typedef struct st_svg_axis {
    double lo, hi;  /* the axis range */
    bool log;       /* logarithmic: the values span more than a factor of ten */
    size_t count;
    double ticks[ST_SVG_MAX_TICKS];
} st_svg_axis;
/* An axis over [lo, hi]: nice linear steps from 0 (or below lo when lo < 0), or 1-2-5 per decade when allow_log
 * and hi/lo > 10. */
st_svg_axis st_svg_axis_make(double lo, double hi, bool allow_log);
/* The position of v along the axis, 0..1. */
double st_svg_axis_pos(const st_svg_axis *a, double v);

/* Adds name: v, or name: null when v is not finite. */
void st_eval_json_number(cJSON *o, const char *name, double v);
/* Adds the short "adapter" object: {"name", "device_type"}. */
void st_eval_json_adapter(cJSON *root, const char *name, const char *device_type);
/* Prints root (then deletes it) into path atomically, with a final newline. */
st_result st_eval_json_write(cJSON *root, const char *path, st_error *err);

#endif
