/* The web mesh methods' shared CPU side (mesh_fit.h). */
#include <stdio.h>
#include <stdlib.h>

#include "methods/mesh_fit.h"

st_result web_mesh_fit(const st_level *level, uint32_t knob, st_mesh **out, st_error *err) {
    if (knob > 100) return st_error_set(err, ST_ERR_INVALID, "mesh quality knob %u: at most 100 (q = knob / 100)", knob);
    st_mesh_desc md = {.tolerance = st_mesh_tolerance(knob ? knob / 100.0 : WEB_MESH_QUALITY)};
    st_result r = st_mesh_create(level, &md, out, err);
    return r ? st_error_prefix(err, "mesh") : ST_OK;
}

st_result web_mesh_refit(st_mesh *mesh, const st_level *level, st_rect rect, uint32_t **changed, uint32_t *count,
                         web_mesh_edits *edits, st_error *err) {
    *changed = NULL;
    *count = 0;
    edits->refit = edits->rewritten = 0;
    uint32_t n = st_mesh_chunks_in_rect(mesh, rect, NULL, 0);
    if (!n) return ST_OK;
    uint32_t *list = malloc(n * sizeof *list), *version = malloc(n * sizeof *version);
    if (!list || !version) {
        free(list);
        free(version);
        return st_error_set(err, ST_ERR_NOMEM, "mesh refit: out of memory");
    }
    st_mesh_chunks_in_rect(mesh, rect, list, n);
    for (uint32_t k = 0; k < n; k++) version[k] = mesh->chunks[list[k]].version;
    st_result r = st_mesh_refit(mesh, level, rect, &edits->refit, err);
    uint32_t kept = 0;
    for (uint32_t k = 0; !r && k < n; k++) /* the refit skips chunks whose samples did not change */
        if (mesh->chunks[list[k]].version != version[k]) list[kept++] = list[k];
    free(version);
    if (r || !kept) {
        free(list);
        return r;
    }
    *changed = list;
    *count = edits->rewritten = kept;
    return ST_OK;
}

void web_mesh_describe(const st_mesh *mesh, const web_mesh_edits *edits, char *out, size_t size) {
    snprintf(out, size, "{\"chunks\":%u,\"refit\":%u,\"rewritten\":%u,\"layouts\":%u}",
             mesh->chunks_x * mesh->chunks_y, edits->refit, edits->rewritten, edits->layouts);
}
