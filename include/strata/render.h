/* The renderer. An st_engine owns the Vulkan device and the shared terrain resources (terrain texture,
 * palette, materials); an st_renderer draws one method at one size into colour + reverse-Z depth.
 * Methods register themselves in a table (src/render/methods/registry.c): callers find them by name. */
#ifndef STRATA_RENDER_H
#define STRATA_RENDER_H

#include "strata/camera.h"
#include "strata/level.h"
#include "strata/materials.h"
#include "strata/water.h"

typedef struct st_engine st_engine;
typedef struct st_renderer st_renderer;

typedef struct st_engine_desc {
    int device_index;  /* -1 or 0 with prefer_auto: discrete > integrated > CPU; else that adapter */
    bool device_given; /* device_index names an adapter (--device N) */
    bool validate;     /* Vulkan validation layers; STRATA_VALIDATE=1 forces it on */
    /* Presenting to a window (strata view): the instance extensions the window system needs and the
     * swapchain device extension. Zero = headless, the default. */
    const char *const *instance_extensions;
    uint32_t instance_extension_count;
    bool present;
} st_engine_desc;

typedef struct st_device_info {
    char name[256];
    char driver[256];
    char type[16];        /* "discrete", "integrated", "cpu", "virtual", "other" */
    char api_version[16]; /* "1.3.230" */
    uint32_t vendor_id, device_id;
} st_device_info;

/* Opens the adapter desc chooses (NULL: every default) with Vulkan 1.3 and a graphics + compute queue, and the
 * resources every renderer shares; no level yet. ST_ERR_INVALID for an adapter index that does not exist,
 * ST_ERR_UNSUPPORTED when no adapter fits, ST_ERR_GPU when Vulkan fails. */
st_result st_engine_create(const st_engine_desc *desc, st_engine **out, st_error *err);
/* Destroys every renderer still alive on it, then the engine; NULL is fine. */
void st_engine_destroy(st_engine *engine);
/* The adapter the engine runs on: its name, driver, type and ids. */
st_device_info st_engine_device(const st_engine *engine);
/* Number of validation messages (warnings and errors) seen so far: tests require 0. */
uint32_t st_engine_validation_messages(const st_engine *engine);
/* Whether frames carry GPU timestamps (not on CPU adapters, where frame time is CPU submit-and-wait). */
bool st_engine_has_gpu_timestamps(const st_engine *engine);
/* Device-local memory budget and usage summed over the device-local heaps (VK_EXT_memory_budget);
 * ST_ERR_UNSUPPORTED when the adapter lacks the extension. */
st_result st_engine_memory_budget(const st_engine *engine, uint64_t *budget, uint64_t *usage, st_error *err);
/* Lists adapters into a text buffer, one per line ("0: NVIDIA H200 (discrete)"). */
st_result st_engine_list_devices(char *buf, size_t cap, st_error *err);

/* Uploads the level (terrain texture, palette, materials). The engine keeps a pointer: the level must
 * outlive the engine or the next set_level. */
st_result st_engine_set_level(st_engine *engine, const st_level *level, st_error *err);
/* After an edit of the level: re-uploads the rows of rect and tells every live renderer (the control map's
 * texels there, when there is one, are filled again by its rule). */
st_result st_engine_update_level(st_engine *engine, st_rect rect, st_error *err);

/* ---- materials (strata/materials.h) ------------------------------------------------------------------- */
/* The control map of the engine's level, the one textured renderers show: NULL until the first textured renderer
 * of this level made it (filled by ST_CONTROL_AUTO) or st_engine_set_control_map gave it. Edit it in place (a
 * brush: st_control_map_paint), then send the changed texels with st_engine_update_control. */
st_control_map *st_engine_control_map(st_engine *engine);
/* Uploads rect of the control map (clipped to it) to the GPU, and only that. ST_ERR_INVALID without a map. */
st_result st_engine_update_control(st_engine *engine, st_rect rect, st_error *err);
/* Makes a copy of map (a saved one: st_control_map_load) the level's control map and uploads it with the
 * materials. ST_ERR_INVALID without a level or when the sizes differ. */
st_result st_engine_set_control_map(st_engine *engine, const st_control_map *map, st_error *err);
/* Adds a world's own material PNGs from dir (st_material_set_load_folder: *added of them) to the engine's set. */
st_result st_engine_add_materials(st_engine *engine, const char *dir, uint32_t *added, st_error *err);
/* The engine's material set; NULL until textured shading or st_engine_add_materials made it. */
const st_material_set *st_engine_material_set(const st_engine *engine);
/* The control map's texel rectangle the last upload sent (for tests). */
st_rect st_engine_control_last_upload(const st_engine *engine);

/* ---- methods ----------------------------------------------------------------------------------------- */
/* The coarse levels cdlod's GPU selection walks on the CPU by default (docs/large-world.md: what that walk costs
 * against what the pass saves: 2 keeps it near 0.01 ms on Puget Sound ×16's views) */
#define ST_LOD_SELECT_CPU_LEVELS 2u

typedef struct st_method_knobs {
    uint32_t ray_steps;   /* ray, ray-compute: uniform steps before bisection (0 = max(128, ceil(128·far/2000)):
                           * 128 up to far 2000, 256 at far 4000) */
    uint32_t ray_tile;    /* ray-compute: 8 = each 8×8 tile's rays tested together before the march, 1 = none (0 = 8) */
    uint32_t voxel_steps; /* voxel: outer/inner budgets (0 = 100) */
    uint32_t voxel_grid;  /* voxel: leaf voxel size, 0 = (4,8,2), 1 = (2,4,1) */
    uint32_t slices;      /* slice: number of slices (0 = 512) */
    uint32_t slice_walk;  /* slice-compute: the finest look of its air walk: 1 the texels, 2 the 4×4 cells, 3 the
                             16×16, 4 the 64×64 (0 = 3); the image is the same, the fetches are not */
    float mesh_quality;   /* mesh: q in [0,1] (0 = 0.5; negative = 0) */
    uint32_t scatter_density;
    /* cdlod, cdlod-compute (docs/large-world.md) */
    float tau_px;         /* the screen-space error threshold in pixels (0 = 1) */
    bool skirts;          /* skirts under node edges (off: the morph alone closes the seams) */
    uint32_t lod_grid;    /* quads per node side, a power of two (0 = 32) */
    float lod_ratio;      /* least ratio of consecutive levels' ranges (0 = 2) */
    float morph_ratio;    /* where the morph band starts (0 = 0.66) */
    bool lod_no_cull;     /* draw the nodes outside the frustum too (tests of the culling) */
    bool lod_error_bound; /* ranges from the index's δ bound instead of the measured error (st_lod_world_use_bound) */
    bool lod_select_gpu;  /* cdlod: the quadtree selection in a compute pass writing the draws' indirect arguments
                             (needs shaderFloat64 and subgroup ballot, vote and arithmetic in compute;
                             its figures are read back after the frame) */
    uint32_t lod_select_threads; /* its one workgroup's invocations, a power of two 64..1024 (0 = 256) */
    int32_t lod_select_cpu_levels; /* the coarse levels, from the roots, walked on the CPU before it (the pass walks
                                      the rest from their frontier): 0 = ST_LOD_SELECT_CPU_LEVELS, < 0 = none, at
                                      most the world's levels − 1 */
    uint32_t clip_n;      /* clipmap, clipmap-compute: vertices per level side, 2^k − 1 (0 = from τ; others go up to the next) */
    uint32_t paint_passes; /* paint-compute: passes of blocks, nearest first, each after the first skipping what the
                              earlier ones hid (0 = 1: one pass, no occlusion test) */
    uint32_t paint_splat;  /* paint-compute: how a face's pixels reach its visibility buffer (1: four reads side by
                              side, then the atomics; 2: one pixel at a time; 0 = 3: atomics without the read) */
} st_method_knobs;

/* The kind of world a method draws: an st_level (st_engine_set_level) or a DEM tile store
 * (st_engine_set_store, strata/large_world.h). A renderer of a method whose world the engine lacks is refused. */
typedef enum st_world_kind {
    ST_WORLD_LEVEL = 0,
    ST_WORLD_STORE = 1,
} st_world_kind;

/* A method's knob, declared by the method itself (src/render/methods/): the field of st_method_knobs it sets,
 * what 0 there means, the range the viewer steps it in and the values tuning sweeps. */
#define ST_KNOB_MAX_SWEEP 8
typedef enum st_knob_kind {
    ST_KNOB_COUNT,    /* a uint32_t count (steps, slices, density): the viewer doubles and halves it */
    ST_KNOB_FRACTION, /* a float in [min, max] (the mesh's q): the viewer steps it by tenths. 0 in the field
                         means the default, a negative value min itself */
} st_knob_kind;
typedef struct st_method_knob {
    const char *name;     /* the st_method_knobs field it sets ("ray_steps"), the name tuning files use */
    const char *label;    /* for the viewer's HUD ("ray steps") */
    st_knob_kind kind;
    size_t offset;        /* offsetof(st_method_knobs, the field) */
    double default_value; /* what 0 in the field means (ray_steps: up to far 2000; it grows beyond) */
    double min, max;      /* the viewer keeps it within these */
    size_t sweep_count;   /* the values tuning sweeps (none: the knob is not swept) */
    double sweep[ST_KNOB_MAX_SWEEP];
    bool cost_falls;      /* a larger value is less work (the mesh's tolerance q); else more (steps, slices) */
} st_method_knob;

typedef struct st_method_info {
    const char *name;        /* "ray", "ray-compute", ... */
    const char *description; /* one line */
    bool compute;            /* draws with compute only (no rasteriser) */
    st_world_kind world;     /* what it draws */
    /* The method's knobs, its quality knob (the one tuning sweeps and the viewer steps) first; none for a
     * method without one. */
    const st_method_knob *knobs;
    size_t knob_count;
} st_method_info;

/* The number of methods that draw levels, in the order reports list them. */
size_t st_method_count(void);
/* The index-th of them; NULL past the end. */
const st_method_info *st_method_at(size_t index);
/* The number of methods that draw tile stores (strata/large_world.h). */
size_t st_store_method_count(void);
/* The index-th of them; NULL past the end. */
const st_method_info *st_store_method_at(size_t index);
/* Any method by name, of either kind; NULL when there is none. */
const st_method_info *st_method_find(const char *name);
/* The quality knob of a method (its first); NULL when the method has none or is unknown. */
const st_method_knob *st_method_quality_knob(const char *method);
/* The knob of that field name, among every registered method's knobs; NULL when no method has it. */
const st_method_knob *st_knob_find(const char *name);
/* Sets the knob's field in knobs to value: a count is rounded and clamped to 0..10⁶; a fraction at or below
 * the knob's min is stored as the "min itself" mark (negative), since 0 means the default. */
void st_knob_set(st_method_knobs *knobs, const st_method_knob *knob, double value);
/* The value the knob has in knobs: its default where the field is 0, min where a fraction is negative. */
double st_knob_get(const st_method_knobs *knobs, const st_method_knob *knob);

/* How surfaces are coloured: the paper's flat colour per material type, or the textured materials
 * (strata/materials.h: the control map's materials, height-blended, projected by slope, filtered by the pixel's
 * footprint). */
typedef enum st_shading {
    ST_SHADING_FLAT,     /* the default: the measurement protocol's shading */
    ST_SHADING_TEXTURED,
    /* a measurement: textured shading's work, but each pixel shows how many texture fetches its shading made —
     * the linear value of red is the material taps (albedo + height, normal) / 32, of green the per-texel map
     * lookups (control, colour) plus 16 on a face that read a side projection, / 32, of blue the texel
     * footprint's aspect ratio − 1, / 16 (docs/materials.md, "Fetches per pixel"; st_fetch_pixel_decode);
     * unlit, no fog */
    ST_SHADING_FETCHES,
} st_shading;

/* One pixel of an ST_SHADING_FETCHES image, read back from its sRGB bytes (src/render/fetch_probe.c). */
typedef struct st_fetch_pixel {
    int taps;     /* material texture fetches: albedo + height, normal */
    int lookups;  /* per-texel map lookups: control map, colour map */
    bool steep;   /* the face read a side projection (a cliff: the 12-fetch target, not flat ground's 8) */
    float aspect; /* the aspect ratio of the texel footprint read, by projection weight (1: undistorted) */
} st_fetch_pixel;
/* Decodes one pixel of an ST_SHADING_FETCHES image (its 8-bit sRGB RGBA bytes); never fails. */
st_fetch_pixel st_fetch_pixel_decode(const uint8_t rgba[4]);

/* Fetches per pixel of one class of pixels (gentle ground or steep faces; floor or cliff). */
typedef struct st_fetch_tally {
    int max, lookups_max;
    double sum;
    size_t count;
} st_fetch_tally;
/* Counts one decoded pixel into the tally (its taps into max, sum and count; its lookups into lookups_max). */
void st_fetch_tally_add(st_fetch_tally *t, st_fetch_pixel p);
/* The mean taps a pixel of the tally; 0 for an empty tally. */
double st_fetch_tally_mean(const st_fetch_tally *t);

/* The fetch scene of strata bench materials and its test: a 256² level, a floor at 20 for x < 128, a cliff rising
 * at 80° (tan 80° = 5.67 steps a texel) over x in [128, 163) and a plateau at 220, not wrapping, whose colour
 * map labels floor (red), cliff (green) and plateau (magenta); and the camera over the floor looking at the cliff. */
st_result st_fetch_scene_level(st_level **out, st_error *err);
/* The scene's camera: over the floor, looking at the cliff. */
st_camera st_fetch_scene_camera(void);
/* What a pixel of the scene's flat-shaded image shows: 0 the floor, 1 the cliff, −1 anything else. */
int st_fetch_scene_region(const uint8_t rgba[4]);
/* "flat", "textured" or "fetches". */
const char *st_shading_name(st_shading shading);
/* The shading of that name; false for any other name. */
bool st_shading_parse(const char *name, st_shading *out);

typedef struct st_render_desc {
    const char *method;   /* name; NULL = "ray" */
    uint32_t width, height; /* 0 = 1280×800 */
    st_method_knobs knobs;
    bool shadows;         /* the shared 1024² shadow map (kept across frames, cast where the view moved or an edit landed) */
    uint32_t shadow_size; /* shadow map resolution (0 = 1024) */
    /* Viewer toggles, ignored by methods they do not apply to: wireframe overlay (mesh methods);
     * freeze_culling: methods that cull keep culling with the camera of the first frame drawn. */
    bool wireframe;
    bool freeze_culling;
    /* The water pass after the method (mode NONE = the terrain alone, the default; level 0 = the world's
     * st_water_default_level). See docs/water.md. */
    st_water_desc water;
    st_shading shading; /* FLAT by default */
    /* Textured frames of the raster methods shaded per fragment, as flat frames are, instead of deferred to one
     * compute pass per pixel (docs/materials.md): the old path, kept for tests and measurements. */
    bool shade_forward;
} st_render_desc;

#define ST_MAX_FRAME_PASSES 16

/* One timed pass of a frame: a static name ("shadow", "upload", "near-cap", or one of the method's own:
 * "march", "raster", "resolve", ...) and its GPU time, NAN when the adapter has no timestamps. */
typedef struct st_pass_timing {
    const char *name;
    double gpu_ms;
} st_pass_timing;

typedef struct st_frame_timing {
    double gpu_ms;   /* sum of GPU timestamp intervals around each pass; NAN when unsupported */
    double cpu_ms;   /* CPU: record + submit + wait */
    /* every timed pass in recording order (their gpu_ms sum to gpu_ms): the upload, the shadow, the method's
     * own, the near-plane cap, the water's ("water-sim", "water"); the names are there without timestamps too,
     * so a frame's structure is known on every adapter */
    uint32_t pass_count;
    st_pass_timing passes[ST_MAX_FRAME_PASSES];
} st_frame_timing;

/* The GPU time of timing's passes called name, summed (a method may time several of one name): 0 when the frame
 * has none (shadows off, no water), NAN when one of them has no timestamps. */
double st_frame_timing_pass_ms(const st_frame_timing *timing, const char *name);

/* A renderer of desc's method (NULL: ray at 1280×800) on the engine's level: its targets, its shadow map and
 * the method's own state, built now (a method that bakes or fits does so here). ST_ERR_INVALID without a level,
 * for an unknown method, a size past 16384 or more than 64 live renderers; the method's own errors otherwise.
 * The engine must outlive it (st_engine_destroy destroys it otherwise). */
st_result st_renderer_create(st_engine *engine, const st_render_desc *desc, st_renderer **out, st_error *err);
void st_renderer_destroy(st_renderer *renderer);
/* Draws one frame of camera: records the shadow map, the method's passes and the near-plane cap, submits them
 * and waits for the GPU (serial latency, not throughput). timing (may be NULL) receives the GPU time of the
 * frame's passes and the CPU time of record + submit + wait. */
st_result st_renderer_draw(st_renderer *renderer, const st_camera *camera, st_frame_timing *timing, st_error *err);
/* The time (s) of the frames drawn from now on: the water's waves and foam move with it (0 at creation). */
void st_renderer_set_time(st_renderer *renderer, double seconds);
/* The water of a renderer created with water (NULL otherwise): its CPU evaluator, for queries of the surface
 * the frames show at the time set. */
st_water *st_renderer_water(st_renderer *renderer);
/* Changes the water's wind and choppiness for the next frames (the ocean's spectra are regenerated and
 * uploaded); ST_ERR_INVALID for values st_water_set_weather refuses, or when the renderer has no water. */
st_result st_renderer_set_weather(st_renderer *renderer, float wind_speed, float wind_dir_deg, float choppiness,
                                  st_error *err);
/* Reads back the last frame: rgba = w·h·4 sRGB-encoded bytes; depth = w·h reverse-Z floats (0 = miss).
 * Either pointer may be NULL. */
st_result st_renderer_readback(st_renderer *renderer, uint8_t *rgba, float *depth, st_error *err);
/* Persistent method-specific memory (spec: excludes shared terrain, targets and pipelines). */
uint64_t st_renderer_method_gpu_bytes(const st_renderer *renderer);
/* The same in host memory (0 for a method that keeps none). */
uint64_t st_renderer_method_cpu_bytes(const st_renderer *renderer);

/* ---- overlays ------------------------------------------------------------------------------------------- */
/* A vertex of the triangles drawn over a presented frame (strata/present.h): the viewer's HUD. */
typedef struct st_overlay_vertex {
    float x, y;      /* window pixels, top-left origin */
    uint8_t rgba[4]; /* sRGB-encoded colour, straight alpha */
} st_overlay_vertex;

#endif
