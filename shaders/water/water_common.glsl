// The water pass's set 1 (src/render/passes/water.c mirrors the block as water_ubo) and what every water
// shader shares: the reconstruction of the terrain point behind a pixel, the stand-in test, the Gerstner twin.
// Requires globals.glsl, surface.glsl and camera.glsl.

layout(set = 1, binding = 0, std140) uniform Water {
    vec4 surface;    // mean level (units), 1 / metres per unit, choppiness λ applied, loop time (s)
    vec4 grid;       // finest spacing (units), cells per ring side, morph band (cells), geometry cut (spacing × this)
    vec4 origin;     // xy the frame's origin O (world); z the ring count; w rms wave height (units)
    uvec4 info;      // mode (1 Gerstner, 2 ocean), waves, cascades, flags (1 storage targets, 2 a DEM store)
    vec4 deep;       // upwelling colour of deep water (linear); w unused
    vec4 absorb;     // absorption per unit of path (linear rgb); w refraction offset (pixels per unit)
    vec4 scatter;    // subsurface colour; w strength
    vec4 sky_zenith; // sky straight up (linear); w base roughness (GGX α)
    vec4 foam;       // foam albedo; w shore foam width (units)
    vec4 wave[16];   // Gerstner: [2i] (dir.x, dir.y, k per unit, A units), [2i+1] (phase at O now, ω, Q, 0)
    vec4 cascade[4]; // ocean: patch (units), uv of O (frac, x and y), texel (units)
    vec4 ring[16];       // compute rasteriser: per ring its lower corner (relative to O), spacing, morph (0/1)
    uvec4 ring_tris[16]; // compute rasteriser: per ring its first frame-wide triangle, first index, triangles
} water;

layout(set = 1, binding = 1) uniform sampler2D scene_color;      // the terrain's colour, linear (sRGB view)
layout(set = 1, binding = 2) uniform sampler2D scene_depth;      // the terrain's reverse-Z depth
layout(set = 1, binding = 3) uniform sampler2DArray ocean_disp;  // per cascade (λDx, λDy, h, J), metres; texelFetch
layout(set = 1, binding = 4) uniform sampler2DArray ocean_surf;  // per cascade (sx, sy, sx²+sy², foam), mipmapped

const float WATER_PI = 3.14159265358979;

// Distance from the eye along the view axis of a reverse-Z depth (the inverse of depth_from_view_z).
float view_z_from_depth(float d) {
    float n = g.level_info.z, f = g.eye.w;
    return n * f / (d * (f - n) + n);
}

// The world point a pixel's depth stands for.
vec3 point_from_depth(vec2 px, float d) {
    return g.eye.xyz + pixel_dir(px) * (view_z_from_depth(d) / g.forward.w);
}

// A texel of material 0 at or just below the water level stands for the water's surface (Vangers rivers,
// a DEM's sea at sea level), not for its bed: the water is deep there and the stand-in hides nothing. Only the
// texel's top counts (a point on the side of a bank beside it is the bank). A DEM store has no materials: a
// point at or less than a unit below the sea level is taken for a sea flattened to it (a DEM's sea is often
// its sea level, or just under it); a bed deeper than that is a bed.
bool water_stand_in(vec3 p) {
    if ((water.info.w & 2u) != 0u) return p.z <= water.surface.x + 0.01 && p.z >= water.surface.x - 1.0;
    Surface s = surface_at(ivec2(floor(p.xy)));
    bool upper = !s.dual || p.z >= s.mid;
    uint type = upper ? s.high_type : s.low_type;
    float top = upper ? s.high : s.low;
    return type == 0u && top <= water.surface.x + 0.01 && top >= water.surface.x - 1.0 && abs(p.z - top) < 0.3;
}

// ---- Gerstner (the twin of st_gerstner_displace, src/water/gerstner.c), in world units ----------------

// Waves shorter than `cut` fade out (gone at cut, whole from twice cut): the geometry's filter.
vec3 gerstner_displacement(vec2 rest, float cut) {
    vec3 d = vec3(0.0);
    for (uint i = 0u; i < water.info.y; i++) {
        vec4 a = water.wave[2u * i], b = water.wave[2u * i + 1u];
        float f = clamp(2.0 * WATER_PI / (a.z * cut) - 1.0, 0.0, 1.0);
        float th = a.z * dot(a.xy, rest) + b.x;
        d.xy += f * water.surface.z * a.w * a.xy * cos(th);
        d.z += f * a.w * sin(th);
    }
    return d;
}
