#version 460
#extension GL_GOOGLE_include_directive : require
// The water surface (ocean) over storage targets: the UNORM colour image holds sRGB-encoded bytes, so the
// colour is encoded here; the R32 depth image is the second colour attachment and gets the water's reverse-Z
// depth (the depth test runs on the pass's own depth attachment).
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
layout(location = 1) out float out_depth;

void main() {
    vec3 color = water_shade(gl_FragCoord.xy, v_world, gl_FragCoord.z, v_rest, dFdx(v_rest), dFdy(v_rest), false);
    out_color = vec4(linear_to_srgb(color), 1.0);
    out_depth = gl_FragCoord.z;
}
