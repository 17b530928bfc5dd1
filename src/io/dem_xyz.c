/* The DEM reader of z/x/y folders of RGB-encoded elevation tiles (Terrarium, Mapbox Terrain-RGB): the tiles
 * of one zoom level must form a full rectangle; each is decoded from its PNG on demand and kept in a small
 * bounded cache; the spacing is web-mercator's ground resolution at the rectangle's centre latitude. */
#include <dirent.h>
#include <math.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dem_internal.h"

#define XYZ_MAX_ZOOM 30
#define XYZ_MAX_TILE 2048u           /* pixels a side */
#define XYZ_MAX_TILES (1u << 20)     /* tiles in the rectangle */
#define XYZ_MAX_FILE (64ull << 20)   /* bytes of one tile's PNG */
#define XYZ_CACHE_SAMPLES (16u << 20) /* decoded samples the cache may hold */
#define XYZ_EARTH_RADIUS 6378137.0    /* web mercator's sphere */

/* ---- RGB PNG from memory ------------------------------------------------------------------------------------- */

typedef struct png_mem {
    const uint8_t *data;
    size_t size, pos;
} png_mem;

static void mem_read(png_structp png, png_bytep out, png_size_t n) {
    png_mem *m = png_get_io_ptr(png);
    if (n > m->size - m->pos) png_error(png, "truncated");
    memcpy(out, m->data + m->pos, n);
    m->pos += n;
}
static void quiet_error(png_structp png, png_const_charp msg) {
    (void)msg;
    png_longjmp(png, 1);
}
static void quiet_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}

/* Decodes an 8-bit RGB, RGBA or palette PNG of side `expect` (0 = any square up to XYZ_MAX_TILE) into the 24-bit
 * codes 65536·R + 256·G + B. *why says what was wrong. */
static float *decode_rgb(const uint8_t *data, size_t size, uint32_t expect, uint32_t *side, const char **why) {
    *why = "corrupt or truncated PNG";
    if (size < 8 || png_sig_cmp(data, 0, 8)) {
        *why = "not a PNG file";
        return NULL;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, quiet_error, quiet_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    float *volatile codes = NULL;
    uint8_t *volatile row = NULL;
    png_mem mem = {data, size, 0};
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        *why = "out of memory";
        return NULL;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(codes);
        free(row);
        return NULL;
    }
    png_set_user_limits(png, XYZ_MAX_TILE, XYZ_MAX_TILE);
    png_set_chunk_malloc_max(png, 8u << 20);
    png_set_read_fn(png, &mem, mem_read);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    int depth = png_get_bit_depth(png, info), ctype = png_get_color_type(png, info);
    if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    else if (ctype != PNG_COLOR_TYPE_RGB && ctype != PNG_COLOR_TYPE_RGB_ALPHA) {
        *why = "an RGB-encoded tile must be a colour PNG (this one is grey)";
        png_error(png, "grey");
    }
    if (depth != 8) {
        *why = "an RGB-encoded tile must have 8-bit channels";
        png_error(png, "depth");
    }
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
        *why = "interlaced PNGs are not supported";
        png_error(png, "interlaced");
    }
    if (w != h || (expect && w != expect)) {
        *why = expect ? "its size differs from the folder's other tiles" : "a tile must be square";
        png_error(png, "size");
    }
    png_read_update_info(png, info);
    int ch = png_get_channels(png, info);
    row = malloc(png_get_rowbytes(png, info));
    codes = malloc(sizeof(float) * (size_t)w * h);
    if (!row || !codes) {
        *why = "out of memory";
        png_error(png, "memory");
    }
    for (png_uint_32 y = 0; y < h; y++) {
        png_read_row(png, row, NULL);
        float *o = codes + (size_t)y * w;
        for (png_uint_32 x = 0; x < w; x++) {
            const uint8_t *p = row + (size_t)ch * x;
            o[x] = (float)((uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]); /* < 2^24: exact */
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    *side = w;
    return codes;
}

/* ---- the reader ------------------------------------------------------------------------------------------------ */

typedef struct xyz_entry {
    uint32_t tx, ty; /* rectangle-relative tile */
    uint64_t used;   /* LRU stamp; 0 = empty */
    float *codes;
} xyz_entry;

typedef struct xyz_state {
    st_dem_grid grid;
    char dir[900];
    uint32_t zoom, x0, y0, cols, rows, side;
    pthread_mutex_t lock;
    uint64_t clock;
    unsigned capacity;
    xyz_entry *cache;
} xyz_state;

/* Decodes tile (tx, ty) of the rectangle; its side must be s->side (0 while the first tile is read). */
static st_result load_tile(xyz_state *s, uint32_t tx, uint32_t ty, float **codes, uint32_t *side, st_error *err) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%u/%u/%u.png", s->dir, s->zoom, s->x0 + tx, s->y0 + ty);
    int fd;
    uint64_t size;
    st_result r = st_dem_file_open(path, &fd, &size, err);
    if (r) return r;
    uint8_t *data = NULL;
    r = st_dem_file_read_all(fd, size, XYZ_MAX_FILE, path, &data, err);
    close(fd);
    if (r) return r;
    const char *why;
    *codes = decode_rgb(data, (size_t)size, s->side, side, &why);
    free(data);
    if (!*codes) return st_error_set(err, ST_ERR_FORMAT, "%s: %s", path, why);
    return ST_OK;
}

static void copy_rect(const xyz_state *s, const float *codes, uint32_t lx, uint32_t ly, uint32_t w, uint32_t h,
                      float *dst, size_t stride) {
    for (uint32_t j = 0; j < h; j++)
        memcpy(dst + (size_t)j * stride, codes + (size_t)(ly + j) * s->side + lx, sizeof(float) * w);
}

/* Copies the tile's [lx, lx + w) × [ly, ly + h) into dst, decoding it first when the cache lacks it. */
static st_result copy_from_tile(xyz_state *s, uint32_t tx, uint32_t ty, uint32_t lx, uint32_t ly, uint32_t w,
                                uint32_t h, float *dst, size_t stride, st_error *err) {
    pthread_mutex_lock(&s->lock);
    for (unsigned i = 0; i < s->capacity; i++) {
        xyz_entry *e = &s->cache[i];
        if (e->used && e->tx == tx && e->ty == ty) {
            e->used = ++s->clock;
            copy_rect(s, e->codes, lx, ly, w, h, dst, stride);
            pthread_mutex_unlock(&s->lock);
            return ST_OK;
        }
    }
    pthread_mutex_unlock(&s->lock);
    /* Decoded outside the lock so that readers of other tiles go on; two threads may decode the same tile at
     * once, and then both copies sit in the cache until one ages out. */
    float *codes = NULL;
    uint32_t side;
    st_result r = load_tile(s, tx, ty, &codes, &side, err);
    if (r) return r;
    copy_rect(s, codes, lx, ly, w, h, dst, stride);
    pthread_mutex_lock(&s->lock);
    xyz_entry *oldest = &s->cache[0];
    for (unsigned i = 1; i < s->capacity; i++)
        if (s->cache[i].used < oldest->used) oldest = &s->cache[i];
    free(oldest->codes);
    *oldest = (xyz_entry){tx, ty, ++s->clock, codes};
    pthread_mutex_unlock(&s->lock);
    return ST_OK;
}

static st_result xyz_fetch(void *state, uint64_t x0, uint64_t y0, uint32_t w, uint32_t h, float *raw, size_t stride,
                           st_error *err) {
    xyz_state *s = state;
    for (uint64_t y = y0; y < y0 + h;) {
        uint32_t ty = (uint32_t)(y / s->side), ly = (uint32_t)(y % s->side);
        uint32_t nh = (uint32_t)(s->side - ly < y0 + h - y ? s->side - ly : y0 + h - y);
        for (uint64_t x = x0; x < x0 + w;) {
            uint32_t tx = (uint32_t)(x / s->side), lx = (uint32_t)(x % s->side);
            uint32_t nw = (uint32_t)(s->side - lx < x0 + w - x ? s->side - lx : x0 + w - x);
            st_result r = copy_from_tile(s, tx, ty, lx, ly, nw, nh, raw + (size_t)(y - y0) * stride + (x - x0),
                                         stride, err);
            if (r) return r;
            x += nw;
        }
        y += nh;
    }
    return ST_OK;
}

static st_result xyz_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err) {
    return st_dem_grid_read(&((xyz_state *)state)->grid, x0, y0, w, h, out, err);
}
static void xyz_destroy(void *state) {
    xyz_state *s = state;
    if (s->cache)
        for (unsigned i = 0; i < s->capacity; i++) free(s->cache[i].codes);
    free(s->cache);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* A decimal name without sign or leading zeros ("0", "17"), at most max. */
static bool parse_index(const char *name, size_t len, uint32_t max, uint32_t *out) {
    if (!len || len > 10 || (len > 1 && name[0] == '0')) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] < '0' || name[i] > '9') return false;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    if (v > max) return false;
    *out = (uint32_t)v;
    return true;
}

static bool is_subdir(const char *dir, const char *name) {
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

typedef struct tile_xy {
    uint32_t x, y;
} tile_xy;

/* Every z/x/y.png of the zoom: its tiles, bounded by XYZ_MAX_TILES. */
static st_result list_tiles(const char *zdir, uint32_t zoom, tile_xy **tiles, size_t *count, st_error *err) {
    *tiles = NULL;
    *count = 0;
    uint32_t n = zoom >= 32 ? UINT32_MAX : (1u << zoom) - 1;
    size_t cap = 0;
    DIR *dz = opendir(zdir);
    if (!dz) return st_error_set(err, ST_ERR_IO, "%s: cannot list it", zdir);
    st_result r = ST_OK;
    struct dirent *ex;
    while (!r && (ex = readdir(dz))) {
        uint32_t x;
        if (!parse_index(ex->d_name, strlen(ex->d_name), n, &x) || !is_subdir(zdir, ex->d_name)) continue;
        char xdir[1200];
        snprintf(xdir, sizeof xdir, "%s/%s", zdir, ex->d_name);
        DIR *dx = opendir(xdir);
        if (!dx) {
            r = st_error_set(err, ST_ERR_IO, "%s: cannot list it", xdir);
            break;
        }
        struct dirent *ey;
        while (!r && (ey = readdir(dx))) {
            size_t len = strlen(ey->d_name);
            uint32_t y;
            if (len < 5 || !st_dem_name_ends(ey->d_name, ".png") || !parse_index(ey->d_name, len - 4, n, &y)) continue;
            if (*count == XYZ_MAX_TILES) {
                r = st_error_set(err, ST_ERR_INVALID, "%s: more than %u tiles", zdir, XYZ_MAX_TILES);
                break;
            }
            if (*count == cap) {
                cap = cap ? cap * 2 : 64;
                tile_xy *t = realloc(*tiles, sizeof **tiles * cap);
                if (!t) {
                    r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
                    break;
                }
                *tiles = t;
            }
            (*tiles)[(*count)++] = (tile_xy){x, y};
        }
        closedir(dx);
    }
    closedir(dz);
    if (r) {
        free(*tiles);
        *tiles = NULL;
        *count = 0;
    }
    return r;
}

st_result st_dem_open_xyz(const char *dir, const st_dem_open_desc *desc, st_dem_source **out, st_error *err) {
    *out = NULL;
    /* The zoom: the one asked for, else the deepest folder present. */
    int zoom = -1;
    if (desc->zoom) {
        char zn[16];
        snprintf(zn, sizeof zn, "%u", desc->zoom);
        if (desc->zoom > XYZ_MAX_ZOOM || !is_subdir(dir, zn))
            return st_error_set(err, ST_ERR_INVALID, "%s: has no zoom level %u", dir, desc->zoom);
        zoom = (int)desc->zoom;
    } else {
        DIR *d = opendir(dir);
        if (!d) return st_error_set(err, ST_ERR_IO, "%s: cannot list it", dir);
        struct dirent *e;
        while ((e = readdir(d))) {
            uint32_t z;
            if (parse_index(e->d_name, strlen(e->d_name), XYZ_MAX_ZOOM, &z) && (int)z > zoom && is_subdir(dir, e->d_name))
                zoom = (int)z;
        }
        closedir(d);
        if (zoom < 0) return st_error_set(err, ST_ERR_FORMAT, "%s: no z/x/y tile folders in it", dir);
    }
    char zdir[1000];
    snprintf(zdir, sizeof zdir, "%s/%d", dir, zoom);
    tile_xy *tiles = NULL;
    size_t count = 0;
    st_result r = list_tiles(zdir, (uint32_t)zoom, &tiles, &count, err);
    if (r) return r;
    if (!count) return st_error_set(err, ST_ERR_FORMAT, "%s: no x/y.png tiles in it", zdir);
    uint32_t xmin = UINT32_MAX, xmax = 0, ymin = UINT32_MAX, ymax = 0;
    for (size_t i = 0; i < count; i++) {
        if (tiles[i].x < xmin) xmin = tiles[i].x;
        if (tiles[i].x > xmax) xmax = tiles[i].x;
        if (tiles[i].y < ymin) ymin = tiles[i].y;
        if (tiles[i].y > ymax) ymax = tiles[i].y;
    }
    uint64_t cols = (uint64_t)xmax - xmin + 1, rows = (uint64_t)ymax - ymin + 1;
    if (cols * rows != count) {
        /* File names are unique, so fewer tiles than the rectangle holds means one is missing: name it. */
        uint8_t *have = cols * rows <= XYZ_MAX_TILES ? calloc((size_t)(cols * rows), 1) : NULL;
        uint64_t miss = 0;
        if (have) {
            for (size_t i = 0; i < count; i++) have[(tiles[i].y - ymin) * cols + (tiles[i].x - xmin)] = 1;
            while (miss < cols * rows && have[miss]) miss++;
        }
        free(have);
        free(tiles);
        return st_error_set(err, ST_ERR_FORMAT,
                            "%s: the tiles x %u..%u, y %u..%u are no full rectangle: %d/%llu/%llu.png is missing",
                            dir, xmin, xmax, ymin, ymax, zoom, (unsigned long long)(xmin + miss % cols),
                            (unsigned long long)(ymin + miss / cols));
    }
    free(tiles);

    xyz_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&s->lock, NULL);
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    s->zoom = (uint32_t)zoom;
    s->x0 = xmin;
    s->y0 = ymin;
    s->cols = (uint32_t)cols;
    s->rows = (uint32_t)rows;
    /* The first tile sets the tile size; every other must match it when it is decoded. */
    float *first = NULL;
    uint32_t side = 0;
    r = load_tile(s, 0, 0, &first, &side, err);
    s->side = side;
    if (!r && (s->side < 1 || s->side > XYZ_MAX_TILE || cols * s->side > ST_DEM_MAX_SIDE || rows * s->side > ST_DEM_MAX_SIDE))
        r = st_error_set(err, ST_ERR_FORMAT, "%s: %llux%llu tiles of %u² is outside the bounds", dir,
                         (unsigned long long)cols, (unsigned long long)rows, s->side);
    if (!r) {
        uint64_t cap = XYZ_CACHE_SAMPLES / ((uint64_t)s->side * s->side);
        s->capacity = (unsigned)(cap < 4 ? 4 : cap > 64 ? 64 : cap);
        if (!(s->cache = calloc(s->capacity, sizeof *s->cache))) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
        else s->cache[0] = (xyz_entry){0, 0, ++s->clock, first};
        if (!r) first = NULL;
    }
    free(first);
    if (r) {
        xyz_destroy(s);
        return r;
    }
    bool mapbox = desc->rgb == ST_DEM_RGB_MAPBOX;
    double scale = mapbox ? 0.1 : 1.0 / 256, offset = mapbox ? -10000.0 : -32768.0;
    s->grid = (st_dem_grid){.width = cols * s->side, .height = rows * s->side, .scale = scale, .offset = offset,
                            .integral = true, .name = s->dir, .fetch = xyz_fetch, .state = s};
    st_dem_info info = {.width = s->grid.width, .height = s->grid.height, .unit_m = scale};
    st_dem_bound(offset, offset + scale * 16777215.0, false, &info);
    /* Web mercator: a pixel is 2πR / (T · 2^z) metres on the sphere at the equator, times cos φ at latitude φ;
     * φ at the rectangle's centre row from the inverse mercator, φ = atan(sinh(π (1 − 2 y / 2^z))). */
    double n = ldexp(1.0, zoom), world = 2 * M_PI * XYZ_EARTH_RADIUS;
    double yc = ymin + rows / 2.0, lat = atan(sinh(M_PI * (1 - 2 * yc / n)));
    double px = world / (n * s->side);
    info.spacing_x_m = info.spacing_y_m = px * cos(lat);
    info.georeferenced = true;
    double g[6] = {-world / 2 + xmin * world / n, px, 0, world / 2 - ymin * world / n, 0, -px};
    memcpy(info.geotransform, g, sizeof g);
    snprintf(info.crs, sizeof info.crs, "WGS 84 / Pseudo-Mercator");
    snprintf(info.description, sizeof info.description, "%s: %s tiles, zoom %d, %llux%llu of %u², %llux%llu",
             st_dem_base_name(dir), mapbox ? "Terrain-RGB" : "Terrarium", zoom, (unsigned long long)cols,
             (unsigned long long)rows, s->side, (unsigned long long)info.width, (unsigned long long)info.height);
    static const st_dem_source_ops ops = {.read = xyz_read, .destroy = xyz_destroy};
    return st_dem_source_create(&ops, s, &info, out, err);
}
