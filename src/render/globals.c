/* Filling the per-frame globals (globals.h) from a view and a level: the one place both the Vulkan renderer
 * and the web backend take them from. */
#include <math.h>
#include <string.h>

#include "render/globals.h"
#include "strata/shading.h"

/* Uniform ray-march steps when the knob is 0 (ST_RAY_STEPS_DEFAULT of render_internal.h), up to the far distance
 * GLOBALS_RAY_STEPS_FAR; beyond it the steps grow with the far distance, so that they are never further apart than
 * there (under 2000/128 = 15.6 texels): at far 4000 128 steps are 31 texels apart and step over thin pillars. */
#define GLOBALS_RAY_STEPS_DEFAULT 128u
#define GLOBALS_RAY_STEPS_FAR 2000.0
#define GLOBALS_RAY_STEPS_MAX 4096u /* the knob's largest value (ray.c): far 64000 */

uint32_t st_globals_ray_steps(uint32_t ray_steps, float far_dist) {
    if (ray_steps) return ray_steps;
    double n = ceil((double)GLOBALS_RAY_STEPS_DEFAULT * (double)far_dist / GLOBALS_RAY_STEPS_FAR);
    if (!(n > GLOBALS_RAY_STEPS_DEFAULT)) return GLOBALS_RAY_STEPS_DEFAULT; /* NAN too */
    return n < GLOBALS_RAY_STEPS_MAX ? (uint32_t)n : GLOBALS_RAY_STEPS_MAX;
}

const float st_fog_linear[3] = {ST_FOG_R, ST_FOG_G, ST_FOG_B};

void st_globals_fill_view(st_globals_gpu *g, const st_view *v, uint32_t ray_steps, uint32_t frame_index) {
    st_view_matrix(v, g->view_proj);
    for (int k = 0; k < 3; k++) {
        g->eye[k] = v->eye[k];
        g->forward[k] = v->forward[k];
        g->screen_right[k] = v->screen_right[k];
        g->screen_up[k] = v->screen_up[k];
    }
    g->eye[3] = v->far_dist;
    g->forward[3] = v->focal_px;
    g->screen_right[3] = v->width;
    g->screen_up[3] = v->height;
    g->level[2] = v->near_dist;
    float s = 1.0f / sqrtf(ST_SUN_X * ST_SUN_X + ST_SUN_Y * ST_SUN_Y + ST_SUN_Z * ST_SUN_Z);
    g->light[0] = ST_SUN_X * s;
    g->light[1] = ST_SUN_Y * s;
    g->light[2] = ST_SUN_Z * s;
    g->light[3] = ST_AMBIENT;
    g->fog[0] = st_fog_linear[0];
    g->fog[1] = st_fog_linear[1];
    g->fog[2] = st_fog_linear[2];
    g->fog[3] = ST_FOG_BAND;
    g->knobs[0] = st_globals_ray_steps(ray_steps, v->far_dist);
    g->knobs[2] = frame_index;
}

void st_globals_fill_level(st_globals_gpu *g, const st_level *l) {
    g->level[0] = (float)l->width;
    g->level[1] = (float)l->height;
    g->level[3] = 256.0f;
    g->knobs[1] = l->terrain_types;
    g->knobs[3] = (l->wrap_x ? 0u : 1u) | (l->wrap_y ? 0u : 2u); /* the bounded axes (surface.glsl) */
    for (uint32_t t = 0; t < 16; t++) {
        st_level_type_albedo(l, t, g->albedo[t]);
        g->albedo[t][3] = 1.0f;
    }
}
