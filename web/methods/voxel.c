/* RayVoxel, compute variant (`voxel-compute`) on the seam: the conservative occupancy pyramid (1 bit per voxel,
 * Morton-ordered 8×8×8 tiles, each level the OR of its children) baked on the GPU by the WGSL ports of
 * voxel_bake.comp and voxel_mip.comp, rebaked in place over the tiles an edit touched before the next frame, and
 * the hierarchical-DDA traversal of voxel.comp writing the frame's colour and depth. The native twin is
 * src/render/methods/voxel.c, whose layout (voxel_layout.c) this shares and whose bake order it copies until the
 * native methods move onto the seam; layout, bake and traversal: docs/voxel.md. */
#include <stdlib.h>
#include <string.h>

#include "methods/methods.h"
#include "render/methods/voxel_layout.h"

/* One leaf dispatch bakes at most this many texels (as natively: a whole 2048×16384 world is two dispatches). */
#define BAKE_TEXELS_PER_DISPATCH (16u << 20)
#define MAX_GROUPS 65535u     /* WebGPU's maxComputeWorkgroupsPerDimension */
#define DEFAULT_BUDGET 100u   /* the native voxel_steps knob's default */

/* The native default grid, (4, 8, 2): leaf voxels of 4×8 texels and 2 height units (the page has no grid knob). */
static const uint32_t VOXEL[3] = {4, 8, 2};

typedef struct voxel_state {
    st_voxel_layout layout;
    st_gb_program bake, mip, draw;
    st_gb_buffer grid;
    st_rect dirty; /* texels not baked yet: the whole level at create, then what edits touched */
} voxel_state;


static void voxel_destroy(st_gb *b, void *state) {
    voxel_state *s = state;
    if (!s) return;
    if (s->bake) b->ops->program_destroy(b, s->bake);
    if (s->mip) b->ops->program_destroy(b, s->mip);
    if (s->draw) b->ops->program_destroy(b, s->draw);
    if (s->grid) b->ops->buffer_destroy(b, s->grid);
    free(s);
}

static st_result voxel_create(st_gb *b, const st_level *level, uint32_t knob, void **out, st_error *err) {
    (void)knob;
    if (!b->ops->compute_create || !b->ops->storage_buffer_create || !b->ops->buffer_write)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "voxel-compute needs a backend with compute (WebGPU)");
    voxel_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    const st_voxel_layout *L = &s->layout;
    st_result r = st_voxel_layout_of(level->width, level->height, 0, &s->layout, err);
    if (!r) r = b->ops->compute_create(b, "voxel_bake.comp", &s->bake, err);
    if (!r) r = b->ops->compute_create(b, "voxel_mip.comp", &s->mip, err);
    if (!r) r = b->ops->compute_create(b, "voxel.comp", &s->draw, err);
    if (!r) r = b->ops->storage_buffer_create(b, (size_t)L->bytes, &s->grid, err);
    if (r) return r;
    uint32_t header[ST_VOXEL_HEADER_BYTES / 4] = {L->lods, VOXEL[0], VOXEL[1], VOXEL[2]};
    for (uint32_t l = 0; l < L->lods; l++) {
        for (uint32_t a = 0; a < 3; a++) header[4 + 4 * l + a] = L->dims[l][a];
        header[4 + 4 * l + 3] = (uint32_t)L->offset[l];
    }
    b->ops->buffer_write(b, s->grid, 0, header, sizeof header);
    /* the first frame bakes the whole level, before its march */
    s->dirty = (st_rect){0, 0, (int32_t)level->width, (int32_t)level->height};
    return ST_OK;
}

static st_result voxel_level_updated(st_gb *b, void *state, const st_level *level, st_rect rect, st_error *err) {
    (void)b, (void)level, (void)err;
    voxel_state *s = state;
    s->dirty = st_rect_union(s->dirty, rect);
    return ST_OK;
}

/* Bakes leaf tiles [tx0, tx1) × [ty0, ty1) (whole tile columns in z) and their ancestors on every coarser level;
 * each dispatch sees what the ones before it wrote. */
static void bake(st_gb *b, voxel_state *s, uint32_t tx0, uint32_t ty0, uint32_t tx1, uint32_t ty1) {
    const st_voxel_layout *L = &s->layout;
    uint64_t row_texels = (uint64_t)(tx1 - tx0) * 8 * VOXEL[0] * 8 * VOXEL[1];
    uint32_t rows = (uint32_t)(BAKE_TEXELS_PER_DISPATCH / row_texels);
    if (rows < 1) rows = 1;
    if (rows > MAX_GROUPS) rows = MAX_GROUPS;
    for (uint32_t y = ty0; y < ty1; y += rows) {
        uint32_t n = ty1 - y < rows ? ty1 - y : rows;
        uint32_t push[4] = {tx0, y, 0, 0}; /* voxel_bake.wgsl's Push */
        b->ops->uniforms(b, ST_GB_PUSH_SET, 0, push, sizeof push);
        b->ops->dispatch(b, s->bake, tx1 - tx0, n, 1);
    }
    for (uint32_t l = 1; l < L->lods; l++) {
        /* A parent tile covers 2×2 child tiles in x, y. */
        tx0 >>= 1;
        ty0 >>= 1;
        tx1 = ((tx1 - 1) >> 1) + 1;
        ty1 = ((ty1 - 1) >> 1) + 1;
        uint32_t push[4] = {l, tx0, ty0, tx1 - tx0}; /* voxel_mip.wgsl's Push */
        b->ops->uniforms(b, ST_GB_PUSH_SET, 0, push, sizeof push);
        b->ops->dispatch(b, s->mip, (tx1 - tx0 + 3) / 4, ty1 - ty0, L->tiles[l][2]);
    }
}

static void voxel_record(st_gb *b, void *state, const st_gb_frame *f) {
    voxel_state *s = state;
    const st_voxel_layout *L = &s->layout;
    b->ops->bind_buffer(b, 2, 0, s->grid);
    if (!st_rect_empty(s->dirty)) {
        /* The edited texels' leaf cells, widened to whole tiles (a tile column is the bake's unit). */
        uint32_t tx0 = (uint32_t)s->dirty.x0 / VOXEL[0] / 8, ty0 = (uint32_t)s->dirty.y0 / VOXEL[1] / 8;
        uint32_t tx1 = ((uint32_t)s->dirty.x1 + 8 * VOXEL[0] - 1) / (8 * VOXEL[0]);
        uint32_t ty1 = ((uint32_t)s->dirty.y1 + 8 * VOXEL[1] - 1) / (8 * VOXEL[1]);
        if (tx1 > L->tiles[0][0]) tx1 = L->tiles[0][0];
        if (ty1 > L->tiles[0][1]) ty1 = L->tiles[0][1];
        bake(b, s, tx0, ty0, tx1, ty1);
        s->dirty = (st_rect){0};
    }
    uint32_t budget = f->knob ? f->knob : DEFAULT_BUDGET;
    /* voxel_compute.wgsl's Push: outer, inner budget, step colours */
    uint32_t push[4] = {budget, budget, f->diagnostic == 1, 0};
    b->ops->uniforms(b, ST_GB_PUSH_SET, 0, push, sizeof push);
    b->ops->dispatch(b, s->draw, (b->width + 7) / 8, (b->height + 7) / 8, 1); /* voxel.comp's 8×8 groups */
}

const st_gb_method st_gb_method_voxel_compute = {
    .name = "voxel-compute",
    .description = "occupancy-pyramid ray traversal, compute pass",
    .compute = true,
    .create = voxel_create,
    .destroy = voxel_destroy,
    .record = voxel_record,
    .level_updated = voxel_level_updated,
};
