/* The DEM readers behind st_dem_open, on files the tests write: GeoTIFFs written with GDAL (projected and
 * geographic, nodata, scale/offset, a whole globe that wraps), SRTM .hgt mosaics (seams, gaps, mismatched and
 * truncated tiles), raw s16/u16/f32 in both byte orders, Terrarium and Terrain-RGB z/x/y folders, grey PNG;
 * the void fill against a slow reference, windows that overlap, reads outside the raster, reads from many
 * threads, and the inputs that must be refused (missing, named pipes, directories, garbage, truncation). */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cpl_conv.h>
#include <gdal.h>
#include <ogr_srs_api.h>

#include "strata/dem.h"
#include "strata/file.h"
#include "strata/image.h"
#include "support.h"

static char *temp_dir(const char *tag) { return strdup(test_temp_dir(tag)); }

static void write_file(const char *path, const void *data, size_t n) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
}

static st_dem_source *open_one(const char *path, const st_dem_open_desc *d) {
    st_dem_source *src = NULL;
    assert_st_ok(st_dem_open(&path, 1, d, &src, err));
    return src;
}

static float *read_window(st_dem_source *src, int64_t x0, int64_t y0, uint32_t w, uint32_t h) {
    float *out = malloc(sizeof(float) * w * h);
    assert_st_ok(st_dem_source_read(src, x0, y0, w, h, out, err));
    return out;
}

/* Latitude-dependent metres per degree on WGS 84, written out independently of the library's. */
static void wgs84_per_degree(double lat, double *ew, double *ns) {
    const double a = 6378137.0, f = 1 / 298.257223563, e2 = f * (2 - f), d = M_PI / 180;
    double s = sin(lat * d), w = sqrt(1 - e2 * s * s);
    *ew = a / w * cos(lat * d) * d;
    *ns = a * (1 - e2) / (w * w * w) * d;
}

/* ---- GeoTIFF ------------------------------------------------------------------------------------------------ */

typedef struct tif_desc {
    uint32_t w, h;
    GDALDataType type;
    int epsg;
    double g[6];
    bool has_nodata;
    double nodata, scale, offset; /* scale 0 = none */
} tif_desc;

/* Writes values (raw band units; NAN where nodata goes) as a one-band GeoTIFF. */
static void write_tif(const char *path, const tif_desc *t, const float *values) {
    GDALAllRegister();
    GDALDriverH drv = GDALGetDriverByName("GTiff");
    assert_non_null(drv);
    GDALDatasetH ds = GDALCreate(drv, path, (int)t->w, (int)t->h, 1, t->type, NULL);
    assert_non_null(ds);
    assert_int_equal(GDALSetGeoTransform(ds, (double *)t->g), CE_None);
    OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
    assert_int_equal(OSRImportFromEPSG(srs, t->epsg), OGRERR_NONE);
    char *wkt = NULL;
    OSRExportToWkt(srs, &wkt);
    assert_int_equal(GDALSetProjection(ds, wkt), CE_None);
    CPLFree(wkt);
    OSRDestroySpatialReference(srs);
    GDALRasterBandH band = GDALGetRasterBand(ds, 1);
    if (t->has_nodata) assert_int_equal(GDALSetRasterNoDataValue(band, t->nodata), CE_None);
    if (t->scale != 0) {
        assert_int_equal(GDALSetRasterScale(band, t->scale), CE_None);
        assert_int_equal(GDALSetRasterOffset(band, t->offset), CE_None);
    }
    float *v = malloc(sizeof(float) * t->w * t->h);
    for (size_t i = 0; i < (size_t)t->w * t->h; i++) v[i] = isnan(values[i]) && t->has_nodata ? (float)t->nodata : values[i];
    assert_int_equal(GDALRasterIO(band, GF_Write, 0, 0, (int)t->w, (int)t->h, v, (int)t->w, (int)t->h, GDT_Float32, 0, 0),
                     CE_None);
    free(v);
    GDALClose(ds);
}

/* Every sample of src against the raw grid: valid ones exactly (metres = offset + scale · raw), voids as the
 * reference fill says (within tol metres); returns how many voids took the sea level. */
static size_t check_against_reference(st_dem_source *src, const float *raw, uint32_t w, uint32_t h, double scale,
                                      double offset, bool integral, double tol) {
    float *all = read_window(src, 0, 0, w, h);
    size_t sea_count = 0;
    float sea_raw = (float)(integral ? floor(-offset / scale + 0.5) : -offset / scale);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            float got = all[(size_t)y * w + x], want;
            float r = raw[(size_t)y * w + x];
            if (!isnan(r)) {
                want = (float)(offset + scale * r);
                if (got != want) fail_msg("(%u, %u): %.9g, want %.9g", x, y, got, want);
                continue;
            }
            bool sea;
            float f = test_dem_reference_fill(raw, w, h, x, y, ST_DEM_VOID_RADIUS, integral, sea_raw, &sea);
            sea_count += sea;
            want = (float)(offset + scale * f);
            if (!(fabs(got - want) <= tol)) fail_msg("void (%u, %u): %.9g, want %.9g", x, y, got, want);
        }
    free(all);
    return sea_count;
}

/* 300×200 Int16 in UTM zone 10N at 30 m, scale 0.5 and offset 100 (metres = 100 + 0.5 · v), nodata −9999:
 * one lone void, a 5×5 hole, a corner, and a 140×140 hole whose middle is farther than the fill radius from
 * any valid sample. */
static float *projected_raw(uint32_t w, uint32_t h) {
    float *raw = malloc(sizeof(float) * w * h);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) raw[y * w + x] = (float)((x * 7 + y * 13) % 2000) - 500;
    raw[10 * w + 10] = NAN;
    raw[(h - 1) * w] = NAN;
    for (uint32_t y = 80; y < 85; y++)
        for (uint32_t x = 20; x < 25; x++) raw[y * w + x] = NAN;
    for (uint32_t y = 30; y < 170; y++)
        for (uint32_t x = 80; x < 220; x++) raw[y * w + x] = NAN;
    return raw;
}

static const tif_desc projected = {300, 200, GDT_Int16, 32610, {500000, 30, 0, 5200000, 0, -30}, true, -9999, 0.5, 100};

static void test_geotiff_projected(void **state) {
    (void)state;
    char *dir = temp_dir("tifp"), path[512];
    snprintf(path, sizeof path, "%s/dem.tif", dir);
    const uint32_t W = projected.w, H = projected.h;
    float *raw = projected_raw(W, H);
    write_tif(path, &projected, raw);
    st_dem_source *src = open_one(path, NULL);
    const st_dem_info *in = st_dem_source_info(src);
    assert_int_equal(in->width, W);
    assert_int_equal(in->height, H);
    assert_true(in->georeferenced);
    assert_non_null(strstr(in->crs, "UTM zone 10N"));
    assert_true(in->spacing_x_m == 30 && in->spacing_y_m == 30);
    assert_true(in->unit_m == 0.5);
    assert_true(in->has_voids);
    assert_false(in->wrap_x);
    assert_memory_equal(in->geotransform, projected.g, sizeof projected.g);
    assert_non_null(strstr(in->description, "GTiff"));
    size_t voids = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) voids += isnan(raw[i]);
    /* Integral: filled voids sit on the 0.5 m grid exactly as the reference rounds them. */
    size_t sea = check_against_reference(src, raw, W, H, 0.5, 100, true, 0);
    assert_true(sea > 0 && sea < voids);
    uint64_t filled, sea_level;
    st_dem_source_void_counts(src, &filled, &sea_level);
    assert_int_equal(filled, voids);
    assert_int_equal(sea_level, sea);
    /* The heightmap holds the 0.5 m units: 100 + 0.5 v as 200 + v. */
    st_heightmap *hm = NULL;
    assert_st_ok(st_dem_read_heightmap(src, &hm, err));
    assert_true(hm->vertical_scale == 0.5 && hm->metres_per_sample == 30);
    assert_int_equal(hm->samples[5 * W + 7], 200 + (int)raw[5 * W + 7]);
    assert_int_equal(hm->voids_filled, voids);
    st_heightmap_destroy(hm);
    st_dem_source_destroy(src);
    free(raw);
    free(dir);
}

/* Windows that overlap agree sample for sample, voids included, whatever their size and place; reads outside
 * the raster clamp to its edge; reads from every worker at once equal the serial ones. */
static void test_windows(void **state) {
    (void)state;
    char *dir = temp_dir("tifw"), path[512];
    snprintf(path, sizeof path, "%s/dem.tif", dir);
    const uint32_t W = projected.w, H = projected.h;
    float *raw = projected_raw(W, H);
    write_tif(path, &projected, raw);
    st_dem_source *src = open_one(path, NULL);
    float *all = read_window(src, 0, 0, W, H);
    const struct {
        int64_t x0, y0;
        uint32_t w, h;
    } win[] = {{60, 20, 200, 150}, {120, 50, 170, 140}, {0, 0, 257, 257}, {43, 77, 5, 3}, {149, 99, 1, 1},
               {70, 25, 150, 1}};
    for (size_t k = 0; k < sizeof win / sizeof win[0]; k++) {
        float *o = read_window(src, win[k].x0, win[k].y0, win[k].w, win[k].h);
        for (uint32_t j = 0; j < win[k].h; j++)
            for (uint32_t i = 0; i < win[k].w; i++) {
                int64_t x = win[k].x0 + i, y = win[k].y0 + j;
                x = x < 0 ? 0 : x >= W ? W - 1 : x;
                y = y < 0 ? 0 : y >= H ? H - 1 : y;
                float a = o[j * win[k].w + i], b = all[y * W + x];
                if (memcmp(&a, &b, sizeof a)) fail_msg("window %zu (%u, %u): %.9g vs %.9g", k, i, j, a, b);
            }
        free(o);
    }
    /* Outside the raster: clamped to the nearest edge sample. */
    float *o = read_window(src, -5, -7, 20, 20);
    for (uint32_t j = 0; j < 20; j++)
        for (uint32_t i = 0; i < 20; i++) {
            int64_t x = (int64_t)i - 5, y = (int64_t)j - 7;
            assert_true(o[j * 20 + i] == all[(y < 0 ? 0 : y) * W + (x < 0 ? 0 : x)]);
        }
    free(o);
    o = read_window(src, 1000, 900, 4, 4);
    for (int i = 0; i < 16; i++) assert_true(o[i] == all[(H - 1) * W + W - 1]);
    free(o);
    st_error e = {0};
    float one;
    assert_int_equal(st_dem_source_read(src, 0, 0, 0, 1, &one, &e), ST_ERR_INVALID);
    assert_int_equal(st_dem_source_read(src, -(1ll << 40), 0, 1, 1, &one, &e), ST_ERR_INVALID);
    free(all);
    st_dem_source_destroy(src);
    free(raw);
    free(dir);
}

typedef struct par_read {
    st_dem_source *src;
    float *out; /* 16 windows of 64² */
    int failures;
} par_read;

static void read_some(void *user, size_t begin, size_t end) {
    par_read *p = user;
    for (size_t k = begin; k < end; k++) {
        st_error e = {0};
        if (st_dem_source_read(p->src, (int64_t)(k % 4) * 70 + 3, (int64_t)(k / 4) * 45 + 1, 64, 64,
                               p->out + k * 64 * 64, &e))
            __atomic_add_fetch(&p->failures, 1, __ATOMIC_RELAXED);
    }
}

static void test_parallel_reads(void **state) {
    (void)state;
    char *dir = temp_dir("tifpar"), path[512];
    snprintf(path, sizeof path, "%s/dem.tif", dir);
    float *raw = projected_raw(projected.w, projected.h);
    write_tif(path, &projected, raw);
    st_dem_source *src = open_one(path, NULL);
    par_read p = {src, malloc(sizeof(float) * 16 * 64 * 64), 0};
    for (int rep = 0; rep < 3; rep++) {
        st_parallel_for(16, 1, read_some, &p);
        assert_int_equal(p.failures, 0);
        for (size_t k = 0; k < 16; k++) {
            float *o = read_window(src, (int64_t)(k % 4) * 70 + 3, (int64_t)(k / 4) * 45 + 1, 64, 64);
            assert_memory_equal(o, p.out + k * 64 * 64, sizeof(float) * 64 * 64);
            free(o);
        }
    }
    free(p.out);
    st_dem_source_destroy(src);
    free(raw);
    free(dir);
}

/* Float32 in WGS 84 degrees at 3″ from (9° E, 51° N): spacing in metres at the centre latitude 50.95°. */
static void test_geotiff_geographic(void **state) {
    (void)state;
    char *dir = temp_dir("tifg"), path[512];
    snprintf(path, sizeof path, "%s/dem.tif", dir);
    const uint32_t W = 240, H = 120;
    tif_desc t = {W, H, GDT_Float32, 4326, {9.0, 1.0 / 1200, 0, 51.0, 0, -1.0 / 1200}, true, -32768, 0, 0};
    float *raw = malloc(sizeof(float) * W * H);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) raw[y * W + x] = 100.25f + 0.5f * (float)x - 0.125f * (float)y;
    for (uint32_t y = 50; y < 58; y++)
        for (uint32_t x = 200; x < 211; x++) raw[y * W + x] = NAN;
    raw[3 * W + 239] = NAN;
    write_tif(path, &t, raw);
    st_dem_source *src = open_one(path, NULL);
    const st_dem_info *in = st_dem_source_info(src);
    assert_non_null(strstr(in->crs, "WGS 84"));
    assert_true(in->unit_m == 0);
    assert_true(in->has_voids);
    double ew, ns;
    wgs84_per_degree(51.0 - 60.0 / 1200, &ew, &ns);
    assert_true(fabs(in->spacing_x_m - ew / 1200) < 1e-6);
    assert_true(fabs(in->spacing_y_m - ns / 1200) < 1e-6);
    assert_true(fabs(in->spacing_x_m - 58.6) < 0.1 && fabs(in->spacing_y_m - 92.7) < 0.1);
    assert_int_equal(check_against_reference(src, raw, W, H, 1, 0, false, 1e-3), 0);
    st_heightmap *hm = NULL;
    assert_st_ok(st_dem_read_heightmap(src, &hm, err));
    assert_true(hm->vertical_scale == 0.001); /* millimetres */
    assert_int_equal(hm->samples[0], 100250);
    assert_true(fabs(hm->metres_per_sample_y - ns / 1200) < 1e-6);
    st_heightmap_destroy(hm);
    st_dem_source_destroy(src);
    free(raw);
    free(dir);
}

/* A 72×36 grid of 5° covering the globe wraps in x: column −1 is column 71, and a void on the seam is filled
 * from both sides, the same whichever side the window starts on. */
static void test_geotiff_globe_wraps(void **state) {
    (void)state;
    char *dir = temp_dir("tifglobe"), path[512];
    snprintf(path, sizeof path, "%s/globe.tif", dir);
    const uint32_t W = 72, H = 36;
    tif_desc t = {W, H, GDT_Int16, 4326, {-180, 5, 0, 90, 0, -5}, true, -32768, 0, 0};
    float raw[72 * 36];
    for (uint32_t i = 0; i < W * H; i++) raw[i] = (float)((i * 37) % 500);
    raw[10 * W + 0] = NAN;
    write_tif(path, &t, raw);
    st_dem_source *src = open_one(path, NULL);
    assert_true(st_dem_source_info(src)->wrap_x);
    float *a = read_window(src, -3, 0, 8, H), *b = read_window(src, 69, 0, 8, H);
    assert_memory_equal(a, b, sizeof(float) * 8 * H);
    assert_true(a[5 * 8 + 0] == raw[5 * W + 69]);
    /* The seam void's neighbourhood runs on across the seam: the reference on the grid unrolled by the radius
     * on both sides (its periodic copies included, as the reader sees them) gives the same fill. */
    const uint32_t R = ST_DEM_VOID_RADIUS, EW = W + 2 * R;
    float *ext = malloc(sizeof(float) * EW * H);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t i = 0; i < EW; i++) ext[y * EW + i] = raw[y * W + (i + 2 * W - R) % W];
    bool sea;
    float want = test_dem_reference_fill(ext, EW, H, R, 10, (int)R, true, 0, &sea);
    assert_false(sea);
    assert_true(a[10 * 8 + 3] == want);
    /* A clamped reading would have seen only one side: the two differ here. */
    float *clamped = malloc(sizeof(float) * W * H);
    memcpy(clamped, raw, sizeof(float) * W * H);
    assert_true(test_dem_reference_fill(clamped, W, H, 0, 10, (int)R, true, 0, &sea) != want);
    free(clamped);
    free(ext);
    free(a);
    free(b);
    st_dem_source_destroy(src);
    free(dir);
}

/* ---- SRTM .hgt ---------------------------------------------------------------------------------------------- */

static int mosaic_value(uint32_t X, uint32_t Y) { return (int)((X * 3 + Y * 5) % 3000) - 100; }

/* Tile (lat, lon) of a mosaic whose north-west tile is (lat_nw, lon_nw): samples of mosaic_value, with the
 * voids given. */
static void write_hgt(const char *path, int lat_nw, int lon_nw, int lat, int lon, uint32_t side, const uint32_t *voids,
                      size_t nvoids) {
    uint8_t *d = malloc(2ull * side * side);
    uint32_t X0 = (uint32_t)(lon - lon_nw) * (side - 1), Y0 = (uint32_t)(lat_nw - lat) * (side - 1);
    for (uint32_t y = 0; y < side; y++)
        for (uint32_t x = 0; x < side; x++) {
            int v = mosaic_value(X0 + x, Y0 + y);
            for (size_t k = 0; k < nvoids; k++)
                if (voids[2 * k] == x && voids[2 * k + 1] == y) v = -32768;
            d[2 * (y * side + x)] = (uint8_t)((uint16_t)v >> 8);
            d[2 * (y * side + x) + 1] = (uint8_t)v;
        }
    write_file(path, d, 2ull * side * side);
    free(d);
}

static void test_hgt_mosaic(void **state) {
    (void)state;
    char *dir = temp_dir("hgt"), a[512], b[512];
    snprintf(a, sizeof a, "%s/N50E009.hgt", dir);
    snprintf(b, sizeof b, "%s/n50e010.hgt", dir);
    /* Voids on both sides of the seam (tile columns 1199 of A and 1, 2 of B), none on the shared column. */
    const uint32_t va[] = {1199, 600, 1198, 600}, vb[] = {1, 600, 2, 601};
    write_hgt(a, 50, 9, 50, 9, 1201, va, 2);
    write_hgt(b, 50, 9, 50, 10, 1201, vb, 2);
    const char *both[2] = {b, a}; /* any order */
    st_dem_source *m = NULL;
    assert_st_ok(st_dem_open(both, 2, NULL, &m, err));
    const st_dem_info *in = st_dem_source_info(m);
    assert_int_equal(in->width, 2401);
    assert_int_equal(in->height, 1201);
    assert_true(in->unit_m == 1 && in->has_voids && in->georeferenced);
    assert_non_null(strstr(in->description, "mosaic"));
    double ew, ns;
    wgs84_per_degree(50.5, &ew, &ns);
    assert_true(fabs(in->spacing_x_m - ew / 1200) < 1e-6 && fabs(in->spacing_y_m - ns / 1200) < 1e-6);
    assert_true(fabs(in->geotransform[0] - (9 - 0.5 / 1200)) < 1e-12 && fabs(in->geotransform[3] - (51 + 0.5 / 1200)) < 1e-12);
    /* Rows 590..611 across the whole mosaic against the reference on the joined grid. */
    const uint32_t W = 2401, y0 = 590, rows = 22;
    float *raw = malloc(sizeof(float) * W * 1201);
    for (uint32_t y = 0; y < 1201; y++)
        for (uint32_t x = 0; x < W; x++) raw[y * W + x] = (float)mosaic_value(x, y);
    raw[600 * W + 1199] = raw[600 * W + 1198] = raw[600 * W + 1201] = raw[601 * W + 1202] = NAN;
    float *o = read_window(m, 0, y0, W, rows);
    for (uint32_t y = y0; y < y0 + rows; y++)
        for (uint32_t x = 0; x < W; x++) {
            float r = raw[y * W + x], got = o[(y - y0) * W + x];
            bool sea;
            float want = isnan(r) ? test_dem_reference_fill(raw, W, 1201, x, y, ST_DEM_VOID_RADIUS, true, 0, &sea) : r;
            if (got != want) fail_msg("mosaic (%u, %u): %g, want %g", x, y, got, want);
        }
    /* The shared edge: mosaic column 1200 is A's last column and B's first. */
    st_dem_source *sa = open_one(a, NULL), *sb = open_one(b, NULL);
    float *ca = read_window(sa, 1200, 0, 1, 1201), *cb = read_window(sb, 0, 0, 1, 1201), *cm = read_window(m, 1200, 0, 1, 1201);
    assert_memory_equal(ca, cm, sizeof(float) * 1201);
    assert_memory_equal(cb, cm, sizeof(float) * 1201);
    /* A tile alone knows its latitude too. */
    assert_true(fabs(st_dem_source_info(sa)->spacing_x_m - ew / 1200) < 1e-6);
    free(ca);
    free(cb);
    free(cm);
    free(o);
    free(raw);
    st_dem_source_destroy(sa);
    st_dem_source_destroy(sb);
    st_dem_source_destroy(m);

    /* A gap: N50E009 + N51E010 lack N51E009 and N50E010; the first one (from the north-west) is named. */
    char c[512], d[512], t[512];
    snprintf(c, sizeof c, "%s/N51E010.hgt", dir);
    write_hgt(c, 51, 9, 51, 10, 1201, NULL, 0);
    const char *gap[2] = {a, c};
    st_error e = {0};
    assert_int_equal(st_dem_open(gap, 2, NULL, &m, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "gap"));
    assert_non_null(strstr(e.message, "N51E009.hgt is missing"));
    /* Mismatched sizes: a 1″ tile beside a 3″ one. */
    snprintf(d, sizeof d, "%s/N50E011.hgt", dir);
    write_hgt(d, 50, 11, 50, 11, 3601, NULL, 0);
    const char *mixed[2] = {b, d};
    assert_int_equal(st_dem_open(mixed, 2, NULL, &m, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "must match"));
    /* The same tile twice. */
    const char *twice[2] = {a, a};
    assert_int_equal(st_dem_open(twice, 2, NULL, &m, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "twice"));
    /* A truncated tile, alone or in a mosaic. */
    snprintf(t, sizeof t, "%s/N49E009.hgt", dir);
    uint8_t *z = calloc(1, 2 * 1201 * 1201);
    write_file(t, z, 2 * 1201 * 1201 - 2);
    free(z);
    const char *trunc[2] = {a, t};
    assert_int_equal(st_dem_open(trunc, 2, NULL, &m, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "truncated"));
    assert_int_equal(st_dem_open(trunc + 1, 1, NULL, &m, &e), ST_ERR_FORMAT);
    /* Several files join only as named .hgt tiles. */
    char png[512];
    snprintf(png, sizeof png, "%s/x.png", dir);
    const char *other[2] = {a, png};
    assert_int_equal(st_dem_open(other, 2, NULL, &m, &e), ST_ERR_INVALID);
    free(dir);
}

/* ---- raw grids ---------------------------------------------------------------------------------------------- */

static void test_raw_grids(void **state) {
    (void)state;
    char *dir = temp_dir("raw"), path[512], r16[512];
    /* u16 ramp 0..65535, as a raw grid of a given size and as a square .r16 without one. */
    uint8_t *d = malloc(2 * 65536);
    for (uint32_t i = 0; i < 65536; i++) {
        d[2 * i] = (uint8_t)i;
        d[2 * i + 1] = (uint8_t)(i >> 8);
    }
    snprintf(path, sizeof path, "%s/ramp.raw", dir);
    snprintf(r16, sizeof r16, "%s/ramp.r16", dir);
    write_file(path, d, 2 * 65536);
    write_file(r16, d, 2 * 65536);
    st_dem_open_desc u16 = {.raw_width = 256, .raw_height = 256, .raw_type = ST_DEM_RAW_U16};
    st_dem_source *s1 = open_one(path, &u16), *s2 = open_one(r16, NULL);
    assert_int_equal(st_dem_source_info(s2)->width, 256);
    float *o1 = read_window(s1, 0, 0, 256, 256), *o2 = read_window(s2, 0, 0, 256, 256);
    for (uint32_t i = 0; i < 65536; i++) assert_true(o1[i] == (float)i && o2[i] == (float)i);
    assert_true(st_dem_source_info(s1)->unit_m == 1 && st_dem_source_info(s1)->max_m == 65535);
    free(o1);
    free(o2);
    st_dem_source_destroy(s1);
    st_dem_source_destroy(s2);
    /* s16 in both byte orders, with units. */
    uint8_t le[8], be[8];
    const int16_t sv[4] = {-32768, -1, 0, 12345};
    for (int i = 0; i < 4; i++) {
        le[2 * i] = (uint8_t)sv[i];
        le[2 * i + 1] = (uint8_t)((uint16_t)sv[i] >> 8);
        be[2 * i] = le[2 * i + 1];
        be[2 * i + 1] = le[2 * i];
    }
    char pl[512], pb[512];
    snprintf(pl, sizeof pl, "%s/s16le.raw", dir);
    snprintf(pb, sizeof pb, "%s/s16be.raw", dir);
    write_file(pl, le, 8);
    write_file(pb, be, 8);
    st_dem_open_desc dl = {.raw_width = 2, .raw_height = 2, .units_m = 0.1};
    st_dem_open_desc db = dl;
    db.endian = ST_ENDIAN_BIG;
    s1 = open_one(pl, &dl);
    s2 = open_one(pb, &db);
    o1 = read_window(s1, 0, 0, 2, 2);
    o2 = read_window(s2, 0, 0, 2, 2);
    assert_memory_equal(o1, o2, sizeof(float) * 4);
    for (int i = 0; i < 4; i++) assert_true(o1[i] == (float)(0.1 * sv[i]));
    free(o1);
    free(o2);
    st_dem_source_destroy(s1);
    st_dem_source_destroy(s2);
    /* f32 in both byte orders; NaN and absurd samples are voids, filled by the rule. */
    const uint32_t W = 40, H = 30;
    float *fv = malloc(sizeof(float) * W * H);
    uint8_t *fle = malloc(4 * W * H), *fbe = malloc(4 * W * H);
    for (uint32_t i = 0; i < W * H; i++) fv[i] = -12.5f + 0.37f * (float)(i % W) + 1.5f * (float)(i / W);
    fv[5 * W + 5] = NAN;
    fv[20 * W + 30] = INFINITY;
    fv[20 * W + 31] = -1e30f;
    for (uint32_t i = 0; i < W * H; i++) {
        uint32_t u;
        memcpy(&u, &fv[i], 4);
        for (int k = 0; k < 4; k++) {
            fle[4 * i + k] = (uint8_t)(u >> (8 * k));
            fbe[4 * i + k] = (uint8_t)(u >> (8 * (3 - k)));
        }
    }
    snprintf(pl, sizeof pl, "%s/f32le.raw", dir);
    snprintf(pb, sizeof pb, "%s/f32be.raw", dir);
    write_file(pl, fle, 4 * W * H);
    write_file(pb, fbe, 4 * W * H);
    st_dem_open_desc fl = {.raw_width = W, .raw_height = H, .raw_type = ST_DEM_RAW_F32};
    st_dem_open_desc fb = fl;
    fb.endian = ST_ENDIAN_BIG;
    s1 = open_one(pl, &fl);
    s2 = open_one(pb, &fb);
    assert_true(st_dem_source_info(s1)->unit_m == 0);
    float *ref = malloc(sizeof(float) * W * H);
    for (uint32_t i = 0; i < W * H; i++) ref[i] = isfinite(fv[i]) && fabsf(fv[i]) < 1e5f ? fv[i] : NAN;
    assert_int_equal(check_against_reference(s1, ref, W, H, 1, 0, false, 1e-4), 0);
    o1 = read_window(s1, 0, 0, W, H);
    o2 = read_window(s2, 0, 0, W, H);
    assert_memory_equal(o1, o2, sizeof(float) * W * H);
    free(o1);
    free(o2);
    free(ref);
    st_dem_source_destroy(s1);
    st_dem_source_destroy(s2);
    /* Truncated, too long, not square, an impossible size. */
    st_error e = {0};
    st_dem_source *x = NULL;
    write_file(pl, fle, 4 * W * H - 1);
    const char *p1 = pl;
    assert_int_equal(st_dem_open(&p1, 1, &fl, &x, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "truncated"));
    write_file(pl, fle, 4 * W * H);
    fl.raw_height = H - 1;
    assert_int_equal(st_dem_open(&p1, 1, &fl, &x, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "too long"));
    write_file(r16, d, 2 * 65536 - 2);
    const char *p2 = r16;
    assert_int_equal(st_dem_open(&p2, 1, NULL, &x, &e), ST_ERR_FORMAT);
    assert_non_null(strstr(e.message, "square"));
    fl = (st_dem_open_desc){.raw_width = 1u << 30, .raw_height = 1};
    assert_int_equal(st_dem_open(&p1, 1, &fl, &x, &e), ST_ERR_INVALID);
    fl = (st_dem_open_desc){.raw_width = 4, .raw_height = 4, .units_m = NAN};
    assert_int_equal(st_dem_open(&p1, 1, &fl, &x, &e), ST_ERR_INVALID);
    free(fv);
    free(fle);
    free(fbe);
    free(d);
    free(dir);
}

/* ---- z/x/y tile folders ---------------------------------------------------------------------------------------- */

#define TS 32 /* tile side of the test folders */

static double terrarium_m(uint32_t X, uint32_t Y) { return -50.5 + 1.25 * X + Y / 256.0; }
static double mapbox_m(uint32_t X, uint32_t Y) { return -20.3 + 0.7 * X + 0.1 * Y; }

/* Writes tiles x0..x0+nx−1, y0..y0+ny−1 of zoom z, each pixel encoding its metres at global pixel (X, Y). */
static void write_xyz(const char *dir, uint32_t z, uint32_t x0, uint32_t y0, uint32_t nx, uint32_t ny, bool mapbox) {
    char p[600];
    uint8_t rgb[TS * TS * 3];
    for (uint32_t tx = x0; tx < x0 + nx; tx++) {
        snprintf(p, sizeof p, "%s/%u/%u", dir, z, tx);
        assert_st_ok(st_make_dirs(p, err));
        for (uint32_t ty = y0; ty < y0 + ny; ty++) {
            for (uint32_t j = 0; j < TS; j++)
                for (uint32_t i = 0; i < TS; i++) {
                    uint32_t X = (tx - x0) * TS + i, Y = (ty - y0) * TS + j, code;
                    if (mapbox) code = (uint32_t)llround((mapbox_m(X, Y) + 10000) * 10);
                    else code = (uint32_t)llround((terrarium_m(X, Y) + 32768) * 256);
                    uint8_t *o = rgb + 3 * (j * TS + i);
                    o[0] = (uint8_t)(code >> 16);
                    o[1] = (uint8_t)(code >> 8);
                    o[2] = (uint8_t)code;
                }
            snprintf(p, sizeof p, "%s/%u/%u/%u.png", dir, z, tx, ty);
            assert_st_ok(st_png_write(p, TS, TS, 3, 8, rgb, err));
        }
    }
}

static void test_xyz_folders(void **state) {
    (void)state;
    for (int mb = 0; mb < 2; mb++) {
        char *dir = temp_dir(mb ? "mapbox" : "terrarium");
        write_xyz(dir, 3, 2, 2, 3, 2, mb); /* zoom 3: x 2..4, y 2..3 */
        write_xyz(dir, 2, 1, 1, 1, 1, mb); /* a shallower zoom, not read by default */
        st_dem_open_desc d = {.rgb = mb ? ST_DEM_RGB_MAPBOX : ST_DEM_RGB_TERRARIUM};
        st_dem_source *s = open_one(dir, &d);
        const st_dem_info *in = st_dem_source_info(s);
        assert_int_equal(in->width, 3 * TS);
        assert_int_equal(in->height, 2 * TS);
        assert_true(in->unit_m == (mb ? 0.1 : 1.0 / 256));
        assert_non_null(strstr(in->crs, "Pseudo-Mercator"));
        /* Web mercator at the centre row (tile y = 3 of 8): φ = atan(sinh(π (1 − 6/8))) ≈ 40.98°. */
        double lat = atan(sinh(M_PI * (1 - 2 * 3.0 / 8))), px = 2 * M_PI * 6378137.0 / (8 * TS);
        assert_true(fabs(in->spacing_x_m - px * cos(lat)) < 1e-6 && in->spacing_y_m == in->spacing_x_m);
        assert_true(fabs(lat * 180 / M_PI - 40.98) < 0.01);
        float *o = read_window(s, 0, 0, 3 * TS, 2 * TS);
        for (uint32_t Y = 0; Y < 2 * TS; Y++)
            for (uint32_t X = 0; X < 3 * TS; X++) {
                double want = mb ? -10000 + 0.1 * llround((mapbox_m(X, Y) + 10000) * 10) : terrarium_m(X, Y);
                double got = o[Y * 3 * TS + X];
                if (mb ? fabs(got - (float)want) > 1e-6 : got != want) fail_msg("(%u, %u): %.9g, want %.9g", X, Y, got, want);
            }
        free(o);
        /* Many more reads than the cache holds tiles still come out right. */
        for (int k = 0; k < 40; k++) {
            uint32_t X = (uint32_t)(k * 37) % (3 * TS), Y = (uint32_t)(k * 11) % (2 * TS);
            float *one = read_window(s, X, Y, 1, 1);
            double want = mb ? mapbox_m(X, Y) : terrarium_m(X, Y);
            assert_true(fabs(*one - want) < 0.06);
            free(one);
        }
        st_dem_source_destroy(s);
        /* --zoom picks another level. */
        d.zoom = 2;
        s = open_one(dir, &d);
        assert_int_equal(st_dem_source_info(s)->width, TS);
        st_dem_source_destroy(s);
        /* A missing tile breaks the rectangle: it is named. */
        char p[600];
        snprintf(p, sizeof p, "%s/3/3/3.png", dir);
        assert_int_equal(unlink(p), 0);
        d.zoom = 0;
        st_error e = {0};
        const char *dp = dir;
        assert_int_equal(st_dem_open(&dp, 1, &d, &s, &e), ST_ERR_FORMAT);
        assert_non_null(strstr(e.message, "3/3/3.png is missing"));
        /* A truncated tile: refused when it is read, with its name. */
        snprintf(p, sizeof p, "%s/3/4/3.png", dir);
        struct stat sb;
        assert_int_equal(stat(p, &sb), 0);
        assert_int_equal(truncate(p, sb.st_size / 2), 0);
        snprintf(p, sizeof p, "%s/3/3/3.png", dir);
        assert_st_ok(st_png_write(p, TS, TS, 3, 8, (uint8_t[TS * TS * 3]){0}, err));
        s = open_one(dir, &d);
        float tile[TS * TS];
        assert_int_equal(st_dem_source_read(s, 2 * TS, TS, TS, TS, tile, &e), ST_ERR_FORMAT);
        assert_non_null(strstr(e.message, "4/3.png: corrupt or truncated PNG"));
        st_dem_source_destroy(s);
        /* A grey tile is no RGB encoding: refused when it is read. */
        uint8_t grey[TS * TS] = {0};
        assert_st_ok(st_png_write(p, TS, TS, 1, 8, grey, err));
        s = open_one(dir, &d);
        float buf[TS * TS];
        assert_int_equal(st_dem_source_read(s, TS, TS, TS, TS, buf, &e), ST_ERR_FORMAT);
        assert_non_null(strstr(e.message, "colour"));
        st_dem_source_destroy(s);
        free(dir);
    }
}

/* ---- PNG --------------------------------------------------------------------------------------------------------- */

static void test_png_source(void **state) {
    (void)state;
    char *dir = temp_dir("dempng"), path[512];
    snprintf(path, sizeof path, "%s/h.png", dir);
    uint16_t px[6] = {0, 100, 43798, 7, 65535, 1};
    assert_st_ok(st_png_write(path, 3, 2, 1, 16, px, err));
    st_dem_open_desc d = {.units_m = 0.1, .spacing_m = 160};
    st_dem_source *s = open_one(path, &d);
    const st_dem_info *in = st_dem_source_info(s);
    assert_true(in->unit_m == 0.1 && in->spacing_x_m == 160 && in->max_m == 65535 * 0.1);
    assert_non_null(strstr(in->description, "16-bit grey PNG"));
    float *o = read_window(s, 0, 0, 3, 2);
    for (int i = 0; i < 6; i++) assert_true(o[i] == (float)(0.1 * px[i]));
    free(o);
    st_dem_source_destroy(s);
    free(dir);
}

/* ---- bad input ---------------------------------------------------------------------------------------------------- */

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "test_dem_sources: a read hung\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(3);
}

static void test_refused(void **state) {
    (void)state;
    char *dir = temp_dir("refused"), path[512];
    st_dem_source *s = NULL;
    st_error e = {0};
    const char *p = path;
    /* Missing: the system's words. */
    snprintf(path, sizeof path, "%s/missing.tif", dir);
    assert_int_equal(st_dem_open(&p, 1, NULL, &s, &e), ST_ERR_IO);
    assert_non_null(strstr(e.message, "No such file or directory"));
    snprintf(path, sizeof path, "%s/N50E009.hgt", dir);
    const char *two[2] = {path, path};
    assert_int_equal(st_dem_open(two, 2, NULL, &s, &e), ST_ERR_IO);
    assert_non_null(strstr(e.message, "No such file or directory"));
    /* A named pipe with no writer: refused at once, whatever its name says (alarm: a hang fails the test). */
    signal(SIGALRM, on_alarm);
    alarm(20);
    const char *names[] = {"pipe.tif", "pipe.png", "pipe.hgt", "pipe.r16"};
    for (size_t k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        assert_int_equal(mkfifo(path, 0600), 0);
        assert_int_equal(st_dem_open(&p, 1, NULL, &s, &e), ST_ERR_IO);
        assert_non_null(strstr(e.message, "named pipe"));
    }
    st_dem_open_desc raw = {.raw_width = 4, .raw_height = 4};
    assert_int_equal(st_dem_open(&p, 1, &raw, &s, &e), ST_ERR_IO);
    alarm(0);
    /* A directory that is no tile folder. */
    p = dir;
    assert_int_equal(st_dem_open(&p, 1, NULL, &s, &e), ST_ERR_INVALID);
    assert_non_null(strstr(e.message, "directory"));
    p = path;
    /* Garbage no reader takes: the message says what was tried; GDAL prints nothing. */
    snprintf(path, sizeof path, "%s/dem.tif", dir);
    write_file(path, "this is not a raster\n", 21);
    char log[600];
    snprintf(log, sizeof log, "%s/stderr.txt", dir);
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    st_result r1 = st_dem_open(&p, 1, NULL, &s, &e);
    st_error e1 = e;
    /* A GeoTIFF cut in half: GDAL either refuses it or fails a read, with its message, never a crash. */
    char half[512];
    snprintf(half, sizeof half, "%s/half.tif", dir);
    float *raw_vals = projected_raw(projected.w, projected.h);
    write_tif(half, &projected, raw_vals);
    free(raw_vals);
    struct stat sb;
    assert_int_equal(stat(half, &sb), 0);
    assert_int_equal(truncate(half, sb.st_size / 2), 0);
    const char *hp = half;
    st_error e2 = {0};
    st_result r2 = st_dem_open(&hp, 1, NULL, &s, &e2);
    if (r2 == ST_OK) {
        float *buf = malloc(sizeof(float) * projected.w * projected.h);
        r2 = st_dem_source_read(s, 0, 0, projected.w, projected.h, buf, &e2);
        free(buf);
        st_dem_source_destroy(s);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    assert_int_equal(r1, ST_ERR_FORMAT);
    assert_non_null(strstr(e1.message, "no reader takes it"));
    assert_non_null(strstr(e1.message, "GDAL"));
    assert_true(r2 == ST_ERR_FORMAT || r2 == ST_ERR_IO);
    assert_non_null(strstr(e2.message, "half.tif"));
    assert_int_equal(stat(log, &sb), 0);
    assert_int_equal(sb.st_size, 0);
    /* An empty file. */
    write_file(path, "", 0);
    assert_int_equal(st_dem_open(&p, 1, NULL, &s, &e), ST_ERR_FORMAT);
    /* Bad descriptors and calls. */
    st_dem_open_desc bad = {.spacing_m = -1};
    assert_int_equal(st_dem_open(&p, 1, &bad, &s, &e), ST_ERR_INVALID);
    bad = (st_dem_open_desc){.raw_width = 4};
    assert_int_equal(st_dem_open(&p, 1, &bad, &s, &e), ST_ERR_INVALID);
    assert_int_equal(st_dem_open(NULL, 0, NULL, &s, &e), ST_ERR_INVALID);
    bad = (st_dem_open_desc){.rgb = ST_DEM_RGB_TERRARIUM};
    assert_int_equal(st_dem_open(&p, 1, &bad, &s, &e), ST_ERR_INVALID); /* a file, not a folder */
    free(dir);
}

/* ---- the command line: strata convert on a GeoTIFF ------------------------------------------------------------------ */

/* Runs `strata ARGS` with its output in text; fails the test unless it exits 0. */
static void run_cli(const char *dir, const char *args, char *text, size_t cap) {
    const char *cli = getenv("STRATA_CLI");
    assert_non_null(cli);
    char cmdline[2048], log[600];
    snprintf(log, sizeof log, "%s/log.txt", dir);
    snprintf(cmdline, sizeof cmdline, "'%s' %s > '%s' 2>&1", cli, args, log);
    int status = system(cmdline);
    size_t n = 0;
    FILE *fp = fopen(log, "rb");
    if (fp) {
        n = fread(text, 1, cap - 1, fp);
        fclose(fp);
    }
    text[n] = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("strata %s failed:\n%s", args, text);
}

static void test_convert_geotiff(void **state) {
    (void)state;
    char *dir = temp_dir("convtif"), path[512], args[1200], text[8192];
    snprintf(path, sizeof path, "%s/dem.tif", dir);
    float *raw = projected_raw(projected.w, projected.h);
    write_tif(path, &projected, raw);
    free(raw);
    snprintf(args, sizeof args, "convert '%s' '%s/out'", path, dir);
    run_cli(dir, args, text, sizeof text);
    assert_non_null(strstr(text, "UTM zone 10N"));
    assert_non_null(strstr(text, "vertical scale: true (1 height step = 1 texel = 30 m)"));
    assert_non_null(strstr(text, "void samples filled"));
    snprintf(path, sizeof path, "%s/out/world.ini", dir);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    /* A u16 ramp through --type u16 reads 0..65535, not its signed halves. */
    uint8_t *d = malloc(2 * 65536);
    for (uint32_t i = 0; i < 65536; i++) {
        d[2 * i] = (uint8_t)i;
        d[2 * i + 1] = (uint8_t)(i >> 8);
    }
    snprintf(path, sizeof path, "%s/ramp.raw", dir);
    write_file(path, d, 2 * 65536);
    free(d);
    snprintf(args, sizeof args, "convert '%s' '%s/ramp' --raw 256x256 --type u16 --spacing 300", path, dir);
    run_cli(dir, args, text, sizeof text);
    assert_non_null(strstr(text, "0..65535 m"));
    /* --exaggerate scales the steps and says so; 65535 m × 2 over 300 m texels needs 437 steps, so auto
     * resamples to 600 m texels. */
    snprintf(args, sizeof args, "convert '%s' '%s/ramp2' --raw 256x256 --type u16 --spacing 300 --exaggerate 2",
             path, dir);
    run_cli(dir, args, text, sizeof text);
    assert_non_null(strstr(text, "resampled (bilinear) 256x256 -> 128x128"));
    assert_non_null(strstr(text, "exaggerated 2x (1 height step = 300 m, 1 texel = 600 m)"));
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geotiff_projected),   cmocka_unit_test(test_windows),
        cmocka_unit_test(test_parallel_reads),      cmocka_unit_test(test_geotiff_geographic),
        cmocka_unit_test(test_geotiff_globe_wraps), cmocka_unit_test(test_hgt_mosaic),
        cmocka_unit_test(test_raw_grids),           cmocka_unit_test(test_xyz_folders),
        cmocka_unit_test(test_png_source),          cmocka_unit_test(test_refused),
        cmocka_unit_test(test_convert_geotiff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
