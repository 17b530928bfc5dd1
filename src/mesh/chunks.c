/* The chunked mesh of a level: per-chunk sample extraction, one greedy fit per chunk that yields all
 * three LODs (coarser LODs are prefixes of the finer fit), emission of floor, slab top, ceiling and walls
 * into compact per-chunk buffers (slab outlines moved onto texel edges), exact refits after edits, totals,
 * and LOD selection. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/mesh.h"

/* A growable list of triangles as vertex keys: key = (chunk sample index) · 3 + layer. */
typedef struct key_list {
    uint32_t *v;
    uint32_t n, cap;
} key_list;

/* Per-worker scratch for one chunk fit. */
typedef struct chunk_fit {
    const st_mesh *mesh;
    uint32_t n;  /* chunk samples a side: chunk_size + 1 */
    uint32_t tn; /* tile samples a side: fit_tile + 1 */
    uint16_t *low, *mid, *high;     /* the chunk's samples */
    uint8_t *dual;
    uint16_t *ring_low, *ring_mid, *ring_high; /* the samples around them: [side · n + i], side 0 at x = −1, */
    uint8_t *ring;                  /* 1 at x = n, 2 at y = −1, 3 at y = n (corners are never needed); ring =
                                     * their dual flags */
    uint16_t *tlow, *tmid, *thigh;  /* the tile being fitted */
    uint8_t *tdual;
    uint16_t *olow, *omid, *ohigh;  /* the samples just outside its four sides, [side · tn + i] in st_tin_desc's */
    uint8_t *odual;                 /* side order (from the neighbouring tile or the ring) */
    uint32_t tile, tx0, ty0;        /* its index and origin in chunk samples */
    uint8_t *slab;                  /* per triangle */
    uint32_t slab_cap;
    key_list parts[ST_MESH_MAX_TILES][ST_MESH_LODS][ST_MESH_PART_COUNT]; /* walls: interior edges only */
    int16_t seam[2][3][2][ST_MESH_CHUNK + 1]; /* slab-top edges along the inner tile sides: [vertical?][line]
                                               * [towards +?][from] = to, −1 = none */
    st_mesh_tile tiles[ST_MESH_MAX_TILES];
    int32_t *slot;                  /* per key: VB index, −1 = not yet emitted */
    st_mesh_vertex *vb;
    uint32_t vcount;
    uint16_t *ib;
    uint32_t icount, icap;
    st_mesh_lod lods[ST_MESH_LODS];
    bool failed;
} chunk_fit;

double st_mesh_tolerance(double quality) {
    if (quality < 0) quality = 0;
    if (quality > 1) quality = 1;
    return exp2(4.0 * (1.0 - quality));
}

static void chunk_fit_free(chunk_fit *f) {
    free(f->low);
    free(f->mid);
    free(f->high);
    free(f->dual);
    free(f->ring);
    free(f->ring_low);
    free(f->ring_mid);
    free(f->ring_high);
    free(f->tlow);
    free(f->tmid);
    free(f->thigh);
    free(f->tdual);
    free(f->olow);
    free(f->omid);
    free(f->ohigh);
    free(f->odual);
    free(f->slab);
    for (uint32_t t = 0; t < ST_MESH_MAX_TILES; t++)
        for (uint32_t l = 0; l < ST_MESH_LODS; l++)
            for (int p = 0; p < ST_MESH_PART_COUNT; p++) free(f->parts[t][l][p].v);
    free(f->slot);
    free(f->vb);
    free(f->ib);
}

static bool chunk_fit_init(chunk_fit *f, const st_mesh *mesh) {
    memset(f, 0, sizeof *f);
    f->mesh = mesh;
    f->n = mesh->chunk_size + 1;
    f->tn = mesh->fit_tile + 1;
    size_t ns = (size_t)f->n * f->n, ts = (size_t)f->tn * f->tn;
    f->low = malloc(ns * sizeof *f->low);
    f->mid = malloc(ns * sizeof *f->mid);
    f->high = malloc(ns * sizeof *f->high);
    f->dual = malloc(ns);
    f->ring = malloc(4 * (size_t)f->n);
    f->ring_low = malloc(4 * (size_t)f->n * sizeof *f->ring_low);
    f->ring_mid = malloc(4 * (size_t)f->n * sizeof *f->ring_mid);
    f->ring_high = malloc(4 * (size_t)f->n * sizeof *f->ring_high);
    f->tlow = malloc(ts * sizeof *f->tlow);
    f->tmid = malloc(ts * sizeof *f->tmid);
    f->thigh = malloc(ts * sizeof *f->thigh);
    f->tdual = malloc(ts);
    f->olow = malloc(4 * (size_t)f->tn * sizeof *f->olow);
    f->omid = malloc(4 * (size_t)f->tn * sizeof *f->omid);
    f->ohigh = malloc(4 * (size_t)f->tn * sizeof *f->ohigh);
    f->odual = malloc(4 * (size_t)f->tn);
    f->slot = malloc(3 * ns * sizeof *f->slot);
    f->vb = malloc(3 * ns * sizeof *f->vb); /* every sample in every layer at most */
    return f->low && f->mid && f->high && f->dual && f->ring && f->ring_low && f->ring_mid && f->ring_high &&
           f->tlow && f->tmid && f->thigh && f->tdual && f->olow && f->omid && f->ohigh && f->odual && f->slot &&
           f->vb;
}

/* Texel x of a level row as the fit sees it: low, mid, high and whether it is dual. Decoded as
 * st_level_texel decodes it (the even texel's dual flag decides; mid = min(low + (D << ST_DELTA_POWER),
 * high)), without the material types the fit never reads; a test checks that every vertex height agrees
 * with st_level_texel. */
static inline uint8_t decode_texel(const uint8_t *hgt, const uint8_t *meta, uint32_t x, uint16_t *low, uint16_t *mid,
                                   uint16_t *high) {
    uint32_t even = x & ~1u;
    uint8_t me = meta[even];
    if (me & ST_META_DUAL) {
        unsigned d = ((me & ST_META_DELTA_MASK) << 2) | (meta[even + 1] & ST_META_DELTA_MASK);
        unsigned lo = hgt[even], hi = hgt[even + 1], m = lo + (d << ST_DELTA_POWER);
        *low = (uint16_t)lo;
        *mid = (uint16_t)(m < hi ? m : hi);
        *high = (uint16_t)hi;
        return 1;
    }
    *low = *mid = *high = hgt[x];
    return 0;
}

/* The texel that sample coordinate v reads along an axis of `size` texels: wrapped where the level wraps;
 * clamped to the edge where it does not, so the last chunk's far side copies the last texel instead of taking
 * the first one from the opposite edge. */
static inline uint32_t sample_texel(int64_t v, uint32_t size, bool wrap) {
    if (wrap) return (uint32_t)v & (size - 1);
    return v < 0 ? 0 : v >= (int64_t)size ? size - 1 : (uint32_t)v;
}

/* Ring entry k <- the sample at (x, y). Past the edge of an axis that does not wrap there is nothing, which
 * is not dual; its heights repeat the edge texel's, as the chunk's own far side does. */
static void ring_sample(chunk_fit *f, const st_level *level, uint32_t k, int64_t x, int64_t y) {
    uint32_t tx = sample_texel(x, level->width, level->wrap_x), ty = sample_texel(y, level->height, level->wrap_y);
    f->ring[k] = decode_texel(st_level_height_row(level, ty), st_level_meta_row(level, ty), tx, &f->ring_low[k],
                              &f->ring_mid[k], &f->ring_high[k]);
    if (!st_level_contains(level, x, y)) f->ring[k] = 0;
}

/* Samples of chunk (cx, cy), wrapping at the level's edges so the last chunk shares its side with the
 * first (along an axis that does not wrap, its far side repeats the last texel). A chunk reads nothing outside
 * its own (n)² samples but the ring of samples around them (its side vertices follow their heights, and their
 * dual flags decide the shifts of slab vertices on its sides): that is what makes refits exact. */
static void extract(chunk_fit *f, const st_level *level, uint32_t cx, uint32_t cy) {
    uint32_t C = f->mesh->chunk_size, n = f->n, W = level->width, H = level->height;
    bool wx = level->wrap_x, wy = level->wrap_y;
    int64_t x0 = (int64_t)cx * C, y0 = (int64_t)cy * C;
    for (uint32_t i = 0; i < n; i++) {
        /* the ring beside a repeated far-side sample is what lies beside the texel it repeats */
        int64_t xi = sample_texel(x0 + i, W, wx), yi = sample_texel(y0 + i, H, wy);
        ring_sample(f, level, 0 * n + i, x0 - 1, yi);
        ring_sample(f, level, 1 * n + i, x0 + n, yi);
        ring_sample(f, level, 2 * n + i, xi, y0 - 1);
        ring_sample(f, level, 3 * n + i, xi, y0 + n);
    }
    for (uint32_t j = 0; j < n; j++) {
        uint32_t y = sample_texel(y0 + j, H, wy);
        const uint8_t *hgt = st_level_height_row(level, y), *meta = st_level_meta_row(level, y);
        size_t s = (size_t)j * n;
        for (uint32_t i = 0; i < n; i++, s++)
            f->dual[s] = decode_texel(hgt, meta, sample_texel(x0 + i, W, wx), &f->low[s], &f->mid[s], &f->high[s]);
    }
}

/* Where chunk sample (i, j) is kept, i and j in [−1, n] and not both outside: the chunk's arrays or the
 * ring around them. */
static size_t sample_ref(const chunk_fit *f, int32_t i, int32_t j, const uint16_t **low, const uint16_t **mid,
                         const uint16_t **high, const uint8_t **dual) {
    int32_t n = (int32_t)f->n;
    int side = i < 0 ? 0 : i >= n ? 1 : j < 0 ? 2 : j >= n ? 3 : -1;
    if (side < 0) {
        *low = f->low, *mid = f->mid, *high = f->high, *dual = f->dual;
        return (size_t)j * f->n + (size_t)i;
    }
    *low = f->ring_low, *mid = f->ring_mid, *high = f->ring_high, *dual = f->ring;
    return (size_t)side * f->n + (size_t)(side < 2 ? j : i);
}

/* The chunk coordinates of sample k of the row just outside side `side` of tile t (st_tin_desc's side
 * order: 0 below, 1 right, 2 above, 3 left). */
static void outside_of_tile(const chunk_fit *f, uint32_t t, int side, uint32_t k, int32_t *i, int32_t *j) {
    int32_t T = (int32_t)f->mesh->fit_tile, x0 = (int32_t)((t % f->mesh->tiles_x) * f->mesh->fit_tile),
            y0 = (int32_t)((t / f->mesh->tiles_x) * f->mesh->fit_tile);
    *i = side == 1 ? x0 + T + 1 : side == 3 ? x0 - 1 : x0 + (int32_t)k;
    *j = side == 0 ? y0 - 1 : side == 2 ? y0 + T + 1 : y0 + (int32_t)k;
}

/* Copies tile t's samples out of the chunk's, and the rows just outside its sides (its fit simplifies each
 * side against the rows on both of its sides, as the tile across does). */
static void extract_tile(chunk_fit *f, uint32_t t) {
    uint32_t T = f->mesh->fit_tile, tn = f->tn;
    f->tile = t;
    f->tx0 = (t % f->mesh->tiles_x) * T;
    f->ty0 = (t / f->mesh->tiles_x) * T;
    for (uint32_t j = 0; j < tn; j++) {
        size_t src = (size_t)(f->ty0 + j) * f->n + f->tx0, dst = (size_t)j * tn;
        memcpy(f->tlow + dst, f->low + src, tn * sizeof *f->tlow);
        memcpy(f->tmid + dst, f->mid + src, tn * sizeof *f->tmid);
        memcpy(f->thigh + dst, f->high + src, tn * sizeof *f->thigh);
        memcpy(f->tdual + dst, f->dual + src, tn);
    }
    for (int side = 0; side < 4; side++)
        for (uint32_t k = 0; k < tn; k++) {
            int32_t i, j;
            const uint16_t *lo, *mi, *hi;
            const uint8_t *du;
            outside_of_tile(f, t, side, k, &i, &j);
            size_t at = sample_ref(f, i, j, &lo, &mi, &hi, &du), o = (size_t)side * tn + k;
            f->olow[o] = lo[at], f->omid[o] = mi[at], f->ohigh[o] = hi[at], f->odual[o] = du[at];
        }
}

static bool push_key3(chunk_fit *f, key_list *k, uint32_t a, uint32_t b, uint32_t c) {
    if (k->n + 3 > k->cap) {
        uint32_t cap = k->cap ? k->cap * 2 : 1024;
        uint32_t *v = realloc(k->v, cap * sizeof *v);
        if (!v) {
            f->failed = true;
            return false;
        }
        k->v = v;
        k->cap = cap;
    }
    k->v[k->n++] = a;
    k->v[k->n++] = b;
    k->v[k->n++] = c;
    return true;
}

/* The key of TIN vertex v of the current tile in `layer`. */
static inline uint32_t key_of(const chunk_fit *f, const st_tin *tin, uint32_t v, st_mesh_layer layer) {
    const st_tin_vertex *tv = &tin->vertices[v];
    return (((uint32_t)tv->y + f->ty0) * f->n + (uint32_t)tv->x + f->tx0) * 3u + (uint32_t)layer;
}

static inline uint32_t sample_of(const chunk_fit *f, const st_tin *tin, uint32_t v) {
    return (uint32_t)tin->vertices[v].y * f->tn + tin->vertices[v].x;
}

/* The paper's slab rule (spec §3.6), for its metric: three dual corners, corner spreads of mid and of
 * high ≤ 8, every sample inside dual, and some sample with high > low. Under the outline metric the fit
 * already guarantees that every sample of a three-dual-corner triangle is dual. */
static bool paper_slab(const chunk_fit *f, const st_tin *tin, const st_tin_triangle *T) {
    uint32_t s[3];
    int mlo = 255, mhi = 0, hlo = 255, hhi = 0;
    for (int i = 0; i < 3; i++) {
        s[i] = sample_of(f, tin, T->v[i]);
        if (!f->tdual[s[i]]) return false;
        int m = f->tmid[s[i]], h = f->thigh[s[i]];
        mlo = m < mlo ? m : mlo, mhi = m > mhi ? m : mhi, hlo = h < hlo ? h : hlo, hhi = h > hhi ? h : hhi;
    }
    if (mhi - mlo > 8 || hhi - hlo > 8) return false;
    const st_tin_vertex *a = &tin->vertices[T->v[0]], *b = &tin->vertices[T->v[1]], *c = &tin->vertices[T->v[2]];
    int x0 = a->x < b->x ? (a->x < c->x ? a->x : c->x) : (b->x < c->x ? b->x : c->x);
    int x1 = a->x > b->x ? (a->x > c->x ? a->x : c->x) : (b->x > c->x ? b->x : c->x);
    int y0 = a->y < b->y ? (a->y < c->y ? a->y : c->y) : (b->y < c->y ? b->y : c->y);
    int y1 = a->y > b->y ? (a->y > c->y ? a->y : c->y) : (b->y > c->y ? b->y : c->y);
    bool thick = false;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            if (st_tin_orient(a->x, a->y, b->x, b->y, x, y) < 0 || st_tin_orient(b->x, b->y, c->x, c->y, x, y) < 0 ||
                st_tin_orient(c->x, c->y, a->x, a->y, x, y) < 0)
                continue;
            size_t i = (size_t)y * f->tn + (size_t)x;
            if (!f->tdual[i]) return false;
            if (f->thigh[i] > f->tlow[i]) thick = true;
        }
    return thick;
}

/* Emits the current tile's triangulation as LOD `lod`: its floor, top, ceiling and wall lists. */
static void emit_tile_lod(chunk_fit *f, const st_tin *tin, uint32_t lod) {
    if (f->failed) return;
    if (tin->triangle_count > f->slab_cap) {
        uint8_t *s = realloc(f->slab, tin->triangle_count);
        if (!s) {
            f->failed = true;
            return;
        }
        f->slab = s;
        f->slab_cap = tin->triangle_count;
    }
    key_list *out = f->parts[f->tile][lod];
    for (int p = 0; p < ST_MESH_PART_COUNT; p++) out[p].n = 0;
    f->tiles[f->tile].tin_vertices[lod] = tin->vertex_count;
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        const uint32_t *v = tin->triangles[t].v;
        push_key3(f, &out[ST_MESH_PART_FLOOR], key_of(f, tin, v[0], ST_MESH_LAYER_FLOOR),
                  key_of(f, tin, v[1], ST_MESH_LAYER_FLOOR), key_of(f, tin, v[2], ST_MESH_LAYER_FLOOR));
        if (f->mesh->outline)
            f->slab[t] = f->tdual[sample_of(f, tin, v[0])] && f->tdual[sample_of(f, tin, v[1])] &&
                         f->tdual[sample_of(f, tin, v[2])];
        else
            f->slab[t] = paper_slab(f, tin, &tin->triangles[t]);
        if (!f->slab[t]) continue;
        push_key3(f, &out[ST_MESH_PART_TOP], key_of(f, tin, v[0], ST_MESH_LAYER_TOP),
                  key_of(f, tin, v[1], ST_MESH_LAYER_TOP), key_of(f, tin, v[2], ST_MESH_LAYER_TOP));
        push_key3(f, &out[ST_MESH_PART_CEILING], key_of(f, tin, v[0], ST_MESH_LAYER_CEILING),
                  key_of(f, tin, v[2], ST_MESH_LAYER_CEILING), key_of(f, tin, v[1], ST_MESH_LAYER_CEILING));
    }
    /* Walls close the slab wherever the triangle across is no slab; on the tile's hull they are added when
     * the chunk is assembled (hull_walls), where the neighbouring tile is known. */
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        if (!f->slab[t]) continue;
        const st_tin_triangle *T = &tin->triangles[t];
        for (int i = 0; i < 3; i++) {
            uint32_t u = T->adj[i];
            if (u == ST_TIN_NONE || f->slab[u]) continue;
            uint32_t a = T->v[(i + 1) % 3], b = T->v[(i + 2) % 3];
            uint32_t sa = sample_of(f, tin, a), sb = sample_of(f, tin, b);
            /* outward is to the right of a→b: (a_mid, b_mid, b_high), (a_mid, b_high, a_high) */
            if (f->tmid[sb] != f->thigh[sb])
                push_key3(f, &out[ST_MESH_PART_WALL], key_of(f, tin, a, ST_MESH_LAYER_CEILING),
                          key_of(f, tin, b, ST_MESH_LAYER_CEILING), key_of(f, tin, b, ST_MESH_LAYER_TOP));
            if (f->tmid[sa] != f->thigh[sa])
                push_key3(f, &out[ST_MESH_PART_WALL], key_of(f, tin, a, ST_MESH_LAYER_CEILING),
                          key_of(f, tin, b, ST_MESH_LAYER_TOP), key_of(f, tin, a, ST_MESH_LAYER_TOP));
        }
    }
    for (int p = 0; p < ST_MESH_PART_COUNT; p++) f->tiles[f->tile].part_triangles[lod][p] = out[p].n / 3;
}

static void on_snapshot(void *user, const st_tin *tin, uint32_t index) {
    emit_tile_lod(user, tin, ST_MESH_LODS - 1 - index); /* snapshots come at 4τ then 2τ: LOD 2, LOD 1 */
}

/* Whether chunk samples a and b lie on one side of tile t (then the edge a–b is on the tile's hull). */
static bool along_side(const chunk_fit *f, uint32_t t, uint32_t a, uint32_t b) {
    uint32_t T = f->mesh->fit_tile, x0 = (t % f->mesh->tiles_x) * T, y0 = (t / f->mesh->tiles_x) * T;
    uint32_t ax = a % f->n, ay = a / f->n, bx = b % f->n, by = b / f->n;
    return (ax == bx && (ax == x0 || ax == x0 + T)) || (ay == by && (ay == y0 || ay == y0 + T));
}

/* The seam record of edge a→b when it lies along an inner tile side of the chunk: NULL otherwise. */
static int16_t *seam_slot(chunk_fit *f, uint32_t a, uint32_t b, int16_t *to) {
    uint32_t T = f->mesh->fit_tile, C = f->mesh->chunk_size;
    uint32_t ax = a % f->n, ay = a / f->n, bx = b % f->n, by = b / f->n;
    if (ax == bx && ax % T == 0 && ax > 0 && ax < C) {
        *to = (int16_t)by;
        return &f->seam[1][ax / T - 1][by > ay][ay];
    }
    if (ay == by && ay % T == 0 && ay > 0 && ay < C) {
        *to = (int16_t)bx;
        return &f->seam[0][ay / T - 1][bx > ax][ax];
    }
    return NULL;
}

/* Re-reads tile t's lists from the chunk's current buffers (the tile's samples did not change). */
static void reuse_tile(chunk_fit *f, const st_mesh_chunk *ch, uint32_t t) {
    uint32_t tiles = f->mesh->tiles_x * f->mesh->tiles_x;
    f->tiles[t] = ch->tiles[t];
    for (uint32_t l = 0; l < ST_MESH_LODS; l++) {
        uint32_t first = ch->lods[l].first_index;
        for (int p = 0; p < ST_MESH_PART_COUNT; p++) {
            uint32_t at = first;
            for (uint32_t k = 0; k < t; k++) at += 3 * ch->tiles[k].part_triangles[l][p];
            key_list *out = &f->parts[t][l][p];
            out->n = 0;
            for (uint32_t k = 0; k < ch->tiles[t].part_triangles[l][p]; k++) {
                uint32_t key[3];
                for (int i = 0; i < 3; i++) {
                    const st_mesh_vertex *v = &ch->vertices[ch->indices[at + 3 * k + (uint32_t)i]];
                    key[i] = ((uint32_t)v->y * f->n + v->x) * 3u + (uint32_t)st_mesh_vertex_layer(v);
                }
                /* hull walls are derived again from the slab top when the chunk is assembled */
                if (p == ST_MESH_PART_WALL && along_side(f, t, key[0] / 3, key[1] / 3)) continue;
                if (!push_key3(f, out, key[0], key[1], key[2])) return;
            }
            for (uint32_t k = 0; k < tiles; k++) first += 3 * ch->tiles[k].part_triangles[l][p];
        }
    }
}

static bool push_index(chunk_fit *f, uint32_t a) {
    if (f->icount + 1 > f->icap) {
        uint32_t cap = f->icap ? f->icap * 2 : 4096;
        uint16_t *ib = realloc(f->ib, cap * sizeof *ib);
        if (!ib) return false;
        f->ib = ib;
        f->icap = cap;
    }
    f->ib[f->icount++] = (uint16_t)a;
    return true;
}

/* The dual flag of chunk sample (i, j), i and j in [−1, n]: the ring outside the chunk's own samples. */
static uint8_t dual_at(const chunk_fit *f, int32_t i, int32_t j) {
    int32_t n = (int32_t)f->n;
    if (i < 0) return f->ring[0 * f->n + (uint32_t)j];
    if (i >= n) return f->ring[1 * f->n + (uint32_t)j];
    if (j < 0) return f->ring[2 * f->n + (uint32_t)i];
    if (j >= n) return f->ring[3 * f->n + (uint32_t)i];
    return f->dual[(uint32_t)j * f->n + (uint32_t)i];
}

/* The half-texel shift of a slab vertex at `sample` (ST_MESH_SHIFT_*): along each axis, toward the single
 * neighbour when the other one is dual, so the slab reaches the edge of its last texel. Where both
 * neighbours are single (a one-texel-wide run) it stays. A function of the sample's four neighbours only,
 * so two chunks sharing a side give its vertices the same shift, and no two dual neighbours ever move
 * toward each other (slab triangles keep their orientation along the axis joining them). */
static uint8_t shift_of(const chunk_fit *f, uint32_t sample) {
    int32_t i = (int32_t)(sample % f->n), j = (int32_t)(sample / f->n);
    uint8_t l = dual_at(f, i - 1, j), r = dual_at(f, i + 1, j), b = dual_at(f, i, j - 1), t = dual_at(f, i, j + 1);
    uint8_t s = 0;
    if (!l && r) s |= ST_MESH_SHIFT_X_NEG;
    if (l && !r) s |= ST_MESH_SHIFT_X_POS;
    if (!b && t) s |= ST_MESH_SHIFT_Y_NEG;
    if (b && !t) s |= ST_MESH_SHIFT_Y_POS;
    return s;
}

static uint32_t slot_of(chunk_fit *f, uint32_t key) {
    int32_t *s = &f->slot[key];
    if (*s < 0) {
        uint32_t sample = key / 3, layer = key % 3;
        uint16_t z = layer == ST_MESH_LAYER_FLOOR ? f->low[sample] : layer == ST_MESH_LAYER_CEILING ? f->mid[sample] : f->high[sample];
        uint8_t tag = (uint8_t)layer;
        if (layer != ST_MESH_LAYER_FLOOR) tag |= shift_of(f, sample); /* the floor stays on texel centres */
        f->vb[f->vcount] = (st_mesh_vertex){(uint8_t)(sample % f->n), (uint8_t)(sample / f->n), (uint8_t)z, tag};
        *s = (int32_t)f->vcount++;
    }
    return (uint32_t)*s;
}

static bool push_wall(chunk_fit *f, uint32_t a, uint32_t b, uint32_t c) {
    return push_index(f, slot_of(f, a)) && push_index(f, slot_of(f, b)) && push_index(f, slot_of(f, c));
}

/* The walls on tile t's hull, from its slab top at LOD l: an edge along the chunk's side is always closed
 * (the neighbouring chunk is never consulted, so that a chunk's mesh depends on its own samples only: such
 * walls lie inside rock where no ray reaches); an edge along an inner tile side only when the tile across
 * has no slab there. Outward is to the right of a→b: (a_mid, b_mid, b_high), (a_mid, b_high, a_high). */
static uint32_t hull_walls(chunk_fit *f, uint32_t t, uint32_t l) {
    const key_list *top = &f->parts[t][l][ST_MESH_PART_TOP];
    uint32_t added = 0;
    for (uint32_t k = 0; k < top->n; k += 3)
        for (int i = 0; i < 3; i++) {
            uint32_t a = top->v[k + (uint32_t)(i + 1) % 3] / 3, b = top->v[k + (uint32_t)(i + 2) % 3] / 3;
            if (!along_side(f, t, a, b)) continue;
            int16_t to;
            const int16_t *across = seam_slot(f, b, a, &to);
            if (across && *across == to) continue; /* the reverse edge is slab top in the next tile */
            if (f->mid[b] != f->high[b]) {
                if (!push_wall(f, a * 3 + ST_MESH_LAYER_CEILING, b * 3 + ST_MESH_LAYER_CEILING, b * 3 + ST_MESH_LAYER_TOP))
                    return UINT32_MAX;
                added++;
            }
            if (f->mid[a] != f->high[a]) {
                if (!push_wall(f, a * 3 + ST_MESH_LAYER_CEILING, b * 3 + ST_MESH_LAYER_TOP, a * 3 + ST_MESH_LAYER_TOP))
                    return UINT32_MAX;
                added++;
            }
        }
    return added;
}

/* The chunk's buffers from the tiles' lists: LOD 2, 1, 0; within a LOD the parts in order, within a part
 * the tiles in row-major order (a tile's walls: interior edges, then its hull). Vertices are numbered by
 * first use, so coarser LODs use a prefix. */
static void assemble(chunk_fit *f) {
    uint32_t tiles = f->mesh->tiles_x * f->mesh->tiles_x;
    memset(f->slot, 0xFF, 3 * (size_t)f->n * f->n * sizeof *f->slot);
    f->vcount = f->icount = 0;
    for (uint32_t l = ST_MESH_LODS; l-- > 0;) {
        st_mesh_lod *L = &f->lods[l];
        memset(L, 0, sizeof *L);
        L->first_index = f->icount;
        memset(f->seam, 0xFF, sizeof f->seam);
        for (uint32_t t = 0; t < tiles; t++) {
            const key_list *top = &f->parts[t][l][ST_MESH_PART_TOP];
            for (uint32_t k = 0; k < top->n; k += 3)
                for (int i = 0; i < 3; i++) {
                    int16_t to;
                    int16_t *slot = seam_slot(f, top->v[k + (uint32_t)i] / 3, top->v[k + (uint32_t)(i + 1) % 3] / 3, &to);
                    if (slot) *slot = to;
                }
        }
        for (int p = 0; p < ST_MESH_PART_COUNT; p++)
            for (uint32_t t = 0; t < tiles; t++) {
                const key_list *k = &f->parts[t][l][p];
                for (uint32_t i = 0; i < k->n; i++)
                    if (!push_index(f, slot_of(f, k->v[i]))) {
                        f->failed = true;
                        return;
                    }
                uint32_t count = k->n / 3;
                if (p == ST_MESH_PART_WALL) {
                    uint32_t hull = hull_walls(f, t, l);
                    if (hull == UINT32_MAX) {
                        f->failed = true;
                        return;
                    }
                    count += hull;
                }
                f->tiles[t].part_triangles[l][p] = count;
                L->part_triangles[p] += count;
            }
        for (uint32_t t = 0; t < tiles; t++) L->tin_vertices += f->tiles[t].tin_vertices[l];
        L->tin_triangles = L->part_triangles[ST_MESH_PART_FLOOR];
        for (int p = 0; p < ST_MESH_PART_COUNT; p++) L->triangle_count += L->part_triangles[p];
        L->vertex_count = f->vcount;
    }
}

/* 64-bit hash of tile t's samples and of the rows just outside its sides, read in place from the chunk's
 * and the ring (multiply–xorshift over 8-byte words of each row of each layer and of the flags). */
static uint64_t hash_tile(const chunk_fit *f, uint32_t t) {
    uint32_t T = f->mesh->fit_tile, tn = f->tn;
    size_t first = (size_t)(t / f->mesh->tiles_x) * T * f->n + (size_t)(t % f->mesh->tiles_x) * T;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ tn;
    const uint8_t *layers[4] = {(const uint8_t *)(f->low + first), (const uint8_t *)(f->mid + first),
                                (const uint8_t *)(f->high + first), f->dual + first};
    size_t width[4] = {2, 2, 2, 1}; /* bytes per sample */
    for (int l = 0; l < 4; l++) {
        size_t bytes = tn * width[l], stride = f->n * width[l];
        for (uint32_t j = 0; j < tn; j++) {
            const uint8_t *p = layers[l] + j * stride;
            size_t i = 0;
            for (; i + 8 <= bytes; i += 8) {
                uint64_t v;
                memcpy(&v, p + i, 8);
                h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
                h ^= h >> 31;
            }
            for (; i < bytes; i++) h = (h ^ p[i]) * 0x94D049BB133111EBull;
        }
        h ^= h >> 29;
    }
    for (int side = 0; side < 4; side++) /* the rows just outside the tile's sides: its sides depend on them */
        for (uint32_t k = 0; k < tn; k++) {
            int32_t i, j;
            const uint16_t *lo, *mi, *hi;
            const uint8_t *du;
            outside_of_tile(f, t, side, k, &i, &j);
            size_t at = sample_ref(f, i, j, &lo, &mi, &hi, &du);
            uint64_t v = (uint64_t)lo[at] | (uint64_t)mi[at] << 16 | (uint64_t)hi[at] << 32 | (uint64_t)du[at] << 48;
            h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
            h ^= h >> 31;
        }
    return h;
}

/* 64-bit hash of the ring's dual flags (the same mixing as hash_tile). */
static uint64_t hash_ring(const chunk_fit *f) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ f->n;
    for (uint32_t i = 0; i < 4 * f->n; i++) h = (h ^ f->ring[i]) * 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

/* Whether samples [s0, s0 + count) of an axis of `size` texels (the last one wrapping to 0) meet texels
 * [t0, t1). */
static bool span_meets(uint32_t s0, uint32_t count, uint32_t size, int32_t t0, int32_t t1) {
    for (uint32_t i = 0; i < count; i++) {
        int32_t s = (int32_t)((s0 + i) % size);
        if (s >= t0 && s < t1) return true;
    }
    return false;
}

static bool tile_meets(const st_mesh *mesh, uint32_t cx, uint32_t cy, uint32_t t, const st_rect *dirty) {
    uint32_t T = mesh->fit_tile;
    uint32_t x0 = cx * mesh->chunk_size + (t % mesh->tiles_x) * T, y0 = cy * mesh->chunk_size + (t / mesh->tiles_x) * T;
    /* its samples and the rows just outside them */
    return span_meets(x0 + mesh->width - 1, T + 3, mesh->width, dirty->x0, dirty->x1) &&
           span_meets(y0 + mesh->height - 1, T + 3, mesh->height, dirty->y0, dirty->y1);
}

static st_result fit_chunk(st_mesh *mesh, const st_level *level, uint32_t ci, const st_rect *dirty, st_tin *tin,
                           chunk_fit *f, st_error *err) {
    double t0 = st_time_ms();
    st_mesh_chunk *ch = &mesh->chunks[ci];
    uint32_t cx = ci % mesh->chunks_x, cy = ci / mesh->chunks_x, tiles = mesh->tiles_x * mesh->tiles_x;
    extract(f, level, cx, cy);
    f->failed = false;
    uint32_t fitted = 0;
    uint64_t hashes[ST_MESH_MAX_TILES];
    bool refit[ST_MESH_MAX_TILES];
    /* a tile is fitted again unless its samples (and the rows just outside its sides) hash as before and
     * its triangles can be read back from the chunk's buffers (a renderer may have dropped them) */
    for (uint32_t t = 0; t < tiles; t++) {
        hashes[t] = hash_tile(f, t);
        refit[t] = !ch->version || !ch->vertices || ch->tiles[t].sample_hash != hashes[t] ||
                   (mesh->refit_unchanged && dirty && tile_meets(mesh, cx, cy, t, dirty));
        fitted += refit[t];
    }
    uint64_t ring = hash_ring(f);
    if (!fitted && ring == ch->ring_hash) { /* same samples, same fit: nothing to do */
        ch->tiles_fitted = 0;
        ch->fit_ms = (float)(st_time_ms() - t0);
        return ST_OK;
    }
    for (uint32_t t = 0; t < tiles; t++) {
        if (!refit[t]) {
            reuse_tile(f, ch, t);
            continue;
        }
        extract_tile(f, t);
        memset(&f->tiles[t], 0, sizeof f->tiles[t]);
        st_tin_desc d = {
            .width = f->tn,
            .height = f->tn,
            .low = f->tlow,
            .mid = f->tmid,
            .high = f->thigh,
            .dual = f->tdual,
            .tolerance = mesh->tolerance,
            .border_tolerance = mesh->tolerance,
            .snapshot_tolerances = {4 * mesh->tolerance, 2 * mesh->tolerance},
            .snapshot = on_snapshot,
            .user = f,
            .outline = mesh->outline,
        };
        for (int side = 0; side < 4; side++)
            d.outside[side] = (st_tin_outside){f->olow + side * f->tn, f->omid + side * f->tn,
                                               f->ohigh + side * f->tn, f->odual + side * f->tn};
        st_result r = st_tin_fit(tin, &d, err);
        if (r) return st_error_prefix(err, "chunk (%u,%u) tile %u", cx, cy, t);
        emit_tile_lod(f, tin, 0);
        f->tiles[t].sample_hash = hashes[t];
        memcpy(f->tiles[t].insertions, tin->stats.insertions, sizeof f->tiles[t].insertions);
        f->tiles[t].max_error = (float)tin->stats.max_error;
    }
    if (!f->failed) assemble(f);
    if (f->failed) return st_error_set(err, ST_ERR_NOMEM, "chunk (%u,%u): out of memory", cx, cy);

    st_mesh_vertex *vb = malloc((size_t)f->vcount * sizeof *vb);
    uint16_t *ib = malloc((size_t)f->icount * sizeof *ib);
    st_mesh_tile *tl = ch->tiles ? ch->tiles : malloc(tiles * sizeof *tl);
    if (!vb || !ib || !tl) {
        free(vb);
        free(ib);
        if (tl != ch->tiles) free(tl);
        return st_error_set(err, ST_ERR_NOMEM, "chunk (%u,%u): out of memory", cx, cy);
    }
    memcpy(vb, f->vb, (size_t)f->vcount * sizeof *vb);
    memcpy(ib, f->ib, (size_t)f->icount * sizeof *ib);
    free(ch->vertices);
    free(ch->indices);
    ch->cx = cx;
    ch->cy = cy;
    ch->vertices = vb;
    ch->indices = ib;
    ch->vertex_count = f->vcount;
    ch->index_count = f->icount;
    memcpy(ch->lods, f->lods, sizeof ch->lods);
    ch->tiles = tl;
    memcpy(ch->tiles, f->tiles, tiles * sizeof *tl);
    /* bounds: the floor spans the whole chunk, a slab vertex on a side may be shifted half a texel past it;
     * heights from the vertices (triangles interpolate them) */
    uint8_t zlo = 255, zhi = 0;
    for (uint32_t i = 0; i < f->vcount; i++) {
        zlo = vb[i].z < zlo ? vb[i].z : zlo;
        zhi = vb[i].z > zhi ? vb[i].z : zhi;
    }
    float ox = (float)(cx * mesh->chunk_size), oy = (float)(cy * mesh->chunk_size);
    ch->aabb_min[0] = ox, ch->aabb_min[1] = oy, ch->aabb_min[2] = zlo;
    ch->aabb_max[0] = ox + (float)mesh->chunk_size + 1.0f, ch->aabb_max[1] = oy + (float)mesh->chunk_size + 1.0f;
    ch->aabb_max[2] = zhi;
    ch->tiles_fitted = fitted;
    ch->ring_hash = ring;
    ch->version++;
    ch->fit_ms = (float)(st_time_ms() - t0);
    return ST_OK;
}

typedef struct fit_job {
    st_mesh *mesh;
    const st_level *level;
    const uint32_t *list; /* chunk indices */
    const st_rect *dirty; /* NULL when fitting afresh */
    st_result *results;
    st_error *errors;     /* one per list entry */
} fit_job;

static void fit_range(void *user, size_t begin, size_t end) {
    fit_job *job = user;
    st_tin *tin = NULL;
    chunk_fit f;
    bool ok = chunk_fit_init(&f, job->mesh) && st_tin_create(&tin, NULL) == ST_OK;
    for (size_t i = begin; i < end; i++) {
        if (!ok) {
            job->results[i] = st_error_set(&job->errors[i], ST_ERR_NOMEM, "mesh fit: out of memory");
            continue;
        }
        job->results[i] = fit_chunk(job->mesh, job->level, job->list[i], job->dirty, tin, &f, &job->errors[i]);
    }
    st_tin_destroy(tin);
    chunk_fit_free(&f);
}

static st_result fit_list(st_mesh *mesh, const st_level *level, const uint32_t *list, uint32_t count,
                          const st_rect *dirty, st_error *err) {
    st_result *results = calloc(count ? count : 1, sizeof *results);
    st_error *errors = calloc(count ? count : 1, sizeof *errors);
    if (!results || !errors) {
        free(results);
        free(errors);
        return st_error_set(err, ST_ERR_NOMEM, "mesh fit: out of memory");
    }
    fit_job job = {mesh, level, list, dirty, results, errors};
    st_parallel_for(count, 1, fit_range, &job);
    st_result r = ST_OK;
    for (uint32_t i = 0; i < count && !r; i++)
        if (results[i]) {
            r = results[i];
            if (err) *err = errors[i];
        }
    free(results);
    free(errors);
    return r;
}

st_result st_mesh_create(const st_level *level, const st_mesh_desc *desc, st_mesh **out, st_error *err) {
    *out = NULL;
    st_mesh_desc d = desc ? *desc : (st_mesh_desc){0};
    double tol = d.tolerance > 0 ? d.tolerance : st_mesh_tolerance(0.5);
    if (!(tol <= 1e6)) return st_error_set(err, ST_ERR_INVALID, "mesh: tolerance %g is out of range", tol);
    uint32_t C = d.chunk_size ? d.chunk_size : ST_MESH_CHUNK;
    if (!st_is_pow2(C) || C > ST_MESH_CHUNK || C < 2)
        return st_error_set(err, ST_ERR_INVALID, "mesh: chunk size %u must be a power of two from 2 to %u", C,
                            ST_MESH_CHUNK);
    if (C > level->width) C = level->width;
    if (C > level->height) C = level->height;
    if (C < 2) return st_error_set(err, ST_ERR_INVALID, "mesh: level %ux%u is too small", level->width, level->height);
    if (d.fit_tile && (!st_is_pow2(d.fit_tile) || d.fit_tile > C || d.fit_tile * 4 < C || d.fit_tile < 2))
        return st_error_set(err, ST_ERR_INVALID, "mesh: fit tile %u must be a power of two from %u to %u", d.fit_tile,
                            C / 4 > 2 ? C / 4 : 2, C);
    st_mesh *m = calloc(1, sizeof *m);
    if (!m) return st_error_set(err, ST_ERR_NOMEM, "mesh: out of memory");
    m->width = level->width;
    m->height = level->height;
    m->chunk_size = C;
    m->chunks_x = level->width / C;
    m->chunks_y = level->height / C;
    m->fit_tile = d.fit_tile ? d.fit_tile : (C >= 4 ? C / 2 : C);
    m->tiles_x = C / m->fit_tile;
    m->tolerance = tol;
    m->outline = !d.no_outline;
    uint32_t count = m->chunks_x * m->chunks_y;
    m->chunks = calloc(count, sizeof *m->chunks);
    uint32_t *list = malloc(count * sizeof *list);
    if (!m->chunks || !list) {
        free(list);
        st_mesh_destroy(m);
        return st_error_set(err, ST_ERR_NOMEM, "mesh: out of memory for %u chunks", count);
    }
    for (uint32_t i = 0; i < count; i++) list[i] = i;
    st_result r = fit_list(m, level, list, count, NULL, err);
    free(list);
    if (r) {
        st_mesh_destroy(m);
        return r;
    }
    *out = m;
    return ST_OK;
}

void st_mesh_destroy(st_mesh *mesh) {
    if (!mesh) return;
    if (mesh->chunks)
        for (uint32_t i = 0; i < mesh->chunks_x * mesh->chunks_y; i++) {
            free(mesh->chunks[i].vertices);
            free(mesh->chunks[i].indices);
            free(mesh->chunks[i].tiles);
        }
    free(mesh->chunks);
    free(mesh);
}

/* Chunk c reads samples [c·C − 1, c·C + C + 1] (its own and the ring around them); it meets texels
 * [t0, t1) when c ≥ ceil((t0 − 1)/C) − 1 and c ≤ t1/C. The range may start at −1 or end past the last chunk:
 * the map wraps. */
static uint32_t chunk_range(int32_t t0, int32_t t1, uint32_t C, uint32_t chunks, uint32_t *first) {
    int32_t lo = (t0 - 1 + 2 * (int32_t)C - 1) / (int32_t)C - 2, hi = t1 / (int32_t)C;
    uint32_t n = (uint32_t)(hi - lo + 1);
    if (n > chunks) n = chunks;
    *first = (uint32_t)((lo % (int32_t)chunks + (int32_t)chunks) % (int32_t)chunks);
    return n;
}

uint32_t st_mesh_chunks_in_rect(const st_mesh *mesh, st_rect dirty, uint32_t *list, uint32_t cap) {
    if (st_rect_empty(dirty)) return 0;
    uint32_t fx, fy;
    uint32_t nx = chunk_range(dirty.x0, dirty.x1, mesh->chunk_size, mesh->chunks_x, &fx);
    uint32_t ny = chunk_range(dirty.y0, dirty.y1, mesh->chunk_size, mesh->chunks_y, &fy);
    uint32_t count = 0;
    for (uint32_t j = 0; j < ny; j++)
        for (uint32_t i = 0; i < nx; i++) {
            if (list && count < cap)
                list[count] = ((fy + j) % mesh->chunks_y) * mesh->chunks_x + (fx + i) % mesh->chunks_x;
            count++;
        }
    return count;
}

st_result st_mesh_refit(st_mesh *mesh, const st_level *level, st_rect dirty, uint32_t *chunks_refit,
                        st_error *err) {
    if (chunks_refit) *chunks_refit = 0;
    if (level->width != mesh->width || level->height != mesh->height)
        return st_error_set(err, ST_ERR_INVALID, "mesh refit: level is %ux%u, mesh was fitted on %ux%u",
                            level->width, level->height, mesh->width, mesh->height);
    uint32_t count = st_mesh_chunks_in_rect(mesh, dirty, NULL, 0);
    if (!count) return ST_OK;
    uint32_t *list = malloc((size_t)count * sizeof *list);
    if (!list) return st_error_set(err, ST_ERR_NOMEM, "mesh refit: out of memory");
    st_mesh_chunks_in_rect(mesh, dirty, list, count);
    st_result r = fit_list(mesh, level, list, count, &dirty, err);
    free(list);
    if (!r && chunks_refit) *chunks_refit = count;
    return r;
}

st_mesh_totals st_mesh_compute_totals(const st_mesh *mesh) {
    st_mesh_totals t = {0};
    uint32_t count = mesh->chunks_x * mesh->chunks_y;
    uint64_t side_sum = 0;
    for (uint32_t i = 0; i < count; i++) {
        const st_mesh_chunk *c = &mesh->chunks[i];
        t.vertices += c->vertex_count;
        t.gpu_bytes += (uint64_t)c->vertex_count * sizeof(st_mesh_vertex) + (uint64_t)c->index_count * 2u;
        for (uint32_t l = 0; l < ST_MESH_LODS; l++) {
            t.tin_triangles[l] += c->lods[l].tin_triangles;
            t.triangles += c->lods[l].triangle_count;
            for (int p = 0; p < ST_MESH_PART_COUNT; p++) t.part_triangles[l][p] += c->lods[l].part_triangles[p];
        }
        t.tin_vertices += c->lods[0].tin_vertices;
        for (uint32_t k = 0; k < mesh->tiles_x * mesh->tiles_x; k++) {
            const st_mesh_tile *tl = &c->tiles[k];
            side_sum += tl->insertions[ST_TIN_DRIVER_BORDER];
            for (int d = 0; d < ST_TIN_DRIVER_COUNT; d++) t.insertions[d] += tl->insertions[d];
            if (tl->max_error > t.max_error) t.max_error = tl->max_error;
        }
        t.fit_ms_sum += c->fit_ms;
    }
    /* every tile side is fitted by both of its tiles and every corner belongs to four (the level wraps) */
    uint64_t tiles = (uint64_t)count * mesh->tiles_x * mesh->tiles_x;
    t.insertions[ST_TIN_DRIVER_BORDER] = side_sum / 2;
    t.tin_vertices -= side_sum / 2 + 3ull * tiles;
    t.cpu_bytes = sizeof *mesh + (uint64_t)count * sizeof(st_mesh_chunk) + tiles * sizeof(st_mesh_tile);
    return t;
}

uint32_t st_mesh_lod_for_distance(float dist) {
    if (!(dist >= 512.0f)) return 0;
    if (dist < 1024.0f) return 1;
    return 2;
}

uint32_t st_mesh_select_lod(const st_mesh *mesh, const st_mesh_chunk *chunk, float cam_x, float cam_y) {
    /* the centre of the chunk's texel centres */
    float half = 0.5f * (float)mesh->chunk_size + 0.5f;
    float dx = ((float)(chunk->cx * mesh->chunk_size) + half) - cam_x, dy = ((float)(chunk->cy * mesh->chunk_size) + half) - cam_y;
    float w = (float)mesh->width, h = (float)mesh->height;
    dx -= w * floorf(dx / w + 0.5f); /* shortest way round the wrap */
    dy -= h * floorf(dy / h + 0.5f);
    return st_mesh_lod_for_distance(sqrtf(dx * dx + dy * dy));
}
