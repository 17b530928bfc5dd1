#version 460
// The web backend's depth read-back: WebGL2 reads no depth target, so each pixel's reverse-Z depth is copied
// bit for bit into an RGBA8 target (little-endian bytes of the float).
layout(set = 0, binding = 0) uniform sampler2D depth;
layout(location = 0) out vec4 out_bytes;

void main() {
    uint bits = floatBitsToUint(texelFetch(depth, ivec2(gl_FragCoord.xy), 0).r);
    out_bytes = vec4(uvec4(bits, bits >> 8, bits >> 16, bits >> 24) & 255u) / 255.0;
}
