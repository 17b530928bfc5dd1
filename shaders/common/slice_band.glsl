// Sliced, refined: the work of one plane for one pixel, shared by the raster variant (slice.frag, one fragment
// per plane and pixel) and the compute one (slice_compute.comp, which walks a pixel's planes nearest first).
// Each plane owns the band of the pixel's ray from where the ray crosses it to where the ray crosses the next
// plane away from the eye. The band is sampled for SOLID about a texel apart (coarser with distance, at most
// max_steps) and the first crossing bisected, so the planes turn into the true surface instead of steps of the
// plane spacing. The refined point is never nearer than the plane. Requires globals.glsl, surface.glsl and
// camera.glsl.

struct SliceRay {
    vec3 o, dir;    // the eye and the unit direction of the pixel's ray
    float cos_axis; // view depth per unit along dir
    float t_far;    // where the ray meets the far plane
};

SliceRay slice_ray(vec2 px_centre) {
    vec3 d = pixel_dir(px_centre);
    float len = length(d);
    SliceRay r;
    r.dir = d / len;
    r.cos_axis = g.forward.w / len;
    r.o = g.eye.xyz;
    r.t_far = g.eye.w / r.cos_axis;
    return r;
}

// Where the ray meets the plane at height plane_z.
float slice_plane_t(SliceRay r, float plane_z) { return (plane_z - r.o.z) / r.dir.z; }

// The end of the plane's band: one plane spacing further from the eye's height, never past the far plane. It
// is never cut short otherwise: near the eye's height (grazing rays) it gets long and its samples coarse, but no
// stretch of the ray goes unsampled.
float slice_band_end(SliceRay r, float t0, float dz) { return min(t0 + dz / abs(r.dir.z), r.t_far); }

// Samples the bands of this invocation fetched (a work count for slice-compute's counters).
uint slice_band_samples = 0u;

// The refined hit of the plane's band along the ray, or −1 for none. on_plane: the hit is the plane's own point
// (its height is then taken as exactly plane_z). [air_from, air_to): a stretch of the ray known to hold no SOLID
// point (the compute variant's air tables; empty for the raster variant): the band's samples in it are not
// fetched, which changes nothing — the samples after it, and each one's predecessor, are those of the full band.
float slice_band(SliceRay r, float plane_z, bool plane_first, float dz, uint max_steps, float air_from, float air_to,
                 out bool on_plane) {
    float t0 = slice_plane_t(r, plane_z);
    float t1 = slice_band_end(r, t0, dz);
    vec3 o = r.o, dir = r.dir;
    float hit = -1.0;
    on_plane = false;
    // The previous plane's band ended with a sample here. If that was SOLID, the previous plane drew this pixel
    // nearer, and this plane is done at the cost of one fetch — the early depth test that writing gl_FragDepth
    // may cost on some drivers. Only the first plane of a stack, or one whose previous crossing fell before the
    // near plane, has no such neighbour and keeps the point.
    if (solid(vec3(o.xy + dir.xy * t0, plane_z))) {
        float t_near = g.level_info.z / r.cos_axis;
        if (!plane_first && t0 - dz / abs(dir.z) > t_near * 1.001) return -1.0;
        hit = t0;
    }
    if (hit < 0.0 && t1 > t0) {
        // a sample about every texel, or every pixel footprint once that is wider
        float horiz = (t1 - t0) * length(dir.xy);
        float spacing = max(1.0, t0 / g.forward.w);
        uint n = uint(clamp(ceil(horiz / spacing), 1.0, float(max_steps)));
        float dt = (t1 - t0) / float(n);
        float a = t0;
        for (uint k = 1u; k <= n; k++) {
            float t = t0 + float(k) * dt;
            if (t >= air_from && t < air_to) {
                // samples k .. m−1 lie in the stretch: m the first that may not, checked on the very floats the
                // loop computes (they grow with k), so rounding cannot skip a sample past it
                uint m = uint(clamp(floor((air_to - t0) / dt), float(k), float(n + 1u)));
                if (m > k && !(t0 + float(m - 1u) * dt < air_to)) m--;
                if (m > k && !(t0 + float(m - 1u) * dt < air_to)) m = k;
                if (m > k) {
                    k = m - 1u; // the loop's step takes it to m, with the sample before it as a
                    a = t0 + float(k) * dt;
                    continue;
                }
            }
            slice_band_samples++;
            if (solid(o + dir * t)) {
                float b = t;
                for (int j = 0; j < 5; j++) {
                    float c = 0.5 * (a + b);
                    if (solid(o + dir * c)) b = c;
                    else a = c;
                }
                hit = b;
                break;
            }
            a = t;
        }
    }
    on_plane = hit == t0;
    return hit;
}

// The point a hit stands for: on the ray, at exactly the plane's height when it is the plane's own point.
vec3 slice_hit_point(SliceRay r, float hit, bool on_plane, float plane_z) {
    vec3 p = r.o + r.dir * hit;
    if (on_plane) p.z = plane_z;
    return p;
}
