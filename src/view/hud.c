/* The HUD's geometry: text from stb_easy_font (a header-only font made of quads, Debian libstb-dev) and
 * filled rectangles, both turned into coloured triangles in window pixels that the presenter draws over the
 * frame. No textures, no font files. */
#include <stdlib.h>
#include <math.h>
#include <string.h>

/* stb_easy_font is a single header of static functions: not every one is used here, and it is not ours to
 * change, so its warnings are silenced for the include only. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb/stb_easy_font.h>
#pragma GCC diagnostic pop

#include "strata/view.h"

#define HUD_MAX_VERTICES (3u * 65536u)
#define STB_QUAD_BYTES 64      /* four vertices of x, y, z floats and four colour bytes */
#define STB_BYTES_PER_CHAR 720 /* the busiest glyph is well under ten quads */

struct st_hud {
    st_hud_vertex *vertices;
    size_t count;
    char *scratch; /* stb_easy_font output */
    size_t scratch_size;
    char *text; /* a writable copy: stb takes char * */
    size_t text_size;
};

st_result st_hud_create(st_hud **out, st_error *err) {
    *out = NULL;
    st_hud *h = calloc(1, sizeof *h);
    if (h) h->vertices = malloc(HUD_MAX_VERTICES * sizeof *h->vertices);
    if (!h || !h->vertices) {
        free(h);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    *out = h;
    return ST_OK;
}

void st_hud_destroy(st_hud *h) {
    if (!h) return;
    free(h->vertices);
    free(h->scratch);
    free(h->text);
    free(h);
}

void st_hud_clear(st_hud *h) { h->count = 0; }

const st_hud_vertex *st_hud_vertices(const st_hud *h, size_t *count) {
    *count = h->count;
    return h->vertices;
}

/* Two triangles of an axis-aligned quad given by its four corners in stb's order (clockwise from top-left). */
static void push_quad(st_hud *h, const float xs[4], const float ys[4], const uint8_t rgba[4]) {
    if (h->count + 6 > HUD_MAX_VERTICES) return;
    static const int order[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; i++) {
        st_hud_vertex *v = &h->vertices[h->count++];
        v->x = xs[order[i]];
        v->y = ys[order[i]];
        memcpy(v->rgba, rgba, 4);
    }
}

void st_hud_rect(st_hud *h, float x, float y, float w, float hgt, const uint8_t rgba[4]) {
    float xs[4] = {x, x + w, x + w, x}, ys[4] = {y, y, y + hgt, y + hgt};
    push_quad(h, xs, ys, rgba);
}

static char *writable_copy(st_hud *h, const char *text) {
    size_t n = strlen(text) + 1;
    if (n > h->text_size) {
        char *grown = realloc(h->text, n);
        if (!grown) return NULL;
        h->text = grown;
        h->text_size = n;
    }
    memcpy(h->text, text, n);
    return h->text;
}

void st_hud_measure(const char *text, float scale, float *width, float *height) {
    /* stb measures a char * it does not modify; a stack copy keeps const-correctness for short lines */
    char buf[4096];
    size_t n = strlen(text);
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, text, n);
    buf[n] = 0;
    if (width) *width = (float)stb_easy_font_width(buf) * scale;
    if (height) *height = (float)stb_easy_font_height(buf) * scale;
}

float st_hud_text(st_hud *h, float x, float y, float scale, const uint8_t rgba[4], const char *text) {
    char *copy = writable_copy(h, text);
    if (!copy) return 0;
    size_t need = (strlen(copy) + 1) * STB_BYTES_PER_CHAR;
    if (need > h->scratch_size) {
        char *grown = realloc(h->scratch, need);
        if (!grown) return 0;
        h->scratch = grown;
        h->scratch_size = need;
    }
    int quads = stb_easy_font_print(0, 0, copy, NULL, h->scratch, (int)h->scratch_size);
    for (int q = 0; q < quads; q++) {
        float xs[4], ys[4];
        for (int k = 0; k < 4; k++) {
            float p[2];
            memcpy(p, h->scratch + (size_t)q * STB_QUAD_BYTES + (size_t)k * 16, sizeof p);
            xs[k] = x + p[0] * scale;
            ys[k] = y + p[1] * scale;
        }
        push_quad(h, xs, ys, rgba);
    }
    return (float)stb_easy_font_width(copy) * scale;
}

double st_hud_graph_scale_ms(const double *ms, size_t count) {
    double top = 0;
    for (size_t i = 0; i < count; i++)
        if (isfinite(ms[i]) && ms[i] > top) top = ms[i];
    static const double steps[] = {100.0 / 3.0, 200.0 / 3.0, 100, 200, 500};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (top <= steps[i]) return steps[i];
    double scale = 1000; /* then 1, 2, 5 × 10^k seconds */
    for (int k = 0; top > scale && k < 40; k++) scale *= (k % 3 == 1) ? 2.5 : 2;
    return scale;
}
