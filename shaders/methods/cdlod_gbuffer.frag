#version 460
#extension GL_GOOGLE_include_directive : require
// CDLOD, textured shading: the point cdlod.frag shades (relative to the eye) and its node kept in the G-buffer
// instead of shaded (gbuffer.glsl: w the node's index), for cdlod_deferred.comp to shade once per pixel. The
// wireframe overlay's frames are never deferred (it needs the grid's screen derivatives).
#include "globals.glsl"
#include "gbuffer.glsl"

layout(location = 0) in vec3 rel;
layout(location = 1) flat in uint node_index;
layout(location = 0) out vec4 out_point;

void main() { out_point = vec4(rel, float(node_index)); }
