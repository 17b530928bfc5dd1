/* The procedural world's slab passes over work planes: the opening of the candidates' scores that removes lone
 * slabs, the dual threshold as a quantile of the scores, and turning the pairs above it dual. */
#include <math.h>

#include "terrain/gen_internal.h"

/* Pair columns either side of column i: wrapping around the plane, or plainly inside it (no division: this runs
 * for every pair). */
static inline void sides(size_t i, size_t pw, bool wrap, size_t *il, size_t *ir) {
    *il = wrap && i == 0 ? pw - 1 : i - 1;
    *ir = wrap && i + 1 == pw ? 0 : i + 1;
}

/* Row y's neighbours above and below, wrapping or plainly inside the plane. */
static inline void rows_beside(size_t ph, bool wrap, size_t y, size_t *up, size_t *down) {
    *up = wrap && y == 0 ? ph - 1 : y - 1;
    *down = wrap && y + 1 == ph ? 0 : y + 1;
}

#define SLAB_CHUNK 512u /* pair columns whose three-wide row extremes are kept for the rows below */

/* Over columns [c0, c1) of one row: each pair's minimum (or maximum) with the pairs either side; the plane's
 * first and last columns (which may wrap) apart, so the columns between are a plain loop. */
#define ROW_EXTREMES(name, better)                                                                              \
    static void name(const uint16_t *row, size_t pw, bool wrap, size_t c0, size_t c1, uint16_t *out) {        \
        size_t lo = c0, hi = c1;                                                                               \
        bool first = lo == 0 && lo < hi, last = hi == pw && hi > lo && pw > 1;                                 \
        if (first) lo++;                                                                                       \
        if (last) hi--;                                                                                        \
        for (size_t i = lo; i < hi; i++) {                                                                     \
            uint16_t m = row[i - 1];                                                                           \
            if (better(row[i], m)) m = row[i];                                                                 \
            if (better(row[i + 1], m)) m = row[i + 1];                                                         \
            out[i - c0] = m;                                                                                   \
        }                                                                                                      \
        size_t ends[2] = {0, pw - 1};                                                                          \
        for (int e = 0; e < 2; e++) {                                                                          \
            if (!(e ? last : first)) continue;                                                                 \
            size_t i = ends[e], il, ir;                                                                        \
            sides(i, pw, wrap, &il, &ir);                                                                      \
            uint16_t m = row[il];                                                                              \
            if (better(row[i], m)) m = row[i];                                                                 \
            if (better(row[ir], m)) m = row[ir];                                                               \
            out[i - c0] = m;                                                                                   \
        }                                                                                                      \
    }
#define LESS(a, b) ((a) < (b))
#define MORE(a, b) ((a) > (b))
ROW_EXTREMES(row_min3, LESS)
ROW_EXTREMES(row_max3, MORE)

/* The 3×3 minimum (max false) or maximum of plane at rows [r0, r1) and columns [c0, c1), separably: each row's
 * three-wide extremes once, kept for the two rows below, then three of those a pair (the same integers as nine
 * reads a pair), handed to put(user, y, c0 of the chunk, count, extremes). */
typedef void (*put_fn)(void *user, size_t y, size_t c0, size_t n, const uint16_t *v);

static void extremes3x3(const uint16_t *plane, size_t pw, size_t ph, bool wrap, size_t r0, size_t r1, size_t c0,
                        size_t c1, bool max, put_fn put, void *user) {
    uint16_t buf[3][SLAB_CHUNK], out[SLAB_CHUNK];
    for (size_t cc = c0; cc < c1; cc += SLAB_CHUNK) {
        size_t ce = c1 - cc < SLAB_CHUNK ? c1 : cc + SLAB_CHUNK, n = ce - cc;
        uint16_t *up = buf[0], *mid = buf[1], *down = buf[2];
        for (size_t y = r0; y < r1; y++) {
            size_t yu, yd;
            rows_beside(ph, wrap, y, &yu, &yd);
            if (y == r0) { /* the rows around the first; after it, the row above and this one are kept */
                (max ? row_max3 : row_min3)(plane + yu * pw, pw, wrap, cc, ce, up);
                (max ? row_max3 : row_min3)(plane + y * pw, pw, wrap, cc, ce, mid);
            } else {
                uint16_t *old = up;
                up = mid, mid = down, down = old;
            }
            (max ? row_max3 : row_min3)(plane + yd * pw, pw, wrap, cc, ce, down);
            if (max)
                for (size_t i = 0; i < n; i++) {
                    uint16_t m = up[i];
                    if (mid[i] > m) m = mid[i];
                    if (down[i] > m) m = down[i];
                    out[i] = m;
                }
            else
                for (size_t i = 0; i < n; i++) {
                    uint16_t m = up[i];
                    if (mid[i] < m) m = mid[i];
                    if (down[i] < m) m = down[i];
                    out[i] = m;
                }
            put(user, y, cc, n, out);
        }
    }
}

typedef struct slab_rows {
    uint16_t *plane;
    size_t pw;
} slab_rows;

static void put_eroded(void *user, size_t y, size_t c0, size_t n, const uint16_t *v) {
    slab_rows *o = user;
    uint16_t *row = o->plane + y * o->pw + c0;
    for (size_t i = 0; i < n; i++) row[i] = v[i];
}

/* A generic score is lowered to the neighbourhood's maximum; landmark pairs and pairs never dual stay. */
static void put_dilated(void *user, size_t y, size_t c0, size_t n, const uint16_t *v) {
    slab_rows *o = user;
    uint16_t *row = o->plane + y * o->pw + c0;
    for (size_t i = 0; i < n; i++)
        if (row[i] != GEN_SCORE_FORCED && row[i] != 0 && v[i] < row[i]) row[i] = v[i];
}

/* A morphological opening of the score (3×3 pairs): lone pairs and one-pair slivers would be floating specks of
 * slab, so a pair keeps its score only where a full 3×3 block around some neighbour scores at least as high.
 * Landmark pairs are kept as they are. */
void gen_erode(const uint16_t *score, uint16_t *eroded, size_t pw, size_t ph, bool wrap, size_t r0, size_t r1,
               size_t c0, size_t c1) {
    slab_rows o = {eroded, pw};
    extremes3x3(score, pw, ph, wrap, r0, r1, c0, c1, false, put_eroded, &o);
}

void gen_dilate(uint16_t *score, const uint16_t *eroded, size_t pw, size_t ph, bool wrap, size_t r0, size_t r1,
                size_t c0, size_t c1) {
    slab_rows o = {score, pw};
    extremes3x3(eroded, pw, ph, wrap, r0, r1, c0, c1, true, put_dilated, &o);
}

uint32_t gen_pick_threshold(const uint64_t *hist, double target_pairs) {
    uint64_t above = 0; /* pairs with score > t */
    uint32_t best = 65535u;
    double best_err = target_pairs;
    for (uint32_t t = 65535u; t-- > 0;) {
        above += hist[t + 1];
        double err = fabs((double)above - target_pairs);
        if (err < best_err) {
            best_err = err;
            best = t;
        }
        if ((double)above > target_pairs) break;
    }
    return best;
}

void gen_apply_dual(const gen_planes *p, size_t r0, size_t r1, size_t c0, size_t c1, uint32_t threshold) {
    size_t half = p->stride / 2;
    for (size_t y = r0; y < r1; y++) {
        for (size_t i = c0; i < c1; i++) {
            size_t k = y * half + i;
            if (p->score[k] <= threshold) continue;
            uint32_t c = p->cand[k];
            uint8_t low = (uint8_t)(c & 255u), high = (uint8_t)((c >> 12) & 255u);
            uint8_t mid = (uint8_t)(low + (((c >> 8) & 15u) << 3));
            size_t even = y * p->stride + 2 * i;
            st_level_encode_dual(8, low, mid, high, (uint8_t)((c >> 20) & 7u), (uint8_t)((c >> 23) & 7u),
                                 p->heights + even, p->meta + even);
        }
    }
}
