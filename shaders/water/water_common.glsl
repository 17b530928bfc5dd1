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
    vec4 shore;          // xy: O − the shore grid's sample (0, 0) (units); z: samples per unit; w unused
    vec4 shoal[8];       // per Gerstner wave or cascade: ω, far wavenumber (rad/m), amplitude (m), far group speed
} water;

layout(set = 1, binding = 1) uniform sampler2D scene_color;      // the terrain's colour, linear (sRGB view)
layout(set = 1, binding = 2) uniform sampler2D scene_depth;      // the terrain's reverse-Z depth
layout(set = 1, binding = 3) uniform sampler2DArray ocean_disp;  // per cascade (λDx, λDy, h, J), metres; texelFetch
layout(set = 1, binding = 4) uniform sampler2DArray ocean_surf;  // per cascade (sx, sy, sx²+sy², foam), mipmapped
layout(set = 1, binding = 5) uniform sampler2DArray shore_tex;   // the shore: depth (m), normal x, y, F (m) per wave

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

// ---- the shore (the twin of st_shore_local_at, src/water/shore.c) -----------------------------------

const float WATER_G = 9.81;
const float WATER_BREAKING = 0.78; // ST_WATER_BREAKING

// The wavenumber (rad/m) of ω over d metres of water: Guo's fit, then Newton (st_water_wavenumber).
float water_wavenumber(float omega, float d) {
    float k0 = omega * omega / WATER_G;
    if (d <= 0.0 || k0 * d > 10.0) return k0;
    float x = omega * sqrt(d / WATER_G);
    float k = x * x * pow(1.0 - exp(-pow(x, 2.5)), -0.4) / d;
    for (int i = 0; i < 2; i++) {
        float th = tanh(k * d);
        k -= (WATER_G * k * th - omega * omega) / (WATER_G * (th + k * d * (1.0 - th * th)));
    }
    return k;
}

// The group speed dω/dk at k over d metres.
float water_group(float k, float d) {
    float th = tanh(k * d);
    return WATER_G * (th + k * d * (1.0 - th * th)) / (2.0 * sqrt(WATER_G * k * th));
}

// What the shore makes of each wave at a rest point: its wavenumber ratio k(d)/k_far, shoaling coefficient and
// phase offset F (m); the surf zone's hold of every amplitude, the breaking ratio H/(0.78·d).
struct WaterShore {
    float depth, hold, breaking, height;
    vec2 normal;
    float ratio[8], ks[8], f[8];
};

WaterShore water_shore_at(vec2 rest) {
    WaterShore s;
    s.depth = 0.0;
    s.hold = 1.0;
    s.breaking = 0.0;
    s.height = 0.0;
    s.normal = vec2(0.0);
    for (int i = 0; i < 8; i++) {
        s.ratio[i] = 1.0;
        s.ks[i] = 1.0;
        s.f[i] = 0.0;
    }
    if ((water.info.w & 4u) == 0u) return s;
    vec2 tc = ((rest + water.shore.xy) * water.shore.z + 0.5) / vec2(textureSize(shore_tex, 0).xy);
    s.depth = texture(shore_tex, vec3(tc, 0.0)).r;
    s.normal = vec2(texture(shore_tex, vec3(tc, 1.0)).r, texture(shore_tex, vec3(tc, 2.0)).r);
    uint count = water.info.x == 1u ? water.info.y : water.info.z;
    float sum = 0.0;
    for (uint i = 0u; i < count; i++) {
        vec4 w = water.shoal[i];
        s.f[i] = texture(shore_tex, vec3(tc, float(3u + i))).r;
        float kl = s.depth > 0.0 ? max(water_wavenumber(w.x, s.depth), w.y) : w.y;
        s.ratio[i] = kl / w.y;
        s.ks[i] = s.depth > 0.0 ? sqrt(w.w / water_group(kl, s.depth)) : 1.0;
        float a = w.z * s.ks[i];
        sum += a * a;
    }
    float h = 2.0 * sqrt(sum), limit = WATER_BREAKING * max(s.depth, 0.0);
    s.height = h;
    s.breaking = limit > 0.0 ? h / limit : (h > 0.0 ? 1e9 : 0.0);
    s.hold = h > limit ? (h > 0.0 ? limit / h : 0.0) : 1.0;
    return s;
}

// ---- Gerstner (the twin of st_gerstner_displace, src/water/gerstner.c), in world units ----------------

// Wave i over the shore: its direction turned toward the shore normal (the phase offset's gradient), the length
// of that turned wave vector relative to k, and its amplitude (units) shoaled and held.
void gerstner_shoaled(uint i, WaterShore sh, out vec2 dir, out float klen, out float amp) {
    vec4 a = water.wave[2u * i];
    vec2 kv = a.xy + (sh.ratio[i] - 1.0) * dot(a.xy, sh.normal) * sh.normal;
    klen = length(kv);
    dir = kv / klen;
    amp = a.w * sh.ks[i] * sh.hold;
}

// The choppiness there: the summed λ·k·A of the shoaled waves kept under the fold, as on the CPU.
float gerstner_local_chop(WaterShore sh) {
    float q = 0.0;
    for (uint i = 0u; i < water.info.y; i++) {
        vec2 dir;
        float klen, amp;
        gerstner_shoaled(i, sh, dir, klen, amp);
        q += water.wave[2u * i].z * klen * amp;
    }
    float lambda = water.surface.z;
    return q > 0.0 && lambda * q > 0.9 ? 0.9 / q : lambda;
}

// The phase of wave i at the rest point, taken at rest − F·m̂ over the shore.
float gerstner_phase(uint i, vec2 rest, WaterShore sh) {
    vec4 a = water.wave[2u * i], b = water.wave[2u * i + 1u];
    return a.z * dot(a.xy, rest - sh.f[i] * water.surface.y * sh.normal) + b.x;
}

// Waves shorter than `cut` fade out (gone at cut, whole from twice cut): the geometry's filter.
vec3 gerstner_displacement(vec2 rest, float cut) {
    vec3 d = vec3(0.0);
    WaterShore sh = water_shore_at(rest);
    float lambda = gerstner_local_chop(sh);
    for (uint i = 0u; i < water.info.y; i++) {
        vec4 a = water.wave[2u * i];
        vec2 dir;
        float klen, amp;
        gerstner_shoaled(i, sh, dir, klen, amp);
        float f = clamp(2.0 * WATER_PI / (a.z * klen * cut) - 1.0, 0.0, 1.0);
        float th = gerstner_phase(i, rest, sh);
        d.xy += f * lambda * amp * dir * cos(th);
        d.z += f * amp * sin(th);
    }
    return d;
}
