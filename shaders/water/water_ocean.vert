#version 460
#extension GL_GOOGLE_include_directive : require
// The water's ring grid displaced by the ocean's cascades (water_surface_vert.glsl).
#define WATER_OCEAN
#include "water_surface_vert.glsl"
