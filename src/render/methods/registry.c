/* The method registry: every method of the renderer, in the order reports list them — those that draw levels,
 * then those that draw tile stores — and the knobs they declare. A new method adds its ops table here and
 * appears in `strata render`, `strata run`, `strata compare`, `strata tune` and the viewer (of its kind of world)
 * unchanged. */
#include <math.h>
#include <string.h>

#include "render/methods/methods.h"

static const st_method_ops *const registry[] = {
    &st_method_ray,
    &st_method_ray_compute,
    &st_method_voxel,
    &st_method_voxel_compute,
    &st_method_slice,
    &st_method_slice_plain,
    &st_method_slice_compute,
    &st_method_paint,
    &st_method_paint_plain,
    &st_method_paint_compute,
    &st_method_scatter,
    &st_method_scatter_plain,
    &st_method_voxelspace,
    &st_method_voxelspace_serial,
    &st_method_mesh,
    &st_method_mesh_compute,
};
#define METHOD_COUNT (sizeof registry / sizeof registry[0])

static const st_method_ops *const store_registry[] = {
    &st_method_cdlod,
    &st_method_cdlod_compute,
    &st_method_clipmap,
    &st_method_clipmap_compute,
    NULL,
};

size_t st_method_count(void) { return METHOD_COUNT; }

const st_method_info *st_method_at(size_t index) { return index < METHOD_COUNT ? &registry[index]->info : NULL; }

size_t st_store_method_count(void) {
    size_t n = 0;
    while (store_registry[n]) n++;
    return n;
}

const st_method_info *st_store_method_at(size_t index) {
    return index < st_store_method_count() ? &store_registry[index]->info : NULL;
}

const st_method_ops *st_method_ops_find(const char *name) {
    for (size_t i = 0; i < METHOD_COUNT; i++)
        if (!strcmp(registry[i]->info.name, name)) return registry[i];
    for (size_t i = 0; store_registry[i]; i++)
        if (!strcmp(store_registry[i]->info.name, name)) return store_registry[i];
    return NULL;
}

const st_method_info *st_method_find(const char *name) {
    const st_method_ops *ops = st_method_ops_find(name);
    return ops ? &ops->info : NULL;
}

const st_method_knob *st_method_quality_knob(const char *method) {
    const st_method_info *m = st_method_find(method);
    return m && m->knob_count ? &m->knobs[0] : NULL;
}

static const st_method_knob *knob_in(const st_method_info *m, const char *name) {
    for (size_t k = 0; k < m->knob_count; k++)
        if (!strcmp(m->knobs[k].name, name)) return &m->knobs[k];
    return NULL;
}

const st_method_knob *st_knob_find(const char *name) {
    const st_method_knob *k = NULL;
    for (size_t i = 0; i < METHOD_COUNT && !k; i++) k = knob_in(&registry[i]->info, name);
    for (size_t i = 0; store_registry[i] && !k; i++) k = knob_in(&store_registry[i]->info, name);
    return k;
}

void st_knob_set(st_method_knobs *knobs, const st_method_knob *knob, double value) {
    char *field = (char *)knobs + knob->offset;
    if (knob->kind == ST_KNOB_FRACTION) {
        float f = value <= knob->min ? -1.0f : (float)value; /* 0 in the field would mean the default */
        memcpy(field, &f, sizeof f);
    } else {
        uint32_t u = value < 0 ? 0 : value > 1e6 ? 1000000u : (uint32_t)lround(value);
        memcpy(field, &u, sizeof u);
    }
}

double st_knob_get(const st_method_knobs *knobs, const st_method_knob *knob) {
    const char *field = (const char *)knobs + knob->offset;
    if (knob->kind == ST_KNOB_FRACTION) {
        float f;
        memcpy(&f, field, sizeof f);
        return f == 0 ? knob->default_value : f < 0 ? knob->min : f;
    }
    uint32_t u;
    memcpy(&u, field, sizeof u);
    return u ? u : knob->default_value;
}
