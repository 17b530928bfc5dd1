/* The DEM reader of every raster GDAL reads (GeoTIFF first of all): band 1 in windows as Float32, nodata as
 * voids, scale/offset and the vertical unit applied, the spacing in metres from the geotransform and the
 * CRS. GDAL datasets are not thread-safe, so reads share a small pool of dataset handles behind a mutex; GDAL
 * prints nothing: its messages are caught per call and land in st_error. */
#if STRATA_HAVE_GDAL
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cpl_error.h>
#include <gdal.h>
#include <ogr_srs_api.h>

#include "dem_internal.h"

#define GDAL_POOL_MAX 16

/* ---- quiet errors ----------------------------------------------------------------------------------------- */

typedef struct gdal_msg {
    char text[400];
    bool failed;
} gdal_msg;

/* The first failure's message is the one that explains; warnings are dropped. The handler stack is GDAL's
 * per-thread one, so each call catches only its own messages. */
static void CPL_STDCALL quiet_handler(CPLErr level, CPLErrorNum num, const char *text) {
    (void)num;
    gdal_msg *m = CPLGetErrorHandlerUserData();
    if (!m || level < CE_Failure || m->failed) return;
    m->failed = true;
    snprintf(m->text, sizeof m->text, "%s", text ? text : "unknown error");
}

static void quiet_begin(gdal_msg *m) {
    memset(m, 0, sizeof *m);
    CPLPushErrorHandlerEx(quiet_handler, m);
}
static const char *quiet_end(gdal_msg *m) {
    CPLPopErrorHandler();
    return m->failed ? m->text : "no message";
}

static pthread_once_t gdal_once = PTHREAD_ONCE_INIT;
static void gdal_register(void) { GDALAllRegister(); }

/* ---- the reader ------------------------------------------------------------------------------------------- */

typedef struct gdal_state {
    st_dem_grid grid;
    char path[1024];
    bool has_nodata;
    float nodata; /* compared as read, in Float32 */
    pthread_mutex_t lock;
    pthread_cond_t freed;
    unsigned pool_size, opened;
    GDALDatasetH ds[GDAL_POOL_MAX];
    bool busy[GDAL_POOL_MAX];
} gdal_state;

static GDALDatasetH open_dataset(const char *path, gdal_msg *m) {
    quiet_begin(m);
    GDALDatasetH ds = GDALOpenEx(path, GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR, NULL, NULL, NULL);
    quiet_end(m);
    return ds;
}

/* A free handle, opening one more while the pool has room, else waiting for one. */
static st_result take_handle(gdal_state *s, unsigned *slot, st_error *err) {
    pthread_mutex_lock(&s->lock);
    for (;;) {
        for (unsigned i = 0; i < s->opened; i++)
            if (s->ds[i] && !s->busy[i]) {
                s->busy[i] = true;
                *slot = i;
                pthread_mutex_unlock(&s->lock);
                return ST_OK;
            }
        if (s->opened < s->pool_size) break;
        pthread_cond_wait(&s->freed, &s->lock);
    }
    unsigned i = s->opened++;
    s->busy[i] = true;
    pthread_mutex_unlock(&s->lock); /* opening is slow: others keep reading meanwhile */
    gdal_msg m;
    GDALDatasetH ds = open_dataset(s->path, &m);
    pthread_mutex_lock(&s->lock);
    if (!ds) {
        s->busy[i] = false;
        pthread_cond_broadcast(&s->freed);
        pthread_mutex_unlock(&s->lock);
        return st_error_set(err, ST_ERR_IO, "%s: cannot open it again: %s", s->path, m.failed ? m.text : "GDAL failed");
    }
    s->ds[i] = ds;
    *slot = i;
    pthread_mutex_unlock(&s->lock);
    return ST_OK;
}

static void give_handle(gdal_state *s, unsigned slot) {
    pthread_mutex_lock(&s->lock);
    s->busy[slot] = false;
    pthread_cond_signal(&s->freed);
    pthread_mutex_unlock(&s->lock);
}

static st_result gdal_fetch(void *state, uint64_t x0, uint64_t y0, uint32_t w, uint32_t h, float *raw,
                            size_t stride, st_error *err) {
    gdal_state *s = state;
    unsigned slot = 0;
    st_result r = take_handle(s, &slot, err);
    if (r) return r;
    gdal_msg m;
    quiet_begin(&m);
    GDALRasterBandH band = GDALGetRasterBand(s->ds[slot], 1);
    CPLErr e = GDALRasterIO(band, GF_Read, (int)x0, (int)y0, (int)w, (int)h, raw, (int)w, (int)h, GDT_Float32,
                            (int)sizeof(float), (int)(stride * sizeof(float)));
    const char *why = quiet_end(&m);
    give_handle(s, slot);
    if (e != CE_None)
        return st_error_set(err, ST_ERR_FORMAT, "%s: reading %ux%u at (%llu, %llu): %s", s->path, w, h,
                            (unsigned long long)x0, (unsigned long long)y0, why);
    if (s->has_nodata)
        for (uint32_t j = 0; j < h; j++) {
            float *row = raw + (size_t)j * stride;
            for (uint32_t i = 0; i < w; i++)
                if (row[i] == s->nodata) row[i] = NAN;
        }
    return ST_OK;
}

static st_result gdal_read(void *state, int64_t x0, int64_t y0, uint32_t w, uint32_t h, float *out, st_error *err) {
    return st_dem_grid_read(&((gdal_state *)state)->grid, x0, y0, w, h, out, err);
}
static void gdal_counts(void *state, uint64_t *filled, uint64_t *sea) {
    st_dem_grid_counts(&((gdal_state *)state)->grid, filled, sea);
}
static void gdal_destroy(void *state) {
    gdal_state *s = state;
    gdal_msg m;
    quiet_begin(&m);
    for (unsigned i = 0; i < s->opened; i++)
        if (s->ds[i]) GDALClose(s->ds[i]);
    quiet_end(&m);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->freed);
    free(s);
}

/* Metres per unit of GDAL's band unit type; 0 for a unit we do not know. */
static double unit_metres(const char *u) {
    static const struct {
        const char *name;
        double metres;
    } units[] = {{"m", 1},          {"metre", 1},        {"meter", 1},         {"metres", 1},
                 {"meters", 1},     {"ft", 0.3048},      {"foot", 0.3048},     {"feet", 0.3048},
                 {"international foot", 0.3048},         {"us-ft", 1200.0 / 3937.0},
                 {"ftus", 1200.0 / 3937.0},              {"us survey foot", 1200.0 / 3937.0},
                 {"cm", 0.01},      {"mm", 0.001},       {"dm", 0.1},          {"km", 1000}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcasecmp(u, units[i].name)) return units[i].metres;
    return 0;
}

/* Spacing in metres from the geotransform: a projected CRS's linear unit, or degrees of a geographic one
 * converted at the raster's centre latitude on its ellipsoid. false when the CRS says neither. */
static bool spacing_from_crs(OGRSpatialReferenceH srs, const double g[6], uint64_t w, uint64_t h, double *sx,
                             double *sy) {
    double px = hypot(g[1], g[4]), py = hypot(g[2], g[5]);
    if (OSRIsProjected(srs)) {
        double lu = OSRGetLinearUnits(srs, NULL);
        if (!(lu > 0)) return false;
        *sx = px * lu;
        *sy = py * lu;
        return true;
    }
    if (OSRIsGeographic(srs)) {
        double deg = OSRGetAngularUnits(srs, NULL) * 180.0 / M_PI; /* degrees per CRS unit */
        double lat = (g[3] + g[4] * (double)w / 2 + g[5] * (double)h / 2) * deg;
        if (!(deg > 0) || !isfinite(lat) || fabs(lat) > 90) return false;
        OGRErr e1 = OGRERR_NONE, e2 = OGRERR_NONE;
        double a = OSRGetSemiMajor(srs, &e1), invf = OSRGetInvFlattening(srs, &e2);
        if (e1 != OGRERR_NONE || !(a > 0)) a = ST_WGS84_A;
        double f = e2 == OGRERR_NONE && invf > 0 ? 1.0 / invf : 0.0; /* 0: a sphere */
        double ew, ns;
        st_dem_metres_per_degree(lat, a, f, &ew, &ns);
        *sx = px * deg * ew;
        *sy = py * deg * ns;
        return true;
    }
    return false;
}

/* Each handle has its own block cache, so more handles decode the same blocks again; one handle serialises
 * GDAL's work. On 2 threads one handle measured faster (docs/formats.md, `strata bench dem`): one handle per
 * four threads (the workers and the caller that helps), rounded up. */
static unsigned pool_size(void) {
    unsigned n = (st_job_threads() + 1 + 3) / 4;
    const char *e = getenv("STRATA_GDAL_HANDLES");
    if (e && atoi(e) > 0) n = (unsigned)atoi(e);
    return n < GDAL_POOL_MAX ? n : GDAL_POOL_MAX;
}

st_result st_dem_open_gdal(const char *path, const st_dem_open_desc *desc, st_dem_source **out, st_error *err) {
    *out = NULL;
    pthread_once(&gdal_once, gdal_register);
    gdal_msg m;
    quiet_begin(&m);
    GDALDriverH drv = GDALIdentifyDriverEx(path, GDAL_OF_RASTER, NULL, NULL);
    quiet_end(&m);
    if (!drv) return st_error_set(err, ST_ERR_UNSUPPORTED, "%s: no GDAL raster driver recognises it", path);
    const char *driver = GDALGetDriverShortName(drv);
    GDALDatasetH ds = open_dataset(path, &m);
    if (!ds) return st_error_set(err, ST_ERR_FORMAT, "%s: GDAL (%s) cannot read it: %s", path, driver, m.text);

    gdal_state *s = calloc(1, sizeof *s);
    if (!s) {
        GDALClose(ds);
        return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->freed, NULL);
    s->pool_size = pool_size();
    s->ds[0] = ds;
    s->opened = 1;
    st_result r = ST_OK;
    quiet_begin(&m);
    int W = GDALGetRasterXSize(ds), H = GDALGetRasterYSize(ds);
    GDALRasterBandH band = GDALGetRasterCount(ds) >= 1 ? GDALGetRasterBand(ds, 1) : NULL;
    GDALDataType type = band ? GDALGetRasterDataType(band) : GDT_Unknown;
    if (!band) r = st_error_set(err, ST_ERR_FORMAT, "%s: GDAL (%s): the raster has no band", path, driver);
    else if (W < 1 || H < 1 || (uint64_t)W > ST_DEM_MAX_SIDE || (uint64_t)H > ST_DEM_MAX_SIDE)
        r = st_error_set(err, ST_ERR_FORMAT, "%s: %dx%d samples is outside 1..%llu a side", path, W, H,
                         (unsigned long long)ST_DEM_MAX_SIDE);
    else if (GDALDataTypeIsComplex(type) || type == GDT_Unknown)
        r = st_error_set(err, ST_ERR_FORMAT, "%s: band 1 is %s, not real elevations", path, GDALGetDataTypeName(type));
    st_dem_info info = {.width = (uint64_t)(W > 0 ? W : 1), .height = (uint64_t)(H > 0 ? H : 1)};
    double scale = 1, offset = 0;
    char note[96] = "";
    if (!r) {
        int ok = 0;
        double nd = GDALGetRasterNoDataValue(band, &ok);
        s->has_nodata = ok && !isnan(nd); /* NaN nodata needs no comparison: NaN is a void anyway */
        s->nodata = (float)nd;
        int has_scale = 0, has_offset = 0;
        double sc = GDALGetRasterScale(band, &has_scale), of = GDALGetRasterOffset(band, &has_offset);
        if (has_scale && isfinite(sc) && sc != 0) scale = sc;
        if (has_offset && isfinite(of)) offset = of;
        const char *ut = GDALGetRasterUnitType(band);
        double um = ut && ut[0] ? unit_metres(ut) : 0;
        if (ut && ut[0] && !um) snprintf(note, sizeof note, " (unit '%.40s' read as metres)", ut);
        if (!um) um = ut && ut[0] ? 1.0 : (desc->units_m > 0 ? desc->units_m : 1.0);
        scale *= um;
        offset *= um;
        bool integral = GDALDataTypeIsInteger(type) != 0;
        /* Integers times the scale sit on a unit grid only when the offset does too. */
        double k = offset / scale;
        info.unit_m = integral && fabs(k - round(k)) < 1e-9 * fmax(1, fabs(k)) ? fabs(scale) : 0;
        int okmin = 0, okmax = 0;
        double lo = GDALGetRasterMinimum(band, &okmin), hi = GDALGetRasterMaximum(band, &okmax);
        if (!integral && !okmin) lo = -INFINITY;
        if (!integral && !okmax) hi = INFINITY;
        info.has_voids = s->has_nodata || !integral; /* float bands may hold NaN */
        st_dem_bound(offset + scale * lo, offset + scale * hi, info.has_voids, &info);
        double g[6];
        OGRSpatialReferenceH srs = GDALGetSpatialRef(ds);
        if (GDALGetGeoTransform(ds, g) == CE_None) {
            info.georeferenced = true;
            memcpy(info.geotransform, g, sizeof g);
            if (srs) snprintf(info.crs, sizeof info.crs, "%s", OSRGetName(srs) ? OSRGetName(srs) : "unnamed");
            if (!srs || !spacing_from_crs(srs, g, info.width, info.height, &info.spacing_x_m, &info.spacing_y_m))
                info.spacing_x_m = info.spacing_y_m = desc->spacing_m;
            /* A north-up geographic grid spanning 360° of longitude is a whole globe: x wraps. */
            if (srs && OSRIsGeographic(srs) && g[2] == 0 && g[4] == 0) {
                double span = fabs(g[1] * W) * OSRGetAngularUnits(srs, NULL) * 180.0 / M_PI;
                info.wrap_x = fabs(span - 360.0) < 1e-6 * 360.0;
            }
        } else {
            info.spacing_x_m = info.spacing_y_m = desc->spacing_m;
        }
        info.wrap_x = info.wrap_x || desc->wrap_x; /* or the caller says so, for a raster without a CRS */
        s->grid = (st_dem_grid){.width = info.width, .height = info.height, .wrap_x = info.wrap_x, .scale = scale,
                                .offset = offset, .integral = integral, .name = s->path, .fetch = gdal_fetch,
                                .state = s};
        snprintf(info.description, sizeof info.description, "%s: %s %s, %dx%d%s%s%s", st_dem_base_name(path),
                 driver, GDALGetDataTypeName(type), W, H, s->has_nodata ? ", nodata" : "",
                 info.crs[0] ? ", " : "", info.crs);
        size_t n = strlen(info.description);
        snprintf(info.description + n, sizeof info.description - n, "%s", note);
    }
    quiet_end(&m);
    if (r) {
        gdal_destroy(s);
        return r;
    }
    static const st_dem_source_ops ops = {.read = gdal_read, .destroy = gdal_destroy, .void_counts = gdal_counts};
    return st_dem_source_create(&ops, s, &info, out, err);
}

#else /* built without GDAL */
#include "dem_internal.h"

st_result st_dem_open_gdal(const char *path, const st_dem_open_desc *desc, st_dem_source **out, st_error *err) {
    (void)desc;
    *out = NULL;
    return st_error_set(err, ST_ERR_UNSUPPORTED, "%s: this strata was built without GDAL (-DSTRATA_WITH_GDAL=OFF)", path);
}
#endif
