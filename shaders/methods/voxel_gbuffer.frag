#version 460
#extension GL_GOOGLE_include_directive : require
// RayVoxel, fragment variant, textured shading: the traversal of voxel.frag, its hit kept in the G-buffer instead
// of shaded (gbuffer.glsl), for deferred_shade.comp to shade once per pixel.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "voxel_grid.glsl"
#include "voxel_traverse.glsl"
#include "gbuffer.glsl"

layout(push_constant) uniform Push { // voxel.frag's (the diagnostic colouring is never deferred)
    uint outer_budget;
    uint inner_budget;
    uint show_steps;
} pc;

layout(location = 0) out vec4 out_point;

void main() {
    vec3 p;
    float depth;
    VoxelResult res;
    bool hit = voxel_hit_pixel(gl_FragCoord.xy, pc.outer_budget, pc.inner_budget, p, depth, res);
    out_point = vec4(p, hit ? GBUFFER_COLUMN : GBUFFER_NONE);
    gl_FragDepth = depth;
}
