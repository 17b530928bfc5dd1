/* The control map's file: a small deflated image of its texels with a CRC (kept apart from the map itself, whose
 * painting and undo also run where there is no zlib: the web build). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "strata/file.h"
#include "strata/materials.h"

#define CONTROL_MAGIC "STCTL\x01\r\n"

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

st_result st_control_map_encode(const st_control_map *map, uint8_t **bytes, size_t *size, st_error *err) {
    *bytes = NULL;
    *size = 0;
    size_t raw = (size_t)map->width * map->height * 4;
    uLongf cap = compressBound((uLong)raw);
    uint8_t *buf = malloc(24 + (size_t)cap);
    if (!buf) return st_error_set(err, ST_ERR_NOMEM, "out of memory encoding the control map");
    if (compress2(buf + 24, &cap, map->texels, (uLong)raw, 6) != Z_OK) {
        free(buf);
        return st_error_set(err, ST_ERR_IO, "deflating the control map failed");
    }
    memcpy(buf, CONTROL_MAGIC, 8);
    put_u32(buf + 8, map->width);
    put_u32(buf + 12, map->height);
    put_u32(buf + 16, st_crc32(map->texels, raw));
    put_u32(buf + 20, (uint32_t)cap);
    *bytes = buf;
    *size = 24 + (size_t)cap;
    return ST_OK;
}

st_result st_control_map_save(const st_control_map *map, const char *path, st_error *err) {
    uint8_t *buf = NULL;
    size_t size = 0;
    st_result r = st_control_map_encode(map, &buf, &size, err);
    if (r) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        return st_error_set(err, r, "%s: %s", path, why);
    }
    r = st_file_write_atomic(path, buf, size, err);
    free(buf);
    return r;
}

st_result st_control_map_decode(const uint8_t *data, size_t size, const char *name, st_control_map **out,
                                st_error *err) {
    *out = NULL;
    if (size < 24 || memcmp(data, CONTROL_MAGIC, 8)) return st_error_set(err, ST_ERR_FORMAT, "%s: not a control map", name);
    uint32_t w = get_u32(data + 8), h = get_u32(data + 12), crc = get_u32(data + 16), csize = get_u32(data + 20);
    if ((size_t)csize != size - 24)
        return st_error_set(err, ST_ERR_FORMAT, "%s: the control map is truncated or has trailing bytes", name);
    /* Deflate expands at most 1032:1, so the claimed size is checked against the bytes before the map is
     * allocated: a 40-byte file claiming 16384² texels would take a gigabyte. */
    if ((uint64_t)w * h * 4 > (uint64_t)csize * 1032 + 64)
        return st_error_set(err, ST_ERR_FORMAT, "%s: a %ux%u control map cannot come from %u deflated bytes", name, w,
                            h, csize);
    st_control_map *m;
    st_result r = st_control_map_create(w, h, &m, err);
    if (r) return r == ST_ERR_NOMEM ? r : st_error_set(err, ST_ERR_FORMAT, "%s: bad control map size %ux%u", name, w, h);
    uLongf raw = (uLongf)w * h * 4;
    int zr = uncompress(m->texels, &raw, data + 24, csize);
    if (zr != Z_OK || raw != (uLongf)w * h * 4 || st_crc32(m->texels, raw) != crc) {
        st_control_map_destroy(m);
        return st_error_set(err, ST_ERR_FORMAT, "%s: the control map's texels are corrupt", name);
    }
    *out = m;
    return ST_OK;
}

st_result st_control_map_load(const char *path, st_control_map **out, st_error *err) {
    *out = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    /* the largest map (2³⁰ texels of 4 bytes) deflates to about this at worst */
    st_result r = st_file_read_all(path, (size_t)4 << 30, &data, &size, err);
    if (r) return r;
    r = st_control_map_decode(data, size, path, out, err);
    free(data);
    return r;
}

/* ---- painting --------------------------------------------------------------------------------------- */
