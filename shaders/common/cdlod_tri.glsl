// CDLOD, compute variant: the frame's triangles by id (patch instances' first, then skirt instances'), their
// vertices from the shared vertex function, and the exact per-pixel test of a triangle against a pixel's ray
// (edge planes through the eye, the ray meeting the triangle's plane), as mesh-compute does it. Requires
// globals.glsl, camera.glsl, tile_world.glsl, cdlod_vertex.glsl and GL_EXT_shader_explicit_arithmetic_types_int64.

// per pixel: reverse-Z depth bits (high 32) and triangle id (low 32); 0 = nothing drawn
layout(set = 1, binding = 6, std430) buffer Visibility { uint64_t vis[]; };
// triangles too large for one invocation: the indirect dispatch (groups_x counts them) and their ids
layout(set = 1, binding = 7, std430) buffer BigQueue {
    uint groups_x, groups_y, groups_z;
    uint offered;
    uint items[];
} big;

// Mirror of cdlod_compute_push in src/render/methods/cdlod.c
layout(push_constant) uniform CdlodComputePush {
    uint tri_total;
    uint big_cap;
    uint row_threads; // invocations per dispatch row (2-D dispatch of a 1-D range)
    uint pad;
} pc;

// Triangle `tri`'s corners relative to the eye, its node, and whether it is a skirt's (drawn from both sides).
void cdlod_fetch(uint tri, out vec3 rel[3], out uint node_index, out bool skirt) {
    uint half_n = frame.info.y / 2u, patches = frame.counts.x, per_patch = frame.counts.z;
    float k;
    skirt = tri >= patches * per_patch;
    if (!skirt) {
        uint inst = instances[tri / per_patch], t = tri % per_patch, quad = t >> 1, q = inst & 15u;
        node_index = inst >> 4;
        CdlodNode n = nodes[node_index];
        uvec2 base = uvec2(q & 1u, q >> 1) * half_n + uvec2(quad % half_n, quad / half_n);
        // the raster variant's triangulation: (0,0) (1,0) (1,1) and (0,0) (1,1) (0,1)
        uvec2 c1 = (t & 1u) == 0u ? uvec2(1u, 0u) : uvec2(1u, 1u);
        uvec2 c2 = (t & 1u) == 0u ? uvec2(1u, 1u) : uvec2(0u, 1u);
        rel[0] = cdlod_vertex(n, vec2(base), k);
        rel[1] = cdlod_vertex(n, vec2(base + c1), k);
        rel[2] = cdlod_vertex(n, vec2(base + c2), k);
        return;
    }
    uint st = tri - patches * per_patch, per_skirt = frame.counts.w;
    uint inst = instances[patches + st / per_skirt], t = st % per_skirt, seg = t >> 1;
    uint side = inst & 3u, q = (inst >> 2) & 3u;
    node_index = inst >> 4;
    CdlodNode n = nodes[node_index];
    vec3 top0 = cdlod_vertex(n, cdlod_skirt_grid(q, side, seg), k);
    vec3 top1 = cdlod_vertex(n, cdlod_skirt_grid(q, side, seg + 1u), k);
    vec3 bot0 = top0 - vec3(0.0, 0.0, n.skirt), bot1 = top1 - vec3(0.0, 0.0, n.skirt);
    // the raster variant's strip: (top0, top1, bot1) and (top0, bot1, bot0)
    rel[0] = top0;
    rel[1] = (t & 1u) == 0u ? top1 : bot1;
    rel[2] = (t & 1u) == 0u ? bot1 : bot0;
}

#include "vis_tri.glsl"

// Sets a triangle up (vis_setup): back faces of the patches, degenerate ones (the morph's collapsed triangles)
// and those outside the near–far range or the screen come back empty; a skirt's (two_sided) is turned to face
// the eye first.
VisTri cdlod_setup(vec3 rel[3], bool two_sided) {
    if (two_sided && dot(vis_cross(rel[1] - rel[0], rel[2] - rel[0]), rel[0]) > 0.0) {
        vec3 s = rel[1];
        rel[1] = rel[2];
        rel[2] = s;
    }
    return vis_setup(rel);
}
