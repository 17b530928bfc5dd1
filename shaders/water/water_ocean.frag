#version 460
#extension GL_GOOGLE_include_directive : require
// The water surface (ocean) over raster targets: linear colour into the sRGB attachment, depth by the hardware.
#define WATER_OCEAN
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "water_common.glsl"
#include "ocean_sample.glsl"
#include "water_surface.glsl"

layout(location = 0) in vec3 v_world;
layout(location = 1) in vec2 v_rest;

layout(location = 0) out vec4 out_color;

void main() {
    vec3 color = water_shade(gl_FragCoord.xy, v_world, gl_FragCoord.z, v_rest, dFdx(v_rest), dFdy(v_rest), false);
    out_color = vec4(color, 1.0);
}
