// The water's camera-centred ring grid (src/render/passes/water.c): ring i is a square lattice of spacing
// s·2^i around the origin snapped to its own 2·spacing lattice, with the square of ring i − 1 cut out. Each
// vertex is displaced by the waves (Gerstner) or the ocean's cascades, filtered by distance; in the outer band
// of a ring the odd vertices morph onto the coarser ring's edges, so rings meet without cracks.
// Included by water_gerstner.vert and water_ocean.vert, which define WATER_GERSTNER or WATER_OCEAN: one mode per
// shader keeps each small (lavapipe's compiler takes minutes over a shader holding both).
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "water_common.glsl"
#ifdef WATER_OCEAN
#include "ocean_sample.glsl"
#endif

layout(push_constant) uniform Push {
    vec2 corner;   // the ring's lower corner, relative to the origin
    float spacing; // its lattice spacing (units)
    uint morph;    // 1: the ring's outer band morphs toward the next ring
} pc;

layout(location = 0) out vec3 v_world;
layout(location = 1) out vec2 v_rest;

// The geometry's filter: waves shorter than a few vertex spacings at this distance are left to the shading.
vec3 displacement(vec2 rest) {
    vec2 d2 = water.origin.xy + rest - g.eye.xy;
    float r = sqrt(dot(d2, d2) + (g.eye.z - water.surface.x) * (g.eye.z - water.surface.x));
    float cut = water.grid.w * max(water.grid.x, 2.0 * r / water.grid.y);
#ifdef WATER_GERSTNER
    return gerstner_displacement(rest, cut);
#else
    return ocean_displacement(rest, cut);
#endif
}

void main() {
    uint n = uint(water.grid.y);
    uint a = uint(gl_VertexIndex) % (n + 1u), b = uint(gl_VertexIndex) / (n + 1u);
    vec2 rest = pc.corner + vec2(a, b) * pc.spacing;
    // the vertex's own displacement, or in the outer band a blend toward the coarser ring's edge (the mean of
    // its even neighbours): one loop over the points, one call site
    uint odd = (a & 1u) | ((b & 1u) << 1);
    float alpha = 0.0;
    if (pc.morph != 0u && odd != 0u) {
        float e = float(min(min(a, b), min(n - a, n - b)));
        alpha = clamp((water.grid.z - e) / water.grid.z, 0.0, 1.0);
    }
    float s = pc.spacing;
    vec2 offsets[5] = vec2[5](vec2(0.0), vec2(-s, 0.0), vec2(s, 0.0), vec2(0.0, -s), vec2(0.0, s));
    if (odd == 2u) {
        offsets[1] = vec2(0.0, -s);
        offsets[2] = vec2(0.0, s);
    } else if (odd == 3u) {
        offsets[1] = vec2(-s, -s);
        offsets[2] = vec2(s, -s);
        offsets[3] = vec2(-s, s);
        offsets[4] = vec2(s, s);
    }
    uint points = alpha > 0.0 ? (odd == 3u ? 5u : 3u) : 1u;
    vec3 d = vec3(0.0);
    for (uint k = 0u; k < points; k++) {
        float wgt = k == 0u ? 1.0 - alpha : alpha / float(points - 1u);
        d += wgt * displacement(rest + offsets[k]);
    }
    vec3 world = vec3(water.origin.xy + rest + d.xy, water.surface.x + d.z);
    v_world = world;
    v_rest = rest;
    gl_Position = g.view_proj * vec4(world, 1.0);
}
