// WGSL port of shaders/common/globals.glsl (the web build's form: the level texture in pieces of 8192 rows,
// no materials, no shadow map): the per-frame globals and the level texture (group 0). Mirrors st_globals_gpu.
// Kept beside its GLSL source by hand (no GLSL to WGSL translator is available to the build); web/test_web.py
// holds every WGSL method to its native twin's image.
struct Globals {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,          // xyz, far distance
    forward: vec4<f32>,      // xyz, focal length in pixels
    screen_right: vec4<f32>, // xyz, width in pixels
    screen_up: vec4<f32>,    // xyz, height in pixels
    level_info: vec4<f32>,   // W, H, near distance, top (nothing is solid above)
    light: vec4<f32>,        // direction toward the sun, ambient term
    fog: vec4<f32>,          // linear rgb, fog band width
    knobs: vec4<u32>,        // ray steps, terrain types (8|16), frame index, bounded axes (bit 0 x, bit 1 y)
    albedo: array<vec4<f32>, 16>,
    shadow_u: vec4<f32>,
    shadow_v: vec4<f32>,
    shadow_d: vec4<f32>,
    shadow_info: vec4<f32>,  // resolution, enabled, depth bias, normal offset
    shadow_wrap: vec4<f32>,
    material_info: vec4<u32>,
    material_origin: vec4<f32>,
    material_mean: array<vec4<f32>, 32>,
    pages_info: vec4<u32>, // paged terrain (native only): zeros here
}

@group(0) @binding(0) var<uniform> g: Globals;
// (h_even, m_even, h_odd, m_odd) per texel pair, in layers of TERRAIN_PIECE_ROWS rows (ST_TERRAIN_PIECES)
@group(0) @binding(1) var terrain: texture_2d_array<u32>;

const TERRAIN_PIECE_SHIFT: u32 = 13u;
const TERRAIN_PIECE_ROWS: i32 = 8192;
const LEVEL_BOUNDED_X: u32 = 1u;
const LEVEL_BOUNDED_Y: u32 = 2u;
