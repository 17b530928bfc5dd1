/* The chunked mesh of a level: per-chunk sample extraction, one greedy fit per chunk that yields all
 * three LODs (coarser LODs are prefixes of the finer fit), emission of floor, slab top, ceiling and walls
 * into compact per-chunk buffers, exact refits after edits, totals, and LOD selection. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strata/mesh.h"

/* Per-worker scratch for one chunk fit. */
typedef struct chunk_fit {
    const st_mesh *mesh;
    uint32_t n; /* samples a side: chunk_size + 1 */
    uint16_t *low, *mid, *high;
    uint8_t *dual;
    int32_t *slot[3]; /* per TIN vertex and layer: VB index, −1 = not yet emitted */
    uint8_t *slab;    /* per triangle */
    uint32_t slab_cap;
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
    for (int i = 0; i < 3; i++) free(f->slot[i]);
    free(f->slab);
    free(f->vb);
    free(f->ib);
}

static bool chunk_fit_init(chunk_fit *f, const st_mesh *mesh) {
    memset(f, 0, sizeof *f);
    f->mesh = mesh;
    f->n = mesh->chunk_size + 1;
    size_t ns = (size_t)f->n * f->n;
    f->low = malloc(ns * sizeof *f->low);
    f->mid = malloc(ns * sizeof *f->mid);
    f->high = malloc(ns * sizeof *f->high);
    f->dual = malloc(ns);
    for (int i = 0; i < 3; i++) f->slot[i] = malloc(ns * sizeof *f->slot[i]);
    f->vb = malloc(3 * ns * sizeof *f->vb); /* every sample in every layer at most */
    return f->low && f->mid && f->high && f->dual && f->slot[0] && f->slot[1] && f->slot[2] && f->vb;
}

/* Samples of chunk (cx, cy), wrapping at the level's edges so the last chunk shares its side with the
 * first. A chunk reads nothing outside its own (n)² samples: that is what makes refits exact. The heights
 * are decoded here as st_level_texel decodes them (the even texel's dual flag decides; mid = min(low +
 * (D << ST_DELTA_POWER), high)), without the material types the fit never reads; a test checks that
 * every vertex height agrees with st_level_texel. */
static void extract(chunk_fit *f, const st_level *level, uint32_t cx, uint32_t cy) {
    uint32_t C = f->mesh->chunk_size, n = f->n, wm = level->width - 1, hm = level->height - 1;
    for (uint32_t j = 0; j < n; j++) {
        size_t row = (size_t)((cy * C + j) & hm) * level->width;
        const uint8_t *hgt = level->heights + row, *meta = level->meta + row;
        size_t s = (size_t)j * n;
        for (uint32_t i = 0; i < n; i++, s++) {
            uint32_t x = (cx * C + i) & wm, even = x & ~1u;
            uint8_t me = meta[even];
            if (me & ST_META_DUAL) {
                unsigned d = ((me & ST_META_DELTA_MASK) << 2) | (meta[even + 1] & ST_META_DELTA_MASK);
                unsigned lo = hgt[even], hi = hgt[even + 1], mid = lo + (d << ST_DELTA_POWER);
                f->low[s] = (uint16_t)lo;
                f->mid[s] = (uint16_t)(mid < hi ? mid : hi);
                f->high[s] = (uint16_t)hi;
                f->dual[s] = 1;
            } else {
                f->low[s] = f->mid[s] = f->high[s] = hgt[x];
                f->dual[s] = 0;
            }
        }
    }
}

static bool push_index(chunk_fit *f, uint32_t a, uint32_t b, uint32_t c) {
    if (f->icount + 3 > f->icap) {
        uint32_t cap = f->icap ? f->icap * 2 : 4096;
        uint16_t *ib = realloc(f->ib, cap * sizeof *ib);
        if (!ib) return false;
        f->ib = ib;
        f->icap = cap;
    }
    f->ib[f->icount++] = (uint16_t)a;
    f->ib[f->icount++] = (uint16_t)b;
    f->ib[f->icount++] = (uint16_t)c;
    return true;
}

static uint32_t slot_of(chunk_fit *f, const st_tin *tin, uint32_t v, st_mesh_layer layer) {
    int32_t *s = &f->slot[layer][v];
    if (*s < 0) {
        const st_tin_vertex *tv = &tin->vertices[v];
        size_t i = (size_t)tv->y * f->n + tv->x;
        uint16_t z = layer == ST_MESH_LAYER_FLOOR ? f->low[i] : layer == ST_MESH_LAYER_CEILING ? f->mid[i] : f->high[i];
        f->vb[f->vcount] = (st_mesh_vertex){(uint8_t)tv->x, (uint8_t)tv->y, (uint8_t)z, (uint8_t)layer};
        *s = (int32_t)f->vcount++;
    }
    return (uint32_t)*s;
}

static inline uint32_t sample_of(const chunk_fit *f, const st_tin *tin, uint32_t v) {
    return (uint32_t)tin->vertices[v].y * f->n + tin->vertices[v].x;
}

/* The paper's slab rule (spec §3.6), for its metric: three dual corners, corner spreads of mid and of
 * high ≤ 8, every sample inside dual, and some sample with high > low. Under the outline metric the fit
 * already guarantees that every sample of a three-dual-corner triangle is dual. */
static bool paper_slab(const chunk_fit *f, const st_tin *tin, const st_tin_triangle *T) {
    uint32_t s[3];
    int mlo = 255, mhi = 0, hlo = 255, hhi = 0;
    for (int i = 0; i < 3; i++) {
        s[i] = sample_of(f, tin, T->v[i]);
        if (!f->dual[s[i]]) return false;
        int m = f->mid[s[i]], h = f->high[s[i]];
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
            size_t i = (size_t)y * f->n + (size_t)x;
            if (!f->dual[i]) return false;
            if (f->high[i] > f->low[i]) thick = true;
        }
    return thick;
}

/* Emits the current triangulation as LOD `lod`: floor, top, ceiling, walls, one after the other. */
static void emit_lod(chunk_fit *f, const st_tin *tin, uint32_t lod) {
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
    st_mesh_lod *L = &f->lods[lod];
    memset(L, 0, sizeof *L);
    L->first_index = f->icount;
    L->tin_vertices = tin->vertex_count;
    L->tin_triangles = tin->triangle_count;
    bool ok = true;
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        const st_tin_triangle *T = &tin->triangles[t];
        ok = ok && push_index(f, slot_of(f, tin, T->v[0], ST_MESH_LAYER_FLOOR),
                              slot_of(f, tin, T->v[1], ST_MESH_LAYER_FLOOR),
                              slot_of(f, tin, T->v[2], ST_MESH_LAYER_FLOOR));
        if (f->mesh->outline)
            f->slab[t] = f->dual[sample_of(f, tin, T->v[0])] && f->dual[sample_of(f, tin, T->v[1])] &&
                         f->dual[sample_of(f, tin, T->v[2])];
        else
            f->slab[t] = paper_slab(f, tin, T);
    }
    L->part_triangles[ST_MESH_PART_FLOOR] = tin->triangle_count;
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        if (!f->slab[t]) continue;
        const uint32_t *v = tin->triangles[t].v;
        ok = ok && push_index(f, slot_of(f, tin, v[0], ST_MESH_LAYER_TOP), slot_of(f, tin, v[1], ST_MESH_LAYER_TOP),
                              slot_of(f, tin, v[2], ST_MESH_LAYER_TOP));
        L->part_triangles[ST_MESH_PART_TOP]++;
    }
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        if (!f->slab[t]) continue;
        const uint32_t *v = tin->triangles[t].v;
        ok = ok && push_index(f, slot_of(f, tin, v[0], ST_MESH_LAYER_CEILING),
                              slot_of(f, tin, v[2], ST_MESH_LAYER_CEILING),
                              slot_of(f, tin, v[1], ST_MESH_LAYER_CEILING));
        L->part_triangles[ST_MESH_PART_CEILING]++;
    }
    /* Walls close the slab wherever the triangle across is no slab. On the chunk's sides the neighbour
     * chunk is never consulted (a chunk's mesh depends on its own samples only), so a slab crossing a side
     * is closed on both sides: those walls lie inside solid rock where no ray reaches. */
    for (uint32_t t = 0; t < tin->triangle_count; t++) {
        if (!f->slab[t]) continue;
        const st_tin_triangle *T = &tin->triangles[t];
        for (int i = 0; i < 3; i++) {
            uint32_t u = T->adj[i];
            if (u != ST_TIN_NONE && f->slab[u]) continue;
            uint32_t a = T->v[(i + 1) % 3], b = T->v[(i + 2) % 3];
            uint32_t sa = sample_of(f, tin, a), sb = sample_of(f, tin, b);
            /* outward is to the right of a→b: (a_mid, b_mid, b_high), (a_mid, b_high, a_high) */
            if (f->mid[sb] != f->high[sb]) {
                ok = ok && push_index(f, slot_of(f, tin, a, ST_MESH_LAYER_CEILING),
                                      slot_of(f, tin, b, ST_MESH_LAYER_CEILING), slot_of(f, tin, b, ST_MESH_LAYER_TOP));
                L->part_triangles[ST_MESH_PART_WALL]++;
            }
            if (f->mid[sa] != f->high[sa]) {
                ok = ok && push_index(f, slot_of(f, tin, a, ST_MESH_LAYER_CEILING), slot_of(f, tin, b, ST_MESH_LAYER_TOP),
                                      slot_of(f, tin, a, ST_MESH_LAYER_TOP));
                L->part_triangles[ST_MESH_PART_WALL]++;
            }
        }
    }
    for (int p = 0; p < ST_MESH_PART_COUNT; p++) L->triangle_count += L->part_triangles[p];
    L->vertex_count = f->vcount;
    if (!ok) f->failed = true;
}

static void on_snapshot(void *user, const st_tin *tin, uint32_t index) {
    emit_lod(user, tin, ST_MESH_LODS - 1 - index); /* snapshots come at 4τ then 2τ: LOD 2, LOD 1 */
}

/* 64-bit hash of a chunk's samples (multiply–xorshift over 8-byte words of each layer and the flags). */
static uint64_t hash_samples(const chunk_fit *f) {
    size_t ns = (size_t)f->n * f->n;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ns;
    const void *layers[4] = {f->low, f->mid, f->high, f->dual};
    size_t bytes[4] = {ns * 2, ns * 2, ns * 2, ns};
    for (int l = 0; l < 4; l++) {
        const uint8_t *p = layers[l];
        size_t i = 0;
        for (; i + 8 <= bytes[l]; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
            h ^= h >> 31;
        }
        for (; i < bytes[l]; i++) h = (h ^ p[i]) * 0x94D049BB133111EBull;
        h ^= h >> 29;
    }
    return h;
}

static st_result fit_chunk(st_mesh *mesh, const st_level *level, uint32_t ci, st_tin *tin, chunk_fit *f,
                           st_error *err) {
    double t0 = st_time_ms();
    st_mesh_chunk *ch = &mesh->chunks[ci];
    uint32_t cx = ci % mesh->chunks_x, cy = ci / mesh->chunks_x;
    extract(f, level, cx, cy);
    uint64_t hash = hash_samples(f);
    if (ch->version && ch->sample_hash == hash && !mesh->refit_unchanged) { /* same samples, same fit: nothing to do */
        ch->fit_ms = (float)(st_time_ms() - t0);
        return ST_OK;
    }
    size_t ns = (size_t)f->n * f->n;
    for (int i = 0; i < 3; i++) memset(f->slot[i], 0xFF, ns * sizeof *f->slot[i]);
    f->vcount = f->icount = 0;
    f->failed = false;
    st_tin_desc d = {
        .width = f->n,
        .height = f->n,
        .low = f->low,
        .mid = f->mid,
        .high = f->high,
        .dual = f->dual,
        .tolerance = mesh->tolerance,
        .border_tolerance = mesh->tolerance,
        .snapshot_tolerances = {4 * mesh->tolerance, 2 * mesh->tolerance},
        .snapshot = on_snapshot,
        .user = f,
        .outline = mesh->outline,
    };
    st_result r = st_tin_fit(tin, &d, err);
    if (r) return st_error_prefix(err, "chunk (%u,%u)", cx, cy);
    emit_lod(f, tin, 0);
    if (f->failed) return st_error_set(err, ST_ERR_NOMEM, "chunk (%u,%u): out of memory", cx, cy);

    st_mesh_vertex *vb = malloc((size_t)f->vcount * sizeof *vb);
    uint16_t *ib = malloc((size_t)f->icount * sizeof *ib);
    if (!vb || !ib) {
        free(vb);
        free(ib);
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
    memcpy(ch->insertions, tin->stats.insertions, sizeof ch->insertions);
    ch->max_error = (float)tin->stats.max_error;
    /* bounds: the floor spans the whole chunk; heights from the vertices (triangles interpolate them) */
    uint8_t zlo = 255, zhi = 0;
    for (uint32_t i = 0; i < f->vcount; i++) {
        zlo = vb[i].z < zlo ? vb[i].z : zlo;
        zhi = vb[i].z > zhi ? vb[i].z : zhi;
    }
    float ox = (float)(cx * mesh->chunk_size) + 0.5f, oy = (float)(cy * mesh->chunk_size) + 0.5f;
    ch->aabb_min[0] = ox, ch->aabb_min[1] = oy, ch->aabb_min[2] = zlo;
    ch->aabb_max[0] = ox + (float)mesh->chunk_size, ch->aabb_max[1] = oy + (float)mesh->chunk_size;
    ch->aabb_max[2] = zhi;
    ch->sample_hash = hash;
    ch->version++;
    ch->fit_ms = (float)(st_time_ms() - t0);
    return ST_OK;
}

typedef struct fit_job {
    st_mesh *mesh;
    const st_level *level;
    const uint32_t *list; /* chunk indices */
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
        job->results[i] = fit_chunk(job->mesh, job->level, job->list[i], tin, &f, &job->errors[i]);
    }
    st_tin_destroy(tin);
    chunk_fit_free(&f);
}

static st_result fit_list(st_mesh *mesh, const st_level *level, const uint32_t *list, uint32_t count,
                          st_error *err) {
    st_result *results = calloc(count ? count : 1, sizeof *results);
    st_error *errors = calloc(count ? count : 1, sizeof *errors);
    if (!results || !errors) {
        free(results);
        free(errors);
        return st_error_set(err, ST_ERR_NOMEM, "mesh fit: out of memory");
    }
    fit_job job = {mesh, level, list, results, errors};
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
    st_mesh *m = calloc(1, sizeof *m);
    if (!m) return st_error_set(err, ST_ERR_NOMEM, "mesh: out of memory");
    m->width = level->width;
    m->height = level->height;
    m->chunk_size = C;
    m->chunks_x = level->width / C;
    m->chunks_y = level->height / C;
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
    st_result r = fit_list(m, level, list, count, err);
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
        }
    free(mesh->chunks);
    free(mesh);
}

/* Chunk c spans samples [c·C, c·C + C]; it meets texels [t0, t1) when c ≥ ceil(t0/C) − 1 and
 * c ≤ (t1 − 1)/C. The range may start at −1: the last chunk's far side is the first column, wrapped. */
static uint32_t chunk_range(int32_t t0, int32_t t1, uint32_t C, uint32_t chunks, uint32_t *first) {
    int32_t lo = (t0 + (int32_t)C - 1) / (int32_t)C - 1, hi = (t1 - 1) / (int32_t)C;
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
    st_result r = fit_list(mesh, level, list, count, err);
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
        side_sum += c->insertions[ST_TIN_DRIVER_BORDER];
        for (int k = 0; k < ST_TIN_DRIVER_COUNT; k++) t.insertions[k] += c->insertions[k];
        if (c->max_error > t.max_error) t.max_error = c->max_error;
        t.fit_ms_sum += c->fit_ms;
    }
    /* every side is fitted by both of its chunks and every corner belongs to four (the level wraps) */
    t.insertions[ST_TIN_DRIVER_BORDER] = side_sum / 2;
    t.tin_vertices -= side_sum / 2 + 3ull * count;
    t.cpu_bytes = sizeof *mesh + (uint64_t)count * sizeof(st_mesh_chunk);
    return t;
}

uint32_t st_mesh_lod_for_distance(float dist) {
    if (!(dist >= 512.0f)) return 0;
    if (dist < 1024.0f) return 1;
    return 2;
}

uint32_t st_mesh_select_lod(const st_mesh *mesh, const st_mesh_chunk *chunk, float cam_x, float cam_y) {
    float half = 0.5f * (float)mesh->chunk_size;
    float dx = (chunk->aabb_min[0] + half) - cam_x, dy = (chunk->aabb_min[1] + half) - cam_y;
    float w = (float)mesh->width, h = (float)mesh->height;
    dx -= w * floorf(dx / w + 0.5f); /* shortest way round the wrap */
    dy -= h * floorf(dy / h + 0.5f);
    return st_mesh_lod_for_distance(sqrtf(dx * dx + dy * dy));
}
