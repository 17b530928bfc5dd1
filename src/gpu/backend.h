/* The backend seam: what a fragment, raster or compute method needs from a GPU, with no GPU API in sight —
 * textures of the level, programs built from the shared shader sources, uniform blocks, full-screen and
 * instanced draws or compute dispatches into the frame's colour and reverse-Z depth, and read-back. A backend
 * (WebGL2: web/backend_gl.c, WebGPU: web/backend_gpu.c; the Vulkan one next: docs/web.md) fills an st_gb_ops
 * table; a method written against it runs on any backend that has what it uses. */
#ifndef STRATA_GPU_BACKEND_H
#define STRATA_GPU_BACKEND_H

#include <stddef.h>

#include "strata/core.h"

/* The set number a shader's push-constant block is bound at: backends without push constants (WebGL2) make
 * it a uniform block, and a method sets it like any other with st_gb_ops.uniforms. */
#define ST_GB_PUSH_SET 15u
/* Rows per piece of a level texture (ST_GB_TEXTURE_LEVEL): the texture is a 2D array of pieces of this many
 * rows (globals.glsl, ST_TERRAIN_PIECES), because WebGL2 textures stop at 8192 texels a side. */
#define ST_GB_PIECE_ROWS 8192u

/* Entries a row of a list texture (ST_GB_RGBA32_SINT): a list a method fills per frame (a storage buffer of ivec4
 * natively) is a texture of this width where the backend has no storage buffers (ST_NO_STORAGE_BUFFERS in the
 * shaders, e.g. paint.vert). */
#define ST_GB_LIST_WIDTH 1024u

typedef struct st_gb st_gb;         /* one backend instance: a device, or a browser's context */
typedef uint32_t st_gb_buffer;      /* an index buffer; 0 = none */
typedef uint32_t st_gb_texture;     /* 0 = none */
typedef uint32_t st_gb_program;     /* 0 = none */

typedef enum st_gb_format {
    ST_GB_RGBA8_UINT = 1, /* the level's texel pairs (h_even, m_even, h_odd, m_odd) */
    ST_GB_RGBA32_SINT,    /* lists a method builds per frame (its storage buffers, where a backend has none) */
    ST_GB_R32_FLOAT,
} st_gb_format;

typedef struct st_gb_texture_desc {
    uint32_t width, height; /* texels of one layer */
    uint32_t layers;        /* 0 = a plain 2D texture; else a 2D array of that many layers */
    st_gb_format format;
} st_gb_texture_desc;

typedef enum st_gb_compare {
    ST_GB_GREATER_OR_EQUAL = 0, /* the default: reverse-Z, ties to the later draw */
    ST_GB_GREATER,
    ST_GB_ALWAYS,
} st_gb_compare;

/* Which triangles a program's draws drop, by their winding in the frame as read back (x right, rows top first:
 * the native framebuffer's coordinates). */
typedef enum st_gb_cull {
    ST_GB_CULL_NONE = 0,
    ST_GB_CULL_COUNTER_CLOCKWISE, /* the native mesh pipeline's front faces (VK_CULL_MODE_FRONT_BIT): the mesh's
                                   * outward faces arrive clockwise */
} st_gb_cull;

typedef struct st_gb_program_desc {
    const char *vertex, *fragment; /* shader file names, as st_gpu_shader finds them ("fullscreen.vert") */
    st_gb_compare depth_compare;
    bool depth_write;
    st_gb_cull cull;
} st_gb_program_desc;

typedef struct st_gb_draw {
    st_gb_program program;
    uint32_t vertex_count;   /* or indices, with an index buffer */
    uint32_t instance_count; /* 0 = 1 */
    st_gb_buffer indices;    /* 16-bit indices; 0 = none (vertices 0..vertex_count-1) */
    uint32_t first_index;    /* with indices: the draw's first index in the buffer */
} st_gb_draw;

/* The frame's target: what read-back returns. rgba is sRGB-encoded bytes (the frame's colour target encodes
 * linear output, as the native RGBA8_SRGB attachment does), depth the reverse-Z value (0 = nothing hit). */
typedef struct st_gb_ops {
    const char *name; /* "webgl2", "vulkan", ... */
    /* Targets of width×height pixels for the frames that follow. */
    st_result (*resize)(st_gb *b, uint32_t width, uint32_t height, st_error *err);
    st_result (*texture_create)(st_gb *b, const st_gb_texture_desc *desc, st_gb_texture *out, st_error *err);
    /* Writes w×h texels at (x, y) of one layer, rows tightly packed. */
    void (*texture_write)(st_gb *b, st_gb_texture t, uint32_t layer, uint32_t x, uint32_t y, uint32_t w,
                          uint32_t h, const void *texels);
    void (*texture_destroy)(st_gb *b, st_gb_texture t);
    /* An index buffer holding count 16-bit indices (indices NULL: room for count, unset). */
    st_result (*index_buffer_create)(st_gb *b, const uint16_t *indices, uint32_t count, st_gb_buffer *out,
                                     st_error *err);
    /* Overwrites count indices of buf from its index first on (within the count it was made with); NULL where
     * the backend has no index buffers. */
    void (*index_buffer_write)(st_gb *b, st_gb_buffer buf, uint32_t first, uint32_t count, const uint16_t *indices);
    void (*buffer_destroy)(st_gb *b, st_gb_buffer buf);
    st_result (*program_create)(st_gb *b, const st_gb_program_desc *desc, st_gb_program *out, st_error *err);
    void (*program_destroy)(st_gb *b, st_gb_program p);
    /* The bytes of the uniform block at (set, binding) for the draws that follow (ST_GB_PUSH_SET for push
     * constants); the backend copies them. */
    void (*uniforms)(st_gb *b, uint32_t set, uint32_t binding, const void *data, size_t size);
    /* The texture read at (set, binding) by the draws that follow. */
    void (*bind_texture)(st_gb *b, uint32_t set, uint32_t binding, st_gb_texture t);
    /* Clears colour to the fog colour and depth to 0 (far, reverse-Z). */
    void (*begin_frame)(st_gb *b, const float fog_linear[3]);
    void (*draw)(st_gb *b, const st_gb_draw *draw);
    /* A compute program from a shader file name ("ray.comp"); NULL where the backend has no compute (WebGL2).
     * Besides what it binds through uniforms and bind_texture, the program's set 1 holds the frame's targets:
     * binding 0 the colour (RGBA8, written sRGB-encoded, as the native storage targets are), binding 1 the
     * reverse-Z depth (R32F). */
    st_result (*compute_create)(st_gb *b, const char *shader, st_gb_program *out, st_error *err);
    /* Runs a compute program over groups_x × groups_y × groups_z work groups, after what came before it in
     * the frame and before what follows. */
    void (*dispatch)(st_gb *b, st_gb_program p, uint32_t groups_x, uint32_t groups_y, uint32_t groups_z);
    /* dispatch with the work group counts read from three 32-bit words (x, y, z) at byte offset (a multiple of 4)
     * of a storage buffer, as what came before it in the frame left them (NULL where the backend has none). */
    void (*dispatch_indirect)(st_gb *b, st_gb_program p, st_gb_buffer args, size_t offset);
    /* A storage buffer of size bytes for compute programs (NULL where the backend has none); freed with
     * buffer_destroy. */
    st_result (*storage_buffer_create)(st_gb *b, size_t size, st_gb_buffer *out, st_error *err);
    /* Sets every 32-bit word of a storage buffer to word, before the dispatches that follow. */
    void (*buffer_fill)(st_gb *b, st_gb_buffer buf, uint32_t word);
    /* Writes size bytes (a multiple of 4) at byte offset (a multiple of 4) of a storage buffer, within its size,
     * before the dispatches that follow (NULL where the backend has no storage buffers). */
    void (*buffer_write)(st_gb *b, st_gb_buffer buf, size_t offset, const void *data, size_t size);
    /* The storage buffer read and written at (set, binding) by the dispatches that follow. */
    void (*bind_buffer)(st_gb *b, uint32_t set, uint32_t binding, st_gb_buffer buf);
    /* Finishes the frame (and shows it, where the backend has a screen). */
    void (*end_frame)(st_gb *b);
    /* The last frame's pixels, rows top first: rgba (4 bytes a pixel) and depth (may be NULL). A backend whose
     * read-back is asynchronous (WebGPU) returns what the page fetched after the frame, and fails with a
     * message when it fetched nothing since. */
    st_result (*read)(st_gb *b, uint8_t *rgba, float *depth, st_error *err);
} st_gb_ops;

struct st_gb {
    const st_gb_ops *ops;
    uint32_t width, height;
    uint32_t max_texture_size; /* texels a side */
};

#endif
