/* The exact orientation and in-circle predicates on integer grid coordinates, inline for the fitter's inner
 * loops (st_tin_orient and st_tin_incircle are these, out of line). With every coordinate in
 * [0, ST_TIN_MAX_COORD] every product stays below 2^63, so int64 arithmetic is exact. */
#ifndef STRATA_MESH_PREDICATES_INLINE_H
#define STRATA_MESH_PREDICATES_INLINE_H

#include <stdint.h>

static inline int tin_orient(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy) {
    int64_t d = (int64_t)(bx - ax) * (cy - ay) - (int64_t)(by - ay) * (cx - ax);
    return (d > 0) - (d < 0);
}

static inline int tin_incircle(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy, int32_t dx,
                               int32_t dy) {
    /* differences ≤ 2^14: lifted terms ≤ 2^29, each 3×3 product ≤ 2^58, their sum < 2^61 */
    int64_t adx = ax - dx, ady = ay - dy, bdx = bx - dx, bdy = by - dy, cdx = cx - dx, cdy = cy - dy;
    int64_t ad = adx * adx + ady * ady, bd = bdx * bdx + bdy * bdy, cd = cdx * cdx + cdy * cdy;
    int64_t det = adx * (bdy * cd - bd * cdy) - ady * (bdx * cd - bd * cdx) + ad * (bdx * cdy - bdy * cdx);
    return (det > 0) - (det < 0);
}

#endif
