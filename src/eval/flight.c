/* Flight files (strata/fly.h): the parser of the statements and the camera of every frame over a store: the eye
 * moved along the legs in double precision, mirrored back at the world's edges, held a set height above the ground
 * ahead and below. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/file.h"
#include "strata/fly.h"

#define DEFAULT_SPEED 300.0
#define DEFAULT_HEIGHT 60.0
#define DEFAULT_PITCH -10.0
#define DEFAULT_FPS 60.0
#define MAX_FILE_BYTES (1u << 20)

void st_flight_free(st_flight *f) {
    if (!f) return;
    free(f->legs);
    memset(f, 0, sizeof *f);
}

double st_flight_duration(const st_flight *f) {
    double t = 0;
    for (size_t i = 0; i < f->leg_count; i++) t += f->legs[i].seconds;
    return t;
}

uint32_t st_flight_frames(const st_flight *f) {
    double n = floor(st_flight_duration(f) * f->fps + 1e-9) + 1;
    return n > ST_FLIGHT_MAX_FRAMES ? ST_FLIGHT_MAX_FRAMES : (uint32_t)n;
}

/* Reads `count` numbers from the rest of a line, each finite and within [lo[i], hi[i]]; nothing may follow. */
static bool numbers(const char *s, int count, const double *lo, const double *hi, double *out) {
    for (int i = 0; i < count; i++) {
        char *end;
        while (*s == ' ' || *s == '\t') s++;
        out[i] = strtod(s, &end);
        if (end == s || !isfinite(out[i]) || out[i] < lo[i] || out[i] > hi[i]) return false;
        if (*end && *end != ' ' && *end != '\t') return false;
        s = end;
    }
    while (*s == ' ' || *s == '\t') s++;
    return *s == 0;
}

st_result st_flight_parse(const char *text, st_flight *out, st_error *err) {
    memset(out, 0, sizeof *out);
    out->start[0] = out->start[1] = 0.5;
    out->fps = DEFAULT_FPS;
    double speed = DEFAULT_SPEED, height = DEFAULT_HEIGHT, pitch = DEFAULT_PITCH, total = 0;
    size_t cap = 0;
    int line_no = 0;
    const char *p = text;
    st_result r = ST_OK;
    while (*p && !r) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char line[256];
        line_no++;
        if (n >= sizeof line) {
            r = st_error_set(err, ST_ERR_FORMAT, "flight line %d is too long", line_no);
            break;
        }
        memcpy(line, p, n);
        line[n] = 0;
        p = end ? end + 1 : p + n;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        for (char *c = line; *c; c++)
            if (*c == '\r') *c = ' ';
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) continue;
        char word[16];
        size_t w = 0;
        while (s[w] && !isspace((unsigned char)s[w]) && w < sizeof word - 1) word[w] = s[w], w++;
        word[w] = 0;
        const char *rest = s + w;
        if (rest[0] && !isspace((unsigned char)rest[0])) {
            r = st_error_set(err, ST_ERR_FORMAT, "flight line %d: unknown statement '%.40s'", line_no, s);
            break;
        }
        double v[2];
        bool ok = true, before_legs = !strcmp(word, "start") || !strcmp(word, "heading") || !strcmp(word, "fps");
        if (before_legs && out->leg_count) {
            r = st_error_set(err, ST_ERR_FORMAT, "flight line %d: '%s' must come before the first leg", line_no, word);
            break;
        }
        if (!strcmp(word, "start")) {
            ok = numbers(rest, 2, (double[]){0, 0}, (double[]){1, 1}, v);
            if (ok) out->start[0] = v[0], out->start[1] = v[1];
        } else if (!strcmp(word, "heading")) {
            ok = numbers(rest, 1, (double[]){-360}, (double[]){360}, v);
            if (ok) out->heading_deg = v[0];
        } else if (!strcmp(word, "fps")) {
            ok = numbers(rest, 1, (double[]){1}, (double[]){1000}, v);
            if (ok) out->fps = v[0];
        } else if (!strcmp(word, "speed")) {
            ok = numbers(rest, 1, (double[]){0}, (double[]){100000}, v);
            if (ok) speed = v[0];
        } else if (!strcmp(word, "height")) {
            ok = numbers(rest, 1, (double[]){0}, (double[]){100000}, v);
            if (ok) height = v[0];
        } else if (!strcmp(word, "pitch")) {
            ok = numbers(rest, 1, (double[]){-90}, (double[]){90}, v);
            if (ok) pitch = v[0];
        } else if (!strcmp(word, "fly") || !strcmp(word, "turn")) {
            bool turn = word[0] == 't';
            v[0] = 0; /* a straight leg turns by nothing */
            if (turn) ok = numbers(rest, 2, (double[]){-3600, 0}, (double[]){3600, ST_FLIGHT_MAX_SECONDS}, v);
            else ok = numbers(rest, 1, (double[]){0}, (double[]){ST_FLIGHT_MAX_SECONDS}, v + 1);
            ok = ok && v[1] > 0;
            if (ok) {
                total += v[1];
                if (total > ST_FLIGHT_MAX_SECONDS) {
                    r = st_error_set(err, ST_ERR_FORMAT, "flight line %d: the flight passes %g s", line_no,
                                     ST_FLIGHT_MAX_SECONDS);
                    break;
                }
                if (out->leg_count == ST_FLIGHT_MAX_LEGS) {
                    r = st_error_set(err, ST_ERR_FORMAT, "flight line %d: more than %u legs", line_no,
                                     ST_FLIGHT_MAX_LEGS);
                    break;
                }
                if (out->leg_count == cap) {
                    size_t nc = cap ? 2 * cap : 16;
                    st_flight_leg *legs = realloc(out->legs, nc * sizeof *legs);
                    if (!legs) {
                        r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
                        break;
                    }
                    out->legs = legs, cap = nc;
                }
                out->legs[out->leg_count++] = (st_flight_leg){.seconds = v[1], .turn_deg = v[0], .speed_mps = speed,
                                                              .height_m = height, .pitch_deg = pitch};
            }
        } else {
            r = st_error_set(err, ST_ERR_FORMAT, "flight line %d: unknown statement '%s' (start, heading, fps, speed, "
                             "height, pitch, fly, turn)", line_no, word);
            break;
        }
        if (!ok) r = st_error_set(err, ST_ERR_FORMAT, "flight line %d: bad or out-of-range values for '%s'", line_no, word);
    }
    if (!r && !out->leg_count) r = st_error_set(err, ST_ERR_FORMAT, "flight: no legs (give 'fly SECONDS' or 'turn DEG SECONDS')");
    if (!r && st_flight_duration(out) * out->fps + 1 > ST_FLIGHT_MAX_FRAMES)
        r = st_error_set(err, ST_ERR_FORMAT, "flight: more than %u frames", ST_FLIGHT_MAX_FRAMES);
    if (r) st_flight_free(out);
    return r;
}

st_result st_flight_load(const char *path, st_flight *out, st_error *err) {
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t size = 0;
    st_result r = st_file_read_all(path, MAX_FILE_BYTES, &data, &size, err);
    if (r) return r;
    char *text = realloc(data, size + 1);
    if (!text) {
        free(data);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    text[size] = 0;
    if (strlen(text) != size) r = st_error_set(err, ST_ERR_FORMAT, "%s: not a text file", path);
    if (!r && st_flight_parse(text, out, err)) r = st_error_prefix(err, "%s", path);
    free(text);
    return r;
}

/* ---- the cameras ------------------------------------------------------------------------------------------- */

/* The ground of a layer store at (x, y): the top of the texel's highest solid (a slab's top where it has one). */
static st_result layer_ground(st_layer_pages *pages, double x, double y, double *height, st_error *err) {
    st_texel t;
    st_result r = st_layer_pages_texel(pages, (int64_t)floor(x), (int64_t)floor(y), &t, err);
    if (!r) *height = t.outside ? 0.0 : (double)t.high;
    return r;
}

st_result st_flight_cameras(const st_flight *f, st_store *store, double far_m, st_camera *cams, st_error *err) {
    const st_store_info *in = st_store_get_info(store);
    double ex = (double)(in->width - 1) * in->spacing_x_m, ey = (double)(in->height - 1) * in->spacing_y_m;
    uint32_t n = st_flight_frames(f);
    double *ground = malloc(n * sizeof *ground), *env = malloc(n * sizeof *env), *height = malloc(n * sizeof *height);
    st_result r = ground && env && height ? ST_OK : st_error_set(err, ST_ERR_NOMEM, "out of memory for %u frames", n);
    double x = f->start[0] * ex, y = f->start[1] * ey, heading = f->heading_deg, dt = 1.0 / f->fps;
    size_t leg = 0;
    double leg_t = 0;
    st_tile *tile = NULL;
    st_layer_pages *pages = NULL; /* a layer store's ground, read through its pages */
    if (!r && in->kind == ST_TILE_LAYERS) r = st_layer_pages_create(store, 0, &pages, err);
    for (uint32_t i = 0; i < n && !r; i++) {
        const st_flight_leg *L = &f->legs[leg < f->leg_count ? leg : f->leg_count - 1];
        r = pages ? layer_ground(pages, x, y, &ground[i], err) : st_store_ground_cached(store, &tile, x, y, &ground[i], err);
        height[i] = L->height_m;
        st_camera *c = &cams[i];
        memset(c, 0, sizeof *c);
        c->yaw_deg = (float)remainder(heading, 360.0);
        c->pitch_deg = (float)L->pitch_deg;
        c->far_dist = (float)far_m;
        c->fovy_deg = ST_DEFAULT_FOVY_DEG;
        c->origin[0] = x, c->origin[1] = y;
        /* advance one frame: through the legs that end inside it */
        double left = dt;
        while (left > 0 && leg < f->leg_count) {
            const st_flight_leg *g = &f->legs[leg];
            double step = fmin(left, g->seconds - leg_t);
            double rate = g->turn_deg / g->seconds;
            /* the chord of the arc flown in `step`: along the mean heading */
            double mid = (heading + 0.5 * rate * step) * (M_PI / 180.0);
            x += sin(mid) * g->speed_mps * step;
            y += cos(mid) * g->speed_mps * step;
            heading += rate * step;
            /* the world's edge: mirror the heading and the overshoot back inside */
            if (x < 0 || x > ex) x = x < 0 ? -x : 2 * ex - x, heading = -heading;
            if (y < 0 || y > ey) y = y < 0 ? -y : 2 * ey - y, heading = 180.0 - heading;
            x = fmin(fmax(x, 0), ex), y = fmin(fmax(y, 0), ey);
            left -= step;
            leg_t += step;
            if (leg_t >= g->seconds - 1e-12) leg++, leg_t = 0;
        }
    }
    if (!r) {
        /* the ground's upper envelope within a second either way, plus the height, then its mean over the same
         * window: never below the ground under the eye plus the least height in the window (every window member's
         * envelope covers the middle frame), and a change of height becomes a ramp */
        int64_t w = (int64_t)ceil(f->fps);
        for (int64_t i = 0; i < (int64_t)n; i++) {
            double m = -INFINITY;
            for (int64_t j = i - w; j <= i + w; j++)
                if (j >= 0 && j < (int64_t)n) m = fmax(m, ground[j]);
            env[i] = m;
        }
        for (int64_t i = 0; i < (int64_t)n; i++) {
            double s = 0;
            int64_t k = 0;
            for (int64_t j = i - w; j <= i + w; j++)
                if (j >= 0 && j < (int64_t)n) s += env[j] + height[j], k++;
            cams[i].origin[2] = s / (double)k;
        }
    }
    st_tile_destroy(tile);
    st_layer_pages_destroy(pages);
    free(ground);
    free(env);
    free(height);
    return r;
}
