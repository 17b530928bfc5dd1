/* Worlds on disk, reading: st_world_load ("default", a directory or a world.ini) reads the files a world.ini
 * names (following an interrupted save's journal when there is one) and st_world_decode turns their bytes into
 * a level, checking every size before the level is allocated and the map against its recorded CRC-32. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "strata/file.h"
#include "strata/gen.h"
#include "strata/image.h"
#include "strata/vangers.h"
#include "strata/world.h"
#include "world_internal.h"

static bool is_dir(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static st_result join(char *out, size_t cap, const char *dir, const char *name, st_error *err) {
    int n = snprintf(out, cap, "%s/%s", dir[0] ? dir : ".", name);
    if (n < 0 || (size_t)n >= cap) return st_error_set(err, ST_ERR_INVALID, "%s/%s: path too long", dir, name);
    return ST_OK;
}

/* The largest map file a W×H world can have: a .vmc row is at most 32767 bytes, a .vmp exactly 2WH. */
static uint64_t max_map_bytes(const st_world_ini *ini) {
    uint64_t w = 1ull << ini->map_power_x, h = 1ull << ini->map_power_y;
    return ini->compressed ? 6 * h + 4096 + h * ST_VMC_MAX_ROW_BYTES : 2 * w * h;
}

st_result st_world_decode(const st_world_files *f, st_level **out, st_error *err) {
    *out = NULL;
    const char *ini_name = f->ini_name ? f->ini_name : "world.ini";
    const char *map_name = f->map_name ? f->map_name : "map";
    const char *pal_name = f->pal_name ? f->pal_name : "palette";
    const char *vpr_name = f->vpr_name ? f->vpr_name : ".vpr";
    st_world_ini ini;
    st_result r = st_world_ini_parse((const char *)f->ini, f->ini_size, ini_name, &ini, err);
    if (r) return r;
    uint32_t w = 1u << ini.map_power_x, h = 1u << ini.map_power_y;
    if (st_level_check_size(w, h, err)) return st_error_prefix(err, "%s", ini_name);
    /* Every file is checked against the size before the level is allocated (up to 2 GiB). */
    if (f->map_size > max_map_bytes(&ini))
        return st_error_set(err, ST_ERR_FORMAT, "%s: %zu bytes is more than a %ux%u map can hold", map_name,
                            f->map_size, w, h);
    if (ini.compressed) r = st_vmc_check(f->map, f->map_size, w, h, map_name, err);
    else if ((uint64_t)f->map_size != 2ull * w * h)
        r = st_error_set(err, ST_ERR_FORMAT, "%s: %zu bytes, a %ux%u map needs exactly %llu", map_name, f->map_size,
                         w, h, 2ull * w * h);
    if (r) return r;
    if (ini.has_map_crc) {
        uint32_t crc = st_crc32(f->map, f->map_size);
        if (crc != ini.map_crc)
            return st_error_set(err, ST_ERR_FORMAT,
                                "%s: CRC-32 %08x is not the %08x that %s records ([Strata] Map CRC32): the map is "
                                "corrupt or was replaced after it was saved",
                                map_name, (unsigned)crc, (unsigned)ini.map_crc, ini_name);
    } else {
        ST_WARN("%s records no checksum of %s ([Strata] Map CRC32), so a damaged map cannot be detected; saving the "
                "world with strata adds one", ini_name, map_name);
    }
    st_rgb8 palette[256];
    r = st_pal_decode(f->pal, f->pal_size, palette, pal_name, err);
    if (r) return r;
    uint64_t want_vpr = st_vpr_size(w, h, ini.geonet_power, ini.section_power);
    if (f->vpr && f->vpr_size != want_vpr) /* st_vpr_decode's own message */
        return st_vpr_decode(f->vpr, f->vpr_size, w, h, ini.geonet_power, ini.section_power, NULL, vpr_name, err);

    st_level *level = NULL;
    r = st_level_create(w, h, &level, err);
    if (r) return r;
    level->terrain_types = ini.terrain_max;
    level->wrap_x = ini.wrap_x;
    level->wrap_y = ini.wrap_y;
    uint8_t *heights, *meta;
    st_level_planes_mut(level, &heights, &meta);
    if (ini.compressed) r = st_vmc_decode(f->map, f->map_size, w, h, heights, meta, map_name, err);
    else r = st_vmp_decode(f->map, f->map_size, w, h, heights, meta, map_name, err);
    memcpy(level->palette, palette, sizeof palette);
    memcpy(level->begin_color, ini.begin_color, 16);
    memcpy(level->end_color, ini.end_color, 16);
    /* Flood levels: one per section; a missing .vpr means all zero (as the original tolerates). */
    uint32_t sections = h >> ini.section_power;
    uint8_t *flood = r ? NULL : calloc(sections ? sections : 1, 1);
    if (!r && !flood) r = st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", ini_name);
    if (!r) {
        free(level->flood);
        level->flood = flood;
        level->section_power = ini.section_power;
        if (f->vpr)
            r = st_vpr_decode(f->vpr, f->vpr_size, w, h, ini.geonet_power, ini.section_power, level->flood, vpr_name,
                              err);
    }
    if (r) {
        st_level_destroy(level);
        return r;
    }
    *out = level;
    return ST_OK;
}

/* Reads dir/name, or dir/name.new first when an interrupted save left it (prefer_new); an optional file that
 * is missing gives *data = NULL. path receives the file read. */
static st_result read_member(const char *dir, const char *name, bool prefer_new, bool optional, size_t cap,
                             uint8_t **data, size_t *size, char *path, size_t path_cap, st_error *err) {
    *data = NULL;
    *size = 0;
    st_result r = join(path, path_cap, dir, name, err);
    if (r) return r;
    struct stat sb;
    if (prefer_new) {
        char newer[1300];
        snprintf(newer, sizeof newer, "%s%s", path, ST_WORLD_NEW_SUFFIX);
        if (stat(newer, &sb) == 0) {
            r = st_file_read_all(newer, cap, data, size, err);
            /* renamed into place meanwhile: the file itself is the new one now */
            if (!r || stat(newer, &sb) == 0 || errno != ENOENT) {
                if (!r) snprintf(path, path_cap, "%s", newer);
                return r;
            }
        }
    }
    if (optional && stat(path, &sb) != 0 && errno == ENOENT) return ST_OK;
    return st_file_read_all(path, cap, data, size, err);
}

/* What tells a reader that a save replaced the world while it read: world.ini's identity and the journal. */
typedef struct world_stamp {
    bool ini, journal;
    struct stat ini_stat;
} world_stamp;

static world_stamp stamp_of(const char *ini_path, const char *journal) {
    world_stamp s;
    memset(&s, 0, sizeof s);
    struct stat sb;
    s.ini = stat(ini_path, &s.ini_stat) == 0;
    s.journal = stat(journal, &sb) == 0;
    return s;
}

static bool same_stamp(const world_stamp *a, const world_stamp *b) {
    return a->ini == b->ini && a->journal == b->journal && a->ini_stat.st_ino == b->ini_stat.st_ino &&
           a->ini_stat.st_size == b->ini_stat.st_size && a->ini_stat.st_mtime == b->ini_stat.st_mtime;
}

static st_result load_once(const char *ini_path, const char *dir, const char *journal, st_level **out,
                           st_error *err) {
    uint8_t *text = NULL, *map = NULL, *pal = NULL, *vpr = NULL;
    size_t text_size = 0, map_size = 0, pal_size = 0, vpr_size = 0;
    char ini_read[1300], map_path[1300], pal_path[1300], vpr_path[1300];
    st_world_ini ini;
    struct stat sb;
    /* A journal is a committed save that did not finish renaming: it is the world now. */
    bool prefer_new = stat(journal, &sb) == 0 && S_ISREG(sb.st_mode);
    snprintf(ini_read, sizeof ini_read, "%s", prefer_new ? journal : ini_path);
    st_result r = st_file_read_all(ini_read, 1u << 20, &text, &text_size, err);
    if (r && prefer_new && stat(journal, &sb) != 0) { /* finished meanwhile */
        prefer_new = false;
        snprintf(ini_read, sizeof ini_read, "%s", ini_path);
        r = st_file_read_all(ini_read, 1u << 20, &text, &text_size, err);
    }
    if (!r) r = st_world_ini_parse((const char *)text, text_size, ini_read, &ini, err);
    st_world_names names;
    if (!r) {
        st_world_names_of(&ini, &names);
        r = read_member(dir, names.map, prefer_new, false, (size_t)max_map_bytes(&ini), &map, &map_size, map_path,
                        sizeof map_path, err);
    }
    if (!r) r = read_member(dir, names.pal, prefer_new, false, 4096, &pal, &pal_size, pal_path, sizeof pal_path, err);
    if (!r) {
        uint64_t want = st_vpr_size(1u << ini.map_power_x, 1u << ini.map_power_y, ini.geonet_power, ini.section_power);
        r = read_member(dir, names.vpr, prefer_new, true, (size_t)(want + 1), &vpr, &vpr_size, vpr_path,
                        sizeof vpr_path, err);
    }
    if (!r) {
        st_world_files f = {.ini = text, .ini_size = text_size, .ini_name = ini_read, .map = map, .map_size = map_size,
                            .map_name = map_path, .pal = pal, .pal_size = pal_size, .pal_name = pal_path, .vpr = vpr,
                            .vpr_size = vpr_size, .vpr_name = vpr_path};
        r = st_world_decode(&f, out, err);
    }
    free(text);
    free(map);
    free(pal);
    free(vpr);
    return r;
}

static st_result load_vangers(const char *ini_path, st_level **out, st_error *err) {
    char dir[1024], journal[1100];
    snprintf(dir, sizeof dir, "%s", ini_path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    snprintf(journal, sizeof journal, "%s%s", ini_path, ST_WORLD_NEW_SUFFIX);
    st_result r = ST_OK;
    /* A save that replaced the world while it was read shows in the stamp: read again (a save holds the
     * files in flux for milliseconds, so a few tries suffice). */
    for (int attempt = 0; attempt < 4; attempt++) {
        world_stamp before = stamp_of(ini_path, journal);
        r = load_once(ini_path, dir, journal, out, err);
        world_stamp after = stamp_of(ini_path, journal);
        if (!r || same_stamp(&before, &after)) break;
    }
    if (r) return r;
    st_level *level = *out;
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    size_t nlen = strlen(base) < sizeof level->name - 1 ? strlen(base) : sizeof level->name - 1;
    memcpy(level->name, base, nlen); /* long names are cut: the name is a label */
    level->name[nlen] = 0;
    return ST_OK;
}

st_result st_world_load(const char *path, st_level **out, st_error *err) {
    *out = NULL;
    if (!path || !strcmp(path, "default")) return st_gen_world(NULL, out, err);
    struct stat sb;
    if (is_dir(path)) {
        char ini[1100], journal[1200];
        st_result r = join(ini, sizeof ini, path, "world.ini", err);
        if (r) return r;
        snprintf(journal, sizeof journal, "%s%s", ini, ST_WORLD_NEW_SUFFIX);
        if (stat(ini, &sb) != 0) {
            int e = errno; /* a permission error or a link loop is not "no world.ini" */
            if (e != ENOENT) return st_error_set(err, ST_ERR_IO, "%s: %s", ini, strerror(e));
            if (stat(journal, &sb) != 0)
                return st_error_set(err, ST_ERR_IO, "%s: no world.ini in this directory", path);
        }
        return load_vangers(ini, out, err);
    }
    if (stat(path, &sb) != 0) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    return load_vangers(path, out, err);
}
