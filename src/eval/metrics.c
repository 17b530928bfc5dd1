/* Image metrics of a method against the CPU reference: coverage (see-through, covers-sky), depth error
 * percentiles, coherence (3×3 median test), colour MAE and ΔE, and the two error heat maps — all in one pass over
 * the image, rows in parallel on the job system. The definitions here are the ones docs/harness.md writes out;
 * tests/test_metrics.c checks them on images with known answers and against a plain serial evaluation. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "strata/eval.h"

static inline bool solid(float d) { return isfinite(d); }

/* Rows per job-system chunk: enough work per chunk to hide the hand-out, enough chunks to balance 16+ threads. */
#define ROWS_PER_CHUNK 16u

typedef struct depth_job {
    const st_view *view;
    const float *depth;
    float *distance;
} depth_job;

static void depth_rows(void *user, size_t begin, size_t end) {
    depth_job *job = user;
    uint32_t w = (uint32_t)job->view->width;
    for (size_t j = begin; j < end; j++)
        for (uint32_t i = 0; i < w; i++) {
            size_t k = j * w + i;
            job->distance[k] = st_view_distance_from_depth(job->view, i, (uint32_t)j, job->depth[k]); /* NAN for 0 */
        }
}

void st_eval_depth_to_distance(const st_view *view, const float *depth, float *distance) {
    depth_job job = {view, depth, distance};
    st_parallel_for((size_t)view->height, ROWS_PER_CHUNK, depth_rows, &job);
}

/* ---- coherence ------------------------------------------------------------------------------------------ */

typedef struct {
    const float *d;
    uint32_t w, h;
    uint8_t *flags;
} coherence_job;

/* The median of 9 finite values by a fixed network of 19 min/max exchanges (the value is the 5th smallest, so
 * it is the one insertion sort would give). */
static inline void sort2(float v[9], int a, int b) {
    float lo = v[a] < v[b] ? v[a] : v[b], hi = v[a] < v[b] ? v[b] : v[a]; /* finite values: no NAN rules needed */
    v[a] = lo, v[b] = hi;
}
static float median9(float v[9]) {
    static const int8_t net[19][2] = {{1, 2}, {4, 5}, {7, 8}, {0, 1}, {3, 4}, {6, 7}, {1, 2}, {4, 5}, {7, 8}, {0, 3},
                                      {5, 8}, {4, 7}, {3, 6}, {1, 4}, {2, 5}, {4, 7}, {4, 2}, {6, 4}, {4, 2}};
    for (int s = 0; s < 19; s++) sort2(v, net[s][0], net[s][1]);
    return v[4];
}

static void coherence_rows(void *user, size_t begin, size_t end) {
    coherence_job *job = user;
    const uint32_t w = job->w, h = job->h;
    for (size_t y = begin; y < end; y++) {
        /* the three rows of the neighbourhood, clamped: edge padding repeats the border row */
        const float *rows[3] = {job->d + (y ? y - 1 : 0) * w, job->d + y * w, job->d + (y + 1 < h ? y + 1 : y) * w};
        for (uint32_t x = 0; x < w; x++) {
            float c = rows[1][x];
            uint8_t flag = 0;
            if (solid(c)) {
                /* edge padding: a border pixel repeats its nearest column, so there are always 9 */
                uint32_t xs[3] = {x ? x - 1 : 0, x, x + 1 < w ? x + 1 : x};
                float v[9];
                bool ok = true;
                for (int r = 0; r < 3 && ok; r++)
                    for (int q = 0; q < 3; q++) {
                        float s = rows[r][xs[q]];
                        if (!solid(s)) { /* a silhouette is not incoherence: leave it to coverage */
                            ok = false;
                            break;
                        }
                        v[3 * r + q] = s;
                    }
                if (ok) {
                    float m = median9(v);
                    float tol = ST_COHERENCE_REL * (c > 1.0f ? c : 1.0f);
                    flag = fabsf(c - m) > tol;
                }
            }
            job->flags[y * w + x] = flag;
        }
    }
}

void st_eval_incoherent(const float *distance, uint32_t w, uint32_t h, uint8_t *flags) {
    coherence_job job = {distance, w, h, flags};
    st_parallel_for(h, ROWS_PER_CHUNK, coherence_rows, &job);
}

/* ---- percentiles ----------------------------------------------------------------------------------------- */

/* Quickselect with a three-way partition (many differences are exactly 0, so equal keys must not degrade
 * it): afterwards v[k] is the k-th smallest, everything left of it ≤ it, everything right ≥ it. */
static void select_kth(float *v, size_t n, size_t k) {
    size_t lo = 0, hi = n - 1;
    while (hi > lo) {
        float pivot = v[lo + (hi - lo) / 2];
        size_t lt = lo, i = lo, gt = hi;
        while (i <= gt) {
            float x = v[i];
            if (x < pivot) {
                v[i++] = v[lt];
                v[lt++] = x;
            } else if (x > pivot) {
                v[i] = v[gt];
                v[gt] = x;
                if (gt == 0) break;
                gt--;
            } else {
                i++;
            }
        }
        if (k < lt) hi = lt - 1;
        else if (k > gt) lo = gt + 1;
        else return;
    }
}

double st_eval_percentile(float *values, size_t n, double p) {
    if (n == 0) return NAN;
    if (p < 0) p = 0;
    if (p > 100) p = 100;
    double rank = p / 100.0 * (double)(n - 1);
    size_t k = (size_t)floor(rank);
    double frac = rank - (double)k;
    select_kth(values, n, k);
    double a = values[k];
    if (frac == 0 || k + 1 >= n) return a;
    float b = values[k + 1]; /* the next order statistic is the minimum of the upper part */
    for (size_t i = k + 2; i < n; i++)
        if (values[i] < b) b = values[i];
    return a + frac * ((double)b - a);
}

/* Order statistics of many non-negative floats at once, in parallel: a non-negative float's bits order like the
 * float, so a histogram of their top bits (chunks in parallel) names the bucket holding each wanted rank, and only
 * that bucket's values are gathered and selected exactly. The values are the same order statistics
 * st_eval_percentile finds; the array is not reordered. */
#define RADIX_BITS 12u
#define RADIX_BUCKETS (1u << RADIX_BITS)
#define RADIX_SHIFT (31u - RADIX_BITS) /* the sign bit is 0 */
#define RADIX_CHUNKS 64u

typedef struct radix_job {
    const float *v;
    size_t n, per_chunk;
    uint32_t (*hist)[RADIX_BUCKETS]; /* per chunk */
    uint32_t want[8];                /* the buckets to gather, and where each chunk's values of them go */
    size_t want_count;
    float *gathered[8];
    size_t (*at)[8];                 /* per chunk: its first slot in each gathered bucket */
} radix_job;

static inline uint32_t radix_bucket(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (bits & 0x7fffffffu) >> RADIX_SHIFT; /* −0 sorts as +0 */
}

static void radix_count(void *user, size_t begin, size_t end) {
    radix_job *job = user;
    for (size_t c = begin; c < end; c++) {
        uint32_t *h = job->hist[c];
        memset(h, 0, sizeof job->hist[c]);
        size_t a = c * job->per_chunk, b = a + job->per_chunk < job->n ? a + job->per_chunk : job->n;
        for (size_t k = a; k < b; k++) h[radix_bucket(job->v[k])]++;
    }
}

static void radix_gather(void *user, size_t begin, size_t end) {
    radix_job *job = user;
    for (size_t c = begin; c < end; c++) {
        size_t at[8];
        memcpy(at, job->at[c], sizeof at);
        size_t a = c * job->per_chunk, b = a + job->per_chunk < job->n ? a + job->per_chunk : job->n;
        for (size_t k = a; k < b; k++) {
            uint32_t bucket = radix_bucket(job->v[k]);
            for (size_t w = 0; w < job->want_count; w++)
                if (bucket == job->want[w]) job->gathered[w][at[w]++] = job->v[k];
        }
    }
}

/* out[i] = the ranks[i]-th smallest of v[0..n) (ranks < n, at most 8). False when out of memory (nothing set). */
static bool order_statistics(const float *v, size_t n, const size_t *ranks, size_t count, float *out) {
    radix_job job = {.v = v, .n = n, .per_chunk = (n + RADIX_CHUNKS - 1) / RADIX_CHUNKS};
    job.hist = calloc(RADIX_CHUNKS, sizeof *job.hist);
    job.at = calloc(RADIX_CHUNKS, sizeof *job.at);
    size_t *total = calloc(RADIX_BUCKETS, sizeof *total);
    bool ok = job.hist && job.at && total;
    if (ok) {
        st_parallel_for(RADIX_CHUNKS, 1, radix_count, &job);
        for (uint32_t c = 0; c < RADIX_CHUNKS; c++)
            for (uint32_t b = 0; b < RADIX_BUCKETS; b++) total[b] += job.hist[c][b];
    }
    /* each rank's bucket and its rank inside the bucket; the distinct buckets are gathered once, in parallel */
    size_t inner[8], slot[8];
    for (size_t r = 0; r < count && ok; r++) {
        size_t below = 0;
        uint32_t b = 0;
        while (below + total[b] <= ranks[r]) below += total[b++];
        inner[r] = ranks[r] - below;
        size_t w = 0;
        while (w < job.want_count && job.want[w] != b) w++;
        if (w == job.want_count) {
            job.want[job.want_count++] = b;
            job.gathered[w] = malloc(total[b] * sizeof(float));
            ok = job.gathered[w] != NULL;
        }
        slot[r] = w;
    }
    if (ok) {
        for (size_t w = 0; w < job.want_count; w++) {
            size_t at = 0;
            for (uint32_t c = 0; c < RADIX_CHUNKS; c++) job.at[c][w] = at, at += job.hist[c][job.want[w]];
        }
        st_parallel_for(RADIX_CHUNKS, 1, radix_gather, &job);
        for (size_t r = 0; r < count; r++) {
            float *g = job.gathered[slot[r]];
            select_kth(g, total[job.want[slot[r]]], inner[r]);
            out[r] = g[inner[r]];
        }
    }
    for (size_t w = 0; w < job.want_count; w++) free(job.gathered[w]);
    free(job.hist);
    free(job.at);
    free(total);
    return ok;
}

/* The p-th percentiles of non-negative values, as st_eval_percentile computes them, without reordering. */
static void percentiles_nonnegative(const float *v, size_t n, const double *p, size_t count, double *out) {
    size_t ranks[8];
    double frac[4];
    for (size_t i = 0; i < count; i++) {
        double rank = p[i] / 100.0 * (double)(n - 1);
        ranks[2 * i] = (size_t)floor(rank);
        frac[i] = rank - (double)ranks[2 * i];
        ranks[2 * i + 1] = ranks[2 * i] + 1 < n ? ranks[2 * i] + 1 : ranks[2 * i];
    }
    float stat[8];
    if (!n || !order_statistics(v, n, ranks, 2 * count, stat)) {
        for (size_t i = 0; i < count; i++) out[i] = NAN;
        if (!n) return;
        /* out of memory for the histogram: the in-place selection on a copy, or nothing */
        float *copy = malloc(n * sizeof *copy);
        for (size_t i = 0; copy && i < count; i++) {
            memcpy(copy, v, n * sizeof *copy);
            out[i] = st_eval_percentile(copy, n, p[i]);
        }
        free(copy);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        double a = stat[2 * i];
        out[i] = frac[i] == 0 || ranks[2 * i] + 1 >= n ? a : a + frac[i] * ((double)stat[2 * i + 1] - a);
    }
}

/* ---- colour ------------------------------------------------------------------------------------------------ */

static double srgb8_linear_exact(uint8_t v) {
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* The 256 decodings, each the same double the formula gives, made once. */
static double linear_table[256];
static pthread_once_t linear_once = PTHREAD_ONCE_INIT;
static void linear_table_init(void) {
    for (int v = 0; v < 256; v++) linear_table[v] = srgb8_linear_exact((uint8_t)v);
}

static double lab_f(double t) { return t > 216.0 / 24389.0 ? cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; }

static void srgb8_lab(const uint8_t c[3], double lab[3]) {
    double r = linear_table[c[0]], g = linear_table[c[1]], b = linear_table[c[2]];
    /* linear sRGB → XYZ (D65), divided by the white point */
    double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    double fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
    lab[0] = 116.0 * fy - 16.0;
    lab[1] = 500.0 * (fx - fy);
    lab[2] = 200.0 * (fy - fz);
}

/* The Lab colours met lately, by colour: a frame repeats its colours (the sky, smooth shading), and a remembered
 * Lab is the same doubles srgb8_lab gives, so ΔE is unchanged. Direct-mapped, one per chunk of rows. */
#define LAB_MEMO 1024u
typedef struct lab_memo {
    uint32_t key[LAB_MEMO]; /* 0x1000000 | rgb, 0 = empty */
    double lab[LAB_MEMO][3];
} lab_memo;

static const double *memo_lab(lab_memo *m, const uint8_t c[3]) {
    uint32_t rgb = (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2], slot = (rgb * 2654435761u) >> 22;
    if (m->key[slot] != (rgb | 0x1000000u)) {
        m->key[slot] = rgb | 0x1000000u;
        srgb8_lab(c, m->lab[slot]);
    }
    return m->lab[slot];
}

static double lab_distance(const double la[3], const double lb[3]) {
    return sqrt((la[0] - lb[0]) * (la[0] - lb[0]) + (la[1] - lb[1]) * (la[1] - lb[1]) +
                (la[2] - lb[2]) * (la[2] - lb[2]));
}

/* Equal colours have equal Lab, so their ΔE is exactly 0 without converting them. */
static double delta_e(lab_memo *memo, const uint8_t a[3], const uint8_t b[3]) {
    if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]) return 0.0;
    double la[3], lb[3];
    memcpy(la, memo_lab(memo, a), sizeof la); /* b's slot may be a's */
    memcpy(lb, memo_lab(memo, b), sizeof lb);
    return lab_distance(la, lb);
}

double st_eval_delta_e(const uint8_t a[3], const uint8_t b[3]) {
    pthread_once(&linear_once, linear_table_init);
    double la[3], lb[3];
    srgb8_lab(a, la);
    srgb8_lab(b, lb);
    return lab_distance(la, lb);
}

void st_eval_color_ramp(double e, uint8_t rgb[3]) {
    /* yellow (threshold) → red (20) → white (≥ 40) */
    double t;
    if (e <= 20) {
        t = (e - ST_COLOR_VISIBLE_DE) / (20 - ST_COLOR_VISIBLE_DE);
        t = t < 0 ? 0 : t;
        rgb[0] = 255, rgb[1] = (uint8_t)(230 * (1 - t) + 0.5), rgb[2] = 0;
    } else {
        t = (e - 20) / 20;
        t = t > 1 ? 1 : t;
        rgb[0] = 255, rgb[1] = (uint8_t)(255 * t + 0.5), rgb[2] = (uint8_t)(255 * t + 0.5);
    }
}

void st_eval_depth_ramp(double error, uint8_t rgb[3]) {
    float v = log2f(1.0f + fabsf((float)error)) / log2f(17.0f);
    v = v > 1 ? 1 : v;
    float rg = v < 0.5f ? 2 * v : 1, b = v < 0.5f ? 0 : 2 * v - 1;
    rgb[0] = rgb[1] = (uint8_t)(rg * 255 + 0.5f);
    rgb[2] = (uint8_t)(b * 255 + 0.5f);
}

/* ---- the one pass ------------------------------------------------------------------------------------------ */

/* What one chunk of rows counted: integers, so the totals do not depend on how the rows were split. */
typedef struct chunk_counts {
    uint64_t see, sky, incoherent, wrong, both, color_sum, visible;
} chunk_counts;

typedef struct score_job {
    const st_score_desc *d;
    const uint8_t *flags, *ref_flags;
    float *diff;           /* a chunk's differences at its first pixel's index, compacted afterwards */
    chunk_counts *counts;  /* per chunk */
    size_t chunks;
} score_job;

static void depth_pixel(const st_score_desc *d, size_t k, bool counted_incoherent, uint8_t *o) {
    bool m = solid(d->distance[k]), r = solid(d->ref_distance[k]);
    uint8_t c[3];
    if (r && !m) c[0] = 255, c[1] = 0, c[2] = 0;                     /* see-through */
    else if (!r && m) c[0] = 0, c[1] = 0, c[2] = 255;                /* covers-sky */
    else if (!r) c[0] = 48, c[1] = 48, c[2] = 48;                    /* sky in both */
    else if (counted_incoherent) c[0] = 255, c[1] = 0, c[2] = 255;   /* counted incoherent */
    else st_eval_depth_ramp(d->distance[k] - d->ref_distance[k], c);
    o[0] = c[0], o[1] = c[1], o[2] = c[2], o[3] = 255;
}

static void color_pixel(double e, const uint8_t *b, uint8_t *o) {
    if (e > ST_COLOR_VISIBLE_DE) {
        st_eval_color_ramp(e, o);
    } else { /* the reference, grey and dim: where the picture is, without competing with the errors */
        uint8_t g = (uint8_t)(0.35 * (0.299 * b[0] + 0.587 * b[1] + 0.114 * b[2]) + 0.5);
        o[0] = o[1] = o[2] = g;
    }
    o[3] = 255;
}

static void score_chunks(void *user, size_t begin, size_t end) {
    score_job *job = user;
    const st_score_desc *d = job->d;
    const size_t w = d->width;
    lab_memo *memo = d->rgba ? calloc(1, sizeof *memo) : NULL;
    for (size_t c = begin; c < end; c++) {
        chunk_counts n = {0};
        size_t k0 = c * ROWS_PER_CHUNK * w, k1 = (c + 1) * ROWS_PER_CHUNK * w;
        if (k1 > w * d->height) k1 = w * d->height;
        float *diff = job->diff ? job->diff + k0 : NULL;
        for (size_t k = k0; k < k1; k++) {
            bool incoherent = false;
            if (d->distance) {
                bool m = solid(d->distance[k]), r = solid(d->ref_distance[k]);
                if (r && !m) n.see++;
                if (!r && m) n.sky++;
                if (r && m) {
                    float e = fabsf(d->distance[k] - d->ref_distance[k]), tol = ST_COHERENCE_REL * d->ref_distance[k];
                    diff[n.both++] = e;
                    if (e > (tol > 1.0f ? tol : 1.0f)) n.wrong++;
                }
                incoherent = r && job->flags[k] && !job->ref_flags[k];
                n.incoherent += incoherent;
                if (d->heat) depth_pixel(d, k, incoherent, d->heat + 4 * k);
            }
            if (d->rgba) {
                const uint8_t *a = d->rgba + 4 * k, *b = d->ref_rgba + 4 * k;
                for (int q = 0; q < 3; q++) n.color_sum += (uint64_t)abs((int)a[q] - (int)b[q]);
                double e;
                if (memo) {
                    e = delta_e(memo, a, b);
                } else { /* no memory for the memo: convert every time */
                    double la[3], lb[3];
                    srgb8_lab(a, la);
                    srgb8_lab(b, lb);
                    e = a[0] == b[0] && a[1] == b[1] && a[2] == b[2] ? 0.0 : lab_distance(la, lb);
                }
                n.visible += e > ST_COLOR_VISIBLE_DE;
                if (d->delta_e) d->delta_e[k] = (float)e;
                if (d->color_heat) color_pixel(e, b, d->color_heat + 4 * k);
            }
        }
        job->counts[c] = n;
    }
    free(memo);
}

st_result st_eval_score(const st_score_desc *d, st_metrics *out, st_error *err) {
    memset(out, 0, sizeof *out);
    out->depth_p50 = out->depth_p95 = NAN;
    out->color_mae = out->color_visible = NAN;
    size_t n = (size_t)d->width * d->height;
    if (!n) return st_error_set(err, ST_ERR_INVALID, "metrics: empty image");
    if ((!d->distance) != (!d->ref_distance) || (!d->rgba) != (!d->ref_rgba) || (d->heat && !d->distance) ||
        ((d->color_heat || d->delta_e) && !d->rgba))
        return st_error_set(err, ST_ERR_INVALID, "metrics: an image without its reference");
    pthread_once(&linear_once, linear_table_init);
    score_job job = {.d = d, .chunks = (d->height + ROWS_PER_CHUNK - 1) / ROWS_PER_CHUNK};
    uint8_t *flags = NULL, *ref_flags = NULL;
    job.counts = calloc(job.chunks, sizeof *job.counts);
    bool ok = job.counts != NULL;
    if (d->distance && ok) {
        job.diff = malloc(n * sizeof(float));
        flags = malloc(n);
        ref_flags = d->ref_incoherent ? NULL : malloc(n);
        ok = job.diff && flags && (d->ref_incoherent || ref_flags);
    }
    if (!ok) {
        free(job.counts);
        free(job.diff);
        free(flags);
        free(ref_flags);
        return st_error_set(err, ST_ERR_NOMEM, "metrics: out of memory for %ux%u", d->width, d->height);
    }
    if (d->distance) {
        st_eval_incoherent(d->distance, d->width, d->height, flags);
        if (!d->ref_incoherent) st_eval_incoherent(d->ref_distance, d->width, d->height, ref_flags);
        job.flags = flags;
        job.ref_flags = d->ref_incoherent ? d->ref_incoherent : ref_flags;
    }
    st_parallel_for(job.chunks, 1, score_chunks, &job);
    chunk_counts t = {0};
    size_t both = 0;
    for (size_t c = 0; c < job.chunks; c++) {
        const chunk_counts *q = &job.counts[c];
        if (job.diff && q->both) /* compact: every chunk's differences after the previous ones' */
            memmove(job.diff + both, job.diff + c * ROWS_PER_CHUNK * d->width, q->both * sizeof(float));
        both += q->both;
        t.see += q->see, t.sky += q->sky, t.incoherent += q->incoherent, t.wrong += q->wrong;
        t.color_sum += q->color_sum, t.visible += q->visible;
    }
    out->pixels = n;
    if (d->distance) {
        out->both_solid = both;
        out->see_through = 100.0 * (double)t.see / (double)n;
        out->covers_sky = 100.0 * (double)t.sky / (double)n;
        out->coherence = 100.0 * (double)t.incoherent / (double)n;
        out->depth_wrong = 100.0 * (double)t.wrong / (double)n;
        static const double p[2] = {50, 95};
        double q[2] = {NAN, NAN};
        if (both) percentiles_nonnegative(job.diff, both, p, 2, q);
        out->depth_p50 = q[0];
        out->depth_p95 = q[1];
    }
    if (d->rgba) {
        out->color_mae = (double)t.color_sum / (3.0 * (double)n);
        out->color_visible = 100.0 * (double)t.visible / (double)n;
    }
    free(job.counts);
    free(job.diff);
    free(flags);
    free(ref_flags);
    return ST_OK;
}

/* ---- the metrics one at a time (the one pass, asked for one part) ------------------------------------------ */

st_result st_metrics_compute(const float *distance, const float *ref_distance, uint32_t w, uint32_t h,
                             st_metrics *out, st_error *err) {
    st_score_desc d = {.width = w, .height = h, .distance = distance, .ref_distance = ref_distance};
    return st_eval_score(&d, out, err);
}

double st_eval_color_mae(const uint8_t *a, const uint8_t *b, uint32_t w, uint32_t h, const uint8_t *mask) {
    size_t n = (size_t)w * h, used = 0;
    uint64_t sum = 0;
    for (size_t k = 0; k < n; k++) {
        if (mask && !mask[k]) continue;
        for (int c = 0; c < 3; c++) sum += (uint64_t)abs((int)a[4 * k + c] - (int)b[4 * k + c]);
        used++;
    }
    return used ? (double)sum / (3.0 * (double)used) : NAN;
}

void st_metrics_color(st_metrics *m, const uint8_t *rgba, const uint8_t *ref_rgba, uint32_t w, uint32_t h) {
    st_score_desc d = {.width = w, .height = h, .rgba = rgba, .ref_rgba = ref_rgba};
    st_metrics c;
    if (st_eval_score(&d, &c, NULL)) {
        m->color_mae = m->color_visible = NAN;
        return;
    }
    m->color_mae = c.color_mae;
    m->color_visible = c.color_visible;
}

void st_eval_color_heatmap(const uint8_t *rgba, const uint8_t *ref_rgba, uint32_t w, uint32_t h, uint8_t *out,
                           float *delta_e) {
    st_score_desc d = {.width = w, .height = h, .rgba = rgba, .ref_rgba = ref_rgba, .color_heat = out, .delta_e = delta_e};
    st_metrics c;
    st_eval_score(&d, &c, NULL);
}

st_result st_eval_heatmap(const float *distance, const float *ref_distance, uint32_t w, uint32_t h,
                          uint8_t *rgba, st_error *err) {
    st_score_desc d = {.width = w, .height = h, .distance = distance, .ref_distance = ref_distance, .heat = rgba};
    st_metrics m;
    st_result res = st_eval_score(&d, &m, err);
    return res == ST_ERR_NOMEM ? st_error_set(err, ST_ERR_NOMEM, "heat map: out of memory") : res;
}
