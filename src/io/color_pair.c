/* Comanche-style worlds: a height map whose samples are the height steps as they are (1:1) and a colour map of
 * the same size that becomes the level's albedo (st_level.colors). Both headers are judged before either image
 * is decoded, so a mismatched or oversized pair costs nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "strata/file.h"
#include "strata/heightmap.h"
#include "strata/image.h"
#include "strata/vangers.h"

#define PAIR_WRAP_KEY "Strata Wrap" /* the PNG set's keyword (convert.c): where the height map's level wraps */

/* Where the level wraps: the height map's "Strata Wrap" text chunk, and nowhere without one (a map that is not
 * a tile would show its opposite edge past its own). */
static st_result pair_wrap(const uint8_t *data, size_t size, const char *name, st_level *l, st_error *err) {
    char text[16];
    bool found;
    l->wrap_x = l->wrap_y = false;
    st_result r = st_png_find_text(data, size, name, PAIR_WRAP_KEY, text, sizeof text, &found, err);
    if (r || !found) return r;
    if (!strcmp(text, "xy")) l->wrap_x = l->wrap_y = true;
    else if (!strcmp(text, "x")) l->wrap_x = true;
    else if (!strcmp(text, "y")) l->wrap_y = true;
    else if (strcmp(text, "none"))
        return st_error_set(err, ST_ERR_FORMAT, "%s: '%s' is '%s', not x, y, xy or none", name, PAIR_WRAP_KEY, text);
    return ST_OK;
}

/* The colour map's pixels as 8-bit RGB: grey is spread to the three channels, alpha dropped, 16-bit samples
 * keep their high byte. The window x0, y0, w, h of the decoded w_src-wide image. */
static uint8_t *pair_rgb(const void *pixels, const st_png_info *info, uint32_t x0, uint32_t y0, uint32_t w,
                         uint32_t h) {
    uint8_t *rgb = malloc((size_t)w * h * 3);
    if (!rgb) return NULL;
    int ch = info->channels, bytes = info->bit_depth == 16 ? 2 : 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = ((size_t)(y + y0) * info->width + x + x0) * (size_t)ch;
            uint8_t v[4] = {0, 0, 0, 0};
            for (int c = 0; c < ch && c < 4; c++)
                v[c] = bytes == 2 ? (uint8_t)(((const uint16_t *)pixels)[i + (size_t)c] >> 8)
                                  : ((const uint8_t *)pixels)[i + (size_t)c];
            uint8_t *o = rgb + ((size_t)y * w + x) * 3;
            bool grey = ch <= 2;
            o[0] = v[0];
            o[1] = grey ? v[0] : v[1];
            o[2] = grey ? v[0] : v[2];
        }
    return rgb;
}

st_result st_level_decode_color_pair(const uint8_t *height_png, size_t height_size, const uint8_t *color_png,
                                     size_t color_size, const char *height_name, const char *color_name,
                                     st_level **out, st_error *err) {
    *out = NULL;
    if (!height_name) height_name = "height.png";
    if (!color_name) color_name = "color.png";
    st_png_info hi, ci = {0};
    st_result r = st_png_probe(height_png, height_size, height_name, &hi, err);
    if (!r && color_png) r = st_png_probe(color_png, color_size, color_name, &ci, err);
    if (r) return r;
    if (hi.bit_depth != 8)
        return st_error_set(err, ST_ERR_FORMAT,
                            "%s: a height map of height steps must have 8-bit samples (this one has %d bits; a DEM "
                            "goes through 'strata convert')", height_name, hi.bit_depth);
    if (color_png && (ci.width != hi.width || ci.height != hi.height))
        return st_error_set(err, ST_ERR_FORMAT, "%s is %ux%u but %s is %ux%u: a colour map must match its height map",
                            color_name, ci.width, ci.height, height_name, hi.width, hi.height);
    if ((uint64_t)hi.width * hi.height > ST_LEVEL_MAX_TEXELS)
        return st_error_set(err, ST_ERR_INVALID, "%s: %ux%u is more than a level's %llu texels", height_name, hi.width,
                            hi.height, (unsigned long long)ST_LEVEL_MAX_TEXELS);
    st_heightmap *hm = NULL;
    st_level *l = NULL;
    void *pixels = NULL;
    st_heightmap_level_info info;
    r = st_heightmap_decode_png(height_png, height_size, height_name, &hm, err);
    /* the largest powers of two that fit, centred: the whole map when its sides are powers of two already */
    st_heightmap_level_desc d = {.fit = ST_FIT_CROP, .keep_steps = true};
    if (!r && (r = st_heightmap_to_level(hm, &d, &l, &info, err))) st_error_prefix(err, "%s", height_name);
    st_heightmap_destroy(hm);
    if (!r) r = pair_wrap(height_png, height_size, height_name, l, err);
    if (!r && color_png) r = st_png_decode(color_png, color_size, color_name, ST_LEVEL_MAX_TEXELS, &ci, &pixels, err);
    if (!r && color_png) {
        l->colors = pair_rgb(pixels, &ci, info.x0, info.y0, l->width, l->height);
        if (!l->colors) r = st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", color_name);
    }
    free(pixels);
    if (r) {
        st_level_destroy(l);
        return r;
    }
    *out = l;
    return ST_OK;
}

st_result st_level_load_color_pair(const char *height_path, const char *color_path, st_level **out, st_error *err) {
    *out = NULL;
    uint8_t *hd = NULL, *cd = NULL;
    size_t hs = 0, cs = 0;
    /* a compressed image is at most a little larger than its raw pixels (deflate's stored blocks) */
    size_t cap = (size_t)ST_LEVEL_MAX_TEXELS * 4 + (64u << 20);
    st_result r = st_file_read_all(height_path, cap, &hd, &hs, err);
    if (!r && color_path) r = st_file_read_all(color_path, cap, &cd, &cs, err);
    if (!r) r = st_level_decode_color_pair(hd, hs, cd, color_path ? cs : 0, height_path, color_path, out, err);
    free(hd);
    free(cd);
    if (r) return r;
    /* the name: the folder of the pair when the height map is its height.png, else the height map's own */
    st_level *l = *out;
    char name[sizeof l->name];
    const char *slash = strrchr(height_path, '/');
    const char *base = slash ? slash + 1 : height_path;
    if (!strcmp(base, "height.png") && slash && slash > height_path) {
        const char *start = slash;
        while (start > height_path && start[-1] != '/') start--;
        snprintf(name, sizeof name, "%.*s", (int)(slash - start), start);
    } else {
        snprintf(name, sizeof name, "%.*s", (int)(strlen(base) > 4 ? strlen(base) - 4 : strlen(base)), base);
    }
    memcpy(l->name, name, sizeof name);
    return ST_OK;
}

st_result st_level_load_world_pair(const char *path, bool *taken, st_level **out, st_error *err) {
    *out = NULL;
    *taken = false;
    struct stat sb;
    if (!path || lstat(path, &sb) != 0) return ST_OK; /* not a pair: st_world_load says what is wrong */
    size_t n = strlen(path);
    if (!S_ISDIR(sb.st_mode)) {
        if (n <= 4 || strcasecmp(path + n - 4, ".png")) return ST_OK;
        *taken = true;
        return st_level_load_color_pair(path, NULL, out, err);
    }
    char ini[1100], journal[1200], height[1100], color[1100];
    if ((size_t)snprintf(ini, sizeof ini, "%s/world.ini", path) >= sizeof ini) return ST_OK;
    snprintf(journal, sizeof journal, "%s.new", ini);
    snprintf(height, sizeof height, "%s/height.png", path);
    snprintf(color, sizeof color, "%s/color.png", path);
    /* a Vangers world (or one a save is finishing) is st_world_load's, and so is a folder of half a pair */
    if (lstat(ini, &sb) == 0 || errno != ENOENT || lstat(journal, &sb) == 0) return ST_OK;
    if (lstat(height, &sb) != 0 || lstat(color, &sb) != 0) return ST_OK;
    *taken = true;
    return st_level_load_color_pair(height, color, out, err);
}

st_result st_level_read_color_map(const char *path, st_level *level, st_error *err) {
    uint8_t *data = NULL;
    size_t size = 0;
    st_result r = st_file_read_all(path, (size_t)ST_LEVEL_MAX_TEXELS * 4 + (64u << 20), &data, &size, err);
    st_png_info info;
    if (!r) r = st_png_probe(data, size, path, &info, err);
    if (!r && (info.width != level->width || info.height != level->height))
        r = st_error_set(err, ST_ERR_FORMAT, "%s is %ux%u but the map is %ux%u: a colour map must match its map", path,
                         info.width, info.height, level->width, level->height);
    void *pixels = NULL;
    if (!r) r = st_png_decode(data, size, path, ST_LEVEL_MAX_TEXELS, &info, &pixels, err);
    free(data);
    uint8_t *rgb = r ? NULL : pair_rgb(pixels, &info, 0, 0, level->width, level->height);
    free(pixels);
    if (!r && !rgb) r = st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", path);
    if (r) return r;
    free(level->colors);
    level->colors = rgb;
    return ST_OK;
}

st_result st_world_load_colors(const char *path, st_level *level, st_error *err) {
    char dir[1100], ini_path[1200], journal[1300];
    struct stat sb;
    bool is_dir = path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!path) return st_error_set(err, ST_ERR_INVALID, "no world folder");
    if (is_dir) snprintf(dir, sizeof dir, "%s", path);
    else if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else snprintf(dir, sizeof dir, ".");
    if ((size_t)snprintf(ini_path, sizeof ini_path, is_dir ? "%s/world.ini" : "%s", path) >= sizeof ini_path)
        return st_error_set(err, ST_ERR_INVALID, "%s: path too long", path);
    snprintf(journal, sizeof journal, "%s.new", ini_path);
    /* a journal is a committed save that did not finish renaming: it and the members' .new are the world */
    bool prefer_new = stat(journal, &sb) == 0 && S_ISREG(sb.st_mode);
    const char *ini_read = prefer_new ? journal : ini_path;
    uint8_t *text = NULL;
    size_t text_size = 0;
    st_result r = st_file_read_all(ini_read, 1u << 20, &text, &text_size, err);
    st_world_ini ini;
    if (!r) r = st_world_ini_parse((const char *)text, text_size, ini_read, &ini, err);
    free(text);
    if (r || !ini.color_file[0]) return r;
    char color[1300], newer[1400];
    snprintf(color, sizeof color, "%s/%s", dir, ini.color_file);
    snprintf(newer, sizeof newer, "%s.new", color);
    return st_level_read_color_map(prefer_new && stat(newer, &sb) == 0 ? newer : color, level, err);
}
