/* Mesh: the fitted triangle mesh of the level (src/mesh/, docs/mesh.md), drawn two ways that share the fit
 * and its GPU buffers — `mesh` rasterises each visible chunk copy with one indexed draw, `mesh-compute`
 * rasterises the same triangles in compute into a 64-bit visibility buffer (depth | id) and resolves it,
 * because raster throughput is tiny on some GPUs. With textured shading `mesh` defers the shading too: its raster
 * pass writes each pixel's surface point and normal, and a compute pass shades every pixel once (the fragment
 * stage runs on few units of such GPUs, and the materials' shading is long). Edits refit the touched chunks exactly (the result equals
 * a fresh fit of the edited level) and re-upload them before the next frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/methods.h"
#include "strata/mesh.h"

#define MESH_MAX_DRAWS 8192u        /* chunk copies drawn per frame at most (the nearest are kept) */
#define MESH_BIG_SPLIT 16u          /* workgroups sharing one big triangle (mesh_big.comp) */
#define MESH_BIG_CAP 65535u         /* big-triangle queue entries (one workgroup each: ≤ 65535) */
#define MESH_UPLOAD_BYTES (16u << 20) /* staging batch of an upload */

/* The quality knob of both variants: the fit's tolerance q in [0, 1] (docs/mesh.md); a larger q is a coarser
 * mesh, less work. */
static const st_method_knob mesh_knobs[] = {{.name = "mesh_quality",
                                             .label = "mesh q",
                                             .kind = ST_KNOB_FRACTION,
                                             .offset = offsetof(st_method_knobs, mesh_quality),
                                             .default_value = 0.5,
                                             .min = 0,
                                             .max = 1,
                                             .sweep_count = 5,
                                             .sweep = {0, 0.25, 0.5, 0.75, 1},
                                             .cost_falls = true}};

/* Mirror of MeshDrawPush in mesh.vert */
typedef struct mesh_draw_push {
    float origin[4];
} mesh_draw_push;

/* std430 mirror of MeshRecord in shaders/common/mesh_tri.glsl */
typedef struct mesh_record {
    float origin[2];
    uint32_t vb_first, ib_first, tri_first, tri_count, pad0, pad1;
} mesh_record;

/* Mirror of MeshComputePush in mesh_tri.glsl */
typedef struct mesh_compute_push {
    uint32_t tri_total, record_count, big_cap, row_threads, wireframe;
} mesh_compute_push;

/* Where a chunk lives in the big buffers, in elements (vertices, u16 indices), with room to grow. */
typedef st_mesh_slot mesh_slot;

typedef st_mesh_draw mesh_draw;

typedef struct mesh_state {
    bool compute;
    st_mesh *mesh;
    mesh_slot *slots;
    st_gpu_buffer vb, ib;      /* every chunk: 4-byte vertices; u16 indices */
    uint32_t vb_size, ib_size; /* capacity in elements */
    uint32_t vb_tail, ib_tail; /* first free element after the slots */
    mesh_draw *draws;          /* this frame's chunk copies, near to far */
    uint32_t draw_count;
    st_view frozen;            /* freeze_culling: the first frame's view */
    bool have_frozen;
    VkDescriptorSetLayout set_layout; /* set 1: the mesh buffers (+ compute scratch) */
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline pipeline;       /* raster: the draw; compute: pass 1 */
    VkPipeline wire_pipeline;  /* raster with desc.wireframe: the edge overlay */
    /* raster, deferred (textured shading): the G-buffer (point, layer, flat geometric normal) and its resolve */
    bool deferred;
    st_deferred gbuffer;
    /* compute */
    VkDescriptorSetLayout targets_layout;
    VkDescriptorSet targets_set;
    VkPipeline big_pipeline, resolve_pipeline;
    st_gpu_buffer records; /* host-visible, rewritten every frame */
    uint32_t record_cap;
    st_gpu_buffer vis;     /* width·height uint64: reverse-Z depth bits | triangle id */
    st_gpu_buffer big;     /* indirect dispatch (3 u32), offered count, MESH_BIG_CAP ids */
} mesh_state;

/* ---- buffers ------------------------------------------------------------------------------------------ */

/* Lays every chunk out from its current counts and sizes the buffers with the shared tail. */
static st_result lay_out(mesh_state *s, mesh_slot *slots, uint32_t *vb_size, uint32_t *ib_size, st_error *err) {
    uint64_t vb, ib;
    st_mesh_slots_lay_out(s->mesh, slots, &vb, &ib);
    s->vb_tail = (uint32_t)vb;
    s->ib_tail = (uint32_t)ib;
    vb = st_mesh_slots_with_tail(vb);
    ib = st_mesh_slots_with_tail(ib);
    ib = (ib + 1) & ~1ull; /* the compute passes read indices as u32 pairs */
    if (vb > UINT32_MAX / 4 || ib > UINT32_MAX / 2)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "mesh: %llu vertices / %llu indices exceed one buffer",
                            (unsigned long long)vb, (unsigned long long)ib);
    *vb_size = (uint32_t)vb;
    *ib_size = (uint32_t)ib;
    return ST_OK;
}

static st_result create_mesh_buffers(st_gpu *gpu, uint32_t vb_size, uint32_t ib_size, st_gpu_buffer *vb,
                                     st_gpu_buffer *ib, st_error *err) {
    VkBufferUsageFlags common = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                VK_BUFFER_USAGE_TRANSFER_SRC_BIT; /* SRC: re-packing copies on the GPU */
    st_result r = st_gpu_buffer_create(gpu, (VkDeviceSize)vb_size * 4, common, false, vb, err);
    if (!r)
        r = st_gpu_buffer_create(gpu, (VkDeviceSize)ib_size * 2, common | VK_BUFFER_USAGE_INDEX_BUFFER_BIT, false, ib,
                                 err);
    return r;
}

/* Makes the copies of an upload visible to every later reader: the vertex and compute shaders (storage
 * reads), index fetch, and transfer reads of a later re-pack. */
static void upload_barrier(VkCommandBuffer cmd) {
    st_gpu_cmd_memory_barrier(
        cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT | VK_ACCESS_2_TRANSFER_READ_BIT);
}

/* Uploads the listed chunks' CPU data into their slots through the staging buffer, in batches. */
static st_result upload_chunks(st_gpu *gpu, mesh_state *s, const uint32_t *list, uint32_t count, st_error *err) {
    if (!count) return ST_OK;
    VkBufferCopy *vr = malloc(count * sizeof *vr), *ir = malloc(count * sizeof *ir);
    if (!vr || !ir) {
        free(vr);
        free(ir);
        return st_error_set(err, ST_ERR_NOMEM, "mesh upload: out of memory");
    }
    uint64_t total = 0;
    for (uint32_t k = 0; k < count; k++) {
        const st_mesh_chunk *c = &s->mesh->chunks[list[k]];
        total += (uint64_t)c->vertex_count * 4 + (uint64_t)c->index_count * 2 + 4;
    }
    VkDeviceSize batch = total < MESH_UPLOAD_BYTES ? total : MESH_UPLOAD_BYTES;
    st_result r = st_gpu_staging_reserve(gpu, batch, err);
    uint32_t k = 0;
    while (!r && k < count) {
        VkDeviceSize used = 0;
        uint32_t nv = 0, ni = 0;
        for (; k < count; k++) {
            const st_mesh_chunk *c = &s->mesh->chunks[list[k]];
            const mesh_slot *sl = &s->slots[list[k]];
            VkDeviceSize vbytes = (VkDeviceSize)c->vertex_count * 4, ibytes = (VkDeviceSize)c->index_count * 2;
            VkDeviceSize need = vbytes + ((ibytes + 3) & ~(VkDeviceSize)3);
            if (used + need > gpu->staging_size) {
                if (used == 0) r = st_error_set(err, ST_ERR_INVALID, "mesh upload: a chunk exceeds the staging batch");
                break;
            }
            if (!c->vertices || !c->indices) {
                r = st_error_set(err, ST_ERR_INVALID, "mesh upload: chunk %u has no CPU data", list[k]);
                break;
            }
            uint8_t *dst = (uint8_t *)gpu->staging_mapped;
            memcpy(dst + used, c->vertices, (size_t)vbytes);
            vr[nv++] = (VkBufferCopy){.srcOffset = used, .dstOffset = (VkDeviceSize)sl->vb_off * 4, .size = vbytes};
            used += vbytes;
            memcpy(dst + used, c->indices, (size_t)ibytes);
            ir[ni++] = (VkBufferCopy){.srcOffset = used, .dstOffset = (VkDeviceSize)sl->ib_off * 2, .size = ibytes};
            used += (ibytes + 3) & ~(VkDeviceSize)3;
        }
        if (r || (!nv && !ni)) break;
        VkCommandBuffer cmd;
        r = st_gpu_once_begin(gpu, &cmd, err);
        if (r) break;
        vkCmdCopyBuffer(cmd, gpu->staging, s->vb.buffer, nv, vr);
        vkCmdCopyBuffer(cmd, gpu->staging, s->ib.buffer, ni, ir);
        upload_barrier(cmd);
        r = st_gpu_once_submit(gpu, cmd, err); /* waits: the staging buffer is reused by the next batch */
    }
    free(vr);
    free(ir);
    return r;
}

/* A refit re-emits a chunk's unchanged fit tiles from its previous buffers, whose CPU copies were dropped
 * after upload: this brings the listed chunks' buffers back from the GPU, in staging-sized batches. */
static st_result restore_cpu_copies(st_gpu *gpu, mesh_state *s, const uint32_t *list, uint32_t count, st_error *err) {
    st_result r = st_gpu_staging_reserve(gpu, MESH_UPLOAD_BYTES, err);
    uint32_t k = 0;
    while (!r && k < count) {
        VkBufferCopy vr[64], ir[64];
        uint32_t batch[64], n = 0;
        VkDeviceSize used = 0;
        for (; k < count && n < 64; k++) {
            st_mesh_chunk *c = &s->mesh->chunks[list[k]];
            const mesh_slot *sl = &s->slots[list[k]];
            VkDeviceSize vbytes = (VkDeviceSize)c->vertex_count * 4, ibytes = (VkDeviceSize)c->index_count * 2;
            VkDeviceSize need = vbytes + ((ibytes + 3) & ~(VkDeviceSize)3);
            if (c->vertices || !c->vertex_count || need > gpu->staging_size) continue; /* (too big: refit in full) */
            if (used + need > gpu->staging_size) break;
            c->vertices = malloc((size_t)vbytes);
            c->indices = malloc((size_t)ibytes);
            if (!c->vertices || !c->indices) {
                free(c->vertices);
                free(c->indices);
                c->vertices = NULL, c->indices = NULL;
                return st_error_set(err, ST_ERR_NOMEM, "mesh refit: out of memory");
            }
            vr[n] = (VkBufferCopy){.srcOffset = (VkDeviceSize)sl->vb_off * 4, .dstOffset = used, .size = vbytes};
            used += vbytes;
            ir[n] = (VkBufferCopy){.srcOffset = (VkDeviceSize)sl->ib_off * 2, .dstOffset = used, .size = ibytes};
            used += (ibytes + 3) & ~(VkDeviceSize)3;
            batch[n++] = list[k];
        }
        if (!n) continue;
        VkCommandBuffer cmd;
        r = st_gpu_once_begin(gpu, &cmd, err);
        if (r) break;
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        vkCmdCopyBuffer(cmd, s->vb.buffer, gpu->staging, n, vr);
        vkCmdCopyBuffer(cmd, s->ib.buffer, gpu->staging, n, ir);
        st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
        r = st_gpu_once_submit(gpu, cmd, err);
        for (uint32_t i = 0; i < n && !r; i++) {
            st_mesh_chunk *c = &s->mesh->chunks[batch[i]];
            memcpy(c->vertices, (const uint8_t *)gpu->staging_mapped + vr[i].dstOffset, (size_t)vr[i].size);
            memcpy(c->indices, (const uint8_t *)gpu->staging_mapped + ir[i].dstOffset, (size_t)ir[i].size);
        }
    }
    return r;
}

/* The library's CPU copy is only the upload payload: once on the GPU it is dropped (a refit makes new). */
static void drop_cpu_copies(mesh_state *s, const uint32_t *list, uint32_t count) {
    for (uint32_t k = 0; k < count; k++) {
        st_mesh_chunk *c = &s->mesh->chunks[list[k]];
        free(c->vertices);
        free(c->indices);
        c->vertices = NULL;
        c->indices = NULL;
    }
}

/* The method's set: the vertices for the raster draw; vertices, indices, the draw records, the visibility
 * buffer and the big-triangle queue for the compute variant. Returns the binding count. */
static uint32_t set_bindings(const mesh_state *s, st_gpu_binding b[5]) {
    const VkBuffer buffers[5] = {s->vb.buffer, s->ib.buffer, s->records.buffer, s->vis.buffer, s->big.buffer};
    uint32_t n = s->compute ? 5 : 1;
    for (uint32_t i = 0; i < n; i++)
        b[i] = (st_gpu_binding){.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                .stages = s->compute ? VK_SHADER_STAGE_COMPUTE_BIT : VK_SHADER_STAGE_VERTEX_BIT,
                                .buffer = buffers[i]};
    return n;
}

static void write_sets(st_renderer *r, mesh_state *s) {
    st_gpu_binding b[5];
    uint32_t n = set_bindings(s, b);
    st_gpu_set_write(r->engine->gpu, s->set, b, n);
}

/* Re-lays every chunk out into new buffers: unchanged chunks are copied GPU to GPU from their old slots,
 * the `changed` ones uploaded from their fresh CPU data. Used when a refit outgrows the shared tail. */
static st_result repack(st_renderer *r, mesh_state *s, const uint32_t *changed, uint32_t changed_count,
                        st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    mesh_slot *slots = malloc(count * sizeof *slots);
    uint8_t *is_changed = calloc(count, 1);
    VkBufferCopy *vr = malloc(count * sizeof *vr), *ir = malloc(count * sizeof *ir);
    st_gpu_buffer vb = {0}, ib = {0};
    uint32_t vb_size = 0, ib_size = 0;
    uint32_t old_vb_tail = s->vb_tail, old_ib_tail = s->ib_tail;
    st_result res = ST_OK;
    if (!slots || !is_changed || !vr || !ir) res = st_error_set(err, ST_ERR_NOMEM, "mesh re-pack: out of memory");
    if (!res) res = lay_out(s, slots, &vb_size, &ib_size, err);
    if (!res) res = create_mesh_buffers(gpu, vb_size, ib_size, &vb, &ib, err);
    VkCommandBuffer cmd;
    if (!res) res = st_gpu_once_begin(gpu, &cmd, err);
    if (!res) {
        for (uint32_t k = 0; k < changed_count; k++) is_changed[changed[k]] = 1;
        uint32_t n = 0;
        for (uint32_t i = 0; i < count; i++) {
            if (is_changed[i]) continue;
            const st_mesh_chunk *c = &s->mesh->chunks[i];
            vr[n] = (VkBufferCopy){(VkDeviceSize)s->slots[i].vb_off * 4, (VkDeviceSize)slots[i].vb_off * 4,
                                   (VkDeviceSize)c->vertex_count * 4};
            ir[n] = (VkBufferCopy){(VkDeviceSize)s->slots[i].ib_off * 2, (VkDeviceSize)slots[i].ib_off * 2,
                                   (VkDeviceSize)c->index_count * 2};
            n++;
        }
        if (n) {
            vkCmdCopyBuffer(cmd, s->vb.buffer, vb.buffer, n, vr);
            vkCmdCopyBuffer(cmd, s->ib.buffer, ib.buffer, n, ir);
        }
        upload_barrier(cmd);
        res = st_gpu_once_submit(gpu, cmd, err);
    }
    if (!res) {
        st_gpu_buffer_destroy(gpu, &s->vb);
        st_gpu_buffer_destroy(gpu, &s->ib);
        s->vb = vb, s->ib = ib;
        s->vb_size = vb_size, s->ib_size = ib_size;
        memcpy(s->slots, slots, count * sizeof *slots);
        write_sets(r, s);
        res = upload_chunks(gpu, s, changed, changed_count, err);
    } else {
        st_gpu_buffer_destroy(gpu, &vb);
        st_gpu_buffer_destroy(gpu, &ib);
        s->vb_tail = old_vb_tail, s->ib_tail = old_ib_tail; /* lay_out moved them; the old layout stands */
    }
    free(slots);
    free(is_changed);
    free(vr);
    free(ir);
    return res;
}

/* ---- culling -------------------------------------------------------------------------------------------- */

/* Chunk copies within the frustum's reach that meet the frustum, each with its LOD, near to far
 * (st_mesh_select_draws); a frozen view keeps the culling of the frame it was frozen on. */
static void select_draws(st_renderer *r, mesh_state *s) {
    st_view v = r->view;
    if (r->desc.freeze_culling) {
        if (!s->have_frozen) s->frozen = v, s->have_frozen = true;
        v = s->frozen;
    }
    s->draw_count = st_mesh_select_draws(s->mesh, r->engine->level, &v, s->draws, MESH_MAX_DRAWS);
}

/* ---- the method ------------------------------------------------------------------------------------------ */

static void mesh_destroy(st_renderer *r, void *state) {
    mesh_state *s = state;
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    if (s->pipeline) vkDestroyPipeline(dev, s->pipeline, NULL);
    if (s->wire_pipeline) vkDestroyPipeline(dev, s->wire_pipeline, NULL);
    if (s->big_pipeline) vkDestroyPipeline(dev, s->big_pipeline, NULL);
    if (s->resolve_pipeline) vkDestroyPipeline(dev, s->resolve_pipeline, NULL);
    st_deferred_destroy(r, &s->gbuffer);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->set_layout) vkDestroyDescriptorSetLayout(dev, s->set_layout, NULL);
    if (s->targets_layout) vkDestroyDescriptorSetLayout(dev, s->targets_layout, NULL);
    st_gpu_buffer_destroy(gpu, &s->vb);
    st_gpu_buffer_destroy(gpu, &s->ib);
    st_gpu_buffer_destroy(gpu, &s->records);
    st_gpu_buffer_destroy(gpu, &s->vis);
    st_gpu_buffer_destroy(gpu, &s->big);
    st_mesh_destroy(s->mesh);
    free(s->slots);
    free(s->draws);
    free(s);
}

static st_result create_common(st_renderer *r, mesh_state *s, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    float q = (float)st_knob_get(&r->desc.knobs, &mesh_knobs[0]);
    st_mesh_desc md = {.tolerance = st_mesh_tolerance(q)};
    st_result res = st_mesh_create(r->engine->level, &md, &s->mesh, err);
    if (res) return st_error_prefix(err, "mesh");
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    s->slots = calloc(count, sizeof *s->slots);
    s->draws = malloc(MESH_MAX_DRAWS * sizeof *s->draws);
    uint32_t *all = malloc(count * sizeof *all);
    if (!s->slots || !s->draws || !all) {
        free(all);
        return st_error_set(err, ST_ERR_NOMEM, "mesh: out of memory");
    }
    for (uint32_t i = 0; i < count; i++) all[i] = i;
    res = lay_out(s, s->slots, &s->vb_size, &s->ib_size, err);
    if (!res) res = create_mesh_buffers(gpu, s->vb_size, s->ib_size, &s->vb, &s->ib, err);
    if (!res) res = upload_chunks(gpu, s, all, count, err);
    if (!res) drop_cpu_copies(s, all, count);
    free(all);
    if (res) return res;

    st_gpu_binding b[5];
    uint32_t n = set_bindings(s, b);
    res = st_gpu_set_layout(gpu, b, n, &s->set_layout, err);
    if (!res) res = st_renderer_alloc_set(r, s->set_layout, &s->set, err);
    return res;
}

/* Whether the raster variant defers its shading to a compute pass: with textured shading (and its fetch count).
 * Flat shading stays in the fragment shader (the paper's protocol, the same bytes as ever), and so does the
 * wireframe overlay's frame, which draws over the forward pass's targets. */
static bool mesh_defers(const st_renderer *r) {
    return st_deferred_wanted(r) && !(r->desc.wireframe && r->engine->gpu->fill_mode_non_solid);
}

/* The deferred frame copies its shading onto the colour target. */
static VkImageUsageFlags mesh_target_usage(const st_renderer *r) {
    return mesh_defers(r) ? st_deferred_target_usage(r) : 0;
}

static st_result mesh_create(st_renderer *r, void **out, st_error *err) {
    mesh_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_result res = create_common(r, s, err);
    if (res) return res;
    write_sets(r, s);
    bool wire = r->desc.wireframe && r->engine->gpu->fill_mode_non_solid;
    s->deferred = mesh_defers(r);
    if (s->deferred) res = st_deferred_create(r, &(st_deferred_desc){.normals = true}, &s->gbuffer, err);
    if (!res) res = st_renderer_pipeline_layout(r, &s->set_layout, 1, sizeof(mesh_draw_push), &s->layout, err);
    if (res) return res;
    /* Emit winds every outward face counter-clockwise seen from outside in the map's (x, y, z) frame. The
     * world is left-handed on screen (a top-down image is the map turned, y down, never mirrored), so those
     * faces arrive clockwise in the framebuffer. The pipeline helper's front face is counter-clockwise, so
     * the faces Vulkan calls front are the mesh's back faces: culling FRONT drops them. */
    st_gpu_graphics_desc d = {.vertex = "mesh.vert",
                              .fragment = s->deferred ? "mesh_gbuffer.frag" : "mesh.frag",
                              .layout = s->layout,
                              .color_format = s->deferred ? s->gbuffer.point.format : r->color.format,
                              .color_format2 = s->deferred ? s->gbuffer.normal.format : VK_FORMAT_UNDEFINED,
                              .depth_format = r->depth.format,
                              .depth_write = true,
                              .cull = VK_CULL_MODE_FRONT_BIT};
    res = st_gpu_graphics_pipeline(r->engine->gpu, &d, &s->pipeline, err);
    if (!res && wire) {
        /* the overlay: the same draws as lines, over the shaded surface */
        d.fragment = "mesh_wire.frag";
        d.wireframe = true;
        d.depth_write = false;
        d.depth_bias = 4.0f;
        res = st_gpu_graphics_pipeline(r->engine->gpu, &d, &s->wire_pipeline, err);
    }
    return res;
}

static void mesh_issue_draws(const mesh_state *s, VkPipelineLayout layout, VkCommandBuffer cmd) {
    for (uint32_t i = 0; i < s->draw_count; i++) {
        const mesh_draw *d = &s->draws[i];
        const st_mesh_lod *L = &s->mesh->chunks[d->chunk].lods[d->lod];
        const mesh_slot *sl = &s->slots[d->chunk];
        mesh_draw_push push = {{d->origin[0], d->origin[1], 0, 0}};
        vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_ALL, 0, sizeof push, &push);
        vkCmdDrawIndexed(cmd, 3 * L->triangle_count, 1, sl->ib_off + L->first_index, (int32_t)sl->vb_off, 0);
    }
}

/* The deferred frame: "draw" rasterises the chunks into the G-buffer and the depth target (each pixel's
 * nearest triangle; nothing is shaded), "resolve" shades every pixel once (st_deferred_resolve). */
static void mesh_record_deferred(st_renderer *r, mesh_state *s, VkCommandBuffer cmd) {
    st_renderer_pass_begin(r, cmd, "draw");
    st_deferred_begin(r, &s->gbuffer, cmd);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->pipeline);
    VkDescriptorSet sets[2] = {r->globals_set, s->set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 2, sets, 0, NULL);
    vkCmdBindIndexBuffer(cmd, s->ib.buffer, 0, VK_INDEX_TYPE_UINT16);
    mesh_issue_draws(s, s->layout, cmd);
    st_deferred_resolve(r, &s->gbuffer, cmd);
}

static void mesh_record_draws(st_renderer *r, void *state, VkCommandBuffer cmd) {
    mesh_state *s = state;
    select_draws(r, s);
    if (s->deferred) {
        mesh_record_deferred(r, s, cmd);
        return;
    }
    st_renderer_pass_begin(r, cmd, "draw");
    st_renderer_begin_raster(r, cmd);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->pipeline);
    VkDescriptorSet sets[2] = {r->globals_set, s->set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 2, sets, 0, NULL);
    vkCmdBindIndexBuffer(cmd, s->ib.buffer, 0, VK_INDEX_TYPE_UINT16);
    mesh_issue_draws(s, s->layout, cmd);
    if (s->wire_pipeline) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->wire_pipeline);
        mesh_issue_draws(s, s->layout, cmd);
    }
    st_renderer_end_raster(r, cmd);
    st_renderer_pass_end(r, cmd);
}

static st_result mesh_compute_create(st_renderer *r, void **out, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    if (!gpu->int64_atomics)
        return st_error_set(err, ST_ERR_UNSUPPORTED,
                            "mesh-compute needs 64-bit buffer atomics (shaderInt64 + shaderBufferInt64Atomics), "
                            "which %s lacks; use --method mesh",
                            gpu->props.deviceName);
    mesh_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    s->compute = true;
    s->record_cap = MESH_MAX_DRAWS;
    st_result res = st_gpu_buffer_create(gpu, (VkDeviceSize)s->record_cap * sizeof(mesh_record),
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true, &s->records, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, (VkDeviceSize)r->width * r->height * 8,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false, &s->vis,
                                   err);
    if (!res)
        res = st_gpu_buffer_create(gpu, 16 + (VkDeviceSize)MESH_BIG_CAP * 4,
                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                                   false, &s->big, err);
    if (!res) res = create_common(r, s, err);
    if (res) return res;
    write_sets(r, s);
    res = st_renderer_storage_targets_layout(r, &s->targets_layout, &s->targets_set, err);
    VkDescriptorSetLayout sets[2] = {s->set_layout, s->targets_layout};
    if (!res) res = st_renderer_pipeline_layout(r, sets, 2, sizeof(mesh_compute_push), &s->layout, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "mesh_raster.comp", s->layout, &s->pipeline, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "mesh_big.comp", s->layout, &s->big_pipeline, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "mesh_resolve.comp", s->layout, &s->resolve_pipeline, err);
    return res;
}

static void mesh_compute_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    mesh_state *s = state;
    select_draws(r, s);
    /* The records are host-written before the submit, which makes them visible to the device. */
    mesh_record *rec = s->records.mapped;
    uint32_t total = 0;
    for (uint32_t i = 0; i < s->draw_count; i++) {
        const mesh_draw *d = &s->draws[i];
        const st_mesh_lod *L = &s->mesh->chunks[d->chunk].lods[d->lod];
        const mesh_slot *sl = &s->slots[d->chunk];
        rec[i] = (mesh_record){.origin = {d->origin[0], d->origin[1]},
                               .vb_first = sl->vb_off,
                               .ib_first = sl->ib_off + L->first_index,
                               .tri_first = total,
                               .tri_count = L->triangle_count};
        total += L->triangle_count;
    }
    st_vis_raster v = {.raster = s->pipeline, .big = s->big_pipeline, .resolve = s->resolve_pipeline,
                       .vis = s->vis.buffer, .big_queue = s->big.buffer, .big_split = MESH_BIG_SPLIT};
    st_vis_raster_clear(r, &v, cmd);
    VkDescriptorSet sets[3] = {r->globals_set, s->set, s->targets_set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 3, sets, 0, NULL);
    uint32_t gx, gy;
    st_vis_raster_grid(total, &gx, &gy);
    mesh_compute_push push = {.tri_total = total, .record_count = s->draw_count, .big_cap = MESH_BIG_CAP,
                              .row_threads = gx * 64, .wireframe = r->desc.wireframe};
    vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof push, &push);
    st_vis_raster_dispatch(r, &v, cmd, gx, gy);
}

/* A chunk's new data goes back into its slot when it fits, else to the shared tail; false = no room left. */
static bool place(mesh_state *s, uint32_t ci) {
    return st_mesh_slot_place(s->mesh, ci, s->slots, s->vb_size, s->ib_size, &s->vb_tail, &s->ib_tail);
}

/* The level changed inside rect: refit the chunks whose samples it touches (exactly: the result equals a
 * fresh fit) and re-upload them now, so the next frame draws the edited level. */
static st_result mesh_level_updated(st_renderer *r, void *state, st_rect rect, st_error *err) {
    mesh_state *s = state;
    uint32_t count = st_mesh_chunks_in_rect(s->mesh, rect, NULL, 0);
    if (!count) return ST_OK;
    uint32_t *list = malloc(count * sizeof *list);
    if (!list) return st_error_set(err, ST_ERR_NOMEM, "mesh refit: out of memory");
    uint32_t *version = malloc(count * sizeof *version);
    if (!version) {
        free(list);
        return st_error_set(err, ST_ERR_NOMEM, "mesh refit: out of memory");
    }
    st_mesh_chunks_in_rect(s->mesh, rect, list, count);
    for (uint32_t k = 0; k < count; k++) version[k] = s->mesh->chunks[list[k]].version;
    st_result res = restore_cpu_copies(r->engine->gpu, s, list, count, err);
    if (!res) res = st_mesh_refit(s->mesh, r->engine->level, rect, NULL, err);
    /* only the chunks whose buffers changed travel (the refit skips chunks whose samples did not change) */
    uint32_t changed = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t ci = list[k];
        if (s->mesh->chunks[ci].version != version[k]) {
            list[k] = list[changed]; /* a swap: the unchanged ones stay in the list, after the changed */
            list[changed++] = ci;
        }
    }
    free(version);
    if (!res && changed) {
        bool fits = true;
        for (uint32_t k = 0; k < changed && fits; k++) fits = place(s, list[k]);
        res = fits ? upload_chunks(r->engine->gpu, s, list, changed, err) : repack(r, s, list, changed, err);
    }
    drop_cpu_copies(s, list, count);
    free(list);
    return res;
}

static uint64_t mesh_gpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const mesh_state *s = state;
    uint64_t images = st_deferred_gpu_bytes(&s->gbuffer);
    return (uint64_t)s->vb.size + s->ib.size + s->records.size + s->vis.size + s->big.size + images;
}

static uint64_t mesh_cpu_bytes(const st_renderer *r, const void *state) {
    (void)r;
    const mesh_state *s = state;
    uint32_t count = s->mesh->chunks_x * s->mesh->chunks_y;
    return st_mesh_compute_totals(s->mesh).cpu_bytes + sizeof *s + (uint64_t)count * sizeof(mesh_slot) +
           (uint64_t)MESH_MAX_DRAWS * sizeof(mesh_draw);
}

const st_method_ops st_method_mesh = {
    .info = {.name = "mesh",
             .description = "fitted triangle mesh (TIN chunks, 3 LODs), rasterised",
             .compute = false,
             ST_METHOD_KNOBS(mesh_knobs)},
    .targets = ST_TARGETS_RASTER,
    .create = mesh_create,
    .destroy = mesh_destroy,
    .record = mesh_record_draws,
    .level_updated = mesh_level_updated,
    .gpu_bytes = mesh_gpu_bytes,
    .cpu_bytes = mesh_cpu_bytes,
    .target_usage = mesh_target_usage,
};

const st_method_ops st_method_mesh_compute = {
    .info = {.name = "mesh-compute",
             .description = "fitted triangle mesh, rasterised in compute into a 64-bit visibility buffer",
             .compute = true,
             ST_METHOD_KNOBS(mesh_knobs)},
    .targets = ST_TARGETS_STORAGE,
    .create = mesh_compute_create,
    .destroy = mesh_destroy,
    .record = mesh_compute_record,
    .level_updated = mesh_level_updated,
    .gpu_bytes = mesh_gpu_bytes,
    .cpu_bytes = mesh_cpu_bytes,
};
