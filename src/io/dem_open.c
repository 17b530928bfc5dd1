/* st_dem_open: picks the DEM reader for the inputs by content and name (PNG signature, .hgt names, a raw size
 * or .r16, a folder of RGB tiles, else GDAL), and the file helpers every reader shares: open without ever
 * blocking, exact preads, bounded whole reads. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dem_internal.h"

bool st_dem_name_ends(const char *name, const char *suffix) {
    size_t n = strlen(name), m = strlen(suffix);
    if (n < m) return false;
    for (size_t i = 0; i < m; i++) {
        char c = name[n - m + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return false;
    }
    return true;
}

const char *st_dem_base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static const char *file_kind(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a named pipe";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

st_result st_dem_file_open(const char *path, int *fd, uint64_t *size, st_error *err) {
    *fd = -1;
    *size = 0;
    /* stat first, so that a pipe or a device is refused without being opened at all; then open with
     * O_NONBLOCK and check again on the descriptor, in case the path changed in between. */
    struct stat sb;
    if (stat(path, &sb) != 0) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return st_error_set(err, ST_ERR_IO, "%s: is %s, not a regular file", path, file_kind(sb.st_mode));
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (f < 0) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    if (fstat(f, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(f);
        return st_error_set(err, ST_ERR_IO, "%s: not a regular file", path);
    }
    *fd = f;
    *size = (uint64_t)sb.st_size;
    return ST_OK;
}

st_result st_dem_file_pread(int fd, void *buf, size_t n, uint64_t off, const char *name, st_error *err) {
    uint8_t *p = buf;
    while (n) {
        ssize_t got = pread(fd, p, n, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return st_error_set(err, ST_ERR_IO, "%s: read failed: %s", name, strerror(errno));
        if (got == 0) return st_error_set(err, ST_ERR_FORMAT, "%s: truncated (ends before byte %llu)", name,
                                          (unsigned long long)off);
        p += got;
        n -= (size_t)got;
        off += (uint64_t)got;
    }
    return ST_OK;
}

st_result st_dem_file_read_all(int fd, uint64_t size, uint64_t max, const char *name, uint8_t **data,
                               st_error *err) {
    *data = NULL;
    if (size > max)
        return st_error_set(err, ST_ERR_FORMAT, "%s: %llu bytes is more than the %llu this reader takes", name,
                            (unsigned long long)size, (unsigned long long)max);
    uint8_t *buf = malloc(size ? (size_t)size : 1);
    if (!buf) return st_error_set(err, ST_ERR_NOMEM, "%s: cannot allocate %llu bytes", name, (unsigned long long)size);
    st_result r = st_dem_file_pread(fd, buf, (size_t)size, 0, name, err);
    if (r) {
        free(buf);
        return r;
    }
    *data = buf;
    return ST_OK;
}

static st_result check_desc(const st_dem_open_desc *d, st_error *err) {
    if (!isfinite(d->units_m) || d->units_m < 0 || d->units_m > 1e6)
        return st_error_set(err, ST_ERR_INVALID, "units of %g m per sample unit are outside 0..1e6", d->units_m);
    if (!isfinite(d->spacing_m) || d->spacing_m < 0 || d->spacing_m > 1e7)
        return st_error_set(err, ST_ERR_INVALID, "a spacing of %g m is outside 0..1e7", d->spacing_m);
    if ((unsigned)d->raw_type > ST_DEM_RAW_F32) return st_error_set(err, ST_ERR_INVALID, "unknown raw sample type");
    if ((unsigned)d->endian > ST_ENDIAN_BIG) return st_error_set(err, ST_ERR_INVALID, "unknown byte order");
    if ((unsigned)d->rgb > ST_DEM_RGB_MAPBOX) return st_error_set(err, ST_ERR_INVALID, "unknown RGB encoding");
    if (!d->raw_width != !d->raw_height)
        return st_error_set(err, ST_ERR_INVALID, "a raw size needs both a width and a height");
    return ST_OK;
}

st_result st_dem_open(const char *const *paths, size_t count, const st_dem_open_desc *desc, st_dem_source **out,
                      st_error *err) {
    *out = NULL;
    st_dem_open_desc d = desc ? *desc : (st_dem_open_desc){0};
    if (!paths || !count) return st_error_set(err, ST_ERR_INVALID, "no DEM input given");
    for (size_t i = 0; i < count; i++)
        if (!paths[i] || !paths[i][0]) return st_error_set(err, ST_ERR_INVALID, "an empty DEM input path");
    st_result r = check_desc(&d, err);
    if (r) return r;
    const char *path = paths[0];
    struct stat sb;

    if (d.wrap_x && (d.rgb || count > 1 || (!d.raw_width && st_dem_name_ends(path, ".hgt"))))
        return st_error_set(err, ST_ERR_INVALID,
                            "%s: only a raw grid, a PNG or a GDAL raster can be declared a whole globe (wrap in x)",
                            path);
    if (d.rgb) {
        if (count != 1) return st_error_set(err, ST_ERR_INVALID, "a z/x/y tile folder is read one at a time");
        if (stat(path, &sb) != 0) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
        if (!S_ISDIR(sb.st_mode))
            return st_error_set(err, ST_ERR_INVALID, "%s: RGB-encoded tiles are read from a z/x/y folder", path);
        return st_dem_open_xyz(path, &d, out, err);
    }
    if (count > 1) {
        int lat, lon;
        for (size_t i = 0; i < count; i++)
            if (!st_dem_hgt_name(paths[i], &lat, &lon) || !st_dem_name_ends(paths[i], ".hgt"))
                return st_error_set(err, ST_ERR_INVALID,
                                    "%s: only SRTM tiles named by their corner (N50E009.hgt …) can be joined",
                                    paths[i]);
        return st_dem_open_hgt(paths, count, out, err);
    }
    if (stat(path, &sb) != 0) return st_error_set(err, ST_ERR_IO, "%s: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return st_error_set(err, ST_ERR_INVALID,
                            "%s: is a directory (a z/x/y folder of tiles needs its encoding: Terrarium or "
                            "Terrain-RGB)", path);
    if (d.raw_width || st_dem_name_ends(path, ".r16")) {
        int fd;
        uint64_t size;
        if ((r = st_dem_file_open(path, &fd, &size, err))) return r;
        return st_dem_open_raw(path, fd, size, &d, out, err);
    }
    if (st_dem_name_ends(path, ".hgt")) return st_dem_open_hgt(&path, 1, out, err);

    int fd;
    uint64_t size;
    if ((r = st_dem_file_open(path, &fd, &size, err))) return r;
    uint8_t sig[8] = {0};
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (size >= 8 && st_dem_file_pread(fd, sig, 8, 0, path, err) == ST_OK && !memcmp(sig, png_sig, 8))
        return st_dem_open_png(path, fd, size, &d, out, err);
    close(fd);
    if (size == 0) return st_error_set(err, ST_ERR_FORMAT, "%s: empty file", path);
    st_error gerr = {0};
    r = st_dem_open_gdal(path, &d, out, &gerr);
    if (r == ST_OK || r == ST_ERR_NOMEM) {
        if (err && r) *err = gerr;
        return r;
    }
    return st_error_set(err, r == ST_ERR_IO ? ST_ERR_IO : ST_ERR_FORMAT,
                        "%s: no reader takes it (not a PNG, not an SRTM .hgt, not a raw grid without a size; "
                        "GDAL: %s)", path, gerr.message);
}
