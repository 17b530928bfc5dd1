#version 460
#extension GL_GOOGLE_include_directive : require
// The ocean, step 4: the mips past the resolve's tiles, from level src_mip (at most 32² texels) down to 1², by
// 2×2 means in shared memory, one workgroup per cascade.
#include "ocean_common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

shared vec4 tile_disp[16][16];
shared vec4 tile_surf[16][16];

void main() {
    uint c = gl_WorkGroupID.z, src = pc.src_mip;
    uint w = pc.size >> (src + 1u); // the first level made here
    uvec2 lid = gl_LocalInvocationID.xy;
    if (lid.x < w && lid.y < w) {
        ivec2 q = ivec2(lid * 2u);
        vec4 d = vec4(0.0), s = vec4(0.0);
        for (int k = 0; k < 4; k++) {
            ivec3 at = ivec3(q + ivec2(k & 1, k >> 1), c);
            d += imageLoad(disp_mips[src], at);
            s += imageLoad(surf_mips[src], at);
        }
        tile_disp[lid.y][lid.x] = 0.25 * d;
        tile_surf[lid.y][lid.x] = 0.25 * s;
        imageStore(disp_mips[src + 1u], ivec3(lid, c), 0.25 * d);
        imageStore(surf_mips[src + 1u], ivec3(lid, c), 0.25 * s);
    }
    barrier();
    for (uint m = src + 2u; w > 1u; m++) {
        w >>= 1u;
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
            imageStore(disp_mips[m], ivec3(lid, c), d4);
            imageStore(surf_mips[m], ivec3(lid, c), s4);
        }
        barrier();
    }
}
