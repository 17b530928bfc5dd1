#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
// The water's compute rasteriser, pass 4 (gerstner): the resolve and shading per pixel (water_resolve.glsl).
#define WATER_GERSTNER
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"
#include "water_common.glsl"
#include "water_tri.glsl"
#include "water_surface.glsl"
#include "water_resolve.glsl"
