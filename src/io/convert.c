/* A level as a PNG set: height.png and meta.png (the two byte planes, 8-bit grey) and preview.png (a
 * top-down colour picture through the palette), and the reverse import of the two planes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strata/heightmap.h"
#include "strata/image.h"

st_result st_level_preview(const st_level *level, uint8_t **rgb, st_error *err) {
    uint32_t w = level->width, h = level->height;
    uint8_t *out = malloc((size_t)w * h * 3);
    if (!out) return st_error_set(err, ST_ERR_NOMEM, "preview: cannot allocate %ux%u", w, h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            st_texel t = st_level_texel(level, (int)x, (int)y);
            /* What a camera looking straight down sees: the top layer, coloured along its material's ramp
             * by height (the ramps run dark to bright). */
            uint32_t type = t.high_type & 15u;
            uint32_t b = level->begin_color[type], e = level->end_color[type];
            if (e < b) e = b;
            uint32_t idx = b + (e - b) * t.high / 255u;
            st_rgb8 c = level->palette[idx & 255u];
            uint8_t *o = out + 3 * ((size_t)y * w + x);
            o[0] = c.r;
            o[1] = c.g;
            o[2] = c.b;
        }
    *rgb = out;
    return ST_OK;
}

static st_result ensure_dir(const char *dir, st_error *err) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return st_error_set(err, ST_ERR_IO, "%s: %s", dir, strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return st_error_set(err, ST_ERR_IO, "%s: not a directory", dir);
    return ST_OK;
}

st_result st_level_write_pngs(const st_level *level, const char *dir, st_error *err) {
    st_result r = ensure_dir(dir, err);
    if (r) return r;
    char path[1100];
    uint8_t *rgb = NULL;
    if ((r = st_level_preview(level, &rgb, err))) return r;
    snprintf(path, sizeof path, "%s/preview.png", dir);
    r = st_png_write(path, level->width, level->height, 3, 8, rgb, err);
    free(rgb);
    if (r) return r;
    const uint8_t *heights, *meta;
    st_level_planes(level, &heights, &meta);
    snprintf(path, sizeof path, "%s/meta.png", dir);
    if ((r = st_png_write(path, level->width, level->height, 1, 8, meta, err))) return r;
    snprintf(path, sizeof path, "%s/height.png", dir);
    return st_png_write(path, level->width, level->height, 1, 8, heights, err);
}

static st_result read_plane(const char *path, uint32_t *w, uint32_t *h, uint8_t **plane, st_error *err) {
    int ch = 0, bd = 0;
    void *px = NULL;
    st_result r = st_png_read(path, w, h, &ch, &bd, &px, err);
    if (r) return r;
    if (ch != 1 || bd != 8) {
        free(px);
        return st_error_set(err, ST_ERR_FORMAT, "%s: a plane must be an 8-bit greyscale PNG (this one has %d channel%s "
                                                "of %d bits)", path, ch, ch == 1 ? "" : "s", bd);
    }
    *plane = px;
    return ST_OK;
}

st_result st_level_read_pngs(const char *dir, st_level **out, st_error *err) {
    *out = NULL;
    char hp[1100], mp[1100];
    snprintf(hp, sizeof hp, "%s/height.png", dir);
    snprintf(mp, sizeof mp, "%s/meta.png", dir);
    uint32_t w = 0, h = 0, w2 = 0, h2 = 0;
    uint8_t *heights = NULL, *meta = NULL;
    st_result r = read_plane(hp, &w, &h, &heights, err);
    if (!r) r = read_plane(mp, &w2, &h2, &meta, err);
    if (!r && (w != w2 || h != h2))
        r = st_error_set(err, ST_ERR_FORMAT, "%s is %ux%u but %s is %ux%u", hp, w, h, mp, w2, h2);
    if (!r && (r = st_level_check_size(w, h, err))) st_error_prefix(err, "%s", hp);
    st_level *l = NULL;
    if (!r) r = st_level_create(w, h, &l, err);
    if (!r) {
        st_level_write_rect(l, (st_rect){0, 0, (int32_t)w, (int32_t)h}, heights, meta);
        const char *base = strrchr(dir, '/');
        base = base && base[1] ? base + 1 : dir;
        size_t n = strlen(base) < sizeof l->name - 1 ? strlen(base) : sizeof l->name - 1;
        memcpy(l->name, base, n);
        l->name[n] = 0;
        *out = l;
    }
    free(heights);
    free(meta);
    return r;
}
