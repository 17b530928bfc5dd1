#version 460
#extension GL_GOOGLE_include_directive : require
// Voxel Space, serial: one invocation per screen column marches the ground points that project into that
// column, nearest first, with a y-buffer (the last row drawn), and draws the span between each sample's
// projected top (the upper surface, high) and the y-buffer (voxelspace.glsl). The reference for the parallel
// variant (voxelspace.comp), which draws the same bits.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"

layout(local_size_x = 64) in;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 1, binding = 1, r32f) uniform writeonly image2D out_depth;

#include "voxelspace.glsl"

void main() {
    int W = int(g.screen_right.w), H = int(g.screen_up.w);
    if (int(gl_GlobalInvocationID.x) >= W) return;
    column_setup(int(gl_GlobalInvocationID.x));
    float near = g.level_info.z, far = g.eye.w;
    Sample s0 = sample_at(0.0, g.eye.z);
    int row0 = split_row(s0);
    int top = row0, bottom = row0; // forward draws rows above top, backward rows from bottom down

    // forward: rows move up the screen
    int lam = 0;
    float h = s0.p.z;
    Sample prev = s0;
    for (int k = 0; k < VS_MAX_STEPS && top > 0; k++) {
        int lam_next = lam + next_step(prev);
        Sample s = sample_at(vs_lam(lam_next), h);
        if (s.view_z > far) break;
        if (s.s.outside) { // past a bounded level's edge: nothing to draw, the march goes on (it may come back)
            lam = lam_next;
            prev = s;
            continue;
        }
        h = s.p.z;
        if (s.view_z >= near) {
            int j = max(int(ceil(s.row - 0.5)), 0);
            if (j < top) {
                draw_span(j, top - 1, vs_lam(lam), s, vs_lam(lam_next));
                top = j;
            }
        }
        lam = lam_next;
        prev = s;
    }
    // backward: behind the split, visible when the eye looks steeply down; rows move down the screen
    lam = 0;
    h = s0.p.z;
    prev = s0;
    for (int k = 0; k < VS_MAX_STEPS && bottom < H; k++) {
        int lam_next = lam - next_step(prev);
        Sample s = sample_at(vs_lam(lam_next), h);
        if (s.view_z < near || s.view_z > far) break;
        if (s.s.outside) {
            lam = lam_next;
            prev = s;
            continue;
        }
        h = s.p.z;
        int j = min(int(ceil(s.row - 0.5)) - 1, H - 1);
        if (j >= bottom) {
            draw_span(bottom, j, vs_lam(lam), s, vs_lam(lam_next));
            bottom = j + 1;
        }
        lam = lam_next;
        prev = s;
    }
    // what no span reached is sky: the fog colour and the far depth, like a missed ray
    vec4 fog = vec4(linear_to_srgb(g.fog.rgb), 1.0);
    for (int j = 0; j < top; j++) {
        imageStore(out_color, ivec2(column, j), fog);
        imageStore(out_depth, ivec2(column, j), vec4(0.0));
    }
    for (int j = bottom; j < H; j++) {
        imageStore(out_color, ivec2(column, j), fog);
        imageStore(out_depth, ivec2(column, j), vec4(0.0));
    }
}
