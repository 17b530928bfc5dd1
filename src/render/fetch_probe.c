/* Reading back the fetch-counting shading (ST_SHADING_FETCHES) and the scene its measurements use: shared by
 * strata bench materials and tests/test_gpu_materials.c, so both decode the image one way. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/render.h"
#include "strata/shading.h"

#define COUNT_SCALE 32  /* materials.glsl's MAT_COUNT_SCALE */
#define ASPECT_SCALE 16 /* materials.glsl's MAT_ASPECT_SCALE */
#define STEEP_MARK 16   /* added to the lookups on a face that read a side projection */

/* The count k whose linear value k / 32, sRGB-encoded to 8 bits, is nearest v. */
static int decode_count(uint8_t v) {
    int best = 0;
    for (int k = 1; k <= COUNT_SCALE; k++)
        if (abs((int)st_shade_srgb8((float)k / COUNT_SCALE) - v) < abs((int)st_shade_srgb8((float)best / COUNT_SCALE) - v))
            best = k;
    return best;
}

st_fetch_pixel st_fetch_pixel_decode(const uint8_t rgba[4]) {
    st_fetch_pixel p = {.taps = decode_count(rgba[0])};
    int green = decode_count(rgba[1]);
    p.steep = green >= STEEP_MARK;
    p.lookups = p.steep ? green - STEEP_MARK : green;
    p.aspect = 1.0f + ASPECT_SCALE * st_shade_srgb_to_linear(rgba[2]);
    return p;
}

void st_fetch_tally_add(st_fetch_tally *t, st_fetch_pixel p) {
    if (p.taps > t->max) t->max = p.taps;
    if (p.lookups > t->lookups_max) t->lookups_max = p.lookups;
    t->sum += p.taps;
    t->count++;
}

double st_fetch_tally_mean(const st_fetch_tally *t) { return t->count ? t->sum / (double)t->count : 0.0; }

st_result st_fetch_scene_level(st_level **out, st_error *err) {
    st_result r = st_level_create(256, 256, out, err);
    if (r) return r;
    st_level *l = *out;
    l->wrap_x = l->wrap_y = false;
    l->colors = malloc(256 * 256 * 3);
    if (!l->colors) {
        st_level_destroy(l);
        *out = NULL;
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) {
            float rise = 20.0f + (float)(x - 127) * 5.671f;
            int h = x < 128 ? 20 : rise >= 220.0f ? 220 : (int)(rise + 0.5f);
            st_level_set_single(l, x, y, (uint8_t)h, (uint8_t)(h >= 60 ? 3 : 2));
            uint8_t *c = l->colors + ((size_t)y * 256 + (size_t)x) * 3;
            c[0] = h < 21 || h >= 220 ? 255 : 0;
            c[1] = h >= 21 && h < 220 ? 255 : 0;
            c[2] = h >= 220 ? 255 : 0;
        }
    return ST_OK;
}

st_camera st_fetch_scene_camera(void) {
    /* from over the floor toward the cliff, which fills the upper part of the image */
    return (st_camera){.position = {20.3f, 128.6f, 70.0f}, .yaw_deg = 90, .pitch_deg = -14};
}

int st_fetch_scene_region(const uint8_t rgba[4]) {
    if (rgba[0] > 60 && rgba[1] < 20 && rgba[2] < 20) return 0;
    if (rgba[1] > 60 && rgba[0] < 20 && rgba[2] < 20) return 1;
    return -1;
}
