#version 460
// The viewer's overlay: the renderer's frame (mode 1) and the HUD (mode 0). Colours arrive either linear
// (an sRGB image sampled through the hardware decode) or as sRGB-encoded bytes (a compute method's UNORM
// target, the HUD's vertex colours); they leave linear for an sRGB swapchain, encoded for a UNORM one.
layout(location = 0) in vec4 in_color;
layout(location = 0) out vec4 out_color;

layout(set = 0, binding = 0) uniform sampler2D frame;

layout(push_constant) uniform Overlay {
    vec2 viewport;
    uint mode;
    uint flags;
} pc;

vec3 srgb_to_linear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), greaterThan(c, vec3(0.04045)));
}

vec3 linear_to_srgb(vec3 c) {
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, greaterThan(c, vec3(0.0031308)));
}

void main() {
    bool out_srgb = (pc.flags & 1u) != 0u;
    bool encoded;
    vec4 c;
    if (pc.mode == 1u) {
        c = vec4(texture(frame, gl_FragCoord.xy / pc.viewport).rgb, 1.0);
        encoded = (pc.flags & 2u) != 0u;
    } else {
        c = in_color;
        encoded = true;
    }
    if (out_srgb && encoded) c.rgb = srgb_to_linear(c.rgb);
    else if (!out_srgb && !encoded) c.rgb = linear_to_srgb(c.rgb);
    out_color = c;
}
