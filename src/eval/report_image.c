/* Picture reports: mosaics of tiles (the compare grid, the per-method heat maps) with integer downscaling —
 * a box filter for pictures, a priority filter for heat maps so a single wrong pixel stays visible. */
#include <stdlib.h>
#include <string.h>

#include "strata/eval.h"

#define GUTTER 2u

st_result st_mosaic_create(uint32_t cols, uint32_t rows, uint32_t tile_w, uint32_t tile_h, st_mosaic *out,
                           st_error *err) {
    memset(out, 0, sizeof *out);
    if (!cols || !rows || !tile_w || !tile_h || cols > 256 || rows > 256 || tile_w > 8192 || tile_h > 8192)
        return st_error_set(err, ST_ERR_INVALID, "mosaic %ux%u of %ux%u tiles: bad size", cols, rows, tile_w, tile_h);
    out->cols = cols;
    out->rows = rows;
    out->tile_w = tile_w;
    out->tile_h = tile_h;
    out->width = cols * tile_w + (cols + 1) * GUTTER;
    out->height = rows * tile_h + (rows + 1) * GUTTER;
    size_t n = (size_t)out->width * out->height;
    out->rgba = malloc(n * 4);
    if (!out->rgba) return st_error_set(err, ST_ERR_NOMEM, "mosaic %ux%u: out of memory", out->width, out->height);
    for (size_t k = 0; k < n; k++) { /* gutters and unfilled tiles: near-black */
        out->rgba[4 * k] = out->rgba[4 * k + 1] = out->rgba[4 * k + 2] = 16;
        out->rgba[4 * k + 3] = 255;
    }
    return ST_OK;
}

void st_mosaic_free(st_mosaic *m) {
    if (!m) return;
    free(m->rgba);
    memset(m, 0, sizeof *m);
}

/* Heat-map classes are pure colours with no green (red, blue, magenta); they outrank the ramp. */
static int priority_key(const uint8_t *p) {
    if (p[1] == 0 && (p[0] || p[2])) return 1000 + p[0] + p[2];
    return p[0] + p[1] + p[2];
}

void st_mosaic_put(st_mosaic *m, uint32_t col, uint32_t row, const uint8_t *rgba, uint32_t w, uint32_t h,
                   uint32_t factor, bool priority) {
    if (col >= m->cols || row >= m->rows || !factor) return;
    uint32_t ox = GUTTER + col * (m->tile_w + GUTTER), oy = GUTTER + row * (m->tile_h + GUTTER);
    uint32_t tw = w / factor < m->tile_w ? w / factor : m->tile_w;
    uint32_t th = h / factor < m->tile_h ? h / factor : m->tile_h;
    for (uint32_t y = 0; y < th; y++)
        for (uint32_t x = 0; x < tw; x++) {
            uint8_t *dst = m->rgba + 4 * ((size_t)(oy + y) * m->width + ox + x);
            if (priority) {
                const uint8_t *best = NULL;
                int best_key = -1;
                for (uint32_t sy = 0; sy < factor; sy++)
                    for (uint32_t sx = 0; sx < factor; sx++) {
                        const uint8_t *p = rgba + 4 * ((size_t)(y * factor + sy) * w + x * factor + sx);
                        int k = priority_key(p);
                        if (k > best_key) best_key = k, best = p;
                    }
                memcpy(dst, best, 3);
            } else {
                uint32_t sum[3] = {0, 0, 0}, cnt = factor * factor;
                for (uint32_t sy = 0; sy < factor; sy++)
                    for (uint32_t sx = 0; sx < factor; sx++) {
                        const uint8_t *p = rgba + 4 * ((size_t)(y * factor + sy) * w + x * factor + sx);
                        sum[0] += p[0], sum[1] += p[1], sum[2] += p[2];
                    }
                for (int c = 0; c < 3; c++) dst[c] = (uint8_t)((sum[c] + cnt / 2) / cnt);
            }
            dst[3] = 255;
        }
}
