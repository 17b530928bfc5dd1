// Sliced in compute (slice_compute.comp, slice_resolve.comp): the method's buffers (set 1) and the push constants
// its passes share. Requires globals.glsl and surface.glsl.

// Mirror of slice_compute_push in src/render/methods/slice.c (the raster variant's SlicePush)
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
    uint flags;      // bit 2: the bands fetch the samples the walk found in the air too (tests); bits 3..4: the walk's
                     // finest look (air_clear_until's `finest`); the work is counted by a pipeline of its own
                     // (slice_compute.comp's SLICE_COUNT)
    uint pad2, pad3, pad4;
} pc;

// per pixel: the refined hit's distance along the ray (bits; 0xFFFFFFFF = nothing) and, when the hit is a
// plane's own point, that plane's height (bits; 0xFFFFFFFF = not on a plane)
layout(set = 1, binding = 0, std430) buffer SliceVisibility { uvec2 slice_vis[]; };

// the air tables (air_tables.glsl) at binding 1
#define AIR_TABLES_SET 1
#define AIR_TABLES_BINDING 1
#include "air_tables.glsl"

// the frame's work when counted (st_slice_compute_work): pixels, band samples fetched, bands sampled, walks, cells
// walked, texels fetched by the walks
layout(set = 1, binding = 2, std430) buffer SliceWork { uint slice_work[]; };

const uint SLICE_NONE = 0xFFFFFFFFu;
