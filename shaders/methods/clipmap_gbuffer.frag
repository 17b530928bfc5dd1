#version 460
#extension GL_GOOGLE_include_directive : require
// Geometry clipmaps, textured shading: the point clipmap.frag shades (relative to the eye) and its level kept in
// the G-buffer instead of shaded (gbuffer.glsl: w the level), for clipmap_deferred.comp to shade once per pixel.
// The wireframe overlay's frames are never deferred (it needs the grid's screen derivatives).
#include "globals.glsl"
#include "gbuffer.glsl"

layout(location = 0) in vec3 rel;
layout(location = 1) flat in uint level;
layout(location = 3) in float valid;
layout(location = 0) out vec4 out_point;

void main() {
    if (valid < 0.999) discard; // as clipmap.frag: interpolation need not return 1 exactly
    out_point = vec4(rel, float(level));
}
