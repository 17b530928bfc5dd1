/* The DEM readers of headerless grids, read in windows with pread (never whole): raw s16/u16/f32 in either
 * byte order, and SRTM .hgt tiles (big-endian s16, voids −32768), one or several joined by their names into
 * one mosaic whose tiles share their edge rows and columns. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dem_internal.h"

static const char *type_name(st_dem_raw_type t) { return t == ST_DEM_RAW_U16 ? "u16" : t == ST_DEM_RAW_F32 ? "f32" : "s16"; }
static unsigned type_bytes(st_dem_raw_type t) { return t == ST_DEM_RAW_F32 ? 4u : 2u; }

/* n samples of src into raw floats; .hgt voids (−32768) become NAN. */
static void decode_samples(const uint8_t *src, size_t n, st_dem_raw_type type, st_endian endian, bool hgt_voids,
                           float *dst) {
    bool be = endian == ST_ENDIAN_BIG;
    if (type == ST_DEM_RAW_F32) {
        for (size_t i = 0; i < n; i++) {
            const uint8_t *p = src + 4 * i;
            uint32_t u = be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                            : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
            float f;
            memcpy(&f, &u, sizeof f);
            dst[i] = f;
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = src + 2 * i;
        uint16_t u = be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
        if (type == ST_DEM_RAW_U16) dst[i] = (float)u;
        else dst[i] = hgt_voids && (int16_t)u == ST_HGT_VOID ? NAN : (float)(int16_t)u;
    }
}

/* ---- raw grids ------------------------------------------------------------------------------------------------ */

typedef struct raw_state {
    st_dem_grid grid;
    int fd;
    st_dem_raw_type type;
    st_endian endian;
    char name[512];
} raw_state;

static st_result raw_fetch(void *state, uint64_t x0, uint64_t y0, uint32_t w, uint32_t h, float *raw, size_t stride,
                           st_error *err) {
    raw_state *s = state;
    unsigned b = type_bytes(s->type);
    uint8_t *buf = malloc((size_t)w * b);
    if (!buf) return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", s->name);
    st_result r = ST_OK;
    for (uint32_t j = 0; j < h && !r; j++) {
        uint64_t off = ((y0 + j) * s->grid.width + x0) * b;
        if (!(r = st_dem_file_pread(s->fd, buf, (size_t)w * b, off, s->name, err)))
            decode_samples(buf, w, s->type, s->endian, false, raw + (size_t)j * stride);
    }
    free(buf);
    return r;
}

static st_result raw_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err) {
    return st_dem_grid_read(&((raw_state *)state)->grid, x0, y0, w, h, out, err);
}
static void raw_counts(void *state, uint64_t *filled, uint64_t *sea) {
    st_dem_grid_counts(&((raw_state *)state)->grid, filled, sea);
}
static void raw_destroy(void *state) {
    raw_state *s = state;
    if (s->fd >= 0) close(s->fd);
    free(s);
}

st_result st_dem_open_raw(const char *path, int fd, uint64_t size, const st_dem_open_desc *desc,
                          st_dem_source **out, st_error *err) {
    st_dem_raw_type type = desc->raw_type;
    /* .r16 (Terrain3D, Unity, World Machine) is unsigned 16-bit, square unless a size says otherwise. */
    if (st_dem_name_ends(path, ".r16") && type == ST_DEM_RAW_S16) type = ST_DEM_RAW_U16;
    unsigned b = type_bytes(type);
    uint64_t w = desc->raw_width, h = desc->raw_height;
    if (!w) {
        uint64_t n = size / 2, side = (uint64_t)sqrt((double)n);
        while (side * side > n) side--;
        while ((side + 1) * (side + 1) <= n) side++;
        if (size % 2 || side * side != n || !side) {
            close(fd);
            return st_error_set(err, ST_ERR_FORMAT,
                                "%s: %llu bytes is no square grid of 16-bit samples (give the raw size)", path,
                                (unsigned long long)size);
        }
        w = h = side;
    }
    if (w > ST_DEM_MAX_SIDE || h > ST_DEM_MAX_SIDE) {
        close(fd);
        return st_error_set(err, ST_ERR_INVALID, "%s: raw size %llux%llu is beyond %llu a side", path,
                            (unsigned long long)w, (unsigned long long)h, (unsigned long long)ST_DEM_MAX_SIDE);
    }
    if (size != w * h * b) {
        close(fd);
        return st_error_set(err, ST_ERR_FORMAT, "%s: %llu bytes, but %llux%llu %s samples are %llu (%s)", path,
                            (unsigned long long)size, (unsigned long long)w, (unsigned long long)h, type_name(type),
                            (unsigned long long)(w * h * b), size < w * h * b ? "truncated" : "too long");
    }
    raw_state *s = calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    s->fd = fd;
    s->type = type;
    s->endian = desc->endian;
    snprintf(s->name, sizeof s->name, "%s", path);
    double units = desc->units_m > 0 ? desc->units_m : 1.0;
    s->grid = (st_dem_grid){.width = w, .height = h, .wrap_x = desc->wrap_x, .scale = units,
                            .integral = type != ST_DEM_RAW_F32, .name = s->name, .fetch = raw_fetch, .state = s};
    st_dem_info info = {.width = w, .height = h, .spacing_x_m = desc->spacing_m, .spacing_y_m = desc->spacing_m,
                        .wrap_x = desc->wrap_x}; /* a raw grid carries no georeferencing: the caller says */
    info.unit_m = type == ST_DEM_RAW_F32 ? 0 : units;
    double lo = type == ST_DEM_RAW_S16 ? -32768.0 : 0.0, hi = type == ST_DEM_RAW_S16 ? 32767.0 : 65535.0;
    info.has_voids = type == ST_DEM_RAW_F32; /* NaN and absurd floats read as voids */
    if (type == ST_DEM_RAW_F32) st_dem_bound(-INFINITY, INFINITY, true, &info);
    else st_dem_bound(lo * units, hi * units, false, &info);
    snprintf(info.description, sizeof info.description, "%s: raw %s %s-endian, %llux%llu",
             st_dem_base_name(path), type_name(type), desc->endian == ST_ENDIAN_BIG ? "big" : "little",
             (unsigned long long)w, (unsigned long long)h);
    static const st_dem_source_ops ops = {.read = raw_read, .destroy = raw_destroy, .void_counts = raw_counts};
    return st_dem_source_create(&ops, s, &info, out, err);
}

/* ---- SRTM .hgt tiles and their mosaics -------------------------------------------------------------------------- */

bool st_dem_hgt_name(const char *path, int *lat, int *lon) {
    const char *b = st_dem_base_name(path);
    if (strlen(b) < 7) return false;
    char ns = b[0], ew = b[3];
    if (ns >= 'a') ns = (char)(ns - 32);
    if (ew >= 'a') ew = (char)(ew - 32);
    if ((ns != 'N' && ns != 'S') || (ew != 'E' && ew != 'W')) return false;
    for (int i = 1; i < 7; i++)
        if (i != 3 && (b[i] < '0' || b[i] > '9')) return false;
    if (b[7] >= '0' && b[7] <= '9') return false;
    int la = (b[1] - '0') * 10 + (b[2] - '0'), lo = (b[4] - '0') * 100 + (b[5] - '0') * 10 + (b[6] - '0');
    if (ns == 'S') la = -la;
    if (ew == 'W') lo = -lo;
    if (la < -90 || la > 89 || lo < -180 || lo > 179) return false;
    *lat = la;
    *lon = lo;
    return true;
}

#define HGT_MAX_TILES 64800u /* the whole globe in 1° tiles */

typedef struct hgt_state {
    st_dem_grid grid;
    uint32_t side, step;  /* samples a side; step = side − 1, the stride between tiles */
    uint32_t cols, rows;  /* tiles; row 0 is the northernmost */
    char **paths;         /* rows · cols */
    char name[256];
} hgt_state;

static st_result hgt_fetch(void *state, uint64_t x0, uint64_t y0, uint32_t w, uint32_t h, float *raw, size_t stride,
                           st_error *err) {
    hgt_state *s = state;
    const uint64_t step = s->step, tile_bytes = 2ull * s->side * s->side;
    uint8_t *buf = malloc(2ull * (w < s->side ? w : s->side));
    if (!buf) return st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", s->name);
    st_result r = ST_OK;
    for (uint64_t y = y0; y < y0 + h && !r;) {
        /* A shared edge row belongs to the tile below it (the last row to the last tile). */
        uint64_t ty = y / step < s->rows ? y / step : s->rows - 1;
        uint64_t yend = ty + 1 == s->rows ? ty * step + s->side : (ty + 1) * step;
        if (yend > y0 + h) yend = y0 + h;
        for (uint64_t x = x0; x < x0 + w && !r;) {
            uint64_t tx = x / step < s->cols ? x / step : s->cols - 1;
            uint64_t xend = tx + 1 == s->cols ? tx * step + s->side : (tx + 1) * step;
            if (xend > x0 + w) xend = x0 + w;
            const char *path = s->paths[ty * s->cols + tx];
            int fd;
            uint64_t size;
            if ((r = st_dem_file_open(path, &fd, &size, err))) break;
            if (size != tile_bytes) r = st_error_set(err, ST_ERR_FORMAT, "%s: changed size since it was opened", path);
            for (uint64_t yy = y; yy < yend && !r; yy++) {
                uint64_t off = 2 * ((yy - ty * step) * s->side + (x - tx * step));
                if (!(r = st_dem_file_pread(fd, buf, 2 * (size_t)(xend - x), off, path, err)))
                    decode_samples(buf, (size_t)(xend - x), ST_DEM_RAW_S16, ST_ENDIAN_BIG, true,
                                   raw + (size_t)(yy - y0) * stride + (x - x0));
            }
            close(fd);
            x = xend;
        }
        y = yend;
    }
    free(buf);
    return r;
}

static st_result hgt_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err) {
    return st_dem_grid_read(&((hgt_state *)state)->grid, x0, y0, w, h, out, err);
}
static void hgt_counts(void *state, uint64_t *filled, uint64_t *sea) {
    st_dem_grid_counts(&((hgt_state *)state)->grid, filled, sea);
}
static void hgt_destroy(void *state) {
    hgt_state *s = state;
    if (s->paths)
        for (size_t i = 0; i < (size_t)s->rows * s->cols; i++) free(s->paths[i]);
    free(s->paths);
    free(s);
}

static uint32_t hgt_side(uint64_t size) {
    return size == 2ull * 1201 * 1201 ? 1201 : size == 2ull * 3601 * 3601 ? 3601 : 0;
}

static void hgt_label(char *out, size_t cap, int lat, int lon) {
    snprintf(out, cap, "%c%02d%c%03d", lat < 0 ? 'S' : 'N', abs(lat), lon < 0 ? 'W' : 'E', abs(lon));
}

st_result st_dem_open_hgt(const char *const *paths, size_t count, st_dem_source **out, st_error *err) {
    *out = NULL;
    if (count > HGT_MAX_TILES)
        return st_error_set(err, ST_ERR_INVALID, "%zu .hgt tiles: a mosaic takes at most %u", count, HGT_MAX_TILES);
    int *lats = malloc(sizeof(int) * count), *lons = malloc(sizeof(int) * count);
    hgt_state *s = calloc(1, sizeof *s);
    st_result r = ST_OK;
    if (!lats || !lons || !s) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    int lat_min = 90, lat_max = -91, lon_min = 181, lon_max = -181;
    bool named = true;
    for (size_t i = 0; !r && i < count; i++) {
        int fd;
        uint64_t size;
        if ((r = st_dem_file_open(paths[i], &fd, &size, err))) break;
        close(fd);
        uint32_t side = hgt_side(size);
        if (!side) {
            r = st_error_set(err, ST_ERR_FORMAT,
                             "%s: %llu bytes; an SRTM tile is 1201x1201 (2884802 bytes) or 3601x3601 (25934402 "
                             "bytes)%s", paths[i], (unsigned long long)size,
                             size < 2ull * 3601 * 3601 ? ": truncated, or no SRTM tile" : "");
            break;
        }
        if (i && side != s->side) {
            r = st_error_set(err, ST_ERR_FORMAT, "%s is %ux%u but %s is %ux%u: the tiles of a mosaic must match",
                             paths[i], side, side, paths[0], s->side, s->side);
            break;
        }
        s->side = side;
        if (!st_dem_hgt_name(paths[i], &lats[i], &lons[i])) {
            named = false;
            lats[i] = lons[i] = 0;
        }
        if (lats[i] < lat_min) lat_min = lats[i];
        if (lats[i] > lat_max) lat_max = lats[i];
        if (lons[i] < lon_min) lon_min = lons[i];
        if (lons[i] > lon_max) lon_max = lons[i];
    }
    if (!r) {
        s->step = s->side - 1;
        s->rows = (uint32_t)(lat_max - lat_min + 1);
        s->cols = (uint32_t)(lon_max - lon_min + 1);
        if ((uint64_t)s->rows * s->cols > HGT_MAX_TILES || !(s->paths = calloc((size_t)s->rows * s->cols, sizeof(char *))))
            r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; !r && i < count; i++) {
        size_t k = (size_t)(lat_max - lats[i]) * s->cols + (size_t)(lons[i] - lon_min);
        if (s->paths[k]) {
            r = st_error_set(err, ST_ERR_INVALID, "%s: its tile is given twice (also as %s)", paths[i], s->paths[k]);
            break;
        }
        if (!(s->paths[k] = strdup(paths[i]))) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; !r && k < (size_t)s->rows * s->cols; k++)
        if (!s->paths[k]) {
            char a[16], b[16], m[16];
            hgt_label(a, sizeof a, lat_min, lon_min);
            hgt_label(b, sizeof b, lat_max, lon_max);
            hgt_label(m, sizeof m, lat_max - (int)(k / s->cols), lon_min + (int)(k % s->cols));
            r = st_error_set(err, ST_ERR_INVALID, "the .hgt mosaic %s..%s has a gap: %s.hgt is missing", a, b, m);
        }
    free(lats);
    free(lons);
    if (r) {
        if (s) hgt_destroy(s);
        return r;
    }
    snprintf(s->name, sizeof s->name, "%s%s", paths[0], count > 1 ? " (mosaic)" : "");
    s->grid = (st_dem_grid){.width = (uint64_t)s->cols * s->step + 1, .height = (uint64_t)s->rows * s->step + 1,
                            .scale = 1.0, .integral = true, .name = s->name, .fetch = hgt_fetch, .state = s};
    st_dem_info info = {.width = s->grid.width, .height = s->grid.height, .unit_m = 1.0, .has_voids = true};
    st_dem_bound(-32767, 32767, true, &info);
    /* 3″ or 1″ of arc, in metres at the mosaic's centre latitude (the equator when the name says none). */
    double res = 1.0 / s->step, ew, ns;
    double lat_c = named ? lat_min + s->rows / 2.0 : 0.0;
    st_dem_metres_per_degree(lat_c, ST_WGS84_A, ST_WGS84_F, &ew, &ns);
    info.spacing_x_m = res * ew;
    info.spacing_y_m = res * ns;
    if (named) {
        /* Samples sit on the whole-degree lines (pixel-is-point): the pixel corner is half a sample off. */
        info.georeferenced = true;
        double g[6] = {lon_min - res / 2, res, 0, lat_max + 1 + res / 2, 0, -res};
        memcpy(info.geotransform, g, sizeof g);
        snprintf(info.crs, sizeof info.crs, "WGS 84");
    }
    char first[16];
    hgt_label(first, sizeof first, lat_max, lon_min);
    if (count == 1)
        snprintf(info.description, sizeof info.description, "%s: SRTM %u\" tile, %ux%u", st_dem_base_name(paths[0]),
                 s->side == 1201 ? 3 : 1, s->side, s->side);
    else
        snprintf(info.description, sizeof info.description, "SRTM %u\" mosaic of %ux%u tiles from %s, %llux%llu",
                 s->side == 1201 ? 3 : 1, s->cols, s->rows, first, (unsigned long long)info.width,
                 (unsigned long long)info.height);
    static const st_dem_source_ops ops = {.read = hgt_read, .destroy = hgt_destroy, .void_counts = hgt_counts};
    return st_dem_source_create(&ops, s, &info, out, err);
}
