/* The page's generated world in bands of rows (gen_world_* of the terrain module, so the bytes are st_gen_world's):
 * the page's instance begins the world, makes its own band, copies in the planes of the bands the workers made
 * (each in its own wasm instance: web_band_make) and finishes it. Without shared memory a worker cannot write
 * into the page's planes, so each band crosses once, as four transferred buffers. */
#include <emscripten.h>
#include <stdlib.h>
#include <string.h>

#include "gen_bands.h"
#include "terrain/gen_internal.h"

static gen_world *begun;

st_result web_bands_begin(uint32_t seed, uint32_t width, uint32_t height, st_error *err) {
    gen_world_abort(begun);
    begun = NULL;
    st_gen_desc d = {.seed = seed, .width = width, .height = height};
    return gen_world_begin(&d, &begun, err);
}

st_result web_bands_finish(st_level **out, st_error *err) {
    *out = NULL;
    if (!begun) return st_error_set(err, ST_ERR_INVALID, "no world is being generated");
    gen_world *w = begun;
    begun = NULL;
    return gen_world_finish(w, out, err);
}

EMSCRIPTEN_KEEPALIVE uint32_t web_gen_width(void) { return begun ? begun->g.w : 0; }
EMSCRIPTEN_KEEPALIVE uint32_t web_gen_height(void) { return begun ? begun->g.h : 0; }

/* Rows [y0, y1) of the begun world's terrain, made here (y0 a multiple of GEN_WORLD_ROWS). */
EMSCRIPTEN_KEEPALIVE int web_gen_rows(uint32_t y0, uint32_t y1) {
    if (!begun || y0 % GEN_WORLD_ROWS || y0 >= y1 || y1 > begun->g.h) return 1;
    return gen_world_terrain(begun, y0, y1) ? 0 : 1;
}

/* Where row y of plane i (0 heights, 1 metadata, 2 scores, 3 candidates) of the begun world starts: rows of w,
 * w, w and 2w bytes, the page copies a worker's band there. */
EMSCRIPTEN_KEEPALIVE uint8_t *web_gen_plane(uint32_t i, uint32_t y) {
    if (!begun || y >= begun->g.h) return NULL;
    gen_planes p = gen_planes_at(&begun->planes, 0, y);
    return i == 0 ? p.heights : i == 1 ? p.meta : i == 2 ? (uint8_t *)p.score : i == 3 ? (uint8_t *)p.cand : NULL;
}

/* ---- a worker's band: the terrain of rows [y0, y1) alone, into planes of the band's own ---------------------- */

static struct {
    gen_planes p;
    st_error err;
} band;

EMSCRIPTEN_KEEPALIVE void web_band_free(void) {
    free(band.p.heights);
    free(band.p.meta);
    free(band.p.score);
    free(band.p.cand);
    band.p = (gen_planes){0};
}

EMSCRIPTEN_KEEPALIVE const char *web_band_error(void) { return band.err.message; }

EMSCRIPTEN_KEEPALIVE int web_band_make(uint32_t seed, uint32_t width, uint32_t height, uint32_t y0, uint32_t y1) {
    web_band_free();
    band.err = (st_error){0};
    st_gen_desc d = {.seed = seed, .width = width, .height = height};
    bool is_default;
    st_result r = gen_resolve(&d, ST_LEVEL_MAX_DIM, &d, &is_default, &band.err);
    if (r) return (int)r;
    if (y0 % GEN_WORLD_ROWS || y0 >= y1 || y1 > d.height)
        return (int)st_error_set(&band.err, ST_ERR_INVALID, "band [%u, %u) of a %u-row world", y0, y1, d.height);
    gen_ctx *g = malloc(sizeof *g);
    size_t texels = (size_t)d.width * (y1 - y0);
    band.p = (gen_planes){malloc(texels), malloc(texels), malloc(texels), malloc(2 * texels), d.width};
    bool ok = g && band.p.heights && band.p.meta && band.p.score && band.p.cand;
    if (ok) {
        gen_ctx_init(g, &d);
        for (uint32_t y = y0; ok && y < y1; y += GEN_WORLD_ROWS) { /* a call a block, as gen_world_terrain */
            uint32_t rows = y1 - y < GEN_WORLD_ROWS ? y1 - y : GEN_WORLD_ROWS;
            gen_planes o = gen_planes_at(&band.p, 0, y - y0);
            ok = gen_terrain_rect(g, 0, y, d.width, rows, &o);
        }
    }
    free(g);
    if (!ok) {
        web_band_free();
        return (int)st_error_set(&band.err, ST_ERR_NOMEM, "out of memory making rows %u..%u of the world", y0, y1);
    }
    return 0;
}

/* Plane i of the band made (as web_gen_plane's, from its first row). */
EMSCRIPTEN_KEEPALIVE uint8_t *web_band_plane(uint32_t i) {
    return i == 0 ? band.p.heights : i == 1 ? band.p.meta : i == 2 ? (uint8_t *)band.p.score
                                                         : i == 3 ? (uint8_t *)band.p.cand : NULL;
}

/* ---- the rows in sight first: a region of the begun world, finished alone ------------------------------------ */

/* The opening of the scores reads 3×3 pairs twice, so a region is made with two pairs (four texels) either side
 * and two rows above and below (as gen_region.c makes its regions): its texels then come out as the same texels
 * of the whole world, given the world's dual threshold. */
#define REGION_MARGIN_X 4u
#define REGION_MARGIN_Y 2u

/* The regions made since the last reset, in the world (each may wrap), with their texels (w bytes a row), to hold
 * against the finished world. */
#define MAX_REGIONS 1024
typedef struct kept_region {
    uint32_t x0, y0, w, h;
    uint8_t *heights, *meta;
} kept_region;
static kept_region kept[MAX_REGIONS];
static uint32_t kept_count;

void web_bands_region_reset(void) {
    for (uint32_t i = 0; i < kept_count; i++) {
        free(kept[i].heights);
        free(kept[i].meta);
    }
    kept_count = 0;
}

st_result web_bands_region(uint32_t threshold, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, st_level *into,
                           st_error *err) {
    if (!begun) return st_error_set(err, ST_ERR_INVALID, "no world is being generated");
    const gen_ctx *g = &begun->g;
    if ((x0 | w) & 1u || !w || !h || w > g->w || h > g->h || x0 >= g->w || y0 >= g->h || into->width != g->w ||
        into->height != g->h)
        return st_error_set(err, ST_ERR_INVALID, "region %ux%u at (%u, %u) of a %ux%u world", w, h, x0, y0, g->w,
                            g->h);
    uint32_t ew = w + 2 * REGION_MARGIN_X, eh = h + 2 * REGION_MARGIN_Y, pw = ew / 2;
    size_t texels = (size_t)ew * eh, pairs = texels / 2;
    bool slabs = g->d.dual_percent > 0.0f;
    gen_planes p = {malloc(texels), malloc(texels), malloc(pairs * sizeof(uint16_t)), malloc(pairs * sizeof(uint32_t)),
                    ew};
    uint16_t *eroded = slabs ? malloc(pairs * sizeof(uint16_t)) : NULL;
    if (kept_count == MAX_REGIONS) web_bands_region_reset();
    kept_region region = {x0, y0, w, h, malloc((size_t)w * h), malloc((size_t)w * h)};
    bool ok = p.heights && p.meta && p.score && p.cand && (!slabs || eroded) && region.heights && region.meta;
    /* the terrain in pieces that do not cross the world's edges, wrapping around it as the world does */
    for (uint32_t ly = 0; ok && ly < eh;) {
        uint32_t ay = (uint32_t)(((uint64_t)y0 + g->h - REGION_MARGIN_Y + ly) % g->h), ry = g->h - ay;
        if (ry > eh - ly) ry = eh - ly;
        if (ry > GEN_WORLD_ROWS) ry = GEN_WORLD_ROWS; /* a call a block, as gen_world_terrain */
        for (uint32_t lx = 0; ok && lx < ew;) {
            uint32_t ax = (uint32_t)(((uint64_t)x0 + g->w - REGION_MARGIN_X + lx) % g->w), rx = g->w - ax;
            if (rx > ew - lx) rx = ew - lx;
            gen_planes at = gen_planes_at(&p, lx, ly);
            ok = gen_terrain_rect(g, ax, ay, rx, ry, &at);
            lx += rx;
        }
        ly += ry;
    }
    if (ok && slabs) {
        gen_erode(p.score, eroded, pw, eh, false, 1, eh - 1, 1, pw - 1);
        gen_dilate(p.score, eroded, pw, eh, false, 2, eh - 2, 2, pw - 2);
        gen_apply_dual(&p, REGION_MARGIN_Y, REGION_MARGIN_Y + h, REGION_MARGIN_X / 2, REGION_MARGIN_X / 2 + w / 2,
                       threshold);
    }
    if (ok) {
        uint8_t *hp, *mp;
        st_level_planes_mut(into, &hp, &mp);
        for (uint32_t j = 0; j < h; j++) {
            size_t from = (size_t)(REGION_MARGIN_Y + j) * ew + REGION_MARGIN_X;
            memcpy(region.heights + (size_t)j * w, p.heights + from, w);
            memcpy(region.meta + (size_t)j * w, p.meta + from, w);
            size_t row = (size_t)((y0 + j) % g->h) * g->w;
            for (uint32_t i = 0; i < w;) { /* in at most two runs: the region may wrap around in x */
                uint32_t ax = (x0 + i) % g->w, run = g->w - ax < w - i ? g->w - ax : w - i;
                memcpy(hp + row + ax, p.heights + from + i, run);
                memcpy(mp + row + ax, p.meta + from + i, run);
                i += run;
            }
        }
        kept[kept_count++] = region;
    }
    free(p.heights);
    free(p.meta);
    free(p.score);
    free(p.cand);
    free(eroded);
    if (!ok) {
        free(region.heights);
        free(region.meta);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory making a %ux%u region of the world", w, h);
    }
    return ST_OK;
}

int web_bands_region_matches(const st_level *world) {
    if (!kept_count) return -1;
    for (uint32_t k = 0; k < kept_count; k++) {
        const kept_region *r = &kept[k];
        if (world->width <= r->x0 || world->height <= r->y0) return 0;
        for (uint32_t j = 0; j < r->h; j++) {
            uint32_t y = (r->y0 + j) % world->height;
            const uint8_t *hr = st_level_height_row(world, y), *mr = st_level_meta_row(world, y);
            for (uint32_t i = 0; i < r->w; i++) {
                uint32_t x = (r->x0 + i) % world->width;
                if (hr[x] != r->heights[(size_t)j * r->w + i] || mr[x] != r->meta[(size_t)j * r->w + i]) return 0;
            }
        }
    }
    return 1;
}
