/* The shaders of the web build (build-web/gen/shaders_es.c, made by web/build.py from the GLSL sources):
 * GLSL ES 3.00 text and, from spirv-cross's reflection, where each uniform block and sampler was bound; and the
 * WGSL ports of the compute shaders (web/wgsl/). */
#ifndef STRATA_WEB_SHADERS_H
#define STRATA_WEB_SHADERS_H

typedef struct st_web_binding {
    const char *name;     /* the uniform block's or sampler's name in the GLSL ES text */
    unsigned set, binding; /* as the source declares them (push constants: ST_GB_PUSH_SET, 0) */
    int texture;          /* 1: a sampler, 0: a uniform block */
} st_web_binding;

typedef struct st_web_shader {
    const char *name; /* file name: "ray.frag" */
    const char *source;
    const st_web_binding *bindings; /* ends with a NULL name */
} st_web_shader;

extern const st_web_shader st_web_shaders[]; /* ends with a NULL name */

/* A WGSL port of a native compute shader (web/wgsl/, web/build.py's WGSL table): its text with the files it
 * requires put in front. */
typedef struct st_web_wgsl {
    const char *native; /* the native shader it ports: "ray.comp" */
    const char *name;   /* the port's file: "ray_compute.wgsl" */
    const char *source;
} st_web_wgsl;

extern const st_web_wgsl st_web_wgsl_ports[]; /* ends with a NULL native name */

#endif
