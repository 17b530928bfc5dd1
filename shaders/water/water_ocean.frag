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

layout(location = 0) out vec4 out_color;

void main() {
    float depth;
    out_color = vec4(water_shade(depth), 1.0);
}
