#version 460
#extension GL_GOOGLE_include_directive : require
// The ocean, step 1: per row of each cascade, the spectrum advanced to time t from h0 — h̃ = h0(k)·e^{−iωt} +
// conj(h0(−k))·e^{+iωt} — multiplied into the four packed transforms (h + i·∂Dx/∂y, Dx + i·Dy, ∂h/∂x + i·∂h/∂y,
// ∂Dx/∂x + i·∂Dy/∂y), then the inverse FFT along the row. The CPU twin is st_ocean_cpu_fields (src/water/ocean.c).
#include "ocean_common.glsl"
#include "ocean_fft.glsl"

// (α + iβ)·h for complex α, β
vec2 pack2(vec2 h, vec2 alpha, vec2 beta) { return cmul(vec2(alpha.x - beta.y, alpha.y + beta.x), h); }

void main() {
    uint n = pc.size, row = gl_WorkGroupID.x, c = gl_WorkGroupID.y;
    uint base = c * n * n;
    float dk = pc.dk[c];
    for (uint i = gl_LocalInvocationID.x; i < n; i += 128u) {
        uint p = row * n + i, m = ((n - row) % n) * n + (n - i) % n;
        vec4 sp = spectrum[base + p], sm = spectrum[base + m];
        float ph = sp.z * pc.time, co = cos(ph), si = sin(ph);
        vec2 ht = vec2(sp.x * co + sp.y * si + sm.x * co + sm.y * si, sp.y * co - sp.x * si + sm.x * si - sm.y * co);
        float kx = (float(i) - float(n / 2u)) * dk, ky = (float(row) - float(n / 2u)) * dk;
        float k = sqrt(kx * kx + ky * ky);
        vec4 a = vec4(0.0), b = vec4(0.0);
        if (k > 0.0) {
            a.xy = pack2(ht, vec2(0.0, kx / k), vec2(0.0, ky / k));                 // Dx + i·Dy
            a.zw = pc.packing == 1u ? ht : pack2(ht, vec2(1.0, 0.0), vec2(-kx * ky / k, 0.0)); // h + i·∂Dx/∂y
            b.xy = pack2(ht, vec2(0.0, kx), vec2(0.0, ky));                         // ∂h/∂x + i·∂h/∂y
            b.zw = pack2(ht, vec2(-kx * kx / k, 0.0), vec2(-ky * ky / k, 0.0));     // ∂Dx/∂x + i·∂Dy/∂y
        }
        uint r = bit_reverse(i);
        line_a[r] = a;
        line_b[r] = b;
    }
    barrier();
    fft_line();
    for (uint i = gl_LocalInvocationID.x; i < n; i += 128u) {
        uint p = 2u * (base + row * n + i);
        work[p] = line_a[i];
        work[p + 1u] = line_b[i];
    }
}
