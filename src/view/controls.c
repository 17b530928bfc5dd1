/* Camera controllers of the viewer (fly, the game's orbit camera, top-down) and scripted camera paths
 * (keyframes interpolated linearly). Pure math on st_camera: the window code only feeds input in. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/file.h"
#include "strata/view.h"

#define FLY_SPEED 60.0f      /* units per second */
#define ORBIT_PITCH -55.0f   /* the game looks down steeply */
#define ORBIT_MIN_DIST 10.0f
#define ORBIT_MAX_DIST 2000.0f
#define PATH_MAX_KEYS 100000

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

static float wrap_deg(float a) {
    a = fmodf(a, 360.0f);
    return a < 0 ? a + 360.0f : a;
}

const char *st_cam_mode_name(st_cam_mode mode) {
    switch (mode) {
    case ST_CAM_FLY: return "fly";
    case ST_CAM_ORBIT: return "orbit";
    case ST_CAM_TOPDOWN: return "top-down";
    }
    return "?";
}

void st_cam_control_init(st_cam_control *c, const st_camera *camera) {
    memset(c, 0, sizeof *c);
    c->speed = FLY_SPEED;
    c->look_deg_per_px = 0.15f;
    c->distance = 200.0f;
    st_cam_control_set(c, camera);
}

void st_cam_control_set(st_cam_control *c, const st_camera *camera) {
    c->mode = ST_CAM_FLY;
    c->camera = *camera;
}

/* The eye of the orbit camera: back from the target along the view direction. */
static void place_orbit_eye(st_cam_control *c) {
    st_view v = st_camera_view(&c->camera, 1, 1);
    for (int k = 0; k < 3; k++) c->camera.position[k] = c->target[k] - v.forward[k] * c->distance;
}

void st_cam_control_mode(st_cam_control *c, st_cam_mode mode, const float *target) {
    if (mode != ST_CAM_FLY && c->mode == ST_CAM_FLY) {
        st_view v = st_camera_view(&c->camera, 1, 1);
        float ahead = 200.0f;
        if (target) {
            float d2 = 0;
            for (int k = 0; k < 3; k++) d2 += (target[k] - v.eye[k]) * (target[k] - v.eye[k]);
            ahead = sqrtf(d2);
        }
        for (int k = 0; k < 3; k++) c->target[k] = target ? target[k] : v.eye[k] + v.forward[k] * ahead;
        c->distance = clampf(ahead, ORBIT_MIN_DIST, ORBIT_MAX_DIST);
    }
    c->mode = mode;
    if (mode == ST_CAM_ORBIT && c->camera.pitch_deg > -10.0f) c->camera.pitch_deg = ORBIT_PITCH;
    if (mode == ST_CAM_TOPDOWN) c->camera.pitch_deg = -90.0f;
    if (mode != ST_CAM_FLY) place_orbit_eye(c);
}

/* Turning the view to the right: the heading (sin yaw, cos yaw) moves toward screen right
 * (−cos yaw, sin yaw), which is d(heading)/d(−yaw): yaw decreases (camera.h's basis). */
static void look(st_cam_control *c, const float delta[2], float pitch_lo, float pitch_hi) {
    c->camera.yaw_deg = wrap_deg(c->camera.yaw_deg - delta[0] * c->look_deg_per_px);
    c->camera.pitch_deg = clampf(c->camera.pitch_deg - delta[1] * c->look_deg_per_px, pitch_lo, pitch_hi);
}

void st_cam_control_update(st_cam_control *c, const st_cam_input *in, const st_level *level) {
    float fast = in->fast ? 4.0f : 1.0f;
    if (c->mode == ST_CAM_FLY) {
        if (in->scroll != 0) c->speed = clampf(c->speed * powf(1.25f, in->scroll), 1.0f, 5000.0f);
        look(c, in->look, -90.0f, 90.0f);
        st_view v = st_camera_view(&c->camera, 1, 1);
        float step = c->speed * fast * in->dt;
        for (int k = 0; k < 3; k++)
            c->camera.position[k] += step * (in->move[0] * v.screen_right[k] + in->move[1] * v.forward[k]);
        c->camera.position[2] += step * in->move[2];
        return;
    }
    /* orbit and top-down: the wheel zooms, looking turns around the target, WASD pans on the ground */
    if (in->scroll != 0) c->distance = clampf(c->distance * powf(0.85f, in->scroll), ORBIT_MIN_DIST, ORBIT_MAX_DIST);
    if (c->mode == ST_CAM_ORBIT) look(c, in->look, -89.0f, -5.0f);
    else look(c, (float[2]){in->look[0], 0.0f}, -90.0f, -90.0f);
    double yaw = c->camera.yaw_deg * 0.017453292519943295;
    float heading[2] = {(float)sin(yaw), (float)cos(yaw)}, right[2] = {-heading[1], heading[0]};
    /* pan speed grows with the distance so the picture moves at the same rate on screen */
    float step = (0.5f * c->distance + 20.0f) * fast * in->dt;
    c->target[0] += step * (in->move[0] * right[0] + in->move[1] * heading[0]);
    c->target[1] += step * (in->move[0] * right[1] + in->move[1] * heading[1]);
    if (level) {
        /* follow the visible surface under the target, smoothed so steps in the ground do not jerk */
        st_texel t = st_level_texel(level, (int)floorf(c->target[0]), (int)floorf(c->target[1]));
        float blend = clampf(in->dt * 8.0f, 0.0f, 1.0f);
        c->target[2] += ((float)t.high - c->target[2]) * blend;
    }
    c->target[2] += 40.0f * fast * in->dt * in->move[2];
    place_orbit_eye(c);
}

/* ---- paths --------------------------------------------------------------------------------------------- */
st_result st_cam_path_parse(const char *text, st_cam_path *out, st_error *err) {
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    int line_no = 0;
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char line[512];
        line_no++;
        if (n >= sizeof line) {
            st_cam_path_free(out);
            return st_error_set(err, ST_ERR_FORMAT, "path line %d is too long", line_no);
        }
        memcpy(line, p, n);
        line[n] = 0;
        p = end ? end + 1 : p + n;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t' || *s == '\r') s++;
        if (!*s) continue;
        st_cam_key k;
        char extra;
        if (sscanf(s, "%f %f %f %f %f %f %c", &k.t, &k.x, &k.y, &k.z, &k.yaw, &k.pitch, &extra) != 6 ||
            !isfinite(k.t) || !isfinite(k.x) || !isfinite(k.y) || !isfinite(k.z) || !isfinite(k.yaw) ||
            !isfinite(k.pitch)) {
            st_cam_path_free(out);
            return st_error_set(err, ST_ERR_FORMAT, "path line %d: want 't x y z yaw pitch' (six numbers)", line_no);
        }
        if (k.pitch < -90.0f || k.pitch > 90.0f || k.t < 0 || k.t > ST_CAM_PATH_MAX_SECONDS) {
            st_cam_path_free(out);
            return st_error_set(err, ST_ERR_FORMAT, "path line %d: t must be 0..%g s and pitch in -90..90", line_no,
                                (double)ST_CAM_PATH_MAX_SECONDS);
        }
        if (fabsf(k.x) > (float)ST_CAMERA_MAX_COORD || fabsf(k.y) > (float)ST_CAMERA_MAX_COORD ||
            fabsf(k.z) > (float)ST_CAMERA_MAX_COORD || fabsf(k.yaw) > (float)ST_CAMERA_MAX_YAW) {
            st_cam_path_free(out);
            return st_error_set(err, ST_ERR_FORMAT, "path line %d: positions must be within %g and yaw in -%g..%g",
                                line_no, ST_CAMERA_MAX_COORD, ST_CAMERA_MAX_YAW, ST_CAMERA_MAX_YAW);
        }
        if (out->count && k.t <= out->keys[out->count - 1].t) {
            st_cam_path_free(out);
            return st_error_set(err, ST_ERR_FORMAT, "path line %d: t %.3f does not increase", line_no, (double)k.t);
        }
        if (out->count == PATH_MAX_KEYS) {
            st_cam_path_free(out);
            return st_error_set(err, ST_ERR_FORMAT, "path has more than %d keyframes", PATH_MAX_KEYS);
        }
        if (out->count == cap) {
            cap = cap ? 2 * cap : 16;
            st_cam_key *grown = realloc(out->keys, cap * sizeof *grown);
            if (!grown) {
                st_cam_path_free(out);
                return st_error_set(err, ST_ERR_NOMEM, "out of memory");
            }
            out->keys = grown;
        }
        out->keys[out->count++] = k;
    }
    if (!out->count) return st_error_set(err, ST_ERR_FORMAT, "path has no keyframes");
    return ST_OK;
}

st_result st_cam_path_load(const char *file, st_cam_path *out, st_error *err) {
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0;
    st_result r = st_file_read_all(file, 16u << 20, &data, &size, err);
    if (r) return r;
    char *text = realloc(data, size + 1);
    if (!text) {
        free(data);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    text[size] = 0;
    if (strlen(text) != size) r = st_error_set(err, ST_ERR_FORMAT, "%s: not a text file", file);
    if (!r && st_cam_path_parse(text, out, err)) r = st_error_prefix(err, "%s", file);
    free(text);
    return r;
}

void st_cam_path_free(st_cam_path *path) {
    free(path->keys);
    memset(path, 0, sizeof *path);
}

float st_cam_path_duration(const st_cam_path *path) { return path->count ? path->keys[path->count - 1].t : 0.0f; }

st_camera st_cam_path_at(const st_cam_path *path, float t, const st_camera *base) {
    st_camera cam = {0};
    if (base) cam = *base;
    if (!path->count) return cam;
    size_t i = 0;
    while (i + 1 < path->count && path->keys[i + 1].t <= t) i++;
    const st_cam_key *a = &path->keys[i], *b = i + 1 < path->count ? &path->keys[i + 1] : a;
    float s = b->t > a->t ? clampf((t - a->t) / (b->t - a->t), 0.0f, 1.0f) : 0.0f;
    cam.position[0] = a->x + (b->x - a->x) * s;
    cam.position[1] = a->y + (b->y - a->y) * s;
    cam.position[2] = a->z + (b->z - a->z) * s;
    float dyaw = fmodf(b->yaw - a->yaw, 360.0f); /* the shorter arc */
    if (dyaw > 180.0f) dyaw -= 360.0f;
    if (dyaw < -180.0f) dyaw += 360.0f;
    cam.yaw_deg = wrap_deg(a->yaw + dyaw * s);
    cam.pitch_deg = a->pitch + (b->pitch - a->pitch) * s;
    return cam;
}
