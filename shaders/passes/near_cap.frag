#version 460
#extension GL_GOOGLE_include_directive : require
// The near plane inside solid (src/render/passes/near_cap.c), raster targets: a full-screen triangle whose
// fragments keep the pixels whose ray starts inside solid terrain at the near plane — a hit there, shaded as
// a hit — and write the near depth over whatever the method drew behind it.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"

layout(location = 0) out vec4 out_color;

void main() {
    vec3 p = g.eye.xyz + pixel_dir(gl_FragCoord.xy) * (g.level_info.z / g.forward.w); // view depth = near
    Surface s = surface_at(ivec2(floor(p.xy)));
    if (!surface_solid(s, p.z)) discard;
    out_color = vec4(shade_point(p, s, vec3(0.0)), 1.0); // the sRGB attachment encodes
    gl_FragDepth = 1.0; // reverse-Z: the near plane
}
