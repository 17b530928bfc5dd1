#version 460
#extension GL_GOOGLE_include_directive : require
// The water's ring grid displaced by the Gerstner waves (water_surface_vert.glsl).
#define WATER_GERSTNER
#include "water_surface_vert.glsl"
