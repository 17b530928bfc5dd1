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
    out->wrap_x = out->wrap_y = true;
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
        } else if (!strcmp(section, "strata") && (!strcmp(key, "wrap x") || !strcmp(key, "wrap y"))) {
            if (!parse_ints(value, 1, 1, &v))
                return st_error_set(err, ST_ERR_FORMAT, "%s:%u: '[Strata] %s' must be 0 or 1", name, line_no,
                                    key[5] == 'x' ? "Wrap X" : "Wrap Y");
            if (key[5] == 'x') out->wrap_x = v == 1;
            else out->wrap_y = v == 1;
        } else if (!strcmp(section, "rendering parameters") && !strcmp(key, "begin colors")) {
            snprintf(seen.begin_text, sizeof seen.begin_text, "%s", value);
            seen.begin = true;
        } else if (!strcmp(section, "rendering parameters") && !strcmp(key, "end colors")) {
            snprintf(seen.end_text, sizeof seen.end_text, "%s", value);
            seen.end = true;
        } else if (!strcmp(section, "strata") && !strcmp(key, "color map")) {
            copy_trim(value, value + strlen(value), out->color_file, sizeof out->color_file, false);
            if (!out->color_file[0] || strchr(out->color_file, '/') || strchr(out->color_file, '\\') ||
                out->color_file[0] == '.')
                return st_error_set(err, ST_ERR_FORMAT, "%s:%u: '[Strata] Color Map' must be a file name beside the "
                                    "world.ini", name, line_no);
        } else if (!strcmp(section, "strata") && !strcmp(key, "map crc32")) {
            char *stop;
            const char *digits = !strncasecmp(value, "0x", 2) ? value + 2 : value;
            unsigned long long crc = strtoull(digits, &stop, 16);
            if (!*digits || *stop || crc > 0xFFFFFFFFull || !isxdigit((unsigned char)*digits))
                return st_error_set(err, ST_ERR_FORMAT, "%s:%u: 'Map CRC32' must be a 32-bit hex number", name,
                                    line_no);
            out->map_crc = (uint32_t)crc;
            out->has_map_crc = true;
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
    out->wrap_x = level->wrap_x;
    out->wrap_y = level->wrap_y;
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
    /* strata's own keys, in a section the original game does not read: the map's checksum, and where the map
     * does not wrap (only then, so a wrapping world's ini is the stock layout plus its checksum) */
    bool bounded = !ini->wrap_x || !ini->wrap_y;
    if (ini->has_map_crc || bounded || ini->color_file[0]) len += (size_t)snprintf(buf + len, cap - len, "\n[Strata]\n");
    if (ini->has_map_crc) len += (size_t)snprintf(buf + len, cap - len, "Map CRC32 = 0x%08x\n", (unsigned)ini->map_crc);
    if (bounded)
        len += (size_t)snprintf(buf + len, cap - len, "Wrap X = %d\nWrap Y = %d\n", ini->wrap_x ? 1 : 0,
                                ini->wrap_y ? 1 : 0);
    if (ini->color_file[0]) len += (size_t)snprintf(buf + len, cap - len, "Color Map = %s\n", ini->color_file);
    *text = buf;
    *size = len;
    return ST_OK;
}

/* ---- updating an existing world.ini in place ---------------------------------------------------------- */

typedef struct managed_key {
    const char *section, *key; /* lower case, as the parser compares them */
    const char *label;         /* as written when the key is added */
    char value[256];
    bool present;
    bool drop; /* the key is not to be written: an old line of it is removed, none is added */
} managed_key;

typedef struct text_buf {
    char *p;
    size_t n, cap;
    bool failed;
} text_buf;

static void buf_insert(text_buf *b, size_t at, const char *s, size_t n) {
    if (b->failed) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memmove(b->p + at + n, b->p + at, b->n - at);
    memcpy(b->p + at, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

/* Adds the keys of `section` that the old text lacked at `at` (after the section's last non-blank line). */
static void add_missing(text_buf *b, size_t at, managed_key *keys, size_t count, const char *section, const char *eol) {
    char line[400];
    for (size_t i = 0; i < count; i++) {
        if (keys[i].present || strcmp(keys[i].section, section)) continue;
        int n = snprintf(line, sizeof line, "%s = %s%s", keys[i].label, keys[i].value, eol);
        buf_insert(b, at, line, (size_t)n);
        at += (size_t)n;
        keys[i].present = true;
    }
}

st_result st_world_ini_update(const char *old_text, size_t old_size, const st_world_ini *ini, char **text,
                              size_t *size, st_error *err) {
    *text = NULL;
    *size = 0;
    if (old_size > INI_MAX_BYTES) return st_error_set(err, ST_ERR_FORMAT, "world.ini: %zu bytes is too long", old_size);
    managed_key keys[] = {
        {"global parameters", "map power x", "Map Power X", "", false, false},
        {"global parameters", "map power y", "Map Power Y", "", false, false},
        {"global parameters", "geonet power", "GeoNet Power", "", false, false},
        {"global parameters", "section size power", "Section Size Power", "", false, false},
        {"storage", "file name", "File Name", "", false, false},
        {"storage", "palette file", "Palette File", "", false, false},
        {"storage", "compressed format using", "Compressed Format Using", "", false, false},
        {"storage", "version", "Version", "1.4", false, false},
        {"rendering parameters", "terrain max", "Terrain Max", "", false, false},
        {"rendering parameters", "begin colors", "Begin Colors", "", false, false},
        {"rendering parameters", "end colors", "End Colors", "", false, false},
        {"strata", "map crc32", "Map CRC32", "", false, false},
        {"strata", "wrap x", "Wrap X", "", false, false},
        {"strata", "wrap y", "Wrap Y", "", false, false},
        {"strata", "color map", "Color Map", "", false, false},
    };
    const size_t count = sizeof keys / sizeof keys[0];
    snprintf(keys[0].value, sizeof keys[0].value, "%u", ini->map_power_x);
    snprintf(keys[1].value, sizeof keys[1].value, "%u", ini->map_power_y);
    snprintf(keys[2].value, sizeof keys[2].value, "%u", ini->geonet_power);
    snprintf(keys[3].value, sizeof keys[3].value, "%u", ini->section_power);
    snprintf(keys[4].value, sizeof keys[4].value, "%s", ini->file_name);
    snprintf(keys[5].value, sizeof keys[5].value, "%s", ini->palette_file);
    snprintf(keys[6].value, sizeof keys[6].value, "%d", ini->compressed ? 1 : 0);
    snprintf(keys[8].value, sizeof keys[8].value, "%u", ini->terrain_max);
    for (int k = 0; k < 2; k++) {
        size_t len = 0;
        for (uint32_t i = 0; i < ini->terrain_max && i < 16; i++)
            len += (size_t)snprintf(keys[9 + k].value + len, sizeof keys[9 + k].value - len, "%s%u", i ? " " : "",
                                    k ? ini->end_color[i] : ini->begin_color[i]);
    }
    snprintf(keys[11].value, sizeof keys[11].value, "0x%08x", (unsigned)ini->map_crc);
    keys[11].drop = !ini->has_map_crc;
    snprintf(keys[12].value, sizeof keys[12].value, "%d", ini->wrap_x ? 1 : 0);
    snprintf(keys[13].value, sizeof keys[13].value, "%d", ini->wrap_y ? 1 : 0);
    keys[12].drop = keys[13].drop = ini->wrap_x && ini->wrap_y; /* as st_world_ini_format writes them */
    snprintf(keys[14].value, sizeof keys[14].value, "%s", ini->color_file);
    keys[14].drop = !ini->color_file[0];
    for (size_t i = 0; i < count; i++) keys[i].present |= keys[i].drop; /* nothing to add */

    const char *eol = old_size && memchr(old_text, '\r', old_size) ? "\r\n" : "\n";
    text_buf b = {malloc(old_size + 1024), 0, old_size + 1024, false};
    if (!b.p) return st_error_set(err, ST_ERR_NOMEM, "world.ini: out of memory");
    b.p[0] = 0;
    char section[64] = "";
    size_t section_end = 0; /* where keys missing from the current section go */
    size_t pos = 0;
    while (pos < old_size && !b.failed) {
        size_t start = pos;
        while (pos < old_size && old_text[pos] != '\n') pos++;
        size_t end = pos;
        if (pos < old_size) pos++;
        const char *line = old_text + start;
        size_t len = end - start, with_eol = pos - start;
        char trimmed[512];
        copy_trim(line, line + len, trimmed, sizeof trimmed, false);
        if (trimmed[0] == '[' && strchr(trimmed, ']')) {
            add_missing(&b, section_end, keys, count, section, eol);
            copy_trim(trimmed + 1, strchr(trimmed, ']'), section, sizeof section, true);
            buf_insert(&b, b.n, line, with_eol);
            section_end = b.n;
            continue;
        }
        char *eq = trimmed[0] && trimmed[0] != ';' && trimmed[0] != '#' ? strchr(trimmed, '=') : NULL;
        managed_key *mk = NULL;
        if (eq) {
            char key[64];
            copy_trim(trimmed, eq, key, sizeof key, true);
            for (size_t i = 0; i < count && !mk; i++)
                if (!strcmp(keys[i].section, section) && !strcmp(keys[i].key, key)) mk = &keys[i];
        }
        if (mk && !mk->drop) {
            /* the key as it was spelled, the new value, the line's own ending */
            const char *raw_eq = memchr(line, '=', len);
            size_t keep = (size_t)(raw_eq - line) + 1;
            buf_insert(&b, b.n, line, keep);
            char value[300];
            int n = snprintf(value, sizeof value, " %s", mk->value);
            buf_insert(&b, b.n, value, (size_t)n);
            buf_insert(&b, b.n, end > start && line[len - 1] == '\r' ? "\r" : "", end > start && line[len - 1] == '\r');
            if (pos > end) buf_insert(&b, b.n, "\n", 1);
            mk->present = true;
        } else if (!mk) {
            buf_insert(&b, b.n, line, with_eol);
        }
        if (trimmed[0] && trimmed[0] != ';' && trimmed[0] != '#') {
            if (b.n && b.p[b.n - 1] != '\n') buf_insert(&b, b.n, eol, strlen(eol)); /* a last line without one */
            section_end = b.n;
        }
    }
    add_missing(&b, section_end, keys, count, section, eol);
    /* sections the old text did not have at all */
    static const char *const sections[4][2] = {{"global parameters", "Global Parameters"},
                                               {"storage", "Storage"},
                                               {"rendering parameters", "Rendering Parameters"},
                                               {"strata", "Strata"}};
    for (int s = 0; s < 4 && !b.failed; s++) {
        bool missing = false;
        for (size_t i = 0; i < count; i++) missing |= !keys[i].present && !strcmp(keys[i].section, sections[s][0]);
        if (!missing) continue;
        char header[80];
        int n = snprintf(header, sizeof header, "%s[%s]%s", b.n ? eol : "", sections[s][1], eol);
        buf_insert(&b, b.n, header, (size_t)n);
        add_missing(&b, b.n, keys, count, sections[s][0], eol);
    }
    if (b.failed) {
        free(b.p);
        return st_error_set(err, ST_ERR_NOMEM, "world.ini: out of memory");
    }
    *text = b.p;
    *size = b.n;
    return ST_OK;
}
