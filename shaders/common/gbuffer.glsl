// The G-buffer of the raster methods' textured frames (src/render/passes/deferred.c): what a fragment would have
// shaded, kept for one compute pass that shades each pixel once (deferred_shade.comp). Image 0 (RGBA32F): the
// surface point the shading takes (xyz) and what it is (w, below; the clear, GBUFFER_NONE, is the sky); image 1
// (RGBA32F, with the mesh methods only): the geometric normal, facing the eye, in full float (rounded to half floats
// it moved 1.6 % of a mesh view's textured pixels by more than 8 levels from the forward shading's).

const float GBUFFER_NONE = -1.0; // no surface: the fog colour
// w = 0, 1, 2: a fitted mesh's point of that layer (st_mesh_layer), shaded by mesh_shade with image 1's normal
const float GBUFFER_COLUMN = 3.0; // a point on a face of the texel column it lies in, shaded by shade_point with the
                                  // layer's gradient normal (the ray, voxel, slice and paint methods)

// A resolve (GBUFFER_SET defined: the set index, 1 for deferred_shade.comp, 2 for a method's own after its set 1)
// reads the G-buffer and writes the shaded image, sRGB-encoded, that the pass copies onto the colour target.
#ifdef GBUFFER_SET
layout(set = GBUFFER_SET, binding = 0, rgba32f) uniform readonly image2D gbuffer_point;
layout(set = GBUFFER_SET, binding = 1, rgba32f) uniform readonly image2D gbuffer_normal;
layout(set = GBUFFER_SET, binding = 2, rgba8) uniform writeonly image2D out_color;
#endif
