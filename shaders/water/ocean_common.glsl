// What the ocean's compute passes share (src/render/passes/ocean_gpu.c): the set of buffers and images and
// the push constants.

// per cascade and texel: h0 (re, im), ω, unused — uploaded once per weather
layout(set = 0, binding = 0, std430) readonly buffer Spectrum { vec4 spectrum[]; };
// per cascade and texel: the 4 packed complex transforms (two vec4: channels 0, 1 and 2, 3)
layout(set = 0, binding = 1, std430) buffer Work { vec4 work[]; };
layout(set = 0, binding = 2, rgba32f) uniform image2DArray disp_mips[10]; // (λDx, λDy, h, J), metres
layout(set = 0, binding = 3, rgba16f) uniform image2DArray surf_mips[10]; // (slope x, slope y, slope², foam)

layout(push_constant) uniform Push {
    vec4 dk;        // 2π/L of each cascade (rad/m)
    uint size;      // N
    uint log2_size;
    uint cascades;
    uint packing;   // 0: the eight fields; 1 (tests): h alone in transform 1
    float lambda;   // choppiness
    float time;     // t mod the loop (s)
    float fade;     // foam kept from the last step: e^{−dt/τ} (0 = start afresh)
    uint src_mip;   // the mip pass: the level it reads
    vec4 foam_weight; // each cascade's share of the foam (0 for bands of centimetre waves)
} pc;

const float OCEAN_PI = 3.14159265358979;

vec2 cmul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
