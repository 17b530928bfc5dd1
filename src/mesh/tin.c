/* The TIN fitter: triangle-adjacency Delaunay triangulation of grid samples, Lawson flips after each
 * insertion, Douglas-Peucker sides, and greedy worst-sample insertion driven by a max-heap of per-triangle
 * candidates. Errors are exact rationals (numerator over twice the triangle area) so the stop test and
 * the outcome never depend on rounding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/mesh.h"
#include "predicates_inline.h"

typedef struct tin_cand {
    int64_t err;   /* |z·A − Σ w·z|, the error times A */
    int64_t area2; /* A: twice the triangle area */
    double prio;   /* err / area2, or +inf for a forced sample */
    int32_t sample;/* grid index, −1 = nothing to insert */
} tin_cand;

/* A heap entry is its key: the priority's bits (a priority is ≥ 0 or +inf, whose bits order as the values do),
 * then the sample and the triangle (lowest first among equal priorities) in one word. */
typedef struct tin_heap_entry {
    uint64_t prio_bits;
    uint64_t sample_tri; /* sample << 32 | triangle */
} tin_heap_entry;

typedef struct st_tin_work {
    uint32_t tri_cap, vert_cap;
    tin_cand *cand;    /* per triangle */
    int32_t *heap_pos; /* per triangle, −1 = not in the heap */
    uint32_t *stamp;   /* per triangle: last insertion that touched it */
    tin_heap_entry *heap;
    uint32_t heap_count;
    uint32_t *touched; /* triangles changed by the current insertion */
    uint32_t touched_count;
    uint32_t *stack;   /* legalisation stack: (triangle << 2) | edge */
    uint32_t stack_cap;
    uint32_t *dual_sat;/* (w+1)×(h+1) summed-area table of dual samples */
    size_t sat_cap;
    uint32_t *dp;      /* Douglas-Peucker scratch */
    uint8_t *dp_keep;
    uint32_t dp_cap;
    uint32_t epoch;
    double stop_tolerance; /* > 0: a candidate within it is never inserted and stays out of the heap */
} st_tin_work;

typedef struct tin_ctx {
    st_tin *tin;
    st_tin_work *w;
    const st_tin_desc *d;
    int W, H;
    bool layers3;
    bool narrow; /* every scan value fits 32-bit lanes and the CPU has AVX2: scan_avx2 */
    st_result failure;
} tin_ctx;

st_result st_tin_create(st_tin **out, st_error *err) {
    *out = NULL;
    st_tin *t = calloc(1, sizeof *t);
    if (t) t->work = calloc(1, sizeof *t->work);
    if (!t || !t->work) {
        free(t);
        return st_error_set(err, ST_ERR_NOMEM, "cannot allocate a TIN workspace");
    }
    *out = t;
    return ST_OK;
}

void st_tin_destroy(st_tin *tin) {
    if (!tin) return;
    st_tin_work *w = tin->work;
    if (w) {
        free(w->cand);
        free(w->heap_pos);
        free(w->stamp);
        free(w->heap);
        free(w->touched);
        free(w->stack);
        free(w->dual_sat);
        free(w->dp);
        free(w->dp_keep);
        free(w);
    }
    free(tin->vertices);
    free(tin->triangles);
    free(tin);
}

/* ---- storage --------------------------------------------------------------------------------------- */

static bool grow_triangles(tin_ctx *c, uint32_t need) {
    st_tin_work *w = c->w;
    if (need <= w->tri_cap) return true;
    uint32_t cap = w->tri_cap ? w->tri_cap : 1024;
    while (cap < need) cap *= 2;
    st_tin_triangle *t = realloc(c->tin->triangles, cap * sizeof *t);
    if (t) c->tin->triangles = t;
    tin_cand *cd = realloc(w->cand, cap * sizeof *cd);
    if (cd) w->cand = cd;
    int32_t *hp = realloc(w->heap_pos, cap * sizeof *hp);
    if (hp) w->heap_pos = hp;
    uint32_t *st = realloc(w->stamp, cap * sizeof *st);
    if (st) w->stamp = st;
    tin_heap_entry *h = realloc(w->heap, cap * sizeof *h);
    if (h) w->heap = h;
    uint32_t *to = realloc(w->touched, cap * sizeof *to);
    if (to) w->touched = to;
    if (!t || !cd || !hp || !st || !h || !to) return false;
    w->tri_cap = cap;
    return true;
}

static bool grow_vertices(tin_ctx *c, uint32_t need) {
    st_tin_work *w = c->w;
    if (need <= w->vert_cap) return true;
    uint32_t cap = w->vert_cap ? w->vert_cap : 1024;
    while (cap < need) cap *= 2;
    st_tin_vertex *v = realloc(c->tin->vertices, cap * sizeof *v);
    if (!v) return false;
    c->tin->vertices = v;
    w->vert_cap = cap;
    return true;
}

static uint32_t new_triangle(tin_ctx *c) {
    st_tin *tin = c->tin;
    uint32_t id = tin->triangle_count++;
    c->w->heap_pos[id] = -1;
    c->w->stamp[id] = 0;
    c->w->cand[id].sample = -1;
    return id;
}

static void touch(tin_ctx *c, uint32_t t) {
    st_tin_work *w = c->w;
    if (w->stamp[t] == w->epoch) return;
    w->stamp[t] = w->epoch;
    w->touched[w->touched_count++] = t;
}

static void replace_adj(st_tin *tin, uint32_t t, uint32_t old, uint32_t now) {
    if (t == ST_TIN_NONE) return;
    uint32_t *a = tin->triangles[t].adj;
    for (int i = 0; i < 3; i++)
        if (a[i] == old) {
            a[i] = now;
            return;
        }
}

static void set_tri(st_tin *tin, uint32_t t, uint32_t a, uint32_t b, uint32_t c, uint32_t na, uint32_t nb,
                    uint32_t nc) {
    st_tin_triangle *tr = &tin->triangles[t];
    tr->v[0] = a, tr->v[1] = b, tr->v[2] = c;
    tr->adj[0] = na, tr->adj[1] = nb, tr->adj[2] = nc;
}

static inline int orient_v(const st_tin *tin, uint32_t a, uint32_t b, int32_t px, int32_t py) {
    const st_tin_vertex *va = &tin->vertices[a], *vb = &tin->vertices[b];
    return tin_orient(va->x, va->y, vb->x, vb->y, px, py);
}

/* ---- Delaunay maintenance ----------------------------------------------------------------------------- */

static bool push_edge(tin_ctx *c, uint32_t t, uint32_t e) {
    st_tin_work *w = c->w;
    if (w->stack_cap == 0 || (w->stack[0] >= w->stack_cap - 1)) {
        uint32_t cap = w->stack_cap ? w->stack_cap * 2 : 256;
        uint32_t *s = realloc(w->stack, cap * sizeof *s);
        if (!s) return false;
        if (!w->stack_cap) s[0] = 0;
        w->stack = s;
        w->stack_cap = cap;
    }
    w->stack[++w->stack[0]] = (t << 2) | e;
    return true;
}

/* Lawson flips: every edge opposite the new vertex p (at index e of its triangle) is tested against the
 * triangle across it; a strictly-inside fourth point flips the edge. Cocircular points never flip, which
 * makes ties deterministic and guarantees termination. */
static bool legalize(tin_ctx *c) {
    st_tin *tin = c->tin;
    st_tin_work *w = c->w;
    while (w->stack[0]) {
        uint32_t item = w->stack[w->stack[0]--];
        uint32_t t = item >> 2, k = item & 3;
        st_tin_triangle *T = &tin->triangles[t];
        uint32_t u = T->adj[k];
        if (u == ST_TIN_NONE) continue;
        st_tin_triangle *U = &tin->triangles[u];
        uint32_t j = U->adj[0] == t ? 0 : U->adj[1] == t ? 1 : 2;
        uint32_t p = T->v[k], q = T->v[(k + 1) % 3], r = T->v[(k + 2) % 3], d = U->v[j];
        const st_tin_vertex *vp = &tin->vertices[p], *vq = &tin->vertices[q], *vr = &tin->vertices[r],
                            *vd = &tin->vertices[d];
        if (tin_incircle(vp->x, vp->y, vq->x, vq->y, vr->x, vr->y, vd->x, vd->y) <= 0) continue;
        uint32_t tq = T->adj[(k + 1) % 3], tr = T->adj[(k + 2) % 3];
        uint32_t uq = U->adj[(j + 1) % 3], ur = U->adj[(j + 2) % 3];
        /* before: t = (p, q, r), u = (d, r, q); after: t = (p, q, d), u = (p, d, r) */
        set_tri(tin, t, p, q, d, uq, u, tr);
        set_tri(tin, u, p, d, r, ur, tq, t);
        replace_adj(tin, uq, u, t);
        replace_adj(tin, tq, t, u);
        touch(c, t);
        touch(c, u);
        if (!push_edge(c, t, 0) || !push_edge(c, u, 0)) return false;
    }
    return true;
}

/* Inserts vertex p strictly inside triangle t. */
static bool insert_in_triangle(tin_ctx *c, uint32_t t, uint32_t p) {
    st_tin *tin = c->tin;
    st_tin_triangle T = tin->triangles[t];
    uint32_t a = T.v[0], b = T.v[1], cc = T.v[2], n0 = T.adj[0], n1 = T.adj[1], n2 = T.adj[2];
    uint32_t t1 = new_triangle(c), t2 = new_triangle(c);
    set_tri(tin, t, a, b, p, t1, t2, n2);
    set_tri(tin, t1, b, cc, p, t2, t, n0);
    set_tri(tin, t2, cc, a, p, t, t1, n1);
    replace_adj(tin, n0, t, t1);
    replace_adj(tin, n1, t, t2);
    touch(c, t), touch(c, t1), touch(c, t2);
    return push_edge(c, t, 2) && push_edge(c, t1, 2) && push_edge(c, t2, 2) && legalize(c);
}

/* Inserts vertex p on the edge opposite v[i] of triangle t (and of the triangle across it, if any). */
static bool insert_on_edge(tin_ctx *c, uint32_t t, uint32_t i, uint32_t p) {
    st_tin *tin = c->tin;
    st_tin_triangle T = tin->triangles[t];
    uint32_t a = T.v[i], b = T.v[(i + 1) % 3], cc = T.v[(i + 2) % 3];
    uint32_t u = T.adj[i], nb = T.adj[(i + 1) % 3], nc = T.adj[(i + 2) % 3];
    uint32_t t1 = new_triangle(c);
    uint32_t u1 = ST_TIN_NONE;
    if (u != ST_TIN_NONE) {
        st_tin_triangle U = tin->triangles[u];
        uint32_t j = U.adj[0] == t ? 0 : U.adj[1] == t ? 1 : 2;
        uint32_t d = U.v[j], ub = U.adj[(j + 1) % 3], uc = U.adj[(j + 2) % 3];
        u1 = new_triangle(c);
        /* u = (d, c, b) becomes u = (d, c, p) and u1 = (d, p, b) */
        set_tri(tin, u, d, cc, p, t1, u1, uc);
        set_tri(tin, u1, d, p, b, t, ub, u);
        replace_adj(tin, ub, u, u1);
        touch(c, u), touch(c, u1);
    }
    /* t = (a, b, c) becomes t = (a, b, p) and t1 = (a, p, c) */
    set_tri(tin, t, a, b, p, u1, t1, nc);
    set_tri(tin, t1, a, p, cc, u, nb, t);
    replace_adj(tin, nb, t, t1);
    touch(c, t), touch(c, t1);
    bool ok = push_edge(c, t, 2) && push_edge(c, t1, 1);
    if (u != ST_TIN_NONE) ok = ok && push_edge(c, u, 2) && push_edge(c, u1, 1);
    return ok && legalize(c);
}

static uint32_t add_vertex(tin_ctx *c, int x, int y) {
    uint32_t id = c->tin->vertex_count++;
    c->tin->vertices[id] = (st_tin_vertex){(uint16_t)x, (uint16_t)y};
    return id;
}

/* Inserts (x, y) into triangle t, which contains it (closed); a point on an edge splits that edge. */
static bool insert_at(tin_ctx *c, uint32_t t, int x, int y) {
    st_tin *tin = c->tin;
    uint32_t p = add_vertex(c, x, y);
    const st_tin_triangle *T = &tin->triangles[t];
    for (uint32_t i = 0; i < 3; i++)
        if (orient_v(tin, T->v[(i + 1) % 3], T->v[(i + 2) % 3], x, y) == 0) return insert_on_edge(c, t, i, p);
    return insert_in_triangle(c, t, p);
}

/* Visibility walk; terminates on a Delaunay triangulation whatever the start. */
static uint32_t locate(const st_tin *tin, uint32_t t, int x, int y) {
    for (uint32_t steps = 0; steps <= tin->triangle_count + 4; steps++) {
        const st_tin_triangle *T = &tin->triangles[t];
        uint32_t next = ST_TIN_NONE;
        for (uint32_t i = 0; i < 3; i++)
            if (orient_v(tin, T->v[(i + 1) % 3], T->v[(i + 2) % 3], x, y) < 0) {
                next = T->adj[i];
                break;
            }
        if (next == ST_TIN_NONE) return t;
        t = next;
    }
    return ST_TIN_NONE;
}

/* ---- the error metric -------------------------------------------------------------------------------- */

static uint32_t dual_in_box(const tin_ctx *c, int x0, int y0, int x1, int y1) { /* inclusive box */
    if (!c->d->dual) return 0;
    const uint32_t *s = c->w->dual_sat;
    size_t W1 = (size_t)c->W + 1;
    return s[(size_t)(y1 + 1) * W1 + (size_t)(x1 + 1)] - s[(size_t)y0 * W1 + (size_t)(x1 + 1)] -
           s[(size_t)(y1 + 1) * W1 + (size_t)x0] + s[(size_t)y0 * W1 + (size_t)x0];
}

/* |v| without a branch: the sign of an error is a coin toss, and a mispredicted branch per sample costs
 * more than the arithmetic. */
static inline int64_t iabs64(int64_t v) {
    int64_t m = v >> 63;
    return (v ^ m) - m;
}

/* One edge of a triangle being scanned row by row: k = β·y + γ and q = ⌊k/a⌋, k − q·a = r ∈ [0, a), with
 * a = |α|; side = +1 when the edge bounds rows on the left (α > 0), −1 on the right, 0 never. */
typedef struct edge_step {
    int64_t k, q, r, a, beta, dq, dr;
    int side;
} edge_step;

static inline int64_t floordiv(int64_t a, int64_t b) { /* b > 0 */
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static inline edge_step edge_step_at(int64_t alpha, int64_t beta, int64_t k) {
    edge_step e = {.k = k, .beta = beta, .side = alpha > 0 ? 1 : alpha < 0 ? -1 : 0};
    e.a = alpha > 0 ? alpha : alpha < 0 ? -alpha : 1;
    e.q = floordiv(k, e.a);
    e.r = k - e.q * e.a;
    e.dq = floordiv(beta, e.a);
    e.dr = beta - e.dq * e.a;
    return e;
}

static inline void edge_step_next(edge_step *e) {
    e->k += e->beta;
    e->q += e->dq;
    /* the carry is data-dependent: done without a branch (a mispredicted one per row costs more) */
    int64_t r = e->r + e->dr - e->a, borrow = r >> 63; /* −1 when no carry */
    e->r = r + (e->a & borrow);
    e->q += 1 + borrow;
}

static inline void edge_step_bound(const edge_step *e, int64_t *lx, int64_t *rx) {
    if (e->side > 0) {
        *lx = -e->q > *lx ? -e->q : *lx; /* ⌈−k/α⌉ */
    } else if (e->side < 0) {
        *rx = e->q < *rx ? e->q : *rx;
    }
}

/* How deep an outline sample lies: its squared distance to the nearest edge that counts (every edge of a
 * slab triangle; the edges joining two dual corners of another triangle, or all three when it has none),
 * in single precision so that the vector kernel computes the very same value. Inserting the deepest
 * offending sample first, as Douglas-Peucker splits at the farthest point, takes far fewer insertions
 * than the first one met. w² < 2^31 in a triangle of a grid of at most 129 a side. */
static inline float outline_depth(const int64_t w[3], const float inv_len2[3]) {
    float d = INFINITY;
    for (int i = 0; i < 3; i++) {
        if (!(inv_len2[i] > 0)) continue;
        float q = (float)(int32_t)(w[i] * w[i]) * inv_len2[i];
        if (q < d) d = q;
    }
    return d;
}

/* What a scan needs of one triangle, for the vector kernel. */
typedef struct scan_setup {
    const uint16_t *lo, *mi, *hi;
    const uint8_t *du;
    int W, xmin, xmax, ymin, ymax, mode;
    int64_t A, al[3], be[3], ga[3], len2[3];
    float inv_len2[3]; /* 1/|edge|² for the edges an outline sample's depth is measured from, 0 otherwise */
    int64_t dNl, eNl, cNl, dNm, eNm, cNm, dNh, eNh, cNh;
    bool slab, dd[3];
} scan_setup;

typedef struct scan_result {
    int64_t best;   /* the worst error times A; 0 = none */
    int32_t best_i; /* its sample (the lowest index among equals), −1 = none */
    bool forced;    /* best_i is an outline sample (the deepest; the first in row-major order among equals) */
    uint64_t scanned;
} scan_result;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TIN_AVX2 1
#include <immintrin.h>

/* outline_depth for eight lanes: the same conversions and products as the scalar one, so both agree. */
__attribute__((target("avx2"))) static inline __m256 outline_depth8(const __m256i w[3], const __m256 inv[3]) {
    __m256 d = _mm256_set1_ps(INFINITY);
    for (int i = 0; i < 3; i++) {
        __m256 q = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_mullo_epi32(w[i], w[i])), inv[i]);
        /* an edge that does not count has inv 0: its q is 0 and must not win the minimum */
        __m256 counts = _mm256_cmp_ps(inv[i], _mm256_setzero_ps(), _CMP_GT_OQ);
        d = _mm256_blendv_ps(d, _mm256_min_ps(d, q), counts);
    }
    return d;
}

/* The same scan, eight samples at a time over each row of the bounding box, in 32-bit lanes (st_tin_fit
 * checked that every value fits: `narrow`). A lane is in the triangle when its three edge functions are
 * ≥ 0; the error, the outline test and the tie-breaks (lowest sample index among equal errors; the deepest
 * outline sample, the first in row-major order among equals) are those of the scalar loop, so both give the
 * same candidate. Reads up to 7 samples past the box on a row, which stays inside the grid (W ≥ 8 and the
 * box ends at W − 2). */
/* v modulo 2^32 as a signed lane: a lane's start may lie outside the triangle, where sums pass 2^31; the lanes
 * then step modulo 2^32, which still gives every in-triangle value exactly. */
static inline int32_t lane32(int64_t v) {
    uint32_t u = (uint32_t)v;
    int32_t s;
    memcpy(&s, &u, sizeof s);
    return s;
}

__attribute__((target("avx2"))) static scan_result scan_avx2(const scan_setup *S) {
    scan_result R = {0, -1, false, 0};
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i Av = _mm256_set1_epi32((int32_t)S->A);
    __m256i dw[3], aw[3], n2[3], nearm[3];
    for (int i = 0; i < 3; i++) {
        aw[i] = _mm256_mullo_epi32(_mm256_set1_epi32((int32_t)S->al[i]), lane);
        dw[i] = _mm256_set1_epi32((int32_t)(8 * S->al[i]));
        /* within a texel of a slab triangle's edge; exactly on a dual edge of another triangle */
        n2[i] = _mm256_set1_epi32(S->slab ? (int32_t)S->len2[i] : 0);
        nearm[i] = _mm256_set1_epi32((S->slab || S->dd[i]) ? -1 : 0);
    }
    const __m256i dl = _mm256_set1_epi32((int32_t)S->dNl), dm = _mm256_set1_epi32((int32_t)S->dNm),
                  dh = _mm256_set1_epi32((int32_t)S->dNh);
    const __m256i al_l = _mm256_mullo_epi32(dl, lane), am_l = _mm256_mullo_epi32(dm, lane),
                  ah_l = _mm256_mullo_epi32(dh, lane);
    const __m256i d8l = _mm256_slli_epi32(dl, 3), d8m = _mm256_slli_epi32(dm, 3), d8h = _mm256_slli_epi32(dh, 3);
    const __m256i slabv = _mm256_set1_epi32(S->slab ? -1 : 0), zero = _mm256_setzero_si256();
    const __m256i minus2 = _mm256_set1_epi32(-2), eight = _mm256_set1_epi32(8);
    __m256i bestv = zero, bidx = _mm256_set1_epi32(-1);
    __m256 fbest = _mm256_set1_ps(-1.0f), inv[3]; /* the deepest outline sample per lane so far */
    __m256i fidx = _mm256_set1_epi32(-1);
    for (int i = 0; i < 3; i++) inv[i] = _mm256_set1_ps(S->inv_len2[i]);
    const int mode = S->mode;
    for (int y = S->ymin; y <= S->ymax; y++) {
        int xs = S->xmin;
        int64_t k0 = S->be[0] * y + S->ga[0], k1 = S->be[1] * y + S->ga[1], k2 = S->be[2] * y + S->ga[2];
        __m256i w0 = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(S->al[0] * xs + k0)), aw[0]);
        __m256i w1 = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(S->al[1] * xs + k1)), aw[1]);
        __m256i w2 = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(S->al[2] * xs + k2)), aw[2]);
        __m256i Nl = _mm256_add_epi32(_mm256_set1_epi32(lane32(S->dNl * xs + S->eNl * y + S->cNl)), al_l);
        __m256i Nm = zero, Nh = zero;
        if (mode) {
            Nm = _mm256_add_epi32(_mm256_set1_epi32(lane32(S->dNm * xs + S->eNm * y + S->cNm)), am_l);
            Nh = _mm256_add_epi32(_mm256_set1_epi32(lane32(S->dNh * xs + S->eNh * y + S->cNh)), ah_l);
        }
        int row = y * S->W;
        __m256i sidx = _mm256_add_epi32(_mm256_set1_epi32(row + xs), lane);
        __m256i xlim = _mm256_set1_epi32(S->xmax - xs); /* lane x − xs ≤ xmax − xs */
        __m256i xoff = lane;
        for (int x = xs; x <= S->xmax; x += 8) {
            __m256i out = _mm256_or_si256(_mm256_or_si256(w0, w1), w2); /* sign set: outside */
            __m256i in = _mm256_andnot_si256(_mm256_or_si256(_mm256_srai_epi32(out, 31), _mm256_cmpgt_epi32(xoff, xlim)),
                                             _mm256_set1_epi32(-1));
            int inbits = _mm256_movemask_ps(_mm256_castsi256_ps(in));
            {   /* no branch on inbits: whether a vector meets the triangle is a coin toss */
                R.scanned += (uint64_t)__builtin_popcount((unsigned)inbits);
                size_t s = (size_t)row + (size_t)x;
                __m256i zl = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(S->lo + s)));
                __m256i e = _mm256_abs_epi32(_mm256_sub_epi32(_mm256_mullo_epi32(zl, Av), Nl));
                if (mode) {
                    __m256i zm = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(S->mi + s)));
                    __m256i zh = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(S->hi + s)));
                    __m256i em = _mm256_abs_epi32(_mm256_sub_epi32(_mm256_mullo_epi32(zm, Av), Nm));
                    __m256i eh = _mm256_abs_epi32(_mm256_sub_epi32(_mm256_mullo_epi32(zh, Av), Nh));
                    __m256i e3 = _mm256_max_epi32(e, _mm256_max_epi32(em, eh));
                    if (mode == 1) {
                        e = e3;
                    } else {
                        __m256i du = _mm256_cmpgt_epi32(
                            _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(S->du + s))), zero);
                        __m256i three = _mm256_and_si256(slabv, du);
                        e = _mm256_blendv_epi8(e, e3, three);
                        /* a single sample under a slab triangle or a dual one under any other */
                        __m256i odd = _mm256_and_si256(_mm256_xor_si256(slabv, du), in);
                        if (!_mm256_testz_si256(odd, odd)) {
                            __m256i zc = _mm256_add_epi32(
                                _mm256_add_epi32(_mm256_cmpeq_epi32(w0, zero), _mm256_cmpeq_epi32(w1, zero)),
                                _mm256_cmpeq_epi32(w2, zero)); /* −(number of zero weights) */
                            __m256i nr = zero;
                            const __m256i ws[3] = {w0, w1, w2};
                            for (int i = 0; i < 3; i++) {
                                __m256i sq = _mm256_mullo_epi32(ws[i], ws[i]);
                                nr = _mm256_or_si256(nr, _mm256_andnot_si256(_mm256_cmpgt_epi32(sq, n2[i]), nearm[i]));
                            }
                            __m256i forced =
                                _mm256_andnot_si256(nr, _mm256_and_si256(odd, _mm256_cmpgt_epi32(zc, minus2)));
                            if (!_mm256_testz_si256(forced, forced)) {
                                __m256 dep = outline_depth8(ws, inv);
                                __m256i up = _mm256_and_si256(
                                    forced, _mm256_castps_si256(_mm256_cmp_ps(dep, fbest, _CMP_GT_OQ)));
                                fbest = _mm256_blendv_ps(fbest, dep, _mm256_castsi256_ps(up));
                                fidx = _mm256_blendv_epi8(fidx, sidx, up);
                            }
                        }
                    }
                }
                e = _mm256_and_si256(e, in);
                __m256i gt = _mm256_cmpgt_epi32(e, bestv);
                bestv = _mm256_max_epi32(bestv, e);
                bidx = _mm256_blendv_epi8(bidx, sidx, gt);
            }
            w0 = _mm256_add_epi32(w0, dw[0]);
            w1 = _mm256_add_epi32(w1, dw[1]);
            w2 = _mm256_add_epi32(w2, dw[2]);
            Nl = _mm256_add_epi32(Nl, d8l);
            if (mode) {
                Nm = _mm256_add_epi32(Nm, d8m);
                Nh = _mm256_add_epi32(Nh, d8h);
            }
            sidx = _mm256_add_epi32(sidx, eight);
            xoff = _mm256_add_epi32(xoff, eight);
        }
    }
    float fv[8];
    int32_t fi[8];
    _mm256_storeu_ps(fv, fbest);
    _mm256_storeu_si256((__m256i *)fi, fidx);
    float deepest = -1.0f;
    for (int i = 0; i < 8; i++)
        if (fi[i] >= 0 && (fv[i] > deepest || (fv[i] == deepest && fi[i] < R.best_i)))
            deepest = fv[i], R.best_i = fi[i], R.forced = true;
    if (R.forced) return R;
    int32_t bv[8], bi[8];
    _mm256_storeu_si256((__m256i *)bv, bestv);
    _mm256_storeu_si256((__m256i *)bi, bidx);
    for (int i = 0; i < 8; i++)
        if (bv[i] > R.best || (bv[i] == R.best && bv[i] > 0 && bi[i] < R.best_i)) R.best = bv[i], R.best_i = bi[i];
    return R;
}

/* The single-layer scan (no mid, high or dual layer: a DEM, or a level without slabs), eight samples at a time
 * over each row of the bounding box as scan_avx2 does, with nothing but the error to track: its setup is a
 * fraction of scan_avx2's, which matters as most triangles a fit rescans hold a handful of samples. Same
 * candidate as the scalar loop (the worst error, the lowest sample index among equals). */
__attribute__((target("avx2"))) static scan_result scan_low_avx2(const uint16_t *lo, int W, int xmin, int xmax, int ymin,
                                                                 int ymax, int64_t A, const int64_t al[3],
                                                                 const int64_t be[3], const int64_t ga[3], int64_t dN,
                                                                 int64_t eN, int64_t cN) {
    scan_result R = {0, -1, false, 0};
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), eight = _mm256_set1_epi32(8);
    const __m256i Av = _mm256_set1_epi32((int32_t)A);
    const __m256i a0 = _mm256_mullo_epi32(_mm256_set1_epi32((int32_t)al[0]), lane),
                  a1 = _mm256_mullo_epi32(_mm256_set1_epi32((int32_t)al[1]), lane),
                  a2 = _mm256_mullo_epi32(_mm256_set1_epi32((int32_t)al[2]), lane);
    const __m256i d0 = _mm256_set1_epi32((int32_t)(8 * al[0])), d1 = _mm256_set1_epi32((int32_t)(8 * al[1])),
                  d2 = _mm256_set1_epi32((int32_t)(8 * al[2]));
    const __m256i aN = _mm256_mullo_epi32(_mm256_set1_epi32((int32_t)dN), lane), d8N = _mm256_set1_epi32((int32_t)(8 * dN));
    const __m256i xlim = _mm256_set1_epi32(xmax - xmin); /* lane x − xmin ≤ xmax − xmin */
    __m256i bestv = _mm256_setzero_si256(), bidx = _mm256_set1_epi32(-1), count = _mm256_setzero_si256();
    for (int y = ymin; y <= ymax; y++) {
        __m256i w0 = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(al[0] * xmin + be[0] * y + ga[0])), a0);
        __m256i w1 = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(al[1] * xmin + be[1] * y + ga[1])), a1);
        __m256i w2 = _mm256_add_epi32(_mm256_set1_epi32((int32_t)(al[2] * xmin + be[2] * y + ga[2])), a2);
        __m256i N = _mm256_add_epi32(_mm256_set1_epi32(lane32(dN * xmin + eN * y + cN)), aN);
        __m256i sidx = _mm256_add_epi32(_mm256_set1_epi32(y * W + xmin), lane), xoff = lane;
        const uint16_t *row = lo + (size_t)y * (size_t)W;
        for (int x = xmin; x <= xmax; x += 8) {
            /* in: the three edge functions ≥ 0 (no sign bit among them) and the lane within the box */
            __m256i out = _mm256_or_si256(_mm256_or_si256(w0, w1), _mm256_or_si256(w2, _mm256_cmpgt_epi32(xoff, xlim)));
            __m256i in = _mm256_cmpgt_epi32(out, _mm256_set1_epi32(-1));
            __m256i z = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(row + x)));
            __m256i e = _mm256_and_si256(_mm256_abs_epi32(_mm256_sub_epi32(_mm256_mullo_epi32(z, Av), N)), in);
            __m256i gt = _mm256_cmpgt_epi32(e, bestv);
            bestv = _mm256_max_epi32(bestv, e);
            bidx = _mm256_blendv_epi8(bidx, sidx, gt);
            count = _mm256_sub_epi32(count, in);
            w0 = _mm256_add_epi32(w0, d0);
            w1 = _mm256_add_epi32(w1, d1);
            w2 = _mm256_add_epi32(w2, d2);
            N = _mm256_add_epi32(N, d8N);
            sidx = _mm256_add_epi32(sidx, eight);
            xoff = _mm256_add_epi32(xoff, eight);
        }
    }
    int32_t bv[8], bi[8], n[8];
    _mm256_storeu_si256((__m256i *)bv, bestv);
    _mm256_storeu_si256((__m256i *)bi, bidx);
    _mm256_storeu_si256((__m256i *)n, count);
    for (int i = 0; i < 8; i++) {
        R.scanned += (uint64_t)n[i];
        if (bv[i] > R.best || (bv[i] == R.best && bv[i] > 0 && bi[i] < R.best_i)) R.best = bv[i], R.best_i = bi[i];
    }
    return R;
}

static bool cpu_has_avx2(void) { return __builtin_cpu_supports("avx2"); }
#else
#define TIN_AVX2 0
#endif

/* What both scans of a triangle start from: its corners, twice its area, the edge functions
 * w_i = α_i x + β_i y + γ_i (the weight of vertex i, opposite edge) and its box of interior samples. */
typedef struct tri_setup {
    int64_t x[3], y[3], A, al[3], be[3], ga[3];
    int xmin, xmax, ymin, ymax;
} tri_setup;

/* Fills *s for triangle t and resets its candidate cd (no sample, area cached); false when the box holds no
 * interior sample (the sides belong to Douglas-Peucker), so there is nothing to scan. */
static inline bool triangle_setup(const tin_ctx *c, uint32_t t, tin_cand *cd, tri_setup *s) {
    const st_tin *tin = c->tin;
    const st_tin_triangle *T = &tin->triangles[t];
    for (int i = 0; i < 3; i++) s->x[i] = tin->vertices[T->v[i]].x, s->y[i] = tin->vertices[T->v[i]].y;
    int64_t x0 = s->x[0], y0 = s->y[0], x1 = s->x[1], y1 = s->y[1], x2 = s->x[2], y2 = s->y[2];
    s->A = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
    cd->sample = -1;
    cd->err = 0;
    cd->area2 = s->A;
    cd->prio = 0;
    s->al[0] = y1 - y2, s->al[1] = y2 - y0, s->al[2] = y0 - y1;
    s->be[0] = x2 - x1, s->be[1] = x0 - x2, s->be[2] = x1 - x0;
    s->ga[0] = x1 * y2 - y1 * x2, s->ga[1] = x2 * y0 - y2 * x0, s->ga[2] = x0 * y1 - y0 * x1;
    int ymin = (int)(y0 < y1 ? (y0 < y2 ? y0 : y2) : (y1 < y2 ? y1 : y2));
    int ymax = (int)(y0 > y1 ? (y0 > y2 ? y0 : y2) : (y1 > y2 ? y1 : y2));
    int xmin = (int)(x0 < x1 ? (x0 < x2 ? x0 : x2) : (x1 < x2 ? x1 : x2));
    int xmax = (int)(x0 > x1 ? (x0 > x2 ? x0 : x2) : (x1 > x2 ? x1 : x2));
    s->ymin = ymin < 1 ? 1 : ymin, s->ymax = ymax > c->H - 2 ? c->H - 2 : ymax;
    s->xmin = xmin < 1 ? 1 : xmin, s->xmax = xmax > c->W - 2 ? c->W - 2 : xmax;
    return s->ymin <= s->ymax && s->xmin <= s->xmax;
}

#if TIN_AVX2
/* scan_triangle for a single-layer grid on the vector path: the bare setup of scan_low_avx2. */
static void scan_triangle_low(tin_ctx *c, uint32_t t) {
    const uint16_t *lo = c->d->low;
    tin_cand *cd = &c->w->cand[t];
    tri_setup T;
    if (!triangle_setup(c, t, cd, &T)) return;
    int64_t x0 = T.x[0], y0 = T.y[0], x1 = T.x[1], y1 = T.y[1], x2 = T.x[2], y2 = T.y[2], A = T.A;
    const int64_t *al = T.al, *be = T.be, *ga = T.ga;
    int xmin = T.xmin, xmax = T.xmax, ymin = T.ymin, ymax = T.ymax;
    int64_t z0 = lo[y0 * c->W + x0], z1 = lo[y1 * c->W + x1], z2 = lo[y2 * c->W + x2];
    scan_result R = scan_low_avx2(lo, c->W, xmin, xmax, ymin, ymax, A, al, be, ga, al[0] * z0 + al[1] * z1 + al[2] * z2,
                                  be[0] * z0 + be[1] * z1 + be[2] * z2, ga[0] * z0 + ga[1] * z1 + ga[2] * z2);
    c->tin->stats.samples_scanned += R.scanned;
    if (R.best_i >= 0) {
        cd->sample = R.best_i;
        cd->err = R.best;
        cd->prio = (double)R.best / (double)A;
    }
}
#endif

/* Scans every non-side sample of triangle t (closed) and caches its worst one. */
static void scan_triangle(tin_ctx *c, uint32_t t) {
    const st_tin_desc *d = c->d;
    tin_cand *cd = &c->w->cand[t];
    tri_setup T;
    if (!triangle_setup(c, t, cd, &T)) return;
    int64_t x0 = T.x[0], y0 = T.y[0], x1 = T.x[1], y1 = T.y[1], x2 = T.x[2], y2 = T.y[2], A = T.A;
    const int64_t *al = T.al, *be = T.be, *ga = T.ga;
    int xmin = T.xmin, xmax = T.xmax, ymin = T.ymin, ymax = T.ymax;
    const uint16_t *lo = d->low, *mi = d->mid, *hi = d->high;
    const uint8_t *du = d->dual;
    int mode = 0; /* 0: low only; 1: three layers everywhere (paper); 2: outline metric */
    bool cd0 = false, cd1 = false, cd2 = false;
    if (c->layers3 && (!du || dual_in_box(c, xmin, ymin, xmax, ymax))) {
        mode = d->outline ? 2 : 1;
        if (du) {
            cd0 = du[y0 * c->W + x0], cd1 = du[y1 * c->W + x1], cd2 = du[y2 * c->W + x2];
        }
    }
    bool slab = cd0 && cd1 && cd2;
    /* the edge opposite vertex i joins two dual corners: dual samples on it are covered by the slab */
    bool dd[3] = {cd1 && cd2, cd2 && cd0, cd0 && cd1};
    int64_t len2[3] = {al[0] * al[0] + be[0] * be[0], al[1] * al[1] + be[1] * be[1], al[2] * al[2] + be[2] * be[2]};
    bool any_dd = dd[0] || dd[1] || dd[2];
    float inv_len2[3];
    for (int i = 0; i < 3; i++) inv_len2[i] = (slab || dd[i] || !any_dd) ? 1.0f / (float)len2[i] : 0.0f;
    int64_t zl[3] = {lo[y0 * c->W + x0], lo[y1 * c->W + x1], lo[y2 * c->W + x2]};
    int64_t dNl = al[0] * zl[0] + al[1] * zl[1] + al[2] * zl[2];
    int64_t zm[3] = {0, 0, 0}, zh[3] = {0, 0, 0}, dNm = 0, dNh = 0;
    if (mode) {
        zm[0] = mi[y0 * c->W + x0], zm[1] = mi[y1 * c->W + x1], zm[2] = mi[y2 * c->W + x2];
        zh[0] = hi[y0 * c->W + x0], zh[1] = hi[y1 * c->W + x1], zh[2] = hi[y2 * c->W + x2];
        dNm = al[0] * zm[0] + al[1] * zm[1] + al[2] * zm[2];
        dNh = al[0] * zh[0] + al[1] * zh[1] + al[2] * zh[2];
    }
    /* The interpolants as linear forms of (x, y): N = Σ w_i·z_i with w_i = α_i·x + β_i·y + γ_i, so a row
     * starts with two products instead of recomputing the three weights. */
    int64_t eNl = be[0] * zl[0] + be[1] * zl[1] + be[2] * zl[2], cNl = ga[0] * zl[0] + ga[1] * zl[1] + ga[2] * zl[2];
    int64_t eNm = 0, cNm = 0, eNh = 0, cNh = 0;
    if (mode) {
        eNm = be[0] * zm[0] + be[1] * zm[1] + be[2] * zm[2], cNm = ga[0] * zm[0] + ga[1] * zm[1] + ga[2] * zm[2];
        eNh = be[0] * zh[0] + be[1] * zh[1] + be[2] * zh[2], cNh = ga[0] * zh[0] + ga[1] * zh[1] + ga[2] * zh[2];
    }
#if TIN_AVX2
    if (c->narrow) {
        scan_setup S = {.lo = lo, .mi = mi, .hi = hi, .du = du, .W = c->W, .xmin = xmin, .xmax = xmax, .ymin = ymin,
                        .ymax = ymax, .mode = mode, .A = A, .dNl = dNl, .eNl = eNl, .cNl = cNl, .dNm = dNm,
                        .eNm = eNm, .cNm = cNm, .dNh = dNh, .eNh = eNh, .cNh = cNh, .slab = slab};
        for (int i = 0; i < 3; i++) {
            S.al[i] = al[i], S.be[i] = be[i], S.ga[i] = ga[i], S.len2[i] = len2[i], S.dd[i] = dd[i];
            S.inv_len2[i] = inv_len2[i];
        }
        scan_result R = scan_avx2(&S);
        c->tin->stats.samples_scanned += R.scanned;
        if (R.forced) {
            cd->sample = R.best_i;
            cd->prio = INFINITY;
        } else if (R.best_i >= 0) {
            cd->sample = R.best_i;
            cd->err = R.best;
            cd->prio = (double)R.best / (double)A;
        }
        return;
    }
#endif
    /* Row bounds: edge i admits x with α_i·x + k_i ≥ 0, k_i = β_i·y + γ_i, i.e. x ≥ −⌊k/α⌋ for α > 0 and
     * x ≤ ⌊k/|α|⌋ for α < 0 (a horizontal edge lies on the first or last row: the box already bounds it).
     * ⌊k/|α|⌋ and its remainder are stepped exactly from row to row, so a row costs no division; the three
     * edges are spelled out so that their state stays in registers. */
    edge_step e0 = edge_step_at(al[0], be[0], be[0] * ymin + ga[0]);
    edge_step e1 = edge_step_at(al[1], be[1], be[1] * ymin + ga[1]);
    edge_step e2 = edge_step_at(al[2], be[2], be[2] * ymin + ga[2]);
    int64_t best = 0;
    int32_t best_i = -1, deepest_i = -1;
    float deepest = -1.0f;
    uint64_t scanned = 0;
    for (int y = ymin; y <= ymax; y++) {
        if (y > ymin) {
            edge_step_next(&e0);
            edge_step_next(&e1);
            edge_step_next(&e2);
        }
        int64_t lx = xmin, rx = xmax;
        edge_step_bound(&e0, &lx, &rx);
        edge_step_bound(&e1, &lx, &rx);
        edge_step_bound(&e2, &lx, &rx);
        int64_t k[3] = {e0.k, e1.k, e2.k};
        if (lx > rx) continue;
        int64_t Nl = dNl * lx + eNl * y + cNl;
        size_t row = (size_t)y * (size_t)c->W;
        scanned += (uint64_t)(rx - lx + 1);
        if (mode == 0) {
            for (int64_t x = lx; x <= rx; x++, Nl += dNl) {
                int64_t e = (int64_t)lo[row + (size_t)x] * A - Nl;
                e = iabs64(e);
                if (e > best) best = e, best_i = (int32_t)(row + (size_t)x);
            }
            continue;
        }
        int64_t Nm = dNm * lx + eNm * y + cNm;
        int64_t Nh = dNh * lx + eNh * y + cNh;
        for (int64_t x = lx; x <= rx; x++, Nl += dNl, Nm += dNm, Nh += dNh) {
            size_t s = row + (size_t)x;
            int64_t e = (int64_t)lo[s] * A - Nl;
            e = iabs64(e);
            if (mode == 1 || (slab && du[s])) {
                int64_t em = (int64_t)mi[s] * A - Nm, eh = (int64_t)hi[s] * A - Nh;
                em = iabs64(em);
                eh = iabs64(eh);
                if (em > e) e = em;
                if (eh > e) e = eh;
            } else if (slab || du[s]) {
                /* A single sample under a slab triangle, or a dual one under any other triangle: the slab
                 * would cover what is not there or miss what is. A single sample within one texel of an
                 * edge of the slab triangle is the outline's own raggedness and is let pass (exact:
                 * w² ≤ |edge|² ⇔ d ≤ 1); a dual sample must lie on an edge joining two dual corners (then
                 * the slab, shifted onto texel edges when emitted, covers its texel). Otherwise the outline
                 * must pass through the sample. Corners are exempt. */
                int64_t w0 = al[0] * x + k[0], w1 = al[1] * x + k[1], w2 = al[2] * x + k[2];
                int zeros = (w0 == 0) + (w1 == 0) + (w2 == 0);
                bool near = slab ? (w0 * w0 <= len2[0] || w1 * w1 <= len2[1] || w2 * w2 <= len2[2])
                                 : ((w0 == 0 && dd[0]) || (w1 == 0 && dd[1]) || (w2 == 0 && dd[2]));
                if (zeros < 2 && !near) {
                    int64_t w[3] = {w0, w1, w2};
                    float depth = outline_depth(w, inv_len2);
                    if (depth > deepest) deepest = depth, deepest_i = (int32_t)s;
                }
            }
            if (e > best) best = e, best_i = (int32_t)s;
        }
    }
    c->tin->stats.samples_scanned += scanned;
    if (deepest_i >= 0) {
        cd->sample = deepest_i;
        cd->prio = INFINITY;
        return;
    }
    if (best_i >= 0) {
        cd->sample = best_i;
        cd->err = best;
        cd->prio = (double)best / (double)A;
    }
}

/* The scan a triangle takes: the bare single-layer one where it applies. */
static inline void rescan(tin_ctx *c, uint32_t t) {
#if TIN_AVX2
    if (c->narrow && !c->layers3) {
        scan_triangle_low(c, t);
        return;
    }
#endif
    scan_triangle(c, t);
}

/* ---- the heap ----------------------------------------------------------------------------------------
 * Entries carry their keys, so a comparison touches no candidate, and compare without a branch: which of two
 * priorities is larger is a coin toss, and a mispredicted branch per level costs more than the comparison. */

static inline bool heap_before(const tin_heap_entry *a, const tin_heap_entry *b) {
    return (a->prio_bits > b->prio_bits) | ((a->prio_bits == b->prio_bits) & (a->sample_tri < b->sample_tri));
}

static inline uint32_t heap_tri(const tin_heap_entry *e) { return (uint32_t)e->sample_tri; }

static inline void heap_set(st_tin_work *w, uint32_t i, tin_heap_entry e) {
    w->heap[i] = e;
    w->heap_pos[heap_tri(&e)] = (int32_t)i;
}

static void heap_up(st_tin_work *w, uint32_t i) {
    tin_heap_entry e = w->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!heap_before(&e, &w->heap[p])) break;
        heap_set(w, i, w->heap[p]);
        i = p;
    }
    heap_set(w, i, e);
}

static void heap_down(st_tin_work *w, uint32_t i) {
    tin_heap_entry e = w->heap[i];
    uint32_t n = w->heap_count;
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= n) break;
        uint32_t best = l;
        if (l + 1 < n) best += heap_before(&w->heap[l + 1], &w->heap[l]);
        if (!heap_before(&w->heap[best], &e)) break;
        heap_set(w, i, w->heap[best]);
        i = best;
    }
    heap_set(w, i, e);
}

static inline tin_heap_entry heap_entry(const tin_cand *cd, uint32_t t) {
    tin_heap_entry e;
    memcpy(&e.prio_bits, &cd->prio, sizeof e.prio_bits);
    e.sample_tri = (uint64_t)(uint32_t)cd->sample << 32 | t;
    return e;
}

/* Only candidates the fit may still insert are kept: one within the tolerance never reaches the top before the
 * fit stops (the top is the worst), so leaving it out changes no insertion and keeps the heap to the triangles
 * still open, a small part of them late in a fit. */
static void heap_update(st_tin_work *w, uint32_t t) {
    int32_t pos = w->heap_pos[t];
    const tin_cand *cd = &w->cand[t];
    bool want = cd->sample >= 0 && (isinf(cd->prio) || !(w->stop_tolerance > 0) ||
                                    !((double)cd->err <= w->stop_tolerance * (double)cd->area2));
    tin_heap_entry e = heap_entry(cd, t);
    if (pos < 0) {
        if (!want) return;
        heap_set(w, w->heap_count++, e);
        heap_up(w, w->heap_count - 1);
        return;
    }
    if (!want) {
        tin_heap_entry last = w->heap[--w->heap_count];
        w->heap_pos[t] = -1;
        if ((uint32_t)pos == w->heap_count) return;
        tin_heap_entry gone = w->heap[pos];
        heap_set(w, (uint32_t)pos, last);
        if (heap_before(&last, &gone)) heap_up(w, (uint32_t)pos);
        else heap_down(w, (uint32_t)pos);
        return;
    }
    tin_heap_entry was = w->heap[pos];
    w->heap[pos] = e;
    if (heap_before(&e, &was)) heap_up(w, (uint32_t)pos);
    else heap_down(w, (uint32_t)pos);
}

/* ---- Douglas-Peucker sides ----------------------------------------------------------------------------- */

/* A row of samples beside a side, at the side's n positions: the grid's row just inside it (idx gives the
 * grid index of position i) or the one just outside it (st_tin_outside, position i at index i). */
typedef struct side_row {
    const uint16_t *layer[3]; /* low, mid, high (mid and high NULL for a one-layer grid) */
    const uint8_t *dual;      /* NULL = no dual sample */
    const uint32_t *idx;      /* NULL = position i is index i */
} side_row;

static inline uint32_t row_at(const side_row *r, uint32_t i) { return r->idx ? r->idx[i] : i; }

/* Whether the side segment [i0, i1] (within tolerance itself) also stands for the rows beside it, and if
 * not, where to split it. A triangle on the segment whose third corner P lies on a row beside the side
 * holds no sample but its corners, so no error test bounds it between the two rows (a Delaunay fit puts
 * that corner on the nearest row, and nothing inside the grid can remove the triangle). At (x, t), t the
 * fraction of the way from the side toward the row, it departs from the surface interpolated between the
 * two rows by (1 − t)·e(x) + t·(d(P) − d(x)), e the side's own error against the segment's line and d the
 * row minus that line: so it is within the tolerance if d varies by at most the tolerance over the
 * segment, whichever sample P is. Layers as the fit measures them: low always; mid and high where a slab
 * triangle could stand on the segment (every layer under the paper's metric; under the outline metric a
 * segment with dual ends, against the row's dual samples only, since only they can be a slab corner).
 * Returns −1 when d stays within the tolerance; else the sample farthest from the chord of d between the
 * segment's ends (a step in d, such as a cliff one row inside, is cut at the step; ties to the lowest
 * index), or the middle one when d is close to linear (a twist, halved until it is flat enough). The
 * rule is symmetric in the rows, so the grids on either side of the side give the same answer. */
static int64_t beside_split(const tin_ctx *c, const uint32_t *idx, const side_row *rows, uint32_t row_count,
                            uint32_t i0, uint32_t i1, double tol) {
    const st_tin_desc *d = c->d;
    const uint16_t *side[3] = {d->low, d->mid, d->high};
    int64_t L = (int64_t)i1 - i0;
    uint32_t s0 = idx[i0], s1 = idx[i1];
    bool slab = c->layers3 && (!d->outline || (d->dual && d->dual[s0] && d->dual[s1]));
    int layers = slab ? 3 : 1;
    bool varies = false;
    int64_t best = -1, split = -1;
    for (uint32_t r = 0; r < row_count; r++) {
        const side_row *row = &rows[r];
        for (int l = 0; l < layers; l++) {
            const uint16_t *z = row->layer[l];
            int64_t e0 = (int64_t)side[l][s0], e1 = (int64_t)side[l][s1];
            /* D = d·L at every position; D0, D1 at the ends for the chord */
            int64_t D0 = (int64_t)z[row_at(row, i0)] * L - e0 * L, D1 = (int64_t)z[row_at(row, i1)] * L - e1 * L;
            int64_t lo = INT64_MAX, hi = INT64_MIN;
            for (uint32_t i = i0; i <= i1; i++) {
                uint32_t k = row_at(row, i);
                if (l > 0 && d->outline && !(row->dual && row->dual[k])) continue;
                int64_t a = (int64_t)i1 - i, b = (int64_t)i - i0;
                int64_t D = (int64_t)z[k] * L - (e0 * a + e1 * b);
                lo = D < lo ? D : lo;
                hi = D > hi ? D : hi;
                if (i == i0 || i == i1) continue;
                int64_t dev = D * L - (D0 * a + D1 * b);
                if (dev < 0) dev = -dev;
                if (dev > best || (dev == best && (int64_t)i < split)) best = dev, split = i;
            }
            if (hi > lo && (double)(hi - lo) > tol * (double)L) varies = true;
        }
    }
    if (!varies || L < 2) return -1;
    if (2.0 * (double)best <= tol * (double)L * (double)L) split = (int64_t)(i0 + i1) / 2;
    return split;
}

/* Simplifies the n samples at grid indices idx[0..n) (a straight side), against itself and the rows beside
 * it (beside_split). Marks kept points in keep[]. */
static double simplify_side(tin_ctx *c, const uint32_t *idx, uint32_t n, const side_row *rows, uint32_t row_count,
                            uint8_t *keep, double tol) {
    const st_tin_desc *d = c->d;
    memset(keep, 0, n);
    keep[0] = keep[n - 1] = 1;
    /* Under the outline metric the side keeps both ends of every dual run first: the outline crosses the
     * side there, and splitting a run at its first dual sample instead would leave a segment with one single
     * end and dual samples inside, split again at each of them in turn. */
    if (c->layers3 && d->outline && d->dual)
        for (uint32_t i = 1; i + 1 < n; i++)
            if (d->dual[idx[i]] && (!d->dual[idx[i - 1]] || !d->dual[idx[i + 1]])) keep[i] = 1;
    double max_err = 0;
    /* explicit stack of segments (two entries each) in the upper half of the dp scratch */
    uint32_t *stack = c->w->dp + n, sp = 0;
    for (uint32_t i = 0, from = 0; ++i < n;)
        if (keep[i]) {
            stack[sp++] = from, stack[sp++] = i;
            from = i;
        }
    while (sp) {
        uint32_t i1 = stack[--sp], i0 = stack[--sp];
        if (i1 - i0 < 2) continue;
        int64_t L = i1 - i0;
        uint32_t s0 = idx[i0], s1 = idx[i1];
        bool d0 = d->dual && d->dual[s0], d1 = d->dual && d->dual[s1];
        int64_t best = 0;
        int64_t split = -1;
        bool forced = false;
        for (uint32_t i = i0 + 1; i < i1; i++) {
            uint32_t s = idx[i];
            int64_t a = i1 - i, b = i - i0;
            int64_t e = (int64_t)d->low[s] * L - ((int64_t)d->low[s0] * a + (int64_t)d->low[s1] * b);
            if (e < 0) e = -e;
            if (c->layers3) {
                bool ds = d->dual && d->dual[s];
                bool three = !d->outline || (d0 && d1 && ds);
                if (d->outline && !three && (ds || (d0 && d1))) {
                    split = i, forced = true;
                    break;
                }
                if (three) {
                    int64_t em = (int64_t)d->mid[s] * L - ((int64_t)d->mid[s0] * a + (int64_t)d->mid[s1] * b);
                    int64_t eh =
                        (int64_t)d->high[s] * L - ((int64_t)d->high[s0] * a + (int64_t)d->high[s1] * b);
                    if (em < 0) em = -em;
                    if (eh < 0) eh = -eh;
                    if (em > e) e = em;
                    if (eh > e) e = eh;
                }
            }
            if (e > best) best = e, split = i;
        }
        if (!forced && (split < 0 || (double)best <= tol * (double)L)) {
            split = beside_split(c, idx, rows, row_count, i0, i1, tol);
            if (split < 0) {
                double m = (double)best / (double)L;
                if (m > max_err) max_err = m;
                continue;
            }
        }
        keep[split] = 1;
        stack[sp++] = i0, stack[sp++] = (uint32_t)split;
        stack[sp++] = (uint32_t)split, stack[sp++] = i1;
    }
    return max_err;
}

/* ---- the fit ----------------------------------------------------------------------------------------- */

static st_result check_desc(const st_tin_desc *d, st_error *err) {
    if (!d || !d->low)
        return st_error_set(err, ST_ERR_INVALID, "TIN fit: the low layer is required");
    if (d->width < 2 || d->height < 2 || d->width > ST_TIN_MAX_SIDE || d->height > ST_TIN_MAX_SIDE)
        return st_error_set(err, ST_ERR_INVALID, "TIN fit: grid %ux%u must be 2..%u samples a side", d->width,
                            d->height, ST_TIN_MAX_SIDE);
    if ((d->mid == NULL) != (d->high == NULL))
        return st_error_set(err, ST_ERR_INVALID, "TIN fit: mid and high come together");
    if (!(d->tolerance > 0) && !d->max_insertions)
        return st_error_set(err, ST_ERR_INVALID, "TIN fit: tolerance %g must be positive", d->tolerance);
    if (d->border_tolerance < 0)
        return st_error_set(err, ST_ERR_INVALID, "TIN fit: negative border tolerance");
    for (int k = 0; k < 4; k++) {
        const st_tin_outside *o = &d->outside[k];
        if (o->low && ((o->mid == NULL) != (d->mid == NULL) || (o->high == NULL) != (d->high == NULL) ||
                       (o->dual == NULL) != (d->dual == NULL)))
            return st_error_set(err, ST_ERR_INVALID, "TIN fit: the samples across side %d need the grid's layers", k);
    }
    return ST_OK;
}

static st_result nomem(st_error *err) { return st_error_set(err, ST_ERR_NOMEM, "TIN fit: out of memory"); }

st_result st_tin_fit(st_tin *tin, const st_tin_desc *desc, st_error *err) {
    st_result r = check_desc(desc, err);
    if (r) return r;
    st_tin_work *w = tin->work;
    tin_ctx c = {.tin = tin, .w = w, .d = desc, .W = (int)desc->width, .H = (int)desc->height};
    c.layers3 = desc->mid && desc->high && desc->dual;
    if (desc->mid && !desc->dual && !desc->outline) c.layers3 = true; /* paper metric, no dual flags */
    int W = c.W, H = c.H;
#if TIN_AVX2
    /* 32-bit lanes hold every scan value exactly on grids of at most 129 samples a side (S = 128), whatever the
     * 16-bit heights: inside a closed triangle w_i ≥ 0 and Σ w_i = A ≤ S², so z·A − Σ w_i·z_i = Σ w_i·(z − z_i)
     * lies within ±A·(2^16 − 1) < 2^30, and w_i² ≤ A² ≤ 2^28; the lanes step their sums modulo 2^32, which gives
     * those values exactly; a lane outside the triangle is masked off, whatever it wrapped to; and every edge
     * function in the box (and 7 samples past it) is below 2·S·(S + 7) < 2^16 in size, so the mask is exact. */
    c.narrow = W >= 8 && W <= 129 && H <= 129 && !desc->scalar_scan && cpu_has_avx2();
#endif
    tin->width = desc->width;
    tin->height = desc->height;
    tin->vertex_count = tin->triangle_count = 0;
    memset(&tin->stats, 0, sizeof tin->stats);
    w->heap_count = 0;
    w->touched_count = 0;
    w->epoch = 1;
    w->stop_tolerance = desc->tolerance;
    if (!grow_vertices(&c, (uint32_t)(W * H)) || !grow_triangles(&c, (uint32_t)(2 * W * H + 8)))
        return nomem(err);
    if (w->stack_cap == 0 && !push_edge(&c, 0, 0)) return nomem(err); /* allocates; then empty it */
    w->stack[0] = 0;

    /* dual summed-area table: lets triangles away from the slabs skip the three-layer loop */
    if (desc->dual) {
        size_t need = (size_t)(W + 1) * (size_t)(H + 1);
        if (need > w->sat_cap) {
            uint32_t *s = realloc(w->dual_sat, need * sizeof *s);
            if (!s) return nomem(err);
            w->dual_sat = s;
            w->sat_cap = need;
        }
        uint32_t *s = w->dual_sat;
        size_t W1 = (size_t)W + 1;
        memset(s, 0, W1 * sizeof *s);
        for (int y = 0; y < H; y++) {
            uint32_t run = 0;
            s[(size_t)(y + 1) * W1] = 0;
            for (int x = 0; x < W; x++) {
                run += desc->dual[(size_t)y * (size_t)W + (size_t)x] != 0;
                s[(size_t)(y + 1) * W1 + (size_t)x + 1] = s[(size_t)y * W1 + (size_t)x + 1] + run;
            }
        }
    }

    /* the four corners, two triangles */
    uint32_t v0 = add_vertex(&c, 0, 0), v1 = add_vertex(&c, W - 1, 0), v2 = add_vertex(&c, W - 1, H - 1),
             v3 = add_vertex(&c, 0, H - 1);
    uint32_t t0 = new_triangle(&c), t1 = new_triangle(&c);
    set_tri(tin, t0, v0, v1, v2, ST_TIN_NONE, t1, ST_TIN_NONE);
    set_tri(tin, t1, v0, v2, v3, ST_TIN_NONE, ST_TIN_NONE, t0);

    /* sides: bottom (+x), right (+y), top (+x), left (+y); the direction is the grid's, never the
     * triangle's, so a neighbour simplifying the same samples keeps the same ones */
    uint32_t side_max = (uint32_t)(W > H ? W : H);
    if (side_max * 4 > w->dp_cap) { /* side indices, the segment stack (2n), the row inside */
        uint32_t *dp = realloc(w->dp, (size_t)side_max * 4 * sizeof *dp);
        if (dp) w->dp = dp;
        uint8_t *keep = realloc(w->dp_keep, side_max);
        if (keep) w->dp_keep = keep;
        if (!dp || !keep) return nomem(err);
        w->dp_cap = side_max * 4;
    }
    double btol = desc->border_tolerance > 0 ? desc->border_tolerance : desc->tolerance;
    if (!(btol > 0)) btol = INFINITY;
    double max_err = 0;
    uint32_t last = t0;
    for (int side = 0; side < 4; side++) {
        bool horiz = side == 0 || side == 2;
        uint32_t n = (uint32_t)(horiz ? W : H);
        int fixed = side == 0 ? 0 : side == 1 ? W - 1 : side == 2 ? H - 1 : 0;
        /* the row just inside the side, and the one across it when the caller knows it */
        int inner = side == 0 ? 1 : side == 1 ? W - 2 : side == 2 ? H - 2 : 1;
        uint32_t *inner_idx = w->dp + 3 * (size_t)n;
        for (uint32_t i = 0; i < n; i++) {
            w->dp[i] = horiz ? (uint32_t)fixed * (uint32_t)W + i : i * (uint32_t)W + (uint32_t)fixed;
            inner_idx[i] = horiz ? (uint32_t)inner * (uint32_t)W + i : i * (uint32_t)W + (uint32_t)inner;
        }
        side_row rows[2] = {{{desc->low, desc->mid, desc->high}, desc->dual, inner_idx}};
        uint32_t row_count = desc->sides_alone ? 0 : 1;
        const st_tin_outside *o = &desc->outside[side];
        if (o->low && !desc->sides_alone) rows[row_count++] = (side_row){{o->low, o->mid, o->high}, o->dual, NULL};
        double e = simplify_side(&c, w->dp, n, rows, row_count, w->dp_keep, btol);
        if (e > max_err) max_err = e;
        for (uint32_t i = 1; i + 1 < n; i++) {
            if (!w->dp_keep[i]) continue;
            int x = horiz ? (int)i : fixed, y = horiz ? fixed : (int)i;
            uint32_t t = locate(tin, last, x, y);
            if (t == ST_TIN_NONE) return st_error_set(err, ST_ERR_INVALID, "TIN fit: point location failed");
            w->epoch++;
            w->touched_count = 0;
            if (!insert_at(&c, t, x, y)) return nomem(err);
            last = t;
            tin->stats.insertions[ST_TIN_DRIVER_BORDER]++;
        }
    }

    /* candidates for the initial triangles */
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        rescan(&c, t);
        heap_update(w, t);
    }

    uint32_t snap = 0, inserted = 0;
    bool stopped_early = false;
    for (;;) {
        if (w->heap_count == 0) break;
        uint32_t t = heap_tri(&w->heap[0]);
        const tin_cand *cd = &w->cand[t];
        bool forced = isinf(cd->prio);
        while (snap < ST_TIN_MAX_SNAPSHOTS && desc->snapshot_tolerances[snap] > 0 && !forced &&
               (double)cd->err <= desc->snapshot_tolerances[snap] * (double)cd->area2) {
            if (desc->snapshot) desc->snapshot(desc->user, tin, snap);
            snap++;
        }
        if (!forced && desc->tolerance > 0 && (double)cd->err <= desc->tolerance * (double)cd->area2) break;
        if (desc->max_insertions && inserted >= desc->max_insertions) {
            stopped_early = true;
            break;
        }
        int32_t s = cd->sample;
        int x = s % W, y = s / W;
        /* what drove this insertion (the paper's §6.3 accounting) */
        st_tin_driver drv = ST_TIN_DRIVER_FLOOR;
        if (forced) {
            drv = ST_TIN_DRIVER_OUTLINE;
        } else if (c.layers3) {
            const st_tin_triangle *T = &tin->triangles[t];
            int64_t wgt[3];
            bool all_dual = desc->dual != NULL;
            for (int i = 0; i < 3; i++) {
                const st_tin_vertex *a = &tin->vertices[T->v[(i + 1) % 3]], *b = &tin->vertices[T->v[(i + 2) % 3]];
                wgt[i] = ((int64_t)b->x - a->x) * ((int64_t)y - a->y) - ((int64_t)b->y - a->y) * ((int64_t)x - a->x);
                const st_tin_vertex *v = &tin->vertices[T->v[i]];
                if (desc->dual && !desc->dual[v->y * W + v->x]) all_dual = false;
            }
            int64_t e[3];
            const uint16_t *L[3] = {desc->low, desc->mid, desc->high};
            for (int l = 0; l < 3; l++) {
                int64_t N = 0;
                for (int i = 0; i < 3; i++) {
                    const st_tin_vertex *v = &tin->vertices[T->v[i]];
                    N += wgt[i] * L[l][v->y * W + v->x];
                }
                e[l] = (int64_t)L[l][s] * cd->area2 - N;
                if (e[l] < 0) e[l] = -e[l];
            }
            if (e[1] > e[0] || e[2] > e[0])
                drv = (all_dual && desc->dual[s]) ? ST_TIN_DRIVER_SLAB : ST_TIN_DRIVER_OUTLINE;
        }
        tin->stats.insertions[drv]++;
        w->epoch++;
        w->touched_count = 0;
        if (!insert_at(&c, t, x, y)) return nomem(err);
        inserted++;
        for (uint32_t i = 0; i < w->touched_count; i++) {
            uint32_t u = w->touched[i];
            rescan(&c, u);
            heap_update(w, u);
        }
    }
    if (w->heap_count) {
        const tin_cand *cd = &w->cand[heap_tri(&w->heap[0])];
        double e = isinf(cd->prio) ? INFINITY : cd->prio;
        if (e > max_err) max_err = e;
    } else {
        /* every candidate left is within the tolerance, out of the heap: the worst of them */
        for (uint32_t t = 0; t < tin->triangle_count; t++)
            if (w->cand[t].sample >= 0 && w->cand[t].prio > max_err) max_err = w->cand[t].prio;
    }
    tin->stats.max_error = max_err;
    if (!stopped_early)
        for (; snap < ST_TIN_MAX_SNAPSHOTS && desc->snapshot_tolerances[snap] > 0; snap++)
            if (desc->snapshot) desc->snapshot(desc->user, tin, snap);
    return ST_OK;
}

bool st_tin_check_delaunay(const st_tin *tin, st_error *err) {
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        const st_tin_triangle *T = &tin->triangles[t];
        const st_tin_vertex *a = &tin->vertices[T->v[0]], *b = &tin->vertices[T->v[1]],
                            *c = &tin->vertices[T->v[2]];
        if (tin_orient(a->x, a->y, b->x, b->y, c->x, c->y) <= 0) {
            st_error_set(err, ST_ERR_INVALID, "triangle %u is not counter-clockwise", t);
            return false;
        }
        for (int i = 0; i < 3; i++) {
            uint32_t u = T->adj[i];
            if (u == ST_TIN_NONE) continue;
            if (u >= tin->triangle_count) {
                st_error_set(err, ST_ERR_INVALID, "triangle %u: neighbour %u out of range", t, u);
                return false;
            }
            const st_tin_triangle *U = &tin->triangles[u];
            int j = U->adj[0] == t ? 0 : U->adj[1] == t ? 1 : U->adj[2] == t ? 2 : -1;
            uint32_t p = T->v[(i + 1) % 3], q = T->v[(i + 2) % 3];
            if (j < 0 || U->v[(j + 1) % 3] != q || U->v[(j + 2) % 3] != p) {
                st_error_set(err, ST_ERR_INVALID, "triangles %u and %u disagree about their shared edge", t, u);
                return false;
            }
            const st_tin_vertex *d = &tin->vertices[U->v[j]];
            if (tin_incircle(a->x, a->y, b->x, b->y, c->x, c->y, d->x, d->y) > 0) {
                st_error_set(err, ST_ERR_INVALID, "edge %u-%u of triangle %u is not Delaunay", p, q, t);
                return false;
            }
        }
    }
    return true;
}
