/* The reference of a view of a layer store read through its pages (paged_reference.c), for compare --paged. */
#ifndef STRATA_EVAL_PAGED_REFERENCE_H
#define STRATA_EVAL_PAGED_REFERENCE_H

#include "strata/reference.h"
#include "strata/tiles.h"

/* Casts the reference of `cam` into img (its size) on the window of the world (`pages`, of the store `world`)
 * that holds every texel the view's rays, shadow rays and normals can read, as st_reference_cast_cached does on a
 * whole level (cache_dir, from_cache and cache_err as there); *window_texels (may be NULL) gets the window's size. */
st_result st_eval_paged_reference(st_layer_pages *pages, const st_store_info *world, bool shadows,
                                  const st_camera *cam, const char *cache_dir, st_ref_image *img, bool *from_cache,
                                  uint64_t *window_texels, st_error *cache_err, st_error *err);

#endif
