/* The camera: basis from the flat heading, pixel rays, reverse-Z depth conversions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "strata/camera.h"

#define DEG2RAD 0.017453292519943295

st_view st_camera_view(const st_camera *cam, uint32_t width, uint32_t height) {
    st_view v = {0};
    double yaw = cam->yaw_deg * DEG2RAD, pitch = cam->pitch_deg * DEG2RAD;
    double fovy = (cam->fovy_deg > 0 ? cam->fovy_deg : ST_DEFAULT_FOVY_DEG) * DEG2RAD;
    double hx = sin(yaw), hy = cos(yaw); /* flat heading */
    double cp = cos(pitch), sp = sin(pitch);
    st_camera_eye(cam, v.origin);
    for (int k = 0; k < 3; k++) v.eye[k] = (float)v.origin[k];
    v.forward[0] = (float)(hx * cp);
    v.forward[1] = (float)(hy * cp);
    v.forward[2] = (float)sp;
    v.screen_right[0] = (float)-hy; /* up × heading */
    v.screen_right[1] = (float)hx;
    v.screen_right[2] = 0.0f;
    /* screen_up = forward × screen_right */
    v.screen_up[0] = (float)(-sp * hx);
    v.screen_up[1] = (float)(-sp * hy);
    v.screen_up[2] = (float)cp;
    v.width = (float)width;
    v.height = (float)height;
    v.focal_px = (float)(0.5 * height / tan(0.5 * fovy));
    v.near_dist = cam->near_dist > 0 ? cam->near_dist : ST_DEFAULT_NEAR;
    v.far_dist = cam->far_dist > 0 ? cam->far_dist : ST_DEFAULT_FAR;
    return v;
}

void st_camera_eye(const st_camera *cam, double eye[3]) {
    for (int k = 0; k < 3; k++) eye[k] = cam->origin[k] + (double)cam->position[k];
}

void st_camera_set_eye(st_camera *cam, const double eye[3]) {
    for (int k = 0; k < 3; k++) {
        cam->origin[k] = eye[k];
        cam->position[k] = 0.0f;
    }
}

st_view st_view_relative(const st_view *v) {
    st_view r = *v;
    r.eye[0] = r.eye[1] = r.eye[2] = 0.0f;
    return r;
}

void st_view_pixel_dir(const st_view *v, float px, float py, float dir[3]) {
    float sx = px - 0.5f * v->width, sy = 0.5f * v->height - py;
    for (int k = 0; k < 3; k++) dir[k] = v->focal_px * v->forward[k] + sx * v->screen_right[k] + sy * v->screen_up[k];
}

void st_view_pixel_ray(const st_view *v, uint32_t i, uint32_t j, float dir[3], float *t_near, float *t_far) {
    float d[3];
    st_view_pixel_dir(v, (float)i + 0.5f, (float)j + 0.5f, d);
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    float cos_axis = v->focal_px / len; /* cosine between the ray and forward */
    for (int k = 0; k < 3; k++) dir[k] = d[k] / len;
    if (t_near) *t_near = v->near_dist / cos_axis;
    if (t_far) *t_far = v->far_dist / cos_axis;
}

float st_view_depth_from_z(const st_view *v, float z) {
    float n = v->near_dist, f = v->far_dist;
    return n * (f - z) / (z * (f - n));
}

float st_view_z_from_depth(const st_view *v, float depth) {
    float n = v->near_dist, f = v->far_dist;
    return n * f / (depth * (f - n) + n);
}

float st_view_distance_from_depth(const st_view *v, uint32_t i, uint32_t j, float depth) {
    if (!(depth > 0.0f)) return NAN;
    float d[3];
    st_view_pixel_dir(v, (float)i + 0.5f, (float)j + 0.5f, d);
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    return st_view_z_from_depth(v, depth) * len / v->focal_px;
}

void st_view_matrix(const st_view *v, float m[16]) {
    /* Rows of the view rotation: screen right, screen down (Vulkan y runs down), forward. */
    const float *r = v->screen_right, *u = v->screen_up, *f = v->forward, *e = v->eye;
    float sx = 2.0f * v->focal_px / v->width, sy = 2.0f * v->focal_px / v->height;
    float n = v->near_dist, fa = v->far_dist;
    /* clip.x = sx·(r·q), clip.y = −sy·(u·q), clip.w = f·q, clip.z = A·(f·q) + B with depth = z/w reverse */
    float A = -n / (fa - n), B = n * fa / (fa - n);
    float rq = -(r[0] * e[0] + r[1] * e[1] + r[2] * e[2]);
    float uq = -(u[0] * e[0] + u[1] * e[1] + u[2] * e[2]);
    float fq = -(f[0] * e[0] + f[1] * e[1] + f[2] * e[2]);
    for (int c = 0; c < 3; c++) {
        m[c * 4 + 0] = sx * r[c];
        m[c * 4 + 1] = -sy * u[c];
        m[c * 4 + 2] = A * f[c];
        m[c * 4 + 3] = f[c];
    }
    m[12] = sx * rq;
    m[13] = -sy * uq;
    m[14] = A * fq + B;
    m[15] = fq;
}

st_frustum st_view_frustum(const st_view *v) {
    /* Gribb–Hartmann on the view-projection, with Vulkan's clip z in [0, w] and reverse-Z: z = 0 is the
     * far plane, z = w the near one. */
    st_frustum f;
    float m[16];
    st_view_matrix(v, m);
    for (int c = 0; c < 4; c++) {
        float x = m[c * 4 + 0], y = m[c * 4 + 1], z = m[c * 4 + 2], w = m[c * 4 + 3];
        f.planes[0][c] = w + x;
        f.planes[1][c] = w - x;
        f.planes[2][c] = w + y;
        f.planes[3][c] = w - y;
        f.planes[4][c] = z;
        f.planes[5][c] = w - z;
    }
    return f;
}

bool st_frustum_meets_box(const st_frustum *f, const float lo[3], const float hi[3]) {
    for (int i = 0; i < 6; i++) {
        const float *p = f->planes[i];
        /* the box corner farthest along the plane's normal */
        float d = p[0] * (p[0] >= 0 ? hi[0] : lo[0]) + p[1] * (p[1] >= 0 ? hi[1] : lo[1]) +
                  p[2] * (p[2] >= 0 ? hi[2] : lo[2]) + p[3];
        if (d < 0) return false;
    }
    return true;
}

static void bounds_add(float b[4], float x, float y) {
    b[0] = fminf(b[0], x);
    b[1] = fminf(b[1], y);
    b[2] = fmaxf(b[2], x);
    b[3] = fmaxf(b[3], y);
}

int st_view_slab_points(const st_view *v, float z_lo, float z_hi, float pts[ST_VIEW_SLAB_POINTS][2]) {
    /* The frustum ∩ slab is convex; its vertices are the frustum's corners inside the slab and the points
     * where the frustum's 12 edges cross z_lo and z_hi. */
    float c[8][3];
    static const float px[4] = {0, 1, 0, 1}, py[4] = {0, 0, 1, 1};
    for (int k = 0; k < 4; k++) {
        float d[3];
        st_view_pixel_dir(v, px[k] * v->width, py[k] * v->height, d);
        for (int a = 0; a < 3; a++) {
            c[k][a] = v->eye[a] + d[a] * (v->near_dist / v->focal_px);
            c[4 + k][a] = v->eye[a] + d[a] * (v->far_dist / v->focal_px);
        }
    }
    static const int edges[12][2] = {{0, 4}, {1, 5}, {2, 6}, {3, 7}, {0, 1}, {1, 3}, {3, 2}, {2, 0},
                                     {4, 5}, {5, 7}, {7, 6}, {6, 4}};
    int n = 0;
    for (int k = 0; k < 8; k++)
        if (c[k][2] >= z_lo && c[k][2] <= z_hi) pts[n][0] = c[k][0], pts[n][1] = c[k][1], n++;
    for (int e = 0; e < 12; e++) {
        const float *a = c[edges[e][0]], *b = c[edges[e][1]];
        float dz = b[2] - a[2];
        if (dz == 0.0f) continue;
        for (int p = 0; p < 2; p++) {
            float t = ((p ? z_hi : z_lo) - a[2]) / dz;
            if (t < 0.0f || t > 1.0f) continue;
            pts[n][0] = a[0] + t * (b[0] - a[0]), pts[n][1] = a[1] + t * (b[1] - a[1]), n++;
        }
    }
    return n;
}

bool st_view_ground_bounds(const st_view *v, float z_lo, float z_hi, float bounds[4]) {
    /* the hull's vertices bound it exactly */
    float pts[ST_VIEW_SLAB_POINTS][2];
    int n = st_view_slab_points(v, z_lo, z_hi, pts);
    bounds[0] = bounds[2] = v->eye[0];
    bounds[1] = bounds[3] = v->eye[1];
    for (int i = 0; i < n; i++) bounds_add(bounds, pts[i][0], pts[i][1]);
    return n > 0;
}

static bool parse_values(const char *text, double vals[5], double max_coord) {
    const char *p = text;
    for (int k = 0; k < 5; k++) {
        char *end;
        vals[k] = strtod(p, &end);
        if (end == p || !isfinite(vals[k])) return false;
        p = end;
        if (k < 4) {
            if (*p != ',') return false;
            p++;
        }
    }
    if (*p) return false;
    for (int k = 0; k < 3; k++)
        if (fabs(vals[k]) > max_coord) return false;
    if (fabs(vals[3]) > ST_CAMERA_MAX_YAW) return false;
    return vals[4] >= -90.0 && vals[4] <= 90.0;
}

bool st_camera_parse(const char *text, st_camera *cam) {
    double vals[5];
    if (!parse_values(text, vals, ST_CAMERA_MAX_COORD)) return false;
    cam->position[0] = (float)vals[0];
    cam->position[1] = (float)vals[1];
    cam->position[2] = (float)vals[2];
    cam->yaw_deg = (float)vals[3];
    cam->pitch_deg = (float)vals[4];
    return true;
}

bool st_camera_parse_precise(const char *text, st_camera *cam) {
    double vals[5];
    if (!parse_values(text, vals, ST_CAMERA_MAX_METRES)) return false;
    st_camera_set_eye(cam, vals);
    cam->yaw_deg = (float)vals[3];
    cam->pitch_deg = (float)vals[4];
    return true;
}
