/* Mesh, compute variant (`mesh-compute`) on the seam: the level's fitted triangle mesh (the fit of mesh_fit.c, the
 * native chunk slots with room to grow and shared tail, the native culling) rasterised in compute into a
 * visibility buffer and resolved per pixel, by the WGSL ports of mesh_raster.comp, mesh_big.comp and
 * mesh_resolve.comp (web/wgsl/). The native twin is the mesh-compute of src/render/methods/mesh.c. WebGPU has no
 * 64-bit atomics, so the visibility buffer is two 32-bit words a pixel (the nearest depth's bits, then the id of
 * the triangle that has them) filled by two rounds of the rasterising passes over the same triangles: the same
 * pair as the native atomicMax of (depth << 32 | id) (vis_tri.wgsl, docs/web.md); the second round passes over
 * the triangles the first never found nearest (a frame's stamp per triangle). The vertices and indices are
 * storage buffers (each slot's indices word-aligned, lay_out); the CPU keeps the chunks' buffers, and an edit refits the chunks it touches and rewrites only
 * their slots (or lays every chunk out again when the tail is full). */
#include <stdlib.h>
#include <string.h>

#include "methods/mesh_fit.h"
#include "methods/methods.h"

#define MESH_MAX_DRAWS 8192u /* chunk copies drawn per frame at most (the nearest are kept), as natively */
#define MESH_BIG_SPLIT 16u   /* workgroups sharing one big triangle (mesh_big.wgsl) */
#define MESH_BIG_CAP 65535u  /* big-triangle queue entries (one workgroup each: ≤ 65535) */
#define MAX_GROUPS 65535u    /* WebGPU's maxComputeWorkgroupsPerDimension */
#define BIG_HEADER_BYTES 16u /* the queue's {groups_x, groups_y, groups_z, offered} before its items */

/* std430 mirror of MeshRecord in web/wgsl/mesh_tri.wgsl (the native mesh_tri.glsl's) */
typedef struct mesh_record {
    float origin[2];
    uint32_t vb_first, ib_first, tri_first, tri_count, pad0, pad1;
} mesh_record;

/* Mirror of MeshComputePush in mesh_tri.wgsl: the native push constants and the rasterising passes' phase */
typedef struct mesh_compute_push {
    uint32_t tri_total, record_count, big_cap, row_threads, wireframe, phase, stamp, pad1;
} mesh_compute_push;

typedef struct mc_state {
    st_mesh *mesh;
    st_mesh_slot *slots;
    uint32_t vb_size, ib_size; /* capacity in elements (the index count even: the shaders read u16 pairs) */
    uint32_t vb_tail, ib_tail; /* first free element after the slots */
    st_gb_buffer vertices, indices, records, big;
    st_gb_buffer vis_depth, vis_id; /* a word a pixel each, for vis_pixels pixels */
    uint32_t vis_pixels;
    st_gb_buffer stamps;   /* a word a triangle (mesh_tri.wgsl's tri_stamp), for stamp_cap triangles */
    uint32_t stamp_cap, stamp; /* the last frame's stamp */
    st_gb_program raster, big_pass, resolve;
    st_mesh_draw *draws; /* this frame's chunk copies, near to far */
    mesh_record *recs;
    bool stale; /* a refit, its upload or the visibility buffer failed: nothing is drawn */
    web_mesh_edits edits;
} mc_state;

/* ---- buffers ------------------------------------------------------------------------------------------ */

/* Lays every chunk out (st_mesh_slots_lay_out, the native rule) with each slot's indices moved to begin a 32-bit
 * word and their room made even, and sizes the buffers with the shared tail. Buffer writes are of whole words, so
 * a slot's last word, half its own slack, may then be written whole (place keeps the tail's slots so too). */
static st_result lay_out(mc_state *s, st_error *err) {
    uint64_t vb, ib;
    st_mesh_slots_lay_out(s->mesh, s->slots, &vb, &ib);
    ib = 0; /* the slots' indices laid again, each from an even element */
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    for (uint32_t i = 0; i < count; i++) {
        s->slots[i].ib_off = (uint32_t)ib;
        s->slots[i].ib_cap = (s->slots[i].ib_cap + 1) & ~1u;
        ib += s->slots[i].ib_cap;
    }
    s->vb_tail = (uint32_t)vb;
    s->ib_tail = (uint32_t)ib;
    vb = st_mesh_slots_with_tail(vb);
    ib = (st_mesh_slots_with_tail(ib) + 1) & ~1ull; /* the shaders read indices as u32 pairs */
    if (vb * 4 > (1u << 30) || ib * 2 > (1u << 30))
        return st_error_set(err, ST_ERR_UNSUPPORTED, "mesh-compute: %llu vertices / %llu indices exceed a WebGPU buffer",
                            (unsigned long long)vb, (unsigned long long)ib);
    s->vb_size = (uint32_t)vb;
    s->ib_size = (uint32_t)ib;
    return ST_OK;
}

/* Rewrites chunk ci's slot: its vertices, and its indices in whole 32-bit words from the slot's first (an odd
 * count's last word ends in the slot's own slack, or the element place left free after it). */
static st_result upload_chunk(st_gb *b, mc_state *s, uint32_t ci, st_error *err) {
    const st_mesh_chunk *c = &s->mesh->chunks[ci];
    const st_mesh_slot *sl = &s->slots[ci];
    if (c->vertex_count)
        b->ops->buffer_write(b, s->vertices, (size_t)sl->vb_off * 4, c->vertices,
                             (size_t)c->vertex_count * sizeof(st_mesh_vertex));
    if (!c->index_count) return ST_OK;
    uint32_t n = (c->index_count + 1) & ~1u;
    uint16_t *words = calloc(n, sizeof *words);
    if (!words) return st_error_set(err, ST_ERR_NOMEM, "mesh-compute: out of memory (upload)");
    memcpy(words, c->indices, (size_t)c->index_count * sizeof *words);
    b->ops->buffer_write(b, s->indices, (size_t)sl->ib_off * 2, words, (size_t)n * 2);
    free(words);
    return ST_OK;
}

/* Makes the vertex and index buffers for the current layout and uploads every chunk into its slot. */
static st_result upload_all(st_gb *b, mc_state *s, st_error *err) {
    if (s->vertices) b->ops->buffer_destroy(b, s->vertices);
    if (s->indices) b->ops->buffer_destroy(b, s->indices);
    s->vertices = s->indices = 0;
    st_result r = b->ops->storage_buffer_create(b, (size_t)s->vb_size * 4, &s->vertices, err);
    if (!r) r = b->ops->storage_buffer_create(b, (size_t)s->ib_size * 2, &s->indices, err);
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    for (uint32_t i = 0; !r && i < count; i++) r = upload_chunk(b, s, i, err);
    s->edits.layouts++;
    return r;
}

/* The visibility buffer's two words a pixel for the backend's frame size (made again when it changed). */
static st_result vis_buffers(st_gb *b, mc_state *s, st_error *err) {
    uint32_t pixels = b->width * b->height;
    if (pixels == s->vis_pixels && s->vis_depth) return ST_OK;
    if (s->vis_depth) b->ops->buffer_destroy(b, s->vis_depth);
    if (s->vis_id) b->ops->buffer_destroy(b, s->vis_id);
    s->vis_depth = s->vis_id = 0;
    s->vis_pixels = pixels;
    st_result r = b->ops->storage_buffer_create(b, (size_t)pixels * 4, &s->vis_depth, err);
    if (!r) r = b->ops->storage_buffer_create(b, (size_t)pixels * 4, &s->vis_id, err);
    return r;
}

/* The per-triangle stamps for total triangles (made larger when a frame has more; the stamps start again). */
static st_result stamp_buffer(st_gb *b, mc_state *s, uint32_t total, st_error *err) {
    if (total <= s->stamp_cap && s->stamps) return ST_OK;
    if (s->stamps) b->ops->buffer_destroy(b, s->stamps);
    s->stamps = 0;
    s->stamp_cap = total + total / 4 + 1024;
    s->stamp = 0;
    st_result r = b->ops->storage_buffer_create(b, (size_t)s->stamp_cap * 4, &s->stamps, err);
    if (!r) b->ops->buffer_fill(b, s->stamps, 0); /* no frame's stamp */
    return r;
}

/* ---- the method ------------------------------------------------------------------------------------------ */

static void mc_destroy(st_gb *b, void *state) {
    mc_state *s = state;
    if (!s) return;
    st_gb_program programs[3] = {s->raster, s->big_pass, s->resolve};
    for (int i = 0; i < 3; i++)
        if (programs[i]) b->ops->program_destroy(b, programs[i]);
    st_gb_buffer buffers[7] = {s->vertices, s->indices, s->records, s->big, s->vis_depth, s->vis_id, s->stamps};
    for (int i = 0; i < 7; i++)
        if (buffers[i]) b->ops->buffer_destroy(b, buffers[i]);
    st_mesh_destroy(s->mesh);
    free(s->slots);
    free(s->draws);
    free(s->recs);
    free(s);
}

static st_result mc_create(st_gb *b, const st_level *level, uint32_t knob, void **out, st_error *err) {
    if (!b->ops->compute_create || !b->ops->storage_buffer_create || !b->ops->buffer_write ||
        !b->ops->dispatch_indirect)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "mesh-compute needs a backend with compute (WebGPU)");
    mc_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_result r = web_mesh_fit(level, knob, &s->mesh, err);
    if (r) return r;
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    s->slots = calloc(count, sizeof *s->slots);
    s->draws = malloc(MESH_MAX_DRAWS * sizeof *s->draws);
    s->recs = malloc(MESH_MAX_DRAWS * sizeof *s->recs);
    if (!s->slots || !s->draws || !s->recs) return st_error_set(err, ST_ERR_NOMEM, "mesh-compute: out of memory");
    r = lay_out(s, err);
    if (!r) r = upload_all(b, s, err);
    if (!r) r = b->ops->storage_buffer_create(b, MESH_MAX_DRAWS * sizeof(mesh_record), &s->records, err);
    if (!r) r = b->ops->storage_buffer_create(b, BIG_HEADER_BYTES + MESH_BIG_CAP * 4u, &s->big, err);
    if (!r) r = vis_buffers(b, s, err);
    if (!r) r = b->ops->compute_create(b, "mesh_raster.comp", &s->raster, err);
    if (!r) r = b->ops->compute_create(b, "mesh_big.comp", &s->big_pass, err);
    if (!r) r = b->ops->compute_create(b, "mesh_resolve.comp", &s->resolve, err);
    return r;
}

static void mc_record(st_gb *b, void *state, const st_gb_frame *f) {
    mc_state *s = state;
    st_error err = {0};
    if (s->stale || vis_buffers(b, s, &err)) {
        s->stale = true;
        return;
    }
    /* the visible chunk copies as records, their triangles numbered frame-wide in order (the native ids) */
    uint32_t draws = st_mesh_select_draws(s->mesh, f->level, &f->view, s->draws, MESH_MAX_DRAWS);
    uint32_t n = 0, total = 0;
    for (uint32_t i = 0; i < draws; i++) {
        const st_mesh_draw *d = &s->draws[i];
        const st_mesh_lod *L = &s->mesh->chunks[d->chunk].lods[d->lod];
        if (!L->triangle_count) continue; /* no id is in it */
        const st_mesh_slot *sl = &s->slots[d->chunk];
        s->recs[n++] = (mesh_record){.origin = {d->origin[0], d->origin[1]},
                                     .vb_first = sl->vb_off,
                                     .ib_first = sl->ib_off + L->first_index,
                                     .tri_first = total,
                                     .tri_count = L->triangle_count};
        total += L->triangle_count;
    }
    if (stamp_buffer(b, s, total, &err)) {
        s->stale = true;
        return;
    }
    if (++s->stamp == 0) { /* wrapped: no triangle may keep an old frame's stamp */
        b->ops->buffer_fill(b, s->stamps, 0);
        s->stamp = 1;
    }
    if (n) b->ops->buffer_write(b, s->records, 0, s->recs, n * sizeof *s->recs);
    b->ops->buffer_fill(b, s->vis_depth, 0); /* 0: nothing drawn */
    b->ops->buffer_fill(b, s->vis_id, 0);
    const uint32_t header[4] = {0, MESH_BIG_SPLIT, 1, 0}; /* no big triangle × split × 1, none offered */
    b->ops->buffer_write(b, s->big, 0, header, sizeof header);
    const st_gb_buffer bound[7] = {s->vertices, s->indices, s->records, s->vis_depth, s->big, s->vis_id, s->stamps};
    for (uint32_t i = 0; i < 7; i++) b->ops->bind_buffer(b, 2, i, bound[i]); /* mesh_tri.wgsl's bindings */
    uint32_t groups = (total + 63) / 64;
    uint32_t gx = groups < MAX_GROUPS ? groups : MAX_GROUPS, gy = gx ? (groups + gx - 1) / gx : 0;
    mesh_compute_push push = {.tri_total = total, .record_count = n, .big_cap = MESH_BIG_CAP,
                              .row_threads = gx * 64, .wireframe = f->wireframe, .stamp = s->stamp};
    for (uint32_t phase = 0; gx && phase < 2; phase++) {
        push.phase = phase; /* 0: each pixel's nearest depth; 1: the triangle that has it */
        b->ops->uniforms(b, ST_GB_PUSH_SET, 0, &push, sizeof push);
        b->ops->dispatch(b, s->raster, gx, gy, 1);
        b->ops->dispatch_indirect(b, s->big_pass, s->big, 0);
    }
    b->ops->uniforms(b, ST_GB_PUSH_SET, 0, &push, sizeof push);
    b->ops->dispatch(b, s->resolve, (b->width + 7) / 8, (b->height + 7) / 8, 1); /* mesh_resolve's 8×8 groups */
}

/* A chunk's new data goes back into its slot when it fits, else to the shared tail; false = no room left. The
 * index tail is kept even (a slot there of odd room leaves the element after it free), as lay_out's slots are. */
static bool place(mc_state *s, uint32_t ci) {
    bool fits = st_mesh_slot_place(s->mesh, ci, s->slots, s->vb_size, s->ib_size, &s->vb_tail, &s->ib_tail);
    s->ib_tail = (s->ib_tail + 1) & ~1u; /* ≤ ib_size, which is even */
    return fits;
}

/* The level changed inside rect: refit the chunks whose samples it touches (exactly: the result equals a fresh
 * fit) and rewrite their slots, or lay everything out again when the tail has no room for them. */
static st_result mc_level_updated(st_gb *b, void *state, const st_level *level, st_rect rect, st_error *err) {
    mc_state *s = state;
    uint32_t *list, changed;
    st_result r = web_mesh_refit(s->mesh, level, rect, &list, &changed, &s->edits, err);
    bool fits = true;
    for (uint32_t k = 0; k < changed; k++) fits = fits && place(s, list[k]); /* only chunks whose buffers changed travel */
    if (!r && changed) {
        if (fits) {
            for (uint32_t k = 0; !r && k < changed; k++) r = upload_chunk(b, s, list[k], err);
        } else {
            r = lay_out(s, err);
            if (!r) r = upload_all(b, s, err);
        }
    }
    free(list);
    if (r) s->stale = true;
    return r;
}

static void mc_describe(const void *state, char *out, size_t size) {
    const mc_state *s = state;
    web_mesh_describe(s->mesh, &s->edits, out, size);
}

const st_gb_method st_gb_method_mesh_compute = {
    .name = "mesh-compute",
    .description = "fitted triangle mesh, rasterised in compute into a visibility buffer",
    .compute = true,
    .create = mc_create,
    .destroy = mc_destroy,
    .record = mc_record,
    .level_updated = mc_level_updated,
    .describe = mc_describe,
};
