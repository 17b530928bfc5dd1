/* The page's C side: the level (generated, a dropped world or DEM PNG), the seam's WebGL2 backend (and the
 * WebGPU one for the compute methods, where the page has a device), the level texture in pieces of at most
 * 8192 rows on each, the frame's globals from the one camera, the methods, edits with
 * undo, and the result the page reports (coverage, mean colour, depth checksum). Entry points are called from
 * web/app.js; a failing one returns nonzero and leaves its message in web_error(). */
#include <emscripten.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend_gl.h"
#include "backend_gpu.h"
#include "gen_bands.h"
#include "methods/methods.h"
#include "render/globals.h"
#include "strata/gen.h"
#include "strata/heightmap.h"
#include "strata/vangers.h"
#include "strata/view.h"

/* The largest level the page takes: the default world's texels (a 2048×16384 world, 64 MiB of planes). */
#define WEB_MAX_TEXELS (2048ull * 16384ull)
#define WEB_DIG_RADIUS 24
#define WEB_DIG_DEPTH 40

static const st_gb_method *const methods[] = {&st_gb_method_ray, &st_gb_method_slice, &st_gb_method_slice_plain,
                                              &st_gb_method_paint, &st_gb_method_paint_plain, &st_gb_method_mesh,
                                              &st_gb_method_ray_compute, &st_gb_method_scatter,
                                              &st_gb_method_scatter_plain, &st_gb_method_voxel_compute,
                                              &st_gb_method_mesh_compute};
#define METHOD_COUNT (sizeof methods / sizeof methods[0])

static struct {
    st_gb *gb;  /* WebGL2: the drawing methods */
    st_gb *gpu; /* WebGPU: the compute methods; NULL where the page has no device */
    st_level *level;
    st_edit_history *history;
    st_gb_texture terrain;     /* on gb */
    st_gb_texture gpu_terrain; /* on gpu, made when a compute method first runs */
    uint32_t method;
    void *state;
    st_cam_control control;
    st_globals_gpu globals;
    uint32_t width, height, knob, frame;
    uint32_t diagnostic; /* st_gb_frame.diagnostic of every frame */
    uint32_t wireframe;  /* st_gb_frame.wireframe of every frame */
    st_error err;
    char result[768];
    uint8_t *rgba;
    float *depth;
    double gen_ms, upload_ms; /* the last generated world: st_gen_world, then set_level (upload, method) */
    double method_ms;         /* the last method's create (mesh: its fit and upload) */
    double preview_ms, preview_texels; /* the last preview's region: made and finished, its texels */
} app = {.width = 320, .height = 200};

static int fail(st_result r) { return r ? (int)r : 0; }
static void clear_error(void) { app.err = (st_error){0}; }

EMSCRIPTEN_KEEPALIVE const char *web_error(void) { return app.err.message; }
EMSCRIPTEN_KEEPALIVE const char *web_result_ptr(void) { return app.result; }
EMSCRIPTEN_KEEPALIVE uint8_t *web_pixels_ptr(void) { return app.rgba; }
EMSCRIPTEN_KEEPALIVE uint32_t web_level_width(void) { return app.level ? app.level->width : 0; }
EMSCRIPTEN_KEEPALIVE uint32_t web_level_height(void) { return app.level ? app.level->height : 0; }
EMSCRIPTEN_KEEPALIVE uint32_t web_method_count(void) { return METHOD_COUNT; }
EMSCRIPTEN_KEEPALIVE const char *web_method_name(uint32_t i) { return i < METHOD_COUNT ? methods[i]->name : ""; }
EMSCRIPTEN_KEEPALIVE int web_method_compute(uint32_t i) { return i < METHOD_COUNT && methods[i]->compute; }

/* The backend that runs the current method. */
static st_gb *method_backend(void) { return methods[app.method]->compute ? app.gpu : app.gb; }
EMSCRIPTEN_KEEPALIVE const char *web_backend(void) { return method_backend() ? method_backend()->ops->name : ""; }

/* Whether the current method marches with the knob's steps (ray and ray-compute: g.knobs.x). */
static bool ray_steps_knob(void) {
    return methods[app.method] == &st_gb_method_ray || methods[app.method] == &st_gb_method_ray_compute;
}

/* The CRC-32 of the level's planes (heights, then metadata): the page and the native build compare it. */
EMSCRIPTEN_KEEPALIVE uint32_t web_level_crc(void) {
    if (!app.level) return 0;
    const uint8_t *h, *m;
    st_level_planes(app.level, &h, &m);
    size_t n = (size_t)app.level->width * app.level->height;
    return st_crc32_update(st_crc32(h, n), m, n);
}

EMSCRIPTEN_KEEPALIVE int web_init(void) {
    clear_error();
    if (app.gb) return 0;
    st_result r = st_gb_gl_create("#canvas", &app.gb, &app.err);
    if (!r) r = st_edit_history_create(64u << 20, &app.history, &app.err);
    if (!r) r = app.gb->ops->resize(app.gb, app.width, app.height, &app.err);
    return fail(r);
}

/* Uploads the rows and pair columns of rect into the pieces of texture t of backend b. */
static st_result upload_to(st_gb *b, st_gb_texture t, st_rect rect, st_error *err) {
    uint32_t pw = (uint32_t)((rect.x1 + 1) / 2 - rect.x0 / 2);
    for (int32_t y = rect.y0; y < rect.y1;) {
        int32_t piece = y / (int32_t)ST_GB_PIECE_ROWS;
        int32_t end = (piece + 1) * (int32_t)ST_GB_PIECE_ROWS;
        int32_t band = end < rect.y1 ? end - y : rect.y1 - y;
        if (band > 512) band = 512; /* a bounded scratch buffer, however big the level */
        st_rect r = {rect.x0, y, rect.x1, y + band};
        uint8_t *pairs = malloc((size_t)pw * 4 * (size_t)band);
        if (!pairs) return st_error_set(err, ST_ERR_NOMEM, "out of memory (uploading the level)");
        st_level_pack_pairs(app.level, r, pairs);
        b->ops->texture_write(b, t, (uint32_t)piece, (uint32_t)rect.x0 / 2,
                                   (uint32_t)(y - piece * (int32_t)ST_GB_PIECE_ROWS), pw, (uint32_t)band, pairs);
        free(pairs);
        y += band;
    }
    return ST_OK;
}

/* Uploads rect of the level to every backend that holds it. */
static st_result upload_rect(st_rect rect, st_error *err) {
    st_result r = upload_to(app.gb, app.terrain, rect, err);
    if (!r && app.gpu_terrain) r = upload_to(app.gpu, app.gpu_terrain, rect, err);
    return r;
}

/* The level texture of backend b, in pieces of ST_GB_PIECE_ROWS rows (not filled). */
static st_result level_texture(st_gb *b, const st_level *level, st_gb_texture *out, st_error *err) {
    uint32_t pieces = (level->height + ST_GB_PIECE_ROWS - 1) / ST_GB_PIECE_ROWS;
    uint32_t rows = level->height < ST_GB_PIECE_ROWS ? level->height : ST_GB_PIECE_ROWS;
    st_gb_texture_desc d = {.width = level->width / 2, .height = rows, .layers = pieces, .format = ST_GB_RGBA8_UINT};
    return b->ops->texture_create(b, &d, out, err);
}

static void drop_method(void) {
    if (app.state) methods[app.method]->destroy(method_backend(), app.state);
    app.state = NULL;
}

static st_result make_method(st_error *err) {
    drop_method();
    st_gb *b = method_backend();
    if (!b)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "%s needs WebGPU, which this page has not (the WebGL2 methods run)",
                            methods[app.method]->name);
    /* the compute methods' backend gets the level when one of them first runs */
    if (b == app.gpu && !app.gpu_terrain) {
        st_result r = level_texture(b, app.level, &app.gpu_terrain, err);
        if (!r) r = upload_to(b, app.gpu_terrain, (st_rect){0, 0, (int32_t)app.level->width, (int32_t)app.level->height}, err);
        if (r) return r;
    }
    double t0 = emscripten_get_now();
    st_result r = methods[app.method]->create(b, app.level, ray_steps_knob() ? 0 : app.knob, &app.state, err);
    app.method_ms = emscripten_get_now() - t0;
    if (r) drop_method();
    return r;
}

/* A camera over the middle of the level, looking along +y and down at 30°, above the ground there. */
static st_camera default_camera(const st_level *l) {
    float x = (float)l->width * 0.5f, y = (float)l->height * 0.5f;
    st_texel t = st_level_texel(l, (int)x, (int)y);
    st_camera c = {.position = {x, y, (float)t.high + 60.0f}, .pitch_deg = -30.0f};
    return c;
}

/* Makes `level` the page's world (taking it): checks its size against the browser, uploads it in pieces and
 * rebuilds the method; the old world stays when anything fails. */
static st_result set_level_parts(st_level *level, const st_rect *parts, uint32_t count, st_error *err);

static st_result set_level(st_level *level, st_error *err) {
    st_rect all = {0, 0, (int32_t)level->width, (int32_t)level->height};
    return set_level_parts(level, &all, 1, err);
}

/* set_level uploading only the rectangles `parts` of the level (the rest of the texture stays zero: the page's
 * preview of the rows in sight). */
static st_result set_level_parts(st_level *level, const st_rect *parts, uint32_t count, st_error *err) {
    if ((uint64_t)level->width * level->height > WEB_MAX_TEXELS) {
        st_result r = st_error_set(err, ST_ERR_INVALID,
                                   "a %ux%u world is too large for the browser (at most %llu texels, the default "
                                   "world's 2048x16384)",
                                   level->width, level->height, (unsigned long long)WEB_MAX_TEXELS);
        st_level_destroy(level);
        return r;
    }
    st_gb_texture t = 0;
    st_result r = level_texture(app.gb, level, &t, err);
    if (r) {
        st_level_destroy(level);
        return r;
    }
    drop_method();
    if (app.terrain) app.gb->ops->texture_destroy(app.gb, app.terrain);
    if (app.gpu_terrain) app.gpu->ops->texture_destroy(app.gpu, app.gpu_terrain);
    app.gpu_terrain = 0;
    st_level_destroy(app.level);
    app.level = level;
    app.terrain = t;
    st_edit_history_destroy(app.history);
    app.history = NULL;
    r = st_edit_history_create(64u << 20, &app.history, err);
    for (uint32_t i = 0; !r && i < count; i++) r = upload_rect(parts[i], err);
    if (!r) r = make_method(err);
    st_camera cam = default_camera(level);
    st_cam_control_init(&app.control, &cam);
    return r;
}

EMSCRIPTEN_KEEPALIVE int web_load_gen(uint32_t seed, uint32_t width, uint32_t height) {
    clear_error();
    st_level *l = NULL;
    st_gen_desc d = {.seed = seed, .width = width, .height = height};
    double t0 = emscripten_get_now();
    st_result r = st_gen_world(&d, &l, &app.err);
    double t1 = emscripten_get_now();
    if (!r) r = set_level(l, &app.err);
    app.gen_ms = t1 - t0;
    app.upload_ms = emscripten_get_now() - t1;
    return fail(r);
}

EMSCRIPTEN_KEEPALIVE int web_load_default(void) { return web_load_gen(0, 0, 0); }

/* The same world made in bands (web/gen_bands.c): begin, the bands' rows (web_gen_rows here, web_band_make in
 * the workers, copied in by the page), then finish, which makes it the page's world. */
static double bands_t0;

EMSCRIPTEN_KEEPALIVE int web_gen_begin(uint32_t seed, uint32_t width, uint32_t height) {
    clear_error();
    bands_t0 = emscripten_get_now();
    return fail(web_bands_begin(seed, width, height, &app.err));
}

/* The preview's camera, made before the world: the eye from a view (x, y, eye_height over the ground there, or
 * over its floor when under; z_eye < 0) or given (z_eye, the eye's height). */
static st_camera preview_camera(st_level *into, uint32_t threshold, float x, float y, float z_eye, float eye_height,
                                int under, float yaw, float pitch, st_error *err, st_result *r) {
    st_camera c = {.position = {x, y, z_eye}, .yaw_deg = yaw, .pitch_deg = pitch};
    if (z_eye >= 0.0f) return c;
    /* the texel under the eye first, in a region of its own */
    int32_t tx = (int32_t)floorf(x), ty = (int32_t)floorf(y);
    uint32_t px = (uint32_t)((tx % (int32_t)into->width + (int32_t)into->width) % (int32_t)into->width) & ~1u;
    uint32_t py = (uint32_t)((ty % (int32_t)into->height + (int32_t)into->height) % (int32_t)into->height);
    *r = web_bands_region(threshold, px, py, 2, 1, into, err);
    if (*r) return c;
    st_texel t = st_level_texel(into, tx, ty);
    c.position[2] = (under ? (float)t.low : (float)t.high) + eye_height;
    return c;
}

/* The rows in sight first, in two calls. With the world begun (web_gen_begin) and its dual threshold known (the
 * default world's, default_threshold.json), web_preview_begin makes an empty level of the world's size the
 * page's world (the eye's texel made, so that a view's camera stands where it will) with the camera set;
 * web_preview_region then makes what the camera's frustum can reach (its footprint between heights 0 and 255 at
 * the page's frame size, in bands of rows each as wide as the footprint there) alone, finishes it with that
 * threshold and uploads only it. The page draws that while the rest of the world is made; those texels are the
 * finished world's (checked: web_preview_exact). */
static struct {
    uint32_t threshold;
    double t0;
} preview;

EMSCRIPTEN_KEEPALIVE int web_preview_begin(uint32_t threshold, float x, float y, float z_eye, float eye_height,
                                           int under, float yaw, float pitch) {
    clear_error();
    uint32_t w = web_gen_width(), h = web_gen_height();
    if (!w) return fail(st_error_set(&app.err, ST_ERR_INVALID, "no world is being generated"));
    preview.t0 = emscripten_get_now();
    preview.threshold = threshold;
    st_level *l = NULL;
    st_result r = st_level_create(w, h, &l, &app.err);
    st_camera cam = {0};
    if (!r) cam = preview_camera(l, threshold, x, y, z_eye, eye_height, under, yaw, pitch, &app.err, &r);
    if (!r) {
        r = set_level_parts(l, NULL, 0, &app.err);
        l = NULL;
    }
    st_level_destroy(l);
    if (!r) st_cam_control_set(&app.control, &cam);
    return fail(r);
}


/* The x extent of the footprint (the hull of pts) between rows ya and yb: over the points in that band and where
 * the segments between any two points cross its edges (the hull's edges are among them). False if it misses. */
static bool footprint_band(const float pts[][2], int n, float ya, float yb, float *x0, float *x1) {
    float lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (pts[i][1] >= ya && pts[i][1] <= yb) lo = fminf(lo, pts[i][0]), hi = fmaxf(hi, pts[i][0]);
        for (int j = i + 1; j < n; j++) {
            float dy = pts[j][1] - pts[i][1];
            if (dy == 0.0f) continue;
            for (int e = 0; e < 2; e++) {
                float t = ((e ? yb : ya) - pts[i][1]) / dy;
                if (t < 0.0f || t > 1.0f) continue;
                float x = pts[i][0] + t * (pts[j][0] - pts[i][0]);
                lo = fminf(lo, x), hi = fmaxf(hi, x);
            }
        }
    }
    *x0 = lo, *x1 = hi;
    return lo <= hi;
}

#define PREVIEW_BAND 64 /* rows of one region of the preview: its x extent is the footprint's in those rows */
#define PREVIEW_PAD 8   /* texels around the footprint, for the shading's neighbours */

/* Makes and uploads the region [x0, x0 + rw) × [y0, y0 + rh) of the preview (wrapped into the world). */
static st_result preview_part(st_level *l, int32_t x0, int32_t y0, uint32_t rw, uint32_t rh, st_error *err) {
    uint32_t w = l->width, h = l->height;
    uint32_t ux0 = (uint32_t)((x0 % (int32_t)w + (int32_t)w) % (int32_t)w);
    uint32_t uy0 = (uint32_t)((y0 % (int32_t)h + (int32_t)h) % (int32_t)h);
    st_result r = web_bands_region(preview.threshold, ux0, uy0, rw, rh, l, err);
    /* the region's pieces inside the level (it may wrap around in x and in y) */
    for (uint32_t j = 0; !r && j < 2; j++)
        for (uint32_t i = 0; !r && i < 2; i++) {
            int32_t ax0 = i ? 0 : (int32_t)ux0, ax1 = i ? (int32_t)(ux0 + rw) - (int32_t)w : (int32_t)(ux0 + rw);
            int32_t ay0 = j ? 0 : (int32_t)uy0, ay1 = j ? (int32_t)(uy0 + rh) - (int32_t)h : (int32_t)(uy0 + rh);
            if (ax1 > (int32_t)w) ax1 = (int32_t)w;
            if (ay1 > (int32_t)h) ay1 = (int32_t)h;
            if (ax1 > ax0 && ay1 > ay0) r = upload_rect((st_rect){ax0, ay0, ax1, ay1}, err);
        }
    app.preview_texels += (double)rw * rh;
    return r;
}

EMSCRIPTEN_KEEPALIVE int web_preview_region(void) {
    clear_error();
    st_level *l = app.level;
    uint32_t w = web_gen_width(), h = web_gen_height();
    if (!l || !w || l->width != w || l->height != h)
        return fail(st_error_set(&app.err, ST_ERR_INVALID, "no preview begun"));
    st_view v = st_camera_view(&app.control.camera, app.width, app.height);
    float pts[ST_VIEW_SLAB_POINTS][2], b[4];
    int n = st_view_slab_points(&v, 0.0f, 255.0f, pts);
    st_view_ground_bounds(&v, 0.0f, 255.0f, b);
    web_bands_region_reset();
    app.preview_texels = 0.0;
    st_result r = ST_OK;
    int32_t ylo = (int32_t)floorf(b[1]) - PREVIEW_PAD, yhi = (int32_t)ceilf(b[3]) + PREVIEW_PAD;
    if (yhi - ylo >= (int32_t)h) ylo = 0, yhi = (int32_t)h;
    for (int32_t y = ylo; !r && y < yhi; y += PREVIEW_BAND) {
        int32_t y1 = y + PREVIEW_BAND < yhi ? y + PREVIEW_BAND : yhi;
        float fx0, fx1;
        if (!footprint_band(pts, n, (float)(y - PREVIEW_PAD), (float)(y1 + PREVIEW_PAD), &fx0, &fx1)) continue;
        int32_t x0 = ((int32_t)floorf(fx0) - PREVIEW_PAD) & ~1, x1 = (int32_t)ceilf(fx1) + PREVIEW_PAD;
        uint32_t rw = (uint32_t)(x1 - x0 + 1) & ~1u;
        if (rw >= w) x0 = 0, rw = w;
        r = preview_part(l, x0, y, rw, (uint32_t)(y1 - y), &app.err);
    }
    double t1 = emscripten_get_now();
    /* a method whose CPU side reads the level (slice's tiles, paint's lists) is made again over the region */
    if (!r) r = make_method(&app.err);
    app.preview_ms = t1 - preview.t0;
    app.upload_ms = emscripten_get_now() - t1;
    return fail(r);
}

/* Whether the preview's texels are the finished world's (1), not (0), or no preview was made (-1); the preview's
 * copy of them is let go after. */
EMSCRIPTEN_KEEPALIVE int web_preview_exact(void) {
    int r = app.level ? web_bands_region_matches(app.level) : -1;
    web_bands_region_reset();
    return r;
}
EMSCRIPTEN_KEEPALIVE double web_preview_texels(void) { return app.preview_texels; }

EMSCRIPTEN_KEEPALIVE int web_gen_finish(void) {
    clear_error();
    st_level *l = NULL;
    st_result r = web_bands_finish(&l, &app.err);
    double t1 = emscripten_get_now();
    if (!r) r = set_level(l, &app.err);
    app.gen_ms = t1 - bands_t0;
    app.upload_ms = emscripten_get_now() - t1;
    return fail(r);
}

/* A Vangers world from its files' bytes (vpr may be NULL), as st_world_decode checks them. */
EMSCRIPTEN_KEEPALIVE int web_load_world(const uint8_t *ini_bytes, uint32_t ini_size, const uint8_t *map, uint32_t map_size,
                                        const uint8_t *pal, uint32_t pal_size, const uint8_t *vpr, uint32_t vpr_size) {
    clear_error();
    st_world_files f = {.ini = ini_bytes, .ini_size = ini_size, .map = map, .map_size = map_size, .pal = pal,
                        .pal_size = pal_size, .vpr = vpr, .vpr_size = vpr_size, .ini_name = "world.ini",
                        .map_name = "the map", .pal_name = "the palette", .vpr_name = "the .vpr"};
    /* the size first, from world.ini alone: a world too large for the page is refused before any allocation */
    st_world_ini ini;
    st_result r = st_world_ini_parse((const char *)ini_bytes, ini_size, "world.ini", &ini, &app.err);
    uint64_t texels = r ? 0 : (1ull << ini.map_power_x) << ini.map_power_y;
    if (!r && texels > WEB_MAX_TEXELS)
        r = st_error_set(&app.err, ST_ERR_INVALID,
                         "a %llux%llu world is too large for the browser (at most %llu texels, the default world's "
                         "2048x16384)",
                         1ull << ini.map_power_x, 1ull << ini.map_power_y, (unsigned long long)WEB_MAX_TEXELS);
    st_level *l = NULL;
    if (!r) r = st_world_decode(&f, &l, &app.err);
    if (!r) r = set_level(l, &app.err);
    return fail(r);
}

/* A greyscale DEM PNG (8 or 16 bits) as a single-layer level (web/dem_png.c decodes it). */
st_result st_web_dem_png(const uint8_t *data, size_t size, st_level **out, st_error *err);

EMSCRIPTEN_KEEPALIVE int web_load_png(const uint8_t *data, uint32_t size) {
    clear_error();
    st_level *l = NULL;
    st_result r = st_web_dem_png(data, size, &l, &app.err);
    if (!r) r = set_level(l, &app.err);
    return fail(r);
}

EMSCRIPTEN_KEEPALIVE int web_set_method(uint32_t index, uint32_t knob) {
    clear_error();
    if (index >= METHOD_COUNT) return fail(st_error_set(&app.err, ST_ERR_INVALID, "no method %u", index));
    /* the method the level was just made with (set_level makes it, then the page names it): kept, since making
     * it again costs a second fit of the mesh, 4–7 s for the default world */
    if (app.state && index == app.method && knob == app.knob) return 0;
    drop_method(); /* by the method that made it */
    app.method = index;
    app.knob = knob;
    return app.level ? fail(make_method(&app.err)) : 0;
}

/* The diagnostic colouring of the frames that follow (st_gb_frame.diagnostic; 0 = none). */
EMSCRIPTEN_KEEPALIVE void web_set_diagnostic(uint32_t diagnostic) { app.diagnostic = diagnostic; }

/* The mesh methods' edge overlay in the frames that follow (st_gb_frame.wireframe; 0 = off). */
EMSCRIPTEN_KEEPALIVE void web_set_wireframe(uint32_t on) { app.wireframe = on != 0; }

/* Takes the page's WebGPU device (web/gpu.js) for the compute methods. */
EMSCRIPTEN_KEEPALIVE int web_init_gpu(void) {
    clear_error();
    if (app.gpu) return 0;
    st_result r = st_gb_gpu_create(&app.gpu, &app.err);
    if (!r) r = app.gpu->ops->resize(app.gpu, app.width, app.height, &app.err);
    if (r && app.gpu) free(app.gpu), app.gpu = NULL;
    return fail(r);
}

EMSCRIPTEN_KEEPALIVE int web_set_size(uint32_t width, uint32_t height) {
    clear_error();
    st_result r = app.gb->ops->resize(app.gb, width, height, &app.err);
    if (!r && app.gpu) r = app.gpu->ops->resize(app.gpu, width, height, &app.err);
    if (!r) app.width = width, app.height = height;
    return fail(r);
}

EMSCRIPTEN_KEEPALIVE void web_set_camera(float x, float y, float z, float yaw, float pitch) {
    st_camera c = {.position = {x, y, z}, .yaw_deg = yaw, .pitch_deg = pitch};
    st_cam_control_set(&app.control, &c);
}

/* A view of the default world's catalogue (data/default_world.json, scaled by the page as src/eval/views.c
 * scales it): the eye at (x, y), eye_height over the top of the ground there (under: over its floor). */
EMSCRIPTEN_KEEPALIVE void web_set_view(float x, float y, float eye_height, int under, float yaw, float pitch) {
    float surface = 0.0f;
    if (app.level) {
        st_texel t = st_level_texel(app.level, (int)floorf(x), (int)floorf(y));
        surface = under ? (float)t.low : (float)t.high;
    }
    web_set_camera(x, y, surface + eye_height, yaw, pitch);
}

/* The camera now, as "x y z yaw pitch mode". */
EMSCRIPTEN_KEEPALIVE const char *web_default_camera(void) {
    static char text[128];
    const st_camera *c = &app.control.camera;
    snprintf(text, sizeof text, "%.2f %.2f %.2f %.2f %.2f %s", c->position[0], c->position[1], c->position[2],
             c->yaw_deg, c->pitch_deg, st_cam_mode_name(app.control.mode));
    return text;
}

/* One frame of the controls: move (right, forward, up), look (pixels), wheel steps; mode 0 fly, 1 orbit. */
EMSCRIPTEN_KEEPALIVE void web_control(float mx, float my, float mz, float lx, float ly, float scroll, int fast,
                                      float dt, int mode) {
    st_cam_mode want = mode == 1 ? ST_CAM_ORBIT : ST_CAM_FLY;
    if (want != app.control.mode) {
        float hit[3];
        bool aimed = st_viewer_pick(app.level, &app.control.camera, app.width, app.height, 0.5f * (float)app.width,
                                    0.5f * (float)app.height, hit);
        st_cam_control_mode(&app.control, want, aimed ? hit : NULL);
    }
    st_cam_input in = {.move = {mx, my, mz}, .look = {lx, ly}, .scroll = scroll, .fast = fast != 0, .dt = dt};
    st_cam_control_update(&app.control, &in, app.level);
}

/* Draws a frame; returns its CPU time in ms (negative on failure). */
EMSCRIPTEN_KEEPALIVE double web_render(void) {
    if (!app.level || !app.state) return -1.0;
    double t0 = emscripten_get_now();
    st_view v = st_camera_view(&app.control.camera, app.width, app.height);
    st_globals_fill_view(&app.globals, &v, ray_steps_knob() ? app.knob : 0, app.frame++);
    st_globals_fill_level(&app.globals, app.level);
    memset(app.globals.shadow_info, 0, sizeof app.globals.shadow_info); /* no shadow map in WebGL2 (docs/web.md) */
    st_gb *b = method_backend();
    b->ops->uniforms(b, 0, 0, &app.globals, sizeof app.globals);
    b->ops->bind_texture(b, 0, 1, b == app.gpu ? app.gpu_terrain : app.terrain);
    b->ops->begin_frame(b, st_fog_linear);
    st_gb_frame f = {.level = app.level, .view = v, .knob = ray_steps_knob() ? 0 : app.knob,
                     .diagnostic = app.diagnostic, .wireframe = app.wireframe};
    methods[app.method]->record(b, app.state, &f);
    b->ops->end_frame(b);
    return emscripten_get_now() - t0;
}

/* Reads the frame back and writes the result line: size, coverage (share of pixels hit), mean colour over
 * every pixel, and the depth checksum (CRC-32 of the hit mask, one byte a pixel). */
EMSCRIPTEN_KEEPALIVE int web_read(void) {
    clear_error();
    size_t n = (size_t)app.width * app.height;
    uint8_t *rgba = realloc(app.rgba, n * 4 + n);
    float *depth = realloc(app.depth, n * sizeof *depth);
    if (rgba) app.rgba = rgba;
    if (depth) app.depth = depth;
    if (!rgba || !depth) return fail(st_error_set(&app.err, ST_ERR_NOMEM, "out of memory (read-back)"));
    st_gb *b = method_backend();
    if (!b) return fail(st_error_set(&app.err, ST_ERR_INVALID, "nothing drawn"));
    st_result r = b->ops->read(b, app.rgba, app.depth, &app.err);
    if (r) return fail(r);
    /* the hit mask follows the colour in the same buffer, for the page to hand out */
    uint8_t *mask = app.rgba + n * 4;
    char info[192] = "{}";
    if (methods[app.method]->describe && app.state) methods[app.method]->describe(app.state, info, sizeof info);
    double sum[3] = {0, 0, 0};
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        mask[i] = app.depth[i] > 0.0f ? 1 : 0;
        hits += mask[i];
        for (int k = 0; k < 3; k++) sum[k] += app.rgba[i * 4 + (size_t)k];
    }
    snprintf(app.result, sizeof app.result,
             "{\"backend\":\"%s\",\"method\":\"%s\",\"width\":%u,\"height\":%u,\"coverage\":%.6f,"
             "\"mean\":[%.3f,%.3f,%.3f],\"mask_crc\":%u,\"level_crc\":%u,\"gen_ms\":%.1f,\"upload_ms\":%.1f,"
             "\"method_ms\":%.1f,\"method_info\":%s}",
             b->ops->name, methods[app.method]->name, app.width, app.height, (double)hits / (double)n,
             sum[0] / (double)n, sum[1] / (double)n, sum[2] / (double)n, st_crc32(mask, n), web_level_crc(), app.gen_ms,
             app.upload_ms, app.method_ms, info);
    return 0;
}

static st_result after_edit(st_rect dirty, st_error *err) {
    if (st_rect_empty(dirty)) return ST_OK;
    st_result r = upload_rect(dirty, err);
    if (!r && app.state && methods[app.method]->level_updated)
        r = methods[app.method]->level_updated(method_backend(), app.state, app.level, dirty, err);
    return r;
}

/* Digs (raise 0) or raises the ground under pixel (px, py); 1 when nothing is under it. */
EMSCRIPTEN_KEEPALIVE int web_dig(float px, float py, int raise) {
    clear_error();
    float hit[3];
    if (!app.level || !st_viewer_pick(app.level, &app.control.camera, app.width, app.height, px, py, hit)) return -1;
    st_rect dirty;
    st_result r = st_edit_history_apply(app.history, app.level, raise ? ST_EDIT_RAISE : ST_EDIT_DIG, (int)floorf(hit[0]),
                                        (int)floorf(hit[1]), WEB_DIG_RADIUS, WEB_DIG_DEPTH, &dirty, &app.err);
    if (!r) r = after_edit(dirty, &app.err);
    return fail(r);
}

EMSCRIPTEN_KEEPALIVE int web_undo(void) {
    clear_error();
    st_rect dirty;
    if (!app.level || !st_edit_history_undo(app.history, app.level, NULL, &dirty, NULL)) return -1; /* no control map here */
    return fail(after_edit(dirty, &app.err));
}

int main(void) { return 0; }
