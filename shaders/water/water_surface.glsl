// The water surface's shading (the fragment shaders' and the compute resolve's): the shared
// light, shadow map and fog with the water's own terms — Schlick Fresnel (F0 = 0.02) between the sky and the
// refracted view, the terrain below seen through depth-based absorption toward a deep blue-green, a subsurface
// glow on crests lit from behind, sun glitter from a GGX lobe whose roughness grows with the slope variance the
// filter averaged away, Jacobian foam and foam where the waves meet the shore.
// Requires globals.glsl, surface.glsl, camera.glsl, shading.glsl, water_common.glsl, and with WATER_OCEAN
// ocean_sample.glsl; WATER_GERSTNER or WATER_OCEAN picks the surface (one per shader, as for the vertices).

#ifdef WATER_GERSTNER
// Gerstner at the fragment: the slope of the displaced surface and its Jacobian, waves shorter than two
// footprints faded out and their slope variance moved into `variance`.
void gerstner_surface(vec2 rest, float footprint, WaterShore sh, out vec2 slope, out float variance, out float jac) {
    vec3 tx = vec3(1.0, 0.0, 0.0), ty = vec3(0.0, 1.0, 0.0);
    variance = 0.0;
    float lambda = gerstner_local_chop(sh);
    for (uint i = 0u; i < water.info.y; i++) {
        vec4 a = water.wave[2u * i];
        vec2 dir;
        float klen, amp;
        gerstner_shoaled(i, sh, dir, klen, amp);
        float k = a.z * klen;
        float f = clamp(2.0 * WATER_PI / (k * 2.0 * footprint) - 1.0, 0.0, 1.0);
        float th = gerstner_phase(i, rest, sh), s = sin(th), c = cos(th);
        float ka = f * k * amp;
        tx += vec3(-lambda * ka * dir.x * dir.x * s, -lambda * ka * dir.x * dir.y * s, ka * dir.x * c);
        ty += vec3(-lambda * ka * dir.x * dir.y * s, -lambda * ka * dir.y * dir.y * s, ka * dir.y * c);
        variance += (1.0 - f) * 0.5 * (k * amp) * (k * amp);
    }
    vec3 n = cross(tx, ty);
    slope = -n.xy / max(n.z, 0.05);
    jac = tx.x * ty.y - tx.y * ty.x;
}
#endif

// The sky the water reflects: the fog colour at the horizon (what the terrain's background shows) deepening
// toward the zenith.
vec3 water_sky(vec3 r) {
    return mix(g.fog.rgb, water.sky_zenith.rgb, smoothstep(0.0, 0.7, max(r.z, 0.0)));
}

// The pixel a world point projects to.
vec2 water_project(vec3 q) {
    vec4 c = g.view_proj * vec4(q, 1.0);
    return (c.xy / c.w * 0.5 + 0.5) * vec2(g.screen_right.w, g.screen_up.w);
}

// The water's own colour, lit: what scatters back out of deep water.
vec3 water_deep_lit() {
    return water.deep.rgb * (g.light.w + (1.0 - g.light.w) * max(g.light.z, 0.0));
}

// What an eye under the surface sees of a point `dist` away through the water: its colour absorbed toward the
// water's own.
vec3 water_through(vec3 color, float dist) {
    vec3 T = exp(-water.absorb.rgb * dist);
    return color * T + water_deep_lit() * (1.0 - T);
}

// The surface seen from below at p (slope of the surface there): inside Snell's window (48.6° about the normal)
// the sky refracted in, less the Fresnel reflection of the water; outside it the total internal reflection of the
// water's own colour; then the path back to the eye.
vec3 water_underside(vec3 p, vec2 slope) {
    vec3 nu = normalize(vec3(-slope, 1.0));
    vec3 d = normalize(p - g.eye.xyz); // up toward the surface
    vec3 t = refract(d, nu, 1.333);
    vec3 color = water_deep_lit();
    if (dot(t, t) > 0.0) { // inside the window
        float ct = max(dot(t, nu), 0.0);
        float F = 0.02 + 0.98 * pow(1.0 - ct, 5.0); // Schlick from the denser side: the transmitted angle's cosine
        color = mix(water_sky(t), color, F);
    }
    return water_through(color, distance(p, g.eye.xyz));
}

// The colour (linear) of the surface point p seen through pixel position px (its centre), at reverse-Z depth
// depth_out; rest is p's rest point (relative to O) and drdx, drdy its change to the next pixel along x and y.
// from_below: the eye is under the water (the compute resolve's underwater look; the raster pipeline shades the
// underside as the top with its normal turned).
vec3 water_shade(vec2 px, vec3 p, float depth_out, vec2 rest, vec2 drdx, vec2 drdy, bool from_below) {
    float footprint = max(length(abs(drdx) + abs(drdy)), 1e-4); // fwidth's measure
    vec2 slope;
    float variance, foam;
    WaterShore sh = water_shore_at(rest);
#ifdef WATER_GERSTNER
    float jac;
    gerstner_surface(rest, footprint, sh, slope, variance, jac);
    foam = smoothstep(0.8, 0.25, jac); // no persistence without a simulation
#else
    ocean_surface(rest, drdx, drdy, sh, slope, variance, foam);
#endif
    if (from_below) return water_underside(p, slope);
    vec3 n = normalize(vec3(-slope, 1.0));
    vec3 v = normalize(g.eye.xyz - p);
    if (g.eye.z < p.z) n = -n; // seen from below
    float nv = max(dot(n, v), 1e-3);
    vec3 l = g.light.xyz;
    float ambient = g.light.w;
    float vis = shadow_lookup(p, vec3(0.0, 0.0, 1.0));
    float sun = (1.0 - ambient) * vis; // the sun's share of the shared lighting, shadowed
    // reflection: Fresnel between the sky and what lies below
    float F = 0.02 + 0.98 * pow(1.0 - nv, 5.0);
    vec3 reflected = water_sky(reflect(-v, n));
    // below: the terrain behind the pixel (unless it only stands for the water), through the water's path
    vec3 deep = water.deep.rgb * (ambient + sun * max(l.z, 0.0));
    vec3 below = deep;
    float d_scene = texelFetch(scene_depth, ivec2(px), 0).r;
    float shore = 0.0, pixel_depth = -1.0;
    if (d_scene > 0.0) {
        vec3 t = point_from_depth(px, d_scene);
        if (!water_stand_in(t)) {
            float d_vert = max(p.z - t.z, 0.0);
            pixel_depth = d_vert / water.surface.y; // metres
            // refraction: look up the terrain a little along the slope, unless that pixel's terrain is in front
            vec2 px2 = water_project(t + vec3(slope, 0.0) * (water.absorb.w * min(d_vert, 4.0)));
            vec2 size = vec2(g.screen_right.w, g.screen_up.w);
            float d2 = texelFetch(scene_depth, ivec2(clamp(px2, vec2(0.0), size - 1.0)), 0).r;
            vec2 use = px;
            if (d2 > 0.0 && d2 < depth_out && !water_stand_in(point_from_depth(px2, d2))) {
                use = px2;
                t = point_from_depth(px2, d2);
            }
            vec3 terrain = texelFetch(scene_color, ivec2(use), 0).rgb;
            float path = distance(p, t);
            vec3 T = exp(-water.absorb.rgb * path);
            below = terrain * T + deep * (1.0 - T);
            float w = water.foam.w;
            if (w > 0.0 && (water.info.w & 4u) == 0u) { // without a shore: a band of the shallowest water
                float edge = 1.0 - smoothstep(0.0, w, d_vert);
                float ripple = 0.55 + 0.45 * sin(6.0 * d_vert / w - 1.7 * water.surface.w + 3.0 * (slope.x - slope.y));
                shore = edge * ripple;
            }
        }
    }
    // the surf: where the local wave height passes 0.78 of the depth the waves break, foaming on their crests
    // (by the pixel's own depth where its bed is seen: the shore's samples may be coarser than the banks)
    float breaking = pixel_depth >= 0.0 ? sh.height / max(WATER_BREAKING * pixel_depth, 1e-6) : sh.breaking;
    if ((water.info.w & 4u) != 0u && breaking > 1.0) {
        float crest_up = clamp(0.5 + (p.z - water.surface.x) / max(water.origin.w, 1e-3), 0.0, 1.0);
        shore = smoothstep(1.0, 2.0, breaking) * (0.2 + 0.8 * crest_up * crest_up);
    }
    vec3 color = mix(below, reflected, F);
    // subsurface: thin crests lit from behind glow blue-green
    float crest = clamp((p.z - water.surface.x) / max(2.0 * water.origin.w, 1e-3), 0.0, 1.0);
    float behind = max(dot(v, -l), 0.0);
    color += water.scatter.rgb * water.scatter.w * crest * (0.2 + 0.8 * behind * behind) * (ambient + sun) * (1.0 - F);
    // glitter: GGX with the unresolved slope variance in the roughness
    float alpha2 = water.sky_zenith.w * water.sky_zenith.w + 2.0 * variance;
    vec3 h = normalize(l + v);
    float nh = max(dot(n, h), 0.0), nl = max(dot(n, l), 0.0);
    float dd = nh * nh * (alpha2 - 1.0) + 1.0;
    float D = alpha2 / (WATER_PI * dd * dd);
    float k = 0.5 * sqrt(alpha2);
    float G = nl / (nl * (1.0 - k) + k) * nv / (nv * (1.0 - k) + k);
    float Fh = 0.02 + 0.98 * pow(1.0 - max(dot(v, h), 0.0), 5.0);
    color += vec3(D * G * Fh / (4.0 * nv)) * WATER_PI * sun; // the sun's irradiance in the shared light: (1 − ambient)·π
    // foam: the Jacobian's and the shore's
    float cover = clamp(max(foam, shore), 0.0, 1.0);
    vec3 foam_lit = water.foam.rgb * (ambient + sun * max(dot(vec3(0.0, 0.0, 1.0), l), 0.0));
    color = mix(color, foam_lit, 0.9 * cover);
    // the shared fog
    float f = smoothstep(g.eye.w - g.fog.w, g.eye.w, length(p.xy - g.eye.xy));
    return mix(color, g.fog.rgb, f);
}
