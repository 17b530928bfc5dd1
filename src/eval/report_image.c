/* Picture reports: mosaics of tiles (the compare grid, the heat maps, the run's contact sheet) with a title,
 * row labels, a caption above each tile and a legend strip; integer downscaling (a box filter for pictures, a
 * priority or keyed filter for heat maps so a single wrong pixel stays visible); text from stb_easy_font. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stb_easy_font is a single header of static functions: not every one is used here, and it is not ours to
 * change, so its warnings are silenced for the include only. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb/stb_easy_font.h>
#pragma GCC diagnostic pop

#include "eval/eval_internal.h"
#include "strata/eval.h"

#define GUTTER 2u
#define TEXT_MAX 256

static const uint8_t BACKGROUND = 16;

st_result st_mosaic_create_framed(const st_mosaic_layout *l, st_mosaic *out, st_error *err) {
    memset(out, 0, sizeof *out);
    if (!l->cols || !l->rows || !l->tile_w || !l->tile_h || l->cols > 256 || l->rows > 256 || l->tile_w > 8192 ||
        l->tile_h > 8192 || l->left > 4096 || l->top > 4096 || l->caption > 256 || l->bottom > 4096)
        return st_error_set(err, ST_ERR_INVALID, "mosaic %ux%u of %ux%u tiles: bad size", l->cols, l->rows, l->tile_w,
                            l->tile_h);
    out->cols = l->cols;
    out->rows = l->rows;
    out->tile_w = l->tile_w;
    out->tile_h = l->tile_h;
    out->left = l->left;
    out->top = l->top;
    out->caption = l->caption;
    out->bottom = l->bottom;
    out->width = l->left + l->cols * l->tile_w + (l->cols + 1) * GUTTER;
    out->height = l->top + l->rows * (l->tile_h + l->caption) + (l->rows + 1) * GUTTER + l->bottom;
    size_t n = (size_t)out->width * out->height;
    out->rgba = malloc(n * 4);
    if (!out->rgba) return st_error_set(err, ST_ERR_NOMEM, "mosaic %ux%u: out of memory", out->width, out->height);
    for (size_t k = 0; k < n; k++) { /* gutters, margins and unfilled tiles: near-black */
        out->rgba[4 * k] = out->rgba[4 * k + 1] = out->rgba[4 * k + 2] = BACKGROUND;
        out->rgba[4 * k + 3] = 255;
    }
    return ST_OK;
}

st_result st_mosaic_create(uint32_t cols, uint32_t rows, uint32_t tile_w, uint32_t tile_h, st_mosaic *out,
                           st_error *err) {
    st_mosaic_layout l = {.cols = cols, .rows = rows, .tile_w = tile_w, .tile_h = tile_h};
    return st_mosaic_create_framed(&l, out, err);
}

void st_mosaic_free(st_mosaic *m) {
    if (!m) return;
    free(m->rgba);
    memset(m, 0, sizeof *m);
}

void st_mosaic_tile_origin(const st_mosaic *m, uint32_t col, uint32_t row, uint32_t *x, uint32_t *y) {
    *x = m->left + GUTTER + col * (m->tile_w + GUTTER);
    *y = m->top + GUTTER + row * (m->tile_h + m->caption + GUTTER) + m->caption;
}

/* ---- drawing ------------------------------------------------------------------------------------------------ */

void st_mosaic_rect(st_mosaic *m, int x, int y, int w, int h, const uint8_t rgb[3]) {
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = x + w > (int)m->width ? (int)m->width : x + w, y1 = y + h > (int)m->height ? (int)m->height : y + h;
    for (int yy = y0; yy < y1; yy++)
        for (int xx = x0; xx < x1; xx++) {
            uint8_t *p = m->rgba + 4 * ((size_t)yy * m->width + (size_t)xx);
            p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2], p[3] = 255;
        }
}

int st_mosaic_text_width(const char *text, int scale) {
    char copy[TEXT_MAX];
    snprintf(copy, sizeof copy, "%s", text);
    return stb_easy_font_width(copy) * scale;
}

void st_mosaic_text(st_mosaic *m, int x, int y, const char *text, const uint8_t rgb[3], int scale) {
    char copy[TEXT_MAX];
    snprintf(copy, sizeof copy, "%s", text);
    size_t cap = (size_t)TEXT_MAX * 720; /* the busiest glyph is well under ten 64-byte quads */
    char *quads = malloc(cap);
    if (!quads) return;
    int n = stb_easy_font_print(0, 0, copy, NULL, quads, (int)cap);
    for (int q = 0; q < n; q++) {
        const float *v0 = (const float *)(quads + (size_t)q * 64), *v2 = (const float *)(quads + (size_t)q * 64 + 32);
        int qx0 = (int)lroundf(v0[0] * (float)scale), qy0 = (int)lroundf(v0[1] * (float)scale);
        int qx1 = (int)lroundf(v2[0] * (float)scale), qy1 = (int)lroundf(v2[1] * (float)scale);
        st_mosaic_rect(m, x + qx0, y + qy0, qx1 - qx0, qy1 - qy0, rgb);
    }
    free(quads);
}

static const uint8_t TEXT_RGB[3] = {225, 225, 225};

void st_mosaic_caption(st_mosaic *m, uint32_t col, uint32_t row, const char *text) {
    uint32_t x, y;
    st_mosaic_tile_origin(m, col, row, &x, &y);
    int scale = m->caption >= 20 ? 2 : 1;
    static const uint8_t bg[3] = {BACKGROUND, BACKGROUND, BACKGROUND};
    st_mosaic_rect(m, (int)x, (int)(y - m->caption), (int)m->tile_w, (int)m->caption, bg); /* a mosaic is reused */
    st_mosaic_text(m, (int)x + 2, (int)y - (int)m->caption + 2, text, TEXT_RGB, scale);
}

void st_mosaic_col_label(st_mosaic *m, uint32_t col, const char *text) {
    uint32_t x, y;
    st_mosaic_tile_origin(m, col, 0, &x, &y);
    /* large when it fits over its tile, else small (narrow contact-sheet tiles) so labels never run together */
    int scale = st_mosaic_text_width(text, 2) <= (int)m->tile_w - 4 ? 2 : 1;
    st_mosaic_text(m, (int)x + 2, (int)(y - m->caption) - (scale == 2 ? 18 : 12), text, TEXT_RGB, scale);
}

void st_mosaic_row_label(st_mosaic *m, uint32_t row, const char *text, int scale) {
    uint32_t x, y;
    st_mosaic_tile_origin(m, 0, row, &x, &y);
    int w = st_mosaic_text_width(text, scale);
    st_mosaic_text(m, (int)m->left - w - 4 > 2 ? (int)m->left - w - 4 : 2, (int)(y + m->tile_h / 2) - 4 * scale,
                   text, TEXT_RGB, scale);
}

/* ---- placing tiles ---------------------------------------------------------------------------------------- */

/* Heat-map classes are pure colours with no green (red, blue, magenta); they outrank the ramp. */
static int priority_key(const uint8_t *p) {
    if (p[1] == 0 && (p[0] || p[2])) return 1000 + p[0] + p[2];
    return p[0] + p[1] + p[2];
}

typedef struct put_job {
    st_mosaic *m;
    const uint8_t *rgba;
    const float *key;
    uint32_t w, factor, ox, oy, tw;
    bool priority;
} put_job;

/* Rows of the tile [begin, end): each writes its own pixels of the mosaic, so rows run in parallel. */
static void put_rows(void *user, size_t begin, size_t end) {
    const put_job *j = user;
    const uint32_t w = j->w, factor = j->factor;
    for (uint32_t y = (uint32_t)begin; y < end; y++)
        for (uint32_t x = 0; x < j->tw; x++) {
            uint8_t *dst = j->m->rgba + 4 * ((size_t)(j->oy + y) * j->m->width + j->ox + x);
            if (j->key || j->priority) {
                const uint8_t *best = NULL;
                double best_key = -1e300;
                for (uint32_t sy = 0; sy < factor; sy++)
                    for (uint32_t sx = 0; sx < factor; sx++) {
                        size_t k = (size_t)(y * factor + sy) * w + x * factor + sx;
                        double kv = j->key ? (double)j->key[k] : (double)priority_key(j->rgba + 4 * k);
                        if (kv > best_key) best_key = kv, best = j->rgba + 4 * k;
                    }
                memcpy(dst, best, 3);
            } else {
                uint32_t sum[3] = {0, 0, 0}, cnt = factor * factor;
                for (uint32_t sy = 0; sy < factor; sy++)
                    for (uint32_t sx = 0; sx < factor; sx++) {
                        const uint8_t *p = j->rgba + 4 * ((size_t)(y * factor + sy) * w + x * factor + sx);
                        sum[0] += p[0], sum[1] += p[1], sum[2] += p[2];
                    }
                for (int c = 0; c < 3; c++) dst[c] = (uint8_t)((sum[c] + cnt / 2) / cnt);
            }
            dst[3] = 255;
        }
}

static void put(st_mosaic *m, uint32_t col, uint32_t row, const uint8_t *rgba, const float *key, uint32_t w,
                uint32_t h, uint32_t factor, bool priority) {
    if (col >= m->cols || row >= m->rows || !factor) return;
    put_job j = {.m = m, .rgba = rgba, .key = key, .w = w, .factor = factor, .priority = priority};
    st_mosaic_tile_origin(m, col, row, &j.ox, &j.oy);
    j.tw = w / factor < m->tile_w ? w / factor : m->tile_w;
    uint32_t th = h / factor < m->tile_h ? h / factor : m->tile_h;
    st_parallel_for(th, 8, put_rows, &j);
}

void st_mosaic_put(st_mosaic *m, uint32_t col, uint32_t row, const uint8_t *rgba, uint32_t w, uint32_t h,
                   uint32_t factor, bool priority) {
    put(m, col, row, rgba, NULL, w, h, factor, priority);
}

void st_mosaic_put_keyed(st_mosaic *m, uint32_t col, uint32_t row, const uint8_t *rgba, const float *key, uint32_t w,
                         uint32_t h, uint32_t factor) {
    put(m, col, row, rgba, key, w, h, factor, false);
}

/* ---- legends ------------------------------------------------------------------------------------------------ */

static int swatch(st_mosaic *m, int x, int y, const uint8_t rgb[3], const char *label) {
    static const uint8_t frame[3] = {120, 120, 120};
    st_mosaic_rect(m, x, y, 14, 14, frame);
    st_mosaic_rect(m, x + 1, y + 1, 12, 12, rgb);
    st_mosaic_text(m, x + 18, y + 1, label, TEXT_RGB, 2);
    return x + 18 + st_mosaic_text_width(label, 2) + 24;
}

/* A horizontal ramp of `width` pixels from value lo to hi (ramp(value) gives the colour), ticks at `ticks`,
 * the last one marked "+", and a label to its right. Returns the x after it. */
static int ramp_bar(st_mosaic *m, int x, int y, int width, double lo, double hi, bool log_scale,
                    void (*ramp)(double, uint8_t[3]), const double *ticks, int nticks, const char *label) {
    for (int i = 0; i < width; i++) {
        double t = (double)i / (width - 1);
        double v = log_scale ? lo + (exp2(log2(1 + hi - lo) * t) - 1) : lo + t * (hi - lo);
        uint8_t c[3];
        ramp(v, c);
        st_mosaic_rect(m, x + i, y, 1, 14, c);
    }
    for (int k = 0; k < nticks; k++) {
        double v = ticks[k];
        double t = log_scale ? log2(1 + v - lo) / log2(1 + hi - lo) : (v - lo) / (hi - lo);
        int tx = x + (int)lround(t * (width - 1));
        st_mosaic_rect(m, tx, y + 14, 1, 4, TEXT_RGB);
        char s[16];
        snprintf(s, sizeof s, "%g%s", v, k == nticks - 1 ? "+" : "");
        st_mosaic_text(m, tx - st_mosaic_text_width(s, 1) / 2, y + 20, s, TEXT_RGB, 1);
    }
    st_mosaic_text(m, x + width + 10, y + 1, label, TEXT_RGB, 2);
    return x + width + 10 + st_mosaic_text_width(label, 2) + 24;
}

static void depth_ramp(double v, uint8_t rgb[3]) { st_eval_depth_ramp(v, rgb); }
static void color_ramp(double v, uint8_t rgb[3]) { st_eval_color_ramp(v, rgb); }

void st_eval_depth_legend(st_mosaic *m, int x, int y) {
    static const uint8_t red[3] = {255, 0, 0}, blue[3] = {0, 0, 255}, magenta[3] = {255, 0, 255},
                         grey[3] = {48, 48, 48};
    x = swatch(m, x, y, red, "see-through");
    x = swatch(m, x, y, blue, "covers sky");
    x = swatch(m, x, y, magenta, "incoherent");
    x = swatch(m, x, y, grey, "sky in both");
    static const double ticks[] = {0, 1, 3, 7, 16};
    ramp_bar(m, x, y, 200, 0, 16, true, depth_ramp, ticks, 5, "depth error (units, log)");
}

void st_eval_color_legend(st_mosaic *m, int x, int y) {
    static const uint8_t dim[3] = {60, 60, 60};
    char below[64];
    snprintf(below, sizeof below, "dE <= %g (reference, dimmed)", ST_COLOR_VISIBLE_DE);
    x = swatch(m, x, y, dim, below);
    static const double ticks[] = {5, 10, 20, 30, 40};
    ramp_bar(m, x, y, 200, ST_COLOR_VISIBLE_DE, 40, false, color_ramp, ticks, 5, "colour error dE*ab (CIE76)");
}
