/* The WebGL2 backend of the seam (src/gpu/backend.h): programs from the translated shaders (web_shaders.h),
 * uniform blocks and samplers bound by the (set, binding) their GLSL source declares, an sRGB colour and a
 * 32-bit float depth target off screen, and the display and read-back passes that copy them out. */
#include <GLES3/gl3.h>
#include <emscripten/html5.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend_gl.h"
#include "web_shaders.h"

#define GL_MAX_PROGRAMS 32
#define GL_MAX_TEXTURES 32
#define GL_SLOTS 8 /* uniform blocks and samplers a program may use, each */

typedef struct gl_texture {
    GLuint id;
    GLenum target;
    st_gb_format format;
} gl_texture;

typedef struct gl_program {
    GLuint id;
    st_gb_program_desc desc;
    /* (set, binding) of each uniform block point and texture unit the program uses */
    uint32_t block_key[GL_SLOTS], tex_key[GL_SLOTS];
    uint32_t blocks, textures;
} gl_program;

typedef struct gl_uniform {
    uint32_t key; /* set << 8 | binding; 0xffffffff = free */
    GLuint buffer;
} gl_uniform;

typedef struct st_gb_gl {
    st_gb base;
    EMSCRIPTEN_WEBGL_CONTEXT_HANDLE ctx;
    gl_program programs[GL_MAX_PROGRAMS];
    gl_texture textures[GL_MAX_TEXTURES];
    gl_uniform uniforms[GL_SLOTS * 2];
    uint32_t bound_key[GL_SLOTS * 2];
    st_gb_texture bound_tex[GL_SLOTS * 2];
    uint32_t bound_count;
    GLuint color, depth, fbo;      /* the frame: SRGB8_ALPHA8 + DEPTH_COMPONENT32F */
    GLuint read_color, read_fbo;   /* RGBA8 for read-back */
    st_gb_program present, depth_copy;
    GLuint present_push;
    GLuint vao;
} st_gb_gl;

static uint32_t key_of(uint32_t set, uint32_t binding) { return set << 8 | binding; }

static const st_web_shader *find_shader(const char *name) {
    for (const st_web_shader *s = st_web_shaders; s->name; s++)
        if (!strcmp(s->name, name)) return s;
    return NULL;
}

static st_result compile(GLenum kind, const st_web_shader *s, GLuint *out, st_error *err) {
    GLuint sh = glCreateShader(kind);
    glShaderSource(sh, 1, &s->source, NULL);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[512] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        glDeleteShader(sh);
        return st_error_set(err, ST_ERR_GPU, "%s: the browser refused the shader: %s", s->name, log);
    }
    *out = sh;
    return ST_OK;
}

static bool has_key(const uint32_t *keys, uint32_t n, uint32_t k) {
    for (uint32_t i = 0; i < n; i++)
        if (keys[i] == k) return true;
    return false;
}

/* Points each uniform block and sampler of the program at the slot of the (set, binding) its source gave. */
static void bind_slots(gl_program *p, const st_web_shader *s) {
    for (const st_web_binding *b = s->bindings; b->name; b++) {
        uint32_t k = key_of(b->set, b->binding);
        if (b->texture) {
            GLint loc = glGetUniformLocation(p->id, b->name);
            if (loc < 0 || has_key(p->tex_key, p->textures, k) || p->textures == GL_SLOTS) continue;
            glUniform1i(loc, (GLint)p->textures);
            p->tex_key[p->textures++] = k;
        } else {
            GLuint idx = glGetUniformBlockIndex(p->id, b->name);
            if (idx == GL_INVALID_INDEX) continue;
            uint32_t point = 0;
            while (point < p->blocks && p->block_key[point] != k) point++;
            if (point == p->blocks) {
                if (p->blocks == GL_SLOTS) continue;
                p->block_key[p->blocks++] = k;
            }
            glUniformBlockBinding(p->id, idx, point);
        }
    }
}

static st_result gl_program_create(st_gb *b, const st_gb_program_desc *desc, st_gb_program *out, st_error *err) {
    st_gb_gl *g = (st_gb_gl *)b;
    uint32_t slot = 1;
    while (slot < GL_MAX_PROGRAMS && g->programs[slot].id) slot++;
    if (slot == GL_MAX_PROGRAMS) return st_error_set(err, ST_ERR_NOMEM, "too many programs");
    const st_web_shader *vs = find_shader(desc->vertex), *fs = find_shader(desc->fragment);
    if (!vs || !fs)
        return st_error_set(err, ST_ERR_INVALID, "%s: not in the web build's shaders",
                            vs ? desc->fragment : desc->vertex);
    GLuint v = 0, f = 0;
    st_result res = compile(GL_VERTEX_SHADER, vs, &v, err);
    if (!res) res = compile(GL_FRAGMENT_SHADER, fs, &f, err);
    if (res) {
        if (v) glDeleteShader(v);
        return res;
    }
    gl_program *p = &g->programs[slot];
    memset(p, 0, sizeof *p);
    p->id = glCreateProgram();
    glAttachShader(p->id, v);
    glAttachShader(p->id, f);
    glLinkProgram(p->id);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p->id, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[512] = "";
        glGetProgramInfoLog(p->id, sizeof log, NULL, log);
        glDeleteProgram(p->id);
        p->id = 0;
        return st_error_set(err, ST_ERR_GPU, "%s + %s: the browser refused to link them: %s", desc->vertex,
                            desc->fragment, log);
    }
    p->desc = *desc;
    glUseProgram(p->id);
    bind_slots(p, vs);
    bind_slots(p, fs);
    *out = slot;
    return ST_OK;
}

static void gl_program_destroy(st_gb *b, st_gb_program id) {
    st_gb_gl *g = (st_gb_gl *)b;
    if (!id || id >= GL_MAX_PROGRAMS || !g->programs[id].id) return;
    glDeleteProgram(g->programs[id].id);
    memset(&g->programs[id], 0, sizeof g->programs[id]);
}

static st_result gl_texture_create(st_gb *b, const st_gb_texture_desc *d, st_gb_texture *out, st_error *err) {
    st_gb_gl *g = (st_gb_gl *)b;
    if (d->width > b->max_texture_size || d->height > b->max_texture_size)
        return st_error_set(err, ST_ERR_INVALID, "a %ux%u texture is over this browser's limit of %u a side",
                            d->width, d->height, b->max_texture_size);
    uint32_t slot = 1;
    while (slot < GL_MAX_TEXTURES && g->textures[slot].id) slot++;
    if (slot == GL_MAX_TEXTURES) return st_error_set(err, ST_ERR_NOMEM, "too many textures");
    GLenum internal = d->format == ST_GB_RGBA8_UINT ? GL_RGBA8UI : d->format == ST_GB_RGBA32_SINT ? GL_RGBA32I : GL_R32F;
    gl_texture *t = &g->textures[slot];
    t->target = d->layers ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D;
    t->format = d->format;
    glGenTextures(1, &t->id);
    glBindTexture(t->target, t->id);
    glTexParameteri(t->target, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(t->target, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glGetError();
    if (d->layers) glTexStorage3D(t->target, 1, internal, (GLsizei)d->width, (GLsizei)d->height, (GLsizei)d->layers);
    else glTexStorage2D(t->target, 1, internal, (GLsizei)d->width, (GLsizei)d->height);
    if (glGetError() != GL_NO_ERROR) {
        glDeleteTextures(1, &t->id);
        t->id = 0;
        return st_error_set(err, ST_ERR_NOMEM, "the browser could not make a %ux%ux%u texture", d->width, d->height,
                            d->layers ? d->layers : 1);
    }
    *out = slot;
    return ST_OK;
}

static void gl_texture_write(st_gb *b, st_gb_texture id, uint32_t layer, uint32_t x, uint32_t y, uint32_t w,
                             uint32_t h, const void *texels) {
    st_gb_gl *g = (st_gb_gl *)b;
    gl_texture *t = &g->textures[id];
    glBindTexture(t->target, t->id);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    /* RGBA8_UINT and RGBA32_SINT take integer texels; R32_FLOAT floats */
    GLenum fmt = GL_RGBA_INTEGER, type = GL_UNSIGNED_BYTE;
    if (t->format == ST_GB_RGBA32_SINT) type = GL_INT;
    if (t->format == ST_GB_R32_FLOAT) fmt = GL_RED, type = GL_FLOAT;
    if (t->target == GL_TEXTURE_2D_ARRAY)
        glTexSubImage3D(t->target, 0, (GLint)x, (GLint)y, (GLint)layer, (GLsizei)w, (GLsizei)h, 1, fmt, type, texels);
    else
        glTexSubImage2D(t->target, 0, (GLint)x, (GLint)y, (GLsizei)w, (GLsizei)h, fmt, type, texels);
}

static void gl_texture_destroy(st_gb *b, st_gb_texture id) {
    st_gb_gl *g = (st_gb_gl *)b;
    if (!id || id >= GL_MAX_TEXTURES || !g->textures[id].id) return;
    glDeleteTextures(1, &g->textures[id].id);
    g->textures[id].id = 0;
}

static st_result gl_index_buffer_create(st_gb *b, const uint16_t *indices, uint32_t count, st_gb_buffer *out,
                                        st_error *err) {
    (void)b;
    GLuint id = 0;
    glGenBuffers(1, &id);
    if (!id) return st_error_set(err, ST_ERR_NOMEM, "the browser made no buffer");
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, id);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)count * 2, indices, GL_STATIC_DRAW);
    *out = id;
    return ST_OK;
}

static void gl_index_buffer_write(st_gb *b, st_gb_buffer id, uint32_t first, uint32_t count, const uint16_t *indices) {
    (void)b;
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, id);
    glBufferSubData(GL_ELEMENT_ARRAY_BUFFER, (GLintptr)first * 2, (GLsizeiptr)count * 2, indices);
}

static void gl_buffer_destroy(st_gb *b, st_gb_buffer id) {
    (void)b;
    if (id) glDeleteBuffers(1, &id);
}

static void gl_uniforms(st_gb *b, uint32_t set, uint32_t binding, const void *data, size_t size) {
    st_gb_gl *g = (st_gb_gl *)b;
    uint32_t k = key_of(set, binding), i = 0, n = GL_SLOTS * 2;
    while (i < n && g->uniforms[i].buffer && g->uniforms[i].key != k) i++;
    if (i == n) return;
    if (!g->uniforms[i].buffer) {
        glGenBuffers(1, &g->uniforms[i].buffer);
        g->uniforms[i].key = k;
    }
    glBindBuffer(GL_UNIFORM_BUFFER, g->uniforms[i].buffer);
    glBufferData(GL_UNIFORM_BUFFER, (GLsizeiptr)size, data, GL_DYNAMIC_DRAW);
}

static void gl_bind_texture(st_gb *b, uint32_t set, uint32_t binding, st_gb_texture t) {
    st_gb_gl *g = (st_gb_gl *)b;
    uint32_t k = key_of(set, binding), i = 0;
    while (i < g->bound_count && g->bound_key[i] != k) i++;
    if (i == g->bound_count) {
        if (i == GL_SLOTS * 2) return;
        g->bound_count++;
    }
    g->bound_key[i] = k;
    g->bound_tex[i] = t;
}

static GLuint target_texture(GLenum internal, uint32_t w, uint32_t h) {
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexStorage2D(GL_TEXTURE_2D, 1, internal, (GLsizei)w, (GLsizei)h);
    return t;
}

static void drop_targets(st_gb_gl *g) {
    GLuint tex[3] = {g->color, g->depth, g->read_color}, fbo[2] = {g->fbo, g->read_fbo};
    glDeleteTextures(3, tex);
    glDeleteFramebuffers(2, fbo);
    g->color = g->depth = g->read_color = g->fbo = g->read_fbo = 0;
}

static st_result gl_resize(st_gb *b, uint32_t width, uint32_t height, st_error *err) {
    st_gb_gl *g = (st_gb_gl *)b;
    if (!width || !height || width > b->max_texture_size || height > b->max_texture_size)
        return st_error_set(err, ST_ERR_INVALID, "a %ux%u frame is over this browser's limits", width, height);
    drop_targets(g);
    g->color = target_texture(GL_SRGB8_ALPHA8, width, height);
    g->depth = target_texture(GL_DEPTH_COMPONENT32F, width, height);
    g->read_color = target_texture(GL_RGBA8, width, height);
    glGenFramebuffers(1, &g->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g->color, 0);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, g->depth, 0);
    GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glGenFramebuffers(1, &g->read_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, g->read_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g->read_color, 0);
    if (status != GL_FRAMEBUFFER_COMPLETE || glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        return st_error_set(err, ST_ERR_GPU, "the browser cannot draw into sRGB colour with float depth");
    emscripten_set_canvas_element_size("#canvas", (int)width, (int)height);
    b->width = width;
    b->height = height;
    return ST_OK;
}

static void gl_begin_frame(st_gb *b, const float fog[3]) {
    st_gb_gl *g = (st_gb_gl *)b;
    glBindFramebuffer(GL_FRAMEBUFFER, g->fbo);
    glViewport(0, 0, (GLsizei)b->width, (GLsizei)b->height);
    glDepthMask(GL_TRUE);
    /* linear fog: the sRGB target encodes it, as the native clear does */
    glClearColor(fog[0], fog[1], fog[2], 1.0f);
    glClearDepthf(0.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
}

static void bind_for(st_gb_gl *g, const gl_program *p) {
    for (uint32_t i = 0; i < p->blocks; i++)
        for (uint32_t u = 0; u < GL_SLOTS * 2; u++)
            if (g->uniforms[u].buffer && g->uniforms[u].key == p->block_key[i])
                glBindBufferBase(GL_UNIFORM_BUFFER, i, g->uniforms[u].buffer);
    for (uint32_t i = 0; i < p->textures; i++) {
        glActiveTexture(GL_TEXTURE0 + i);
        /* nothing bound at that (set, binding): no texture on the unit rather than another program's (a sampler
         * of one type over a texture of another fails the draw in WebGL) */
        glBindTexture(GL_TEXTURE_2D, 0);
        glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
        for (uint32_t k = 0; k < g->bound_count; k++)
            if (g->bound_key[k] == p->tex_key[i]) {
                gl_texture *t = &g->textures[g->bound_tex[k]];
                glBindTexture(t->target, t->id);
            }
    }
    glActiveTexture(GL_TEXTURE0);
}

static void gl_draw(st_gb *b, const st_gb_draw *d) {
    st_gb_gl *g = (st_gb_gl *)b;
    if (!d->program || d->program >= GL_MAX_PROGRAMS || !g->programs[d->program].id) return;
    const gl_program *p = &g->programs[d->program];
    glUseProgram(p->id);
    bind_for(g, p);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(p->desc.depth_compare == ST_GB_GREATER ? GL_GREATER
                : p->desc.depth_compare == ST_GB_ALWAYS ? GL_ALWAYS
                                                        : GL_GEQUAL);
    glDepthMask(p->desc.depth_write ? GL_TRUE : GL_FALSE);
    if (p->desc.cull == ST_GB_CULL_COUNTER_CLOCKWISE) {
        /* GL's window rows run bottom up, the frame's as read back top down (the native clip space is kept,
         * docs/web.md): a triangle counter-clockwise in the frame is clockwise in GL's window, its back face */
        glEnable(GL_CULL_FACE);
        glFrontFace(GL_CCW);
        glCullFace(GL_BACK);
    } else {
        glDisable(GL_CULL_FACE);
    }
    glBindVertexArray(g->vao);
    GLsizei instances = (GLsizei)(d->instance_count ? d->instance_count : 1);
    if (d->indices) {
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, d->indices);
        glDrawElementsInstanced(GL_TRIANGLES, (GLsizei)d->vertex_count, GL_UNSIGNED_SHORT,
                                (const void *)((uintptr_t)d->first_index * 2), instances);
    } else {
        glDrawArraysInstanced(GL_TRIANGLES, 0, (GLsizei)d->vertex_count, instances);
    }
}

/* Draws one of the copy passes from the frame's texture into the bound framebuffer. */
static void copy_pass(st_gb_gl *g, st_gb_program prog, GLuint source, uint32_t flip) {
    const gl_program *p = &g->programs[prog];
    glUseProgram(p->id);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, source);
    glBindBuffer(GL_UNIFORM_BUFFER, g->present_push);
    glBufferData(GL_UNIFORM_BUFFER, sizeof flip * 4, (uint32_t[4]){flip, 0, 0, 0}, GL_DYNAMIC_DRAW);
    glBindBufferBase(GL_UNIFORM_BUFFER, 0, g->present_push);
    glBindVertexArray(g->vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

static void gl_end_frame(st_gb *b) {
    st_gb_gl *g = (st_gb_gl *)b;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, (GLsizei)b->width, (GLsizei)b->height);
    copy_pass(g, g->present, g->color, 1);
}

static st_result gl_read(st_gb *b, uint8_t *rgba, float *depth, st_error *err) {
    st_gb_gl *g = (st_gb_gl *)b;
    glBindFramebuffer(GL_FRAMEBUFFER, g->read_fbo);
    glViewport(0, 0, (GLsizei)b->width, (GLsizei)b->height);
    /* GL's rows run bottom up and the native targets' top down; the frame was drawn with the native clip
     * space, so row 0 of this read is the native image's row 0 */
    copy_pass(g, g->present, g->color, 0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, (GLsizei)b->width, (GLsizei)b->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    if (depth) {
        copy_pass(g, g->depth_copy, g->depth, 0);
        glReadPixels(0, 0, (GLsizei)b->width, (GLsizei)b->height, GL_RGBA, GL_UNSIGNED_BYTE, depth);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (glGetError() != GL_NO_ERROR) return st_error_set(err, ST_ERR_GPU, "reading the frame back failed");
    return ST_OK;
}

static const st_gb_ops gl_ops = {
    .name = "webgl2",
    .resize = gl_resize,
    .texture_create = gl_texture_create,
    .texture_write = gl_texture_write,
    .texture_destroy = gl_texture_destroy,
    .index_buffer_create = gl_index_buffer_create,
    .index_buffer_write = gl_index_buffer_write,
    .buffer_destroy = gl_buffer_destroy,
    .program_create = gl_program_create,
    .program_destroy = gl_program_destroy,
    .uniforms = gl_uniforms,
    .bind_texture = gl_bind_texture,
    .begin_frame = gl_begin_frame,
    .draw = gl_draw,
    .end_frame = gl_end_frame,
    .read = gl_read,
};

st_result st_gb_gl_create(const char *canvas, st_gb **out, st_error *err) {
    EmscriptenWebGLContextAttributes a;
    emscripten_webgl_init_context_attributes(&a);
    a.majorVersion = 2;
    a.minorVersion = 0;
    a.depth = false; /* the frame is drawn off screen */
    a.antialias = false;
    a.preserveDrawingBuffer = true; /* screenshots see the last frame */
    EMSCRIPTEN_WEBGL_CONTEXT_HANDLE ctx = emscripten_webgl_create_context(canvas, &a);
    if (ctx <= 0) return st_error_set(err, ST_ERR_GPU, "this browser gives no WebGL2 context");
    emscripten_webgl_make_context_current(ctx);
    st_gb_gl *g = calloc(1, sizeof *g);
    if (!g) return st_error_set(err, ST_ERR_NOMEM, "out of memory");
    g->base.ops = &gl_ops;
    g->ctx = ctx;
    GLint max = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max);
    g->base.max_texture_size = (uint32_t)max;
    glGenVertexArrays(1, &g->vao);
    glGenBuffers(1, &g->present_push);
    st_result res = gl_program_create(&g->base, &(st_gb_program_desc){.vertex = "fullscreen.vert", .fragment = "present.frag"},
                                      &g->present, err);
    if (!res)
        res = gl_program_create(&g->base, &(st_gb_program_desc){.vertex = "fullscreen.vert", .fragment = "depth_copy.frag"}, &g->depth_copy,
                                err);
    if (res) {
        free(g);
        return res;
    }
    *out = &g->base;
    return ST_OK;
}
