/* Worlds on disk: Vangers worlds (world.ini + .vmc/.vmp + .pal + .vpr) read and written exactly, and the
 * name "default" for the embedded procedural world. */
#ifndef STRATA_WORLD_H
#define STRATA_WORLD_H

#include "strata/level.h"

/* path: "default" (or NULL), a directory holding world.ini, or a world.ini file. */
st_result st_world_load(const char *path, st_level **out, st_error *err);
/* Writes world.ini, output.vmc, harmony.pal and output.vpr into dir (created when missing), all or nothing:
 * a reader sees the old world or the new one, whatever stops the save (docs/formats.md, "Saving a world").
 * One writer at a time: another process saving into dir is ST_ERR_IO, naming its PID. Saving over an existing
 * world keeps its file names, every world.ini key strata does not write and the .vpr's GeoNet tables (when
 * the size is unchanged), and removes the old files the new world no longer names. */
st_result st_world_save(const st_level *level, const char *dir, st_error *err);

#endif
