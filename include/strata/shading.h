/* The shared shading in C: the twin of shaders/common/shading.glsl (albedo of the visible layer, gradient normal,
 * ambient + sun, cave factor on the floor under a slab, horizontal fog, sRGB encoding), so the CPU reference
 * shades its hits with the formula every method uses. The constants below are the ones the renderer puts in
 * its globals; tests/test_gpu_shading.c holds the GLSL to this file through a GPU probe. */
#ifndef STRATA_SHADING_H
#define STRATA_SHADING_H

#include "strata/level.h"

/* Toward the sun: normalize(1, 2, 4). */
#define ST_SUN_X 1.0f
#define ST_SUN_Y 2.0f
#define ST_SUN_Z 4.0f
#define ST_AMBIENT 0.25f           /* the unlit share of the albedo */
#define ST_CAVE_FACTOR 0.25f       /* the sun's share on a floor under a slab */
#define ST_FOG_R 0.1f              /* fog (and sky) colour, linear */
#define ST_FOG_G 0.2f
#define ST_FOG_B 0.3f
#define ST_FOG_BAND 50.0f          /* fog ramps in over the last 50 units before the far distance */

/* The shared shadow map (src/render/passes/shadow.c): a square of ±600 around a point 300 ahead of the eye, z 0..256,
 * seen along the sun; a lookup at p tests p + n·offset + sun·(0.25 + bias) against the map, with offset = bias =
 * 0.6 texel. The CPU reference tests the same offset point with an exact ray (no texels, no filtering). */
#define ST_SHADOW_BOX_HALF 600.0f
#define ST_SHADOW_BOX_AHEAD 300.0f
#define ST_SHADOW_OFFSET_TEXELS 0.6f
#define ST_SHADOW_TOWARD_SUN 0.25f

/* World size of one shadow-map texel at size² (the box's larger extent across the light plane / size). */
static inline float st_shadow_texel_world(uint32_t size) {
    /* the light plane's axes (2, −1, 0)/√5 and (4, 8, −5)/√105 span the box's 2·half × 2·half × 256 */
    float ex = (2.0f + 1.0f) * 2.0f * ST_SHADOW_BOX_HALF / 2.2360680f;
    float ey = ((4.0f + 8.0f) * 2.0f * ST_SHADOW_BOX_HALF + 5.0f * 256.0f) / 10.2469508f;
    return (ex > ey ? ex : ey) / (float)size;
}

/* What shading needs besides the point: the level's material albedos (linear), the eye and the far distance
 * (for the fog). */
typedef struct st_shade_env {
    const st_level *level;
    float albedo[16][3];
    float sun[3]; /* unit, toward the sun */
    float eye[3];
    float far_dist;
} st_shade_env;

/* The environment of a level seen from eye with far distance far_dist (0 = the default far). */
void st_shade_env_init(st_shade_env *env, const st_level *level, const float eye[3], float far_dist);

/* Whether a point of column s shows its upper layer: a single column, or z at or above the cave ceiling. */
bool st_shade_upper(st_texel s, float z);
/* Central-difference normal of the visible layer (low or high) around texel ⌊p.xy⌋ (gradient_normal). */
void st_shade_gradient_normal(const st_level *level, const float p[3], bool upper, float n[3]);
/* shade_lit: the formula at point p of column s with unit normal n and sun visibility in [0, 1] — albedo (the
 * level's colour map at p's column for its top layer where it has one, else the type's) ·
 * (ambient + (1 − ambient) · visibility · cave · max(0, n·l)), then fog by horizontal distance. Linear RGB. */
void st_shade_lit(const st_shade_env *env, const float p[3], st_texel s, const float n[3], float visibility,
                  float rgb[3]);
/* ---- DEM worlds (tile stores, metres): the twin of shaders/common/dem_shading.glsl ----------------------------- */

/* A store's view fogs over the last tenth of its far distance (a level's over ST_FOG_BAND units). */
static inline float st_store_fog_band(float far_dist) { return 0.1f * far_dist; }
/* The ground's linear albedo at height h (metres): the sea's below sea_m, else a hypsometric tint from green
 * lowland over brown rock to snow at the store's highest point max_m (the stops of strata info --preview). */
void st_dem_albedo(float h, float sea_m, float max_m, float rgb[3]);
/* The shared formula on DEM ground: albedo(h) · (ambient + (1 − ambient) · visibility · max(0, n·l)), then fog
 * by the horizontal distance |p_rel.xy| (p_rel: the point relative to the eye). Linear RGB. */
void st_dem_shade(const float p_rel[3], float h, const float n[3], float visibility, float sea_m, float max_m,
                  float far_dist, float rgb[3]);

/* linear_to_srgb then 8-bit rounding: what a UNORM storage image or an sRGB attachment holds. */
uint8_t st_shade_srgb8(float linear);
/* The linear value of an 8-bit sRGB-encoded sample (what sampling an _SRGB texture gives). */
float st_shade_srgb_to_linear(uint8_t srgb);
/* The sRGB transfer function of a linear value in [0, 1] (the shaders' linear_to_srgb). */
float st_shade_linear_to_srgb(float linear);

#endif
