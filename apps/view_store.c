/* strata view --world STORE: a DEM tile store live in a window (or headless) with a store method, the default
 * views on F1-F12, the fly camera (its eye kept in double precision: the controller moves it relative to the
 * view's origin), a HUD with frame times, the level of detail and the residency, and scripted frames. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store_cli.h"
#include "strata/image.h"
#include "strata/present.h"
#include "strata/view.h"
#include "strata/views.h"

#if STRATA_HAVE_GLFW
#include <GLFW/glfw3.h>
#endif

typedef struct sview {
    const char *world, *method, *view_name, *screenshot, *keys;
    st_camera camera;
    bool have_camera, headless, no_shadows, wireframe, device_given;
    uint32_t size[2], frames, device;
    int vsync;
    double far;
    cli_store_opts so;
    cli_water water;
} sview;

static void usage(const cli_opt *opts, size_t count) {
    printf("usage: strata view --world STORE [--method M] [--view NAME | --camera x,y,z,yaw,pitch] [--size WxH]\n"
           "                   [--frames N] [--screenshot FILE] [--headless] [--far M] [--tau PX] [--skirts]\n"
           "                   [--wireframe] [--lod-grid N] [--gpu-slots N] [--slow-load MS] [--vsync on|off]\n"
           "                   [--no-shadows] [--device N] [--keys KEYS] [--water M] [--wind S[,D]] [--time T]\n\n"
           "Shows a DEM tile store live with %s. Keys: WASD move, Q/E down/up, Shift faster, wheel speed,\n"
           "right mouse button held: look; F1-F12 the store's default views; ] and [ double and halve τ; F freezes\n"
           "the level of detail and culling where the camera is (fly out to see the rings); X wireframe coloured by\n"
           "level; K skirts; H shadows; I the HUD (level of detail, residency: resident / queued / loading /\n"
           "evictable / evictions / upload ms); Esc quit.\n"
           "With --frames N it runs N frames and exits, printing a summary; --headless draws them offscreen.\n"
           "--keys KEYS presses keys before the first frame (] [ f x k h i), e.g. --keys ']]fk'.\n"
           "The water is the ocean where the DEM reaches its sea level (as strata render --world STORE draws it);\n"
           "its time runs with the clock from --time (1/60 s a frame in scripted runs).\n\noptions:\n",
           cli_store_methods_list());
    cli_options_usage(opts, count);
}

static bool parse_camera(const char *value, void *camera) { return st_camera_parse_precise(value, camera); }
static bool parse_vsync(const char *value, void *target) {
    if (strcmp(value, "on") && strcmp(value, "off")) return false;
    *(int *)target = !strcmp(value, "on");
    return true;
}
/* --keys: every character one of the viewer's switches */
static bool parse_keys(const char *value, void *target) {
    st_store_view_key k;
    for (const char *ch = value; *ch; ch++)
        if (!st_store_view_key_of(*ch, &k)) return false;
    *(const char **)target = value;
    return true;
}

static int parse(int argc, char **argv, sview *o) {
    const cli_opt own[] = {
        {.name = "world", .kind = CLI_OPT_STRING, .target = &o->world, .arg = "STORE", .help = "the DEM tile store"},
        {.name = "method", .kind = CLI_OPT_STRING, .target = &o->method, .arg = "M",
         .help = "the store method (default cdlod)"},
        {.name = "view", .kind = CLI_OPT_STRING, .target = &o->view_name, .arg = "NAME",
         .help = "one of the store's default views (default the first)"},
        {.name = "camera", .kind = CLI_OPT_PARSE, .target = &o->camera, .given = &o->have_camera,
         .parse = parse_camera, .arg = "C",
         .bad = "malformed or out-of-range camera '%s' (want x,y,z,yaw,pitch: positions within 1e8 m, yaw -360..360, "
                "pitch -90..90)",
         .help = "eye position (metres) and angles x,y,z,yaw,pitch"},
        CLI_OPT_SIZE_WH(o->size, 16384, "window size (default 1280x800)"),
        CLI_OPT_FRAMES(&o->frames, 1000000, "run N frames and exit, printing a summary"),
        {.name = "screenshot", .kind = CLI_OPT_STRING, .target = &o->screenshot, .arg = "FILE",
         .help = "with --frames: write the last frame as a PNG"},
        {.name = "headless", .kind = CLI_OPT_FLAG, .target = &o->headless,
         .help = "no window: draw the --frames offscreen"},
        {.name = "far", .kind = CLI_OPT_DOUBLE, .target = &o->far, .min = 2, .max = 1e7, .arg = "M",
         .bad = "bad --far '%s' (metres)", .help = "far distance in metres (default the store's)"},
        {.name = "wireframe", .kind = CLI_OPT_FLAG, .target = &o->wireframe, .help = "start in wireframe"},
        {.name = "vsync", .kind = CLI_OPT_PARSE, .target = &o->vsync, .parse = parse_vsync, .arg = "on|off",
         .bad = "--vsync takes on or off, not '%s'", .help = "FIFO presentation (default on; off with --frames)"},
        CLI_OPT_NO_SHADOWS(&o->no_shadows),
        CLI_OPT_DEVICE(&o->device, &o->device_given),
        {.name = "keys", .kind = CLI_OPT_PARSE, .target = &o->keys, .parse = parse_keys, .arg = "KEYS",
         .bad = "--keys: '%s' holds a character that is no key (] [ f x k h i)",
         .help = "keys pressed before the first frame"},
    };
    cli_opt opts[CLI_OPTS_COUNT(own) + CLI_STORE_OPTION_COUNT + CLI_WATER_OPTION_COUNT];
    memcpy(opts, own, sizeof own);
    size_t count = CLI_OPTS_COUNT(own);
    count += cli_store_table(&o->so, opts + count);
    count += cli_water_table(&o->water, opts + count);
    bool help = false;
    int parsed = cli_options_parse("view", argc, argv, opts, count, 0, NULL, &help);
    if (help) usage(opts, count);
    if (parsed || help) return help ? -1 : parsed;
    int st = cli_store_method_check("view", o->method, o->world);
    if (!st) st = cli_store_select_check("view", o->method, &o->so);
    if (st) return st;
    if (o->view_name && o->have_camera) return cli_usage_error("view", "give --view or --camera, not both");
    if (o->screenshot && !o->frames) return cli_usage_error("view", "--screenshot needs --frames N");
    if (o->screenshot && cli_check_output_file("view", o->screenshot)) return CLI_EXIT_USAGE;
    if (o->headless && !o->frames) return cli_usage_error("view", "--headless needs --frames N");
    return CLI_EXIT_OK;
}

/* The store, the engine, the views and the start camera. */
static st_result open_world(sview *o, bool present, const char *const *ext, uint32_t n_ext, st_store **store,
                            st_engine **engine, st_viewpoint *views, size_t *view_count, st_camera *start,
                            st_error *err) {
    st_result r = st_store_open(o->world, store, err);
    if (!r) r = st_store_views_default(*store, views, ST_MAX_VIEWS, view_count, err);
    *start = o->camera;
    if (!r && !o->have_camera) {
        st_viewpoint vp = views[0];
        if (o->view_name) r = st_store_views_find(*store, o->view_name, &vp, err);
        if (!r) r = st_store_view_camera(*store, &vp, start, err);
    }
    if (r) return r;
    start->far_dist = (float)(o->far > 0 ? o->far : st_store_far(*store));
    if (!start->fovy_deg) start->fovy_deg = ST_DEFAULT_FOVY_DEG;
    st_engine_desc ed = {.device_index = (int)o->device, .device_given = o->device_given,
                         .instance_extensions = ext, .instance_extension_count = n_ext, .present = present};
    r = st_engine_create(&ed, engine, err);
    st_world_desc wd = {.gpu_slots = o->so.gpu_slots, .slow_load_ms = o->so.slow_load_ms};
    if (!r) r = st_engine_set_store(*engine, *store, &wd, err);
    /* the ocean where the DEM reaches its sea level (or below), unless --water says otherwise (as render does) */
    if (!r && !o->water.mode_given) {
        const st_store_info *in = st_store_get_info(*store);
        o->water.desc.mode = in->min_m <= in->sea_level_m ? ST_WATER_OCEAN : ST_WATER_NONE;
    }
    return r;
}

/* The switches at the start: the options, then --keys. */
static st_store_view_state start_state(const sview *o) {
    st_store_view_state st = {.tau_px = o->so.tau_px > 0 ? o->so.tau_px : 1.0f, .wireframe = o->wireframe,
                              .skirts = o->so.skirts, .shadows = !o->no_shadows, .hud = true};
    st_store_view_key k;
    for (const char *c = o->keys ? o->keys : ""; *c; c++)
        if (st_store_view_key_of(*c, &k)) st_store_view_apply(&st, k);
    return st;
}

static st_render_desc render_desc(const sview *o, const st_store_view_state *st, uint32_t w, uint32_t h) {
    st_render_desc rd = {.method = o->method, .width = w, .height = h, .shadows = st->shadows,
                         .wireframe = st->wireframe, .freeze_culling = st->freeze, .water = o->water.desc};
    cli_store_knobs(&o->so, &rd.knobs);
    rd.knobs.tau_px = st->tau_px;
    rd.knobs.skirts = st->skirts;
    return rd;
}

static void summary(const char *mode, const sview *o, const st_store_view_state *st, st_engine *e, st_renderer *r,
                    uint32_t frames, double *gpu, double *cpu) {
    st_device_info dev = st_engine_device(e);
    st_stats g = st_stats_of(gpu, frames), c = st_stats_of(cpu, frames);
    printf("strata view%s: %s on %s, %ux%u, %u frames, world %s\n", mode, o->method, dev.name, o->size[0], o->size[1],
           frames, o->world);
    printf("  tau %g px, LOD %s, wireframe %s, skirts %s, shadows %s\n", (double)st->tau_px,
           st->freeze ? "frozen" : "live", st->wireframe ? "on" : "off", st->skirts ? "on" : "off",
           st->shadows ? "on" : "off");
    if (st_engine_has_gpu_timestamps(e)) printf("  gpu ms: median %.3f  min %.3f  max %.3f\n", g.median, g.min, g.max);
    printf("  cpu ms: median %.3f  min %.3f  max %.3f (record + submit + wait)\n", c.median, c.min, c.max);
    st_lod_frame_stats lod;
    if (st_renderer_lod_stats(r, &lod)) cli_print_lod(&lod);
    st_world_stats ws;
    if (!st_engine_world_stats(e, &ws, NULL)) cli_print_world(&ws);
    if (st_renderer_water(r))
        printf("  water: %s (drawn in %s) at sea level %.2f m, from t = %.3f s\n", st_water_mode_name(o->water.desc.mode),
               o->water.desc.draw == ST_WATER_DRAW_RASTER ? "the raster pipeline" : "compute",
               st_water_get_desc(st_renderer_water(r))->level, o->water.time);
}

/* Scripted frames move the water's clock by a fixed step, so they are reproducible. */
#define SCRIPTED_DT (1.0 / 60.0)

static int run_headless(sview *o) {
    st_error err = {0};
    st_store *store = NULL;
    st_engine *engine = NULL;
    st_renderer *renderer = NULL;
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count = 0;
    st_camera cam;
    double *gpu = calloc(o->frames, sizeof *gpu), *cpu = calloc(o->frames, sizeof *cpu);
    st_result r = gpu && cpu ? ST_OK : st_error_set(&err, ST_ERR_NOMEM, "out of memory");
    if (!r) r = open_world(o, false, NULL, 0, &store, &engine, views, &view_count, &cam, &err);
    st_store_view_state st = start_state(o);
    st_render_desc rd = render_desc(o, &st, o->size[0], o->size[1]);
    if (!r) r = st_renderer_create(engine, &rd, &renderer, &err);
    for (uint32_t i = 0; i < o->frames && !r; i++) {
        st_frame_timing t;
        st_renderer_set_time(renderer, o->water.time + i * SCRIPTED_DT);
        r = st_renderer_draw(renderer, &cam, &t, &err);
        gpu[i] = t.gpu_ms, cpu[i] = t.cpu_ms;
    }
    if (!r && o->screenshot) {
        uint8_t *shot = malloc((size_t)o->size[0] * o->size[1] * 4);
        r = shot ? st_renderer_readback(renderer, shot, NULL, &err) : st_error_set(&err, ST_ERR_NOMEM, "out of memory");
        if (!r) r = st_png_write(o->screenshot, o->size[0], o->size[1], 4, 8, shot, &err);
        free(shot);
    }
    int status;
    if (!r) {
        summary(" (headless)", o, &st, engine, renderer, o->frames, gpu, cpu);
        if (o->screenshot) printf("  wrote %s\n", o->screenshot);
        status = cli_validation_status("view", engine);
    } else {
        status = cli_fail("view", &err);
    }
    free(gpu);
    free(cpu);
    st_renderer_destroy(renderer);
    st_engine_destroy(engine);
    st_store_close(store);
    return status;
}

#if !STRATA_HAVE_GLFW

int cli_view_store(int argc, char **argv) {
    sview o = {.method = "cdlod", .size = {1280, 800}, .vsync = -1};
    int status = parse(argc, argv, &o);
    if (status) return status < 0 ? CLI_EXIT_OK : status;
    if (o.headless) return run_headless(&o);
    fprintf(stderr, "strata view: this build has no window support (install libglfw3-dev and rebuild)\n");
    return CLI_EXIT_RUNTIME;
}

#else

#define MAX_PENDING 16

typedef struct window_state {
    float look[2], scroll;
    bool looking;
    double last_x, last_y;
    int jump; /* a default view asked for by F1-F12, −1 none */
    st_store_view_key pending[MAX_PENDING]; /* switches pressed since the last frame */
    int pending_count;
} window_state;

static void press(window_state *s, st_store_view_key k) {
    if (s->pending_count < MAX_PENDING) s->pending[s->pending_count++] = k;
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode, (void)mods;
    window_state *s = glfwGetWindowUserPointer(w);
    if (action != GLFW_PRESS) return;
    if (key == GLFW_KEY_ESCAPE) glfwSetWindowShouldClose(w, GLFW_TRUE);
    else if (key >= GLFW_KEY_F1 && key <= GLFW_KEY_F12) s->jump = key - GLFW_KEY_F1;
    else if (key == GLFW_KEY_I) press(s, ST_STORE_KEY_HUD);
    else if (key == GLFW_KEY_X) press(s, ST_STORE_KEY_WIREFRAME);
    else if (key == GLFW_KEY_H) press(s, ST_STORE_KEY_SHADOWS);
    else if (key == GLFW_KEY_K) press(s, ST_STORE_KEY_SKIRTS);
    else if (key == GLFW_KEY_F) press(s, ST_STORE_KEY_FREEZE);
    else if (key == GLFW_KEY_RIGHT_BRACKET || key == GLFW_KEY_KP_ADD) press(s, ST_STORE_KEY_TAU_UP);
    else if (key == GLFW_KEY_LEFT_BRACKET || key == GLFW_KEY_KP_SUBTRACT) press(s, ST_STORE_KEY_TAU_DOWN);
}

static void on_mouse_button(GLFWwindow *w, int button, int action, int mods) {
    (void)mods;
    window_state *s = glfwGetWindowUserPointer(w);
    if (button != GLFW_MOUSE_BUTTON_RIGHT) return;
    s->looking = action == GLFW_PRESS;
    glfwSetInputMode(w, GLFW_CURSOR, s->looking ? GLFW_CURSOR_DISABLED : GLFW_CURSOR_NORMAL);
    glfwGetCursorPos(w, &s->last_x, &s->last_y);
}

static void on_cursor(GLFWwindow *w, double x, double y) {
    window_state *s = glfwGetWindowUserPointer(w);
    if (s->looking) s->look[0] += (float)(x - s->last_x), s->look[1] += (float)(y - s->last_y);
    s->last_x = x, s->last_y = y;
}

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    ((window_state *)glfwGetWindowUserPointer(w))->scroll += (float)dy;
}

static VkResult create_surface(VkInstance instance, void *user, VkSurfaceKHR *surface) {
    return glfwCreateWindowSurface(instance, (GLFWwindow *)user, NULL, surface);
}

static const uint8_t WHITE[4] = {235, 235, 235, 255}, BACK[4] = {0, 0, 0, 150};

static void build_hud(st_hud *hud, const sview *o, const st_store_view_state *st, st_engine *e, st_renderer *r,
                      const st_camera *cam, double frame_ms) {
    st_hud_clear(hud);
    st_lod_frame_stats lod = {0};
    st_world_stats ws = {0};
    st_renderer_lod_stats(r, &lod);
    st_engine_world_stats(e, &ws, NULL);
    double eye[3];
    st_camera_eye(cam, eye);
    char text[1024];
    st_store_view_hud_text(st, o->method, &lod, &ws, eye, cam->yaw_deg, cam->pitch_deg, frame_ms, text, sizeof text);
    float tw, th;
    st_hud_measure(text, 2, &tw, &th);
    st_hud_rect(hud, 6, 6, tw + 12, th + 12, BACK);
    st_hud_text(hud, 12, 12, 2, WHITE, text);
}

int cli_view_store(int argc, char **argv) {
    sview o = {.method = "cdlod", .size = {1280, 800}, .vsync = -1};
    int status = parse(argc, argv, &o);
    if (status) return status < 0 ? CLI_EXIT_OK : status;
    if (o.headless) return run_headless(&o);
    if (!glfwInit()) {
        const char *why = NULL;
        glfwGetError(&why);
        fprintf(stderr, "strata view: cannot open a window: %s (no X server? set DISPLAY, run under xvfb-run, or "
                        "render the scripted frames offscreen with --headless)\n",
                why ? why : "GLFW failed to initialise");
        return CLI_EXIT_RUNTIME;
    }
    st_error err = {0};
    st_store *store = NULL;
    st_engine *engine = NULL;
    st_presenter *presenter = NULL;
    st_renderer *renderer = NULL;
    st_hud *hud = NULL;
    GLFWwindow *window = NULL;
    st_viewpoint views[ST_MAX_VIEWS];
    size_t view_count = 0;
    st_camera start;
    window_state ws = {.jump = -1};
    st_store_view_state st = start_state(&o);
    uint32_t n_ext = 0;
    const char **ext = glfwVulkanSupported() ? glfwGetRequiredInstanceExtensions(&n_ext) : NULL;
    st_result r = ext ? ST_OK : st_error_set(&err, ST_ERR_UNSUPPORTED, "GLFW found no Vulkan window-system support");
    if (!r) r = open_world(&o, true, ext, n_ext, &store, &engine, views, &view_count, &start, &err);
    if (!r) {
        glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
        window = glfwCreateWindow((int)o.size[0], (int)o.size[1], "strata view", NULL, NULL);
        if (!window) r = st_error_set(&err, ST_ERR_UNSUPPORTED, "cannot open a window");
    }
    if (!r) {
        glfwSetWindowUserPointer(window, &ws);
        glfwSetKeyCallback(window, on_key);
        glfwSetMouseButtonCallback(window, on_mouse_button);
        glfwSetCursorPosCallback(window, on_cursor);
        glfwSetScrollCallback(window, on_scroll);
        int fw, fh;
        glfwGetFramebufferSize(window, &fw, &fh);
        o.size[0] = (uint32_t)(fw > 0 ? fw : (int)o.size[0]), o.size[1] = (uint32_t)(fh > 0 ? fh : (int)o.size[1]);
        bool scripted = o.frames > 0;
        st_presenter_desc pd = {.create_surface = create_surface, .user = window, .width = o.size[0],
                                .height = o.size[1], .vsync = o.vsync >= 0 ? o.vsync != 0 : !scripted};
        r = st_presenter_create(engine, &pd, &presenter, &err);
    }
    if (!r) r = st_hud_create(&hud, &err);
    st_render_desc rd = render_desc(&o, &st, o.size[0], o.size[1]);
    if (!r) r = st_renderer_create(engine, &rd, &renderer, &err);
    st_cam_control cam;
    st_cam_control_init(&cam, &start);
    /* metres: a speed that crosses the view's height in a second or two */
    cam.speed = fmaxf(50.0f, (float)(start.origin[2] - st_store_get_info(store)->min_m) * 0.5f);
    double *gpu = calloc(o.frames ? o.frames : 1, sizeof *gpu), *cpu = calloc(o.frames ? o.frames : 1, sizeof *cpu);
    uint32_t frame = 0;
    double last = st_time_ms(), water_t = o.water.time;
    while (!r && !glfwWindowShouldClose(window)) {
        double t0 = st_time_ms();
        glfwPollEvents();
        if (ws.jump >= 0 && (size_t)ws.jump < view_count) {
            st_camera c;
            if (!st_store_view_camera(store, &views[ws.jump], &c, &err)) {
                c.far_dist = start.far_dist;
                st_cam_control_set(&cam, &c);
            }
        }
        ws.jump = -1;
        bool rebuild = false;
        for (int k = 0; k < ws.pending_count; k++) rebuild |= st_store_view_apply(&st, ws.pending[k]);
        ws.pending_count = 0;
        if (rebuild) { /* a new renderer with the switches; freezing takes the camera of its first frame */
            rd = render_desc(&o, &st, o.size[0], o.size[1]);
            st_renderer_destroy(renderer);
            renderer = NULL;
            r = st_renderer_create(engine, &rd, &renderer, &err);
            if (r) break;
        }
        float dt = (float)((t0 - last) * 1e-3);
        last = t0;
        st_cam_input in = {.dt = dt > 0.25f ? 0.25f : dt, .scroll = ws.scroll, .look = {ws.look[0], ws.look[1]}};
        ws.scroll = ws.look[0] = ws.look[1] = 0;
        in.move[0] = (float)(glfwGetKey(window, GLFW_KEY_D) == GLFW_PRESS) - (float)(glfwGetKey(window, GLFW_KEY_A) == GLFW_PRESS);
        in.move[1] = (float)(glfwGetKey(window, GLFW_KEY_W) == GLFW_PRESS) - (float)(glfwGetKey(window, GLFW_KEY_S) == GLFW_PRESS);
        in.move[2] = (float)(glfwGetKey(window, GLFW_KEY_E) == GLFW_PRESS) - (float)(glfwGetKey(window, GLFW_KEY_Q) == GLFW_PRESS);
        in.fast = glfwGetKey(window, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS;
        st_cam_control_update(&cam, &in, NULL);
        st_frame_timing t;
        st_renderer_set_time(renderer, water_t);
        water_t += o.frames ? SCRIPTED_DT : (double)in.dt;
        r = st_renderer_draw(renderer, &cam.camera, &t, &err);
        if (r) break;
        if (o.frames) gpu[frame] = t.gpu_ms, cpu[frame] = t.cpu_ms;
        if (st.hud) build_hud(hud, &o, &st, engine, renderer, &cam.camera, st_time_ms() - t0);
        else st_hud_clear(hud);
        bool stale = false;
        size_t overlay_count = 0;
        const st_hud_vertex *overlay = st_hud_vertices(hud, &overlay_count);
        r = st_presenter_present(presenter, renderer, overlay, overlay_count, &stale, &err);
        if (!r && stale) {
            int fw, fh;
            glfwGetFramebufferSize(window, &fw, &fh);
            if (fw > 0 && fh > 0) r = st_presenter_resize(presenter, (uint32_t)fw, (uint32_t)fh, false, &err);
        }
        frame++;
        if (o.frames && frame >= o.frames) break;
    }
    if (!r && o.frames && o.screenshot) {
        uint8_t *shot = malloc((size_t)o.size[0] * o.size[1] * 4);
        r = shot ? st_renderer_readback(renderer, shot, NULL, &err) : st_error_set(&err, ST_ERR_NOMEM, "out of memory");
        if (!r) r = st_png_write(o.screenshot, o.size[0], o.size[1], 4, 8, shot, &err);
        free(shot);
    }
    if (!r && o.frames) summary("", &o, &st, engine, renderer, frame, gpu, cpu);
    status = r ? cli_fail("view", &err) : engine ? cli_validation_status("view", engine) : CLI_EXIT_OK;
    free(gpu);
    free(cpu);
    st_renderer_destroy(renderer);
    st_presenter_destroy(presenter);
    st_engine_destroy(engine);
    if (window) glfwDestroyWindow(window);
    st_hud_destroy(hud);
    st_store_close(store);
    glfwTerminate();
    return status;
}

#endif
