/* strata view: the interactive viewer. A GLFW window shows any method live with a HUD; fly, orbit and
 * top-down cameras; the default views; live method, knob and shadow switching; digging and raising with
 * undo/redo and saving; screenshots and recorded camera paths. With --frames N it runs N frames and exits,
 * printing a summary that tests parse (tests/cli_view.sh under Xvfb). See docs/viewer.md. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "store_cli.h"
#include "strata/file.h"
#include "strata/image.h"
#include "strata/present.h"
#include "strata/render.h"
#include "strata/view.h"
#include "strata/views.h"
#include "strata/world.h"

#if STRATA_HAVE_GLFW
#include <GLFW/glfw3.h>
#endif

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata view [--world W] [--method M] [--view NAME | --camera x,y,z,yaw,pitch] [--size WxH]\n"
           "                   [--frames N] [--screenshot FILE] [--path FILE] [--record DIR] [--fps N] [--headless]\n"
           "                   [--dig x,y,r] [--paint x,y,r,MATERIAL] [--save DIR] [--vsync on|off] [--no-shadows]\n"
           "                   [--ray-steps N] [--device N] [--water none|gerstner|ocean] [--wind S[,D]] [--choppy L] [--time T] [--water-level Z]\n\n"
           "Opens a window showing the world with one method live, with a HUD. Keys (docs/viewer.md):\n"
           "  WASD move, Q/E down/up, Shift faster, wheel speed/zoom, right mouse button held: look\n"
           "  Tab fly / orbit / top-down camera, F1-F12 default views, L next view\n"
           "  1-9 or M method, [ ] the method's main knob, H shadows, G flat/textured shading, X wireframe,\n"
           "  F freeze culling, V vsync\n"
           "  left click dig (Shift: raise), + - crater radius, Ctrl+Z undo, Ctrl+Y redo, Ctrl+S save\n"
           "  B brush: dig / paint a material, N (Shift+N) the next (previous) material to paint\n"
           "  P screenshot, I HUD on/off, Esc quit\n"
           "  O water none / Gerstner / ocean, , . wind -/+ (Shift: turn it), J K choppiness -/+, T stop/run time\n\n");
    cli_options_usage(opts, count);
    printf("methods:");
    for (size_t i = 0; i < st_method_count(); i++) printf(" %s", st_method_at(i)->name);
    printf(" (default ray)\n"
           "The water's time starts at --time and runs with the clock (scripted runs: 1/--fps per frame).\n");
}
#if !STRATA_HAVE_GLFW

int cmd_view(int argc, char **argv) {
    if (cli_is_store(cli_world_arg(argc, argv))) return cli_view_store(argc, argv);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage();
            return CLI_EXIT_OK;
        }
    fprintf(stderr, "strata view: this build has no window support (install libglfw3-dev and rebuild)\n");
    return CLI_EXIT_RUNTIME;
}

#else

#define RING 60         /* frames in the rolling medians */
#define GRAPH 120       /* frames in the frame-time graph */
#define CLOSE_WINDOW_MS 3000.0
#define MESSAGE_MS 4000.0

typedef struct view_opts {
    const char *world, *color, *method, *view_name, *screenshot, *path_file, *record_dir, *save_dir;
    st_camera camera;
    bool have_camera;
    uint32_t width, height, frames, fps, steps, device;
    bool device_given, no_shadows;
    int vsync; /* -1 = default */
    bool dig;
    int dig_x, dig_y, dig_r;
    bool paint; /* --paint x,y,r,MATERIAL: the material by number, or by name (paint_name) */
    int paint_x, paint_y, paint_r, paint_material;
    char paint_name[ST_MATERIAL_NAME];
    bool headless; /* no window: the scripted frames are rendered offscreen (machines without a display) */
    cli_water water;
    st_shading shading;
} view_opts;

#define MAX_FRAMES 1000000u /* --frames, and what a --record of a whole path may write */

/* The frames a scripted run draws: --frames N, and with --record the whole path at --fps when that is fewer
 * (or when --frames is not given, within MAX_FRAMES). */
static st_result scripted_frames(const view_opts *o, const st_cam_path *path, uint64_t *frames, st_error *err) {
    *frames = o->frames;
    if (!o->record_dir) return ST_OK;
    double seconds = (double)st_cam_path_duration(path); /* at most ST_CAM_PATH_MAX_SECONDS */
    uint64_t along = (uint64_t)floor(seconds * o->fps) + 1;
    if (!o->frames && along > MAX_FRAMES)
        return st_error_set(err, ST_ERR_INVALID,
                            "recording the %.0f s path at %u fps is %llu frames, more than %u: give --frames N or a "
                            "lower --fps", seconds, o->fps, (unsigned long long)along, MAX_FRAMES);
    if (!*frames || along < *frames) *frames = along;
    return ST_OK;
}

typedef struct ring {
    double v[RING];
    size_t n, next;
} ring;

typedef struct viewer {
    view_opts o;
    GLFWwindow *window;
    st_level *level;
    st_engine *engine;
    st_presenter *presenter;
    st_renderer *renderer;
    st_hud *hud;
    st_edit_history *history;
    st_device_info device;
    st_render_desc desc;
    bool renderer_stale;
    size_t method_index;
    st_cam_control cam;
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count, view_index;
    st_cam_path path;
    bool playing;
    double play_start_ms;
    bool vsync, vsync_changed, hud_on;
    int crater;
    bool painting;        /* the left button paints paint_material into the control map instead of digging */
    int paint_material;
    bool save_control;    /* the world has its own control map (loaded or painted): saved with it */
    /* input gathered by the callbacks between frames */
    bool looking;
    double last_x, last_y;
    float look[2], scroll;
    bool click, click_raise;
    double click_x, click_y;
    bool screenshot;
    /* timing */
    ring method_ms, shadow_ms, present_ms, frame_ms, render_ms, water_ms;
    double water_time; /* the water's clock (s) */
    bool water_paused;
    double graph[GRAPH];
    size_t graph_next;
    char message[256];
    double message_until;
    double close_requested_ms;
    char save_dir[1024];
    uint64_t frame;
} viewer;

static void ring_push(ring *r, double v) {
    r->v[r->next] = v;
    r->next = (r->next + 1) % RING;
    if (r->n < RING) r->n++;
}

/* Median of the finite values; NAN when there are none (no timestamps on this adapter). */
static double ring_median(const ring *r) {
    double vals[RING];
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (isfinite(r->v[i])) vals[n++] = r->v[i];
    return n ? st_stats_of(vals, n).median : NAN;
}

static void say(viewer *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(viewer *v, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
    v->message_until = st_time_ms() + MESSAGE_MS;
    fprintf(stderr, "strata view: %s\n", v->message);
}

/* ---- the method and its knobs -------------------------------------------------------------------------- */
/* The method family: "voxel" matches voxel and voxel-compute, not voxelspace. */
static bool starts_with(const char *s, const char *family) {
    size_t n = strlen(family);
    return !strncmp(s, family, n) && (s[n] == 0 || s[n] == '-');
}

/* The current method's quality knob as text ("ray steps 128"); steps it when dir is ±1: a count doubles and
 * halves within the knob's range, a fraction moves by tenths. */
static void knob(viewer *v, int dir, char *text, size_t cap) {
    st_method_knobs *k = &v->desc.knobs;
    const st_method_knob *kn = st_method_quality_knob(v->desc.method);
    if (!kn) {
        snprintf(text, cap, "no knob");
        return;
    }
    if (kn->kind == ST_KNOB_COUNT) {
        uint32_t cur = (uint32_t)st_knob_get(k, kn), lo = (uint32_t)kn->min, hi = (uint32_t)kn->max;
        if (dir > 0 && cur * 2 <= hi) cur *= 2;
        if (dir < 0 && cur / 2 >= lo) cur /= 2;
        if (dir) st_knob_set(k, kn, cur);
        snprintf(text, cap, "%s %u", kn->label, cur);
        return;
    }
    float q = (float)st_knob_get(k, kn), lo = (float)kn->min, hi = (float)kn->max;
    if (dir) {
        q = roundf((q + 0.1f * (float)dir) * 10.0f) / 10.0f;
        q = q < lo ? lo : q > hi ? hi : q;
        st_knob_set(k, kn, q);
    }
    snprintf(text, cap, "%s %.1f", kn->label, (double)q);
}

static bool has_wireframe(const char *method) { return starts_with(method, "mesh"); }

/* (Re)creates the renderer at the presenter's size with the current description; on failure goes back to
 * the previous description so there is always a renderer to show. */
static st_result rebuild_renderer(viewer *v, const st_render_desc *previous, st_error *err) {
    uint32_t w, h;
    st_presenter_size(v->presenter, &w, &h);
    v->desc.width = w;
    v->desc.height = h;
    st_renderer_destroy(v->renderer);
    v->renderer = NULL;
    st_result r = st_renderer_create(v->engine, &v->desc, &v->renderer, err);
    if (r && previous) {
        say(v, "%s: %s", v->desc.method, err->message);
        v->desc = *previous;
        v->desc.width = w;
        v->desc.height = h;
        r = st_renderer_create(v->engine, &v->desc, &v->renderer, err);
    }
    v->renderer_stale = false;
    return r;
}

static void select_method(viewer *v, size_t index) {
    if (index >= st_method_count()) return;
    v->method_index = index;
    v->desc.method = st_method_at(index)->name;
    v->renderer_stale = true;
}

/* ---- edits, saving, screenshots ------------------------------------------------------------------------ */
static st_result edit(viewer *v, st_edit_kind kind, int x, int y, int radius, st_error *err) {
    st_rect dirty;
    int amount = radius > 255 ? 255 : radius; /* a crater as deep as its radius */
    /* a pick on a copy of a wrapping level edits the level itself; along an axis that does not wrap there are
     * no copies (a centre past the edge is refused by the edit) */
    if (v->level->wrap_x) x = st_wrap(x, (int)v->level->width);
    if (v->level->wrap_y) y = st_wrap(y, (int)v->level->height);
    st_result r = st_edit_history_apply(v->history, v->level, kind, x, y, radius, amount, &dirty, err);
    if (!r) r = st_engine_update_level(v->engine, dirty, err);
    return r;
}

/* A round paint of `material` into the control map at texel (x, y) (on a wrapping level's copy: the level's
 * own texel); only the changed texels go to the GPU. */
static st_result paint(viewer *v, float x, float y, int radius, int material, float strength, st_error *err) {
    if (v->level->wrap_x) x = (float)st_wrap((int)floorf(x), (int)v->level->width) + (x - floorf(x));
    if (v->level->wrap_y) y = (float)st_wrap((int)floorf(y), (int)v->level->height) + (y - floorf(y));
    st_rect dirty;
    st_result r = st_edit_history_paint(v->history, st_engine_control_map(v->engine), x, y, (float)radius,
                                        (uint8_t)material, strength, &dirty, err);
    if (!r) v->save_control = true;
    if (!r && !st_rect_empty(dirty)) r = st_engine_update_control(v->engine, dirty, err);
    return r;
}

static void undo_redo(viewer *v, bool redo) {
    st_rect dirty;
    bool of_control = false;
    st_control_map *control = st_engine_control_map(v->engine);
    bool done = redo ? st_edit_history_redo(v->history, v->level, control, &dirty, &of_control)
                     : st_edit_history_undo(v->history, v->level, control, &dirty, &of_control);
    if (!done) {
        say(v, "nothing to %s", redo ? "redo" : "undo");
        return;
    }
    st_error err = {0};
    st_result r = of_control ? st_engine_update_control(v->engine, dirty, &err)
                             : st_engine_update_level(v->engine, dirty, &err);
    if (r) say(v, "%s", err.message);
}

/* The world's files, and its control map as DIR/control.ctl when it has one of its own. */
static st_result save_world_files(st_engine *engine, const st_level *level, bool with_control, const char *dir,
                                  st_error *err) {
    st_result r = st_world_save(level, dir, err);
    const st_control_map *map = with_control ? st_engine_control_map(engine) : NULL;
    if (!r && map) {
        char path[1200];
        snprintf(path, sizeof path, "%s/control.ctl", dir);
        r = st_control_map_save(map, path, err);
    }
    return r ? st_error_prefix(err, "saving to %s", dir) : ST_OK;
}

static st_result save_world(viewer *v, st_error *err) {
    double t0 = st_time_ms();
    st_result r = save_world_files(v->engine, v->level, v->save_control, v->save_dir, err);
    if (r) return r;
    st_edit_history_mark_saved(v->history);
    say(v, "saved the world to %s (%.0f ms)", v->save_dir, st_time_ms() - t0);
    return ST_OK;
}

static st_result write_png(viewer *v, const char *path, st_error *err) {
    uint32_t w = v->desc.width, h = v->desc.height;
    uint8_t *rgba = malloc((size_t)w * h * 4);
    if (!rgba) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    st_result r = st_renderer_readback(v->renderer, rgba, NULL, err);
    if (!r) r = st_png_write(path, w, h, 4, 8, rgba, err);
    free(rgba);
    return r;
}

static void screenshot(viewer *v) {
    char path[64];
    struct stat st;
    for (int i = 0; i < 10000; i++) { /* the first free name: never overwrite an earlier shot */
        snprintf(path, sizeof path, "screenshot-%04d.png", i);
        if (stat(path, &st) != 0) break;
    }
    st_error err = {0};
    if (write_png(v, path, &err)) say(v, "screenshot failed: %s", err.message);
    else say(v, "wrote %s", path);
}

/* ---- input ------------------------------------------------------------------------------------------- */
static viewer *of(GLFWwindow *w) { return glfwGetWindowUserPointer(w); }

/* The window's cursor position in framebuffer pixels (they differ on high-density displays). */
static void cursor_pixels(viewer *v, double cx, double cy, float *px, float *py) {
    int ww, wh;
    glfwGetWindowSize(v->window, &ww, &wh);
    uint32_t fw, fh;
    st_presenter_size(v->presenter, &fw, &fh);
    *px = (float)(ww > 0 ? cx * fw / ww : cx);
    *py = (float)(wh > 0 ? cy * fh / wh : cy);
}

static void pick_centre(viewer *v, float hit[3], bool *found) {
    uint32_t w = v->desc.width, h = v->desc.height;
    *found = st_viewer_pick(v->level, &v->cam.camera, w, h, 0.5f * (float)w, 0.5f * (float)h, hit);
}

static void jump_to_view(viewer *v, size_t index) {
    if (index >= v->view_count) return;
    v->view_index = index;
    st_camera cam = st_viewpoint_camera(v->level, &v->views[index]);
    st_cam_control_set(&v->cam, &cam);
    v->playing = false;
    say(v, "view %zu/%zu: %s", index + 1, v->view_count, v->views[index].name);
}

/* The water's weather keys: , and . the wind speed (Shift: its direction, 15° a press), J and K the choppiness.
 * The renderer keeps its ocean and regenerates the spectra; the description keeps the values for a rebuild. */
static void water_key(viewer *v, int key, bool shift) {
    st_water_desc *d = &v->desc.water;
    st_water_desc r = st_water_desc_resolve(d);
    float wind = r.wind_speed, dir = r.wind_dir_deg, chop = r.choppiness < 0 ? 0 : r.choppiness;
    if (key == GLFW_KEY_COMMA || key == GLFW_KEY_PERIOD) {
        float sign = key == GLFW_KEY_PERIOD ? 1.0f : -1.0f;
        if (shift) dir = fmodf(dir + 15.0f * sign + 360.0f, 360.0f);
        else wind = fminf(fmaxf(wind * (sign > 0 ? 1.25f : 0.8f), 0.5f), 40.0f);
    } else {
        chop = fminf(fmaxf(chop + (key == GLFW_KEY_K ? 0.25f : -0.25f), 0.0f), 3.0f);
    }
    d->wind_speed = wind;
    d->wind_dir_deg = dir;
    d->choppiness = chop > 0 ? chop : -1.0f; /* 0 in the description means the default */
    if (d->mode == ST_WATER_NONE) {
        say(v, "water is off (O)");
        return;
    }
    st_error err = {0};
    if (st_renderer_set_weather(v->renderer, wind, dir, d->choppiness, &err)) say(v, "water: %s", err.message);
    else say(v, "wind %.1f m/s toward %.0f°, choppiness %.2f", (double)wind, (double)dir, (double)chop);
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode;
    viewer *v = of(w);
    if (action == GLFW_RELEASE) return;
    bool ctrl = mods & GLFW_MOD_CONTROL, shift = mods & GLFW_MOD_SHIFT;
    bool repeat = action == GLFW_REPEAT;
    char text[64];
    if (ctrl) {
        if (key == GLFW_KEY_Z && !shift) undo_redo(v, false);
        else if (key == GLFW_KEY_Y || (key == GLFW_KEY_Z && shift)) undo_redo(v, true);
        else if (key == GLFW_KEY_S && !repeat) {
            st_error err = {0};
            if (save_world(v, &err)) say(v, "%s", err.message);
        }
        return;
    }
    if (key == GLFW_KEY_EQUAL || key == GLFW_KEY_KP_ADD) {
        v->crater = v->crater * 5 / 4 + 1 > 512 ? 512 : v->crater * 5 / 4 + 1;
        return;
    }
    if (key == GLFW_KEY_MINUS || key == GLFW_KEY_KP_SUBTRACT) {
        v->crater = v->crater * 4 / 5 < 2 ? 2 : v->crater * 4 / 5;
        return;
    }
    if (repeat) return;
    const st_material_set *set = st_engine_material_set(v->engine);
    int materials = set ? (int)set->count : ST_MAT_SYNTH_COUNT;
    if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) select_method(v, (size_t)(key - GLFW_KEY_1));
    else if (key >= GLFW_KEY_F1 && key <= GLFW_KEY_F12) jump_to_view(v, (size_t)(key - GLFW_KEY_F1));
    switch (key) {
    case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(w, GLFW_TRUE); break;
    case GLFW_KEY_M: select_method(v, (v->method_index + 1) % st_method_count()); break;
    case GLFW_KEY_LEFT_BRACKET:
    case GLFW_KEY_RIGHT_BRACKET:
        knob(v, key == GLFW_KEY_RIGHT_BRACKET ? 1 : -1, text, sizeof text);
        v->renderer_stale = true;
        say(v, "%s: %s", v->desc.method, text);
        break;
    case GLFW_KEY_H:
        v->desc.shadows = !v->desc.shadows;
        v->renderer_stale = true;
        break;
    case GLFW_KEY_G:
        v->desc.shading = v->desc.shading == ST_SHADING_FLAT ? ST_SHADING_TEXTURED : ST_SHADING_FLAT;
        v->renderer_stale = true;
        say(v, "shading: %s", st_shading_name(v->desc.shading));
        break;
    case GLFW_KEY_X:
        if (!has_wireframe(v->desc.method)) {
            say(v, "wireframe: n/a for %s (mesh methods only)", v->desc.method);
            break;
        }
        v->desc.wireframe = !v->desc.wireframe;
        v->renderer_stale = true;
        break;
    case GLFW_KEY_F:
        v->desc.freeze_culling = !v->desc.freeze_culling;
        v->renderer_stale = true; /* culling methods take the camera of their first frame */
        break;
    case GLFW_KEY_V:
        v->vsync = !v->vsync;
        v->vsync_changed = true;
        break;
    case GLFW_KEY_TAB: {
        st_cam_mode next = (st_cam_mode)((v->cam.mode + 1) % 3);
        float hit[3];
        bool found = false;
        if (v->cam.mode == ST_CAM_FLY) pick_centre(v, hit, &found);
        st_cam_control_mode(&v->cam, next, found ? hit : NULL);
        v->playing = false;
        break;
    }
    case GLFW_KEY_L:
        if (v->view_count) jump_to_view(v, (v->view_index + (shift ? v->view_count - 1 : 1)) % v->view_count);
        break;
    case GLFW_KEY_B:
        v->painting = !v->painting;
        if (v->painting && v->desc.shading == ST_SHADING_FLAT) say(v, "brush: paint (shown with textured shading: G)");
        else say(v, "brush: %s", v->painting ? "paint" : "dig");
        break;
    case GLFW_KEY_N:
        v->paint_material = (v->paint_material + (shift ? materials - 1 : 1)) % materials;
        v->painting = true;
        say(v, "brush: paint %s", set ? set->names[v->paint_material] : "");
        break;
    case GLFW_KEY_P: v->screenshot = true; break;
    case GLFW_KEY_I: v->hud_on = !v->hud_on; break;
    case GLFW_KEY_O:
        v->desc.water.mode = (st_water_mode)((v->desc.water.mode + 1) % 3);
        v->renderer_stale = true;
        say(v, "water: %s", st_water_mode_name(v->desc.water.mode));
        break;
    case GLFW_KEY_COMMA:
    case GLFW_KEY_PERIOD:
    case GLFW_KEY_J:
    case GLFW_KEY_K: water_key(v, key, shift); break;
    case GLFW_KEY_T:
        v->water_paused = !v->water_paused;
        say(v, "water time %s at %.1f s", v->water_paused ? "stopped" : "runs", v->water_time);
        break;
    default: break;
    }
}

static void on_mouse_button(GLFWwindow *w, int button, int action, int mods) {
    viewer *v = of(w);
    if (button == GLFW_MOUSE_BUTTON_RIGHT) {
        /* the cursor is captured only while looking, so it stays usable for clicking edits */
        v->looking = action == GLFW_PRESS;
        glfwSetInputMode(w, GLFW_CURSOR, v->looking ? GLFW_CURSOR_DISABLED : GLFW_CURSOR_NORMAL);
        glfwGetCursorPos(w, &v->last_x, &v->last_y);
    } else if (button == GLFW_MOUSE_BUTTON_LEFT && action == GLFW_PRESS) {
        v->click = true;
        v->click_raise = mods & GLFW_MOD_SHIFT;
        glfwGetCursorPos(w, &v->click_x, &v->click_y);
    }
}

static void on_cursor(GLFWwindow *w, double x, double y) {
    viewer *v = of(w);
    if (v->looking) {
        v->look[0] += (float)(x - v->last_x);
        v->look[1] += (float)(y - v->last_y);
    }
    v->last_x = x;
    v->last_y = y;
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    of(w)->scroll += (float)dy;
}

static void camera_input(viewer *v, float dt) {
    st_cam_input in = {.dt = dt, .scroll = v->scroll, .look = {v->look[0], v->look[1]}};
    v->scroll = 0;
    v->look[0] = v->look[1] = 0;
    GLFWwindow *w = v->window;
    bool ctrl = glfwGetKey(w, GLFW_KEY_LEFT_CONTROL) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_RIGHT_CONTROL) == GLFW_PRESS;
    if (!ctrl) { /* Ctrl+S must not also fly backwards */
        in.move[0] = (float)(glfwGetKey(w, GLFW_KEY_D) == GLFW_PRESS) - (float)(glfwGetKey(w, GLFW_KEY_A) == GLFW_PRESS);
        in.move[1] = (float)(glfwGetKey(w, GLFW_KEY_W) == GLFW_PRESS) - (float)(glfwGetKey(w, GLFW_KEY_S) == GLFW_PRESS);
        in.move[2] = (float)(glfwGetKey(w, GLFW_KEY_E) == GLFW_PRESS) - (float)(glfwGetKey(w, GLFW_KEY_Q) == GLFW_PRESS);
    }
    in.fast = glfwGetKey(w, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS || glfwGetKey(w, GLFW_KEY_RIGHT_SHIFT) == GLFW_PRESS;
    bool moved = in.move[0] != 0 || in.move[1] != 0 || in.move[2] != 0 || in.look[0] != 0 || in.look[1] != 0;
    if (v->playing && moved) {
        v->playing = false;
        say(v, "path stopped: the controls have the camera");
    }
    if (!v->playing) st_cam_control_update(&v->cam, &in, v->level);
}

/* ---- the HUD ----------------------------------------------------------------------------------------- */
static const uint8_t WHITE[4] = {235, 235, 235, 255}, DIM[4] = {170, 180, 190, 255}, BACK[4] = {0, 0, 0, 150},
                     YELLOW[4] = {255, 220, 90, 255}, RED[4] = {255, 110, 90, 255}, GREEN[4] = {110, 220, 120, 255};

static void fmt_ms(char *buf, size_t cap, double ms) {
    if (isnan(ms)) snprintf(buf, cap, "n/a");
    else snprintf(buf, cap, "%.2f", ms);
}

static void build_hud(viewer *v, const float *cursor_hit) {
    st_hud *h = v->hud;
    st_hud_clear(h);
    if (!v->hud_on) return;
    uint32_t W = v->desc.width, H = v->desc.height;
    float s = H >= 900 ? 2.0f : 1.0f, line = 12.0f * s, x = 6 * s, y = 6 * s;
    char lines[10][256], a[32], b[32], c[32], k[64], wm[32];
    int n = 0;
    const st_camera *cam = &v->cam.camera;
    snprintf(lines[n++], 256, "%s  %ux%u  %s  present %s (V)", v->level->name, W, H, v->device.name,
             st_presenter_mode(v->presenter));
    knob(v, 0, k, sizeof k);
    snprintf(lines[n++], 256, "method %zu/%zu %s  [ ] %s   H shadows %s  X wire %s  F cull-freeze %s",
             v->method_index + 1, st_method_count(), v->desc.method, k, v->desc.shadows ? "on" : "off",
             has_wireframe(v->desc.method) ? (v->desc.wireframe ? "on" : "off") : "n/a",
             v->desc.freeze_culling ? "on" : "off");
    double shadow = ring_median(&v->shadow_ms), method = ring_median(&v->method_ms);
    fmt_ms(a, sizeof a, method);
    fmt_ms(b, sizeof b, shadow);
    fmt_ms(c, sizeof c, ring_median(&v->present_ms));
    snprintf(lines[n++], 256, "gpu ms  method %s  shadow %s  present %s   (medians of %zu frames)", a, b, c,
             v->frame_ms.n);
    snprintf(lines[n++], 256, "cpu ms  frame %.2f  render %.2f  (%.1f fps)", ring_median(&v->frame_ms),
             ring_median(&v->render_ms), 1000.0 / ring_median(&v->frame_ms));
    if (v->desc.water.mode != ST_WATER_NONE) {
        st_water_desc wr = st_water_desc_resolve(&v->desc.water);
        fmt_ms(wm, sizeof wm, ring_median(&v->water_ms));
        snprintf(lines[n++], 256, "water %s (O)  wind %.1f m/s %.0f° (, .)  chop %.2f (J K)  t %.1f s%s (T)  gpu %s ms",
                 st_water_mode_name(wr.mode), (double)wr.wind_speed, (double)wr.wind_dir_deg,
                 (double)(wr.choppiness < 0 ? 0 : wr.choppiness), v->water_time, v->water_paused ? " stopped" : "", wm);
    } else {
        snprintf(lines[n++], 256, "water none (O)");
    }
    snprintf(lines[n++], 256, "camera %s%s  x %.1f y %.1f z %.1f  yaw %.1f pitch %.1f  speed %.0f",
             st_cam_mode_name(v->cam.mode), v->playing ? " (path)" : "", (double)cam->position[0],
             (double)cam->position[1], (double)cam->position[2], (double)cam->yaw_deg, (double)cam->pitch_deg,
             (double)v->cam.speed);
    char where[64], brush[64];
    const st_material_set *set = st_engine_material_set(v->engine);
    if (cursor_hit)
        snprintf(where, sizeof where, "cursor %.0f %.0f h %.0f", (double)cursor_hit[0], (double)cursor_hit[1],
                 (double)cursor_hit[2]);
    else
        snprintf(where, sizeof where, "cursor sky");
    if (v->painting)
        snprintf(brush, sizeof brush, "paint %s (B, N) r %d", set ? set->names[v->paint_material] : "?", v->crater);
    else
        snprintf(brush, sizeof brush, "dig (B) r %d", v->crater);
    snprintf(lines[n++], 256, "%s   brush %s (+ -)   edits %zu undo, %zu redo%s", where, brush,
             st_edit_history_undo_count(v->history), st_edit_history_redo_count(v->history),
             st_edit_history_unsaved(v->history) ? "  UNSAVED (Ctrl+S)" : "");
    float wmax = 0, hl;
    for (int i = 0; i < n; i++) {
        float wl;
        st_hud_measure(lines[i], s, &wl, &hl);
        if (wl > wmax) wmax = wl;
    }
    st_hud_rect(h, 0, 0, wmax + 2 * x, (float)n * line + 2 * y - 4 * s, BACK);
    for (int i = 0; i < n; i++)
        st_hud_text(h, x, y + (float)i * line, s, i == 6 && st_edit_history_unsaved(v->history) ? YELLOW : WHITE,
                    lines[i]);
    if (st_time_ms() < v->message_until) {
        float wl;
        st_hud_measure(v->message, s, &wl, &hl);
        float my = (float)n * line + 2 * y;
        st_hud_rect(h, 0, my - 2 * s, wl + 2 * x, line + 2 * s, BACK);
        st_hud_text(h, x, my, s, YELLOW, v->message);
    }
    /* frame-time graph, bottom left: one bar per frame on a scale that holds the slowest frame (33.3 ms
     * at least), lines at 16.7 and 33.3 ms while they fit, the scale at the top */
    float gw = 2 * s, gh = 60 * s, gx = x, gy = (float)H - gh - 6 * s;
    double scale = st_hud_graph_scale_ms(v->graph, GRAPH);
    st_hud_rect(h, gx - 2 * s, gy - 2 * s, GRAPH * gw + 4 * s, gh + 4 * s, BACK);
    for (size_t i = 0; i < GRAPH; i++) {
        double ms = v->graph[(v->graph_next + i) % GRAPH];
        if (!(ms > 0)) continue;
        float bh = (float)(ms / scale * gh);
        st_hud_rect(h, gx + (float)i * gw, gy + gh - bh, gw, bh, ms < 16.7 ? GREEN : ms < 33.3 ? YELLOW : RED);
    }
    char label[32];
    snprintf(label, sizeof label, "%.0f ms", scale);
    st_hud_text(h, gx + GRAPH * gw + 4 * s, gy - 3 * s, s, DIM, label);
    static const double marks[2] = {100.0 / 3.0, 50.0 / 3.0};
    for (int m = 0; m < 2; m++) {
        float my = gy + gh * (float)(1.0 - marks[m] / scale);
        if (gy + gh - my < 8 * s) continue; /* too close to the floor to read at this scale */
        st_hud_rect(h, gx, my, GRAPH * gw, 1, DIM);
        if (marks[m] < scale) st_hud_text(h, gx + GRAPH * gw + 4 * s, my - 3 * s, s, DIM, m ? "17 ms" : "33 ms");
    }
}

/* ---- options ------------------------------------------------------------------------------------------ */
static bool parse_camera(const char *value, void *camera) { return st_camera_parse(value, camera); }

static bool parse_view_size(const char *value, void *target) {
    view_opts *o = target;
    uint32_t w, h;
    if (!cli_parse_size(value, &w, &h) || w > 16384 || h > 16384) return false;
    o->width = w;
    o->height = h;
    return true;
}

/* --dig x,y,r: texels 0..ST_LEVEL_MAX_DIM-1, r in 1..4096. */
static bool parse_dig(const char *value, void *target) {
    view_opts *o = target;
    int d[3];
    if (cli_parse_ints(value, 0, ST_LEVEL_MAX_DIM - 1, d, 3) != 3 || d[2] < 1 || d[2] > 4096) return false;
    o->dig_x = d[0], o->dig_y = d[1], o->dig_r = d[2];
    return true;
}

/* --paint x,y,r,MATERIAL: texels 0..ST_LEVEL_MAX_DIM-1, r in 1..4096, the material a number below
 * ST_MATERIAL_MAX or a name (a-z, 0-9, _), resolved against the world's material set once it is known. */
static bool parse_paint(const char *value, void *target) {
    view_opts *o = target;
    const char *comma = strrchr(value, ',');
    if (!comma || (size_t)(comma - value) >= 64) return false;
    char head[64];
    snprintf(head, sizeof head, "%.*s", (int)(comma - value), value);
    int d[3];
    if (cli_parse_ints(head, 0, ST_LEVEL_MAX_DIM - 1, d, 3) != 3 || d[2] < 1 || d[2] > 4096) return false;
    const char *mat = comma + 1;
    size_t len = strlen(mat);
    if (!len || len >= ST_MATERIAL_NAME) return false;
    uint32_t id;
    o->paint_name[0] = 0;
    if (cli_parse_uint(mat, 0, ST_MATERIAL_MAX - 1, &id)) {
        o->paint_material = (int)id;
    } else {
        for (size_t k = 0; k < len; k++)
            if (!((mat[k] >= 'a' && mat[k] <= 'z') || (mat[k] >= '0' && mat[k] <= '9') || mat[k] == '_')) return false;
        snprintf(o->paint_name, sizeof o->paint_name, "%s", mat);
    }
    o->paint_x = d[0], o->paint_y = d[1], o->paint_r = d[2];
    return true;
}

/* The material --paint names in the engine's set (synthesised, plus the world's own): ST_ERR_INVALID for a
 * name or number the set lacks. */
static st_result paint_material(const view_opts *o, st_engine *engine, int *material, st_error *err) {
    const st_material_set *set = st_engine_material_set(engine);
    if (!set) return st_error_set(err, ST_ERR_INVALID, "--paint needs textured shading");
    int m = o->paint_name[0] ? st_material_find(set, o->paint_name) : o->paint_material;
    if (m < 0 || m >= (int)set->count)
        return st_error_set(err, ST_ERR_INVALID, "--paint: no material '%s' in this world's %u",
                            o->paint_name[0] ? o->paint_name : "(that number)", set->count);
    *material = m;
    return ST_OK;
}

static bool parse_vsync(const char *value, void *target) {
    if (strcmp(value, "on") && strcmp(value, "off")) return false;
    *(int *)target = !strcmp(value, "on");
    return true;
}

static int parse(int argc, char **argv, view_opts *o) {
    const cli_opt own[] = {
        {.name = "world", .kind = CLI_OPT_STRING, .target = &o->world, .arg = "W",
         .help = "'default' (the embedded procedural world), a world directory or world.ini, a height\n"
                 "map's .png (with --color) or a folder holding height.png and color.png"},
        CLI_OPT_COLOR(&o->color),
        {.name = "method", .kind = CLI_OPT_STRING, .target = &o->method, .arg = "M",
         .help = "the method (default ray; the list below)"},
        {.name = "view", .kind = CLI_OPT_STRING, .target = &o->view_name, .arg = "NAME",
         .help = "a named view (default: the first default view), or name:x,y:yaw:pitch[:height][:under]"},
        {.name = "camera", .kind = CLI_OPT_PARSE, .target = &o->camera, .given = &o->have_camera,
         .parse = parse_camera, .arg = "C",
         .bad = "malformed or out-of-range camera '%s' (want x,y,z,yaw,pitch: positions within 1e6, yaw -360..360, "
                "pitch -90..90)",
         .help = "eye position and angles x,y,z,yaw,pitch"},
        {.name = "size", .kind = CLI_OPT_PARSE, .target = o, .parse = parse_view_size, .arg = "WxH",
         .bad = "bad --size '%s' (WxH, each 1..16384)", .help = "window size (default 1280x800)"},
        CLI_OPT_FRAMES(&o->frames, 1000000, "run N frames and exit, printing a summary (terrain/sky pixel shares, "
                                            "times)"),
        {.name = "screenshot", .kind = CLI_OPT_STRING, .target = &o->screenshot, .arg = "F",
         .help = "with --frames: write the last frame as a PNG"},
        {.name = "path", .kind = CLI_OPT_STRING, .target = &o->path_file, .arg = "FILE",
         .help = "a camera path, one keyframe per line: t x y z yaw pitch (played in real time, or\n"
                 "at --fps with --frames/--record)"},
        {.name = "record", .kind = CLI_OPT_STRING, .target = &o->record_dir, .arg = "DIR",
         .help = "with --path: write every frame of the path as DIR/frame-00000.png ... and exit"},
        {.name = "fps", .kind = CLI_OPT_UINT, .target = &o->fps, .min = 1, .max = 1000, .arg = "N",
         .bad = "bad --fps '%s' (1..1000)",
         .help = "frames per second of path time for --frames and --record (default 30)"},
        {.name = "headless", .kind = CLI_OPT_FLAG, .target = &o->headless,
         .help = "no window: render the scripted frames (--frames or --record) offscreen and\n"
                 "report their times (for machines without a display); --dig, --save and\n"
                 "--screenshot work as with a window"},
        {.name = "dig", .kind = CLI_OPT_PARSE, .target = o, .given = &o->dig, .parse = parse_dig, .arg = "x,y,r",
         .bad = "bad --dig '%s' (want x,y,r: texels 0..65535, r in 1..4096)",
         .help = "with --frames: dig a crater of radius r (depth r, at most 255) at texel (x, y)\n"
                 "before frame N/2"},
        {.name = "paint", .kind = CLI_OPT_PARSE, .target = o, .given = &o->paint, .parse = parse_paint,
         .arg = "x,y,r,M",
         .bad = "bad --paint '%s' (want x,y,r,MATERIAL: texels 0..65535, r in 1..4096, a material's name or number)",
         .help = "with --frames: paint material M (a name of docs/materials.md or a number) in a\n"
                 "round brush of radius r at texel (x, y) before frame N/2 (after --dig)"},
        {.name = "save", .kind = CLI_OPT_STRING, .target = &o->save_dir, .arg = "DIR",
         .help = "where Ctrl+S saves (default: the world's directory; ./edited-world for 'default');\n"
                 "with --frames, the edited world is saved there at the end"},
        {.name = "vsync", .kind = CLI_OPT_PARSE, .target = &o->vsync, .parse = parse_vsync, .arg = "on|off",
         .bad = "--vsync takes on or off, not '%s'", .help = "FIFO presentation (default on; off with --frames/--record)"},
        {.name = "no-shadows", .kind = CLI_OPT_FLAG, .target = &o->no_shadows,
         .help = "start with the shared shadow map off (on by default, as in strata render)"},
        CLI_OPT_SHADING(&o->shading, "flat (the paper's colour per material type) or textured (the default)"),
        {.name = "ray-steps", .kind = CLI_OPT_UINT, .target = &o->steps, .min = 1, .max = 4096, .arg = "N",
         .bad = "bad ray step count '%s' (1..4096)", .help = "uniform steps of the ray methods (default 128)"},
        CLI_OPT_DEVICE(&o->device, &o->device_given),
    };
    cli_opt opts[CLI_OPTS_COUNT(own) + CLI_WATER_OPTION_COUNT];
    memcpy(opts, own, sizeof own);
    size_t count = CLI_OPTS_COUNT(own) + cli_water_table(&o->water, opts + CLI_OPTS_COUNT(own));
    bool help = false;
    int parsed = cli_options_parse("view", argc, argv, opts, count, 0, NULL, &help);
    if (help) usage(opts, count);
    if (parsed || help) return help ? -1 : parsed;
    if (!st_method_find(o->method)) return cli_usage_error("view", "unknown method '%s'", o->method);
    if (o->view_name && o->have_camera) return cli_usage_error("view", "give --view or --camera, not both");
    if (o->record_dir && !o->path_file) return cli_usage_error("view", "--record needs --path FILE");
    if (o->screenshot && !o->frames) return cli_usage_error("view", "--screenshot needs --frames N");
    if (o->screenshot && cli_check_output_file("view", o->screenshot)) return CLI_EXIT_USAGE; /* before --record */
    if (o->dig && !o->frames) return cli_usage_error("view", "--dig needs --frames N");
    if (o->paint && !o->frames) return cli_usage_error("view", "--paint needs --frames N");
    if (o->paint && o->shading == ST_SHADING_FLAT) return cli_usage_error("view", "--paint needs textured shading");
    if (o->headless && !o->frames && !o->record_dir)
        return cli_usage_error("view", "--headless needs --frames N or --record DIR");
    return CLI_EXIT_OK;
}

/* Where Ctrl+S saves: --save, else the directory the world came from, else ./edited-world. */
static void choose_save_dir(viewer *v) {
    const char *w = v->o.world;
    struct stat st;
    if (v->o.save_dir) snprintf(v->save_dir, sizeof v->save_dir, "%s", v->o.save_dir);
    else if (w && strcmp(w, "default") && stat(w, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(v->save_dir, sizeof v->save_dir, "%s", w);
    else if (w && strcmp(w, "default") && strrchr(w, '/'))
        snprintf(v->save_dir, sizeof v->save_dir, "%.*s", (int)(strrchr(w, '/') - w), w);
    else if (w && strcmp(w, "default"))
        snprintf(v->save_dir, sizeof v->save_dir, ".");
    else
        snprintf(v->save_dir, sizeof v->save_dir, "edited-world");
}

static VkResult create_surface(VkInstance instance, void *user, VkSurfaceKHR *surface) {
    return glfwCreateWindowSurface(instance, (GLFWwindow *)user, NULL, surface);
}

/* ---- the run ------------------------------------------------------------------------------------------- */
static st_result setup(viewer *v, st_error *err) {
    view_opts *o = &v->o;
    st_result r = o->path_file ? st_cam_path_load(o->path_file, &v->path, err) : ST_OK;
    if (!r) r = cli_load_world_color(o->world, o->color, &v->level, err);
    if (!r) r = st_views_default(v->level, v->views, ST_MAX_VIEWS, &v->view_count, err);
    st_camera start = o->camera;
    if (!r && !o->have_camera) {
        st_viewpoint vp;
        if (o->view_name) r = st_views_find(v->level, o->view_name, &vp, err);
        else if (v->view_count) vp = v->views[0];
        else r = st_error_set(err, ST_ERR_INVALID, "the world has no default views: give --camera");
        if (!r) start = st_viewpoint_camera(v->level, &vp);
    }
    if (r) return r;
    cli_water_resolve(&o->water, v->level, ST_WATER_NONE);
    v->desc.water = o->water.desc;
    v->water_time = o->water.time;
    if (o->path_file) {
        start = st_cam_path_at(&v->path, 0, &start);
        v->playing = true;
    }
    st_cam_control_init(&v->cam, &start);
    uint32_t n_ext = 0;
    const char **ext = glfwGetRequiredInstanceExtensions(&n_ext);
    if (!ext) return st_error_set(err, ST_ERR_UNSUPPORTED, "GLFW found no Vulkan window-system support");
    st_engine_desc ed = {.device_index = (int)o->device,
                         .device_given = o->device_given,
                         .instance_extensions = ext,
                         .instance_extension_count = n_ext,
                         .present = true};
    r = st_engine_create(&ed, &v->engine, err);
    if (!r) r = st_engine_set_level(v->engine, v->level, err);
    if (!r && o->shading == ST_SHADING_TEXTURED) r = cli_world_materials(v->engine, o->world, err);
    if (r) return r;
    v->save_control = st_engine_control_map(v->engine) != NULL; /* the world brought control.ctl */
    v->device = st_engine_device(v->engine);
    char title[160];
    snprintf(title, sizeof title, "strata view: %s", v->level->name);
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    v->window = glfwCreateWindow((int)o->width, (int)o->height, title, NULL, NULL);
    if (!v->window) {
        const char *why = NULL;
        glfwGetError(&why);
        return st_error_set(err, ST_ERR_UNSUPPORTED, "cannot open a window: %s", why ? why : "unknown GLFW error");
    }
    glfwSetWindowUserPointer(v->window, v);
    glfwSetKeyCallback(v->window, on_key);
    glfwSetMouseButtonCallback(v->window, on_mouse_button);
    glfwSetCursorPosCallback(v->window, on_cursor);
    glfwSetScrollCallback(v->window, on_scroll);
    int fw, fh;
    glfwGetFramebufferSize(v->window, &fw, &fh);
    st_presenter_desc pd = {.create_surface = create_surface,
                            .user = v->window,
                            .width = (uint32_t)(fw > 0 ? fw : (int)o->width),
                            .height = (uint32_t)(fh > 0 ? fh : (int)o->height),
                            .vsync = v->vsync};
    r = st_presenter_create(v->engine, &pd, &v->presenter, err);
    if (!r) r = st_hud_create(&v->hud, err);
    if (!r) r = st_edit_history_create(0, &v->history, err);
    if (!r) r = rebuild_renderer(v, NULL, err);
    return r;
}

static void teardown(viewer *v) {
    st_renderer_destroy(v->renderer);
    st_presenter_destroy(v->presenter); /* the surface belongs to the engine's instance: before the engine */
    st_engine_destroy(v->engine);
    if (v->window) glfwDestroyWindow(v->window);
    st_hud_destroy(v->hud);
    st_edit_history_destroy(v->history);
    st_cam_path_free(&v->path);
    st_level_destroy(v->level);
}

/* Window close requests: with unsaved edits the first is refused with a warning; a second within three
 * seconds closes (the edits are lost). Returns true when the viewer should exit. */
static bool should_close(viewer *v) {
    if (!glfwWindowShouldClose(v->window)) return false;
    if (!st_edit_history_unsaved(v->history)) return true;
    double now = st_time_ms();
    if (v->close_requested_ms > 0 && now - v->close_requested_ms < CLOSE_WINDOW_MS) {
        fprintf(stderr, "strata view: closing with %zu unsaved edit(s) discarded\n", st_edit_history_undo_count(v->history));
        return true;
    }
    v->close_requested_ms = now;
    glfwSetWindowShouldClose(v->window, GLFW_FALSE);
    say(v, "unsaved edits: Ctrl+S saves to %s; close again within 3 s to discard them", v->save_dir);
    return false;
}

static st_result summary(viewer *v, st_error *err) {
    uint32_t w = v->desc.width, h = v->desc.height;
    size_t n = (size_t)w * h;
    float *depth = malloc(n * sizeof *depth);
    if (!depth) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    st_result r = st_renderer_readback(v->renderer, NULL, depth, err);
    if (!r && v->o.screenshot) r = write_png(v, v->o.screenshot, err);
    if (r) {
        free(depth);
        return r;
    }
    size_t terrain = 0;
    for (size_t i = 0; i < n; i++) terrain += depth[i] > 0.0f; /* reverse-Z: a miss keeps the cleared 0 */
    free(depth);
    char a[32], b[32], c[32];
    fmt_ms(a, sizeof a, ring_median(&v->method_ms));
    fmt_ms(b, sizeof b, ring_median(&v->shadow_ms));
    fmt_ms(c, sizeof c, ring_median(&v->present_ms));
    printf("view: %s on %s (%s), %ux%u, %llu frames, present %s\n", v->desc.method, v->device.name, v->device.type, w,
           h, (unsigned long long)v->frame, st_presenter_mode(v->presenter));
    printf("  gpu ms: method %s  shadow %s  present %s (medians)\n", a, b, c);
    printf("  cpu ms: frame %.3f  render %.3f (medians)\n", ring_median(&v->frame_ms), ring_median(&v->render_ms));
    printf("pixels: terrain %.1f%% sky %.1f%%\n", 100.0 * (double)terrain / (double)n,
           100.0 * (double)(n - terrain) / (double)n);
    float hit[3];
    bool found;
    pick_centre(v, hit, &found);
    if (found) printf("centre: %.2f %.2f %.2f\n", (double)hit[0], (double)hit[1], (double)hit[2]);
    else printf("centre: sky\n");
    if (v->o.screenshot) printf("  wrote %s\n", v->o.screenshot);
    return ST_OK;
}

static st_result frame_loop(viewer *v, st_error *err) {
    view_opts *o = &v->o;
    bool scripted = o->frames || o->record_dir;
    float step = 1.0f / (float)o->fps;
    uint64_t limit = 0;
    st_result fr = scripted_frames(o, &v->path, &limit, err);
    if (fr) return fr;
    if (o->record_dir) {
        st_result made = st_make_dirs(o->record_dir, err);
        if (made) return made;
    }
    bool stale = false;
    double last = st_time_ms();
    v->play_start_ms = last;
    st_result r = ST_OK;
    while (!r) {
        double t0 = st_time_ms();
        glfwPollEvents();
        if (!scripted && should_close(v)) break;
        if (scripted && glfwWindowShouldClose(v->window)) break;
        int fw, fh;
        glfwGetFramebufferSize(v->window, &fw, &fh);
        if (fw <= 0 || fh <= 0) { /* minimised: nothing to present until it comes back */
            glfwWaitEventsTimeout(0.1);
            continue;
        }
        uint32_t pw, ph;
        st_presenter_size(v->presenter, &pw, &ph);
        if (stale || v->vsync_changed || (uint32_t)fw != pw || (uint32_t)fh != ph) {
            r = st_presenter_resize(v->presenter, (uint32_t)fw, (uint32_t)fh, v->vsync, err);
            if (r) break;
            st_presenter_size(v->presenter, &pw, &ph);
            if (pw != v->desc.width || ph != v->desc.height) v->renderer_stale = true;
            v->vsync_changed = stale = false;
        }
        float dt = (float)((t0 - last) * 1e-3);
        last = t0;
        /* the water's clock: real time with a window, 1/fps a frame when scripted */
        if (!v->water_paused && v->frame) v->water_time += scripted ? (double)step : (double)(dt > 0.25f ? 0.25f : dt);
        if (scripted) {
            if (v->playing) v->cam.camera = st_cam_path_at(&v->path, (float)v->frame * step, &v->cam.camera);
        } else {
            camera_input(v, dt > 0.25f ? 0.25f : dt);
            if (v->playing) {
                float t = (float)((t0 - v->play_start_ms) * 1e-3);
                st_camera cam = st_cam_path_at(&v->path, t, &v->cam.camera);
                st_cam_control_set(&v->cam, &cam);
                if (t > st_cam_path_duration(&v->path)) v->playing = false;
            }
        }
        if (v->renderer_stale) {
            st_render_desc previous = v->desc;
            r = rebuild_renderer(v, &previous, err);
            if (r) break;
        }
        if (v->click) {
            v->click = false;
            float px, py, hit[3];
            cursor_pixels(v, v->click_x, v->click_y, &px, &py);
            if (st_viewer_pick(v->level, &v->cam.camera, v->desc.width, v->desc.height, px, py, hit)) {
                st_error e2 = {0};
                /* painting: Shift lays a thin coat (a third of the weight) */
                st_result er = v->painting ? paint(v, hit[0], hit[1], v->crater, v->paint_material,
                                                   v->click_raise ? 1.0f / 3.0f : 1.0f, &e2)
                                           : edit(v, v->click_raise ? ST_EDIT_RAISE : ST_EDIT_DIG, (int)floorf(hit[0]),
                                                  (int)floorf(hit[1]), v->crater, &e2);
                if (er) say(v, "%s failed: %s", v->painting ? "paint" : "edit", e2.message);
            } else if (v->painting) {
                say(v, "nothing to paint there (sky)");
            } else {
                say(v, "nothing to %s there (sky)", v->click_raise ? "raise" : "dig");
            }
        }
        if (o->dig && v->frame == o->frames / 2) r = edit(v, ST_EDIT_DIG, o->dig_x, o->dig_y, o->dig_r, err);
        if (!r && o->paint && v->frame == o->frames / 2) {
            int m = 0;
            r = paint_material(o, v->engine, &m, err);
            if (!r) r = paint(v, (float)o->paint_x + 0.5f, (float)o->paint_y + 0.5f, o->paint_r, m, 1.0f, err);
        }
        if (r) break;
        st_frame_timing timing;
        st_renderer_set_time(v->renderer, v->water_time);
        r = st_renderer_draw(v->renderer, &v->cam.camera, &timing, err);
        if (r) break;
        /* no timestamps (a CPU adapter): every GPU figure is n/a, not the 0 the timing holds */
        bool stamps = st_engine_has_gpu_timestamps(v->engine);
        double shadow_ms = st_frame_timing_pass_ms(&timing, "shadow");
        double shadow = v->desc.shadows && stamps ? shadow_ms : NAN;
        double water = st_frame_timing_pass_ms(&timing, "water-sim") + st_frame_timing_pass_ms(&timing, "water");
        ring_push(&v->method_ms, stamps ? timing.gpu_ms - shadow_ms - water : NAN);
        ring_push(&v->water_ms, stamps && v->desc.water.mode != ST_WATER_NONE ? water : NAN);
        ring_push(&v->shadow_ms, shadow);
        ring_push(&v->render_ms, timing.cpu_ms);
        float hit[3];
        bool hover = false;
        if (!scripted && !v->looking) {
            double cx, cy;
            float px, py;
            glfwGetCursorPos(v->window, &cx, &cy);
            cursor_pixels(v, cx, cy, &px, &py);
            hover = st_viewer_pick(v->level, &v->cam.camera, v->desc.width, v->desc.height, px, py, hit);
        }
        build_hud(v, hover ? hit : NULL);
        size_t overlay_count = 0;
        const st_hud_vertex *overlay = st_hud_vertices(v->hud, &overlay_count);
        r = st_presenter_present(v->presenter, v->renderer, overlay, overlay_count, &stale, err);
        if (r) break;
        ring_push(&v->present_ms, st_presenter_gpu_ms(v->presenter)); /* the previous frame's: read at its fence */
        if (o->record_dir) {
            char file[1200];
            snprintf(file, sizeof file, "%s/frame-%05llu.png", o->record_dir, (unsigned long long)v->frame);
            r = write_png(v, file, err);
            if (r) break;
        }
        if (v->screenshot) {
            v->screenshot = false;
            screenshot(v);
        }
        v->frame++;
        double frame_ms = st_time_ms() - t0;
        ring_push(&v->frame_ms, frame_ms);
        v->graph[v->graph_next] = frame_ms;
        v->graph_next = (v->graph_next + 1) % GRAPH;
        if (limit && v->frame >= limit) break;
    }
    if (!r && scripted && v->frame) r = summary(v, err);
    if (!r && o->record_dir) printf("  wrote %llu frames to %s/\n", (unsigned long long)v->frame, o->record_dir);
    if (!r && scripted && o->save_dir && st_edit_history_unsaved(v->history)) r = save_world(v, err);
    return r;
}

/* ---- headless: the same scripted frames without a window ------------------------------------------------ */
/* For machines without a display (GPU servers): the camera path (or the start view) is played at --fps for
 * --frames frames (or the whole path with --record), each frame drawn offscreen and optionally written as
 * PNG; the times are reported like the windowed run's, minus presentation. */
static int run_headless(const view_opts *o) {
    st_error err = {0};
    st_level *level = NULL;
    st_engine *engine = NULL;
    st_renderer *renderer = NULL;
    st_cam_path path = {0};
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count = 0;
    double *gpu = NULL, *cpu = NULL;
    uint8_t *rgba = NULL;
    st_camera start = o->camera;
    /* the small path file before the world, which may take seconds to generate */
    st_result r = o->path_file ? st_cam_path_load(o->path_file, &path, &err) : ST_OK;
    if (!r) r = cli_load_world_color(o->world, o->color, &level, &err);
    if (!r && !o->have_camera) {
        st_viewpoint vp;
        r = st_views_default(level, views, ST_MAX_VIEWS, &view_count, &err);
        if (!r && o->view_name) r = st_views_find(level, o->view_name, &vp, &err);
        else if (!r && view_count) vp = views[0];
        else if (!r) r = st_error_set(&err, ST_ERR_INVALID, "the world has no default views: give --camera");
        if (!r) start = st_viewpoint_camera(level, &vp);
    }
    uint64_t scripted = 0;
    if (!r) r = scripted_frames(o, &path, &scripted, &err);
    uint32_t frames = (uint32_t)scripted; /* at most MAX_FRAMES */
    if (!r && o->record_dir) r = st_make_dirs(o->record_dir, &err);
    st_engine_desc ed = {.device_index = (int)o->device, .device_given = o->device_given};
    if (!r) r = st_engine_create(&ed, &engine, &err);
    if (!r) r = st_engine_set_level(engine, level, &err);
    if (!r && o->shading == ST_SHADING_TEXTURED) r = cli_world_materials(engine, o->world, &err);
    bool own_control = !r && st_engine_control_map(engine) != NULL; /* the world brought control.ctl */
    st_edit_history *history = NULL;
    if (!r && o->paint) r = st_edit_history_create(0, &history, &err);
    cli_water water = o->water;
    if (!r) cli_water_resolve(&water, level, ST_WATER_NONE);
    st_render_desc rd = {.method = o->method, .width = o->width, .height = o->height, .shadows = !o->no_shadows,
                         .knobs.ray_steps = o->steps, .water = water.desc, .shading = o->shading};
    if (!r) r = st_renderer_create(engine, &rd, &renderer, &err);
    gpu = calloc(frames ? frames : 1, sizeof *gpu);
    cpu = calloc(frames ? frames : 1, sizeof *cpu);
    rgba = o->record_dir ? malloc((size_t)o->width * o->height * 4) : NULL;
    if (!r && (!gpu || !cpu || (o->record_dir && !rgba))) r = st_error_set(&err, ST_ERR_NOMEM, "out of memory");
    bool edited = false;
    int paint_id = 0;
    st_rect uploaded = {0}; /* the control texels the paint sent to the GPU */
    for (uint32_t i = 0; i < frames && !r; i++) {
        st_camera cam = o->path_file ? st_cam_path_at(&path, (float)i / (float)o->fps, &start) : start;
        if (o->dig && i == frames / 2) { /* as with a window: a crater as deep as its radius, before frame N/2 */
            st_rect dirty;
            r = st_level_dig(level, st_wrap(o->dig_x, (int)level->width), st_wrap(o->dig_y, (int)level->height),
                             o->dig_r, o->dig_r > 255 ? 255 : o->dig_r, &dirty, &err);
            if (!r) r = st_engine_update_level(engine, dirty, &err);
            edited = !r;
            if (r) break;
        }
        if (o->paint && i == frames / 2) { /* after the dig, as with a window; the renderer made the control map */
            int m = 0;
            st_rect dirty = {0};
            r = paint_material(o, engine, &m, &err);
            paint_id = m;
            if (!r) r = st_edit_history_paint(history, st_engine_control_map(engine), (float)o->paint_x + 0.5f,
                                              (float)o->paint_y + 0.5f, (float)o->paint_r, (uint8_t)m, 1.0f, &dirty,
                                              &err);
            if (!r && !st_rect_empty(dirty)) r = st_engine_update_control(engine, dirty, &err);
            if (r) break;
            if (!st_rect_empty(dirty)) uploaded = st_engine_control_last_upload(engine);
            edited = own_control = true;
        }
        st_frame_timing t;
        st_renderer_set_time(renderer, water.time + (double)i / (double)o->fps);
        r = st_renderer_draw(renderer, &cam, &t, &err);
        gpu[i] = t.gpu_ms;
        cpu[i] = t.cpu_ms;
        if (!r && o->record_dir) {
            char file[1100];
            snprintf(file, sizeof file, "%s/frame-%05u.png", o->record_dir, i);
            r = st_renderer_readback(renderer, rgba, NULL, &err);
            if (!r) r = st_png_write(file, o->width, o->height, 4, 8, rgba, &err);
        }
    }
    if (!r && o->screenshot) {
        uint8_t *shot = malloc((size_t)o->width * o->height * 4);
        r = shot ? st_renderer_readback(renderer, shot, NULL, &err) : st_error_set(&err, ST_ERR_NOMEM, "out of memory");
        if (!r) r = st_png_write(o->screenshot, o->width, o->height, 4, 8, shot, &err);
        free(shot);
    }
    double save_ms = 0;
    if (!r && o->save_dir && edited) { /* edits of a scripted run are saved only where --save says */
        double t0 = st_time_ms();
        r = save_world_files(engine, level, own_control, o->save_dir, &err);
        save_ms = st_time_ms() - t0;
    }
    int status = CLI_EXIT_OK;
    if (!r) {
        st_device_info dev = st_engine_device(engine);
        st_stats g = st_stats_of(gpu, frames), c = st_stats_of(cpu, frames);
        printf("strata view (headless): %s on %s, %ux%u, %u frames%s, water %s\n", o->method, dev.name, o->width,
               o->height, frames, o->path_file ? " along the path" : "", st_water_mode_name(rd.water.mode));
        if (st_engine_has_gpu_timestamps(engine))
            printf("  gpu ms: median %.3f  min %.3f  max %.3f\n", g.median, g.min, g.max);
        printf("  cpu ms: median %.3f  min %.3f  max %.3f (record + submit + wait)\n", c.median, c.min, c.max);
        if (o->record_dir) printf("  wrote %u frames to %s/\n", frames, o->record_dir);
        if (o->dig) printf("  dug a crater of radius %d at (%d, %d) before frame %u\n", o->dig_r, o->dig_x, o->dig_y,
                           frames / 2);
        if (o->paint)
            printf("  painted %s (material %d) in radius %d at (%d, %d) before frame %u: uploaded control texels "
                   "x %d..%d y %d..%d\n", st_engine_material_set(engine)->names[paint_id], paint_id, o->paint_r,
                   o->paint_x, o->paint_y, frames / 2, uploaded.x0, uploaded.x1, uploaded.y0, uploaded.y1);
        if (o->screenshot) printf("  wrote %s\n", o->screenshot);
        if (o->save_dir && edited) printf("  saved the world to %s (%.0f ms)\n", o->save_dir, save_ms);
        status = cli_validation_status("view", engine);
    } else {
        status = cli_fail("view", &err);
    }
    free(gpu);
    free(cpu);
    free(rgba);
    st_edit_history_destroy(history);
    st_renderer_destroy(renderer);
    st_engine_destroy(engine);
    st_cam_path_free(&path);
    st_level_destroy(level);
    return status;
}

int cmd_view(int argc, char **argv) {
    if (cli_is_store(cli_world_arg(argc, argv))) return cli_view_store(argc, argv);
    viewer *v = calloc(1, sizeof *v);
    if (!v) {
        fprintf(stderr, "strata view: out of memory\n");
        return CLI_EXIT_RUNTIME;
    }
    v->o = (view_opts){.world = "default", .method = "ray", .width = 1280, .height = 800, .fps = 30, .vsync = -1,
                       .shading = ST_SHADING_TEXTURED};
    int status = parse(argc, argv, &v->o);
    if (status) {
        free(v);
        return status < 0 ? CLI_EXIT_OK : status;
    }
    if (v->o.headless) {
        status = run_headless(&v->o);
        free(v);
        return status;
    }
    bool scripted = v->o.frames || v->o.record_dir;
    v->vsync = v->o.vsync >= 0 ? v->o.vsync : !scripted; /* scripted runs measure, they do not wait for vblank */
    v->hud_on = true;
    v->crater = 24;
    v->desc = (st_render_desc){.method = v->o.method, .shadows = !v->o.no_shadows, .knobs.ray_steps = v->o.steps,
                               .shading = v->o.shading};
    v->method_index = 0;
    for (size_t i = 0; i < st_method_count(); i++)
        if (!strcmp(st_method_at(i)->name, v->o.method)) v->method_index = i;
    choose_save_dir(v);
    if (!glfwInit()) {
        const char *why = NULL;
        glfwGetError(&why);
        fprintf(stderr, "strata view: cannot open a window: %s (no X server? set DISPLAY, run under xvfb-run, or "
                        "render the scripted frames offscreen with --headless)\n",
                why ? why : "GLFW failed to initialise");
        free(v);
        return CLI_EXIT_RUNTIME;
    }
    st_error err = {0};
    st_result r = glfwVulkanSupported() ? ST_OK
                                        : st_error_set(&err, ST_ERR_UNSUPPORTED, "GLFW found no Vulkan loader");
    if (!r) r = setup(v, &err);
    if (!r) r = frame_loop(v, &err);
    if (!r && v->engine) status = cli_validation_status("view", v->engine);
    if (r) status = cli_fail("view", &err);
    teardown(v);
    glfwTerminate();
    free(v);
    return status;
}

#endif
