/* The DEM reader of 8/16-bit greyscale PNG: decoded whole through the heightmap decoder (a PNG is bounded
 * to ST_HEIGHTMAP_MAX_SAMPLES), served in windows; the units and spacing come from the caller, since a PNG
 * carries neither. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dem_internal.h"

#define PNG_MAX_FILE (1ull << 30)

typedef struct png_state {
    st_dem_grid grid;
    st_heightmap *hm;
    char name[512];
} png_state;

static st_result png_fetch(void *state, uint64_t x0, uint64_t y0, uint32_t w, uint32_t h, float *raw, size_t stride,
                           st_error *err) {
    (void)err;
    png_state *s = state;
    for (uint32_t j = 0; j < h; j++) {
        const int32_t *row = s->hm->samples + (size_t)(y0 + j) * s->hm->width + x0;
        float *o = raw + (size_t)j * stride;
        for (uint32_t i = 0; i < w; i++) o[i] = (float)row[i];
    }
    return ST_OK;
}

static st_result png_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err) {
    return st_dem_grid_read(&((png_state *)state)->grid, x0, y0, w, h, out, err);
}
static void png_destroy(void *state) {
    png_state *s = state;
    st_heightmap_destroy(s->hm);
    free(s);
}

st_result st_dem_open_png(const char *path, int fd, uint64_t size, const st_dem_open_desc *desc,
                          st_dem_source **out, st_error *err) {
    uint8_t *data = NULL;
    st_result r = st_dem_file_read_all(fd, size, PNG_MAX_FILE, path, &data, err);
    close(fd);
    if (r) return r;
    png_state *s = calloc(1, sizeof *s);
    if (!s) {
        free(data);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    snprintf(s->name, sizeof s->name, "%s", path);
    r = st_heightmap_decode_png(data, size, path, &s->hm, err);
    int depth = size > 24 ? data[24] : 0; /* IHDR's bit depth, at a fixed offset in every PNG */
    free(data);
    if (r) {
        free(s);
        return r;
    }
    double units = desc->units_m > 0 ? desc->units_m : 1.0;
    s->grid = (st_dem_grid){.width = s->hm->width, .height = s->hm->height, .wrap_x = desc->wrap_x, .scale = units,
                            .integral = true, .name = s->name, .fetch = png_fetch, .state = s};
    st_dem_info info = {.width = s->hm->width, .height = s->hm->height, .spacing_x_m = desc->spacing_m,
                        .spacing_y_m = desc->spacing_m, .unit_m = units, .wrap_x = desc->wrap_x};
    st_dem_bound(s->hm->min * units, s->hm->max * units, false, &info);
    snprintf(info.description, sizeof info.description, "%s: %d-bit grey PNG, %ux%u", st_dem_base_name(path),
             depth == 16 ? 16 : 8, s->hm->width, s->hm->height);
    static const st_dem_source_ops ops = {.read = png_read, .destroy = png_destroy};
    return st_dem_source_create(&ops, s, &info, out, err);
}
