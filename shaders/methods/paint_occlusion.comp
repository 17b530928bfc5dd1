#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
// Painted in compute, between two passes of blocks: the occlusion cells. Each invocation takes one cell of 8 × 8
// pixels and keeps the farthest depth bits the visibility buffer holds there (0 where a pixel is still empty): every
// face drawn so far is in it, and the buffer only grows, so a later face nearer than no cell's value is hidden.
// Invocation 0 also opens the next pass's jobs of big faces after this one's (queue words 7 and 0).
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "face_raster.glsl"
#include "paint_bars.glsl"
#include "paint_compute.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

void main() {
    if (gl_GlobalInvocationID.x == 0u && gl_GlobalInvocationID.y == 0u) {
        paint_queue[7] = min(paint_queue[3], pc.misc.z); // the big pass ran after every job was queued
        paint_queue[0] = 0u;
    }
    ivec2 size = ivec2(g.screen_right.w, g.screen_up.w), c = ivec2(gl_GlobalInvocationID.xy);
    ivec2 cells = (size + PAINT_CELL - 1) / PAINT_CELL;
    if (c.x >= cells.x || c.y >= cells.y) return;
    ivec2 o = c * PAINT_CELL, e = min(o + PAINT_CELL, size);
    uint farthest = 0xFFFFFFFFu;
    for (int y = o.y; y < e.y; y++)
        for (int x = o.x; x < e.x; x++) farthest = min(farthest, uint(paint_vis[y * size.x + x] >> 32));
    paint_cells[c.y * cells.x + c.x] = farthest;
}
