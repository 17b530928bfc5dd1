/* Files: the one place that opens a file for reading (only regular files are read; a named pipe, a device or a
 * directory is refused without blocking: opening a FIFO for reading waits for a writer), the atomic writers
 * (one file, or a set that appears whole or not at all) and the one mkdir (mkdir -p that remembers what it
 * created, and a folder that must be new). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/file.h"

static const char *kind_of(mode_t mode) {
    if (S_ISFIFO(mode)) return "a named pipe";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

st_result st_file_open_read(const char *path, FILE **out, st_error *err) {
    *out = NULL;
    /* O_NONBLOCK: the open itself must not wait (a FIFO without a writer); it is cleared once fstat has
     * shown a regular file, where it has no effect anyway. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return st_error_set(err, ST_ERR_IO, "%s: is %s, not a regular file", path, kind_of(sb.st_mode));
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        int e = errno;
        close(fd);
        return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(e));
    }
    *out = fp;
    return ST_OK;
}

st_result st_file_read_all(const char *path, size_t max_size, uint8_t **data, size_t *size, st_error *err) {
    *data = NULL;
    *size = 0;
    FILE *fp = NULL;
    st_result r = st_file_open_read(path, &fp, err);
    if (r) return r;
    struct stat sb;
    if (fstat(fileno(fp), &sb) != 0) {
        int e = errno;
        fclose(fp);
        return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(e));
    }
    if ((uint64_t)sb.st_size > max_size) {
        fclose(fp);
        return st_error_set(err, ST_ERR_FORMAT, "%s: %lld bytes is more than the %zu this file can hold", path,
                            (long long)sb.st_size, max_size);
    }
    size_t n = (size_t)sb.st_size;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        fclose(fp);
        return st_error_set(err, ST_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, n);
    }
    size_t got = fread(buf, 1, n, fp);
    int bad = ferror(fp);
    int e = errno;
    fclose(fp);
    if (got != n || bad) {
        free(buf);
        return st_error_set(err, ST_ERR_IO, "%s: read failed%s%s", path, bad ? ": " : " (the file shrank)",
                            bad ? strerror(e) : "");
    }
    *data = buf;
    *size = n;
    return ST_OK;
}

/* ---- atomic writing --------------------------------------------------------------------------------- */

st_result st_atomic_open(st_atomic_file *f, const char *path, st_error *err) {
    memset(f, 0, sizeof *f);
    if (!path[0]) return st_error_set(err, ST_ERR_INVALID, "an empty output file name");
    if (strlen(path) >= sizeof f->final_path)
        return st_error_set(err, ST_ERR_INVALID, "%s: path too long", path);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return st_error_set(err, ST_ERR_INVALID, "%s: is a directory (a file name is wanted here)", path);
    snprintf(f->final_path, sizeof f->final_path, "%s", path);
    snprintf(f->temp_path, sizeof f->temp_path, "%s.tmp%ld", path, (long)getpid());
    /* A temporary of this PID is a leftover of a dead process that had it (PIDs are reused): replace it, and
     * create it exclusively so nothing already there (a named pipe) is opened. */
    unlink(f->temp_path);
    int fd = open(f->temp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
    f->fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f->fp) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(f->temp_path);
        }
        f->temp_path[0] = 0;
        return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(e));
    }
    return ST_OK;
}

st_result st_atomic_commit(st_atomic_file *f, st_error *err) {
    int failed = ferror(f->fp);
    int e = errno;
    if (!failed && fflush(f->fp) != 0) failed = 1, e = errno;
    if (fclose(f->fp) != 0 && !failed) failed = 1, e = errno;
    f->fp = NULL;
    if (failed) {
        unlink(f->temp_path);
        return st_error_set(err, st_write_failure(e), "%s: write failed: %s", f->final_path, strerror(e));
    }
    if (rename(f->temp_path, f->final_path) != 0) {
        e = errno;
        unlink(f->temp_path);
        return st_error_set(err, ST_ERR_IO, "%s: %s", f->final_path, strerror(e));
    }
    return ST_OK;
}

void st_atomic_abort(st_atomic_file *f) {
    if (f->fp) fclose(f->fp);
    f->fp = NULL;
    if (f->temp_path[0]) unlink(f->temp_path);
    f->temp_path[0] = 0;
}

st_result st_atomic_commit_all(st_atomic_file *files, size_t count, st_error *err) {
    for (size_t i = 0; i < count; i++) {
        st_result r = st_atomic_commit(&files[i], err);
        if (!r) continue;
        for (size_t k = 0; k < i; k++) unlink(files[k].final_path); /* this run's, now in place */
        for (size_t k = i + 1; k < count; k++) st_atomic_abort(&files[k]);
        return r;
    }
    return ST_OK;
}

void st_atomic_abort_all(st_atomic_file *files, size_t count) {
    for (size_t i = 0; i < count; i++) st_atomic_abort(&files[i]);
}

st_result st_file_write_atomic(const char *path, const void *data, size_t size, st_error *err) {
    st_atomic_file f;
    st_result r = st_atomic_open(&f, path, err);
    if (r) return r;
    if (size && fwrite(data, 1, size, f.fp) != size) {
        int e = errno;
        st_atomic_abort(&f);
        return st_error_set(err, st_write_failure(e), "%s: write failed: %s", path, strerror(e));
    }
    return st_atomic_commit(&f, err);
}

/* fsync of the folder holding path, so a rename into it survives a power loss too. */
static int sync_parent(const char *path) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    int fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

st_result st_file_write_durable(const char *path, const void *data, size_t size, st_error *err) {
    st_atomic_file f;
    st_result r = st_atomic_open(&f, path, err);
    if (r) return r;
    if ((size && fwrite(data, 1, size, f.fp) != size) || fflush(f.fp) != 0 || fsync(fileno(f.fp)) != 0) {
        int e = errno;
        st_atomic_abort(&f);
        return st_error_set(err, st_write_failure(e), "%s: write failed: %s", path, strerror(e));
    }
    r = st_atomic_commit(&f, err);
    if (!r && sync_parent(path) != 0)
        r = st_error_set(err, ST_ERR_IO, "%s: syncing its folder: %s", path, strerror(errno));
    return r;
}

st_result st_file_remove_durable(const char *path, st_error *err) {
    if (unlink(path) != 0 && errno != ENOENT) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    if (sync_parent(path) != 0) return st_error_set(err, ST_ERR_IO, "%s: syncing its folder: %s", path, strerror(errno));
    return ST_OK;
}

/* ---- folders ---------------------------------------------------------------------------------------- */

/* The one mkdir: every folder strata creates is made here. */
static int make_dir(const char *path) { return mkdir(path, 0777); }

st_result st_make_dir_new(const char *path, st_error *err) {
    if (make_dir(path) != 0) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    return ST_OK;
}

st_result st_make_dirs_tracked(const char *path, char *created, size_t cap, st_error *err) {
    if (created && cap) created[0] = 0;
    char buf[1024];
    if (!path[0]) return st_error_set(err, ST_ERR_INVALID, "an empty folder name");
    if (strlen(path) >= sizeof buf) return st_error_set(err, ST_ERR_INVALID, "%s: path too long", path);
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (make_dir(buf) == 0) {
                if (created && cap && !created[0]) snprintf(created, cap, "%s", buf);
            } else if (errno != EEXIST) {
                int e = errno;
                if (created && created[0]) st_remove_dirs(buf, created);
                return st_error_set(err, ST_ERR_IO, "%s: %s", buf, strerror(e));
            }
            *p = c;
            if (!c) break;
        }
    }
    struct stat sb;
    if (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode)) return st_error_set(err, ST_ERR_IO, "%s: not a directory", buf);
    return ST_OK;
}

st_result st_make_dirs(const char *path, st_error *err) { return st_make_dirs_tracked(path, NULL, 0, err); }

void st_remove_dirs(const char *path, const char *top) {
    if (!top || !top[0]) return;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    size_t n = strlen(top);
    while (strlen(buf) >= n && !strncmp(buf, top, n)) {
        if (rmdir(buf) != 0) return; /* not empty (or not ours): stop */
        if (strlen(buf) == n) return;
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf) return;
        *slash = 0;
    }
}
