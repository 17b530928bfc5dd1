#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// The water's compute rasteriser, pass 1 (gerstner): every lattice point of every ring displaced once
// (water_lattice.glsl, as the vertex shader places them), into the vertex buffer the triangles read; and the
// surface's height over the eye (two steps of the fixed point rest ← eye − D(rest)), which says whether the eye is
// under the water.
#define WATER_GERSTNER
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "water_common.glsl"
#include "water_lattice.glsl"
#include "water_tri.glsl"

layout(local_size_x = 64) in;

void main() {
    uint n1 = uint(water.grid.y) + 1u, v = gl_GlobalInvocationID.x, i = gl_GlobalInvocationID.y;
    if (v == 0u && i == 0u) {
        vec2 at = g.eye.xy - water.origin.xy, rest = at;
        vec3 d = vec3(0.0);
        for (int k = 0; k < 3; k++) {
            d = water_lattice_displacement(rest);
            rest = at - d.xy;
        }
        water_vertices[water_eye_slot()] = vec4(0.0, 0.0, water.surface.x + d.z, 0.0);
    }
    if (v >= n1 * n1 || i >= pc.rings) return;
    vec4 ring = water.ring[i];
    vec2 rest;
    vec3 world = water_lattice_point(ring.xy, ring.z, ring.w != 0.0, v % n1, v / n1, rest);
    water_vertices[i * n1 * n1 + v] = vec4(world, 0.0);
}
