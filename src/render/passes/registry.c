/* The frame: the shared passes in the order the renderer records them, with the method's own passes as the
 * NULL entry. A new pass adds its ops table here; no method changes. */
#include "render/passes/passes.h"

static const st_pass_ops *const frame_order[] = {
    &st_pass_shadow,   /* the sun's shadow map, read by every method's shading */
    NULL,              /* the method: colour + reverse-Z depth */
    &st_pass_near_cap, /* pixels whose near-plane point is SOLID */
    &st_pass_water,    /* the water surface over the terrain, through its depth */
};

const st_pass_ops *const *st_frame_order(uint32_t *count) {
    *count = (uint32_t)(sizeof frame_order / sizeof frame_order[0]);
    return frame_order;
}
