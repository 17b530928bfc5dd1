/* Reading files: the one place that opens a file for reading. Only regular files are read; a named pipe,
 * a device or a directory is refused without blocking (opening a FIFO for reading waits for a writer). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata/core.h"

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
