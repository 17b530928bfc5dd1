/* The control map: which material lies where (base, overlay, the overlay's weight, flags per texel), filled from
 * a level's types or by rules of slope, height, curvature and water distance, and painted with a round brush; its
 * file is control_file.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/materials.h"
#include "terrain/noise.h"

st_result st_control_map_create(uint32_t width, uint32_t height, st_control_map **out, st_error *err) {
    *out = NULL;
    st_result r = st_level_check_size(width, height, err);
    if (r) return r;
    st_control_map *m = calloc(1, sizeof *m);
    if (m) m->texels = calloc((size_t)width * height, 4);
    if (!m || !m->texels) {
        free(m);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory for a %ux%u control map", width, height);
    }
    m->width = width;
    m->height = height;
    *out = m;
    return ST_OK;
}

void st_control_map_destroy(st_control_map *map) {
    if (!map) return;
    free(map->texels);
    free(map);
}

static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }
static float smooth(float e0, float e1, float x) {
    float t = clampf((x - e0) / (e1 - e0), 0, 1);
    return t * t * (3.0f - 2.0f * t);
}

/* The top layer's height at (x, y), clamped into a level that does not wrap. */
static float top_at(const st_level *l, int x, int y) {
    if (!l->wrap_x) x = x < 0 ? 0 : x >= (int)l->width ? (int)l->width - 1 : x;
    if (!l->wrap_y) y = y < 0 ? 0 : y >= (int)l->height ? (int)l->height - 1 : y;
    return (float)st_level_texel(l, x, y).high;
}

/* Slope (1 − n_z of the gradient normal, the shading's own) and the Laplacian (positive in hollows). */
static void terrain_shape(const st_level *l, int x, int y, float *slope, float *curvature) {
    float c = top_at(l, x, y);
    float e = top_at(l, x + 1, y), w = top_at(l, x - 1, y), n = top_at(l, x, y + 1), s = top_at(l, x, y - 1);
    float gx = 0.5f * (e - w), gy = 0.5f * (n - s);
    *slope = 1.0f - 1.0f / sqrtf(gx * gx + gy * gy + 1.0f);
    *curvature = (e + w + n + s) - 4.0f * c;
}

static void put(uint8_t *t, uint8_t base, uint8_t overlay, float blend, uint8_t flags) {
    t[0] = base;
    t[1] = overlay;
    t[2] = (uint8_t)lrintf(clampf(blend, 0, 1) * 255.0f);
    t[3] = flags;
}

/* Distance (texels, capped) to the nearest water texel (type 0 at height ≤ 1) within rect grown by the cap:
 * two chamfer passes over that window. */
#define WATER_CAP 24
static float *water_distance(const st_level *l, st_rect rect, st_rect *win) {
    st_rect w = {rect.x0 - WATER_CAP, rect.y0 - WATER_CAP, rect.x1 + WATER_CAP, rect.y1 + WATER_CAP};
    if (w.x0 < 0) w.x0 = 0;
    if (w.y0 < 0) w.y0 = 0;
    if (w.x1 > (int)l->width) w.x1 = (int)l->width;
    if (w.y1 > (int)l->height) w.y1 = (int)l->height;
    *win = w;
    int ww = w.x1 - w.x0, wh = w.y1 - w.y0;
    float *d = malloc(sizeof(float) * (size_t)ww * (size_t)wh);
    if (!d) return NULL;
    for (int y = 0; y < wh; y++)
        for (int x = 0; x < ww; x++) {
            st_texel t = st_level_texel(l, w.x0 + x, w.y0 + y);
            d[(size_t)y * ww + x] = (t.high <= 1 && t.high_type == 0) ? 0.0f : (float)WATER_CAP;
        }
    const float a = 1.0f, b = 1.4142f;
    for (int y = 0; y < wh; y++)
        for (int x = 0; x < ww; x++) {
            float *p = &d[(size_t)y * ww + x];
            if (x > 0) *p = fminf(*p, p[-1] + a);
            if (y > 0) *p = fminf(*p, p[-ww] + a);
            if (x > 0 && y > 0) *p = fminf(*p, p[-ww - 1] + b);
            if (x + 1 < ww && y > 0) *p = fminf(*p, p[-ww + 1] + b);
        }
    for (int y = wh - 1; y >= 0; y--)
        for (int x = ww - 1; x >= 0; x--) {
            float *p = &d[(size_t)y * ww + x];
            if (x + 1 < ww) *p = fminf(*p, p[1] + a);
            if (y + 1 < wh) *p = fminf(*p, p[ww] + a);
            if (x + 1 < ww && y + 1 < wh) *p = fminf(*p, p[ww + 1] + b);
            if (x > 0 && y + 1 < wh) *p = fminf(*p, p[ww - 1] + b);
        }
    return d;
}

/* A DEM's texel by rules: the weight of each candidate, the two largest become base and overlay. */
static void rule_texel(const st_level *l, int x, int y, float water_d, float top, uint8_t *t) {
    st_texel tx = st_level_texel(l, x, y);
    float slope, curv;
    terrain_shape(l, x, y, &slope, &curv);
    float h = (float)tx.high / (top > 1 ? top : 1);
    float jitter = (float)(st_noise_hash((uint32_t)x, (uint32_t)y, 77) & 1023u) / 1023.0f - 0.5f;
    float w[5] = {0}; /* grass, dirt, rock, sand, snow */
    float rock = smooth(0.12f, 0.30f, slope + 0.04f * jitter);
    float snow = smooth(0.72f, 0.86f, h + 0.03f * jitter) * (1.0f - smooth(0.2f, 0.4f, slope));
    float sand = (1.0f - smooth(2.0f, 6.0f, water_d + 2.0f * jitter)) * (1.0f - rock);
    float dirt = clampf(0.3f + 0.25f * curv + 0.3f * jitter, 0, 1) * (1.0f - rock) * (1.0f - snow);
    dirt = fmaxf(dirt, smooth(0.06f, 0.14f, slope) * (1.0f - rock));
    float grass = (1.0f - rock) * (1.0f - snow) * (1.0f - sand) * (1.0f - smooth(0.6f, 0.8f, h));
    w[0] = grass, w[1] = dirt, w[2] = rock + smooth(0.6f, 0.8f, h) * (1.0f - snow) * 0.6f, w[3] = sand, w[4] = snow;
    static const uint8_t ids[5] = {ST_MAT_GRASS, ST_MAT_DIRT, ST_MAT_ROCK, ST_MAT_SAND, ST_MAT_SNOW};
    if (tx.high <= 1 && tx.high_type == 0) {
        put(t, ST_MAT_SILT, ST_MAT_SAND, 0.0f, 0);
        return;
    }
    int a = 0, b = 1;
    if (w[b] > w[a]) a = 1, b = 0;
    for (int i = 2; i < 5; i++) {
        if (w[i] > w[a]) b = a, a = i;
        else if (w[i] > w[b]) b = i;
    }
    float sum = w[a] + w[b];
    put(t, ids[a], ids[b], sum > 0 ? w[b] / sum : 0, 0);
}

void st_control_map_fill(st_control_map *map, const st_level *level, st_rect rect, st_control_rule rule) {
    if (rect.x0 < 0) rect.x0 = 0;
    if (rect.y0 < 0) rect.y0 = 0;
    if (rect.x1 > (int)map->width) rect.x1 = (int)map->width;
    if (rect.y1 > (int)map->height) rect.y1 = (int)map->height;
    if (st_rect_empty(rect) || level->width != map->width || level->height != map->height) return;
    if (rule == ST_CONTROL_AUTO) rule = level->wrap_x && level->wrap_y ? ST_CONTROL_FROM_TYPES : ST_CONTROL_BY_RULES;
    if (rule == ST_CONTROL_FROM_TYPES) {
        for (int y = rect.y0; y < rect.y1; y++)
            for (int x = rect.x0; x < rect.x1; x++) {
                st_texel t = st_level_texel(level, x, y);
                float slope, curv;
                terrain_shape(level, x, y, &slope, &curv);
                /* the type's own material, rock showing through where its slope is steep (the type's tint
                 * colours it, so a steep grass bank reads as the bank's rock in the grass's hue) */
                uint8_t type = (uint8_t)(t.high_type % ST_MAT_SYNTH_COUNT);
                float rock = type == ST_MAT_GRASS || type == ST_MAT_SAND ? smooth(0.35f, 0.6f, slope) : 0.0f;
                put(map->texels + ((size_t)y * map->width + (size_t)x) * 4, type, ST_MAT_ROCK, rock, ST_CONTROL_TINT);
            }
        return;
    }
    float top = 1;
    for (uint32_t y = 0; y < level->height; y++) {
        const uint8_t *row = st_level_height_row(level, y);
        for (uint32_t x = 0; x < level->width; x++) top = fmaxf(top, (float)row[x]);
    }
    st_rect win;
    float *d = water_distance(level, rect, &win);
    int ww = win.x1 - win.x0;
    for (int y = rect.y0; y < rect.y1; y++)
        for (int x = rect.x0; x < rect.x1; x++) {
            float wd = d ? d[(size_t)(y - win.y0) * ww + (x - win.x0)] : (float)WATER_CAP;
            rule_texel(level, x, y, wd, top, map->texels + ((size_t)y * map->width + (size_t)x) * 4);
        }
    free(d);
}

/* ---- the file: magic, width, height, CRC of the texels, deflated size, the deflated texels -------------- */

static st_rect clip(const st_control_map *m, st_rect r) {
    if (r.x0 < 0) r.x0 = 0;
    if (r.y0 < 0) r.y0 = 0;
    if (r.x1 > (int)m->width) r.x1 = (int)m->width;
    if (r.y1 > (int)m->height) r.y1 = (int)m->height;
    return r;
}

void st_control_map_paint(st_control_map *map, float cx, float cy, float radius, uint8_t material, float strength,
                          st_rect *dirty) {
    st_rect none = {0, 0, 0, 0}, changed = none;
    if (dirty) *dirty = none;
    if (!(radius > 0) || !isfinite(cx) || !isfinite(cy) || !(strength > 0) || radius > 65536.0f) return;
    strength = clampf(strength, 0, 1);
    st_rect r = clip(map, (st_rect){(int)floorf(cx - radius), (int)floorf(cy - radius), (int)ceilf(cx + radius) + 1,
                                    (int)ceilf(cy + radius) + 1});
    for (int y = r.y0; y < r.y1; y++)
        for (int x = r.x0; x < r.x1; x++) {
            float dx = (float)x + 0.5f - cx, dy = (float)y + 0.5f - cy;
            float d = sqrtf(dx * dx + dy * dy) / radius;
            if (d >= 1.0f) continue;
            float add = strength * (1.0f - smooth(0.6f, 1.0f, d));
            uint8_t *t = map->texels + ((size_t)y * map->width + (size_t)x) * 4;
            uint8_t old[4];
            memcpy(old, t, 4);
            if (t[1] != material) { /* the visible mix becomes the base, the painted material the new overlay */
                if (t[2] >= 128) t[0] = t[1];
                t[1] = material;
                t[2] = 0;
            }
            float blend = (float)t[2] / 255.0f;
            blend += (1.0f - blend) * add;
            t[2] = (uint8_t)lrintf(clampf(blend, 0, 1) * 255.0f);
            if (memcmp(old, t, 4)) {
                st_rect px = {x, y, x + 1, y + 1};
                changed = st_rect_empty(changed) ? px : st_rect_union(changed, px);
            }
        }
    if (dirty) *dirty = changed;
}

void st_control_map_read_rect(const st_control_map *map, st_rect rect, uint8_t *out) {
    rect = clip(map, rect);
    if (st_rect_empty(rect)) return;
    size_t row = (size_t)(rect.x1 - rect.x0) * 4;
    for (int y = rect.y0; y < rect.y1; y++)
        memcpy(out + (size_t)(y - rect.y0) * row, map->texels + ((size_t)y * map->width + (size_t)rect.x0) * 4, row);
}

void st_control_map_write_rect(st_control_map *map, st_rect rect, const uint8_t *in) {
    rect = clip(map, rect);
    if (st_rect_empty(rect)) return;
    size_t row = (size_t)(rect.x1 - rect.x0) * 4;
    for (int y = rect.y0; y < rect.y1; y++)
        memcpy(map->texels + ((size_t)y * map->width + (size_t)rect.x0) * 4, in + (size_t)(y - rect.y0) * row, row);
}
