/* A DEM source read whole into an st_heightmap (what `strata convert` quantises into a level): windows read
 * in parallel on the job system, metres held as integers of the source's unit (or of 1 mm for float
 * sources). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dem_internal.h"

#define READ_WINDOW 1024u /* samples a side of one parallel read */

typedef struct read_job {
    st_dem_source *src;
    st_heightmap *hm;
    double unit;
    uint32_t cols; /* windows per row */
    pthread_mutex_t lock;
    atomic_bool stop; /* a window failed: the others give up */
    st_result result;
    st_error err;
} read_job;

static void fail(read_job *j, st_result r, const st_error *e) {
    atomic_store(&j->stop, true);
    pthread_mutex_lock(&j->lock);
    if (!j->result) {
        j->result = r;
        j->err = *e;
    }
    pthread_mutex_unlock(&j->lock);
}

static void read_windows(void *user, size_t begin, size_t end) {
    read_job *j = user;
    float *buf = malloc(sizeof(float) * READ_WINDOW * READ_WINDOW);
    st_error e = {0};
    if (!buf) {
        st_error_set(&e, ST_ERR_NOMEM, "out of memory reading a DEM");
        fail(j, ST_ERR_NOMEM, &e);
        return;
    }
    const uint32_t W = j->hm->width, H = j->hm->height;
    for (size_t k = begin; k < end && !atomic_load(&j->stop); k++) {
        uint32_t x0 = (uint32_t)(k % j->cols) * READ_WINDOW, y0 = (uint32_t)(k / j->cols) * READ_WINDOW;
        uint32_t w = W - x0 < READ_WINDOW ? W - x0 : READ_WINDOW, h = H - y0 < READ_WINDOW ? H - y0 : READ_WINDOW;
        st_result r = st_dem_source_read(j->src, x0, y0, w, h, buf, &e);
        for (uint32_t y = 0; !r && y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                double q = nearbyint((double)buf[(size_t)y * w + x] / j->unit);
                if (!(fabs(q) <= INT32_MAX)) {
                    r = st_error_set(&e, ST_ERR_FORMAT, "%s: sample (%u, %u) = %g m is beyond the heightmap's range "
                                     "of %g m units", st_dem_source_info(j->src)->description, x0 + x, y0 + y,
                                     (double)buf[(size_t)y * w + x], j->unit);
                    break;
                }
                j->hm->samples[(size_t)(y0 + y) * W + x0 + x] = (int32_t)q;
            }
        if (r) fail(j, r, &e);
    }
    free(buf);
}

st_result st_dem_read_heightmap(st_dem_source *src, st_heightmap **out, st_error *err) {
    *out = NULL;
    const st_dem_info *in = st_dem_source_info(src);
    if (in->width * in->height > ST_HEIGHTMAP_MAX_SAMPLES)
        return st_error_set(err, ST_ERR_INVALID,
                            "%s: %llux%llu samples is more than a heightmap holds (%u); a tile store reads it in windows",
                            in->description, (unsigned long long)in->width, (unsigned long long)in->height,
                            ST_HEIGHTMAP_MAX_SAMPLES);
    st_heightmap *hm = calloc(1, sizeof *hm);
    if (hm) hm->samples = malloc(sizeof(int32_t) * (size_t)(in->width * in->height));
    if (!hm || !hm->samples) {
        st_heightmap_destroy(hm);
        return st_error_set(err, ST_ERR_NOMEM, "%s: cannot allocate its samples", in->description);
    }
    hm->width = (uint32_t)in->width;
    hm->height = (uint32_t)in->height;
    hm->vertical_scale = in->unit_m > 0 ? in->unit_m : 0.001;
    hm->metres_per_sample = in->spacing_x_m;
    hm->metres_per_sample_y = in->spacing_y_m != in->spacing_x_m ? in->spacing_y_m : 0;
    hm->wrap_x = in->wrap_x;
    uint64_t filled0, sea0, filled1, sea1;
    st_dem_source_void_counts(src, &filled0, &sea0);
    read_job j = {.src = src, .hm = hm, .unit = hm->vertical_scale,
                  .cols = (hm->width + READ_WINDOW - 1) / READ_WINDOW};
    pthread_mutex_init(&j.lock, NULL);
    size_t windows = (size_t)j.cols * ((hm->height + READ_WINDOW - 1) / READ_WINDOW);
    st_parallel_for(windows, 1, read_windows, &j);
    pthread_mutex_destroy(&j.lock);
    if (j.result) {
        st_heightmap_destroy(hm);
        if (err) *err = j.err;
        return j.result;
    }
    st_dem_source_void_counts(src, &filled1, &sea1);
    hm->voids_filled = filled1 - filled0;
    hm->voids_sea_level = sea1 - sea0;
    int32_t lo = INT32_MAX, hi = INT32_MIN;
    for (size_t i = 0; i < (size_t)hm->width * hm->height; i++) {
        if (hm->samples[i] < lo) lo = hm->samples[i];
        if (hm->samples[i] > hi) hi = hm->samples[i];
    }
    hm->min = lo;
    hm->max = hi;
    *out = hm;
    return ST_OK;
}
