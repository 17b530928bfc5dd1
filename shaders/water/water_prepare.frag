#version 460
#extension GL_GOOGLE_include_directive : require
// The water's depth before its surface is drawn: the terrain's depth, except where the terrain only stands for
// the water (material 0 at the water level), which becomes far so the waves may dip below it.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "water_common.glsl"

void main() {
    float d = texelFetch(scene_depth, ivec2(gl_FragCoord.xy), 0).r;
    if (d > 0.0 && water_stand_in(point_from_depth(gl_FragCoord.xy, d))) d = 0.0;
    gl_FragDepth = d;
}
