/* GPU probes of the shaders' shared functions (for tests): SOLID and the surface decode. */
#ifndef STRATA_PROBE_H
#define STRATA_PROBE_H

#include "render/render_internal.h"

typedef struct st_probe_result {
    bool solid, dual;
    uint8_t low, mid, high, low_type, high_type;
} st_probe_result;

st_result st_engine_probe_solid(st_engine *e, const float (*points)[3], uint32_t count, st_probe_result *out,
                                st_error *err);

#endif
