/* The chunked mesh: crack-free sides across every LOD pair and across fit tiles, refit after a dig equal to
 * a fresh fit bit for bit (also across the wrap, with or without the chunks' buffers to re-emit untouched
 * tiles from), the emit rules (a slab gives top, ceiling and walls covering exactly its region, also across
 * inner tile sides; a single-layer level gives none), vertex heights as the level decodes them, LOD
 * selection and export. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "strata/mesh.h"

/* Rolling hills with terraces and two slabs (one rectangular, one round) over caves. */
static st_level *hand_made_level(uint32_t w, uint32_t h) {
    st_level *l = test_flat_level(w, h, 40);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x += 2) {
            double v = 50 + 25 * sin(x * 0.13) * cos(y * 0.09) + ((x / 24 + y / 40) % 3) * 12;
            uint8_t low = (uint8_t)v;
            double dx = (double)x - w * 0.7, dy = (double)y - h * 0.3;
            bool rect = x >= 10 && x < 40 && y >= 12 && y < 30;
            bool round = dx * dx + dy * dy < 18.0 * 18.0;
            if (rect || round)
                st_level_set_dual(l, (int)x, (int)y, low, (uint8_t)(low + 40), (uint8_t)(low + 70 + (x % 5)), 1, 3);
            else {
                st_level_set_single(l, (int)x, (int)y, low, 1);
                st_level_set_single(l, (int)x + 1, (int)y, (uint8_t)(low + (y % 3)), 1);
            }
        }
    return l;
}

static st_mesh *fit_tiled(const st_level *l, double tol, uint32_t chunk, uint32_t tile, bool no_outline) {
    st_mesh *m = NULL;
    st_mesh_desc d = {.tolerance = tol, .chunk_size = chunk, .fit_tile = tile, .no_outline = no_outline};
    assert_st_ok(st_mesh_create(l, &d, &m, err));
    return m;
}

static st_mesh *fit(const st_level *l, double tol, uint32_t chunk, bool no_outline) {
    st_mesh *m = NULL;
    st_mesh_desc d = {.tolerance = tol, .chunk_size = chunk, .no_outline = no_outline};
    assert_st_ok(st_mesh_create(l, &d, &m, err));
    return m;
}

/* Positions (along, z) of the floor vertices a LOD's floor triangles use on one side of a chunk. */
static uint32_t side_sequence(const st_mesh *m, const st_mesh_chunk *c, uint32_t lod, int side, uint32_t *out) {
    uint32_t C = m->chunk_size, n = 0;
    uint8_t used[129 * 2] = {0};
    const st_mesh_lod *L = &c->lods[lod];
    for (uint32_t k = 0; k < 3 * L->part_triangles[ST_MESH_PART_FLOOR]; k++) {
        const st_mesh_vertex *v = &c->vertices[c->indices[L->first_index + k]];
        assert_int_equal(v->layer, ST_MESH_LAYER_FLOOR); /* floor vertices are never shifted */
        bool on = side == 0 ? v->x == 0 : side == 1 ? v->x == C : side == 2 ? v->y == 0 : v->y == C;
        if (on) used[side < 2 ? v->y : v->x] = 1, used[129 + (side < 2 ? v->y : v->x)] = v->z;
    }
    for (uint32_t i = 0; i <= C; i++)
        if (used[i]) out[n++] = i << 8 | used[129 + i];
    return n;
}

/* The chunk sampler decodes heights itself: every vertex of every layer must carry the height
 * st_level_texel gives (wrapped: the last chunk's far side is the first column and row). */
static void vertex_heights_match_the_level(void **state) {
    (void)state;
    st_level *l = hand_made_level(128, 64);
    for (int no_outline = 0; no_outline < 2; no_outline++) {
        st_mesh *m = fit(l, 2, 32, no_outline);
        uint32_t slab_vertices = 0;
        for (uint32_t ci = 0; ci < m->chunks_x * m->chunks_y; ci++) {
            const st_mesh_chunk *c = &m->chunks[ci];
            for (uint32_t i = 0; i < c->vertex_count; i++) {
                const st_mesh_vertex *v = &c->vertices[i];
                st_texel t = st_level_texel(l, (int)(c->cx * m->chunk_size + v->x), (int)(c->cy * m->chunk_size + v->y));
                st_mesh_layer layer = st_mesh_vertex_layer(v);
                uint8_t z = layer == ST_MESH_LAYER_FLOOR ? t.low : layer == ST_MESH_LAYER_CEILING ? t.mid : t.high;
                assert_int_equal(v->z, z);
                slab_vertices += layer != ST_MESH_LAYER_FLOOR;
            }
        }
        assert_true(slab_vertices > 0);
        st_mesh_destroy(m);
    }
    st_level_destroy(l);
}

static void sides_match_across_lods(void **state) {
    (void)state;
    st_level *l = hand_made_level(128, 64);
    for (int no_outline = 0; no_outline < 2; no_outline++) {
        st_mesh *m = fit(l, 2, 32, no_outline);
        assert_int_equal(m->chunks_x, 4);
        assert_int_equal(m->chunks_y, 2);
        uint32_t a[129], b[129];
        for (uint32_t cy = 0; cy < m->chunks_y; cy++)
            for (uint32_t cx = 0; cx < m->chunks_x; cx++) {
                const st_mesh_chunk *c = &m->chunks[cy * m->chunks_x + cx];
                const st_mesh_chunk *right = &m->chunks[cy * m->chunks_x + (cx + 1) % m->chunks_x]; /* wraps */
                const st_mesh_chunk *up = &m->chunks[((cy + 1) % m->chunks_y) * m->chunks_x + cx];
                for (uint32_t la = 0; la < ST_MESH_LODS; la++)
                    for (uint32_t lb = 0; lb < ST_MESH_LODS; lb++) {
                        uint32_t na = side_sequence(m, c, la, 1, a), nb = side_sequence(m, right, lb, 0, b);
                        assert_true(na >= 2);
                        assert_int_equal(na, nb);
                        assert_memory_equal(a, b, na * sizeof *a);
                        na = side_sequence(m, c, la, 3, a), nb = side_sequence(m, up, lb, 2, b);
                        assert_int_equal(na, nb);
                        assert_memory_equal(a, b, na * sizeof *a);
                    }
                /* coarser LODs have fewer triangles; the AABB holds every vertex */
                assert_true(c->lods[2].tin_triangles <= c->lods[1].tin_triangles);
                assert_true(c->lods[1].tin_triangles <= c->lods[0].tin_triangles);
                for (uint32_t k = 0; k < c->vertex_count; k++) {
                    assert_true(c->vertices[k].z >= c->aabb_min[2] && c->vertices[k].z <= c->aabb_max[2]);
                    assert_true(c->vertices[k].x <= m->chunk_size && c->vertices[k].y <= m->chunk_size);
                }
                for (uint32_t k = 0; k < c->index_count; k++) assert_true(c->indices[k] < c->vertex_count);
                for (uint32_t lod = 0; lod < ST_MESH_LODS; lod++)
                    for (uint32_t k = 0; k < 3 * c->lods[lod].triangle_count; k++)
                        assert_true(c->indices[c->lods[lod].first_index + k] < c->lods[lod].vertex_count);
            }
        st_mesh_destroy(m);
    }
    st_level_destroy(l);
}

static int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Within a chunk, at every LOD, the floor is watertight across its fit tiles: every floor edge off the
 * chunk's boundary is met by exactly one other floor triangle, running the other way (a tile side
 * simplified differently by its two tiles would leave a T-junction and a crack). */
static void tiles_are_crack_free(void **state) {
    (void)state;
    st_level *l = hand_made_level(128, 64);
    for (int no_outline = 0; no_outline < 2; no_outline++) {
        st_mesh *m = fit_tiled(l, 2, 32, 8, no_outline); /* 4×4 tiles per chunk */
        uint32_t C = m->chunk_size, inner = 0;
        for (uint32_t ci = 0; ci < m->chunks_x * m->chunks_y; ci++) {
            const st_mesh_chunk *c = &m->chunks[ci];
            for (uint32_t lod = 0; lod < ST_MESH_LODS; lod++) {
                const st_mesh_lod *L = &c->lods[lod];
                uint32_t n = 3 * L->part_triangles[ST_MESH_PART_FLOOR], k = 0;
                uint32_t *fwd = malloc(n * sizeof *fwd), *rev = malloc(n * sizeof *rev);
                for (uint32_t t = 0; t < n; t += 3)
                    for (uint32_t e = 0; e < 3; e++) {
                        const st_mesh_vertex *a = &c->vertices[c->indices[L->first_index + t + e]];
                        const st_mesh_vertex *b = &c->vertices[c->indices[L->first_index + t + (e + 1) % 3]];
                        bool boundary = (a->x == b->x && (a->x == 0 || a->x == C)) || (a->y == b->y && (a->y == 0 || a->y == C));
                        if (boundary) continue;
                        uint32_t pa = (uint32_t)a->y << 8 | a->x, pb = (uint32_t)b->y << 8 | b->x;
                        fwd[k] = pa << 16 | pb;
                        rev[k++] = pb << 16 | pa;
                        inner += (a->x == b->x && a->x % 8 == 0) || (a->y == b->y && a->y % 8 == 0);
                    }
                qsort(fwd, k, sizeof *fwd, compare_u32);
                qsort(rev, k, sizeof *rev, compare_u32);
                for (uint32_t i = 0; i < k; i++) {
                    assert_int_equal(fwd[i], rev[i]); /* every edge has its twin */
                    if (i) assert_true(fwd[i] != fwd[i - 1]); /* and only one */
                }
                free(fwd);
                free(rev);
            }
        }
        assert_true(inner > 0); /* edges along inner tile sides were checked */
        st_mesh_destroy(m);
    }
    st_level_destroy(l);
}

static void assert_meshes_equal(const st_mesh *a, const st_mesh *b) {
    assert_int_equal(a->chunks_x * a->chunks_y, b->chunks_x * b->chunks_y);
    for (uint32_t i = 0; i < a->chunks_x * a->chunks_y; i++) {
        const st_mesh_chunk *x = &a->chunks[i], *y = &b->chunks[i];
        assert_int_equal(x->vertex_count, y->vertex_count);
        assert_int_equal(x->index_count, y->index_count);
        assert_memory_equal(x->vertices, y->vertices, x->vertex_count * sizeof *x->vertices);
        assert_memory_equal(x->indices, y->indices, x->index_count * sizeof *x->indices);
        assert_memory_equal(x->lods, y->lods, sizeof x->lods);
        assert_memory_equal(x->aabb_min, y->aabb_min, sizeof x->aabb_min);
        assert_memory_equal(x->aabb_max, y->aabb_max, sizeof x->aabb_max);
    }
}

/* Refits equal fresh fits whether the chunks still have their CPU buffers (untouched fit tiles are
 * re-emitted from them) or not (every tile of a touched chunk is fitted again). */
static void refit_equals_fresh_fit(void **state) {
    (void)state;
    const int digs[][4] = {{64, 32, 12, 30}, {3, 40, 9, 60}, {96, 1, 20, 90}, {40, 20, 3, 30}}; /* middle; touching x = 0 and y = 0, whose chunks wrap; inside one tile */
    const uint32_t expect_chunks[] = {4, 4, 4, 1};
    for (int variant = 0; variant < 4; variant++) {
        bool no_outline = variant & 1, dropped = variant >= 2;
        st_level *l = hand_made_level(128, 64);
        st_mesh *m = fit_tiled(l, 2, 32, 16, no_outline);
        assert_int_equal(m->tiles_x, 2);
        for (int k = 0; k < 4; k++) {
            st_rect dirty;
            assert_st_ok(st_level_dig(l, digs[k][0], digs[k][1], digs[k][2], digs[k][3], &dirty, err));
            uint32_t n = 0, list[8], fitted = 0;
            assert_int_equal(st_mesh_chunks_in_rect(m, dirty, list, 8), expect_chunks[k]);
            if (dropped) /* as a renderer does once the buffers are on the GPU */
                for (uint32_t i = 0; i < expect_chunks[k]; i++) {
                    free(m->chunks[list[i]].vertices);
                    free(m->chunks[list[i]].indices);
                    m->chunks[list[i]].vertices = NULL;
                    m->chunks[list[i]].indices = NULL;
                }
            assert_st_ok(st_mesh_refit(m, l, dirty, &n, err));
            assert_int_equal(n, expect_chunks[k]);
            for (uint32_t i = 0; i < n; i++) fitted += m->chunks[list[i]].tiles_fitted;
            if (dropped) assert_int_equal(fitted, 4 * n);
            else if (k == 3) assert_int_equal(fitted, 1); /* the crater stays inside one tile's samples */
            else assert_true(fitted < 4 * n);
            st_mesh *fresh = fit_tiled(l, 2, 32, 16, no_outline);
            assert_meshes_equal(m, fresh);
            st_mesh_destroy(fresh);
        }
        st_mesh_destroy(m);
        st_level_destroy(l);
    }
}

/* Random digs and raises, some across the wrap: after every one the refit (re-emitting untouched tiles from
 * the buffers, 4×4 tiles per chunk) equals a fresh fit. */
static void random_edits_equal_fresh_fits(void **state) {
    (void)state;
    st_level *l = hand_made_level(128, 128);
    st_mesh_desc d = {.tolerance = 2, .chunk_size = 32, .fit_tile = 8};
    st_mesh *m = NULL;
    assert_st_ok(st_mesh_create(l, &d, &m, err));
    uint32_t state_rng = 12345, fitted = 0, tiles = 0;
    for (int k = 0; k < 40; k++) {
        state_rng = state_rng * 1664525u + 1013904223u;
        int x = (int)(state_rng >> 8) % 128, y = (int)(state_rng >> 16) % 128, r = 2 + (int)(state_rng % 14);
        st_rect dirty;
        if (k % 3 == 2) assert_st_ok(st_level_raise(l, x, y, r, 20 + k, &dirty, err));
        else assert_st_ok(st_level_dig(l, x, y, r, 15 + 2 * k, &dirty, err));
        uint32_t n = 0, list[16];
        assert_st_ok(st_mesh_refit(m, l, dirty, &n, err));
        uint32_t listed = st_mesh_chunks_in_rect(m, dirty, list, 16);
        for (uint32_t i = 0; i < listed && i < 16; i++) fitted += m->chunks[list[i]].tiles_fitted, tiles += 16;
        st_mesh *fresh = NULL;
        assert_st_ok(st_mesh_create(l, &d, &fresh, err));
        assert_meshes_equal(m, fresh);
        st_mesh_destroy(fresh);
    }
    assert_true(fitted > 0 && fitted < tiles / 2); /* most tiles of the touched chunks were re-emitted */
    st_mesh_destroy(m);
    st_level_destroy(l);
}

static double signed_area(const st_mesh_chunk *c, uint32_t first, uint32_t tris) {
    double sum = 0;
    for (uint32_t t = 0; t < tris; t++) {
        const st_mesh_vertex *a = &c->vertices[c->indices[first + 3 * t]], *b = &c->vertices[c->indices[first + 3 * t + 1]],
                             *d = &c->vertices[c->indices[first + 3 * t + 2]];
        sum += 0.5 * (((double)b->x - a->x) * ((double)d->y - a->y) - ((double)b->y - a->y) * ((double)d->x - a->x));
    }
    return sum;
}

static void emit_rules(void **state) {
    (void)state;
    /* flat floor at 30, one slab over texels x 8..23, y 6..17: dual samples span a 15×11 rectangle */
    st_level *l = test_flat_level(32, 32, 30);
    for (int y = 6; y < 18; y++)
        for (int x = 8; x < 24; x += 2) st_level_set_dual(l, x, y, 30, 62, 90, 1, 3);
    for (int variant = 0; variant < 4; variant++) {
        bool no_outline = variant & 1;
        /* in 16² fit tiles the slab crosses both inner tile sides, which must get no walls; or one tile */
        st_mesh *m = fit_tiled(l, 1, 32, variant < 2 ? 16 : 32, no_outline);
        const st_mesh_chunk *c = &m->chunks[0];
        for (uint32_t lod = 0; lod < ST_MESH_LODS; lod++) {
            const st_mesh_lod *L = &c->lods[lod];
            uint32_t first = L->first_index;
            assert_true(L->part_triangles[ST_MESH_PART_TOP] > 0);
            assert_int_equal(L->part_triangles[ST_MESH_PART_TOP], L->part_triangles[ST_MESH_PART_CEILING]);
            assert_true(L->part_triangles[ST_MESH_PART_WALL] > 0);
            double floor_area = signed_area(c, first, L->part_triangles[0]);
            assert_true(fabs(floor_area - 32.0 * 32.0) < 1e-9); /* the floor tiles the chunk, facing up */
            first += 3 * L->part_triangles[0];
            double top = signed_area(c, first, L->part_triangles[1]);
            first += 3 * L->part_triangles[1];
            double ceiling = signed_area(c, first, L->part_triangles[2]);
            first += 3 * L->part_triangles[2];
            /* the dual region (a 15×11 rectangle of samples) to within one texel of its outline */
            if (fabs(top - 15.0 * 11.0) > 2.0 * (15 + 11)) fail_msg("slab area %.1f, want 165 ± 52", top);
            assert_true(fabs(ceiling + top) < 1e-9); /* the same, facing down */
            /* the slab's outline: top-triangle edges that no other top triangle shares */
            double outline_len = 0;
            const uint16_t *tix = c->indices + L->first_index + 3 * L->part_triangles[0];
            for (uint32_t t = 0; t < L->part_triangles[1]; t++)
                for (int e = 0; e < 3; e++) {
                    const st_mesh_vertex *p = &c->vertices[tix[3 * t + e]], *q = &c->vertices[tix[3 * t + (e + 1) % 3]];
                    bool shared = false;
                    for (uint32_t u = 0; u < L->part_triangles[1] && !shared; u++)
                        for (int f = 0; f < 3; f++) {
                            const st_mesh_vertex *r = &c->vertices[tix[3 * u + f]], *w = &c->vertices[tix[3 * u + (f + 1) % 3]];
                            if (r->x == q->x && r->y == q->y && w->x == p->x && w->y == p->y) shared = true;
                        }
                    if (!shared) outline_len += hypot((double)q->x - p->x, (double)q->y - p->y);
                }
            for (uint32_t k = 0; k < 3 * L->part_triangles[1]; k++) {
                const st_mesh_vertex *v = &c->vertices[c->indices[L->first_index + 3 * L->part_triangles[0] + k]];
                assert_int_equal(st_mesh_vertex_layer(v), ST_MESH_LAYER_TOP);
                assert_int_equal(v->z, 90);
            }
            /* walls: two triangles (mid→high) along every outline edge, nothing more */
            double wall_len = 0;
            for (uint32_t t = 0; t < L->part_triangles[3]; t++) {
                const uint16_t *ix = c->indices + first + 3 * t;
                const st_mesh_vertex *a = &c->vertices[ix[0]], *b = &c->vertices[ix[1]];
                assert_int_equal(st_mesh_vertex_layer(a), ST_MESH_LAYER_CEILING);
                assert_int_equal(a->z, 62);
                if (t % 2 == 0) wall_len += hypot((double)b->x - a->x, (double)b->y - a->y);
            }
            assert_true(outline_len > 0);
            assert_true(fabs(wall_len - outline_len) < 1e-6);
        }
        st_mesh_destroy(m);
    }
    st_level_destroy(l);
    /* a single-layer level never emits slab triangles */
    st_level *flat = hand_made_level(64, 64);
    for (uint32_t i = 0; i < 64 * 64; i++) flat->meta[i] &= (uint8_t)~(ST_META_DUAL | ST_META_DELTA_MASK);
    st_mesh *m = fit(flat, 4, 32, false);
    st_mesh_totals t = st_mesh_compute_totals(m);
    for (uint32_t lod = 0; lod < ST_MESH_LODS; lod++) {
        assert_true(t.part_triangles[lod][ST_MESH_PART_FLOOR] > 0);
        assert_int_equal(t.part_triangles[lod][ST_MESH_PART_TOP], 0);
        assert_int_equal(t.part_triangles[lod][ST_MESH_PART_CEILING], 0);
        assert_int_equal(t.part_triangles[lod][ST_MESH_PART_WALL], 0);
    }
    assert_int_equal(t.insertions[ST_TIN_DRIVER_SLAB] + t.insertions[ST_TIN_DRIVER_OUTLINE], 0);
    st_mesh_destroy(m);
    st_level_destroy(flat);
}

/* Area and outline length of the slab tops of one LOD over every chunk, at the vertices' shifted positions. */
static void slab_top_extent(const st_mesh *m, uint32_t lod, double *area, double *wall_len) {
    *area = 0, *wall_len = 0;
    for (uint32_t ci = 0; ci < m->chunks_x * m->chunks_y; ci++) {
        const st_mesh_chunk *c = &m->chunks[ci];
        const st_mesh_lod *L = &c->lods[lod];
        uint32_t first = L->first_index + 3 * L->part_triangles[ST_MESH_PART_FLOOR];
        for (uint32_t t = 0; t < L->part_triangles[ST_MESH_PART_TOP]; t++) {
            float p[3][3];
            for (int i = 0; i < 3; i++) st_mesh_vertex_local(&c->vertices[c->indices[first + 3 * t + (uint32_t)i]], p[i]);
            *area += 0.5 * (((double)p[1][0] - p[0][0]) * ((double)p[2][1] - p[0][1]) -
                            ((double)p[1][1] - p[0][1]) * ((double)p[2][0] - p[0][0]));
        }
        first += 3 * (L->part_triangles[ST_MESH_PART_TOP] + L->part_triangles[ST_MESH_PART_CEILING]);
        for (uint32_t t = 0; t < L->part_triangles[ST_MESH_PART_WALL]; t++) {
            float a[3], b[3];
            st_mesh_vertex_local(&c->vertices[c->indices[first + 3 * t]], a);
            st_mesh_vertex_local(&c->vertices[c->indices[first + 3 * t + 1]], b);
            if (t % 2 == 0) *wall_len += hypot((double)b[0] - a[0], (double)b[1] - a[1]); /* one per quad */
        }
    }
}

/* A dual texel's slab fills its whole texel square (SOLID), so a rectangular slab's top covers exactly its
 * texels and its walls stand on their outer edges — also where the slab starts on a chunk side or ends on
 * one (there the chunk must know the samples just outside its own). */
static void slab_covers_its_texels(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 30);
    for (int y = 6; y < 18; y++) /* 16 × 12 texels inside chunk (0, 0), across its inner tile sides */
        for (int x = 8; x < 24; x += 2) st_level_set_dual(l, x, y, 30, 62, 90, 1, 3);
    for (int y = 20; y < 33; y++) /* 16 × 13 texels starting on the side x = 32, ending on the side row 32 */
        for (int x = 32; x < 48; x += 2) st_level_set_dual(l, x, y, 30, 62, 90, 1, 3);
    for (int no_outline = 0; no_outline < 2; no_outline++) {
        st_mesh *m = fit(l, 1, 32, no_outline);
        /* Without the shift every slab would lose half a texel all round (341.5 of 400 texels²); with the
         * outline metric's old rule, that let a dual sample within a texel of the slab's edge fall outside
         * it, convex corners were cut (394.4). */
        for (uint32_t lod = 0; lod < ST_MESH_LODS; lod++) {
            double area, wall_len;
            slab_top_extent(m, lod, &area, &wall_len);
            if (fabs(area - 400) > 1e-6 || fabs(wall_len - 114) > 1e-6)
                fail_msg("LOD %u (%s metric): slab top area %.3f (want 400), wall length %.3f (want 114)", lod,
                         no_outline ? "paper" : "outline", area, wall_len);
        }
        /* every slab vertex lies on the slab's texels, at most on their outer edges */
        for (uint32_t ci = 0; ci < m->chunks_x * m->chunks_y; ci++) {
            const st_mesh_chunk *c = &m->chunks[ci];
            for (uint32_t k = 0; k < c->vertex_count; k++) {
                if (st_mesh_vertex_layer(&c->vertices[k]) == ST_MESH_LAYER_FLOOR) continue;
                float p[3];
                st_mesh_vertex_local(&c->vertices[k], p);
                float x = p[0] + (float)(c->cx * 32), y = p[1] + (float)(c->cy * 32);
                bool in_a = x >= 8 && x <= 24 && y >= 6 && y <= 18, in_b = x >= 32 && x <= 48 && y >= 20 && y <= 33;
                if (!in_a && !in_b) fail_msg("slab vertex at (%.1f, %.1f) off the slab's texels", x, y);
            }
        }
        st_mesh_destroy(m);
    }
    st_level_destroy(l);
}

/* Widening a slab across a chunk side changes only the ring of samples just outside the neighbouring chunk:
 * the refit must reach that chunk too (its side vertices lose their shift) and equal a fresh fit. */
static void refit_follows_the_ring(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 30);
    for (int y = 20; y < 33; y++)
        for (int x = 32; x < 48; x += 2) st_level_set_dual(l, x, y, 30, 62, 90, 1, 3);
    st_mesh *m = fit(l, 1, 32, false);
    for (int y = 20; y < 33; y++) st_level_set_dual(l, 30, y, 30, 62, 90, 1, 3);
    st_rect dirty = {30, 20, 32, 33};
    uint32_t n = 0;
    assert_st_ok(st_mesh_refit(m, l, dirty, &n, err));
    assert_int_equal(n, 4); /* chunks (0, 0) and (0, 1) hold the samples; (1, 0) and (1, 1) see them in their ring */
    st_mesh *fresh = fit(l, 1, 32, false);
    assert_meshes_equal(m, fresh);
    st_mesh_destroy(fresh);
    st_mesh_destroy(m);
    st_level_destroy(l);
}

/* Ridges at 160 over flat ground at 40 whose faces lie one row beside fit-tile sides — inside the tile
 * across an inner tile side (y = 17 beside y = 16), in the next chunk across a chunk side (y = 33 beside
 * y = 32, known to the chunk below only through its ring) and across the wrap (x = 1 beside x = 0 = 64),
 * each cut by channels at ground height (tunnel mouths). A side simplified on its own samples is flat
 * ground there and keeps only its ends, and the triangle on such a long side edge takes a ridge corner one
 * row in as its third corner: a sheet from the ground to the ridge top across the channel, holding no
 * sample but its corners. Every floor triangle standing on a tile side with its third corner on the row
 * beside it, above the edge, must stay within the tolerance of the surface interpolated between the two
 * rows at the half-row points it covers — at every LOD (the sides are fitted at τ for all of them). */
static void tile_sides_follow_the_rows_beside_them(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 40);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            bool ridge = (y >= 17 && y <= 24) || (y >= 33 && y <= 40) || (x >= 1 && x <= 8);
            bool channel = (x >= 20 && x <= 27) || (x >= 38 && x <= 46 && y < 30) || (y >= 48 && y <= 55 && x < 12);
            if (ridge && !channel) st_level_set_single(l, x, y, 160, 2);
        }
    for (int no_outline = 0; no_outline < 2; no_outline++) {
        const double tol = 4;
        st_mesh *m = fit(l, tol, 32, no_outline);
        uint32_t C = m->chunk_size, T = m->fit_tile, points = 0, long_edges = 0;
        for (uint32_t ci = 0; ci < m->chunks_x * m->chunks_y; ci++) {
            const st_mesh_chunk *c = &m->chunks[ci];
            int ox = (int)(c->cx * C), oy = (int)(c->cy * C);
            for (uint32_t lod = 0; lod < ST_MESH_LODS; lod++) {
                const st_mesh_lod *L = &c->lods[lod];
                for (uint32_t t = 0; t < L->part_triangles[ST_MESH_PART_FLOOR]; t++) {
                    const st_mesh_vertex *v[3];
                    for (int k = 0; k < 3; k++) v[k] = &c->vertices[c->indices[L->first_index + 3 * t + (uint32_t)k]];
                    for (int k = 0; k < 3; k++) {
                        const st_mesh_vertex *a = v[k], *b = v[(k + 1) % 3], *p = v[(k + 2) % 3];
                        /* a–b along a tile side, p on the row beside it, above the edge */
                        int vertical = a->x == b->x && a->x % T == 0, horizontal = a->y == b->y && a->y % T == 0;
                        if (!vertical && !horizontal) continue;
                        int line = vertical ? a->x : a->y, dir = (vertical ? p->x : p->y) - line;
                        int lo = vertical ? (a->y < b->y ? a->y : b->y) : (a->x < b->x ? a->x : b->x);
                        int hi = vertical ? (a->y > b->y ? a->y : b->y) : (a->x > b->x ? a->x : b->x);
                        int along = vertical ? p->y : p->x;
                        if ((dir != 1 && dir != -1) || along < lo || along > hi) continue;
                        long_edges += hi - lo >= 8;
                        const st_mesh_vertex *at_lo = (vertical ? a->y : a->x) == lo ? a : b, *at_hi = at_lo == a ? b : a;
                        for (int i = lo; i <= hi; i++) {
                            /* the half-row point at position i lies in the triangle between its edges from the
                             * ends of a–b to p; the plane there is the mean of p and of the edge at 2i − along */
                            if (2 * i < lo + along || 2 * i > hi + along) continue;
                            double base = 2.0 * i - along;
                            double edge = at_lo->z + ((double)at_hi->z - at_lo->z) * (base - lo) / (double)(hi - lo);
                            double z = 0.5 * (edge + p->z);
                            int sx = vertical ? line : i, sy = vertical ? i : line;
                            double zs = st_level_texel(l, ox + sx, oy + sy).low;
                            double zr = st_level_texel(l, ox + sx + (vertical ? dir : 0), oy + sy + (vertical ? 0 : dir)).low;
                            if (!(fabs(z - 0.5 * (zs + zr)) <= tol + 1e-9))
                                fail_msg("%s metric, chunk (%u,%u) LOD %u: floor %.2f halfway from (%d, %d) to the row "
                                         "beside it, the rows' mean %.1f",
                                         no_outline ? "paper" : "outline", c->cx, c->cy, lod, z, ox + sx, oy + sy,
                                         0.5 * (zs + zr));
                            points++;
                        }
                    }
                }
            }
        }
        printf("%s metric: %u half-row points under %u long side triangles checked\n", no_outline ? "paper" : "outline",
               points, long_edges);
        assert_true(points > 200 && long_edges > 0);
        st_mesh_destroy(m);
    }
    st_level_destroy(l);
}

/* A tile's sides are simplified against the rows beside them, so an edit of the row just outside a tile
 * (in the tile across an inner side, or in the next chunk's samples that the chunk sees as its ring) must
 * refit that tile too, and the result equal a fresh fit. */
static void refit_follows_the_rows_beside_tiles(void **state) {
    (void)state;
    st_level *l = test_flat_level(64, 64, 40);
    for (int y = 18; y < 25; y++)
        for (int x = 0; x < 64; x++) st_level_set_single(l, x, y, 160, 2);
    st_mesh *m = fit(l, 4, 32, false); /* 16² fit tiles */
    const int rows[] = {17,  /* beside the inner tile side y = 16 of chunk (0, 0) */
                        33}; /* beside the chunk side y = 32: chunk (0, 0) sees it in its ring */
    for (int k = 0; k < 2; k++) {
        for (int x = 2; x < 13; x++) st_level_set_single(l, x, rows[k], 160, 2);
        st_rect dirty = {2, rows[k], 13, rows[k] + 1};
        assert_st_ok(st_mesh_refit(m, l, dirty, NULL, err));
        st_mesh *fresh = fit(l, 4, 32, false);
        assert_meshes_equal(m, fresh);
        st_mesh_destroy(fresh);
        /* the tile holding the row, and the tile below it, whose top side has the row beside it */
        uint32_t list[8], fitted = 0, n = st_mesh_chunks_in_rect(m, dirty, list, 8);
        for (uint32_t i = 0; i < n; i++) fitted += m->chunks[list[i]].tiles_fitted;
        assert_int_equal(fitted, 2);
    }
    st_mesh_destroy(m);
    st_level_destroy(l);
}

static void totals_and_memory(void **state) {
    (void)state;
    st_level *l = hand_made_level(128, 128);
    st_mesh *m = fit(l, 4, 64, false);
    st_mesh_totals t = st_mesh_compute_totals(m);
    uint64_t bytes = 0, tris = 0;
    for (uint32_t i = 0; i < m->chunks_x * m->chunks_y; i++) {
        bytes += 4ull * m->chunks[i].vertex_count + 2ull * m->chunks[i].index_count;
        tris += m->chunks[i].index_count / 3;
    }
    assert_int_equal(t.gpu_bytes, bytes);
    assert_int_equal(t.triangles, tris);
    assert_true(t.max_error <= 4);
    assert_true((double)t.gpu_bytes / (double)t.triangles <= 8.0);
    assert_int_equal(sizeof(st_mesh_vertex), 4);
    st_mesh_destroy(m);
    st_level_destroy(l);
}

static void lod_selection(void **state) {
    (void)state;
    assert_int_equal(st_mesh_lod_for_distance(0), 0);
    assert_int_equal(st_mesh_lod_for_distance(511.9f), 0);
    assert_int_equal(st_mesh_lod_for_distance(512), 1);
    assert_int_equal(st_mesh_lod_for_distance(1023.9f), 1);
    assert_int_equal(st_mesh_lod_for_distance(1024), 2);
    assert_int_equal(st_mesh_lod_for_distance(1e9f), 2);
    st_mesh mesh = {.width = 4096, .height = 4096, .chunk_size = 128};
    st_mesh_chunk c = {.cx = 0, .cy = 0};
    assert_int_equal(st_mesh_select_lod(&mesh, &c, 64, 64), 0);
    assert_int_equal(st_mesh_select_lod(&mesh, &c, 4096 - 100, 64), 0); /* near across the wrap */
    assert_int_equal(st_mesh_select_lod(&mesh, &c, 800, 64), 1);
    assert_int_equal(st_mesh_select_lod(&mesh, &c, 2048, 2048), 2);
}

static void export_files(void **state) {
    (void)state;
    st_level *l = hand_made_level(64, 64);
    st_mesh *m = fit(l, 4, 32, false);
    const char *dir = test_temp_dir("mesh");
    char path[512];
    snprintf(path, sizeof path, "%s/m.obj", dir);
    assert_st_ok(st_mesh_export(m, 0, path, err));
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[256];
    uint64_t v = 0, f = 0, g = 0;
    while (fgets(line, sizeof line, fp)) v += line[0] == 'v', f += line[0] == 'f', g += line[0] == 'g';
    fclose(fp);
    st_mesh_totals t = st_mesh_compute_totals(m);
    uint64_t lod0 = 0, verts = 0;
    for (int p = 0; p < ST_MESH_PART_COUNT; p++) lod0 += t.part_triangles[0][p];
    for (uint32_t i = 0; i < 4; i++) verts += m->chunks[i].lods[0].vertex_count;
    assert_int_equal(f, lod0);
    assert_int_equal(v, verts);
    assert_int_equal(g, 4);
    snprintf(path, sizeof path, "%s/m.ply", dir);
    assert_st_ok(st_mesh_export(m, 2, path, err));
    snprintf(path, sizeof path, "%s/m.stl", dir);
    st_error e = {0};
    assert_int_equal(st_mesh_export(m, 0, path, &e), ST_ERR_INVALID);
    assert_true(st_mesh_export_format_known("x/m.OBJ") && st_mesh_export_format_known("m.ply"));
    assert_false(st_mesh_export_format_known("m.stl") || st_mesh_export_format_known("obj") ||
                 st_mesh_export_format_known("m.obj.gz"));
    st_mesh_destroy(m);
    st_level_destroy(l);
}

/* A level that does not wrap: the last chunks' far side repeats the edge texels instead of taking the first
 * column (row) from the opposite edge, so a dig at the west edge leaves the east chunks as they were, and the
 * refit still equals a fresh fit. */
static void bounded_edges_sample_their_own_side(void **state) {
    (void)state;
    st_level *l = hand_made_level(128, 64);
    l->wrap_x = l->wrap_y = false;
    st_mesh *m = fit(l, 2, 32, false);
    uint32_t C = m->chunk_size, far = 0;
    for (uint32_t ci = 0; ci < m->chunks_x * m->chunks_y; ci++) {
        const st_mesh_chunk *c = &m->chunks[ci];
        for (uint32_t i = 0; i < c->vertex_count; i++) {
            const st_mesh_vertex *v = &c->vertices[i];
            uint32_t x = c->cx * C + v->x, y = c->cy * C + v->y;
            far += x == l->width || y == l->height;
            st_texel t = st_level_texel(l, (int)(x < l->width ? x : l->width - 1), (int)(y < l->height ? y : l->height - 1));
            st_mesh_layer layer = st_mesh_vertex_layer(v);
            uint8_t z = layer == ST_MESH_LAYER_FLOOR ? t.low : layer == ST_MESH_LAYER_CEILING ? t.mid : t.high;
            if (v->z != z) fail_msg("chunk (%u,%u) vertex at texel (%u,%u): height %u, the edge texel has %u", c->cx, c->cy, x, y, v->z, z);
        }
    }
    assert_true(far > 0);
    /* the east column of chunks, before a dig at the west edge */
    uint32_t east = m->chunks_x - 1, rows = m->chunks_y;
    st_mesh_vertex *before[8];
    uint32_t counts[8];
    assert_true(rows <= 8);
    for (uint32_t cy = 0; cy < rows; cy++) {
        const st_mesh_chunk *c = &m->chunks[cy * m->chunks_x + east];
        counts[cy] = c->vertex_count;
        before[cy] = malloc(c->vertex_count * sizeof *before[cy]);
        memcpy(before[cy], c->vertices, c->vertex_count * sizeof *before[cy]);
    }
    st_rect dirty;
    assert_st_ok(st_level_dig(l, 1, 30, 9, 60, &dirty, err));
    assert_st_ok(st_mesh_refit(m, l, dirty, NULL, err));
    for (uint32_t cy = 0; cy < rows; cy++) {
        const st_mesh_chunk *c = &m->chunks[cy * m->chunks_x + east];
        if (c->vertex_count != counts[cy] || memcmp(c->vertices, before[cy], counts[cy] * sizeof *before[cy]))
            fail_msg("east chunk (%u,%u) changed after a dig at the west edge", east, cy);
        free(before[cy]);
    }
    st_mesh *fresh = fit(l, 2, 32, false);
    assert_meshes_equal(m, fresh);
    st_mesh_destroy(fresh);
    st_mesh_destroy(m);
    st_level_destroy(l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounded_edges_sample_their_own_side),
        cmocka_unit_test(sides_match_across_lods), cmocka_unit_test(refit_equals_fresh_fit),
        cmocka_unit_test(emit_rules),              cmocka_unit_test(totals_and_memory),
        cmocka_unit_test(lod_selection),           cmocka_unit_test(export_files),
        cmocka_unit_test(vertex_heights_match_the_level), cmocka_unit_test(tiles_are_crack_free),
        cmocka_unit_test(random_edits_equal_fresh_fits), cmocka_unit_test(slab_covers_its_texels),
        cmocka_unit_test(refit_follows_the_ring),  cmocka_unit_test(tile_sides_follow_the_rows_beside_them),
        cmocka_unit_test(refit_follows_the_rows_beside_tiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
