/* A top-down picture of one level of a DEM store: hypsometric tint (sea blues below the sea level, greens to browns
 * to white above) under a hillshade from the north-west, at the level's own resolution — for looking at a store
 * without a renderer (strata info --preview). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tiles/tiles_internal.h"

#define PREVIEW_MAX_SIDE 8192u

/* Colour stops of the tint, by height above the sea relative to the store's highest point. */
static void tint(double t, double *rgb) {
    static const double stops[][4] = {{0.00, 0.36, 0.55, 0.30}, {0.15, 0.55, 0.65, 0.35}, {0.35, 0.72, 0.66, 0.42},
                                      {0.60, 0.58, 0.47, 0.36}, {0.85, 0.80, 0.78, 0.76}, {1.00, 0.98, 0.98, 0.98}};
    if (t <= 0) t = 0;
    if (t >= 1) t = 1;
    for (int i = 1; i < 6; i++)
        if (t <= stops[i][0]) {
            double f = (t - stops[i - 1][0]) / (stops[i][0] - stops[i - 1][0]);
            for (int c = 0; c < 3; c++) rgb[c] = stops[i - 1][c + 1] + f * (stops[i][c + 1] - stops[i - 1][c + 1]);
            return;
        }
}

st_result st_store_preview(st_store *s, uint32_t level, const uint64_t region[4], uint8_t **rgb, uint32_t *width,
                           uint32_t *height, st_error *err) {
    *rgb = NULL;
    const st_store_info *in = st_store_get_info(s);
    if (in->kind != ST_TILE_DEM) return st_error_set(err, ST_ERR_INVALID, "a preview is of a DEM store");
    if (level >= in->levels) return st_error_set(err, ST_ERR_INVALID, "level %u: the store has %u", level, in->levels);
    uint64_t stride = 1ull << level;
    uint64_t lw = (in->width - 1) / stride + 1, lh = (in->height - 1) / stride + 1;
    uint64_t rx = 0, ry = 0, w = lw, h = lh;
    if (region) {
        if (!region[2] || !region[3] || region[0] >= lw || region[1] >= lh || region[2] > lw - region[0] ||
            region[3] > lh - region[1])
            return st_error_set(err, ST_ERR_INVALID, "region %llu,%llu,%llux%llu is not inside level %u's %llux%llu",
                                (unsigned long long)region[0], (unsigned long long)region[1],
                                (unsigned long long)region[2], (unsigned long long)region[3], level,
                                (unsigned long long)lw, (unsigned long long)lh);
        rx = region[0], ry = region[1], w = region[2], h = region[3];
    }
    if (w > PREVIEW_MAX_SIDE || h > PREVIEW_MAX_SIDE)
        return st_error_set(err, ST_ERR_INVALID, "level %u is %llux%llu samples: a preview is at most %u a side (use a "
                            "coarser --level)", level, (unsigned long long)w, (unsigned long long)h, PREVIEW_MAX_SIDE);
    float *z = malloc(sizeof(float) * w * h);
    uint8_t *out = malloc(3 * w * h);
    if (!z || !out) {
        free(z);
        free(out);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory for a %llux%llu preview", (unsigned long long)w,
                            (unsigned long long)h);
    }
    uint32_t nx, ny, span = st_tile_span(in->kind, in->tile_size);
    st_store_level_tiles(s, level, &nx, &ny);
    st_result r = ST_OK;
    uint32_t tx0 = (uint32_t)(rx / span), ty0 = (uint32_t)(ry / span);
    uint32_t tx1 = (uint32_t)((rx + w - 1) / span), ty1 = (uint32_t)((ry + h - 1) / span);
    for (uint32_t ty = ty0; ty <= ty1 && ty < ny && !r; ty++)
        for (uint32_t tx = tx0; tx <= tx1 && tx < nx && !r; tx++) {
            st_tile *t = NULL;
            if ((r = st_store_read_tile(s, (st_tile_key){level, tx, ty}, &t, err))) break;
            for (uint32_t j = 0; j <= span; j++) {
                uint64_t y = (uint64_t)ty * span + j;
                if (y < ry) continue;
                if (y >= ry + h) break;
                for (uint32_t i = 0; i <= span; i++) {
                    uint64_t x = (uint64_t)tx * span + i;
                    if (x < rx) continue;
                    if (x >= rx + w) break;
                    z[(y - ry) * w + (x - rx)] = st_tile_height(t, i, j);
                }
            }
            st_tile_destroy(t);
        }
    if (r) {
        free(z);
        free(out);
        return r;
    }
    double sx = in->spacing_x_m * (double)stride, sy = in->spacing_y_m * (double)stride;
    double top = in->max_m > in->sea_level_m ? in->max_m - in->sea_level_m : 1.0;
    double lx = -0.5, ly = -0.5, lz = 0.7071; /* sun in the north-west, 45° up */
    for (uint64_t y = 0; y < h; y++)
        for (uint64_t x = 0; x < w; x++) {
            uint64_t x0 = x ? x - 1 : x, x1 = x + 1 < w ? x + 1 : x, y0 = y ? y - 1 : y, y1 = y + 1 < h ? y + 1 : y;
            double dx = (z[y * w + x1] - z[y * w + x0]) / (sx * (double)(x1 - x0 ? x1 - x0 : 1));
            double dy = (z[y1 * w + x] - z[y0 * w + x]) / (sy * (double)(y1 - y0 ? y1 - y0 : 1));
            double nl = sqrt(dx * dx + dy * dy + 1.0);
            double shade = (-dx * lx - dy * ly + lz) / nl;
            shade = 0.35 + 0.65 * (shade < 0 ? 0 : shade);
            double c[3] = {0, 0, 0}, e = z[y * w + x] - in->sea_level_m;
            if (e <= 0) {
                double d = -e / 200.0;
                c[0] = 0.20 - 0.10 * fmin(d, 1.0), c[1] = 0.40 - 0.15 * fmin(d, 1.0), c[2] = 0.62 - 0.12 * fmin(d, 1.0);
                shade = 1.0;
            } else {
                tint(e / top, c);
            }
            for (int k = 0; k < 3; k++) {
                double v = c[k] * shade * 255.0 + 0.5;
                out[3 * (y * w + x) + (uint64_t)k] = (uint8_t)(v > 255 ? 255 : v);
            }
        }
    free(z);
    *rgb = out;
    *width = (uint32_t)w;
    *height = (uint32_t)h;
    return ST_OK;
}
