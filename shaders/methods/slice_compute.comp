#version 460
#extension GL_GOOGLE_include_directive : require
// Sliced in compute, pass 1: the raster variant's planes rasterised per pixel. A pixel meets the planes of one
// stack (those under the eye when its ray descends, over it when it rises) in order of distance, and the
// nearest plane whose band holds a hit is what the raster variant's depth test keeps (a band's hit lies within
// the band, and the bands follow each other along the ray), so the walk stops there. A plane counts where the
// raster variant would draw a fragment: its point on the ray within the planes' bounds and the near–far range.
// The band's work is the raster variant's own (slice_band.glsl). A band wholly in the air — above the highest
// terrain under it — cannot hold a SOLID sample, and is passed over unsampled, which changes nothing: the ray
// walks the air tables for stretches in the air (air_clear_until, air_tables.glsl) and jumps over the planes
// whose bands lie in them.
// Writes the visibility buffer; slice_resolve.comp shades it.
#include "globals.glsl"
#include "surface.glsl"
#include "camera.glsl"
#include "slice_band.glsl"
#include "slice_compute.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

// 1: count the work into slice_work (the pipeline of st_slice_compute_work); 0, the frames': the counters are dead
// code, folded away at pipeline creation, so they hold no registers in the frames' walk
layout(constant_id = 0) const uint SLICE_COUNT = 0u;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    int w = int(g.screen_right.w);
    if (px.x >= w || px.y >= int(g.screen_up.w)) return;
    SliceRay r = slice_ray(vec2(px) + 0.5);
    uvec2 result = uvec2(SLICE_NONE, SLICE_NONE);
    uint bands = 0u, walks = 0u; // work counts
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
                walks++;
                air_b = air_clear_until(r.o, r.dir, t0, r.t_far, e, int((pc.flags >> 3) & 3u), t_block);
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
            bands++;
            bool band_full = (pc.flags & 4u) != 0u;
            float hit = slice_band(r, plane_z, k == 0u, pc.dz, pc.max_steps, band_full ? 0.0 : air_a,
                                   band_full ? 0.0 : air_b, on_plane);
            if (hit >= 0.0) {
                result = uvec2(floatBitsToUint(hit), on_plane ? floatBitsToUint(plane_z) : SLICE_NONE);
                break;
            }
        }
    }
    slice_vis[px.y * w + px.x] = result;
    if (SLICE_COUNT != 0u) {
        atomicAdd(slice_work[0], 1u);
        atomicAdd(slice_work[1], slice_band_samples);
        atomicAdd(slice_work[2], bands);
        atomicAdd(slice_work[3], walks);
        atomicAdd(slice_work[4], air_walk_cells);
        atomicAdd(slice_work[5], air_walk_texels);
    }
}
