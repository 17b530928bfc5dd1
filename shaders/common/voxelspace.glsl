// Voxel Space (the Comanche column renderer), shared by the serial variant (voxelspace_serial.comp, one
// invocation per screen column) and the parallel one (voxelspace.comp, a workgroup per column): the column's
// plane, its samples and the spans they draw. The real camera projects every sample, so it agrees with the
// other methods at any pitch: the column's points lie on the plane through the eye spanned by the column's rays,
// which meets a horizontal plane z = h in a line; the march runs along that line (forward, and backward from the
// split row when the eye looks steeply down), and the line's sideways shift with h is solved by re-sampling
// once. One height per texel: caves are not drawn. Every value a sample's position or its next step depends on
// is `precise` (no fused operations), so the two variants compute the same bits whatever their code around it,
// and the march distance is an int count of 1/1024 texel.
// Requires globals.glsl, surface.glsl, camera.glsl and shading.glsl, and the targets out_color, out_depth.

const int VS_MAX_STEPS = 8192;

int column;
vec2 along;          // unit ground direction of the march (away from the eye)
vec2 across;         // unit ground normal of the column plane
float shift_per_drop; // sideways shift of the plane's ground line per unit below the eye

vec2 ground_point(float lam, float h) {
    precise vec2 q = g.eye.xy + lam * along + across * (shift_per_drop * (g.eye.z - h));
    return q;
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
    precise vec2 q = ground_point(lam, h_guess);
    r.s = surface_at(ivec2(floor(q)));
    // the line moves with the height: sample again (not past a bounded edge, where there is no height to move to)
    if (!r.s.outside && r.s.high != h_guess && shift_per_drop != 0.0) {
        q = ground_point(lam, r.s.high);
        r.s = surface_at(ivec2(floor(q)));
    }
    r.p = vec3(q, r.s.high);
    precise vec3 v = r.p - g.eye.xyz;
    precise float view_z = dot(v, g.forward.xyz);
    precise float row = 0.5 * g.screen_up.w - g.forward.w * dot(v, g.screen_up.xyz) / view_z;
    r.view_z = view_z;
    r.row = row;
    return r;
}

// Ray parameter (along the unnormalised pixel direction d) where the pixel sees the staircase step that
// sample b stands for: a wall at lam_a rising to h, then the top z = h out to lam_b.
float span_t(vec3 d, float lam_a, float lam_b, float h, float t_fallback) {
    precise float dl = dot(d.xy, along);
    precise float t_plane = abs(d.z) > 1e-9 ? (h - g.eye.z) / d.z : -1.0;
    if (abs(dl) < 1e-6 * g.forward.w) return t_plane > 0.0 ? t_plane : t_fallback;
    precise float t_a = lam_a / dl, t_b = lam_b / dl;
    if (t_a > 0.0 && g.eye.z + d.z * t_a <= h) return t_a; // the step's wall
    if (t_plane > 0.0) return clamp(t_plane, max(t_a, 0.0), max(t_b, 0.0));
    return max(t_b, 0.0);
}

void draw_span(int j0, int j1, float lam_a, Sample b, float lam_b) {
    vec3 color = linear_to_srgb(shade_point(b.p, b.s, vec3(0.0)));
    float t_fallback = b.view_z / g.forward.w;
    for (int j = j0; j <= j1; j++) {
        vec3 d = pixel_dir(vec2(float(column) + 0.5, float(j) + 0.5));
        precise float z = span_t(d, lam_a, lam_b, b.p.z, t_fallback) * g.forward.w;
        z = clamp(z, g.level_info.z, g.eye.w);
        imageStore(out_color, ivec2(column, j), vec4(color, 1.0));
        imageStore(out_depth, ivec2(column, j), vec4(depth_from_view_z(z)));
    }
}

// The march advances in whole units of 1/1024 texel, counted in an int, so that its positions are sums that
// any order of adding gives exactly (the parallel variant adds a chunk's steps by a prefix sum).
const float VS_UNIT = 1.0 / 1024.0;

// The step after sample s, in units: about half a pixel at the sample's distance, never more than half a texel
// near the eye (rounded down to a unit).
int next_step(Sample s) {
    precise float step = max(0.5, 0.5 * length(s.p - g.eye.xyz) / g.forward.w);
    return int(min(floor(step * 1024.0), 1073741824.0));
}

float vs_lam(int units) { return float(units) * VS_UNIT; }


// The column's plane: its ground direction (away from the eye), its normal and the shift per unit of drop.
void column_setup(int c) {
    column = c;
    int W = int(g.screen_right.w);
    vec3 centre = g.forward.w * g.forward.xyz + (float(column) + 0.5 - 0.5 * float(W)) * g.screen_right.xyz;
    vec3 n = cross(centre, g.screen_up.xyz); // the column plane's normal; its ground part is never 0
    float nh = length(n.xy);
    across = n.xy / nh;
    along = vec2(-across.y, across.x);
    vec2 heading = vec2(g.screen_right.y, -g.screen_right.x);
    if (dot(along, heading) < 0.0) along = -along;
    shift_per_drop = n.z / nh;
}

// The row of the split at lam = 0 (the column plane's point beside or under the eye); H when behind the eye.
int split_row(Sample s0) {
    int H = int(g.screen_up.w);
    return s0.view_z >= g.level_info.z ? clamp(int(ceil(s0.row - 0.5)), 0, H) : H;
}
