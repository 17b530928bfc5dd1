/* The CPU reference of a view of a layer store too large to hold as a level: the view's window of the world —
 * every texel its rays can reach within the far distance, plus what its shadow rays and shading normals read —
 * read through the pages as a level of its own, the reference cast on it with the camera moved by the window's
 * offset. Memory grows with the far distance, never with the world. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/paged_reference.h"
#include "strata/camera.h"

/* Beyond the rays' reach: a shadow ray climbs toward the sun, normalize(1, 2, 4), and leaves the highest terrain
 * (255) within 255·√5/4 < 143 texels sideways; the shading normal reads one texel around its hit. */
#define REACH_MARGIN 256.0

static uint32_t pow2_at_least(double v) {
    uint32_t p = 2;
    while ((double)p < v && p < (1u << 30)) p *= 2;
    return p;
}

/* One axis of the window: [*x0, *x0 + *w) covering [lo, hi], a power of two wide; the whole axis (and its wrap)
 * when that is no wider; inside the world on a bounded axis. */
static void window_axis(double lo, double hi, uint64_t side, bool wraps, int64_t *x0, uint32_t *w, bool *whole) {
    uint32_t n = pow2_at_least(hi - lo + 2);
    if ((uint64_t)n >= side) {
        *x0 = 0;
        *w = (uint32_t)side;
        *whole = true;
        return;
    }
    int64_t start = (int64_t)floor(lo) & ~(int64_t)1; /* pairs stay whole */
    if (!wraps) start = start < 0 ? 0 : start + n > (int64_t)side ? (int64_t)side - n : start;
    *x0 = start;
    *w = n;
    *whole = false;
}

st_result st_eval_paged_reference(st_layer_pages *pages, const st_store_info *world, bool shadows,
                                  const st_camera *cam, const char *cache_dir, st_ref_image *img, bool *from_cache,
                                  uint64_t *window_texels, st_error *cache_err, st_error *err) {
    st_view view = st_camera_view(cam, img->width, img->height);
    double eye[3];
    st_camera_eye(cam, eye);
    /* the view's footprint: the eye and the far ends of rays along the image's border and through its centre */
    double lo[2] = {eye[0], eye[1]}, hi[2] = {eye[0], eye[1]};
    const uint32_t steps = 64;
    for (uint32_t k = 0; k <= 4 * steps; k++) {
        uint32_t side = k / steps, t = k % steps, i, j;
        uint32_t wi = img->width - 1, hj = img->height - 1;
        if (k == 4 * steps) i = wi / 2, j = hj / 2;
        else if (side == 0) i = t * wi / steps, j = 0;
        else if (side == 1) i = wi, j = t * hj / steps;
        else if (side == 2) i = wi - t * wi / steps, j = hj;
        else i = 0, j = hj - t * hj / steps;
        float dir[3], tn, tf;
        st_view_pixel_ray(&view, i, j, dir, &tn, &tf);
        for (int a = 0; a < 2; a++) {
            double p = eye[a] + (double)dir[a] * (double)tf;
            lo[a] = fmin(lo[a], p);
            hi[a] = fmax(hi[a], p);
        }
    }
    /* between two border samples a ray's end bulges out by at most far·(1 − cos(fov/64)): inside the margin */
    int64_t x0, y0;
    uint32_t w, h;
    bool whole_x, whole_y;
    window_axis(lo[0] - REACH_MARGIN, hi[0] + REACH_MARGIN, world->width, world->wrap_x, &x0, &w, &whole_x);
    window_axis(lo[1] - REACH_MARGIN, hi[1] + REACH_MARGIN, world->height, world->wrap_y, &y0, &h, &whole_y);
    if (window_texels) *window_texels = (uint64_t)w * h;
    st_level *win = NULL;
    st_result r = st_layer_pages_window(pages, x0, y0, w, h, &win, err);
    if (r) return st_error_prefix(err, "the reference's window of %ux%u", w, h);
    /* a window that is the whole axis is the world along it, wrap and all */
    win->wrap_x = whole_x && world->wrap_x;
    win->wrap_y = whole_y && world->wrap_y;
    st_camera moved = *cam;
    moved.origin[0] -= (double)x0; /* exact: a whole number off a float eye */
    moved.origin[1] -= (double)y0;
    st_reference *ref = NULL;
    r = st_reference_create(win, &ref, err);
    if (!r) {
        st_reference_set_shadows(ref, shadows);
        r = st_reference_cast_cached(ref, &moved, cache_dir, img, from_cache, cache_err, err);
    }
    st_reference_destroy(ref);
    st_level_destroy(win);
    return r;
}
