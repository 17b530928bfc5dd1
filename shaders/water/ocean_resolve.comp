#version 460
#extension GL_GOOGLE_include_directive : require
// The ocean, step 3: per 16×16 tile of each cascade, the transforms' (−1)^(x+y) sign, the fields turned into
// the displacement (λDx, λDy, h, J) and the slope of the displaced surface, its square and the foam — fresh
// where the Jacobian says the surface folds (J from 0.8 down to 0.25; weighted by how long the cascade's waves
// are: centimetre waves break without whitecaps) and fading with e^{−dt/τ} elsewhere —
// then the tile's mips 1 to 4 by 2×2 means in shared memory (ocean_mips.comp makes the rest).
#include "ocean_common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

shared vec4 tile_disp[16][16];
shared vec4 tile_surf[16][16];

void main() {
    uint n = pc.size, c = gl_WorkGroupID.z;
    uvec2 lid = gl_LocalInvocationID.xy, xy = gl_WorkGroupID.xy * 16u + lid;
    bool inside = xy.x < n && xy.y < n;
    vec4 disp = vec4(0.0), surf = vec4(0.0);
    if (inside) {
        uint p = 2u * (c * n * n + xy.y * n + xy.x);
        float s = ((xy.x + xy.y) & 1u) != 0u ? -1.0 : 1.0;
        vec4 a = s * work[p], b = s * work[p + 1u];
        float dx = a.x, dy = a.y, h = a.z, dxy = a.w, hx = b.x, hy = b.y, dxx = b.z, dyy = b.w;
        float l = pc.lambda;
        float jac = (1.0 + l * dxx) * (1.0 + l * dyy) - l * l * dxy * dxy;
        // slope of the displaced surface from its tangents (1 + λDxx, λDxy, hx) and (λDxy, 1 + λDyy, hy), whose
        // cross product's z is J; held finite where it folds
        float jc = max(jac, 0.1);
        vec2 slope = vec2(hx * (1.0 + l * dyy) - l * dxy * hy, hy * (1.0 + l * dxx) - l * dxy * hx) / jc;
        float cover = pc.foam_weight[c] * smoothstep(0.8, 0.25, jac);
        float kept = pc.fade > 0.0 ? imageLoad(surf_mips[0], ivec3(xy, c)).w * pc.fade : 0.0;
        disp = vec4(l * dx, l * dy, h, jac);
        surf = vec4(slope, dot(slope, slope), max(cover, kept));
        imageStore(disp_mips[0], ivec3(xy, c), disp);
        imageStore(surf_mips[0], ivec3(xy, c), surf);
    }
    tile_disp[lid.y][lid.x] = disp;
    tile_surf[lid.y][lid.x] = surf;
    barrier();
    // mips 1..4 of this tile (8², 4², 2², 1²), while the level exists
    for (uint m = 1u; m <= 4u && (n >> m) > 0u; m++) {
        uint w = 16u >> m;
        bool live = lid.x < w && lid.y < w;
        vec4 d4 = vec4(0.0), s4 = vec4(0.0);
        if (live) {
            uvec2 q = lid * 2u;
            d4 = 0.25 * (tile_disp[q.y][q.x] + tile_disp[q.y][q.x + 1u] + tile_disp[q.y + 1u][q.x] + tile_disp[q.y + 1u][q.x + 1u]);
            s4 = 0.25 * (tile_surf[q.y][q.x] + tile_surf[q.y][q.x + 1u] + tile_surf[q.y + 1u][q.x] + tile_surf[q.y + 1u][q.x + 1u]);
        }
        barrier();
        if (live) {
            tile_disp[lid.y][lid.x] = d4;
            tile_surf[lid.y][lid.x] = s4;
            uvec2 out_xy = gl_WorkGroupID.xy * w + lid;
            if (out_xy.x < (n >> m) && out_xy.y < (n >> m)) {
                imageStore(disp_mips[m], ivec3(out_xy, c), d4);
                imageStore(surf_mips[m], ivec3(out_xy, c), s4);
            }
        }
        barrier();
    }
}
