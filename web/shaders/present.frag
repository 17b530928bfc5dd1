#version 460
// The web backend's display and read-back pass: the frame's sRGB colour target (sampling decodes it to linear)
// re-encoded into a plain RGBA8 target, turned right way up for the screen (GL's rows run bottom up) or kept
// in the native row order for read-back.
layout(set = 0, binding = 0) uniform sampler2D frame;
layout(push_constant) uniform PresentPush {
    uint flip; // 1: for the screen
} pc;
layout(location = 0) out vec4 out_color;

vec3 linear_to_srgb(vec3 c) {
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (pc.flip != 0u) p.y = textureSize(frame, 0).y - 1 - p.y;
    out_color = vec4(linear_to_srgb(texelFetch(frame, p, 0).rgb), 1.0);
}
