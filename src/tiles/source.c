/* The DEM source interface: a reader's ops and state behind one handle, with the window checks every reader
 * would otherwise repeat. The readers themselves live in src/io/ (real rasters) and src/terrain/ (procedural). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/dem.h"

struct st_dem_source {
    st_dem_source_ops ops;
    void *state;
    st_dem_info info;
};

st_result st_dem_source_create(const st_dem_source_ops *ops, void *state, const st_dem_info *info,
                               st_dem_source **out, st_error *err) {
    *out = NULL;
    if (!ops || !ops->read || !info) {
        if (ops && ops->destroy) ops->destroy(state);
        return st_error_set(err, ST_ERR_INVALID, "a DEM source needs a read function and its description");
    }
    if (!info->width || !info->height || info->width > ST_DEM_MAX_SIDE || info->height > ST_DEM_MAX_SIDE) {
        if (ops->destroy) ops->destroy(state);
        return st_error_set(err, ST_ERR_INVALID, "%s: %llux%llu samples is outside 1..%llu a side", info->description,
                            (unsigned long long)info->width, (unsigned long long)info->height,
                            (unsigned long long)ST_DEM_MAX_SIDE);
    }
    st_dem_source *s = calloc(1, sizeof *s);
    if (!s) {
        if (ops->destroy) ops->destroy(state);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    s->ops = *ops;
    s->state = state;
    s->info = *info;
    *out = s;
    return ST_OK;
}

void st_dem_source_destroy(st_dem_source *src) {
    if (!src) return;
    if (src->ops.destroy) src->ops.destroy(src->state);
    free(src);
}

const st_dem_info *st_dem_source_info(const st_dem_source *src) { return &src->info; }

st_result st_dem_source_read(st_dem_source *src, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out,
                             st_error *err) {
    if (!w || !h || (uint64_t)w * h > ST_DEM_MAX_WINDOW)
        return st_error_set(err, ST_ERR_INVALID, "%s: a %ux%u window is outside 1..%u samples", src->info.description,
                            w, h, ST_DEM_MAX_WINDOW);
    /* Far outside the raster nothing is meaningful; a bound keeps index arithmetic in range for every reader. */
    const int64_t lim = (int64_t)ST_DEM_MAX_SIDE * 4;
    if (x0 < -lim || y0 < -lim || x0 > lim || y0 > lim)
        return st_error_set(err, ST_ERR_INVALID, "%s: window origin (%lld, %lld) is out of range", src->info.description,
                            (long long)x0, (long long)y0);
    return src->ops.read(src->state, x0, y0, w, h, out, err);
}

double st_dem_source_level_error(const st_dem_source *src, uint32_t level) {
    if (!src->ops.level_error) return -1.0;
    double e = src->ops.level_error(src->state, level);
    return isfinite(e) && e >= 0 ? e : -1.0;
}

st_result st_dem_source_read_stride(st_dem_source *src, int64_t x0, int64_t y0, uint32_t stride, uint32_t w,
                                    uint32_t h, float *out, st_error *err) {
    if (stride == 1) return st_dem_source_read(src, x0, y0, w, h, out, err);
    if (!src->ops.read_stride)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "%s: reads only at full resolution", src->info.description);
    if (!stride || !w || !h || (uint64_t)w * h > ST_DEM_MAX_WINDOW)
        return st_error_set(err, ST_ERR_INVALID, "%s: bad strided window", src->info.description);
    return src->ops.read_stride(src->state, x0, y0, stride, w, h, out, err);
}

void st_dem_source_void_counts(const st_dem_source *src, uint64_t *filled, uint64_t *sea_level) {
    uint64_t f = 0, s = 0;
    if (src->ops.void_counts) src->ops.void_counts(src->state, &f, &s);
    if (filled) *filled = f;
    if (sea_level) *sea_level = s;
}
