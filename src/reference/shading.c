/* The shared shading formula in C, line for line the twin of shaders/common/shading.glsl (shade_lit,
 * gradient_normal, linear_to_srgb) in single precision like the GPU. The sun's visibility is the caller's: the
 * GPU looks it up in the shadow map, the reference casts an exact shadow ray (reference.c). */
#include <math.h>

#include "strata/camera.h"
#include "strata/shading.h"

void st_shade_env_init(st_shade_env *env, const st_level *level, const float eye[3], float far_dist) {
    env->level = level;
    for (uint32_t t = 0; t < 16; t++) st_level_type_albedo(level, t, env->albedo[t]);
    float s = 1.0f / sqrtf(ST_SUN_X * ST_SUN_X + ST_SUN_Y * ST_SUN_Y + ST_SUN_Z * ST_SUN_Z);
    env->sun[0] = ST_SUN_X * s;
    env->sun[1] = ST_SUN_Y * s;
    env->sun[2] = ST_SUN_Z * s;
    for (int k = 0; k < 3; k++) env->eye[k] = eye[k];
    env->far_dist = far_dist > 0 ? far_dist : ST_DEFAULT_FAR;
}

bool st_shade_upper(st_texel s, float z) { return !s.dual || z >= (float)s.mid; }

static float layer_height(const st_level *level, int x, int y, bool upper) {
    st_texel t = st_level_texel(level, x, y);
    return upper ? (float)t.high : (float)t.low;
}

/* Central differences; at the edge of an axis that does not wrap, the one-sided difference with the column
 * itself (the GLSL twin does the same). */
void st_shade_gradient_normal(const st_level *level, const float p[3], bool upper, float n[3]) {
    int cx = (int)floorf(p[0]), cy = (int)floorf(p[1]);
    float grad[2];
    for (int a = 0; a < 2; a++) {
        int ex = a == 0, ey = a == 1;
        int lx = cx - ex, ly = cy - ey, hx = cx + ex, hy = cy + ey;
        float k = 0.5f;
        if (!st_level_contains(level, lx, ly)) lx = cx, ly = cy, k = 1.0f;
        if (!st_level_contains(level, hx, hy)) hx = cx, hy = cy, k = k == 1.0f ? 0.0f : 1.0f;
        grad[a] = k * (layer_height(level, hx, hy, upper) - layer_height(level, lx, ly, upper));
    }
    float v[3] = {-grad[0], -grad[1], 1.0f};
    float inv = 1.0f / sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++) n[k] = v[k] * inv;
}

static float smoothstep(float e0, float e1, float x) {
    float t = (x - e0) / (e1 - e0);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return t * t * (3.0f - 2.0f * t);
}

void st_shade_lit(const st_shade_env *env, const float p[3], st_texel s, const float n[3], float visibility,
                  float rgb[3]) {
    bool upper = st_shade_upper(s, p[2]);
    uint32_t type = (upper ? s.high_type : s.low_type) & 15u;
    if (s.dual && p[2] <= (float)s.low && s.low < s.high) visibility *= ST_CAVE_FACTOR; /* the cave floor */
    float l = n[0] * env->sun[0] + n[1] * env->sun[1] + n[2] * env->sun[2];
    float light = ST_AMBIENT + (1.0f - ST_AMBIENT) * visibility * (l > 0 ? l : 0);
    float dx = p[0] - env->eye[0], dy = p[1] - env->eye[1];
    float f = smoothstep(env->far_dist - ST_FOG_BAND, env->far_dist, sqrtf(dx * dx + dy * dy));
    const float fog[3] = {ST_FOG_R, ST_FOG_G, ST_FOG_B};
    const float *albedo = env->albedo[type];
    float colour[3];
    const st_level *level = env->level;
    if (upper && level && level->colors) { /* the colour map: the top layer's albedo, the column's texel */
        uint32_t x = (uint32_t)(int64_t)floorf(p[0]) & (level->width - 1);
        uint32_t y = (uint32_t)(int64_t)floorf(p[1]) & (level->height - 1);
        const uint8_t *c = level->colors + ((size_t)y * level->width + x) * 3;
        for (int k = 0; k < 3; k++) colour[k] = st_shade_srgb_to_linear(c[k]);
        albedo = colour;
    }
    for (int k = 0; k < 3; k++) {
        float c = albedo[k] * light;
        rgb[k] = c + (fog[k] - c) * f; /* mix(color, fog, f) */
    }
}

float st_shade_linear_to_srgb(float c) {
    c = c < 0 ? 0 : c > 1 ? 1 : c;
    return c < 0.0031308f ? 12.92f * c : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

float st_shade_srgb_to_linear(uint8_t srgb) {
    float x = (float)srgb / 255.0f;
    return x <= 0.04045f ? x / 12.92f : powf((x + 0.055f) / 1.055f, 2.4f);
}

uint8_t st_shade_srgb8(float linear) { return (uint8_t)(st_shade_linear_to_srgb(linear) * 255.0f + 0.5f); }
