/* A level as a PNG set: height.png and meta.png (the two byte planes, 8-bit grey; height.png also says where
 * the level wraps) and preview.png (a top-down colour picture through the palette), and the reverse import. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strata/file.h"
#include "strata/heightmap.h"
#include "strata/image.h"

#define ST_PNG_WRAP_KEY "Strata Wrap" /* height.png's tEXt keyword for the wrap flags */

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

st_result st_level_write_pngs(const st_level *level, const char *dir, st_error *err) {
    char created[1024];
    st_result r = st_make_dirs_tracked(dir, created, sizeof created, err);
    if (r) return r;
    /* The three files appear together or not at all: each is opened (as a temporary) before any is written,
     * and committed only when all are complete. */
    static const char *const names[3] = {"preview.png", "meta.png", "height.png"};
    st_atomic_file files[3];
    size_t opened = 0;
    uint8_t *rgb = NULL;
    for (; opened < 3 && !r; opened++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/%s", dir, names[opened]);
        r = st_atomic_open(&files[opened], path, err);
        if (r) break;
    }
    const uint8_t *heights, *meta;
    st_level_planes(level, &heights, &meta);
    if (!r) r = st_level_preview(level, &rgb, err);
    if (!r) r = st_png_write_to(&files[0], level->width, level->height, 3, 8, rgb, err);
    if (!r) r = st_png_write_to(&files[1], level->width, level->height, 1, 8, meta, err);
    /* Where the level wraps rides along in height.png, only when an axis does not (the planes alone say
     * nothing about it; a set without the chunk wraps in x and y, as every set made before it). */
    st_png_text wrap = {ST_PNG_WRAP_KEY, level->wrap_x ? "x" : level->wrap_y ? "y" : "none"};
    bool both = level->wrap_x && level->wrap_y;
    if (!r) r = st_png_write_texts_to(&files[2], level->width, level->height, 1, 8, heights, &wrap, both ? 0 : 1, err);
    free(rgb);
    if (!r) r = st_atomic_commit_all(files, 3, err);
    else st_atomic_abort_all(files, opened);
    if (r) st_remove_dirs(dir, created);
    return r;
}

/* The wrap flags of a PNG set from height.png's text chunk: "x", "y", "xy" or "none"; none at all = both. */
static st_result read_wrap(const uint8_t *data, size_t size, const char *path, st_level *l, st_error *err) {
    char text[16];
    bool found;
    st_result r = st_png_find_text(data, size, path, ST_PNG_WRAP_KEY, text, sizeof text, &found, err);
    if (r || !found) return r;
    if (!strcmp(text, "xy")) l->wrap_x = l->wrap_y = true;
    else if (!strcmp(text, "x")) l->wrap_x = true, l->wrap_y = false;
    else if (!strcmp(text, "y")) l->wrap_x = false, l->wrap_y = true;
    else if (!strcmp(text, "none")) l->wrap_x = l->wrap_y = false;
    else return st_error_set(err, ST_ERR_FORMAT, "%s: '%s' is '%s', not x, y, xy or none", path, ST_PNG_WRAP_KEY, text);
    return ST_OK;
}

/* A plane's header: 8-bit grey, or an error naming what it is instead. */
static st_result check_plane(const uint8_t *data, size_t size, const char *name, st_png_info *info, st_error *err) {
    st_result r = st_png_probe(data, size, name, info, err);
    if (r) return r;
    if (info->channels != 1 || info->bit_depth != 8)
        return st_error_set(err, ST_ERR_FORMAT, "%s: a plane must be an 8-bit greyscale PNG (this one has %d channel%s "
                                                "of %d bits)", name, info->channels, info->channels == 1 ? "" : "s",
                            info->bit_depth);
    return ST_OK;
}

st_result st_level_decode_pngs(const uint8_t *height_png, size_t height_size, const uint8_t *meta_png,
                               size_t meta_size, const char *height_name, const char *meta_name, st_level **out,
                               st_error *err) {
    *out = NULL;
    if (!height_name) height_name = "height.png";
    if (!meta_name) meta_name = "meta.png";
    /* Both headers, the layout and the size first: nothing is decoded for a set that cannot be a level. */
    st_png_info hi, mi;
    st_result r = check_plane(height_png, height_size, height_name, &hi, err);
    if (!r) r = check_plane(meta_png, meta_size, meta_name, &mi, err);
    if (r) return r;
    if (hi.width != mi.width || hi.height != mi.height)
        return st_error_set(err, ST_ERR_FORMAT, "%s is %ux%u but %s is %ux%u", height_name, hi.width, hi.height,
                            meta_name, mi.width, mi.height);
    if (st_level_check_size(hi.width, hi.height, err)) return st_error_prefix(err, "%s", height_name);
    void *heights = NULL, *meta = NULL;
    st_level *l = NULL;
    r = st_png_decode(height_png, height_size, height_name, ST_LEVEL_MAX_TEXELS, &hi, &heights, err);
    if (!r) r = st_png_decode(meta_png, meta_size, meta_name, ST_LEVEL_MAX_TEXELS, &mi, &meta, err);
    if (!r) r = st_level_create(hi.width, hi.height, &l, err);
    if (!r && (r = read_wrap(height_png, height_size, height_name, l, err))) {
        st_level_destroy(l);
        l = NULL;
    }
    if (!r) {
        st_level_write_rect(l, (st_rect){0, 0, (int32_t)hi.width, (int32_t)hi.height}, heights, meta);
        *out = l;
    }
    free(heights);
    free(meta);
    return r;
}

st_result st_level_read_pngs(const char *dir, st_level **out, st_error *err) {
    *out = NULL;
    char hp[1100], mp[1100];
    snprintf(hp, sizeof hp, "%s/height.png", dir);
    snprintf(mp, sizeof mp, "%s/meta.png", dir);
    uint8_t *hd = NULL, *md = NULL;
    size_t hs = 0, ms = 0;
    /* A compressed plane is at most a little larger than the raw one (deflate's stored blocks). */
    size_t cap = (size_t)ST_LEVEL_MAX_TEXELS + (64u << 20);
    st_result r = st_file_read_all(hp, cap, &hd, &hs, err);
    if (!r) r = st_file_read_all(mp, cap, &md, &ms, err);
    if (!r) r = st_level_decode_pngs(hd, hs, md, ms, hp, mp, out, err);
    free(hd);
    free(md);
    if (r) return r;
    st_level *l = *out;
    const char *base = strrchr(dir, '/');
    base = base && base[1] ? base + 1 : dir;
    size_t n = strlen(base) < sizeof l->name - 1 ? strlen(base) : sizeof l->name - 1;
    memcpy(l->name, base, n);
    l->name[n] = 0;
    return ST_OK;
}
