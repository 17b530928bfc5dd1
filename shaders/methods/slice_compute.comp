#version 460
#extension GL_GOOGLE_include_directive : require
// Sliced in compute, pass 1: the raster variant's planes rasterised per pixel. A pixel meets the planes of one
// stack (those under the eye when its ray descends, over it when it rises) in order of distance, and the
// nearest plane whose band holds a hit is what the raster variant's depth test keeps (a band's hit lies within
// the band, and the bands follow each other along the ray), so the walk stops there. A plane counts where the
// raster variant would draw a fragment: its point on the ray within the planes' bounds and the near–far range.
// The band's work is the raster variant's own (slice_band.glsl). A band wholly in the air — above the highest
// terrain under it — cannot hold a SOLID sample, and is passed over unsampled, which changes nothing: the ray
// walks the max tables for stretches in the air (clear_until) and jumps over the planes whose bands lie in them.
// Writes the visibility buffer; slice_resolve.comp shades it.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "slice_band.glsl"
#include "slice_compute.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

// Where the ray leaves cell c of side `side` texels; d: the ray's direction in xy with no component zero (so
// the cell's far edges and the reciprocals agree in sign), inv its reciprocal.
float cell_exit(SliceRay r, ivec2 c, float side, vec2 d, vec2 inv) {
    vec2 far_edge = (vec2(c) + step(vec2(0.0), d)) * side;
    vec2 t = (far_edge - r.o.xy) * inv;
    return min(t.x, t.y);
}

// The ray in a cell of value v (highest top, highest floor top, lowest ceiling) over [t, exit]: the air is z above
// the top, or between the floor top and the ceiling (a cave), each with 0.01 of margin. Returns where the ray
// leaves the air after t (exit when it stays in it; t when it is not in the air at t) and, in *next, where it is
// next in the air after that (exit when not before).
float cell_air(SliceRay r, vec3 v, float t, float exit, out float next) {
    const float m = 0.01;
    float dz = r.dir.z, z0 = r.o.z + dz * t;
    float top = v.x + m, lo = v.y + m, hi = v.z - m;
    bool cave = lo < hi;
    // the t at which the ray is at height h (exit when it never gets there after t)
    #define AT(h) (dz != 0.0 ? clamp((h - r.o.z) / dz, t, exit) : exit)
    next = exit;
    if (z0 > top) return dz < 0.0 ? AT(top) : exit;
    if (cave && z0 > lo && z0 < hi) return dz < 0.0 ? AT(lo) : dz > 0.0 ? AT(hi) : exit;
    // not in the air at t: a descending ray may sink into the cave from above it, a rising one climb into the
    // cave from below it or over the top
    if (dz < 0.0 && cave && z0 >= hi) next = AT(hi);
    if (dz > 0.0) next = cave && z0 <= lo ? AT(lo) : AT(top);
    #undef AT
    return t;
}

// Texel c's value as a cell's: its top, its floor top and its cave ceiling (256 when it has none).
vec3 texel_cell(ivec2 c) {
    Surface q = surface_at(c);
    return vec3(max(q.low, q.high), q.low, q.dual ? q.mid : 256.0);
}

// The air from t on: the end of the longest stretch [t, end) over which no point the raster variant samples can
// be SOLID, up to t_limit. It walks the air tables' cells along the ray — a 64×64 cell while the ray stays in its
// air over the whole stretch, else its 16×16 cells, else their 4×4 cells, else their texels — and ends where the
// ray first leaves the air of a texel. A float sample can land a little off the exact line: the tables' cells
// hold for a texel around them, and a texel is taken together with those within e of the stretch (its
// neighbours where the stretch touches them). *t_block: where the ray is next in that texel's air (no sooner is
// the air looked for again).
float clear_until(SliceRay r, float t, float t_limit, float e, out float t_block) {
    vec2 d = mix(r.dir.xy, vec2(1e-12), lessThan(abs(r.dir.xy), vec2(1e-12))), inv = 1.0 / d;
    vec2 ahead = 1e-3 * normalize(d); // at a cell boundary, take the cell the ray goes on into
    float parent_exit[4] = float[4](t_limit, t_limit, t_limit, t_limit);
    int level = 3; // 3, 2, 1: the tables 2, 1, 0; 0: texels
    ivec2 key0 = ivec2(0x7FFFFFFF), key1 = key0, key2 = key0;
    vec3 val0 = vec3(0.0), val1 = val0, val2 = val0;
    t_block = t;
    for (int i = 0; i < 256 && t < t_limit; i++) {
        float side = level > 0 ? float(slice_cell_side(level - 1)) : 1.0;
        vec2 p = r.o.xy + r.dir.xy * t;
        ivec2 c = ivec2(floor((p + ahead) / side));
        float exit = min(cell_exit(r, c, side, d, inv), parent_exit[level]);
        if (!(exit > t)) break; // no progress in float: the air ends here
        vec3 v;
        if (level > 0) {
            v = slice_cell(c, level - 1);
        } else { // the texels within e of the stretch: its own and where it touches them, the neighbours
            vec2 q = r.o.xy + r.dir.xy * exit;
            ivec2 lo = ivec2(floor(min(p, q) - e)), hi = ivec2(floor(max(p, q) + e));
            v = vec3(0.0, 0.0, 256.0);
            if (any(greaterThan(hi - lo, ivec2(2)))) v = vec3(256.0, 256.0, 0.0); // never: no air claimed
            for (int y = lo.y; y <= min(hi.y, lo.y + 2); y++)
                for (int x = lo.x; x <= min(hi.x, lo.x + 2); x++) {
                    // consecutive stretches share most of these texels: the last three are remembered
                    ivec2 k = ivec2(x, y);
                    vec3 w;
                    if (k == key0) w = val0;
                    else if (k == key1) w = val1;
                    else if (k == key2) w = val2;
                    else {
                        w = texel_cell(k);
                        key2 = key1, val2 = val1, key1 = key0, val1 = val0, key0 = k, val0 = w;
                    }
                    v = vec3(max(v.xy, w.xy), min(v.z, w.z));
                }
        }
        float next;
        float end = cell_air(r, v, t, exit, next);
        if (end >= exit) { // clear over the whole stretch
            t = exit;
            while (level < 3 && t >= parent_exit[level]) level++; // out of the parent cell: a coarser look
            continue;
        }
        if (level > 0) { // a finer look inside this cell
            parent_exit[level - 1] = exit;
            level--;
            continue;
        }
        t_block = end > t ? exit : next;
        return end;
    }
    t = min(t, t_limit);
    t_block = max(t_block, t);
    return t;
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    int w = int(g.screen_right.w);
    if (px.x >= w || px.y >= int(g.screen_up.w)) return;
    SliceRay r = slice_ray(vec2(px) + 0.5);
    uvec2 result = uvec2(SLICE_NONE, SLICE_NONE);
    float near = g.level_info.z, far = g.eye.w;
    if (r.dir.z != 0.0) {
        bool down = r.dir.z < 0.0;
        uint n = down ? pc.n_below : pc.n_above;
        // skip the planes behind the near plane at once (less one, for rounding); the loop decides exactly
        float z_near = r.o.z + r.dir.z * (near / r.cos_axis);
        float before = down ? (pc.z_below - z_near) / pc.dz : (z_near - pc.z_above) / pc.dz;
        uint k = before > 1.0 ? uint(min(before, float(n))) - 1u : 0u;
        // [air_a, air_b): a stretch of the ray known to be above the terrain; no sooner than t_block can one
        // start again after a blocked cell
        float air_a = 0.0, air_b = 0.0, t_block = 0.0;
        // how far off the exact line a float sample of the ray can land in xy
        float e = 2e-3 + 4e-7 * (abs(r.o.x) + abs(r.o.y) + r.t_far);
        for (; k < n; k++) {
            float plane_z = down ? pc.z_below - float(k) * pc.dz : pc.z_above + float(k) * pc.dz;
            float t0 = slice_plane_t(r, plane_z);
            float view_z = t0 * r.cos_axis;
            if (view_z > far) break; // this plane and every later one lie beyond the far plane
            if (view_z < near) continue;
            float t1 = slice_band_end(r, t0, pc.dz);
            if (t0 >= air_b && t0 >= t_block) {
                air_a = t0;
                air_b = clear_until(r, t0, r.t_far, e, t_block);
            }
            if (t0 >= air_a && t1 < air_b - 1e-3) {
                // every point of this band is in the air, and so are those of the planes up to the air's end: the
                // bands of planes before j end at the plane j, so jump to one plane short of that, for rounding
                float z_end = r.o.z + r.dir.z * (air_b - 1e-3);
                float last = (down ? pc.z_below - z_end : z_end - pc.z_above) / pc.dz - 2.0;
                if (last > float(k) + 1.0) k = uint(min(last, float(n)));
                continue;
            }
            vec2 xy = r.o.xy + r.dir.xy * t0;
            if (any(lessThan(xy, pc.bounds.xy)) || any(greaterThan(xy, pc.bounds.zw))) continue;
            bool on_plane;
            float hit = slice_band(r, plane_z, k == 0u, pc.dz, pc.max_steps, on_plane);
            if (hit >= 0.0) {
                result = uvec2(floatBitsToUint(hit), on_plane ? floatBitsToUint(plane_z) : SLICE_NONE);
                break;
            }
        }
    }
    slice_vis[px.y * w + px.x] = result;
}
