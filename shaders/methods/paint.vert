#version 460
#extension GL_GOOGLE_include_directive : require
// Painted: one instance per ground cell (or per 2^lod × 2^lod block of cells far away), no vertex stream
// (paint_bars.glsl). Vertices 0..7 are the corners of the floor bar [0, low], 8..15 those of the slab bar
// [mid, high]; corner bit k picks the camera side (0) or the far side (1) of axis k, and the index buffer draws
// the three faces through the all-camera-side corner.
#include "globals.glsl"
#include "surface.glsl"
#include "paint_bars.glsl"

layout(push_constant) uniform PaintPush {
    uint tile_base; // first tile of this draw in the list
    uint lod;       // blocks of 2^lod × 2^lod cells
    uint hidden_sides; // 1: start floor-bar sides at the camera-side neighbours' floors (0: the paper's bars)
    uint run_base;     // ST_NO_INSTANCING: the draw's first instance (0 and unused natively)
} pc;

layout(location = 0) out vec3 world;
layout(location = 1) flat out ivec4 block; // x0, y0, size, bar

void main() {
#ifdef ST_NO_INSTANCING
    // instances as runs of vertices in one draw (a CPU rasteriser may cost a whole draw per instance): the
    // method's index buffer numbers vertex v of instance i of the run i * 16 + v
    uint instance = pc.run_base + (uint(gl_VertexIndex) >> 4);
    int vertex = gl_VertexIndex & 15;
#else
    uint instance = uint(gl_InstanceIndex);
    int vertex = gl_VertexIndex;
#endif
    PaintBlock k = paint_block(pc.tile_base, pc.lod, instance);
    int bar = vertex >> 3, corner = vertex & 7;
    vec3 lo, hi;
    if (!paint_bar(k, bar, pc.hidden_sides != 0u, lo, hi)) { // a point outside the clip volume: every
        world = vec3(0.0);                                   // triangle of the bar vanishes
        block = ivec4(0);
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    block = ivec4(k.origin, k.size, bar);
    bvec3 far_side = bvec3((corner & 1) != 0, (corner & 2) != 0, (corner & 4) != 0);
    // high end of an axis when the camera is there xor this corner is on the far side
    world = mix(lo, hi, notEqual(paint_camera_high(lo, hi), far_side));
    gl_Position = g.view_proj * vec4(world, 1.0);
}
