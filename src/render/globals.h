/* The per-frame globals every shader reads (set 0, binding 0; shaders/common/globals.glsl): their std140
 * layout and how a level's view fills them. Knows no GPU API, so the Vulkan renderer and the web backend fill
 * them with the same code. */
#ifndef STRATA_RENDER_GLOBALS_H
#define STRATA_RENDER_GLOBALS_H

#include "strata/camera.h"
#include "strata/level.h"
#include "strata/materials.h"

/* material_info[3]'s flags (globals.glsl's MATERIAL_INFO_*): the level's colour map is bound (binding 8); the
 * frame shows texture fetches per pixel instead of colour (ST_SHADING_FETCHES). */
#define ST_MATERIAL_INFO_COLORS 1u
#define ST_MATERIAL_INFO_FETCHES 2u

/* std140 mirror of shaders/common/globals.glsl */
typedef struct st_globals_gpu {
    float view_proj[16];
    float eye[4];          /* xyz, far */
    float forward[4];      /* xyz, focal in pixels */
    float screen_right[4]; /* xyz, width */
    float screen_up[4];    /* xyz, height */
    float level[4];        /* W, H, near, top (nothing solid above) */
    float light[4];        /* direction toward the sun, ambient */
    float fog[4];          /* linear rgb, fog band width */
    uint32_t knobs[4];     /* ray steps, terrain types, frame index, bounded axes (bit 0 x, bit 1 y) */
    float albedo[16][4];   /* linear albedo of each material (its End colour) */
    float shadow_u[4];     /* shadow map: u = dot(p, xyz) + w */
    float shadow_v[4];     /* v = dot(p, xyz) + w */
    float shadow_d[4];     /* depth along the light = dot(p, xyz) + w */
    float shadow_info[4];  /* resolution, enabled (0/1), depth bias, normal offset */
    float shadow_wrap[4];  /* shadow map: where logical texel (0, 0) is stored (x, y); the map is toroidal */
    uint32_t material_info[4];  /* shading (0 flat, 1 textured), material layers, control map present, flags */
    float material_origin[4];   /* xy: the world position of the shaders' origin (a store's eye), folded */
    float material_mean[ST_MATERIAL_MAX][4]; /* linear mean albedo of each material; w: repeats per world unit */
    uint32_t pages_info[4]; /* paged terrain: page shift, level-0 pages along x, along y, levels; else 0 */
} st_globals_gpu;

/* The fog (and sky) colour in linear light: what a frame is cleared to. */
extern const float st_fog_linear[3];

/* The uniform ray-march steps a frame marches with: ray_steps, or for 0 the default for far distance far_dist,
 * max(128, ceil(128·far_dist/2000)) (128 up to far 2000, 256 at far 4000; at most 4096). */
uint32_t st_globals_ray_steps(uint32_t ray_steps, float far_dist);
/* Fills the camera, sun, fog and knob fields of g from view v (the shadow fields are left to the shadow pass,
 * albedo and the level's fields to st_globals_fill_level). ray_steps 0 = the default for v's far distance
 * (st_globals_ray_steps). */
void st_globals_fill_view(st_globals_gpu *g, const st_view *v, uint32_t ray_steps, uint32_t frame_index);
/* Fills the level's fields of g: its size, the top, its terrain types, the bounded axes and every material's
 * linear albedo. */
void st_globals_fill_level(st_globals_gpu *g, const st_level *l);

#endif
