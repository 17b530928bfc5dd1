/* Files: reading only regular files (a named pipe, a device or a directory where a file is expected is refused
 * with a message instead of blocking the process), writing atomically (a temporary renamed into place, alone or
 * as a set that appears whole or not at all), and making and removing folders. */
#ifndef STRATA_FILE_H
#define STRATA_FILE_H

#include <stdio.h>

#include "strata/core.h"

/* ---- reading ------------------------------------------------------------------------------------------
 * Every reader opens its files through these two. */
/* Opens path for reading when it is a regular file; anything else is refused (ST_ERR_IO) without waiting. */
st_result st_file_open_read(const char *path, FILE **out, st_error *err);
/* Reads a whole regular file into memory (bounded by max_size: more is ST_ERR_FORMAT); *data is malloc'd. */
st_result st_file_read_all(const char *path, size_t max_size, uint8_t **data, size_t *size, st_error *err);

/* ---- writing ------------------------------------------------------------------------------------------
 * Atomic file writing: open a temporary beside path (path.tmpPID), write, then commit (flush, close, rename)
 * or abort (the temporary is removed). Opening checks the output path: an existing directory is ST_ERR_INVALID,
 * a missing folder ST_ERR_IO, so a command can open every output before it writes any. */
typedef struct st_atomic_file {
    FILE *fp;
    char final_path[1024];
    char temp_path[1040];
} st_atomic_file;
/* Opens the temporary of path for writing (a leftover temporary of this process id is replaced). */
st_result st_atomic_open(st_atomic_file *f, const char *path, st_error *err);
/* Write errors (a full disk) are reported here with their cause, and the temporary is removed. */
st_result st_atomic_commit(st_atomic_file *f, st_error *err);
/* Closes and removes the temporary; the file at path is left as it was. */
void st_atomic_abort(st_atomic_file *f);
/* Commits count open files in order; when one fails, the ones already renamed into place are removed and the
 * rest aborted, so the set appears whole or not at all (short of a crash between the renames). */
st_result st_atomic_commit_all(st_atomic_file *files, size_t count, st_error *err);
/* Aborts each of count open files. */
void st_atomic_abort_all(st_atomic_file *files, size_t count);
/* Writes a buffer atomically (temporary + rename). */
st_result st_file_write_atomic(const char *path, const void *data, size_t size, st_error *err);
/* The same, durably: the temporary is synced before the rename and the folder after it, so once this returns
 * the file is there whole even after a power loss, and a crash at any moment leaves the old file or the new. */
st_result st_file_write_durable(const char *path, const void *data, size_t size, st_error *err);
/* Removes a file (a missing one is fine) and syncs its folder. */
st_result st_file_remove_durable(const char *path, st_error *err);

/* ---- folders ------------------------------------------------------------------------------------------ */
/* Creates the folder path and its missing parents (mkdir -p); an existing one is fine. */
st_result st_make_dirs(const char *path, st_error *err);
/* The same, and created (cap bytes) receives the outermost folder this call created ("" when none), for
 * st_remove_dirs after a failure; on its own failure it removes what it created. */
st_result st_make_dirs_tracked(const char *path, char *created, size_t cap, st_error *err);
/* Creates the one folder path, which must not exist yet (its parent must): a folder that only this call made,
 * for a writer that must not share it. An existing path is ST_ERR_IO ("File exists"). */
st_result st_make_dir_new(const char *path, st_error *err);
/* Removes path and its parents up to and including top, each only while it is empty. */
void st_remove_dirs(const char *path, const char *top);

#endif
