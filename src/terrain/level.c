/* st_level: allocation, access to the planes (rows, rectangles, the GPU's pair packing), texel-pair decoding,
 * the SOLID predicate, pair encoding and validity. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/level.h"

st_rect st_rect_union(st_rect a, st_rect b) {
    if (st_rect_empty(a)) return b;
    if (st_rect_empty(b)) return a;
    st_rect r = {a.x0 < b.x0 ? a.x0 : b.x0, a.y0 < b.y0 ? a.y0 : b.y0, a.x1 > b.x1 ? a.x1 : b.x1,
                 a.y1 > b.y1 ? a.y1 : b.y1};
    return r;
}

static int64_t rect_area(st_rect r) { return st_rect_empty(r) ? 0 : (int64_t)(r.x1 - r.x0) * (r.y1 - r.y0); }

static bool rect_holds(st_rect outer, st_rect inner) {
    return outer.x0 <= inner.x0 && outer.y0 <= inner.y0 && inner.x1 <= outer.x1 && inner.y1 <= outer.y1;
}

void st_rect_list_add(st_rect_list *list, st_rect r) {
    if (st_rect_empty(r)) return;
    for (uint32_t i = 0; i < list->count; i++)
        if (rect_holds(list->rect[i], r)) return;
    /* those r holds give it their places */
    uint32_t n = 0;
    for (uint32_t i = 0; i < list->count; i++)
        if (!rect_holds(r, list->rect[i])) list->rect[n++] = list->rect[i];
    list->count = n;
    if (n < ST_RECT_LIST_MAX) {
        list->rect[list->count++] = r;
        return;
    }
    /* full: of the rectangles and r, the two whose box adds the fewest texels to theirs become that box, so
     * rectangles far apart stay apart (a few hundred pairs: nothing beside what they cost to rebuild) */
    st_rect all[ST_RECT_LIST_MAX + 1];
    memcpy(all, list->rect, sizeof list->rect);
    all[ST_RECT_LIST_MAX] = r;
    uint32_t bi = 0, bj = 1;
    int64_t best = INT64_MAX;
    for (uint32_t i = 0; i <= ST_RECT_LIST_MAX; i++)
        for (uint32_t j = i + 1; j <= ST_RECT_LIST_MAX; j++) {
            int64_t grow = rect_area(st_rect_union(all[i], all[j])) - rect_area(all[i]) - rect_area(all[j]);
            if (grow < best) best = grow, bi = i, bj = j;
        }
    all[bi] = st_rect_union(all[bi], all[bj]);
    all[bj] = all[ST_RECT_LIST_MAX];
    memcpy(list->rect, all, sizeof list->rect);
}

static bool rects_overlap(st_rect a, st_rect b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

uint32_t st_rects_disjoint(st_rect *rects, uint32_t count) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        if (!st_rect_empty(rects[i])) rects[n++] = rects[i];
    /* a merged box may meet a rectangle neither of its parts met: start over after each merge (a few dozen) */
    bool merged = true;
    while (merged) {
        merged = false;
        for (uint32_t i = 0; i < n && !merged; i++)
            for (uint32_t j = i + 1; j < n && !merged; j++)
                if (rects_overlap(rects[i], rects[j])) {
                    rects[i] = st_rect_union(rects[i], rects[j]);
                    rects[j] = rects[--n];
                    merged = true;
                }
    }
    return n;
}

st_result st_level_check_size(uint64_t width, uint64_t height, st_error *err) {
    if (width < 2 || height < 1 || !st_is_pow2((uint32_t)width) || !st_is_pow2((uint32_t)height) ||
        width > ST_LEVEL_MAX_DIM || height > ST_LEVEL_MAX_DIM)
        return st_error_set(err, ST_ERR_INVALID,
                            "level size %llux%llu: each side must be a power of two from 2 to %u",
                            (unsigned long long)width, (unsigned long long)height, ST_LEVEL_MAX_DIM);
    if (width * height > ST_LEVEL_MAX_TEXELS)
        return st_error_set(err, ST_ERR_INVALID, "level size %llux%llu is past the 2^30-texel limit (%llu texels)",
                            (unsigned long long)width, (unsigned long long)height,
                            (unsigned long long)ST_LEVEL_MAX_TEXELS);
    return ST_OK;
}

st_result st_level_create(uint32_t width, uint32_t height, st_level **out, st_error *err) {
    *out = NULL;
    st_result r = st_level_check_size(width, height, err);
    if (r) return r;
    st_level *l = calloc(1, sizeof *l);
    size_t n = (size_t)width * height;
    if (l) {
        l->heights = calloc(n, 1);
        l->meta = calloc(n, 1);
        l->section_power = 7;
        uint32_t sections = height >> l->section_power ? height >> l->section_power : 1;
        l->flood = calloc(sections, 1);
    }
    if (!l || !l->heights || !l->meta || !l->flood) {
        st_level_destroy(l);
        return st_error_set(err, ST_ERR_NOMEM, "cannot allocate a %ux%u level", width, height);
    }
    l->width = width;
    l->height = height;
    l->wrap_x = l->wrap_y = true;
    l->terrain_types = 8;
    snprintf(l->name, sizeof l->name, "untitled");
    st_level_default_palette(l);
    *out = l;
    return ST_OK;
}

void st_level_destroy(st_level *level) {
    if (!level) return;
    free(level->heights);
    free(level->meta);
    free(level->flood);
    free(level->colors);
    free(level);
}

st_result st_level_clone(const st_level *src, st_level **out, st_error *err) {
    st_result r = st_level_create(src->width, src->height, out, err);
    if (r) return r;
    st_level *l = *out;
    size_t n = (size_t)src->width * src->height;
    uint8_t *h = l->heights, *m = l->meta, *f = l->flood;
    *l = *src;
    l->heights = h;
    l->meta = m;
    l->flood = f;
    l->colors = NULL;
    if (src->colors) {
        l->colors = malloc(n * 3);
        if (!l->colors) {
            st_level_destroy(l);
            *out = NULL;
            return st_error_set(err, ST_ERR_NOMEM, "out of memory");
        }
        memcpy(l->colors, src->colors, n * 3);
    }
    memcpy(h, src->heights, n);
    memcpy(m, src->meta, n);
    uint32_t sections = src->height >> src->section_power ? src->height >> src->section_power : 1;
    memcpy(f, src->flood, sections);
    return ST_OK;
}

void st_level_planes(const st_level *level, const uint8_t **heights, const uint8_t **meta) {
    if (heights) *heights = level->heights;
    if (meta) *meta = level->meta;
}

void st_level_planes_mut(st_level *level, uint8_t **heights, uint8_t **meta) {
    if (heights) *heights = level->heights;
    if (meta) *meta = level->meta;
}

static bool rect_inside(const st_level *level, st_rect r) {
    return !st_rect_empty(r) && r.x0 >= 0 && r.y0 >= 0 && r.x1 <= (int32_t)level->width &&
           r.y1 <= (int32_t)level->height;
}

size_t st_level_pack_pairs(const st_level *level, st_rect rect, uint8_t *dst) {
    if (!rect_inside(level, rect)) return 0;
    uint32_t px0 = (uint32_t)rect.x0 / 2, px1 = ((uint32_t)rect.x1 + 1) / 2;
    uint8_t *p = dst;
    for (uint32_t y = (uint32_t)rect.y0; y < (uint32_t)rect.y1; y++) {
        const uint8_t *h = st_level_height_row(level, y), *m = st_level_meta_row(level, y);
        for (uint32_t x = 2 * px0; x < 2 * px1; x += 2) {
            *p++ = h[x];
            *p++ = m[x];
            *p++ = h[x + 1];
            *p++ = m[x + 1];
        }
    }
    return (size_t)(p - dst);
}

bool st_level_read_rect(const st_level *level, st_rect rect, uint8_t *heights, uint8_t *meta) {
    if (!rect_inside(level, rect)) return false;
    size_t w = (size_t)(rect.x1 - rect.x0);
    for (uint32_t y = (uint32_t)rect.y0; y < (uint32_t)rect.y1; y++, heights += w, meta += w) {
        memcpy(heights, st_level_height_row(level, y) + rect.x0, w);
        memcpy(meta, st_level_meta_row(level, y) + rect.x0, w);
    }
    return true;
}

bool st_level_write_rect(st_level *level, st_rect rect, const uint8_t *heights, const uint8_t *meta) {
    if (!rect_inside(level, rect)) return false;
    size_t w = (size_t)(rect.x1 - rect.x0);
    for (uint32_t y = (uint32_t)rect.y0; y < (uint32_t)rect.y1; y++, heights += w, meta += w) {
        size_t row = (size_t)y * level->width + (size_t)rect.x0;
        memcpy(level->heights + row, heights, w);
        memcpy(level->meta + row, meta, w);
    }
    return true;
}

bool st_level_copy_texels(st_level *dst, const st_level *src) {
    if (dst->width != src->width || dst->height != src->height) return false;
    size_t n = (size_t)src->width * src->height;
    memcpy(dst->heights, src->heights, n);
    memcpy(dst->meta, src->meta, n);
    return true;
}

uint32_t st_meta_type(const st_level *level, uint8_t meta) {
    if (level->terrain_types == 16) return (meta & ST_META_TYPE_MASK16) >> ST_META_TYPE_SHIFT16;
    return (meta & ST_META_TYPE_MASK8) >> ST_META_TYPE_SHIFT8;
}

st_texel st_level_texel(const st_level *level, int x, int y) {
    if (!st_level_contains(level, x, y)) return (st_texel){.outside = true}; /* past a non-wrapping edge */
    uint32_t w = level->width, h = level->height;
    uint32_t xi = (uint32_t)x & (w - 1), yi = (uint32_t)y & (h - 1); /* power-of-two wrap */
    size_t row = (size_t)yi * w;
    size_t even = row + (xi & ~1u), odd = even + 1;
    uint8_t me = level->meta[even];
    st_texel t;
    if (me & ST_META_DUAL) { /* the even texel's flag decides (the GPU, converter and reference rule) */
        uint8_t mo = level->meta[odd];
        unsigned d = ((me & ST_META_DELTA_MASK) << 2) | (mo & ST_META_DELTA_MASK);
        t.low = level->heights[even];
        t.high = level->heights[odd];
        unsigned mid = (unsigned)t.low + (d << ST_DELTA_POWER);
        t.mid = (uint8_t)(mid < t.high ? mid : t.high);
        t.low_type = (uint8_t)st_meta_type(level, me);
        t.high_type = (uint8_t)st_meta_type(level, mo);
        t.dual = true;
    } else {
        size_t i = row + xi;
        t.low = t.mid = t.high = level->heights[i];
        t.low_type = t.high_type = (uint8_t)st_meta_type(level, level->meta[i]);
        t.dual = false;
    }
    t.outside = false;
    return t;
}

bool st_level_solid(const st_level *level, float x, float y, float z) {
    /* floorf keeps negative coordinates in the right texel before wrapping */
    int xi = (int)__builtin_floorf(x), yi = (int)__builtin_floorf(y);
    return st_texel_solid(st_level_texel(level, xi, yi), z);
}

static uint8_t type_bits(uint32_t terrain_types, uint8_t type) {
    if (terrain_types == 16) return (uint8_t)((type & 15u) << ST_META_TYPE_SHIFT16);
    return (uint8_t)((type & 7u) << ST_META_TYPE_SHIFT8);
}

void st_level_encode_dual(uint32_t terrain_types, uint8_t low, uint8_t mid, uint8_t high, uint8_t low_type,
                          uint8_t high_type, uint8_t heights[2], uint8_t meta[2]) {
    if (high < low) high = low;
    unsigned gap = mid > low ? (unsigned)(mid - low) : 0;
    unsigned d = (gap + 4) >> ST_DELTA_POWER; /* nearest representable ceiling */
    if (d > 15) d = 15;
    heights[0] = low;
    heights[1] = high;
    meta[0] = (uint8_t)(ST_META_DUAL | type_bits(terrain_types, low_type) | ((d >> 2) & 3u));
    meta[1] = (uint8_t)(ST_META_DUAL | type_bits(terrain_types, high_type) | (d & 3u));
}

void st_level_set_dual(st_level *level, int x_even, int y, uint8_t low, uint8_t mid, uint8_t high,
                       uint8_t low_type, uint8_t high_type) {
    uint32_t w = level->width;
    size_t even = (size_t)((uint32_t)y & (level->height - 1)) * w + ((uint32_t)x_even & (w - 1) & ~1u);
    st_level_encode_dual(level->terrain_types, low, mid, high, low_type, high_type, level->heights + even,
                         level->meta + even);
}

void st_level_set_single(st_level *level, int x, int y, uint8_t h, uint8_t type) {
    uint32_t w = level->width;
    size_t i = (size_t)((uint32_t)y & (level->height - 1)) * w + ((uint32_t)x & (w - 1));
    level->heights[i] = h;
    level->meta[i] = type_bits(level->terrain_types, type);
}

bool st_level_valid(const st_level *level, st_error *err) {
    uint32_t w = level->width;
    for (uint32_t y = 0; y < level->height; y++) {
        const uint8_t *m = level->meta + (size_t)y * w, *h = level->heights + (size_t)y * w;
        for (uint32_t x = 0; x < w; x += 2) {
            bool de = m[x] & ST_META_DUAL, dodd = m[x + 1] & ST_META_DUAL;
            if (de != dodd) {
                st_error_set(err, ST_ERR_FORMAT, "texel pair (%u,%u): dual flags disagree", x, y);
                return false;
            }
            if (de && h[x + 1] < h[x]) {
                st_error_set(err, ST_ERR_FORMAT, "texel pair (%u,%u): slab top %u below floor %u", x, y,
                             h[x + 1], h[x]);
                return false;
            }
        }
    }
    return true;
}

/* The default palette: one 32- or 16-entry ramp per material from near-black to the material's colour
 * (the Vangers layout: Begin 1 32 64 72 88 104 112 120, End 31 63 71 87 103 111 119 127). */
void st_level_default_palette(st_level *level) {
    static const uint8_t begin[8] = {1, 32, 64, 72, 88, 104, 112, 120};
    static const uint8_t end[8] = {31, 63, 71, 87, 103, 111, 119, 127};
    static const st_rgb8 bright[8] = {
        {52, 96, 168},   /* 0 water */
        {188, 160, 108}, /* 1 sand and soil */
        {104, 150, 64},  /* 2 grass and moss */
        {150, 146, 136}, /* 3 rock */
        {170, 92, 62},   /* 4 red clay */
        {92, 86, 104},   /* 5 basalt, cave stone */
        {226, 222, 206}, /* 6 chalk, salt flats */
        {150, 112, 70},  /* 7 rust, worked metal */
    };
    memset(level->palette, 0, sizeof level->palette);
    memset(level->begin_color, 0, sizeof level->begin_color);
    memset(level->end_color, 0, sizeof level->end_color);
    for (int t = 0; t < 8; t++) {
        level->begin_color[t] = begin[t];
        level->end_color[t] = end[t];
        int n = end[t] - begin[t];
        for (int i = 0; i <= n; i++) {
            float k = 0.15f + 0.85f * (float)i / (float)n;
            level->palette[begin[t] + i] = (st_rgb8){(uint8_t)(bright[t].r * k), (uint8_t)(bright[t].g * k),
                                                     (uint8_t)(bright[t].b * k)};
        }
    }
    for (int i = 0; i < 16; i++) { /* the greys the original keeps at 224..239 */
        uint8_t g = (uint8_t)(i * 16);
        level->palette[224 + i] = (st_rgb8){g, g, g};
    }
}

st_rgb8 st_level_type_color(const st_level *level, uint32_t type) {
    return level->palette[level->end_color[type & 15u]];
}

void st_level_type_albedo(const st_level *level, uint32_t type, float rgb[3]) {
    st_rgb8 c = st_level_type_color(level, type);
    const uint8_t v[3] = {c.r, c.g, c.b};
    for (int k = 0; k < 3; k++) {
        float x = (float)v[k] / 255.0f;
        rgb[k] = x <= 0.04045f ? x / 12.92f : powf((x + 0.055f) / 1.055f, 2.4f);
    }
}

st_level_stats st_level_compute_stats(const st_level *level) {
    st_level_stats s = {0};
    s.min_height = 255;
    uint64_t dual = 0;
    for (uint32_t y = 0; y < level->height; y++) {
        for (uint32_t x = 0; x < level->width; x++) {
            st_texel t = st_level_texel(level, (int)x, (int)y);
            dual += t.dual;
            s.type_histogram[t.high_type & 15]++;
            if (t.low < s.min_height) s.min_height = t.low;
            if (t.high > s.max_height) s.max_height = t.high;
        }
    }
    s.dual_fraction = (double)dual / ((double)level->width * level->height);
    return s;
}
