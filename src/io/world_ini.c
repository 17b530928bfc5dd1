/* world.ini: a small INI reader for the keys a Vangers world needs (sections and keys may hold spaces,
 * matched without regard to case), and the writer that produces the same layout. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strata/vangers.h"

#define INI_MAX_BYTES (1u << 20) /* a world.ini is a few hundred bytes; refuse megabytes of junk */

static const uint8_t default_begin[8] = {1, 32, 64, 72, 88, 104, 112, 120};
static const uint8_t default_end[8] = {31, 63, 71, 87, 103, 111, 119, 127};

/* Copies [b, e) trimmed of blanks into out (truncated to cap-1), lower-cased when fold is set. */
static void copy_trim(const char *b, const char *e, char *out, size_t cap, bool fold) {
    while (b < e && isspace((unsigned char)*b)) b++;
    while (e > b && isspace((unsigned char)e[-1])) e--;
    size_t n = (size_t)(e - b);
    if (n >= cap) n = cap - 1;
    for (size_t i = 0; i < n; i++) out[i] = fold ? (char)tolower((unsigned char)b[i]) : b[i];
    out[n] = 0;
}

/* Parses exactly `count` integers in [0, max] separated by blanks or commas. */
static bool parse_ints(const char *text, uint32_t count, uint32_t max, uint32_t *out) {
    const char *p = text;
    for (uint32_t i = 0; i < count; i++) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        if (!isdigit((unsigned char)*p)) return false;
        unsigned long v = 0;
        while (isdigit((unsigned char)*p)) {
            v = v * 10 + (unsigned long)(*p - '0');
            if (v > max) return false;
            p++;
        }
        out[i] = (uint32_t)v;
    }
    while (*p == ' ' || *p == '\t' || *p == ',') p++;
    return *p == 0;
}

typedef struct ini_seen {
    bool px, py, section, geonet, version, compressed, file, palette, begin, end;
    char begin_text[256], end_text[256];
} ini_seen;

st_result st_world_ini_parse(const char *text, size_t size, const char *name, st_world_ini *out, st_error *err) {
    if (!name) name = "world.ini";
    memset(out, 0, sizeof *out);
    out->terrain_max = 8;
    out->geonet_power = 5;
    out->minimal_square_power = 4;
    if (size > INI_MAX_BYTES) return st_error_set(err, ST_ERR_FORMAT, "%s: %zu bytes is not a world.ini", name, size);
    ini_seen seen;
    memset(&seen, 0, sizeof seen);
    char section[64] = "";
    size_t pos = 0;
    unsigned line_no = 0;
    while (pos < size) {
        size_t start = pos;
        while (pos < size && text[pos] != '\n') pos++;
        size_t end = pos;
        if (pos < size) pos++; /* skip the newline */
        line_no++;
        if (end > start && text[end - 1] == '\r') end--;
        if (memchr(text + start, 0, end - start))
            return st_error_set(err, ST_ERR_FORMAT, "%s:%u: NUL byte in text", name, line_no);
        if (end - start >= 512) return st_error_set(err, ST_ERR_FORMAT, "%s:%u: line too long", name, line_no);
        char line[512];
        copy_trim(text + start, text + end, line, sizeof line, false);
        if (!line[0] || line[0] == ';' || line[0] == '#') continue;
        if (line[0] == '[') {
            char *close = strchr(line, ']');
            if (!close) return st_error_set(err, ST_ERR_FORMAT, "%s:%u: unterminated section header", name, line_no);
            copy_trim(line + 1, close, section, sizeof section, true);
            continue;
        }
        char *eq = strchr(line, '=');
        if (!eq) return st_error_set(err, ST_ERR_FORMAT, "%s:%u: expected 'key = value'", name, line_no);
        char key[64], value[256];
        copy_trim(line, eq, key, sizeof key, true);
        copy_trim(eq + 1, line + strlen(line), value, sizeof value, false);
        /* Trailing comments after a value. */
        char *c = strchr(value, ';');
        if (c) {
            *c = 0;
            copy_trim(value, value + strlen(value), value, sizeof value, false);
        }
        uint32_t v;
#define INT_KEY(sec, k, field, maxv, flag)                                                                  \
    if (!strcmp(section, sec) && !strcasecmp(key, k)) {                                                  \
        if (!parse_ints(value, 1, maxv, &v))                                                             \
            return st_error_set(err, ST_ERR_FORMAT, "%s:%u: '%s' must be an integer from 0 to %u", name,  \
                                line_no, k, (unsigned)(maxv));                                            \
        field = v;                                                                                       \
        seen.flag = true;                                                                                \
        continue;                                                                                        \
    }
        INT_KEY("global parameters", "Map Power X", out->map_power_x, 16, px)
        INT_KEY("global parameters", "Map Power Y", out->map_power_y, 16, py)
        INT_KEY("global parameters", "Section Size Power", out->section_power, 16, section)
        INT_KEY("global parameters", "GeoNet Power", out->geonet_power, 16, geonet)
        INT_KEY("global parameters", "Minimal Square Power", out->minimal_square_power, 16, geonet)
#undef INT_KEY
        if (!strcmp(section, "storage") && !strcmp(key, "version")) {
            if (strcmp(value, "1.4"))
                return st_error_set(err, ST_ERR_FORMAT, "%s:%u: [Storage] Version is '%s', only 1.4 is supported",
                                    name, line_no, value);
            seen.version = true;
        } else if (!strcmp(section, "storage") && !strcmp(key, "compressed format using")) {
            if (!parse_ints(value, 1, 1, &v))
                return st_error_set(err, ST_ERR_FORMAT, "%s:%u: 'Compressed Format Using' must be 0 or 1", name,
                                    line_no);
            out->compressed = v == 1;
            seen.compressed = true;
        } else if (!strcmp(section, "storage") && !strcmp(key, "file name")) {
            copy_trim(value, value + strlen(value), out->file_name, sizeof out->file_name, false);
            seen.file = true;
        } else if (!strcmp(section, "storage") && !strcmp(key, "palette file")) {
            copy_trim(value, value + strlen(value), out->palette_file, sizeof out->palette_file, false);
            seen.palette = true;
        } else if (!strcmp(section, "rendering parameters") && !strcmp(key, "terrain max")) {
            if (!parse_ints(value, 1, 16, &v) || (v != 8 && v != 16))
                return st_error_set(err, ST_ERR_FORMAT, "%s:%u: 'Terrain Max' must be 8 or 16", name, line_no);
            out->terrain_max = v;
        } else if (!strcmp(section, "rendering parameters") && !strcmp(key, "begin colors")) {
            snprintf(seen.begin_text, sizeof seen.begin_text, "%s", value);
            seen.begin = true;
        } else if (!strcmp(section, "rendering parameters") && !strcmp(key, "end colors")) {
            snprintf(seen.end_text, sizeof seen.end_text, "%s", value);
            seen.end = true;
        }
        /* Every other key (Shadow Offsets, Height Shifts, Dynamic Palette, ...) is unused. */
    }
    const char *missing = !seen.px ? "[Global Parameters] Map Power X"
                          : !seen.py ? "[Global Parameters] Map Power Y"
                          : !seen.section ? "[Global Parameters] Section Size Power"
                          : !seen.version ? "[Storage] Version"
                          : !seen.file ? "[Storage] File Name"
                          : !seen.palette ? "[Storage] Palette File"
                                          : NULL;
    if (missing) return st_error_set(err, ST_ERR_FORMAT, "%s: missing key %s", name, missing);
    if (!seen.compressed) out->compressed = true;
    if (out->map_power_x < 1 || out->map_power_x > 16 || out->map_power_y > 16)
        return st_error_set(err, ST_ERR_FORMAT, "%s: map powers %u/%u are out of range 1..16", name,
                            out->map_power_x, out->map_power_y);
    if (out->section_power > out->map_power_y)
        return st_error_set(err, ST_ERR_FORMAT, "%s: Section Size Power %u is more than Map Power Y %u", name,
                            out->section_power, out->map_power_y);
    if (!out->file_name[0] || strchr(out->file_name, '/') || !strcmp(out->file_name, ".."))
        return st_error_set(err, ST_ERR_FORMAT, "%s: File Name '%s' must be a plain file name", name, out->file_name);
    if (!out->palette_file[0] || strchr(out->palette_file, '/') || !strcmp(out->palette_file, ".."))
        return st_error_set(err, ST_ERR_FORMAT, "%s: Palette File '%s' must be a plain file name", name,
                            out->palette_file);
    uint32_t n = out->terrain_max;
    if (seen.begin != seen.end)
        return st_error_set(err, ST_ERR_FORMAT, "%s: Begin Colors and End Colors must come together", name);
    if (seen.begin) {
        uint32_t b[16], e[16];
        if (!parse_ints(seen.begin_text, n, 255, b))
            return st_error_set(err, ST_ERR_FORMAT, "%s: Begin Colors must be %u integers 0..255", name, n);
        if (!parse_ints(seen.end_text, n, 255, e))
            return st_error_set(err, ST_ERR_FORMAT, "%s: End Colors must be %u integers 0..255", name, n);
        for (uint32_t i = 0; i < n; i++) {
            if (b[i] > e[i])
                return st_error_set(err, ST_ERR_FORMAT, "%s: colour ramp %u runs backwards (%u > %u)", name, i,
                                    b[i], e[i]);
            out->begin_color[i] = (uint8_t)b[i];
            out->end_color[i] = (uint8_t)e[i];
        }
        out->has_colors = true;
    } else {
        for (uint32_t i = 0; i < 16; i++) {
            out->begin_color[i] = default_begin[i & 7];
            out->end_color[i] = default_end[i & 7];
        }
    }
    return ST_OK;
}

static uint32_t log2u(uint32_t v) {
    uint32_t p = 0;
    while ((1u << p) < v) p++;
    return p;
}

void st_world_ini_from_level(const st_level *level, bool compressed, st_world_ini *out) {
    memset(out, 0, sizeof *out);
    out->map_power_x = log2u(level->width);
    out->map_power_y = log2u(level->height);
    out->section_power = level->section_power <= out->map_power_y ? level->section_power : out->map_power_y;
    /* GeoNet Power 5 as in the stock worlds, lowered for tiny levels so the .vpr tables stay non-empty. */
    uint32_t total = out->map_power_x + out->map_power_y;
    out->geonet_power = total / 2 < 5 ? total / 2 : 5;
    out->minimal_square_power = 4;
    out->compressed = compressed;
    snprintf(out->file_name, sizeof out->file_name, "output");
    snprintf(out->palette_file, sizeof out->palette_file, "harmony.pal");
    out->terrain_max = level->terrain_types == 16 ? 16 : 8;
    out->has_colors = true;
    memcpy(out->begin_color, level->begin_color, 16);
    memcpy(out->end_color, level->end_color, 16);
}

st_result st_world_ini_format(const st_world_ini *ini, char **text, size_t *size, st_error *err) {
    size_t cap = 4096;
    char *buf = malloc(cap);
    if (!buf) return st_error_set(err, ST_ERR_NOMEM, "world.ini: out of memory");
    int n = snprintf(buf, cap,
                     "[Global Parameters]\n"
                     "Map Power X = %u\n"
                     "Map Power Y = %u\n"
                     "GeoNet Power = %u\n"
                     "Section Size Power = %u\n"
                     "Minimal Square Power = %u\n"
                     "\n[Storage]\n"
                     "File Name = %s\n"
                     "Palette File = %s\n"
                     "Compressed Format Using = %d\n"
                     "Version = 1.4\n"
                     "\n[Rendering Parameters]\n"
                     "Terrain Max = %u\n",
                     ini->map_power_x, ini->map_power_y, ini->geonet_power, ini->section_power,
                     ini->minimal_square_power, ini->file_name, ini->palette_file, ini->compressed ? 1 : 0,
                     ini->terrain_max);
    size_t len = (size_t)n;
    const char *labels[4] = {"Begin Colors", "End Colors", "Shadow Offsets", "Height Shifts"};
    for (int k = 0; k < 4; k++) {
        len += (size_t)snprintf(buf + len, cap - len, "%s =", labels[k]);
        for (uint32_t i = 0; i < ini->terrain_max; i++) {
            unsigned v = k == 0 ? ini->begin_color[i] : k == 1 ? ini->end_color[i] : 0;
            len += (size_t)snprintf(buf + len, cap - len, " %u", v);
        }
        len += (size_t)snprintf(buf + len, cap - len, "\n");
    }
    len += (size_t)snprintf(buf + len, cap - len, "\n[Dynamic Palette]\nWave Terrain = 0\n");
    *text = buf;
    *size = len;
    return ST_OK;
}
