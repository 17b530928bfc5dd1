/* Scripted flights over a DEM tile store (src/eval/flight.c, src/eval/fly.c): a flight file says where to start,
 * how fast and how high to fly and where to turn; every frame of it is rendered by a store method and its GPU
 * and CPU time, triangles, resident tiles, uploads and holes are recorded, written as JSON and SVG plots.
 * docs/large-world.md describes the file and the figures. */
#ifndef STRATA_FLY_H
#define STRATA_FLY_H

#include <signal.h>

#include "strata/camera.h"
#include "strata/core.h"
#include "strata/large_world.h"
#include "strata/views.h"

#define ST_FLIGHT_MAX_SECONDS 3600.0  /* a flight's length, as for the viewer's camera paths */
#define ST_FLIGHT_MAX_FRAMES 1000000u
#define ST_FLIGHT_MAX_LEGS 4096u

/* One leg: `seconds` of flight turning by `turn_deg` (clockwise positive, spread evenly) at the settings
 * in force when it starts. */
typedef struct st_flight_leg {
    double seconds, turn_deg;
    double speed_mps, height_m, pitch_deg;
} st_flight_leg;

typedef struct st_flight {
    double start[2];    /* where it starts: fractions of the world's extent in x and y (0..1) */
    double heading_deg; /* the first heading: 0 = +y, clockwise */
    double fps;         /* frames per second of flight time */
    st_flight_leg *legs;
    size_t leg_count;
} st_flight;

/* Parses a flight file: one statement a line, '#' starts a comment.
 *   start U V        fractions of the world's extent (default 0.5 0.5)
 *   heading DEG      -360..360 (default 0)
 *   fps N            1..1000 frames per second of flight time (default 60)
 *   speed M/S        0..100000 (default 300), for the legs after it
 *   height M         0..100000 metres above the ground (default 60), for the legs after it
 *   pitch DEG        -90..90 (default -10), for the legs after it
 *   fly SECONDS      a straight leg (0 < SECONDS)
 *   turn DEG SECONDS a turning leg, DEG in -3600..3600
 * start, heading and fps come before the first leg. At least one leg; the flight lasts at most
 * ST_FLIGHT_MAX_SECONDS and ST_FLIGHT_MAX_FRAMES frames. ST_ERR_FORMAT names the line of anything else. */
st_result st_flight_parse(const char *text, st_flight *out, st_error *err);
/* Reads and parses a flight file (st_file_read_all: no pipes or devices; at most 1 MiB). */
st_result st_flight_load(const char *path, st_flight *out, st_error *err);
void st_flight_free(st_flight *f);
/* The time of the flight's last keyframe, in seconds. */
double st_flight_duration(const st_flight *f);
/* Frames: one at t = 0 and one every 1/fps after it up to the flight's end. */
uint32_t st_flight_frames(const st_flight *f);

/* The camera of every frame over `store` (cams: st_flight_frames of them): the eye in double precision moving
 * along the legs, turned back into the world where it would leave it (its heading mirrored), and kept `height`
 * above the ground ahead: the greatest ground height within a second of flight either way plus the height, averaged
 * over the same window, so it never dips below the ground under it plus the least height of that window, and a
 * change of height is a ramp of two seconds. Yaw follows the heading; far = far_m. */
st_result st_flight_cameras(const st_flight *f, st_store *store, double far_m, st_camera *cams, st_error *err);

/* ---- the flight rendered ---------------------------------------------------------------------------------- */

typedef struct st_fly_desc {
    st_store *store;
    const char *world_name;     /* for the reports */
    const char *flight_name;    /* the flight file's name, for the reports */
    const st_flight *flight;
    const char *method;         /* NULL = "cdlod" */
    uint32_t width, height;     /* 0 = 1920×1080 */
    double far_m;               /* 0 = the store's (st_store_far) */
    st_method_knobs knobs;      /* τ, skirts, grid, ratios */
    bool no_shadows;
    st_world_desc world;        /* GPU slots, slow-load, ... */
    uint32_t settle_frames;     /* frames at the first camera to reach full detail before flying (0 = 4000) */
    const char *out_dir;        /* NULL = "out/fly": the run folder goes to OUT/<adapter>/<time>-fly-<digest>/;
                                   "" = no reports */
    int device_index;
    bool device_given, validate, progress_lines;
    const volatile sig_atomic_t *cancel; /* when it becomes non-zero the run stops with ST_ERR_CANCELLED */
    /* A layer store is flown as a paged world with no level (st_engine_set_paged_world, the far field's levels
     * for far_m) by a level method that reads the terrain through its pages (ray-compute by default); the ground
     * under the flight is read through its pages. */
    uint32_t pool_pages;        /* full-resolution pages on the GPU (0 = 256) */
    uint32_t upload_pages;      /* pages mapped into the pool per frame, all levels (0 = no bound; strata fly's
                                   --upload-pages, 2 by default) */
    uint32_t dig_every;         /* a random dig every N frames, 8..200 texels ahead of the eye (0 = none); its
                                   edits are written back into the store (a folder, or a generated world's overlay) */
    uint32_t write_back_every;  /* frames between write-backs of the edits (0 = 30) */
    uint64_t seed;              /* the digs' generator (0 = 1): a run is replayed exactly */
} st_fly_desc;

typedef struct st_fly_frame {
    double t_s;
    double gpu_ms;    /* the frame's GPU passes (timestamps); NAN on adapters without them */
    double cpu_ms;    /* record + submit + wait */
    double frame_ms;  /* the whole draw call on the CPU: residency update, selection, uploads, record, submit, wait */
    double select_ms, upload_ms;
    uint64_t triangles;
    uint32_t nodes, fallback, missing, undrawn;
    uint64_t hole_px; /* st_lod_frame_stats.hole_px */
    uint32_t resident, queued, loading, evictable;
    uint32_t uploads; /* tiles uploaded during this frame (a paged world: pages mapped, all levels) */
    double eye[3];
    /* paged worlds */
    double edit_ms;       /* the frame's dig (st_engine_paged_edit), before its draw; NAN without one */
    uint32_t hole_pages;  /* wanted full-resolution pages missing with no coarser level over them (drawn as floors) */
} st_fly_frame;

/* The frames around each frame its local figure is taken over: ±60, 121 frames (2 s at 60 fps). */
#define ST_FLY_LOCAL_HALF 60u

/* Figures of one series over every frame. */
typedef struct st_fly_series {
    double median, p99, max, mean;
    uint32_t over_2ms; /* frames slower than the median + 2 ms */
    /* "local": each frame's figure over the median of the frames within ST_FLY_LOCAL_HALF of it (121, fewer at the
     * flight's ends), so a slow stretch of the scene is not counted as a hitch and a frame slower than its
     * neighbours is; the p99, p99.9 and max of that ratio over the flight (NAN without figures) */
    double local_p99, local_p999, local_max;
} st_fly_series;

/* Each named pass's GPU time in every frame of a flight (the frame's st_frame_timing passes, summed by name), so a
 * hitch shows in which pass it happened. */
#define ST_FLY_MAX_PASSES ST_MAX_FRAME_PASSES
typedef struct st_fly_passes {
    uint32_t count;                      /* names seen so far, in order of first appearance */
    char names[ST_FLY_MAX_PASSES][32];
    double *ms;                          /* frame i's pass k at ms[i·ST_FLY_MAX_PASSES + k]: 0 where the frame had
                                            none, NAN without timestamps */
    st_fly_series series[ST_FLY_MAX_PASSES]; /* per pass over the flight (local figures included) */
} st_fly_passes;

typedef struct st_fly_result {
    char adapter[256], device_type[32], slug[128];
    char out_dir[1300];
    char method[32], world[512], flight[512];
    uint32_t width, height, frame_count, settle_frames;
    bool settled;      /* the first camera reached full detail before the flight */
    bool gpu_timing;   /* gpu holds timestamps (else it is all NAN) */
    double far_m, tau_px, fps, duration_s, slow_load_ms, max_speed_mps;
    bool skirts;
    bool lod_select_gpu; /* cdlod's selection ran as a compute pass (--lod-select gpu) */
    st_fly_frame *frames;
    st_fly_series gpu, cpu, frame;
    st_fly_passes passes;
    uint64_t hole_px_total;    /* summed over frames */
    uint32_t frames_with_holes;
    double triangles_median, resident_median;
    uint32_t resident_max;
    uint64_t uploads_total;
    double load_ms_median;     /* the residency manager's load + decode time (slow-load sleep included) */
    uint64_t peak_rss_bytes, gpu_tile_bytes;
    uint32_t validation_messages;
    /* a paged world (a layer store) */
    bool paged;
    uint32_t pool_pages, far_levels;
    uint32_t upload_pages;           /* the per-frame bound on pages mapped (0 = none) */
    uint32_t uploads_max;            /* the most pages any frame of the flight mapped */
    uint32_t digs, dug_pages;        /* digs made; the pages they met */
    uint32_t write_backs;            /* write-backs of the edits, and the pages they wrote */
    uint64_t pages_written;
    double write_back_ms_median, write_back_ms_max; /* between frames: not in any frame's time */
    bool edits_checked;              /* the expected texels exist (a generated world: its generator and the digs) */
    uint32_t reloads_checked;        /* dug pages seen evicted and mapped again, their GPU texels read back */
    uint32_t lost_edits;             /* of those, pages that differ from the world with every dig made so far */
    uint64_t hole_pages_total;       /* summed over frames (frames_with_holes counts the frames with any) */
    double edit_ms_median;
    uint32_t missing_median;         /* wanted full-resolution pages not mapped, median over frames */
} st_fly_result;

/* Flies: settles at the first camera, then renders every frame of the flight with the method, recording each
 * (on a layer store: a paged world, with the digs, write-backs and reload checks of st_fly_desc);
 * writes fly.json, fly.md and fly.svg (frame times, triangles, resident tiles, uploads and holes against time)
 * into a run folder (r->out_dir) unless out_dir is "" (nothing written: for harnesses that only want the
 * figures). ST_ERR_CANCELLED when *cancel became non-zero (no folder is kept). */
st_result st_fly_run(const st_fly_desc *desc, st_fly_result **out, st_error *err);
void st_fly_result_free(st_fly_result *r);
/* The reports of a flight (src/eval/report_fly.c), each written whole or not at all: fly.json (the settings, the
 * summary and every frame's figures as columns), fly.md (the summary), fly.svg (five panels against flight time:
 * frame times, triangles, tiles resident / queued / loading, uploads per frame, hole pixels). */
st_result st_fly_write_json(const st_fly_result *r, const char *path, st_error *err);
/* fly.md (see above). */
st_result st_fly_write_markdown(const st_fly_result *r, const char *path, st_error *err);
/* fly.svg (see above). */
st_result st_fly_write_svg(const st_fly_result *r, const char *path, st_error *err);

#endif
