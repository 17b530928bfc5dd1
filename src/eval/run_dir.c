/* One results folder per run: a run writes into OUT/<adapter>/.partial-<name>/ and, once every report is
 * written, renames it to OUT/<adapter>/<name>/ (UTC time, protocol, settings digest) and points
 * OUT/<adapter>/latest at it; a failed or interrupted run removes its partial folder. So a folder is complete
 * or absent, and runs of different settings never mix. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "eval/eval_internal.h"
#include "strata/file.h"
#include "strata/image.h"

uint64_t st_eval_digest(const char *text) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) h = (h ^ *p) * 0x100000001b3ull;
    return h;
}

st_result st_run_dir_begin(const char *out_root, const char *slug, const char *tag, const char *settings,
                           st_run_dir *d, st_error *err) {
    memset(d, 0, sizeof *d);
    snprintf(d->root, sizeof d->root, "%s/%s", out_root, slug);
    st_result res = st_make_dirs(d->root, err);
    if (res) return res;
    char when[32];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", &tmv);
    unsigned digest = (unsigned)(st_eval_digest(settings) & 0xffffffffu);
    for (int k = 1; k < 100; k++) {
        if (k == 1) snprintf(d->name, sizeof d->name, "%s-%s-%08x", when, tag, digest);
        else snprintf(d->name, sizeof d->name, "%s-%s-%08x-%d", when, tag, digest, k);
        snprintf(d->final, sizeof d->final, "%s/%s", d->root, d->name);
        snprintf(d->work, sizeof d->work, "%s/.partial-%s", d->root, d->name);
        struct stat st;
        if (stat(d->final, &st) != 0 && stat(d->work, &st) != 0) break;
    }
    res = st_make_dir_new(d->work, err);
    if (res) return res;
    d->open = true;
    return ST_OK;
}

void st_run_dir_abort(st_run_dir *d) {
    if (!d->open) return;
    /* only this run writes here: every entry is a file it made (or a temporary of one) */
    DIR *dir = opendir(d->work);
    if (dir) {
        struct dirent *e;
        char path[1600];
        while ((e = readdir(dir))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(path, sizeof path, "%s/%s", d->work, e->d_name);
            unlink(path);
        }
        closedir(dir);
    }
    rmdir(d->work);
    d->open = false;
}

st_result st_run_dir_commit(st_run_dir *d, st_error *err) {
    if (!d->open) return st_error_set(err, ST_ERR_INVALID, "run folder: not open");
    if (rename(d->work, d->final) != 0) {
        st_result res = st_error_set(err, ST_ERR_IO, "%s: %s", d->final, strerror(errno));
        st_run_dir_abort(d);
        return res;
    }
    d->open = false;
    /* latest -> <name>, replaced in one rename so a reader never sees it missing */
    char tmp[1200], latest[1200];
    snprintf(tmp, sizeof tmp, "%s/.latest-%ld", d->root, (long)getpid());
    snprintf(latest, sizeof latest, "%s/latest", d->root);
    unlink(tmp);
    if (symlink(d->name, tmp) != 0 || rename(tmp, latest) != 0) {
        unlink(tmp);
        return st_error_set(err, ST_ERR_IO, "%s: %s (the run is complete in %s)", latest, strerror(errno), d->final);
    }
    return ST_OK;
}
