/* The method registry: every method of the renderer, in the order reports list them — those that draw levels,
 * then those that draw tile stores. A new method adds its ops table here and appears in `strata render`,
 * `strata run` and `strata compare` (of its kind of world) unchanged. */
#include <string.h>

#include "render/methods/methods.h"

static const st_method_ops *const registry[] = {
    &st_method_ray,
    &st_method_ray_compute,
    &st_method_voxel,
    &st_method_voxel_compute,
    &st_method_slice,
    &st_method_slice_plain,
    &st_method_paint,
    &st_method_paint_plain,
    &st_method_scatter,
    &st_method_scatter_plain,
    &st_method_voxelspace,
    &st_method_mesh,
    &st_method_mesh_compute,
};
#define METHOD_COUNT (sizeof registry / sizeof registry[0])

static const st_method_ops *const store_registry[] = {
    &st_method_cdlod,
    &st_method_cdlod_compute,
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
