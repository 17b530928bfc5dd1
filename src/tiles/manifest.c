/* A store's manifest (store.json, written last, so a folder without one is not a complete store) and its level
 * indices (index/L.idx: one fixed-size record per tile, so a tile's bounds and checksum are found by key). */
#include <ctype.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiles/tiles_internal.h"

#define INDEX_MAGIC "STRAIDX"

uint32_t st_tiles_across(st_tile_kind kind, uint64_t extent, uint32_t tile_size, uint32_t level) {
    uint64_t span = (uint64_t)st_tile_span(kind, tile_size) << level;
    uint64_t intervals = kind == ST_TILE_DEM ? (extent > 1 ? extent - 1 : 1) : extent;
    uint64_t n = (intervals + span - 1) / span;
    return n ? (uint32_t)n : 1;
}

uint32_t st_tiles_levels(st_tile_kind kind, uint64_t width, uint64_t height, uint32_t tile_size) {
    uint32_t l = 0;
    while (l + 1 < ST_STORE_MAX_LEVELS && (st_tiles_across(kind, width, tile_size, l) > 1 ||
                                           st_tiles_across(kind, height, tile_size, l) > 1))
        l++;
    return l + 1;
}

void st_tile_path(st_tile_key key, char *out, size_t cap) {
    snprintf(out, cap, "tiles/%u/%u/%u.tile", key.level, key.y, key.x);
}

void st_index_path(uint32_t level, char *out, size_t cap) { snprintf(out, cap, "index/%u.idx", level); }

/* ---- indices --------------------------------------------------------------------------------------------- */


st_result st_index_encode(uint32_t level, uint32_t nx, uint32_t ny, const st_tile_meta *records, uint8_t **data,
                          size_t *size, st_error *err) {
    size_t count = (size_t)nx * ny, n = ST_INDEX_HEADER_BYTES + count * ST_INDEX_RECORD_BYTES;
    uint8_t *buf = calloc(1, n);
    if (!buf) return st_error_set(err, ST_ERR_NOMEM, "out of memory for the index of level %u", level);
    uint8_t *rec = buf + ST_INDEX_HEADER_BYTES;
    for (size_t i = 0; i < count; i++, rec += ST_INDEX_RECORD_BYTES) {
        st_le_putf(rec, records[i].min_m);
        st_le_putf(rec + 4, records[i].max_m);
        st_le_putf(rec + 8, records[i].delta_m);
        st_le_put32(rec + 12, records[i].crc);
        st_le_put32(rec + 16, records[i].bytes);
    }
    memcpy(buf, INDEX_MAGIC, 8);
    buf[8] = ST_STORE_VERSION;
    buf[10] = (uint8_t)level;
    st_le_put32(buf + 12, nx);
    st_le_put32(buf + 16, ny);
    st_le_put32(buf + 20, ST_INDEX_RECORD_BYTES);
    st_le_put32(buf + 24, st_crc32(buf + ST_INDEX_HEADER_BYTES, count * ST_INDEX_RECORD_BYTES));
    *data = buf;
    *size = n;
    return ST_OK;
}

st_result st_index_decode(const uint8_t *data, size_t size, const char *name, uint32_t level, uint32_t nx,
                          uint32_t ny, st_tile_meta *records, st_error *err) {
    size_t count = (size_t)nx * ny, n = ST_INDEX_HEADER_BYTES + count * ST_INDEX_RECORD_BYTES;
    if (size < ST_INDEX_HEADER_BYTES || memcmp(data, INDEX_MAGIC, 8))
        return st_error_set(err, ST_ERR_FORMAT, "%s: not a strata tile index", name);
    if (data[8] != ST_STORE_VERSION) return st_error_set(err, ST_ERR_FORMAT, "%s: index version %u", name, data[8]);
    if (data[10] != level || st_le_get32(data + 12) != nx || st_le_get32(data + 16) != ny ||
        st_le_get32(data + 20) != ST_INDEX_RECORD_BYTES)
        return st_error_set(err, ST_ERR_FORMAT, "%s: describes a different level than the manifest (%ux%u tiles)", name,
                            st_le_get32(data + 12), st_le_get32(data + 16));
    if (size != n) return st_error_set(err, ST_ERR_FORMAT, "%s: %zu bytes where %zu are expected", name, size, n);
    if (st_crc32(data + ST_INDEX_HEADER_BYTES, count * ST_INDEX_RECORD_BYTES) != st_le_get32(data + 24))
        return st_error_set(err, ST_ERR_FORMAT, "%s: checksum mismatch (the index is damaged)", name);
    const uint8_t *rec = data + ST_INDEX_HEADER_BYTES;
    for (size_t i = 0; i < count; i++, rec += ST_INDEX_RECORD_BYTES) {
        st_tile_meta m = {st_le_getf(rec), st_le_getf(rec + 4), st_le_getf(rec + 8), st_le_get32(rec + 12), st_le_get32(rec + 16)};
        if (m.bytes && (m.bytes > ST_STORE_MAX_FILE || !isfinite(m.min_m) || !isfinite(m.max_m) || m.min_m > m.max_m ||
                        !isfinite(m.delta_m) || m.delta_m < 0))
            return st_error_set(err, ST_ERR_FORMAT, "%s: bad record for tile %zu", name, i);
        records[i] = m;
    }
    return ST_OK;
}

/* ---- the manifest ---------------------------------------------------------------------------------------- */

static const char *kind_name(st_tile_kind k) { return k == ST_TILE_LAYERS ? "layers" : "dem"; }
static const char *encoding_name(st_tile_encoding e) {
    return e == ST_TILE_U16 ? "u16" : e == ST_TILE_F32 ? "f32" : "pairs";
}

st_result st_manifest_format(const st_store_info *info, char **text, st_error *err) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    cJSON_AddStringToObject(o, "format", "strata-tile-store");
    cJSON_AddNumberToObject(o, "version", ST_STORE_VERSION);
    cJSON_AddStringToObject(o, "kind", kind_name(info->kind));
    cJSON_AddStringToObject(o, "encoding", encoding_name(info->encoding));
    cJSON_AddStringToObject(o, "compression", info->compression == ST_TILE_ZSTD ? "zstd" : "none");
    cJSON_AddNumberToObject(o, "tile_size", info->tile_size);
    cJSON_AddNumberToObject(o, "levels", info->levels);
    cJSON_AddNumberToObject(o, "width", (double)info->width);
    cJSON_AddNumberToObject(o, "height", (double)info->height);
    double sp[2] = {info->spacing_x_m, info->spacing_y_m};
    cJSON_AddItemToObject(o, "spacing_m", cJSON_CreateDoubleArray(sp, 2));
    cJSON_AddNumberToObject(o, "scale", info->scale);
    cJSON_AddNumberToObject(o, "offset", info->offset);
    cJSON_AddNumberToObject(o, "min_m", info->min_m);
    cJSON_AddNumberToObject(o, "max_m", info->max_m);
    cJSON_AddNumberToObject(o, "sea_level_m", info->sea_level_m);
    cJSON_AddBoolToObject(o, "wrap_x", info->wrap_x);
    cJSON_AddNumberToObject(o, "tiles", (double)info->tiles);
    cJSON_AddNumberToObject(o, "bytes", (double)info->bytes);
    cJSON_AddStringToObject(o, "source", info->source);
    if (info->georeferenced) {
        cJSON *g = cJSON_AddObjectToObject(o, "georef");
        cJSON_AddItemToObject(g, "geotransform", cJSON_CreateDoubleArray(info->geotransform, 6));
        cJSON_AddStringToObject(g, "crs", info->crs);
    }
    if (info->kind == ST_TILE_LAYERS) {
        cJSON *l = cJSON_AddObjectToObject(o, "layers");
        cJSON_AddStringToObject(l, "name", info->name);
        cJSON_AddNumberToObject(l, "terrain_types", info->terrain_types);
        int begin[16], end[16];
        for (int i = 0; i < 16; i++) begin[i] = info->begin_color[i], end[i] = info->end_color[i];
        cJSON_AddItemToObject(l, "begin_colors", cJSON_CreateIntArray(begin, 16));
        cJSON_AddItemToObject(l, "end_colors", cJSON_CreateIntArray(end, 16));
        char hex[256 * 6 + 1];
        for (int i = 0; i < 256; i++)
            snprintf(hex + 6 * i, 7, "%02x%02x%02x", info->palette[i].r, info->palette[i].g, info->palette[i].b);
        cJSON_AddStringToObject(l, "palette", hex);
        cJSON_AddBoolToObject(l, "wrap_y", info->wrap_y);
        cJSON_AddNumberToObject(l, "section_power", info->section_power);
        if (info->overlay_of[0]) cJSON_AddStringToObject(l, "overlay_of", info->overlay_of);
        if (info->color_map[0]) cJSON_AddStringToObject(l, "color_map", info->color_map);
        if (info->flood_sections) { /* hex, as the palette: the flood levels of each section of rows */
            char *fl = malloc(2 * (size_t)info->flood_sections + 1);
            if (!fl) {
                cJSON_Delete(o);
                return st_error_set(err, ST_ERR_NOMEM, "out of memory");
            }
            for (uint32_t i = 0; i < info->flood_sections; i++) snprintf(fl + 2 * i, 3, "%02x", info->flood[i]);
            cJSON_AddStringToObject(l, "flood", fl);
            free(fl);
        }
    }
    *text = cJSON_Print(o);
    cJSON_Delete(o);
    if (!*text) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    return ST_OK;
}

/* A number member within [lo, hi]; false (with the message set) otherwise. */
static bool num(const cJSON *o, const char *key, double lo, double hi, double *out, const char *name, st_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi) {
        st_error_set(err, ST_ERR_FORMAT, "%s: '%s' is missing or out of range", name, key);
        return false;
    }
    *out = v->valuedouble;
    return true;
}

static bool whole(double v) { return floor(v) == v; }

st_result st_manifest_parse(const char *text, size_t size, const char *name, st_store_info *info, st_error *err) {
    memset(info, 0, sizeof *info);
    cJSON *o = cJSON_ParseWithLength(text, size);
    if (!o || !cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return st_error_set(err, ST_ERR_FORMAT, "%s: not a JSON object", name);
    }
    st_result r = ST_ERR_FORMAT;
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    const cJSON *enc = cJSON_GetObjectItemCaseSensitive(o, "encoding");
    const cJSON *comp = cJSON_GetObjectItemCaseSensitive(o, "compression");
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(o, "spacing_m");
    double version, ts, levels, w, h, v;
    if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "strata-tile-store")) {
        st_error_set(err, ST_ERR_FORMAT, "%s: not a strata tile store manifest", name);
        goto done;
    }
    if (!num(o, "version", 0, 1e9, &version, name, err)) goto done;
    if (version != ST_STORE_VERSION) {
        st_error_set(err, ST_ERR_FORMAT, "%s: store format version %g (this strata reads %d)", name, version,
                     ST_STORE_VERSION);
        goto done;
    }
    if (!cJSON_IsString(kind) || !cJSON_IsString(enc) || !cJSON_IsString(comp)) {
        st_error_set(err, ST_ERR_FORMAT, "%s: kind, encoding and compression must be strings", name);
        goto done;
    }
    if (!strcmp(kind->valuestring, "dem")) info->kind = ST_TILE_DEM;
    else if (!strcmp(kind->valuestring, "layers")) info->kind = ST_TILE_LAYERS;
    if (!strcmp(enc->valuestring, "u16")) info->encoding = ST_TILE_U16;
    else if (!strcmp(enc->valuestring, "f32")) info->encoding = ST_TILE_F32;
    else if (!strcmp(enc->valuestring, "pairs")) info->encoding = ST_TILE_PAIRS;
    if (!strcmp(comp->valuestring, "zstd")) info->compression = ST_TILE_ZSTD;
    else if (!strcmp(comp->valuestring, "none")) info->compression = ST_TILE_RAW;
    else info->compression = (st_tile_compression)-1;
    bool pairs = info->encoding == ST_TILE_PAIRS;
    if (!info->kind || !info->encoding || (int)info->compression < 0 || pairs != (info->kind == ST_TILE_LAYERS)) {
        st_error_set(err, ST_ERR_FORMAT, "%s: unknown kind, encoding or compression", name);
        goto done;
    }
    if (!num(o, "tile_size", 2, ST_TILE_MAX_SIZE, &ts, name, err) || !num(o, "levels", 1, ST_STORE_MAX_LEVELS, &levels, name, err) ||
        !num(o, "width", 1, (double)ST_DEM_MAX_SIDE, &w, name, err) ||
        !num(o, "height", 1, (double)ST_DEM_MAX_SIDE, &h, name, err))
        goto done;
    info->tile_size = (uint32_t)ts;
    info->levels = (uint32_t)levels;
    info->width = (uint64_t)w;
    info->height = (uint64_t)h;
    bool size_ok = info->kind == ST_TILE_DEM ? st_is_pow2(info->tile_size - 1) : st_is_pow2(info->tile_size);
    if (!whole(ts) || !whole(levels) || !whole(w) || !whole(h) || !size_ok ||
        info->levels != (info->kind == ST_TILE_DEM ? st_tiles_levels(info->kind, info->width, info->height, info->tile_size) : 1)) {
        st_error_set(err, ST_ERR_FORMAT, "%s: tile size, levels and world size do not agree", name);
        goto done;
    }
    if (!cJSON_IsArray(sp) || cJSON_GetArraySize(sp) != 2 || !cJSON_IsNumber(cJSON_GetArrayItem(sp, 0)) ||
        !cJSON_IsNumber(cJSON_GetArrayItem(sp, 1))) {
        st_error_set(err, ST_ERR_FORMAT, "%s: spacing_m must be [x, y]", name);
        goto done;
    }
    info->spacing_x_m = cJSON_GetArrayItem(sp, 0)->valuedouble;
    info->spacing_y_m = cJSON_GetArrayItem(sp, 1)->valuedouble;
    if (!(info->spacing_x_m > 0 && info->spacing_x_m < 1e7) || !(info->spacing_y_m > 0 && info->spacing_y_m < 1e7)) {
        st_error_set(err, ST_ERR_FORMAT, "%s: spacing_m out of range", name);
        goto done;
    }
    if (!num(o, "scale", 1e-12, 1e12, &info->scale, name, err) || !num(o, "offset", -1e12, 1e12, &info->offset, name, err) ||
        !num(o, "min_m", -1e12, 1e12, &info->min_m, name, err) || !num(o, "max_m", -1e12, 1e12, &info->max_m, name, err) ||
        !num(o, "sea_level_m", -1e12, 1e12, &info->sea_level_m, name, err) || !num(o, "tiles", 0, 1e15, &v, name, err))
        goto done;
    info->tiles = (uint64_t)v;
    if (!num(o, "bytes", 0, 1e18, &v, name, err)) goto done;
    info->bytes = (uint64_t)v;
    if (info->min_m > info->max_m) {
        st_error_set(err, ST_ERR_FORMAT, "%s: min_m above max_m", name);
        goto done;
    }
    info->wrap_x = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "wrap_x"));
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
    if (cJSON_IsString(src)) snprintf(info->source, sizeof info->source, "%s", src->valuestring);
    const cJSON *geo = cJSON_GetObjectItemCaseSensitive(o, "georef");
    if (cJSON_IsObject(geo)) {
        const cJSON *gt = cJSON_GetObjectItemCaseSensitive(geo, "geotransform");
        const cJSON *crs = cJSON_GetObjectItemCaseSensitive(geo, "crs");
        if (cJSON_GetArraySize(gt) != 6) {
            st_error_set(err, ST_ERR_FORMAT, "%s: georef.geotransform must have 6 numbers", name);
            goto done;
        }
        for (int i = 0; i < 6; i++) {
            const cJSON *g = cJSON_GetArrayItem(gt, i);
            if (!cJSON_IsNumber(g) || !isfinite(g->valuedouble)) {
                st_error_set(err, ST_ERR_FORMAT, "%s: bad georef.geotransform", name);
                goto done;
            }
            info->geotransform[i] = g->valuedouble;
        }
        if (cJSON_IsString(crs)) snprintf(info->crs, sizeof info->crs, "%s", crs->valuestring);
        info->georeferenced = true;
    }
    if (info->kind == ST_TILE_LAYERS) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, "layers");
        const cJSON *bc = cJSON_GetObjectItemCaseSensitive(l, "begin_colors");
        const cJSON *ec = cJSON_GetObjectItemCaseSensitive(l, "end_colors");
        const cJSON *pal = cJSON_GetObjectItemCaseSensitive(l, "palette");
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(l, "name");
        double types;
        if (!cJSON_IsObject(l) || !num(l, "terrain_types", 8, 16, &types, name, err)) goto done;
        info->terrain_types = (uint32_t)types;
        if ((info->terrain_types != 8 && info->terrain_types != 16) || cJSON_GetArraySize(bc) != 16 ||
            cJSON_GetArraySize(ec) != 16 || !cJSON_IsString(pal) || strlen(pal->valuestring) != 256 * 6) {
            st_error_set(err, ST_ERR_FORMAT, "%s: bad layers section", name);
            goto done;
        }
        for (int i = 0; i < 16; i++) {
            const cJSON *b = cJSON_GetArrayItem(bc, i), *e = cJSON_GetArrayItem(ec, i);
            if (!cJSON_IsNumber(b) || !cJSON_IsNumber(e) || b->valueint < 0 || b->valueint > 255 || e->valueint < 0 ||
                e->valueint > 255) {
                st_error_set(err, ST_ERR_FORMAT, "%s: bad colour ramp", name);
                goto done;
            }
            info->begin_color[i] = (uint8_t)b->valueint;
            info->end_color[i] = (uint8_t)e->valueint;
        }
        for (int i = 0; i < 256; i++) {
            unsigned rgb[3];
            char part[3] = {0};
            for (int c = 0; c < 3; c++) {
                memcpy(part, pal->valuestring + 6 * i + 2 * c, 2);
                char *end;
                rgb[c] = (unsigned)strtoul(part, &end, 16);
                if (*end) {
                    st_error_set(err, ST_ERR_FORMAT, "%s: bad palette", name);
                    goto done;
                }
            }
            info->palette[i] = (st_rgb8){(uint8_t)rgb[0], (uint8_t)rgb[1], (uint8_t)rgb[2]};
        }
        if (cJSON_IsString(nm)) snprintf(info->name, sizeof info->name, "%s", nm->valuestring);
        /* the wrap along y, the flood sections and their levels: absent in stores written before them (no wrap
         * along y, sections of 128 rows, no flood) */
        info->wrap_y = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "wrap_y"));
        info->section_power = 7;
        if (cJSON_GetObjectItemCaseSensitive(l, "section_power")) {
            double spow;
            if (!num(l, "section_power", 0, 31, &spow, name, err) || !whole(spow)) goto done;
            info->section_power = (uint32_t)spow;
        }
        const cJSON *cm = cJSON_GetObjectItemCaseSensitive(l, "color_map");
        if (cm) {
            if (!cJSON_IsString(cm) || !cm->valuestring[0] || cm->valuestring[0] == '.' ||
                strchr(cm->valuestring, '/') || strchr(cm->valuestring, '\\') ||
                strlen(cm->valuestring) >= sizeof info->color_map) {
                st_error_set(err, ST_ERR_FORMAT, "%s: color_map must be a file name in the store's folder", name);
                goto done;
            }
            snprintf(info->color_map, sizeof info->color_map, "%s", cm->valuestring);
        }
        const cJSON *ov = cJSON_GetObjectItemCaseSensitive(l, "overlay_of");
        if (ov) { /* the edits of a generated world: only a multi-layer generator spec is taken */
            if (!cJSON_IsString(ov) || strncmp(ov->valuestring, "gen:multi:", 10) ||
                strlen(ov->valuestring) >= sizeof info->overlay_of) {
                st_error_set(err, ST_ERR_FORMAT, "%s: overlay_of must name a generated multi-layer world", name);
                goto done;
            }
            snprintf(info->overlay_of, sizeof info->overlay_of, "%s", ov->valuestring);
        }
        const cJSON *fl = cJSON_GetObjectItemCaseSensitive(l, "flood");
        if (fl) {
            uint64_t want = info->height >> info->section_power ? info->height >> info->section_power : 1;
            size_t len = cJSON_IsString(fl) ? strlen(fl->valuestring) : 0;
            if (!len || len != 2 * want || want > ST_STORE_MAX_FLOOD) {
                st_error_set(err, ST_ERR_FORMAT, "%s: bad flood levels (one byte per section of rows)", name);
                goto done;
            }
            for (size_t i = 0; i < want; i++) {
                char part[3] = {fl->valuestring[2 * i], fl->valuestring[2 * i + 1], 0}, *end;
                unsigned long level = strtoul(part, &end, 16);
                if (*end || !isxdigit((unsigned char)part[0]) || !isxdigit((unsigned char)part[1])) {
                    st_error_set(err, ST_ERR_FORMAT, "%s: bad flood levels", name);
                    goto done;
                }
                info->flood[i] = (uint8_t)level;
            }
            info->flood_sections = (uint32_t)want;
        }
    }
    r = ST_OK;
done:
    cJSON_Delete(o);
    return r;
}
