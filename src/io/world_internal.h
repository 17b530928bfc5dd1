/* Shared by the world reader (world.c) and writer (world_save.c): the files a world.ini names and the name of
 * the journal an interrupted save leaves behind. */
#ifndef STRATA_IO_WORLD_INTERNAL_H
#define STRATA_IO_WORLD_INTERNAL_H

#include <stdio.h>

#include "strata/vangers.h"

/* A committed but unfinished save: world.ini.new is the new world.ini, and each file it names may still be
 * NAME.new (docs/formats.md, "Saving a world"). */
#define ST_WORLD_NEW_SUFFIX ".new"

typedef struct st_world_names {
    char map[140], pal[140], vpr[140];
    char color[140]; /* "" = the world has no colour map */
} st_world_names;

static inline void st_world_names_of(const st_world_ini *ini, st_world_names *n) {
    snprintf(n->map, sizeof n->map, "%s%s", ini->file_name, ini->compressed ? ".vmc" : ".vmp");
    snprintf(n->pal, sizeof n->pal, "%s", ini->palette_file);
    snprintf(n->vpr, sizeof n->vpr, "%s.vpr", ini->file_name);
    snprintf(n->color, sizeof n->color, "%s", ini->color_file);
}

#endif
