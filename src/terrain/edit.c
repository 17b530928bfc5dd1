/* Terrain edits: the dig crater and its opposite. Both work on whole texel pairs so the pair encoding
 * stays valid: a pair touched by the brush loses its upper layer (slab destroyed, the floor remains)
 * before its height changes. Every edit returns the dirty rectangle that consumers re-upload. */
#include <stdlib.h>

#include "strata/level.h"

#define ST_EDIT_MAX_RADIUS 4096

static st_result check_brush(const st_level *level, int cx, int cy, int radius, int amount, st_error *err) {
    if (radius < 1 || radius > ST_EDIT_MAX_RADIUS)
        return st_error_set(err, ST_ERR_INVALID, "edit radius %d: must be 1..%d", radius, ST_EDIT_MAX_RADIUS);
    if (amount < 0 || amount > 255)
        return st_error_set(err, ST_ERR_INVALID, "edit depth %d: must be 0..255", amount);
    if (cx < 0 || cy < 0 || (uint32_t)cx >= level->width || (uint32_t)cy >= level->height)
        return st_error_set(err, ST_ERR_INVALID, "edit centre (%d,%d) is outside the %ux%u level", cx, cy,
                            level->width, level->height);
    return ST_OK;
}

/* Collapses a dual pair into two single texels at the floor height with the floor material. */
static void remove_upper_layer(st_level *level, size_t even) {
    if (!(level->meta[even] & ST_META_DUAL)) return;
    uint8_t keep = (uint8_t)(level->meta[even] & ~(ST_META_DUAL | ST_META_DELTA_MASK));
    level->meta[even] = keep;
    level->meta[even + 1] = keep;
    level->heights[even + 1] = level->heights[even];
}

static st_result apply_brush(st_level *level, int cx, int cy, int radius, int amount, int sign,
                             st_rect *dirty, st_error *err) {
    st_result r = check_brush(level, cx, cy, radius, amount, err);
    if (r) return r;
    /* box [c-r, c+r] clipped to the level, widened to whole pairs */
    int x0 = cx - radius < 0 ? 0 : (cx - radius) & ~1, y0 = cy - radius < 0 ? 0 : cy - radius;
    int x1 = cx + radius + 1, y1 = cy + radius + 1;
    if (x1 > (int)level->width) x1 = (int)level->width;
    if (y1 > (int)level->height) y1 = (int)level->height;
    x1 = (x1 + 1) & ~1;
    st_rect box = {0};
    double r2 = (double)radius * radius;
    for (int y = y0; y < y1; y++) {
        for (int x = x0; x < x1; x += 2) {
            double d0 = (double)(x - cx) * (x - cx) + (double)(y - cy) * (y - cy);
            double d1 = (double)(x + 1 - cx) * (x + 1 - cx) + (double)(y - cy) * (y - cy);
            if (d0 > r2 && d1 > r2) continue;
            size_t even = (size_t)y * level->width + (size_t)x;
            if (sign < 0) remove_upper_layer(level, even);
            for (int k = 0; k < 2; k++) {
                double d2 = k ? d1 : d0;
                if (d2 > r2) continue;
                int delta = (int)((double)amount * (1.0 - d2 / r2)); /* trunc, as in the game */
                size_t i = even + (size_t)k;
                bool dual_odd = k == 1 && (level->meta[even] & ST_META_DUAL);
                if (sign > 0 && (level->meta[even] & ST_META_DUAL) && !dual_odd) continue; /* raise the slab top */
                int h = level->heights[i] + sign * delta;
                level->heights[i] = (uint8_t)(h < 0 ? 0 : h > 255 ? 255 : h);
            }
            box = st_rect_union(box, (st_rect){x, y, x + 2, y + 1});
        }
    }
    if (dirty) *dirty = box;
    return ST_OK;
}

st_result st_level_dig(st_level *level, int cx, int cy, int radius, int depth, st_rect *dirty, st_error *err) {
    return apply_brush(level, cx, cy, radius, depth, -1, dirty, err);
}

st_result st_level_raise(st_level *level, int cx, int cy, int radius, int height, st_rect *dirty,
                         st_error *err) {
    return apply_brush(level, cx, cy, radius, height, +1, dirty, err);
}
