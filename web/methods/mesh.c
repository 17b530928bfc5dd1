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
#include "methods/mesh_fit.h"

#define MESH_MAX_DRAWS 8192u  /* chunk copies drawn per frame at most (the nearest are kept) */
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
typedef st_mesh_slot mesh_slot;

typedef st_mesh_draw mesh_draw;

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
    web_mesh_edits edits;
} mesh_state;

/* ---- buffers ------------------------------------------------------------------------------------------ */

/* Lays every chunk out (st_mesh_slots_lay_out, the native method's rule) and sizes the list texture in whole rows
 * and the index buffer with the shared tail; refuses a chunk WebGL2 cannot number or a texture the browser cannot
 * hold. */
static st_result lay_out(mesh_state *s, uint32_t max_rows, st_error *err) {
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    for (uint32_t i = 0; i < count; i++) {
        const st_mesh_chunk *c = &s->mesh->chunks[i];
        if (c->vertex_count > MESH_MAX_CHUNK_VERTICES)
            return st_error_set(err, ST_ERR_UNSUPPORTED,
                                "mesh: chunk (%u, %u) has %u vertices; WebGL2 draws at most %u a chunk (index "
                                "0xFFFF restarts)",
                                c->cx, c->cy, c->vertex_count, MESH_MAX_CHUNK_VERTICES);
    }
    uint64_t vb, ib;
    st_mesh_slots_lay_out(s->mesh, s->slots, &vb, &ib);
    s->vb_tail = (uint32_t)vb;
    s->ib_tail = (uint32_t)ib;
    vb = st_mesh_slots_with_tail(vb);
    ib = st_mesh_slots_with_tail(ib);
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
    s->edits.layouts++;
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
    if (s->mesh->chunks[ci].vertex_count > MESH_MAX_CHUNK_VERTICES) return false; /* lay_out says why */
    return st_mesh_slot_place(s->mesh, ci, s->slots, s->vb_size, s->ib_size, &s->vb_tail, &s->ib_tail);
}

/* ---- culling -------------------------------------------------------------------------------------------- */

/* Chunk copies within the frustum's reach that meet the frustum, each with its LOD, near to far (the native
 * method's culling, st_mesh_select_draws). */
static void select_draws(mesh_state *s, const st_level *level, const st_view *view) {
    s->draw_count = st_mesh_select_draws(s->mesh, level, view, s->draws, MESH_MAX_DRAWS);
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

static st_result mesh_create(st_gb *b, const st_level *level, uint32_t knob, void **out, st_error *err) {
    if (!b->ops->index_buffer_write)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "mesh needs a backend that draws with index buffers (WebGL2)");
    mesh_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_result r = web_mesh_fit(level, knob, &s->mesh, err);
    if (r) return r;
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
    uint32_t *list, changed;
    st_result r = web_mesh_refit(s->mesh, level, rect, &list, &changed, &s->edits, err);
    bool fits = true;
    for (uint32_t k = 0; k < changed; k++) fits = fits && place(s, list[k]); /* only chunks whose buffers changed travel */
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

static void mesh_describe(const void *state, char *out, size_t size) {
    const mesh_state *s = state;
    web_mesh_describe(s->mesh, &s->edits, out, size);
}

const st_gb_method st_gb_method_mesh = {
    .name = "mesh",
    .description = "fitted triangle mesh (TIN chunks, 3 LODs), rasterised",
    .create = mesh_create,
    .destroy = mesh_destroy,
    .record = mesh_record,
    .level_updated = mesh_level_updated,
    .describe = mesh_describe,
};
