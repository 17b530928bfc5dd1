/* Evaluation: image metrics against the CPU reference (see-through, covers-sky, depth error, coherence,
 * colour MAE), the comparison protocol behind `strata compare`, and its reports (JSON, Markdown, SVG,
 * grid and heat-map PNGs). Every definition is written out in docs/harness.md. */
#ifndef STRATA_EVAL_H
#define STRATA_EVAL_H

#include "strata/camera.h"
#include "strata/level.h"
#include "strata/reference.h"
#include "strata/views.h"

/* ---- metrics ------------------------------------------------------------------------------------------
 * Distance images hold the distance along each pixel's normalised ray, NAN where nothing was drawn (a
 * method) or nothing is solid (the reference). Percentages are of all w·h pixels. */

/* Relative tolerance of the coherence test: |d − median3x3| > ST_COHERENCE_REL · max(d, 1). */
#define ST_COHERENCE_REL 0.04f

typedef struct st_metrics {
    double see_through; /* % of pixels: reference solid, method empty */
    double covers_sky;  /* % of pixels: reference sky, method drawn */
    double depth_p50;   /* world units, over pixels solid in both; NAN when there are none */
    double depth_p95;
    double coherence;   /* % of pixels: method incoherent, reference solid and coherent there */
    uint64_t pixels, both_solid;
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
/* A heat map of the errors: see-through red, covers-sky blue, counted incoherent pixels magenta, pixels
 * solid in both on a black→yellow→white ramp of |d − d_ref| (log scale, white at ≥ 16 units), sky in both
 * dark grey. rgba = w·h·4 bytes. */
st_result st_eval_heatmap(const float *distance, const float *ref_distance, uint32_t w, uint32_t h,
                          uint8_t *rgba, st_error *err);

/* ---- the comparison protocol -------------------------------------------------------------------------- */

#define ST_COMPARE_SCHEMA_VERSION 1
#define ST_COMPARE_MAX_METHODS 32

typedef struct st_compare_desc {
    const st_level *level;     /* the world to draw (required) */
    const char *world_name;    /* for the reports ("default", a path) */
    const char *const *methods; /* method names; NULL = every registered method */
    size_t method_count;
    const st_viewpoint *views; /* required, 1..ST_MAX_VIEWS */
    size_t view_count;
    uint32_t width, height;    /* 0 = 1280×800 */
    float far_dist;            /* 0 = 600 */
    uint32_t frames;           /* timed frames per method and view; 0 = 40 */
    uint32_t warmup;           /* untimed frames before timing, per method and view; 0 = 3 */
    bool quick;                /* recorded in the JSON */
    const char *out_dir;       /* the adapter folder is created below it; NULL = "out/compare" */
    const char *cache_dir;     /* reference cache; NULL = "out/cache", "" = none */
    int device_index;          /* as st_engine_desc */
    bool device_given;
    bool validate;
    bool progress;             /* a progress bar with ETA on stderr */
} st_compare_desc;

typedef struct st_compare_row {
    size_t method, view;    /* indices into the result's methods and views */
    double *gpu_ms, *cpu_ms; /* frames values each (gpu NAN when the device has no timestamps) */
    uint32_t frames;
    st_stats gpu, cpu;
    bool gpu_timing;        /* every frame had a GPU time: avg_ms is the GPU mean */
    double avg_ms;
    double warmup_ms;       /* this view's warm-up frames (CPU wall) */
    st_metrics metrics;
} st_compare_row;

typedef struct st_compare_method {
    char name[32];
    double setup_ms, first_frame_ms, warmup_ms; /* renderer creation, very first frame, first view's warm-up */
    uint64_t gpu_bytes, cpu_bytes;
    double mean_ms, ci95_ms; /* mean of the view means ± 1.96·√(Σ s_i²/n_i)/k */
} st_compare_method;

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
    char out_dir[1024];      /* where the reports went */
} st_compare_result;

/* Runs the protocol and writes every report into out_dir/<adapter-slug>/. */
st_result st_compare_run(const st_compare_desc *desc, st_compare_result **out, st_error *err);
void st_compare_result_free(st_compare_result *result);

/* Finishes a result whose rows are filled: per-method means and intervals. */
void st_compare_summarize(st_compare_result *result);

/* Report writers (atomic); each takes the finished result. */
st_result st_compare_write_json(const st_compare_result *r, const char *path, st_error *err);
st_result st_compare_write_markdown(const st_compare_result *r, const char *path, st_error *err);
st_result st_compare_write_svg(const st_compare_result *r, const char *path, st_error *err);

/* Distinct pitches of the views in the order they first appear (rounded to whole degrees). */
size_t st_compare_pitches(const st_compare_result *r, int *pitches, size_t cap);
/* The first view of each distinct pitch (the quick protocol's views); returns how many. */
size_t st_compare_pick_per_pitch(const st_viewpoint *in, size_t n, st_viewpoint *out, size_t cap);
/* Lower-case letters, digits and single dashes from an adapter name ("NVIDIA H200" → "nvidia-h200"). */
void st_eval_slug(const char *name, char *slug, size_t cap);

/* A tiled picture: tiles of tile_w×tile_h RGBA placed in a cols×rows grid with a 2-pixel gutter.
 * st_eval_tile_downscale shrinks a w×h RGBA image by an integer factor (box filter). */
typedef struct st_mosaic {
    uint32_t cols, rows, tile_w, tile_h, width, height;
    uint8_t *rgba;
} st_mosaic;
st_result st_mosaic_create(uint32_t cols, uint32_t rows, uint32_t tile_w, uint32_t tile_h, st_mosaic *out,
                           st_error *err);
void st_mosaic_free(st_mosaic *m);
/* Places a w×h image (scaled down by factor with a box filter, or with priority when `priority`: the
 * first non-black-or-grey colour of the block wins, so single-pixel errors stay visible) at (col, row). */
void st_mosaic_put(st_mosaic *m, uint32_t col, uint32_t row, const uint8_t *rgba, uint32_t w, uint32_t h,
                   uint32_t factor, bool priority);

/* ---- merging runs ----------------------------------------------------------------------------------------
 * Reads results.json files of several adapters and writes one Markdown report: frame time per method per
 * adapter (and per pitch), then an accuracy cross-check against the first file: any method × view whose
 * see-through or coherence differs by more than tolerance percentage points is listed as a finding. */
st_result st_compare_merge(const char *const *paths, size_t count, double tolerance, const char *out_path,
                           size_t *findings, st_error *err);

#endif
