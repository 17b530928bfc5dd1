/* The exact orientation and in-circle predicates of the public API, on integer grid coordinates: cocircular or
 * collinear grid points give exact zeros (the fitter breaks those ties deterministically). */
#include "strata/mesh.h"
#include "predicates_inline.h"

int st_tin_orient(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy) {
    return tin_orient(ax, ay, bx, by, cx, cy);
}

int st_tin_incircle(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy, int32_t dx,
                    int32_t dy) {
    return tin_incircle(ax, ay, bx, by, cx, cy, dx, dy);
}
