/* Methods written against the backend seam (src/gpu/backend.h): each draws one frame of a level with
 * programs from the shared shader sources. The frame's globals (set 0, binding 0) and the level's texture
 * (set 0, binding 1) are bound before record; a method binds only its own uniforms. */
#ifndef STRATA_WEB_METHODS_H
#define STRATA_WEB_METHODS_H

#include "gpu/backend.h"
#include "strata/camera.h"
#include "strata/level.h"

typedef struct st_gb_frame {
    const st_level *level;
    st_view view;
    uint32_t knob; /* the method's quality knob (its native default when 0) */
    uint32_t diagnostic; /* a method's diagnostic colouring, 0 = none (voxel-compute: 1 = by its traversal's steps,
                          * as STRATA_VOXEL_STEPS=1 natively); methods without one ignore it */
    uint32_t wireframe;  /* the mesh methods' edge overlay (the viewer's --wireframe): 1 = on */
} st_gb_frame;

typedef struct st_gb_method {
    const char *name;
    const char *description;
    bool compute; /* runs on a backend with compute (WebGPU), else on one that draws (WebGL2) */
    /* The method for level, at knob (its quality knob, as st_gb_frame's: the native default when 0). */
    st_result (*create)(st_gb *b, const st_level *level, uint32_t knob, void **state, st_error *err);
    void (*destroy)(st_gb *b, void *state);
    /* Draws the frame between the backend's begin_frame and end_frame. */
    void (*record)(st_gb *b, void *state, const st_gb_frame *f);
    /* The level changed inside rect: bring derived data (and what the method keeps on b) up to date before the
     * next frame (may be NULL). */
    st_result (*level_updated)(st_gb *b, void *state, const st_level *level, st_rect rect, st_error *err);
    /* The method's own figures for the page's result, a JSON object into out (size bytes; may be NULL). */
    void (*describe)(const void *state, char *out, size_t size);
} st_gb_method;

extern const st_gb_method st_gb_method_ray, st_gb_method_slice, st_gb_method_slice_plain, st_gb_method_paint,
    st_gb_method_paint_plain, st_gb_method_ray_compute, st_gb_method_scatter,
    st_gb_method_scatter_plain, st_gb_method_mesh, st_gb_method_voxel_compute, st_gb_method_mesh_compute;

#endif
