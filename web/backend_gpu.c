/* The WebGPU backend of the seam (src/gpu/backend.h): compute programs from the WGSL ports (web/wgsl/, found
 * by the native shader's file name), the level's textures, storage buffers, uniform blocks, textures and
 * buffers by (set, binding) — WGSL's (group, binding), push constants in group 3 — and the frame's targets; the GPU calls are web/gpu.js's, through EM_JS. Draws are
 * WebGL2's: this backend runs the compute methods. */
#include <emscripten.h>
#include <stdlib.h>
#include <string.h>

#include "backend_gpu.h"
#include "web_shaders.h"

EM_JS(int, gpu_ready, (void), { return (typeof strataGpu !== 'undefined' && strataGpu.device) ? 1 : 0; });
EM_JS(int, gpu_resize, (uint32_t w, uint32_t h), { return strataGpu.resize(w, h) ? 1 : 0; });
EM_JS(uint32_t, gpu_texture_create, (uint32_t w, uint32_t h, uint32_t layers, int format),
      { return strataGpu.textureCreate(w, h, layers, format); });
EM_JS(void, gpu_texture_write, (uint32_t id, uint32_t layer, uint32_t x, uint32_t y, uint32_t w, uint32_t h,
                                const void *bytes, uint32_t size),
      { strataGpu.textureWrite(id, layer, x, y, w, h, HEAPU8.subarray(bytes, bytes + size)); });
EM_JS(void, gpu_texture_destroy, (uint32_t id), { strataGpu.textureDestroy(id); });
EM_JS(uint32_t, gpu_compute_create, (const char *name, const char *source),
      { return strataGpu.computeCreate(UTF8ToString(name), UTF8ToString(source)); });
EM_JS(void, gpu_program_destroy, (uint32_t id), { strataGpu.programDestroy(id); });
EM_JS(void, gpu_uniforms, (uint32_t key, const void *data, uint32_t size),
      { strataGpu.uniforms(key, HEAPU8.subarray(data, data + size)); });
EM_JS(void, gpu_bind_texture, (uint32_t key, uint32_t id), { strataGpu.bindTexture(key, id); });
EM_JS(uint32_t, gpu_buffer_create, (uint32_t size), { return strataGpu.bufferCreate(size); });
EM_JS(void, gpu_buffer_fill, (uint32_t id, uint32_t word), { strataGpu.bufferFill(id, word); });
EM_JS(void, gpu_buffer_write, (uint32_t id, uint32_t offset, const void *data, uint32_t size),
      { strataGpu.bufferWrite(id, offset, HEAPU8.subarray(data, data + size)); });
EM_JS(void, gpu_bind_buffer, (uint32_t key, uint32_t id), { strataGpu.bindBuffer(key, id); });
EM_JS(void, gpu_buffer_destroy, (uint32_t id), { strataGpu.bufferDestroy(id); });
EM_JS(void, gpu_begin_frame, (float r, float g, float b), { strataGpu.beginFrame(r, g, b); });
EM_JS(void, gpu_dispatch, (uint32_t id, uint32_t x, uint32_t y, uint32_t z), { strataGpu.dispatch(id, x, y, z); });
EM_JS(void, gpu_dispatch_indirect, (uint32_t id, uint32_t buf, uint32_t offset),
      { strataGpu.dispatchIndirect(id, buf, offset); });
EM_JS(void, gpu_end_frame, (void), { strataGpu.endFrame(); });
/* 1 when the page fetched the last frame (strataGpu.fetch): its colour and depth copied to rgba and depth */
EM_JS(int, gpu_read, (uint8_t *rgba, float *depth, uint32_t pixels), {
    var r = strataGpu.readback;
    if (!r) return 0;
    HEAPU8.set(r.rgba, rgba);
    if (depth) HEAPU8.set(r.depth, depth);
    return 1;
});

static const uint32_t format_bytes[] = {[ST_GB_RGBA8_UINT] = 4, [ST_GB_RGBA32_SINT] = 16, [ST_GB_R32_FLOAT] = 4};

typedef struct gpu_texture {
    uint32_t id; /* gpu.js's */
    st_gb_format format;
} gpu_texture;

#define GPU_MAX_TEXTURES 32

typedef struct st_gb_gpu {
    st_gb base;
    gpu_texture textures[GPU_MAX_TEXTURES]; /* the seam's handle - 1 */
} st_gb_gpu;

/* WebGPU has 4 bind groups: the ports declare their push constants (ST_GB_PUSH_SET) as a uniform in the last */
#define GPU_PUSH_GROUP 3u

static uint32_t key_of(uint32_t set, uint32_t binding) {
    return (set == ST_GB_PUSH_SET ? GPU_PUSH_GROUP : set) << 8 | binding;
}

static st_result gpu_resize_op(st_gb *b, uint32_t width, uint32_t height, st_error *err) {
    if (!gpu_ready()) return st_error_set(err, ST_ERR_GPU, "the WebGPU device is gone");
    if (width > b->max_texture_size || height > b->max_texture_size)
        return st_error_set(err, ST_ERR_INVALID, "%ux%u is larger than WebGPU's %u texels a side", width, height,
                            b->max_texture_size);
    if (gpu_resize(width, height)) return st_error_set(err, ST_ERR_GPU, "WebGPU could not make the frame's targets");
    b->width = width;
    b->height = height;
    return ST_OK;
}

static st_result gpu_texture_create_op(st_gb *b, const st_gb_texture_desc *d, st_gb_texture *out, st_error *err) {
    st_gb_gpu *g = (st_gb_gpu *)b;
    if (d->width > b->max_texture_size || d->height > b->max_texture_size)
        return st_error_set(err, ST_ERR_INVALID, "a %ux%u texture is larger than WebGPU's %u texels a side", d->width,
                            d->height, b->max_texture_size);
    for (uint32_t i = 0; i < GPU_MAX_TEXTURES; i++) {
        if (g->textures[i].id) continue;
        g->textures[i] = (gpu_texture){gpu_texture_create(d->width, d->height, d->layers, (int)d->format), d->format};
        *out = i + 1;
        return ST_OK;
    }
    return st_error_set(err, ST_ERR_GPU, "too many WebGPU textures");
}

static void gpu_texture_write_op(st_gb *b, st_gb_texture t, uint32_t layer, uint32_t x, uint32_t y, uint32_t w,
                                 uint32_t h, const void *texels) {
    st_gb_gpu *g = (st_gb_gpu *)b;
    if (!t || t > GPU_MAX_TEXTURES || !g->textures[t - 1].id) return;
    gpu_texture_write(g->textures[t - 1].id, layer, x, y, w, h, texels, w * h * format_bytes[g->textures[t - 1].format]);
}

static void gpu_texture_destroy_op(st_gb *b, st_gb_texture t) {
    st_gb_gpu *g = (st_gb_gpu *)b;
    if (!t || t > GPU_MAX_TEXTURES || !g->textures[t - 1].id) return;
    gpu_texture_destroy(g->textures[t - 1].id);
    g->textures[t - 1].id = 0;
}

/* The WGSL port of a native compute shader: "ray.comp" is ray_compute.wgsl (web/build.py's table). */
static st_result gpu_compute_create_op(st_gb *b, const char *shader, st_gb_program *out, st_error *err) {
    (void)b;
    for (const st_web_wgsl *w = st_web_wgsl_ports; w->native; w++) {
        if (strcmp(w->native, shader)) continue;
        if (!gpu_ready()) return st_error_set(err, ST_ERR_GPU, "the WebGPU device is gone");
        *out = gpu_compute_create(w->name, w->source);
        return ST_OK;
    }
    return st_error_set(err, ST_ERR_UNSUPPORTED, "%s has no WGSL port in web/wgsl/", shader);
}

static void gpu_program_destroy_op(st_gb *b, st_gb_program p) {
    (void)b;
    if (p) gpu_program_destroy(p);
}

static void gpu_uniforms_op(st_gb *b, uint32_t set, uint32_t binding, const void *data, size_t size) {
    (void)b;
    gpu_uniforms(key_of(set, binding), data, (uint32_t)size);
}

static void gpu_bind_texture_op(st_gb *b, uint32_t set, uint32_t binding, st_gb_texture t) {
    st_gb_gpu *g = (st_gb_gpu *)b;
    gpu_bind_texture(key_of(set, binding), t && t <= GPU_MAX_TEXTURES ? g->textures[t - 1].id : 0);
}

static st_result gpu_storage_buffer_create_op(st_gb *b, size_t size, st_gb_buffer *out, st_error *err) {
    (void)b;
    if (size == 0 || size > (1u << 30))
        return st_error_set(err, ST_ERR_INVALID, "a storage buffer of %zu bytes (WebGPU binds at most 1 GiB)", size);
    if (!gpu_ready()) return st_error_set(err, ST_ERR_GPU, "the WebGPU device is gone");
    *out = gpu_buffer_create((uint32_t)size);
    return ST_OK;
}

static void gpu_buffer_fill_op(st_gb *b, st_gb_buffer buf, uint32_t word) {
    (void)b;
    if (buf) gpu_buffer_fill(buf, word);
}

static void gpu_buffer_write_op(st_gb *b, st_gb_buffer buf, size_t offset, const void *data, size_t size) {
    (void)b;
    if (buf && size) gpu_buffer_write(buf, (uint32_t)offset, data, (uint32_t)size);
}

static void gpu_bind_buffer_op(st_gb *b, uint32_t set, uint32_t binding, st_gb_buffer buf) {
    (void)b;
    gpu_bind_buffer(key_of(set, binding), buf);
}

static void gpu_buffer_destroy_op(st_gb *b, st_gb_buffer buf) {
    (void)b;
    if (buf) gpu_buffer_destroy(buf);
}

static void gpu_begin_frame_op(st_gb *b, const float fog[3]) {
    (void)b;
    gpu_begin_frame(fog[0], fog[1], fog[2]);
}

static void gpu_dispatch_op(st_gb *b, st_gb_program p, uint32_t x, uint32_t y, uint32_t z) {
    (void)b;
    gpu_dispatch(p, x, y, z);
}

static void gpu_dispatch_indirect_op(st_gb *b, st_gb_program p, st_gb_buffer args, size_t offset) {
    (void)b;
    gpu_dispatch_indirect(p, args, (uint32_t)offset);
}

static void gpu_end_frame_op(st_gb *b) {
    (void)b;
    gpu_end_frame();
}

static st_result gpu_read_op(st_gb *b, uint8_t *rgba, float *depth, st_error *err) {
    if (!gpu_read(rgba, depth, b->width * b->height))
        return st_error_set(err, ST_ERR_GPU, "the WebGPU frame was not fetched (strataGpu.fetch) before read-back");
    return ST_OK;
}

static const st_gb_ops gpu_ops = {
    .name = "webgpu",
    .resize = gpu_resize_op,
    .texture_create = gpu_texture_create_op,
    .texture_write = gpu_texture_write_op,
    .texture_destroy = gpu_texture_destroy_op,
    .program_destroy = gpu_program_destroy_op,
    .uniforms = gpu_uniforms_op,
    .bind_texture = gpu_bind_texture_op,
    .begin_frame = gpu_begin_frame_op,
    .compute_create = gpu_compute_create_op,
    .dispatch = gpu_dispatch_op,
    .dispatch_indirect = gpu_dispatch_indirect_op,
    .storage_buffer_create = gpu_storage_buffer_create_op,
    .buffer_fill = gpu_buffer_fill_op,
    .buffer_write = gpu_buffer_write_op,
    .bind_buffer = gpu_bind_buffer_op,
    .buffer_destroy = gpu_buffer_destroy_op,
    .end_frame = gpu_end_frame_op,
    .read = gpu_read_op,
};

st_result st_gb_gpu_create(st_gb **out, st_error *err) {
    if (!gpu_ready()) return st_error_set(err, ST_ERR_GPU, "the page has no WebGPU device");
    st_gb_gpu *g = calloc(1, sizeof *g);
    if (!g) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    g->base.ops = &gpu_ops;
    g->base.max_texture_size = 8192; /* WebGPU's default maxTextureDimension2D */
    *out = &g->base;
    return ST_OK;
}
