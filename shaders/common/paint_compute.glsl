// Painted in compute (paint_compute.comp, paint_big.comp, paint_resolve.comp): the method's buffers (set 1, with
// the tile list of paint_bars.glsl at binding 0) and push constants. The bar faces are rasterised exactly (the
// pixel ray meets the face: face_raster.glsl) into a visibility buffer of 64-bit words, reverse-Z depth bits
// over the face's id, by atomicMax: the nearest face wins, and of faces at the same depth the one the raster
// variant draws last (its ids follow the raster variant's draw order). A face larger than its box's 256 pixels is
// drawn over its own pixels on each row (face_row_span), not its box; one that covers more than
// about 256 pixels goes to a queue of jobs of 64 rows × 256 columns of its box, which paint_big.comp shares out
// among its workgroups. Requires globals.glsl, surface.glsl, paint_bars.glsl, face_raster.glsl and
// GL_EXT_shader_explicit_arithmetic_types_int64.

// Mirror of paint_compute_push in src/render/methods/paint.c
layout(push_constant) uniform PaintComputePush {
    uvec4 tile_base; // first tile of each level of detail's range in the tile list
    uvec4 first;     // first instance (block) of each level of detail; w: every instance
    uvec4 misc;      // hidden sides (0/1), invocations per dispatch row, job capacity, unused
    uvec4 phase;     // this pass's instances [x, y); z: 1 when the occlusion cells hold the earlier passes; w: the
                     // splat order (paint_compute.comp's splat4)
} pc;

// 1: count the frame's work (PAINT_COUNT_*; the pipelines of st_paint_compute_count); 0, the frames': the counters
// are dead code, folded away at pipeline creation
layout(constant_id = 0) const uint PAINT_COUNT = 0u;

layout(set = 1, binding = 1, std430) buffer PaintVisibility { uint64_t paint_vis[]; };
// words 0..2: the big pass's indirect dispatch (groups x: this pass's jobs, at most 65535), 3: jobs asked for (more
// than the capacity when it ran out), 4: faces sent to the big pass, 5: the most pixels one invocation of the bars
// pass tested, 6: jobs drawn in place for want of room, 7: the jobs of the earlier passes (this pass's start); with
// PAINT_COUNT, 8..15 count the frame's work (PAINT_COUNT_*) — the counters st_paint_compute_work reads; then the jobs,
// 4 words each: the face's id (paint_face), its first pixel x | y << 16 and its last x | y << 16 (a part of at most
// 64 rows × 256 columns of the face's box), 0.
layout(set = 1, binding = 2, std430) buffer PaintQueue { uint paint_queue[]; };
// The occlusion cells: per 8 × 8 pixels of the screen (row-major, ceil(W/8) a row), the farthest depth bits of the
// visibility buffer there after the earlier passes (paint_occlusion.comp); 0 where some pixel was not drawn.
layout(set = 1, binding = 3, std430) buffer PaintOcclusion { uint paint_cells[]; };

const uint PAINT_QUEUE_HEADER = 16u;
const uint PAINT_COUNT_BLOCKS = 8u;        // blocks built (not in a hidden tile)
const uint PAINT_COUNT_TILES_HIDDEN = 9u;  // workgroups' tiles found hidden
const uint PAINT_COUNT_FACES = 10u;        // faces with pixels on screen
const uint PAINT_COUNT_FACES_HIDDEN = 11u; // of them, found hidden before their pixels (whole faces or big jobs)
const uint PAINT_COUNT_TESTED = 12u;       // pixels tested, bars pass
const uint PAINT_COUNT_BIG_TESTED = 13u;   // pixels tested, big pass
const uint PAINT_COUNT_ATOMICS = 14u;      // 64-bit atomics issued (both passes)
const int PAINT_CELL = 8;                 // pixels per side of an occlusion cell
const uint PAINT_IN_PLACE = 256u;  // pixels a face may cost the invocation that built it
const int PAINT_JOB_ROWS = 64;     // a job's rows (one per invocation of paint_big.comp's workgroup) ...
const int PAINT_JOB_COLUMNS = 256; // ... and columns


// The level of detail and the instance within it of frame-wide instance g.
uint paint_lod_of(uint g) { return g >= pc.first.z ? 2u : g >= pc.first.y ? 1u : 0u; }

// The seam tolerance of a face: a few float steps of its coordinates (the bars' faces meet at whole texels, so
// a point on a shared edge is within rounding of both), and no more, so a silhouette grows by no visible amount.
float paint_seam(Face f) {
    float m = max(max(abs(f.ext.x), abs(f.ext.y)), max(abs(f.ext.z), abs(f.ext.w)));
    return 1e-4 + 1.2e-7 * max(m, abs(g.eye.x) + abs(g.eye.y));
}

// The pixels of row y of the face to test: those of face_row_span for the face grown by three times its seam
// tolerance (the test's own tolerance and rounding are about two), within the box's columns [x0, x1].
ivec2 paint_row(Face f, int y, int x0, int x1) {
    ivec2 span = face_row_span(f, y, 3.0 * paint_seam(f));
    return ivec2(max(span.x, x0), min(span.y, x1));
}

// The part [a, b] of a camera-facing x or y side of a bar that the camera-side neighbour n along that axis does not
// hide: n's column stands between the eye and the side, so where n is solid (its floor [0, low], its slab [mid,
// high]) the side is behind it; what is cut is a run from the bottom (the floor, then the slab above it) and one
// from the top (the slab). a ≥ b: nothing is left. The raster variant's bar has one bottom for both sides (the lower
// neighbour's floor); each face drawn alone here starts at its own.
vec2 paint_side_left(vec2 ab, Surface n) {
    if (n.outside) return ab; // past a bounded edge: nothing hides it
    ab.x = max(ab.x, n.low);
    if (n.dual) {
        if (n.mid <= ab.x && ab.x <= n.high) ab.x = n.high;
        if (n.mid <= ab.y && ab.y <= n.high) ab.y = n.mid;
    }
    return ab;
}

// Bar `bar` of the block from its column and camera-side neighbours (paint_bar_of), and the z ranges of its x and y
// sides (x: sides.xy, y: sides.zw) left by the neighbours; false when the block has no such bar.
bool paint_bar_faces(PaintBlock k, PaintColumn col, int bar, Surface sx, Surface sy, out vec3 lo, out vec3 hi,
                     out vec4 sides) {
    sides = vec4(0.0);
    bool hidden = pc.misc.x != 0u;
    if (bar == 1 && (k.flags & 8) == 0) { // no slab in the tile
        lo = hi = vec3(0.0);
        return false;
    }
    if (!paint_bar_of(k, col, bar, hidden, sx, sy, lo, hi)) return false;
    sides = vec4(lo.z, hi.z, lo.z, hi.z);
    if (hidden && k.size == 1) {
        sides.xy = paint_side_left(sides.xy, sx);
        sides.zw = paint_side_left(sides.zw, sy);
    }
    return true;
}

// The camera-side neighbours paint_bar_faces reads: those of a one-cell block with hidden sides, else none.
void paint_block_neighbours(PaintBlock k, out Surface sx, out Surface sy) {
    sx = Surface(-1.0, -1.0, -1.0, 0u, 0u, false, true);
    sy = sx;
    if (pc.misc.x != 0u && k.size == 1) paint_neighbours(k, sx, sy);
}

// The bar's camera-facing face on axis 0..2 (x, y, z) with id `id`.
Face paint_bar_face(vec3 lo, vec3 hi, vec4 sides, uint axis, uint id) {
    vec3 c = mix(lo, hi, paint_camera_high(lo, hi)); // the camera-facing side of each axis
    return axis == 0u ? Face(1u, c.x, vec4(lo.y, hi.y, sides.x, sides.y), id)
                      : (axis == 1u ? Face(2u, c.y, vec4(lo.x, hi.x, sides.z, sides.w), id)
                                    : Face(0u, c.z, vec4(lo.x, hi.x, lo.y, hi.y), id));
}

// Face `which` (0..5: the floor bar's x, y and z face, then the slab bar's) of a block; false when the block has
// no such bar. Its id, the raster variant's draw order, is 6 · instance + which.
bool paint_face(PaintBlock k, uint which, out Face f) {
    vec3 lo, hi;
    vec4 sides;
    Surface sx, sy;
    paint_block_neighbours(k, sx, sy);
    f = Face(0u, 0.0, vec4(0.0), 0u);
    if (!paint_bar_faces(k, paint_column(k), int(which / 3u), sx, sy, lo, hi, sides)) return false;
    f = paint_bar_face(lo, hi, sides, which % 3u, 0u);
    return true;
}

// The block of frame-wide instance gi.
PaintBlock paint_instance(uint gi) {
    uint lod = paint_lod_of(gi);
    return paint_block(pc.tile_base[lod], lod, gi - pc.first[lod]);
}

// The occlusion test. Nearest reverse-Z depth a pixel of the face (grown by eps) may take: its nearest corner's view
// depth, less the growth and a rounding margin; 2 (nearer than anything) when a corner is not in front of the near
// plane.
float paint_face_nearest(Face f, float eps) {
    float zmin = 1e30;
    for (int k = 0; k < 4; k++) {
        vec3 q = face_point(f, (k & 1) != 0 ? f.ext.y : f.ext.x, (k & 2) != 0 ? f.ext.w : f.ext.z) - g.eye.xyz;
        zmin = min(zmin, dot(q, g.forward.xyz));
    }
    zmin = zmin * (1.0 - 1e-5) - 4.0 * eps;
    return zmin > g.level_info.z ? depth_from_view_z(zmin) : 2.0;
}

// Whether occlusion cell c (x, y) holds only pixels drawn nearer than depth: each of them is then already
// farther from losing than any point at that depth could be (ties go to the later face, so it must be strictly).
bool paint_cell_covers(ivec2 c, float depth) {
    return uintBitsToFloat(paint_cells[c.y * ((int(g.screen_right.w) + PAINT_CELL - 1) / PAINT_CELL) + c.x]) > depth;
}

// The cells over the pixel rectangle r (inclusive x0, y0, x1, y1): x0, y0, x1, y1 in cells.
ivec4 paint_cells_of(ivec4 r) { return r / PAINT_CELL; }

// Whether every pixel of rectangle r is already drawn nearer than depth, looking at no more than `most` cells (more:
// false, drawn). Only with the earlier passes' cells (pc.phase.z); the answer may only be true where no pixel of the
// rectangle could change, so a hidden face is skipped without a change to the image.
bool paint_rect_hidden(ivec4 r, float depth, int most) {
    if (pc.phase.z == 0u || depth > 1.0) return false;
    ivec4 c = paint_cells_of(r);
    if ((c.z - c.x + 1) * (c.w - c.y + 1) > most) return false;
    for (int y = c.y; y <= c.w; y++)
        for (int x = c.x; x <= c.z; x++)
            if (!paint_cell_covers(ivec2(x, y), depth)) return false;
    return true;
}
