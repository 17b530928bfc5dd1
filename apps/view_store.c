/* strata view --world STORE: a DEM tile store live in a window (or headless) with a store method, the default
 * views on F1-F12, the fly camera (its eye kept in double precision: the controller moves it relative to the
 * view's origin), a HUD with frame times, the level of detail and the residency, and scripted frames. */
#include <ctype.h>
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

static void usage(void) {
    printf("usage: strata view --world STORE [--method M] [--view NAME | --camera x,y,z,yaw,pitch] [--size WxH]\n"
           "                   [--frames N] [--screenshot FILE] [--headless] [--far M] [--tau PX] [--skirts]\n"
           "                   [--wireframe] [--lod-grid N] [--gpu-slots N] [--slow-load MS] [--vsync on|off]\n"
           "                   [--no-shadows] [--device N] [--keys KEYS]\n\n"
           "Shows a DEM tile store live with %s. Keys: WASD move, Q/E down/up, Shift faster, wheel speed,\n"
           "right mouse button held: look; F1-F12 the store's default views; ] and [ double and halve τ; F freezes\n"
           "the level of detail and culling where the camera is (fly out to see the rings); X wireframe coloured by\n"
           "level; K skirts; H shadows; I the HUD (level of detail, residency: resident / queued / loading /\n"
           "evictable / evictions / upload ms); Esc quit.\n"
           "With --frames N it runs N frames and exits, printing a summary; --headless draws them offscreen.\n"
           "--keys KEYS presses keys before the first frame (] [ f x k h i), e.g. --keys ']]fk'.\n",
           cli_store_methods_list());
}

typedef struct sview {
    const char *world, *method, *view_name, *screenshot, *keys;
    st_camera camera;
    bool have_camera, headless, no_shadows, wireframe, device_given;
    uint32_t width, height, frames, device;
    int vsync;
    double far;
    cli_store_opts so;
} sview;

static int parse(int argc, char **argv, sview *o) {
    static const struct option opts[] = {
        {"world", required_argument, 0, 'w'},      {"method", required_argument, 0, 'm'},
        {"view", required_argument, 0, 'v'},       {"camera", required_argument, 0, 'c'},
        {"size", required_argument, 0, 's'},       {"frames", required_argument, 0, 'f'},
        {"screenshot", required_argument, 0, 'o'}, {"headless", no_argument, 0, 'L'},
        {"far", required_argument, 0, 'F'},        {"wireframe", no_argument, 0, 'W'},
        {"vsync", required_argument, 0, 'y'},      {"no-shadows", no_argument, 0, 'H'},
        {"device", required_argument, 0, 'D'},     {"help", no_argument, 0, 'h'},
        {"keys", required_argument, 0, 'K'},
        CLI_STORE_OPTIONS,                         {0, 0, 0, 0}};
    cli_getopt_reset();
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        int status;
        if (cli_store_option(&o->so, "view", c, optarg, &status)) {
            if (status) return status;
            continue;
        }
        switch (c) {
        case 'w': o->world = optarg; break;
        case 'm': o->method = optarg; break;
        case 'v': o->view_name = optarg; break;
        case 'c':
            if (!st_camera_parse_precise(optarg, &o->camera))
                return cli_usage_error("view", "malformed or out-of-range camera '%s' (want x,y,z,yaw,pitch: "
                                       "positions within 1e8 m, yaw -360..360, pitch -90..90)", optarg);
            o->have_camera = true;
            break;
        case 's':
            if (!cli_parse_size(optarg, &o->width, &o->height) || o->width > 16384 || o->height > 16384)
                return cli_usage_error("view", "bad size '%s' (want WxH, each 1..16384)", optarg);
            break;
        case 'f':
            if (!cli_parse_uint(optarg, 1, 1000000, &o->frames)) return cli_usage_error("view", "bad frame count '%s'", optarg);
            break;
        case 'o': o->screenshot = optarg; break;
        case 'L': o->headless = true; break;
        case 'F':
            if (!cli_parse_double(optarg, 2, 1e7, &o->far)) return cli_usage_error("view", "bad --far '%s' (metres)", optarg);
            break;
        case 'W': o->wireframe = true; break;
        case 'y':
            if (strcmp(optarg, "on") && strcmp(optarg, "off")) return cli_usage_error("view", "--vsync takes on or off");
            o->vsync = !strcmp(optarg, "on");
            break;
        case 'H': o->no_shadows = true; break;
        case 'D':
            if (!cli_parse_uint(optarg, 0, 64, &o->device)) return cli_usage_error("view", "bad device index '%s'", optarg);
            o->device_given = true;
            break;
        case 'K': {
            st_store_view_key k;
            for (const char *ch = optarg; *ch; ch++)
                if (!st_store_view_key_of(*ch, &k))
                    return isprint((unsigned char)*ch)
                               ? cli_usage_error("view", "--keys: '%c' is no key (] [ f x k h i)", *ch)
                               : cli_usage_error("view", "--keys: character 0x%02x is no key (] [ f x k h i)",
                                                 (unsigned char)*ch);
            o->keys = optarg;
            break;
        }
        case 'h': usage(); return -1;
        case ':': return cli_usage_error("view", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("view", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error("view", "unexpected argument '%s'", argv[optind]);
    int st = cli_store_method_check("view", o->method, o->world);
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
                         .wireframe = st->wireframe, .freeze_culling = st->freeze};
    cli_store_knobs(&o->so, &rd.knobs);
    rd.knobs.tau_px = st->tau_px;
    rd.knobs.skirts = st->skirts;
    return rd;
}

static void summary(const char *mode, const sview *o, const st_store_view_state *st, st_engine *e, st_renderer *r,
                    uint32_t frames, double *gpu, double *cpu) {
    st_device_info dev = st_engine_device(e);
    st_stats g = st_stats_of(gpu, frames), c = st_stats_of(cpu, frames);
    printf("strata view%s: %s on %s, %ux%u, %u frames, world %s\n", mode, o->method, dev.name, o->width, o->height,
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
}

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
    st_render_desc rd = render_desc(o, &st, o->width, o->height);
    if (!r) r = st_renderer_create(engine, &rd, &renderer, &err);
    for (uint32_t i = 0; i < o->frames && !r; i++) {
        st_frame_timing t;
        r = st_renderer_draw(renderer, &cam, &t, &err);
        gpu[i] = t.gpu_ms, cpu[i] = t.cpu_ms;
    }
    if (!r && o->screenshot) {
        uint8_t *shot = malloc((size_t)o->width * o->height * 4);
        r = shot ? st_renderer_readback(renderer, shot, NULL, &err) : st_error_set(&err, ST_ERR_NOMEM, "out of memory");
        if (!r) r = st_png_write(o->screenshot, o->width, o->height, 4, 8, shot, &err);
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
    sview o = {.method = "cdlod", .width = 1280, .height = 800, .vsync = -1};
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
    sview o = {.method = "cdlod", .width = 1280, .height = 800, .vsync = -1};
    int status = parse(argc, argv, &o);
    if (status) return status < 0 ? CLI_EXIT_OK : status;
    if (o.headless) return run_headless(&o);
    if (!glfwInit()) {
        fprintf(stderr, "strata view: cannot open a window (no X server? run under xvfb-run or set DISPLAY)\n");
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
        window = glfwCreateWindow((int)o.width, (int)o.height, "strata view", NULL, NULL);
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
        o.width = (uint32_t)(fw > 0 ? fw : (int)o.width), o.height = (uint32_t)(fh > 0 ? fh : (int)o.height);
        bool scripted = o.frames > 0;
        st_presenter_desc pd = {.create_surface = create_surface, .user = window, .width = o.width,
                                .height = o.height, .vsync = o.vsync >= 0 ? o.vsync != 0 : !scripted};
        r = st_presenter_create(engine, &pd, &presenter, &err);
    }
    if (!r) r = st_hud_create(&hud, &err);
    st_render_desc rd = render_desc(&o, &st, o.width, o.height);
    if (!r) r = st_renderer_create(engine, &rd, &renderer, &err);
    st_cam_control cam;
    st_cam_control_init(&cam, &start);
    /* metres: a speed that crosses the view's height in a second or two */
    cam.speed = fmaxf(50.0f, (float)(start.origin[2] - st_store_get_info(store)->min_m) * 0.5f);
    double *gpu = calloc(o.frames ? o.frames : 1, sizeof *gpu), *cpu = calloc(o.frames ? o.frames : 1, sizeof *cpu);
    uint32_t frame = 0;
    double last = st_time_ms();
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
            rd = render_desc(&o, &st, o.width, o.height);
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
        uint8_t *shot = malloc((size_t)o.width * o.height * 4);
        r = shot ? st_renderer_readback(renderer, shot, NULL, &err) : st_error_set(&err, ST_ERR_NOMEM, "out of memory");
        if (!r) r = st_png_write(o.screenshot, o.width, o.height, 4, 8, shot, &err);
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
