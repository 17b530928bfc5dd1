// The water's compute rasteriser, pass 4 (the body of water_resolve_gerstner.comp and water_resolve_ocean.comp):
// per pixel, the depth the surface is tested against (the terrain's, far where the terrain only stands for the
// water: water_prepare.frag's rule), the nearest water triangle from the visibility buffer, the pixel ray met
// with its plane, the rest point and its change across the pixel's quad by the triangle's barycentrics (what a
// fragment shader's interpolation and coarse dFdx/dFdy give), and the shading of water_surface.glsl. Every
// pixel's depth goes to out_depth (the water's where it shows, else the terrain's); pixels that show water get a
// colour, and with the eye under the surface every pixel does (the terrain seen through the water).

layout(local_size_x = 8, local_size_y = 8) in;

// Where the ray through pixel position q meets the plane (normal n, dot(n, corner 0) = n_rel0), eye-relative.
vec3 water_ray_plane(vec3 n, float n_rel0, vec2 q) {
    vec3 d = pixel_dir(q);
    return d * (n_rel0 / dot(n, d));
}

// The rest point at eye-relative plane point x, by the triangle's barycentrics (extended past its edges).
vec2 water_rest_at(vec3 rel[3], vec2 rest[3], vec3 x) {
    vec3 e1 = rel[1] - rel[0], e2 = rel[2] - rel[0], q = x - rel[0];
    float d00 = dot(e1, e1), d01 = dot(e1, e2), d11 = dot(e2, e2), d20 = dot(q, e1), d21 = dot(q, e2);
    float den = d00 * d11 - d01 * d01;
    if (!(den > 1e-12 * d00 * d11)) return (rest[0] + rest[1] + rest[2]) / 3.0; // a sliver of the ring borders
    float b1 = (d11 * d20 - d01 * d21) / den, b2 = (d00 * d21 - d01 * d20) / den;
    return rest[0] + b1 * (rest[1] - rest[0]) + b2 * (rest[2] - rest[0]);
}

// A difference that grazing rays made infinite (or undefined) as a huge but finite one: the widest filter.
vec2 water_finite(vec2 v) { return any(isnan(v)) || any(isinf(v)) ? vec2(1e6) : v; }

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    int width = int(g.screen_right.w);
    if (px.x >= width || px.y >= int(g.screen_up.w)) return;
    uint64_t v = vis[px.y * width + px.x];
    float dw = uintBitsToFloat(uint(v >> 32));
    float ds = texelFetch(scene_depth, px, 0).r;
    vec2 c = vec2(px) + 0.5;
    float tested = ds;
    if (tested > 0.0 && water_stand_in(point_from_depth(c, tested))) tested = 0.0;
    bool shows = dw > 0.0 && dw >= tested;
    out_depth[px.y * width + px.x] = shows ? dw : ds;
    // an eye under the surface sees the terrain through the water (and the water's own colour where nothing is)
    bool under = g.eye.z < water_vertices[water_eye_slot()].z;
    if (!shows && under) {
        vec3 behind = ds > 0.0 ? texelFetch(scene_color, px, 0).rgb : vec3(0.0);
        float dist = ds > 0.0 ? distance(point_from_depth(c, ds), g.eye.xyz) : 1e30;
        imageStore(out_color, px, vec4(linear_to_srgb(water_through(behind, dist)), 1.0));
    }
    if (!shows) return;
    vec3 rel[3];
    vec2 rest[3];
    water_fetch(uint(v), rel, rest);
    vec3 n = vis_cross(rel[1] - rel[0], rel[2] - rel[0]);
    float nr = dot(n, rel[0]);
    vec3 x0 = water_ray_plane(n, nr, c);
    vec2 r0 = water_rest_at(rel, rest, x0);
    // the footprint as a fragment shader's coarse derivatives find it: across the pixel's 2×2 quad, from its
    // first pixel, on this triangle's plane extended
    vec2 q = vec2(px & ~1) + 0.5;
    vec2 rq = water_rest_at(rel, rest, water_ray_plane(n, nr, q));
    vec2 drdx = water_finite(water_rest_at(rel, rest, water_ray_plane(n, nr, q + vec2(1.0, 0.0))) - rq);
    vec2 drdy = water_finite(water_rest_at(rel, rest, water_ray_plane(n, nr, q + vec2(0.0, 1.0))) - rq);
    vec3 color = water_shade(c, g.eye.xyz + x0, dw, r0, drdx, drdy, under);
    imageStore(out_color, px, vec4(linear_to_srgb(color), 1.0));
}
