/* The lab's table of the large-world methods (src/eval/lod_lab.c): measured figures beside the predictions they
 * test — triangles against τ over doublings with the fitted exponent (predicted −2), the skirts' overhead (4/N),
 * resident tiles at cruise against the bound derived from the ranges and the load latency, the frame hitch with
 * slow loads, and the depth-precision experiment. docs/large-world.md explains each prediction. */
#ifndef STRATA_LAB_H
#define STRATA_LAB_H

#include <signal.h>

#include "strata/fly.h"

#define ST_LAB_MAX_TAUS 8

typedef struct st_lod_lab_desc {
    st_store *store;
    const char *world_name;
    uint32_t width, height;      /* 0 = 1920×1080 */
    const double *taus;          /* NULL = 0.5, 1, 2, 4, 8 */
    size_t tau_count;
    uint32_t lod_grid;           /* 0 = 32 */
    /* the flights (GPU): none when cruise is NULL */
    const st_flight *cruise;
    const char *cruise_name;
    const char *method;          /* NULL = "cdlod" */
    double slow_load_ms;         /* the hitch flight's sleep per load (0 = 50) */
    uint32_t gpu_slots;
    bool depth;                  /* run the depth-precision experiment (GPU) */
    const char *zfight_png;      /* with depth: its picture at s = 0.1 m here (st_depth_precision_desc.strip_rgba,
                                    each column 3 pixels wide; NULL = none) */
    int device_index;
    bool device_given, validate, progress_lines;
    const volatile sig_atomic_t *cancel;
} st_lod_lab_desc;

/* One level's share of the residency bound. */
typedef struct st_lod_lab_level {
    double range_m, radius_m, tile_m; /* the level's range, the radius its requests reach, its tiles' size */
    double visible, margin, bound;    /* tiles: in the visible sector, the prefetch margin, their sum capped */
    uint64_t tiles;                   /* the level's tiles in the store */
} st_lod_lab_level;

typedef struct st_lod_lab_result {
    char world[512], adapter[256], device_type[32];
    uint32_t width, height, grid, levels;
    double focal_px, far_m;
    size_t view_count;
    /* triangles against τ (the selection on the CPU, every tile drawable, the store's default views) */
    size_t tau_count;
    double taus[ST_LAB_MAX_TAUS];
    double triangles[ST_LAB_MAX_TAUS];  /* mean over the views */
    uint32_t tau_decided[ST_LAB_MAX_TAUS]; /* levels whose range τ decides (of levels − 1) */
    double exponent, exponent_r2;       /* least squares of log T on log τ */
    double delta_m[ST_LOD_MAX_LEVELS];  /* each level's δ as the ranges use it (measured, monotone) */
    double delta_bound_m[ST_LOD_MAX_LEVELS]; /* the index's bound, monotone */
    double triangles_bound[ST_LAB_MAX_TAUS]; /* the same selections with the bound's ranges */
    double exponent_bound;              /* their fitted exponent */
    double delta_growth;                /* the geometric mean of δ_{l+1}/δ_l over levels 1.. with δ > 0 */
    double exponent_from_delta;         /* −2·ln 2 / ln(growth): the exponent where the far plane cuts the rings */
    double pitch_triangles[4][ST_LAB_MAX_TAUS]; /* the mean over the views at pitch 0, −30, −60, −90 */
    double pitch_exponent[4];           /* the fitted exponent of each (NAN without views at that pitch) */
    /* skirts at τ = 1 */
    double skirt_ratio_mean, skirt_ratio_min, skirt_ratio_max; /* skirt triangles / patch triangles */
    double skirt_predicted;             /* 4/N */
    /* the flights */
    bool flights;
    char cruise[512];
    st_fly_result *plain, *slow;        /* no slow loads; with slow_load_ms */
    double cruise_speed_mps, latency_ms, slow_load_ms;
    double resident_median, wanted_max; /* over the second half of the plain flight */
    uint32_t resident_max;
    st_lod_lab_level bound_levels[ST_LOD_MAX_LEVELS];
    double bound, bound_slow;           /* tiles: with the plain and the slow flight's latency */
    /* the depth-precision experiment */
    bool depth;
    double depth_near_m, depth_far_m;
    double onset_m[8][2];               /* per gap (depth_gaps): the measured onset, standard and reverse Z; NAN
                                           when none within the sweep */
    double depth_gaps[8];
    size_t depth_gap_count;
    uint32_t validation_messages;
} st_lod_lab_result;

/* Runs the lab's measurements of desc into *out (st_lod_lab_result_free releases it). */
st_result st_lod_lab_run(const st_lod_lab_desc *desc, st_lod_lab_result **out, st_error *err);
void st_lod_lab_result_free(st_lod_lab_result *r);
/* The table as Markdown (measured beside predicted), written whole or not at all; */
st_result st_lod_lab_write_markdown(const st_lod_lab_result *r, const char *path, st_error *err);
/* and as JSON. */
st_result st_lod_lab_write_json(const st_lod_lab_result *r, const char *path, st_error *err);

/* The residency bound of docs/large-world.md for one view: per level, the tiles of size S_l that meet the sector
 * of the view's horizontal spread θ and radius R_l = 1.5·range_l + the next coarser node's diagonal (the farthest
 * a request of the level reaches, prefetch included) — at most (θR²/2 + (2R + θR)·S/√2 + πS²/2)/S² — plus the rows
 * that come into reach during one load latency at speed v, ⌈v·t/S⌉ · (⌈2R·sin(θ/2)/S⌉ + 1), capped at the level's
 * tiles. levels[] gets each level's figures; returns the sum. */
double st_lod_lab_residency_bound(const st_lod_world *w, const st_lod_band *bands, const st_lod_view *v,
                                  double speed_mps, double latency_ms, st_lod_lab_level *levels);

#endif
