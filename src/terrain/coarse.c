/* The coarse levels of the two-interval field: a level half the size of its parent, each coarse texel pair
 * standing for a 4×2 block of fine texels (2×2 fine pairs), derived conservatively — every height solid in any
 * fine texel of the block is solid in the coarse pair — and keeping the gap between a floor and a slab where the
 * whole block shares it (docs/paged-terrain.md, "Coarse levels"). */
#include <stdlib.h>
#include <string.h>

#include "strata/level.h"

/* The solid set of one fine column: [0, low] ∪ [mid, high] when dual. */
typedef struct column {
    int low, mid, high;
    bool dual;
    uint8_t low_type, high_type;
} column;

/* One coarse texel pair from the 8 fine texels of its block (outside ones hold nothing and add nothing).
 * F = the floor: the highest fine floor, raised through every slab that reaches it (a slab starting at or below
 * F + 1 joins the floor: the two intervals touch); the slab: from the lowest remaining slab bottom M down-rounded
 * to the pair encoding's 8-step grid above F (so it only grows), to the highest remaining top. A block with no
 * slab left above its floor gives two single texels, each the highest floor of its own 2×2 fine texels, so
 * single-valued terrain keeps its coarse detail. */
static void coarse_pair(const st_level *fine, int fx, int fy, uint8_t out_h[2], uint8_t out_m[2]) {
    column c[8];
    int n = 0;
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 4; i++) {
            st_texel t = st_level_texel(fine, fx + i, fy + j);
            if (t.outside) continue;
            c[n++] = (column){t.low, t.mid, t.high, t.dual && t.mid <= t.high, t.low_type, t.high_type};
        }
    /* floor_half: the top of everything solid in each coarse texel's own 2×2 fine texels (slab tops included: used
     * only when no slab stands above the block's floor, so each half's slabs lie under it and fill in) */
    int floor_all = -1, floor_half[2] = {-1, -1};
    uint8_t type_all = 0, type_half[2] = {0, 0};
    for (int j = 0, k = 0; j < 2; j++)
        for (int i = 0; i < 4; i++) {
            st_texel t = st_level_texel(fine, fx + i, fy + j);
            if (t.outside) continue;
            const column *cc = &c[k++];
            if (cc->low > floor_all) floor_all = cc->low, type_all = cc->low_type;
            int top = cc->dual ? cc->high : cc->low;
            if (top > floor_half[i / 2]) floor_half[i / 2] = top, type_half[i / 2] = cc->dual ? cc->high_type : cc->low_type;
        }
    /* slabs reaching the floor join it, until none does */
    bool joined = true;
    int floor_top = floor_all;
    uint8_t top_type = type_all;
    while (joined) {
        joined = false;
        for (int k = 0; k < n; k++)
            if (c[k].dual && c[k].mid <= floor_top + 1 && c[k].high > floor_top) {
                floor_top = c[k].high;
                top_type = c[k].high_type;
                joined = true;
            }
    }
    int mid = 256, high = -1;
    uint8_t high_type = 0;
    for (int k = 0; k < n; k++)
        if (c[k].dual && c[k].high > floor_top) {
            if (c[k].mid < mid) mid = c[k].mid;
            if (c[k].high > high) high = c[k].high, high_type = c[k].high_type;
        }
    uint32_t types = fine->terrain_types;
    if (high < 0) { /* no slab stands above the floor: two singles (one floor where slabs joined it) */
        for (int h = 0; h < 2; h++) {
            bool joined_floor = floor_top != floor_all;
            int f = joined_floor ? floor_top : floor_half[h] < 0 ? 0 : floor_half[h];
            uint8_t type = joined_floor ? top_type : type_half[h];
            uint8_t hh[2], mm[2];
            st_level_encode_dual(types, (uint8_t)f, (uint8_t)f, (uint8_t)f, type, type, hh, mm);
            out_h[h] = (uint8_t)f;
            out_m[h] = (uint8_t)(mm[0] & ~(ST_META_DUAL | ST_META_DELTA_MASK)); /* the type bits alone */
        }
        return;
    }
    int d = (mid - floor_top) / 8; /* the pair keeps mid = low + 8·d (d ≤ 15): rounded down, the slab grows */
    if (d > 15) d = 15;
    if (d < 0) d = 0;
    st_level_encode_dual(types, (uint8_t)floor_top, (uint8_t)(floor_top + 8 * d), (uint8_t)high, top_type, high_type,
                         out_h, out_m);
}

st_result st_level_coarsen(const st_level *fine, st_level **out, st_error *err) {
    *out = NULL;
    if (fine->width < 4 || fine->height < 2)
        return st_error_set(err, ST_ERR_INVALID, "a level of %ux%u has no coarser level", fine->width, fine->height);
    st_level *c = NULL;
    st_result r = st_level_create(fine->width / 2, fine->height / 2, &c, err);
    if (r) return r;
    c->terrain_types = fine->terrain_types;
    memcpy(c->begin_color, fine->begin_color, 16);
    memcpy(c->end_color, fine->end_color, 16);
    memcpy(c->palette, fine->palette, sizeof c->palette);
    memcpy(c->name, fine->name, sizeof c->name);
    c->wrap_x = fine->wrap_x;
    c->wrap_y = fine->wrap_y;
    uint8_t *h, *m;
    st_level_planes_mut(c, &h, &m);
    for (uint32_t y = 0; y < c->height; y++)
        for (uint32_t x = 0; x < c->width; x += 2) {
            size_t i = (size_t)y * c->width + x;
            coarse_pair(fine, (int)(2 * x), (int)(2 * y), h + i, m + i);
        }
    *out = c;
    return ST_OK;
}
