/* Internals shared by the measurement runs (compare, tune, soak) and their JSON reports. */
#ifndef STRATA_EVAL_INTERNAL_H
#define STRATA_EVAL_INTERNAL_H

#include <cjson/cJSON.h>

#include "strata/eval.h"
#include "strata/render.h"

/* The start of a measurement run: the engine (device choice and validation from `ed`), the adapter's folder
 * out_root/<adapter-slug> named into out_dir and created, and `level` set on the engine when one is given.
 * *engine is set as soon as it exists: the caller destroys it whatever the result. */
st_result st_eval_open_run(const st_engine_desc *ed, const st_level *level, const char *out_root,
                           st_engine **engine, st_device_info *info, char *slug, size_t slug_cap, char *out_dir,
                           size_t out_dir_cap, st_error *err);

/* Adds name: v, or name: null when v is not finite. */
void st_eval_json_number(cJSON *o, const char *name, double v);
/* Adds the short "adapter" object: {"name", "device_type"}. */
void st_eval_json_adapter(cJSON *root, const char *name, const char *device_type);
/* Prints root (then deletes it) into path atomically, with a final newline. */
st_result st_eval_json_write(cJSON *root, const char *path, st_error *err);

#endif
