// The water's ring grid for the hardware rasteriser: one draw per ring (its corner, spacing and morph as push
// constants), each vertex placed by water_lattice.glsl. Included by water_gerstner.vert and water_ocean.vert,
// which define WATER_GERSTNER or WATER_OCEAN: one mode per shader keeps each small (lavapipe's compiler takes
// minutes over a shader holding both).
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "water_common.glsl"
#ifdef WATER_OCEAN
#include "ocean_sample.glsl"
#endif
#include "water_lattice.glsl"

layout(push_constant) uniform Push {
    vec2 corner;   // the ring's lower corner, relative to the origin
    float spacing; // its lattice spacing (units)
    uint morph;    // 1: the ring's outer band morphs toward the next ring
} pc;

layout(location = 0) out vec3 v_world;
layout(location = 1) out vec2 v_rest;

void main() {
    uint n = uint(water.grid.y);
    uint a = uint(gl_VertexIndex) % (n + 1u), b = uint(gl_VertexIndex) / (n + 1u);
    vec2 rest;
    vec3 world = water_lattice_point(pc.corner, pc.spacing, pc.morph != 0u, a, b, rest);
    v_world = world;
    v_rest = rest;
    gl_Position = g.view_proj * vec4(world, 1.0);
}
