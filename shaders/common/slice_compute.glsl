// Sliced in compute (slice_max.comp, slice_compute.comp, slice_resolve.comp): the method's buffers (set 1) and
// the push constants its passes share. Requires globals.glsl.

// Mirror of slice_compute_push in src/render/methods/slice.c (the raster variant's SlicePush, then the max
// pass's region)
layout(push_constant) uniform SliceComputePush {
    vec4 bounds;     // x0, y0, x1, y1 of the planes (the raster variant's quads)
    float z_below;   // height of the first plane under the eye
    float z_above;   // height of the first plane over the eye
    float dz;        // plane spacing
    float pad0;
    uint n_below;
    uint n_above;
    uint max_steps;  // samples per band at most
    uint pad1;
    ivec4 region;    // slice_max.comp: the cells to rebuild, x0, y0, width, height
    ivec4 level;     // slice_max.comp: .x the table (0, 1, 2)
} pc;

// per pixel: the refined hit's distance along the ray (bits; 0xFFFFFFFF = nothing) and, when the hit is a
// plane's own point, that plane's height (bits; 0xFFFFFFFF = not on a plane)
layout(set = 1, binding = 0, std430) buffer SliceVisibility { uvec2 slice_vis[]; };
// The air tables: per cell of 4×4 (table 0), 16×16 (table 1) and 64×64 texels (table 2), over the cell grown by
// one texel on every side (wrapping with the level): the highest solid top (bits 0..7), the highest floor top
// (bits 8..15: a single texel's height, a dual one's low) and the lowest cave ceiling (bits 16..24, a dual
// texel's mid; 256 when there is none). A point above the first, or between the second and the third, is not
// SOLID anywhere within a texel of the cell — the margin that keeps a float sample of a ray, which can land a
// little off the exact line, inside what was checked.
layout(set = 1, binding = 1, std430) buffer SliceAir { uint slice_air[]; };

const uint SLICE_NONE = 0xFFFFFFFFu;

// texels per side of a cell of table `level`
int slice_cell_side(int level) { return level == 0 ? 4 : level == 1 ? 16 : 64; }
ivec2 slice_table_size(int level) { return max(ivec2(g.level_info.xy) / slice_cell_side(level), ivec2(1)); }
int slice_table_base(int level) {
    ivec2 s0 = slice_table_size(0), s1 = slice_table_size(1);
    return level == 0 ? 0 : level == 1 ? s0.x * s0.y : s0.x * s0.y + s1.x * s1.y;
}
uint slice_pack(uint top, uint floor_top, uint ceiling) { return top | (floor_top << 8) | (ceiling << 16); }

// Cell c (wrapped) of table `level`: (highest top, highest floor top, lowest ceiling).
vec3 slice_cell(ivec2 c, int level) {
    ivec2 size = slice_table_size(level);
    c &= size - 1; // power-of-two sizes
    uint w = slice_air[slice_table_base(level) + c.y * size.x + c.x];
    return vec3(float(w & 255u), float((w >> 8) & 255u), float(w >> 16));
}
