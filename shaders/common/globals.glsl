// Per-frame globals and the terrain texture (set 0), shared by every method. Mirrors st_globals_gpu.
layout(set = 0, binding = 0, std140) uniform Globals {
    mat4 view_proj;
    vec4 eye;          // xyz, far distance
    vec4 forward;      // xyz, focal length in pixels
    vec4 screen_right; // xyz, width in pixels
    vec4 screen_up;    // xyz, height in pixels
    vec4 level_info;   // W, H, near distance, top (nothing is solid above)
    vec4 light;        // direction toward the sun, ambient term
    vec4 fog;          // linear rgb, fog band width
    uvec4 knobs;       // ray steps, terrain types (8|16), frame index, bounded axes (bit 0 x, bit 1 y)
    vec4 albedo[16];   // linear albedo of each material
    vec4 shadow_u;     // shadow map: u = dot(p, xyz) + w
    vec4 shadow_v;     // v = dot(p, xyz) + w
    vec4 shadow_d;     // depth along the light = dot(p, xyz) + w
    vec4 shadow_info;  // resolution, enabled, depth bias, normal offset
    vec4 shadow_wrap;  // where logical texel (0, 0) is stored: the map is toroidal (src/render/passes/shadow.c)
    uvec4 material_info;   // shading (0 flat, 1 textured), material layers, control map present, flags
    vec4 material_origin;  // xy: the world position of the shaders' origin (a store's eye), folded
    vec4 material_mean[32]; // linear mean albedo of each material; w: repeats per world unit
    uvec4 pages_info;       // paged terrain: page shift, level-0 pages along x, along y, levels (terrain_pages.info)
} g;

// material_info.w's flags (globals.h's ST_MATERIAL_INFO_*): the level's colour map is bound; the frame counts
// texture fetches per pixel instead of shading (ST_SHADING_FETCHES)
const uint MATERIAL_INFO_COLORS = 1u, MATERIAL_INFO_FETCHES = 2u;

// knobs.w: the axes along which the level does not wrap (st_level.wrap_x/wrap_y; surface.glsl says what lies past them)
const uint LEVEL_BOUNDED_X = 1u, LEVEL_BOUNDED_Y = 2u;

// (h_even, m_even, h_odd, m_odd) per texel pair
#ifdef ST_TERRAIN_PIECES
// The web build: a 2D array of pieces of TERRAIN_PIECE_ROWS rows each (WebGL2 textures stop at 8192 texels a
// side, and the default world is 16384 rows); surface.glsl's terrain_pair reads it.
const int TERRAIN_PIECE_SHIFT = 13, TERRAIN_PIECE_ROWS = 1 << TERRAIN_PIECE_SHIFT;
layout(set = 0, binding = 1) uniform usampler2DArray terrain;
#else
layout(set = 0, binding = 1) uniform usampler2D terrain;
#endif

// depth along the light of the first solid surface, per shadow texel (src/render/passes/shadow.c)
layout(set = 0, binding = 2) uniform sampler2D shadow_map;

// the materials (src/render/materials_gpu.c): albedo (sRGB) + height in alpha, and tangent-space normals, one
// layer per material, trilinear and repeating; the control map (base, overlay, blend, flags) per level texel.
// ST_NO_MATERIALS (the web build, which binds no materials) leaves them out and shades flat.
#ifndef ST_NO_MATERIALS
layout(set = 0, binding = 3) uniform sampler2DArray material_surface;
layout(set = 0, binding = 4) uniform sampler2DArray material_normal;
layout(set = 0, binding = 5) uniform usampler2D control_map;
// the level's colour map (sRGB, read as linear), one texel per level texel: the albedo of the tops where bound
layout(set = 0, binding = 8) uniform sampler2D color_map;
#endif
