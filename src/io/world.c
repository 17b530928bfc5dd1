/* Worlds on disk: st_world_load ("default", a directory or a world.ini) and st_world_save (world.ini,
 * output.vmc or .vmp, harmony.pal, output.vpr). Files are read whole into memory and handed to the
 * buffer decoders; every output file is written to a temporary first and renamed only when all are done. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "strata/gen.h"
#include "strata/image.h"
#include "strata/vangers.h"
#include "strata/world.h"

st_result st_file_write_atomic(const char *path, const void *data, size_t size, st_error *err) {
    st_atomic_file f;
    st_result r = st_atomic_open(&f, path, err);
    if (r) return r;
    if (size && fwrite(data, 1, size, f.fp) != size) {
        st_atomic_abort(&f);
        return st_error_set(err, ST_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    }
    return st_atomic_commit(&f, err);
}

static bool is_dir(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static st_result join(char *out, size_t cap, const char *dir, const char *name, st_error *err) {
    int n = snprintf(out, cap, "%s/%s", dir[0] ? dir : ".", name);
    if (n < 0 || (size_t)n >= cap) return st_error_set(err, ST_ERR_INVALID, "%s/%s: path too long", dir, name);
    return ST_OK;
}

static st_result load_vangers(const char *ini_path, st_level **out, st_error *err) {
    uint8_t *text = NULL, *map = NULL, *pal = NULL, *vpr = NULL;
    size_t text_size, map_size, pal_size, vpr_size;
    st_level *level = NULL;
    st_world_ini ini;
    char dir[1024], path[1200];
    st_result r = st_file_read_all(ini_path, 1u << 20, &text, &text_size, err);
    if (r) goto done;
    r = st_world_ini_parse((const char *)text, text_size, ini_path, &ini, err);
    if (r) goto done;
    snprintf(dir, sizeof dir, "%s", ini_path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");

    uint32_t w = 1u << ini.map_power_x, h = 1u << ini.map_power_y;
    r = st_level_check_size(w, h, err);
    if (r) {
        st_error_prefix(err, "%s", ini_path);
        goto done;
    }
    /* Bound the map file before reading it: a .vmc row is at most 32767 bytes. */
    uint64_t max_map = ini.compressed ? 6ull * h + 4096 + (uint64_t)h * ST_VMC_MAX_ROW_BYTES : 2ull * w * h;
    char map_name[160];
    snprintf(map_name, sizeof map_name, "%s%s", ini.file_name, ini.compressed ? ".vmc" : ".vmp");
    if ((r = join(path, sizeof path, dir, map_name, err))) goto done;
    r = st_file_read_all(path, (size_t)max_map, &map, &map_size, err);
    if (r) goto done;
    r = st_level_create(w, h, &level, err);
    if (r) goto done;
    level->terrain_types = ini.terrain_max;
    uint8_t *heights, *meta;
    st_level_planes_mut(level, &heights, &meta);
    if (ini.compressed) r = st_vmc_decode(map, map_size, w, h, heights, meta, path, err);
    else r = st_vmp_decode(map, map_size, w, h, heights, meta, path, err);
    if (r) goto done;

    if ((r = join(path, sizeof path, dir, ini.palette_file, err))) goto done;
    r = st_file_read_all(path, 4096, &pal, &pal_size, err);
    if (r) goto done;
    r = st_pal_decode(pal, pal_size, level->palette, path, err);
    if (r) goto done;
    memcpy(level->begin_color, ini.begin_color, 16);
    memcpy(level->end_color, ini.end_color, 16);

    /* Flood levels: one per section; a missing .vpr means all zero (as the original tolerates). */
    uint32_t sections = h >> ini.section_power;
    uint8_t *flood = calloc(sections ? sections : 1, 1);
    if (!flood) {
        r = st_error_set(err, ST_ERR_NOMEM, "%s: out of memory", ini_path);
        goto done;
    }
    free(level->flood);
    level->flood = flood;
    level->section_power = ini.section_power;
    snprintf(map_name, sizeof map_name, "%s.vpr", ini.file_name);
    if ((r = join(path, sizeof path, dir, map_name, err))) goto done;
    uint64_t want_vpr = st_vpr_size(w, h, ini.geonet_power, ini.section_power);
    struct stat vpr_stat;
    if (stat(path, &vpr_stat) == 0 || errno != ENOENT) { /* present (or unreadable: say why) */
        r = st_file_read_all(path, (size_t)(want_vpr + 1), &vpr, &vpr_size, err);
        if (r) goto done;
        r = st_vpr_decode(vpr, vpr_size, w, h, ini.geonet_power, ini.section_power, level->flood, path, err);
        if (r) goto done;
    }
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    size_t nlen = strlen(base) < sizeof level->name - 1 ? strlen(base) : sizeof level->name - 1;
    memcpy(level->name, base, nlen); /* long names are cut: the name is a label */
    level->name[nlen] = 0;
done:
    free(text);
    free(map);
    free(pal);
    free(vpr);
    if (r) {
        st_level_destroy(level);
        level = NULL;
    }
    *out = level;
    return r;
}

st_result st_world_load(const char *path, st_level **out, st_error *err) {
    *out = NULL;
    if (!path || !strcmp(path, "default")) return st_gen_world(NULL, out, err);
    if (is_dir(path)) {
        char ini[1100];
        st_result r = join(ini, sizeof ini, path, "world.ini", err);
        if (r) return r;
        struct stat sb;
        if (stat(ini, &sb) != 0)
            return st_error_set(err, ST_ERR_IO, "%s: no world.ini in this directory", path);
        return load_vangers(ini, out, err);
    }
    struct stat sb;
    if (stat(path, &sb) != 0) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    return load_vangers(path, out, err);
}

/* Creates dir and its missing parents. */
static st_result make_dirs(const char *dir, st_error *err) {
    char buf[1024];
    if (strlen(dir) >= sizeof buf) return st_error_set(err, ST_ERR_INVALID, "%s: path too long", dir);
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return st_error_set(err, ST_ERR_IO, "%s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return st_error_set(err, ST_ERR_IO, "%s: %s", buf, strerror(errno));
    if (!is_dir(buf)) return st_error_set(err, ST_ERR_IO, "%s: not a directory", buf);
    return ST_OK;
}

st_result st_world_save_ex(const st_level *level, const char *dir, const st_world_save_desc *desc,
                           st_vmc_encode_info *info, st_error *err) {
    st_world_save_desc d = desc ? *desc : (st_world_save_desc){0};
    st_world_ini ini;
    st_world_ini_from_level(level, !d.vmp, &ini);
    enum { F_MAP, F_PAL, F_VPR, F_INI, F_COUNT };
    uint8_t *bufs[F_COUNT] = {0};
    size_t sizes[F_COUNT] = {0};
    st_atomic_file files[F_COUNT];
    bool opened[F_COUNT] = {0};
    const char *names[F_COUNT] = {d.vmp ? "output.vmp" : "output.vmc", "harmony.pal", "output.vpr", "world.ini"};
    st_result r = make_dirs(dir, err);
    if (r) return r;
    /* Encode everything in memory first: a bad level fails before any file is touched. */
    const uint8_t *heights, *meta;
    st_level_planes(level, &heights, &meta);
    if (d.vmp) {
        r = st_vmp_encode(heights, meta, level->width, level->height, &bufs[F_MAP], &sizes[F_MAP], err);
        if (info) memset(info, 0, sizeof *info);
    } else {
        st_vmc_encode_desc ed = {.identity = d.identity};
        r = st_vmc_encode(heights, meta, level->width, level->height, &ed, &bufs[F_MAP], &sizes[F_MAP],
                          info, err);
    }
    if (r) goto done;
    bufs[F_PAL] = malloc(ST_PAL_SIZE);
    if (!bufs[F_PAL]) {
        r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
        goto done;
    }
    st_pal_encode(level->palette, bufs[F_PAL]);
    sizes[F_PAL] = ST_PAL_SIZE;
    /* The level's flood array holds height >> section_power entries (at least one). */
    r = st_vpr_encode(level->width, level->height, ini.geonet_power, ini.section_power, level->flood, &bufs[F_VPR],
                      &sizes[F_VPR], err);
    if (r) goto done;
    r = st_world_ini_format(&ini, (char **)&bufs[F_INI], &sizes[F_INI], err);
    if (r) goto done;
    for (int i = 0; i < F_COUNT; i++) {
        char path[1200];
        if ((r = join(path, sizeof path, dir, names[i], err))) goto done;
        if ((r = st_atomic_open(&files[i], path, err))) goto done;
        opened[i] = true;
        if (fwrite(bufs[i], 1, sizes[i], files[i].fp) != sizes[i] || fflush(files[i].fp) != 0) {
            r = st_error_set(err, ST_ERR_IO, "%s: write failed: %s", path, strerror(errno));
            goto done;
        }
    }
    /* All temporaries are complete: rename them, world.ini last so it never points at missing data. */
    for (int i = 0; i < F_COUNT; i++) {
        opened[i] = false;
        if ((r = st_atomic_commit(&files[i], err))) goto done;
    }
done:
    for (int i = 0; i < F_COUNT; i++) {
        if (opened[i]) st_atomic_abort(&files[i]);
        free(bufs[i]);
    }
    return r;
}

st_result st_world_save(const st_level *level, const char *dir, st_error *err) {
    return st_world_save_ex(level, dir, NULL, NULL, err);
}
