/* Worlds on disk, writing: st_world_save replaces a world all or nothing, one writer at a time. The protocol
 * (docs/formats.md, "Saving a world"): take world.lock; finish a save that was cut short after its commit
 * point and remove what dead saves left; write every data file complete as NAME.new; write world.ini.new, the
 * commit point; rename each NAME.new to NAME and world.ini.new to world.ini last; remove the old world's files
 * the new one no longer names. Saving in place keeps world.ini's other keys, the file names and the .vpr's
 * path tables. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "strata/file.h"
#include "strata/image.h"
#include "strata/vangers.h"
#include "strata/world.h"
#include "world_internal.h"

static st_result join(char *out, size_t cap, const char *dir, const char *name, st_error *err) {
    int n = snprintf(out, cap, "%s/%s", dir[0] ? dir : ".", name);
    if (n < 0 || (size_t)n >= cap) return st_error_set(err, ST_ERR_INVALID, "%s/%s: path too long", dir, name);
    return ST_OK;
}

static bool exists(const char *path) {
    struct stat sb;
    return lstat(path, &sb) == 0;
}

static void sync_dir(const char *dir) {
    int fd = open(dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    fsync(fd); /* the renames reach the disk in order; a failure here costs durability, not consistency */
    close(fd);
}

/* ---- the lock -------------------------------------------------------------------------------------------- */
/* world.lock holds the writer's PID under flock(2): the kernel drops the lock when its holder dies, so a lock
 * file left by a killed process is simply taken over. */
typedef struct world_lock {
    int fd;
    char path[1100];
} world_lock;

static st_result lock_world(const char *dir, world_lock *lk, st_error *err) {
    lk->fd = -1;
    st_result r = join(lk->path, sizeof lk->path, dir, "world.lock", err);
    if (r) return r;
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = open(lk->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0666);
        if (fd < 0) return st_error_set(err, ST_ERR_IO, "%s: %s", lk->path, strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            char text[32];
            ssize_t n = pread(fd, text, sizeof text - 1, 0);
            text[n > 0 ? n : 0] = 0;
            close(fd);
            long pid = strtol(text, NULL, 10);
            if (e != EWOULDBLOCK) return st_error_set(err, ST_ERR_IO, "%s: %s", lk->path, strerror(e));
            if (pid > 0)
                return st_error_set(err, ST_ERR_IO, "%s is being saved by process %ld (%s): nothing written; save "
                                                    "again when it is done", dir, pid, lk->path);
            return st_error_set(err, ST_ERR_IO, "%s is being saved by another process (%s): nothing written", dir,
                                lk->path);
        }
        /* A holder that finished removed the file it locked: hold the one the name shows now. */
        struct stat held, named;
        if (fstat(fd, &held) != 0 || stat(lk->path, &named) != 0 || held.st_ino != named.st_ino ||
            held.st_dev != named.st_dev) {
            close(fd);
            continue;
        }
        char pid[32];
        int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
            int e = errno;
            close(fd);
            return st_error_set(err, ST_ERR_IO, "%s: %s", lk->path, strerror(e));
        }
        lk->fd = fd;
        return ST_OK;
    }
    return st_error_set(err, ST_ERR_IO, "%s: the lock kept changing hands", lk->path);
}

static void unlock_world(world_lock *lk) {
    if (lk->fd < 0) return;
    unlink(lk->path); /* while still held, so a waiting writer finds a fresh file */
    close(lk->fd);
    lk->fd = -1;
}

/* ---- reading the old world.ini ---------------------------------------------------------------------------- */
typedef struct old_world {
    bool present, parsed; /* world.ini (or the journal) exists; it parses */
    char *text;
    size_t size;
    st_world_ini ini;
    st_world_names names;
} old_world;

static void read_old(const char *path, old_world *o) {
    memset(o, 0, sizeof *o);
    if (!exists(path)) return;
    o->present = true;
    uint8_t *data = NULL;
    if (st_file_read_all(path, 1u << 20, &data, &o->size, NULL)) return;
    o->text = (char *)data;
    o->parsed = !st_world_ini_parse(o->text, o->size, path, &o->ini, NULL);
    if (o->parsed) st_world_names_of(&o->ini, &o->names);
}

static bool names_one_of(const char *name, const st_world_names *n) {
    return !strcmp(name, n->map) || !strcmp(name, n->pal) || !strcmp(name, n->vpr) || !strcmp(name, n->color);
}

/* Removes the old world's files that the new world does not name (a .vmp after a save as .vmc, ...). */
static void remove_orphans(const char *dir, const old_world *old, const st_world_names *now) {
    if (!old->parsed) return;
    const char *files[4] = {old->names.map, old->names.pal, old->names.vpr, old->names.color};
    for (int i = 0; i < 4; i++) {
        char path[1300];
        if (!files[i][0] || names_one_of(files[i], now) || join(path, sizeof path, dir, files[i], NULL)) continue;
        unlink(path);
    }
}

/* ---- recovery ----------------------------------------------------------------------------------------------- */
/* A journal (world.ini.new) is a save past its commit point: do the renames it did not get to. */
static st_result finish_interrupted(const char *dir, st_error *err) {
    char journal[1300], ini_path[1300];
    st_result r = join(ini_path, sizeof ini_path, dir, "world.ini", err);
    if (r) return r;
    snprintf(journal, sizeof journal, "%s%s", ini_path, ST_WORLD_NEW_SUFFIX);
    if (!exists(journal)) return ST_OK;
    old_world next, old;
    read_old(journal, &next);
    if (!next.parsed) { /* only complete journals are ever renamed into place: this one is damage */
        free(next.text);
        unlink(journal);
        return ST_OK;
    }
    read_old(ini_path, &old);
    const char *files[4] = {next.names.map, next.names.pal, next.names.vpr, next.names.color};
    for (int i = 0; i < 4 && !r; i++) {
        char path[1300], newer[1400];
        if (!files[i][0]) continue; /* no colour map */
        if ((r = join(path, sizeof path, dir, files[i], err))) break;
        snprintf(newer, sizeof newer, "%s%s", path, ST_WORLD_NEW_SUFFIX);
        if (exists(newer) && rename(newer, path) != 0)
            r = st_error_set(err, ST_ERR_IO, "finishing an interrupted save: %s: %s", newer, strerror(errno));
    }
    if (!r && rename(journal, ini_path) != 0)
        r = st_error_set(err, ST_ERR_IO, "finishing an interrupted save: %s: %s", journal, strerror(errno));
    if (!r) remove_orphans(dir, &old, &next.names);
    free(next.text);
    free(old.text);
    return r;
}

static bool process_gone(long pid) {
    return pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes what dead writers left: temporaries NAME.tmpPID of processes that are gone, and (there being no
 * journal any more) NAME.new of the world's own names, which no commit claimed. */
static void remove_leftovers(const char *dir, const char *const *names, size_t count) {
    DIR *d = opendir(dir[0] ? dir : ".");
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            const char *tmp = NULL;
            for (const char *p = strstr(e->d_name, ".tmp"); p; p = strstr(p + 1, ".tmp")) tmp = p;
            if (!tmp || !tmp[4]) continue;
            char *end;
            long pid = strtol(tmp + 4, &end, 10);
            if (*end || tmp[4] < '0' || tmp[4] > '9' || !process_gone(pid)) continue;
            char path[1300];
            if (!join(path, sizeof path, dir, e->d_name, NULL)) unlink(path);
        }
        closedir(d);
    }
    for (size_t i = 0; i < count; i++) {
        char path[1400];
        if (!names[i][0]) continue;
        if (snprintf(path, sizeof path, "%s/%s%s", dir[0] ? dir : ".", names[i], ST_WORLD_NEW_SUFFIX) <
            (int)sizeof path)
            unlink(path);
    }
}

/* ---- writing ---------------------------------------------------------------------------------------------- */
/* dir/name.new, complete and on disk (through its own temporary) before this returns. */
static st_result write_new(const char *dir, const char *name, const void *data, size_t size, st_error *err) {
    char path[1300];
    st_result r = join(path, sizeof path, dir, name, err);
    if (r) return r;
    strncat(path, ST_WORLD_NEW_SUFFIX, sizeof path - strlen(path) - 1);
    st_atomic_file f;
    if ((r = st_atomic_open(&f, path, err))) return r;
    if ((size && fwrite(data, 1, size, f.fp) != size) || fflush(f.fp) != 0 || fsync(fileno(f.fp)) != 0) {
        int e = errno;
        st_atomic_abort(&f);
        return st_error_set(err, st_write_failure(e), "%s: write failed: %s", path, strerror(e));
    }
    return st_atomic_commit(&f, err);
}

/* dir/name.new: the level's colour map as an 8-bit RGB PNG, complete and on disk before this returns. */
static st_result write_new_colors(const char *dir, const char *name, const st_level *level, st_error *err) {
    char path[1300];
    st_result r = join(path, sizeof path, dir, name, err);
    if (r) return r;
    strncat(path, ST_WORLD_NEW_SUFFIX, sizeof path - strlen(path) - 1);
    st_atomic_file f;
    if ((r = st_atomic_open(&f, path, err))) return r;
    r = st_png_write_to(&f, level->width, level->height, 3, 8, level->colors, err);
    if (!r && (fflush(f.fp) != 0 || fsync(fileno(f.fp)) != 0)) {
        int e = errno;
        r = st_error_set(err, st_write_failure(e), "%s: write failed: %s", path, strerror(e));
    }
    if (r) {
        st_atomic_abort(&f);
        return r;
    }
    return st_atomic_commit(&f, err);
}

/* The .vpr: the old file's GeoNet tables kept when it has exactly the size the new world needs (an edit does
 * not change it), with the new flood levels; otherwise zeroed tables as st_vpr_encode writes them. */
static st_result encode_vpr(const st_level *level, const st_world_ini *ini, const char *old_vpr, uint8_t **data,
                            size_t *size, st_error *err) {
    uint64_t want = st_vpr_size(level->width, level->height, ini->geonet_power, ini->section_power);
    uint8_t *old = NULL;
    size_t old_size = 0;
    if (old_vpr && want && !st_file_read_all(old_vpr, (size_t)want, &old, &old_size, NULL) && old_size == want) {
        size_t s = level->height >> ini->section_power;
        uint8_t *levels = old + old_size - 4 * s;
        for (size_t i = 0; i < s; i++) levels[4 * i] = level->flood[i];
        *data = old;
        *size = old_size;
        return ST_OK;
    }
    free(old);
    return st_vpr_encode(level->width, level->height, ini->geonet_power, ini->section_power, level->flood, data, size,
                         err);
}

typedef struct save_steps {
    const st_world_save_desc *d;
    int next;
} save_steps;

static void step_done(save_steps *s, const char *what) {
    if (s->d->on_step) s->d->on_step(s->d->step_user, s->next, what);
    s->next++;
}

st_result st_world_save_ex(const st_level *level, const char *dir, const st_world_save_desc *desc,
                           st_vmc_encode_info *info, st_error *err) {
    st_world_save_desc d = desc ? *desc : (st_world_save_desc){0};
    save_steps steps = {&d, 0};
    char created[1024], ini_path[1300];
    st_result r = join(ini_path, sizeof ini_path, dir, "world.ini", err);
    if (r) return r;
    /* Encode everything in memory first: a bad level fails before any file is touched. */
    st_world_ini ini;
    st_world_ini_from_level(level, !d.vmp, &ini);
    enum { F_MAP, F_PAL, F_VPR, F_COUNT };
    uint8_t *bufs[F_COUNT] = {0};
    size_t sizes[F_COUNT] = {0};
    char *text = NULL;
    size_t text_size = 0;
    old_world old = {0};
    bool locked = false, committed = false;
    int written = 0;
    world_lock lk = {.fd = -1};
    const uint8_t *heights, *meta;
    st_level_planes(level, &heights, &meta);
    if (d.vmp) {
        r = st_vmp_encode(heights, meta, level->width, level->height, &bufs[F_MAP], &sizes[F_MAP], err);
        if (info) memset(info, 0, sizeof *info);
    } else {
        st_vmc_encode_desc ed = {.identity = d.identity};
        r = st_vmc_encode(heights, meta, level->width, level->height, &ed, &bufs[F_MAP], &sizes[F_MAP], info, err);
    }
    if (!r && !(bufs[F_PAL] = malloc(ST_PAL_SIZE))) r = st_error_set(err, ST_ERR_NOMEM, "out of memory");
    if (!r) {
        st_pal_encode(level->palette, bufs[F_PAL]);
        sizes[F_PAL] = ST_PAL_SIZE;
        ini.has_map_crc = true;
        ini.map_crc = st_crc32(bufs[F_MAP], sizes[F_MAP]);
    }
    if (!r) r = st_make_dirs_tracked(dir, created, sizeof created, err);
    else created[0] = 0;
    if (!r) r = lock_world(dir, &lk, err);
    locked = !r;
    if (!r) r = finish_interrupted(dir, err);
    if (!r) {
        read_old(ini_path, &old);
        if (old.parsed) { /* in place: the same file names, and the old GeoNet Power when the new size allows it */
            snprintf(ini.file_name, sizeof ini.file_name, "%s", old.ini.file_name);
            snprintf(ini.palette_file, sizeof ini.palette_file, "%s", old.ini.palette_file);
            ini.minimal_square_power = old.ini.minimal_square_power;
            if (2 * old.ini.geonet_power <= ini.map_power_x + ini.map_power_y) ini.geonet_power = old.ini.geonet_power;
        }
    }
    /* the colour map (a Comanche-style pair's) as a member of its own, named by world.ini: present in the world
     * exactly when the committed world.ini names it */
    if (level->colors)
        snprintf(ini.color_file, sizeof ini.color_file, "%s", old.parsed && old.ini.color_file[0] ? old.ini.color_file
                                                                                                   : "color.png");
    st_world_names names;
    st_world_names_of(&ini, &names);
    if (!r) {
        const char *all[9] = {"world.ini", names.map, names.pal, names.vpr, names.color, old.names.map, old.names.pal,
                              old.names.vpr, old.names.color};
        remove_leftovers(dir, all, old.parsed ? 9 : 5);
        char old_vpr[1300];
        bool keep_vpr = old.parsed && !join(old_vpr, sizeof old_vpr, dir, names.vpr, NULL) &&
                        !strcmp(old.names.vpr, names.vpr);
        r = encode_vpr(level, &ini, keep_vpr ? old_vpr : NULL, &bufs[F_VPR], &sizes[F_VPR], err);
    }
    /* A broken world.ini is replaced, not patched. */
    if (!r) r = old.parsed ? st_world_ini_update(old.text, old.size, &ini, &text, &text_size, err)
                           : st_world_ini_format(&ini, &text, &text_size, err);
    const char *member[F_COUNT + 1] = {names.map, names.pal, names.vpr, names.color};
    int members = names.color[0] ? F_COUNT + 1 : F_COUNT;
    for (int i = 0; i < members && !r; i++) {
        r = i < F_COUNT ? write_new(dir, member[i], bufs[i], sizes[i], err) : write_new_colors(dir, member[i], level, err);
        if (!r) written++, step_done(&steps, member[i]);
    }
    if (!r) r = write_new(dir, "world.ini", text, text_size, err);
    if (!r) {
        sync_dir(dir);
        committed = true; /* from here on the new world is the world, for every reader */
        step_done(&steps, "world.ini.new");
    }
    for (int i = 0; i < members && !r; i++) {
        char path[1300], newer[1400];
        if ((r = join(path, sizeof path, dir, member[i], err))) break;
        snprintf(newer, sizeof newer, "%s%s", path, ST_WORLD_NEW_SUFFIX);
        if (rename(newer, path) != 0) r = st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
        else step_done(&steps, member[i]);
    }
    if (!r) {
        char journal[1400];
        snprintf(journal, sizeof journal, "%s%s", ini_path, ST_WORLD_NEW_SUFFIX);
        if (rename(journal, ini_path) != 0) r = st_error_set(err, ST_ERR_IO, "%s: %s", ini_path, strerror(errno));
        else step_done(&steps, "world.ini");
    }
    if (!r) {
        sync_dir(dir);
        remove_orphans(dir, &old, &names);
    }
    if (r && committed) st_error_prefix(err, "the new world is saved but not yet in place (the next save or load "
                                             "finishes it)");
    if (r && !committed) { /* nothing of this save may stay */
        for (int i = 0; i < written; i++) {
            char path[1400];
            if (snprintf(path, sizeof path, "%s/%s%s", dir, member[i], ST_WORLD_NEW_SUFFIX) < (int)sizeof path)
                unlink(path);
        }
    }
    if (locked) unlock_world(&lk);
    if (r && !committed) st_remove_dirs(dir, created);
    for (int i = 0; i < F_COUNT; i++) free(bufs[i]);
    free(text);
    free(old.text);
    return r;
}

st_result st_world_save(const st_level *level, const char *dir, st_error *err) {
    return st_world_save_ex(level, dir, NULL, NULL, err);
}
