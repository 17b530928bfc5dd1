#version 460
#extension GL_GOOGLE_include_directive : require
// Voxel Space (the Comanche column renderer): one invocation per screen column marches the ground points
// that project into that column, nearest first, with a y-buffer (the last row drawn), and draws the span
// between each sample's projected top (the upper surface, high) and the y-buffer. The real camera projects
// every sample, so it agrees with the other methods at any pitch: the column's points lie on the plane
// through the eye spanned by the column's rays, which meets a horizontal plane z = h in a line; the march
// runs along that line (forward, and backward from the split row when the eye looks steeply down), and the
// line's sideways shift with h is solved by re-sampling once. One height per texel: caves are not drawn.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "shading.glsl"

layout(local_size_x = 64) in;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D out_color;
layout(set = 1, binding = 1, r32f) uniform writeonly image2D out_depth;

const int MAX_STEPS = 8192;

int column;
vec2 along;          // unit ground direction of the march (away from the eye)
vec2 across;         // unit ground normal of the column plane
float shift_per_drop; // sideways shift of the plane's ground line per unit below the eye

vec2 ground_point(float lam, float h) {
    return g.eye.xy + lam * along + across * (shift_per_drop * (g.eye.z - h));
}

// The column's sample at march distance lam: the point on the upper surface (high), its surface, and its
// view depth and continuous screen row (y down).
struct Sample {
    vec3 p;
    Surface s;
    float view_z, row;
};

Sample sample_at(float lam, float h_guess) {
    Sample r;
    vec2 q = ground_point(lam, h_guess);
    r.s = surface_at(ivec2(floor(q)));
    // the line moves with the height: sample again (not past a bounded edge, where there is no height to move to)
    if (!r.s.outside && r.s.high != h_guess && shift_per_drop != 0.0) {
        q = ground_point(lam, r.s.high);
        r.s = surface_at(ivec2(floor(q)));
    }
    r.p = vec3(q, r.s.high);
    vec3 v = r.p - g.eye.xyz;
    r.view_z = dot(v, g.forward.xyz);
    r.row = 0.5 * g.screen_up.w - g.forward.w * dot(v, g.screen_up.xyz) / r.view_z;
    return r;
}

// Ray parameter (along the unnormalised pixel direction d) where the pixel sees the staircase step that
// sample b stands for: a wall at lam_a rising to h, then the top z = h out to lam_b.
float span_t(vec3 d, float lam_a, float lam_b, float h, float t_fallback) {
    float dl = dot(d.xy, along);
    float t_plane = abs(d.z) > 1e-9 ? (h - g.eye.z) / d.z : -1.0;
    if (abs(dl) < 1e-6 * g.forward.w) return t_plane > 0.0 ? t_plane : t_fallback;
    float t_a = lam_a / dl, t_b = lam_b / dl;
    if (t_a > 0.0 && g.eye.z + d.z * t_a <= h) return t_a; // the step's wall
    if (t_plane > 0.0) return clamp(t_plane, max(t_a, 0.0), max(t_b, 0.0));
    return max(t_b, 0.0);
}

void draw_span(int j0, int j1, float lam_a, Sample b, float lam_b) {
    vec3 color = linear_to_srgb(shade_point(b.p, b.s, vec3(0.0)));
    float t_fallback = b.view_z / g.forward.w;
    for (int j = j0; j <= j1; j++) {
        vec3 d = pixel_dir(vec2(float(column) + 0.5, float(j) + 0.5));
        float z = span_t(d, lam_a, lam_b, b.p.z, t_fallback) * g.forward.w;
        z = clamp(z, g.level_info.z, g.eye.w);
        imageStore(out_color, ivec2(column, j), vec4(color, 1.0));
        imageStore(out_depth, ivec2(column, j), vec4(depth_from_view_z(z)));
    }
}

float next_step(Sample s) {
    // about half a pixel at the sample's distance, never more than half a texel near the eye
    return max(0.5, 0.5 * length(s.p - g.eye.xyz) / g.forward.w);
}

void main() {
    column = int(gl_GlobalInvocationID.x);
    int W = int(g.screen_right.w), H = int(g.screen_up.w);
    if (column >= W) return;
    float f = g.forward.w, near = g.level_info.z, far = g.eye.w;
    vec3 centre = f * g.forward.xyz + (float(column) + 0.5 - 0.5 * float(W)) * g.screen_right.xyz;
    vec3 n = cross(centre, g.screen_up.xyz); // the column plane's normal; its ground part is never 0
    float nh = length(n.xy);
    across = n.xy / nh;
    along = vec2(-across.y, across.x);
    vec2 heading = vec2(g.screen_right.y, -g.screen_right.x);
    if (dot(along, heading) < 0.0) along = -along;
    shift_per_drop = n.z / nh;

    // The split at lam = 0: the row of the column plane's point beside (or under) the eye.
    Sample s0 = sample_at(0.0, g.eye.z);
    int row0 = H;
    if (s0.view_z >= near) row0 = clamp(int(ceil(s0.row - 0.5)), 0, H);
    int top = row0, bottom = row0; // forward draws rows above top, backward rows from bottom down

    // forward: rows move up the screen
    float lam = 0.0, h = s0.p.z;
    Sample prev = s0;
    for (int k = 0; k < MAX_STEPS && top > 0; k++) {
        float lam_next = lam + next_step(prev);
        Sample s = sample_at(lam_next, h);
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
                draw_span(j, top - 1, lam, s, lam_next);
                top = j;
            }
        }
        lam = lam_next;
        prev = s;
    }
    // backward: behind the split, visible when the eye looks steeply down; rows move down the screen
    lam = 0.0;
    h = s0.p.z;
    prev = s0;
    for (int k = 0; k < MAX_STEPS && bottom < H; k++) {
        float lam_next = lam - next_step(prev);
        Sample s = sample_at(lam_next, h);
        if (s.view_z < near || s.view_z > far) break;
        if (s.s.outside) {
            lam = lam_next;
            prev = s;
            continue;
        }
        h = s.p.z;
        int j = min(int(ceil(s.row - 0.5)) - 1, H - 1);
        if (j >= bottom) {
            draw_span(bottom, j, lam, s, lam_next);
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
