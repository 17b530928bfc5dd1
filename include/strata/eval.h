/* Evaluation: image metrics against the CPU reference (see-through, covers-sky, depth error, coherence,
 * colour MAE), the comparison protocol behind `strata compare`, and its reports (JSON, Markdown, SVG,
 * grid and heat-map PNGs). Every definition is written out in docs/harness.md. */
#ifndef STRATA_EVAL_H
#define STRATA_EVAL_H

#include <signal.h>
#include <stdio.h>

#include "strata/camera.h"
#include "strata/level.h"
#include "strata/reference.h"
#include "strata/render.h"
#include "strata/views.h"
#include "strata/large_world.h"

/* ---- metrics ------------------------------------------------------------------------------------------
 * Distance images hold the distance along each pixel's normalised ray, NAN where nothing was drawn (a
 * method) or nothing is solid (the reference). Percentages are of all w·h pixels. */

/* Relative tolerance of the coherence test: |d − median3x3| > ST_COHERENCE_REL · max(d, 1). */
#define ST_COHERENCE_REL 0.04f

/* A pixel's colour is visibly wrong when its CIE76 colour difference ΔE*ab from the reference exceeds this
 * (sRGB, D65): 2.3 is the just-noticeable difference between large uniform patches, a lone pixel in a textured
 * frame needs about twice that to be seen (docs/harness.md). */
#define ST_COLOR_VISIBLE_DE 5.0

typedef struct st_metrics {
    double see_through; /* % of pixels: reference solid, method empty */
    double covers_sky;  /* % of pixels: reference sky, method drawn */
    double depth_p50;   /* world units, over pixels solid in both; NAN when there are none */
    double depth_p95;
    double coherence;   /* % of pixels: method incoherent, reference solid and coherent there */
    double depth_wrong; /* % of pixels: solid in both, |d − r| > max(1, ST_COHERENCE_REL · r) */
    uint64_t pixels, both_solid;
    double color_mae;     /* 8-bit sRGB levels, mean over R, G, B of all pixels; NAN until st_metrics_color */
    double color_visible; /* % of pixels with ΔE*ab > ST_COLOR_VISIBLE_DE */
} st_metrics;

/* Converts a reverse-Z depth image (0 = miss) to distances with st_view_distance_from_depth. */
void st_eval_depth_to_distance(const st_view *view, const float *depth, float *distance);
/* 1 where the pixel is incoherent (see docs/harness.md), else 0. flags = w·h bytes. */
void st_eval_incoherent(const float *distance, uint32_t w, uint32_t h, uint8_t *flags);
/* All metrics of a method's distance image against the reference's. */
st_result st_metrics_compute(const float *distance, const float *ref_distance, uint32_t w, uint32_t h,
                             st_metrics *out, st_error *err);
/* The p-th percentile (0..100) with linear interpolation between order statistics (rank p/100·(n−1)).
 * Reorders values. NAN when n = 0. */
double st_eval_percentile(float *values, size_t n, double p);
/* Mean absolute difference of the R, G, B channels of two w·h RGBA8 images, in 8-bit levels (alpha is
 * ignored). mask (w·h bytes, may be NULL) restricts it to pixels where mask != 0; NAN if none. */
double st_eval_color_mae(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h, const uint8_t *mask);
/* The colour part of the metrics: a method's RGBA8 image against the reference's (both sRGB-encoded). */
void st_metrics_color(st_metrics *m, const uint8_t *rgba, const uint8_t *ref_rgba, uint32_t w, uint32_t h);
/* CIE76 ΔE*ab between two sRGB-encoded colours (D65 white). */
double st_eval_delta_e(const uint8_t a[3], const uint8_t b[3]);
/* The colour-error heat map: pixels within ST_COLOR_VISIBLE_DE show the reference in dim grey (for context),
 * visibly wrong ones a ramp by ΔE — yellow at the threshold, red at 20, white at ≥ 40. out = w·h·4 bytes;
 * delta_e (w·h floats, may be NULL) receives each pixel's ΔE, the key that keeps the worst pixel of a block when
 * the map is scaled down (st_mosaic_put_keyed). */
void st_eval_color_heatmap(const uint8_t *rgba, const uint8_t *ref_rgba, uint32_t w, uint32_t h, uint8_t *out,
                           float *delta_e);
/* The heat-map ramp of ΔE (for the legend). */
void st_eval_color_ramp(double delta_e, uint8_t rgb[3]);
/* The depth-error ramp of |d − d_ref| in world units (black → yellow → white at ≥ 16), for the legend. */
void st_eval_depth_ramp(double error, uint8_t rgb[3]);

/* A heat map of the errors: see-through red, covers-sky blue, counted incoherent pixels magenta, pixels
 * solid in both on a black→yellow→white ramp of |d − d_ref| (log scale, white at ≥ 16 units), sky in both
 * dark grey. rgba = w·h·4 bytes. */
st_result st_eval_heatmap(const float *distance, const float *ref_distance, uint32_t w, uint32_t h,
                          uint8_t *rgba, st_error *err);

/* One method image scored against one reference view in a single pass, rows in parallel on the job system:
 * the depth metrics (as st_metrics_compute) when distance is given, the colour metrics (as st_metrics_color) when
 * rgba is given, and whichever heat maps are asked for (as st_eval_heatmap and st_eval_color_heatmap). Every
 * number is the one the separate functions give, bit for bit, whatever the thread count. */
typedef struct st_score_desc {
    uint32_t width, height;
    const float *distance, *ref_distance; /* both or neither */
    const uint8_t *ref_incoherent;        /* st_eval_incoherent of ref_distance, made once per view; NULL: made here */
    const uint8_t *rgba, *ref_rgba;       /* both or neither */
    uint8_t *heat;                        /* w·h·4: the depth heat map, or NULL (needs distance) */
    uint8_t *color_heat;                  /* w·h·4: the colour heat map, or NULL (needs rgba) */
    float *delta_e;                       /* w·h: each pixel's ΔE, or NULL (needs rgba) */
} st_score_desc;
/* Fills out (the parts not asked for stay NAN / 0); ST_ERR_INVALID for an empty image or a missing pair, NOMEM. */
st_result st_eval_score(const st_score_desc *d, st_metrics *out, st_error *err);

/* ---- tuning (src/eval/tune.c) ----------------------------------------------------------------------------
 * Each method's quality knob is swept; the chosen setting is the cheapest within one percentage point of the
 * method's best error (error = see-through + coherence + depth-wrong + colour-visible, docs/harness.md), so no
 * method is charged for a setting that buys nothing. Cheapest is by GPU time; without GPU timestamps (a CPU
 * adapter, where a frame's wall time is mostly noise of the shared CPU) it is by the knob's own cost order. A
 * tuning file (tuning.json) carries the choices into `strata compare --tuning`. */

/* The knob swept and its values are the method's own quality knob (st_method_quality_knob, declared in the
 * method's file). */
#define ST_TUNE_MAX_SETTINGS ST_KNOB_MAX_SWEEP
#define ST_TUNE_TOLERANCE 1.0 /* percentage points of error */

/* The rule: index of the cheapest row (ms) whose error is within tolerance points of the smallest error;
 * ties on ms go to the smaller error. Rows with a non-finite ms or error are ignored; SIZE_MAX if none. */
size_t st_tune_choose(const double *ms, const double *error, size_t n, double tolerance);
/* The rule without times: the first row in cost order (rows in order of rising cost, or falling when cost_falls)
 * whose error is within tolerance of the smallest; SIZE_MAX if none is finite. */
size_t st_tune_choose_by_order(const double *error, size_t n, double tolerance, bool cost_falls);

typedef struct st_tuning_choice {
    char method[32];
    char knob[32]; /* "" when the method has no knob */
    double value;
} st_tuning_choice;

typedef struct st_tuning {
    size_t count;
    st_tuning_choice choices[32];
} st_tuning;
/* Tuning files (src/eval/tuning.c): reads a tuning.json of `strata tune` (schema "strata-tune"); a knob no
 * method declares is ST_ERR_FORMAT. */
st_result st_tuning_read(const char *path, st_tuning *out, st_error *err);
/* The knobs of a method under a tuning (zero = the method's defaults when absent or t is NULL). */
st_method_knobs st_tuning_knobs(const st_tuning *t, const char *method, const st_tuning_choice **choice);

/* What every measurement run takes: the world, the methods and views, the image, the frames, where the
 * reports and the reference cache go, the adapter. Zero fields take each run's own defaults. */
typedef struct st_measure_desc {
    const st_level *level;      /* the world to draw (required, except compare with `paged`: then NULL or the
                                   store's texels, used for nothing but the cameras' ground) */
    const char *world_name;     /* for the reports ("default", a path) */
    const char *const *methods; /* method names; NULL = every registered method */
    size_t method_count;
    const st_viewpoint *views;  /* required, 1..ST_MAX_VIEWS */
    size_t view_count;
    uint32_t width, height;     /* 0 = the run's default size */
    float far_dist;             /* 0 = 600 */
    uint32_t frames, warmup;    /* timed and untimed frames per method and view; 0 = the run's defaults */
    bool no_shadows;            /* method-only diagnostic (the protocols cast the shared shadow map) */
    uint32_t shadow_size;       /* the shared shadow map's resolution; 0 = ST_SHADOW_SIZE_PUBLICATION */
    st_shading shading;         /* FLAT, the publication protocol's; TEXTURED measures what texturing costs (the
                                   reference stays flat: its colour figures then measure the textures too) */
    const char *out_dir;        /* the adapter folder is created below it; NULL = the run's default */
    const char *cache_dir;      /* reference cache; NULL = "out/cache", "" = none */
    int device_index;           /* as st_engine_desc */
    bool device_given, validate;
    bool progress;              /* a progress bar with ETA on stderr (a terminal) */
    bool progress_lines;        /* one plain line per finished step on stderr (not a terminal) */
    const volatile sig_atomic_t *cancel; /* when it becomes non-zero the run stops with ST_ERR_CANCELLED */
    /* Paged (compare only): the methods draw this layer store of the level's texels as a paged world with no
     * level (st_engine_set_paged_world, with paged_pool pages and the far field's coarser levels for far_dist),
     * each view settled until its pages are resident; the reference of each view is cast on its window of the
     * store (every texel its rays, shadow rays and normals reach within far_dist, read through the pages), so no
     * level of the whole world is needed (level may be NULL: the cameras' ground comes through the pages too).
     * NULL = the level. */
    st_store *paged;
    uint32_t paged_pool;
    bool paged_level;           /* with paged and level: the pages drawn with the level in memory
                                   (st_engine_set_paged_level), so that every level method draws them */
} st_measure_desc;

/* The shared shadow map's resolution per purpose: the publication protocol (compare, tune, edits, render) casts
 * it at 1024² like the paper; previews on a CPU adapter (`compare --quick`, `run`) at 256², 16× fewer shadow
 * rays, so that they finish within minutes on lavapipe. Every report prints the one it used. */
#define ST_SHADOW_SIZE_PUBLICATION 1024u
#define ST_SHADOW_SIZE_PREVIEW 256u

/* Tuning: 400×260, 10 timed + 3 warm-up frames per setting and view, into out/tune by default; the views are
 * the horizon views. */
typedef struct st_tune_desc {
    st_measure_desc run;
} st_tune_desc;

typedef struct st_tune_setting {
    double value;
    double ms;          /* mean over the views of the GPU mean (CPU mean without timestamps) */
    bool gpu_timing;
    double see_through, coherence, depth_wrong, color_visible, error; /* means over the views, % */
    bool chosen;
} st_tune_setting;

typedef struct st_tune_method {
    char name[32];
    char knob[32];      /* "" when none: one row with the defaults */
    size_t count, chosen;
    bool by_time;       /* ranked by GPU time; false: by the knob's cost order (no GPU timestamps) */
    st_tune_setting settings[ST_TUNE_MAX_SETTINGS];
} st_tune_method;

typedef struct st_tune_result {
    char adapter[256], device_type[16], slug[96], world[256];
    uint32_t width, height, frames, warmup;
    bool shadows;
    uint32_t shadow_size;
    size_t view_count, method_count;
    st_viewpoint views[ST_MAX_VIEWS];
    st_tune_method methods[32];
    uint32_t validation_messages;
    char out_dir[1024];
} st_tune_result;

/* Runs the sweep and writes tuning.md, tuning.json and tuning.svg into out_dir/<adapter-slug>/. */
st_result st_tune_run(const st_tune_desc *desc, st_tune_result **out, st_error *err);
void st_tune_result_free(st_tune_result *r);
/* tuning.json of a finished sweep (schema "strata-tune", what st_tuning_read takes back), written atomically. */
st_result st_tune_write_json(const st_tune_result *r, const char *path, st_error *err);
/* tuning.md: the summary table and each method's sweep, written atomically. */
st_result st_tune_write_markdown(const st_tune_result *r, const char *path, st_error *err);
/* tuning.svg: error against frame time per method, the chosen setting ringed, written atomically. */
st_result st_tune_write_svg(const st_tune_result *r, const char *path, st_error *err);

/* ---- the edit protocol (src/eval/edits.c) ------------------------------------------------------------------
 * The paper's dig: a crater of radius 48 and depth 90 at the level centre, seen from (cx, cy + 158), eye 40 above
 * the original surface, yaw 180, pitch −30. Per method: the first post-edit frame (median of independently built
 * renderers), consistency after 1, 2, 4, 8, 16 frames against a renderer built fresh from the edited level, and
 * the fresh renderer's steady frame time. */

#define ST_EDIT_CHECKS 5          /* after 1, 2, 4, 8, 16 frames */
#define ST_EDIT_MAX_REPEATS 16
#define ST_EDIT_MAX_MISMATCH 0.01 /* % of pixels hit in one image and missed in the other */
#define ST_EDIT_MAX_DEPTH_P95 0.1 /* world units */
#define ST_EDIT_CAMERA_BACK 158.0f
#define ST_EDIT_EYE_HEIGHT 40.0f
/* The second, close camera: the paper's timing camera sees the crater behind its ridge in about 1 % of the
 * frame, so consistency is also judged from (cx, cy + 20), eye 80 above the original surface, yaw 180, pitch −75,
 * looking down into the crater, which then fills a real share of the image. */
#define ST_EDIT_CLOSE_BACK 20.0f
#define ST_EDIT_CLOSE_EYE_HEIGHT 80.0f
#define ST_EDIT_CLOSE_PITCH -75.0f

/* GPU time per named pass (st_frame_timing.passes) gathered over frames: a mean or a median per name, in the
 * order the names first appear; NAN without timestamps. */
typedef struct st_pass_stat {
    char name[24];
    double ms;
} st_pass_stat;
typedef struct st_pass_set {
    uint32_t count;
    st_pass_stat passes[ST_MAX_FRAME_PASSES];
} st_pass_set;
/* The mean of each pass over n frames (a pass absent from a frame counts 0 there), so the means sum to the
 * frames' mean GPU time. */
void st_pass_set_mean(const st_frame_timing *frames, size_t n, st_pass_set *out);
/* The median of each pass over n frames (absent = 0). */
void st_pass_set_median(const st_frame_timing *frames, size_t n, st_pass_set *out);
/* The ms of the pass `name`, 0 when the set has no such pass (NAN stays NAN). */
double st_pass_set_ms(const st_pass_set *set, const char *name);

/* How a method brings its derived data up to date after an edit. */
typedef enum st_update_class {
    ST_UPDATE_DIRECT,  /* reads the terrain texture directly (at most small CPU bounds change) */
    ST_UPDATE_REBUILD, /* incremental rebuild of a derived structure (the voxel occupancy) */
    ST_UPDATE_REFIT,   /* local refit of fitted geometry (the mesh) */
} st_update_class;
/* The class of a method by name (direct for a method it does not list). */
st_update_class st_method_update_class(const char *method);
/* "direct reader", "incremental rebuild" or "refit", for the reports. */
const char *st_update_class_name(st_update_class c);

/* Agreement of two renderings of the same camera: a and b are distance images (NAN = miss) and RGBA8. */
typedef struct st_image_diff {
    double mismatch_pct;         /* % of pixels hit in one, missed in the other */
    double depth_p50, depth_p95; /* |a − b| over pixels hit in both; 0 when there are none */
    double color_mae;            /* 8-bit levels over all pixels */
    bool consistent;             /* mismatch ≤ ST_EDIT_MAX_MISMATCH and p95 ≤ ST_EDIT_MAX_DEPTH_P95 */
} st_image_diff;
/* The agreement of two w×h renderings (distances NAN where missed); ST_ERR_NOMEM is its only failure. */
st_result st_image_diff_compute(const float *dist_a, const uint8_t *rgba_a, const float *dist_b,
                                const uint8_t *rgba_b, uint32_t w, uint32_t h, st_image_diff *out, st_error *err);

typedef struct st_edit_desc {
    int cx, cy;            /* crater centre; used when centre_given, else the level centre */
    bool centre_given;
    int radius, depth;     /* 0 = 48, 90 */
    uint32_t width, height; /* 0 = 1280×800 */
    float far_dist;        /* 0 = 600 */
    uint32_t warmup;       /* frames before the dig; 0 = 3 */
    uint32_t repeats;      /* independent first post-edit frames; 0 = 5 (at most ST_EDIT_MAX_REPEATS) */
    uint32_t steady_frames; /* timed frames of the fresh edited renderer; 0 = 10 */
    bool no_shadows;
    uint32_t shadow_size;  /* 0 = ST_SHADOW_SIZE_PUBLICATION */
    st_method_knobs knobs;
    const char *image_dir; /* edit-<method>-before.png / -after.png go here; NULL = none */
} st_edit_desc;

typedef struct st_edit_row {
    char method[32];
    st_update_class update;
    uint32_t repeats;
    double first_cpu_ms[ST_EDIT_MAX_REPEATS], first_gpu_ms[ST_EDIT_MAX_REPEATS];
    double first_cpu_median, first_gpu_median, first_cpu_p25, first_cpu_p75;
    double update_cpu_median; /* st_engine_update_level alone (the methods' level_updated hooks, e.g. a
                                 refit), part of first_cpu: the edit's CPU work after the dig itself */
    double steady_cpu_ms, steady_gpu_ms;     /* median over the fresh edited renderer's steady frames */
    st_pass_set first_passes, steady_passes; /* per pass: medians of the first post-edit and the steady frames */
    double overhead_cpu_ms, overhead_gpu_ms; /* first − steady */
    double steady_cpu_p25, steady_cpu_p75;
    bool overhead_cpu_noise;                 /* |first − steady| within the frames' own spread (or negative) */
    bool gpu_timing;
    uint32_t check_frames[ST_EDIT_CHECKS];
    st_image_diff checks[ST_EDIT_CHECKS];
    uint32_t consistent_after;               /* frames; 0 = not consistent by 16 */
    st_image_diff final;                     /* at consistent_after, else after 16 frames */
    double changed_pct;                      /* % of the timing camera's pixels the dig changed (fresh edited image
                                                against the one before the dig: hit/miss or depth by > 0.1) */
    st_image_diff close;                     /* the close camera after the timing camera's checks */
    double close_changed_pct;
    uint64_t gpu_bytes, cpu_bytes;           /* after the edit */
} st_edit_row;

/* Checks the dig against the level (centre inside, radius 1..4096, depth 0..255) before anything is drawn. */
st_result st_edit_check(const st_level *level, const st_edit_desc *d, st_error *err);
/* The dig's centre (the level centre unless given) and the timing camera's viewpoint. */
void st_edit_centre(const st_level *level, const st_edit_desc *d, int *cx, int *cy);
/* The timing camera: ST_EDIT_CAMERA_BACK south of the centre (wrapped where the level wraps in y), yaw 180,
 * pitch −30, ST_EDIT_EYE_HEIGHT above the surface. */
st_viewpoint st_edit_viewpoint(const st_level *level, const st_edit_desc *d);
/* The close camera: ST_EDIT_CLOSE_BACK south of the centre, pitch ST_EDIT_CLOSE_PITCH, ST_EDIT_CLOSE_EYE_HEIGHT
 * above the surface. */
st_viewpoint st_edit_close_viewpoint(const st_level *level, const st_edit_desc *d);
/* % of pixels that differ between two distance images of one camera: hit in one only, or by > 0.1 units. */
double st_image_changed_pct(const float *a, const float *b, uint32_t w, uint32_t h);
/* Runs the protocol for one method. `work` must hold the same planes as `original`; the engine's level is
 * set to `work` repeatedly (no renderer may be live) and left pointing at `work`, restored to the original. */
st_result st_edit_measure(st_engine *engine, const st_level *original, st_level *work, const char *method,
                          const st_edit_desc *d, st_edit_row *row, st_error *err);

/* ---- process memory (src/eval/run.c) ----------------------------------------------------------------------- */
uint64_t st_eval_peak_rss_bytes(void);    /* getrusage ru_maxrss */
uint64_t st_eval_current_rss_bytes(void); /* /proc/self/statm; 0 when unknown */

/* ---- the comparison protocol -------------------------------------------------------------------------- */

#define ST_COMPARE_SCHEMA_VERSION 1
#define ST_COMPARE_MAX_METHODS 32

/* The comparison: 1280×800, 40 timed + 3 warm-up frames per method and view, into out/compare by default. */
typedef struct st_compare_desc {
    st_measure_desc run;
    bool quick;                /* recorded in the JSON */
    const st_tuning *tuning;   /* knob settings per method (strata tune); NULL = each method's defaults */
    const char *tuning_path;   /* recorded in the JSON */
    bool edits;                /* also run the edit protocol on every method */
    st_edit_desc edit;         /* its settings; width/height/far/warmup/knobs/no_shadows/image_dir are filled in */
    /* The water row: the first method with this water (NONE = no row) on every view, its GPU time apart from the
     * terrain's. It is timed, never scored: every method's own rows are the terrain alone. */
    st_water_mode water;
} st_compare_desc;

/* The water row of a comparison: per view, means over the timed frames (GPU ms; NAN without timestamps). */
typedef struct st_compare_water {
    st_water_mode mode;        /* NONE: the run had no water row */
    char method[32];           /* the terrain method under the water */
    double sim_ms[ST_MAX_VIEWS], surface_ms[ST_MAX_VIEWS]; /* the ocean's simulation, the surface pass */
    double terrain_ms[ST_MAX_VIEWS]; /* the rest of the frame: the method's passes, shadow and cap */
    double cpu_ms[ST_MAX_VIEWS];     /* the whole frame, CPU record + submit + wait */
    double sim_mean, surface_mean, terrain_mean; /* means of the views' */
    bool gpu_timing;
} st_compare_water;

typedef struct st_compare_row {
    size_t method, view;    /* indices into the result's methods and views */
    double *gpu_ms, *cpu_ms; /* frames values each (gpu NAN when the device has no timestamps) */
    uint32_t frames;
    st_stats gpu, cpu;
    bool gpu_timing;        /* every frame had a GPU time: avg_ms is the GPU mean */
    double avg_ms;
    double warmup_ms;       /* this view's warm-up frames (CPU wall) */
    double shadow_ms;       /* mean GPU time of the shadow pass over the timed frames; NAN without timestamps */
    st_pass_set passes;     /* mean GPU time of each pass over the timed frames */
    double shadow_first_ms; /* the shadow pass of the view's first frame, which casts the map anew; NAN without */
    double first_pass_ms;   /* the method's first view, timed again after its last: the first pass's mean (the
                             * row's frames are the second pass's); NAN on every other row */
    st_metrics metrics;
} st_compare_row;

typedef struct st_compare_method {
    char name[32];
    double setup_ms, first_frame_ms, warmup_ms; /* renderer creation, very first frame, first view's warm-up */
    uint64_t gpu_bytes, cpu_bytes;
    double mean_ms, ci95_ms; /* mean of the view means ± 1.96·√(Σ s_i²/n_i)/k */
    double shadow_ms;        /* mean of the rows' shadow_ms (included in mean_ms) */
    st_pass_set passes;      /* mean of the rows' pass times: they sum to mean_ms under GPU timing */
    double shadow_first_ms;  /* mean of the rows' shadow_first_ms (not in mean_ms: a warm-up frame) */
    st_method_knobs knobs;
    char knob[32];           /* the tuned knob, "" when the defaults were used */
    double knob_value;
    int64_t device_usage_delta; /* device memory usage with the renderer live minus before; when known */
    bool device_usage_known;
} st_compare_method;

/* The harness's own wall time over the run, by phase (ms; docs/harness.md "What the harness parallelises"): the
 * reference casts (or cache reads), the readbacks, the scoring (distances, metrics, ΔE, heat-map pixels), the
 * mosaics (downscaled tiles, captions), the PNGs, and the GPU frames themselves (setup, warm-up, timed). */
typedef struct st_compare_phases {
    double reference_ms, frames_ms, readback_ms, scoring_ms, mosaic_ms, png_ms;
} st_compare_phases;

typedef struct st_compare_result {
    char adapter[256], driver[256], device_type[16], api_version[16];
    uint32_t vendor_id, device_id;
    char slug[96];           /* folder name made from the adapter name */
    char world[256];
    char level_name[64];
    uint32_t level_width, level_height, level_crc;
    uint32_t width, height, frames, warmup;
    float far_dist, near_dist, fovy_deg;
    bool quick;
    size_t method_count, view_count;
    st_compare_method methods[ST_COMPARE_MAX_METHODS];
    st_viewpoint views[ST_MAX_VIEWS];
    st_camera cameras[ST_MAX_VIEWS];
    double reference_ms[ST_MAX_VIEWS]; /* 0 when it came from the cache */
    st_compare_row *rows;    /* method-major: rows[m·view_count + v] */
    uint32_t validation_messages;
    char out_dir[1200];      /* where the reports went: OUT/<adapter-slug>/<run name> */
    char run_name[160];      /* <UTC time>-<quick|compare>-<settings digest> */
    char settings[1024];     /* the settings the digest is of */
    char cache_note[512];    /* "" or why the reference cache could not be written */
    bool shadows;
    uint32_t shadow_size;
    st_shading shading;
    char tuning[512];        /* the tuning file used, "" for none */
    /* memory at the end of the run */
    uint64_t peak_rss_bytes;
    bool device_budget_known;
    uint64_t device_budget_bytes, device_usage_bytes;
    /* the edit protocol (desc.edits) */
    bool edits;
    st_edit_desc edit;       /* as run (defaults resolved) */
    int edit_cx, edit_cy;
    st_viewpoint edit_view, edit_close_view;
    st_camera edit_camera;
    st_rect edit_rect;
    st_edit_row *edit_rows;  /* method_count rows in method order */
    st_compare_water water;  /* the water row (desc.water) */
    st_compare_phases phases; /* where the harness's own time went */
} st_compare_result;

/* Runs the protocol and writes every report into out_dir/<adapter-slug>/. */
st_result st_compare_run(const st_compare_desc *desc, st_compare_result **out, st_error *err);
void st_compare_result_free(st_compare_result *result);

/* Finishes a result whose rows are filled: per-method means and intervals. */
void st_compare_summarize(st_compare_result *result);

/* Report writers (atomic); each takes the finished result. results.json (schema "strata-compare"): */
st_result st_compare_write_json(const st_compare_result *r, const char *path, st_error *err);
/* results.md: accuracy, colour error, frame times per pitch, preparation, memory, every method × view, the
 * images (and the edit table when edits ran): */
st_result st_compare_write_markdown(const st_compare_result *r, const char *path, st_error *err);
/* frame-time.svg: each method's frame time per pitch (mean of the views): */
st_result st_compare_write_svg(const st_compare_result *r, const char *path, st_error *err);
/* The edit table (the paper's §5.4: CPU0 CPU1 ΔC GPU0 GPU1 ΔG match) as Markdown lines into an open file. */
void st_compare_write_edit_table(const st_compare_result *r, FILE *fp);

/* Distinct pitches of the views in the order they first appear (rounded to whole degrees). */
size_t st_compare_pitches(const st_compare_result *r, int *pitches, size_t cap);
/* The first view of each distinct pitch (the quick protocol's views); returns how many. */
size_t st_compare_pick_per_pitch(const st_viewpoint *in, size_t n, st_viewpoint *out, size_t cap);
/* Lower-case letters, digits and single dashes from an adapter name ("NVIDIA H200" → "nvidia-h200"). */
void st_eval_slug(const char *name, char *slug, size_t cap);

/* A tiled picture: tiles of tile_w×tile_h RGBA placed in a cols×rows grid with a 2-pixel gutter, framed by a
 * left margin (row labels), a top margin (a title, column labels), a caption strip above every tile and a
 * bottom strip (a legend). Text is stb_easy_font, drawn as filled rectangles. */
typedef struct st_mosaic_layout {
    uint32_t cols, rows, tile_w, tile_h;
    uint32_t left, top, caption, bottom; /* margins in pixels; 0 = none */
} st_mosaic_layout;
typedef struct st_mosaic {
    uint32_t cols, rows, tile_w, tile_h, width, height;
    uint32_t left, top, caption, bottom;
    uint8_t *rgba;
} st_mosaic;
/* A mosaic of that layout filled with the near-black background; ST_ERR_INVALID for an empty or absurd layout
 * (more than 256 tiles a side, tiles over 8192 pixels), ST_ERR_NOMEM. st_mosaic_free releases it. */
st_result st_mosaic_create_framed(const st_mosaic_layout *layout, st_mosaic *out, st_error *err);
/* No margins. */
st_result st_mosaic_create(uint32_t cols, uint32_t rows, uint32_t tile_w, uint32_t tile_h, st_mosaic *out,
                           st_error *err);
void st_mosaic_free(st_mosaic *m);
/* Top-left pixel of tile (col, row). */
void st_mosaic_tile_origin(const st_mosaic *m, uint32_t col, uint32_t row, uint32_t *x, uint32_t *y);
/* Places a w×h image (scaled down by factor with a box filter, or with priority when `priority`: the
 * first non-black-or-grey colour of the block wins, so single-pixel errors stay visible) at (col, row). */
void st_mosaic_put(st_mosaic *m, uint32_t col, uint32_t row, const uint8_t *rgba, uint32_t w, uint32_t h,
                   uint32_t factor, bool priority);
/* The same, each block keeping its pixel of the largest key (w·h floats). */
void st_mosaic_put_keyed(st_mosaic *m, uint32_t col, uint32_t row, const uint8_t *rgba, const float *key, uint32_t w,
                         uint32_t h, uint32_t factor);
/* Text (ASCII) with its top-left at (x, y), each font pixel scale×scale; and its width. */
void st_mosaic_text(st_mosaic *m, int x, int y, const char *text, const uint8_t rgb[3], int scale);
/* The width in pixels st_mosaic_text would draw text at that scale. */
int st_mosaic_text_width(const char *text, int scale);
/* A filled opaque w×h rectangle with its top-left at (x, y), clipped to the mosaic. */
void st_mosaic_rect(st_mosaic *m, int x, int y, int w, int h, const uint8_t rgb[3]);
/* Text in the caption strip above tile (col, row). */
void st_mosaic_caption(st_mosaic *m, uint32_t col, uint32_t row, const char *text);
/* A row label right-aligned in the left margin beside row. */
void st_mosaic_row_label(st_mosaic *m, uint32_t row, const char *text, int scale);
/* A column label in the top margin, just above the first row (the margin must be at least 20 pixels). */
void st_mosaic_col_label(st_mosaic *m, uint32_t col, const char *text);
/* The two heat maps' legends, one line each (about 1100 × 30 pixels), top-left at (x, y): the depth map's
 * (see-through, covers sky, incoherent, the depth-error ramp), */
void st_eval_depth_legend(st_mosaic *m, int x, int y);
/* and the colour map's (the ΔE ramp, the dimmed reference below the visible threshold). */
void st_eval_color_legend(st_mosaic *m, int x, int y);

/* ---- the soak (src/eval/soak.c) ---------------------------------------------------------------------------
 * A random dig every frame (centre anywhere, radius 4..64, depth 10..90) with the camera following it, checked
 * every check_every frames against a renderer built fresh from the edited level; RSS and device memory usage
 * are sampled every frame and their growth (mean of the last 10 % of frames minus the first 10 %) reported. */

typedef struct st_soak_desc {
    const st_level *level;     /* never modified: the soak edits a clone */
    const char *const *methods; /* NULL = "ray" */
    size_t method_count;
    uint32_t frames;           /* 0 = 10000 */
    uint32_t check_every;      /* 0 = 1 on a GPU adapter, 100 on a CPU adapter */
    uint32_t width, height;    /* 0 = 320×200 */
    uint64_t seed;             /* 0 = 1 */
    bool no_shadows;
    const st_tuning *tuning;
    const char *out_dir;       /* soak.json goes to out_dir/<adapter-slug>/; NULL = "out/soak" */
    int device_index;
    bool device_given, validate, progress;
} st_soak_desc;

typedef struct st_soak_method {
    char name[32];
    uint32_t frames, checks, inconsistent;
    double worst_mismatch_pct, worst_depth_p95, worst_color_mae;
    double cpu_ms_median;
    double rss_first, rss_last;        /* mean bytes over the first / last 10 % of frames */
    bool device_usage_known;
    double device_first, device_last;
    uint32_t validation_messages;      /* seen during this method's soak */
    char error[256];                   /* "" unless the method failed */
} st_soak_method;

typedef struct st_soak_result {
    char adapter[256], device_type[16], slug[96];
    uint32_t frames, check_every, width, height;
    uint64_t seed;
    size_t method_count;
    st_soak_method methods[32];
    uint32_t validation_messages;
    uint64_t peak_rss_bytes;
    char out_dir[1024];
} st_soak_result;

/* Runs the soak and writes soak.json. A Vulkan failure (device lost, out of memory) stops the soak with an
 * st_error naming the method and frame; soak.json is still written and *out is set. */
st_result st_soak_run(const st_soak_desc *desc, st_soak_result **out, st_error *err);
void st_soak_result_free(st_soak_result *r);

/* ---- DEM tile stores: the comparison of the large-world methods (src/eval/compare_store.c) --------------------
 * Every store method at every τ and view, settled to full detail, timed, and scored against the full-resolution
 * reference (st_dem_reference) with the metrics above (depth in metres) plus the image-space error in pixels:
 * for each pixel a method drew, the screen distance between its surface point and the true surface point straight
 * below or above it (docs/harness.md). Reports go to OUT/<adapter>/<UTC time>-world-<digest>/. */

#define ST_COMPARE_STORE_MAX_TAUS 8

/* The image-space error of each pixel of a method's distance image (NAN = nothing drawn) seen with view v (its
 * origin the eye in double precision), in pixels, into err_px (w·h floats; NAN where nothing was drawn or the
 * point lies off the world). */
st_result st_eval_image_space_error(st_dem_reference *ref, const st_view *v, const float *distance, uint32_t w,
                                    uint32_t h, float *err_px, st_error *err);

typedef struct st_compare_store_desc {
    st_store *store;             /* required */
    const char *world_name;      /* for the reports */
    const char *const *methods;  /* NULL = every store method */
    size_t method_count;
    const st_viewpoint *views;   /* NULL = the store's 12 default views */
    size_t view_count;
    const double *taus;          /* NULL = {1} */
    size_t tau_count;
    uint32_t width, height;      /* 0 = 1280×800 */
    double far_m;                /* 0 = the store's (st_store_far) */
    uint32_t frames, warmup;     /* 0 = 20 and 3 */
    uint32_t settle_frames;      /* frames allowed to reach full detail per view (0 = 4000) */
    bool skirts, no_shadows;
    uint32_t lod_grid, gpu_slots;
    bool lod_error_bound;        /* ranges from the index's δ bound (st_method_knobs.lod_error_bound) */
    bool lod_select_gpu;         /* cdlod's selection as a compute pass (st_method_knobs.lod_select_gpu); the
                                    other methods keep their CPU selection */
    uint32_t clip_n;             /* clipmap methods: grid vertices a side (0 = from each τ) */
    st_shading shading;          /* FLAT (the protocol's); TEXTURED measures what the materials cost per method
                                    (the reference stays flat, so the colour columns then measure the textures) */
    const char *out_dir;         /* NULL = out/compare-world */
    int device_index;
    bool device_given, validate, progress_lines;
    const volatile sig_atomic_t *cancel;
} st_compare_store_desc;

typedef struct st_compare_store_row {
    size_t method, tau, view;
    st_stats ms;                 /* frame time: GPU timestamps, else CPU submit-and-wait */
    bool gpu_timing;
    double p99_ms;
    st_metrics metrics;
    double seam_see_through;     /* % of pixels: see-through under the method's own skyline (st_eval_seam_holes) */
    double ise_p50, ise_p95, ise_max; /* image-space error, pixels */
    uint64_t ise_pixels;         /* pixels it was measured over */
    st_lod_frame_stats lod;
    uint32_t settle_frames;
    bool settled;
} st_compare_store_row;

#define ST_COMPARE_STORE_MAX_PITCHES 8

typedef struct st_compare_store_result {
    char adapter[256], device_type[16], slug[96], world[512];
    uint32_t width, height, frames, warmup;
    double far_m;
    bool skirts, shadows;
    st_shading shading;
    bool lod_error_bound;        /* the ranges came from the index's δ bound, not the measured error */
    bool lod_select_gpu;         /* cdlod selected on the GPU (--lod-select gpu) */
    size_t method_count, tau_count, view_count;
    char methods[ST_COMPARE_MAX_METHODS][32];
    double taus[ST_COMPARE_STORE_MAX_TAUS];
    st_viewpoint views[ST_MAX_VIEWS];
    double reference_ms[ST_MAX_VIEWS];
    st_compare_store_row *rows;  /* rows[(m·tau_count + t)·view_count + v] */
    /* per method and τ, pooled over the views */
    double mean_ms[ST_COMPARE_MAX_METHODS][ST_COMPARE_STORE_MAX_TAUS];
    double ise_p95[ST_COMPARE_MAX_METHODS][ST_COMPARE_STORE_MAX_TAUS];
    double ise_max[ST_COMPARE_MAX_METHODS][ST_COMPARE_STORE_MAX_TAUS];
    double see_through[ST_COMPARE_MAX_METHODS][ST_COMPARE_STORE_MAX_TAUS];
    double triangles[ST_COMPARE_MAX_METHODS][ST_COMPARE_STORE_MAX_TAUS];
    double select_ms[ST_COMPARE_MAX_METHODS][ST_COMPARE_STORE_MAX_TAUS];
    /* the seams' figure per pitch: the distinct pitches of the views (rounded to a degree, in the order first
     * seen; views past the first ST_COMPARE_STORE_MAX_PITCHES pitches are left out) and, per method and τ, the
     * mean see-through over that pitch's views */
    size_t pitch_count;
    double pitches[ST_COMPARE_STORE_MAX_PITCHES];
    double see_through_pitch[ST_COMPARE_MAX_METHODS][ST_COMPARE_STORE_MAX_TAUS][ST_COMPARE_STORE_MAX_PITCHES];
    /* the same for the seam holes alone (seam_see_through): what the seams' target of 0 is about */
    double seam_pitch[ST_COMPARE_MAX_METHODS][ST_COMPARE_STORE_MAX_TAUS][ST_COMPARE_STORE_MAX_PITCHES];
    uint32_t validation_messages;
    uint64_t peak_rss_bytes, gpu_tile_bytes;
    char out_dir[1200];
} st_compare_store_result;

/* The see-through pixels that are holes rather than a lowered skyline: the reference has terrain there, the method
 * sky, and the method has terrain above the pixel in its column. A height field seen by an upright camera shows sky
 * only above its terrain in a column (a lower ray meets the ground nearer), so a sky pixel under the method's own
 * terrain is a crack or a missing patch — what a LOD seam leaves — while a silhouette drawn a pixel low (a coarser
 * ridge) is see-through above the method's skyline and not counted. distance and ref_distance: w·h, non-finite =
 * sky. Returns the count; *first_index (optional) the row-major index of the first such pixel, SIZE_MAX if none. */
uint64_t st_eval_seam_holes(const float *distance, const float *ref_distance, uint32_t width, uint32_t height,
                            size_t *first_index);

/* Runs the store comparison (every store method at every τ and view against the DEM reference) and writes its
 * reports; ST_ERR_INVALID without a store or with too many methods. st_compare_store_result_free releases *out. */
st_result st_compare_store_run(const st_compare_store_desc *desc, st_compare_store_result **out, st_error *err);
void st_compare_store_result_free(st_compare_store_result *r);

/* ---- merging runs ----------------------------------------------------------------------------------------
 * Reads results.json files of several adapters and writes one Markdown report: frame time per method per
 * adapter (and per pitch), then an accuracy cross-check against the first file: any method × view whose
 * see-through or coherence differs by more than tolerance percentage points is listed as a finding. */
st_result st_compare_merge(const char *const *paths, size_t count, double tolerance, const char *out_path,
                           size_t *findings, st_error *err);

#endif
