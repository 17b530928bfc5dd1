/* The water pass: after the method (and the near-plane cap), a camera-centred ring grid displaced by Gerstner
 * waves or the FFT ocean's cascades, drawn over the terrain through the reverse-Z depth every method writes.
 * It copies the terrain's colour and depth (the refraction and absorption read them), tests the surface against
 * that depth with the texels that only stand for water taken as far (so the waves may dip below them), and
 * shades it with shaders/water/water_surface.glsl. Two ways of drawing, one picture: in compute (the default) —
 * the lattice displaced once, the triangles rasterised into a visibility buffer, every pixel resolved and shaded —
 * or by the hardware rasteriser with vertex and fragment shaders. Knows no method: raster and storage targets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/passes/ocean_gpu.h"
#include "render/passes/passes.h"
#include "render/passes/water_shore.h"

#define RING_CELLS 64u      /* cells per side of a ring's lattice (even, its half a multiple of 2) */
#define RING_MORPH 8.0f     /* cells of a ring's outer band that morph toward the next ring */
#define RING_BASE 0.25      /* the finest spacing (units) for an eye near the water; doubles with its height */
#define RING_MAX 16u        /* (WATER_RING_MAX in shaders/water/water_tri.glsl) */
#define GEOMETRY_CUT 4.0f   /* waves shorter than this many vertex spacings are left to the shading */
#define INDEX_VARIANTS 5u   /* the full square, then a ring with its hole offset by (0|1, 0|1) cells */
#define BIG_SPLIT 16u       /* compute: workgroups sharing one big triangle (water_big.comp) */
#define BIG_CAP 65535u      /* compute: big-triangle queue entries (one workgroup each: ≤ 65535) */

/* std140 mirror of shaders/water/water_common.glsl's block */
typedef struct water_ubo {
    float surface[4], grid[4], origin[4];
    uint32_t info[4];
    float deep[4], absorb[4], scatter[4], sky_zenith[4], foam[4];
    float wave[16][4];
    float cascade[4][4];
    float ring[RING_MAX][4];
    uint32_t ring_tris[RING_MAX][4];
    float shore[4];
    float shoal[ST_WATER_MAX_WAVES][4];
} water_ubo;

typedef struct water_push {
    float corner[2];
    float spacing;
    uint32_t morph;
} water_push;

/* mirror of WaterComputePush in shaders/water/water_tri.glsl */
typedef struct water_compute_push {
    uint32_t tri_total, big_cap, row_threads, rings;
} water_compute_push;

typedef struct water_state {
    st_water *water;
    bool storage;    /* storage targets: the depth test runs on work_depth, the R32 depth is a colour output */
    bool compute;    /* drawn by the compute rasteriser (ST_WATER_DRAW_COMPUTE) */
    bool store;      /* over a DEM store: metres, camera-relative, stand-ins by height alone */
    float rms_units; /* the surface's rms height (world units): the crest factor of the subsurface glow */
    st_gpu_image scene_color, scene_depth, work_depth;
    st_gpu_image dummy_disp, dummy_surf; /* Gerstner: the ocean's bindings stay valid */
    st_water_shore_gpu shore; /* the shore's fields (water_shore.c); its image a 1×1 stand-in without a bed */
    bool has_shore;
    VkSampler clamped;    /* linear, clamped to the edge: the shore's fields */
    st_ocean_gpu *ocean;
    st_gpu_buffer ubo, indices;
    uint32_t index_first[INDEX_VARIANTS], index_count[INDEX_VARIANTS], border_count[INDEX_VARIANTS];
    VkDescriptorPool pool;
    VkDescriptorSetLayout set_layout;
    VkDescriptorSet set;
    VkPipelineLayout layout;
    VkPipeline prepare, surface;
    /* the compute rasteriser: the displaced lattice of every ring, the visibility buffer, the big queue, the
     * resolve's depth of every pixel (copied into the depth target) and, over raster targets, its colour */
    st_gpu_buffer vertices, vis, big, out_depth;
    st_gpu_image out_color;
    VkDescriptorSetLayout compute_set_layout;
    VkDescriptorSet compute_set;
    VkPipelineLayout compute_layout;
    VkPipeline lattice, raster, big_pass, resolve;
    double last_time;
    bool have_last;
} water_state;

static bool water_on(const st_renderer *r) { return r->desc.water.mode != ST_WATER_NONE; }

/* Whether any texel of the level is dry or a real bed under the water: an all-water level (open sea of stand-ins)
 * has no shore to shoal toward, and its frames skip the shore's lookups. */
static bool level_has_shore(const st_level *level, float water_level) {
    for (uint32_t y = 0; y < level->height; y++)
        for (uint32_t x = 0; x < level->width; x++) {
            st_texel t = st_level_texel(level, (int)x, (int)y);
            float top = (float)(t.dual ? t.high : t.low);
            uint32_t type = t.dual ? t.high_type : t.low_type;
            if (!(type == 0 && top <= water_level + 0.01f && top >= water_level - 1.0f)) return true;
        }
    return false;
}
/* The compute drawing needs 64-bit buffer atomics (the visibility buffer); an adapter without them gets the raster
 * pipeline's picture instead. */
static bool water_compute(const st_renderer *r) {
    return r->desc.water.draw == ST_WATER_DRAW_COMPUTE && r->engine->gpu->int64_atomics;
}

static VkImageUsageFlags water_target_usage(const st_renderer *r) {
    if (!water_on(r)) return 0;
    /* compute: the resolve's depth (and over raster targets its colour) is copied into the targets */
    if (water_compute(r)) return VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    /* raster: over storage targets the surface is drawn as an attachment into the colour and R32 depth images */
    return r->ops->targets == ST_TARGETS_STORAGE ? VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT : 0;
}

static void water_destroy(st_renderer *r, void *state) {
    water_state *s = state;
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    VkPipeline pipes[4] = {s->lattice, s->raster, s->big_pass, s->resolve};
    for (int i = 0; i < 4; i++)
        if (pipes[i]) vkDestroyPipeline(dev, pipes[i], NULL);
    if (s->compute_layout) vkDestroyPipelineLayout(dev, s->compute_layout, NULL);
    if (s->compute_set_layout) vkDestroyDescriptorSetLayout(dev, s->compute_set_layout, NULL);
    st_gpu_buffer *bufs[4] = {&s->vertices, &s->vis, &s->big, &s->out_depth};
    for (int i = 0; i < 4; i++) st_gpu_buffer_destroy(gpu, bufs[i]);
    st_gpu_image_destroy(gpu, &s->out_color);
    if (s->surface) vkDestroyPipeline(dev, s->surface, NULL);
    if (s->prepare) vkDestroyPipeline(dev, s->prepare, NULL);
    if (s->layout) vkDestroyPipelineLayout(dev, s->layout, NULL);
    if (s->set_layout) vkDestroyDescriptorSetLayout(dev, s->set_layout, NULL);
    if (s->pool) vkDestroyDescriptorPool(dev, s->pool, NULL);
    st_ocean_gpu_destroy(s->ocean);
    st_gpu_buffer_destroy(gpu, &s->ubo);
    st_gpu_buffer_destroy(gpu, &s->indices);
    st_gpu_image_destroy(gpu, &s->scene_color);
    st_gpu_image_destroy(gpu, &s->scene_depth);
    st_gpu_image_destroy(gpu, &s->work_depth);
    st_gpu_image_destroy(gpu, &s->dummy_disp);
    st_gpu_image_destroy(gpu, &s->dummy_surf);
    st_water_shore_gpu_destroy(gpu, &s->shore);
    if (s->clamped) vkDestroySampler(dev, s->clamped, NULL);
    st_water_destroy(s->water);
    free(s);
}

/* The index buffer: the full square of RING_CELLS² cells, then the four rings whose hole (the next finer ring,
 * RING_CELLS/2 cells wide) starts at RING_CELLS/4 + (dx, dy). Vertices are lattice points, row after row. Each
 * variant ends with the zero-area triangles (A, M, B) over every pair of edges along the outer border: the next
 * ring meets this one with the single edge A–B where this one has A–M–B with M morphed onto it, and those
 * triangles fill the sliver that rounding leaves between the two (a T-junction is not watertight otherwise). */
static st_result build_indices(st_renderer *r, water_state *s, st_error *err) {
    const uint32_t n = RING_CELLS, row = n + 1, hole = n / 2;
    size_t border = 4 * (n / 2) * 3;
    size_t total = ((size_t)n * n * 6 + border) + 4 * (((size_t)n * n - (size_t)hole * hole) * 6 + border);
    uint32_t *idx = malloc(total * sizeof *idx), k = 0;
    if (!idx) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    for (uint32_t v = 0; v < INDEX_VARIANTS; v++) {
        s->index_first[v] = k;
        uint32_t hx = n / 4 + ((v - 1) & 1), hy = n / 4 + (((v - 1) >> 1) & 1);
        for (uint32_t b = 0; b < n; b++)
            for (uint32_t a = 0; a < n; a++) {
                if (v && a >= hx && a < hx + hole && b >= hy && b < hy + hole) continue;
                uint32_t i00 = b * row + a, i10 = i00 + 1, i01 = i00 + row, i11 = i01 + 1;
                /* the diagonal alternates, so the lattice has no preferred direction */
                if ((a + b) & 1) {
                    uint32_t t[6] = {i00, i10, i11, i00, i11, i01};
                    memcpy(idx + k, t, sizeof t);
                } else {
                    uint32_t t[6] = {i00, i10, i01, i10, i11, i01};
                    memcpy(idx + k, t, sizeof t);
                }
                k += 6;
            }
        s->index_count[v] = k - s->index_first[v];
        for (uint32_t a = 0; a < n; a += 2) {
            uint32_t t[12] = {a, a + 1, a + 2,                                     /* bottom */
                              n * row + a, n * row + a + 1, n * row + a + 2,       /* top */
                              a * row, (a + 1) * row, (a + 2) * row,               /* left */
                              a * row + n, (a + 1) * row + n, (a + 2) * row + n}; /* right */
            memcpy(idx + k, t, sizeof t);
            k += 12;
        }
        s->border_count[v] = k - s->index_first[v] - s->index_count[v];
    }
    /* device-local: the hardware's vertex fetch and the compute rasteriser read it every frame */
    st_gpu *gpu = r->engine->gpu;
    VkDeviceSize bytes = total * sizeof *idx;
    st_gpu_buffer staging = {0};
    st_result res = st_gpu_buffer_create(gpu, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, &staging, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, bytes, VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                   VK_BUFFER_USAGE_TRANSFER_DST_BIT, false, &s->indices, err);
    VkCommandBuffer cmd;
    if (!res) {
        memcpy(staging.mapped, idx, bytes);
        res = st_gpu_once_begin(gpu, &cmd, err);
    }
    if (!res) {
        VkBufferCopy region = {.size = bytes};
        vkCmdCopyBuffer(cmd, staging.buffer, s->indices.buffer, 1, &region);
        st_gpu_cmd_buffer_barrier(cmd, s->indices.buffer, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                  VK_ACCESS_2_INDEX_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
        res = st_gpu_once_submit(gpu, cmd, err);
    }
    st_gpu_buffer_destroy(gpu, &staging);
    free(idx);
    return res;
}

static st_result dummy_array(st_gpu *gpu, VkFormat format, st_gpu_image *img, st_error *err) {
    st_result res = st_gpu_image_create_mips(gpu, 1, 1, 1, 1, format,
                                             VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, img, err);
    if (res) return res;
    VkCommandBuffer cmd;
    res = st_gpu_once_begin(gpu, &cmd, err);
    if (res) return res;
    st_gpu_cmd_image_barrier(cmd, img->image, img->aspect, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL,
                             VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_CLEAR_BIT,
                             VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkClearColorValue zero = {{0}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, img->image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &range);
    st_gpu_cmd_image_barrier(cmd, img->image, img->aspect, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                             VK_PIPELINE_STAGE_2_CLEAR_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                             VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_SHADER_READ_BIT);
    return st_gpu_once_submit(gpu, cmd, err);
}

static double rms_height_m(const st_water *w) {
    double var = 0;
    for (uint32_t i = 0; i < st_water_wave_count(w); i++) var += 0.5 * pow(st_water_waves(w)[i].amplitude, 2);
    for (uint32_t c = 0; c < st_water_cascade_count(w); c++) {
        st_water_cascade cs = st_water_cascade_at(w, c);
        const float *h0 = st_water_h0(w, c);
        for (size_t p = 0; p < (size_t)cs.size * cs.size; p++)
            var += 2.0 * ((double)h0[2 * p] * h0[2 * p] + (double)h0[2 * p + 1] * h0[2 * p + 1]);
    }
    return sqrt(var);
}

/* The hardware rasteriser's pipelines: the depth the surface is tested against, then the surface. */
static st_result create_raster(st_renderer *r, water_state *s, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    st_result res = st_renderer_pipeline_layout(r, &s->set_layout, 1, sizeof(water_push), &s->layout, err);
    if (!res) {
        st_gpu_graphics_desc d = {.vertex = "fullscreen.vert",
                                  .fragment = "water_prepare.frag",
                                  .layout = s->layout,
                                  .color_format = VK_FORMAT_UNDEFINED,
                                  .depth_format = VK_FORMAT_D32_SFLOAT,
                                  .depth_compare = VK_COMPARE_OP_ALWAYS,
                                  .depth_write = true};
        res = st_gpu_graphics_pipeline(gpu, &d, &s->prepare, err);
    }
    if (!res) {
        bool ocean = s->ocean != NULL;
        const char *frag = ocean ? (s->storage ? "water_ocean_storage.frag" : "water_ocean.frag")
                                 : (s->storage ? "water_gerstner_storage.frag" : "water_gerstner.frag");
        st_gpu_graphics_desc d = {.vertex = ocean ? "water_ocean.vert" : "water_gerstner.vert",
                                  .fragment = frag,
                                  .layout = s->layout,
                                  .color_format = r->color.format,
                                  .color_format2 = s->storage ? r->depth.format : VK_FORMAT_UNDEFINED,
                                  .depth_format = VK_FORMAT_D32_SFLOAT,
                                  .depth_write = true,
                                  .cull = VK_CULL_MODE_NONE}; /* the underside shows from below */
        res = st_gpu_graphics_pipeline(gpu, &d, &s->surface, err);
    }
    return res;
}

/* The compute rasteriser's buffers, its set 2 and its four pipelines (lattice, triangles, big triangles,
 * resolve); over raster targets also the colour image the resolve writes (a UNORM twin of the sRGB target). */
static st_result create_compute(st_renderer *r, water_state *s, st_error *err) {
    st_gpu *gpu = r->engine->gpu;
    VkDeviceSize pixels = (VkDeviceSize)r->width * r->height, n1 = RING_CELLS + 1;
    VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    /* every ring's lattice, then the surface's height over the eye */
    st_result res = st_gpu_buffer_create(gpu, (RING_MAX * n1 * n1 + 1) * 16, storage, false, &s->vertices, err);
    if (!res) res = st_gpu_buffer_create(gpu, pixels * 8, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false, &s->vis, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, 16 + (VkDeviceSize)BIG_CAP * 4,
                                   storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false,
                                   &s->big, err);
    if (!res)
        res = st_gpu_buffer_create(gpu, pixels * 4, storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, false, &s->out_depth, err);
    if (!res && !s->storage)
        res = st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_R8G8B8A8_UNORM,
                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                      VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                  &s->out_color, err);
    if (res) return res;
    VkShaderStageFlags cs = VK_SHADER_STAGE_COMPUTE_BIT;
    st_gpu_binding b[6] = {
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = cs, .buffer = s->vertices.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = cs, .buffer = s->indices.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = cs, .buffer = s->vis.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = cs, .buffer = s->big.buffer},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
         .stages = cs,
         .view = s->storage ? r->color.view : s->out_color.view,
         .layout = VK_IMAGE_LAYOUT_GENERAL},
        {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .stages = cs, .buffer = s->out_depth.buffer}};
    res = st_renderer_set_create(r, b, 6, &s->compute_set_layout, &s->compute_set, err);
    VkDescriptorSetLayout sets[2] = {s->set_layout, s->compute_set_layout};
    if (!res) res = st_renderer_pipeline_layout(r, sets, 2, sizeof(water_compute_push), &s->compute_layout, err);
    bool ocean = s->ocean != NULL;
    if (!res)
        res = st_gpu_compute_pipeline(gpu, ocean ? "water_lattice_ocean.comp" : "water_lattice_gerstner.comp",
                                      s->compute_layout, &s->lattice, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "water_raster.comp", s->compute_layout, &s->raster, err);
    if (!res) res = st_gpu_compute_pipeline(gpu, "water_big.comp", s->compute_layout, &s->big_pass, err);
    if (!res)
        res = st_gpu_compute_pipeline(gpu, ocean ? "water_resolve_ocean.comp" : "water_resolve_gerstner.comp",
                                      s->compute_layout, &s->resolve, err);
    return res;
}

static st_result water_create(st_renderer *r, void **out, st_error *err) {
    *out = NULL;
    if (!water_on(r)) return ST_OK;
    water_state *s = calloc(1, sizeof *s);
    if (!s) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    *out = s;
    st_gpu *gpu = r->engine->gpu;
    VkDevice dev = gpu->device;
    s->storage = r->ops->targets == ST_TARGETS_STORAGE;
    s->compute = water_compute(r);
    s->store = r->ops->info.world == ST_WORLD_STORE;
    st_water_desc wd = r->desc.water;
    /* a level's most common flood level; a DEM store's sea level (its heights are metres, as the waves') */
    if (wd.level == 0)
        wd.level = s->store ? (float)st_store_get_info(st_large_world_store(r->engine->world))->sea_level_m
                            : r->engine->shape.water_level;
    if (s->store) wd.metres_per_unit = 1;
    st_result res = st_water_create(&wd, &s->water, err);
    if (res) return st_error_prefix(err, "water");
    s->rms_units = (float)(rms_height_m(s->water) / st_water_get_desc(s->water)->metres_per_unit);
    if (!st_gpu_format_supports(gpu, VK_FORMAT_D32_SFLOAT, VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT))
        return st_error_set(err, ST_ERR_UNSUPPORTED, "water: this adapter cannot sample D32 depth");
    VkImageUsageFlags copy_dst = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
    res = st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_R8G8B8A8_SRGB, copy_dst, &s->scene_color, err);
    if (!res)
        res = st_gpu_image_create(gpu, r->width, r->height, s->storage ? VK_FORMAT_R32_SFLOAT : VK_FORMAT_D32_SFLOAT,
                                  copy_dst, &s->scene_depth, err);
    if (!res && s->storage && !s->compute)
        res = st_gpu_image_create(gpu, r->width, r->height, VK_FORMAT_D32_SFLOAT,
                                  VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, &s->work_depth, err);
    if (!res && st_water_get_desc(s->water)->mode == ST_WATER_OCEAN) res = st_ocean_gpu_create(gpu, s->water, &s->ocean, err);
    if (!res && !s->ocean) res = dummy_array(gpu, VK_FORMAT_R32G32B32A32_SFLOAT, &s->dummy_disp, err);
    if (!res && !s->ocean) res = dummy_array(gpu, VK_FORMAT_R16G16B16A16_SFLOAT, &s->dummy_surf, err);
    /* a level's bed: the waves shoal toward its shores (a store's sea has no bed here yet) */
    if (!res && !s->store && r->engine->level && level_has_shore(r->engine->level, st_water_get_desc(s->water)->level)) {
        double eye[2] = {r->view.eye[0], r->view.eye[1]};
        bool moved;
        res = st_water_shore_gpu_update(gpu, r->engine->level, s->water, eye, &s->shore, &moved, err);
        s->has_shore = !res;
    }
    if (!res && !s->has_shore) res = dummy_array(gpu, VK_FORMAT_R32_SFLOAT, &s->shore.image, err);
    if (!res) res = st_gpu_buffer_create(gpu, sizeof(water_ubo), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true, &s->ubo, err);
    if (!res) res = build_indices(r, s, err);
    if (!res) {
        /* the fields' mips repeat like the materials': the engine's trilinear sampler serves both; the shore's
         * fields are clamped to their window */
        VkSamplerCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                                  .magFilter = VK_FILTER_LINEAR,
                                  .minFilter = VK_FILTER_LINEAR,
                                  .maxLod = VK_LOD_CLAMP_NONE};
        si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
        res = st_gpu_check(vkCreateSampler(dev, &si, NULL, &s->clamped), "water shore sampler", err);
    }
    VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT;
    VkSampler nearest = r->engine->nearest;
    st_gpu_binding b[6] = {{.type = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                            .stages = stages,
                            .buffer = s->ubo.buffer,
                            .range = sizeof(water_ubo)},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = stages,
                            .sampler = nearest,
                            .view = s->scene_color.view,
                            .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = stages,
                            .sampler = nearest,
                            .view = s->scene_depth.view,
                            .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = stages,
                            .sampler = nearest,
                            .view = s->ocean ? st_ocean_gpu_disp_view(s->ocean) : s->dummy_disp.view,
                            .layout = VK_IMAGE_LAYOUT_GENERAL},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = stages,
                            .sampler = r->engine->materials.trilinear,
                            .view = s->ocean ? st_ocean_gpu_surf_view(s->ocean) : s->dummy_surf.view,
                            .layout = VK_IMAGE_LAYOUT_GENERAL},
                           {.type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            .stages = stages,
                            .sampler = s->clamped,
                            .view = s->shore.image.view,
                            .layout = s->has_shore ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL}};
    if (!res) res = st_gpu_set_layout(gpu, b, 6, &s->set_layout, err);
    if (!res) {
        VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1},
                                         {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 5}};
        VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                         .poolSizeCount = 2, .pPoolSizes = sizes};
        res = st_gpu_check(vkCreateDescriptorPool(dev, &pi, NULL, &s->pool), "water descriptor pool", err);
    }
    if (!res) res = st_gpu_set_alloc(gpu, s->pool, s->set_layout, &s->set, err);
    if (!res) st_gpu_set_write(gpu, s->set, b, 6);
    if (!res) res = s->compute ? create_compute(r, s, err) : create_raster(r, s, err);
    return res;
}

/* The rings for this frame: the finest spacing doubles with the eye's height over the water; enough rings that
 * the coarsest reaches past the far plane. */
typedef struct ring_plan {
    uint32_t count;
    double spacing0;
    double origin[2]; /* the frame's origin O: the coarsest ring's centre (world) */
    double centre[RING_MAX][2];
    double shift[3]; /* world − what the shaders see: the eye over a store (camera-relative), else 0 */
} ring_plan;

/* The rings snap to the world's lattice (so they do not swim as the eye moves) and are drawn shifted by the
 * view's origin where the shaders see camera-relative positions. */
static ring_plan plan_rings(const st_renderer *r, const water_state *w, float level) {
    ring_plan p = {0};
    const st_view *v = &r->view;
    double eye[3];
    for (int k = 0; k < 3; k++) {
        p.shift[k] = w->store ? v->origin[k] : 0.0;
        eye[k] = w->store ? v->origin[k] : (double)v->eye[k];
    }
    double above = fabs(eye[2] - level), s0 = RING_BASE;
    while (s0 * RING_CELLS < above && s0 < 64.0) s0 *= 2.0; /* the finest ring about as wide as the eye is high */
    p.spacing0 = s0;
    double reach = 1.05 * v->far_dist + above;
    p.count = 1;
    while (p.count < RING_MAX && (RING_CELLS / 2) * s0 * (double)(1u << (p.count - 1)) < reach) p.count++;
    for (uint32_t i = 0; i < p.count; i++) {
        double s = s0 * (double)(1u << i);
        for (int k = 0; k < 2; k++) p.centre[i][k] = floor(eye[k] / (2.0 * s)) * 2.0 * s;
    }
    p.origin[0] = p.centre[p.count - 1][0];
    p.origin[1] = p.centre[p.count - 1][1];
    return p;
}

static double wrap_2pi(double a) {
    double m = fmod(a, 2.0 * 3.14159265358979323846);
    return m < 0 ? m + 2.0 * 3.14159265358979323846 : m;
}

static void fill_ubo(st_renderer *r, water_state *s, const ring_plan *p, double t) {
    const st_water_desc *d = st_water_get_desc(s->water);
    double mpu = d->metres_per_unit, tl = st_water_loop_time(t);
    water_ubo *u = s->ubo.mapped;
    memset(u, 0, sizeof *u);
    u->surface[0] = (float)(d->level - p->shift[2]);
    u->surface[1] = (float)(1.0 / mpu);
    u->surface[2] = st_water_choppiness(s->water);
    u->surface[3] = (float)tl;
    u->grid[0] = (float)p->spacing0;
    u->grid[1] = (float)RING_CELLS;
    u->grid[2] = RING_MORPH;
    u->grid[3] = GEOMETRY_CUT;
    u->origin[0] = (float)(p->origin[0] - p->shift[0]);
    u->origin[1] = (float)(p->origin[1] - p->shift[1]);
    u->origin[2] = (float)p->count;
    u->origin[3] = s->rms_units;
    u->info[0] = d->mode == ST_WATER_GERSTNER ? 1u : 2u;
    u->info[1] = st_water_wave_count(s->water);
    u->info[2] = st_water_cascade_count(s->water);
    u->info[3] = (s->storage ? 1u : 0u) | (s->store ? 2u : 0u) | (s->has_shore ? 4u : 0u);
    if (s->has_shore) {
        uint32_t sw, sh, layers;
        double so[2], spacing;
        st_water_shore_grid(s->water, &sw, &sh, &layers, so, &spacing);
        u->shore[0] = (float)(p->origin[0] - so[0]); /* world = O + rest */
        u->shore[1] = (float)(p->origin[1] - so[1]);
        u->shore[2] = (float)(1.0 / spacing);
        uint32_t n = d->mode == ST_WATER_GERSTNER ? st_water_wave_count(s->water) : st_water_cascade_count(s->water);
        for (uint32_t i = 0; i < n && i < ST_WATER_MAX_WAVES; i++) {
            float omega, k_far;
            st_water_shoal_wave(s->water, i, &omega, &k_far);
            u->shoal[i][0] = omega;
            u->shoal[i][1] = k_far;
            u->shoal[i][2] = st_water_shoal_amplitude(s->water, i);
            u->shoal[i][3] = (float)st_water_dispersion_slope(k_far, d->depth_m);
        }
    }
    /* colours (linear) and per-unit optics; absorption in 1/m (red goes first) */
    const float deep[3] = {0.008f, 0.055f, 0.075f}, absorb_m[3] = {0.45f, 0.07f, 0.05f};
    for (int k = 0; k < 3; k++) {
        u->deep[k] = deep[k];
        u->absorb[k] = (float)(absorb_m[k] * mpu);
    }
    u->absorb[3] = 0.25f; /* the refraction's shift, in units per unit of slope and depth */
    u->scatter[0] = 0.02f;
    u->scatter[1] = 0.13f;
    u->scatter[2] = 0.11f;
    u->scatter[3] = 0.6f;
    u->sky_zenith[0] = 0.035f;
    u->sky_zenith[1] = 0.09f;
    u->sky_zenith[2] = 0.22f;
    u->sky_zenith[3] = 0.08f; /* the base GGX α of calm water */
    u->foam[0] = 0.85f;
    u->foam[1] = 0.9f;
    u->foam[2] = 0.92f;
    u->foam[3] = (float)(0.6 / mpu); /* the shore's foam band: 0.6 m of depth */
    const st_gerstner_wave *wv = st_water_waves(s->water);
    for (uint32_t i = 0; i < st_water_wave_count(s->water); i++) {
        double ox = p->origin[0] * mpu, oy = p->origin[1] * mpu;
        u->wave[2 * i][0] = wv[i].dir[0];
        u->wave[2 * i][1] = wv[i].dir[1];
        u->wave[2 * i][2] = (float)(wv[i].k * mpu);
        u->wave[2 * i][3] = (float)(wv[i].amplitude / mpu);
        /* the phase at the origin, in double: the shader adds k·d·(x − O) in float, small numbers */
        u->wave[2 * i + 1][0] =
            (float)wrap_2pi((double)wv[i].k * (wv[i].dir[0] * ox + wv[i].dir[1] * oy) - (double)wv[i].omega * tl + wv[i].phase);
        u->wave[2 * i + 1][1] = wv[i].omega;
        u->wave[2 * i + 1][2] = wv[i].steepness;
    }
    for (uint32_t c = 0; c < st_water_cascade_count(s->water); c++) {
        st_water_cascade cs = st_water_cascade_at(s->water, c);
        double patch = cs.patch_m / mpu;
        u->cascade[c][0] = (float)patch;
        u->cascade[c][1] = (float)(p->origin[0] / patch - floor(p->origin[0] / patch));
        u->cascade[c][2] = (float)(p->origin[1] / patch - floor(p->origin[1] / patch));
        u->cascade[c][3] = (float)(patch / cs.size);
    }
}

/* The lattice variant ring i draws: the full square (the finest), else the ring whose hole sits where ring
 * i − 1's centre lies, 0 or 1 cell of ring i off its own. */
static uint32_t ring_variant(const ring_plan *p, uint32_t i) {
    if (!i) return 0;
    double sp = p->spacing0 * (double)(1u << i);
    uint32_t dx = (uint32_t)lround((p->centre[i - 1][0] - p->centre[i][0]) / sp);
    uint32_t dy = (uint32_t)lround((p->centre[i - 1][1] - p->centre[i][1]) / sp);
    return 1 + (dx & 1) + 2 * (dy & 1);
}

/* Ring i's lower corner (relative to O), spacing and whether its outer band morphs. */
static water_push ring_push(const ring_plan *p, uint32_t i) {
    double sp = p->spacing0 * (double)(1u << i);
    return (water_push){.corner = {(float)(p->centre[i][0] - RING_CELLS / 2 * sp - p->origin[0]),
                                   (float)(p->centre[i][1] - RING_CELLS / 2 * sp - p->origin[1])},
                        .spacing = (float)sp,
                        .morph = i + 1 < p->count};
}

/* Ring i's triangles: its variant's, and where a coarser ring meets it the border's zero-area ones. */
static uint32_t ring_index_count(const water_state *s, const ring_plan *p, uint32_t i) {
    uint32_t v = ring_variant(p, i);
    return s->index_count[v] + (i + 1 < p->count ? s->border_count[v] : 0);
}

/* The compute rasteriser's rings in the block: corner, spacing, morph; first triangle, first index, triangles. */
static uint32_t fill_rings(const water_state *s, const ring_plan *p) {
    water_ubo *u = s->ubo.mapped;
    uint32_t tris = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        water_push q = ring_push(p, i);
        u->ring[i][0] = q.corner[0];
        u->ring[i][1] = q.corner[1];
        u->ring[i][2] = q.spacing;
        u->ring[i][3] = (float)q.morph;
        uint32_t count = ring_index_count(s, p, i) / 3;
        u->ring_tris[i][0] = tris;
        u->ring_tris[i][1] = s->index_first[ring_variant(p, i)];
        u->ring_tris[i][2] = count;
        tris += count;
    }
    return tris;
}

/* Copies of the terrain's colour and depth for the shading to read (and, for the compute resolve over raster
 * targets, the colour it writes over), after the method's (and the cap's) writes; the targets are left in
 * TRANSFER_SRC_OPTIMAL. */
static void copy_scene(st_renderer *r, water_state *s, VkCommandBuffer cmd) {
    VkImageLayout color_layout = s->storage ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkImageLayout depth_layout = s->storage ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    VkPipelineStageFlags2 writers = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT |
                                    VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    VkAccessFlags2 writes = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT |
                            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    VkImageLayout src_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    st_gpu_cmd_image_barrier(cmd, r->color.image, r->color.aspect, color_layout, src_layout, writers, writes,
                             VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    st_gpu_cmd_image_barrier(cmd, r->depth.image, r->depth.aspect, depth_layout, src_layout, writers, writes,
                             VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    st_gpu_image *copies[3] = {&s->scene_color, &s->scene_depth, &s->out_color};
    st_gpu_image *sources[3] = {&r->color, &r->depth, &r->color};
    int count = s->out_color.image ? 3 : 2;
    VkPipelineStageFlags2 readers = s->compute ? VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT : VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
    for (int i = 0; i < count; i++) {
        /* last frame's reads of the copy are over (frames are waited on); its old content is not needed */
        st_gpu_cmd_image_barrier(cmd, copies[i]->image, copies[i]->aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                                 VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                 VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        VkImageCopy region = {.srcSubresource = {sources[i]->aspect, 0, 0, 1},
                              .dstSubresource = {copies[i]->aspect, 0, 0, 1},
                              .extent = {r->width, r->height, 1}};
        vkCmdCopyImage(cmd, sources[i]->image, src_layout, copies[i]->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                       &region);
        bool written = i == 2; /* the resolve writes the colour copy, the others are read */
        st_gpu_cmd_image_barrier(cmd, copies[i]->image, copies[i]->aspect, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                 written ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                 VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, readers,
                                 written ? VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT : VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    }
}

/* The hardware rasteriser: the depth the surface is tested against (stand-ins for water become far), then the
 * surface ring by ring, depth-tested against it, into the targets. */
static void record_raster(st_renderer *r, water_state *s, VkCommandBuffer cmd, const ring_plan *plan) {
    VkImageLayout color_layout = s->storage ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkImageLayout depth_layout = s->storage ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    VkImageLayout src_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    /* the targets become the surface's attachments after the copies have read them */
    st_gpu_cmd_image_barrier(cmd, r->color.image, r->color.aspect, src_layout, color_layout,
                             VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE,
                             VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                             VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    VkPipelineStageFlags2 tests = VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
    VkAccessFlags2 depth_rw = VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    if (s->storage) {
        st_gpu_cmd_image_barrier(cmd, r->depth.image, r->depth.aspect, src_layout, color_layout,
                                 VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE,
                                 VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
        st_gpu_cmd_image_barrier(cmd, s->work_depth.image, s->work_depth.aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                                 VK_ACCESS_2_NONE, tests, depth_rw);
    } else {
        st_gpu_cmd_image_barrier(cmd, r->depth.image, r->depth.aspect, src_layout, depth_layout,
                                 VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE, tests, depth_rw);
    }
    st_gpu_image *depth_target = s->storage ? &s->work_depth : &r->depth;
    VkViewport vp = {0, 0, (float)r->width, (float)r->height, 0, 1};
    VkRect2D sc = {{0, 0}, {r->width, r->height}};
    VkDescriptorSet sets[2] = {r->globals_set, s->set};

    /* 1. the depth the surface is tested against: stand-ins for water become far */
    VkRenderingAttachmentInfo depth_att = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                           .imageView = depth_target->view,
                                           .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                           .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE, /* every pixel is rewritten */
                                           .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = sc, .layerCount = 1,
                          .pDepthAttachment = &depth_att};
    vkCmdBeginRendering(cmd, &ri);
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->prepare);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 2, sets, 0, NULL);
    vkCmdDraw(cmd, 3, 1, 0, 0);
    vkCmdEndRendering(cmd);
    st_gpu_cmd_memory_barrier(cmd, tests, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, tests, depth_rw);

    /* 2. the surface, ring by ring, finest first */
    VkRenderingAttachmentInfo colors[2] = {
        {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = r->color.view, .imageLayout = color_layout,
         .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE},
        {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = r->depth.view, .imageLayout = color_layout,
         .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE}};
    depth_att.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
    ri.colorAttachmentCount = s->storage ? 2 : 1;
    ri.pColorAttachments = colors;
    vkCmdBeginRendering(cmd, &ri);
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->surface);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, s->layout, 0, 2, sets, 0, NULL);
    vkCmdBindIndexBuffer(cmd, s->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    for (uint32_t i = 0; i < plan->count; i++) {
        water_push push = ring_push(plan, i);
        vkCmdPushConstants(cmd, s->layout, VK_SHADER_STAGE_ALL, 0, sizeof push, &push);
        vkCmdDrawIndexed(cmd, ring_index_count(s, plan, i), 1, s->index_first[ring_variant(plan, i)], 0, 0);
    }
    vkCmdEndRendering(cmd);
}

/* The compute rasteriser: the lattice of every ring displaced once, its triangles into the visibility buffer
 * (vis_raster.c's passes), the resolve per pixel — tested against the terrain's depth with stand-ins as far,
 * shaded — then the resolve's depth of every pixel (and over raster targets its colour) into the targets. */
static void record_compute(st_renderer *r, water_state *s, VkCommandBuffer cmd, const ring_plan *plan) {
    VkImageLayout src_layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst_layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    uint32_t tris = fill_rings(s, plan);
    /* the targets: storage colour written by the resolve; the rest receive copies after it */
    if (s->storage)
        st_gpu_cmd_image_barrier(cmd, r->color.image, r->color.aspect, src_layout, VK_IMAGE_LAYOUT_GENERAL,
                                 VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                 VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    st_vis_raster v = {.raster = s->raster, .big = s->big_pass, .resolve = s->resolve, .vis = s->vis.buffer,
                       .big_queue = s->big.buffer, .big_split = BIG_SPLIT, .untimed = true};
    st_vis_raster_clear(r, &v, cmd);
    VkDescriptorSet sets[3] = {r->globals_set, s->set, s->compute_set};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->compute_layout, 0, 3, sets, 0, NULL);
    uint32_t gx, gy;
    st_vis_raster_grid(tris, &gx, &gy);
    water_compute_push push = {.tri_total = tris, .big_cap = BIG_CAP, .row_threads = gx * 64, .rings = plan->count};
    vkCmdPushConstants(cmd, s->compute_layout, VK_SHADER_STAGE_ALL, 0, sizeof push, &push);
    uint32_t n1 = RING_CELLS + 1;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->lattice);
    vkCmdDispatch(cmd, (n1 * n1 + 63) / 64, plan->count, 1);
    st_gpu_cmd_buffer_barrier(cmd, s->vertices.buffer, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                              VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                              VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    st_vis_raster_dispatch(r, &v, cmd, gx, gy);
    /* the resolve's writes, then copies of them into the targets */
    st_gpu_cmd_memory_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    st_gpu_cmd_image_barrier(cmd, r->depth.image, r->depth.aspect, src_layout, dst_layout, VK_PIPELINE_STAGE_2_COPY_BIT,
                             VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferImageCopy depth_region = {.imageSubresource = {r->depth.aspect, 0, 0, 1},
                                      .imageExtent = {r->width, r->height, 1}};
    vkCmdCopyBufferToImage(cmd, s->out_depth.buffer, r->depth.image, dst_layout, 1, &depth_region);
    if (!s->storage) {
        st_gpu_cmd_image_barrier(cmd, s->out_color.image, s->out_color.aspect, VK_IMAGE_LAYOUT_GENERAL, src_layout,
                                 VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                                 VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        st_gpu_cmd_image_barrier(cmd, r->color.image, r->color.aspect, src_layout, dst_layout,
                                 VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_NONE, VK_PIPELINE_STAGE_2_COPY_BIT,
                                 VK_ACCESS_2_TRANSFER_WRITE_BIT);
        VkImageCopy region = {.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                              .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                              .extent = {r->width, r->height, 1}};
        vkCmdCopyImage(cmd, s->out_color.image, src_layout, r->color.image, dst_layout, 1, &region); /* bytes as they are */
    }
    /* back to the layouts the targets keep between passes (readback, the viewer's overlay) */
    VkPipelineStageFlags2 later = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    VkAccessFlags2 later_access = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    if (s->storage) {
        st_gpu_cmd_image_barrier(cmd, r->depth.image, r->depth.aspect, dst_layout, VK_IMAGE_LAYOUT_GENERAL,
                                 VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, later, later_access);
        st_gpu_cmd_image_barrier(cmd, r->color.image, r->color.aspect, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                                 VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, later,
                                 later_access);
    } else {
        st_gpu_cmd_image_barrier(cmd, r->depth.image, r->depth.aspect, dst_layout,
                                 VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
                                 VK_ACCESS_2_TRANSFER_WRITE_BIT, later, later_access);
        st_gpu_cmd_image_barrier(cmd, r->color.image, r->color.aspect, dst_layout,
                                 VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
                                 VK_ACCESS_2_TRANSFER_WRITE_BIT, later, later_access);
    }
}

static void water_record(st_renderer *r, void *state, VkCommandBuffer cmd) {
    water_state *s = state;
    if (!s) return;
    const st_water_desc *d = st_water_get_desc(s->water);
    double t = r->time_s;
    if (s->has_shore) {
        /* the shore's window follows the eye (rebuilt on the CPU and uploaded when it moves: the frame before is
         * done with it) */
        double eye[2] = {r->view.eye[0], r->view.eye[1]};
        bool moved;
        st_error err = {0};
        if (st_water_shore_gpu_update(r->engine->gpu, r->engine->level, s->water, eye, &s->shore, &moved, &err))
            s->has_shore = false; /* out of memory: the waves go on without the shore */
    }
    ring_plan plan = plan_rings(r, s, d->level);
    fill_ubo(r, s, &plan, t);
    if (s->ocean) {
        /* foam fades with the time since the last frame; a jump (or the first frame) starts it afresh */
        double dt = s->have_last ? t - s->last_time : -1;
        bool fresh = !(dt >= 0 && dt <= 0.5);
        st_renderer_pass_begin(r, cmd, "water-sim");
        st_ocean_gpu_record(s->ocean, cmd, t, fresh ? 0 : dt, st_water_choppiness(s->water), d->foam_decay_s, fresh);
        st_renderer_pass_end(r, cmd);
    }
    s->last_time = t;
    s->have_last = true;
    st_renderer_pass_begin(r, cmd, "water");
    copy_scene(r, s, cmd);
    if (s->compute) record_compute(r, s, cmd, &plan);
    else record_raster(r, s, cmd, &plan);
    st_renderer_pass_end(r, cmd);
}

const st_pass_ops st_pass_water = {
    .name = "water",
    .target_usage = water_target_usage,
    .create = water_create,
    .destroy = water_destroy,
    .record = water_record,
};

static water_state *find_water(st_renderer *r) {
    for (uint32_t i = 0; i < r->pass_count; i++)
        if (r->passes[i].ops == &st_pass_water) return r->passes[i].state;
    return NULL;
}

st_water *st_renderer_water(st_renderer *r) {
    water_state *s = find_water(r);
    return s ? s->water : NULL;
}

st_result st_renderer_set_weather(st_renderer *r, float wind_speed, float wind_dir_deg, float choppiness,
                                  st_error *err) {
    water_state *s = find_water(r);
    if (!s) return st_error_set(err, ST_ERR_INVALID, "the renderer has no water");
    st_result res = st_water_set_weather(s->water, wind_speed, wind_dir_deg, choppiness, err);
    if (!res) s->rms_units = (float)(rms_height_m(s->water) / st_water_get_desc(s->water)->metres_per_unit);
    if (!res && s->ocean) res = st_ocean_gpu_upload(s->ocean, s->water, err);
    if (!res && s->has_shore) res = st_water_shore_gpu_upload(r->engine->gpu, s->water, &s->shore.image, err);
    return res;
}
