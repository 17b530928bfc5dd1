#version 460
#extension GL_GOOGLE_include_directive : require
// Geometry clipmaps, rasterised: one instanced draw per footprint shape (blocks, fix-ups, trims, the centre, and
// with a second pipeline that culls nothing the zero-area edge strips); the instance names the footprint (its
// level and place in the window), gl_VertexIndex the vertex of the shape. No vertex input.
#include "globals.glsl"
#include "tile_world.glsl"
#include "dem_shading.glsl"
#include "clipmap_vertex.glsl"

layout(location = 0) out vec3 rel;
layout(location = 1) flat out uint level;
layout(location = 2) out vec2 grid;   // the vertex's grid point, for the wireframe overlay
layout(location = 3) out float valid; // 1 where the height is known: a triangle with an unknown corner is dropped

void main() {
    uvec2 pc = pieces[gl_InstanceIndex];
    uint shape = pc.x & 255u;
    level = (pc.x >> 8) & 255u;
    ivec2 gp = ivec2(pc.y & 0xffffu, pc.y >> 16) + clip_local(uint(gl_VertexIndex), clip.shape[shape].x);
    float alpha;
    bool ok;
    rel = clip_vertex(level, gp, alpha, ok);
    valid = ok ? 1.0 : 0.0;
    grid = vec2(gp);
    gl_Position = g.view_proj * vec4(rel, 1.0);
}
