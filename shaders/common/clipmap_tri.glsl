// Geometry clipmaps, compute variant: the frame's triangles by id (footprints sorted by shape, each shape's
// instances' triangles in a row), their corners from the shared vertex function, and the per-pixel test of
// vis_tri.glsl. Requires globals.glsl, camera.glsl, tile_world.glsl, dem_shading.glsl, clipmap_vertex.glsl and
// GL_EXT_shader_explicit_arithmetic_types_int64.

// per pixel: reverse-Z depth bits (high 32) and triangle id (low 32); 0 = nothing drawn
layout(set = 1, binding = 8, std430) buffer Visibility { uint64_t vis[]; };
// triangles too large for one invocation: the indirect dispatch (groups_x counts them) and their ids
layout(set = 1, binding = 9, std430) buffer BigQueue {
    uint groups_x, groups_y, groups_z;
    uint offered;
    uint items[];
} big;

// Mirror of clip_compute_push in src/render/methods/clipmap.c
layout(push_constant) uniform ClipComputePush {
    uint tri_total;
    uint big_cap;
    uint row_threads; // invocations per dispatch row (2-D dispatch of a 1-D range)
    uint pad;
} pc;

// Triangle `tri`'s corners relative to the eye, its level, its grid points, whether it is a zero-area edge
// triangle (drawn from both sides) and whether every corner's height is known.
void clip_fetch(uint tri, out vec3 rel[3], out uint level, out ivec2 gp[3], out bool two_sided, out bool valid) {
    uint s = 0u; // the last shape starting at or before tri (shapes without instances start at 2^32 − 1)
    for (uint k = 0u; k < uint(CLIP_SHAPES); k++)
        if (clip.shape_tris[k].y <= tri) s = k;
    uvec4 sh = clip.shape[s], st = clip.shape_tris[s];
    uint local = tri - st.y, inst = sh.z + local / st.x, t = local % st.x;
    uvec2 pc2 = pieces[inst];
    level = (pc2.x >> 8) & 255u;
    ivec2 o = ivec2(pc2.y & 0xffffu, pc2.y >> 16);
    two_sided = st.z != 0u;
    if (two_sided) { // (v_2t, v_2t+1, v_2t+2) along the row or column
        for (int i = 0; i < 3; i++) gp[i] = o + clip_local(2u * t + uint(i), sh.x);
    } else { // the raster variant's triangulation: (0,0) (1,0) (1,1) and (0,0) (1,1) (0,1)
        uint quad = t >> 1, w1 = sh.x - 1u;
        ivec2 base = o + ivec2(quad % w1, quad / w1);
        gp[0] = base;
        gp[1] = base + ((t & 1u) == 0u ? ivec2(1, 0) : ivec2(1, 1));
        gp[2] = base + ((t & 1u) == 0u ? ivec2(1, 1) : ivec2(0, 1));
    }
    valid = true;
    for (int i = 0; i < 3; i++) {
        float a;
        bool ok;
        rel[i] = clip_vertex(level, gp[i], a, ok);
        valid = valid && ok;
    }
}

#include "vis_tri.glsl"

// Sets a triangle up (vis_setup); a zero-area edge triangle is turned to face the eye first, and a triangle with
// an unknown corner comes back empty.
VisTri clip_setup(vec3 rel[3], bool two_sided, bool valid) {
    if (!valid) {
        VisTri t;
        t.box = ivec4(1, 1, 0, 0);
        return t;
    }
    if (two_sided && dot(vis_cross(rel[1] - rel[0], rel[2] - rel[0]), rel[0]) > 0.0) {
        vec3 s = rel[1];
        rel[1] = rel[2];
        rel[2] = s;
    }
    return vis_setup(rel);
}
