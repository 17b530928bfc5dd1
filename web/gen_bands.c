/* The page's generated world in bands of rows (gen_world_* of the terrain module, so the bytes are st_gen_world's):
 * the page's instance begins the world, makes its own band, copies in the planes of the bands the workers made
 * (each in its own wasm instance: web_band_make) and finishes it. Without shared memory a worker cannot write
 * into the page's planes, so each band crosses once, as four transferred buffers. */
#include <emscripten.h>
#include <stdlib.h>

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
