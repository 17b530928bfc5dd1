/* The TIN of a single-layer DEM fitted in parallel tiles: the DEM is cut into tiles that share their sides,
 * each tile is one st_tin fit on the job system (two tiles sharing a side simplify it from the same samples by
 * the same rule, so they keep the same side vertices), and the tiles are stitched into one triangulation by
 * their shared side vertices. Also the exact check of a result: the bound at every sample and a conforming
 * tiling of the DEM's rectangle (no crack, no T-junction). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "strata/mesh.h"

/* Small tiles fit faster than one large grid (a fit's early triangles are large, and each insertion rescans the
 * ones it touches) and, their sides simplified alone, cost no vertices: on Puget Sound at 4 m, 64² tiles give
 * fewer vertices than one fit of the whole grid. */
#define DEM_TIN_DEFAULT_TILE 64u


/* One tile's fit, copied out of the thread's workspace. */
typedef struct tile_fit {
    uint32_t x0, y0;          /* the tile's first sample in the DEM */
    st_tin_vertex *vertices;  /* tile coordinates */
    uint32_t *triangles;      /* three tile vertex indices each, counter-clockwise */
    uint32_t vertex_count, triangle_count;
    double max_error;
    st_result result;
    st_error error;
} tile_fit;

typedef struct fit_job {
    const st_dem_tin_desc *d;
    uint32_t tile_x, tile_y, tiles_x, tiles_y;
    tile_fit *fits;
} fit_job;

/* The tile's samples [x0, x1] × [y0, y1] (a side shared with the next tile belongs to both). */
static void tile_bounds(const fit_job *job, uint32_t t, uint32_t *x0, uint32_t *y0, uint32_t *x1, uint32_t *y1) {
    uint32_t tx = t % job->tiles_x, ty = t / job->tiles_x, TX = job->tile_x, TY = job->tile_y;
    *x0 = tx * TX, *y0 = ty * TY;
    *x1 = tx + 1 == job->tiles_x ? job->d->width - 1 : (tx + 1) * TX;
    *y1 = ty + 1 == job->tiles_y ? job->d->height - 1 : (ty + 1) * TY;
}

static st_result fit_tile(const fit_job *job, uint32_t t, st_tin *tin, uint16_t *scratch, tile_fit *out) {
    const st_dem_tin_desc *d = job->d;
    uint32_t x0, y0, x1, y1;
    tile_bounds(job, t, &x0, &y0, &x1, &y1);
    uint32_t w = x1 - x0 + 1, h = y1 - y0 + 1;
    size_t W = d->width;
    /* the tile's samples, then the rows just outside its four sides where the DEM goes on (st_tin_desc's
     * order: 0 below along +x, 1 right along +y, 2 above along +x, 3 left along +y) */
    uint16_t *low = scratch, *side[4];
    for (uint32_t j = 0; j < h; j++) memcpy(low + (size_t)j * w, d->samples + (y0 + j) * W + x0, w * sizeof *low);
    side[0] = low + (size_t)w * h;
    side[1] = side[0] + w;
    side[2] = side[1] + h;
    side[3] = side[2] + w;
    /* the rows beside the sides count only where the sides are bounded against them */
    bool beside = d->sides_beside;
    st_tin_desc td = {.width = w, .height = h, .low = low, .tolerance = d->tolerance, .border_tolerance = d->tolerance,
                      .sides_alone = !beside};
    if (beside && y0 > 0) {
        memcpy(side[0], d->samples + (y0 - 1) * W + x0, w * sizeof *low);
        td.outside[0].low = side[0];
    }
    if (beside && x1 + 1 < d->width) {
        for (uint32_t j = 0; j < h; j++) side[1][j] = d->samples[(y0 + j) * W + x1 + 1];
        td.outside[1].low = side[1];
    }
    if (beside && y1 + 1 < d->height) {
        memcpy(side[2], d->samples + (y1 + 1) * W + x0, w * sizeof *low);
        td.outside[2].low = side[2];
    }
    if (beside && x0 > 0) {
        for (uint32_t j = 0; j < h; j++) side[3][j] = d->samples[(y0 + j) * W + x0 - 1];
        td.outside[3].low = side[3];
    }
    st_result r = st_tin_fit(tin, &td, &out->error);
    if (r) return st_error_prefix(&out->error, "DEM TIN: tile (%u, %u)", x0, y0);
    out->x0 = x0, out->y0 = y0;
    out->vertex_count = tin->vertex_count;
    out->triangle_count = tin->triangle_count;
    out->max_error = tin->stats.max_error;
    out->vertices = malloc((size_t)tin->vertex_count * sizeof *out->vertices);
    out->triangles = malloc((size_t)tin->triangle_count * 3 * sizeof *out->triangles);
    if (!out->vertices || !out->triangles) return st_error_set(&out->error, ST_ERR_NOMEM, "DEM TIN: out of memory");
    memcpy(out->vertices, tin->vertices, (size_t)tin->vertex_count * sizeof *out->vertices);
    for (uint32_t i = 0; i < tin->triangle_count; i++)
        for (int k = 0; k < 3; k++) out->triangles[3 * (size_t)i + k] = tin->triangles[i].v[k];
    return ST_OK;
}

static void fit_range(void *user, size_t begin, size_t end) {
    fit_job *job = user;
    st_tin *tin = NULL;
    size_t most = (size_t)(job->tile_x + 1) * (job->tile_y + 1) + 2u * (job->tile_x + job->tile_y + 2);
    uint16_t *scratch = malloc(most * sizeof *scratch);
    st_error e = {0};
    st_result failed = scratch ? st_tin_create(&tin, &e) : ST_ERR_NOMEM;
    for (size_t t = begin; t < end; t++) {
        tile_fit *f = &job->fits[t];
        if (failed) f->result = st_error_set(&f->error, ST_ERR_NOMEM, "DEM TIN: out of memory");
        else f->result = fit_tile(job, (uint32_t)t, tin, scratch, f);
    }
    st_tin_destroy(tin);
    free(scratch);
}

/* Global vertex indices of the samples on tile sides: column k holds x = k·TX (and x = W − 1 for the last), row
 * k holds y = k·TY; a sample on a column is kept in the column only. Every other vertex belongs to one tile. */
typedef struct stitch {
    uint32_t TX, TY, W, H, lines_x, lines_y;
    uint32_t *cols, *rows; /* lines_x × H, lines_y × W; ST_TIN_NONE = not yet a vertex */
} stitch;

/* The slot of tile (tx, ty)'s vertex at (lx, ly) in its own coordinates, the tile w × h samples: a vertex on the
 * tile's left or right side is in column tx or tx + 1 (the last column for the last tile: x = W − 1), else one on
 * its bottom or top side in row ty or ty + 1; NULL inside. */
static uint32_t *shared_slot(stitch *s, uint32_t tx, uint32_t ty, uint32_t lx, uint32_t ly, uint32_t w, uint32_t h,
                             uint32_t x, uint32_t y) {
    if (lx == 0 || lx == w - 1) return &s->cols[(size_t)(tx + (lx != 0)) * s->H + y];
    if (ly == 0 || ly == h - 1) return &s->rows[(size_t)(ty + (ly != 0)) * s->W + x];
    return NULL;
}

void st_dem_tin_destroy(st_dem_tin *t) {
    if (!t) return;
    free(t->vertices);
    free(t->triangles);
    free(t);
}

st_result st_dem_tin_fit(const st_dem_tin_desc *d, st_dem_tin **out, st_error *err) {
    *out = NULL;
    if (!d || !d->samples) return st_error_set(err, ST_ERR_INVALID, "DEM TIN: no samples");
    if (d->width < 2 || d->height < 2 || d->width > ST_DEM_TIN_MAX_SIDE || d->height > ST_DEM_TIN_MAX_SIDE)
        return st_error_set(err, ST_ERR_INVALID, "DEM TIN: grid %ux%u must be 2..%u samples a side", d->width,
                            d->height, ST_DEM_TIN_MAX_SIDE);
    if (!(d->tolerance > 0) || !isfinite(d->tolerance))
        return st_error_set(err, ST_ERR_INVALID, "DEM TIN: tolerance %g must be positive", d->tolerance);
    uint32_t SX = d->width - 1, SY = d->height - 1, TX = d->tile_x, TY = d->tile_y;
    if (!TX && !TY) TX = TY = DEM_TIN_DEFAULT_TILE;
    else if (!TX || !TY) TX = TY = TX ? TX : TY; /* one given: square tiles */
    /* no tile longer than the grid: a single tile is the serial fit */
    TX = TX > SX ? SX : TX;
    TY = TY > SY ? SY : TY;
    if (TX + 1 > ST_TIN_MAX_SIDE || TY + 1 > ST_TIN_MAX_SIDE)
        return st_error_set(err, ST_ERR_INVALID, "DEM TIN: tile of %ux%u sample steps (at most %u a side in one fit)",
                            TX, TY, ST_TIN_MAX_SIDE - 1);
    fit_job job = {.d = d, .tile_x = TX, .tile_y = TY};
    job.tiles_x = (SX + TX - 1) / TX;
    job.tiles_y = (SY + TY - 1) / TY;
    uint32_t tiles = job.tiles_x * job.tiles_y;
    job.fits = calloc(tiles, sizeof *job.fits);
    stitch s = {.TX = TX, .TY = TY, .W = d->width, .H = d->height, .lines_x = job.tiles_x + 1, .lines_y = job.tiles_y + 1};
    s.cols = malloc((size_t)s.lines_x * s.H * sizeof *s.cols);
    s.rows = malloc((size_t)s.lines_y * s.W * sizeof *s.rows);
    st_dem_tin *t = calloc(1, sizeof *t);
    st_result r = ST_OK;
    if (!job.fits || !s.cols || !s.rows || !t) r = st_error_set(err, ST_ERR_NOMEM, "DEM TIN: out of memory");
    if (!r) {
        st_parallel_for(tiles, 1, fit_range, &job);
        for (uint32_t i = 0; i < tiles && !r; i++)
            if (job.fits[i].result) {
                r = job.fits[i].result;
                if (err) *err = job.fits[i].error;
            }
    }
    uint64_t vmax = 0, tmax = 0;
    for (uint32_t i = 0; i < tiles && !r; i++) vmax += job.fits[i].vertex_count, tmax += job.fits[i].triangle_count;
    if (!r && (vmax > UINT32_MAX || tmax > UINT32_MAX / 3))
        r = st_error_set(err, ST_ERR_INVALID, "DEM TIN: more than 2^32 vertices");
    if (!r) {
        t->vertices = malloc((size_t)vmax * sizeof *t->vertices);
        t->triangles = malloc((size_t)tmax * 3 * sizeof *t->triangles);
        if (!t->vertices || !t->triangles) r = st_error_set(err, ST_ERR_NOMEM, "DEM TIN: out of memory");
    }
    uint32_t *map = NULL;
    if (!r) {
        uint32_t most = 0;
        for (uint32_t i = 0; i < tiles; i++) most = job.fits[i].vertex_count > most ? job.fits[i].vertex_count : most;
        map = malloc((size_t)(most ? most : 1) * sizeof *map);
        if (!map) r = st_error_set(err, ST_ERR_NOMEM, "DEM TIN: out of memory");
    }
    if (!r) {
        /* tiles in row-major order, each tile's vertices in its insertion order: the result does not depend on
         * the thread count */
        memset(s.cols, 0xFF, (size_t)s.lines_x * s.H * sizeof *s.cols);
        memset(s.rows, 0xFF, (size_t)s.lines_y * s.W * sizeof *s.rows);
        t->width = d->width, t->height = d->height, t->tile_x = TX, t->tile_y = TY, t->tiles = tiles;
        for (uint32_t i = 0; i < tiles; i++) {
            const tile_fit *f = &job.fits[i];
            uint32_t x0, y0, x1, y1, tx = i % job.tiles_x, ty = i / job.tiles_x;
            tile_bounds(&job, i, &x0, &y0, &x1, &y1);
            for (uint32_t v = 0; v < f->vertex_count; v++) {
                uint32_t lx = f->vertices[v].x, ly = f->vertices[v].y, x = f->x0 + lx, y = f->y0 + ly;
                uint32_t *slot = shared_slot(&s, tx, ty, lx, ly, x1 - x0 + 1, y1 - y0 + 1, x, y);
                if (slot && *slot != ST_TIN_NONE) {
                    map[v] = *slot;
                    continue;
                }
                map[v] = t->vertex_count;
                if (slot) *slot = t->vertex_count;
                t->vertices[t->vertex_count++] = (st_tin_vertex){(uint16_t)x, (uint16_t)y};
            }
            for (uint32_t k = 0; k < 3 * f->triangle_count; k++)
                t->triangles[3 * (size_t)t->triangle_count + k] = map[f->triangles[k]];
            t->triangle_count += f->triangle_count;
            if (f->max_error > t->max_error) t->max_error = f->max_error;
        }
    }
    free(map);
    for (uint32_t i = 0; job.fits && i < tiles; i++) {
        free(job.fits[i].vertices);
        free(job.fits[i].triangles);
    }
    free(job.fits);
    free(s.cols);
    free(s.rows);
    if (r) {
        st_dem_tin_destroy(t);
        return r;
    }
    *out = t;
    return ST_OK;
}

static uint64_t digest_mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

uint64_t st_dem_tin_digest(const st_dem_tin *t) {
    uint64_t h = digest_mix(digest_mix(0, (uint64_t)t->width << 32 | t->height),
                            (uint64_t)t->vertex_count << 32 | t->triangle_count);
    for (uint32_t v = 0; v < t->vertex_count; v++) h = digest_mix(h, (uint64_t)t->vertices[v].x << 16 | t->vertices[v].y);
    for (size_t k = 0; k < 3 * (size_t)t->triangle_count; k++) h = digest_mix(h, t->triangles[k]);
    return h;
}

/* ---- the check ------------------------------------------------------------------------------------------
 * In parallel on the job system, with a result that does not depend on the thread count: the half-edges are
 * bucketed by their origin (a counting sort, linear), each bucket sorted by destination, and every half-edge
 * p → q looks for its twin q → p in q's bucket; the samples are tested triangle by triangle. */

typedef struct half_edge {
    uint32_t to, tri; /* origin p is the bucket's vertex; tri runs p → to */
} half_edge;

static inline bool half_edge_before(const half_edge *a, const half_edge *b) {
    return a->to < b->to || (a->to == b->to && a->tri < b->tri);
}

static int half_edge_cmp(const void *pa, const void *pb) {
    const half_edge *a = pa, *b = pb;
    return half_edge_before(a, b) ? -1 : half_edge_before(b, a) ? 1 : 0;
}

static int64_t orient64(const st_tin_vertex *a, const st_tin_vertex *b, int64_t x, int64_t y) {
    return ((int64_t)b->x - a->x) * (y - a->y) - ((int64_t)b->y - a->y) * (x - a->x);
}

/* A border edge a → b lies on the rectangle's boundary, running counter-clockwise round it; its side (0 below,
 * 1 right, 2 above, 3 left) and its start and end along that side, or −1 when it is no border edge. */
static int border_side(const st_tin_vertex *a, const st_tin_vertex *b, uint32_t W, uint32_t H, uint32_t *from,
                       uint32_t *to) {
    if (a->y == 0 && b->y == 0 && b->x > a->x) return *from = a->x, *to = b->x, 0;
    if (a->x == W - 1 && b->x == W - 1 && b->y > a->y) return *from = a->y, *to = b->y, 1;
    if (a->y == H - 1 && b->y == H - 1 && b->x < a->x) return *from = b->x, *to = a->x, 2;
    if (a->x == 0 && b->x == 0 && b->y < a->y) return *from = b->y, *to = a->y, 3;
    return -1;
}

typedef struct span {
    uint32_t from, to;
} span;

static int span_cmp(const void *pa, const void *pb) {
    const span *a = pa, *b = pb;
    return a->from < b->from ? -1 : a->from > b->from ? 1 : 0;
}

/* Where a job's first fault is: the chunks run over ascending ranges, so the lowest chunk's first fault is the
 * first in index order, whatever the thread count. */
#define CHECK_CHUNK 4096u

typedef struct check_job {
    const st_dem_tin *t;
    const uint16_t *samples;
    uint32_t *first;        /* vertex p's half-edges are edges[first[p] .. first[p + 1]) */
    half_edge *edges;
    uint8_t *border;        /* per half-edge: 1 = it has no twin (a border edge if the check passes) */
    size_t chunks;
    st_result *result;      /* per chunk */
    st_error *error;        /* per chunk */
    int64_t *area2;         /* per chunk */
    uint64_t *interior;     /* per chunk */
    double *max_error;      /* per chunk */
    /* the bound */
    bool integral;
    int64_t E;
    double tolerance;
    _Atomic uint8_t *covered; /* per sample: 1 | 2 (over in a triangle) | 4 (exactly at it in a triangle) */
} check_job;

/* Triangles: vertex indices in range, counter-clockwise with positive area, and their area. */
static void check_triangles(void *user, size_t begin, size_t end) {
    check_job *j = user;
    const st_dem_tin *t = j->t;
    for (size_t c = begin; c < end; c++) {
        size_t i0 = c * CHECK_CHUNK, i1 = i0 + CHECK_CHUNK < t->triangle_count ? i0 + CHECK_CHUNK : t->triangle_count;
        int64_t area2 = 0;
        for (size_t i = i0; i < i1 && !j->result[c]; i++) {
            const uint32_t *v = &t->triangles[3 * i];
            if (v[0] >= t->vertex_count || v[1] >= t->vertex_count || v[2] >= t->vertex_count) {
                j->result[c] = st_error_set(&j->error[c], ST_ERR_INVALID, "triangle %zu names a vertex out of range", i);
                break;
            }
            int64_t a = orient64(&t->vertices[v[0]], &t->vertices[v[1]], t->vertices[v[2]].x, t->vertices[v[2]].y);
            if (a <= 0) j->result[c] = st_error_set(&j->error[c], ST_ERR_INVALID, "triangle %zu is not counter-clockwise", i);
            area2 += a;
        }
        j->area2[c] = area2;
    }
}

/* A bucket of at most SMALL_BUCKET half-edges (a vertex has about six) is searched linearly as it is; a larger
 * one is sorted by destination and searched by bisection, so that no vertex costs the square of its degree. */
#define SMALL_BUCKET 16u

static void sort_buckets(void *user, size_t begin, size_t end) {
    check_job *j = user;
    uint32_t V = j->t->vertex_count;
    for (size_t c = begin; c < end; c++)
        for (size_t p = c * CHECK_CHUNK; p < (c + 1) * CHECK_CHUNK && p < V; p++) {
            size_t n = j->first[p + 1] - j->first[p];
            if (n > SMALL_BUCKET) qsort(j->edges + j->first[p], n, sizeof *j->edges, half_edge_cmp);
        }
}

/* How many half-edges of bucket [e, e + n) end at q. */
static size_t count_to(const half_edge *e, size_t n, uint32_t q) {
    if (n <= SMALL_BUCKET) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) k += e[i].to == q;
        return k;
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e[mid].to < q) lo = mid + 1;
        else hi = mid;
    }
    size_t k = lo;
    while (k < n && e[k].to == q) k++;
    return k - lo;
}

/* Every half-edge p → q: alone in running p → q, and with at most one twin q → p; interior edges counted once
 * (p < q), half-edges without a twin marked for the border pass. */
static void match_twins(void *user, size_t begin, size_t end) {
    check_job *j = user;
    uint32_t V = j->t->vertex_count;
    for (size_t c = begin; c < end; c++) {
        uint64_t interior = 0;
        for (size_t p = c * CHECK_CHUNK; p < (c + 1) * CHECK_CHUNK && p < V && !j->result[c]; p++) {
            for (uint32_t k = j->first[p]; k < j->first[p + 1]; k++) {
                uint32_t q = j->edges[k].to;
                size_t same = count_to(j->edges + j->first[p], j->first[p + 1] - j->first[p], q);
                size_t twins = count_to(j->edges + j->first[q], j->first[q + 1] - j->first[q], (uint32_t)p);
                if (same > 1 || twins > 1) {
                    uint32_t a = (uint32_t)p < q ? (uint32_t)p : q, b = (uint32_t)p < q ? q : (uint32_t)p;
                    j->result[c] = st_error_set(&j->error[c], ST_ERR_INVALID, "edge %u-%u is shared by %zu triangles",
                                                a, b, same + twins);
                    break;
                }
                if (twins) interior += p < q;
                else j->border[k] = 1;
            }
        }
        j->interior[c] = interior;
    }
}

/* Every sample against every closed triangle it lies in, row by row with the edge functions stepped along the
 * row; a sample's flags are the union over those triangles (atomic: two chunks may share a sample). */
static void check_samples(void *user, size_t begin, size_t end) {
    check_job *j = user;
    const st_dem_tin *t = j->t;
    const uint16_t *z = j->samples;
    size_t W = t->width;
    for (size_t c = begin; c < end; c++) {
        size_t i0 = c * CHECK_CHUNK, i1 = i0 + CHECK_CHUNK < t->triangle_count ? i0 + CHECK_CHUNK : t->triangle_count;
        double max_error = 0;
        for (size_t i = i0; i < i1; i++) {
            const uint32_t *v = &t->triangles[3 * i];
            const st_tin_vertex *p[3] = {&t->vertices[v[0]], &t->vertices[v[1]], &t->vertices[v[2]]};
            int64_t A = orient64(p[0], p[1], p[2]->x, p[2]->y);
            int64_t zv[3], al[3], be[3], ga[3];
            for (int k = 0; k < 3; k++) {
                const st_tin_vertex *a = p[(k + 1) % 3], *b = p[(k + 2) % 3];
                zv[k] = z[(size_t)p[k]->y * W + p[k]->x];
                /* w_k(x, y) = orient(a, b, (x, y)) = α x + β y + γ */
                al[k] = -((int64_t)b->y - a->y), be[k] = (int64_t)b->x - a->x;
                ga[k] = -(be[k] * a->y + al[k] * a->x);
            }
            int64_t x0 = p[0]->x, x1 = p[0]->x, y0 = p[0]->y, y1 = p[0]->y;
            for (int k = 1; k < 3; k++) {
                x0 = p[k]->x < x0 ? p[k]->x : x0, x1 = p[k]->x > x1 ? p[k]->x : x1;
                y0 = p[k]->y < y0 ? p[k]->y : y0, y1 = p[k]->y > y1 ? p[k]->y : y1;
            }
            int64_t EA = j->E * A, worst = 0; /* the worst error times A */
            double tA = j->tolerance * (double)A;
            for (int64_t y = y0; y <= y1; y++) {
                int64_t w0 = al[0] * x0 + be[0] * y + ga[0], w1 = al[1] * x0 + be[1] * y + ga[1],
                        w2 = al[2] * x0 + be[2] * y + ga[2];
                const uint16_t *row = z + (size_t)y * W;
                _Atomic uint8_t *cov = j->covered + (size_t)y * W;
                for (int64_t x = x0; x <= x1; x++, w0 += al[0], w1 += al[1], w2 += al[2]) {
                    if ((w0 | w1 | w2) < 0) continue; /* outside the closed triangle */
                    int64_t e = (int64_t)row[x] * A - (w0 * zv[0] + w1 * zv[1] + w2 * zv[2]);
                    if (e < 0) e = -e;
                    worst = e > worst ? e : worst;
                    bool over = j->integral ? e > EA : (double)e > tA;
                    bool tie = j->integral && e == EA;
                    uint8_t f = (uint8_t)(1 | (over ? 2 : 0) | (tie ? 4 : 0));
                    /* most samples lie in one triangle, or hold the flags already: no locked write for them */
                    if ((atomic_load_explicit(&cov[x], memory_order_relaxed) & f) != f)
                        atomic_fetch_or_explicit(&cov[x], f, memory_order_relaxed);
                }
            }
            double m = (double)worst / (double)A;
            if (m > max_error) max_error = m;
        }
        j->max_error[c] = max_error;
    }
}

static st_result first_fault(const check_job *j, size_t chunks, st_error *err) {
    for (size_t c = 0; c < chunks; c++)
        if (j->result[c]) {
            if (err) *err = j->error[c];
            return j->result[c];
        }
    return ST_OK;
}

/* The conforming check: every triangle counter-clockwise with positive area, no two vertices at one sample,
 * every edge either shared by two triangles running it in opposite directions or on the rectangle's boundary,
 * the boundary edges covering each side exactly once, and the areas summing to the rectangle's. Together these
 * make the triangles a tiling of the rectangle: a crack or a T-junction leaves an edge with one triangle off the
 * boundary. */
static st_result check_topology(check_job *j, st_dem_tin_report *rep, st_error *err) {
    const st_dem_tin *t = j->t;
    uint32_t W = t->width, H = t->height, V = t->vertex_count;
    size_t n = (size_t)t->triangle_count * 3;
    uint8_t *seen = calloc((size_t)W * H, 1);
    if (!seen) return st_error_set(err, ST_ERR_NOMEM, "DEM TIN check: out of memory");
    st_result r = ST_OK;
    for (uint32_t v = 0; v < V && !r; v++) {
        const st_tin_vertex *p = &t->vertices[v];
        if (p->x >= W || p->y >= H) r = st_error_set(err, ST_ERR_INVALID, "vertex %u lies outside the grid", v);
        else if (seen[(size_t)p->y * W + p->x]++)
            r = st_error_set(err, ST_ERR_INVALID, "two vertices at sample (%u, %u)", p->x, p->y);
    }
    free(seen);
    if (r) return r;
    size_t tri_chunks = (t->triangle_count + CHECK_CHUNK - 1) / CHECK_CHUNK;
    st_parallel_for(tri_chunks, 1, check_triangles, j);
    if ((r = first_fault(j, tri_chunks, err))) return r;
    int64_t area2 = 0;
    for (size_t c = 0; c < tri_chunks; c++) area2 += j->area2[c];
    if (area2 != 2 * (int64_t)(W - 1) * (int64_t)(H - 1))
        return st_error_set(err, ST_ERR_INVALID, "the triangles' area is %.1f, the grid's %.1f", 0.5 * (double)area2,
                            (double)(W - 1) * (double)(H - 1));
    /* half-edges bucketed by origin */
    memset(j->first, 0, ((size_t)V + 1) * sizeof *j->first);
    for (size_t k = 0; k < n; k++) j->first[t->triangles[k] + 1]++;
    for (uint32_t v = 0; v < V; v++) j->first[v + 1] += j->first[v];
    for (size_t i = 0; i < t->triangle_count; i++)
        for (int k = 0; k < 3; k++) {
            uint32_t p = t->triangles[3 * i + k], q = t->triangles[3 * i + (k + 1) % 3];
            j->edges[j->first[p]++] = (half_edge){q, (uint32_t)i};
        }
    for (uint32_t v = V; v > 0; v--) j->first[v] = j->first[v - 1]; /* the fill moved each start to the next */
    j->first[0] = 0;
    size_t vert_chunks = ((size_t)V + CHECK_CHUNK - 1) / CHECK_CHUNK;
    for (size_t c = 0; c < vert_chunks; c++) j->result[c] = ST_OK;
    st_parallel_for(vert_chunks, 1, sort_buckets, j);
    st_parallel_for(vert_chunks, 1, match_twins, j);
    if ((r = first_fault(j, vert_chunks, err))) return r;
    for (size_t c = 0; c < vert_chunks; c++) rep->interior_edges += j->interior[c];
    /* the border, in half-edge order: every edge without a twin lies on the boundary, covering each side once */
    size_t border = 0;
    for (size_t k = 0; k < n; k++) border += j->border[k];
    span *spans = malloc((border ? border : 1) * sizeof *spans);
    if (!spans) return st_error_set(err, ST_ERR_NOMEM, "DEM TIN check: out of memory");
    size_t b = 0;
    for (uint32_t p = 0; p < V && !r; p++)
        for (uint32_t k = j->first[p]; k < j->first[p + 1] && !r; k++) {
            if (!j->border[k]) continue;
            const half_edge *e = &j->edges[k];
            const st_tin_vertex *a = &t->vertices[p], *c = &t->vertices[e->to];
            uint32_t from, to;
            int side = border_side(a, c, W, H, &from, &to);
            if (side < 0)
                r = st_error_set(err, ST_ERR_INVALID,
                                 "edge (%u, %u)-(%u, %u) of triangle %u has no triangle across it inside the grid "
                                 "(a crack or a T-junction)",
                                 a->x, a->y, c->x, c->y, e->tri);
            else /* spans of side k are offset by k·2^17 so one sort orders them side by side */
                spans[b++] = (span){from + (uint32_t)side * (1u << 17), to + (uint32_t)side * (1u << 17)};
        }
    if (!r) {
        qsort(spans, border, sizeof *spans, span_cmp);
        size_t k = 0;
        for (uint32_t side = 0; side < 4 && !r; side++) {
            uint32_t base = side * (1u << 17), end = base + (side % 2 == 0 ? W - 1 : H - 1), at = base;
            for (; k < border && spans[k].from < base + (1u << 17) && !r; k++) {
                if (spans[k].from != at) r = st_error_set(err, ST_ERR_INVALID, "side %u is not covered once at %u", side, at - base);
                at = spans[k].to;
            }
            if (!r && at != end) r = st_error_set(err, ST_ERR_INVALID, "side %u is covered up to %u only", side, at - base);
        }
        rep->border_edges = border;
    }
    free(spans);
    return r;
}

st_result st_dem_tin_check(const st_dem_tin *t, const uint16_t *samples, double tolerance, st_dem_tin_report *out,
                           st_error *err) {
    memset(out, 0, sizeof *out);
    if (!t || !samples || !(tolerance > 0)) return st_error_set(err, ST_ERR_INVALID, "DEM TIN check: bad arguments");
    if (t->triangle_count > UINT32_MAX / 3) /* the half-edges are numbered in 32 bits, as st_dem_tin_fit makes them */
        return st_error_set(err, ST_ERR_INVALID, "DEM TIN check: %u triangles (at most %u)", t->triangle_count,
                            UINT32_MAX / 3);
    uint32_t W = t->width, H = t->height;
    size_t n = (size_t)t->triangle_count * 3;
    size_t tri_chunks = (t->triangle_count + CHECK_CHUNK - 1) / CHECK_CHUNK;
    size_t vert_chunks = ((size_t)t->vertex_count + CHECK_CHUNK - 1) / CHECK_CHUNK;
    size_t chunks = (tri_chunks > vert_chunks ? tri_chunks : vert_chunks) + 1;
    /* with an integer tolerance the comparison is in integers: |z·A − Σ w·z| ≤ E·A exactly */
    bool integral = tolerance == floor(tolerance) && tolerance < 2147483647.0;
    check_job j = {.t = t, .samples = samples, .chunks = chunks, .integral = integral,
                   .E = integral ? (int64_t)tolerance : 0, .tolerance = tolerance};
    j.first = malloc(((size_t)t->vertex_count + 1) * sizeof *j.first);
    j.edges = malloc((n ? n : 1) * sizeof *j.edges);
    j.border = calloc(n ? n : 1, 1);
    j.result = calloc(chunks, sizeof *j.result);
    j.error = calloc(chunks, sizeof *j.error);
    j.area2 = calloc(chunks, sizeof *j.area2);
    j.interior = calloc(chunks, sizeof *j.interior);
    j.max_error = calloc(chunks, sizeof *j.max_error);
    st_result r = ST_OK;
    if (!j.first || !j.edges || !j.border || !j.result || !j.error || !j.area2 || !j.interior || !j.max_error)
        r = st_error_set(err, ST_ERR_NOMEM, "DEM TIN check: out of memory");
    if (!r) r = check_topology(&j, out, err);
    free(j.first);
    free(j.edges);
    free(j.border);
    j.first = NULL, j.edges = NULL, j.border = NULL;
    if (!r) {
        j.covered = calloc((size_t)W * H, sizeof *j.covered);
        if (!j.covered) r = st_error_set(err, ST_ERR_NOMEM, "DEM TIN check: out of memory");
    }
    if (!r) {
        st_parallel_for(tri_chunks, 1, check_samples, &j);
        for (size_t c = 0; c < tri_chunks; c++)
            if (j.max_error[c] > out->max_error) out->max_error = j.max_error[c];
        for (size_t s = 0; s < (size_t)W * H; s++) {
            uint8_t f = atomic_load_explicit(&j.covered[s], memory_order_relaxed);
            out->samples_checked += f & 1;
            out->over_tolerance += (f & 2) != 0;
            out->at_tolerance += (f & 6) == 4;
        }
        if (out->samples_checked != (uint64_t)W * H)
            r = st_error_set(err, ST_ERR_INVALID, "DEM TIN check: %llu of %llu samples lie in no triangle",
                             (unsigned long long)((uint64_t)W * H - out->samples_checked),
                             (unsigned long long)((uint64_t)W * H));
    }
    free(j.covered);
    free(j.result);
    free(j.error);
    free(j.area2);
    free(j.interior);
    free(j.max_error);
    return r;
}
