/* The CPU side the web's two mesh methods share (mesh on WebGL2, mesh-compute on WebGPU): the fit at the native
 * default quality and the refit of an edit's chunks. */
#ifndef STRATA_WEB_MESH_FIT_H
#define STRATA_WEB_MESH_FIT_H

#include "strata/mesh.h"

/* The native methods' default quality knob q (mesh_quality). */
#define WEB_MESH_QUALITY 0.5

/* Fits the level's mesh into *out (the caller destroys it) at quality q = knob / 100 (the page's knob, 1..100; 0
 * gives the native default q), whose tolerance is st_mesh_tolerance(q) as natively. */
st_result web_mesh_fit(const st_level *level, uint32_t knob, st_mesh **out, st_error *err);

/* What the edits did to a method's chunks, for the page's result (web_mesh_describe): the last edit's chunks refit
 * and rewritten on the GPU, and how often every chunk was laid out and uploaded (1 at the method's creation). */
typedef struct web_mesh_edits {
    uint32_t refit, rewritten, layouts;
} web_mesh_edits;

/* Refits the chunks whose samples rect touches (st_mesh_refit: the result equals a fresh fit) and gives in
 * *changed (malloc'd, the caller frees it; NULL when *count is 0) the *count of them whose buffers changed;
 * edits->refit and ->rewritten get the counts (the caller adds a layout when the chunks did not fit). */
st_result web_mesh_refit(st_mesh *mesh, const st_level *level, st_rect rect, uint32_t **changed, uint32_t *count,
                         web_mesh_edits *edits, st_error *err);

/* The mesh's chunk count and the edits' figures as a JSON object into out (size bytes). */
void web_mesh_describe(const st_mesh *mesh, const web_mesh_edits *edits, char *out, size_t size);

#endif
