/* Mesh on the seam: the level's fitted triangle mesh (src/mesh/, docs/mesh.md), each visible chunk copy drawn
 * with one indexed draw (shaders/methods/mesh.vert, mesh.frag), back faces culled. The fit, the chunk layout
 * with room to grow and the culling are the native method's (src/render/methods/mesh.c), at its default
 * quality (q = 0.5, τ = 4). WebGL2 has no storage buffers and no base vertex: the vertices are a list texture
 * (ST_GB_LIST_WIDTH ivec4s a row, four 4-byte vertices a texel) read in the vertex shader at the draw's first
 * vertex, a push constant; the indices are one index buffer, each draw starting at its chunk's LOD. The CPU
 * keeps the chunks' buffers (the native method reads them back from the GPU before a refit), and an edit refits
 * the chunks it touches and rewrites only their slots. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "methods/methods.h"
#include "strata/mesh.h"

#define MESH_MAX_TILES 64     /* wrapped level copies per axis considered by the culling */
#define MESH_MAX_DRAWS 8192u  /* chunk copies drawn per frame at most (the nearest are kept) */
#define MESH_QUALITY 0.5      /* the native knob's default */
#define MESH_TEXEL_VERTICES 4u /* vertices a texel of the list texture */
/* WebGL2 restarts a strip at index 0xFFFF whatever the draw (PRIMITIVE_RESTART_FIXED_INDEX is always on), so
 * a chunk may number its vertices 0..0xFFFE only. */
#define MESH_MAX_CHUNK_VERTICES 0xFFFFu

/* std140 mirror of MeshDrawPush in mesh.vert as the web build compiles it (ST_NO_STORAGE_BUFFERS) */
typedef struct mesh_draw_push {
    float origin[4];
    uint32_t vertex_base, pad[3];
} mesh_draw_push;

/* Where a chunk lives in the list texture and the index buffer, in elements (vertices, u16 indices). */
typedef struct mesh_slot {
    uint32_t vb_off, vb_cap, ib_off, ib_cap;
} mesh_slot;

typedef struct mesh_draw {
    float dist;
    uint32_t chunk, lod;
    float origin[2];
} mesh_draw;

typedef struct mesh_state {
    st_mesh *mesh;
    mesh_slot *slots;
    uint32_t vb_size, ib_size; /* capacity in elements */
    uint32_t vb_tail, ib_tail; /* first free element after the slots */
    int32_t *texels;           /* the list texture's contents: vb_size vertices in whole rows */
    uint32_t rows;             /* of the list texture */
    st_gb_texture list;
    st_gb_buffer indices;
    st_gb_program program;
    mesh_draw *draws; /* this frame's chunk copies, near to far */
    uint32_t draw_count;
    bool stale; /* a refit or its upload failed: the buffers no longer match the slots, so nothing is drawn */
} mesh_state;

/* ---- buffers ------------------------------------------------------------------------------------------ */

/* A slot has a little room to grow in place; a chunk that outgrows it moves to the shared tail (an eighth of
 * the total plus 4 Ki elements), and a full tail lays every chunk out again (the native method's rule). */
static uint32_t with_slack(uint32_t n, uint32_t extra) { return n + extra; }

static st_result lay_out(mesh_state *s, uint32_t max_rows, st_error *err) {
    uint64_t vb = 0, ib = 0;
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    for (uint32_t i = 0; i < count; i++) {
        const st_mesh_chunk *c = &s->mesh->chunks[i];
        if (c->vertex_count > MESH_MAX_CHUNK_VERTICES)
            return st_error_set(err, ST_ERR_UNSUPPORTED,
                                "mesh: chunk (%u, %u) has %u vertices; WebGL2 draws at most %u a chunk (index "
                                "0xFFFF restarts)",
                                c->cx, c->cy, c->vertex_count, MESH_MAX_CHUNK_VERTICES);
        s->slots[i] = (mesh_slot){.vb_off = (uint32_t)vb,
                                  .vb_cap = with_slack(c->vertex_count, 16),
                                  .ib_off = (uint32_t)ib,
                                  .ib_cap = with_slack(c->index_count, 96)};
        vb += s->slots[i].vb_cap;
        ib += s->slots[i].ib_cap;
    }
    s->vb_tail = (uint32_t)vb;
    s->ib_tail = (uint32_t)ib;
    vb += vb / 8 + 4096;
    ib += ib / 8 + 4096;
    const uint64_t per_row = (uint64_t)ST_GB_LIST_WIDTH * MESH_TEXEL_VERTICES;
    uint64_t rows = (vb + per_row - 1) / per_row;
    if (rows > max_rows || ib > UINT32_MAX / 2)
        return st_error_set(err, ST_ERR_UNSUPPORTED,
                            "mesh: %llu vertices exceed this browser's vertex texture (%u rows of %llu)",
                            (unsigned long long)vb, max_rows, (unsigned long long)per_row);
    s->rows = (uint32_t)rows;
    s->vb_size = (uint32_t)(rows * per_row);
    s->ib_size = (uint32_t)ib;
    return ST_OK;
}

/* Copies chunk ci's vertices into its slot of the CPU copy of the list texture. */
static void place_vertices(mesh_state *s, uint32_t ci) {
    const st_mesh_chunk *c = &s->mesh->chunks[ci];
    memcpy(s->texels + s->slots[ci].vb_off, c->vertices, (size_t)c->vertex_count * sizeof(st_mesh_vertex));
}

/* Makes the list texture and the index buffer for the current layout and uploads every chunk (the indices
 * chunk by chunk: no second copy of them, 90 MiB for the default world, is made). */
static st_result upload_all(st_gb *b, mesh_state *s, st_error *err) {
    b->ops->texture_destroy(b, s->list);
    b->ops->buffer_destroy(b, s->indices);
    s->list = 0, s->indices = 0;
    free(s->texels);
    s->texels = calloc((size_t)s->vb_size, sizeof *s->texels);
    if (!s->texels) return st_error_set(err, ST_ERR_NOMEM, "mesh: out of memory (upload)");
    st_gb_texture_desc d = {.width = ST_GB_LIST_WIDTH, .height = s->rows, .format = ST_GB_RGBA32_SINT};
    st_result r = b->ops->texture_create(b, &d, &s->list, err);
    if (!r) r = b->ops->index_buffer_create(b, NULL, s->ib_size, &s->indices, err);
    if (r) return r;
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    for (uint32_t i = 0; i < count; i++) {
        const st_mesh_chunk *c = &s->mesh->chunks[i];
        place_vertices(s, i);
        if (c->index_count) b->ops->index_buffer_write(b, s->indices, s->slots[i].ib_off, c->index_count, c->indices);
    }
    b->ops->texture_write(b, s->list, 0, 0, 0, ST_GB_LIST_WIDTH, s->rows, s->texels);
    return ST_OK;
}

/* Rewrites chunk ci's slot on b: its vertices (the list texture's rows they touch) and its indices. */
static void upload_chunk(st_gb *b, mesh_state *s, uint32_t ci) {
    const st_mesh_chunk *c = &s->mesh->chunks[ci];
    const mesh_slot *sl = &s->slots[ci];
    place_vertices(s, ci);
    if (c->vertex_count) {
        const uint32_t per_row = ST_GB_LIST_WIDTH * MESH_TEXEL_VERTICES;
        uint32_t y0 = sl->vb_off / per_row, y1 = (sl->vb_off + c->vertex_count - 1) / per_row;
        b->ops->texture_write(b, s->list, 0, 0, y0, ST_GB_LIST_WIDTH, y1 - y0 + 1,
                              s->texels + (size_t)y0 * per_row);
    }
    if (c->index_count) b->ops->index_buffer_write(b, s->indices, sl->ib_off, c->index_count, c->indices);
}

/* A chunk's new data goes back into its slot when it fits, else to the shared tail; false = no room left. */
static bool place(mesh_state *s, uint32_t ci) {
    const st_mesh_chunk *c = &s->mesh->chunks[ci];
    mesh_slot *sl = &s->slots[ci];
    if (c->vertex_count > MESH_MAX_CHUNK_VERTICES) return false; /* lay_out says why */
    if (c->vertex_count > sl->vb_cap) {
        uint32_t cap = with_slack(c->vertex_count, 16);
        if (cap > s->vb_size - s->vb_tail) return false;
        sl->vb_off = s->vb_tail, sl->vb_cap = cap;
        s->vb_tail += cap;
    }
    if (c->index_count > sl->ib_cap) {
        uint32_t cap = with_slack(c->index_count, 96);
        if (cap > s->ib_size - s->ib_tail) return false;
        sl->ib_off = s->ib_tail, sl->ib_cap = cap;
        s->ib_tail += cap;
    }
    return true;
}

/* ---- culling -------------------------------------------------------------------------------------------- */

static int cmp_draw(const void *a, const void *b) {
    const mesh_draw *x = a, *y = b;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    return x->chunk < y->chunk ? -1 : x->chunk > y->chunk; /* deterministic order */
}

/* Chunk copies within the frustum's reach that meet the frustum, each with its LOD, near to far (the native
 * method's select_draws: the disc of a corner ray cut at the far plane; every wrapped copy it reaches along an
 * axis that wraps, the level itself along one that does not). */
static void select_draws(mesh_state *s, const st_level *level, const st_view *view) {
    st_view v = *view;
    const st_mesh *m = s->mesh;
    st_frustum frustum = st_view_frustum(&v);
    float hx = 0.5f * v.width / v.focal_px, hy = 0.5f * v.height / v.focal_px;
    float far = v.far_dist * sqrtf(1.0f + hx * hx + hy * hy);
    float C = (float)m->chunk_size, W = (float)m->width, H = (float)m->height;
    int tx0 = (int)floorf((v.eye[0] - far) / W), tx1 = (int)floorf((v.eye[0] + far) / W);
    int ty0 = (int)floorf((v.eye[1] - far) / H), ty1 = (int)floorf((v.eye[1] + far) / H);
    if (tx1 - tx0 >= MESH_MAX_TILES) tx0 = (int)floorf(v.eye[0] / W) - MESH_MAX_TILES / 2, tx1 = tx0 + MESH_MAX_TILES - 1;
    if (ty1 - ty0 >= MESH_MAX_TILES) ty0 = (int)floorf(v.eye[1] / H) - MESH_MAX_TILES / 2, ty1 = ty0 + MESH_MAX_TILES - 1;
    if (!level->wrap_x) tx0 = tx1 = 0;
    if (!level->wrap_y) ty0 = ty1 = 0;
    uint32_t n = 0;
    for (int ty = ty0; ty <= ty1; ty++)
        for (int tx = tx0; tx <= tx1; tx++) {
            float ox = (float)tx * W, oy = (float)ty * H;
            int cx0 = (int)floorf((v.eye[0] - far - ox - 1.0f) / C), cx1 = (int)floorf((v.eye[0] + far - ox) / C);
            int cy0 = (int)floorf((v.eye[1] - far - oy - 1.0f) / C), cy1 = (int)floorf((v.eye[1] + far - oy) / C);
            if (cx0 < 0) cx0 = 0;
            if (cy0 < 0) cy0 = 0;
            if (cx1 >= (int)m->chunks_x) cx1 = (int)m->chunks_x - 1;
            if (cy1 >= (int)m->chunks_y) cy1 = (int)m->chunks_y - 1;
            for (int cy = cy0; cy <= cy1; cy++)
                for (int cx = cx0; cx <= cx1; cx++) {
                    uint32_t ci = (uint32_t)cy * m->chunks_x + (uint32_t)cx;
                    const st_mesh_chunk *c = &m->chunks[ci];
                    float lo[3] = {c->aabb_min[0] + ox, c->aabb_min[1] + oy, c->aabb_min[2]};
                    float hi[3] = {c->aabb_max[0] + ox, c->aabb_max[1] + oy, c->aabb_max[2]};
                    float dx = fmaxf(fmaxf(lo[0] - v.eye[0], v.eye[0] - hi[0]), 0.0f);
                    float dy = fmaxf(fmaxf(lo[1] - v.eye[1], v.eye[1] - hi[1]), 0.0f);
                    if (dx * dx + dy * dy > far * far || !st_frustum_meets_box(&frustum, lo, hi)) continue;
                    float ex = 0.5f * (lo[0] + hi[0]) - v.eye[0], ey = 0.5f * (lo[1] + hi[1]) - v.eye[1];
                    float dist = sqrtf(ex * ex + ey * ey);
                    if (n == MESH_MAX_DRAWS) { /* keep the nearest: replace the farthest so far */
                        uint32_t worst = 0;
                        for (uint32_t i = 1; i < n; i++)
                            if (s->draws[i].dist > s->draws[worst].dist) worst = i;
                        if (s->draws[worst].dist <= dist) continue;
                        n--;
                        s->draws[worst] = s->draws[n];
                    }
                    s->draws[n++] = (mesh_draw){.dist = dist,
                                                .chunk = ci,
                                                .lod = st_mesh_lod_for_distance(dist),
                                                .origin = {ox + (float)((uint32_t)cx * m->chunk_size) + 0.5f,
                                                           oy + (float)((uint32_t)cy * m->chunk_size) + 0.5f}};
                }
        }
    qsort(s->draws, n, sizeof *s->draws, cmp_draw);
    s->draw_count = n;
}

/* ---- the method ------------------------------------------------------------------------------------------ */

static void mesh_destroy(st_gb *b, void *state) {
    mesh_state *s = state;
    if (!s) return;
    b->ops->program_destroy(b, s->program);
    b->ops->texture_destroy(b, s->list);
    b->ops->buffer_destroy(b, s->indices);
    st_mesh_destroy(s->mesh);
    free(s->slots);
    free(s->texels);
    free(s->draws);
    free(s);
}

static st_result mesh_create(st_gb *b, const st_level *level, void **out, st_error *err) {
    if (!b->ops->index_buffer_write)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "mesh needs a backend that draws with index buffers (WebGL2)");
    mesh_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_mesh_desc md = {.tolerance = st_mesh_tolerance(MESH_QUALITY)};
    st_result r = st_mesh_create(level, &md, &s->mesh, err);
    if (r) return st_error_prefix(err, "mesh");
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    s->slots = calloc(count, sizeof *s->slots);
    s->draws = malloc(MESH_MAX_DRAWS * sizeof *s->draws);
    if (!s->slots || !s->draws) return st_error_set(err, ST_ERR_NOMEM, "mesh: out of memory");
    r = lay_out(s, b->max_texture_size, err);
    if (!r) r = upload_all(b, s, err);
    if (r) return r;
    /* the mesh's outward faces arrive clockwise in the frame (src/render/methods/mesh.c says why) */
    st_gb_program_desc d = {.vertex = "mesh.vert", .fragment = "mesh.frag", .depth_write = true,
                            .cull = ST_GB_CULL_COUNTER_CLOCKWISE};
    return b->ops->program_create(b, &d, &s->program, err);
}

static void mesh_record(st_gb *b, void *state, const st_gb_frame *f) {
    mesh_state *s = state;
    if (s->stale) return;
    select_draws(s, f->level, &f->view);
    b->ops->bind_texture(b, 1, 0, s->list);
    for (uint32_t i = 0; i < s->draw_count; i++) {
        const mesh_draw *d = &s->draws[i];
        const st_mesh_lod *L = &s->mesh->chunks[d->chunk].lods[d->lod];
        const mesh_slot *sl = &s->slots[d->chunk];
        if (!L->triangle_count) continue;
        mesh_draw_push push = {.origin = {d->origin[0], d->origin[1], 0, 0}, .vertex_base = sl->vb_off};
        b->ops->uniforms(b, ST_GB_PUSH_SET, 0, &push, sizeof push);
        b->ops->draw(b, &(st_gb_draw){.program = s->program,
                                      .vertex_count = 3 * L->triangle_count,
                                      .indices = s->indices,
                                      .first_index = sl->ib_off + L->first_index});
    }
}

/* The level changed inside rect: refit the chunks whose samples it touches (exactly: the result equals a fresh
 * fit) and rewrite their slots, or lay everything out again when the tail has no room for them. */
static st_result mesh_level_updated(st_gb *b, void *state, const st_level *level, st_rect rect, st_error *err) {
    mesh_state *s = state;
    uint32_t count = st_mesh_chunks_in_rect(s->mesh, rect, NULL, 0);
    if (!count) return ST_OK;
    uint32_t *list = malloc(count * sizeof *list), *version = malloc(count * sizeof *version);
    if (!list || !version) {
        free(list);
        free(version);
        return st_error_set(err, ST_ERR_NOMEM, "mesh refit: out of memory");
    }
    st_mesh_chunks_in_rect(s->mesh, rect, list, count);
    for (uint32_t k = 0; k < count; k++) version[k] = s->mesh->chunks[list[k]].version;
    st_result r = st_mesh_refit(s->mesh, level, rect, NULL, err);
    bool fits = true;
    uint32_t changed = 0;
    for (uint32_t k = 0; !r && k < count; k++) /* only chunks whose buffers changed travel */
        if (s->mesh->chunks[list[k]].version != version[k]) {
            list[changed++] = list[k];
            fits = fits && place(s, list[k]);
        }
    free(version);
    if (!r && changed) {
        if (fits) {
            for (uint32_t k = 0; k < changed; k++) upload_chunk(b, s, list[k]);
        } else {
            r = lay_out(s, b->max_texture_size, err);
            if (!r) r = upload_all(b, s, err);
        }
    }
    free(list);
    if (r) s->stale = true;
    return r;
}

const st_gb_method st_gb_method_mesh = {
    .name = "mesh",
    .description = "fitted triangle mesh (TIN chunks, 3 LODs), rasterised",
    .create = mesh_create,
    .destroy = mesh_destroy,
    .record = mesh_record,
    .level_updated = mesh_level_updated,
};
