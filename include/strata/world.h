/* Worlds on disk: Vangers worlds (world.ini + .vmc/.vmp + .pal + .vpr) read and written exactly, and the
 * name "default" for the embedded procedural world. */
#ifndef STRATA_WORLD_H
#define STRATA_WORLD_H

#include "strata/level.h"

/* path: "default" (or NULL), a directory holding world.ini, or a world.ini file. */
st_result st_world_load(const char *path, st_level **out, st_error *err);
/* Writes world.ini, output.vmc, harmony.pal and output.vpr into dir (created when missing). Files are
 * written under temporary names and renamed, so a failure never leaves a half-written world. */
st_result st_world_save(const st_level *level, const char *dir, st_error *err);

#endif
