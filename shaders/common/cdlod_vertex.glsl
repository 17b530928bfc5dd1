// CDLOD's vertex (cdlod, cdlod-compute): the selected nodes and their instances, and the position of a grid
// vertex — its height read from the node's tile, its distance to the eye giving the morph factor k, odd grid
// coordinates sliding by k onto their even neighbour below (at k = 1 the grid is the next coarser one) and the
// height read again there. The C twin is st_lod_vertex (src/tiles/lod.c). Requires globals.glsl, tile_world.glsl.

// Mirror of cdlod_node_gpu in src/render/methods/cdlod.c: one selected node.
struct CdlodNode {
    ivec2 corner;     // finest-sample index of grid vertex (0, 0), from the frame's anchor
    ivec2 tex_origin; // finest-sample index of sample (0, 0) of the tile its heights come from, from the anchor
    uint level;       // its LOD level: grid step 2^level finest samples, morph band
    uint tile_level;  // the level of that tile (its own, or an ancestor's while its own loads)
    uint slot;        // that tile's slot
    float skirt;      // skirt depth, metres
};

layout(set = 1, binding = 4, std430) readonly buffer Nodes { CdlodNode nodes[]; };
// patch instances (node << 4 | quadrant), then skirt instances (node << 4 | 4·quadrant + side)
layout(set = 1, binding = 5, std430) readonly buffer Instances { uint instances[]; };

// Every value a vertex's position depends on is `precise` (no fused multiply-add): the compute variant computes a
// shared vertex in several inlined copies of this function (one per triangle corner), the raster variant once per
// vertex, and a compiler free to fuse some copies and not others would give neighbouring triangles different bits
// for their shared corner — a crack the compute rasteriser's exact test lets far terrain through.

// Finest-sample index (from the anchor) of grid coordinate g of node n, clamped where the world ends.
vec2 cdlod_index(CdlodNode n, vec2 g) {
    precise vec2 i = vec2(n.corner) + g * float(1u << n.level);
    return min(i, frame.extent.xy);
}

float cdlod_height_at(CdlodNode n, vec2 idx) {
    precise vec2 uv = (idx - vec2(n.tex_origin)) * exp2(-float(n.tile_level));
    precise float h = slot_height_exact(n.slot, uv);
    return h;
}

// The vertex at grid coordinate g (integers, 0..N) of node n, relative to the eye; k gets its morph factor.
vec3 cdlod_vertex(CdlodNode n, vec2 g, out float k) {
    vec2 idx = cdlod_index(n, g);
    precise vec3 p = vec3(idx * frame.spacing.xy - frame.spacing.zw, cdlod_height_at(n, idx));
    vec4 b = frame.bands[n.level];
    precise float kk = clamp((length(p) - b.x) * b.z, 0.0, 1.0);
    k = kk;
    precise vec2 m = g - fract(g * 0.5) * 2.0 * kk;
    idx = cdlod_index(n, m);
    precise vec3 q = vec3(idx * frame.spacing.xy - frame.spacing.zw, cdlod_height_at(n, idx));
    return q;
}

// Grid coordinate of vertex t (0..N/2) along skirt side `side` of quadrant q (side 0 low y, 1 high x, 2 high y,
// 3 low x).
vec2 cdlod_skirt_grid(uint q, uint side, uint t) {
    uint half_n = frame.info.y / 2u;
    uvec2 base = uvec2(q & 1u, q >> 1) * half_n;
    if (side == 0u) return vec2(base + uvec2(t, 0u));
    if (side == 1u) return vec2(base + uvec2(half_n, t));
    if (side == 2u) return vec2(base + uvec2(t, half_n));
    return vec2(base + uvec2(0u, t));
}

// A colour per LOD level for the wireframe overlay (level 0 red, then orange, yellow, green, cyan, ...).
vec3 cdlod_level_color(uint level) {
    const vec3 c[8] = vec3[8](vec3(0.9, 0.1, 0.1), vec3(0.95, 0.5, 0.05), vec3(0.95, 0.9, 0.1), vec3(0.2, 0.8, 0.2),
                              vec3(0.1, 0.8, 0.9), vec3(0.2, 0.3, 0.95), vec3(0.7, 0.2, 0.9), vec3(0.95, 0.95, 0.95));
    return c[level % 8u];
}

// Shading of a surface point p (relative to the eye) of node n: the normal of the node's tile surface there
// (its bilinear patch's slope), the height, the sun's visibility from the march over the finest tiles.
vec3 cdlod_shade(CdlodNode n, vec3 p) {
    vec2 idx = (p.xy + frame.spacing.zw) / frame.spacing.xy;
    float scale = exp2(-float(n.tile_level));
    vec2 grad;
    slot_height(n.slot, (idx - vec2(n.tex_origin)) * scale, grad);
    vec2 slope = grad * scale / frame.spacing.xy; // metres per metre
    vec3 normal = normalize(vec3(-slope, 1.0));
    float vis = world_sun_visibility(p, normal);
    return dem_shade(p, p.z + frame.eye_world.x, normal, vis, frame.extent.z, frame.extent.w);
}
