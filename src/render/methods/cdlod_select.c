/* CDLOD's quadtree selection as one compute pass (shaders/methods/cdlod_select.comp): the inputs it reads (the
 * view's frustum planes, each widening attempt's bands, the store's per-tile bounds, the page table), the buffers
 * it writes (nodes, instances, indirect draws, counts, keys, requests, missing boxes) and their read-back. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/methods/cdlod_select.h"

#define LEVELS ST_STORE_TILE_LEVELS
#define ATTEMPTS (ST_LOD_ONE_LEVEL_RETRIES + 1)
#define FLAG_SKIRTS 1u
#define FLAG_NO_CULL 2u

/* std430 mirror of SelectIn (dvec4 arrays first: every offset a multiple of 32) */
typedef struct cdlod_select_in {
    double eye[4];
    double planes[6][4];
    double extent[4];
    double level_size[LEVELS][4];
    double bands[ATTEMPTS][LEVELS][4];
    float frame_bands[ATTEMPTS][LEVELS][4];
    uint32_t level_nodes[LEVELS][4];
    uint32_t pages[LEVELS][4];
    uint32_t info[4], caps[4];
    int32_t anchor[4];
    uint32_t draw[4];
    uint32_t handover[4], handover_counts[4];
} cdlod_select_in;

/* std430 mirror of SelectOut */
typedef struct cdlod_select_out {
    uint32_t draw_patch[5], draw_skirt[5];
    uint32_t nodes, patches, skirts, missing, fallback, culled, visits, violations;
    uint32_t worst_bits, widened, overflow, requests, missing_kept, pad[5];
    uint32_t per_level[LEVELS];
    float chosen_bands[LEVELS][4];
} cdlod_select_out;

_Static_assert(sizeof(cdlod_select_out) == 208 + LEVELS * 16, "SelectOut layout");
_Static_assert(offsetof(cdlod_select_out, chosen_bands) % 16 == 0, "SelectOut bands");

struct st_cdlod_select {
    st_gpu_buffer in, bounds, nodes, instances, out, keys, requests, missing, work, hand;
    VkDescriptorSetLayout layout;
    VkDescriptorSet set;
    VkPipelineLayout pipe_layout;
    VkPipeline pipeline;
    uint32_t bounds_offset[LEVELS], tiles_x[LEVELS];
    uint64_t loads_seen;
    bool generated, ran;
    uint32_t cpu_levels;       /* asked for: the coarse levels the CPU walks before the pass */
    uint32_t handed;           /* the last pass's: the levels the CPU walked (0: the pass walked from the roots) */
    double coarse_ms;          /* the CPU time of that walk */
    st_lod_frontier frontier;
    /* the widening attempts' bands depend on the view's focal length and far distance and the knobs alone: kept
     * while those stay */
    double bands_key[5];
    st_lod_band bands[ATTEMPTS][ST_LOD_MAX_LEVELS];
};

static void fill_bounds(st_cdlod_select *g, const st_lod_world *w) {
    float *b = g->bounds.mapped;
    for (uint32_t l = 0; l < w->levels; l++) {
        uint32_t nx, ny;
        st_store_level_tiles(w->store, l, &nx, &ny);
        for (uint32_t y = 0; y < ny; y++)
            for (uint32_t x = 0; x < nx; x++) {
                st_tile_meta m;
                float *e = b + 2 * ((size_t)g->bounds_offset[l] + (size_t)y * nx + x);
                if (st_store_tile_meta(w->store, (st_tile_key){l, x, y}, &m)) e[0] = m.min_m, e[1] = m.max_m;
                else e[0] = 1, e[1] = 0; /* unknown: min > max */
            }
    }
}

void st_cdlod_select_destroy(st_renderer *r, st_cdlod_select *g) {
    if (!g) return;
    st_gpu *gpu = r->engine->gpu;
    if (g->pipeline) vkDestroyPipeline(gpu->device, g->pipeline, NULL);
    if (g->pipe_layout) vkDestroyPipelineLayout(gpu->device, g->pipe_layout, NULL);
    if (g->layout) vkDestroyDescriptorSetLayout(gpu->device, g->layout, NULL);
    st_gpu_buffer *bufs[] = {&g->in, &g->bounds, &g->nodes, &g->instances, &g->out,
                             &g->keys, &g->requests, &g->missing, &g->work, &g->hand};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) st_gpu_buffer_destroy(gpu, bufs[i]);
    st_lod_frontier_free(&g->frontier);
    free(g);
}

/* The walk's pipeline with `threads` invocations in its one workgroup (the shader's specialisation constant 0):
 * wider walks a level's candidates in fewer rounds of dependent loads, at the price of idle invocations on the
 * coarse levels. */
static st_result select_pipeline(st_gpu *gpu, VkPipelineLayout layout, uint32_t threads, VkPipeline *out,
                                 st_error *err) {
    if (threads > gpu->props.limits.maxComputeWorkGroupSize[0] || threads > gpu->props.limits.maxComputeWorkGroupInvocations)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "the GPU selection's %u invocations exceed %s's workgroup limit",
                            threads, gpu->props.deviceName);
    /* the walk's counters add once per subgroup (ballot, arithmetic, vote in compute shaders) */
    VkPhysicalDeviceVulkan11Properties p11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &p11};
    vkGetPhysicalDeviceProperties2(gpu->physical, &p2);
    const VkSubgroupFeatureFlags ops = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT |
                                       VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT;
    if ((p11.subgroupSupportedOperations & ops) != ops || !(p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT))
        return st_error_set(err, ST_ERR_UNSUPPORTED, "the GPU selection needs subgroup ballot, vote and arithmetic in "
                            "compute shaders, which %s lacks; use --lod-select cpu", gpu->props.deviceName);
    /* constant 1: the entries of each list held in shared memory (five lists of 16-byte entries: 20 KiB at 256) */
    const uint32_t consts[2] = {threads, threads < 256 ? threads : 256};
    return st_gpu_compute_pipeline_spec(gpu, "cdlod_select.comp", layout, consts, 2, out, err);
}

st_result st_cdlod_select_create(st_renderer *r, const st_lod_world *w, uint32_t threads, int32_t cpu_levels,
                                 VkBuffer frame, st_cdlod_select **out, st_error *err) {
    *out = NULL;
    st_gpu *gpu = r->engine->gpu;
    if (!gpu->float64)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "%s: the GPU selection needs doubles in shaders (shaderFloat64), "
                            "which %s lacks; use --lod-select cpu", r->ops->info.name, gpu->props.deviceName);
    if (w->levels > LEVELS)
        return st_error_set(err, ST_ERR_UNSUPPORTED, "%s: the GPU selection holds %u levels, the store has %u; use "
                            "--lod-select cpu", r->ops->info.name, LEVELS, w->levels);
    st_cdlod_select *g = calloc(1, sizeof *g);
    if (!g) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = g;
    st_cdlod_select_set_cpu_levels(g, cpu_levels);
    uint64_t tiles = 0;
    for (uint32_t l = 0; l < w->levels; l++) {
        uint32_t nx, ny;
        st_store_level_tiles(w->store, l, &nx, &ny);
        g->bounds_offset[l] = (uint32_t)tiles;
        g->tiles_x[l] = nx;
        tiles += (uint64_t)nx * ny;
    }
    if (tiles > (1u << 26))
        return st_error_set(err, ST_ERR_UNSUPPORTED, "%s: %llu tiles are too many for the GPU selection's bounds table; "
                            "use --lod-select cpu", r->ops->info.name, (unsigned long long)tiles);
    g->generated = st_store_get_info(w->store)->generated;
    const VkBufferUsageFlags sto = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    /* what the CPU writes and the walk reads on its chain of dependent loads (the inputs, the bounds table, the
     * handover) lies in device-local memory the CPU can write where the adapter has such (near: a miss of the
     * GPU's caches is not a round trip across the bus); what the CPU reads back stays in host memory */
    struct {
        st_gpu_buffer *b;
        VkDeviceSize bytes;
        VkBufferUsageFlags usage;
        bool host, near;
    } want[] = {
        {&g->in, sizeof(cdlod_select_in), sto, true, true},
        {&g->bounds, tiles * 8, sto, true, true},
        {&g->nodes, (VkDeviceSize)ST_CDLOD_GPU_NODES * 32, sto, false, false},
        {&g->instances, (VkDeviceSize)ST_CDLOD_GPU_NODES * 20 * 4, sto, false, false},
        {&g->out, sizeof(cdlod_select_out), sto | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
         true, false},
        {&g->keys, (VkDeviceSize)ST_CDLOD_GPU_NODES * 16, sto, true, false},
        {&g->requests, (VkDeviceSize)ST_CDLOD_GPU_REQUESTS * 16, sto, true, false},
        {&g->missing, (VkDeviceSize)ST_CDLOD_GPU_MISSING * 64, sto, true, false},
        {&g->work, (VkDeviceSize)ST_CDLOD_GPU_WORK * 5 * 16, sto, false, false}, /* two candidate lists, three parent lists */
        {&g->hand, (VkDeviceSize)ST_CDLOD_GPU_HANDOVER * 16, sto, true, true},
    };
    st_result res = ST_OK;
    for (size_t i = 0; i < sizeof want / sizeof want[0] && !res; i++)
        res = want[i].near ? st_gpu_buffer_create_host(gpu, want[i].bytes, want[i].usage, ST_GPU_HOST_DEVICE_LOCAL,
                                                       want[i].b, err)
                           : st_gpu_buffer_create(gpu, want[i].bytes, want[i].usage, want[i].host, want[i].b, err);
    if (res) return res;
    memset(g->out.mapped, 0, sizeof(cdlod_select_out));
    fill_bounds(g, w);
    st_gpu_binding b[12];
    st_store_method_world_bindings(r, b); /* b[2]: the page table */
    b[2].stages = VK_SHADER_STAGE_COMPUTE_BIT;
    const st_gpu_buffer *mine[12] = {&g->in, &g->bounds, NULL, &g->nodes, &g->instances, &g->out,
                                     &g->keys, &g->requests, &g->missing, &g->work, NULL, &g->hand};
    st_gpu_binding page = b[2];
    for (uint32_t i = 0; i < 12; i++)
        b[i] = i == 2 ? page : (st_gpu_binding){.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                .stages = VK_SHADER_STAGE_COMPUTE_BIT,
                                                .buffer = i == 10 ? frame : mine[i]->buffer};
    res = st_renderer_set_create(r, b, 12, &g->layout, &g->set, err);
    if (!res) res = st_renderer_pipeline_layout(r, &g->layout, 1, 0, &g->pipe_layout, err);
    if (!res) res = select_pipeline(gpu, g->pipe_layout, threads ? threads : 256, &g->pipeline, err);
    return res;
}

void st_cdlod_select_set_cpu_levels(st_cdlod_select *g, int32_t cpu_levels) {
    g->cpu_levels = cpu_levels == 0 ? ST_LOD_SELECT_CPU_LEVELS : cpu_levels < 0 ? 0u : (uint32_t)cpu_levels;
}

VkBuffer st_cdlod_select_nodes(const st_cdlod_select *g) { return g->nodes.buffer; }
VkBuffer st_cdlod_select_instances(const st_cdlod_select *g) { return g->instances.buffer; }

void st_cdlod_select_refresh_bounds(st_cdlod_select *g, const st_lod_world *w, uint64_t loads_done) {
    if (!g->generated || loads_done == g->loads_seen) return;
    g->loads_seen = loads_done;
    fill_bounds(g, w);
}

/* The coarse levels' walk on the CPU (st_lod_select_coarse with the first attempt's bands) into the handover
 * buffer and in's handover fields; none (the pass walks from the roots) when no level is asked for, the world has
 * one level, or the frontier does not fit the buffer or the pass's lists. */
static void hand_over(st_cdlod_select *g, const st_lod_world *w, const st_lod_params *p, const st_lod_view *v,
                      cdlod_select_in *in) {
    g->handed = 0;
    g->coarse_ms = 0;
    uint32_t k = g->cpu_levels < w->levels ? g->cpu_levels : w->levels - 1;
    if (!k) return;
    double t0 = st_time_ms();
    st_lod_frontier *f = &g->frontier;
    st_error err = {0};
    bool fits = !st_lod_select_coarse(w, p, v, g->bands[0], k, f, &err) &&
                (uint64_t)f->draw_count + f->parent_count + f->cand_count <= ST_CDLOD_GPU_HANDOVER &&
                f->parent_count <= ST_CDLOD_GPU_WORK && f->cand_count <= ST_CDLOD_GPU_WORK;
    if (fits) {
        uint32_t(*e)[4] = g->hand.mapped;
        for (uint32_t i = 0; i < f->draw_count; i++, e++) {
            const st_lod_coarse_node *n = &f->draws[i];
            (*e)[0] = n->level | (uint32_t)n->quadrants << 8, (*e)[1] = n->x, (*e)[2] = n->y;
            (*e)[3] = (uint32_t)(int32_t)n->frustum;
        }
        for (uint32_t i = 0; i < f->parent_count; i++, e++) {
            const st_lod_coarse_node *n = &f->parents[i];
            (*e)[0] = n->x, (*e)[1] = n->y, (*e)[2] = (uint32_t)(int32_t)n->frustum, (*e)[3] = 0;
        }
        for (uint32_t i = 0; i < f->cand_count; i++, e++) {
            const st_lod_coarse_node *n = &f->cands[i];
            (*e)[0] = n->x, (*e)[1] = n->y, (*e)[2] = n->parent, (*e)[3] = (uint32_t)(int32_t)n->frustum;
        }
        in->handover[0] = k;
        in->handover[1] = f->draw_count;
        in->handover[2] = f->parent_count;
        in->handover[3] = f->cand_count;
        in->handover_counts[0] = f->visits;
        in->handover_counts[1] = f->culled;
        g->handed = k;
    }
    g->coarse_ms = st_time_ms() - t0;
}

static double node_size(const st_lod_world *w, double spacing, uint32_t level) {
    return ldexp((double)w->grid * spacing, (int)level);
}

void st_cdlod_select_record(st_renderer *r, st_cdlod_select *g, const st_lod_world *w, const st_lod_params *p,
                            const st_lod_view *v, int64_t ax, int64_t ay, const uint32_t draw[3], VkCommandBuffer cmd) {
    cdlod_select_in *in = g->in.mapped;
    memset(in, 0, sizeof *in);
    memcpy(in->eye, v->eye, sizeof v->eye);
    st_lod_frustum(v, in->planes);
    in->extent[0] = (double)(w->width - 1) * w->spacing_x;
    in->extent[1] = (double)(w->height - 1) * w->spacing_y;
    double key[5] = {v->focal_px, v->far_m, p->tau_px, p->lod_ratio, p->morph_ratio};
    if (memcmp(key, g->bands_key, sizeof key)) {
        st_lod_widening_bands(w, p, v->focal_px, v->far_m, g->bands);
        memcpy(g->bands_key, key, sizeof key);
    }
    const st_lod_band(*bands)[ST_LOD_MAX_LEVELS] = g->bands;
    st_page_level pages[ST_LOD_MAX_LEVELS];
    st_large_world_page_levels(r->engine->world, pages);
    for (uint32_t l = 0; l < w->levels; l++) {
        double sx = node_size(w, w->spacing_x, l), sy = node_size(w, w->spacing_y, l);
        in->level_size[l][0] = sx;
        in->level_size[l][1] = sy;
        in->level_size[l][2] = hypot(sx, sy);
        in->level_size[l][3] = st_lod_skirt_depth(w, l);
        uint64_t span = (uint64_t)w->grid << l;
        in->level_nodes[l][0] = (uint32_t)((w->width - 1 + span - 1) / span);
        in->level_nodes[l][1] = (uint32_t)((w->height - 1 + span - 1) / span);
        in->level_nodes[l][2] = g->bounds_offset[l];
        in->level_nodes[l][3] = g->tiles_x[l];
        in->pages[l][0] = pages[l].offset;
        in->pages[l][1] = pages[l].nx;
        in->pages[l][2] = pages[l].ny;
        in->pages[l][3] = pages[l].present;
        for (uint32_t a = 0; a < ATTEMPTS; a++) {
            const st_lod_band *b = &bands[a][l];
            in->bands[a][l][0] = b->range;
            in->bands[a][l][1] = b->morph_start;
            in->bands[a][l][2] = b->morph_end;
            /* as cdlod.c fills CdlodFrame.bands from the CPU's selection */
            bool morph = isfinite(b->morph_start) && b->morph_end > b->morph_start;
            in->frame_bands[a][l][0] = morph ? (float)b->morph_start : FLT_MAX;
            in->frame_bands[a][l][1] = morph ? (float)b->morph_end : FLT_MAX;
            in->frame_bands[a][l][2] = morph ? (float)(1.0 / (b->morph_end - b->morph_start)) : 0.0f;
        }
    }
    in->info[0] = w->levels;
    in->info[1] = w->grid;
    in->info[2] = (uint32_t)__builtin_ctz(st_lod_nodes_per_tile(w));
    in->info[3] = (p->skirts ? FLAG_SKIRTS : 0u) | (p->no_cull ? FLAG_NO_CULL : 0u);
    in->caps[0] = ST_CDLOD_GPU_NODES;
    in->caps[1] = ST_CDLOD_GPU_REQUESTS;
    in->caps[2] = ST_CDLOD_GPU_MISSING;
    in->caps[3] = ST_CDLOD_GPU_WORK;
    in->anchor[0] = (int32_t)ax;
    in->anchor[1] = (int32_t)ay;
    in->anchor[2] = (int32_t)w->tile_intervals;
    in->anchor[3] = (int32_t)ST_CDLOD_SKIRT_BASE;
    memcpy(in->draw, draw, 3 * sizeof *draw);
    hand_over(g, w, p, v, in);
    st_renderer_pass_begin(r, cmd, "select");
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->pipeline);
    VkDescriptorSet sets[2] = {r->globals_set, g->set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->pipe_layout, 0, 2, sets, 0, NULL);
    vkCmdDispatch(cmd, 1, 1, 1);
    /* one barrier: the draws' indirect commands, the nodes and instances, and the morph bands the pass wrote into
     * the frame's uniforms */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                                  VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                              VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                                  VK_ACCESS_2_UNIFORM_READ_BIT);
    st_renderer_pass_end(r, cmd);
    g->ran = true;
}

VkBuffer st_cdlod_select_draws(const st_cdlod_select *g, VkDeviceSize *patch_offset, VkDeviceSize *skirt_offset) {
    *patch_offset = offsetof(cdlod_select_out, draw_patch);
    *skirt_offset = offsetof(cdlod_select_out, draw_skirt);
    return g->out.buffer;
}

bool st_cdlod_select_read(const st_cdlod_select *g, st_cdlod_select_result *out) {
    memset(out, 0, sizeof *out);
    if (!g->ran) return false;
    const cdlod_select_out *o = g->out.mapped;
    out->nodes = o->nodes;
    out->patches = o->patches;
    out->skirts = o->skirts;
    out->missing = o->missing;
    out->fallback = o->fallback;
    out->culled = o->culled;
    out->visits = o->visits;
    out->violations = o->violations;
    out->widened = o->widened;
    out->requests = o->requests;
    out->missing_kept = o->missing_kept;
    out->cpu_levels = g->handed;
    out->coarse_ms = g->coarse_ms;
    memcpy(&out->worst_violation_m, &o->worst_bits, sizeof(float));
    out->overflow = o->overflow != 0 || o->requests > ST_CDLOD_GPU_REQUESTS;
    for (uint32_t l = 0; l < ST_LOD_MAX_LEVELS && l < LEVELS; l++) out->per_level[l] = o->per_level[l];
    return true;
}

uint32_t st_cdlod_select_nodes_read(const st_cdlod_select *g, const st_lod_world *w, st_lod_node *nodes, uint32_t cap) {
    if (!g->ran) return 0;
    const cdlod_select_out *o = g->out.mapped;
    const uint32_t *k = g->keys.mapped;
    uint32_t n = o->nodes < ST_CDLOD_GPU_NODES ? o->nodes : ST_CDLOD_GPU_NODES, per = st_lod_nodes_per_tile(w);
    for (uint32_t i = 0; i < n && i < cap; i++) {
        const uint32_t *e = k + 4 * (size_t)i;
        uint32_t level = e[0] & 0xff, tl = (e[0] >> 8) & 0xff;
        st_lod_node *d = &nodes[i];
        memset(d, 0, sizeof *d);
        d->level = level;
        d->x = e[1];
        d->y = e[2];
        d->quadrants = (uint8_t)((e[0] >> 16) & 0xf);
        d->fallback = (e[0] >> 20) & 1;
        d->skirts = (uint16_t)e[3];
        d->tile = (st_tile_key){tl, (e[1] / per) >> (tl - level), (e[2] / per) >> (tl - level)};
    }
    return n;
}

void st_cdlod_select_issue_requests(const st_cdlod_select *g, st_residency *res) {
    if (!g->ran || !res) return;
    const cdlod_select_out *o = g->out.mapped;
    const uint32_t *q = g->requests.mapped;
    uint32_t n = o->requests < ST_CDLOD_GPU_REQUESTS ? o->requests : ST_CDLOD_GPU_REQUESTS;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *e = q + 4 * (size_t)i;
        float pri;
        memcpy(&pri, &e[3], sizeof pri);
        st_residency_request(res, (st_tile_key){e[0], e[1], e[2]}, pri);
    }
}

uint32_t st_cdlod_select_missing_read(const st_cdlod_select *g, st_lod_box *boxes, uint32_t cap) {
    if (!g->ran) return 0;
    const cdlod_select_out *o = g->out.mapped;
    const double *m = g->missing.mapped;
    uint32_t n = o->missing_kept < ST_CDLOD_GPU_MISSING ? o->missing_kept : ST_CDLOD_GPU_MISSING;
    if (n > cap) n = cap;
    for (uint32_t i = 0; i < n; i++) {
        memcpy(boxes[i].lo, m + 8 * (size_t)i, 3 * sizeof(double));
        memcpy(boxes[i].hi, m + 8 * (size_t)i + 4, 3 * sizeof(double));
    }
    return n;
}
