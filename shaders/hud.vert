#version 460
// The viewer's overlay (src/view/present.c), two draws with one pipeline: mode 1 is a full-screen triangle
// that shows the renderer's colour target; mode 0 draws the HUD's coloured triangles given in window pixels.
layout(location = 0) in vec2 in_pos;
layout(location = 1) in vec4 in_color;

layout(push_constant) uniform Overlay {
    vec2 viewport; // window pixels
    uint mode;     // 0 HUD, 1 frame
    uint flags;    // bit 0: the swapchain encodes sRGB; bit 1: the frame holds sRGB bytes in a UNORM image
} pc;

layout(location = 0) out vec4 out_color;

void main() {
    if (pc.mode == 1u) {
        vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
        gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
        out_color = vec4(1.0);
    } else {
        gl_Position = vec4(in_pos / pc.viewport * 2.0 - 1.0, 0.0, 1.0); // Vulkan clip y runs down like pixels
        out_color = in_color;
    }
}
