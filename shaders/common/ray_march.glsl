// The height-field ray march shared by `ray` and `ray-compute`: uniform steps over the segment from the
// near to the far plane (clipped to the terrain's z range, so the end lies on z = 0 for downward rays),
// then four bisection steps; misses return the far depth (0) and the fog colour. In a level bounded along an
// axis the segment is clipped to the level first: past its edge there is nothing, not even the ground.
// Requires globals.glsl, surface.glsl, camera.glsl, shading.glsl.
//
// The _after variants take t_air, a distance before which the caller knows the ray meets nothing SOLID (ray.comp's
// tile test): the samples before it are not fetched, the first one at or past it is where the march begins. They
// are air in the full march too, so the hit, the bisection and the image are the same. RAY_COUNT_SAMPLES: the
// march counts the uniform samples it fetches into ray_samples.
#ifdef RAY_COUNT_SAMPLES
uint ray_samples = 0u;
#endif

// Distance of the first hit along the normalised ray, or -1; the samples before t_air are known to be air.
float ray_march_after(vec3 o, vec3 dir, float t0, float t1, uint steps, float t_air) {
    if (level_bounded() && !level_clip_ray(o, dir, t0, t1)) return -1.0;
    float top = g.level_info.w;
    bool ends_on_ground = false; // the segment ends on the plane z = 0, solid wherever the level is
    if (dir.z < -1e-5) {
        float t_ground = o.z / -dir.z;
        ends_on_ground = t_ground <= t1;
        t1 = min(t1, t_ground);                              // z = 0: height 0 is solid
        if (o.z > top) t0 = max(t0, (o.z - top) / -dir.z);   // nothing solid above top
    } else if (o.z + dir.z * t0 > top) {
        return -1.0;
    } else if (dir.z > 1e-5) {
        t1 = min(t1, (top - o.z) / dir.z);
    }
    if (t1 <= t0) return -1.0;
    float dt = (t1 - t0) / float(steps + 1u);
    float a = t0, b = t1;
    bool hit = false;
    // the first sample: every one before it lies before t_air, checked on the very floats the loop computes (they
    // grow with k), so rounding cannot pass a sample at or past t_air
    uint first = uint(clamp(floor((t_air - t0) / dt), 1.0, float(steps + 1u)));
    if (first > 1u && !(t0 + float(first - 1u) * dt < t_air)) first--;
    if (first > 1u && !(t0 + float(first - 1u) * dt < t_air)) first = 1u;
    for (uint k = first; k <= steps; k++) {
        float t = t0 + float(k) * dt;
#ifdef RAY_COUNT_SAMPLES
        ray_samples++;
#endif
        if (solid(o + dir * t)) {
            a = t - dt;
            b = t;
            hit = true;
            break;
        }
    }
    if (!hit) {
        // rounding can leave the clipped end a hair above z = 0: it is the ground all the same
        if (!ends_on_ground && !solid(o + dir * t1)) return -1.0;
        a = t1 - dt;
        b = t1;
    }
    for (int i = 0; i < 4; i++) {
        float c = 0.5 * (a + b);
        if (solid(o + dir * c)) b = c;
        else a = c;
    }
    return b;
}

// Distance of the first hit along the normalised ray, or -1.
float ray_march(vec3 o, vec3 dir, float t0, float t1, uint steps) {
    return ray_march_after(o, dir, t0, t1, steps, -1.0);
}

// The first hit of pixel position px's ray: the point and its reverse-Z depth; false on a miss (depth 0). s_air:
// nothing SOLID lies at eye + s·pixel_dir(px) for s < s_air (0: nothing known).
bool trace_pixel_hit(vec2 px, float s_air, out vec3 p, out float depth) {
    vec3 d = pixel_dir(px);
    float len = length(d);
    vec3 dir = d / len;
    float cos_axis = g.forward.w / len;
    float t_near = g.level_info.z / cos_axis, t_far = g.eye.w / cos_axis;
    // a hair short of s_air·len: a sample before it lies before s_air along d despite the rounding of both
    float t = ray_march_after(g.eye.xyz, dir, t_near, t_far, g.knobs.x, s_air * len * (1.0 - 1e-5));
    p = g.eye.xyz + dir * max(t, 0.0);
    depth = t < 0.0 ? 0.0 : depth_from_view_z(t * cos_axis);
    return t >= 0.0;
}

// Traces pixel position px: linear colour and reverse-Z depth (0 on a miss). s_air as trace_pixel_hit's. The hit
// is shaded on the column it lies in (a G-buffer keeps that point: gbuffer.glsl's GBUFFER_COLUMN).
void trace_pixel_after(vec2 px, float s_air, out vec3 color, out float depth) {
    vec3 p;
    if (!trace_pixel_hit(px, s_air, p, depth)) {
        color = g.fog.rgb;
        return;
    }
    color = shade_point(p, surface_at(ivec2(floor(p.xy))), vec3(0.0));
}

// Traces pixel position px: linear colour and reverse-Z depth (0 on a miss).
void trace_pixel(vec2 px, out vec3 color, out float depth) {
    trace_pixel_after(px, 0.0, color, depth);
}
