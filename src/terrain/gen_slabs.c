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

/* The three rows around row y. */
static inline void rows_around(const uint16_t *plane, size_t pw, size_t ph, bool wrap, size_t y,
                               const uint16_t *rows[3]) {
    size_t up = wrap ? (y + ph - 1) % ph : y - 1, down = wrap ? (y + 1) % ph : y + 1;
    rows[0] = plane + up * pw;
    rows[1] = plane + y * pw;
    rows[2] = plane + down * pw;
}

/* A morphological opening of the score (3×3 pairs): lone pairs and one-pair slivers would be floating specks of
 * slab, so a pair keeps its score only where a full 3×3 block around some neighbour scores at least as high.
 * Landmark pairs are kept as they are. */
void gen_erode(const uint16_t *score, uint16_t *eroded, size_t pw, size_t ph, bool wrap, size_t r0, size_t r1,
               size_t c0, size_t c1) {
    for (size_t y = r0; y < r1; y++) {
        const uint16_t *rows[3];
        rows_around(score, pw, ph, wrap, y, rows);
        for (size_t i = c0; i < c1; i++) {
            size_t il, ir;
            sides(i, pw, wrap, &il, &ir);
            uint16_t m = 65535;
            for (int r = 0; r < 3; r++) {
                uint16_t a = rows[r][il], b = rows[r][i], c = rows[r][ir];
                if (a < m) m = a;
                if (b < m) m = b;
                if (c < m) m = c;
            }
            eroded[y * pw + i] = m;
        }
    }
}

void gen_dilate(uint16_t *score, const uint16_t *eroded, size_t pw, size_t ph, bool wrap, size_t r0, size_t r1,
                size_t c0, size_t c1) {
    for (size_t y = r0; y < r1; y++) {
        const uint16_t *rows[3];
        rows_around(eroded, pw, ph, wrap, y, rows);
        uint16_t *out = score + y * pw;
        for (size_t i = c0; i < c1; i++) {
            if (out[i] == GEN_SCORE_FORCED || out[i] == 0) continue;
            size_t il, ir;
            sides(i, pw, wrap, &il, &ir);
            uint16_t m = 0;
            for (int r = 0; r < 3; r++) {
                uint16_t a = rows[r][il], b = rows[r][i], c = rows[r][ir];
                if (a > m) m = a;
                if (b > m) m = b;
                if (c > m) m = c;
            }
            if (m < out[i]) out[i] = m;
        }
    }
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
